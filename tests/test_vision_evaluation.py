"""The accuracy score the benchmarks print: what is wrong with each true pyramid."""
from referee.scene import scene_from_dict
from vision.evaluation import score


def _scene(*pieces):
    return scene_from_dict({"format": "icetable-scene/1", "game": "icehouse",
                            "area": {"width": 600, "height": 450},
                            "pieces": [{"type": "pyramid", "pose": "standing", "angle": 0.0, **p} for p in pieces]})


def test_each_piece_gets_its_fault_and_the_detection_it_was_matched_to():
    truth = _scene({"id": "p1", "x": 100, "y": 100, "color": "white", "size": 3},
                   {"id": "p2", "x": 300, "y": 200, "color": "red", "size": 2},
                   {"id": "p3", "x": 500, "y": 300, "color": "blue", "size": 1})
    detected = _scene({"id": "orange1", "x": 101, "y": 99, "color": "orange", "size": 3},
                      {"id": "red1", "x": 302, "y": 200, "color": "red", "size": 2})
    outcomes = []
    s = score(truth, detected, outcomes=outcomes)
    read = {t.id: (fault, d.color if d else None) for t, fault, d in outcomes}
    assert read == {"p1": ("colour", "orange"), "p2": ("", "red"), "p3": ("missed", None)}
    assert (s.pieces, s.all_right, s.colour) == (3, 1, 1)
