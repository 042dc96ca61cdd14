"""The `icetable` console script.

Each subcommand lives in its own module under `icetable.commands` and exposes
`register(subparsers)`, which adds a parser whose default `run(args) -> int` does the work.
Modules are discovered, so adding a subcommand touches no shared file.
"""
from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys

from icetable.threads import one_blas_thread

one_blas_thread()       # before any command imports numpy

from icetable import commands  # noqa: E402

INTERNAL = 70           # exit code of a bug (EX_SOFTWARE); ICETABLE_DEBUG=1 shows its traceback
BROKEN_PIPE = 141       # the reader of the output went away (`| head`): a Unix tool's 128 + SIGPIPE


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


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The parsed command line; an argument no parser knows is told by the subcommand's name."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:
        parser.exit(2, f"icetable {args.command}: unrecognized arguments: {' '.join(extra)} "
                       f"(--help lists what it takes)\n")
    return args


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code. Nothing ends in a traceback: bad input is
    one line and exit 2 (or the command's own code), output cut short by a closed pipe (`| head`)
    ends quietly, and a bug is one line and exit 70."""
    args = parse(argv)
    try:
        code = args.run(args)
        sys.stdout.flush()          # a closed pipe shows here, not at exit
        return code
    except UserError as exc:
        _say(f"icetable {args.command}: {exc}")
        return exc.code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        _quiet_stdout()
        return BROKEN_PIPE
    except Exception as exc:  # noqa: BLE001 - the last resort: one line, never a traceback
        if os.environ.get("ICETABLE_DEBUG"):
            raise
        _say(f"icetable {args.command}: internal error {type(exc).__name__}: {exc} "
             f"(a bug; ICETABLE_DEBUG=1 shows where)")
        return INTERNAL


def _say(line: str) -> None:
    try:
        print(line, file=sys.stderr, flush=True)
    except (BrokenPipeError, ValueError):
        pass


def _quiet_stdout() -> None:
    """The reader of standard output has gone: point it at /dev/null so that Python's own flush
    at exit does not report the broken pipe."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    sys.exit(main())
