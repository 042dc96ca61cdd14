"""Checks of command-line input made before any work: numbers in range, sizes, addresses and
output paths that would overwrite an input or an unrelated file. Each raises `UserError` with
one line naming the option or file."""
from __future__ import annotations

import ipaddress
import json
import math
from pathlib import Path

from icetable.cli import UserError


def number(option: str, value: float, low: float | None = None, high: float | None = None) -> float:
    """`value` if it is finite and within [low, high]."""
    if not math.isfinite(value):
        raise UserError(f"{option} {value}: must be a finite number")
    if (low is not None and value < low) or (high is not None and value > high):
        span = f"between {_n(low)} and {_n(high)}" if low is not None and high is not None else \
            f"at least {_n(low)}" if low is not None else f"at most {_n(high)}"
        raise UserError(f"{option} {_n(value)}: must be {span}")
    return value


def _n(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def size(option: str, text: str, low: float, high: float, kind=float) -> tuple:
    """'WxH' as two numbers of `kind`, each finite and within [low, high]."""
    try:
        w, h = (kind(v) for v in text.lower().split("x"))
    except ValueError:
        raise UserError(f"{option} must look like WxH, e.g. 1280x720, got {text!r}") from None
    if not all(math.isfinite(v) and low <= v <= high for v in (w, h)):
        raise UserError(f"{option} {text}: each side must be between {_n(low)} and {_n(high)}")
    return w, h


def address(option: str, host: str) -> str:
    """A host to listen on: an IPv4 or IPv6 address, or a name (resolved by the server)."""
    try:
        ipaddress.ip_address(host)
        return host
    except ValueError:
        pass
    if host.replace(".", "").isdigit() or not host or len(host) > 253 or \
            not all(part and part.replace("-", "").isalnum() for part in host.split(".")):
        raise UserError(f"{option} {host}: not an IP address or host name of this machine")
    return host


def port(option: str, value: int) -> int:
    if not 0 <= value <= 65535:
        raise UserError(f"{option} {value}: must be between 0 and 65535")
    return value


def output(path: str | Path, option: str, inputs=(), ours=None, force: bool = False) -> Path:
    """`path` as a file to write: not a folder; not one of `inputs` (the files the command
    reads); and, when it exists, a file the command itself wrote before (`ours(path)` true),
    unless `force`."""
    path = Path(path)
    if path.is_dir():
        raise UserError(f"{option} {path}: is a folder; give a file name")
    if not path.parent.is_dir():
        raise UserError(f"{option} {path}: no folder {path.parent} to write it in")
    if force or not path.exists():
        return path
    if any(_same(path, i) for i in inputs if i):
        raise UserError(f"{option} {path}: would overwrite an input of this command (--force to do it anyway)")
    if ours is None or not ours(path):
        raise UserError(f"{option} {path}: exists and was not written by icetable "
                        f"(--force to overwrite it, or another name)")
    return path


def named(path, exc: Exception) -> UserError:
    """A UserError of `exc`'s message, led by `path` unless it already is."""
    message = str(exc)
    return UserError(message if message.startswith(str(path)) else f"{path}: {message}")


def _same(path: Path, other) -> bool:
    try:
        return Path(other).exists() and path.resolve() == Path(other).resolve()
    except OSError:
        return False


def json_with(path: Path, test) -> bool:
    """Whether `path` holds a JSON object for which `test(data)` is true."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(data, dict) and bool(test(data))


class deep_json:
    """A context in which JSON nested too deeply for Python to decode (RecursionError) is a
    UserError naming `path`."""

    def __init__(self, path):
        self.path = path

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        if kind is not None and issubclass(kind, RecursionError):
            raise UserError(f"{self.path}: JSON nested too deeply to read") from None
        return False
