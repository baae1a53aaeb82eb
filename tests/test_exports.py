"""The site's machine-readable files: kb.json and its schema, llms.txt, llms-full.txt."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from handbook.kb.export import SCHEMA_VERSION, KBExport, export_schema
from handbook.kb.loader import load_kb
from handbook.site import config as siteconfig
from handbook.site import exports
from handbook.site.exports import Page, absolute_links, kb_json, source_state
from handbook.site.state import load_site

REPO = Path(__file__).resolve().parents[1]
SITE_URL = "https://handbook.example/"


@pytest.fixture(scope="module")
def site():
    return load_site()


def docs_pages(lang: str) -> list[str]:
    return sorted(
        p.relative_to(REPO / "docs" / lang).as_posix() for p in (REPO / "docs" / lang).rglob("*.md")
    )


def url_of(lang: str, page: str) -> str:
    """Where MkDocs (directory URLs, i18n folders, zh at the root) publishes docs/<lang>/<page>."""
    stem = page[: -len(".md")]
    path = "" if stem == "index" else (stem[: -len("index")] if stem.endswith("/index") else stem + "/")
    return SITE_URL + ("" if lang == "zh" else "en/") + path


def prose_lines(markdown: str) -> list[str]:
    """The lines outside fenced code blocks."""
    out, fence = [], None
    for line in markdown.splitlines():
        mark = re.match(r"\s*(`{3,}|~{3,})", line)
        if fence is None and mark:
            fence = mark.group(1)
        elif fence is not None and line.strip() == fence:
            fence = None
        elif fence is None:
            out.append(line)
    return out


# ------------------------------------------------------------------------------------------------ kb.json
def test_kb_json_holds_every_entity_with_its_versions(site):
    kb = site.kb
    data = json.loads(kb_json(kb, "0" * 40, False))
    assert list(data)[:4] == ["schema_version", "engine", "source_commit", "source_modified"]
    assert data["schema_version"] == 1
    assert data["engine"] == {"name": "SGLang", "version": kb.handbook.engine_version}
    assert (data["source_commit"], data["source_modified"]) == ("0" * 40, False)
    for key, pool in [("models", kb.models), ("hardware", kb.hardware), ("recipes", kb.recipes),
                      ("sources", kb.sources), ("pitfalls", kb.pitfalls), ("dtypes", kb.dtypes),
                      ("env_vars", kb.env_vars), ("claims", kb.claims), ("attention", kb.attention),
                      ("parameter_groups", kb.groups)]:  # fmt: skip
        assert list(data[key]) == list(pool), key
    flags = [p["flag"] for group in data["parameter_groups"].values() for p in group["parameters"]]
    assert sorted(flags) == sorted(flag for _, flag in kb.parameters)
    # one entity, field by field, as in its YAML file
    gpt = data["models"]["gpt-oss-120b"]
    assert gpt["config"]["num_key_value_heads"] == kb.models["gpt-oss-120b"].config.num_key_value_heads
    assert data["sources"]["handbook"]["checked"] == kb.sources["handbook"].checked.isoformat()


def test_kb_json_exports_every_part_of_the_kb():
    from dataclasses import fields

    from handbook.kb.loader import KB

    # everything the loader holds, but its bookkeeping and the flag index (the groups hold the parameters)
    held = {f.name for f in fields(KB)} - {"root", "origins", "parameters", "groups"} | {"parameter_groups"}
    assert held <= set(KBExport.model_fields)


def test_kb_json_reads_back_through_its_schema(site):
    text = kb_json(site.kb, None, None)
    again = KBExport.model_validate_json(text)
    assert again.models == site.kb.models and again.recipes == site.kb.recipes
    assert json.loads(text)["source_commit"] is None


def test_published_schema_is_the_committed_one():
    committed = json.loads((REPO / "kb" / "schema" / "kb.schema.json").read_text(encoding="utf-8"))
    assert committed == export_schema()
    assert committed["properties"]["schema_version"]["const"] == SCHEMA_VERSION
    assert set(committed["required"]) == set(KBExport.model_fields)


def test_source_state_without_git(tmp_path):
    assert source_state(tmp_path) == (None, None)


def test_source_state_reads_the_commit_and_kb_changes(tmp_path):
    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
            capture_output=True, text=True, check=True,
        ).stdout.strip()  # fmt: skip

    git("init", "-q")
    (tmp_path / "kb").mkdir()
    (tmp_path / "kb" / "a.yaml").write_text("a: 1\n")
    (tmp_path / "README.md").write_text("x\n")
    git("add", ".")
    git("commit", "-q", "-m", "one")
    head = git("rev-parse", "HEAD")
    assert source_state(tmp_path) == (head, False)
    (tmp_path / "README.md").write_text("changed outside kb/\n")
    assert source_state(tmp_path) == (head, False)
    (tmp_path / "kb" / "a.yaml").write_text("a: 2\n")
    assert source_state(tmp_path) == (head, True)


# ------------------------------------------------------------------------------------------------ llms.txt
def test_llms_txt_links_every_page_in_both_languages(site):
    text = exports.llms_txt(site, SITE_URL)
    lines = text.splitlines()
    assert lines[0] == f"# {site.kb.handbook.title['en']}"
    assert lines[2].startswith("> ")
    links = re.findall(r"^- \[(.+?)\]\((\S+?)\)", text, re.MULTILINE)
    urls = [url for _, url in links]
    expected = [url_of("en", p) for p in docs_pages("en")] + [url_of("zh", p) for p in docs_pages("zh")]
    assert sorted(u for u in urls if not u.endswith((".txt", ".json"))) == sorted(expected)
    assert len(set(urls)) == len(urls)
    assert urls[-3:] == [SITE_URL + "llms-full.txt", SITE_URL + "kb.json", SITE_URL + "kb.schema.json"]
    sections = [line for line in lines if line.startswith("## ")]
    assert sections == ["## English", "## 中文", "## Optional"]
    # each page is listed under its H1
    for title, url in links:
        if url == SITE_URL + "en/":
            assert title == site.kb.handbook.title["en"]


def test_llms_txt_without_a_site_url_links_relative_to_itself(site):
    text = exports.llms_txt(site, None)
    urls = re.findall(r"^- \[.+?\]\((\S+?)\)", text, re.MULTILINE)
    assert "./" in urls and "en/" in urls and "en/02-memory/" in urls and "kb.json" in urls


# ------------------------------------------------------------------------------------------- llms-full.txt
def test_llms_full_holds_every_page_rendered(site):
    text = exports.llms_full_txt(site, SITE_URL)
    assert "<!-- kb:" not in text  # every marker rendered
    en, _, zh = text.partition("\n## 中文\n")
    assert "\n## English\n" in en and zh
    for lang, part in (("en", en), ("zh", zh)):
        for page in docs_pages(lang):
            assert f"\nURL: {url_of(lang, page)}\n" in part, (lang, page)
    # the pages' own headings sit two levels down, under their language (code blocks aside)
    assert [line for line in prose_lines(text)[1:] if line.startswith("# ")] == []
    assert {line.split(" ", 1)[0] for line in prose_lines(text) if line.startswith("##")} >= {
        "##",
        "###",
        "####",
    }
    # a figure only the KB holds reaches the text: the engine version, in both languages
    assert en.count(site.kb.handbook.engine_version) > 0 and zh.count(site.kb.handbook.engine_version) > 0
    # no relative link is left: every Markdown or HTML link is absolute or an in-page anchor
    for target in re.findall(r"\]\(([^)\s]+)", text) + re.findall(r'(?:href|src)="([^"]+)"', text):
        assert target.startswith((SITE_URL, "#", "http://", "https://", "mailto:")), target


def test_links_resolve_like_mkdocs():
    page = Page("en", "02-memory.md", "en/02-memory/", "02", "")
    cases = {
        "[04](04-parameters.md#tp-size)": f"[04]({SITE_URL}en/04-parameters/#tp-size)",
        "[home](index.md)": f"[home]({SITE_URL}en/)",
        "[here](#kv)": f"[here]({SITE_URL}en/02-memory/#kv)",
        "![fig](../assets/budget.svg)": f"![fig]({SITE_URL}assets/budget.svg)",
        "[zh](../zh/02-memory.md)": f"[zh]({SITE_URL}02-memory/)",
        "[out](https://docs.sglang.io/x)": "[out](https://docs.sglang.io/x)",
        '<a href="../04-parameters/#tp-size">': f'<a href="{SITE_URL}en/04-parameters/#tp-size">',
        '<a href="#kv">': f'<a href="{SITE_URL}en/02-memory/#kv">',
        '<img src="../../assets/x.svg">': f'<img src="{SITE_URL}assets/x.svg">',
    }
    for source, expected in cases.items():
        assert absolute_links(Page("en", page.path, page.href, "", source), SITE_URL) == expected, source
    code = "```text\n[04](04-parameters.md)\n```"
    assert (
        absolute_links(Page("en", page.path, page.href, "", code), SITE_URL) == code
    )  # code stays as written


# ------------------------------------------------------------------------------------------------ determinism
@pytest.mark.slow
def test_the_same_tree_gives_the_same_bytes():
    def computed() -> dict[str, str]:
        site = load_site()  # each load is fresh, as a second build's would be
        site.store = None  # computed, not read back
        return exports.exports(site, SITE_URL)

    first, second = computed(), computed()
    pack = {name for name in first if name.startswith("production/")}
    assert first.keys() - pack == {"kb.json", "kb.schema.json", "llms.txt", "llms-full.txt"}
    assert pack, "the production pack is exported beside the KB"
    assert first == second
    stored = load_site()
    assert exports.exports(stored, SITE_URL) == first  # computed and kept, or read back: the same bytes
    assert exports.exports(stored, SITE_URL) == first


@pytest.mark.parametrize("commit", ["0" * 40, None])
@pytest.mark.parametrize("modified", [True, False, None])
def test_kb_json_kept_without_a_commit_gets_the_checkouts_as_written_with_it(site, commit, modified):
    """The stored kb.json has no commit (a build outside git reads it too); the build puts the checkout's in."""
    kept = kb_json(site.kb, None, None)
    assert exports.with_source_state(kept, commit, modified) == kb_json(site.kb, commit, modified)


def test_a_kb_json_without_the_unset_header_is_refused():
    with pytest.raises(ValueError) as raised:
        exports.with_source_state('{\n  "source_commit": "abc",\n  "source_modified": null,\n}', None, None)
    assert (
        str(raised.value) == "kb.json: its header has no unset source_commit and source_modified to fill in"
    )


@pytest.mark.site
def test_built_site_carries_the_exports(built_site):
    site_url = siteconfig.site_url(REPO / "mkdocs.yml")
    expected = exports.exports(load_site(), site_url)
    for name, text in expected.items():
        assert (built_site / name).read_text(encoding="utf-8") == text, name
    # every page llms.txt links to was built
    for url in re.findall(r"^- \[.+?\]\((\S+?)\)", expected["llms.txt"], re.MULTILINE):
        rel = url.removeprefix(site_url)
        target = built_site / rel / "index.html" if rel == "" or rel.endswith("/") else built_site / rel
        assert target.is_file(), url
    assert load_kb().handbook.engine_version in (built_site / "kb.json").read_text(encoding="utf-8")
