"""The configurator and the command doctor: their exports, and the configurator's checked result.

``Configurator(kb, snapshot).configure(choice)`` is what the page and ``python -m handbook configure`` show:
the composer's result (handbook.calc.configure) with each command checked by the command checker, exactly
as the page's scripts do it (docs/assets/configure.js, then checker.js). A composed command the checker
finds an error in is never shown: the combination is refused with the checker's words. ``doctor_exports``
computes the two exports the pages load (assets/checker-data.json, assets/configurator-data.json); the
configurator's carries every planner result any combination asks for, computed here by composing them all.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import Any

from handbook.calc.configure import (
    CONFIGURATOR_DATA_PATH,
    Composer,
    Planner,
    T,
    configurator_data,
    plan_record,
)
from handbook.calc.memory import Plan
from handbook.checker.check import check_command
from handbook.checker.export import CHECKER_DATA_PATH, checker_data
from handbook.checker.findings import Finding
from handbook.core.formatting import json_safe, thousands
from handbook.core.messages import DOMAINS, message
from handbook.core.paths import DOCS_DIR
from handbook.core.text import LANGS, Text
from handbook.engine.snapshot import EngineSnapshot
from handbook.kb.loader import KB
from handbook.render.planner import figure_texts

# The planner's rows the configurator shows under a command (render/planner.py words each, as on the planner's
# page; the state pool's only for a model that has one). doctor.js and ``python -m handbook configure`` label
# them with the planner's own labels (FIGURE_KEYS there).
PLAN_ROWS = (
    "gpu",
    "fraction",
    "weights-gpu",
    "state",
    "kv-pool",
    "rest",
    "max-tokens",
    "requests",
    "running",
)

# Each role's name, as the refusal quotes it (configure.js has the same map).
ROLE_KEYS = {
    "standalone": "cfg-role-standalone",
    "prefill": "cfg-role-prefill",
    "decode": "cfg-role-decode",
    "router": "cfg-role-router",
}


def finding_json(finding: Finding) -> dict[str, Any]:
    return {
        "severity": finding.severity,
        "code": finding.code,
        "message": T(finding.message),
        "line": finding.line,
        "subject": finding.subject,
        "link": finding.link,
        "rule": finding.rule,
        "edits": [list(edit) for edit in finding.edits],
        "edit_line": finding.edit_line,
        "impact": finding.impact,
    }


def plan_figures(kb: KB, plan: Plan) -> dict[str, Any]:
    """A plan's rows as the planner's page words them: one text where both languages write the same (most
    are numbers), else {zh, en}; and its context (the requests row's label names it)."""
    model = kb.models[plan.model]
    texts = {lang: figure_texts(plan, model, lang) for lang in LANGS}
    out: dict[str, Any] = {}
    for row in PLAN_ROWS:
        if row == "state" and "linear-state" not in plan.notes:
            continue
        both = {lang: texts[lang][row] for lang in LANGS}
        out[row] = both[LANGS[0]] if len(set(both.values())) == 1 else both
    out["context"] = thousands(plan.context)
    return out


class Configurator:
    """Every combination's result, checked; the exports the pages read."""

    def __init__(self, kb: KB, snapshot: EngineSnapshot, docs_dir: Path = DOCS_DIR):
        self.kb = kb
        self.snapshot = snapshot
        self.data = configurator_data(kb, snapshot, docs_dir)
        self.planner = Planner(kb)
        self.composer = Composer(kb, self.data, self.planner, figures=self.figures)
        self._checked: dict[tuple[str, str], list[dict[str, Any]]] = {}

    def figures(self, plan: Plan) -> dict[str, Any]:
        return plan_figures(self.kb, plan)

    def check(self, text: str, model: str) -> list[dict[str, Any]]:
        key = (text, model)
        if key not in self._checked:
            self._checked[key] = [
                finding_json(f) for f in check_command(text, self.snapshot, self.kb, model=model)
            ]
        return self._checked[key]

    def configure(self, choice: dict[str, Any]) -> dict[str, Any]:
        result = self.composer.compose(choice)
        errors = []
        for command in result["commands"]:
            command["findings"] = self.check(command["text"], choice["model"])
            role = message(ROLE_KEYS[command["role"]])
            for finding in command["findings"]:
                if finding["severity"] == "error":
                    said = Text.of(finding["message"]["zh"], finding["message"]["en"])
                    errors.append(T(message("cfg-refused-checker", role=role, message=said)))
        if errors:
            result.update(
                status="refused", why=errors, notes=[], commands=[], headline=T(message("cfg-status-refused"))
            )
        return result

    def choices(self) -> list[dict[str, Any]]:
        return self.composer.choices()

    @cached_property
    def results(self) -> list[dict[str, Any]]:
        """Every combination the page offers, composed and checked."""
        return [self.configure(choice) for choice in self.choices()]

    @cached_property
    def composed(self) -> list[dict[str, Any]]:
        """Every combination composed, unchecked: what fills the planner's results for the export."""
        silent = Composer(self.kb, self.data, self.planner, words=False)
        return [silent.compose(choice) for choice in self.choices()]

    def export(self) -> dict[str, Any]:
        """assets/configurator-data.json: the composer's data, its wording and every planner result."""
        self.composed  # noqa: B018 - compose everything first: the planner keeps what was asked
        data = dict(self.data)
        data["messages"] = {key: list(pair) for key, pair in DOMAINS["configurator"].items()}
        data["autos"] = dict(sorted(self.planner.autos.items()))
        # the rows only for the plans a command shows (the others decide a refusal or a TP)
        shown = {c["plan"]["key"] for r in self.composed for c in r["commands"] if c["plan"] is not None}
        data["plans"] = {
            key: None
            if plan is None
            else {**plan_record(plan), **({"figures": self.figures(plan)} if key in shown else {})}
            for key, plan in sorted(self.planner.plans.items())
        }
        data["default_choice"] = self.default_choice()
        return data

    def default_choice(self) -> dict[str, Any]:
        """What the page opens with: the first combination, in the form's order, that the handbook answers
        with one of its own commands."""
        for choice, result in zip(self.choices(), self.composed, strict=True):
            if result["status"] == "recipe" and not choice["pd"]:
                return choice
        return self.choices()[0]


def canonical_json(data: Any) -> str:
    """Compact, sorted, UTF-8 as is: both language builds write the same bytes; <, > and & as \\u escapes
    (json_safe), so KB text in it is never markup."""
    return json_safe(json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))) + "\n"


def doctor_exports(
    kb: KB, snapshot: EngineSnapshot, docs_dir: Path = DOCS_DIR
) -> dict[str, Callable[[], str]]:
    """Both exports the pages load: path under the site's root → what computes its text."""
    return {
        CHECKER_DATA_PATH: lambda: canonical_json(checker_data(snapshot, kb)),
        CONFIGURATOR_DATA_PATH: lambda: canonical_json(Configurator(kb, snapshot, docs_dir).export()),
    }
