"""The photoreal generator's conditions: splits never share a table, light, plastic or lens
family, and a session written to JSON is the same session read back (so it can be rendered
again). Blender is not needed for these."""
import json

import cv2

import numpy as np
import pytest

from calibration.layout import cards_layout

from tools.photoreal.conditions import LENSES, LIGHTS, PLASTICS, SPLITS, TABLES, Session, draw_session
from tools.photoreal.develop import canvas

FAMILIES = {"table": TABLES, "light": LIGHTS, "plastic": PLASTICS}


def _family_split(families, name):
    split = families[name]
    return split[0] if isinstance(split, tuple) else split


@pytest.mark.parametrize("split", SPLITS)
def test_a_split_draws_only_its_own_families(split):
    for seed in range(40):
        s = draw_session(split, seed, "icehouse", (600.0, 450.0), 2)
        assert _family_split(TABLES, s.table.kind) == split
        assert _family_split(LIGHTS, s.light.kind) == split
        assert _family_split(PLASTICS, s.plastic.family) == split
        assert _family_split(LENSES, s.optics.lens) == split


def test_every_split_has_a_family_of_each_condition():
    for families in (TABLES, LIGHTS, PLASTICS, LENSES):
        assert {_family_split(families, n) for n in families} == set(SPLITS)


def test_a_session_survives_json():
    s = draw_session("test", 7, "icepirates", (700.0, 500.0), 3)
    back = Session.from_dict(json.loads(json.dumps(s.to_dict())))
    assert json.dumps(back.to_dict()) == json.dumps(s.to_dict())


@pytest.mark.parametrize("split", SPLITS)
def test_every_camera_sees_the_play_area_and_the_corner_markers(split):
    for seed in range(20):
        s = draw_session(split, seed, "icepirates", (700.0, 500.0), 1)
        cam = s.optics.camera()
        points = np.vstack(list(cards_layout(*s.area).marker_points().values()))
        px = cam.project(np.column_stack([points, np.zeros(len(points))]))
        assert (px >= 0).all() and (px[:, 0] < cam.size[0]).all() and (px[:, 1] < cam.size[1]).all(), seed


def test_the_render_canvas_covers_what_the_distorting_lens_sees():
    s = draw_session("test", 3, "icehouse", (600.0, 450.0), 1)
    s.optics.dist = [-0.25, 0.02, 0.0, 0.0, 0.0]
    cam = s.optics.camera()
    wide, (ox, oy) = canvas(cam)
    w, h = cam.size
    border = np.array([[0, 0], [w - 1, 0], [0, h - 1], [w - 1, h - 1], [w / 2, 0], [0, h / 2]], np.float64)

    und = cv2.undistortPoints(border.reshape(-1, 1, 2), cam.K, cam.dist, P=cam.K).reshape(-1, 2)
    und += (ox, oy)
    assert (und >= 0).all() and (und[:, 0] < wide.size[0]).all() and (und[:, 1] < wide.size[1]).all()
