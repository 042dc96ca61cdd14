"""Settled frames: read the table only where it has been still for a short while.

Hands and arms are over the table all the time (Icehouse has no turns). The `Settler` watches a
coarse top view of the play area (a few mm per pixel, cheap to make from every frame), keeps per
pixel how many frames it has been unchanged, and runs the expensive detector only when a region
that changed since the last reading has come to rest and is not part of a hand. The settled
scene is a composite: pieces read where the table is still, the last settled pieces where it is
blocked (a hand, an arm, a piece being put down). The mat is searched for now and then, when
most of the view changes at once, and before every reading: when a bumped table or camera moved
it, the view follows it and nothing on the table seems to have changed.

`locate(frame) -> H` maps table mm to frame pixels (raises ValueError when the mat is not seen);
`read(frame) -> Scene` is the detector. Both are plain callables, so tests can drive the settler
with synthetic frames.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Callable

import cv2
import numpy as np

from referee.dimensions import DEFAULT, Dimensions
from referee.geometry import footprint
from referee.scene import Piece, Scene
from vision.tracking import identity

SAME_PLACE = 6.0     # mm: a piece read this close to a kept piece of its kind is that piece


@dataclass(frozen=True)
class SettleConfig:
    """Tuning of the settler (times in seconds of the source, turned into frames at its rate)."""

    view_mm: float = 3.0            # mm per pixel of the coarse top view
    margin_mm: float = 15.0         # table around the play area that is watched too
    still_seconds: float = 0.067    # how long a pixel must stay unchanged to count as still
    patience_seconds: float = 0.6   # how long a reading waits for a hand to leave a change
    change_level: float = 18.0      # grey-level difference that counts as a change
    hand_reach_mm: float = 12.0     # a piece this close to motion or a hand is not read
    near_mm: float = 40.0           # a change this close to a hand-covered change waits for it
    moved_mm: float = 170.0         # a piece read this close to a covered twin may be that twin moved
    hand_area_mm2: float = 5500.0   # a changed blob larger than this is an arm, not a piece
    edge_area_mm2: float = 1800.0   # ... or larger than this and touching the view's edge
    min_change_mm2: float = 40.0    # smaller changes are noise
    relocate_every: int = 30        # frames between routine searches for the mat
    bump_share: float = 0.45        # share of the view changing at once that means a bump


@dataclass
class Reading:
    """What one frame gave: the settled `scene` (None before the first reading), whether it was
    just re-read, the share of the play area blocked now, and a status word with a message."""

    scene: Scene | None
    updated: bool = False
    blocked: float = 0.0
    status: str = "ok"              # ok, no_mat, mat_hidden, bumped
    message: str = ""


class Settler:
    """Feed frames with `step(frame)`; each returns a `Reading`."""

    def __init__(self, locate: Callable[[np.ndarray], np.ndarray], read: Callable[[np.ndarray], Scene],
                 area: tuple[float, float], config: SettleConfig = SettleConfig(), dims: Dimensions = DEFAULT,
                 fps: float = 30.0):
        self.locate, self.read, self.area, self.cfg, self.dims = locate, read, area, config, dims
        self.still_frames = max(2, round(config.still_seconds * fps))
        self.patience = max(1, round(config.patience_seconds * fps))
        self.waited = 0
        self.retry_at = 0
        m, s = config.margin_mm, config.view_mm
        self.origin = (-m, -m)
        self.size = (int(round((area[0] + 2 * m) / s)), int(round((area[1] + 2 * m) / s)))
        self.H: np.ndarray | None = None
        self.frames = 0
        self.since_locate = 0
        self.prev: np.ndarray | None = None
        self.still: np.ndarray | None = None
        self.ref: np.ndarray | None = None
        self.pending = np.ones(self.size[::-1], bool)
        self.scene: Scene | None = None
        self.reads = 0
        self.force = False
        self.mat_seen = False

    # -- geometry ---------------------------------------------------------------------
    def to_view(self, xy: np.ndarray) -> np.ndarray:
        """Coarse-view pixel (col, row) of table points (N, 2)."""
        return (np.asarray(xy, np.float64) - self.origin) / self.cfg.view_mm - 0.5

    def _view(self, frame: np.ndarray) -> np.ndarray:
        """The coarse top view (BGR uint8, lightly blurred) of the play area in `frame`, sampled
        straight from the frame (only the view's pixels are computed)."""
        s = self.cfg.view_mm
        T = np.array([[s, 0, self.origin[0] + s / 2], [0, s, self.origin[1] + s / 2], [0, 0, 1]])
        view = cv2.warpPerspective(frame, self.H @ T, self.size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                   borderMode=cv2.BORDER_REPLICATE)
        return cv2.GaussianBlur(view, (3, 3), 0)

    def _relocate(self, frame: np.ndarray) -> bool:
        try:
            self.H = np.asarray(self.locate(frame), np.float64)
        except ValueError:
            return False
        finally:
            self.since_locate = 0
        return True

    # -- the loop ---------------------------------------------------------------------
    def step(self, frame: np.ndarray) -> Reading:
        """Look at one frame; re-read the table where a change has come to rest."""
        self.frames += 1
        self.since_locate += 1
        if self.H is None or self.since_locate >= self.cfg.relocate_every:
            self.mat_seen = self._relocate(frame)
            if self.H is None:
                return Reading(self.scene, status="no_mat", message="the calibration mat is not in view")
        status = "ok" if self.mat_seen else "mat_hidden"
        message = "" if self.mat_seen else "the mat is hidden: the view follows its last position"
        view = self._view(frame)
        if self.prev is None:
            self.prev, self.ref = view, view
            self.still = np.full(view.shape[:2], -1, np.int32)
        moving = self._diff(view, self.prev)
        if moving.mean() > self.cfg.bump_share and self._follow(frame):
            view, status = self._view(frame), "bumped"
            moving = self._diff(view, self.prev)
        self.prev = view
        self.still = np.where(moving, 0, self.still + 1)
        self.pending |= moving
        hands = self._hands(view)
        ready = self._ready(hands)
        if ready and self.since_locate > 0 and self._follow(frame):
            # the mat moved under a still change: look again through the new homography
            view, status = self._view(frame), "bumped"
            self.prev = view
            hands = self._hands(view)
            ready = self._ready(hands)
        blocked = float(hands[self._play_area()].mean())
        if not ready:
            return Reading(self.scene, False, blocked, status, message)
        updated = self._read(frame, view, hands)
        return Reading(self.scene, updated, blocked, status, message)

    def _diff(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Pixels whose colour differs by more than the change level in some channel."""
        d = cv2.absdiff(a, b)
        if d.ndim == 3:
            c = cv2.split(d)
            d = cv2.max(cv2.max(c[0], c[1]), c[2])
        return d > self.cfg.change_level

    def _follow(self, frame: np.ndarray) -> bool:
        """Find the mat again; True when it has moved (by more than a pixel at a corner)."""
        old = self.H
        self.mat_seen = self._relocate(frame)
        if not self.mat_seen or old is None:
            return False
        w, h = self.area
        corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64).reshape(-1, 1, 2)
        shift = cv2.perspectiveTransform(corners, self.H) - cv2.perspectiveTransform(corners, old)
        return float(np.abs(shift).max()) > 1.0

    def recheck(self) -> None:
        """Read again at the next still frame (a doubtful reading wants a second look)."""
        self.force = True

    def _ready(self, hands: np.ndarray) -> bool:
        """True when a change has come to rest away from hands and differs from the last reading."""
        if self.frames < self.retry_at:
            return False
        if self.force and (self.still >= self.still_frames)[~hands].any():
            return True
        ready = self.pending & ~hands & (self.still >= self.still_frames)
        if ready.sum() * self.cfg.view_mm ** 2 < self.cfg.min_change_mm2:
            return False
        if self._held_back(ready, hands):
            return False
        return self.scene is None or self._worth(ready)

    def _held_back(self, ready: np.ndarray, hands: np.ndarray) -> bool:
        """Wait (up to the patience) while a change near the ready one is still under a hand: a
        piece moved by a hand is read once, at both ends of its move."""
        r = max(1, int(round(self.cfg.near_mm / self.cfg.view_mm)))
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
        near = cv2.dilate(ready.astype(np.uint8), kernel) > 0
        under = near & self.pending & hands & self._diff(self.prev, self.ref)
        if under.sum() * self.cfg.view_mm ** 2 < self.cfg.min_change_mm2:
            self.waited = 0
            return False
        self.waited += 1
        return self.waited <= self.patience

    def _worth(self, ready: np.ndarray) -> bool:
        """Only re-read when a ready change is real (different from the last reading's view)."""
        changed = self._diff(self.prev, self.ref)
        if not (ready & changed).any():
            self.pending &= ~ready      # it changed and changed back: nothing to read
            return False
        return (ready & changed).sum() * self.cfg.view_mm ** 2 >= self.cfg.min_change_mm2

    def _play_area(self) -> np.ndarray:
        mask = np.zeros(self.size[::-1], bool)
        m = int(round(self.cfg.margin_mm / self.cfg.view_mm))
        mask[m:-m or None, m:-m or None] = True
        return mask

    def _hands(self, view: np.ndarray) -> np.ndarray:
        """Pixels not to be read now: recent motion, large changed blobs (arms), plus a reach."""
        cfg, px = self.cfg, self.cfg.view_mm ** 2
        busy = self.still < self.still_frames
        changed = self._diff(view, self.ref).astype(np.uint8)
        n, labels, stats, _ = cv2.connectedComponentsWithStats(changed | busy.astype(np.uint8), connectivity=8)
        h, w = changed.shape
        for i in range(1, n):
            x, y, bw, bh, area = stats[i]
            edge = x == 0 or y == 0 or x + bw >= w or y + bh >= h
            if area * px > cfg.hand_area_mm2 or (edge and area * px > cfg.edge_area_mm2):
                busy |= labels == i
        r = max(1, int(round(cfg.hand_reach_mm / cfg.view_mm)))
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
        return cv2.dilate(busy.astype(np.uint8), kernel) > 0

    def _read(self, frame: np.ndarray, view: np.ndarray, hands: np.ndarray) -> bool:
        """Run the detector; take its pieces outside the hands, keep the old ones under them."""
        try:
            seen = self.read(frame)
        except ValueError:          # the detector refused the frame (dark, blurred, no mat)
            self.retry_at = self.frames + self.still_frames
            return False
        self.reads += 1
        self.force = False
        old = self.scene.pieces if self.scene else ()
        doubtful = [p for p in seen.pieces if p.extra.get("uncertain") or self._touches(p, hands)]
        unread = hands.copy()
        for p in doubtful:           # looked at again once the hand has gone
            self._paint(p, unread)
        kept = [p for p in old if self._touches(p, unread)]
        fresh = []
        for p in seen.pieces:
            if p in doubtful:
                continue
            twins = [math.dist((p.x, p.y), (k.x, k.y)) for k in kept if identity(k) == identity(p)]
            if any(d < SAME_PLACE for d in twins):
                continue                     # the kept piece itself
            if any(d < self.cfg.moved_mm for d in twins):
                self._paint(p, unread)       # a piece moved while its old place is still covered:
                continue                     # read both ends of the move together
            fresh.append(p)
        for p in kept:                       # a kept piece is looked at again once it is clear
            self._paint(p, unread)
        if kept:
            self.retry_at = self.frames + self.still_frames
        self.scene = replace(seen, pieces=tuple(_unique_ids(kept + fresh)))
        self.ref = np.where(unread[..., None], self.ref, view)
        self.pending &= unread
        return True

    def _paint(self, piece: Piece, mask: np.ndarray) -> None:
        """Mark a piece's footprint (and a reach around it) on a view mask."""
        poly = footprint(piece, self.dims).buffer(self.cfg.hand_reach_mm / 2)
        pts = np.rint(self.to_view(np.asarray(poly.exterior.coords))).astype(np.int32)
        painted = mask.astype(np.uint8)
        cv2.fillPoly(painted, [pts], 1)
        mask |= painted > 0

    def _touches(self, piece: Piece, mask: np.ndarray) -> bool:
        """True when any point of the piece's footprint falls on `mask`."""
        poly = footprint(piece, self.dims)
        pts = np.array(list(poly.exterior.coords) + [poly.centroid.coords[0]])
        cr = np.rint(self.to_view(pts)).astype(int)
        h, w = mask.shape
        cr[:, 0] = np.clip(cr[:, 0], 0, w - 1)
        cr[:, 1] = np.clip(cr[:, 1], 0, h - 1)
        return bool(mask[cr[:, 1], cr[:, 0]].any())


def _unique_ids(pieces: list[Piece]) -> list[Piece]:
    """The pieces with ids made unique (kept pieces first keep theirs)."""
    seen, out = set(), []
    for p in pieces:
        pid, n = p.id, 1
        while pid in seen:
            n += 1
            pid = f"{p.id}_{n}"
        seen.add(pid)
        out.append(p if pid == p.id else replace(p, id=pid))
    return out
