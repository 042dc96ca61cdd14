"""The whole-explanation search for touching pieces (vision.clusters) on drawn blobs."""
import cv2
import numpy as np

from vision import clusters


def _poly(points, shape=(100, 120)):
    mask = np.zeros(shape, np.uint8)
    cv2.fillPoly(mask, [np.array(points, np.int32)], 1)
    return mask


RIGHT = _poly([(20, 20), (20, 50), (90, 35)])     # a lying piece pointing right, tip at (90, 35)
LEFT = _poly([(100, 55), (100, 85), (30, 70)])    # one beside it pointing left, tip at (30, 70)


def test_a_lying_piece_tip_is_its_outline_sharpest_corner_pointing_out():
    (col, row), heading = clusters.tips(RIGHT, 4)[0]
    assert np.hypot(col - 90, row - 35) <= 2
    assert abs(heading) < 10


def test_two_touching_pieces_are_chosen_over_one_across_their_seam():
    blob = RIGHT | LEFT | _poly([(40, 40), (40, 65), (80, 65), (80, 40)])   # joined at a seam
    across = _poly([(20, 20), (100, 20), (100, 85), (20, 85)])             # one piece over both
    cover = clusters.Cover(blob, None, piece_px=30)
    (picked, error), = clusters.choose(cover, [across, RIGHT, LEFT], budget=3)
    assert sorted(picked) == [1, 2]
    assert error == cover.error([RIGHT, LEFT])
    assert error < cover.error([across])


def test_no_more_pieces_than_the_budget_and_never_none():
    cover = clusters.Cover(RIGHT | LEFT, None, piece_px=30)
    (picked, _), = clusters.choose(cover, [RIGHT, LEFT], budget=1)
    assert len(picked) == 1
    far = _poly([(0, 90), (5, 90), (5, 99)])
    assert len(clusters.choose(cover, [far], budget=2)[0][0]) == 1


def test_rival_sets_come_best_first_and_the_best_is_the_one_chosen_alone():
    blob = RIGHT | LEFT | _poly([(40, 40), (40, 65), (80, 65), (80, 40)])
    across = _poly([(20, 20), (100, 20), (100, 85), (20, 85)])
    cover = clusters.Cover(blob, None, piece_px=30)
    rivals = clusters.choose(cover, [across, RIGHT, LEFT], budget=3, keep=3)
    errors = [error for _, error in rivals]
    assert len(rivals) == 3 and errors == sorted(errors)
    assert len({tuple(picked) for picked, _ in rivals}) == 3
    assert rivals[0] == clusters.choose(cover, [across, RIGHT, LEFT], budget=3)[0]
    assert all(error == cover.error([[across, RIGHT, LEFT][k] for k in picked]) for picked, error in rivals)
