"""The live loop's link to one table of the web app, through the app's own routes.

The loop posts scenes (`/t/<code>/scene`), the camera picture and overlay (`/camera/state`)
and physical actions (`/camera/act`), with the table's host token. `InProcess` sends them to an
app in the same process (Flask's test client: the same routes and checks, no socket); the turn
judges also read a copy of the table's match from it.
"""
from __future__ import annotations

import base64
import copy

from flask import Flask

from webapp import store
from webapp.db import connect


class LinkError(RuntimeError):
    """The web app refused what the loop sent (status and its one-line reason)."""


def open_table(app: Flask, game: str, options: dict | None = None):
    """Create a table as its host: (code, host token, the host's test client)."""
    from webapp.security import HOST_COOKIE
    host = app.test_client()
    r = host.post("/tables", json={"game": game, "options": options or {}})
    if r.status_code != 201:
        raise LinkError(f"cannot create a {game} table: {(r.get_json() or {}).get('error', r.status_code)}")
    code = r.get_json()["code"]
    return code, host.get_cookie(HOST_COOKIE.format(code=code), path=f"/t/{code}").value, host


class InProcess:
    """A table of an app running in this process."""

    def __init__(self, app: Flask, code: str, host_token: str):
        self.app, self.code = app, code.upper()
        self.client = app.test_client()
        self.client.environ_base["REMOTE_ADDR"] = "icetable-live"     # its own rate-limit bucket
        self.headers = {"Authorization": f"Bearer {host_token}"}

    def _post(self, path: str, body: dict, ok=(200, 201, 202)) -> dict:
        r = self.client.post(f"/t/{self.code}{path}", json=body, headers=self.headers)
        data = r.get_json(silent=True) or {}
        if r.status_code not in ok:
            raise LinkError(f"{path}: {r.status_code} {data.get('error', '')}".strip())
        return data

    def post_scene(self, scene: dict) -> dict:
        """Post a SCENE.md scene (with `camera_warnings`); returns the report."""
        return self._post("/scene", scene)

    def act(self, action: dict) -> dict:
        """Perform a physical action seen by the camera; LinkError when the match refuses it."""
        return self._post("/camera/act", action)

    def camera(self, status: str, message: str = "", overlay: dict | None = None,
               jpeg: bytes | None = None, size: tuple[int, int] | None = None) -> list[dict]:
        """Send the camera's status, overlay and picture; returns the host's corrections."""
        body = {"status": status, "message": message}
        if overlay is not None:
            body["overlay"] = overlay
        if jpeg is not None:
            body["jpeg"] = base64.b64encode(jpeg).decode()
            body["size"] = list(size) if size else None
        return self._post("/camera/state", body).get("corrections", [])

    def phone_frames(self, sink) -> None:
        """Route frames posted by a phone camera to `sink(jpeg) -> bool`."""
        from webapp.camera import CameraDesk
        self.app.extensions.setdefault("icetable_camera", CameraDesk()).desk(self.code).phone_frames = sink

    def match(self):
        """A copy of the table's current match (None before a game starts or after it ends)."""
        games = self.app.extensions["icetable"].games
        db = connect(self.app.config["DATABASE"])
        try:
            table = store.table_by_code(db, self.code)
            game = store.current_game(db, table["id"])
            if game is None or game["status"] != "playing":
                return None
            with games.lock(table["id"]):
                return copy.deepcopy(games.session(db, game, table).match)
        finally:
            db.close()
