"""Every task of the project is a nox session; the README, CI and the GitHub workflows call these."""

from __future__ import annotations

from pathlib import Path

import nox

nox.options.default_venv_backend = "venv"
nox.options.reuse_venv = "yes"
nox.options.sessions = ["lint", "tests"]

PYTHON = "3.11"
LOCK = "requirements/dev.lock"
CI_LOCK = "requirements/ci.lock"  # nox itself, for .ci/run and the workflows
QUIET_MKDOCS = {"NO_MKDOCS_2_WARNING": "1"}
# Import-time dependencies of SGLang's parsers and of its KV-pool sizing code, pinned: what engine-snapshot
# and engine-sizing install beside the wheel (no GPU, no model download). torch 2.14.1 is what sglang 0.5.23
# pins: the PyPI build is CUDA's (it pulls the nvidia-* wheels) but imports and runs on a CPU-only machine.
ENGINE_IMPORTS = (
    "torch==2.14.1",
    "torchvision==0.29.1",
    "transformers==5.19.0",
    "tokenizers==0.23.2",
    "msgspec==0.23.0",
    "numpy==2.4.6",
    "orjson==3.13.0",
    "psutil==7.2.2",
    "pybase64==1.5.1",
    "requests==2.34.2",
    "packaging==26.4",
    "pillow==13.0.0",
    "starlette==1.10.0",
    "pydantic==2.14.4",
    "pyzmq==27.3.0",
    "tqdm==4.70.1",
    "ipython==9.18.1",
    "aiohttp==3.14.5",
    # the serving benchmark imports sglang.srt.configs (datasets, kernels, quantization configs) too
    "datasets==5.2.0",
    "apache-tvm-ffi==0.1.11",
    "sentencepiece==0.2.1",
    "compressed-tensors==0.18.0",
    "gguf==0.19.0",
)


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


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """Validate the KB, build the site strictly, then run every test against the code and the built site."""
    install_project(session)
    session.run("python", "-m", "handbook", "validate")
    session.run("python", "-m", "handbook", "generate", "--check")
    session.run("python", "-m", "handbook", "build", env=QUIET_MKDOCS)
    session.run("pytest", *session.posargs, env={**QUIET_MKDOCS, "HANDBOOK_SITE_DIR": "site"})


@nox.session(python=PYTHON)
def bench(session: nox.Session) -> None:
    """The performance budget: cold and warm build, KB hooks' share, tests, site and page weight, search
    index. Prints pass/fail per target (a missed target never fails it) and records the figures in
    benchmarks/latest.json, which the benchmarks page renders. ``-- --record -`` records nothing."""
    install_project(session)
    session.run("python", "-m", "handbook", "bench", *session.posargs, env=QUIET_MKDOCS)


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
    for source, lock_file in (("requirements/dev.in", LOCK), ("requirements/ci.in", CI_LOCK)):
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


@nox.session(name="engine-snapshot", python="3.11")
def engine_snapshot(session: nox.Session) -> None:
    """Snapshot SGLang's real argument parsers and env-var registry into kb/engine/sglang-<version>.json.

    Usage: nox -s engine-snapshot -- 0.5.23 [0.3.2]   (SGLang version, then sglang-router version)
    Installs the two wheels without their dependencies, plus only what importing the parsers needs
    (no GPU, no model download), and runs handbook/engine/dump.py inside this throwaway venv.
    """
    routers = {"0.5.23": "0.3.2"}  # sglang -> the sglang-router release that ships with it
    version = session.posargs[0] if session.posargs else "0.5.23"
    router = session.posargs[1] if len(session.posargs) > 1 else routers.get(version)
    if router is None:
        session.error(f"which sglang-router for sglang {version}? nox -s engine-snapshot -- {version} X.Y.Z")
    wheel_dir = Path(session.create_tmp()) / "engine-wheels"
    for old in wheel_dir.glob("*.whl"):
        old.unlink()
    session.run(
        "python",
        "-m",
        "pip",
        "download",
        "--quiet",
        "--no-deps",
        "--only-binary=:all:",
        "--dest",
        str(wheel_dir),
        f"sglang=={version}",
        f"sglang-router=={router}",
    )
    wheels = sorted(str(w) for w in wheel_dir.glob("*.whl"))
    session.install("--no-deps", "--force-reinstall", *wheels)
    # Import-time dependencies of the three parsers, pinned. torch 2.14.1 is what sglang 0.5.23 pins:
    # the PyPI build is CUDA's (it pulls the nvidia-* wheels) but imports and runs on a CPU-only machine.
    session.install(*ENGINE_IMPORTS)
    wheel_args = [arg for wheel in wheels for arg in ("--wheel", wheel)]
    output = f"kb/engine/sglang-{version}.json"
    session.run("python", "handbook/engine/dump.py", *wheel_args, "--output", output)


@nox.session(name="engine-replay", python=False)
def engine_replay(session: nox.Session) -> None:
    """Replay the KB's rule examples (and, with --configs DIR, its recipes) through SGLang's own argument
    resolution on the CPU, and check each rule's claim about what the engine does.

    Usage: nox -s engine-replay [-- --configs DIR]   (DIR/<model id>/config.json: real configs to replay)
    Opt-in and offline: it runs in the virtualenv that `nox -s engine-snapshot` built (the real wheel).
    """
    python = Path(".nox/engine-snapshot/bin/python")
    if not python.exists():
        session.error(
            "run `nox -s engine-snapshot` first: the replay uses its virtualenv (the real sglang wheel)"
        )
    session.run(
        str(python), "-m", "handbook.oracles.replay", *session.posargs, external=True, env={"PYTHONPATH": "."}
    )


@nox.session(name="engine-sizing", python="3.11")
def engine_sizing(session: nox.Session) -> None:
    """Run SGLang's own KV-pool sizing on the CPU for every KB model × H100/H200/B200/B300/MI300X/MI355X ×
    TP 1-8 × BF16/FP8 KV, and replay the public startup logs, into the golden files the planner's unit tests
    compare against (tests/golden/sizing-<version>.json, sizing-logs-<version>.json; no engine needed there).

    Usage: nox -s engine-sizing [-- 0.5.23]   (about 10 minutes on two cores)
    Installs the wheel without its dependencies, plus ENGINE_IMPORTS (the engine-snapshot session's pins),
    then runs handbook/oracles/sizing.py with this package importable.
    """
    version = session.posargs[0] if session.posargs else "0.5.23"
    wheel_dir = Path(session.create_tmp()) / "engine-wheels"
    for old in wheel_dir.glob("*.whl"):
        old.unlink()
    session.run(
        "python",
        "-m",
        "pip",
        "download",
        "--quiet",
        "--no-deps",
        "--only-binary=:all:",
        "--dest",
        str(wheel_dir),
        f"sglang=={version}",
    )
    session.install("--no-deps", "--force-reinstall", *sorted(str(w) for w in wheel_dir.glob("*.whl")))
    session.install(*ENGINE_IMPORTS)
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
