"""Helpers for the whole-session browser tests: a table in headless Chromium with one phone page
per player (360 px wide), choices made by tapping the drawn board or pressing buttons, and a
screenshot of the acting phone after every step."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from webapp.client import HttpPhone

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
PHONE = {"viewport": {"width": 360, "height": 780}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 1}
NAMES = ("Ann", "Bob", "Cy", "Dee", "Eve")


@pytest.fixture
def browser():
    """Headless Chromium (import this fixture into a test module to use it)."""
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


def settle(page, event_id: int) -> None:
    """Wait until the phone page has drawn the table's state as of event `event_id`."""
    page.wait_for_function("(n) => Number(document.getElementById('app').dataset.event) >= n", arg=event_id)


def with_action(page, selector: str, action: dict):
    """The element among `selector` whose data-action (or value) is `action`, or None."""
    found = page.eval_on_selector_all(selector, "els => els.map(e => e.dataset.action || e.value)")
    for i, text in enumerate(found):
        if json.loads(text) == action:
            return page.locator(selector).nth(i)
    return None


class Session:
    """A table of `game` opened by a laptop (the table page) and phones that joined by the page."""

    def __init__(self, browser, port: int, game: str, sides: list[str], shots: Path, options=None):
        self.base, self.port, self.shots, self.step_no = f"http://127.0.0.1:{port}", port, shots, 0
        self.tapped: set[str] = set()
        shots.mkdir(parents=True, exist_ok=True)
        self.laptop = browser.new_context(viewport={"width": 1280, "height": 900})
        r = self.laptop.request.post(self.base + "/tables", data={"game": game, "options": options or {}})
        assert r.status == 201, r.text()
        self.code = r.json()["code"]
        self.table = self.laptop.new_page()
        self.table.on("dialog", lambda dialog: dialog.accept())     # "End the game?" and the like
        self.table.goto(f"{self.base}/t/{self.code}/table")
        self.pages, self.phones = {}, {}
        for name, side in zip(NAMES, sides):
            context = browser.new_context(**PHONE)
            page = context.new_page()
            page.set_default_timeout(10000)
            page.goto(f"{self.base}/t/{self.code}")
            page.fill("#name", name)
            page.check(f"input[value={side}]")
            page.click("#join-form button")
            page.wait_for_selector("#play:not([hidden])")
            phone = HttpPhone(port, self.code)
            phone.cookies = {c["name"]: c["value"] for c in context.cookies()}
            phone.side = side
            self.pages[side], self.phones[side] = page, phone

    def start(self) -> None:
        self.table.wait_for_selector(f"#players li:nth-child({len(self.pages)})")
        self.table.click("text=Start game")
        for page in self.pages.values():
            page.wait_for_selector("#turn:not(:text('waiting for the host'))")

    def state(self, side: str | None = None) -> dict:
        return (self.phones[side] if side else next(iter(self.phones.values()))).state()

    def settle(self, page, event_id: int) -> None:
        settle(page, event_id)

    def act(self, side: str, action: dict, taps: list[str] | None = None) -> dict:
        """Make `action` on `side`'s phone: tap `taps` on the drawing, then press the offered
        button (or, without taps, the button in the list of choices). Returns the new state."""
        page = self.pages[side]
        before = self.phones[side].state()["last_event"]
        self.settle(page, before)
        if taps:
            for key in taps:
                self.tap(page, key)
            if action["type"] not in self.tapped:      # the first of each kind: what the taps offer
                self.tapped.add(action["type"])
                self.shoot(side, action["type"] + "-tapped")
            button = with_action(page, "#pick button", action)
            assert button is not None, f"tapping {taps} does not offer {action}"
        else:
            button = with_action(page, "#actions button[data-action]", action)
            if button is None:
                option = with_action(page, "#actions option", action)
                assert option is not None, f"{action} is not among the choices"
                select = option.locator("xpath=..")
                select.select_option(option.get_attribute("value"))
                button = select.locator("xpath=following-sibling::button")
        button.click()
        state = self.wait_past(side, before)
        self.shoot(side, action["type"])
        return state

    def tap(self, page, key: str) -> None:
        """A finger on the middle of the drawn thing with `key`."""
        spot = page.locator(f'#board .spot[data-keys~="{key}"]').first
        if key.startswith("d:"):                 # a ship's destination: the dot at its tip
            spot = spot.locator(".tip")
        spot.scroll_into_view_if_needed()
        box = spot.bounding_box()
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)

    def wait_past(self, side: str, event_id: int) -> dict:
        for _ in range(200):
            state = self.phones[side].state()
            if state["last_event"] > event_id:
                self.settle(self.pages[side], state["last_event"])
                return state
            self.pages[side].wait_for_timeout(25)
        raise AssertionError(f"{side}'s action did not reach the server")

    def shoot(self, side: str, what: str, show: str = "#turn") -> None:
        """Screenshot the phone that acted (`show` scrolled into view); check it fits 360 px
        without sideways scrolling."""
        self.step_no += 1
        page = self.pages[side]
        page.locator(show).evaluate("e => e.closest('.card, section').scrollIntoView({block: 'start'})")
        page.screenshot(path=str(self.shots / f"{self.step_no:03d}-{side}-{what}.png"))
        assert no_sideways_scroll(page), f"{side}'s phone scrolls sideways after {what}"

    def shoot_table(self, what: str) -> None:
        self.step_no += 1
        self.table.screenshot(path=str(self.shots / f"{self.step_no:03d}-table-{what}.png"))

    def close(self) -> None:
        for page in list(self.pages.values()) + [self.table]:
            page.context.close()


def no_sideways_scroll(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def drawn(page, selector: str) -> list[str]:
    """The names of the drawn things matching `selector` on the board, as a person reads them."""
    return page.eval_on_selector_all(f"#board {selector}", "els => els.map(e => e.dataset.name)")


def small_print(page) -> list[str]:
    """Text under 16 px and tap targets under 44 px high on the page (the drawing's own labels
    aside), as 'tag text (size)' lines; empty when everything reads and taps at arm's length."""
    return page.evaluate("""() => {
      const out = [];
      for (const e of document.querySelectorAll("main *:not(svg):not(svg *)")) {
        if (!e.offsetParent) continue;                     // not shown
        const own = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
        const size = parseFloat(getComputedStyle(e).fontSize);
        if (own && size < 16) out.push(e.tagName + " " + e.textContent.trim().slice(0, 30) + " (" + size + "px)");
        if (e.matches("button, select, input, a, summary") && e.getBoundingClientRect().height < 44) {
          out.push(e.tagName + " " + e.textContent.trim().slice(0, 30) + " (" + e.getBoundingClientRect().height + "px high)");
        }
      }
      return out;
    }""")
