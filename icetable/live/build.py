"""Wiring a live loop for one table: calibration -> mat finder, detector, projection; the judge,
the tracker and the link to the web app."""
from __future__ import annotations

import cv2
import numpy as np

from calibration.calibfile import Calibration
from calibration.homography import find_markers, fit_plane
from icetable.live.judges import judge_for
from icetable.live.loop import LiveLoop
from vision.detector import Detector
from vision.feeds import Watched
from vision.settle import SettleConfig, Settler
from vision.tracking import Tracker


def locator(cal: Calibration):
    """locate(frame) -> H (table mm to undistorted pixels); ValueError when the mat is not seen."""
    def locate(frame: np.ndarray) -> np.ndarray:
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
        return fit_plane(cal.layout, find_markers(gray), cal.K, cal.dist).H
    return locate


def projector(cal: Calibration):
    """project(points mm, H) -> frame pixels, with the lens distortion put back."""
    def project(pts: np.ndarray, H: np.ndarray) -> np.ndarray:
        und = cv2.perspectiveTransform(np.asarray(pts, np.float64).reshape(-1, 1, 2), H).reshape(-1, 2)
        if cal.dist is None or not np.any(cal.dist):
            return und
        norm = cv2.perspectiveTransform(und.reshape(-1, 1, 2), np.linalg.inv(cal.K)).reshape(-1, 2)
        obj = np.concatenate([norm, np.ones((len(norm), 1))], axis=1)
        return cv2.projectPoints(obj, np.zeros(3), np.zeros(3), cal.K, cal.dist)[0].reshape(-1, 2)
    return project


def live_loop(source, cal: Calibration, game: str, players: list[str], link, options: dict | None = None,
              config: SettleConfig = SettleConfig(), picture_every: float | None = 0.4, read=None) -> LiveLoop:
    """A loop watching `source` for the table behind `link` (`read` replaces the detector)."""
    area = tuple(cal.layout.area)
    if read is None:
        detector = Detector(cal)
        read = lambda frame: detector.detect(frame, game)     # noqa: E731
    settler = Settler(locator(cal), read, area, config, fps=getattr(source, "fps", 30.0))
    judge = judge_for(game, players, area, options)
    tracker = Tracker(inventory=judge.inventory)
    return LiveLoop(Watched(source), settler, tracker, judge, link, game, projector(cal), picture_every)
