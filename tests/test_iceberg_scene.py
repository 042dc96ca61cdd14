"""Iceberg from the camera: tiles on the grid, coins on quarters, stranded tiles, the winner."""
import json
import subprocess
import sys
from dataclasses import replace

from referee.evaluate import evaluate
from referee.iceberg import IcebergMatch
from referee.iceberg.board import donut
from referee.scene import write_scene

TWO = ["suns", "moons"]


def table(coins, **kwargs):
    return IcebergMatch.from_position(TWO, coins, **kwargs).scene()


def test_status_gives_cells_faces_and_coin_squares():
    report = evaluate(table({"suns": [[0, 0], [7, 3]], "moons": [[9, 9]]}, faces={"t31": ["arms", 2]}))
    tiles, coins = report.status["tiles"], report.status["coins"]
    assert len(tiles) == 24 and report.warnings == []
    assert tiles["t31"] == {"cell": [3, 1], "face": "up", "stranded": False, "suit": "arms", "rank": 2}
    assert tiles["t00"] == {"cell": [0, 0], "face": "down", "stranded": False}
    assert coins["suns-2"] == {"square": [7, 3], "suit": "suns"}
    assert report.status["winner"] is None
    assert report.scores == {"moons": 6, "suns": 6}           # state.hands + coins on the iceberg


def test_coins_snap_to_quarters_when_a_little_off_and_the_camera_is_turned():
    scene = table({"suns": [[2, 5]], "moons": [[9, 9]]})
    shifted = replace(scene, pieces=tuple(replace(p, x=p.y * 0.07 + p.x + 3, y=p.y - p.x * 0.07 - 2)
                                          for p in scene.pieces), state={"players": TWO})
    coins = evaluate(shifted).status["coins"]
    assert coins["suns-1"]["square"] == [2, 5] and coins["moons-1"]["square"] == [9, 9]


def test_stranded_tiles_are_warned_about():
    removed = ("t01", "t10")
    scene = table({"suns": [[0, 0]], "moons": [[9, 9]]}, removed=removed)
    report = evaluate(scene)
    assert report.codes() == ["stranded_tile"] and report.warnings[0].pieces == ("t00",)
    assert report.status["tiles"]["t00"]["stranded"] is True
    assert report.scores["suns"] == 5                          # the stranded coin is lost
    assert evaluate(scene, options={"connect": "diagonal"}).codes() == []


def test_coin_on_no_tile_is_in_the_water():
    scene = table({"suns": [[4, 3]], "moons": [[9, 9]]})
    coin = scene.by_id()["suns-1"]
    report = evaluate(replace(scene, pieces=tuple(replace(p, y=p.y + 25.4) if p is coin else p
                                                  for p in scene.pieces)))
    assert report.codes() == ["coin_in_water"] and report.warnings[0].suit == "suns"


def test_winner_when_one_tile_is_left_holding_one_suit():
    removed = tuple(t for t in donut().tiles if t != "t43")
    report = evaluate(table({"suns": [[8, 6], [9, 7]]}, removed=removed))
    assert report.status["winner"] == "suns"


def test_check_command_reads_an_iceberg_scene(tmp_path):
    path = tmp_path / "berg.json"
    write_scene(table({"suns": [[0, 0]], "moons": [[9, 9]]}), path)
    result = subprocess.run([sys.executable, "-m", "icetable", "check", str(path)], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["status"]["coins"]["moons-1"]["square"] == [9, 9]
