"""The IceFloe referee: the board from a scene, turn legality, and the match (rules: icefloe.md)."""
from referee.icefloe.match import IceFloeMatch
from referee.icefloe.options import IceFloeOptions
from referee.icefloe.scene import board_from_scene, evaluate, judge_turn

__all__ = ["IceFloeMatch", "IceFloeOptions", "board_from_scene", "evaluate", "judge_turn"]
