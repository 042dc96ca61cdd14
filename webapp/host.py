"""Host routes: start, undo, remove a player, end, score by hand, rule on a call, post a scene.

The host is the device that created the table (host cookie, or `Authorization: Bearer` for
the camera loop) or, at a table created without one, its first player.
"""
from __future__ import annotations

from flask import Blueprint, abort

from referee.evaluate import evaluate
from referee.match import IllegalAction
from referee.scene import SceneError, scene_from_dict
from webapp import store
from webapp.api import accepted, app_games, game_or_409, table_or_404
from webapp.db import app_store, get_db
from webapp.games import icehouse_scene, table_rules
from webapp.replies import respond
from webapp.security import current_player, is_host, json_body

bp = Blueprint("host", __name__, url_prefix="/t/<code>")


def host_table(code: str):
    table = table_or_404(code)
    db = get_db()
    if not is_host(db, table, current_player(db, table)):
        abort(403, "only the host may do this")
    return table


def perform(table, action: dict, answer, reason: str = ""):
    """Apply the host's `action`; the response `answer(result)` (stored with it)."""
    try:
        result = app_games().perform(get_db(), table, game_or_409(table), action, reason, answer)
    except IllegalAction as exc:
        abort(409, str(exc))
    return respond(answer, result)


@bp.post("/host/start")
def start(code: str):
    table = host_table(code)
    db = get_db()
    sides = [p["side"] for p in store.players(db, table["id"])]
    seed = json_body().get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        abort(400, "seed must be a whole number")
    def answer(game):
        return {"game": game["number"], "players": sides}, 201
    try:
        game = app_games().start(db, table, sides, seed, answer)
    except ValueError as exc:
        abort(409, str(exc))
    return respond(answer, game)


@bp.post("/host/undo")
def undo(code: str):
    table = host_table(code)

    def answer(undone):
        return {"undone": {"player": undone.get("player"), "type": undone.get("type")}}, 200
    undone = app_games().undo(get_db(), table, game_or_409(table), answer)
    if undone is None:
        abort(409, "nothing to undo in this game")
    return respond(answer, undone)


@bp.post("/host/remove")
def remove(code: str):
    """Unseat a player. His ballot in a vote not yet revealed is withdrawn with him: whoever
    takes the freed seat starts with no ballot."""
    table = host_table(code)
    db = get_db()
    player_id = json_body().get("player")
    games = app_games()

    def removed(_event_id):
        return {"removed": player_id}, 200
    with games.lock(table["id"]):
        row = next((p for p in store.players(db, table["id"]) if p["id"] == player_id), None)
        if not isinstance(player_id, int) or row is None:
            abort(404, "no such player at this table")
        ballot = games.sealed_ballot(db, table, row["side"])

        def job(w):
            store.remove_player(w, table["id"], player_id)
            if ballot is not None:
                store.undo_action(w, ballot)
            return store.add_event(w, table["id"], "player_removed", {"player": player_id})
        event_id = app_store().write(job, answer=removed)
        if ballot is not None:
            games.drop(store.current_game(db, table["id"])["id"])
    games.publish(table["id"], event_id)
    return respond(removed, event_id)


@bp.post("/host/end")
def end(code: str):
    table = host_table(code)
    game = game_or_409(table)
    if game["status"] != "playing":
        abort(409, "this game is over")
    def answer(_):
        return {"ended": game["number"]}, 200
    try:
        app_games().end(get_db(), table, game, "host", answer)
    except IllegalAction as exc:
        abort(409, str(exc))
    return respond(answer, None)


@bp.post("/host/score")
def score(code: str):
    """A score-sheet entry by hand: points for one player, with a reason."""
    table = host_table(code)
    data = json_body()
    reason = str(data.get("reason") or "host entry")[:60]
    return perform(table, {"player": "host", "type": "host_score", "side": data.get("side"),
                           "points": data.get("points")}, lambda _: ({"ok": True}, 200), reason)


@bp.post("/host/confirm")
def confirm(code: str):
    """The host's ruling on an icehouse call made when no scene was known."""
    table = host_table(code)
    if table["game"] != "icehouse":
        abort(404, "only Icehouse has calls to rule on")
    data = json_body()
    icehoused = data.get("icehoused", [])
    if not isinstance(icehoused, list):
        abort(400, "icehoused must be a list of colours")
    return perform(table, {"player": "host", "type": "confirm_call", "kind": data.get("kind"),
                           "icehoused": icehoused}, accepted)


@bp.post("/scene")
def post_scene(code: str):
    """The camera loop's latest scene (SCENE.md); its report's warnings go to every phone."""
    table = host_table(code)
    db = get_db()
    data = json_body()
    try:
        scene = scene_from_dict(data, "scene")
        if scene.game != table["game"]:
            abort(400, f"scene: field 'game': {scene.game!r}, but this table plays {table['game']!r}")
        game = store.current_game(db, table["id"])
        if table["game"] == "icehouse" and game is not None:
            match = app_games().session(db, game, table).match
            scene = scene_from_dict(icehouse_scene(data, match), "scene")
        report = evaluate(scene, options=table_rules(table)).to_dict()
        report["warnings"] += [w for w in data.get("camera_warnings", []) if isinstance(w, dict)
                               and isinstance(w.get("code"), str) and isinstance(w.get("message"), str)]
    except (SceneError, ValueError) as exc:
        abort(400, str(exc))
    def job(w):
        store.save_scene(w, table["id"], data, report)
        return store.add_event(w, table["id"], "report", {"warnings": report["warnings"], "scores": report["scores"]})
    def answer(_event_id):
        return report, 201
    event_id = app_store().write(job, answer=answer)
    app_games().publish(table["id"], event_id)
    return respond(answer, event_id)
