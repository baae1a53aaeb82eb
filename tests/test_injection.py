"""Markup in KB text never reaches a reader's browser as markup.

Every string of every KB entity that can hold free text (found by walking the schema through the kinds
registry, not a hand list) is set to a payload mixing <script>, <img onerror>, an attribute break-out,
{{ }}, |, backticks and a <!-- kb: marker. Strings the KB's own checks then refuse (a command a rule must
parse, a figure a claim must match) go back to their value, each refusal located by file and line. The site
is built from that KB (its diagrams redrawn): no output file (HTML, SVG, JSON, text) holds the payload's
markup unescaped, no marker is read, and chromium raises no dialog on any page.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import typing
from pathlib import Path

import pytest
from pydantic import BaseModel

from handbook.core.markdown import code_lines
from handbook.core.paths import REPO_ROOT
from handbook.kb.loader import KINDS, KBInvalid, load_kb
from handbook.kb.texts import leaves
from handbook.kb.yamlfile import dump_yaml, format_path
from handbook.validation.registry import run_checks

PAYLOAD = (
    "<script>alert(1)</script><img src=x onerror=alert(2)>\"'><svg onload=alert(3)>"
    "{{ 7*7 }}|`x`<!-- kb:recipe id=x -->"
)
RAW = ("<script>alert", "<img src=x", "<svg onload", "<!-- kb:recipe id=x")  # never, in any output file
TEXT_FILES = (".html", ".svg", ".xml", ".txt", ".json", ".js", ".css")


def free_text(owner: BaseModel, name: str) -> bool:
    """A string field with no pattern and no fixed choices: where a contributor writes prose or a name."""
    info = type(owner).model_fields.get(name)
    if info is None or typing.get_origin(info.annotation) is typing.Literal:
        return False
    metadata = list(info.metadata)
    for arg in typing.get_args(info.annotation):
        metadata += list(getattr(arg, "__metadata__", ()))
    return not any(getattr(m, "pattern", None) for m in metadata)


def poison(root: Path) -> tuple[int, list[str]]:
    """The payload in every free-text string of the KB at ``root``: how many strings keep it, and the
    refusals (``file:line: …``) of those the KB's checks sent back to their value."""
    kb = load_kb(root)
    # texts the wording checks list as exceptions, and the checkpoints a command's --model-path names: their
    # exact words are what other checks read, so they keep them
    kept = {(f"{root.name}/{e.file}", e.path) for e in kb.wording_exceptions}
    docs: dict[str, typing.Any] = {}
    poisoned: dict[tuple[str, tuple], typing.Any] = {}  # (file, path) -> the original value
    for kind in KINDS:
        if kind.name == "wording_exceptions":  # the wording check's own data (its words), not reader text
            continue
        for entity in kind.entities(getattr(kb, kind.name)):
            origin = kb.origin(entity)
            data = docs.setdefault(origin.doc.file, origin.doc.data)
            for leaf in leaves(entity):
                if (
                    (leaf.lang is None and not free_text(leaf.owners[-1], leaf.field))
                    or leaf.field == "checkpoint"
                    # the glossary's avoided variants are the glossary check's own data: poisoned, every
                    # poisoned text would read as a variant
                    or (kind.name == "glossary" and leaf.field in ("avoid", "avoid_zh"))
                ):
                    continue
                path = (*origin.path, *leaf.path)
                text_path = tuple(p for p in path if p not in ("zh", "en"))
                if (origin.doc.file, format_path(text_path)) in kept:
                    continue
                node = data
                for part in path[:-1]:
                    node = node[part]
                if (origin.doc.file, path) not in poisoned and isinstance(
                    node.get(path[-1]) if isinstance(node, dict) else node[path[-1]], str
                ):
                    poisoned[(origin.doc.file, path)] = node[path[-1]]
                    node[path[-1]] = PAYLOAD
    refused: list[str] = []
    for _ in range(20):  # a syntax error hides the rest of its command: each round may reveal one more
        for file, data in docs.items():
            text = dump_yaml(data, sort_keys=False, width=10_000)  # quoted as the KB's reader needs
            (root.parent / file).write_text(text, encoding="utf-8")
        try:
            problems = run_checks(load_kb(root), docs_dir=REPO_ROOT / "docs")
        except KBInvalid as exc:
            problems = exc.problems
        if not problems:
            return len(poisoned), refused
        for problem in problems:
            refused.append(str(problem))
            located = [
                key
                for key in poisoned
                if key[0] == problem.file
                and problem.path
                and (
                    format_path(key[1]).startswith(problem.path)
                    or problem.path.startswith(format_path(key[1]))
                )
            ]
            # a command's shell error points at the line it surfaces on, not always at the field that broke
            # it: the strings of that file go back then
            if not located and problem.message.startswith("shell."):
                located = [key for key in poisoned if key[0] == problem.file]
            # a rule's quotes are checked against what its (poisoned) message quotes: a refusal of one field
            # that no poisoned string lies under sends back the strings of its entity (rules[18].quotes →
            # rules[18].message)
            if not located and problem.path:
                entity = problem.path.split(".", 1)[0] + "."
                located = [
                    key
                    for key in poisoned
                    if key[0] == problem.file and format_path(key[1]).startswith(entity)
                ]
            for file, path in located:
                node = docs[file]
                for part in path[:-1]:
                    node = node[part]
                node[path[-1]] = poisoned.pop((file, path))
    raise AssertionError("the KB's checks keep refusing the payload:\n" + "\n".join(refused[-20:]))


@pytest.fixture(scope="module")
def poisoned_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int, list[str]]:
    if shutil.which("dot") is None:
        if os.environ.get("HANDBOOK_REQUIRE_DOT") == "1":
            pytest.fail("graphviz's dot is required (HANDBOOK_REQUIRE_DOT=1) to redraw the poisoned diagrams")
        pytest.skip("graphviz's dot is not installed: the poisoned KB's diagrams cannot be redrawn")
    work = tmp_path_factory.mktemp("poisoned")
    shutil.copytree(REPO_ROOT / "kb", work / "kb")
    shutil.copytree(REPO_ROOT / "assets", work / "assets")
    count, refused = poison(work / "kb")
    run = [sys.executable, "-m", "handbook"]
    env = {**os.environ, "HANDBOOK_KB": str(work / "kb"), "NO_MKDOCS_2_WARNING": "1"}
    generate = subprocess.run(
        [*run, "generate", "diagrams", "--kb", str(work / "kb"), "--repo", str(work)],
        capture_output=True, text=True, cwd=REPO_ROOT,
    )  # fmt: skip
    assert generate.returncode == 0, generate.stdout + generate.stderr
    build = subprocess.run(
        [*run, "build", "--site-dir", str(work / "site")],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        env=env,
    )
    assert build.returncode == 0, (build.stdout + build.stderr)[-4000:]
    return work / "site", count, refused


def test_most_free_text_carries_the_payload_and_every_refusal_is_located(poisoned_site):
    _, count, refused = poisoned_site
    assert count > 1000  # every prose field of the KB, in both languages, and the free names
    assert all(line.split(":", 2)[1].isdigit() for line in refused), refused


def test_no_output_file_holds_the_payload_as_markup(poisoned_site):
    site, _, _ = poisoned_site
    found = []
    for path in site.rglob("*"):
        if path.suffix in TEXT_FILES and path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            if (
                path.suffix == ".txt"
            ):  # llms.txt is Markdown: inside a fenced block the payload is shown as code
                inside = code_lines(text)
                text = "\n".join(line for i, line in enumerate(text.splitlines()) if i not in inside)
            found += [f"{path.relative_to(site)}: {raw}" for raw in RAW if raw in text]
    assert found == []
    kb_json = (site / "kb.json").read_text(encoding="utf-8")
    assert "\\u003cscript\\u003ealert(1)" in kb_json  # the payload is in kb.json as data, escaped


@pytest.mark.browser
def test_no_page_raises_a_dialog(poisoned_site, browser):
    from handbook.site.browser import serve_folder

    site, _, _ = poisoned_site
    pages = sorted(
        p.relative_to(site).as_posix() for p in site.rglob("index.html") if "assets" not in p.parts
    )
    dialogs: list[str] = []
    with serve_folder(site) as base:
        context = browser.new_context()
        try:
            page = context.new_page()
            page.on(
                "dialog", lambda dialog: (dialogs.append(f"{page.url}: {dialog.message}"), dialog.dismiss())
            )
            for rel in pages:
                page.goto(base + rel.removesuffix("index.html"), wait_until="load")
            page.goto(base)
            page.fill("input.md-search__input", "alert")  # search results render the pages' text too
            page.press("input.md-search__input", "End")
            page.wait_for_timeout(500)
        finally:
            context.close()
    assert len(pages) > 30 and dialogs == []


# The configurator and the command doctor fill their results after the page loads, from data files: every
# model × accelerator × goal (PD on every other one where the model has it) and every command of the site,
# each rendered and searched.
CONFIGURATOR_JS = """async payload => {
  const root = document.querySelector("[data-configurator]");
  const c = root.configurator;
  let picked = 0;
  let shown = 0;
  let markup = 0;
  for (const model of c.data.models) {
    for (const hw of c.data.hardware) {
      for (const goal of c.data.goals) {
        Object.assign(c.state, { model: model.id, gpu: hw.id, goal: goal.id, pd: model.pd && picked % 2 === 0 });
        await c.update();
        picked += 1;
        if (root.textContent.includes(payload)) shown += 1;
        markup += root.querySelectorAll("script:not(.cfg-messages), img, svg, [onload], [onerror]").length;
      }
    }
  }
  return [picked, shown, markup];
}"""


@pytest.mark.browser
def test_the_configurator_and_the_doctor_show_kb_text_as_text(poisoned_site, browser):
    import doctor_cases

    from handbook.site.browser import serve_folder

    site, _, _ = poisoned_site
    commands = doctor_cases.site_commands(load_kb(site.parent / "kb"))
    dialogs: list[str] = []
    with serve_folder(site) as base:
        context = browser.new_context()
        try:
            page = context.new_page()
            page.on(
                "dialog", lambda dialog: (dialogs.append(f"{page.url}: {dialog.message}"), dialog.dismiss())
            )
            for prefix in ("", "en/"):
                page.goto(f"{base}{prefix}configurator/")
                page.wait_for_selector("[data-configurator][data-ready=true]", timeout=30_000)
                picked, shown, markup = page.evaluate(CONFIGURATOR_JS, PAYLOAD)
                assert picked > 300 and shown > 0 and markup == 0, (prefix, picked, shown, markup)
                page.goto(f"{base}{prefix}doctor/")
                page.wait_for_selector("[data-doctor][data-ready=true]", timeout=30_000)
                with_payload = 0
                for command in commands:
                    page.fill("#doc-input", command)
                    with_payload += PAYLOAD in page.text_content(".doc-findings")
                    found = ("script:not(.cfg-messages)", "img", "svg", "[onload]", "[onerror]")
                    assert page.locator(", ".join(f"[data-doctor] {f}" for f in found)).count() == 0
                assert with_payload > 0, prefix  # some finding quotes the KB's (poisoned) words
        finally:
            context.close()
    assert dialogs == []
