"""The repository's own configuration: GitHub workflows, pre-commit, the dependency lock, CONTRIBUTING."""

from __future__ import annotations

import ast
import json
import re
import shlex
from pathlib import Path

import pytest
import yaml

from handbook.cli import SUBCOMMANDS, build_parser

REPO = Path(__file__).resolve().parents[1]
WORKFLOWS = REPO / ".github" / "workflows"


def load_yaml(path: Path) -> dict:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict), path
    return data


def triggers(workflow: dict) -> dict:
    # YAML 1.1 (PyYAML) reads the bare key `on` as the boolean true
    return workflow.get("on", workflow.get(True))


def run_lines(workflow: dict) -> list[str]:
    return [step["run"] for job in workflow["jobs"].values() for step in job["steps"] if "run" in step]


def uses(workflow: dict) -> list[str]:
    return [step["uses"] for job in workflow["jobs"].values() for step in job["steps"] if "uses" in step]


def nox_sessions(text: str) -> list[str]:
    """The sessions a script or a document runs, in order: ``nox -s NAME``."""
    return re.findall(r"\bnox -s ([\w-]+)", text)


def defined_sessions() -> set[str]:
    """Session names in noxfile.py: @nox.session functions, or their name= when given."""
    tree = ast.parse((REPO / "noxfile.py").read_text(encoding="utf-8"))
    names = set()
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        for deco in node.decorator_list:
            call = deco if isinstance(deco, ast.Call) else None
            target = call.func if call else deco
            if isinstance(target, ast.Attribute) and target.attr == "session":
                given = [k.value.value for k in (call.keywords if call else []) if k.arg == "name"]
                names.add(given[0] if given else node.name)
    return names


def readme_quick_start_sessions() -> list[str]:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```bash\n(.*?)```", section, re.S).group(1)
    return nox_sessions(block)


# ------------------------------------------------------------------------------------------------ workflows
def test_workflows_are_valid_yaml_with_jobs():
    names = sorted(p.name for p in WORKFLOWS.glob("*.yml"))
    assert names == ["pages.yml", "tests.yml"]
    for path in WORKFLOWS.glob("*.yml"):
        workflow = load_yaml(path)
        assert workflow["name"] and triggers(workflow) and workflow["jobs"], path.name
        for job in workflow["jobs"].values():
            assert job["runs-on"] and job["steps"], path.name


def test_tests_workflow_runs_ci_on_pull_requests_and_pushes():
    workflow = load_yaml(WORKFLOWS / "tests.yml")
    assert set(triggers(workflow)) == {"pull_request", "push"}
    assert run_lines(workflow) == ["bash .ci/run"]
    assert workflow["permissions"] == {"contents": "read"}


def test_pages_workflow_builds_and_deploys_site_from_main():
    workflow = load_yaml(WORKFLOWS / "pages.yml")
    assert triggers(workflow)["push"] == {"branches": ["main"]}
    build, deploy = workflow["jobs"]["build"], workflow["jobs"]["deploy"]
    assert nox_sessions("\n".join(run_lines(workflow))) == ["build"]
    upload = next(s for s in build["steps"] if s.get("uses", "").startswith("actions/upload-pages-artifact@"))
    assert upload["with"] == {"path": "site"}
    assert deploy["needs"] == "build"
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert deploy["environment"]["name"] == "github-pages"
    assert [u.split("@")[0] for u in uses(workflow)] == [
        "actions/checkout", "actions/configure-pages", "actions/upload-pages-artifact", "actions/deploy-pages",
    ]  # fmt: skip


def test_workflows_call_the_readme_quick_start_sessions():
    quick_start = readme_quick_start_sessions()
    assert quick_start == ["build", "tests"]
    ci_script = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    called = {
        "tests.yml": nox_sessions(ci_script),  # tests.yml runs .ci/run
        "pages.yml": nox_sessions("\n".join(run_lines(load_yaml(WORKFLOWS / "pages.yml")))),
    }
    assert "tests" in called["tests.yml"] and called["pages.yml"] == ["build"]
    assert set(quick_start) <= set(called["tests.yml"]) | set(called["pages.yml"])
    assert set(called["tests.yml"]) | set(called["pages.yml"]) <= defined_sessions()


# ------------------------------------------------------------------------------------------------ pre-commit
def test_pre_commit_config_runs_the_project_checks():
    config = load_yaml(REPO / ".pre-commit-config.yaml")
    hooks = [hook for repo in config["repos"] for hook in repo["hooks"]]
    for hook in hooks:
        assert {"id", "name", "entry", "language"} <= set(hook), hook
    entries = [hook["entry"] for hook in hooks]
    assert any(e.startswith("ruff check") for e in entries)
    assert any(e.startswith("ruff format") for e in entries)
    assert "python -m handbook validate" in entries
    assert "python -m handbook generate --check" in entries
    # every handbook subcommand a hook runs exists
    for entry in entries:
        if entry.startswith("python -m handbook "):
            assert entry.split()[3] in SUBCOMMANDS, entry


def test_pull_request_template_has_the_checklist():
    text = (REPO / ".github" / "pull_request_template.md").read_text(encoding="utf-8")
    items = re.findall(r"^- \[ \] \*\*(.+?)\*\*", text, re.M)
    assert items == ["Both languages", "Sources", "Validate", "Generated files", "Tests"]


# ------------------------------------------------------------------------------------------------ the lock
def _name(requirement: str) -> str:
    return re.sub(r"[-_.]+", "-", requirement.split("==")[0].split("[")[0].strip()).lower()


def test_every_dev_requirement_is_pinned_with_hashes_in_the_lock():
    wanted = {}
    for line in (REPO / "requirements" / "dev.in").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            wanted[_name(line)] = line.split("==")[1] if "==" in line else None
    lock = (REPO / "requirements" / "dev.lock").read_text(encoding="utf-8")
    pinned = {}
    for match in re.finditer(
        r"^([A-Za-z0-9][\w.-]*)==(\S+)((?:\s*\\\n\s+--hash=sha256:[0-9a-f]{64})+)", lock, re.M
    ):
        pinned[_name(match.group(1))] = match.group(2)
    assert wanted, "requirements/dev.in names no package"
    missing = sorted(name for name in wanted if name not in pinned)
    assert missing == [], f"not pinned with hashes in requirements/dev.lock: {missing}; run `nox -s lock`"
    differing = {n: (v, pinned[n]) for n, v in wanted.items() if v is not None and pinned[n] != v}
    assert differing == {}, "dev.in and dev.lock disagree; run `nox -s lock`"


def test_nox_installs_from_the_lock_with_hashes():
    noxfile = (REPO / "noxfile.py").read_text(encoding="utf-8")
    assert 'LOCK = "requirements/dev.lock"' in noxfile
    assert 'session.install("--require-hashes", "-r", LOCK)' in noxfile


# ------------------------------------------------------------------------------------------------ CONTRIBUTING
CONTRIBUTING = {"en": REPO / "CONTRIBUTING.md", "zh": REPO / "CONTRIBUTING.zh.md"}


def structure(text: str) -> tuple[list[int], list[str]]:
    """Heading levels in order, and the code blocks verbatim."""
    levels, blocks, fence, body = [], [], None, []
    for line in text.splitlines():
        stripped = line.strip()
        if fence is None and stripped.startswith("```"):
            fence, body = stripped[:3], []
        elif fence is not None and stripped == fence:
            blocks.append("\n".join(body))
            fence = None
        elif fence is not None:
            body.append(stripped)
        elif line.startswith("#"):
            levels.append(len(line) - len(line.lstrip("#")))
    return levels, blocks


def test_contributing_exists_in_both_languages_with_the_same_content():
    en, zh = (structure(CONTRIBUTING[lang].read_text(encoding="utf-8")) for lang in ("en", "zh"))
    assert en[0] == zh[0]  # the same sections, in the same order
    assert en[1] == zh[1]  # the same commands and examples
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "(CONTRIBUTING.md)" in readme and "(CONTRIBUTING.zh.md)" in readme


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_contributing_names_only_commands_that_exist(lang):
    text = CONTRIBUTING[lang].read_text(encoding="utf-8")
    assert set(nox_sessions(text)) <= defined_sessions()
    named = set(re.findall(r"python -m handbook ([a-z-]+)", text))
    assert {"new", "validate", "generate", "engine-diff"} <= named <= set(SUBCOMMANDS)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_contributing_commands_parse(lang):
    """Every `python -m handbook …` line in a bash block is accepted by the real parser."""
    text = CONTRIBUTING[lang].read_text(encoding="utf-8")
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        for line in block.splitlines():
            if line.startswith("python -m handbook "):
                words = shlex.split(line.split("  #", 1)[0])[3:]
                args = build_parser(words[0]).parse_args(words)
                assert args.run, line


# ------------------------------------------------------------------------------------------------ supply chain
def test_every_action_is_pinned_by_commit_with_its_tag_in_a_comment():
    for path in WORKFLOWS.glob("*.yml"):
        lines = [line for line in path.read_text(encoding="utf-8").splitlines() if "uses:" in line]
        assert lines, path.name
        for line in lines:
            assert re.search(r"uses: [\w./-]+@[0-9a-f]{40}  # v\d+(\.\d+)*$", line), (
                f"{path.name}: {line.strip()}"
            )


def test_every_install_is_hash_checked():
    scripts = [(REPO / ".ci" / "run").read_text(encoding="utf-8")] + [
        "\n".join(run_lines(load_yaml(path))) for path in WORKFLOWS.glob("*.yml")
    ]
    installs = [line for text in scripts for line in text.splitlines() if "pip install" in line]
    assert installs
    for line in installs:
        assert "--require-hashes -r requirements/ci.lock" in line, line
    noxfile = (REPO / "noxfile.py").read_text(encoding="utf-8")
    assert 'session.install("--no-deps", "--no-build-isolation", "-e", ".")' in noxfile


def test_the_build_backend_is_the_locked_one():
    """pip builds the package without isolation, so the backend must come from the hash-pinned lock."""
    import tomllib

    requires = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["build-system"][
        "requires"
    ]
    lock = (REPO / "requirements" / "dev.lock").read_text(encoding="utf-8")
    for requirement in requires:
        assert re.fullmatch(r"[\w-]+==[\w.]+", requirement), requirement
        assert re.search(rf"^{re.escape(requirement)} \\\n\s+--hash=sha256:", lock, re.M), requirement


def _pins(path: Path) -> dict[str, str | None]:
    """A requirements source's pins (name → version), following its ``-r`` includes."""
    wanted: dict[str, str | None] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line.startswith("-r "):
            wanted.update(_pins(path.parent / line[3:].strip()))
        elif line:
            wanted[_name(line)] = line.split("==")[1] if "==" in line else None
    return wanted


LOCK_SOURCES = sorted((REPO / "requirements").glob("*.in"))


@pytest.mark.parametrize("source", LOCK_SOURCES, ids=[p.name for p in LOCK_SOURCES])
def test_every_requirement_source_is_locked_with_hashes_at_its_pins(source):
    lock = source.with_suffix(".lock")
    if source.name == "engine.in":  # included by the two engine-transformers-*.in, locked with each
        return
    assert lock.is_file(), f"{lock.name} is missing; run `nox -s lock`"
    text = lock.read_text(encoding="utf-8")
    pinned = {
        _name(m.group(1)): m.group(2)
        for m in re.finditer(
            r"^([A-Za-z0-9][\w.-]*)==(\S+)((?:\s*\\\n\s+--hash=sha256:[0-9a-f]{64})+)", text, re.M
        )
    }
    unhashed = re.findall(r"^([A-Za-z0-9][\w.-]*)==\S+\s*$", text, re.M)
    assert unhashed == [], f"{lock.name}: pinned without a hash"
    wanted = _pins(source)
    assert sorted(n for n in wanted if n not in pinned) == [], f"{lock.name} lacks pins; run `nox -s lock`"
    assert {n: (v, pinned[n]) for n, v in wanted.items() if v and pinned[n] != v} == {}, lock.name


def test_the_engine_sessions_install_only_hash_checked_files():
    """Every session.install of the engine sessions is a hash-pinned lock or a wheel whose hash was checked
    when it was downloaded; every download of an engine wheel the history knows is hash-checked."""
    import ast

    noxfile = (REPO / "noxfile.py").read_text(encoding="utf-8")
    tree = ast.parse(noxfile)
    engine = {"engine_snapshot", "engine_sizing", "_install_engine_imports", "_download_wheels"}
    installs = []
    for function in (n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in engine):
        for call in (n for n in ast.walk(function) if isinstance(n, ast.Call)):
            if isinstance(call.func, ast.Attribute) and call.func.attr == "install":
                installs.append((function.name, [ast.unparse(a) for a in call.args]))
    assert installs
    for name, args in installs:
        hashed = args[:2] == ["'--require-hashes'", "'-r'"]
        checked_wheels = args[:2] == ["'--no-deps'", "'--force-reinstall'"] and all(
            not a.startswith("'") for a in args[2:]
        )  # wheel files from _download_wheels
        assert hashed or checked_wheels, (name, args)
    assert '"--require-hashes", "-r", str(checked)' in noxfile


def test_the_history_gives_each_snapshotted_wheel_its_recorded_hash():
    import json

    from handbook.engine.history import wheel_requirements

    data = json.loads((REPO / "kb" / "engine" / "sglang-history.json").read_text(encoding="utf-8"))
    own = json.loads((REPO / "kb" / "engine" / "sglang-0.5.23.json").read_text(encoding="utf-8"))
    lines = wheel_requirements(data, ["0.5.23", "9.9.9"])
    expected = sorted(
        f"{w['filename'].split('-')[0].replace('_', '-')}=={w['filename'].split('-')[1]} --hash=sha256:{w['sha256']}"
        for w in own["wheels"]
    )
    assert lines == expected and len(lines) == 2  # the release unknown to the history gives nothing


def test_the_job_container_is_pinned_by_digest_or_says_why_not():
    for path in WORKFLOWS.glob("*.yml"):
        lines = path.read_text(encoding="utf-8").splitlines()
        for i, line in enumerate(lines):
            if line.strip().startswith("container:") and "@sha256:" not in line:
                above = "\n".join(lines[max(0, i - 4) : i])
                assert "digest" in above and "cannot reach" in above, f"{path.name}: {line.strip()}"


def test_the_javascript_linter_is_pinned_exactly_and_run_by_the_lint_session():
    package = json.loads((REPO / "package.json").read_text(encoding="utf-8"))
    lock = json.loads((REPO / "package-lock.json").read_text(encoding="utf-8"))
    version = package["devDependencies"]["@biomejs/biome"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", version), f"not an exact version: {version}"
    assert lock["packages"][""]["devDependencies"] == package["devDependencies"]
    assert lock["packages"]["node_modules/@biomejs/biome"]["version"] == version
    assert "/node_modules/" in (REPO / ".gitignore").read_text(encoding="utf-8").splitlines()
    noxfile = (REPO / "noxfile.py").read_text(encoding="utf-8")
    lint = next(n for n in ast.parse(noxfile).body if isinstance(n, ast.FunctionDef) and n.name == "lint")
    calls = [
        [a.value for a in call.args if isinstance(a, ast.Constant)]
        for call in ast.walk(lint)
        if isinstance(call, ast.Call) and getattr(call.func, "attr", None) == "run"
    ]
    assert calls[-2][:2] == ["npm", "ci"]  # exactly the locked tree, into node_modules/
    assert calls[-1] == ["node_modules/.bin/biome", "lint", "--error-on-warnings", "."]
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert "command -v npm >/dev/null || need+=(npm)" in ci and "nox -s lint" in ci.splitlines()
