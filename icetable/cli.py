"""The `icetable` console script.

Each subcommand lives in its own module under `icetable.commands` and exposes
`register(subparsers)`, which adds a parser whose default `run(args) -> int` does the work.
Modules are discovered, so adding a subcommand touches no shared file.
"""
from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from icetable.threads import one_blas_thread

one_blas_thread()       # before any command imports numpy

from icetable import commands  # noqa: E402


class UserError(Exception):
    """Bad input from the user: printed as one line, exit code `code`."""

    def __init__(self, message: str, code: int = 2):
        super().__init__(message)
        self.code = code


class _Parser(argparse.ArgumentParser):
    """argparse with a wrong option or argument told in one line (not the usage before it);
    subcommand parsers are made of the same class."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: {message} (--help lists what it takes)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="icetable", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        try:
            module = importlib.import_module(f"{commands.__name__}.{info.name}")
        except ImportError as exc:
            _unavailable(sub, info.name, exc)
            continue
        module.register(sub)
    return parser


def _unavailable(sub, name: str, exc: Exception) -> None:
    """A subcommand whose module cannot be imported (a missing library) says so when run,
    and the other subcommands keep working."""
    def run(args) -> int:
        raise UserError(f"this command is unavailable: {exc}")

    p = sub.add_parser(name, help=f"(unavailable: {exc})", add_help=False)
    p.add_argument("rest", nargs=argparse.REMAINDER)
    p.set_defaults(run=run)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except UserError as exc:
        print(f"icetable {args.command}: {exc}", file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
