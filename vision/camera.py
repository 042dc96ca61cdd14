"""A pinhole camera with lens distortion over the table frame.

World frame = table frame of SCENE.md extended to 3D: x right, y down (mm), z INTO the table,
so a point h mm above the table has z = -h. A camera straight above the table with no rotation
sees the table in its default orientation (image x along table x, image y along table y).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

COMMON_HFOV = 65.0      # degrees across: a webcam's or phone's field of view, where nothing tells it


@dataclass(frozen=True)
class Camera:
    """Intrinsics `K` (3x3), distortion `dist` (OpenCV k1 k2 p1 p2 k3), rotation `R`
    (world -> camera), centre `C` (world, mm) and image `size` (w, h) in pixels."""

    K: np.ndarray
    dist: np.ndarray
    R: np.ndarray
    C: np.ndarray
    size: tuple[int, int]

    @property
    def rvec(self) -> np.ndarray:
        return cv2.Rodrigues(self.R)[0]

    @property
    def tvec(self) -> np.ndarray:
        return -self.R @ self.C

    def project(self, points: np.ndarray, distort: bool = True) -> np.ndarray:
        """Image pixels (N, 2) of world points (N, 3)."""
        pts = np.asarray(points, np.float64).reshape(-1, 1, 3)
        dist = self.dist if distort else np.zeros(5)
        out, _ = cv2.projectPoints(pts, self.rvec, self.tvec, self.K, dist)
        return out.reshape(-1, 2)

    def depth(self, points: np.ndarray) -> np.ndarray:
        """Distance along the optical axis of world points (N, 3)."""
        return ((np.asarray(points) - self.C) @ self.R.T)[:, 2]

    def table_homography(self) -> np.ndarray:
        """3x3 H mapping table (x, y, 1) in mm to undistorted image pixels."""
        Rt = np.column_stack([self.R[:, 0], self.R[:, 1], self.tvec.ravel()])
        H = self.K @ Rt
        return H / H[2, 2]


def intrinsics(size: tuple[int, int], hfov_deg: float) -> np.ndarray:
    """K for an image of `size` with horizontal field of view `hfov_deg`, centred."""
    w, h = size
    f = w / 2 / math.tan(math.radians(hfov_deg) / 2)
    return np.array([[f, 0, (w - 1) / 2], [0, f, (h - 1) / 2], [0, 0, 1]], np.float64)


def looking_at(K: np.ndarray, dist, size, centre, target, roll_deg: float = 0.0) -> Camera:
    """A camera at world point `centre` aimed at `target`, image 'up' toward table -y."""
    C = np.asarray(centre, np.float64)
    z = np.asarray(target, np.float64) - C
    z /= np.linalg.norm(z)
    down = np.array([0.0, 1.0, 0.0])
    x = np.cross(down, z)
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    R = np.vstack([x, y, z])
    if roll_deg:
        c, s = math.cos(math.radians(roll_deg)), math.sin(math.radians(roll_deg))
        R = np.array([[c, s, 0], [-s, c, 0], [0, 0, 1]]) @ R
    return Camera(np.asarray(K, np.float64), np.asarray(dist, np.float64).ravel(), R, C, tuple(size))


def pose_from_homography(H: np.ndarray, K: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rotation and centre of the camera from H (table mm -> undistorted pixels) and K."""
    A = np.linalg.inv(K) @ H
    scale = 2.0 / (np.linalg.norm(A[:, 0]) + np.linalg.norm(A[:, 1]))
    A = A * scale
    if A[2, 2] < 0:          # the table must lie in front of the camera
        A = -A
    r1, r2, t = A[:, 0], A[:, 1], A[:, 2]
    R = np.column_stack([r1, r2, np.cross(r1, r2)])
    u, _, vt = np.linalg.svd(R)
    R = u @ vt
    if np.linalg.det(R) < 0:
        R = u @ np.diag([1, 1, -1]) @ vt
    return R, -R.T @ t


def focal_from_homography(H: np.ndarray, size: tuple[int, int], default_hfov: float = COMMON_HFOV) -> float:
    """Focal length (px) from the orthogonality of the table axes, principal point at the image
    centre; falls back to `default_hfov` when the camera looks nearly straight down."""
    w, h = size
    T = np.array([[1, 0, -(w - 1) / 2], [0, 1, -(h - 1) / 2], [0, 0, 1]])
    G = T @ H
    G = G / np.linalg.norm(G[:, 0])
    denom = G[2, 0] * G[2, 1]
    if abs(denom) > 1e-12:
        f2 = -(G[0, 0] * G[0, 1] + G[1, 0] * G[1, 1]) / denom
        if f2 > 0 and 0.3 * w < math.sqrt(f2) < 5 * w:
            return math.sqrt(f2)
    return w / 2 / math.tan(math.radians(default_hfov) / 2)
