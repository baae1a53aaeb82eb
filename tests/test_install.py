"""The one line that installs the command line (handbook/core/install.py) is the one the README and the start
page show, and it works: run in a clean virtualenv from a clone, it gives a working ``python -m handbook``.

Installing fetches the package's dependencies from the package index, and the test suite never uses the
network: the run itself is ``nox -s install`` (which sets HANDBOOK_INSTALL_TEST=1; CI runs it)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from handbook.core.install import PLACEHOLDER, URL_VARIABLE, install_line, repository_url

REPO = Path(__file__).resolve().parents[1]


def test_the_readme_shows_the_line():
    assert f"```bash\n{install_line(None)}\n```" in (REPO / "README.md").read_text(encoding="utf-8")


def test_the_address_comes_from_the_publishing_build_or_the_clone():
    assert repository_url({URL_VARIABLE: "https://example.org/x.git"}) == "https://example.org/x.git"
    assert install_line("https://example.org/x.git").startswith(
        "git clone https://example.org/x.git sglang-handbook"
    )
    assert install_line(None).startswith(f"git clone {PLACEHOLDER} sglang-handbook")
    assert repository_url({}, repo=Path("/")) is None  # not a clone: unknown, never guessed


def test_the_start_page_shows_the_line_with_what_it_needs():
    import handbook.render.renderers  # noqa: F401 - registers the renderers
    from handbook.kb.loader import load_kb
    from handbook.render.context import RenderContext
    from handbook.render.markers import render_page

    out = render_page("<!-- kb:install -->\n", RenderContext(load_kb(), "en", "index.md"), "index.md")
    assert install_line(repository_url()) in out
    assert "It needs git and Python 3.11 or later" in out


@pytest.mark.skipif(
    os.environ.get("HANDBOOK_INSTALL_TEST") != "1", reason="needs the package index: run nox -s install"
)
def test_the_line_installs_a_working_cli_from_a_clone(tmp_path):
    if shutil.which("git") is None:
        pytest.fail("git is needed to clone")
    home = tmp_path / "home"
    home.mkdir()
    line = install_line(str(REPO))  # the clone comes from this repository's committed state
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHON", "PIP_"))}
    env |= {"HOME": str(home), "PATH": os.environ["PATH"]}
    script = (
        f"set -e\n{line}\n"
        "python -m handbook check --lang en -- python -m sglang.launch_server --model-path m --tp-size 8\n"
    )
    done = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert done.stdout.splitlines()[-1].startswith("✔ no problems found (checked against sglang ")
    venv_python = tmp_path / "sglang-handbook" / ".venv" / "bin" / "python"
    assert venv_python.is_file()  # its own virtualenv, not this one
    helped = subprocess.run(
        [str(venv_python), "-m", "handbook", "plan", "--help"], capture_output=True, text=True
    )
    assert helped.returncode == 0 and "qwen3.5-397b-a17b" in helped.stdout
