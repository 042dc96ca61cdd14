"""`icetable detect IMAGE`: print the scene the camera sees in a frame."""
from __future__ import annotations

import json
import sys

from calibration.calibfile import CalibrationError, load
from calibration.fitness import misfits
from icetable import checks
from icetable.cli import UserError
from referee.scene import GAMES
from vision.detector import Detector, FrameError
from vision.lookalike import unlike
from vision.sources import FrameSourceError, read_image


def register(sub) -> None:
    p = sub.add_parser("detect", help="print the scene (SCENE.md JSON) seen in an image")
    p.add_argument("image", help="a photo or frame of the table with the calibration mat")
    p.add_argument("--calibration", "-c", required=True, help="calibration file from `icetable calibrate`")
    p.add_argument("--game", choices=GAMES, default="icehouse", help="the game on the table (default icehouse)")
    p.set_defaults(run=run)


def run(args) -> int:
    try:
        calibration = load(args.calibration)
        frame = read_image(args.image)
        detector = Detector(calibration)
        scene = detector.detect(frame, args.game)       # FrameError first: the frame cannot be read
        warnings = [f"{args.calibration}: {line}" for line in misfits(calibration, frame)]
        hint = unlike(detector, frame, args.game, scene)
    except CalibrationError as exc:         # an enrolled piecepack section does not name the file
        raise checks.named(args.calibration, exc) from None
    except FrameSourceError as exc:
        raise UserError(str(exc)) from None
    except FrameError as exc:
        raise UserError(f"{args.image}: {exc}", code=3) from None
    for line in warnings + ([f"{args.image}: {hint}"] if hint else []):
        _warn(line)
    print(json.dumps(scene.to_dict(), indent=2))
    return 0


def _warn(line: str) -> None:
    print(f"icetable detect: warning: {line}", file=sys.stderr)


