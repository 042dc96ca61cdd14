"""Learn the colours of the user's pyramids from one photo of them on the palette sheet."""
from __future__ import annotations

import cv2
import numpy as np

from calibration.colors import ColorProfile
from calibration.homography import MatNotFound, PlaneFit, find_markers, fit_plane
from calibration.layout import SPOT_FIELD, palette_layout
from vision.pyramids import PALE
from vision.segment import foreground_mask, log_ratio, unlike_table
from vision.topview import rectify

RING = (24.0, 30.0)      # mm from a spot's centre: the empty grey field around its pyramid
REACH = 21.0             # mm from a spot's centre: where its pyramid's pixels are
MIN_PIXELS = 40


def palette_fit(frame: np.ndarray, K: np.ndarray, dist: np.ndarray | None) -> PlaneFit:
    """The palette sheet's plane in a photo of it; MatNotFound if the sheet is not in it."""
    layout = palette_layout()
    fit = fit_plane(layout, find_markers(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)), K, dist)
    if not any(i in fit.ids for i in layout.marker_points()):
        raise MatNotFound("the palette sheet's markers are not in the photo")
    return fit


def learn_colors(frame: np.ndarray, K: np.ndarray, dist: np.ndarray | None,
                 mm_per_px: float = 1.0, fit: PlaneFit | None = None) -> ColorProfile:
    """A colour profile from a photo of the palette sheet with a pyramid standing on each spot
    (spots left empty are skipped; `fit`: the sheet's `palette_fit`, when already known).
    MatNotFound if the sheet is not in the photo, ValueError if no spot holds a pyramid."""
    layout = palette_layout()
    fit = fit or palette_fit(frame, K, dist)
    xs = [s[1] for s in layout.spots]
    ys = [s[2] for s in layout.spots]
    region = (min(xs) - SPOT_FIELD, min(ys) - SPOT_FIELD, max(xs) + SPOT_FIELD, max(ys) + SPOT_FIELD)
    view = rectify(frame, fit, region, mm_per_px, K, dist)
    rows, cols = np.mgrid[0:view.image.shape[0], 0:view.image.shape[1]]
    tx, ty = view.to_table(cols, rows)
    samples = {}
    for colour, sx, sy in layout.spots:
        r = np.hypot(tx - sx, ty - sy)
        ring = (r > RING[0]) & (r < RING[1])
        table = np.median(view.image[ring].astype(np.float32), axis=0)
        features = log_ratio(view.image, np.broadcast_to(table, view.image.shape).astype(np.float32))
        mask = foreground_mask(features)
        mask[r > REACH] = 0
        keep = cv2.erode(mask, np.ones((3, 3), np.uint8)) > 0
        if colour not in PALE:     # a pale piece's faces turned from the light barely differ
            keep &= unlike_table(features)
        if np.count_nonzero(keep) >= MIN_PIXELS / mm_per_px ** 2:
            samples[colour] = features[keep]
    if not samples:
        raise ValueError("no pyramid found on the palette's spots")
    return ColorProfile.fit(samples)
