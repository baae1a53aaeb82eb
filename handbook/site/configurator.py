"""The configurator and the command doctor: their exports, and the configurator's checked answers.

``Configurator(kb, snapshot).configure(choice)`` is what the page and ``python -m handbook configure`` show:
the composer's answer (handbook.calc.configure) with each command checked by the command checker. A
composed command the checker finds an error in is never shown: the combination is refused with the
checker's words. ``doctor_exports`` computes what the pages load: the checker's export
(assets/checker-data.json), the configurator's form (assets/configurator-data.json) and, per model ×
accelerator, every answer the form can ask for (assets/configurator/<model>/<accelerator>.json), which
docs/assets/doctor.js only renders.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import Any

from handbook.calc.configure import (
    CONFIGURATOR_ANSWERS_DIR,
    CONFIGURATOR_DATA_PATH,
    Composer,
    Planner,
    T,
    choice_key,
    configurable_models,
    configurator_data,
)
from handbook.calc.memory import Plan
from handbook.checker.check import check_command
from handbook.checker.export import CHECKER_DATA_PATH, checker_data
from handbook.checker.findings import Finding
from handbook.core.formatting import json_safe, thousands
from handbook.core.messages import message
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

# Each role's name, as the refusal quotes it.
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
    """Every combination's answer, checked; the data the page loads."""

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
        """The composer's answer with each command checked; a command with an error is never shown."""
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

    def choices(self, model: str | None = None, gpu: str | None = None) -> list[dict[str, Any]]:
        return self.composer.choices(model, gpu)

    @cached_property
    def results(self) -> list[dict[str, Any]]:
        """Every combination the page offers, composed and checked."""
        return [self.configure(choice) for choice in self.choices()]

    def form(self) -> dict[str, Any]:
        """assets/configurator-data.json: what the form offers, and where each pair's answers are."""
        d = self.data
        return {
            "schema_version": d["schema_version"],
            "engine_version": self.snapshot.sglang_version,
            "models": [
                {
                    "id": m["id"],
                    "name": m["name"],
                    "pd": m["pd"],
                    "contexts": m["contexts"],
                    "native": m["native"],
                }
                for m in d["models"]
            ],
            "hardware": [{"id": h["id"], "name": h["name"], "gpus": h["gpus"]} for h in d["hardware"]],
            "goals": [{"id": g["id"], "kind": g["kind"], "name": g["name"]} for g in d["goals"]],
            "nodes": d["nodes"],
            "sections": d["sections"],
            "answers": CONFIGURATOR_ANSWERS_DIR.removeprefix("assets/") + "/{model}/{gpu}.json",
            "default_choice": self.default_choice(),
        }

    def answers(self, model: str, gpu: str) -> dict[str, Any]:
        """Every answer for one model × accelerator: the precisions offered there, and each choice's answer.
        What answers share is stored once: a result names its commands and texts by their index in
        ``commands`` and ``texts`` (docs/assets/doctor.js looks them up)."""
        offered = self.composer.precisions(model, gpu)
        tables: dict[str, dict[str, int]] = {"commands": {}, "texts": {}, "results": {}}
        stored: dict[str, list[Any]] = {"commands": [], "texts": [], "results": []}

        def index(kind: str, value: Any) -> int:
            text = json.dumps(value, sort_keys=True, ensure_ascii=False)
            if text not in tables[kind]:
                tables[kind][text] = len(stored[kind])
                stored[kind].append(value)
            return tables[kind][text]

        keys: dict[str, int] = {}
        shared: dict[str, Any] = {}
        for choice in self.choices(model, gpu):
            result = self.configure(choice)
            # the same for every choice of the pair (and of its precision): stored once, beside the answers
            shared["section"] = result.pop("section")
            shared.setdefault("sources", {})[choice["precision"] or ""] = result.pop("sources")
            del result["related"]  # the model's commands, below: the page leaves out those it shows
            del result["choice"]
            for field in ("why", "notes"):
                result[field] = [index("texts", text) for text in result[field]]
            result["headline"] = index("texts", result["headline"])
            result["commands"] = [index("commands", command) for command in result["commands"]]
            keys[choice_key(choice)] = index("results", result)
        shared["related"] = [
            {"id": r["id"], "title": r["title"], "link": r["link"]}
            for r in self.data["recipes"]
            if r["model"] == model and r["link"] and r["program"] == "launch_server"
        ]
        return {
            "precisions": [{"dtype": p["dtype"], "name": p["name"]} for p in offered],
            "keys": keys,
            **shared,
            **stored,
        }

    def default_choice(self) -> dict[str, Any]:
        """What the page opens with: the first combination, in the form's order, that the handbook answers
        with one of its own commands."""
        for choice in self.choices():
            if choice["precision"] is None or choice["pd"]:
                continue
            if self.composer.compose(choice)["status"] == "recipe":
                # the largest context the same command still serves
                contexts = self.composer.models[choice["model"]]["contexts"]
                for context in reversed(contexts):
                    wider = {**choice, "context": context}
                    if self.composer.compose(wider)["status"] == "recipe":
                        return wider
                return choice
        return self.choices()[0]


def canonical_json(data: Any) -> str:
    """Compact, sorted, UTF-8 as is: both language builds write the same bytes; <, > and & as \\u escapes
    (json_safe), so KB text in it is never markup."""
    return json_safe(json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))) + "\n"


def doctor_exports(
    kb: KB, snapshot: EngineSnapshot, docs_dir: Path = DOCS_DIR
) -> dict[str, Callable[[], str]]:
    """What the pages load: path under the site's root → what computes its text. The configurator is built
    on the first computation only (a build whose exports are all stored never builds it)."""
    configurator = functools.cache(lambda: Configurator(kb, snapshot, docs_dir))
    exports: dict[str, Callable[[], str]] = {
        CHECKER_DATA_PATH: lambda: canonical_json(checker_data(snapshot, kb)),
        CONFIGURATOR_DATA_PATH: lambda: canonical_json(configurator().form()),
    }
    for model in configurable_models(kb):
        for hw in kb.hardware.values():
            rel = f"{CONFIGURATOR_ANSWERS_DIR}/{model.id}/{hw.id}.json"
            exports[rel] = functools.partial(_answers_json, configurator, model.id, hw.id)
    return exports


def _answers_json(configurator: Callable[[], Configurator], model: str, hw: str) -> str:
    return canonical_json(configurator().answers(model, hw))
