"""Rule options: contested readings of the rules, each with a documented default.

A game declares its options as a frozen dataclass; `make(cls, options)` builds it from a dict
of names to values (strings from the command line are converted to the field's type).
"""
from __future__ import annotations

from dataclasses import fields


class OptionError(ValueError):
    """An unknown rule option or a value it cannot take."""


def parse_options(pairs: list[str]) -> dict[str, str]:
    """`["range=footprint", ...]` -> `{"range": "footprint"}`."""
    out = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise OptionError(f"option {pair!r}: expected NAME=VALUE")
        out[name.strip()] = value.strip()
    return out


def make(cls, options: dict | None):
    """An instance of the options dataclass `cls` with `options` applied."""
    if options is None:
        return cls()
    if isinstance(options, cls):
        return options
    by_name = {f.name: f for f in fields(cls)}
    values = {}
    for name, raw in options.items():
        if name not in by_name:
            raise OptionError(f"unknown rule option {name!r} (known: {', '.join(by_name)})")
        default = getattr(cls(), name)
        values[name] = _convert(name, raw, default, getattr(cls, "CHOICES", {}).get(name))
    return cls(**values)


def _convert(name, raw, default, choices):
    if not isinstance(raw, str):
        value = raw
    elif isinstance(default, bool):
        if raw.lower() not in ("true", "false", "yes", "no", "1", "0"):
            raise OptionError(f"option {name!r}: expected true or false, got {raw!r}")
        value = raw.lower() in ("true", "yes", "1")
    elif isinstance(default, (int, float)):
        try:
            value = type(default)(raw)
        except ValueError:
            raise OptionError(f"option {name!r}: expected a number, got {raw!r}") from None
    else:
        value = raw
    if choices and value not in choices:
        raise OptionError(f"option {name!r}: {value!r} is not one of {', '.join(choices)}")
    return value
