"""Frame sources for one-shot tools (detect, calibrate): an image file, a folder of images, a
video file or a camera index, each an iterator of BGR frames with a `name` for messages.
`open_frames(spec)` picks one from a string (a digit is a camera index). The live loop's
watched sources are in `vision.feeds`.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

import cv2
import numpy as np

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")


class FrameSourceError(ValueError):
    """A source that gives no frames: one line naming it."""


def read_image(path: str | Path) -> np.ndarray:
    """A BGR image from a file; FrameSourceError if it is missing or not an image."""
    path = Path(path)
    if not path.is_file():
        raise FrameSourceError(f"{path}: no such file")
    frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if frame is None:
        raise FrameSourceError(f"{path}: not an image OpenCV can read")
    return frame


class ImageFiles:
    """Still images, in the order given (a folder: its images sorted by name)."""

    def __init__(self, paths: list[Path], name: str):
        if not paths:
            raise FrameSourceError(f"{name}: no images")
        self.paths, self.name = paths, name

    def __iter__(self) -> Iterator[np.ndarray]:
        for path in self.paths:
            yield read_image(path)


def open_capture(spec: str | int) -> cv2.VideoCapture:
    """`cv2.VideoCapture` of a camera index or a video, without OpenCV's own warnings about a
    device it cannot open (the caller says in one line what failed)."""
    logging = cv2.utils.logging
    level = logging.getLogLevel()
    logging.setLogLevel(logging.LOG_LEVEL_ERROR)
    try:
        return cv2.VideoCapture(spec)
    finally:
        logging.setLogLevel(level)


class Capture:
    """Frames of a video file or a camera (cv2.VideoCapture); `limit` stops after n frames."""

    def __init__(self, spec: str | int, limit: int | None = None):
        self.name = f"camera {spec}" if isinstance(spec, int) else str(spec)
        self.capture = open_capture(spec)
        if not self.capture.isOpened():
            what = "no camera at index" if isinstance(spec, int) else "cannot open video"
            raise FrameSourceError(f"{what} {spec}")
        self.limit = limit

    def __iter__(self) -> Iterator[np.ndarray]:
        count = 0
        try:
            while self.limit is None or count < self.limit:
                ok, frame = self.capture.read()
                if not ok:
                    if count == 0:
                        raise FrameSourceError(f"{self.name}: gives no frames")
                    return
                count += 1
                yield frame
        finally:
            self.capture.release()


def open_frames(spec: str, limit: int | None = None):
    """A source from a command-line string: camera index, image, folder or video."""
    if spec.isdigit():
        return Capture(int(spec), limit)
    path = Path(spec)
    if path.is_dir():
        return ImageFiles(sorted(p for p in path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES), spec)
    if path.suffix.lower() in IMAGE_SUFFIXES:
        return ImageFiles([path], spec)
    if not path.exists():
        raise FrameSourceError(f"{spec}: no such file")
    return Capture(spec, limit)
