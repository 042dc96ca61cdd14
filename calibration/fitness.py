"""Whether a calibration fits the frame it is used on: made for a camera of this image size,
and for the mat in view (the markers found sit where its layout puts them). Each misfit is a
one-line warning; the frame is still read, as the user may know better."""
from __future__ import annotations

import cv2
import numpy as np

from calibration.calibfile import Calibration
from calibration.homography import MatNotFound, find_markers, fit_plane

MAX_MAT_ERROR = 2.0     # mm: the markers of the right layout fit within 1 mm (as `calibrate` refuses)


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
                   f"(its markers are {fit.rms_mm:.0f} mm off): a calibration for another mat or play area?")
    return out
