"""`icetable detect IMAGE`: print the scene the camera sees in a frame."""
from __future__ import annotations

import json

from calibration.calibfile import CalibrationError, load
from icetable.cli import UserError
from referee.scene import GAMES
from vision.detector import Detector, FrameError
from vision.sources import FrameSourceError, read_image


def register(sub) -> None:
    p = sub.add_parser("detect", help="print the scene (SCENE.md JSON) seen in an image")
    p.add_argument("image", help="a photo or frame of the table with the calibration mat")
    p.add_argument("--calibration", "-c", required=True, help="calibration file from `icetable calibrate`")
    p.add_argument("--game", choices=GAMES, default="icehouse", help="the game on the table")
    p.set_defaults(run=run)


def run(args) -> int:
    try:
        calibration = load(args.calibration)
        frame = read_image(args.image)
        scene = Detector(calibration).detect(frame, args.game)
    except (CalibrationError, FrameSourceError) as exc:
        raise UserError(str(exc)) from None
    except FrameError as exc:
        raise UserError(f"{args.image}: {exc}", code=3) from None
    print(json.dumps(scene.to_dict(), indent=2))
    return 0
