"""Whether a calibration fits the frame it is used on: made for a camera of this image size, for
the mat in view (the markers found sit where its layout puts them), and for this camera's lens
(the markers sit where its intrinsics put them from the best camera pose). Each misfit is a
one-line warning; the frame is still read, as the user may know better."""
from __future__ import annotations

import cv2
import numpy as np

from calibration.calibfile import Calibration
from calibration.homography import MatNotFound, PlaneFit, find_markers, fit_plane
from calibration.session import fit_lens

MAX_MAT_ERROR = 2.0     # mm: the markers of the right layout fit within 1 mm (as `calibrate` refuses)
MIN_LENS_ERROR = 1.0    # mm: a lens misfit smaller than this is not told
LENS_FACTOR = 2.0       # how many times the best fit's error the calibration's lens must be off
                        # (the right lens fits as well as the best, 0.2 to 1.2 mm on rendered frames;
                        # another camera's 2 to 30 times worse)


def misfits(calibration: Calibration, frame: np.ndarray) -> list[str]:
    """Warnings on how the calibration does not fit this frame, BGR or grey (none when it fits)."""
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    out = []
    h, w = gray.shape[:2]
    cw, ch = calibration.image_size
    if (w, h) != (cw, ch):
        out.append(f"the calibration is for a {cw}x{ch} camera, this frame is {w}x{h}: "
                   f"pieces may be misplaced (calibrate this camera)")
    try:
        fit = fit_plane(calibration.layout, find_markers(gray), calibration.K, calibration.dist)
    except MatNotFound:
        return out          # no mat: the detector says so
    if fit.rms_mm > MAX_MAT_ERROR:
        out.append(f"the mat in view does not match the calibration's {calibration.layout.name} "
                   f"(its markers are {fit.rms_mm:.0f} mm off): a calibration for another mat, play area "
                   f"or camera lens?")
    elif not out:
        out += _lens_misfit(calibration, fit)
    return out


def _lens_misfit(calibration: Calibration, fit: PlaneFit) -> list[str]:
    """A warning when the marker corners sit much farther from where the calibration's lens puts
    them (from the camera pose that fits them best) than from where the best fit puts them: the
    table plane alone, or this frame's own lens (focal length and k1 fitted to its corners, as
    `calibrate` does). That is the calibration of another camera of the same image size."""
    try:
        error = lens_error_mm(fit, calibration.K, calibration.dist)
        K, dist = fit_lens([fit.object_points()], [fit.image.astype(np.float32)], calibration.image_size,
                           calibration.K)
        own = lens_error_mm(fit, K, dist)
    except cv2.error:       # corners too few or degenerate to fit a pose or a lens to: cannot tell
        return []
    best = max(min(fit.rms_mm, own), calibration.rms_mm or 0.0)
    if error <= max(MIN_LENS_ERROR, LENS_FACTOR * best):
        return []
    return [f"the camera's lens does not fit this frame: the mat's markers sit {error:.1f} mm from where "
            f"the calibration's lens (focal length {calibration.K[0, 0]:.0f} px, k1 {calibration.dist[0]:+.2f}) "
            f"puts them, {best:.1f} mm from where the best fit to this frame does: a calibration of another "
            f"camera? (calibrate this camera)"]


def lens_error_mm(fit: PlaneFit, K: np.ndarray, dist: np.ndarray) -> float:
    """RMS distance (mm on the table, at the markers' scale) of the found marker corners from
    their projection through K and `dist` from the camera pose fitted to them (solvePnP)."""
    table = fit.object_points()
    ok, rvec, tvec = cv2.solvePnP(table, fit.image, K, dist)
    if not ok:
        return float("inf")
    image = cv2.projectPoints(table, rvec, tvec, K, dist)[0].reshape(-1, 2)
    px = float(np.sqrt(np.mean(np.sum((image - fit.image) ** 2, axis=1))))
    sides_mm = np.linalg.norm(np.diff(fit.table.reshape(-1, 4, 2), axis=1), axis=2)
    sides_px = np.linalg.norm(np.diff(fit.image.reshape(-1, 4, 2), axis=1), axis=2)
    return px * float(np.median(sides_mm / sides_px))
