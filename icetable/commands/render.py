"""`icetable render SCENE.json`: a synthetic camera frame of a scene, with its ground truth."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2

from calibration.layout import cards_layout
from icetable import checks
from icetable.cli import UserError
from referee.scene import SceneError, load_scene, scene_from_dict
from vision.piecepack.samples import write_all as piecepack_samples
from vision.render import random_config, render
from vision.render.pieces import DRAWERS
from vision.samples import write_default_colors, write_set

LIGHTS = ("daylight", "warm", "cool", "dim")
MAX_SIDE = 4096         # px: the largest frame rendered (a 4K camera)
MAX_PIECES = 400        # a game's pieces several times over; more would render for minutes
MAX_AREA = 3000.0       # mm: the largest play-area side rendered (a dining table)
MAX_HANDS = 4


def register(sub) -> None:
    p = sub.add_parser("render", help="render a camera frame of a scene (or regenerate sample_images/)")
    p.add_argument("scene", nargs="?", help="scene JSON file with an area")
    p.add_argument("--out", "-o", default="frame.jpg",
                   help="image to write (.jpg, .png, ...); the truth goes next to it (.json)")
    p.add_argument("--force", action="store_true",
                   help="overwrite files that icetable did not write (or the input scene)")
    p.add_argument("--seed", type=int, default=1, help="camera, light and noise seed (0 or more)")
    p.add_argument("--size", default="1280x720", help=f"image size WxH (default 1280x720, at most {MAX_SIDE})")
    p.add_argument("--light", choices=LIGHTS, default="daylight")
    p.add_argument("--hands", type=int, default=0, help=f"arms over the table (0 to {MAX_HANDS})")
    p.add_argument("--samples", metavar="DIR",
                   help="instead: regenerate the committed sample set into DIR/icehouse, DIR/icepirates, "
                        "DIR/icefloe and DIR/iceberg")
    p.add_argument("--base-seed", type=int, default=1000,
                   help="with --samples: the seed of the set (1000 = the committed one; others "
                        "make held-out sets)")
    p.add_argument("--update-defaults", action="store_true",
                   help="with --samples and the committed seed: also relearn the shipped colour and "
                        "piecepack profiles (in the source tree)")
    p.set_defaults(run=run)


def run(args) -> int:
    checks.number("--seed", args.seed, 0, 2**32 - 1)
    checks.number("--base-seed", args.base_seed, 0, 2**31 - 7001)
    if args.samples:
        return _samples(Path(args.samples), args)
    if not args.scene:
        raise UserError("give a scene file, or --samples DIR")
    w, h = checks.size("--size", args.size, 64, MAX_SIDE, int)
    checks.number("--hands", args.hands, 0, MAX_HANDS)
    out = _outputs(args)
    scene = _scene(args.scene)
    config = random_config(args.seed, scene.area, (w, h), light=args.light, hands=args.hands)
    frame = render(scene, cards_layout(*scene.area), config)
    if not cv2.imwrite(str(out), frame.image):
        raise UserError(f"{out}: cannot write an image there")
    truth = scene.to_dict()
    truth["render"] = {"seed": args.seed, "light": args.light, "hidden": frame.hidden,
                       "height_mm": round(-float(config.camera.C[2]), 1)}
    out.with_suffix(".json").write_text(json.dumps(truth, indent=1) + "\n", encoding="utf-8")
    print(out)
    return 0


def _outputs(args) -> Path:
    """The image to write; it and its truth (.json beside it) checked not to overwrite the scene
    or a file that is not an earlier render."""
    out = Path(args.out)
    if not out.suffix or not cv2.haveImageWriter(str(out)):
        raise UserError(f"--out {out}: name an image file (.jpg, .png, .bmp, .tif, .webp)")
    truth = out.with_suffix(".json")
    checks.output(truth, "--out", (args.scene,), _rendered, args.force)
    checks.output(out, "--out", (args.scene,), lambda p: _rendered(p.with_suffix(".json")), args.force)
    return out


def _rendered(path: Path) -> bool:
    """Whether `path` is the truth of an earlier render."""
    return checks.json_with(path, lambda d: "render" in d)


def _scene(path: str):
    """The scene to render: an area of a size a camera sees, at most MAX_PIECES pieces; pieces
    the renderer cannot draw are left out of the picture and the truth, with a warning."""
    try:
        with checks.deep_json(path):
            scene = load_scene(path)
    except SceneError as exc:
        raise UserError(str(exc)) from None
    if scene.area is None:
        raise UserError(f"{path}: field 'area': needed to place the corner cards")
    if max(scene.area) > MAX_AREA:
        raise UserError(f"{path}: field 'area': {scene.area[0]:g} x {scene.area[1]:g} mm; "
                        f"render draws areas up to {MAX_AREA:g} mm a side")
    if len(scene.pieces) > MAX_PIECES:
        raise UserError(f"{path}: field 'pieces': {len(scene.pieces)} pieces; render draws at most {MAX_PIECES}")
    left = sorted({p.type for p in scene.pieces if p.type not in DRAWERS})
    if not left:
        return scene
    print(f"icetable render: warning: {path}: no picture for pieces of type {', '.join(left)}; "
          f"they are left out of the frame and its truth", file=sys.stderr)
    data = scene.to_dict()
    data["pieces"] = [p for p in data["pieces"] if p["type"] in DRAWERS]
    return scene_from_dict(data, path)


def _samples(root: Path, args) -> int:
    """Regenerate the sample sets into `root`, printing each image as it is written."""
    if root.exists() and not root.is_dir():
        raise UserError(f"--samples {root}: not a folder")
    if args.update_defaults and args.base_seed == 1000:
        write_default_colors()
    report = lambda path: print(path, flush=True)   # noqa: E731
    for game in ("icehouse", "icepirates"):
        write_set(game, root / game, args.base_seed, report)
    piecepack_samples(root, args.base_seed, report, defaults=args.update_defaults)    # icefloe, iceberg
    return 0
