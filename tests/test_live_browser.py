"""The table page in headless Chromium after the Icehouse demo: the camera picture with the
referee's overlay drawn over it, and the final scores."""
from __future__ import annotations

import os
import threading
import time

import pytest

from icetable.live.demo import Demo, bundled
from webapp import create_app
from webapp.serving import BackgroundServer

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is not installed")
WAIT = 60000        # ms: a generous bound on conditions waited for; a busy machine only takes longer


class Watching:
    """The live loop's camera status, sent every half second as the loop does while it watches
    (the table page says 'stalled' five seconds after the last one)."""

    def __init__(self, link):
        self.link, self.stopped = link, threading.Event()
        self.thread = threading.Thread(target=self._beat, daemon=True)
        self.thread.start()

    def _beat(self):
        while not self.stopped.wait(0.5):
            self.link.camera("ok")

    def stop(self):
        self.stopped.set()
        self.thread.join()


def _until(condition, limit: float = 60.0):
    """Wait until `condition()` is true (at most `limit` seconds)."""
    end = time.monotonic() + limit
    while not condition() and time.monotonic() < end:
        time.sleep(0.05)


def test_table_page_shows_the_camera_with_the_overlay(tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api")
    app = create_app({"DATA_DIR": str(tmp_path), "RATE_BURST": 10**6, "RATE_PER_SECOND": 10.0**6})
    server = BackgroundServer(app)
    try:
        demo = Demo(app, bundled("icehouse"), picture_every=5.0)
        demo.play()
        camera = Watching(demo.link)      # the loop keeps watching the table after the game
        base = f"http://127.0.0.1:{server.port}"
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{base}/t/{demo.code}/table")
            page.wait_for_selector("#overlay polygon.ov-piece", timeout=WAIT)
            pieces = page.locator("#overlay polygon.ov-piece").count()
            lines = page.locator("#overlay polyline.ov-line").count()
            page.wait_for_function("document.getElementById('camimg').naturalWidth > 0", timeout=WAIT)
            page.wait_for_function("document.getElementById('camstatus').textContent === 'ok'", timeout=WAIT)
            page.wait_for_selector("#scores table.scores", timeout=WAIT)   # drawn from its own poll
            scores = page.locator("#scores").inner_text()
            camera.stop()               # from here the corrections stay on the desk for the test to read
            # the host (by the printed host link) touches a piece and corrects it; touching does
            # nothing until an overlay poll has told the page it is the host, so touch until the form opens
            page.goto(f"{base}/t/{demo.code}/camera/host?token={demo.link.headers['Authorization'][7:]}")
            page.wait_for_function("""() => {
                const piece = document.querySelector('#overlay polygon.ov-piece');
                if (piece) piece.dispatchEvent(new Event('click'));
                return !document.getElementById('fix').hidden;
            }""", timeout=WAIT, polling=200)
            fixed = page.locator("#fixid").inner_text()
            page.select_option("#fixcolor", "green")
            page.select_option("#fixsize", "1")
            page.click("#fixsend")
            desk = app.extensions["icetable_camera"]
            _until(lambda: desk.desk(demo.code).corrections)
            browser.close()
    finally:
        camera.stop()
        server.stop()
    final = demo.truth["final_scene"]
    assert pieces == len(final.pieces)
    assert lines == sum(p.pose == "lying" for p in final.pieces)
    assert all(str(v) in scores for v in demo.truth["final_scores"].values())
    from webapp.camera import CameraDesk
    assert isinstance(desk, CameraDesk)
    assert list(desk.desk(demo.code).corrections) == [{"id": fixed, "confirm": False, "color": "green", "size": 1}]
