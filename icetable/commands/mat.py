"""`icetable mat`: write the printable calibration mat, corner cards and palette sheet."""
from __future__ import annotations

from pathlib import Path

from calibration.mat import KINDS, write
from icetable.cli import UserError


def register(sub) -> None:
    p = sub.add_parser("mat", help="write the printable calibration mat (PNG and PDF, true scale)")
    p.add_argument("--out", "-o", default="mat", help="output folder (default: ./mat)")
    p.add_argument("--kind", choices=KINDS + ("all",), default="all",
                   help="a4, letter, a3 (one sheet), cards (four corner cards for a large "
                        "play area), palette (colour-learning sheet), enrol (where the piecepack "
                        "goes for calibrate --enrol), or all (default)")
    p.add_argument("--dpi", type=int, default=200, help="print resolution (default 200)")
    p.set_defaults(run=run)


def run(args) -> int:
    if not 72 <= args.dpi <= 600:
        raise UserError(f"--dpi must be between 72 and 600, got {args.dpi}")
    kinds = KINDS if args.kind == "all" else (args.kind,)
    try:
        for kind in kinds:
            for path in write(kind, Path(args.out), args.dpi):
                print(path)
    except OSError as exc:
        raise UserError(f"{args.out}: cannot write ({exc.strerror or exc})") from None
    return 0
