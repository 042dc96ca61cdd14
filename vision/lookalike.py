"""Whether a frame looks like the game it is read as: a one-line warning when it does not (the
frame is still read as that game; the user may know better)."""
from __future__ import annotations

import numpy as np

from referee.scene import Scene
from vision.detector import CARD_GAMES, GAME_PIPELINES, Detector

MIN_TILES = 4           # piecepack tiles that make a frame look like IceFloe or Iceberg
MIN_CARDS = 2           # home cards that make a frame look like Ice Pirates


def unlike(detector: Detector, frame: np.ndarray, game: str, scene: Scene) -> str | None:
    """What says the table does not hold `game` (`scene` is the frame read as it), or None:
    piecepack tiles under a pyramid game, none under a piecepack game, no home card under a
    game played with them, home cards under a pyramid game played without them."""
    piecepack = game in GAME_PIPELINES
    seen = scene if piecepack else GAME_PIPELINES["icefloe"](detector, frame, "icefloe")
    tiles = len(seen.of_type("tile"))
    if piecepack and tiles == 0:
        return f"no piecepack tiles seen: does the table hold {game}? (--game icehouse or icepirates for pyramids)"
    if not piecepack and tiles >= MIN_TILES:
        return f"{tiles} piecepack tiles seen: this looks like IceFloe or Iceberg, not {game} (--game icefloe or iceberg)"
    if game in CARD_GAMES and not scene.of_type("card"):
        return f"no home cards seen: does the table hold {game}? (--game icehouse for pyramids without home cards)"
    if not piecepack and game not in CARD_GAMES:
        cards = detector.home_cards(frame)
        if len(cards) >= MIN_CARDS:
            return (f"{len(cards)} home cards seen: this looks like Ice Pirates, not {game} "
                    f"(--game {CARD_GAMES[0]})")
    return None
