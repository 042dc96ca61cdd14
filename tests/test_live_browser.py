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
            page.wait_for_function("() => document.getElementById('camimg').naturalWidth > 0", timeout=WAIT)
            page.wait_for_function("() => document.getElementById('camstatus').textContent === 'working'", timeout=WAIT)
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


def test_table_page_marks_the_illegal_attack_and_shows_the_live_scores(tmp_path):
    """The demo stopped while its illegal attack is on the table: the camera view outlines the
    offending piece with the warning's words, and the score sheet shows the live count."""
    sync_api = pytest.importorskip("playwright.sync_api")
    app = create_app({"DATA_DIR": str(tmp_path), "RATE_BURST": 10**6, "RATE_PER_SECOND": 10.0**6})
    server = BackgroundServer(app)
    try:
        demo = Demo(app, bundled("icehouse"), picture_every=1e9)       # the picture sent by hand below
        while not any(w["code"] == "illegal_attack" for w in demo.loop.warnings):
            assert demo.loop.step(), "the demo ended without its illegal attack"
        offending = next(w for w in demo.loop.warnings if w["code"] == "illegal_attack")["pieces"][0]
        demo.loop.finish()                                             # picture and overlay of this moment
        live = demo.state()["camera_scores"]
        assert live and any(live.values())
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"http://127.0.0.1:{server.port}/t/{demo.code}/table")
            page.wait_for_selector("#overlay polygon.ov-piece.offending", timeout=10000)
            marked = page.eval_on_selector_all("#overlay polygon.offending title", "ts => ts.map(t => t.textContent)")
            words = page.locator("#overlay text.offending").all_text_contents()
            warning = page.locator("#warnings").inner_text()
            page.wait_for_selector("#scores td.live")
            rows = [r.split("\t") for r in page.locator("#scores table.scores tr").all_inner_texts()[1:]]
            if os.environ.get("ICETABLE_SCREENSHOTS"):
                page.locator("#camera").screenshot(path=os.environ["ICETABLE_SCREENSHOTS"] + "/demo-illegal-attack.png")
            browser.close()
    finally:
        server.stop()
    assert len(marked) == 1 and offending in demo.loop.seen.by_id()
    assert "take it back" in marked[0]
    assert words == ["ILLEGAL ATTACK"] and "illegal attack" in warning.lower()
    assert {side: int(live_count) for side, _, live_count in rows} == live
