"""A calibration session: collect views of the mat (and optionally of the ChArUco board), fit
the table plane, learn the colours, and build the `Calibration`."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

import cv2
import numpy as np

from calibration import intrinsics
from calibration.calibfile import Calibration, default_colors
from calibration.homography import MatNotFound, PlaneFit, find_markers, fit_plane
from calibration.layout import Layout
from calibration.paleness import table_paleness
from vision.camera import COMMON_HFOV, focal_from_homography
from vision.camera import intrinsics as intrinsics_for


class CalibrationFailed(ValueError):
    """Nothing usable in the frames: one line saying what was missing."""


@dataclass
class Progress:
    """What the session has seen so far (shown to the user as it goes)."""

    frames: int = 0
    views: int = 0
    wanted: int = 0
    last: str = ""

    def line(self) -> str:
        return f"views {self.views}/{self.wanted}, frames read {self.frames}: {self.last}"


def collect_mat_views(frames: Iterable[np.ndarray], layout: Layout, wanted: int,
                      K=None, dist=None, report: Callable[[Progress], None] = lambda p: None):
    """Plane fits of the first `wanted` frames that show the mat; (fits, frame size, paleness:
    the median over those frames of `table_paleness`, None if no white patch was in view)."""
    progress, fits, size, pale = Progress(wanted=wanted), [], None, []
    for frame in frames:
        progress.frames += 1
        size = (frame.shape[1], frame.shape[0])
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        try:
            fit = fit_plane(layout, find_markers(gray), K, dist)
            fits.append(fit)
            paleness = table_paleness(frame, fit, layout)
            if paleness is not None:
                pale.append(paleness)
            progress.views += 1
            progress.last = f"{len(fit.ids)} markers, reprojection {fit.rms_mm:.2f} mm"
        except MatNotFound as exc:
            progress.last = str(exc)
        report(progress)
        if len(fits) >= wanted:
            break
    if not fits:
        raise CalibrationFailed(f"no calibration mat found in {progress.frames} frame(s)")
    return fits, size, float(np.median(pale)) if pale else None


def collect_board_views(frames: Iterable[np.ndarray], wanted: int,
                        report: Callable[[Progress], None] = lambda p: None):
    """ChArUco corner sets of the first `wanted` frames that show the board; (views, size)."""
    progress, views, size = Progress(wanted=wanted), [], None
    for frame in frames:
        progress.frames += 1
        size = (frame.shape[1], frame.shape[0])
        found = intrinsics.board_corners(frame)
        if found is not None:
            views.append(found)
            progress.views += 1
            progress.last = f"{len(found[0])} board corners"
        else:
            progress.last = "no ChArUco board"
        report(progress)
        if len(views) >= wanted:
            break
    return views, size


FOCAL_SPREAD = 0.1      # relative spread of the fitted focal length over which it is uncertain
CORNER_NOISE = 0.5      # px: how far a found marker corner may be off
START_HFOVS = (45.0, 65.0, 90.0)    # degrees: fields of view the fit starts from to test it
FLAGS = (cv2.CALIB_USE_INTRINSIC_GUESS | cv2.CALIB_FIX_PRINCIPAL_POINT | cv2.CALIB_FIX_ASPECT_RATIO
         | cv2.CALIB_ZERO_TANGENT_DIST | cv2.CALIB_FIX_K2 | cv2.CALIB_FIX_K3)


def _calibrate(obj: list, img: list, size, K: np.ndarray, flags: int = FLAGS) -> tuple[np.ndarray, np.ndarray]:
    """K and the 5 distortion terms fitted from the start `K` (OpenCV's calibrateCamera)."""
    _, K2, dist, _, _ = cv2.calibrateCamera(obj, img, tuple(size), K.copy(), np.zeros(5), flags=flags)
    return K2, dist.ravel()[:5]


def fit_lens(obj: list, img: list, size, K: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Focal length and k1 fitted from the start `K`; where the fit runs away from it (over
    30 % off: a plane seen nearly straight down does not tell the focal length), k1 alone."""
    K2, dist = _calibrate(obj, img, size, K)
    if not 0.7 < K2[0, 0] / K[0, 0] < 1.4:
        K2, dist = _calibrate(obj, img, size, K, FLAGS | cv2.CALIB_FIX_FOCAL_LENGTH)
    return K2, dist


def estimate_intrinsics(fits: list[PlaneFit], size) -> tuple[np.ndarray, np.ndarray, str]:
    """K, distortion and their source from the mat's marker corners alone: principal point at
    the centre, square pixels, one radial term (k1) and the focal length, fitted over the views
    (the markers at the corners of the area span the frame), starting from the homographies'
    focal. The source is 'uncertain' where fits started from other fields of view
    (START_HFOVS), with the corners moved by CORNER_NOISE, end more than FOCAL_SPREAD apart:
    the views do not pin the focal length down (a plane seen nearly straight down), and the
    focal length is then a common camera's (COMMON_HFOV) with k1 fitted to it; else
    'estimated'."""
    f = float(np.median([focal_from_homography(fit.H, size) for fit in fits]))
    K = np.array([[f, 0, (size[0] - 1) / 2], [0, f, (size[1] - 1) / 2], [0, 0, 1]])
    views = [fit for fit in fits if fit.table is not None and len(fit.ids) >= 3]
    if not views:
        return K, np.zeros(5), "uncertain"
    obj = [v.object_points() for v in views]
    img = [v.image.astype(np.float32) for v in views]
    K2, dist = fit_lens(obj, img, size, K)
    rng = np.random.default_rng(0)
    focals = []
    for hfov in START_HFOVS:    # the fit again from other starts, the corners off by the noise
        start = intrinsics_for(tuple(size), hfov)
        noisy = [(i + rng.normal(0, CORNER_NOISE, i.shape)).astype(np.float32) for i in img]
        focals.append(_calibrate(obj, noisy, size, start)[0][0, 0])
    if (max(focals) - min(focals)) / K2[0, 0] <= FOCAL_SPREAD:
        return K2, dist, "estimated"
    K2, dist = _calibrate(obj, img, size, intrinsics_for(tuple(size), COMMON_HFOV), FLAGS | cv2.CALIB_FIX_FOCAL_LENGTH)
    return K2, dist, "uncertain"


def build(layout: Layout, fits: list[PlaneFit], size, K=None, dist=None, source="charuco",
          colors=None, mm_per_px: float = 1.0) -> Calibration:
    """The calibration from plane fits (the best one is kept); without K the intrinsics are
    estimated from the markers (`estimate_intrinsics`) and the plane refitted with them."""
    if K is None:
        K, dist, source = estimate_intrinsics(fits, size)
        fits = [fit_plane(layout, {i: fit.image[4 * k:4 * k + 4] for k, i in enumerate(fit.ids)}, K, dist)
                if fit.image is not None else fit for fit in fits]
    best = min(fits, key=lambda fit: (-len(fit.ids), fit.rms_mm))
    return Calibration(layout, size, np.asarray(K, np.float64), np.asarray(dist, np.float64).ravel(),
                       source, colors or default_colors(), best.H, best.rms_mm, mm_per_px)
