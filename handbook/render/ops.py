"""Renderers for running SGLang: logs, metrics, tuning, pitfalls, variables, architecture, sources, drift."""

from __future__ import annotations

from handbook.calc import claims as claim_calc
from handbook.calc import memory
from handbook.core.anchors import env_anchor
from handbook.render.context import RenderContext, attr, esc
from handbook.render.html import bullet_list, fence, table
from handbook.render.landscape import format_claim
from handbook.render.markers import RenderError, renderer
from handbook.render.params import STAGE_MARKS


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
    headers = [ctx.pick("字段", "Field"), ctx.pick("含义", "Meaning")] + (
        [ctx.pick("健康值", "Healthy value")] if with_health else []
    )
    return table(headers, rows)


@renderer("gpu-mem-bands")
def gpu_mem_bands(ctx: RenderContext) -> str:
    rows = []
    for b in ctx.kb.observability.available_gpu_mem_bands:
        if b.low is not None and b.high is not None:
            span = f"{b.low:g}–{b.high:g} {b.unit}"
        elif b.low is None:
            span = f"&lt; {b.high:g} {b.unit}"
        else:
            span = f"&gt; {b.low:g} {b.unit}"
        rows.append([span, ctx.text_html(b.verdict), ctx.text_html(b.action)])
    return table([ctx.pick("值", "Value"), ctx.pick("判断", "Verdict"), ctx.pick("动作", "Action")], rows)


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
    return table([ctx.pick("指标", "Metric"), ctx.pick("说明", "Meaning")], rows)


# ------------------------------------------------------------------------------------ tuning
@renderer("tuning-metrics")
def tuning_metrics(ctx: RenderContext) -> str:
    rows = [
        [f"<strong>{esc(m.name)}</strong>", ctx.text_html(m.definition), ctx.text_html(m.driven_by)]
        for m in ctx.kb.tuning.metrics
    ]
    headers = [
        ctx.pick("指标", "Metric"),
        ctx.pick("定义", "Definition"),
        ctx.pick("主要决定因素", "Mainly driven by"),
    ]
    return table(headers, rows)


@renderer("tuning-steps")
def tuning_steps(ctx: RenderContext) -> str:
    out = []
    for n, step in enumerate(ctx.kb.tuning.steps, 1):
        title = ctx.pick(f"第{'一二三四五六七八九十'[n - 1]}步：", f"Step {n}: ") + ctx.text_html(step.title)
        out.append(
            f"<p><strong>{title}</strong></p>\n\n" + bullet_list([ctx.text_html(i) for i in step.items])
        )
    return "\n\n".join(out)


@renderer("scenarios")
def scenarios(ctx: RenderContext) -> str:
    rows = []
    for s in ctx.kb.tuning.scenarios:
        settings = [f"<code>{esc(line)}</code>" for line in s.flags]
        if s.extra:
            settings.append(ctx.text_html(s.extra))
        rows.append(
            [f"<strong>{esc(ctx.t(s.name))}</strong>", "<br>".join(settings), ctx.text_html(s.reason)]
        )
    return table(
        [ctx.pick("场景", "Scenario"), ctx.pick("关键配置", "Key settings"), ctx.pick("理由", "Why")], rows
    )


@renderer("startup-tips")
def startup_tips(ctx: RenderContext) -> str:
    rows = [
        [f"<code>{esc(t.flags)}</code>" if t.flags else ctx.text_html(t.action), ctx.text_html(t.explanation)]
        for t in ctx.kb.tuning.startup
    ]
    return table([ctx.pick("手段", "Technique"), ctx.pick("说明", "Notes")], rows)


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
        rows.append([symptom, ctx.text_html(p.cause), ctx.text_html(p.fix)])
    if not rows:
        raise RenderError(
            f"no pitfall is scoped to {model}" if model else "no pitfall is in the troubleshooting table"
        )
    headers = [ctx.pick("现象", "Symptom"), ctx.pick("原因", "Cause"), ctx.pick("处理", "Fix")]
    return table(headers, rows, row_ids=[f"pitfall-{p.id}" if not model else None for p in chosen])


@renderer("env-vars")
def env_vars(ctx: RenderContext) -> str:
    readers = {
        "sglang": "SGLang",
        "aiter": "AITER",
        "rocm": "ROCm",
        "vllm-compat": ctx.pick("vLLM 兼容名", "vLLM name"),
        "huggingface": "Hugging Face",
    }
    rows, ids = [], []
    for v in ctx.kb.env_vars.values():
        rows.append(
            [
                f"<code>{esc(v.name)}</code>",
                ctx.text_html(v.purpose),
                esc(readers[v.read_by]),
                f"<code>{esc(v.example)}</code>" if v.example else "—",
            ]
        )
        ids.append(env_anchor(v.name))
    headers = [
        ctx.pick("变量", "Variable"),
        ctx.pick("作用", "Purpose"),
        ctx.pick("读取方", "Read by"),
        ctx.pick("手册中的取值", "Value used in the handbook"),
    ]
    return table(headers, rows, row_ids=ids)


# ------------------------------------------------------------------------------------ architecture
@renderer("request-path")
def request_path(ctx: RenderContext) -> str:
    """Chapter 03's seven stages, with the flags that act on each."""
    rows = []
    for st in ctx.kb.architecture.stages:
        flags = " ".join(ctx.flag_html(f) for f in st.flags) or "—"
        rows.append([f"{STAGE_MARKS[st.number - 1]} {esc(ctx.t(st.name))}", ctx.text_html(st.steps), flags])
    return table(
        [ctx.pick("阶段", "Stage"), ctx.pick("做什么", "What happens"), ctx.pick("相关参数", "Flags")],
        rows,
        row_ids=[f"stage-{st.number}" for st in ctx.kb.architecture.stages],
    )


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
        ctx.pick("来源", "Source"),
        ctx.pick("用途", "Backs"),
        ctx.pick("类别", "Kind"),
        ctx.pick("核验日期", "Checked"),
    ]
    return table(headers, rows, row_ids=ids)


@renderer("drift")
def drift(ctx: RenderContext) -> str:
    """Where the source handbook's figures or commands differ from computation or from the engine."""
    rows = []
    for c in ctx.kb.claims.values():
        outcome = claim_calc.evaluate(ctx.kb, c)
        if outcome.agrees:
            continue
        rows.append(
            [
                esc(ctx.t(c.section)),
                esc(ctx.t(c.stated)),
                format_claim(ctx, c, outcome.values),
                ctx.text_html(c.why),
            ]
        )
    for m in ctx.kb.models.values():
        for cell in memory.tp_table(m, ctx.kb.dtypes, ctx.kb.hardware):
            if not cell.agrees:
                where = f"{m.name} · {ctx.kb.dtypes[cell.dtype].name} · {ctx.kb.hardware[cell.hardware].name}"
                rows.append(
                    [
                        esc(where),
                        f"tp{cell.stated_tp}",
                        f"tp{cell.tp}" if cell.tp else "—",
                        ctx.text_html(ctx.msg("tp-drift-why", fraction=memory.TABLE_MEM_FRACTION)),
                    ]
                )
    for scenario in ctx.kb.tuning.scenarios:
        for fix in scenario.corrections:
            where = f"{ctx.msg('drift-scenario')} · {ctx.t(scenario.name)}"
            rows.append(
                [
                    esc(where),
                    f"<code>{esc(fix.stated)}</code>",
                    f"<code>{esc(fix.published)}</code>",
                    ctx.text_html(fix.why),
                ]
            )
    for r in ctx.kb.recipes.values():
        for fix in r.corrections:
            rows.append(
                [
                    esc(ctx.t(r.title)),
                    f"<code>{esc(fix.stated)}</code>",
                    f"<code>{esc(fix.published)}</code>",
                    ctx.text_html(fix.why),
                ]
            )
    if not rows:
        raise RenderError("no drift entries: the drift list would be empty")
    headers = [
        ctx.pick("位置", "Where"),
        ctx.pick("源稿所写", "The source says"),
        ctx.pick("本站发布", "Published here"),
        ctx.pick("原因", "Why"),
    ]
    return table(headers, rows)
