"""The enrolment check's figures on rendered photos, beside its limits (prints them).

    python bench/enrol_check.py

Right photos: the arrangements under the four lights the default profile is learned from; every
edition (vision/piecepack/editions.py) laid by hand (up to 2 mm and 3 degrees off) on the seed's
cloth, a pale one, a white one and a black one; two sets moved by up to 3 mm and 5 degrees.
Wrong photos: four game tables inside the enrolment cards, each checked as every kind. Per
photo: the pieces off their places by kind (a photo is refused when more than `MISSING` of a
kind are) and the least outline share of a piece (`OUTLINED`); per set, how many times more
the faces' tiles differ among themselves than the backs' (`SIDES`).
"""
from __future__ import annotations

import random
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)     # not bench/: its vision.py is no package
from calibration import enrol  # noqa: E402
from vision.piecepack import samples  # noqa: E402
from vision.piecepack.editions import EDITIONS  # noqa: E402

CLOTHS = {"seed's cloth": None, "pale cloth": (0.75, 0.73, 0.66), "white cloth": (0.9, 0.9, 0.9),
          "black cloth": (0.08, 0.08, 0.09)}      # linear RGB; the default tile stock is (0.86, 0.83, 0.74)


def right_sets():
    """(label, {kind: (frame, camera)}) of photo sets laid out as the guide sheets show."""
    sets = [(f"default, {light} {seed}", samples.enrolment_photos(light, seed)) for light, seed in samples.ENROL_LIGHTS]
    for i, (edition, cloth) in enumerate((e, c) for e in EDITIONS for c in CLOTHS):
        light = "daylight" if i % 2 else "warm"
        sets.append((f"{edition}, {cloth}, {light} {300 + i}",
                     samples.enrolment_photos(light, 300 + i, by_hand=True, edition=edition, cloth=CLOTHS[cloth])))
    for light, seed in (("daylight", 41), ("dim", 42)):
        moved = {k: samples.laid_by_hand(enrol.arrangement(k), random.Random(seed), 3.0, 5.0) for k in enrol.KINDS}
        sets.append((f"default moved 3 mm and 5 degrees, {light} {seed}",
                     samples.enrolment_photos(light, seed, scenes=moved)))
    for label, (photos, cam) in sets:
        yield label, {kind: (frames[0][1], cam) for kind, frames in photos.items()}


def game_photos():
    """(label, frame, camera) of game tables photographed inside the enrolment cards."""
    for game, i in (("icefloe", 2), ("icefloe", 4), ("iceberg", 1), ("iceberg", 3)):
        table = replace(samples.scene_for(game, i, random.Random(100 + i)), area=enrol.AREA)
        photos, cam = samples.enrolment_photos("daylight", 200 + i, scenes={"faces": table})
        yield f"{game} table {i}", photos["faces"][0][1], cam


def places(label: str, kind: str, frame, cam) -> tuple[Counter, float, object]:
    """Print and return a photo's pieces off their places by type, its least outline share and
    its view."""
    pv = enrol.photo_view(frame, cam.K, cam.dist, kind, label)
    shares = enrol.outline_shares(pv, kind)
    off = Counter(p.type for p, share in shares if share < enrol.OUTLINED)
    least = min(share for _, share in shares)
    print(f"  {kind:8s} off: {', '.join(f'{n} {enrol.PLURAL[t]}' for t, n in off.items()) or 'none':30s} "
          f"least outline share {least:.2f}")
    return off, least, pv


def main() -> int:
    print(f"limits: outline share >= {enrol.OUTLINED}, at most {enrol.MISSING:.3f} of a kind off its place, "
          f"faces' tiles differ >= {enrol.SIDES} times the backs'")
    most_off, least, ratios = 0, 1.0, []
    for label, photos in right_sets():
        print(label)
        views = {}
        for kind, (frame, cam) in photos.items():
            off, share, views[kind] = places(label, kind, frame, cam)
            most_off, least = max(most_off, max(off.values(), default=0)), min(least, share)
        ratios.append(enrol.variety(views["faces"]) / enrol.variety(views["backs"]))
        print(f"  faces' tiles differ {ratios[-1]:.1f} times the backs'")
    fewest: dict[str, int] = {}
    for label, frame, cam in game_photos():
        print(label)
        for kind in enrol.KINDS:
            off, _, _ = places(label, kind, frame, cam)
            for piece in enrol.arrangement(kind).pieces:
                fewest[piece.type] = min(fewest.get(piece.type, 99), off[piece.type])
    print(f"right photos ({3 * len(ratios)}): at most {most_off} of a kind off their places, least outline share "
          f"{least:.2f}; the faces' tiles differ {min(ratios):.1f} times the backs' at least")
    print("game tables: at least " + ", ".join(f"{n} {enrol.PLURAL[t]}" for t, n in fewest.items())
          + " off their places")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
