"""Renderers for running SGLang: logs, metrics, tuning, pitfalls, variables, architecture, sources, drift."""

from __future__ import annotations

from handbook.core.anchors import env_anchor
from handbook.core.text import LANGS
from handbook.render.context import RenderContext, attr, esc
from handbook.render.engine import correction_line
from handbook.render.html import bullet_list, fence, table
from handbook.render.markers import RenderError, renderer
from handbook.render.verdicts import verdicts


def _log_line(ctx: RenderContext, lid: str):
    obs = ctx.kb.observability
    for line in obs.log_lines:
        if line.id == lid:
            return line
    raise RenderError(
        f"{lid!r} is not a log line id (kb/observability.yaml: {[x.id for x in obs.log_lines]})"
    )


@renderer("log-line")
def log_line(ctx: RenderContext, id: str) -> str:
    return fence(_log_line(ctx, id).example, "text")


@renderer("log-fields")
def log_fields(ctx: RenderContext, id: str) -> str:
    line = _log_line(ctx, id)
    if not line.fields:
        raise RenderError(f"log line {id} has no fields")
    with_health = any(f.healthy for f in line.fields)
    rows = [
        [f"<code>{esc(f.name)}</code>", ctx.text_html(f.meaning)]
        + ([ctx.text_html(f.healthy) if f.healthy else "—"] if with_health else [])
        for f in line.fields
    ]
    headers = [ctx.msg("log-col-field"), ctx.msg("log-col-meaning")] + (
        [ctx.msg("log-col-healthy")] if with_health else []
    )
    return table(headers, rows)


@renderer("gpu-mem-bands")
def gpu_mem_bands(ctx: RenderContext) -> str:
    rows = []
    for b in ctx.kb.observability.available_gpu_mem_bands:
        if b.low is not None and b.high is not None:
            span = f"{b.low:g}–{b.high:g} {esc(b.unit)}"
        elif b.low is None:
            span = f"&lt; {b.high:g} {esc(b.unit)}"
        else:
            span = f"&gt; {b.low:g} {esc(b.unit)}"
        rows.append([span, ctx.text_html(b.verdict), ctx.text_html(b.action)])
    return table([ctx.msg("col-value"), ctx.msg("bands-col-verdict"), ctx.msg("bands-col-action")], rows)


@renderer("signals")
def signals(ctx: RenderContext) -> str:
    items = [
        f"<strong>{ctx.text_html(s.condition)}</strong> → {ctx.text_html(s.action)}"
        for s in ctx.kb.observability.signals
    ]
    if not items:
        raise RenderError("kb/observability.yaml has no signals")
    return bullet_list(items)


@renderer("metrics")
def metrics(ctx: RenderContext) -> str:
    rows = [[f"<code>{esc(m.name)}</code>", ctx.text_html(m.meaning)] for m in ctx.kb.observability.metrics]
    return table([ctx.msg("col-metric"), ctx.msg("metrics-col-meaning")], rows)


# ------------------------------------------------------------------------------------ tuning
@renderer("tuning-metrics")
def tuning_metrics(ctx: RenderContext) -> str:
    rows = [
        [f"<strong>{esc(m.name)}</strong>", ctx.text_html(m.definition), ctx.text_html(m.driven_by)]
        for m in ctx.kb.tuning.metrics
    ]
    headers = [
        ctx.msg("col-metric"),
        ctx.msg("tuning-col-definition"),
        ctx.msg("tuning-col-driven-by"),
    ]
    return table(headers, rows)


def _step_number(ctx: RenderContext, n: int) -> str:
    """A step's number as the page's language counts: Chinese numerals in Chinese (steps one to ten)."""
    return "一二三四五六七八九十"[n - 1] if ctx.lang == LANGS[0] else str(n)


@renderer("tuning-steps")
def tuning_steps(ctx: RenderContext) -> str:
    out = []
    for n, step in enumerate(ctx.kb.tuning.steps, 1):
        title = ctx.msg("tuning-step", n=_step_number(ctx, n)) + ctx.text_html(step.title)
        block = f"<p><strong>{title}</strong></p>\n\n" + bullet_list([ctx.text_html(i) for i in step.items])
        if step.rules:
            block += "\n\n<p>" + verdicts(ctx, step.rules).removeprefix("<br>") + "</p>"
        out.append(block)
    return "\n\n".join(out)


@renderer("scenarios")
def scenarios(ctx: RenderContext) -> str:
    rows = []
    for s in ctx.kb.tuning.scenarios:
        settings = [f"<code>{esc(line)}</code>" for line in s.flags]
        if s.extra:
            settings.append(ctx.text_html(s.extra))
        rows.append(
            [
                f"<strong>{esc(ctx.t(s.name))}</strong>",
                "<br>".join(settings),
                ctx.text_html(s.reason) + verdicts(ctx, s.rules),
            ]
        )
    out = table(
        [ctx.msg("scenarios-col-scenario"), ctx.msg("scenarios-col-settings"), ctx.msg("scenarios-col-why")],
        rows,
    )
    # what this site changed from the source's settings, right under the table a reader copies from
    for s in ctx.kb.tuning.scenarios:
        for i, fix in enumerate(s.corrections):
            line = correction_line(ctx, f"scenario-{s.id}", i, fix, "launch_server")
            name = f"<strong>{esc(ctx.t(s.name))}</strong>{ctx.msg('sep-label')}"
            out += "\n\n" + line.replace('">', '">' + name, 1)
    return out


@renderer("startup-tips")
def startup_tips(ctx: RenderContext) -> str:
    rows = [
        [
            f"<code>{esc(t.flags)}</code>" if t.flags else ctx.text_html(t.action),
            ctx.text_html(t.explanation) + verdicts(ctx, t.rules),
        ]
        for t in ctx.kb.tuning.startup
    ]
    return table([ctx.msg("startup-col-technique"), ctx.msg("col-notes")], rows)


# ------------------------------------------------------------------------------------ pitfalls & variables
@renderer("pitfalls")
def pitfalls(ctx: RenderContext, model: str = "", troubleshooting: str = "no") -> str:
    """Symptom → cause → fix, for one model (``model=``) or chapter 08's table (``troubleshooting=yes``)."""
    if bool(model) == (troubleshooting == "yes"):
        raise RenderError("give model=<id> or troubleshooting=yes")
    if model and model not in ctx.kb.models:
        raise RenderError(f"{model!r} is not a model id")
    chosen = [
        p for p in ctx.kb.pitfalls.values() if (model in p.scope.models if model else p.troubleshooting)
    ]
    rows = []
    for p in chosen:
        symptom = ctx.text_html(p.symptom) if p.symptom else ""
        if p.log:
            symptom = (symptom + "<br>" if symptom else "") + f"<code>{esc(p.log)}</code>"
        rows.append([symptom, ctx.text_html(p.cause), ctx.text_html(p.fix) + verdicts(ctx, p.rules)])
    if not rows:
        raise RenderError(
            f"no pitfall is scoped to {model}" if model else "no pitfall is in the troubleshooting table"
        )
    cause = "pitfalls-col-likely-cause" if troubleshooting == "yes" else "pitfalls-col-cause"
    headers = [ctx.msg("pitfalls-col-symptom"), ctx.msg(cause), ctx.msg("pitfalls-col-fix")]
    return table(headers, rows, row_ids=[f"pitfall-{p.id}" if not model else None for p in chosen])


READER_KEYS = {  # who reads a variable, in a word
    "sglang": "env-vars-reader-sglang",
    "aiter": "env-vars-reader-aiter",
    "rocm": "env-vars-reader-rocm",
    "huggingface": "env-vars-reader-huggingface",
    "none": "env-vars-reader-none",
    "unknown": "env-vars-reader-unknown",
}


@renderer("env-vars")
def env_vars(ctx: RenderContext) -> str:
    rows, ids = [], []
    for v in ctx.kb.env_vars.values():
        rows.append(
            [
                f"<code>{esc(v.name)}</code>",
                ctx.text_html(v.purpose) + verdicts(ctx, v.rules),
                esc(ctx.msg(READER_KEYS[v.read_by])),
                f"<code>{esc(v.example)}</code>" if v.example else "—",
            ]
        )
        ids.append(env_anchor(v.name))
    headers = [
        ctx.msg("col-variable"),
        ctx.msg("env-vars-col-purpose"),
        ctx.msg("env-vars-col-read-by"),
        ctx.msg("env-vars-col-example"),
    ]
    return table(headers, rows, row_ids=ids)


# ------------------------------------------------------------------------------------ architecture
@renderer("latency")
def latency(ctx: RenderContext) -> str:
    items = []
    for share in ctx.kb.architecture.latency:
        # the text names its stages (①–⑦) itself; `stages` is for linking and diagrams
        items.append(f"<strong>{esc(ctx.t(share.metric))}</strong> {ctx.text_html(share.text)}")
    return bullet_list(items)


# ------------------------------------------------------------------------------------ sources & drift
@renderer("sources")
def sources(ctx: RenderContext) -> str:
    rows, ids = [], []
    for s in sorted(ctx.kb.sources.values(), key=lambda s: (s.kind, s.id)):
        title = esc(ctx.t(s.title))
        if s.url:
            title = f'<a href="{attr(s.url)}">{title}</a>'
        rows.append([title, ctx.text_html(s.backs), esc(s.kind), esc(s.checked.isoformat())])
        ids.append(f"source-{s.id}")
    headers = [
        ctx.msg("sources-col-source"),
        ctx.msg("sources-col-backs"),
        ctx.msg("sources-col-kind"),
        ctx.msg("sources-col-checked"),
    ]
    return table(headers, rows, row_ids=ids)


# ------------------------------------------------------------------------------------ glossary
@renderer("glossary")
def glossary(ctx: RenderContext) -> str:
    """Appendix E: each term as both languages write it, the English variants the site does not use, and
    why where the choice needs a reason (kb/glossary.yaml; validate checks the English against it)."""
    rows, ids = [], []
    for term in ctx.kb.glossary.values():
        lines = [
            ctx.msg(key, variants=", ".join(f"<s>{esc(v)}</s>" for v in variants))
            for key, variants in (("glossary-avoid-zh", term.avoid_zh), ("glossary-avoid-en", term.avoid))
            if variants
        ]
        avoided = "<br>".join(lines) or "—"
        note = ctx.text_html(term.note) if term.note is not None else "—"
        rows.append([esc(term.term.zh), f"<strong>{esc(term.term.en)}</strong>", avoided, note])
        ids.append(f"term-{term.id}")
    if not rows:
        raise RenderError("kb/glossary.yaml lists no term")
    headers = [
        ctx.msg("glossary-col-zh"),
        ctx.msg("glossary-col-en"),
        ctx.msg("glossary-col-avoid"),
        ctx.msg("col-notes"),
    ]
    return table(headers, rows, row_ids=ids)
