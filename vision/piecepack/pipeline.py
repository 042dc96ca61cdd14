"""IceFloe and Iceberg frames to scenes: the piecepack pipeline of `vision.detector`.

check the frame -> find the mat -> rectify the play area at the tiles' top (0.5 mm per pixel,
light-normalised) -> `PiecepackDetector` -> ids -> a SCENE.md scene. The set's profile is the
calibration file's `piecepack` section (written by `icetable calibrate --enrol`), else the
shipped default profile of the standard suits.
"""
from __future__ import annotations

import cv2

from calibration.homography import MatNotFound, PlaneFit, find_markers, fit_plane
from referee.scene import Scene, scene_from_dict
from vision import detector as pipeline
from vision.piecepack import profile as pp
from vision.piecepack.detect import AREA_MARGIN, PiecepackDetector, with_ids
from vision.piecepack.view import PlaneView, plane_view

GAMES = ("icefloe", "iceberg")
_CACHE: dict = {}


def profile_of(calibration) -> pp.Profile:
    """The calibration's enrolled profile, else the default one."""
    data = calibration.extra.get("piecepack")
    return pp.Profile.from_dict(data, "calibration 'piecepack'") if data else pp.default()


def _detector_for(calibration, dims) -> PiecepackDetector:
    key = (id(calibration), id(dims))
    if key not in _CACHE:
        if len(_CACHE) > 4:
            _CACHE.clear()
        _CACHE[key] = (calibration, PiecepackDetector(profile_of(calibration), dims))
    return _CACHE[key][1]


def table_fit(detector, frame) -> PlaneFit:
    """The table's homography in a BGR frame, from the mat's markers; FrameError when the frame
    cannot be read or shows no mat."""
    cal = detector.calibration
    try:
        return fit_plane(cal.layout, find_markers(pipeline.check_frame(frame)), cal.K, cal.dist)
    except MatNotFound as exc:
        raise pipeline.FrameError(f"no calibration mat in the frame: {exc}") from None


def view_region(detector) -> tuple[float, float, float, float]:
    """The table area the top view covers (x0, y0, x1, y1 mm): the play area and a margin."""
    w, h = detector.calibration.layout.area
    return -AREA_MARGIN, -AREA_MARGIN, w + AREA_MARGIN, h + AREA_MARGIN


def view_of(detector, frame) -> PlaneView:
    """The light-normalised top view of the tiles' tops in a BGR frame; `detector` is the
    `vision.detector.Detector` (its calibration and dimensions). FrameError when the frame
    cannot be read."""
    fit = table_fit(detector, frame)
    cal = detector.calibration
    return plane_view(frame if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR), fit, cal.K,
                      cal.dist, view_region(detector), detector.dims.tile_thickness)


def detect(detector, frame, game: str) -> Scene:
    """The scene of a piecepack game in a BGR frame (`view_of`)."""
    w, h = detector.calibration.layout.area
    found = _detector_for(detector.calibration, detector.dims).detect(view_of(detector, frame), game)
    return scene_from_dict({"format": "icetable-scene/1", "game": game,
                            "area": {"width": round(w, 1), "height": round(h, 1)},
                            "pieces": with_ids(found)}, "<detected>")


pipeline.GAME_PIPELINES.update({game: detect for game in GAMES})
