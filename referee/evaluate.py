"""Judge a scene with the referee of its game.

Each game lives in module `referee.<game>` and exposes
`evaluate(scene, dims=DEFAULT, options=None) -> Report`.
"""
from __future__ import annotations

import importlib

from referee.dimensions import DEFAULT, Dimensions
from referee.report import Report
from referee.scene import Scene


def evaluate(scene: Scene, dims: Dimensions = DEFAULT, options: dict | None = None) -> Report:
    """The report of `scene` under the rules of `scene.game`."""
    module = importlib.import_module(f"referee.{scene.game}")
    return module.evaluate(scene, dims=dims, options=options)
