"""`icetable mat`, run as a user runs it: the pages go into a folder; a file there that an
earlier `icetable mat` did not write is not replaced unless --force, and --out that is a file is
refused, each in one line naming the file."""
from __future__ import annotations

import cv2

from tests.cli_helpers import one_line, process, snapshot


def test_an_unrelated_file_in_the_folder_is_not_overwritten_unless_forced(tmp_path):
    out = tmp_path / "mat"
    out.mkdir()
    (out / "mat-a4.pdf").write_text("my own A4 notes\n")
    before = snapshot(tmp_path)
    result = process("mat", "--kind", "a4", "--dpi", "72", "-o", out)
    assert result.returncode == 2 and result.stdout == ""
    assert "not written by icetable" in one_line(result.stderr, "mat-a4.pdf", "--force")
    assert snapshot(tmp_path) == before        # nothing written, not even the PNG beside it
    result = process("mat", "--kind", "a4", "--dpi", "72", "-o", out, "--force")
    assert result.returncode == 0, result.stderr
    assert (out / "mat-a4.pdf").read_bytes().startswith(b"%PDF")


def test_an_earlier_mat_is_replaced(tmp_path):
    out = tmp_path / "mat"
    assert process("mat", "--kind", "cards", "--dpi", "72", "-o", out).returncode == 0
    width = cv2.imread(str(out / "card0.png")).shape[1]
    result = process("mat", "--kind", "cards", "--dpi", "144", "-o", out)
    assert result.returncode == 0 and result.stderr == ""
    assert len(result.stdout.split()) == 10        # four cards and their sheet, PNG and PDF
    assert cv2.imread(str(out / "card0.png")).shape[1] == 2 * width      # replaced, at twice the dpi


def test_out_naming_a_file_is_refused_and_the_file_kept(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("keep me\n")
    for extra in ([], ["--force"]):
        result = process("mat", "--kind", "a4", "-o", notes, *extra)
        assert result.returncode == 2 and "is a file" in one_line(result.stderr, "notes.txt")
        assert notes.read_text() == "keep me\n"
