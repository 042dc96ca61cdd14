"""Score detected piecepack scenes against their ground truth (for the benchmark and tests).

Pieces are matched by type, nearest first, within `MATCH_MM`. Each matched piece is checked on
the fields its type carries: suit, rank, face (tiles, coins) and letter (piecepack pyramids);
a missing piece is wrong on every field it has. An image is entirely right when every piece is
found with every field right and nothing extra is reported.
"""
from __future__ import annotations

import math
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import cv2

from referee.evaluate import evaluate
from referee.scene import Piece, Scene
from vision.evaluation import hands_in_view, match_nearest, sample_images, unmatched
from vision.piecepack.pipeline import GAMES

MATCH_MM = 15.0
FIELDS = ("suit", "rank", "face", "letter")


def _expected(piece: Piece) -> dict:
    """The fields of a true piece that detection must get right."""
    out = {}
    if piece.suit is not None and not (piece.type == "coin" and piece.face == "value"):
        out["suit"] = piece.suit
    if piece.rank is not None and not (piece.type == "coin" and piece.face == "suit"):
        out["rank"] = piece.rank
    if piece.type in ("tile", "coin"):
        out["face"] = piece.face
    if piece.type == "pp_pyramid":
        out["letter"] = piece.size
    return out


def _seen(piece: Piece, name: str):
    return piece.size if name == "letter" else getattr(piece, name)


@dataclass
class Score:
    """Counts over one or more images: per field (right, total), pieces, misses, extras."""

    right: Counter = field(default_factory=Counter)
    total: Counter = field(default_factory=Counter)
    pieces: int = 0
    missing: int = 0
    extra: int = 0
    images: int = 0
    images_right: int = 0
    position_mm: list = field(default_factory=list)
    mistakes: list = field(default_factory=list)

    def add(self, other: "Score") -> None:
        self.right.update(other.right)
        self.total.update(other.total)
        for name in ("pieces", "missing", "extra", "images", "images_right"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.position_mm += other.position_mm
        self.mistakes += other.mistakes

    def rate(self, name: str) -> float:
        return self.right[name] / self.total[name] if self.total[name] else 1.0


def score(truth: Scene, detected: Scene, hidden: tuple = (), outcomes: list | None = None) -> Score:
    """Match detections to true pieces of the same type and count what is right. Pieces in
    `hidden` (under a hand) are not scored; detections of them, and detections flagged
    `uncertain` that match nothing while a hand is in view, are not extras. Each scored true
    piece is appended to `outcomes` (when given) as (piece, entirely right)."""
    match, used = match_nearest(truth.pieces, detected.pieces, MATCH_MM)
    hidden_rows = {i for i, t in enumerate(truth.pieces) if t.id in hidden}
    extras = unmatched(detected.pieces, used, hands_in_view(truth, hidden))
    s = Score(images=1, pieces=len(truth.pieces) - len(hidden_rows), extra=len(extras))
    s.mistakes += [f"extra {d.type} at ({d.x:.0f}, {d.y:.0f})" for d in extras]
    for i, t in enumerate(truth.pieces):
        if i in hidden_rows:
            continue
        expected = _expected(t)
        s.total.update(expected.keys())
        if i not in match:
            s.missing += 1
            s.mistakes.append(f"missing {t.type} {t.id}")
            if outcomes is not None:
                outcomes.append((t, False))
            continue
        d = detected.pieces[match[i]]
        s.position_mm.append(math.hypot(t.x - d.x, t.y - d.y))
        wrong = [name for name, value in expected.items() if _seen(d, name) != value]
        if outcomes is not None:
            outcomes.append((t, not wrong))
        s.right.update(name for name in expected if name not in wrong)
        s.mistakes += [f"{t.id}: {name} {_seen(d, name)!r}, truth {expected[name]!r}" for name in wrong]
    s.images_right = int(not s.mistakes)
    return s


def floes(scene: Scene) -> dict:
    """An IceFloe report's floes keyed by the tile's face: (cell, weight, pyramids by kind),
    cells counted from the grid's top-left tile (so a scene without `grid_origin` compares)."""
    plain = Scene(scene.game, scene.pieces, scene.area)
    report = evaluate(plain).to_dict()
    by_id = scene.by_id()
    out = {}
    for tid, floe in report["status"]["floes"].items():
        tile = by_id[tid]
        kinds = sorted((by_id[p].suit, by_id[p].size) for p in floe["pyramids"])
        out[(tile.suit, tile.rank)] = (tuple(floe["cell"]), floe["weight"], tuple(kinds))
    return out


def bench(folder: Path, repeat: int = 3) -> None:
    """Print the piecepack figures over the IceFloe and Iceberg images under `folder`: per-field
    accuracy, images entirely right, IceFloe floes as in the truth, ms per 1920x1080 frame."""
    from calibration.calibfile import load
    from vision.detector import Detector
    total, times, floes_same, icefloe = Score(), [], 0, 0
    for game in GAMES:
        for image, truth, hidden, calibration in sample_images(folder / game, (game,)):
            detector = Detector(load(calibration))
            frame = cv2.imread(str(image))
            detected = detector.detect(frame, game)
            s = score(truth, detected, hidden)
            total.add(s)
            if game == "icefloe" and not hidden:
                icefloe += 1
                floes_same += floes(truth) == floes(detected)
            if s.mistakes:
                print(f"{image.name}: " + "; ".join(s.mistakes))
            if frame.shape[:2] == (1080, 1920):
                for _ in range(repeat):
                    start, cpu = time.perf_counter(), time.process_time()
                    detector.detect(frame, game)
                    times.append((time.perf_counter() - start, time.process_time() - cpu))
    print(f"piecepack images: {total.images}, pieces: {total.pieces} ({total.missing} missed, "
          f"{total.extra} extra)")
    for name in FIELDS:
        print(f"per-piece accuracy {name:6s}: {100 * total.rate(name):6.2f} % of {total.total[name]}  "
              "(target >= 99.5 %)")
    print(f"images entirely right: {100 * total.images_right / max(1, total.images):.1f} %  (target >= 90 %)")
    print(f"IceFloe reports with the truth's floes and weights: {floes_same} of {icefloe} (no arm over the table)")
    if total.position_mm:
        print(f"position error mm: median {statistics.median(total.position_mm):.2f}, "
              f"max {max(total.position_mm):.2f}")
    if times:
        wall, cpu = (sorted(t[k] for t in times) for k in (0, 1))
        print(f"time per 1920x1080 piecepack frame, one thread: median {1000 * statistics.median(wall):.1f} ms "
              f"(CPU {1000 * statistics.median(cpu):.1f} ms, 90th percentile {1000 * cpu[int(0.9 * len(cpu))]:.1f} ms), "
              f"best {1000 * wall[0]:.1f} ms over {len(wall)} runs  (target < 100 ms)")
