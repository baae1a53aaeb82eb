"""Every task of the project is a nox session; the README, CI and the GitHub workflows call these."""

from __future__ import annotations

import os

import nox

nox.options.default_venv_backend = "venv"
nox.options.reuse_venv = "yes"
nox.options.sessions = ["lint", "tests"]

PYTHON = "3.11"
LOCK = "requirements/dev.lock"
QUIET_MKDOCS = {"NO_MKDOCS_2_WARNING": "1"}


def install_project(session: nox.Session) -> None:
    """The locked toolchain (hash-checked), then the handbook package itself without dependencies."""
    session.install("--require-hashes", "-r", LOCK)
    session.install("--no-deps", "-e", ".")


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    install_project(session)
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session(python=PYTHON)
def validate(session: nox.Session) -> None:
    """Load the whole knowledge base and report every problem at once."""
    install_project(session)
    session.run("python", "-m", "handbook", "validate")


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    install_project(session)
    session.run("python", "-m", "handbook", "validate")
    session.run("pytest", *session.posargs, env=QUIET_MKDOCS)


@nox.session(python=PYTHON)
def lock(session: nox.Session) -> None:
    """Re-resolve requirements/dev.in into the hash-pinned lock."""
    session.install("pip-tools==7.6.2")
    session.run(
        "pip-compile", "--quiet", "--generate-hashes", "--strip-extras", "--allow-unsafe",
        "--no-emit-index-url", "--no-emit-find-links", "--output-file", LOCK, "requirements/dev.in",
        env={"CUSTOM_COMPILE_COMMAND": "nox -s lock"},
    )
