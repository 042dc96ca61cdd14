"""Piecepack editions: every edition draws every face, editions differ from one another where
makers differ, and each belongs to one split of the photoreal generator."""
import numpy as np
import pytest

from tools.photoreal.conditions import SPLITS, draw_session
from vision.piecepack import art
from vision.piecepack.editions import DEFAULT, EDITIONS, SUITS, in_split


def _faces(ed):
    return ([art.tile_face(s, r, 50.8, ed) for s in SUITS for r in range(6)] + [art.tile_back(50.8, ed)]
            + [art.coin_suit(s, 19.05, ed) for s in SUITS] + [art.coin_value(r, 19.05, ed) for r in range(6)]
            + [art.die_face(s, r, 12.7, ed) for s in SUITS for r in range(6)])


@pytest.mark.parametrize("name", list(EDITIONS))
def test_every_face_is_drawn_and_the_24_tile_faces_all_differ(name):
    faces = _faces(EDITIONS[name])
    assert all(f.shape[2] == 3 and np.isfinite(f).all() and 0 <= f.min() and f.max() <= 1 for f in faces)
    tiles = [f.reshape(-1) for f in faces[:24]]
    assert min(np.abs(a - b).mean() for i, a in enumerate(tiles) for b in tiles[i + 1:]) > 1e-3


def test_editions_print_differently():
    backs = {name: art.tile_back(50.8, ed) for name, ed in EDITIONS.items()}
    names = list(backs)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            assert np.abs(backs[a] - backs[b]).mean() > 0.02, (a, b)


def test_the_corner_layout_prints_one_suit_mark_and_a_large_rank_in_the_suit_colour():
    face = art.tile_face("suns", 3, 50.8, EDITIONS["corner"])
    stock = np.array(EDITIONS["corner"].stock)
    printed = np.abs(face - stock).max(axis=2) > 0.2
    n = face.shape[0]
    assert not printed[int(0.75 * n):, int(0.75 * n):].any()           # nothing in the far corner
    assert printed[int(0.3 * n):int(0.8 * n), int(0.3 * n):int(0.8 * n)].mean() > 0.1
    red = face[printed][:, 0] > 3 * face[printed][:, 2]
    assert red.mean() > 0.9


@pytest.mark.parametrize("split", SPLITS)
def test_a_piecepack_session_draws_an_edition_of_its_split_only(split):
    drawn = {draw_session(split, seed, "icefloe", (354.0, 354.0), 1).edition for seed in range(30)}
    assert drawn and drawn <= set(in_split(split))
    assert draw_session(split, 0, "icehouse", (600.0, 450.0), 1).edition == DEFAULT.name


def test_every_split_has_an_edition_and_the_default_is_trained_on():
    assert all(in_split(split) for split in SPLITS)
    assert DEFAULT.name in in_split("train")
