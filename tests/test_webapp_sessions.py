"""Whole sessions of every game played from phones in headless Chromium, 360 px wide: choices
made by tapping the drawn board (a tile, a pyramid and its destination, a ship and its target)
or pressing a button, each step screenshotted (folder printed; ICETABLE_SCREENSHOTS keeps it),
and checks on what a person sees: the drawn pieces, the game's words, marked warnings, the
scores, and no sideways scrolling."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.browser_sessions import CHROMIUM, PHONE, Session, browser, drawn, no_sideways_scroll, small_print  # noqa: F401
from tests.icehouse_builders import attack, stand
from tests.webapp_helpers import make_app
from webapp import start_clock
from webapp.serving import BackgroundServer

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is not installed")
RANKS = {0: "null", 1: "ace"}


@pytest.fixture
def server(tmp_path):
    server = BackgroundServer(make_app(tmp_path / "store"))
    yield server
    server.stop()


def shots_for(tmp_path, game: str) -> Path:
    folder = Path(os.environ.get("ICETABLE_SCREENSHOTS") or tmp_path / "screens") / game
    print(f"screenshots of the {game} session: {folder}")
    return folder


# ---- IceFloe ------------------------------------------------------------------------------------
def floe_taps(action: dict, view: dict) -> list[str] | None:
    """What a person taps on the drawn floes for an action (None: a button)."""
    tiles = view["board"]["tiles"]
    at = {tuple(t["cell"]): tid for tid, t in tiles.items()}
    kind = action["type"]
    if kind in ("place", "pick", "remove_empty"):
        return [f"t:{action['tile']}"]
    if kind == "move":
        return [f"p:{action['pyramid']}", f"t:{at[tuple(action['to'])]}"]
    if kind == "slide":
        return [f"t:{action['tile']}", "c:{},{}".format(*action["to"])]
    if kind in ("vote_number", "vote_suit"):
        field = "rank" if kind == "vote_number" else "suit"
        tid = next((t for t, x in tiles.items() if x[field] == action["value"]), None)
        return [f"t:{tid}"] if tid else None
    return None


def floe_choice(legal: list[dict], view: dict) -> dict:
    """The first choice, a vote for a value some floe shows when there is one."""
    tiles = view["board"]["tiles"].values()
    for a in legal:
        if a["type"] == "vote_number" and any(t["rank"] == a["value"] for t in tiles):
            return a
        if a["type"] == "vote_suit" and any(t["suit"] == a["value"] for t in tiles):
            return a
    return legal[0]


def test_icefloe_session_by_tapping_the_floes(tmp_path, browser, server):
    sides = ["suns", "moons", "crowns"]
    s = Session(browser, server.port, "icefloe", sides, shots_for(tmp_path, "icefloe"))
    s.start()
    ann = s.pages["suns"]
    view = s.state()["game"]["view"]
    tiles = len(view["board"]["tiles"])
    assert len(drawn(ann, ".tile")) == tiles >= 20
    words = [f"{RANKS.get(t['rank'], t['rank'])} of {t['suit']}" for t in view["board"]["tiles"].values()]
    assert sorted(drawn(ann, ".tile")) == sorted(words)                  # "null of arms", "ace of suns"
    assert len(drawn(s.table, ".tile")) == tiles                      # the same drawing on the table page
    seen = set()
    for _ in range(400):
        state = s.state()
        game = state["game"]
        if game["status"] == "over":
            break
        side = game["to_act"][0]
        legal = s.phones[side].state()["game"]["legal"]
        action = {k: v for k, v in floe_choice(legal, game["view"]).items() if k != "player"}
        page = s.pages[side]
        if action["type"] == "vote_number" and "vote" not in seen:
            labels = page.locator("#actions button").all_inner_texts()
            assert "null" in labels and "ace" in labels and "0" not in labels
        state = s.act(side, {"player": side, **action}, floe_taps(action, game["view"]))
        view = state["game"]["view"]
        if action["type"] == "place" and "place" not in seen:
            assert drawn(page, ".pyramid") == [f"{side} {action['size']}"]
        if action["type"].startswith("vote_") and view.get("vote", {}).get("mine") is not None:
            mine = page.locator(".vote button.mine")
            assert "tap to see" in mine.inner_text()              # discreet until tapped
            mine.click()
            assert mine.inner_text() == "Your ballot: " + RANKS.get(action["value"], str(action["value"]))
        if action["type"].startswith("vote_") and view.get("vote", {}).get("ballots"):
            for other in s.pages.values():                          # the reveal, on every phone
                other.wait_for_selector(".banner.reveal")
        seen.add(action["type"].split("_")[0])
        if view.get("torch_bearer"):
            assert drawn(page, ".torch") == [f"torch: {view['torch_bearer']}"]
        if view.get("board"):
            assert len(drawn(page, ".pyramid")) == len(view["board"]["pyramids"])
    state = s.state()
    assert state["game"]["status"] == "over" and {"place", "move", "vote", "pick"} <= seen
    for side, page in s.pages.items():
        page.wait_for_selector(".winner")
        scores = page.locator("#scores table.scores").inner_text()
        assert all(f"{p}\t{n}" in scores for p, n in state["game"]["scores"].items())
        assert no_sideways_scroll(page) and small_print(page) == []
    s.shoot("suns", "scores", "#scores")
    ann.click(".rounds summary")                                    # earlier rounds, in words
    s.pages["moons"].click("#roll")                                 # a new state redraws the page
    ann.wait_for_selector("#die:text('Bob rolled')")
    assert ann.locator(".rounds").evaluate("d => d.open")
    assert "Round 1: the " in ann.locator(".rounds").inner_text()
    s.shoot_table("scores")
    s.close()


# ---- Iceberg ------------------------------------------------------------------------------------
PREFER = {"remove": 0, "flip": 1, "roll": 2, "play": 3, "move": 4}


def berg_taps(action: dict) -> list[str] | None:
    kind = action["type"]
    if kind == "play":
        return ["s:{},{}".format(*action["square"])]
    if kind == "move":
        return [f"k:{action['coin']}", "s:{},{}".format(*action["to"])]
    if kind in ("flip", "remove"):
        return [f"t:{action['tile']}"]
    return None


def test_iceberg_session_by_tapping_tiles_and_coins(tmp_path, browser, server):
    # the program's own shuffle and die (tiles=shuffle, die=virtual); a phone flipping a real tile
    # types its face (test_webapp_browser), a real roll is a choice of six
    s = Session(browser, server.port, "iceberg", ["suns", "moons"], shots_for(tmp_path, "iceberg"),
                {"tiles": "shuffle", "die": "virtual"})
    s.start()
    for _ in range(200):
        game = s.state()["game"]
        if game["status"] == "over":
            break
        side = game["to_act"][0]
        legal = s.phones[side].state()["game"]["legal"]
        action = min(legal, key=lambda a: PREFER.get(a["type"], 9))
        view = s.act(side, action, berg_taps(action))["game"]["view"]
        page = s.pages[side]
        assert len(drawn(page, ".coin")) == len(view["coins"])
        up = [t for t in view["tiles"].values() if t["face"] == "up"]
        names = drawn(page, ".tile.up")
        assert len(names) == len(up) and all(" of " in n for n in names)
    state = s.state()
    assert state["game"]["status"] == "over"
    page = s.pages["suns"]
    page.wait_for_selector(".winner")
    assert "Coins in hand" in page.locator("#game").inner_text()
    s.close()


# ---- Ice Pirates ----------------------------------------------------------------------------------
def lying(pid, color, size, x, y, heading):
    return {"id": pid, "type": "pyramid", "x": x, "y": y, "color": color, "size": size, "pose": "lying",
            "heading": heading}


def island(pid, color, x, y):
    return {"id": pid, "type": "pyramid", "x": x, "y": y, "color": color, "size": 3, "pose": "standing",
            "nested": [2, 1]}


def home(color, x, y):
    return {"id": f"home-{color}", "type": "card", "x": x, "y": y, "width": 148, "height": 105, "angle": 0,
            "owner": color}


# A short sea: red's Large lies between its home and island 1 (docked with both), red's Small and
# blue's Medium within each other's cannon range. Island 1 holds 9 treasure: 8 wins for 2 players.
PIRATE_SEA = {
    "scene": {"format": "icetable-scene/1", "game": "icepirates", "area": {"width": 800, "height": 800},
              "pieces": [home("red", 300, 400), home("blue", 600, 180), island("i1", "black", 432, 400),
                         island("i2", "white", 600, 420), lying("red-L1", "red", 3, 398, 423.1, 90),
                         lying("red-S1", "red", 1, 300, 560, 0), lying("blue-M1", "blue", 2, 305, 592, 0),
                         lying("blue-L1", "blue", 3, 600, 260, 90)],
              "state": {"islands": ["i1", "i2"], "island_colors": ["black", "white"], "treasure_color": "black"}},
    "nests": {"i1": [["black", 2], ["black", 1]] * 3, "i2": [["white", 2], ["white", 1]]},
}


def js_number(v) -> str:
    """A number as JavaScript writes it (230, not 230.0)."""
    return str(int(v)) if float(v).is_integer() else repr(float(v))


def pirate_taps(action: dict) -> list[str] | None:
    kind = action["type"]
    if kind == "move":
        to = action["to"]
        return [f"x:{action['ship']}", "d:" + ",".join(js_number(to[k]) for k in ("x", "y", "heading"))]
    if kind in ("fire", "explore", "transfer"):
        other = action.get("target") or action.get("island") or action.get("with")
        return [f"x:{action['ship']}", f"x:{other}"]
    if kind == "repair":
        return [f"x:{action['ship']}"]
    return None


def pirate_choice(legal: list[dict], view: dict, done: set) -> dict:
    """Each side fires once; red explores island 1, moves its Small once, then carries
    treasure home; blue then ends its turns."""
    pick = lambda test: next((a for a in legal if test(a)), None)   # noqa: E731
    choice = (None if "fire" in done else pick(lambda a: a["type"] == "fire")) \
        or pick(lambda a: a["type"] == "explore" and not view["islands"][a["island"]]["explored"]) \
        or (None if "move" in done else pick(lambda a: a["type"] == "move" and a["ship"] == "red-S1")) \
        or pick(lambda a: a["type"] == "transfer" and a["give"] and a["with"].startswith("home-")) \
        or pick(lambda a: a["type"] == "transfer" and a["take"] and a["with"] == "i1" and a["take"][0][0] == "black")
    return choice or pick(lambda a: a["type"] == "end_turn")


def test_icepirates_session_by_tapping_the_sea(tmp_path, browser, server):
    s = Session(browser, server.port, "icepirates", ["red", "blue"], shots_for(tmp_path, "icepirates"),
                options=PIRATE_SEA)
    s.start()
    red = s.pages["red"]
    assert red.locator("#turn").inner_text() == "Your turn · 3 of 3 actions left"
    assert s.pages["blue"].locator("#turn").inner_text() == "Waiting for red"
    assert set(drawn(red, ".ship")) == {"red large 1", "red small 1", "blue medium 1", "blue large 1"}
    assert "island 1" in drawn(red, ".island") and "red's home" in drawn(red, ".home")
    done = {"red": set(), "blue": set()}
    for _ in range(80):
        game = s.state()["game"]
        if game["status"] == "over":
            break
        side = game["to_act"][0]
        mine = s.phones[side].state()["game"]
        action = pirate_choice(mine["legal"], mine["view"], done[side])
        taps = pirate_taps(action)
        if taps and taps[0] == "x:red-S1" and action["type"] == "move":
            s.tap(s.pages[side], "x:red-S1")
            assert s.pages[side].locator("#board .ghost").count() >= 4        # where it can go
            assert s.pages[side].locator("#board .cannon").count() == 2        # its cannon arcs
            assert "Selected: red small 1" in s.pages[side].locator("#pick").inner_text()
            s.shoot(side, "ship-selected")
            s.tap(s.pages[side], "x:red-S1")                                  # dropped again
        state = s.act(side, action, taps)
        view = state["game"]["view"]
        done[side].add(action["type"])
        if action["type"] == "fire":
            target = view["ships"][action["target"]]
            hits = s.pages[side].locator(f'#board .spot[data-keys~="x:{action["target"]}"] .hit').count()
            assert hits == target["damage"] >= 1
            words = "red small 1 hits blue medium 1" if side == "red" else "blue medium 1 hits red small 1"
            assert words in s.pages["red" if side == "blue" else "blue"].locator("#banner").inner_text()
        if action["type"] == "explore":
            label = s.pages[side].locator('#board .island[data-keys~="x:i1"] text').text_content()
            assert label == "1 ✓"
            assert "Island 1 holds black medium ×3, black small ×3" in s.pages[side].locator("#game").inner_text()
    state = s.state()
    assert state["game"]["status"] == "over" and state["game"]["winner"] == ["red"]
    assert state["game"]["scores"]["red"] >= 8
    for page in s.pages.values():
        page.wait_for_selector("text=Winner: red")
        assert no_sideways_scroll(page) and small_print(page) == []
    s.shoot("red", "scores", "#scores")
    s.shoot_table("scores")
    s.close()


def test_icepirates_offers_colours_of_the_set_and_a_full_table(tmp_path, browser, server):
    s = Session(browser, server.port, "icepirates", ["red"], shots_for(tmp_path, "icepirates-join"))
    offered = browser.new_context(**PHONE).new_page()             # a sixth phone
    offered.goto(f"{s.base}/t/{s.code}")
    colours = offered.locator("#sides input").evaluate_all("els => els.map(e => e.value)")
    assert "black" not in colours and "white" not in colours and len(colours) == 8   # the islands' colours
    s.table.click("text=Start game")
    s.table.wait_for_selector("text=Ice Pirates is for 2 to 5 players: 1 player has joined")
    from webapp.client import HttpPhone
    for name, colour in zip(("B", "C", "D", "E"), ("blue", "green", "yellow", "purple")):
        assert HttpPhone(server.port, s.code).join(name, colour)[0] == 201
    status, body = HttpPhone(server.port, s.code).join("F", "orange")
    assert status == 409 and body["error"].startswith("table full")
    offered.reload()
    offered.wait_for_selector("#full:not([hidden])")
    assert "Table full" in offered.locator("#full").inner_text() and no_sideways_scroll(offered)
    missing = offered.context.new_page()
    missing.goto(f"{s.base}/t/NOPE")
    assert "No table \"NOPE\"" in missing.locator("h1").inner_text()
    offered.context.close()
    s.close()


# ---- Icehouse -------------------------------------------------------------------------------------
def test_icehouse_session_with_a_camera_scene_and_a_call(tmp_path, browser, server):
    s = Session(browser, server.port, "icehouse", ["red", "blue"], shots_for(tmp_path, "icehouse"),
                options={"timer_minutes": 30})
    s.start()
    red_defender = stand("r1", "red", 1, 100, 100, angle=0)
    scene = {"format": "icetable-scene/1", "game": "icehouse", "area": {"width": 600, "height": 600},
             "pieces": [red_defender, attack("b9", "blue", 3, red_defender, 5.0), stand("b1", "blue", 2, 300, 300)],
             "state": {"stash": {"red": 5, "blue": 9}}}
    assert s.laptop.request.post(f"{s.base}/t/{s.code}/scene", data=scene).status == 201   # the camera
    blue = s.pages["blue"]
    blue.wait_for_selector("#board svg.icehouse .iced")
    assert set(drawn(blue, ".piece")) == {"red small standing", "blue large attacking", "blue medium standing"}
    assert blue.locator("#board line.arrow").count() == 1
    trouble = {"status": "no_mat", "message": "the calibration mat is not in view"}
    assert s.laptop.request.post(f"{s.base}/t/{s.code}/camera/state", data=trouble).ok
    s.table.wait_for_selector("#trouble:text('The mat is not in view: the calibration mat is not in view')")
    red = s.pages["red"]                  # red jars a piece: he owns up on his phone
    assert red.locator("#actions h3", has_text="Crash: you moved pieces while playing one").count() == 1
    s.act("red", {"player": "red", "type": "crash", "size": 1, "to": "blue"})
    assert red.locator("#actions button", has_text="I crashed playing a small: it goes to blue").count() == 1
    blue.wait_for_selector("text=Crash: red's small goes to blue")
    s.act("blue", {"player": "blue", "type": "call"})
    blue.wait_for_selector("text=In the icehouse: red")
    s.table.click("text=End game")
    for page in s.pages.values():
        page.wait_for_selector(".winner")
    scores = blue.locator("#scores table.scores").inner_text()
    assert "red\t0" in scores and "blue\t" in scores
    s.shoot("blue", "scores", "#scores")
    s.close()


def test_icehouse_timer_rings_large_and_a_returning_phone_sees_the_last_die(tmp_path, browser, server):
    s = Session(browser, server.port, "icehouse", ["red", "blue"], shots_for(tmp_path, "icehouse-timer"),
                options={"timer_minutes": 0.05})                          # 2.25 to 3.75 s
    for page in s.pages.values():                                         # what the phone feels
        page.add_init_script("navigator.vibrate = (p) => { window.buzzed = p; return true; };")
        page.reload()
    clock = start_clock(server.app, interval=0.2)                       # as `icetable serve` runs it
    s.start()
    red, blue = s.pages["red"], s.pages["blue"]
    red.click("#roll")
    face = red.wait_for_selector("#die:text('Ann rolled ')").inner_text()
    blue.reload()                                                         # a phone that was away
    blue.wait_for_selector(f"#die:text('{face}')")
    for page in (red, blue):
        alarm = page.wait_for_selector("#alarm:not([hidden])", timeout=15000)
        assert alarm.inner_text().startswith("Stop! The timer has gone off")
        assert alarm.bounding_box()["height"] >= 700                      # the whole screen
        assert page.evaluate("window.buzzed") == [400, 200, 400, 200, 400]
    s.shoot("red", "timer")
    red.click("#alarm")
    assert red.locator("#alarm").is_hidden()
    clock.set()
    s.close()
