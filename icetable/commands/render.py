"""`icetable render SCENE.json`: a synthetic camera frame of a scene, with its ground truth."""
from __future__ import annotations

import json
from pathlib import Path

import cv2

from calibration.layout import cards_layout
from icetable.cli import UserError
from referee.scene import SceneError, load_scene
from vision.piecepack.samples import write_all as piecepack_samples
from vision.render import random_config, render
from vision.samples import write_default_colors, write_set

LIGHTS = ("daylight", "warm", "cool", "dim")


def register(sub) -> None:
    p = sub.add_parser("render", help="render a camera frame of a scene (or regenerate sample_images/)")
    p.add_argument("scene", nargs="?", help="scene JSON file with an area")
    p.add_argument("--out", "-o", default="frame.jpg", help="image to write; the truth goes next to it (.json)")
    p.add_argument("--seed", type=int, default=1, help="camera, light and noise seed")
    p.add_argument("--size", default="1280x720", help="image size WxH (default 1280x720)")
    p.add_argument("--light", choices=LIGHTS, default="daylight")
    p.add_argument("--hands", type=int, default=0, help="arms over the table")
    p.add_argument("--samples", metavar="DIR",
                   help="instead: regenerate the committed sample set into DIR/icehouse, DIR/icepirates, "
                        "DIR/icefloe and DIR/iceberg")
    p.add_argument("--base-seed", type=int, default=1000,
                   help="with --samples: the seed of the set (1000 = the committed one; others "
                        "make held-out sets)")
    p.set_defaults(run=run)


def run(args) -> int:
    if args.samples:
        if args.base_seed == 1000:
            write_default_colors()
        for game in ("icehouse", "icepirates"):
            for path in write_set(game, Path(args.samples) / game, args.base_seed):
                print(path)
        for path in piecepack_samples(Path(args.samples), args.base_seed):    # icefloe, iceberg
            print(path)
        return 0
    if not args.scene:
        raise UserError("give a scene file, or --samples DIR")
    try:
        scene = load_scene(args.scene)
        w, h = (int(v) for v in args.size.lower().split("x"))
    except SceneError as exc:
        raise UserError(str(exc)) from None
    except ValueError:
        raise UserError(f"--size must look like 1280x720, got {args.size!r}") from None
    if scene.area is None:
        raise UserError(f"{args.scene}: field 'area': needed to place the corner cards")
    config = random_config(args.seed, scene.area, (w, h), light=args.light, hands=args.hands)
    frame = render(scene, cards_layout(*scene.area), config)
    out = Path(args.out)
    if not cv2.imwrite(str(out), frame.image):
        raise UserError(f"{out}: cannot write an image there")
    truth = scene.to_dict()
    truth["render"] = {"seed": args.seed, "light": args.light, "hidden": frame.hidden,
                       "height_mm": round(-float(config.camera.C[2]), 1)}
    out.with_suffix(".json").write_text(json.dumps(truth, indent=1) + "\n", encoding="utf-8")
    print(out)
    return 0
