"""Nothing lost: a build replaces only an empty folder or a previous build; every write goes through
core/files.py (staged, renamed whole, never through a link, never outside its root, never creating a folder
a person named); no other module of the package writes a file. Generated cases: random trees of files,
folders and planted links, and random writes into them."""

from __future__ import annotations

import ast
import contextlib
import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from handbook.cli import main
from handbook.core.files import WriteRefused, remove, write_text
from handbook.site.build import BUILD_MARKER, STAGING_PREFIX, refusal, remove_orphaned_staging

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "handbook"
PROPERTY = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def build(site_dir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "handbook", "build", "--site-dir", str(site_dir)],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )


# ------------------------------------------------------------------------------------------ the build
def test_a_build_into_a_folder_holding_an_unrelated_file_is_refused_and_the_file_is_still_there(tmp_path):
    site = tmp_path / "docs"
    site.mkdir()
    (site / "notes.md").write_text("uncommitted work\n", encoding="utf-8")
    done = build(site)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"✖ {site} holds files that no build of the handbook wrote (it has no {BUILD_MARKER}); a build "
        "replaces only an empty folder or a previous build, so give a new or empty --site-dir; nothing was "
        "written."
    ]
    assert [p.name for p in site.iterdir()] == ["notes.md"]
    assert (site / "notes.md").read_text(encoding="utf-8") == "uncommitted work\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs"]  # no staging folder either


@pytest.mark.parametrize("case", ["link", "file", "marker-link", "missing-parent", "docs"])
def test_what_a_build_may_not_replace_is_refused_before_anything_is_written(tmp_path, case):
    target = tmp_path / "site"
    if case == "link":
        (tmp_path / "real").mkdir()
        (tmp_path / "real" / "keep.txt").write_text("x")
        target.symlink_to(tmp_path / "real")
    elif case == "file":
        target.write_text("x")
    elif case == "marker-link":
        target.mkdir()
        (tmp_path / "elsewhere").write_text("x")
        (target / BUILD_MARKER).symlink_to(tmp_path / "elsewhere")
        (target / "keep.txt").write_text("x")
    elif case == "missing-parent":
        target = tmp_path / "no" / "such" / "site"
    else:
        target = REPO / "docs"
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    done = build(target)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert sorted(str(p) for p in tmp_path.rglob("*")) == before


def test_an_empty_folder_a_missing_one_and_a_previous_build_may_be_replaced(tmp_path):
    assert refusal(tmp_path / "missing") is None
    (tmp_path / "empty").mkdir()
    assert refusal(tmp_path / "empty") is None
    previous = tmp_path / "previous"
    previous.mkdir()
    (previous / BUILD_MARKER).write_text("a build")
    (previous / "index.html").write_text("old")
    assert refusal(previous) is None


def test_the_built_site_carries_its_marker(built_site):
    assert (built_site / BUILD_MARKER).is_file()
    assert "python -m handbook build" in (built_site / BUILD_MARKER).read_text(encoding="utf-8")


def test_a_dead_builds_folder_is_removed_only_when_it_is_a_build_or_empty(tmp_path):
    dead = 2**22 + 12345  # above Linux's default pid_max: no live process has it
    ours = tmp_path / f"{STAGING_PREFIX}{dead}-abc"
    ours.mkdir()
    (ours / BUILD_MARKER).write_text("a build")
    empty = tmp_path / f"{STAGING_PREFIX}{dead}-def"
    empty.mkdir()
    someone = tmp_path / f"{STAGING_PREFIX}{dead}-ghi"
    someone.mkdir()
    (someone / "thesis.tex").write_text("not a build")
    assert sorted(remove_orphaned_staging(tmp_path)) == sorted([ours, empty])
    assert (someone / "thesis.tex").read_text() == "not a build"


# ------------------------------------------------------------------------------------------ the one writer
names = st.sampled_from(["a", "b", "c.txt", ".hidden", "d.json"])


@st.composite
def trees(draw: st.DrawFn) -> list[tuple[str, str]]:
    """(path below the root, what is there): a file, a folder, or a link to the outside."""
    entries = []
    for _ in range(draw(st.integers(0, 6))):
        depth = draw(st.integers(1, 3))
        path = "/".join(draw(names) for _ in range(depth))
        entries.append((path, draw(st.sampled_from(["file", "folder", "link-out", "link-out-folder"]))))
    return entries


@pytest.mark.slow
@PROPERTY
@given(trees(), st.lists(names, min_size=1, max_size=3).map("/".join), st.booleans(), st.booleans())
def test_no_write_ever_changes_anything_outside_its_root(tree, target, new, folders):
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        root, outside = base / "root", base / "outside"
        root.mkdir()
        outside.mkdir()
        (outside / "secret.txt").write_text("keep")
        for rel, kind in tree:
            path = root / rel
            if any(parent.is_symlink() for parent in path.parents):
                continue  # the setup itself must not write through a link it planted
            with contextlib.suppress(OSError):
                path.parent.mkdir(parents=True, exist_ok=True)
                if kind == "file":
                    path.write_text("old")
                elif kind == "folder":
                    path.mkdir()
                elif kind == "link-out":
                    path.symlink_to(outside / "secret.txt")
                else:
                    path.symlink_to(outside)
        before = {p: p.read_bytes() for p in outside.rglob("*") if p.is_file()}
        try:
            write_text(root / target, "new", root=root, new=new, folders=folders)
            written = True
        except WriteRefused:
            written = False
        assert {p: p.read_bytes() for p in outside.rglob("*") if p.is_file()} == before
        assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
        if written:
            assert (root / target).read_text() == "new" and not (root / target).is_symlink()
        assert not [p for p in root.rglob("*.new")], "a staging file was left behind"


def test_a_link_planted_at_the_old_staging_name_is_never_followed(tmp_path):
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "pitfalls.yaml").write_text("old\n")
    secret = tmp_path / "secret.txt"
    secret.write_text("keep")
    (kb / f".pitfalls.yaml.{os.getpid()}.new").symlink_to(secret)  # where the scaffolder used to stage
    write_text(kb / "pitfalls.yaml", "new\n", root=kb)
    assert secret.read_text() == "keep" and (kb / "pitfalls.yaml").read_text() == "new\n"


def test_a_new_file_never_replaces_one_and_a_folder_a_person_named_is_never_created(tmp_path):
    (tmp_path / "x.yaml").write_text("mine")
    with pytest.raises(WriteRefused, match="exists already"):
        write_text(tmp_path / "x.yaml", "theirs", root=tmp_path, new=True)
    assert (tmp_path / "x.yaml").read_text() == "mine"
    with pytest.raises(WriteRefused, match="no such folder"):
        write_text(tmp_path / "missing" / "x.yaml", "y", root=tmp_path)
    with pytest.raises(WriteRefused, match="no such folder"):
        write_text(tmp_path / "gone" / "x.yaml", "y", root=tmp_path / "gone")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.yaml"]
    with pytest.raises(WriteRefused, match="outside"):
        write_text(tmp_path / ".." / "escape.txt", "y", root=tmp_path)
    remove(tmp_path / "x.yaml", root=tmp_path)
    assert not (tmp_path / "x.yaml").exists()


def test_new_into_a_missing_kb_folder_is_refused_and_creates_nothing(tmp_path):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), pytest.raises(SystemExit) as stopped:
        main(["new", "model", "x", "--kv-formula", "gqa", "--kb", str(tmp_path / "no-kb")])
    assert stopped.value.code == 2
    assert err.getvalue().count("\n") == 1 and "no such folder; it is not created" in err.getvalue()
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------------------------------ one door
# Writes that stay in a temporary folder of their own: the stand-in config.json the engine reads in the
# oracles (their temporary model folders), the engine dump's output (nox -s engine-snapshot's temporary
# folder; dump.py runs in the engine's own environment, without the package's dependencies) and the
# benchmark's copy of the tree.
TEMPORARY = {
    "handbook/oracles/replay.py": 1,
    "handbook/oracles/sizing.py": 1,
    "handbook/oracles/recipes.py": 2,
    "handbook/engine/dump.py": 1,
    "handbook/site/bench.py": 2,  # the tree, and the build's caches into it
}
# Path's writing methods (called on an object), and the os and shutil functions that write or move files
PATH_WRITES = {"write_text", "write_bytes", "mkdir", "rename", "symlink_to", "hardlink_to", "touch"}
MODULE_WRITES = {
    "os": {"replace", "rename", "renames", "mkdir", "makedirs", "symlink", "link"},
    "shutil": {"copy", "copy2", "copyfile", "copytree", "move"},
}


def _writes(path: Path) -> list[str]:
    """Calls that write a file outside core/files.py (str.replace is not told apart from Path.replace, so
    that one is not looked for)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute):
            owner = func.value.id if isinstance(func.value, ast.Name) else None
            if owner in MODULE_WRITES:
                if func.attr in MODULE_WRITES[owner]:
                    found.append(f"{owner}.{func.attr} (line {node.lineno})")
            elif func.attr in PATH_WRITES:
                found.append(f".{func.attr} (line {node.lineno})")
        mode = (
            node.args[1] if isinstance(func, ast.Name) and func.id == "open" and len(node.args) > 1 else None
        )
        if isinstance(mode, ast.Constant) and any(m in str(mode.value) for m in "wxa+"):
            found.append(f"open (line {node.lineno})")
    return found


@pytest.mark.slow
def test_no_module_but_the_one_writer_writes_a_file():
    offenders = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        if rel in ("handbook/core/files.py", "handbook/site/build.py"):  # the writer; the build's swap
            continue
        found = _writes(path)
        if len(found) > TEMPORARY.get(rel, 0):
            offenders[rel] = found
    assert offenders == {}
    for rel, count in TEMPORARY.items():  # each exception is still needed, or it goes
        assert len(_writes(REPO / rel)) == count, rel


@pytest.fixture(autouse=True)
def _no_stray_site(tmp_path):
    yield
    shutil.rmtree(tmp_path, ignore_errors=True)


def test_a_stored_file_is_linked_into_place_whole_and_never_through_a_link(tmp_path):
    from handbook.core.files import link_file

    source = tmp_path / "store" / "kept"
    source.parent.mkdir()
    source.write_bytes(b"the export\n")
    site = tmp_path / "site"
    site.mkdir()
    link_file(site / "assets" / "x.json", source, root=site, folders=True)
    assert (site / "assets" / "x.json").read_bytes() == b"the export\n"
    link_file(site / "assets" / "x.json", source, root=site)  # replaces, leaving no staging file behind
    assert sorted(p.name for p in (site / "assets").iterdir()) == ["x.json"]
    (site / "planted").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(WriteRefused, match="a symbolic link; it is not written through"):
        link_file(site / "planted", source, root=site)
    assert not (tmp_path / "elsewhere").exists() and source.read_bytes() == b"the export\n"
