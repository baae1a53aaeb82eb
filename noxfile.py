"""Every task of the project is a nox session; the README, CI and the GitHub workflows call these."""

from __future__ import annotations

import json
import re
from pathlib import Path

import nox

nox.options.default_venv_backend = "venv"
nox.options.reuse_venv = "yes"
nox.options.sessions = ["lint", "tests"]

PYTHON = "3.11"
LOCK = "requirements/dev.lock"
CI_LOCK = "requirements/ci.lock"  # nox itself, for .ci/run and the workflows
QUIET_MKDOCS = {"NO_MKDOCS_2_WARNING": "1"}


def pinned_engine_version() -> str:
    """The SGLang release the handbook is pinned to: ``engine_version`` in kb/handbook.yaml (read as text:
    nox runs before the project's dependencies are installed)."""
    text = Path("kb/handbook.yaml").read_text(encoding="utf-8")
    match = re.search(r"^engine_version:\s*[\"']?([0-9.]+)", text, re.M)
    if match is None:
        raise SystemExit("kb/handbook.yaml has no engine_version")
    return match.group(1)


def install_project(session: nox.Session) -> None:
    """The locked toolchain (hash-checked), then the handbook package itself without dependencies, built
    with the locked setuptools (no build isolation: nothing unpinned is fetched to build it)."""
    session.install("--require-hashes", "-r", LOCK)
    session.install("--no-deps", "--no-build-isolation", "-e", ".")


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    install_project(session)
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("lint-imports")
    # the workflows' supply chain: actions pinned by commit, no credential persistence (zizmor.yml
    # explains each finding left)
    session.run("zizmor", "--offline", "--persona=auditor", "--config", "zizmor.yml", ".github/workflows")
    # the JavaScript (docs/assets/, tests/js/): Biome at the version package-lock.json pins, installed by
    # npm ci into node_modules/ (needs node and npm: apt-get install nodejs npm); biome.jsonc says why each
    # rule left off is off
    session.run("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error", external=True)
    session.run("node_modules/.bin/biome", "lint", "--error-on-warnings", ".", external=True)


@nox.session(python=PYTHON)
def validate(session: nox.Session) -> None:
    """Load the whole knowledge base and report every problem at once."""
    install_project(session)
    session.run("python", "-m", "handbook", "validate")


@nox.session(python=PYTHON)
def build(session: nox.Session) -> None:
    """Build the site into site/: strict (any warning fails), all-or-nothing."""
    install_project(session)
    session.run("python", "-m", "handbook", "build", *session.posargs, env=QUIET_MKDOCS)


@nox.session(python=PYTHON)
def generate(session: nox.Session) -> None:
    """Rewrite every committed generated file: kb/schema/, .vscode/settings.json and the diagrams' SVGs
    (the SVGs need graphviz: apt-get install graphviz fonts-wqy-microhei). ``-- --check`` only verifies."""
    install_project(session)
    session.run("python", "-m", "handbook", "generate", *session.posargs)


@nox.session(python=PYTHON)
def serve(session: nox.Session) -> None:
    """Live preview on http://127.0.0.1:8000/ (rebuilds when docs/ or kb/ change)."""
    install_project(session)
    session.run("mkdocs", "serve", "--strict", *session.posargs, env=QUIET_MKDOCS)


UNIT = "not site and not browser and not node and not build and not slow"  # tests/conftest.py: the markers


def _names_tests(posargs: list[str]) -> bool:
    """Whether the arguments pick test files or tests (``tests/test_x.py``, ``tests/test_x.py::test_y``)."""
    return any(Path(arg.split("::", 1)[0]).exists() for arg in posargs if not arg.startswith("-"))


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """Validate the KB, build the site strictly, then run every test against the code and the built site.

    ``nox -s tests -- tests/test_x.py`` (a file or a test) runs just that, without the validation and the
    up-front build: a test that needs the built site builds it once into a temporary folder (the
    ``built_site`` fixture), and a file that needs none runs at once."""
    install_project(session)
    if _names_tests(session.posargs):
        session.run("pytest", *session.posargs, env=QUIET_MKDOCS)
        return
    session.run("python", "-m", "handbook", "validate")
    session.run("python", "-m", "handbook", "generate", "--check")
    session.run("python", "-m", "handbook", "build", env=QUIET_MKDOCS)
    session.run("pytest", *session.posargs, env={**QUIET_MKDOCS, "HANDBOOK_SITE_DIR": "site"})


@nox.session(python=PYTHON)
def unit(session: nox.Session) -> None:
    """The fast loop: every test that needs no built site, no browser, no node and no build of its own, and
    is not marked slow (under two minutes). ``-- -k planner`` narrows it further."""
    install_project(session)
    session.run("pytest", "-q", "-m", UNIT, *session.posargs, env=QUIET_MKDOCS)


@nox.session(python=PYTHON)
def exhaustive(session: nox.Session) -> None:
    """The sampled tests in full (tests/exhaustive.py): the checker's 12,000 seeded variants in both
    runtimes, the planner page on every model × accelerator × dtype, every KB file replaced by every kind of
    non-file, the fuzzers at their full example counts. ``-- -k parity`` picks some. The site is built first
    (the browser runs need it)."""
    install_project(session)
    session.run("python", "-m", "handbook", "build", env=QUIET_MKDOCS)
    env = {**QUIET_MKDOCS, "HANDBOOK_SITE_DIR": "site", "HANDBOOK_EXHAUSTIVE": "1"}
    files = ["tests/test_doctor_parity.py", "tests/test_planner_browser.py", "tests/test_hostile_kb.py"]
    files += ["tests/test_cli_fuzz.py"]
    session.run("pytest", "-q", *files, *session.posargs, env=env)


@nox.session(python=PYTHON)
def bench(session: nox.Session) -> None:
    """The performance budget: cold and warm build, KB hooks' share, tests, site and page weight, search
    index. Prints pass/fail per target (a missed target never fails it) and records the figures in
    benchmarks/latest.json, which the benchmarks page renders. ``-- --record -`` records nothing."""
    install_project(session)
    session.run("python", "-m", "handbook", "bench", *session.posargs, env=QUIET_MKDOCS)


@nox.session(python=PYTHON)
def install(session: nox.Session) -> None:
    """The README's install line, run in a clean virtualenv from a clone of this repository (needs the
    package index; the test suite never does, so it skips this test unless asked)."""
    install_project(session)
    session.run("pytest", "tests/test_install.py", *session.posargs, env={"HANDBOOK_INSTALL_TEST": "1"})


@nox.session(name="links-external", python=PYTHON)
def links_external(session: nox.Session) -> None:
    """Build the site, then fetch every external link it holds (needs the network; the tests never do)."""
    install_project(session)
    session.run("python", "-m", "handbook", "build", env=QUIET_MKDOCS)
    session.run("python", "-m", "handbook", "links", "--check-external", *session.posargs)


@nox.session(python=PYTHON)
def lock(session: nox.Session) -> None:
    """Re-resolve requirements/*.in into their hash-pinned locks (the toolchain, and nox for CI)."""
    session.install("pip-tools==7.6.2")
    sources = [("requirements/dev.in", LOCK), ("requirements/ci.in", CI_LOCK)]
    sources += [(lock.replace(".lock", ".in"), lock) for lock in ENGINE_LOCKS.values()]
    for source, lock_file in sources:
        session.run(
            "pip-compile",
            "--quiet",
            "--generate-hashes",
            "--strip-extras",
            "--allow-unsafe",
            "--no-emit-index-url",
            "--no-emit-find-links",
            "--output-file",
            lock_file,
            source,
            env={"CUSTOM_COMPILE_COMMAND": "nox -s lock"},
        )


# What importing the engine's parsers needs, hash-pinned (requirements/engine.in says why each pin), one lock
# per transformers version: 0.5.11-0.5.19 register the 'qwen3_asr' config without exist_ok, which
# transformers 5.19.0 refuses (it ships qwen3_asr itself); 5.12.1, the pin of 0.5.15-0.5.21, does not. 0.5.10
# and 0.5.21 dump byte-identically under both, so the choice does not reach the snapshot.
ENGINE_LOCKS = {
    "5.12.1": "requirements/engine-transformers-5.12.lock",
    "5.19.0": "requirements/engine-transformers-5.19.lock",
}
ENGINE_HISTORY = "kb/engine/sglang-history.json"


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part.removeprefix("post")) for part in version.split("."))


def _transformers_for(version: str) -> str:
    return "5.19.0" if _version_key(version) >= (0, 5, 22) else "5.12.1"


def _install_engine_imports(session: nox.Session, version: str) -> None:
    """The lock for ``version``'s transformers, every file checked against its hash."""
    session.install("--require-hashes", "-r", ENGINE_LOCKS[_transformers_for(version)])


def _download_wheels(session: nox.Session, requirements: list[str], dest: Path) -> None:
    """Each wheel into ``dest``, one requirement per call (pip refuses two pins of one name in one command).
    A wheel the history records (every snapshotted release, and its router) must have the sha256 its
    snapshot was made from; a release not snapshotted yet is fetched as PyPI serves it, and this run's dump
    records its hash for every later run."""
    versions = [r.split("==", 1)[1] for r in requirements if r.startswith("sglang==")]
    recorded = session.run(
        "python", "handbook/engine/history.py", "wheels", ENGINE_HISTORY, *versions,
        silent=True, env={"PYTHONPATH": "."},
    )  # fmt: skip
    pinned = {line.split(" --hash=", 1)[0]: line for line in str(recorded or "").splitlines() if line}
    for requirement in requirements:
        options = ["--quiet", "--no-deps", "--only-binary=:all:", "--dest", str(dest)]
        if requirement in pinned:
            checked = dest.parent / "wheel-requirement.txt"
            checked.write_text(pinned[requirement] + "\n", encoding="utf-8")
            session.run("python", "-m", "pip", "download", *options, "--require-hashes", "-r", str(checked))
        else:
            session.warn(
                f"{requirement}: no recorded hash yet (a release not snapshotted): fetched unchecked"
            )
            session.run("python", "-m", "pip", "download", *options, requirement)


def _pinned_engine() -> str:
    """kb/handbook.yaml's engine_version (read without a YAML parser: nox's own environment has none)."""
    match = re.search(r"^engine_version:\s*(\S+)\s*$", Path("kb/handbook.yaml").read_text("utf-8"), re.M)
    if match is None:
        raise RuntimeError("kb/handbook.yaml has no engine_version")
    return match.group(1)


@nox.session(name="engine-snapshot", python="3.11")
def engine_snapshot(session: nox.Session) -> None:
    """Snapshot SGLang's real argument parsers and env-var registry, for every release in
    kb/engine/releases.json, into kb/engine/sglang-history.json (and the pinned release's own file).

    Usage: nox -s engine-snapshot                     every release of kb/engine/releases.json
           nox -s engine-snapshot -- 0.5.23 [0.3.2]   one release (SGLang, then sglang-router), merged in
    Installs each wheel without its dependencies (checked against the sha256 the history recorded for it;
    a release not snapshotted yet is fetched as PyPI serves it, and its hash recorded now), plus only what
    importing the parsers needs, hash-pinned (ENGINE_LOCKS; no GPU, no model download), runs
    handbook/engine/dump.py in this throwaway venv, then combines the dumps with
    handbook/engine/history.py, which checks that every release expands back byte for byte. A release
    whose dump is unchanged but for its date keeps its committed date. The pinned release is dumped last,
    so the venv ends with it installed: nox -s engine-replay runs there.
    """
    releases = json.loads(Path("kb/engine/releases.json").read_text("utf-8"))
    router_of = {r["version"]: releases["router"]["version"] for r in releases["releases"]}
    pinned = _pinned_engine()
    if session.posargs:
        versions = [session.posargs[0]]
        router = session.posargs[1] if len(session.posargs) > 1 else router_of.get(versions[0])
        if router is None:
            session.error(
                f"which sglang-router for sglang {versions[0]}? nox -s engine-snapshot -- {versions[0]} X.Y.Z"
            )
        router_of[versions[0]] = router
    else:
        versions = sorted(router_of, key=lambda v: (v == pinned, _version_key(v)))
    tmp = Path(session.create_tmp())
    wheel_dir, dump_dir = tmp / "engine-wheels", tmp / "engine-dumps"
    dump_dir.mkdir(exist_ok=True)
    for old in [*wheel_dir.glob("*.whl"), *dump_dir.glob("*.json")]:
        old.unlink()
    routers = sorted({f"sglang-router=={router_of[v]}" for v in versions})
    _download_wheels(session, routers + [f"sglang=={v}" for v in versions], wheel_dir)
    current = None
    for version in versions:
        if _transformers_for(version) != current:
            current = _transformers_for(version)
            _install_engine_imports(session, version)
        sglang = next(wheel_dir.glob(f"sglang-{version}-*.whl"))
        router = next(wheel_dir.glob(f"sglang_router-{router_of[version]}-*.whl"))
        session.install("--no-deps", "--force-reinstall", str(sglang), str(router))
        session.run(
            "python", "handbook/engine/dump.py", "--wheel", str(sglang), "--wheel", str(router),
            "--output", str(dump_dir / f"sglang-{version}.json"),
        )  # fmt: skip
    session.run(
        "python", "handbook/engine/history.py", "combine", "--engine-dir", "kb/engine", "--pinned", pinned,
        *sorted(str(p) for p in dump_dir.glob("*.json")),
        env={"PYTHONPATH": "."},  # it writes through handbook/core/files.py
    )  # fmt: skip


@nox.session(name="engine-corpus", python=False)
def engine_corpus(session: nox.Session) -> None:
    """Judge every command of the docs corpus (tests/fixtures/doc-corpus) with the real parsers of the pinned
    release, into tests/fixtures/doc-corpus/verdicts-<version>.json (handbook/oracles/corpus.py).

    Usage: nox -s engine-corpus   (offline: it runs in the virtualenv `nox -s engine-snapshot` built, which
    ends with the pinned release installed)
    """
    python = Path(".nox/engine-snapshot/bin/python")
    if not python.exists():
        session.error("run `nox -s engine-snapshot -- 0.5.23` first: the corpus is judged in its virtualenv")
    env = {"PYTHONPATH": "."}
    corpus = "tests/fixtures/doc-corpus"
    session.run(str(python), "-m", "handbook.oracles.corpus", "judge", corpus, external=True, env=env)


@nox.session(name="engine-rule-releases", python=PYTHON)
def engine_rule_releases(session: nox.Session) -> None:
    """Find, in the wheel of every release of kb/engine/releases.json, the releases each rule of
    kb/rules.yaml holds in (handbook/oracles/rule_releases.py), and compare them with the rules' `releases`.

    Usage: nox -s engine-rule-releases   (downloads the wheels and reads them as text: nothing of the
    engine is installed or run)
    """
    releases = json.loads(Path("kb/engine/releases.json").read_text("utf-8"))
    wheel_dir = Path(session.create_tmp()) / "engine-wheels"
    wheel_dir.mkdir(exist_ok=True)
    requirements = [f"sglang-router=={releases['router']['version']}"]
    requirements += [f"sglang=={r['version']}" for r in releases["releases"]]
    for requirement in requirements:  # one per call: pip refuses two pins of one name in one command
        session.run(
            "python", "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
            "--dest", str(wheel_dir), requirement,
        )  # fmt: skip
    install_project(session)
    session.run("python", "-m", "handbook.oracles.rule_releases", str(wheel_dir), env={"PYTHONPATH": "."})


@nox.session(name="engine-replay", python=False)
def engine_replay(session: nox.Session) -> None:
    """Replay the KB's rule examples and launch recipes through SGLang's own argument resolution on the
    CPU (an emulated accelerator where a recipe names one): each rule's claim is checked against what the
    engine does, and each recipe's outcome and adjustments are written to
    kb/engine/replay-sglang-<version>.json.

    Usage: nox -s engine-replay [-- --stale | RECIPE …]   (--stale: only recipes whose inputs changed)
    Offline: it runs in the virtualenv that `nox -s engine-snapshot` built, which ends with the pinned
    release installed (`nox -s engine-snapshot -- 0.5.23` builds just that one).
    """
    python = Path(".nox/engine-snapshot/bin/python")
    if not python.exists():
        session.error(
            "run `nox -s engine-snapshot -- 0.5.23` first: the replay uses its virtualenv (the real wheel)"
        )
    env = {"PYTHONPATH": "."}
    session.run(str(python), "-m", "handbook.oracles.replay", external=True, env=env)
    session.run(str(python), "-m", "handbook.oracles.recipes", *session.posargs, external=True, env=env)


@nox.session(name="engine-sizing", python="3.11")
def engine_sizing(session: nox.Session) -> None:
    """Run SGLang's own KV-pool sizing on the CPU for every KB model × H100/H200/B200/B300/MI300X/MI355X ×
    TP 1-8 × BF16/FP8 KV, and replay the public startup logs, into the golden files the planner's unit tests
    compare against (tests/golden/sizing-<version>.json, sizing-logs-<version>.json; no engine needed there).
    Then count each formula-covered model's parameters with the pinned transformers' own model classes on the
    meta device (handbook/oracles/params.py) into tests/golden/params.json, the formulas' golden values.

    Usage: nox -s engine-sizing [-- 0.5.23]   (about 10 minutes on two cores)
    Installs the wheel (checked against the hash its snapshot recorded) without its dependencies, plus the
    engine-snapshot session's hash-pinned lock for that release (ENGINE_LOCKS), then runs
    handbook/oracles/sizing.py with this package importable.
    """
    version = session.posargs[0] if session.posargs else pinned_engine_version()
    wheel_dir = Path(session.create_tmp()) / "engine-wheels"
    for old in wheel_dir.glob("*.whl"):
        old.unlink()
    _download_wheels(session, [f"sglang=={version}"], wheel_dir)
    _install_engine_imports(session, version)
    session.install("--no-deps", "--force-reinstall", *sorted(str(w) for w in wheel_dir.glob("*.whl")))
    env = {"PYTHONPATH": "."}
    golden = Path("tests/golden")
    session.run(
        "python", "-m", "handbook.oracles.sizing", "--out", str(golden / f"sizing-{version}.json"), env=env
    )
    session.run(
        "python",
        "-m",
        "handbook.oracles.sizing",
        "--replay-logs",
        str(golden / "held-out-logs.json"),
        "--out",
        str(golden / f"sizing-logs-{version}.json"),
        env=env,
    )
    session.run("python", "-m", "handbook.oracles.params", "--out", str(golden / "params.json"), env=env)
