"""The learned colour reading (vision.colournet) with the shipped network, on committed samples
decoded by OpenCV: it puts back a colour the fit got wrong, and leaves right ones alone."""
from pathlib import Path

import cv2

from calibration.calibfile import load
from vision import colournet
from vision.detector import Detector
from vision.evaluation import sample_images
from vision.pyramids import Found

ROOT = Path(__file__).resolve().parent.parent


def _first_sample(game):
    return next(sample_images(ROOT / "sample_images" / game, (game,)))


def test_the_network_ships_with_the_package_and_the_detector_uses_it():
    assert colournet.available()
    image, truth, hidden, cal = _first_sample("icehouse")
    detector = Detector(load(cal))
    assert detector.reread == colournet.MODEL
    assert {p.color for p in detector.detect(cv2.imread(str(image)), "icehouse").of_type("pyramid")} \
        == {p.color for p in truth.of_type("pyramid") if p.id not in hidden}


def test_a_wrong_colour_is_read_again_and_no_piece_is_dropped():
    image, truth, hidden, cal = _first_sample("icehouse")
    detector = Detector(load(cal), reread=None)
    view, _, seg = detector.look(cv2.imread(str(image)), "icehouse")
    found = []
    for piece in truth.of_type("pyramid"):
        if piece.id in hidden:
            continue
        fields = {"type": "pyramid", "x": piece.x, "y": piece.y, "size": piece.size, "pose": piece.pose,
                  "heading": piece.heading, "angle": piece.angle, "color": piece.color}
        found.append(Found(fields, None, (0, 0), 1.0))
    wrong = {"red": "orange", "orange": "red", "blue": "purple", "purple": "blue", "green": "cyan",
             "cyan": "green", "yellow": "orange", "black": "purple", "white": "clear", "clear": "white"}
    for item in found:
        item.fields["color"] = wrong[item.fields["color"]]
    kept = colournet.reread(view, seg.features, found)
    assert len(kept) == len(found)
    right = sum(k.fields["color"] == t.color for k, t in zip(kept, [p for p in truth.of_type("pyramid")
                                                                    if p.id not in hidden]))
    assert right >= 0.9 * len(found)
