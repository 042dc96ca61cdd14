"""Camera intrinsics from a few views of a printed ChArUco board (for wide or distorting lenses)."""
from __future__ import annotations

import cv2
import numpy as np

BOARD_SQUARES = (7, 5)
SQUARE_MM = 30.0
MARKER_MM = 22.0
MIN_CORNERS = 8      # ChArUco corners a view needs to count
MIN_VIEWS = 3


def board() -> cv2.aruco.CharucoBoard:
    """The board `icetable mat --kind charuco` prints (its own dictionary, so its markers never
    pass for the mat's)."""
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_5X5_100)
    return cv2.aruco.CharucoBoard(BOARD_SQUARES, SQUARE_MM, MARKER_MM, dictionary)


def board_image(px_per_mm: float) -> np.ndarray:
    """The board as a grey image with a one-square white margin, at `px_per_mm`."""
    cols, rows = BOARD_SQUARES
    margin = int(round(SQUARE_MM * px_per_mm))
    size = (int(round(cols * SQUARE_MM * px_per_mm)), int(round(rows * SQUARE_MM * px_per_mm)))
    image = board().generateImage(size, marginSize=0, borderBits=1)
    return cv2.copyMakeBorder(image, margin, margin, margin, margin, cv2.BORDER_CONSTANT, value=255)


def board_corners(frame: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Object points (mm, z = 0) and image points of the board's corners seen in a frame."""
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    b = board()
    corners, ids, _, _ = cv2.aruco.CharucoDetector(b).detectBoard(gray)
    if ids is None or len(ids) < MIN_CORNERS:
        return None
    obj, img = b.matchImagePoints(corners, ids)
    return obj.reshape(-1, 3).astype(np.float32), img.reshape(-1, 2).astype(np.float32)


def calibrate(views: list[tuple[np.ndarray, np.ndarray]], size: tuple[int, int]):
    """K, distortion and RMS reprojection error (px) from board views; ValueError if too few."""
    if len(views) < MIN_VIEWS:
        raise ValueError(f"saw the ChArUco board in {len(views)} views, need {MIN_VIEWS}")
    obj = [v[0] for v in views]
    img = [v[1] for v in views]
    rms, K, dist, _, _ = cv2.calibrateCamera(obj, img, size, None, None)
    return K, dist.ravel()[:5], float(rms)
