"""What the commands the site tells readers to run share on the command line: the language of their output
and of their help (``--lang``, else the locale), and the KB's choices their help lists."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from handbook.core.arguments import folder
from handbook.core.messages import msg
from handbook.core.paths import KB_ROOT
from handbook.core.text import LANGS
from handbook.kb.yamlfile import load_yaml

# Where a locale is read from, first set wins (as gettext reads them).
LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")


def locale_lang(environ: Mapping[str, str] = os.environ) -> str:
    """zh when the locale is Chinese (zh_CN.UTF-8, zh_TW…), else en."""
    for name in LOCALE_VARIABLES:
        value = environ.get(name, "")
        if value:
            return LANGS[0] if value.lower().startswith("zh") else "en"
    return "en"


def chosen_lang(argv: Sequence[str], environ: Mapping[str, str] = os.environ) -> str:
    """The language ``--lang`` names in ``argv`` (before a ``--``), else the locale's: what help is in."""
    for i, word in enumerate(argv):
        if word == "--":
            break
        value = argv[i + 1] if word == "--lang" and i + 1 < len(argv) else word.partition("--lang=")[2]
        if value in LANGS:
            return value
    return locale_lang(environ)


def help_text(key: str, lang: str, **values: object) -> str:
    """A catalogue entry as argparse help (a percent sign doubled, since argparse formats help with %)."""
    return msg(key, lang, **values).replace("%", "%%")


def add_lang(parser: argparse.ArgumentParser, lang: str) -> None:
    default = locale_lang()
    parser.add_argument(
        "--lang", choices=LANGS, default=default, help=help_text("cli-help-lang", lang, default=default)
    )


def add_kb(parser: argparse.ArgumentParser, lang: str, default: str | None = None) -> None:
    parser.add_argument("--kb", default=default, type=folder, help=help_text("cli-help-kb", lang))


def listed(values: Sequence[object]) -> str:
    return ", ".join(str(v) for v in values)


def kb_ids(kind: str, kb: Path = KB_ROOT) -> list[str]:
    """The ids of one kind of KB file (file name = id): models, hardware."""
    return sorted(path.stem for path in (kb / kind).glob("*.yaml"))


def _mapping(path: Path) -> dict:
    """A KB file's data as the KB's reader reads it, or nothing when it cannot (help never fails on it)."""
    doc, _ = load_yaml(path, path.name)
    return doc.data if doc is not None and isinstance(doc.data, dict) else {}


def dtype_ids(use: str, kb: Path = KB_ROOT) -> list[str]:
    """The dtype ids of kb/dtypes.yaml for weights or for the KV cache, in the file's order."""
    dtypes = _mapping(kb / "dtypes.yaml").get("dtypes") or []
    return [d["id"] for d in dtypes if isinstance(d, dict) and "id" in d and use in (d.get("use") or [])]


def pinned_version(kb: Path = KB_ROOT) -> str:
    """The SGLang release kb/handbook.yaml pins the site to."""
    return str(_mapping(kb / "handbook.yaml").get("engine_version", "—"))


def pd_models(kb: Path = KB_ROOT) -> list[str]:
    """The models with a PD deployment among the recipes (a prefill recipe of a deployment)."""
    out = set()
    for path in (kb / "recipes").glob("*.yaml"):
        recipe = _mapping(path)
        if recipe.get("deployment") and recipe.get("role") == "prefill" and recipe.get("model"):
            out.add(recipe["model"])
    return sorted(out)
