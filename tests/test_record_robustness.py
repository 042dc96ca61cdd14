"""Bad actions from a phone or a record: always IllegalAction with one line, never a crash, and
the state unchanged."""
import random

import pytest

from referee.match import IllegalAction, new_match, same_choice
from tests.piecepack_builders import table_tiles

ODD = (None, "x", -1, 99, True, [1, "a"], {"suit": None}, [])


def mutations(action: dict):
    """The action with one field dropped or replaced by an odd value, or an odd die roll or
    tile face added."""
    extra = {"roll": "roll", "flip": "face"}.get(action["type"])
    if extra:
        yield from (dict(action, **{extra: odd}) for odd in ODD if odd is not None)
    for key in action:
        if key == "player":
            continue
        yield {k: v for k, v in action.items() if k != key}
        for odd in ODD:
            yield dict(action, **{key: odd})


@pytest.mark.parametrize("game, players", [("icefloe", ["suns", "moons", "crowns"]),
                                           ("iceberg", ["suns", "moons"])])
def test_odd_actions_are_refused_cleanly_in_every_phase(game, players):
    match, rng, faces = new_match(game, players, seed=1), random.Random(1), table_tiles(1)
    phases = set()
    while not match.is_over():
        player = rng.choice(match.to_act())
        legal = match.legal_actions(player)
        if match.phase not in phases:
            phases.add(match.phase)
            before = match.view(None), match.view(player)
            for odd in mutations(legal[0]):
                if any(same_choice(choice, odd) for choice in legal) and "face" not in odd and "roll" not in odd:
                    continue
                with pytest.raises(IllegalAction) as info:
                    match.apply(odd)
                assert "\n" not in str(info.value)
                assert (match.view(None), match.view(player)) == before
        action = rng.choice(legal)
        match.apply({**action, "face": faces[action["tile"]]} if action["type"] == "flip" else action)
    assert len(phases) >= 3


def test_odd_faces_of_a_flip_are_refused():
    match = new_match("iceberg", ["suns", "moons"], seed=1)
    match.apply({"player": "suns", "type": "play", "square": [0, 0]})
    match.apply({"player": "moons", "type": "play", "square": [9, 9]})
    for odd in ODD[1:]:
        with pytest.raises(IllegalAction):
            match.apply({"player": "suns", "type": "flip", "tile": "t20", "face": odd})
    assert match.board.faces["t20"] is None
