"""Synthetic frames for the live-loop tests: a grey table seen through a known homography,
coloured squares for standing pyramids, a skin-coloured arm reaching in from the edge, and a
small colour-blob reader standing in for the detector (so settle and tracking are tested on
real OpenCV images without depending on the trained detector)."""
from __future__ import annotations

import cv2
import numpy as np

from referee.dimensions import DEFAULT
from referee.scene import Piece, Scene

AREA = (400.0, 300.0)
SIZE = (640, 480)
SCALE = 1.4                      # px per mm
OFFSET = (40.0, 30.0)
COLOURS = {"red": (40, 40, 220), "blue": (220, 90, 30), "green": (60, 190, 60)}


def homography(shift: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
    """Table mm -> frame pixels (a camera straight above; `shift` pixels after a bump)."""
    return np.array([[SCALE, 0, OFFSET[0] + shift[0]], [0, SCALE, OFFSET[1] + shift[1]], [0, 0, 1]])


def frame(pieces: list[Piece], arm: tuple | None = None, shift=(0.0, 0.0), seed: int = 0) -> np.ndarray:
    """A BGR frame of standing pyramids (squares) and an optional arm ((x0, y0), (x1, y1)) in mm."""
    H = homography(shift)
    img = np.full((SIZE[1], SIZE[0], 3), 120, np.uint8)
    corners = np.array([[0, 0], [AREA[0], 0], [AREA[0], AREA[1]], [0, AREA[1]]], np.float64)
    cv2.fillPoly(img, [_px(H, corners)], (170, 170, 165))
    for p in pieces:
        half = DEFAULT.looney_base[p.size] / 2
        sq = np.array([[p.x - half, p.y - half], [p.x + half, p.y - half],
                       [p.x + half, p.y + half], [p.x - half, p.y + half]])
        cv2.fillPoly(img, [_px(H, sq)], COLOURS[p.color])
    if arm is not None:
        a, b = _px(H, np.array(arm, np.float64))
        cv2.line(img, tuple(map(int, a)), tuple(map(int, b)), (120, 160, 215), int(70 * SCALE))
        cv2.circle(img, tuple(map(int, b)), int(45 * SCALE), (120, 160, 215), -1)
    noise = np.random.default_rng(seed).normal(0, 2.0, img.shape)
    return np.clip(img + noise, 0, 255).astype(np.uint8)


def _px(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    return np.rint(cv2.perspectiveTransform(pts.reshape(-1, 1, 2), H).reshape(-1, 2)).astype(np.int32)


def read_blobs(img: np.ndarray, H: np.ndarray | None = None) -> Scene:
    """Saturated red/blue/green squares as standing pyramids (size from the area)."""
    H = homography() if H is None else H
    hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
    pieces = []
    for name, bgr in COLOURS.items():
        hue = cv2.cvtColor(np.uint8([[bgr]]), cv2.COLOR_BGR2HSV)[0, 0, 0]
        mask = ((np.abs(hsv[..., 0].astype(int) - int(hue)) < 8) & (hsv[..., 1] > 120)).astype(np.uint8)
        n, _, stats, cents = cv2.connectedComponentsWithStats(mask)
        for i in range(1, n):
            side = np.sqrt(stats[i, 4]) / SCALE
            if side < 10:
                continue
            size = min((1, 2, 3), key=lambda s: abs(DEFAULT.looney_base[s] - side))
            x, y = cv2.perspectiveTransform(cents[i].reshape(1, 1, 2), np.linalg.inv(H)).ravel()
            pieces.append(Piece(f"{name}{len(pieces)}", "pyramid", float(x), float(y), color=name,
                                size=size, pose="standing"))
    return Scene("icehouse", tuple(pieces), AREA)


def locate(shift_of) -> callable:
    """A mat finder that reports the current homography (`shift_of()` gives the bump)."""
    return lambda img: homography(shift_of())
