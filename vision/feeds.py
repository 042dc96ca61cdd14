"""Frame sources as the live loop watches them: frames pushed in (a phone used as the table
camera) beside the sources of `vision.sources`, and camera trouble detected.

`Watched` wraps a source and adds to the `Grab` statuses `frozen` (the same frame over and
over) and `dark`; it reopens a lost or frozen camera by itself, with a growing pause between
tries.
"""
from __future__ import annotations

import threading
import time

import cv2
import numpy as np

from vision.sources import Grab

DARK_LEVEL = 25.0       # mean grey level under which the camera is covered or the light is off
FROZEN_AFTER = 2.0      # seconds of identical frames from a live camera that mean it is frozen


class PushSource:
    """Frames pushed in by another thread (JPEG bytes from a phone); `grab` waits for the next."""

    live = True

    def __init__(self, timeout: float = 2.0):
        self.timeout = timeout
        self._cond = threading.Condition()
        self._frame: np.ndarray | None = None
        self._fresh = False
        self.start = time.monotonic()

    def open(self) -> bool:
        return True

    def push(self, jpeg: bytes) -> bool:
        """Decode and offer one frame; False if the bytes are not an image."""
        frame = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
        if frame is None:
            return False
        with self._cond:
            self._frame, self._fresh = frame, True
            self._cond.notify_all()
        return True

    def grab(self) -> Grab:
        with self._cond:
            got = self._cond.wait_for(lambda: self._fresh, self.timeout)
            self._fresh = False
            t = time.monotonic() - self.start
            if not got:
                return Grab(None, t, "lost", "the phone camera sends no frames")
            return Grab(self._frame, t)

    def close(self) -> None:
        pass


class Watched:
    """A source whose trouble becomes a status, and which reopens a lost or frozen camera."""

    def __init__(self, source, clock=time.monotonic, retry: float = 0.5, max_retry: float = 5.0):
        self.source, self.clock = source, clock
        self.retry, self.max_retry = retry, max_retry
        self.wait = retry
        self.next_try = 0.0
        self.last_sig: bytes | None = None
        self.same_since: float | None = None
        self.trouble: str | None = None

    def grab(self) -> Grab:
        now = self.clock()
        if self.trouble in ("lost", "frozen") and self.source.live:
            if now < self.next_try:
                return Grab(None, now, self.trouble, self._message())
            self.source.open()
        g = self.source.grab()
        if g.frame is None:
            return self._fail(g, now)
        if self.source.live and self._frozen(g.frame, now):
            return self._fail(Grab(None, g.t, "frozen", "the camera picture has stopped changing"), now)
        level = float(g.frame[::16, ::16].mean())
        if level < DARK_LEVEL:
            self.trouble = "dark"
            return Grab(None, g.t, "dark", f"the picture is dark (level {level:.0f}): light or lens cap?")
        self.trouble, self.wait = None, self.retry
        return g

    def _fail(self, g: Grab, now: float) -> Grab:
        if g.status != "ended":
            self.trouble = g.status
            self.next_try = now + self.wait
            self.wait = min(self.max_retry, self.wait * 2)
        return g

    def _message(self) -> str:
        return "camera unplugged or gives no picture: retrying" if self.trouble == "lost" else \
            "the camera picture is frozen: reopening it"

    def _frozen(self, frame: np.ndarray, now: float) -> bool:
        sig = cv2.resize(frame, (32, 18), interpolation=cv2.INTER_AREA).tobytes()
        if sig != self.last_sig:
            self.last_sig, self.same_since = sig, now
            return False
        return now - self.same_since > FROZEN_AFTER

    def close(self) -> None:
        self.source.close()
