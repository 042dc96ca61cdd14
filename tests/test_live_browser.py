"""The table page in headless Chromium after the Icehouse demo: the camera picture with the
referee's overlay drawn over it, and the final scores."""
from __future__ import annotations

import os

import pytest

from icetable.live.demo import Demo, bundled
from webapp import create_app
from webapp.serving import BackgroundServer

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is not installed")


def test_table_page_shows_the_camera_with_the_overlay(tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api")
    app = create_app({"DATA_DIR": str(tmp_path), "RATE_BURST": 10**6, "RATE_PER_SECOND": 10.0**6})
    server = BackgroundServer(app)
    try:
        demo = Demo(app, bundled("icehouse"), picture_every=5.0)
        demo.play()
        base = f"http://127.0.0.1:{server.port}"
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{base}/t/{demo.code}/table")
            page.wait_for_selector("#overlay polygon.ov-piece", timeout=10000)
            pieces = page.locator("#overlay polygon.ov-piece").count()
            lines = page.locator("#overlay polyline.ov-line").count()
            loaded = page.evaluate("document.getElementById('camimg').naturalWidth")
            status = page.locator("#camstatus").inner_text()
            page.wait_for_selector("#scores table.scores", timeout=10000)   # drawn from its own poll
            scores = page.locator("#scores").inner_text()
            # the host (by the printed host link) touches a piece and corrects it
            page.goto(f"{base}/t/{demo.code}/camera/host?token={demo.link.headers['Authorization'][7:]}")
            page.wait_for_selector("#overlay polygon.ov-piece", timeout=10000)
            page.wait_for_timeout(700)            # the next overlay poll tells the page it is the host
            page.locator("#overlay polygon.ov-piece").first.dispatch_event("click")
            page.select_option("#fixcolor", "green")
            page.select_option("#fixsize", "1")
            page.click("#fixsend")
            page.wait_for_timeout(300)
            fixed = page.locator("#fixid").inner_text()
            browser.close()
    finally:
        server.stop()
    final = demo.truth["final_scene"]
    assert pieces == len(final.pieces)
    assert lines == sum(p.pose == "lying" for p in final.pieces)
    assert loaded > 0 and status == "working"
    assert all(str(v) in scores for v in demo.truth["final_scores"].values())
    from webapp.camera import CameraDesk
    desk = app.extensions["icetable_camera"]
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
