"""Every check of the KB beyond loading it, in one registry: ``python -m handbook validate`` and the site
build run exactly these, and each problem is located like a schema error (``file:line: field: message``).

Loading (``handbook.kb.loader``) already holds the schema, the layout and the references between entities;
these need more than the KB: computations, the pinned engine snapshot, or the pages under docs/.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from handbook.calc.claims import check_claims
from handbook.calc.thresholds import source_thresholds
from handbook.core.problem import Problem
from handbook.core.text import LANGS
from handbook.engine.snapshot import EngineSnapshot, SnapshotError, load_snapshot
from handbook.kb.loader import KB
from handbook.pages.headings import source_parity
from handbook.pages.translations import missing_translations
from handbook.validation import (
    checkpoints,
    engine,
    glossary,
    metrics,
    pages,
    placement,
    rules,
    values,
    wording,
)

Scope = Literal["kb", "engine", "pages"]


@dataclass(frozen=True)
class Inputs:
    """What a check may read. ``snapshot`` is None when it cannot be loaded (reported once, by
    ``engine-snapshot``); ``docs_dir`` is None when the KB has no docs/ beside it (a test's copy)."""

    kb: KB
    snapshot: EngineSnapshot | None
    docs_dir: Path | None


@dataclass(frozen=True)
class Check:
    name: str
    scope: Scope  # kb: the KB alone; engine: the KB and the snapshot; pages: the KB and docs/
    about: str
    run: Callable[[Inputs], list[Problem]]


def _claims(inputs: Inputs) -> list[Problem]:
    kb = inputs.kb
    return [kb.origin(claim).at(("stated_values",), message) for claim, message in check_claims(kb)]


def _alert_thresholds(inputs: Inputs) -> list[Problem]:
    kb = inputs.kb
    origin = kb.origin(kb.observability)
    return [origin.at(path, message) for path, message in source_thresholds(kb)[1]]


def _snapshot(inputs: Inputs) -> list[Problem]:
    kb = inputs.kb
    try:
        load_snapshot(kb.handbook.engine_version)
    except SnapshotError as exc:
        return [kb.origin(kb.handbook).at(("engine_version",), str(exc))]
    return []


CHECKS: tuple[Check, ...] = (
    Check("claims", "kb", "the figures the KB states, recomputed", _claims),
    Check(
        "alert-thresholds",
        "kb",
        "the texts the production alerts read a threshold from state one",
        _alert_thresholds,
    ),
    Check(
        "recipe-placement",
        "kb",
        "a server recipe's gpus and nodes are what its command spans (dp × tp × pp, --nnodes) and fit a node",
        lambda i: placement.placement_problems(i.kb),
    ),
    Check(
        "rule-predicates",
        "kb",
        "each rule names a predicate and gives it valid parameters",
        lambda i: rules.rule_problems(i.kb),
    ),
    Check(
        "engine-wording",
        "engine",
        "a text that says what the engine does references the rule that holds its verdict",
        lambda i: wording.engine_wording_problems(i.kb, i.snapshot),
    ),
    Check(
        "source-wording",
        "kb",
        "KB text calls the source text the source (源稿), not the handbook (手册), which is this site",
        lambda i: wording.handbook_wording_problems(i.kb),
    ),
    Check(
        "precision-hardware",
        "kb",
        "no precision is claimed where the engine refuses its quantization; commands name listed hardware",
        lambda i: checkpoints.checkpoint_problems(i.kb, i.kb.handbook.engine_version),
    ),
    Check("engine-snapshot", "kb", "the engine snapshot kb/handbook.yaml pins exists", _snapshot),
    Check(
        "engine-parameters",
        "engine",
        "parameters, aliases and abbreviations are the engine's",
        lambda i: engine.parameter_problems(i.kb, i.snapshot),
    ),
    Check(
        "engine-rules",
        "engine",
        "rules name engine flags; each example breaks its rule",
        lambda i: engine.rule_problems(i.kb, i.snapshot),
    ),
    Check(
        "engine-variables",
        "engine",
        "SGLANG_* variables are in the engine's registry",
        lambda i: engine.env_problems(i.kb, i.snapshot),
    ),
    Check(
        "engine-metrics",
        "engine",
        "every metric name the KB writes is one the engine's /metrics serves (a family or a sample)",
        lambda i: metrics.metric_name_problems(i.kb, i.snapshot),
    ),
    Check(
        "engine-recipes",
        "engine",
        "every recipe, as published, passes the checker",
        lambda i: engine.recipe_problems(i.kb, i.snapshot),
    ),
    Check(
        "engine-deployments",
        "engine",
        "the commands of each deployment connect: router targets, hosts, ports, PD roles, bootstraps, nodes",
        lambda i: engine.deployment_problems(i.kb, i.snapshot),
    ),
    Check(
        "kb-values",
        "engine",
        "every flag and value written in KB text is the engine's and breaks no rule it enforces unreferenced",
        lambda i: values.kb_value_problems(i.kb, i.snapshot),
    ),
    Check(
        "catalogue-values",
        "engine",
        "the same for the site's own wording (handbook/core/messages)",
        lambda i: values.catalogue_value_problems(i.kb, i.snapshot),
    ),
    Check(
        "translations",
        "pages",
        "every page exists in both languages",
        lambda i: missing_translations(i.docs_dir),
    ),
    Check(
        "heading-parity",
        "pages",
        "both languages have the same headings and anchors",
        lambda i: source_parity(i.docs_dir, LANGS),
    ),
    Check(
        "page-commands",
        "pages",
        "the shell blocks written in the pages pass the checker",
        lambda i: pages.docs_command_problems(i.docs_dir, LANGS, i.snapshot, i.kb),
    ),
    Check(
        "glossary",
        "pages",
        "both languages use the glossary's spelling of each term, never a variant it avoids",
        lambda i: glossary.glossary_problems(i.kb, i.docs_dir),
    ),
    Check(
        "page-values",
        "pages",
        "the same for the pages' prose, tables and non-shell blocks",
        lambda i: values.page_value_problems(i.docs_dir, LANGS, i.kb, i.snapshot),
    ),
    Check(
        "rule-links",
        "pages",
        "each rule's explained_at names an anchor of both languages",
        lambda i: pages.rule_link_problems(i.docs_dir, LANGS, i.kb),
    ),
)


def docs_beside(kb: KB) -> Path | None:
    """The docs/ folder of the KB's repository, when it holds both languages."""
    docs = kb.root.resolve().parent / "docs"
    return docs if all((docs / lang).is_dir() for lang in LANGS) else None


def run_checks(kb: KB, docs_dir: Path | None = None) -> list[Problem]:
    """Every registered check's problems, sorted by file and line. Pages are checked when ``docs_dir`` is
    given or the KB has a docs/ beside it; engine checks need the pinned snapshot."""
    try:
        snapshot: EngineSnapshot | None = load_snapshot(kb.handbook.engine_version)
    except SnapshotError:
        snapshot = None
    inputs = Inputs(kb, snapshot, docs_dir or docs_beside(kb))
    problems: list[Problem] = []
    for check in CHECKS:
        if check.scope == "pages" and (inputs.docs_dir is None or snapshot is None):
            continue
        if check.scope == "engine" and snapshot is None:
            continue
        problems += check.run(inputs)
    return sorted(problems, key=lambda p: p.order)
