"""`icetable serve`: gevent's server on a port, the join URL and QR code printed, clear errors."""
from __future__ import annotations

import http.client
import json
import socket
import subprocess
import sys

import cv2
import numpy as np

from icetable.cli import main

HALVES = {"█": (1, 1), "▀": (1, 0), "▄": (0, 1), " ": (0, 0), "\xa0": (0, 0)}


def decode_terminal_qr(lines: list[str]) -> str:
    """Decode a QR code printed with half blocks, as seen on a dark terminal (blocks are light)."""
    rows = []
    for line in lines:
        cells = [HALVES[c] for c in line.rstrip("\n")]
        rows += [[255 * c[0] for c in cells], [255 * c[1] for c in cells]]
    image = np.array(rows, np.uint8).repeat(8, axis=0).repeat(8, axis=1)
    image = cv2.copyMakeBorder(image, 32, 32, 32, 32, cv2.BORDER_CONSTANT, value=255)
    return cv2.QRCodeDetectorAruco().detectAndDecode(image)[0]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_serve_on_port_0_prints_the_port_it_got(tmp_path):
    """--port 0 picks a free port; the join URL and QR code carry that port, not ':0'."""
    proc = subprocess.Popen([sys.executable, "-m", "icetable", "serve", "--bind", "127.0.0.1", "--port", "0",
                             "--data-dir", str(tmp_path), "--game", "iceberg"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = proc.stdout.readline().split()[-1]
        port = int(url.split("/")[2].split(":")[1])
        assert port > 0
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", url.split(str(port), 1)[1] + "/state")
        response = conn.getresponse()
        assert response.status == 200 and json.loads(response.read())["table"]["game"] == "iceberg"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_serve_prints_join_url_and_qr_then_serves(tmp_path):
    port = free_port()
    data = tmp_path / "store"
    proc = subprocess.Popen([sys.executable, "-m", "icetable", "serve", "--bind", "127.0.0.1",
                             "--port", str(port), "--data-dir", str(data), "--game", "icefloe"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stdout.readline()
        assert first.startswith(f"icetable: join at http://127.0.0.1:{port}/t/")
        url = first.split()[-1]
        qr = []
        while (line := proc.stdout.readline()).strip():
            qr.append(line)
        assert decode_terminal_qr(qr) == url
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", url.split(str(port))[1] + "/state")
        response = conn.getresponse()
        state = json.loads(response.read())
        assert response.status == 200 and state["table"]["game"] == "icefloe"
        assert response.getheader("Server") == "icetable"
        assert (data / "icetable.sqlite3").exists()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_serve_refuses_bad_options_in_one_line(tmp_path, capsys):
    assert main(["serve", "--port", "70000", "--data-dir", str(tmp_path)]) == 2
    assert "--port 70000" in capsys.readouterr().err
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["serve", "--port", "0", "--data-dir", str(blocker / "sub")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--data-dir" in err
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = taken.getsockname()[1]
        assert main(["serve", "--bind", "127.0.0.1", "--port", str(busy), "--data-dir", str(tmp_path)]) == 2
        assert "cannot listen" in capsys.readouterr().err


def test_live_and_demo_on_a_taken_port_store_no_table(tmp_path, capsys, repo_root):
    """A start that cannot listen exits in one line before it opens a table in the store."""
    import sqlite3
    calibration = next((repo_root / "sample_images" / "icehouse").glob("*calibration*.json"))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = str(taken.getsockname()[1])
        for args in (["live", "--game", "icehouse", "--calibration", str(calibration), "--camera", "7"],
                     ["demo"]):
            data = tmp_path / args[0]
            assert main(args + ["--host", "127.0.0.1", "--port", busy, "--data-dir", str(data)]) == 2
            err = capsys.readouterr().err
            assert err.count("\n") == 1 and "cannot listen" in err
            with sqlite3.connect(data / "icetable.sqlite3") as db:
                assert db.execute("SELECT COUNT(*) FROM tables").fetchone()[0] == 0
