"""Host routes: start, undo, remove a player, end, score by hand, rule on a call, post a scene.

The host is the device that created the table (host cookie, or `Authorization: Bearer` for
the camera loop) or, at a table created without one, its first player.
"""
from __future__ import annotations

from flask import Blueprint, abort, jsonify

from referee.evaluate import evaluate
from referee.match import IllegalAction
from referee.scene import SceneError, scene_from_dict
from webapp import store
from webapp.api import app_games, game_or_409, table_or_404
from webapp.db import app_store, get_db
from webapp.games import icehouse_scene, table_rules
from webapp.security import current_player, is_host, json_body

bp = Blueprint("host", __name__, url_prefix="/t/<code>")


def host_table(code: str):
    table = table_or_404(code)
    db = get_db()
    if not is_host(db, table, current_player(db, table)):
        abort(403, "only the host may do this")
    return table


def perform(table, action: dict, reason: str = ""):
    try:
        return app_games().perform(get_db(), table, game_or_409(table), action, reason)
    except IllegalAction as exc:
        abort(409, str(exc))


@bp.post("/host/start")
def start(code: str):
    table = host_table(code)
    db = get_db()
    sides = [p["side"] for p in store.players(db, table["id"])]
    seed = json_body().get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        abort(400, "seed must be a whole number")
    try:
        game = app_games().start(db, table, sides, seed)
    except ValueError as exc:
        abort(409, str(exc))
    return jsonify(game=game["number"], players=sides), 201


@bp.post("/host/undo")
def undo(code: str):
    table = host_table(code)
    undone = app_games().undo(get_db(), table, game_or_409(table))
    if undone is None:
        abort(409, "nothing to undo in this game")
    return jsonify(undone={"player": undone.get("player"), "type": undone.get("type")})


@bp.post("/host/remove")
def remove(code: str):
    """Unseat a player. His ballot in a vote not yet revealed is withdrawn with him: whoever
    takes the freed seat starts with no ballot."""
    table = host_table(code)
    db = get_db()
    player_id = json_body().get("player")
    games = app_games()
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
        event_id = app_store().write(job)
        if ballot is not None:
            games.drop(store.current_game(db, table["id"])["id"])
    games.publish(table["id"], event_id)
    return jsonify(removed=player_id)


@bp.post("/host/end")
def end(code: str):
    table = host_table(code)
    game = game_or_409(table)
    if game["status"] != "playing":
        abort(409, "this game is over")
    try:
        app_games().end(get_db(), table, game, "host")
    except IllegalAction as exc:
        abort(409, str(exc))
    return jsonify(ended=game["number"])


@bp.post("/host/score")
def score(code: str):
    """A score-sheet entry by hand: points for one player, with a reason."""
    table = host_table(code)
    data = json_body()
    reason = str(data.get("reason") or "host entry")[:60]
    perform(table, {"player": "host", "type": "host_score", "side": data.get("side"),
                    "points": data.get("points")}, reason)
    return jsonify(ok=True)


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
    result = perform(table, {"player": "host", "type": "confirm_call", "kind": data.get("kind"),
                             "icehoused": icehoused})
    return jsonify(ok=True, events=result["events"])


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
    event_id = app_store().write(job)
    app_games().publish(table["id"], event_id)
    return jsonify(report), 201
