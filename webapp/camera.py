"""The camera's side of a table: the live image with the referee's overlay, camera trouble,
the host's corrections, physical actions seen by the camera, and a phone used as the camera.

The picture and overlay are as public as the table page (anyone who has the table's code);
changing anything needs the host. The live loop (icetable/live) runs beside the app and talks to it only through these routes
(host token as `Authorization: Bearer`, like the scene route). What the camera last sent is kept
in memory (`CameraDesk`): it is a view of the table, not game state; the game state stays in
the store, so a restart loses nothing but the picture.
"""
from __future__ import annotations

import base64
import hmac
import threading
import time
from collections import deque
from dataclasses import dataclass, field

from flask import Blueprint, Response, abort, current_app, jsonify, redirect, render_template, request, url_for

from referee.match import IllegalAction
from webapp.api import app_games, game_or_409, table_or_404
from webapp.db import get_db
from webapp.host import host_table
from webapp import store
from webapp.ballots import is_ballot
from webapp.replies import respond
from webapp.security import HOST_COOKIE, is_host, json_body, set_cookie

bp = Blueprint("camera", __name__, url_prefix="/t/<code>/camera")
MAX_JPEG = 2 * 1024 * 1024
CORRECTABLE = ("color", "size", "pose", "heading", "suit", "rank", "face")


@dataclass
class Desk:
    """What the camera of one table last sent, and what waits for the loop."""

    jpeg: bytes | None = None
    size: tuple[int, int] | None = None
    overlay: dict = field(default_factory=dict)
    status: str = "off"
    message: str = "no camera connected"
    updated: float = 0.0
    corrections: deque = field(default_factory=lambda: deque(maxlen=50))
    phone_frames: object = None          # a callable(jpeg bytes) -> bool set by the live loop


class CameraDesk:
    """Desks by table code, shared by the request threads and the live loop."""

    def __init__(self):
        self._lock = threading.Lock()
        self._desks: dict[str, Desk] = {}

    def desk(self, code: str) -> Desk:
        with self._lock:
            return self._desks.setdefault(code.upper(), Desk())


def desks() -> CameraDesk:
    return current_app.extensions.setdefault("icetable_camera", CameraDesk())


@bp.get("")
def phone_camera(code: str):
    """The page that turns a phone into the table camera."""
    table = table_or_404(code)
    return render_template("camera.html", table=table)


@bp.get("/view")
def live_view(code: str):
    """The live camera image with the referee's overlay, for the table screen."""
    table = table_or_404(code)
    return render_template("camera_view.html", table=table)


@bp.get("/host")
def become_host(code: str):
    """The link `icetable live` prints on the laptop's terminal: the browser that opens it
    becomes the table's host (the token travels once, in that link)."""
    table = table_or_404(code)
    token = request.args.get("token", "")
    if not table["host_hash"] or not hmac.compare_digest(store.token_hash(token), table["host_hash"]):
        abort(403, "this host link is not valid for this table")
    response = redirect(url_for("pages.table_page", code=table["code"]))
    set_cookie(response, HOST_COOKIE.format(code=table["code"]), token, table["code"])
    return response


@bp.post("/frame")
def phone_frame(code: str):
    """One JPEG from the phone used as the table camera (host only)."""
    table = host_table(code)
    data = request.get_data(cache=False)
    if not data or len(data) > MAX_JPEG or request.mimetype != "image/jpeg":
        abort(400, "send one JPEG image (image/jpeg, at most 2 MB)")
    desk = desks().desk(table["code"])
    if desk.phone_frames is None:
        abort(409, "no live loop is listening to a phone camera at this table")
    if not desk.phone_frames(data):
        abort(400, "the frame is not a JPEG image OpenCV can read")
    return jsonify(ok=True)


@bp.post("/state")
def post_state(code: str):
    """The live loop's status, overlay and (base64) JPEG picture."""
    table = host_table(code)
    data = json_body()
    desk = desks().desk(table["code"])
    if "jpeg" in data:
        try:
            desk.jpeg = base64.b64decode(data["jpeg"], validate=True)
        except (ValueError, TypeError):
            abort(400, "jpeg must be base64 text")
        size = data.get("size")
        desk.size = tuple(size) if isinstance(size, list) and len(size) == 2 else None
    if isinstance(data.get("overlay"), dict):
        desk.overlay = data["overlay"]
    if isinstance(data.get("status"), str):
        desk.status, desk.message = data["status"], str(data.get("message", ""))[:200]
    desk.updated = time.time()
    return jsonify(ok=True, corrections=_drain(desk))


def _drain(desk: Desk) -> list[dict]:
    out = []
    while desk.corrections:
        out.append(desk.corrections.popleft())
    return out


@bp.get("/image.jpg")
def image(code: str):
    table = table_or_404(code)
    desk = desks().desk(table["code"])
    if desk.jpeg is None:
        abort(404, "no camera picture yet")
    return Response(desk.jpeg, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@bp.get("/overlay.json")
def overlay(code: str):
    table = table_or_404(code)
    desk = desks().desk(table["code"])
    stale = desk.status == "ok" and time.time() - desk.updated > 5
    return jsonify(status="stalled" if stale else desk.status,
                   message="the live loop has stopped sending" if stale else desk.message,
                   size=desk.size, overlay=desk.overlay, host=is_host(get_db(), table))


@bp.post("/correct")
def correct(code: str):
    """The host confirms or corrects a piece the camera read: {"id", "color"/"size"/...}."""
    table = host_table(code)
    data = json_body()
    fix = {k: data[k] for k in CORRECTABLE if k in data}
    if not isinstance(data.get("id"), str) or not (fix or data.get("confirm")):
        abort(400, f"name the piece 'id' and what to correct ({', '.join(CORRECTABLE)}) or 'confirm'")
    desks().desk(table["code"]).corrections.append({"id": data["id"], "confirm": bool(data.get("confirm")), **fix})
    return jsonify(ok=True), 202


@bp.post("/act")
def act(code: str):
    """A physical action the camera saw (a placement, a move), made on behalf of its player."""
    table = host_table(code)
    action = json_body()
    game = game_or_409(table)
    if action.get("player") not in app_games().session(get_db(), game, table).match.players:
        abort(400, "the action must name one of the game's players")
    if is_ballot(action):
        abort(403, "a ballot is cast on its voter's phone, sealed")
    def answer(result):
        return {"ok": True, "events": result.get("events", []), "warnings": result.get("warnings", [])}, 200
    try:
        result = app_games().perform(get_db(), table, game, action, reason="camera", answer=answer)
    except IllegalAction as exc:
        abort(409, str(exc))
    return respond(answer, result)
