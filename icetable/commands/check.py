"""`icetable check SCENE.json`: print the referee's report of a scene."""
from __future__ import annotations

import json
import sys

from icetable import checks
from icetable.cli import UserError
from referee.dimensions import DEFAULT, load_dimensions
from referee.evaluate import evaluate
from referee.options import OptionError, parse_options
from referee.scene import SceneError, load_scene


def register(sub) -> None:
    p = sub.add_parser("check", help="print the referee's report of a scene file")
    p.add_argument("scene", help="scene JSON file (SCENE.md), or - for standard input")
    p.add_argument("--text", action="store_true", help="a readable summary instead of JSON")
    p.add_argument("--dims", help="JSON file of piece dimensions that differ from the defaults")
    p.add_argument("--option", "-o", action="append", default=[], metavar="NAME=VALUE",
                   help="a rule option (see docs/rulings.md); repeatable")
    p.set_defaults(run=run)


def run(args) -> int:
    try:
        with checks.deep_json(args.scene if args.scene != "-" else "<stdin>"):
            scene = load_scene("<stdin>", sys.stdin.read()) if args.scene == "-" else load_scene(args.scene)
        with checks.deep_json(args.dims):
            dims = _dimensions(args.dims)
        report = evaluate(scene, dims=dims, options=parse_options(args.option))
    except (SceneError, OptionError) as exc:
        raise UserError(str(exc)) from None
    print(report.to_text() if args.text else json.dumps(report.to_dict(), indent=2))
    return 0


def _dimensions(path: str | None):
    """The set's dimensions from `--dims`, or the defaults; bad files name themselves."""
    if path is None:
        return DEFAULT
    try:
        return load_dimensions(path)
    except (OSError, ValueError, AttributeError, TypeError) as exc:
        raise UserError(f"{path}: not a dimensions file ({exc})") from None
