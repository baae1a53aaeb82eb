"""``python -m handbook configure``: the configurator page's answer for one choice, zh or en.

Prints the handbook's command, or the command composed from the KB (each flag with its reason), or why the
KB cannot support the choice; with the checker's verdict and the planner's figures. ``--json`` prints the
whole result as the page computes it. Exit status: 0 with commands, 1 when the choice is refused, 2 for bad
input (an unknown id, PD for a model without a PD command).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from handbook.calc.configure import GOALS, GPU_CHOICES, NODE_CHOICES
from handbook.cli import report
from handbook.cli.check import SEVERITY_WORDS, site_url
from handbook.cli.choices import BadInput, resolve
from handbook.cli.common import add_kb, add_lang, dtype_ids, help_text, kb_ids, listed, pd_models
from handbook.core import arguments
from handbook.core.messages import msg
from handbook.core.paths import KB_ROOT
from handbook.engine.snapshot import SnapshotError, load_snapshot
from handbook.kb.loader import KBInvalid, load_kb
from handbook.render.planner import FIGURE_KEYS
from handbook.site.configurator import PLAN_ROWS, ROLE_KEYS, Configurator

WHAT_KEYS = {
    "model": "cfg-cli-what-model",
    "gpu": "cfg-cli-what-gpu",
    "precision": "cfg-cli-what-precision",
    "goal": "cfg-cli-what-goal",
    "nodes": "cfg-cli-what-nodes",
    "gpus": "cfg-cli-what-gpus",
    "context": "cfg-cli-what-context",
}


def choose(configurator: Configurator, args: argparse.Namespace) -> dict[str, Any]:
    """The choice the arguments name, checked against what the page offers (the precisions a source names
    on the accelerator, its GPUs per node, the model's contexts)."""
    lang, data = args.lang, configurator.data

    def pick(what: str, value: str, choices: dict[str, str]) -> str:
        return resolve(lang, WHAT_KEYS[what], value, choices)

    models = {m["id"]: m for m in data["models"]}
    model = models[pick("model", args.model, {m["id"]: m["name"] for m in data["models"]})]
    gpu = pick("gpu", args.gpu, {h["id"]: h["name"] for h in data["hardware"]})
    hw = next(h for h in data["hardware"] if h["id"] == gpu)
    offered = {p["dtype"]: p["name"] for p in configurator.composer.precisions(model["id"], gpu)}
    precision = None
    if offered:
        precision = pick("precision", args.precision, offered) if args.precision else next(iter(offered))
    goal = pick("goal", args.goal, {g["id"]: g["name"][lang] for g in data["goals"]})
    gpus = args.gpus if args.gpus is not None else hw["gpus"][-1]
    gpus = int(pick("gpus", str(gpus), {str(n): str(n) for n in hw["gpus"]}))
    nodes = int(pick("nodes", str(args.nodes), {str(n): str(n) for n in data["nodes"]}))
    context = args.context if args.context is not None else (model["native"] or model["contexts"][-1])
    context = int(pick("context", str(context), {str(c): str(c) for c in model["contexts"]}))
    if args.pd and not model["pd"]:
        with_pd = ", ".join(m["id"] for m in data["models"] if m["pd"])
        raise BadInput(msg("cfg-cli-no-pd", lang, model=model["id"], models=with_pd))
    if precision is None:  # the refusal, whatever the rest
        return configurator.choices(model["id"], gpu)[0]
    return {
        "model": model["id"],
        "gpu": gpu,
        "precision": precision,
        "gpus": gpus,
        "nodes": nodes,
        "goal": goal,
        "context": context,
        "pd": args.pd,
    }


def link(page_anchor: str, lang: str) -> str:
    """A page#anchor of the site as a URL: under HANDBOOK_SITE_URL when set, else relative to the site."""
    page, _, anchor = page_anchor.partition("#")
    path = ("en/" if lang == "en" else "") + page.removesuffix(".md") + "/" + (f"#{anchor}" if anchor else "")
    return (site_url() or "") + path


def text_lines(result: dict[str, Any], lang: str, version: str, sections: dict[str, Any]) -> list[str]:
    """The result as the page words it, in ``lang``; ``sections`` gives the linked sections' titles."""

    def section(page_anchor: str) -> str:
        title = sections.get(page_anchor)
        return f"{title[lang]} ({link(page_anchor, lang)})" if title else link(page_anchor, lang)

    out: list[str] = [result["headline"][lang]]
    out += [f"  ✖ {why[lang]}" for why in result["why"]]
    if result["sources"] and result["commands"]:
        out += ["", msg("cfg-sources", lang) + msg("sep-label", lang).rstrip()]
        for src in result["sources"]:
            at = f" ({src['repository']} {src['file']}@{src['commit'][:12]})" if src["commit"] else ""
            out.append(f"  - {src['title'][lang]}{msg('sep-label', lang)}{src['where'][lang]}{at}")
    for command in result["commands"]:
        out += ["", f"# {msg(ROLE_KEYS[command['role']], lang)}", command["text"]]
        if command["lines"]:
            out.append(msg("cfg-why-heading", lang) + msg("sep-label", lang).rstrip())
            for line in command["lines"]:
                where = f" → {link(line['link'], lang)}" if line["link"] else ""
                out.append(f"  {line['text']}: {line['why'][lang]}{where}")
        if command["link"]:
            out.append(f"{msg('cfg-section', lang)}{msg('sep-label', lang)}{section(command['link'])}")
        for correction in command["corrections"]:
            out.append(
                "  "
                + msg(
                    "cfg-correction",
                    lang,
                    stated=correction["stated"],
                    published=correction["published"],
                    why=correction["why"][lang],
                )
            )
        out += [f"  · {note[lang]}" for note in command["recipe_notes"]]
        if command["findings"]:
            for finding in command["findings"]:
                where = msg("doc-line", lang, line=finding["line"]) + " " if finding["line"] else ""
                severity = msg(SEVERITY_WORDS[finding["severity"]], lang)
                out.append(f"  {where}{severity}[{finding['code']}]: {finding['message'][lang]}")
        else:
            out.append(msg("cfg-checked-clean", lang, version=version))
        plan = command["plan"]
        if plan is not None and plan["figures"] is not None:
            planner = plan["link"]
            where = f"{link(planner['page'], lang)}?{planner['query']}"
            out.append(f"{msg('cfg-plan-open', lang)}{msg('sep-label', lang)}{where}")
            figures = plan["figures"]
            shown = []
            for key in (row for row in PLAN_ROWS if row in figures):  # the planner's rows, as the page
                label = msg(FIGURE_KEYS[key], lang, context=figures["context"])
                value = figures[key] if isinstance(figures[key], str) else figures[key][lang]
                shown.append(f"{label}{msg('sep-label', lang)}{value}")
            out.append(f"{msg('cfg-plan', lang)}{msg('sep-label', lang)}" + " · ".join(shown))
    if result["notes"]:
        out += ["", msg("cfg-notes", lang) + msg("sep-label", lang).rstrip()]
        out += [f"  - {note[lang]}" for note in result["notes"]]
    if result["section"]:
        out += ["", f"{msg('cfg-section', lang)}{msg('sep-label', lang)}{section(result['section'])}"]
    if result["related"]:
        out += ["", msg("cfg-related", lang) + msg("sep-label", lang).rstrip()]
        out += [f"  - {r['title'][lang]} ({link(r['link'], lang)})" for r in result["related"]]
    return out


def run(args: argparse.Namespace) -> int:
    try:
        kb = load_kb(Path(args.kb) if args.kb else KB_ROOT)
    except KBInvalid as exc:
        report(exc.problems)
        return 2  # bad input: 1 means the choice is refused
    try:
        snapshot = load_snapshot(kb.handbook.engine_version)
    except SnapshotError as exc:
        print(f"✖ {exc}", file=sys.stderr)
        return 2
    configurator = Configurator(kb, snapshot)
    try:
        choice = choose(configurator, args)
    except BadInput as exc:
        print(f"✖ {exc}", file=sys.stderr)
        return 2
    result = configurator.configure(choice)
    if args.json:
        print(json.dumps(result, ensure_ascii=False, sort_keys=True, indent=2))
    else:
        for line in text_lines(result, args.lang, snapshot.sglang_version, configurator.data["sections"]):
            print(line)
    return 1 if result["status"] == "refused" else 0


DESCRIPTION_KEY = "cli-configure-description"


def configure(parser: argparse.ArgumentParser, lang: str = "en") -> None:
    def text(key: str, **values: object) -> str:
        return help_text(key, lang, **values)

    parser.add_argument(
        "--model",
        required=True,
        type=arguments.text,
        help=text("cli-help-model", choices=listed(kb_ids("models"))),
    )
    parser.add_argument(
        "--gpu",
        required=True,
        type=arguments.text,
        help=text("cli-help-gpu", choices=listed(kb_ids("hardware"))),
    )
    parser.add_argument(
        "--precision",
        default=None,
        type=arguments.text,
        help=text("cli-help-precision", choices=listed(dtype_ids("weights"))),
    )
    parser.add_argument(
        "--goal",
        required=True,
        type=arguments.text,
        help=text("cli-help-goal", choices=listed(g.id for g in GOALS)),
    )
    parser.add_argument(
        "--gpus",
        type=arguments.whole(1, 1024),
        default=None,
        help=text("cli-help-gpus", choices=listed(GPU_CHOICES)),
    )
    parser.add_argument(
        "--nodes",
        type=arguments.whole(1, 10_000),  # the schema's NodeCount
        default=1,
        help=text("cli-help-nodes", choices=listed(NODE_CHOICES)),
    )
    parser.add_argument(
        "--context",
        type=arguments.whole(1, 100_000_000),
        default=None,
        help=text("cli-help-context"),  # the planner's wording: the same input
    )
    parser.add_argument("--pd", action="store_true", help=text("cli-help-pd", choices=listed(pd_models())))
    add_lang(parser, lang)
    parser.add_argument("--json", action="store_true", help=text("cli-help-json"))
    add_kb(parser, lang)
