"""The state snapshot one recipient may see: the only way game state leaves the server.

Every channel (the /state endpoint, each event stream message, the exports) goes through
`snapshot`, which asks the match for `view(side)`: a player's own view, or the public view
(side None) for the table page, the host and anyone not seated. Sealed ballots live only in
those views' own rules; nothing here reads a match's internals.
"""
from __future__ import annotations

import json

from webapp import store


def player_dict(row) -> dict:
    return {"id": row["id"], "name": row["name"], "side": row["side"], "host": bool(row["is_host"])}


def snapshot(db, games, table, player=None, host: bool = False) -> dict:
    """What `player` (a row, or None) sees at `table` now."""
    seated = store.players(db, table["id"])
    game = store.current_game(db, table["id"])
    scene, report = store.latest_scene(db, table["id"])
    out = {
        "table": {"code": table["code"], "game": table["game"]},
        "me": player_dict(player) if player is not None else None,
        "host": host,
        "players": [player_dict(p) for p in seated],
        "game": None,
        "warnings": report["warnings"] if report else [],
        "camera_scores": report["scores"] if report else {},
        "last_event": store.last_event_id(db, table["id"]),
        "last_die": last_die(db, table["id"]),
    }
    if table["game"] == "icehouse" and scene is not None:     # drawn from the camera's scene
        out["camera_scene"], out["camera_status"] = scene, report.get("status", {})
    if game is not None:
        out["game"] = game_state(db, games, table, game, player)
    return out


def game_state(db, games, table, game, player) -> dict:
    """The game part of a snapshot, read under the table's lock (never a half-applied action)."""
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
            "sheet": store.ledger(db, game["id"]),
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


def last_die(db, table_id: int) -> dict | None:
    """The latest die roll at the table, for a phone that was away when it was rolled."""
    row = db.execute("SELECT payload FROM events WHERE table_id = ? AND kind = 'dice' ORDER BY id DESC LIMIT 1",
                     (table_id,)).fetchone()
    return json.loads(row["payload"]) if row else None


def event_message(row) -> dict:
    """An event as sent to a phone (its payload is public)."""
    return {"id": row["id"], "kind": row["kind"], **json.loads(row["payload"])}
