"""A phone as the table camera, over real HTTP: the Icehouse recording's frames are posted as
JPEGs to /t/CODE/camera/frame on a waitress server, the live loop reads them from the phone
source, and the game comes out as recorded."""
import threading
import time
import urllib.request

import cv2

from calibration.calibfile import load as load_calibration
from icetable.live.build import live_loop
from icetable.live.demo import bundled
from icetable.live.link import InProcess, open_table
from icetable.live.recording import load_truth
from vision.feeds import PushSource
from webapp import create_app
from webapp.serving import BackgroundServer


def test_phone_camera_over_http_plays_the_recorded_game(tmp_path):
    folder = bundled("icehouse")
    truth = load_truth(folder)
    app = create_app({"DATA_DIR": str(tmp_path), "RATE_BURST": 10**6, "RATE_PER_SECOND": 10.0**6})
    server = BackgroundServer(app)
    try:
        code, token, host = open_table(app, "icehouse")
        for side in truth["players"]:
            app.test_client().post(f"/t/{code}/join", json={"name": side, "side": side})
        assert host.post(f"/t/{code}/host/start", json={"seed": 1}).status_code == 201
        link = InProcess(app, code, token)
        phone = PushSource(timeout=2.0)
        phone.fps = truth["fps"]
        link.phone_frames(phone.push)
        loop = live_loop(phone, load_calibration(folder / "calibration.json"), "icehouse",
                         truth["players"], link, picture_every=None)
        stop = threading.Event()
        runner = threading.Thread(target=loop.run, kwargs={"stop": stop})
        runner.start()
        video = cv2.VideoCapture(str(folder / "recording.mp4"))
        url = f"http://127.0.0.1:{server.port}/t/{code}/camera/frame"
        sent = 0
        while True:
            ok, frame = video.read()
            if not ok:
                break
            body = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 92])[1].tobytes()
            request = urllib.request.Request(url, data=body, method="POST", headers={
                "Content-Type": "image/jpeg", "Authorization": f"Bearer {token}"})
            with urllib.request.urlopen(request) as response:
                assert response.status == 200
            sent += 1
            deadline = time.monotonic() + 5
            while loop.frames < sent and time.monotonic() < deadline:    # one frame at a time
                time.sleep(0.001)
        stop.set()
        runner.join(timeout=10)
    finally:
        server.stop()
    assert [e.event["kind"] for e in loop.log] == [s["kind"] for s in truth["steps"]]
    state = host.get(f"/t/{code}/state").get_json()
    assert state["camera_scores"] == truth["final_scores"]
