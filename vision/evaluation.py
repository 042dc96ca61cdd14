"""Score a detected scene against its ground truth (used by the benchmark and the tests)."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from referee.scene import Scene

MATCH_MM = 20.0          # a detection farther than this from a true piece does not match it
HEADING_OK = 10.0        # degrees: a lying piece's heading counts as right within this


@dataclass
class Score:
    """Counts over one or more frames."""

    pieces: int = 0                 # visible true pieces (not under a hand)
    colour: int = 0
    size: int = 0
    pose: int = 0
    all_right: int = 0              # colour, size, pose (and heading) right
    extra: int = 0                  # detections matching no true piece
    images: int = 0
    images_right: int = 0
    position_mm: list = field(default_factory=list)
    heading_deg: list = field(default_factory=list)

    def add(self, other: "Score") -> None:
        for name in ("pieces", "colour", "size", "pose", "all_right", "extra", "images", "images_right"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.position_mm += other.position_mm
        self.heading_deg += other.heading_deg

    def rate(self, name: str) -> float:
        return getattr(self, name) / self.pieces if self.pieces else 1.0


def heading_error(a: float, b: float) -> float:
    return abs((a - b + 180.0) % 360.0 - 180.0)


def score(truth: Scene, detected: Scene, hidden: tuple = ()) -> Score:
    """Match detections to true pieces (nearest first, within MATCH_MM) and count what is right.
    Pieces in `hidden` (under a hand) are not scored; detections of them are not extras."""
    pairs = []
    for i, t in enumerate(truth.pieces):
        for j, d in enumerate(detected.pieces):
            dist = math.hypot(t.x - d.x, t.y - d.y)
            if dist <= MATCH_MM:
                pairs.append((dist, i, j))
    pairs.sort()
    match, used = {}, set()
    for dist, i, j in pairs:
        if i not in match and j not in used:
            match[i] = j
            used.add(j)
    s = Score(images=1)
    hidden_set = set(hidden)
    for i, t in enumerate(truth.pieces):
        if t.id in hidden_set:
            continue
        s.pieces += 1
        if i not in match:
            continue
        d = detected.pieces[match[i]]
        s.colour += d.color == t.color
        s.size += d.size == t.size
        pose_ok = d.pose == t.pose
        s.pose += pose_ok
        heading_ok = True
        if pose_ok:
            s.position_mm.append(math.hypot(t.x - d.x, t.y - d.y))
            if t.pose == "lying":
                err = heading_error(t.heading, d.heading)
                s.heading_deg.append(err)
                heading_ok = err <= HEADING_OK
        s.all_right += d.color == t.color and d.size == t.size and pose_ok and heading_ok
    s.extra = sum(1 for j, d in enumerate(detected.pieces)
                  if j not in used and not d.extra.get("uncertain"))
    s.images_right = int(s.all_right == s.pieces and s.extra == 0)
    return s


def percentile(values: list, q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")
