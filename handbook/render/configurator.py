"""``<!-- kb:configurator -->`` and ``<!-- kb:doctor -->``: the configurator's form and the command doctor's
text box, with their result slots.

The markup carries the page's wording (handbook/core/messages/configurator.py, and the command line's words
for severities and summaries from checker.py); docs/assets/doctor.js fills it: the doctor runs checker.js
over the checker's export, the configurator renders the answers the build computed
(assets/configurator-data.json and assets/configurator/; handbook/site/configurator.py).
"""

from __future__ import annotations

import json
from typing import Any

from handbook.core.formatting import json_safe
from handbook.core.messages import DOMAINS
from handbook.core.text import LANGS
from handbook.render.context import RenderContext, attr, esc
from handbook.render.markers import renderer

# What the page's script words besides its own domain: the command line's severities and summaries.
CHECKER_KEYS = (
    "check-cli-severity-error",
    "check-cli-severity-warning",
    "check-cli-severity-note",
    "check-cli-clean",
    "check-cli-problems",
    "check-cli-nothing",
    "sep-label",
    "sep-list",
)
# The planner's words for the rows and the bar under a command (doctor.js FIGURE_KEYS, LEGEND_KEYS).
PLANNER_KEYS = (
    "planner-fig-gpu",
    "planner-fig-fraction",
    "planner-fig-weights-gpu",
    "planner-fig-state",
    "planner-fig-kv-pool",
    "planner-fig-rest",
    "planner-fig-max-tokens",
    "planner-fig-requests",
    "planner-fig-running",
    "planner-legend-weights",
    "planner-legend-state",
    "planner-legend-kv",
    "planner-legend-rest",
    "planner-legend-over",
)
# The configurator only renders the answers the build computed (handbook/site/configurator.py).
SCRIPTS = ("assets/doctor.js",)
# planner.js sizes a command on the accelerator the reader picks (it reads numbers.js as it loads)
DOCTOR_SCRIPTS = ("assets/checker.js", "assets/numbers.js", "assets/planner.js", "assets/doctor.js")


def messages(lang: str) -> str:
    """The scripts' wording in ``lang``, as JSON that is safe inside a <script> element."""
    index = LANGS.index(lang)
    own = DOMAINS["configurator"]
    picked = {key: pair[index] for key, pair in own.items() if not key.startswith("cfg-cli-")}
    for key in CHECKER_KEYS:
        domain = "site" if key.startswith("sep-") else "checker"
        picked[key] = DOMAINS[domain][key][index]
    for key in PLANNER_KEYS:
        picked[key] = DOMAINS["planner"][key][index]
    picked["check-corrected"] = DOMAINS["doctor"]["check-corrected"][index]  # over a corrected command
    return json_safe(json.dumps(picked, ensure_ascii=False, sort_keys=True))


def _assets(ctx: RenderContext, scripts: tuple[str, ...]) -> list[str]:
    # Only these pages load the scripts, their data and their style (not every page of the site).
    return [
        f'<link rel="stylesheet" href="{attr(ctx.asset("assets/doctor.css"))}">',
        *(f'<script src="{attr(ctx.asset(path))}"></script>' for path in scripts),
    ]


def _field(ctx: RenderContext, name: str, label_key: str, control: str) -> str:
    return f'<div class="cfg-field"><label for="cfg-{name}">{esc(ctx.msg(label_key))}</label>{control}</div>'


@renderer("configurator")
def configurator(ctx: RenderContext) -> str:
    """The configurator: model, accelerator, GPUs per node, nodes, precision, goal, context, PD → the
    command(s) and the plan."""
    select = '<select id="cfg-{0}" name="{0}"></select>'
    fields = [
        _field(ctx, "model", "cfg-model", select.format("model")),
        _field(ctx, "gpu", "cfg-gpu", select.format("gpu")),
        _field(ctx, "gpus", "cfg-gpus", select.format("gpus")),
        _field(ctx, "nodes", "cfg-nodes", select.format("nodes")),
        _field(ctx, "precision", "cfg-precision", select.format("precision")),
        _field(ctx, "goal", "cfg-goal", select.format("goal")),
        _field(ctx, "context", "cfg-context", select.format("context")),
        '<div class="cfg-field cfg-check"><label><input id="cfg-pd" name="pd" type="checkbox"> '
        f'{esc(ctx.msg("cfg-pd"))}</label><small class="cfg-pd-note"></small></div>',
    ]
    parts = [
        f'<div class="cfg" data-configurator data-lang="{ctx.lang}">',
        f'<script type="application/json" class="cfg-messages">{messages(ctx.lang)}</script>',
        f"<noscript><p>{esc(ctx.msg('cfg-noscript'))}</p></noscript>",
        '<form class="cfg-form" autocomplete="off">',
        *fields,
        "</form>",
        '<div class="cfg-status" role="status" aria-live="polite">',
        f"{esc(ctx.msg('cfg-loading'))}</div>",
        '<div class="cfg-result"></div>',
        f'<p class="cfg-share-line">{esc(ctx.msg("cfg-share"))}{ctx.msg("sep-label")}'
        '<a class="cfg-share" href="./"></a></p>',
        "</div>",
        *_assets(ctx, SCRIPTS),
    ]
    return "\n".join(parts)


@renderer("doctor")
def doctor(ctx: RenderContext) -> str:
    """The command doctor: a pasted command (and, optionally, the reader's accelerator) → the checker's
    findings and the corrected commands, in the page's language."""
    options = [f'<option value="">{esc(ctx.msg("doc-gpu-none"))}</option>']
    options += [f'<option value="{attr(hw.id)}">{esc(hw.name)}</option>' for hw in ctx.kb.hardware.values()]
    parts = [
        f'<div class="doc" data-doctor data-lang="{ctx.lang}">',
        f'<script type="application/json" class="cfg-messages">{messages(ctx.lang)}</script>',
        f"<noscript><p>{esc(ctx.msg('doc-noscript'))}</p></noscript>",
        f'<label class="doc-label" for="doc-input">{esc(ctx.msg("doc-input"))}</label>',
        f'<textarea id="doc-input" class="doc-input" rows="8" spellcheck="false" autocomplete="off" '
        f'placeholder="{attr(ctx.msg("doc-placeholder"))}"></textarea>',
        f'<p class="doc-gpu-line"><label class="doc-label" for="doc-gpu">{esc(ctx.msg("doc-gpu"))}</label> '
        f'<select id="doc-gpu" class="doc-gpu">{"".join(options)}</select></p>',
        '<p class="doc-actions"><button type="button" class="md-button md-button--primary doc-check">'
        f'{esc(ctx.msg("doc-check"))}</button> <button type="button" class="md-button doc-example">'
        f"{esc(ctx.msg('doc-example'))}</button></p>",
        f'<p class="doc-private">{esc(ctx.msg("doc-private"))}</p>',
        '<div class="doc-status" role="status" aria-live="polite">',
        f"{esc(ctx.msg('doc-loading'))}</div>",
        '<ol class="doc-findings"></ol>',
        '<div class="doc-corrected"></div>',
        "</div>",
        *_assets(ctx, DOCTOR_SCRIPTS),
    ]
    return "\n".join(parts)


def benchmark_rows(
    ctx: RenderContext, record: dict[str, Any], verdict: dict[bool | None, str]
) -> list[list[str]]:
    """The benchmarks page's rows for both pages' weight and speed (none in a record that predates them)."""
    f, targets, met = record["figures"], record["targets"], record["targets_met"]
    if "doctor_page_gzip_bytes" not in targets:
        return []
    rows = []
    for name in ("configurator", "doctor"):
        if f"{name}_page_gzip_bytes" not in f:
            continue
        size = f[f"{name}_page_gzip_bytes"]
        parts = ", ".join(
            f"{esc(kind)} {n / 1000:,.1f} kB" for kind, n in f[f"{name}_page_gzip_by_kind"].items()
        )
        limit = targets["doctor_page_gzip_bytes"]
        rows.append(
            [
                ctx.msg("cfg-bench-page", page=f"<code>{esc(f[f'{name}_page'])}</code>", parts=parts),
                f"{size / 1000:,.1f} kB",
                f"≤ {limit / 1000:,.1f} kB",
                verdict[size <= limit],
            ]
        )
    if "doctor_check_ms" in f:
        runs = f["timing_runs"]
        for key, label in (
            ("doctor_check_ms", ctx.msg("cfg-bench-check", flags=f["doctor_check_flags"], runs=runs)),
            ("configurator_update_ms", ctx.msg("cfg-bench-update", runs=runs)),
        ):
            rows.append([label, f"{f[key]:.1f} ms", f"{esc('<')} {targets[key]:g} ms", verdict[met[key]]])
    return rows
