"""Web app: Iceberg die rolls and Ice Pirates turns through phones; every game is rebuilt
exactly from its stored actions after a restart (chance included)."""
from __future__ import annotations

import pytest

from tests.webapp_helpers import make_app, new_table, seat


def play(phones, steps: int, prefer: str | None = None) -> None:
    """`steps` actions, each the first legal choice (of type `prefer` when there is one)."""
    by_side = {p.side: p for p in phones}
    for _ in range(steps):
        game = phones[0].state()["game"]
        if game["status"] != "playing":
            return
        phone = by_side[game["to_act"][0]]
        legal = phone.state()["game"]["legal"]
        chosen = next((a for a in legal if a["type"] == prefer), legal[0])
        r = phone.act({k: v for k, v in chosen.items() if k != "player"})
        assert r.status_code == 200, r.json


def restarted_views(tmp_path, app, code, phones) -> tuple[list, list]:
    """Every phone's view before and after a new app opens the same store."""
    before = [p.state()["game"] for p in phones]
    again = make_app(tmp_path)
    for phone in phones:
        cookie = phone.client.get_cookie(f"icetable_p_{code}", path=f"/t/{code}")
        phone.client = again.test_client()
        phone.client.set_cookie(cookie.key, cookie.value, path=f"/t/{code}")
    return before, [p.state()["game"] for p in phones]


@pytest.mark.parametrize("game,sides,prefer", [
    ("iceberg", ["suns", "moons"], "roll"),
    ("icepirates", ["red", "blue"], "move"),
    ("icefloe", ["suns", "moons", "crowns", "arms"], None),
])
def test_a_restart_rebuilds_the_same_game(tmp_path, game, sides, prefer):
    app = make_app(tmp_path)
    host, code = new_table(app, game)
    phones = seat(app, code, sides)
    assert host.post(f"/t/{code}/host/start", json={}).status_code == 201
    play(phones, 40, prefer)
    before, after = restarted_views(tmp_path, app, code, phones)
    assert before == after


def iceberg_table(tmp_path, options=None):
    """(phone to act, the other phone) after both starting coins are placed."""
    app = make_app(tmp_path)
    host, code = new_table(app, "iceberg", options)
    phones = seat(app, code, ["suns", "moons"])
    host.post(f"/t/{code}/host/start", json={"seed": 4})
    play(phones, 2)                                   # both place a starting coin
    state = phones[0].state()["game"]
    roller = next(p for p in phones if p.side == state["to_act"][0])
    return roller, next(p for p in phones if p is not roller)


def test_iceberg_rolls_and_flips_are_what_the_real_die_and_tile_show(tmp_path):
    roller, other = iceberg_table(tmp_path)
    rolls = [a for a in roller.state()["game"]["legal"] if a["type"] == "roll"]
    assert [a["roll"] for a in rolls] == [0, 1, 2, 3, 4, 5]
    assert roller.act({"type": "roll"}).status_code == 409         # say what the die shows
    r = roller.act({"type": "roll", "roll": 3})
    assert r.status_code == 200 and r.json["events"][0]["roll"] == 3
    assert other.state()["game"]["view"]["last_roll"] == 3
    refused = other.act({"type": "flip", "tile": "t40"})
    assert refused.status_code == 409 and "face" in refused.json["error"]
    assert other.act({"type": "flip", "tile": "t40", "face": {"suit": "arms", "rank": 2}}).status_code == 200
    assert roller.state()["game"]["view"]["tiles"]["t40"] == {"cell": [4, 0], "face": "up", "open": True,
                                                               "suit": "arms", "rank": 2}


def test_iceberg_virtual_die_option_rolls_on_the_server(tmp_path):
    roller, other = iceberg_table(tmp_path, {"die": "virtual"})
    assert {"player": roller.side, "type": "roll"} in roller.state()["game"]["legal"]
    r = roller.act({"type": "roll"})
    assert r.status_code == 200
    roll = r.json["events"][0]["roll"]
    assert other.state()["game"]["view"]["last_roll"] == roll
    assert other.act({"type": "roll", "roll": 5}).status_code == 409   # no choosing one's die


def test_ice_pirates_turns_and_treasure_tally(tmp_path):
    app = make_app(tmp_path)
    host, code = new_table(app, "icepirates")
    red, blue = seat(app, code, ["red", "blue"])
    host.post(f"/t/{code}/host/start", json={"seed": 2})
    assert blue.act({"type": "end_turn"}).status_code == 409
    assert red.act({"type": "end_turn"}).status_code == 200
    game = red.state()["game"]
    assert game["to_act"] == ["blue"] and game["legal"] == []
    assert game["scores"] == {"red": 0, "blue": 0} == game["view"]["scores"]
    assert all(not i["explored"] for i in blue.state()["game"]["view"]["islands"].values())


def test_a_browser_s_whole_number_matches_the_choice_s_float(tmp_path):
    """JavaScript writes the heading 230.0 of a legal move as 230: the same choice."""
    app = make_app(tmp_path)
    host, code = new_table(app, "icepirates")
    red, _ = seat(app, code, ["red", "blue"])
    assert host.post(f"/t/{code}/host/start", json={}).status_code == 201
    move = next(a for a in red.state()["game"]["legal"]
                if a["type"] == "move" and float(a["to"]["heading"]).is_integer())
    sent = {**move, "to": {k: int(v) if float(v).is_integer() else v for k, v in move["to"].items()}}
    assert isinstance(sent["to"]["heading"], int)
    assert red.act(sent).status_code == 200
