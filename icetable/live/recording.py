"""Recorded games for the demo, the tests and the benchmark: a rendered video with hands, and
its ground truth.

A script is a game as a list of steps on the table (a piece placed, moved or removed by a hand).
`make_recording` renders each distinct table once with the vision renderer (a fixed camera over
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

from calibration.calibfile import Calibration, save
from calibration.layout import cards_layout
from referee.dimensions import DEFAULT
from referee.evaluate import evaluate
from referee.geometry import footprint
from referee.scene import Piece, Scene, scene_from_dict
from vision.camera import Camera, intrinsics, looking_at
from vision.render import random_config, render
from vision.samples import calibration_for

FORMAT = "icetable-recording/1"
DIST = (-0.05, 0.01, 0.0, 0.0, 0.0)
SKIN = (0.80, 0.60, 0.48)
ARM_WIDTH = 75.0          # mm
ARM_HEIGHT = 70.0         # mm above the table at the hand
# frames of each phase of a step, per second of video
QUIET, REACH, HOLD, LEAVE = 0.8, 0.6, 0.4, 0.6


@dataclass(frozen=True)
class Step:
    """One change on the table: `kind` placed / moved / removed, the piece after (or the piece
    removed), and the side the player's arm comes from (top, right, bottom, left)."""

    kind: str
    piece: Piece
    side: str

    def to_dict(self) -> dict:
        return {"kind": self.kind, "piece": self.piece.to_dict(), "side": self.side}


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


def tables(game: str, area, steps: list[Step], players: list[str]) -> list[Scene]:
    """The table before the first step and after each step."""
    pieces: dict[str, Piece] = {}
    out = [Scene(game, (), area, state={"players": players})]
    for s in steps:
        if s.kind == "removed":
            pieces.pop(s.piece.id)
        else:
            pieces[s.piece.id] = s.piece
        out.append(Scene(game, tuple(pieces.values()), area, state={"players": players}))
    return out


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
    shadow = cv2.GaussianBlur(np.roll(arm, (int(arm.shape[0] * 0.04), int(arm.shape[1] * 0.03)), (0, 1)),
                              (0, 0), arm.shape[1] / 90)
    img = table.astype(np.float32) * (1 - 0.4 * shadow)[..., None]
    ys = np.linspace(0.85, 1.1, arm.shape[0], dtype=np.float32)[:, None, None]
    skin = np.array(SKIN[::-1], np.float32) * 255 * 0.95 * ys
    img = img * (1 - arm[..., None]) + arm[..., None] * skin
    return np.clip(img, 0, 255).astype(np.uint8)


def _entry(side: str, target, area) -> tuple[float, float]:
    w, h = area
    x, y = target
    return {"top": (x, -260.0), "bottom": (x, h + 260.0), "left": (-260.0, y), "right": (w + 260.0, y)}[side]


def _covers(arm_end, start, piece: Piece) -> bool:
    """True when the arm (as a band on the table) touches the piece."""
    from shapely.geometry import LineString
    band = LineString([start, arm_end]).buffer(ARM_WIDTH / 2 + 8.0)
    return band.intersects(footprint(piece, DEFAULT))


def frames(game: str, area, steps: list[Step], players: list[str], cam: Camera, fps: float, seed: int = 3):
    """Yield (BGR frame, time s) for the whole recording; also fills `times` of each let-go."""
    layout = cards_layout(*area)
    config = random_config(seed, area, cam.size, light="daylight", camera=cam)
    rendered = [render(t, layout, config).image for t in tables(game, area, steps, players)]
    rng = np.random.default_rng(seed)
    noise = [rng.normal(0, 1.2, rendered[0].shape).astype(np.float32) for _ in range(3)]
    n = 0

    def emit(img):
        nonlocal n
        out = np.clip(img.astype(np.float32) + noise[n % 3], 0, 255).astype(np.uint8)
        n += 1
        return out, (n - 1) / fps

    for k, step in enumerate(steps):
        before, after = rendered[k], rendered[k + 1]
        target = (step.piece.x, step.piece.y)
        start = _entry(step.side, target, area)
        for _ in range(int(QUIET * fps)):
            yield emit(before) + (None,)
        reach = max(2, int(REACH * fps))
        for i in range(reach):
            f = (i + 1) / reach
            end = (start[0] + (target[0] - start[0]) * f, start[1] + (target[1] - start[1]) * f)
            yield emit(_with_arm(before, _arm(cam, start, end, cam.size))) + (None,)
        for _ in range(max(1, int(HOLD * fps))):
            yield emit(_with_arm(after, _arm(cam, start, target, cam.size))) + (None,)
        leave = max(2, int(LEAVE * fps))
        released = False
        for i in range(leave):
            f = (i + 1) / leave
            end = (target[0] + (start[0] - target[0]) * f, target[1] + (start[1] - target[1]) * f)
            let_go = not released and not _covers(end, start, step.piece)
            released |= let_go
            yield emit(_with_arm(after, _arm(cam, start, end, cam.size))) + ((k if let_go else None),)
    for _ in range(int(1.5 * fps)):
        yield emit(rendered[-1]) + (None,)


def make_recording(out_dir: Path, game: str, players: list[str], area, steps: list[Step],
                   size=(1280, 720), fps: float = 15.0, seed: int = 3, options: dict | None = None) -> Path:
    """Render the video, the calibration and the ground truth into `out_dir`; returns the video."""
    out_dir.mkdir(parents=True, exist_ok=True)
    cam = camera_for(area, size)
    colors = calibration_for("cam720", "daylight", area, seed * 7).colors
    save(Calibration(cards_layout(*area), size, cam.K, cam.dist, "rendered", colors), out_dir / "calibration.json")
    video = out_dir / "recording.mp4"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"mp4v"), fps, size)
    let_go = {}
    for img, t, k in frames(game, area, steps, players, cam, fps, seed):
        writer.write(img)
        if k is not None:
            let_go[k] = round(t, 3)
    writer.release()
    final = tables(game, area, steps, players)[-1]
    truth = {"format": FORMAT, "game": game, "players": players, "area": list(area), "fps": fps,
             "size": list(size), "seed": seed, "options": options or {},
             "steps": [{**s.to_dict(), "let_go": let_go.get(k)} for k, s in enumerate(steps)],
             "final_scene": final.to_dict(),
             "final_scores": evaluate(final, options=options).scores}
    (out_dir / "truth.json").write_text(json.dumps(truth, indent=1) + "\n", encoding="utf-8")
    return video


def load_truth(folder: Path) -> dict:
    truth = json.loads((folder / "truth.json").read_text(encoding="utf-8"))
    if truth.get("format") != FORMAT:
        raise ValueError(f"{folder / 'truth.json'}: not an {FORMAT} file")
    truth["final_scene"] = scene_from_dict(truth["final_scene"], str(folder / "truth.json"))
    return truth


def _lying(pid, color, size, x, y, heading) -> Piece:
    return Piece(pid, "pyramid", x, y, color=color, size=size, pose="lying", heading=heading)


def _standing(pid, color, size, x, y) -> Piece:
    return Piece(pid, "pyramid", x, y, color=color, size=size, pose="standing")


def icehouse_script() -> tuple[list[str], tuple[float, float], list[Step]]:
    """A short two-player Icehouse game: defenders, attacks, an illegal attack taken back, a
    crash put right, and a last attack."""
    area = (600.0, 450.0)
    gap = 7.0
    b3 = _standing("b3", "blue", 3, 450.0, 300.0)
    r3 = _standing("r3", "red", 3, 150.0, 150.0)
    r2 = _standing("r2", "red", 2, 200.0, 330.0)
    b2 = _standing("b2", "blue", 2, 430.0, 120.0)
    half = DEFAULT.looney_base
    steps = [
        Step("placed", r3, "left"),
        Step("placed", b3, "right"),
        Step("placed", r2, "left"),
        Step("placed", b2, "right"),
        Step("placed", _lying("r1a", "red", 1, b3.x - half[3] / 2 - gap, b3.y, 0.0), "bottom"),
        Step("placed", _lying("b1a", "blue", 1, r3.x + half[3] / 2 + gap, r3.y, 180.0), "top"),
        Step("placed", _lying("b2x", "blue", 2, 300.0, 400.0, 90.0), "bottom"),
        Step("removed", _lying("b2x", "blue", 2, 300.0, 400.0, 90.0), "bottom"),
        Step("moved", _standing("r3", "red", 3, 166.0, 168.0), "top"),
        Step("moved", r3, "top"),
        Step("placed", _lying("r2a", "red", 2, b2.x - half[2] / 2 - gap, b2.y, 0.0), "top"),
        Step("placed", _lying("b3a", "blue", 3, r2.x + half[2] / 2 + gap, r2.y, 180.0), "bottom"),
    ]
    return ["red", "blue"], area, steps
