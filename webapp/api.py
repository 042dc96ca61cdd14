"""Player routes: create a table, join it, read the state, act, roll dice, export the sheet."""
from __future__ import annotations

import csv
import io
import json
import secrets
import unicodedata

from flask import Blueprint, abort, current_app, jsonify, make_response, request

from referee.match import IllegalAction
from webapp import games as game_rules
from webapp import store
from webapp.ballots import sealed_count, unsealed
from webapp.db import app_store, get_db, is_integrity_error
from webapp.replies import respond
from webapp.security import HOST_COOKIE, PLAYER_COOKIE, current_player, is_host, json_body, set_cookie
from webapp.state import player_dict, snapshot

bp = Blueprint("api", __name__)
NAME_MAX = 20


def app_games() -> game_rules.Games:
    return current_app.extensions["icetable"].games


def table_or_404(code: str):
    table = store.table_by_code(get_db(), code)
    if table is None:
        abort(404, f"no table {code.upper()!r}")
    return table


def game_or_409(table):
    game = store.current_game(get_db(), table["id"])
    if game is None:
        abort(409, "no game has started at this table")
    return game


@bp.post("/tables")
def create_table():
    data = json_body()
    game = data.get("game")
    if game not in game_rules.SIDES:
        abort(400, f"game must be one of {', '.join(game_rules.SIDES)}")
    options = data.get("options", {})
    if not isinstance(options, dict):
        abort(400, "options must be a JSON object")
    if "timer_minutes" in options:
        minutes = options["timer_minutes"]
        if not isinstance(minutes, (int, float)) or isinstance(minutes, bool) or not 0.05 <= minutes <= 120:
            abort(400, "timer_minutes must be a number of minutes between 0.05 and 120")
    try:
        game_rules.make_match(game, game_rules.trial_sides(game, options), 0, options)
    except ValueError as exc:
        abort(400, str(exc))
    def answer(created):
        code = created[0]["code"]
        return {"code": code, "table_url": f"/t/{code}/table", "join_url": f"/t/{code}"}, 201
    created = app_store().write(lambda w: store.create_table(w, game, options), answer=answer)
    (table, host_token), response = created, respond(answer, created)
    set_cookie(response, HOST_COOKIE.format(code=table["code"]), host_token, table["code"])
    return response


def clean_name(raw) -> str:
    if not isinstance(raw, str):
        abort(400, "name must be text")
    name = " ".join(unicodedata.normalize("NFC", raw).split())
    if not 1 <= len(name) <= NAME_MAX or not name.isprintable():
        abort(400, f"name must be 1 to {NAME_MAX} printable characters")
    return name


@bp.post("/t/<code>/join")
def join(code: str):
    table = table_or_404(code)
    db = get_db()
    me = current_player(db, table)
    if me is not None:                       # a phone that comes back is the same player
        return jsonify(player=player_dict(me), rejoined=True)
    data = json_body()
    name, side = clean_name(data.get("name")), data.get("side")
    if side not in game_rules.SIDES[table["game"]]:
        abort(400, f"side must be one of {', '.join(game_rules.SIDES[table['game']])}")
    if game_rules.is_full(table["game"], len(store.players(db, table["id"]))):
        abort(409, f"table full: {game_rules.NAMES[table['game']]} is for at most "
                   f"{game_rules.PLAYER_COUNTS[table['game']][-1]} players")

    def job(w):
        first = table["host_hash"] is None and not any(p["is_host"] for p in store.players(w, table["id"]))
        player, token = store.add_player(w, table["id"], name, side, first)
        return player, token, store.add_event(w, table["id"], "joined", player_dict(player))
    def answer(joined):
        return {"player": player_dict(joined[0]), "rejoined": False}, 201
    try:
        joined = app_store().write(job, answer=answer)
    except Exception as exc:
        if not is_integrity_error(exc):
            raise
        abort(409, f"{side} or the name {name!r} is already taken at this table")
    _, token, event_id = joined
    app_games().publish(table["id"], event_id)
    response = respond(answer, joined)
    set_cookie(response, PLAYER_COOKIE.format(code=table["code"]), token, table["code"])
    return response


def table_now(code: str):
    """(table, connection, requesting player or None); at an Icehouse table, after firing any
    due timer (other games have none: no query for them)."""
    table = table_or_404(code)
    db = get_db()
    if table["game"] == "icehouse":
        app_games().fire_due_timers(db)
    return table, db, current_player(db, table)


@bp.get("/t/<code>/state")
def state(code: str):
    table, db, me = table_now(code)
    return jsonify(snapshot(db, app_games(), table, me, is_host(db, table, me)))


@bp.post("/t/<code>/act")
def act(code: str):
    """A player's action, as one of the closed choices the match offers him now."""
    table, db, me = table_now(code)
    if me is None:
        abort(403, "join the table first")
    action = json_body()
    if action.get("player", me["side"]) != me["side"]:
        abort(403, "you can only act for yourself")
    action = {**action, "player": me["side"]}
    game = game_or_409(table)
    session = app_games().session(db, game, table)
    if canonical(chosen(action)) not in {canonical(a) for a in session.match.legal_actions(me["side"])}:
        abort(409, "that is not one of your choices now")
    if table["game"] == "icehouse":
        action = resolve_call(db, table, session.match, action)
    try:
        result = app_games().perform(db, table, game, action, answer=accepted)
    except IllegalAction as exc:
        abort(409, str(exc))
    return respond(accepted, result)


def accepted(result: dict) -> tuple[dict, int]:
    """The answer to an accepted action: the verdict's events."""
    return {"ok": True, "events": result.get("events", [])}, 200


def chosen(action: dict) -> dict:
    """The closed choice an action makes: without the face a flipped real tile shows (Iceberg),
    which the player reads off the table and the match checks."""
    return {k: v for k, v in action.items() if k != "face"}


def canonical(action: dict) -> str:
    """A strict form for comparing actions: JSON keeps true apart from 1 and "3" from 3. A
    whole float is its integer (a browser writes the heading 320.0 as 320)."""
    return json.dumps(_whole(action), sort_keys=True)


def _whole(value):
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _whole(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_whole(v) for v in value]
    return value


def resolve_call(db, table, match, action: dict) -> dict:
    """An icehouse call judged on the latest scene, if the camera posted one."""
    scene, _ = store.latest_scene(db, table["id"])
    if scene is None:
        return action
    from referee.icehouse import call
    from referee.scene import scene_from_dict
    outcome = call(scene_from_dict(game_rules.icehouse_scene(scene, match), "scene"),
                   action["player"], options=game_rules.table_rules(table))
    return {**action, "outcome": {"kind": outcome.kind, "icehoused": list(outcome.icehoused),
                                  "message": outcome.message}}


@bp.post("/t/<code>/dice")
def roll_die(code: str):
    """A virtual piecepack die (null, ace, 2-5), rolled on the server and shown to everyone."""
    table = table_or_404(code)
    db = get_db()
    me = current_player(db, table)
    if me is None and not is_host(db, table):
        abort(403, "join the table first")
    face = secrets.choice(game_rules.DIE_FACES)
    who = {"name": me["name"], "side": me["side"]} if me else {"name": "host", "side": None}
    def answer(_event_id):
        return {"face": face}, 200
    event_id = app_store().write(lambda w: store.add_event(w, table["id"], "dice", {**who, "face": face}),
                                 answer=answer)
    app_games().publish(table["id"], event_id)
    return respond(answer, event_id)


def game_asked(table):
    """The game named by `?game=N` (default: the latest), or 404."""
    db, number = get_db(), request.args.get("game", type=int)
    game = store.game_by_number(db, table["id"], number) if number else store.current_game(db, table["id"])
    if game is None:
        abort(404, "no such game at this table")
    return game


def sheet(table):
    """(game row, score-sheet rows, totals) of the game asked for."""
    db = get_db()
    game = game_asked(table)
    totals = app_games().session(db, game, table).scores()
    return game, store.ledger(db, game["id"]), totals


@bp.get("/t/<code>/export.json")
def export_json(code: str):
    table = table_or_404(code)
    game, rows, totals = sheet(table)
    response = jsonify(table=table["code"], game=table["game"], number=game["number"],
                       status=game["status"], players=json.loads(game["players"]),
                       rows=rows, totals=totals)
    response.headers["Content-Disposition"] = f"attachment; filename={table['code']}-{game['number']}.json"
    return response


@bp.get("/t/<code>/record.jsonl")
def export_record(code: str):
    """The game record (docs/records.md), for `icetable replay`: the host's while the game is
    played, everyone's once it is over. Never a sealed ballot: while a vote holds one the record
    is refused, and a game ended before its vote's reveal is recorded without them."""
    from referee.record import make_header, step_line
    table = table_or_404(code)
    game = game_asked(table)
    db = get_db()
    if game["status"] != "over" and not is_host(db, table, current_player(db, table)):
        abort(403, "the record is the host's until the game is over")
    if table["game"] == "icehouse":
        abort(409, "an Icehouse record comes from the camera loop, not from the phones")
    with app_games().lock(table["id"]):
        match = app_games().session(db, game, table).match
        if game["status"] != "over" and sealed_count(match):
            abort(409, "the record is available once the vote is revealed")
        actions = unsealed(store.live_actions(db, game["id"]), match)
    header = make_header(table["game"], json.loads(game["players"]), game["seed"],
                         game_rules.table_rules(table))
    actions = [a for a in actions if a["type"] != "host_score"]
    lines = [json.dumps(header)] + [step_line(i, a) for i, a in enumerate(actions, start=1)]
    response = make_response("\n".join(lines) + "\n")
    response.mimetype = "application/jsonl"
    response.headers["Content-Disposition"] = f"attachment; filename={table['code']}-{game['number']}.jsonl"
    return response


def cell(text: str) -> str:
    """Text for a spreadsheet cell: a leading = + - @ (also after spaces), tab or carriage
    return would make it a formula."""
    risky = text[:1] in ("\t", "\r") or text.lstrip(" \t\r\n")[:1] in ("=", "+", "-", "@")
    return "'" + text if risky else text


@bp.get("/t/<code>/export.csv")
def export_csv(code: str):
    table = table_or_404(code)
    game, rows, totals = sheet(table)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["round", "player", "points", "source", "reason"])
    for row in rows:
        writer.writerow([row["round"], row["side"], row["points"], row["source"], cell(row["reason"])])
    for side, total in totals.items():
        writer.writerow(["total", side, total, "", ""])
    response = make_response(out.getvalue())
    response.mimetype = "text/csv"
    response.headers["Content-Disposition"] = f"attachment; filename={table['code']}-{game['number']}.csv"
    return response
