"""The piecepack sample images (IceFloe, Iceberg) and the default profile, from seeds.

`write_set(game, out_dir)` regenerates sample_images/<game>/ exactly: per image a JPEG and its
ground-truth scene (with a `render` object naming the calibration file), one calibration per
camera. `write_default_profile()` renders the enrolment photos under three lights and learns the
shipped profile from them, through the same code a user's enrolment runs.
"""
from __future__ import annotations

import json
import math
import random
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from calibration import enrol
from calibration.calibfile import Calibration, default_colors, save
from calibration.layout import cards_layout
from referee.dimensions import DEFAULT
from referee.iceberg.board import donut
from referee.iceberg.scene import board_to_scene as iceberg_scene_of
from referee.icefloe.board import Board
from referee.icefloe.scene import board_to_scene as icefloe_scene_of
from referee.match import new_match
from referee.scene import Piece, Scene, tenth_degree
from vision.camera import intrinsics, looking_at
from vision.piecepack import profile as pp
from vision.piecepack.editions import printed_in
from vision.render import random_config, render

SIZE = (1920, 1080)
HFOV = 60.0
DIST = (-0.06, 0.015, 0.0, 0.0, 0.0)
LIGHTS = ("daylight", "warm", "cool", "dim")
JPEG_QUALITY = 88
COUNT = {"icefloe": 16, "iceberg": 12}
ENROL_LIGHTS = (("daylight", 11), ("warm", 12), ("dim", 13), ("cool", 14))


def camera(rng: random.Random, area) -> "Camera":
    """A camera above the middle of the area, up to 15 degrees off vertical, just high enough
    to see the corner cards (so about 1.7-2 px per mm at 1920x1080)."""
    w, h = area
    K = intrinsics(SIZE, HFOV)
    half_v = math.atan(SIZE[1] / 2 / K[1, 1])
    needed = max((h + 120) / 2 / math.tan(half_v), (w + 120) / 2 / math.tan(math.radians(HFOV / 2)))
    tilt, turn = math.radians(rng.uniform(0, 15)), rng.uniform(0, 2 * math.pi)
    height = needed * rng.uniform(1.05, 1.2)
    target = np.array([w / 2 + rng.uniform(-10, 10), h / 2 + rng.uniform(-10, 10), 0.0])
    off = height * math.tan(tilt)
    centre = target + np.array([off * math.cos(turn), off * math.sin(turn), -height])
    return looking_at(K, DIST, SIZE, centre, target, rng.uniform(-5, 5))


def calibration(cam, area) -> Calibration:
    """What `icetable calibrate` gives for this camera (intrinsics as ChArUco finds them)."""
    return Calibration(cards_layout(*area), cam.size, cam.K, cam.dist, "rendered", default_colors(),
                       mm_per_px=0.5)


def laid_by_hand(scene: Scene, rng: random.Random, mm: float = 2.0, degrees: float = 3.0) -> Scene:
    """The scene with each piece up to `mm` and `degrees` off its place, as a person lays out
    an arrangement by eye."""
    return replace(scene, pieces=tuple(
        replace(p, x=p.x + rng.uniform(-mm, mm), y=p.y + rng.uniform(-mm, mm),
                angle=(p.angle or 0.0) + rng.uniform(-degrees, degrees)) for p in scene.pieces))


def enrolment_photos(light: str, seed: int, by_hand: bool = False, edition: str | None = None,
                     scenes: dict[str, Scene] | None = None, cloth: tuple | None = None) -> tuple[dict, object]:
    """Rendered enrolment photos {kind: [(name, frame, K, dist)]} under one light, and their
    camera; `by_hand`: the pieces laid a little off the guide's places; `edition`: the set
    printed in that edition (`vision.piecepack.editions`; default the project's own); `scenes`:
    what lies in each photo by kind, instead of the arrangements (what else a user may
    photograph inside the corner cards); `cloth`: its colour (linear RGB), not the seed's."""
    rng = random.Random(seed)
    cam = camera(rng, enrol.AREA)
    photos = {}
    for kind, scene in (scenes or {k: enrol.arrangement(k) for k in enrol.KINDS}).items():
        config = random_config(seed, enrol.AREA, SIZE, light=light, camera=cam)
        config = replace(config, cloth=cloth or config.cloth)
        if by_hand:
            scene = laid_by_hand(scene, random.Random(f"{seed}-{kind}"))
        if edition:
            scene = printed_in(scene, edition)
        frame = render(scene, enrol.layout(), config).image
        photos[kind] = [(f"{kind}-{light}", frame, cam.K, cam.dist)]
    return photos, cam


def write_default_profile(path: Path = pp.DEFAULT_PROFILE) -> pp.Profile:
    """Learn and write the shipped profile from rendered enrolments under several lights."""
    pooled: dict[str, list] = {k: [] for k in enrol.KINDS}
    for light, seed in ENROL_LIGHTS:
        for kind, frames in enrolment_photos(light, seed)[0].items():
            pooled[kind] += frames
    profile = enrol.learn(pooled, source="default: rendered enrolment photos under 4 lights")
    pp.save(profile, path)
    return profile


# --- scenes -------------------------------------------------------------------------------------
def _spots(n: int, rng: random.Random) -> list[tuple[float, float]]:
    """Where n pyramids stand on one tile (fractions of the side from its centre)."""
    if n == 1:
        return [(rng.uniform(-0.06, 0.06), rng.uniform(-0.06, 0.06))]
    corners = [(-0.25, -0.25), (0.25, 0.25), (0.25, -0.25), (-0.25, 0.25)]
    rng.shuffle(corners)
    return corners[:n]


def _touching(spots, sizes, rng):
    """Sometimes push the first two pyramids of a tile together until their bases touch."""
    if len(spots) < 2 or rng.random() > 0.4:
        return spots
    (x0, y0), (x1, y1) = spots[0], spots[1]
    gap = (DEFAULT.pp_pyramid_base[sizes[0]] + DEFAULT.pp_pyramid_base[sizes[1]]) / 2 / DEFAULT.tile
    if abs(x1 - x0) > abs(y1 - y0):
        x1 = x0 + math.copysign(gap + 0.005, x1 - x0)
    else:
        y1 = y0 + math.copysign(gap + 0.005, y1 - y0)
    return [(x0, y0), (x1, y1)] + list(spots[2:])


# The rules the sample games are played under, so that a seed keeps drawing the same tables
# (held-out sets and tests name images by seed): no real tiles or die (the match's shuffle and
# die), a floe is weighed where a move ends, and nobody breaks the rules of commentary.
SAMPLE_RULES = {"icefloe": {"midway_weight": "ignore"}, "iceberg": {"tiles": "shuffle", "die": "virtual"}}


def _played(game: str, players: int, steps: int, rng: random.Random):
    """A referee match of `game` after up to `steps` random legal actions."""
    match = new_match(game, list(pp.SUITS[:players]), seed=rng.randrange(10**6), options=SAMPLE_RULES[game])
    for _ in range(steps):
        if match.is_over():
            break
        legal = match.legal_actions(rng.choice(match.to_act()))
        match.apply(rng.choice([a for a in legal if a["type"] != "sit_out"]))
    return match


def icefloe_table(rng: random.Random, steps: int, overweight: bool) -> Scene:
    """An IceFloe table after `steps` random legal actions (0: the start), with slightly slid
    tiles, the players' pawns, dice and voting coins beside the board."""
    board: Board = _played("icefloe", rng.choice((3, 4)), steps, rng).board
    if overweight:
        heavy = [t for t in board.tiles if board.on(t)]
        if heavy:
            tid = rng.choice(heavy)
            free = [p for p in board.pyramids if board.pyramids[p] != tid]
            for pid in rng.sample(free, min(len(free), rng.choice((1, 2)))):
                if len(board.on(tid)) < 3:
                    board.pyramids[pid] = tid
    base = icefloe_scene_of(board)
    pieces, side = [], DEFAULT.tile
    for t in base.of_type("tile"):
        dx, dy, da = rng.uniform(-1.5, 1.5), rng.uniform(-1.5, 1.5), rng.uniform(-2, 2)
        tile = replace(t, x=round(t.x + dx, 1), y=round(t.y + dy, 1), angle=tenth_degree(da)
                       if rng.random() < 0.8 else tenth_degree(da + 90 * rng.randrange(4)))
        pieces.append(tile)
        on = board.on(t.id)
        sizes = [board.kinds[p][1] for p in on]
        for (fx, fy), pid in zip(_touching(_spots(len(on), rng), sizes, rng), on):
            suit, size = board.kinds[pid]
            pieces.append(Piece(pid, "pp_pyramid", round(tile.x + fx * side, 1), round(tile.y + fy * side, 1),
                                suit=suit, size=size, pose="standing", angle=tenth_degree(rng.uniform(0, 90))))
    pieces += _beside_board(rng, base.area, [s for s in ("suns", "moons", "crowns", "arms")
                                             if any(k[0] == s for k in board.kinds.values())])
    return Scene("icefloe", tuple(pieces), base.area, state={"grid_origin": base.state["grid_origin"]})


def _beside_board(rng: random.Random, area, suits) -> list[Piece]:
    """Pawns, dice and a few voting coins in the margin below and right of the board."""
    out = []
    w, h = area
    for i, suit in enumerate(suits):
        y = 20.0 + 75.0 * i
        out.append(Piece(f"pawn-{suit}", "pawn", round(w - 22 + rng.uniform(-2, 2), 1), round(y + 8, 1), suit=suit))
        out.append(Piece(f"die-{suit}", "die", round(w - 22 + rng.uniform(-2, 2), 1), round(y + 38, 1), suit=suit,
                         rank=rng.randrange(6), angle=tenth_degree(rng.uniform(0, 90))))
    for i in range(rng.randint(0, 4)):
        x = 30.0 + 44.0 * i + rng.uniform(-3, 3)
        face = rng.choice(("suit", "value"))
        fields = {"suit": rng.choice(suits)} if face == "suit" else {"rank": rng.randrange(6)}
        out.append(Piece(f"vote-{i}", "coin", round(x, 1), round(h - 22 + rng.uniform(-3, 3), 1), face=face,
                         angle=tenth_degree(rng.uniform(0, 360)), **fields))
    return out


def iceberg_table(rng: random.Random, steps: int) -> Scene:
    """An Iceberg table after `steps` random legal actions: face-down and face-up tiles, coins
    (suit side up) on tile quarters, the die beside the board."""
    match = _played("iceberg", rng.choice((2, 4)), steps, rng)
    base = iceberg_scene_of(match.board if steps else donut())
    pieces = []
    for p in base.pieces:
        if p.type == "tile":
            da = rng.uniform(-2, 2)
            p = replace(p, x=round(p.x + rng.uniform(-1.5, 1.5), 1), y=round(p.y + rng.uniform(-1.5, 1.5), 1),
                        angle=tenth_degree(da + (90 * rng.randrange(4)
                                                 if p.face == "up" and rng.random() < 0.3 else 0)))
        elif p.type == "coin":
            p = replace(p, x=round(p.x + rng.uniform(-1, 1), 1), y=round(p.y + rng.uniform(-1, 1), 1),
                        angle=tenth_degree(rng.uniform(0, 360)))
        pieces.append(p)
    w, h = base.area
    pieces.append(Piece("die", "die", round(w - 20, 1), round(h - 20, 1), suit=rng.choice(pp.SUITS),
                        rank=rng.randrange(6), angle=tenth_degree(rng.uniform(0, 90))))
    return Scene("iceberg", tuple(pieces), base.area)


def scene_for(game: str, i: int, rng: random.Random) -> Scene:
    """The i-th sample table of a game: starts, mid-games, overweight floes."""
    if game == "icefloe":
        steps = (0, 0, 8, 20, 40, 60)[i % 6]
        return icefloe_table(rng, steps, overweight=i % 3 == 2)
    return iceberg_table(rng, (0, 6, 15, 30)[i % 4])


def planned(game: str, base_seed: int, i: int):
    """(scene, render config, render facts for the truth file) of image `i` (from 0) of the
    set `write_set` renders from `base_seed`."""
    seed = base_seed + (0 if game == "icefloe" else 500) + i + 1
    rng = random.Random(seed)
    scene = scene_for(game, i, rng)
    light, hands = LIGHTS[i % len(LIGHTS)], int(i % 6 == 5)
    cam = camera(rng, scene.area)
    config = random_config(seed, scene.area, SIZE, light=light, camera=cam, hands=hands)
    return scene, config, {"seed": seed, "light": light, "hands": hands, "height_mm": round(-float(cam.C[2]), 1)}


def render_one(game: str, base_seed: int, i: int):
    """(scene, rendered frame, camera, render facts for the truth file) of image `i` (from 0)
    of the set `write_set` renders from `base_seed`."""
    scene, config, facts = planned(game, base_seed, i)
    frame = render(scene, cards_layout(*scene.area), config)
    return scene, frame, config.camera, {**facts, "hidden": frame.hidden}


def write_set(game: str, out_dir: Path, base_seed: int = 7000, report=None) -> list[Path]:
    """Render the sample set of `game` into `out_dir`; returns the images written (each also
    given to `report`, when given, as it is written)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for i in range(COUNT[game]):
        scene, frame, cam, facts = render_one(game, base_seed, i)
        stem = f"{game}-{i + 1:02d}"
        cal_name = f"{stem}.calibration.json"
        save(calibration(cam, scene.area), out_dir / cal_name)
        cv2.imwrite(str(out_dir / f"{stem}.jpg"), frame.image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        truth = scene.to_dict()
        truth["render"] = {**facts, "calibration": cal_name}
        (out_dir / f"{stem}.json").write_text(json.dumps(truth, indent=1) + "\n", encoding="utf-8")
        written.append(out_dir / f"{stem}.jpg")
        if report:
            report(written[-1])
    return written


def write_all(root: Path, base_seed: int = 1000, report=None, defaults: bool = True) -> list[Path]:
    """The IceFloe and Iceberg sample sets under `root` (and, for the committed sets' base seed
    1000 with `defaults`, the shipped default profile first); other base seeds give held-out
    sets. `report` is given each image as it is written."""
    if base_seed == 1000 and defaults:
        write_default_profile()
    return [path for game in COUNT for path in write_set(game, Path(root) / game, 6000 + base_seed, report)]


if __name__ == "__main__":     # python -m vision.piecepack.samples [ROOT]: regenerate the sets
    import sys
    for written in write_all(Path(sys.argv[1] if len(sys.argv) > 1 else "sample_images")):
        print(written)
