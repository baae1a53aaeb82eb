"""The configurator: what a deployer knows (a model, an accelerator, GPUs per node, nodes, a goal, the context
they need, PD or not) → the handbook's own command when one serves it, else a command composed from the KB
with a true reason for every flag, or why there is none and the nearest choice that has one.

A precision is offered only on the accelerators a source names it on (kb/models ``runs_on``). The site
computes every answer at build time (handbook.site.configurator, per model × accelerator); the page only
renders them. Every value in a command comes from the KB: a recipe, the planner (handbook.calc.memory and
launch), the model's parsers, a tuning scenario, the reader's own inputs, or a placeholder the reader fills
in; a flag with no such reason is left to the engine.

The planner is reached through ``Planner`` alone (its defaults, auto TP, plan figures and launch flags), so
that a change of the planner's arithmetic changes the answers and nothing else.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from handbook.calc import memory
from handbook.calc.checkpoints import command_precision, listed_hardware
from handbook.calc.launch import launch_flags, model_path, rule_flags, rule_max_running_requests
from handbook.calc.memory import Plan
from handbook.calc.planner_data import kv_dtypes
from handbook.calc.recipe_text import INDENT, MODULES, ONE_LINE_MAX, command_text, module_of
from handbook.core.anchors import PARAMETERS_PAGE, option_anchor, parameter_anchor
from handbook.core.formatting import thousands
from handbook.core.messages import message
from handbook.core.paths import DOCS_DIR
from handbook.core.text import LANGS, Text
from handbook.engine.snapshot import EngineSnapshot
from handbook.kb.common import flag_line_text, flags_in
from handbook.kb.loader import KB
from handbook.kb.schema import Dtype, Hardware, Model, Recipe
from handbook.pages.headings import source_headings

SCHEMA_VERSION = 1
CONFIGURATOR_DATA_PATH = "assets/configurator-data.json"  # the form's choices
CONFIGURATOR_ANSWERS_DIR = "assets/configurator"  # <model>/<accelerator>.json: every answer for the pair
PLANNER_PAGE = "planner.md"

NODE_CHOICES = (1, 2, 4)  # nodes the reader has
GPU_CHOICES = (1, 2, 4, 8)  # GPUs per node the reader has (up to the node size the KB gives)
# the contexts the form offers, up to the model's native context (with it and its extended one)
CONTEXT_CHOICES = (8192, 32768, 131072, 262144, 1048576)
CONTEXT_FLAG = "--context-length"
ROLES_PD = ("prefill", "decode", "router")


@dataclass(frozen=True)
class Goal:
    id: str
    kind: str  # "strategy" (chapter 06's tiers) | "scenario" (chapter 07's table)
    scenario: str | None  # the kb/tuning.yaml scenario whose flags it adds
    strategies: tuple[str, ...]  # the recipe strategies (kb/recipes) that are this goal
    label: str | None  # the wording key of a strategy's name; a scenario is named by the KB


# The source's three tiers (06 · DeepSeek-V4-Pro, "Low-Latency / Balanced / High-Throughput") take the flags
# of chapter 07's matching scenario; the other scenarios are goals of their own. Kimi's middle tier,
# High-Concurrency, is its Balanced (the page says so when it shows that command).
GOALS: tuple[Goal, ...] = (
    Goal("low-latency", "strategy", "low-latency-chat", ("latency",), "cfg-goal-low-latency"),
    Goal("balanced", "strategy", None, ("balanced", "concurrency"), "cfg-goal-balanced"),
    Goal("high-throughput", "strategy", "high-throughput-batch", ("throughput",), "cfg-goal-high-throughput"),
    Goal("long-context-rag", "scenario", "long-context-rag", ("long-context",), None),
    Goal("multi-turn-agent", "scenario", "multi-turn-agent", (), None),
    Goal("mixed-online", "scenario", "mixed-online", (), None),
)
# Recipe strategies that name no goal: the model's plain command for that hardware, a base for any goal.
NEUTRAL = (None, "baseline", "multi-gpu", "tool-calling", "reference")

# The flags the planner sizes memory with: a goal that sets one changes the plan, not just the command.
# (The planner's other inputs, --max-total-tokens and --swa-full-tokens-ratio, are set by no command or
# scenario of the KB; tests/test_configurator.py keeps it so.)
PLAN_FLAGS = (
    "--tp-size",
    "--ep-size",
    "--mem-fraction-static",
    "--kv-cache-dtype",
    "--context-length",
    "--page-size",
    "--max-running-requests",
)
SETTINGS_FLAGS = PLAN_FLAGS[2:]  # Settings' fields, in order

# What multi-node and PD commands add, as chapter 05's examples write it (kb/recipes/deepseek-v3-pd-*.yaml:
# --dist-init-addr …:5000, --nnodes, --node-rank; pd-router-local.yaml and llama-3.1-8b-pd-*.yaml: the
# ports 30000 / 30001 / 8000, --disaggregation-ib-device). Placeholders stand for what only the reader knows.
DIST_PORT = "5000"
PD_PORTS = {"prefill": "30000", "decode": "30001"}
PD_HOSTS = {"prefill": "<prefill-ip>", "decode": "<decode-ip>"}
PD_MASTERS = {"standalone": "<master-ip>", "prefill": "<prefill-master-ip>", "decode": "<decode-master-ip>"}
ROUTER_LINES = (
    "--pd-disaggregation",
    "--prefill http://<prefill-ip>:30000",
    "--decode http://<decode-ip>:30001",
    "--host 0.0.0.0",
    "--port 8000",
)

_MARKER = re.compile(r"<!--\s*kb:recipe(?:-tabs|-set)?\s+(?:id|ids)=([\w.,-]+)")


def T(value: Text) -> dict[str, str]:
    return {"zh": value.zh, "en": value.en}


# ------------------------------------------------------------------------------------------ the planner
def _number(text: str, kind: type) -> Any:
    try:
        value = kind(text)
    except ValueError:
        return None
    return value


@dataclass(frozen=True)
class Settings:
    """The planner's inputs as a command writes them ("" where the command leaves them to the engine or to
    the planner: the engine's own --mem-fraction-static and page size, the model's native context)."""

    mem: str = ""
    kv: str = ""
    context: str = ""
    page: str = ""
    running: str = ""

    @classmethod
    def of(cls, flags: dict[str, str]) -> Settings:
        """From a command's plan flags (``Composer.settings``)."""
        return cls(*(flags.get(flag, "") for flag in SETTINGS_FLAGS))

    def key(self) -> str:
        return f"{self.mem}|{self.kv}|{self.context}|{self.page}|{self.running}"


@dataclass(frozen=True)
class Refusal:
    """Why the planner composes no command: the message with its values, and the nearest choice with one."""

    key: str
    values: dict[str, Any]
    alternative: dict[str, Any] | None = None


@dataclass(frozen=True)
class PlannerTp:
    """The TP the planner's command runs at, and why."""

    tp: int
    span: int  # the nodes one instance spans
    basis: str  # memory.AutoTp's basis
    why: Text  # the --tp-size line's reason
    settings: Settings


@dataclass(frozen=True)
class Inputs:
    """``Settings`` read as the planner takes them (None: the engine's or the planner's own value)."""

    mem: float | None
    kv: Dtype
    context: int | None
    page: int | None
    running: int | None


def plan_record(p: Plan) -> dict[str, Any]:
    """What the composer and the page read of a plan: the bar's byte figures (planner.js's renderBar),
    the fraction that sized the pool, the tokens, and the fields no source gives (memory / weights / kv)."""
    return {
        "free": p.free_bytes,
        "static": p.static_bytes,
        "rest": p.rest_bytes,
        "weights": p.weights_per_gpu,
        "budget": p.kv_budget_bytes,
        "pool": p.kv_pool_bytes,
        "mm": p.mm_reserve_bytes,
        "fraction": p.mem_fraction_static,
        "tokens": p.max_tokens,
        "missing": {part: list(fields) for part, fields in sorted(p.missing.items())},
    }


class Planner:
    """The configurator's one door to the planner (handbook.calc.memory and launch); every plan it makes is
    kept, by key, so that the answers for one model × accelerator reuse them."""

    def __init__(self, kb: KB):
        self.kb = kb
        self.kv_default = kb.dtypes[kv_dtypes(kb)[0]]
        self.autos: dict[str, list[Any] | None] = {}
        self.plans: dict[str, Plan | None] = {}
        self._kv_by_value = {d.engine_kv_value: d for d in kb.dtypes.values() if d.engine_kv_value}

    def _inputs(self, s: Settings) -> Inputs | None:
        """None where a value is one the planner does not take (the page then shows no plan)."""
        mem = None if not s.mem else _number(s.mem, float)
        kv = self.kv_default if not s.kv else self._kv_by_value.get(s.kv)
        context = None if not s.context else _number(s.context, int)
        page = None if not s.page else _number(s.page, int)
        running = None if not s.running else _number(s.running, int)
        if kv is None or (s.mem and (mem is None or not 0 < mem < 1)):
            return None
        if any(given and (value is None or value < 1) for given, value in
               ((s.context, context), (s.page, page), (s.running, running))):  # fmt: skip
            return None
        return Inputs(mem, kv, context, page, running)

    def auto(self, model: Model, hw: Hardware, dtype: str, s: Settings) -> list[Any] | None:
        """[tp, basis] of the planner's automatic TP (memory.auto_tp), or None for unusable settings."""
        key = f"{model.id}|{hw.id}|{dtype}|{s.key()}"
        if key not in self.autos:
            inputs = self._inputs(s)
            if inputs is None:
                self.autos[key] = None
                return None
            found = memory.auto_tp(
                model,
                hw,
                self.kb.dtypes[dtype],
                inputs.kv,
                mem_fraction_static=inputs.mem,
                context=inputs.context,
            )
            self.autos[key] = [found.tp, found.basis]
        return self.autos[key]

    def plan(self, model: Model, hw: Hardware, dtype: str, tp: str, ep: str, s: Settings) -> Plan | None:
        """The planner's plan for a command's settings; None where the planner cannot read them."""
        key = f"{model.id}|{hw.id}|{dtype}|{tp}|{ep}|{s.key()}"
        if key not in self.plans:
            inputs = self._inputs(s)
            tp_n = _number(tp or "1", int)
            ep_n = _number(ep or "1", int)
            found = None
            if inputs is not None and tp_n and ep_n and tp_n >= 1 and 1 <= ep_n <= tp_n and tp_n % ep_n == 0:
                found = self._sized(model, hw, dtype, inputs, tp_n, ep=ep_n, running=inputs.running)
            self.plans[key] = found
        return self.plans[key]

    def record(
        self, model: Model, hw: Hardware, dtype: str, tp: str, ep: str, s: Settings
    ) -> dict[str, Any] | None:
        found = self.plan(model, hw, dtype, tp, ep, s)
        return None if found is None else plan_record(found)

    def launch_lines(
        self, model: Model, hw: Hardware, dtype: str, tp: int, s: Settings, path: str
    ) -> list[tuple[str, str]]:
        """The planner's launch flags for this TP and these settings, (flag, value) in order, as its page
        and ``python -m handbook plan`` suggest them: the rules' --max-running-requests sizes the plan too."""
        inputs = self._inputs(s)
        assert inputs is not None, s
        rules = rule_flags(self.kb, model)
        running = inputs.running if inputs.running is not None else rule_max_running_requests(rules, tp)
        p = self._sized(model, hw, dtype, inputs, tp, running=running)
        return launch_flags(p, model, inputs.kv, path, rules)

    def _sized(
        self,
        model: Model,
        hw: Hardware,
        dtype: str,
        inputs: Inputs,
        tp: int,
        *,
        running: int | None,
        ep: int = 1,
    ) -> Plan:
        """memory.plan with the settings a command gives (the rest left to the planner's defaults)."""
        return memory.plan(
            model,
            hw,
            self.kb.dtypes[dtype],
            inputs.kv,
            tp,
            mem_fraction_static=inputs.mem,
            context=inputs.context,
            page_size=inputs.page,
            ep=ep,
            max_running_requests=running,
        )


# ------------------------------------------------------------------------------------------ KB facts
def checkpoint(kb: KB, model: Model, dtype: str) -> tuple[str | None, str | None, str | None]:
    """(path, basis, recipe id) of the checkpoint the configurator launches ``model`` in ``dtype`` with.

    The planner's choice (launch.model_path), except that a command whose precision the handbook does not
    state is taken only when the model lists one precision without a checkpoint: with several, which of
    them it is would be a guess."""
    found = model_path(kb, model, dtype)
    if found.path is None:
        return None, None, None
    if found.basis == "recipe-unstated-precision":
        lacking = [p for p in model.precisions if not p.checkpoint]
        if len(lacking) != 1:
            return None, None, None
    basis = {"checkpoint": "checkpoint", "recipe": "recipe", "recipe-unstated-precision": "unstated"}[
        found.basis
    ]
    recipe = None
    if basis != "checkpoint":
        for r in kb.recipes.values():
            if r.model == model.id and r.kind == "launch" and _model_path(r) == found.path:
                if basis == "unstated" and r.precision is not None:
                    continue
                if basis == "recipe" and r.precision != dtype:
                    continue
                recipe = r.id
                break
        if recipe is None:  # only a fragment or a docker example names it: nothing to cite as a command
            return None, None, None
    return found.path, basis, recipe


def _model_path(recipe: Recipe) -> str | None:
    for flag, values in flags_in(recipe.flags):
        if flag in ("--model-path", "--model") and values:
            return values[0]
    return None


@dataclass(frozen=True)
class Sections:
    """Where the pages show each recipe: its section and the chapter section (h2) around it, as
    ``page.md#anchor``, and every such section's title in both languages."""

    of_recipe: dict[str, str]
    chapter_of_recipe: dict[str, str]
    titles: dict[str, dict[str, str]]


def recipe_sections(docs_dir: Path = DOCS_DIR) -> Sections:
    """Each recipe marker's section (the first place, in the default language's pages; both languages
    share anchors) and its h2, with the headings' text in each language."""
    of_recipe: dict[str, str] = {}
    chapter: dict[str, str] = {}
    titles: dict[str, dict[str, str]] = {}
    for lang in LANGS:
        root = docs_dir / lang
        for page in sorted(root.rglob("*.md")):
            rel = page.relative_to(root).as_posix()
            text = page.read_text(encoding="utf-8")
            headings = [h for h in source_headings(text) if h.anchor]
            for h in headings:
                titles.setdefault(f"{rel}#{h.anchor}", {})[lang] = h.text
            if lang != LANGS[0]:
                continue
            for number, line in enumerate(text.splitlines(), 1):
                match = _MARKER.search(line)
                above = [h for h in headings if h.line < number]
                if not match or not above:
                    continue
                h2 = [h for h in above if h.level == 2]
                for rid in match.group(1).split(","):
                    of_recipe.setdefault(rid, f"{rel}#{above[-1].anchor}")
                    if h2:
                        chapter.setdefault(rid, f"{rel}#{h2[-1].anchor}")
    return Sections(of_recipe, chapter, titles)


def flag_link(kb: KB, snapshot: EngineSnapshot, flag: str, program: str) -> str | None:
    """Where a flag is explained: its chapter-04 entry, else the engine's option reference."""
    parameter = kb.parameter(flag, program)
    if parameter is not None:
        return f"{PARAMETERS_PAGE}#{parameter_anchor(parameter.program, parameter.flag)}"
    option = snapshot.parser(program).get(flag)
    if option is not None:
        return f"engine-options.md#{option_anchor(program, option.name)}"
    return None


# ------------------------------------------------------------------------------------------ the data
@functools.lru_cache(maxsize=4096)
def _pairs(line: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    return tuple((flag, tuple(values)) for flag, values in flags_in([line]))


def line_pairs(line: str) -> list[list[Any]]:
    """The (flag, values) a flag line holds, as flags_in reads it."""
    return [[flag, list(values)] for flag, values in _pairs(line)]


def _lines(lines: list[str]) -> list[list[Any]]:
    """Each flag line with the (flag, values) it holds."""
    return [[line, line_pairs(line)] for line in lines]


def context_choices(model: Model) -> list[int]:
    """The contexts the form offers for ``model``: the round sizes up to its native context, the native
    context, and the extended one where the KB gives a way to reach it."""
    native = model.context.native if model.context else None
    extended = model.context.extended if model.context else None
    top = extended or native or memory.DEFAULT_CONTEXT
    found = {c for c in CONTEXT_CHOICES if c <= (native or memory.DEFAULT_CONTEXT)}
    found |= {c for c in (native, extended) if c}
    return sorted(c for c in found if c <= top)


def gpu_choices(hw: Hardware) -> list[int]:
    """GPUs per node the form offers: up to the node size the KB gives, else every choice."""
    return [n for n in GPU_CHOICES if hw.gpus_per_node is None or n <= hw.gpus_per_node]


def configurable_models(kb: KB) -> list[Model]:
    """The models the configurator offers: those with a precision (a checkpoint to run)."""
    return [model for model in kb.models.values() if model.precisions]


def configurator_data(kb: KB, snapshot: EngineSnapshot, docs_dir: Path = DOCS_DIR) -> dict[str, Any]:
    """The KB facts the composer reads."""
    sections = recipe_sections(docs_dir)
    pd_models = {r.model for r in kb.recipes.values() if r.deployment and r.role == "prefill" and r.model}
    models = [_model_entry(kb, model, sections, pd_models) for model in configurable_models(kb)]
    recipes = _recipe_entries(kb, {m["id"] for m in models}, sections)
    goals = _goal_entries(kb)
    flags = _command_flags(models, goals, recipes)
    router_flags = [flag for _, fv in _lines(list(ROUTER_LINES)) for flag, _ in fv]
    shown = {m["section"] for m in models} | {r["link"] for r in recipes}
    return {
        "schema_version": SCHEMA_VERSION,
        # the titles of the sections the results link to, in both languages
        "sections": {link: sections.titles[link] for link in sorted(shown - {None})},
        "models": models,
        "hardware": [
            {
                "id": h.id,
                "name": h.name,
                "vendor": h.vendor,
                "memory_gb": h.memory_gb,
                "gpus_per_node": h.gpus_per_node,
                "gpus": gpu_choices(h),
            }
            for h in kb.hardware.values()
        ],
        "sources": {
            sid: {
                "title": T(src.title),
                "url": src.url,
                "repository": src.repository,
                "file": src.file,
                "commit": src.commit,
            }
            for sid, src in sorted(kb.sources.items())
        },
        "goals": goals,
        "recipes": recipes,
        "nodes": list(NODE_CHOICES),
        "links": _flag_links(kb, snapshot, sorted(flags), "launch_server"),
        "router_links": _flag_links(kb, snapshot, router_flags, "launch_router"),
        "router_lines": _lines(list(ROUTER_LINES)),
        "canonical": _canonical(
            snapshot, flags | {f for r in recipes for _, fv in r["lines"] for f, _ in fv}
        ),
        # the TPs SGLang refuses for a model's heads (memory.layout_problems), for multi-node TPs
        "layout": {
            f"{m['id']}|{tp}": True
            for m in models
            for tp in memory.TP_CHOICES
            if memory.layout_problems(kb.models[m["id"]], tp)
        },
    }


def _precision_entries(kb: KB, model: Model) -> list[dict[str, Any]]:
    """Each precision of the model: its checkpoint, and the sources that name it on each accelerator."""
    precisions = []
    for p in model.precisions:
        sources: dict[str, list[dict[str, Any]]] = {}
        for entry in p.runs_on:
            for hw in entry.hardware:
                sources.setdefault(hw, []).append(
                    {"source": entry.source, "where": T(entry.where), "verified": entry.verified}
                )
        precisions.append(
            {
                "dtype": p.dtype,
                "name": kb.dtypes[p.dtype].name,
                "path": checkpoint(kb, model, p.dtype)[0],
                "hardware": listed_hardware(p),
                "runs_on": sources,
            }
        )
    return precisions


def _model_entry(kb: KB, model: Model, sections: Sections, pd_models: set[str]) -> dict[str, Any]:
    """What the composer reads of a model: precisions, parsers, contexts, recommended flags, rules."""
    own = [r for r in kb.recipes.values() if r.model == model.id]
    found = sections.chapter_of_recipe
    section = next((found[r.id] for r in own if found.get(r.id, "").startswith("06-")), None)
    rec = model.recommended
    return {
        "id": model.id,
        "name": model.name,
        "precisions": _precision_entries(kb, model),
        "tool_call": model.parsers.tool_call if model.parsers else None,
        "reasoning": model.parsers.reasoning if model.parsers else None,
        "pd": model.id in pd_models,
        "section": section,
        "native": model.context.native if model.context else None,
        "extended": model.context.extended if model.context else None,
        "contexts": context_choices(model),
        "key_flags": [flag_line_text(f) for f in rec.key_flags] if rec else [],
        "key_flag_names": [flags_in([flag_line_text(f)])[0][0] for f in rec.key_flags] if rec else [],
        "layout": T(rec.layout) if rec else None,
        "rules": {r.flag: r.rule for r in rule_flags(kb, model)},
        "heads": model.config.num_attention_heads,
    }


def _recipe_entries(kb: KB, models: set[str], sections: Sections) -> list[dict[str, Any]]:
    """The launch and router commands of the configurable models, as the composer starts from them."""
    return [
        _recipe(kb, recipe, sections.of_recipe)
        for recipe in kb.recipes.values()
        if recipe.model in models
        and recipe.program in ("launch_server", "launch_router")
        and recipe.kind in ("launch", "router")
    ]


def _goal_entries(kb: KB) -> list[dict[str, Any]]:
    """Each goal with its name and the flags of its tuning scenario, less the context (the reader's own)."""
    goals = []
    scenarios = {s.id: s for s in kb.tuning.scenarios}
    for goal in GOALS:
        scenario = scenarios.get(goal.scenario) if goal.scenario else None
        name = T(message(goal.label)) if goal.label else T(scenario.name)  # type: ignore[union-attr]
        # the context is the reader's own input: a scenario's --context-length gives way to it
        lines = [
            line for line in (scenario.flags if scenario else []) if flags_in([line])[0][0] != CONTEXT_FLAG
        ]
        goals.append(
            {
                "id": goal.id,
                "kind": goal.kind,
                "name": name,
                "strategies": list(goal.strategies),
                "scenario": T(scenario.name) if scenario else None,
                "reason": T(scenario.reason) if scenario else None,
                "lines": _lines(lines),
            }
        )
    return goals


def _command_flags(
    models: list[dict[str, Any]], goals: list[dict[str, Any]], recipes: list[dict[str, Any]]
) -> set[str]:
    """Every launch_server flag a composed command can hold: the planner's, the parsers', the multi-node and
    PD ones, the goals', the models' rules, and the launch recipes'."""
    flags = set(PLAN_FLAGS) | {"--model-path", "--reasoning-parser", "--tool-call-parser"}
    flags |= {"--nnodes", "--node-rank", "--dist-init-addr", "--disaggregation-mode"}
    flags |= {
        "--disaggregation-ib-device",
        "--host",
        "--port",
        "--swa-full-tokens-ratio",
        "--max-total-tokens",
    }
    for g in goals:
        flags |= {f for _, fv in g["lines"] for f, _ in fv}
    for m in models:
        flags |= set(m["rules"])
    flags |= {f for r in recipes if r["program"] == "launch_server" for _, fv in r["lines"] for f, _ in fv}
    return flags


def _flag_links(kb: KB, snapshot: EngineSnapshot, flags: list[str], program: str) -> dict[str, str]:
    """Each flag's link to its parameter's entry, where it has one (in the order given)."""
    links = {}
    for flag in flags:
        link = flag_link(kb, snapshot, flag, program)
        if link:
            links[flag] = link
    return links


def _canonical(snapshot: EngineSnapshot, flags: set[str]) -> dict[str, str]:
    """Each spelling → the option's canonical name, where they differ (aliases)."""
    parser = snapshot.parser("launch_server")
    out = {}
    for flag in sorted(flags):
        option = parser.get(flag)
        if option is not None and option.name != flag:
            out[flag] = option.name
    return out


def _recipe(kb: KB, recipe: Recipe, sections: dict[str, str]) -> dict[str, Any]:
    precision = command_precision(kb, recipe)
    if recipe.precision is None and precision is not None and recipe.model is not None:
        # a command whose precision is unstated is this precision's only when nothing else it could be
        model = kb.models[recipe.model]
        path = _model_path(recipe)
        named = any(p.checkpoint == path for p in model.precisions)
        if not named and checkpoint(kb, model, precision)[1] != "unstated":
            precision = None
    flag_values = dict(flags_in(recipe.flags))
    context = flag_values.get(CONTEXT_FLAG)
    return {
        "id": recipe.id,
        "model": recipe.model,
        "hardware": list(recipe.hardware),
        "vendor": recipe.vendor,
        "precision": precision,
        "gpus": recipe.gpus,
        "nodes": recipe.nodes,
        "context": int(context[0]) if context else None,
        "strategy": recipe.strategy,
        "role": recipe.role,
        "deployment": recipe.deployment,
        "title": T(recipe.title),
        "text": command_text(recipe),
        "program": recipe.program,
        "module": module_of(recipe),
        "env": [[e.name, e.value] for e in recipe.env],
        "env_style": recipe.env_style,
        "lines": _lines([flag_line_text(item) for item in recipe.flags]),
        "link": sections.get(recipe.id),
        "notes": [T(n) for n in recipe.notes],
        "corrections": [
            {"stated": c.stated, "published": c.published, "why": T(c.why)} for c in recipe.corrections
        ],
    }


# ------------------------------------------------------------------------------------------ composing
def render(module: str, lines: list[str], env: list[list[str]], env_style: str) -> str:
    """A command as recipe_text.command_text writes a launch recipe: exports first, one flag line each,
    on one line when it is short."""
    out: list[str] = []
    if env and env_style == "export":
        out += [f"export {name}={value}" for name, value in env]
        out.append("")
    prefix = "".join(f"{name}={value} " for name, value in env) if env and env_style == "inline" else ""
    program = f"{prefix}python -m {module}"
    one_line = " ".join([program, *lines])
    if len(lines) <= 2 and len(one_line) <= ONE_LINE_MAX:
        out.append(one_line)
    else:
        out.append(" \\\n".join([program, *(INDENT + line for line in lines)]))
    return "\n".join(out)


def choice_key(choice: dict[str, Any]) -> str:
    """A choice within one model × accelerator, as the per-pair data file keys its answers."""
    return "|".join(
        str(choice[name]) if choice[name] is not None else ""
        for name in ("precision", "gpus", "nodes", "goal", "context")
    ) + ("|pd" if choice["pd"] else "")


class Composer:
    """``compose(choice)`` over ``data`` (configurator_data): the configurator's answer for one choice."""

    def __init__(
        self,
        kb: KB,
        data: dict[str, Any],
        planner: Planner,
        *,
        figures: Callable[[Plan], dict[str, Any]] | None = None,
    ):
        """``figures`` words a plan's rows (the site's handbook.site.configurator.plan_figures, which the
        planner's page words them with); without it a command's plan carries its key and numbers only."""
        self.kb = kb
        self.figures = figures
        self.message = message
        self.by_model: dict[str, list[dict[str, Any]]] = {}
        for recipe in data["recipes"]:  # in the data's (id) order, as base() reads them
            self.by_model.setdefault(recipe["model"], []).append(recipe)
        self.data = data
        self.planner = planner
        self.models = {m["id"]: m for m in data["models"]}
        self.hardware = {h["id"]: h for h in data["hardware"]}
        self.goals = {g["id"]: g for g in data["goals"]}

    # -------------------------------------------------------------------------- small helpers
    def text(self, value: dict[str, str]) -> Text:
        """A {zh, en} of the data as a Text a message can quote."""
        return Text.of(value["zh"], value["en"])

    def canonical(self, flag: str) -> str:
        return self.data["canonical"].get(flag, flag)

    def line_flags(self, entry: list[Any]) -> list[str]:
        return [self.canonical(f) for f, _ in entry[1]]

    def settings(self, lines: list[list[Any]]) -> dict[str, str]:
        """The planner's inputs a command's lines give (the last one of each flag wins, as in argparse)."""
        out: dict[str, str] = {}
        for _, pairs in lines:
            for flag, values in pairs:
                name = self.canonical(flag)
                if name in PLAN_FLAGS and values:
                    out[name] = values[0]
        return out

    def link(self, flag: str, role: str) -> str | None:
        table = self.data["router_links"] if role == "router" else self.data["links"]
        return table.get(self.canonical(flag))

    def line(self, entry: list[Any], why: Text, role: str) -> dict[str, Any]:
        first = entry[1][0][0] if entry[1] else None
        return {"text": entry[0], "why": T(why), "link": self.link(first, role) if first else None}

    def precisions(self, model_id: str, gpu: str) -> list[dict[str, Any]]:
        """The precisions offered on ``gpu``: those a source names on it, with a checkpoint to launch."""
        return [
            p for p in self.models[model_id]["precisions"] if gpu in p["hardware"] and p["path"] is not None
        ]

    # -------------------------------------------------------------------------- the choices
    def choices(self, model_id: str | None = None, gpu: str | None = None) -> list[dict[str, Any]]:
        """Every choice the form offers (for one model × accelerator when given): each precision the
        accelerator runs, or one refused choice without a precision where it runs none."""
        out = []
        for model in self.data["models"]:
            if model_id is not None and model["id"] != model_id:
                continue
            for hw in self.data["hardware"]:
                if gpu is not None and hw["id"] != gpu:
                    continue
                offered = [p["dtype"] for p in self.precisions(model["id"], hw["id"])]
                if not offered:
                    out.append(self._choice(model, hw, None, hw["gpus"][-1], 1, "balanced", None, False))
                    continue
                for dtype in offered:
                    for gpus in hw["gpus"]:
                        for nodes in self.data["nodes"]:
                            for goal in self.data["goals"]:
                                for context in model["contexts"]:
                                    for pd in (False, True) if model["pd"] else (False,):
                                        out.append(
                                            self._choice(
                                                model, hw, dtype, gpus, nodes, goal["id"], context, pd
                                            )
                                        )
        return out

    @staticmethod
    def _choice(
        model: dict[str, Any],
        hw: dict[str, Any],
        dtype: str | None,
        gpus: int,
        nodes: int,
        goal: str,
        context: int | None,
        pd: bool,
    ) -> dict[str, Any]:
        return {
            "model": model["id"],
            "gpu": hw["id"],
            "precision": dtype,
            "gpus": gpus,
            "nodes": nodes,
            "goal": goal,
            "context": context,
            "pd": pd,
        }

    def headline(self, result: dict[str, Any], goal: dict[str, Any]) -> dict[str, str]:
        """What the result is, in one sentence: the handbook's command, one composed from it or from the KB,
        or a refusal (whose reasons follow)."""
        title = result["title"]
        if result["status"] == "refused":
            return T(self.message("cfg-status-refused"))
        if result["status"] == "recipe":
            return T(self.message("cfg-status-recipe", title=self.text(title)))
        if title is not None:
            name = self.text(goal["name"])
            return T(self.message("cfg-status-recipe-goal", title=self.text(title), goal=name))
        return T(self.message("cfg-status-composed"))

    # -------------------------------------------------------------------------- bases
    def _recipe_serves(
        self, recipe: dict[str, Any], choice: dict[str, Any], precision: dict[str, Any]
    ) -> bool:
        """Whether a handbook command serves this choice as written: its model and precision, on this
        accelerator (named, or one of its vendor the precision's sources name, where it fits), within the
        reader's GPUs and nodes, for at least the context needed."""
        if recipe["model"] != choice["model"] or recipe["precision"] != choice["precision"]:
            return False
        hw = self.hardware[choice["gpu"]]
        if recipe["hardware"]:
            if hw["id"] not in recipe["hardware"]:
                return False
        elif recipe["vendor"] not in (None, hw["vendor"]) or hw["id"] not in precision["hardware"]:
            return False
        if recipe["nodes"] > choice["nodes"]:
            return False
        gpus = recipe["gpus"] or 1
        if -(-gpus // recipe["nodes"]) > choice["gpus"]:
            return False
        model = self.models[choice["model"]]
        served = recipe["context"] or model["native"] or memory.DEFAULT_CONTEXT
        if served < choice["context"]:
            return False
        if not recipe["hardware"] and recipe["role"] != "router":
            # a command that names no accelerator: only where the planner holds its weights and one request
            s = self.settings(recipe["lines"])
            settings = Settings.of(s)
            kbm, kbh = self.kb.models[choice["model"]], self.kb.hardware[choice["gpu"]]
            found = self.planner.plan(
                kbm, kbh, choice["precision"], s.get("--tp-size", ""), s.get("--ep-size", ""), settings
            )
            if found is None or not found.max_tokens or found.max_tokens < min(served, choice["context"]):
                return False
        return True

    def base(
        self, choice: dict[str, Any], precision: dict[str, Any]
    ) -> tuple[dict[str, dict[str, Any]], bool] | None:
        """The handbook's command(s) that serve this choice, by role, and whether its strategy is the chosen
        goal's (else it names no goal); None when there is none."""
        goal = self.goals[choice["goal"]]
        found: list[tuple[dict[str, dict[str, Any]], bool]] = []
        recipes = self.by_model.get(choice["model"], [])
        if choice["pd"]:
            deployments: dict[str, dict[str, dict[str, Any]]] = {}
            for r in recipes:
                if r["deployment"]:
                    deployments.setdefault(r["deployment"], {})[r["role"]] = r
            for roles in deployments.values():
                prefill, decode, router = roles.get("prefill"), roles.get("decode"), roles.get("router")
                if not (prefill and decode and router):
                    continue
                both = (prefill["gpus"] or 1) + (decode["gpus"] or 1)
                if both > choice["gpus"] * choice["nodes"]:
                    continue  # the two servers need their own GPUs
                if self._recipe_serves(prefill, choice, precision) and self._recipe_serves(
                    decode, choice, precision
                ):
                    strategy = prefill["strategy"]
                    if strategy in goal["strategies"] or strategy in NEUTRAL:
                        found.append(
                            (
                                {"prefill": prefill, "decode": decode, "router": router},
                                strategy in goal["strategies"],
                            )
                        )
        else:
            for r in recipes:
                if r["role"] != "standalone" or r["program"] != "launch_server":
                    continue
                if not self._recipe_serves(r, choice, precision):
                    continue
                if r["strategy"] in goal["strategies"] or r["strategy"] in NEUTRAL:
                    found.append(({"standalone": r}, r["strategy"] in goal["strategies"]))
                elif r["strategy"] == "long-context" and choice["context"] > (
                    self.models[r["model"]]["native"] or 0
                ):
                    found.append(({"standalone": r}, True))  # the only command that reaches this context
        exact = [f for f in found if f[1]]
        return (exact or found or [None])[0]

    # -------------------------------------------------------------------------- compose
    def compose(self, choice: dict[str, Any]) -> dict[str, Any]:
        model = self.models[choice["model"]]
        hw = self.hardware[choice["gpu"]]
        goal = self.goals[choice["goal"]]
        result: dict[str, Any] = {
            "choice": dict(choice),
            "status": "refused",
            "title": None,
            "why": [],
            "alternative": None,
            "notes": [],
            "commands": [],
            "related": [],
            "section": model["section"],
            "sources": [],
        }
        notes: list[Text] = []
        if choice["precision"] is None:
            self._refuse_unlisted(model, hw, result)
            return self._finish(result, goal, notes, [])
        precision = next(p for p in model["precisions"] if p["dtype"] == choice["precision"])
        result["sources"] = self._sources(precision, hw["id"])
        if any(entry["verified"] is False for entry in precision["runs_on"].get(hw["id"], [])):
            notes.append(self.message("cfg-note-unverified", gpu=hw["name"], precision=precision["name"]))
        found = self.base(choice, precision)
        roles = ROLES_PD if choice["pd"] else ("standalone",)
        commands: list[dict[str, Any]] = []
        if found is not None:
            bases, exact = found
            # the handbook's command for this very goal is offered as written; one that names no goal
            # takes the goal's flags from chapter 07
            applied = goal if not exact else {**goal, "lines": []}
            commands, changed = self._from_recipes(bases, applied, roles, notes, choice, precision)
            first = bases[roles[0]]
            result["title"] = first["title"]
            result["status"] = "composed" if changed else "recipe"
            if first["strategy"] == "concurrency" and goal["id"] == "balanced":
                notes.append(self.message("cfg-note-concurrency"))
            if not first["hardware"]:
                notes.append(
                    self.message("cfg-note-recipe-unnamed", gpu=hw["name"], title=self.text(first["title"]))
                )
            self._idle_note(
                choice, int(self.settings(first["lines"]).get("--tp-size", "1")), first["nodes"], notes
            )
        else:
            commands = self._from_planner(choice, model, hw, precision, goal, roles, notes, result)
            if commands:
                result["status"] = "composed"
        for command in commands:
            if command["plan"] is not None:
                command["plan"] = self.plan(choice, command["plan"])
        return self._finish(result, goal, notes, commands)

    def _finish(
        self, result: dict[str, Any], goal: dict[str, Any], notes: list[Text], commands: list[dict[str, Any]]
    ) -> dict[str, Any]:
        choice = result["choice"]
        if commands:
            if result["status"] != "recipe":
                notes += self._goal_notes(goal)
            if any(c["role"] != "router" and "--nnodes" in c["text"] for c in commands):
                notes.append(self.message("cfg-note-multi-node"))
            if choice["pd"]:
                notes.append(self.message("cfg-note-pd"))
            result["commands"] = commands
        result["notes"] = [T(n) for n in notes]
        result["headline"] = self.headline(result, goal)
        used = {c.get("recipe") for c in commands}
        result["related"] = [
            {"id": r["id"], "title": r["title"], "link": r["link"]}
            for r in self.data["recipes"]
            if r["model"] == choice["model"]
            and r["id"] not in used
            and r["link"]
            and r["program"] == "launch_server"
        ]
        return result

    def _sources(self, precision: dict[str, Any], gpu: str) -> list[dict[str, Any]]:
        """The sources that name this precision on this accelerator, as the page cites them."""
        out = []
        for entry in precision["runs_on"].get(gpu, []):
            src = self.data["sources"][entry["source"]]
            out.append({**src, "id": entry["source"], "where": entry["where"], "verified": entry["verified"]})
        return out

    def _refuse_unlisted(self, model: dict[str, Any], hw: dict[str, Any], result: dict[str, Any]) -> None:
        """No precision of the model is named on this accelerator in the KB: say so, and name the nearest
        accelerator that has one (same vendor first, then the closest memory)."""
        listed = [h for h in self.data["hardware"] if self.precisions(model["id"], h["id"])]
        result["why"].append(
            T(
                self.message(
                    "cfg-refused-not-listed",
                    model=model["name"],
                    gpu=hw["name"],
                    file=f"models/{model['id']}.yaml",
                )
            )
        )
        if not listed:
            result["why"].append(T(self.message("cfg-refused-no-listed-hardware", model=model["name"])))
            return

        def distance(h: dict[str, Any]) -> tuple[bool, float]:
            memory_gb = h["memory_gb"] if h["memory_gb"] is not None else float("inf")
            mine = hw["memory_gb"] if hw["memory_gb"] is not None else 0
            return (h["vendor"] != hw["vendor"], abs(memory_gb - mine))

        nearest = min(listed, key=distance)
        names = ", ".join(h["name"] for h in listed)
        result["alternative"] = {"gpu": nearest["id"]}
        result["why"].append(
            T(self.message("cfg-alternative-gpu", gpu=nearest["name"], model=model["name"], listed=names))
        )

    def _goal_notes(self, goal: dict[str, Any]) -> list[Text]:
        notes = []
        if goal["id"] == "balanced":
            notes.append(self.message("cfg-note-balanced"))
        if goal["id"] == "high-throughput":
            notes.append(self.message("cfg-note-high-throughput"))
        if goal["id"] == "low-latency":
            notes.append(self.message("cfg-note-speculative"))
        return notes

    def _idle_note(self, choice: dict[str, Any], tp: int, nodes: int, notes: list[Text]) -> None:
        """Where one server instance leaves GPUs idle, how to use them: replicas behind the router, or
        attention DP within the instance."""
        total = choice["gpus"] * choice["nodes"]
        used = tp * (2 if choice["pd"] else 1)
        if used >= total:
            return
        replicas = total // used
        if replicas >= 2:
            notes.append(
                self.message("cfg-note-idle-replicas", used=used, total=total, replicas=replicas, tp=tp)
            )
        else:
            notes.append(self.message("cfg-note-idle", used=used, total=total))

    def _from_recipes(
        self,
        bases: dict[str, dict[str, Any]],
        goal: dict[str, Any],
        roles: tuple[str, ...],
        notes: list[Text],
        choice: dict[str, Any],
        precision: dict[str, Any],
    ) -> tuple[list[dict[str, Any]], bool]:
        commands = []
        changed = False
        goal_name = self.text(goal["name"])
        for role in roles:
            recipe = bases[role]
            entries = [list(e) for e in recipe["lines"]]
            why = [self.message("cfg-why-recipe", title=self.text(recipe["title"]))] * len(entries)
            touched = False
            if role != "router":
                for goal_line in goal["lines"]:
                    text, pairs = goal_line
                    flag = self.canonical(pairs[0][0])
                    reason = self._goal_reason(goal)
                    same = [i for i, e in enumerate(entries) if self.line_flags(e) == [flag]]
                    shared = [
                        i for i, e in enumerate(entries) if flag in self.line_flags(e) and len(e[1]) > 1
                    ]
                    if same:
                        i = same[-1]
                        if entries[i][0] != text:
                            notes.append(
                                self.message("cfg-note-replaced", goal=goal_name, old=entries[i][0], new=text)
                            )
                            entries[i] = [text, pairs]
                            why[i] = reason
                            touched = True
                    elif shared:
                        notes.append(
                            self.message(
                                "cfg-note-kept", goal=goal_name, old=entries[shared[-1]][0], new=text
                            )
                        )
                    else:
                        entries.append([text, pairs])
                        why.append(reason)
                        touched = True
            if touched:
                self._cap_running(choice, precision, entries, why, notes)
            command = self._command(role, recipe, entries, why if touched else None)
            changed = changed or touched
            commands.append(command)
        return commands, changed

    def _goal_reason(self, goal: dict[str, Any]) -> Text:
        return self.message(
            "cfg-why-goal", scenario=self.text(goal["scenario"]), reason=self.text(goal["reason"])
        )

    def _command(
        self,
        role: str,
        recipe: dict[str, Any] | None,
        entries: list[list[Any]],
        why: list[Text] | None,
        module: str | None = None,
    ) -> dict[str, Any]:
        """One command: verbatim when ``why`` is None (a recipe as published), else re-rendered with each
        line's reason."""
        if recipe is not None and why is None:
            text = recipe["text"]
            lines: list[dict[str, Any]] = []
        else:
            mod = module or (recipe["module"] if recipe else MODULES["launch_server"])
            env = recipe["env"] if recipe else []
            style = recipe["env_style"] if recipe else "export"
            text = render(mod, [e[0] for e in entries], env, style)
            lines = [self.line(e, w, role) for e, w in zip(entries, why or [], strict=True)]
        command = {
            "role": role,
            "text": text,
            "lines": lines,
            "recipe": recipe["id"] if recipe else None,
            "link": recipe["link"] if recipe else None,
            "recipe_notes": recipe["notes"] if recipe else [],
            "corrections": recipe["corrections"] if recipe else [],
            "plan": None,
        }
        if role != "router":
            command["plan"] = self.settings(entries if why is not None or recipe is None else recipe["lines"])
        return command

    def plan(self, choice: dict[str, Any], s: dict[str, str]) -> dict[str, Any]:
        """The planner's figures for a command's settings (its TP, EP, fraction, KV dtype, context, page,
        max running requests): the bar's numbers, the rows the page shows, and the planner page's link with
        every input."""
        settings = Settings.of(s)
        tp, ep = s.get("--tp-size", ""), s.get("--ep-size", "")
        kbm, kbh = self.kb.models[choice["model"]], self.kb.hardware[choice["gpu"]]
        found = self.planner.plan(kbm, kbh, choice["precision"], tp, ep, settings)
        if found is None:
            return {"bar": None, "figures": None, "link": None}
        params = {"model": choice["model"], "gpu": choice["gpu"], "tp": str(found.tp)}
        if found.ep > 1:
            params["ep"] = str(found.ep)
        params["weights-dtype"] = choice["precision"]
        params["kv-dtype"] = found.kv_dtype
        if settings.mem:
            params["mem-fraction-static"] = settings.mem
        params["context"] = str(found.context)
        if settings.page:
            params["page-size"] = settings.page
        if settings.running:
            params["max-running-requests"] = settings.running
        return {
            "bar": plan_record(found),
            "figures": self.figures(found) if self.figures is not None else None,
            "link": {"page": PLANNER_PAGE, "query": urlencode(params)},
        }

    # -------------------------------------------------------------------------- composing from the planner
    # Where no recipe serves the choice: the context is checked, the planner's TP fitted to the GPUs chosen,
    # the command's lines gathered with a reason each, the notes added, then one command per role.
    def _from_planner(
        self,
        choice: dict[str, Any],
        model: dict[str, Any],
        hw: dict[str, Any],
        precision: dict[str, Any],
        goal: dict[str, Any],
        roles: tuple[str, ...],
        notes: list[Text],
        result: dict[str, Any],
    ) -> list[dict[str, Any]]:
        """The planner's commands for the choice, or none, with why in ``result`` (and the nearest choice
        that has one)."""
        sized = self._context_refusal(choice, model) or self._planner_tp(choice, model, hw, precision, goal)
        if isinstance(sized, Refusal):
            result["why"].append(T(self.message(sized.key, **sized.values)))
            result["alternative"] = sized.alternative
            return []
        if sized.basis == "weights-only":
            notes.append(self.message("cfg-note-weights-only", model=model["name"]))
        base, reasons = self._planner_entries(choice, model, hw, precision, goal, sized)
        self._cap_running(choice, precision, base, reasons, notes)
        self._key_flags_note(model, base, notes)
        self._idle_note(choice, sized.tp, sized.span, notes)
        return [self._role_command(role, base, reasons, sized.span) for role in roles]

    def _context_refusal(self, choice: dict[str, Any], model: dict[str, Any]) -> Refusal | None:
        """A context beyond the model's native one, refused (with the model's long-context recipe, if any)."""
        context, native = choice["context"], model["native"]
        if native is None or context <= native:
            return None
        values = {"context": thousands(context), "model": model["name"], "native": thousands(native)}
        long = [r for r in self.by_model.get(model["id"], []) if r["strategy"] == "long-context"]
        if long:
            titled = values | {"title": self.text(long[0]["title"])}
            return Refusal("cfg-refused-context-recipe", titled, {"context": native})
        return Refusal("cfg-refused-context", values, {"context": native})

    def _planner_tp(
        self, choice: dict[str, Any], model: dict[str, Any], hw: dict[str, Any], precision: dict[str, Any],
        goal: dict[str, Any],
    ) -> PlannerTp | Refusal:  # fmt: skip
        """The planner's TP for the context under the goal's settings, fitted to the GPUs chosen: an
        instance that needs more than one node takes all of each node's GPUs."""
        kbm, kbh = self.kb.models[model["id"]], self.kb.hardware[hw["id"]]
        context = choice["context"]
        goal_settings = self.settings(goal["lines"])
        if model["native"] is None or context != model["native"]:
            goal_settings[CONTEXT_FLAG] = str(context)
        settings = Settings.of(goal_settings)
        auto = self.planner.auto(kbm, kbh, precision["dtype"], settings)
        if auto is None:  # a value the planner does not take (a KV spelling no dtype of the KB has)
            lines = [text for text, pairs in goal["lines"] if self.canonical(pairs[0][0]) in SETTINGS_FLAGS]
            return Refusal(
                "cfg-refused-settings", {"goal": self.text(goal["name"]), "lines": ", ".join(lines)}
            )
        tp, basis = auto
        if basis == "unknown":
            probe = self.planner.record(kbm, kbh, precision["dtype"], "1", "", settings)
            missing = probe["missing"] if probe else {}
            if "memory" in missing:
                return Refusal(
                    "cfg-refused-memory", {"gpu": hw["name"], "fields": ", ".join(missing["memory"])}
                )
            fields = ", ".join(missing.get("weights", []))
            return Refusal("cfg-refused-weights", {"model": model["name"], "fields": fields})
        gpus, nodes = choice["gpus"], choice["nodes"]
        instances = 2 if choice["pd"] else 1
        shown = thousands(context)
        if basis == "none-fits":
            smaller = {"context": model["contexts"][0]} if context != model["contexts"][0] else None
            values = {
                "model": model["name"],
                "precision": precision["name"],
                "context": shown,
                "gpu": hw["name"],
            }
            return Refusal("cfg-refused-none-fits", values, smaller)
        if tp * instances > gpus * nodes:
            need = -(-tp * instances // gpus)
            # the nearest choice that holds it: more GPUs in each of these nodes, else more nodes
            wider = [g for g in hw["gpus"] if g * nodes >= tp * instances]
            more = [n for n in self.data["nodes"] if n >= need]
            alternative = {"gpus": wider[0]} if wider else {"nodes": more[0]} if more else None
            values = {"tp": tp, "instances": instances, "gpus": gpus, "nodes": nodes, "gpu": hw["name"]}
            return Refusal("cfg-refused-gpus", values | {"need": need, "context": shown}, alternative)
        if tp <= gpus:
            key = "cfg-why-tp-weights-only" if basis == "weights-only" else "cfg-why-tp"
            return PlannerTp(
                tp=tp, span=1, basis=basis, why=self.message(key, context=shown), settings=settings
            )
        span = -(-tp // gpus)  # one instance spans nodes: all of each node's GPUs
        tp = span * gpus
        if self.data["layout"].get(f"{model['id']}|{tp}"):
            values = {"nodes": span, "tp": tp, "model": model["name"], "heads": model["heads"]}
            return Refusal("cfg-refused-layout", values)
        why = self.message("cfg-why-tp-nodes", nodes=span, gpus=gpus, context=shown)
        return PlannerTp(tp=tp, span=span, basis=basis, why=why, settings=settings)

    def _planner_entries(
        self, choice: dict[str, Any], model: dict[str, Any], hw: dict[str, Any], precision: dict[str, Any],
        goal: dict[str, Any], sized: PlannerTp,
    ) -> tuple[list[list[Any]], list[Text]]:  # fmt: skip
        """The command's lines and each one's reason: the planner's launch lines that have a reason, the
        model's parsers, then the goal's flags the planner's lines do not already carry."""
        kbm, kbh = self.kb.models[model["id"]], self.kb.hardware[hw["id"]]
        planner_lines = self.planner.launch_lines(
            kbm, kbh, precision["dtype"], sized.tp, sized.settings, precision["path"]
        )
        base: list[list[Any]] = []
        reasons: list[Text] = []
        goal_flags = {self.canonical(pairs[0][0]) for _, pairs in goal["lines"]}
        for flag, value in planner_lines:
            name = self.canonical(flag)
            if name == "--kv-cache-dtype" and name not in goal_flags:
                continue  # the engine's own KV dtype (the model's), which the plan assumes as well
            reason = self._planner_reason(
                name, value, model, precision, hw, goal, goal_flags, sized.why, choice["context"]
            )
            if reason is None:
                continue  # no true reason to give: the flag is left to the engine
            base.append([f"{flag} {value}", [[flag, [value]]]])
            reasons.append(reason)
        for flag, value, key in (
            ("--reasoning-parser", model["reasoning"], "cfg-why-reasoning-parser"),
            ("--tool-call-parser", model["tool_call"], "cfg-why-tool-parser"),
        ):
            if value and not any(flag in self.line_flags(e) for e in base):
                base.append([f"{flag} {value}", [[flag, [value]]]])
                reasons.append(self.message(key))
        for text, pairs in goal["lines"]:
            flag = self.canonical(pairs[0][0])
            if any(flag in self.line_flags(e) for e in base):
                continue  # a planner input: the planner's lines already carry the goal's value
            base.append([text, pairs])
            reasons.append(self._goal_reason(goal))
        return base, reasons

    def _key_flags_note(self, model: dict[str, Any], base: list[list[Any]], notes: list[Text]) -> None:
        """The model's recommended flags the command does not set, named with the layout they belong to."""
        present = {flag for e in base for flag in self.line_flags(e)}
        missing = [
            line
            for line, flag in zip(model["key_flags"], model["key_flag_names"], strict=True)
            if flag not in present
        ]
        if missing:
            notes.append(
                self.message(
                    "cfg-note-key-flags", flags=", ".join(missing), layout=self.text(model["layout"])
                )
            )

    def _role_command(
        self, role: str, base: list[list[Any]], reasons: list[Text], span: int
    ) -> dict[str, Any]:
        """One role's command: the router's own lines, else the lines with the multi-node and PD flags the
        role needs."""
        if role == "router":
            entries = [list(e) for e in self.data["router_lines"]]
            why_router = [self.message("cfg-why-router")] * len(entries)
            return self._command(role, None, entries, why_router, module=MODULES["launch_router"])
        entries = [list(e) for e in base]
        role_reasons = list(reasons)
        added: list[tuple[str, Text]] = []
        if span > 1:
            master = PD_MASTERS[role]
            added += [
                (f"--nnodes {span}", self.message("cfg-why-nnodes", nodes=span)),
                ("--node-rank <node-rank>", self.message("cfg-why-node-rank", last=span - 1)),
                (
                    f"--dist-init-addr {master}:{DIST_PORT}",
                    self.message("cfg-why-dist-init-addr", master=master),
                ),
            ]
        if role in PD_PORTS:
            host = PD_HOSTS[role]
            added += [
                (f"--disaggregation-mode {role}", self.message("cfg-why-pd-mode")),
                ("--disaggregation-ib-device <ib-device>", self.message("cfg-why-pd-ib")),
                (f"--host {host}", self.message("cfg-why-pd-host", host=host)),
                (f"--port {PD_PORTS[role]}", self.message("cfg-why-pd-port")),
            ]
        for text, reason in added:
            entries.append([text, line_pairs(text)])
            role_reasons.append(reason)
        return self._command(role, None, entries, role_reasons)

    def _cap_running(
        self,
        choice: dict[str, Any],
        precision: dict[str, Any],
        base: list[list[Any]],
        reasons: list[Text],
        notes: list[Text],
    ) -> None:
        """A goal's --max-running-requests above what the engine will run for this pool is lowered to the
        engine's figure: the command then says what the plan under it says."""
        s = self.settings(base)
        given = s.get("--max-running-requests")
        if not given:
            return
        kbm, kbh = self.kb.models[choice["model"]], self.kb.hardware[choice["gpu"]]
        found = self.planner.plan(
            kbm, kbh, precision["dtype"], s.get("--tp-size", ""), s.get("--ep-size", ""), Settings.of(s)
        )
        if found is None or found.max_running_requests is None or found.max_running_requests >= int(given):
            return
        engine = found.max_running_requests
        for i, entry in enumerate(base):
            if self.line_flags(entry) == ["--max-running-requests"]:
                base[i] = [f"--max-running-requests {engine}", [["--max-running-requests", [str(engine)]]]]
                reasons[i] = self.message("cfg-why-running-capped", given=given, engine=engine)
        notes.append(self.message("cfg-note-running-capped", given=given, engine=engine))

    def _planner_reason(
        self,
        flag: str,
        value: str,
        model: dict[str, Any],
        precision: dict[str, Any],
        hw: dict[str, Any],
        goal: dict[str, Any],
        goal_flags: set[str],
        tp_why: Text,
        context: int,
    ) -> Text | None:
        """The true reason for a flag of the planner's command, or None where there is none to give."""
        if flag == "--model-path":
            titles = [
                self.text(self.data["sources"][e["source"]]["title"]) for e in precision["runs_on"][hw["id"]]
            ]
            return self.message(
                "cfg-why-checkpoint-listed", precision=precision["name"], gpu=hw["name"],
                sources=Text.of("；".join(t.zh for t in titles), "; ".join(t.en for t in titles)),
            )  # fmt: skip
        if flag == "--tp-size":
            return tp_why
        if flag in goal_flags:
            return self._goal_reason(goal)
        if flag == "--context-length":
            native = model["native"]
            if native is None:
                return self.message("cfg-why-context-needed-no-native", context=thousands(context))
            return self.message(
                "cfg-why-context-needed", context=thousands(context), native=thousands(native)
            )
        if flag in model["rules"]:
            return self.message("cfg-why-rule", rule=model["rules"][flag])
        return None
