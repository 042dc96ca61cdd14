"""Subcommands of `icetable`, one module each (see `icetable.cli`)."""
