"""Score a detected scene against its ground truth (used by the benchmark and the tests)."""
from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from referee.scene import Scene, SceneError, load_scene

MATCH_MM = 20.0          # a detection farther than this from a true piece does not match it
HEADING_OK = 10.0        # degrees: a lying piece's heading counts as right within this
POSITION_OK = 12.0       # mm: a piece's position counts as right within this
SCORED = ("pyramid",)    # piece types of the per-piece figures; cards are scored on their own


@dataclass
class Score:
    """Counts over one or more frames."""

    pieces: int = 0                 # visible true pieces (not under a hand)
    colour: int = 0
    size: int = 0
    pose: int = 0
    all_right: int = 0              # colour, size, pose (and heading) right
    extra: int = 0                  # detections matching no true piece
    uncertain: int = 0              # unmatched detections marked uncertain (extras unless a hand is in view)
    images: int = 0
    images_right: int = 0
    position_mm: list = field(default_factory=list)
    heading_deg: list = field(default_factory=list)
    cards: int = 0                  # visible true cards (Ice Pirates homes)
    cards_found: int = 0
    card_owner: int = 0             # found with the right owner
    card_extra: int = 0
    card_position_mm: list = field(default_factory=list)
    card_angle_deg: list = field(default_factory=list)

    def add(self, other: "Score") -> None:
        for name in ("pieces", "colour", "size", "pose", "all_right", "extra", "uncertain", "images",
                     "images_right", "cards", "cards_found", "card_owner", "card_extra"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for name in ("position_mm", "heading_deg", "card_position_mm", "card_angle_deg"):
            getattr(self, name).extend(getattr(other, name))

    def rate(self, name: str) -> float:
        return getattr(self, name) / self.pieces if self.pieces else 1.0


def heading_error(a: float, b: float) -> float:
    return abs((a - b + 180.0) % 360.0 - 180.0)


def match_nearest(truth: list, detected: list, within: float = MATCH_MM) -> tuple[dict, set]:
    """Pieces of the same type paired nearest first, within `within` mm: {truth index:
    detected index} and the detected indices used."""
    pairs = sorted((math.hypot(t.x - d.x, t.y - d.y), i, j)
                   for i, t in enumerate(truth) for j, d in enumerate(detected)
                   if t.type == d.type and math.hypot(t.x - d.x, t.y - d.y) <= within)
    match, used = {}, set()
    for _, i, j in pairs:
        if i not in match and j not in used:
            match[i] = j
            used.add(j)
    return match, used


def unmatched(detected: list, used: set, hands: bool = True) -> list:
    """Detections paired with no true piece; with `hands` in view, those marked uncertain (maybe
    under a hand) aside."""
    return [d for j, d in enumerate(detected)
            if j not in used and not (hands and d.extra.get("uncertain"))]


def hands_in_view(truth: Scene, hidden=()) -> bool:
    """Whether a hand or arm is in the frame (the renderers' `hands` or `arms`, or pieces under
    one): only then may an uncertain detection that matches nothing be excused."""
    info = truth.extra.get("render")
    info = info if isinstance(info, dict) else {}
    return bool(hidden or info.get("hands") or info.get("arms"))


def score(truth: Scene, detected: Scene, hidden: tuple = (), outcomes: list | None = None) -> Score:
    """Match detections to true pieces (nearest first, within MATCH_MM) and count what is right.
    Pieces in `hidden` (under a hand) are not scored; detections of them are not extras, nor are
    uncertain detections while a hand is in view (`uncertain` counts every uncertain one). The
    per-piece figures count pyramids (`SCORED`); cards are counted apart (`_score_cards`).
    `outcomes`, when given, gets (true piece, what is wrong: `FAULTS`, or "" when entirely
    right, the detection matched to it or None) for each scored piece."""
    s = Score(images=1)
    hidden_set = set(hidden)
    _score_cards(s, truth, detected, hidden_set)
    truth_pieces = [p for p in truth.pieces if p.type in SCORED]
    detected_pieces = [p for p in detected.pieces if p.type in SCORED]
    match, used = match_nearest(truth_pieces, detected_pieces)
    for i, t in enumerate(truth_pieces):
        if t.id in hidden_set:
            continue
        s.pieces += 1
        if i not in match:
            if outcomes is not None:
                outcomes.append((t, "missed", None))
            continue
        d = detected_pieces[match[i]]
        s.colour += d.color == t.color
        s.size += d.size == t.size
        pose_ok = d.pose == t.pose
        s.pose += pose_ok
        if pose_ok:
            s.position_mm.append(math.hypot(t.x - d.x, t.y - d.y))
            if t.pose == "lying":
                s.heading_deg.append(heading_error(t.heading, d.heading))
        wrong = fault(t, d)
        s.all_right += not wrong
        if outcomes is not None:
            outcomes.append((t, wrong, d))
    hands = hands_in_view(truth, hidden)
    s.extra = len(unmatched(detected_pieces, used, hands))
    s.uncertain = sum(1 for j, d in enumerate(detected_pieces) if j not in used and d.extra.get("uncertain"))
    s.images_right = int(s.all_right == s.pieces and s.extra == 0)
    return s


FAULTS = ("missed", "colour", "size", "pose", "heading", "position")


def fault(truth, detected) -> str:
    """The first of `FAULTS` after "missed" that a detection matched to a true pyramid gets
    wrong, or "" when it is entirely right."""
    if detected.color != truth.color:
        return "colour"
    if detected.size != truth.size:
        return "size"
    if detected.pose != truth.pose:
        return "pose"
    if truth.pose == "lying" and heading_error(truth.heading, detected.heading) > HEADING_OK:
        return "heading"
    if math.hypot(truth.x - detected.x, truth.y - detected.y) > POSITION_OK:
        return "position"
    return ""


def _score_cards(s: Score, truth: Scene, detected: Scene, hidden: set) -> None:
    """Cards: found (centre within MATCH_MM), owner, centre error, angle error (a card looks
    the same turned by 180 degrees; width is the long side)."""
    true_cards, found = truth.of_type("card"), detected.of_type("card")
    match, used = match_nearest(true_cards, found)
    for i, t in enumerate(true_cards):
        if t.id in hidden:
            continue
        s.cards += 1
        if i in match:
            d = found[match[i]]
            s.cards_found += 1
            s.card_owner += d.owner == t.owner
            s.card_position_mm.append(math.hypot(t.x - d.x, t.y - d.y))
            s.card_angle_deg.append(card_angle_error(t, d))
    s.card_extra = len(unmatched(found, used, hands_in_view(truth, hidden)))


def card_angle_error(a, b) -> float:
    """Degrees between two cards' long sides (0..90)."""
    def long_side(card):
        return card.angle + (90.0 if card.height > card.width else 0.0)
    return abs((long_side(a) - long_side(b) + 90.0) % 180.0 - 90.0)


def percentile(values: list, q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


def sample_images(folder: Path, games: tuple | None = None):
    """(image path, truth scene, hidden ids, calibration path) of each rendered image under
    `folder` (of `games` only, when given): a truth file beside its JPEG. A truth file that
    breaks the scene contract or names no calibration raises SceneError naming it."""
    for truth_path in sorted(folder.rglob("*.json")):
        image = truth_path.with_suffix(".jpg")
        if not image.exists():
            continue
        truth = load_scene(truth_path)
        if games is not None and truth.game not in games:
            continue
        info = truth.extra.get("render")
        if not isinstance(info, dict) or not isinstance(info.get("calibration"), str):
            raise SceneError(str(truth_path), "names no calibration file", fld="render")
        yield image, truth, tuple(info.get("hidden", ())), truth_path.parent / info["calibration"]


class Tally:
    """Right and total per named group."""

    def __init__(self):
        self.right, self.total = defaultdict(int), defaultdict(int)

    def add(self, key: str, ok: bool) -> None:
        self.count(key, int(ok), 1)

    def count(self, key: str, right: int, total: int) -> None:
        if total:
            self.total[key] += total
            self.right[key] += right

    def lines(self, title: str) -> list[str]:
        return [f"  {title} {key:12s} {100 * self.right[key] / self.total[key]:6.1f} %  "
                f"({self.right[key]}/{self.total[key]})" for key in sorted(self.total)]
