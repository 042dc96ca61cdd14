"""Coins on a committed photoreal frame of the test split (felt under a low sun, the 'ivory'
edition: coins of the tiles' card colour), the set enrolled as a user would."""
import json
from pathlib import Path

import cv2

from calibration.calibfile import load
from referee.scene import scene_from_dict
from vision.detector import Detector
from vision.evaluation import match_nearest

PHOTOREAL = Path(__file__).resolve().parent / "data" / "photoreal"


def test_coins_the_classes_part_between_wood_and_card_are_found_and_read():
    """Four vote coins lie on the cloth beside the board, value up: in this light each one's
    disc is classed about half card, a fifth coin wood (and its numeral dark), so it showed
    neither as a disc of wood nor as an island of card, and none was found. Islands of wood
    and card together are coins too: all four are found, each with its value."""
    data = json.loads((PHOTOREAL / "s0012-f1.json").read_text())
    coins = [p for p in scene_from_dict(data).of_type("coin") if p.id not in data["render"]["hidden"]]
    seen = Detector(load(PHOTOREAL / "calibration-s0012.json")).detect(
        cv2.imread(str(PHOTOREAL / "s0012-f1.jpg")), data["game"]).of_type("coin")
    pairs, _ = match_nearest(coins, seen)
    read = [i for i, j in pairs.items() if (seen[j].face, seen[j].suit, seen[j].rank) ==
            (coins[i].face, coins[i].suit, coins[i].rank)]
    assert len(coins) == 4 and len(read) == 4, (len(coins), len(pairs), len(read))
