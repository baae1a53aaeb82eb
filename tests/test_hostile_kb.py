"""Hostile and broken KB files, generated: whatever a contributor's pull request holds, `validate` answers
with exit 1 and ``file:line`` messages (or 0 when the mutation happens to keep the KB valid), never a
traceback, within 5 s and well under 1 GiB, and never echoes a file that is not KB text."""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import tempfile
import time
import tracemalloc
from pathlib import Path

import pytest
from exhaustive import sized
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from handbook.cli import main

pytestmark = pytest.mark.slow  # out of nox -s unit: fuzzing: each case validates a KB with its memory traced

MINI = Path(__file__).parent / "fixtures" / "kb-mini"
FILES = sorted(p.relative_to(MINI).as_posix() for p in MINI.rglob("*.yaml"))
LOCATED = re.compile(r"^\S+:\d+: ")  # file:line: …
SUMMARY = re.compile(r"^✖ \d+ problem\(s\) in the knowledge base\.$")
SECRET = "root:x:0:0"  # what /etc/passwd starts with: must never be echoed

# The suite runs the same cases every time: 40 random edits, and every hostile snippet and every kind of
# non-file at 3 and 6 places each (each case costs about 0.3 s: the memory is traced); `nox -s exhaustive`
# runs 100 per property, and HANDBOOK_FUZZ_EXAMPLES=5000 that many new ones.
FUZZ = os.environ.get("HANDBOOK_FUZZ_EXAMPLES")


def fuzzed(sample: int, full: int = 100) -> settings:
    return settings(
        max_examples=int(FUZZ or sized(sample, full)),
        deadline=None,  # timed below, with the limit the hardening issue sets
        derandomize=FUZZ is None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow],
    )


HOSTILE_SNIPPETS = [
    "x: &a [1, 2]\ny: *a\n",  # anchors and aliases
    'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n'
    "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n",  # billion laughs
    "x: !!python/object/apply:os.system ['echo pwned']\n",
    "x: !!python/name:os.system\n",
    "x: !custom {a: 1}\n",
    "<<: {a: 1}\n",
    "id: dup\nid: dup\n",
    "checked: 2026-02-30\n",
    "x: .inf\n",
    "x: 1e308\n",
    "\tx: 1\n",
    "x: [" * 5000 + "]" * 5000 + "\n",
    "x: " + "[" * 100_000 + "]" * 100_000 + "\n",
    "x: '" + "a" * 600_000 + "'\n",
    "--- \na: 1\n--- \nb: 2\n",
    "? [a, b]\n: c\n",
]


def validate(root: Path) -> tuple[int, str, float, int]:
    """Run `python -m handbook validate --kb root` in-process: exit status, stderr+stdout, seconds, peak bytes."""
    out = io.StringIO()
    tracemalloc.start()
    started = time.monotonic()
    try:
        with contextlib.redirect_stderr(out), contextlib.redirect_stdout(out):
            status = main(["validate", "--kb", str(root)])
    finally:
        elapsed = time.monotonic() - started
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return status, out.getvalue(), elapsed, peak


def assert_answered(status: int, output: str, elapsed: float, peak: int) -> None:
    assert "Traceback" not in output
    assert SECRET not in output
    assert elapsed < 5, f"took {elapsed:.1f} s"
    assert peak < 1 << 30, f"peak {peak / 2**20:.0f} MiB"
    assert status in (0, 1), output
    if status == 1:
        lines = output.strip().splitlines()
        assert SUMMARY.match(lines[-1]), lines[-1]
        assert lines[:-1] and all(LOCATED.match(line) for line in lines[:-1]), output


def copy_of_mini() -> Path:
    root = Path(tempfile.mkdtemp(prefix="hostile-kb-")) / "kb"
    shutil.copytree(MINI, root)
    return root


@fuzzed(40)
@given(
    file=st.sampled_from(FILES),
    where=st.floats(0, 1),
    length=st.integers(0, 40),
    junk=st.binary(min_size=0, max_size=40),
)
def test_random_bytes_anywhere_in_a_kb_file(file, where, length, junk):
    root = copy_of_mini()
    try:
        path = root / file
        data = path.read_bytes()
        at = int(where * len(data))
        path.write_bytes(data[:at] + junk + data[at + length :])
        assert_answered(*validate(root))
    finally:
        shutil.rmtree(root.parent)


@pytest.mark.parametrize("snippet", HOSTILE_SNIPPETS, ids=range(len(HOSTILE_SNIPPETS)))
@fuzzed(3, 7)
@given(file=st.sampled_from(FILES), line=st.integers(0, 60))
def test_hostile_yaml_inserted_at_any_line(file, line, snippet):
    """Every snippet, each at 3 places (7 in `nox -s exhaustive`; before, 100 draws over all snippets)."""
    root = copy_of_mini()
    try:
        path = root / file
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        at = min(line, len(lines))
        path.write_text("".join(lines[:at]) + snippet + "".join(lines[at:]), encoding="utf-8")
        status, output, elapsed, peak = validate(root)
        assert_answered(status, output, elapsed, peak)
        assert status == 1  # every snippet is something the KB refuses
    finally:
        shutil.rmtree(root.parent)


@pytest.mark.parametrize("what", ["passwd", "dev-zero", "dev-urandom", "fifo", "folder", "dangling", "loop"])
@fuzzed(6, 21)
@given(file=st.sampled_from(FILES))
def test_a_kb_file_that_is_not_a_regular_file(file, what):
    """Every kind of non-file, each in place of 6 of the KB's files (every file, 21, in `nox -s
    exhaustive`; before, 100 draws over files × kinds)."""
    root = copy_of_mini()
    try:
        path = root / file
        path.unlink()
        if what == "passwd":
            path.symlink_to("/etc/passwd")
        elif what == "dev-zero":
            path.symlink_to("/dev/zero")
        elif what == "dev-urandom":
            path.symlink_to("/dev/urandom")
        elif what == "fifo":
            os.mkfifo(path)
        elif what == "folder":
            path.mkdir()
        elif what == "dangling":
            path.symlink_to(root / "no-such-file.yaml")
        else:
            path.symlink_to(path)
        status, output, elapsed, peak = validate(root)
        assert_answered(status, output, elapsed, peak)
        assert status == 1 and f"{file}:1: " in output
    finally:
        shutil.rmtree(root.parent)


def test_a_folder_of_the_kb_that_links_outside_reads_nothing_there(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "gpu-b.yaml").write_text("id: gpu-b\nsecret: " + SECRET + "\n", encoding="utf-8")
    root = copy_of_mini()
    try:
        shutil.rmtree(root / "hardware")
        (root / "hardware").symlink_to(outside)
        status, output, elapsed, peak = validate(root)
        assert_answered(status, output, elapsed, peak)
        assert "hardware/gpu-b.yaml:1: got a path that leads out of the KB folder" in output
    finally:
        shutil.rmtree(root.parent)
