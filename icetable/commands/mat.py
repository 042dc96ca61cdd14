"""`icetable mat`: write the printable calibration mat, corner cards and palette sheet."""
from __future__ import annotations

from pathlib import Path

from calibration.mat import KINDS, made_here, paths, write
from icetable import checks
from icetable.cli import UserError


def register(sub) -> None:
    p = sub.add_parser("mat", help="write the printable calibration mat (PNG and PDF, true scale)")
    p.add_argument("--out", "-o", default="mat", help="output folder (default: ./mat)")
    p.add_argument("--kind", choices=KINDS + ("all",), default="all",
                   help="a4, letter, a3 (one sheet), cards (four corner cards for a large "
                        "play area), palette (colour-learning sheet), enrol (where the piecepack "
                        "goes for calibrate --enrol), or all (default)")
    p.add_argument("--dpi", type=int, default=200, help="print resolution (default 200)")
    p.add_argument("--force", action="store_true",
                   help="overwrite files in --out that an earlier `icetable mat` did not write")
    p.set_defaults(run=run)


def run(args) -> int:
    if not 72 <= args.dpi <= 600:
        raise UserError(f"--dpi must be between 72 and 600, got {args.dpi}")
    kinds = KINDS if args.kind == "all" else (args.kind,)
    _check_out(Path(args.out), kinds, args.force)
    try:
        for kind in kinds:
            for path in write(kind, Path(args.out), args.dpi):
                print(path)
    except OSError as exc:
        raise UserError(f"{args.out}: cannot write ({exc.strerror or exc})") from None
    return 0


def _check_out(out: Path, kinds, force: bool) -> None:
    """--out a folder (or a new name), in which no page would replace a file that an earlier
    `icetable mat` did not write, unless `force`."""
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out}: is a file; mat writes its pages into a folder (give a folder name)")
    for kind in kinds:
        for path in paths(kind, out):
            if path.exists():
                checks.output(path, "--out", (), made_here, force)
