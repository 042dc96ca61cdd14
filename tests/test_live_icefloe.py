"""The IceFloe demo game through the live loop, the web app and simulated phones. The camera's
reading is the recording's own ground truth, frame by frame (pieces under the arm unseen), so
this checks everything after vision: settling on the real video, tracking, finding each
physical action among the legal ones, phones voting when the game asks, final scores."""
from dataclasses import replace

import pytest

from icetable.live.demo import Demo, bundled
from icetable.live.recording import load_truth, timeline
from icetable.live.scripts import icefloe_script
from webapp import create_app


def oracle(script, fps, holder):
    moments = list(timeline(script, fps))

    def read(frame):
        moment = moments[min(holder["demo"].loop.frames - 1, len(moments) - 1)]
        scene = script.scenes[moment.scene]
        return replace(scene, pieces=tuple(p for p in scene.pieces if not moment.covered(p)))
    return read


@pytest.fixture(scope="module")
def icefloe(tmp_path_factory):
    folder = bundled("icefloe")
    app = create_app({"DATA_DIR": str(tmp_path_factory.mktemp("icefloe")),
                      "RATE_BURST": 10**6, "RATE_PER_SECOND": 10.0**6})
    truth = load_truth(folder)
    holder = {}
    script = icefloe_script(seed=truth["seed"], options=truth["options"])
    demo = Demo(app, folder, picture_every=None, read=oracle(script, truth["fps"], holder))
    holder["demo"] = demo
    return demo, demo.play()


def test_camera_finds_every_physical_action_in_order(icefloe):
    demo, _ = icefloe
    found = [a for entry in demo.loop.log for a in entry.actions]
    found = list({id(a): a for a in found}.values())
    assert found == demo.truth["actions"]


def test_phones_made_every_recorded_choice(icefloe):
    demo, _ = icefloe
    assert demo.phone_actions == []


def test_final_scores_and_winner(icefloe):
    demo, state = icefloe
    assert state["game"]["status"] == "over"
    assert state["game"]["scores"] == demo.truth["final_scores"]
    best = max(demo.truth["final_scores"].values())
    assert state["game"]["winner"] == [p for p, v in demo.truth["final_scores"].items() if v == best]


def test_no_warning_is_left_on_the_table(icefloe):
    _, state = icefloe
    assert state["warnings"] == []


@pytest.mark.slow
def test_icefloe_demo_through_the_real_detector(tmp_path):
    """The same game read by vision.detector: misread pyramid sizes and tile faces are forgiven
    by the game (IceFloe pieces never change), every action is found and the scores are right."""
    app = create_app({"DATA_DIR": str(tmp_path), "RATE_BURST": 10**6, "RATE_PER_SECOND": 10.0**6})
    demo = Demo(app, bundled("icefloe"), picture_every=None)
    state = demo.play()
    found = list({id(a): a for entry in demo.loop.log for a in entry.actions}.values())
    assert found == demo.truth["actions"]
    assert demo.phone_actions == []
    assert state["game"]["scores"] == demo.truth["final_scores"]
    assert not any(entry.warnings for entry in demo.loop.log)      # no false alarm on the phones
    assert state["warnings"] == []
