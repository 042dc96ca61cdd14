"""Silhouettes of piecepack solids on the view plane, and fitting them to blobs.

A standing piece (piecepack pyramid, die, pawn) of known size at a known base height casts a
known outline on the plane of the view, seen from the camera centre: its top leans away from
the nadir. Fitting moves the outline until its centroid is the blob's (the outline's shape
is nearly rigid under small moves) and ranks shapes and sizes by overlap (IoU) with the blob.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from referee.dimensions import DEFAULT, PP_LETTERS, Dimensions
from vision.piecepack.solids import PAWN_HEIGHT, circle, pp_pyramid, prism, square
from vision.piecepack.view import PlaneView, on_plane

SUB = 3
CANDIDATES = 4               # shapes nearest the blob's area that are fitted
YAWS = (30.0, 60.0)          # turns tried first unless the blob's own turn fits this well:
GOOD_IOU = 0.85
FINE_YAWS = (-6.0, 6.0)
FINER_YAWS = (-3.0, 3.0)


@dataclass(frozen=True)
class Shape:
    """A kind of standing piece: `type` of SCENE.md and `size` (a letter for pyramids)."""

    type: str
    size: str | None = None

    def solid(self, x: float, y: float, yaw: float, z0: float, dims: Dimensions):
        if self.type == "pp_pyramid":
            return pp_pyramid(x, y, dims.pp_pyramid_base[self.size], dims.pp_pyramid_height[self.size], yaw, z0)
        if self.type == "die":
            return prism(square(x, y, dims.die, yaw), z0, dims.die)
        return prism(circle(x, y, dims.pawn), z0, PAWN_HEIGHT)

    def footprint(self, x: float, y: float, yaw: float, dims: Dimensions) -> np.ndarray:
        """The base's outline (N, 2) on the surface the piece stands on."""
        vertices = self.solid(x, y, yaw, 0.0, dims).vertices
        return vertices[vertices[:, 2] == 0.0, :2]

    @property
    def turns(self) -> bool:
        return self.type != "pawn"


SHAPES = tuple(Shape("pp_pyramid", s) for s in PP_LETTERS) + (Shape("die"), Shape("pawn"))


_LOCAL: dict = {}


def _local(shape: Shape, dims: Dimensions) -> np.ndarray:
    """The shape's vertices (N, 3) about its base centre, unturned, resting on the table."""
    key = (shape, id(dims))
    if key not in _LOCAL:
        _LOCAL[key] = (dims, shape.solid(0.0, 0.0, 0.0, 0.0, dims).vertices.copy())
    return _LOCAL[key][1]


def outline(shape: Shape, x: float, y: float, yaw: float, z0: float, pv: PlaneView,
            dims: Dimensions = DEFAULT) -> np.ndarray:
    """The convex outline (N, 2), in mm on the view's plane, of a piece seen from the camera."""
    local = _local(shape, dims)
    c, s = math.cos(math.radians(yaw)), math.sin(math.radians(yaw))
    xy = local[:, :2] @ np.array([[c, s], [-s, c]]) + (x, y)
    pts = on_plane(xy, pv.centre, z0 - local[:, 2:3], pv.height)
    return cv2.convexHull(pts.astype(np.float32)).reshape(-1, 2)


def centroid(poly: np.ndarray) -> np.ndarray:
    m = cv2.moments(poly.astype(np.float32))
    return np.array([m["m10"] / m["m00"], m["m01"] / m["m00"]]) if m["m00"] else poly.mean(axis=0)


def raster(poly_mm: np.ndarray, pv: PlaneView, box: tuple[int, int, int, int]) -> np.ndarray:
    """uint8 0/1 mask of an outline in the view crop box (x0, y0, x1, y1) px."""
    x0, y0, x1, y1 = box
    return _filled((pv.top.to_pixels(poly_mm) - (x0, y0)) * (1 << SUB), (y1 - y0, x1 - x0))


def _filled(points: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """uint8 0/1 mask (h, w) of a convex polygon in pixels scaled by 2**SUB (its sub-pixel bits)."""
    mask = np.zeros(size, np.uint8)
    cv2.fillConvexPoly(mask, np.round(points).astype(np.int32), 1, cv2.LINE_8, SUB)
    return mask


@dataclass
class Fit:
    shape: Shape
    x: float
    y: float
    yaw: float
    iou: float
    mask: np.ndarray     # the outline rasterised in the blob's box


class Fitter:
    """Fits standing shapes to one blob (a uint8 0/1 crop at `box` of the view). Pixels set
    in `hidden` (pieces already found in front) count neither for nor against a shape."""

    def __init__(self, pv: PlaneView, blob: np.ndarray, box, z0: float, dims: Dimensions = DEFAULT,
                 hidden: np.ndarray | None = None, opening: np.ndarray | None = None):
        self.pv, self.blob, self.box, self.z0, self.dims = pv, blob, box, z0, dims
        self.opening = opening
        self.visible = None if hidden is None or not hidden.any() else (hidden == 0).astype(np.uint8)
        rows, cols = np.nonzero(blob if self.visible is None or not np.any(blob & self.visible) else blob & self.visible)
        self.centre = pv.mm(cols.mean() + box[0], rows.mean() + box[1])
        self.area = len(rows) * pv.top.mm_per_px ** 2
        self._blob_seen = blob if self.visible is None else blob & self.visible
        self._blob_count = np.count_nonzero(self._blob_seen)
        self._outlines: dict = {}

    def outline(self, shape: Shape, x: float, y: float, yaw: float) -> np.ndarray:
        """The shape's outline with its base at (x, y): computed once per shape and yaw at the
        blob's centre and moved (over a blob, the lean hardly changes)."""
        return self._outline(shape, yaw)[0] + (x, y)

    def _outline(self, shape: Shape, yaw: float) -> tuple[np.ndarray, np.ndarray]:
        """(outline in mm, outline in view pixels) about the base centre, cached per shape and yaw."""
        key = (shape, round(yaw, 3))
        if key not in self._outlines:
            rel = outline(shape, *self.centre, yaw, self.z0, self.pv, self.dims) - self.centre
            self._outlines[key] = rel, rel * ((1 << SUB) / self.pv.top.mm_per_px)
        return self._outlines[key]

    def _raster(self, shape: Shape, x: float, y: float, yaw: float, pad: int = 0) -> np.ndarray:
        """`raster` of the outline in the blob's box grown by `pad` pixels on each side, from the
        outline cached in pixels."""
        x0, y0, x1, y1 = self.box
        (ox, oy), s = self.pv.top.origin, self.pv.top.mm_per_px
        offset = (((x - ox) / s - 0.5 - x0 + pad) * (1 << SUB), ((y - oy) / s - 0.5 - y0 + pad) * (1 << SUB))
        return _filled(self._outline(shape, yaw)[1] + offset, (y1 - y0 + 2 * pad, x1 - x0 + 2 * pad))

    def _seen_centroid(self, shape: Shape, x: float, y: float, yaw: float) -> tuple[float, float]:
        if self.visible is None:
            return centroid(self.outline(shape, x, y, yaw))
        m = cv2.moments(self._raster(shape, x, y, yaw) & self.visible, binaryImage=True)
        if not m["m00"]:
            return centroid(self.outline(shape, x, y, yaw))
        return self.pv.top.to_table(m["m10"] / m["m00"] + self.box[0], m["m01"] / m["m00"] + self.box[1])

    def place(self, shape: Shape, yaw: float) -> tuple[float, float]:
        """Base centre whose outline's (visible) centroid is the blob's."""
        x, y = self.centre
        for _ in range(2):
            c = self._seen_centroid(shape, x, y, yaw)
            x, y = x + self.centre[0] - c[0], y + self.centre[1] - c[1]
        return float(x), float(y)

    def _iou(self, mask: np.ndarray) -> float:
        seen = mask if self.visible is None else mask & self.visible
        inter = np.count_nonzero(seen & self._blob_seen)
        union = np.count_nonzero(seen) + self._blob_count - inter
        return inter / union if union else 0.0

    def _opened(self, mask: np.ndarray) -> np.ndarray:
        return mask if self.opening is None else cv2.morphologyEx(mask, cv2.MORPH_OPEN, self.opening)

    def score(self, shape: Shape, x: float, y: float, yaw: float) -> Fit:
        mask = self._opened(self._raster(shape, x, y, yaw))
        return Fit(shape, x, y, yaw, self._iou(mask), mask)

    def area_of(self, shape: Shape, yaw: float) -> float:
        if self.visible is not None:
            mask = self._raster(shape, *self.centre, yaw)
            return float(np.count_nonzero(mask & self.visible)) * self.pv.top.mm_per_px ** 2
        return abs(cv2.contourArea(self.outline(shape, *self.centre, yaw).astype(np.float32)))

    def ranked(self, shapes=SHAPES, yaw0: float = 0.0) -> list[Fit]:
        """Fits of the plausible shapes, best first: the best shape's yaw is searched, the next
        two are scored at that yaw."""
        ratios = {shape: self.area_of(shape, yaw0) / self.area for shape in shapes}
        plausible = sorted(((abs(np.log(r)), shape) for shape, r in ratios.items() if 0.6 < r < 1.6), key=lambda p: p[0])
        fits = [self.score(shape, *self.place(shape, yaw0), yaw0) for _, shape in plausible[:CANDIDATES]]
        if not fits:
            return []
        fits.sort(key=lambda f: -f.iou)
        top = fits[0]
        if top.shape.turns:
            for steps in ((YAWS, FINE_YAWS, FINER_YAWS) if top.iou < GOOD_IOU else (FINE_YAWS, FINER_YAWS)):
                start = top.yaw
                for yaw in steps:
                    trial = self.score(top.shape, *self.place(top.shape, start + yaw), start + yaw)
                    if trial.iou > top.iou:
                        top = trial
        rest = [self.score(f.shape, *self.place(f.shape, top.yaw), top.yaw) if f.shape.turns else f
                for f in fits[1:3]]
        ranked = sorted([top] + rest, key=lambda f: -f.iou)
        return sorted([self.nudge(f) for f in ranked[:2]] + ranked[2:], key=lambda f: -f.iou)

    def nudge(self, fit: Fit) -> Fit:
        """The fit moved a pixel at a time while that raises the overlap (the eight moves are
        cut from one outline drawn a pixel larger all round)."""
        step = self.pv.top.mm_per_px
        h, w = self.blob.shape
        for _ in range(3):
            big = self._opened(self._raster(fit.shape, fit.x, fit.y, fit.yaw, pad=1))
            best = fit
            for dx in (-1, 0, 1):
                for dy in (-1, 0, 1):
                    mask = big[1 - dy:1 - dy + h, 1 - dx:1 - dx + w]
                    iou = self._iou(mask) if dx or dy else -1.0
                    if iou > best.iou:
                        best = Fit(fit.shape, fit.x + dx * step, fit.y + dy * step, fit.yaw, iou, mask)
            if best is fit:
                break
            fit = best
        return Fit(fit.shape, fit.x, fit.y, fit.yaw, fit.iou, np.ascontiguousarray(fit.mask))


def blob_yaw(blob: np.ndarray) -> float:
    """The turn (degrees, mod 90) of a square-ish blob, from its minimum-area rectangle."""
    if cv2.countNonZero(blob) < 5:
        return 0.0
    # the outline's points have the same convex hull as all the blob's pixels: the same rectangle
    contours, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    return float(cv2.minAreaRect(np.vstack(contours))[2] % 90.0)
