"""Recorded games for the demo, the tests and the benchmark: a rendered video with hands, and
its ground truth.

A script (icetable/live/scripts.py) is a game as a list of steps on the table (a piece placed,
moved or removed by a hand). `make_recording` renders each distinct table once with the vision renderer (a fixed camera over
the calibration mat), then builds the frames: a quiet table, an arm reaching in from a player's
side, the table changing under the hand, the arm leaving. The arm is drawn over the rendered
table (skin shading and a soft shadow), which keeps a recording of a whole game to seconds of
rendering per table. Written next to the video: `truth.json` (the steps with the time each
piece was let go, the expected events and warnings, the final scene and scores) and the
calibration a user would have made for that camera.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from shapely.geometry import LineString

from calibration.calibfile import Calibration, read_json, save
from calibration.layout import cards_layout
from referee.dimensions import DEFAULT
from icetable.live.scripts import Script
from referee.geometry import footprint
from referee.scene import Piece, scene_from_dict
from vision.camera import Camera, intrinsics, looking_at
from vision.render import random_config, render
from vision.samples import calibration_for

FORMAT = "icetable-recording/1"
DIST = (-0.05, 0.01, 0.0, 0.0, 0.0)
SKIN = (0.80, 0.60, 0.48)
ARM_WIDTH = 75.0          # mm
ARM_HEIGHT = 70.0         # mm above the table at the hand
# seconds of each phase of a step, and of the quiet table at the end
QUIET, REACH, HOLD, LEAVE, END = 0.5, 0.6, 0.3, 0.6, 1.0


def camera_for(area: tuple[float, float], size: tuple[int, int]) -> Camera:
    """A camera 75 cm over the middle of the play area, a little off vertical."""
    w, h = area
    K = intrinsics(size, 64.0)
    cam = looking_at(K, DIST, size, (w / 2 + 40, h / 2 + 60, -750.0), (w / 2, h / 2, 0.0))
    corners = np.array([[x, y, 0] for x in (-70, w + 70) for y in (-70, h + 70)], np.float64)
    pix = cam.project(corners, distort=False) - cam.K[:2, 2]
    need = max(np.abs(pix[:, 0]).max() / (size[0] / 2), np.abs(pix[:, 1]).max() / (size[1] / 2))
    K = cam.K.copy()
    K[0, 0] = K[1, 1] = cam.K[0, 0] / need * 0.95
    return Camera(K, np.asarray(DIST, np.float64), cam.R, cam.C, size)


def _arm(cam: Camera, start, end, size) -> np.ndarray:
    """A float mask (0..1) of an arm from `start` (outside the table) to the hand at `end` (mm)."""
    a3 = np.array([start[0], start[1], -ARM_HEIGHT - 120.0])
    b3 = np.array([end[0], end[1], -ARM_HEIGHT])
    a, b = cam.project(np.array([a3, b3]))
    scale = cam.K[0, 0] / float(np.linalg.norm(b3 - cam.C))
    mask = np.zeros((size[1], size[0]), np.uint8)
    width = max(3, int(ARM_WIDTH * scale))
    cv2.line(mask, tuple(int(v) for v in a), tuple(int(v) for v in b), 255, width, cv2.LINE_AA)
    d = (b - a) / max(1e-6, float(np.linalg.norm(b - a)))
    palm = b + d * ARM_WIDTH * scale * 0.45
    axes = (int(ARM_WIDTH * scale * 0.8), int(ARM_WIDTH * scale * 0.55))
    cv2.ellipse(mask, (int(palm[0]), int(palm[1])), axes, float(np.degrees(np.arctan2(d[1], d[0]))),
                0, 360, 255, -1, cv2.LINE_AA)
    return cv2.GaussianBlur(mask, (0, 0), 1.0).astype(np.float32) / 255


def _with_arm(table: np.ndarray, arm: np.ndarray) -> np.ndarray:
    h, w = arm.shape
    shift = np.float32([[1, 0, w * 0.03], [0, 1, h * 0.04]])
    shadow = cv2.GaussianBlur(cv2.warpAffine(arm, shift, (w, h)), (0, 0), w / 90)
    img = table.astype(np.float32) * (1 - 0.4 * shadow)[..., None]
    ys = np.linspace(0.85, 1.1, arm.shape[0], dtype=np.float32)[:, None, None]
    skin = np.array(SKIN[::-1], np.float32) * 255 * 0.95 * ys
    img = img * (1 - arm[..., None]) + arm[..., None] * skin
    return np.clip(img, 0, 255).astype(np.uint8)


def _entry(side: str, target, area) -> tuple[float, float]:
    w, h = area
    x, y = target
    return {"top": (x, -260.0), "bottom": (x, h + 260.0), "left": (-260.0, y), "right": (w + 260.0, y)}[side]


def _band(start, end):
    """The arm as a band on the table (mm)."""
    return LineString([start, end]).buffer(ARM_WIDTH / 2 + 8.0)


@dataclass(frozen=True)
class Moment:
    """One frame of a recording: the table shown (index into the script's scenes), the arm
    (start, end) in table mm or None, and the step let go in this frame (or None)."""

    scene: int
    arm: tuple | None = None
    let_go: int | None = None

    def covered(self, piece: Piece) -> bool:
        """True when the arm is over the piece."""
        return self.arm is not None and _band(*self.arm).intersects(footprint(piece, DEFAULT))


def timeline(script: Script, fps: float):
    """The moments of the recording, frame by frame: a quiet table, the arm reaching in over the
    table before the step, holding over the table after it, leaving."""
    for k, step in enumerate(script.steps):
        target = (step.piece.x, step.piece.y)
        start = _entry(step.side, target, script.area)
        for _ in range(int(QUIET * fps)):
            yield Moment(k)
        reach = max(2, int(REACH * fps))
        for i in range(reach):
            f = (i + 1) / reach
            yield Moment(k, (start, (start[0] + (target[0] - start[0]) * f, start[1] + (target[1] - start[1]) * f)))
        for _ in range(max(1, int(HOLD * fps))):
            yield Moment(k + 1, (start, target))
        leave = max(2, int(LEAVE * fps))
        released = False
        for i in range(leave):
            f = (i + 1) / leave
            arm = (start, (target[0] + (start[0] - target[0]) * f, target[1] + (start[1] - target[1]) * f))
            let_go = not released and not Moment(k + 1, arm).covered(step.piece)
            released |= let_go
            yield Moment(k + 1, arm, k if let_go else None)
    for _ in range(int(END * fps)):
        yield Moment(len(script.steps))


def frames(script: Script, cam: Camera, fps: float, seed: int = 3):
    """Yield (BGR frame, time s, moment) for the whole recording."""
    layout = cards_layout(*script.area)
    config = random_config(seed, script.area, cam.size, light="daylight", camera=cam)
    rendered = [render(t, layout, config).image for t in script.scenes]
    rng = np.random.default_rng(seed)
    noise = [rng.normal(0, 1.2, rendered[0].shape).astype(np.float32) for _ in range(3)]
    for n, moment in enumerate(timeline(script, fps)):
        img = rendered[moment.scene]
        if moment.arm is not None:
            img = _with_arm(img, _arm(cam, *moment.arm, cam.size))
        yield np.clip(img.astype(np.float32) + noise[n % 3], 0, 255).astype(np.uint8), n / fps, moment


def make_recording(out_dir: Path, script: Script, size=(1280, 720), fps: float = 15.0, seed: int = 3) -> Path:
    """Render the video, the calibration and the ground truth into `out_dir`; returns the video."""
    out_dir.mkdir(parents=True, exist_ok=True)
    cam = camera_for(script.area, size)
    colors = calibration_for("cam720", "daylight", script.area, seed * 7).colors
    save(Calibration(cards_layout(*script.area), size, cam.K, cam.dist, "rendered", colors),
         out_dir / "calibration.json")
    video = out_dir / "recording.mp4"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"mp4v"), fps, size)
    let_go = {}
    for img, t, moment in frames(script, cam, fps, seed):
        writer.write(img)
        if moment.let_go is not None:
            let_go[moment.let_go] = round(t, 3)
    writer.release()
    truth = {"format": FORMAT, "game": script.game, "players": script.players, "area": list(script.area),
             "fps": fps, "size": list(size), "seed": script.seed, "options": script.options,
             "steps": [{**s.to_dict(), "let_go": let_go.get(k)} for k, s in enumerate(script.steps)],
             "phone": script.phone, "actions": script.actions,
             "final_scene": script.scenes[-1].to_dict(), "final_scores": script.final_scores}
    (out_dir / "truth.json").write_text(json.dumps(truth, indent=1) + "\n", encoding="utf-8")
    return video


TRUTH_FIELDS = {"game": str, "players": list, "options": dict, "final_scene": dict, "final_scores": dict,
                "phone": list}
JSON_NAMES = {str: "string", list: "array", dict: "object"}


def load_truth(folder: Path) -> dict:
    """The recording's truth.json; ValueError naming the file and field when it is not one."""
    path = folder / "truth.json"
    truth = read_json(path, "recording truth", ValueError)
    if not isinstance(truth, dict) or truth.get("format") != FORMAT:
        raise ValueError(f"{path}: field 'format': not an {FORMAT} file")
    truth.setdefault("phone", [])
    for name, kind in TRUTH_FIELDS.items():
        if not isinstance(truth.get(name), kind):
            raise ValueError(f"{path}: field {name!r}: missing or not a JSON {JSON_NAMES[kind]}")
    truth["final_scene"] = scene_from_dict(truth["final_scene"], str(path))
    return truth


