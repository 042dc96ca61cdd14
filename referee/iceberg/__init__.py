"""The Iceberg referee: tiles and coins from a scene, and the match (rules: iceberg.md)."""
from referee.iceberg.match import IcebergMatch, IcebergOptions
from referee.iceberg.scene import board_from_scene, evaluate

__all__ = ["IcebergMatch", "IcebergOptions", "board_from_scene", "evaluate"]
