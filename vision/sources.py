"""Frame sources: a webcam (index or device path), a video file, a folder of images or one
image, each giving `Grab`s (a BGR frame or None, the source time in seconds, a status: `ok`,
`lost` when unplugged or unreadable, `ended` when a file or folder has no more frames).
`open_source(spec)` picks one from a string (a digit is a camera index). One-shot tools
(detect, calibrate) read plain frames through `open_frames`; the live loop watches a source
for trouble through `vision.feeds`.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import cv2
import numpy as np

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")


class FrameSourceError(ValueError):
    """A source that gives no frames: one line naming it."""


@dataclass
class Grab:
    frame: np.ndarray | None
    t: float
    status: str = "ok"
    message: str = ""


def read_image(path: str | Path) -> np.ndarray:
    """A BGR image from a file; FrameSourceError if it is missing or not an image."""
    path = Path(path)
    if path.is_dir():
        raise FrameSourceError(f"{path}: is a folder; give one image file")
    if not path.is_file():
        raise FrameSourceError(f"{path}: no such file")
    frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if frame is None:
        raise FrameSourceError(f"{path}: not an image OpenCV can read")
    return frame


def open_capture(spec: str | int) -> cv2.VideoCapture:
    """`cv2.VideoCapture` of a camera index or a video, without OpenCV's or FFmpeg's own warnings
    about a device or file it cannot open (the caller says in one line what failed; the
    environment variable OPENCV_FFMPEG_LOGLEVEL, set beforehand, brings FFmpeg's back)."""
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")     # AV_LOG_QUIET, read when FFmpeg first opens
    logging = cv2.utils.logging
    level = logging.getLogLevel()
    logging.setLogLevel(logging.LOG_LEVEL_ERROR)
    try:
        return cv2.VideoCapture(spec)
    finally:
        logging.setLogLevel(level)


class VideoSource:
    """A webcam (`0`, `/dev/video2`) or a video file, through OpenCV's VideoCapture."""

    def __init__(self, spec: str | int):
        self.spec = spec
        self.name = f"camera {spec}" if isinstance(spec, int) else str(spec)
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
    """The images of a folder in name order (or one image), one per `1 / fps` seconds of source
    time."""

    live = False

    def __init__(self, path: str | Path, fps: float = 2.0):
        path = Path(path)
        self.name = str(path)
        self.paths = [path]
        if path.is_dir():
            self.paths = sorted(p for p in path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.paths:
            raise FrameSourceError(f"{path}: no images ({', '.join(IMAGE_SUFFIXES)})")
        self.fps, self.index = fps, 0

    def open(self) -> bool:
        return True

    def grab(self) -> Grab:
        if self.index >= len(self.paths):
            return Grab(None, self.index / self.fps, "ended", "no more images")
        path, at = self.paths[self.index], self.index / self.fps
        self.index += 1
        try:
            return Grab(read_image(path), at)
        except FrameSourceError as exc:     # gone since listed, or not an image: that frame is lost
            return Grab(None, at, "lost", str(exc))

    def close(self) -> None:
        pass


def open_source(spec: str, fps: float = 2.0):
    """The source named by `spec`: a camera index ('0'), a device path, a folder, an image or a
    video file."""
    if spec.isdigit():
        return VideoSource(int(spec))
    path = Path(spec)
    if spec.startswith("/dev/"):
        return VideoSource(spec)
    if not path.exists():
        raise FrameSourceError(f"{spec}: no such file, folder or camera")
    if path.is_dir() or path.suffix.lower() in IMAGE_SUFFIXES:
        return FolderSource(path, fps)
    source = VideoSource(str(path))
    if not source.cap.isOpened():
        raise FrameSourceError(f"{spec}: not a video OpenCV can read")
    return source


def open_frames(spec: str, limit: int | None = None) -> Iterator[np.ndarray]:
    """The frames of `open_source(spec)`, at most `limit` of them, for a one-shot tool: a camera
    that cannot be opened, an unreadable image or a source with no frames at all is a
    FrameSourceError."""
    source = open_source(spec)
    if isinstance(source, VideoSource) and not source.cap.isOpened():
        source.close()
        raise FrameSourceError(f"no camera at index {spec}" if spec.isdigit() else f"{spec}: cannot open the camera")
    return _frames(source, limit)


def _frames(source, limit: int | None) -> Iterator[np.ndarray]:
    count = 0
    try:
        while limit is None or count < limit:
            grab = source.grab()
            if grab.status == "lost":
                raise FrameSourceError(grab.message)
            if grab.frame is None:
                if count == 0:
                    raise FrameSourceError(f"{source.name}: gives no frames")
                return
            count += 1
            yield grab.frame
    finally:
        source.close()
