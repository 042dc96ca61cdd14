"""Web app in headless Chromium: two phones scan the table's QR code, join and vote to the reveal."""
from __future__ import annotations

import os

import cv2
import numpy as np
import pytest

from tests.browser_sessions import CHROMIUM, browser, settle, with_action  # noqa: F401 (the fixture)
from tests.webapp_helpers import make_app
from webapp.client import HttpPhone, play_first_choices
from webapp.serving import BackgroundServer

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is not installed")


def scan_qr(page) -> str:
    """Decode the QR code shown on the table page, as a phone camera would."""
    png = page.locator(".qr svg").screenshot()
    image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_GRAYSCALE)
    image = cv2.copyMakeBorder(image, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=255)
    text, _, _ = cv2.QRCodeDetectorAruco().detectAndDecode(image)
    assert text, "the QR code on the table page did not decode"
    return text


def phone_from(context, port: int, code: str) -> HttpPhone:
    """The same player as a browser page, over plain HTTP (its cookie copied)."""
    phone = HttpPhone(port, code)
    phone.cookies = {c["name"]: c["value"] for c in context.cookies()}
    phone.side = phone.state()["me"]["side"]
    return phone


def test_two_phones_join_by_qr_and_vote_to_the_reveal(tmp_path, browser):
    server = BackgroundServer(make_app(tmp_path))
    try:
        base = f"http://127.0.0.1:{server.port}"
        server.app.config["PUBLIC_URL"] = base
        laptop = browser.new_context()
        table = laptop.new_page()
        table.goto(base + "/")
        table.select_option("#game", "icefloe")
        table.click("text=Create table")
        table.wait_for_url("**/table")
        code = table.locator(".bigcode").inner_text()
        join_url = scan_qr(table)
        assert join_url == f"{base}/t/{code}"

        pages, contexts = [], []
        for name, side in (("Ann", "suns"), ("Bob", "moons")):
            context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
            page = context.new_page()
            page.goto(join_url)
            page.fill("#name", name)
            page.check(f"input[value={side}]")
            page.click("#join-form button")
            page.wait_for_selector("#play:not([hidden])")
            assert page.locator("#me").inner_text().startswith(name)
            pages.append(page)
            contexts.append(context)
        third = HttpPhone(server.port, code)
        assert third.join("Cy", "crowns")[0] == 201
        table.wait_for_selector("text=Cy")
        table.click("text=Start game")
        pages[0].wait_for_selector("text=Game 1 · playing")

        phones = [phone_from(c, server.port, code) for c in contexts] + [third]
        assert play_first_choices(phones, lambda game: game["view"]["phase"] == "vote")

        ann, bob = pages
        ann.wait_for_selector("text=Vote on the number")
        ann.locator("#actions button", has_text="4").first.click()
        ann.wait_for_selector("text=Your ballot is in · tap to see it")   # discreet: neighbours read phones
        ann.click(".vote button.mine")
        ann.wait_for_selector("text=Your ballot: 4")
        bob.wait_for_selector("text=Voted: suns")
        assert "Your ballot" not in bob.content() and "Your ballot" not in table.content()
        bob.locator("#actions button", has_text="2").first.click()
        bob.click(".vote button.mine")
        bob.wait_for_selector("text=Your ballot: 2")
        assert "Your ballot: 4" not in bob.content()
        assert third.act({"type": "vote_number", "value": 4})[0] == 200
        for page in (ann, bob, table):
            page.wait_for_selector(".vote table.scores")
            rows = [r.inner_text().split() for r in page.locator(".vote table.scores tr").all()]
            assert rows == [["suns", "4"], ["moons", "2"], ["crowns", "4"]]

        port = server.port                       # the server restarts: pages reconnect and resync
        server.stop()
        ann.wait_for_selector("#conn:text('reconnecting…')")
        server = BackgroundServer(make_app(tmp_path), port=port)
        face = third.request("POST", f"/t/{code}/dice", {})[1]["face"]
        for page in (ann, bob, table):
            page.wait_for_selector(f"#die:text('Cy rolled {face}')", timeout=10000)
            assert page.locator("#conn").inner_text() == "live"
        assert "Your ballot" not in ann.content()                 # the vote stays revealed
        if os.environ.get("ICETABLE_SCREENSHOTS"):
            bob.screenshot(path=os.environ["ICETABLE_SCREENSHOTS"] + "/phone.png", full_page=True)
            table.screenshot(path=os.environ["ICETABLE_SCREENSHOTS"] + "/table.png", full_page=True)
        for context in contexts + [laptop]:
            context.close()
    finally:
        server.stop()


def test_a_phone_flips_an_iceberg_tile_and_types_the_face_the_real_tile_shows(tmp_path, browser):
    server = BackgroundServer(make_app(tmp_path))
    try:
        host = HttpPhone(server.port, "")
        host.code = host.request("POST", "/tables", {"game": "iceberg", "options": {}})[1]["code"]
        context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
        page = context.new_page()
        page.goto(f"http://127.0.0.1:{server.port}/t/{host.code}")
        page.fill("#name", "Ann")
        page.check("input[value=suns]")
        page.click("#join-form button")
        page.wait_for_selector("#play:not([hidden])")
        moons = HttpPhone(server.port, host.code)
        assert moons.join("Bob", "moons")[0] == 201
        assert host.request("POST", f"/t/{host.code}/host/start", {"seed": 4})[0] == 201
        phones = [phone_from(context, server.port, host.code), moons]
        assert play_first_choices(phones, lambda game: game["view"]["phase"] == "play")
        state = phones[0].state()
        flip = next(a for a in state["game"]["legal"] if a["type"] == "flip" and a["tile"] == "t40")
        settle(page, state["last_event"])       # the page has drawn the play phase's choices
        button = with_action(page, "#actions button[data-action]", flip)
        if button is None:                      # many choices: a list, then its button
            option = with_action(page, "#actions option", flip)
            select = option.locator("xpath=..")
            select.select_option(option.get_attribute("value"))
            button = select.locator("xpath=following-sibling::button")
        page.once("dialog", lambda dialog: dialog.accept("crowns 5"))
        button.click()
        # the banner says it was sent, unless the flip's own news has already replaced that
        page.wait_for_selector("#banner:has-text('Sent'), #banner:has-text('5 of crowns')")
        tile = moons.state()["game"]["view"]["tiles"]["t40"]
        assert (tile["face"], tile["suit"], tile["rank"]) == ("up", "crowns", 5)
        context.close()
    finally:
        server.stop()
