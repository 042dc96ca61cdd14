"""Looney pyramid accuracy on photoreal images, by piece kind and condition, beside the samples.

    python bench/photoreal.py --images photoreal/test [--verbose]

The images come from `tools/photoreal` (Blender; calibrated by `tools.photoreal.calibrate` as a
user would). A piece is entirely right when its colour, size and pose are, its heading within
10 degrees (lying) and its position within 12 mm. Frames whose session calibrate refused, or
that the detector refuses, count as wrong with all their pieces. A detection that matches no
piece is an extra; one marked uncertain is excused only while a hand or arm is in view.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0] = str(ROOT)     # this file is named like nothing it imports, but bench/ is not a package
from icetable.threads import one_blas_thread  # noqa: E402

one_blas_thread()

import cv2  # noqa: E402

from calibration.calibfile import CalibrationError, load  # noqa: E402
from vision import colournet, segnet  # noqa: E402
from vision.detector import Detector, FrameError  # noqa: E402
from vision.evaluation import FAULTS, Score, Tally, percentile, sample_images, score  # noqa: E402

GAMES = ("icehouse", "icepirates")


def kind_of(piece) -> str:
    return {"black": "black", "white": "white", "clear": "clear"}.get(piece.color, "coloured")


def pose_of(piece) -> str:
    return "nested" if piece.nested else piece.pose


def measure(folder: Path, verbose: bool, models: dict) -> tuple[Score, dict, list, int]:
    """Scores, tallies by condition (and `faults`: {kind: Counter of what is wrong}), detect
    times and refused frames of a folder, read by a detector with `models` (`Detector` fields:
    `reread`, `segment_model`)."""
    total, groups, times, refused = Score(), defaultdict(Tally), [], 0
    groups["faults"] = defaultdict(Counter)
    groups["colours"] = Counter()     # (true colour, colour read) of each piece read another colour
    detectors = {}
    for image_path, truth, hidden, cal_path in sample_images(folder, GAMES):
        info = truth.extra["render"]
        conditions = {k: info.get(k, "-") for k in ("light", "table", "plastic", "lens")}
        frame = cv2.imread(str(image_path))
        try:
            detector = detectors.get(cal_path) or detectors.setdefault(cal_path, Detector(load(cal_path), **models))
            start = time.process_time()
            detected = detector.detect(frame, truth.game)
            times.append(time.process_time() - start)
        except (CalibrationError, FrameError, FileNotFoundError) as exc:
            refused += 1
            detected = type(truth)(truth.game, (), truth.area)
            print(f"{image_path.name}: refused: {str(exc).splitlines()[0]}")
        outcomes = []
        s = score(truth, detected, hidden, outcomes)
        total.add(s)
        image_ok = bool(s.images_right)
        for name, value in conditions.items():
            groups[name].add(value, image_ok)
        for piece, wrong, read in outcomes:
            ok = not wrong
            groups["faults"][kind_of(piece)][wrong] += bool(wrong)
            if wrong == "colour":
                groups["colours"][piece.color, read.color] += 1
            groups["kind"].add(kind_of(piece), ok)
            groups["pose"].add(pose_of(piece), ok)
            groups["piece light"].add(conditions["light"], ok)
            groups["piece table"].add(conditions["table"], ok)
        groups["cards on"].count(conditions["table"], s.cards_found, s.cards)
        if verbose or not s.images_right:
            wrong = [f"{p.id}:{fault}" for p, fault, _ in outcomes if fault]
            print(f"{image_path.name}: {s.all_right}/{s.pieces} right, {s.extra} extra ({s.uncertain} uncertain)"
                  f"{', wrong ' + ' '.join(wrong) if wrong else ''}")
    return total, groups, times, refused


def focal_errors(folder: Path) -> list[tuple[str, float, float]]:
    """(session, relative focal length error, k1 error) of each calibration against the truth,
    for the sessions whose conditions file lies beside it (the committed frames have none)."""
    out = []
    for cal_path in sorted(folder.glob("calibration-s*.json")):
        stem = cal_path.stem.removeprefix("calibration-")
        session = folder / f"{stem}-session.json"
        if not session.exists():
            continue
        truth = json.loads(session.read_text())["optics"]
        cal = load(cal_path)
        out.append((stem, cal.K[0, 0] / truth["K"][0][0] - 1.0, float(cal.dist[0]) - truth["dist"][0]))
    return out


def frame_times(folder: Path, models: dict, repeat: int = 3) -> tuple[float, float]:
    """Median CPU time (s, this thread) to detect a committed 1920x1080 frame without the
    networks and with `models`, the two interleaved on the same frames."""
    times = {"without": [], "with": []}
    for image_path, truth, _, cal_path in sample_images(folder, GAMES):
        frame = cv2.imread(str(image_path))
        if frame.shape[:2] != (1080, 1920):
            continue
        detectors = {"without": Detector(load(cal_path), reread=None, segment_model=None),
                     "with": Detector(load(cal_path), **models)}
        for _ in range(repeat):
            for key, detector in detectors.items():
                start = time.process_time()
                detector.detect(frame, truth.game)
                times[key].append(time.process_time() - start)
    return statistics.median(times["without"]), statistics.median(times["with"])


def fault_lines(faults: dict) -> list[str]:
    """One line per piece kind, and one for all: how many pieces were wrong for each fault."""
    faults = dict(faults, all=sum(faults.values(), Counter()))
    return [f"  {kind:9s} " + "  ".join(f"{name} {faults[kind][name]:3d}" for name in FAULTS)
            for kind in sorted(faults, key=lambda k: (k == "all", k))]


def _model(arg: str) -> Path | None:
    return None if arg == "none" or not Path(arg).exists() else Path(arg)


def summary(label: str, s: Score) -> str:
    return (f"{label}: {s.images} images, {s.pieces} pieces: entirely right {100 * s.rate('all_right'):.1f} % "
            f"(colour {100 * s.rate('colour'):.1f}, size {100 * s.rate('size'):.1f}, "
            f"pose {100 * s.rate('pose'):.1f}), images entirely right "
            f"{100 * s.images_right / max(1, s.images):.1f} %, extra {s.extra} (uncertain reports of no "
            f"piece: {s.uncertain}, extras unless a hand is in view), "
            f"position median {percentile(s.position_mm, 50):.2f} mm")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", default=str(ROOT / "photoreal" / "test"),
                        help="a photoreal split folder (default photoreal/test of the checkout)")
    parser.add_argument("--samples", default=str(ROOT / "sample_images"), help="the committed samples")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--model", default=str(colournet.MODEL),
                        help="the colour network (vision.colournet; default the shipped one), or 'none'")
    parser.add_argument("--segment-model", default=str(segnet.MODEL),
                        help="the segmentation network (vision.segnet; default the shipped one), or 'none'")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    models = {"reread": _model(args.model), "segment_model": _model(args.segment_model)}
    print(f"colour network: {models['reread'] or 'none'}; segmentation network: {models['segment_model'] or 'none'}")
    if not Path(args.images).is_dir():
        print(f"no photoreal images in {args.images}: tools/photoreal renders them (docs/photoreal.md); "
              "the committed samples alone are measured")
    total, groups, times, refused = measure(Path(args.images), args.verbose, models)
    samples, _, _, _ = measure(Path(args.samples), False, models) if args.samples else (Score(), {}, [], 0)
    print(summary("committed samples", samples))
    print(summary(f"photoreal {args.images}", total) + f", {refused} frames refused")
    for name in ("kind", "pose", "piece light", "piece table"):
        print(f"pieces by {name}:")
        print("\n".join(groups[name].lines("")))
    print("pieces wrong by what (the first of colour, size, pose, heading, position that is wrong):")
    print("\n".join(fault_lines(groups["faults"])))
    print("colours read wrong (true -> read: pieces): " + ", ".join(
        f"{t} -> {r}: {n}" for (t, r), n in groups["colours"].most_common()))
    for name in ("light", "table", "plastic", "lens"):
        print(f"images entirely right by {name}:")
        print("\n".join(groups[name].lines("")))
    print(f"home cards: {total.cards_found} of {total.cards} found, {total.card_owner} with the right owner, "
          f"{total.card_extra} extra; by table:")
    print("\n".join(groups["cards on"].lines("")))
    errors = focal_errors(Path(args.images))
    if errors:
        worst = max(errors, key=lambda e: abs(e[1]))
        print(f"focal length from calibrate (one view, no ChArUco) vs true: median |error| "
              f"{100 * statistics.median(abs(e[1]) for e in errors):.1f} %, worst {100 * worst[1]:+.1f} % "
              f"({worst[0]}); over 20 % off: {sum(abs(e[1]) > 0.2 for e in errors)} of {len(errors)} sessions")
    if times:
        print(f"detect time per photoreal frame (CPU, one thread): median {1000 * statistics.median(times):.0f} ms")
    if args.samples and any(models.values()):
        without, with_net = frame_times(Path(args.samples), models)
        print(f"committed 1920x1080 frames (CPU, one thread): median {1000 * without:.1f} ms without the "
              f"networks, {1000 * with_net:.1f} ms with them ({with_net / without:.2f} times; target at most 1.5)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
