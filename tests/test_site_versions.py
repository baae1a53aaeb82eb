"""The built site's release pages: the option reference with history stays under the page-weight budget,
and the upgrading page, the compatibility matrix and the replays are there in both languages."""

from __future__ import annotations

import gzip
import re

import pytest

from handbook.site.bench import TARGETS

pytestmark = pytest.mark.site


def page(site, lang: str, name: str) -> str:
    folder = site if lang == "zh" else site / "en"
    return (folder / name / "index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_option_reference_with_history_stays_under_the_page_budget(built_site, lang):
    html = page(built_site, lang, "engine-options")
    size = len(gzip.compress(html.encode("utf-8"), compresslevel=6, mtime=0))
    assert size < TARGETS["page_gzip_bytes"] == 150_000, f"{lang}: {size} bytes gzipped"
    row = re.search(r'<tr id="opt-attn-dp-size">(.*?)</tr>', html, re.S).group(1)
    assert ("0.5.22 起" if lang == "zh" else "since 0.5.22") in row
    assert 'id="removed"' in html and 'id="opt-cuda-graph-max-bs"' in html


def test_the_release_pages_have_the_same_anchors_in_both_languages(built_site):
    for name in ("upgrading", "compatibility"):
        ids = [sorted(set(re.findall(r'id="((?:upgrade|compat|replay)-[^"]+)"', page(built_site, lang, name))))
               for lang in ("zh", "en")]  # fmt: skip
        assert ids[0] == ids[1] and ids[0], name
    assert 'id="upgrade-0-5-22"' in page(built_site, "en", "upgrading")
    assert 'id="replay-qwen3.8-flash-next-fp8-b300-tep4"' in page(built_site, "zh", "compatibility")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_each_launch_command_shows_its_replay(built_site, lang):
    html = page(built_site, lang, "06-models")
    assert html.count('<details class="cmd-check') >= 10
    assert "speculative&#95;hook.py&#58;1162" in html  # the corrected command's source version, refused
