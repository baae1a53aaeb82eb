"""The site's own wording (not KB facts), in both languages: one catalogue, split by domain.

Every entry is ``key: (zh, en)`` with ``str.format`` fields; code names a key as a string literal
(``msg("engine-checked", lang, version=…)``), so ``grep`` finds every use, and a test checks that every key
is used and every used key exists.
"""

from __future__ import annotations

import functools

from handbook.core.messages import (
    checker,
    cli,
    configurator,
    deployment,
    diagrams,
    doctor,
    exports,
    planner,
    production,
    releases,
    site,
    versions,
)
from handbook.core.text import LANGS, Text

DOMAINS = {
    "site": site.MESSAGES,
    "checker": checker.MESSAGES,
    "planner": planner.MESSAGES,
    "diagrams": diagrams.MESSAGES,
    "exports": exports.MESSAGES,
    "versions": versions.MESSAGES,
    "configurator": configurator.MESSAGES,
    "deployment": deployment.MESSAGES,
    "releases": releases.MESSAGES,
    "doctor": doctor.MESSAGES,
    "production": production.MESSAGES,
    "cli": cli.MESSAGES,
}


def _merge() -> dict[str, tuple[str, str]]:
    out: dict[str, tuple[str, str]] = {}
    for domain, messages in DOMAINS.items():
        for key, pair in messages.items():
            if key in out:
                raise ValueError(f"message {key!r} of {domain} is defined in another domain too")
            out[key] = pair
    return out


CATALOGUE = _merge()

# Each language's name, by its code: ``msg(LANG_KEYS[code], lang)`` names it in ``lang``.
LANG_KEYS: dict[str, str] = {"zh": "lang-zh", "en": "lang-en"}


def msg(key: str, lang: str, /, **values: object) -> str:
    """One entry in ``lang``, its fields filled in."""
    zh, en = CATALOGUE[key]
    return (zh if lang == LANGS[0] else en).format(**values)


def message(key: str, /, **values: object) -> Text:
    """One entry in both languages, its fields filled in; a value that is itself a ``Text`` (a hint, an
    expectation, a KB sentence) gives each language its own part. Remembered: a paste of thousands of the
    same mistake asks for the same words thousands of times."""
    try:  # each value's type in the key: 1, 1.0 and True are equal keys but read "1", "1.0" and "True"
        return _remembered(key, tuple((name, type(v), v) for name, v in values.items()))
    except TypeError:  # a value that cannot be a dictionary key
        return _composed(key, values)


@functools.lru_cache(maxsize=4096)
def _remembered(key: str, values: tuple[tuple[str, type, object], ...]) -> Text:
    return _composed(key, {name: v for name, _, v in values})


def _composed(key: str, values: dict[str, object]) -> Text:
    return Text.of(
        *(msg(key, lang, **{name: v[lang] if isinstance(v, Text) else v for name, v in values.items()}) for lang in LANGS)
    )
