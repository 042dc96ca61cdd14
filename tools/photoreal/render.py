"""Render photoreal sessions with Blender (Cycles, CPU or GPU) with their ground truth.

    python -m tools.photoreal.render --split test --first 0 --sessions 4 --out photoreal/

Runs in the environment of the `render` extra (`pip install -e '.[render]'`, bpy 4.5 on
Python 3.11). Each session writes to OUT/<split>/:

    sNNNN-session.json        every random choice of the session (conditions.Session)
    sNNNN-palette.jpg         the palette sheet with a pyramid of each colour, for calibrate
                              (piecepack games: sNNNN-enrol-KIND.jpg, the enrolment photos
                              faces, backs and pyramids of the session's edition)
    sNNNN-fK.jpg / .json      a game frame and its truth scene (render: conditions, hidden)
    sNNNN-fK-ids.png          per-pixel piece index (16 bit; 0 table, i the i-th piece)

`tools.photoreal.calibrate` then runs `icetable calibrate` on each session as a user would,
writing the calibration file that each truth scene names. Progress lines go to standard output
and OUT/progress.log.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from calibration import enrol
from calibration.layout import SHEET_MARGIN, cards_layout, palette_layout
from calibration.mat import card_page, pages
from referee.dimensions import DEFAULT, PP_LETTERS
from referee.geometry import footprint
from referee.icefloe.scene import MARGIN as PIECEPACK_MARGIN
from referee.scene import COLORS, Piece, Scene, tenth_degree
from tools.photoreal import blend
from tools.photoreal.conditions import PIECEPACK_GAMES, Session, draw_session
from tools.photoreal.develop import canvas, develop, hidden, piece_ids
from vision.piecepack.editions import printed_in
from vision.piecepack.profile import SUITS
from vision.piecepack.samples import laid_by_hand, scene_for as piecepack_scene
from vision.render.config import random_camera
from vision.render.pieces import DRAWERS
from vision.samples import AREAS as LOONEY_AREAS, SCENES, place

DPI = 150
GAMES = tuple(SCENES) + PIECEPACK_GAMES
AREAS = {**LOONEY_AREAS, **{g: (2 * PIECEPACK_MARGIN + 5 * DEFAULT.tile,) * 2 for g in PIECEPACK_GAMES}}


def _read_exr(path: Path) -> np.ndarray:
    """An EXR written by Blender as (h, w, 3) float32, top row first."""
    img = blend.bpy.data.images.load(str(path))
    w, h = img.size
    px = np.empty(w * h * 4, np.float32)
    img.pixels.foreach_get(px)
    blend.bpy.data.images.remove(img)
    return px.reshape(h, w, 4)[::-1, :, :3].copy()


def _stage(session: Session, cam_canvas, args) -> None:
    """An empty scene with the session's table, lights and camera."""
    blend.reset(cam_canvas.size, args.samples, args.threads)
    blend.add_table(session.table)
    blend.add_lights(session.light, session.area)
    blend.add_camera(cam_canvas)


def _shoot(session: Session, offset, tmp: Path, stem: str, seed: int):
    """Render, then develop the frame and the piece ids as the session's camera would."""
    blend.index_output(tmp, stem + "-ids")
    blend.render(tmp / f"{stem}.exr")
    linear = _read_exr(tmp / f"{stem}.exr")
    ids = _read_exr(tmp / f"{stem}-ids0001.exr")[..., 0]
    return develop(linear, session.optics, offset, seed), piece_ids(ids, session.optics, offset)


def palette_scene(session: Session, rng) -> tuple[Scene, callable]:
    """A pyramid of each colour standing on its spot of the palette sheet, the sheet laid
    near the middle of the table, turned a little."""
    layout = palette_layout()
    w, h = session.area
    turn = math.radians(rng.uniform(-12, 12))
    rot = np.array([[math.cos(turn), -math.sin(turn)], [math.sin(turn), math.cos(turn)]])
    centre = np.array([layout.area[0] / 2, layout.area[1] / 2])
    at = np.array([w / 2 + rng.uniform(-60, 60), h / 2 + rng.uniform(-40, 40)])

    def to_table(pts):
        return (np.asarray(pts, np.float64) - centre) @ rot.T + at

    pieces = []
    for k, (colour, x, y) in enumerate(layout.spots):
        px, py = to_table([[x, y]])[0]
        pieces.append(Piece(f"p{k}", "pyramid", float(px), float(py), color=colour,
                            size=rng.choice((1, 2, 3)), pose="standing", angle=rng.uniform(0, 90)))
    return Scene(session.game, tuple(pieces), session.area), to_table


def render_palette(session: Session, args, out: Path, tmp: Path) -> None:
    rng = blend.session_rng(session, -1)
    cam, offset = canvas(session.optics.camera())
    _stage(session, cam, args)
    scene, to_table = palette_scene(session, rng)
    page = pages("palette", DPI)["palette"]
    blend.add_sheet("palette", page, (-SHEET_MARGIN, -SHEET_MARGIN, 297.0, 210.0), 0.1,
                    rng.uniform(0.4, 0.9), to_table, tmp)
    blend.add_pieces(scene, session.plastic, rng)
    image, _ = _shoot(session, offset, tmp, "palette", session.seed)
    name = f"s{session.seed:04d}-palette.jpg"
    cv2.imwrite(str(out / name), image, [cv2.IMWRITE_JPEG_QUALITY, session.optics.jpeg])


def _silhouettes(scene: Scene, optics) -> tuple[dict, dict]:
    cam = optics.camera()
    sil, names = {}, {}
    for i, piece in enumerate(scene.pieces, start=1):
        verts = np.vstack([look.solid.vertices for look in DRAWERS[piece.type](piece, DEFAULT)])
        sil[i], names[i] = cam.project(verts), piece.id
    return sil, names


def dense_scene(rng, game: str, area, n: int) -> Scene:
    """Up to `n` pyramids of any colour, size and pose, evenly drawn (training crops)."""
    placed, pieces = [], []
    for k in range(n):
        lying = rng.random() < 0.5
        place(rng, area, placed, pieces, lambda: Piece(
            f"p{k + 1}", "pyramid", round(rng.uniform(20, area[0] - 20), 1), round(rng.uniform(20, area[1] - 20), 1),
            color=rng.choice(COLORS), size=rng.randint(1, 3), pose="lying" if lying else "standing",
            heading=tenth_degree(rng.uniform(0, 360)) if lying else None,
            angle=None if lying else rng.uniform(0, 90)))
    return Scene(game, tuple(pieces), area)


def dense_piecepack(rng, area, n: int) -> Scene:
    """Training crops of piecepack standing pieces: tiles (face up or down, a few cells empty)
    on a 5 x 5 grid and up to `n` piecepack pyramids, dice and pawns of any suit, letter and
    turn, and n / 4 coins, on the tiles and beside them, never across a tile's edge."""
    side = DEFAULT.tile
    tiles = []
    for k in range(25):
        if rng.random() < 0.2:
            continue
        up = rng.random() < 0.6
        tiles.append(Piece(f"t{k}", "tile", round(PIECEPACK_MARGIN + side * (k % 5 + 0.5) + rng.uniform(-1, 1), 1),
                           round(PIECEPACK_MARGIN + side * (k // 5 + 0.5) + rng.uniform(-1, 1), 1),
                           face="up" if up else "down", suit=rng.choice(SUITS) if up else None,
                           rank=rng.randrange(6) if up else None, angle=tenth_degree(rng.uniform(-2, 2))))
    squares = [footprint(t, DEFAULT) for t in tiles]
    placed, pieces = [], []

    def make(k: int) -> Piece:
        kind = rng.choices(("pp_pyramid", "die", "pawn"), (0.7, 0.15, 0.15))[0]
        fields = {"suit": rng.choice(SUITS)}
        if kind == "pp_pyramid":
            fields.update(size=rng.choice(PP_LETTERS), pose="standing")
        elif kind == "die":
            fields["rank"] = rng.randrange(6)
        return Piece(f"s{k}", kind, round(rng.uniform(12, area[0] - 12), 1), round(rng.uniform(12, area[1] - 12), 1),
                     angle=tenth_degree(rng.uniform(0, 90)) if kind != "pawn" else None, **fields)

    def coin(k: int) -> Piece:
        up = rng.choice(("suit", "value"))
        fields = {"suit": rng.choice(SUITS)} if up == "suit" else {"rank": rng.randrange(6)}
        return Piece(f"c{k}", "coin", round(rng.uniform(12, area[0] - 12), 1), round(rng.uniform(12, area[1] - 12), 1),
                     face=up, angle=tenth_degree(rng.uniform(0, 360)), **fields)

    def fits_tiles(piece: Piece) -> bool:
        base = footprint(piece, DEFAULT)
        return all(sq.contains(base) or not sq.intersects(base) for sq in squares)

    for k in range(n):
        place(rng, area, placed, pieces, lambda: next(p for p in iter(lambda: make(k), None) if fits_tiles(p)))
    for k in range(n // 4):         # coins: no standing pieces, whose print the detector may take for some
        place(rng, area, placed, pieces, lambda: next(p for p in iter(lambda: coin(k), None) if fits_tiles(p)))
    return Scene("icefloe", tuple(tiles + pieces), tuple(area))


def _cards(area, paper: float, tmp: Path) -> None:
    """The four printed corner cards around `area`."""
    for mid, (label, x, y, w, h) in enumerate(cards_layout(*area).sheets):
        blend.add_sheet(label, card_page(mid, DPI), (x, y, w, h), 0.1, paper, None, tmp)


def render_enrolment(session: Session, args, out: Path, tmp: Path) -> None:
    """The enrolment photos of the session's piecepack (`icetable mat --kind enrol`), each with
    the camera set up again over the enrolment area."""
    for n, kind in enumerate(enrol.KINDS):
        rng = blend.session_rng(session, -2 - n)
        o = session.optics
        cam = random_camera(rng, enrol.AREA, np.array(o.K), tuple(o.size), np.array(o.dist), margin=110.0,
                            highest=2500.0)
        shot = replace(session, optics=replace(o, R=cam.R.tolist(), C=cam.C.tolist()))
        cam, offset = canvas(shot.optics.camera())
        _stage(shot, cam, args)
        paper = rng.uniform(0.3, 0.9)
        _cards(enrol.AREA, paper, tmp)
        scene = printed_in(laid_by_hand(enrol.arrangement(kind), rng), session.edition)
        blend.add_pieces(scene, session.plastic, rng, tmp, paper)
        image, _ = _shoot(shot, offset, tmp, f"enrol-{kind}", session.seed * 100 + 90 + n)
        cv2.imwrite(str(out / f"s{session.seed:04d}-enrol-{kind}.jpg"), image,
                    [cv2.IMWRITE_JPEG_QUALITY, session.optics.jpeg])


def game_scene(session: Session, k: int, rng, dense: int) -> Scene:
    if dense and session.game in PIECEPACK_GAMES:
        return dense_piecepack(rng, session.area, dense)
    if dense:
        return dense_scene(rng, session.game, session.area, dense)
    if session.game in PIECEPACK_GAMES:
        return piecepack_scene(session.game, session.seed * 7 + k, rng)
    return SCENES[session.game](rng, session.area)


def render_frame(session: Session, k: int, args, out: Path, tmp: Path) -> None:
    rng = blend.session_rng(session, k)
    scene = game_scene(session, k, rng, args.dense)
    cam, offset = canvas(session.optics.camera())
    _stage(session, cam, args)
    paper = rng.uniform(0.4, 0.9)
    _cards(session.area, paper, tmp)
    blend.add_pieces(printed_in(scene, session.edition), session.plastic, rng, tmp, paper)
    blend.add_arms(session.hands[k])
    image, ids = _shoot(session, offset, tmp, f"f{k}", session.seed * 100 + k)
    stem = f"s{session.seed:04d}-f{k}"
    cv2.imwrite(str(out / f"{stem}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, session.optics.jpeg])
    cv2.imwrite(str(out / f"{stem}-ids.png"), ids)
    truth = scene.to_dict()
    truth["render"] = {"renderer": "photoreal", "split": session.split, "session": session.seed,
                       "table": session.table.kind, "light": session.light.kind,
                       "plastic": session.plastic.family, "lens": session.optics.lens,
                       "edition": session.edition, "arms": len(session.hands[k]),
                       "hidden": hidden(ids, *_silhouettes(scene, session.optics)),
                       "calibration": f"calibration-s{session.seed:04d}.json"}
    (out / f"{stem}.json").write_text(json.dumps(truth, indent=1))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--split", default="test", choices=("train", "val", "test"))
    p.add_argument("--first", type=int, default=0, help="first session seed")
    p.add_argument("--sessions", type=int, default=1)
    p.add_argument("--frames", type=int, default=3, help="game frames per session")
    p.add_argument("--games", default=",".join(SCENES),
                   help=f"games, one per session in turn (of {', '.join(GAMES)}; default the Looney games)")
    p.add_argument("--samples", type=int, default=16, help="Cycles samples per pixel")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--dense", type=int, default=0, metavar="N",
                   help="frames of up to N pyramids of any colour, size and pose (piecepack games: "
                        "piecepack pyramids, dice and pawns among tiles) in place of game positions "
                        "(training crops)")
    p.add_argument("--out", default="photoreal")
    args = p.parse_args(argv)
    games = args.games.split(",")
    out = Path(args.out) / args.split
    out.mkdir(parents=True, exist_ok=True)
    log = (Path(args.out) / "progress.log").open("a")
    for seed in range(args.first, args.first + args.sessions):
        game = games[seed % len(games)]
        session = draw_session(args.split, seed, game, AREAS[game], args.frames)
        (out / f"s{seed:04d}-session.json").write_text(json.dumps(session.to_dict(), indent=1))
        with tempfile.TemporaryDirectory() as tmp:
            start = time.time()
            if game not in PIECEPACK_GAMES:
                render_palette(session, args, out, Path(tmp))
            elif not args.dense:        # training crops need no enrolment
                render_enrolment(session, args, out, Path(tmp))
            for k in range(args.frames):
                render_frame(session, k, args, out, Path(tmp))
            line = (f"{time.strftime('%H:%M:%S')} {args.split} s{seed:04d} {game} {session.table.kind} "
                    f"{session.light.kind} {session.plastic.family} {session.optics.lens} {session.edition}: "
                    f"{args.frames} frames + palette or enrolment in {time.time() - start:.0f} s")
        print(line, flush=True)
        log.write(line + "\n")
        log.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
