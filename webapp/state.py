"""The state snapshot one recipient may see: the only way game state leaves the server.

Every channel (the /state endpoint, each event stream message, the exports) goes through
`snapshot`, which asks the match for `view(side)`: a player's own view, or the public view
(side None) for the table page, the host and anyone not seated. Sealed ballots live only in
those views' own rules; nothing here reads a match's internals.
"""
from __future__ import annotations

import json

from webapp.reads import TableRead


def player_dict(row) -> dict:
    return {"id": row["id"], "name": row["name"], "side": row["side"], "host": bool(row["is_host"])}


def snapshot(db, games, table, player=None, host: bool = False, read: TableRead | None = None) -> dict:
    """What `player` (a row, or None) sees at `table`, as `read` (by default: read now)."""
    read = read or TableRead.load(db, table["id"])
    report = read.report
    out = {
        "table": {"code": table["code"], "game": table["game"]},
        "me": player_dict(player) if player is not None else None,
        "host": host,
        "players": [player_dict(p) for p in read.players],
        "game": None,
        "warnings": report["warnings"] if report else [],
        "camera_scores": report["scores"] if report else {},
        "last_event": read.upto,
        "last_die": read.last_die,
    }
    if table["game"] == "icehouse" and read.scene is not None:     # drawn from the camera's scene
        out["camera_scene"], out["camera_status"] = read.scene, report.get("status", {})
    if read.game is not None:
        out["game"] = game_state(db, games, table, read, player)
    return out


def game_state(db, games, table, read: TableRead, player) -> dict:
    """The game part of a snapshot, read under the table's lock (never a half-applied action)."""
    game = read.game
    with games.lock(table["id"]):
        session = games.session(db, game, table)
        match = session.match
        side = player["side"] if player is not None and player["side"] in match.players else None
        playing = game["status"] == "playing"
        return {
            "number": game["number"],
            "status": game["status"],
            "players": list(match.players),
            "view": drawn_view(table["game"], match.view(side), playing),
            "to_act": match.to_act() if playing else [],
            "legal": match.legal_actions(side) if playing and side else [],
            "scores": session.scores(),
            "winner": match.winner() if match.is_over() else None,
            "sheet": read.sheet,
        }


def drawn_view(game: str, view: dict, playing: bool) -> dict:
    """The match view plus what the pages draw and the view does not hold: Ice Pirates' ships'
    reachable areas and cannon areas (shown for a ship its player taps)."""
    if game != "icepirates" or not playing:
        return view
    from icetable.live.overlay import pirate_areas
    from referee.scene import scene_from_dict
    report, cannons = pirate_areas(scene_from_dict(view["scene"], "scene"))
    return {**view, "areas": {sid: {"reach": ship.get("reach", []), "cannons": cannons.get(sid, [])}
                              for sid, ship in report["status"].get("ships", {}).items()}}


def event_message(row) -> dict:
    """An event as sent to a phone (its payload is public)."""
    return {"id": row["id"], "kind": row["kind"], **json.loads(row["payload"])}
