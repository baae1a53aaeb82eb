"""``python -m handbook engine-diff``: the subcommand hands its arguments to handbook.engine.diff.main."""

from __future__ import annotations

import json
from pathlib import Path

from handbook.cli import main
from handbook.engine import diff

FIXTURES = Path(__file__).parent / "fixtures" / "engine"
OLD, NEW = str(FIXTURES / "old.json"), str(FIXTURES / "new.json")


def test_markdown_report_is_the_diff_modules(capsys):
    assert diff.main([OLD, NEW]) == 0
    direct = capsys.readouterr().out
    assert main(["engine-diff", OLD, NEW]) == 0
    assert capsys.readouterr().out == direct
    assert direct.startswith("# SGLang ")


def test_options_pass_through_in_any_order(tmp_path, capsys):
    out = tmp_path / "diff.json"
    assert main(["engine-diff", "--json", OLD, NEW, "--output", str(out)]) == 0
    assert capsys.readouterr().out == ""
    data = json.loads(out.read_text(encoding="utf-8"))
    expected = diff.diff_snapshots(diff.load_snapshot(path=Path(OLD)), diff.load_snapshot(path=Path(NEW)))
    assert data == json.loads(json.dumps(expected.to_dict()))


def test_a_bad_snapshot_exits_2(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    assert main(["engine-diff", str(bad), NEW]) == 2
    assert capsys.readouterr().err.startswith("✖ ")


def test_a_folder_or_non_utf8_file_is_a_clear_error_not_a_traceback(tmp_path, capsys):
    folder = tmp_path / "snapshots"
    folder.mkdir()
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe{}")
    new = str(Path(__file__).resolve().parents[1] / "kb" / "engine" / "sglang-0.5.23.json")
    assert main(["engine-diff", str(folder), new]) == 2
    assert capsys.readouterr().err == f"✖ {folder}: not a regular file, expected a JSON snapshot file\n"
    assert main(["engine-diff", str(binary), new]) == 2
    assert capsys.readouterr().err == (
        f"✖ {binary}: got bytes that are not UTF-8 (invalid start byte), expected a JSON snapshot\n"
    )
