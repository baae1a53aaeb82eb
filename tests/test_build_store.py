"""The site build's results kept by content (handbook/site/stored.py): a stored text is the computed text, and
a change to the KB's values, the engine's files, the pages or the code computes again; a comment does not."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from handbook.core.paths import DOCS_DIR, ENGINE_DIR, KB_ROOT
from handbook.kb.loader import load_kb
from handbook.site import state, stored
from handbook.site.state import checked, load_site
from handbook.site.stored import CLEAN, BuildStore, build_key

KB = load_kb()


def _renamed(kb, name: str):
    """The KB with its first model's name changed (one value, nothing else)."""
    first = next(iter(kb.models))
    models = {**kb.models, first: kb.models[first].model_copy(update={"name": name})}
    return dataclasses.replace(kb, models=models)


def _copy(folder: Path, into: Path) -> Path:
    shutil.copytree(folder, into)
    return into


def test_each_input_is_in_the_key(tmp_path, monkeypatch):
    docs = _copy(DOCS_DIR, tmp_path / "docs")
    engine = _copy(ENGINE_DIR, tmp_path / "engine")
    key = build_key(KB, docs, engine)
    assert build_key(KB, docs, engine) == key  # the same inputs, the same key
    assert build_key(_renamed(KB, "Renamed"), docs, engine) != key
    page = docs / "en" / "index.md"
    page.write_bytes(page.read_bytes() + b"\n")
    assert build_key(KB, docs, engine) != key
    key = build_key(KB, docs, engine)
    release = next(engine.glob("*.json"))
    release.write_bytes(release.read_bytes() + b" ")
    assert build_key(KB, docs, engine) != key
    key = build_key(KB, docs, engine)
    monkeypatch.setattr(stored, "code_digest", lambda: "another version of the package")
    assert build_key(KB, docs, engine) != key


def test_the_repository_files_the_checks_and_pages_read_are_in_the_key(tmp_path, monkeypatch):
    """The source's text (the silent-change and source-parity checks read it), the drawn figures, the bench
    record and mkdocs.yml: a stored clean verdict or export must not outlive an edit to any of them."""
    source = tmp_path / "source" / "handbook.md"
    figure = tmp_path / "assets" / "topologies" / "a.svg"
    bench, yml = tmp_path / "benchmarks" / "latest.json", tmp_path / "mkdocs.yml"
    for path, text in ((source, "源稿\n"), (figure, "<svg/>\n"), (bench, "{}\n"), (yml, "site_url: x\n")):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    monkeypatch.setattr(stored, "SOURCE_TEXT", source)
    monkeypatch.setattr(stored, "REPO_ROOT", tmp_path)
    monkeypatch.setattr(stored, "BENCH_RECORD", bench)
    monkeypatch.setattr(stored, "MKDOCS_YML", yml)
    key = build_key(KB, DOCS_DIR, ENGINE_DIR)
    for path in (source, figure, bench, yml):
        path.write_text(path.read_text(encoding="utf-8") + "\n", encoding="utf-8")
        assert build_key(KB, DOCS_DIR, ENGINE_DIR) != key, path
        key = build_key(KB, DOCS_DIR, ENGINE_DIR)


def test_a_comment_in_a_kb_file_keeps_the_key_and_a_value_changes_it(tmp_path):
    kb_copy = _copy(KB_ROOT, tmp_path / "kb")
    model = sorted((kb_copy / "models").glob("*.yaml"))[0]
    model.write_text(model.read_text(encoding="utf-8") + "\n# a note for editors\n", encoding="utf-8")
    commented = load_kb(kb_copy)
    assert build_key(commented, DOCS_DIR) == build_key(KB, DOCS_DIR)
    text = model.read_text(encoding="utf-8")
    name = commented.models[model.stem].name
    model.write_text(text.replace(f"name: {name}", f"name: {name} (edited)", 1), encoding="utf-8")
    edited = load_kb(kb_copy)
    assert edited.models[model.stem].name == f"{name} (edited)"
    assert build_key(edited, DOCS_DIR) != build_key(KB, DOCS_DIR)


def test_a_stored_text_is_read_back_until_an_input_changes(tmp_path):
    folder = tmp_path / ".cache" / "build"
    computed: list[str] = []

    def compute(text: str):
        return lambda: computed.append(text) or text

    first = BuildStore(KB, DOCS_DIR, folder)
    assert first.text("assets/data.json", compute("one")) == "one"
    assert BuildStore(KB, DOCS_DIR, folder).text("assets/data.json", compute("two")) == "one"
    assert computed == ["one"]
    edited = BuildStore(_renamed(KB, "Renamed"), DOCS_DIR, folder)
    assert edited.text("assets/data.json", compute("three")) == "three"
    assert computed == ["one", "three"]
    # one file per name: the text kept under the old key is gone
    assert [p.name for p in folder.iterdir()] == [f"assets~data.json-{edited.key[:32]}"]


def test_only_a_clean_verdict_is_kept(tmp_path, monkeypatch):
    store = BuildStore(KB, DOCS_DIR, tmp_path / ".cache" / "build")
    problem = "kb/models/x.yaml:3: name: got '', expected a name"
    monkeypatch.setattr(state, "run_checks", lambda kb, docs: [problem])
    assert checked(KB, DOCS_DIR, store) == [problem]
    assert store.stored("validation") is None  # checked again next time, at the lines of the time
    monkeypatch.setattr(state, "run_checks", lambda kb, docs: [])
    assert checked(KB, DOCS_DIR, store) == []
    assert store.stored("validation") == CLEAN

    def unreachable(kb, docs):
        raise AssertionError("a KB already found clean was checked again")

    monkeypatch.setattr(state, "run_checks", unreachable)
    assert checked(KB, DOCS_DIR, store) == []


@pytest.fixture(scope="module")
def site():
    return load_site()


def test_stored_exports_are_the_computed_bytes(site, tmp_path):
    """What the build writes from the store is what computing the exports again writes."""
    fresh = {rel: compute() for rel, compute in site.assets().items()}
    site.store = BuildStore(site.kb, site.docs_dir, tmp_path / ".cache" / "build")
    for _ in range(2):  # computed and kept, then read back
        out = tmp_path / "site"
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir()
        site.write_assets(out)
        assert {rel: (out / rel).read_text(encoding="utf-8") for rel in fresh} == fresh
    assert {name for name in fresh} | {state.ASSET_NAMES} == {
        p.name.rsplit("-", 1)[0].replace("~", "/") for p in site.store.folder.iterdir()
    }

    def unreachable():
        raise AssertionError("an export kept for this content was computed again")

    site.assets = unreachable  # reading them back needs neither the KB nor the list of exports
    assert site.asset_texts() == fresh


def test_a_rebuild_whose_inputs_kept_their_content_keeps_the_rendered_pages(site):
    """mkdocs serve after a KB edit that changed no value (a comment) renders no page again; after any
    change of content (here: another key), every page is rendered again."""
    page = site.pages("en")[0]
    site.render((site.docs_dir / "en" / page).read_text(encoding="utf-8"), "en", page)
    again = load_site(previous=site)
    assert again.store.key == site.store.key and again.rendered is site.rendered and again.rendered
    site.store.key = "the key of other content"
    assert load_site(previous=site).rendered == {}


def test_a_build_of_files_already_built_loads_no_kb_and_writes_the_same_site(tmp_path):
    """The second build of the very same files reads every page, figure and export back without loading the
    KB; a comment in a KB file loads it again (other bytes) but renders no page again (the same content)."""
    kb_root = _copy(KB_ROOT, tmp_path / "kb")
    _copy(KB_ROOT.parent / "assets", tmp_path / "assets")  # the diagrams are checked beside the KB
    first = load_site(kb_root)
    assert first.loaded is not None  # nothing stored yet: loaded and checked
    first.preflight()
    pages = dict(first.rendered)
    texts = first.asset_texts()

    store = first.store.folder
    stale = store / "a-name-no-longer-kept-0123456789abcdef0123456789abcdef"
    stale.write_text("kept by an older build\n", encoding="utf-8")
    first.store.record_files(kb_root, DOCS_DIR)
    assert not stale.exists()  # the store holds one build
    again = load_site(kb_root)
    again.preflight()
    assert again.asset_texts() == texts and again.figures == first.figures
    assert again.loaded is None  # the KB was never loaded
    assert dict(again.rendered) == pages

    model = sorted((kb_root / "models").glob("*.yaml"))[0]
    model.write_text(model.read_text(encoding="utf-8") + "\n# a note for editors\n", encoding="utf-8")
    commented = load_site(kb_root)
    assert commented.loaded is not None and commented.store.key == first.store.key
    commented.loaded = None  # from here on, loading the KB again would show as a computed page

    def unreachable(markdown, ctx, where):
        raise AssertionError(f"{where} was rendered again, though no value changed")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(state, "render_page", unreachable)
        commented.preflight()
    assert dict(commented.rendered) == pages and commented.loaded is None


def test_a_broken_kb_is_never_read_back_as_built(tmp_path):
    """After a build was stored, a value that breaks a check is found (no stored build has these files)."""
    kb_root = _copy(KB_ROOT, tmp_path / "kb")
    _copy(KB_ROOT.parent / "assets", tmp_path / "assets")
    load_site(kb_root)
    model = sorted((kb_root / "models").glob("*.yaml"))[0]
    text = model.read_text(encoding="utf-8")
    model.write_text(text.replace("\nname: ", "\nname:\n_was: ", 1), encoding="utf-8")
    with pytest.raises(state.SiteError) as raised:
        load_site(kb_root)
    assert raised.value.problems[0] == f"kb/models/{model.name}:2: name: got None, expected a valid string"
