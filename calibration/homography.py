"""Find the mat's markers in a frame and fit the table-to-image homography."""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.colors import linear_levels
from calibration.layout import ARUCO_DICT, Layout

HALVE_ABOVE = 1400     # px: wider frames are searched for markers at half size
MIN_MARKERS = 2      # two markers give 8 corners: enough for a homography, checked by RMS


class MatNotFound(ValueError):
    """The frame does not show enough of the calibration mat."""


def detector(threshold_constant: float = 7.0) -> cv2.aruco.ArucoDetector:
    """An ArUco detector of the mat's dictionary. Each bit is read from the middle of its cell
    (8 px per cell, 30 % of the cell ignored at each side, OpenCV's defaults being 4 and 13 %):
    on a small, bright-lit card white cells bleed into the black ones beside them, and the
    default reading took the bleed for bits and found 1 marker of 4."""
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_NONE    # refined below, in linear light
    params.adaptiveThreshConstant = threshold_constant
    params.perspectiveRemovePixelPerCell = 8
    params.perspectiveRemoveIgnoredMarginPerCell = 0.3
    return cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(ARUCO_DICT), params)


# the default, then a lower threshold that finds small markers in dim, soft frames
_DETECTORS = (detector(7.0), detector(3.0))
# sRGB level -> linear light (scaled to 0..255): a blurred edge is symmetric only in linear light
_LINEAR = linear_levels(255.0)


def find_markers(gray: np.ndarray, wanted: int = 4) -> dict[int, np.ndarray]:
    """Marker id -> its 4 image corners (4, 2), as OpenCV orders them; a second pass runs when
    fewer than `wanted` markers were found. Large frames are searched at half size first, then
    at full size if markers are still missing (a far camera's cards). Corners are
    refined on the full frame in linear light: refined on gamma-encoded levels, a blurred black
    square looks smaller than it is, and the plane fit from fewer than four markers tilts."""
    found: dict[int, np.ndarray] = {}
    if gray.shape[1] > HALVE_ABOVE:
        found = {i: c * 2 + 0.5 for i, c in _search(cv2.pyrDown(gray), wanted).items()}
    if len(found) < wanted:
        found = {**_search(gray, wanted), **found}
    return {i: _refine_corners(gray, c) for i, c in found.items()}


def _search(image: np.ndarray, wanted: int) -> dict[int, np.ndarray]:
    """Markers found in `image` by each detector in turn, until `wanted` are found."""
    found: dict[int, np.ndarray] = {}
    for det in _DETECTORS:
        corners, ids, _ = det.detectMarkers(image)
        if ids is not None:
            for i, c in zip(ids.ravel(), corners):
                found.setdefault(int(i), c.reshape(4, 2).astype(np.float64))
        if len(found) >= wanted:
            break
    return found


def _refine_corners(gray: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """Sub-pixel corners of one marker, on a linear-light crop around it."""
    h, w = gray.shape
    x0, y0 = np.maximum(np.floor(corners.min(axis=0)).astype(int) - 8, 0)
    x1, y1 = np.minimum(np.ceil(corners.max(axis=0)).astype(int) + 9, (w, h))
    crop = _LINEAR[gray[y0:y1, x0:x1]]
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 40, 0.001)
    pts = (corners - (x0, y0)).astype(np.float32).reshape(-1, 1, 2)
    return cv2.cornerSubPix(crop, pts, (4, 4), (-1, -1), criteria).reshape(-1, 2).astype(np.float64) + (x0, y0)


def undistort_points(points: np.ndarray, K: np.ndarray | None, dist: np.ndarray | None) -> np.ndarray:
    """Pixel coordinates with the lens distortion removed (unchanged without intrinsics)."""
    if K is None or dist is None or not np.any(dist):
        return np.asarray(points, np.float64)
    pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
    return cv2.undistortPoints(pts, K, dist, P=K).reshape(-1, 2)


@dataclass(frozen=True)
class PlaneFit:
    """H maps table mm to undistorted image pixels; `rms_mm` is the reprojection error of the
    marker corners measured back on the table; `ids` the markers used; `table` and `image` their
    corners (mm, and pixels as found, lens distortion included)."""

    H: np.ndarray
    rms_mm: float
    ids: tuple[int, ...]
    table: np.ndarray | None = None
    image: np.ndarray | None = None

    def object_points(self) -> np.ndarray:
        """The marker corners on the table as 3D points (mm, z = 0), float32 as OpenCV's
        camera fits take them."""
        return np.column_stack([self.table, np.zeros(len(self.table))]).astype(np.float32)

    def to_table(self, pixels: np.ndarray) -> np.ndarray:
        pts = np.asarray(pixels, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, np.linalg.inv(self.H)).reshape(-1, 2)

    def to_image(self, table: np.ndarray) -> np.ndarray:
        pts = np.asarray(table, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, self.H).reshape(-1, 2)


def fit_plane(layout: Layout, found: dict[int, np.ndarray], K=None, dist=None) -> PlaneFit:
    """Fit H from the layout's markers found in a frame; MatNotFound if too few are visible."""
    known = layout.marker_points()
    ids = tuple(sorted(i for i in found if i in known))
    if len(ids) < MIN_MARKERS:
        raise MatNotFound(f"found {len(ids)} of the mat's {len(known)} markers (need {MIN_MARKERS})")
    table = np.concatenate([known[i] for i in ids])
    raw = np.concatenate([found[i] for i in ids])
    image = undistort_points(raw, K, dist)
    # RANSAC (when there are points to spare) drops a misread marker corner
    H, _ = cv2.findHomography(table, image, cv2.RANSAC if len(ids) > 2 else 0, 4.0)
    if H is None:
        raise MatNotFound("the markers found do not define a plane")
    fit = PlaneFit(H, 0.0, ids)
    err = np.linalg.norm(fit.to_table(image) - table, axis=1)
    return PlaneFit(H, float(np.sqrt(np.mean(err ** 2))), ids, table, raw)
