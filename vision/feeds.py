"""Watched frame sources for the live loop: a webcam (index or device path), a video file, a
folder of images, or frames pushed in (a phone used as the table camera), with camera trouble
detected. (One-shot tools read frames through `vision.sources`.)

Every source gives `Grab`s: a BGR frame (or None), the source time in seconds, and a status:
`ok`, `lost` (unplugged or unreadable), `frozen` (the same frame over and over), `dark`, or
`ended` (a file or folder has no more frames). `Watched` wraps a source, turns trouble into a
status and reopens a lost or frozen camera by itself, with a growing pause between tries.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.sources import IMAGE_SUFFIXES, FrameSourceError, open_capture
DARK_LEVEL = 25.0       # mean grey level under which the camera is covered or the light is off
FROZEN_AFTER = 2.0      # seconds of identical frames from a live camera that mean it is frozen


@dataclass
class Grab:
    frame: np.ndarray | None
    t: float
    status: str = "ok"
    message: str = ""


class VideoSource:
    """A webcam (`0`, `/dev/video2`) or a video file, through OpenCV's VideoCapture."""

    def __init__(self, spec: str | int):
        self.spec = spec
        self.live = isinstance(spec, int) or str(spec).startswith("/dev/")
        self.cap = None
        self.index = 0
        self.fps = 30.0
        self.start = time.monotonic()
        self.open()

    def open(self) -> bool:
        if self.cap is not None:
            self.cap.release()
        self.cap = open_capture(self.spec)
        ok = self.cap.isOpened()
        if ok and not self.live:
            self.fps = self.cap.get(cv2.CAP_PROP_FPS) or 30.0
        return ok

    def grab(self) -> Grab:
        ok, frame = self.cap.read() if self.cap is not None else (False, None)
        t = time.monotonic() - self.start if self.live else self.index / self.fps
        if not ok:
            if self.live:
                return Grab(None, t, "lost", f"camera {self.spec} gives no picture (unplugged?)")
            return Grab(None, t, "ended", "end of the video")
        self.index += 1
        return Grab(frame, t)

    def close(self) -> None:
        if self.cap is not None:
            self.cap.release()


class FolderSource:
    """The images of a folder in name order, one per `1 / fps` seconds of source time."""

    live = False

    def __init__(self, folder: str | Path, fps: float = 2.0):
        self.paths = sorted(p for p in Path(folder).iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.paths:
            raise FrameSourceError(f"{folder}: no images ({', '.join(IMAGE_SUFFIXES)})")
        self.fps, self.index = fps, 0

    def open(self) -> bool:
        return True

    def grab(self) -> Grab:
        if self.index >= len(self.paths):
            return Grab(None, self.index / self.fps, "ended", "no more images")
        path = self.paths[self.index]
        self.index += 1
        frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if frame is None:
            return Grab(None, self.index / self.fps, "lost", f"{path.name} is not an image")
        return Grab(frame, (self.index - 1) / self.fps)

    def close(self) -> None:
        pass


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


def open_source(spec: str, fps: float = 2.0):
    """The source named by `spec`: a camera index ('0'), a device path, a video file or a folder."""
    if spec.isdigit():
        return VideoSource(int(spec))
    path = Path(spec)
    if spec.startswith("/dev/"):
        return VideoSource(spec)
    if path.is_dir():
        return FolderSource(path, fps)
    if not path.is_file():
        raise FrameSourceError(f"{spec}: no such camera, video file or folder")
    source = VideoSource(str(path))
    if not source.cap.isOpened():
        raise FrameSourceError(f"{spec}: not a video OpenCV can read")
    return source


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
