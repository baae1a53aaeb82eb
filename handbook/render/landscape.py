"""Renderers for models, accelerators, attention families, claims and KV figures (chapters 00–02, 06), and
chapter 06.8's quick reference of each model's recommended layout, flags and image."""

from __future__ import annotations

from typing import Any

from handbook.calc import claims as claim_calc
from handbook.calc import memory
from handbook.core.anchors import KV_TABLE_PAGE, MODELS_PAGE
from handbook.core.formatting import billions, binary_size, gb, percent, sig, thousands
from handbook.core.install import PLACEHOLDER, install_line, repository_url
from handbook.core.units import GB
from handbook.kb.schema import Model
from handbook.render.context import RenderContext, attr, esc
from handbook.render.html import fence, table
from handbook.render.markers import RenderError, renderer
from handbook.render.verdicts import verdicts


def _ids(ctx: RenderContext, raw: str, pool: dict[str, Any], what: str) -> list[str]:
    ids = [i for i in raw.split(",") if i]
    for i in ids:
        if i not in pool:
            raise RenderError(f"{i!r} is not a {what} id")
    return ids


def model_anchor(model: Model) -> tuple[str, str]:
    """(page, anchor) of a model's entry: frontier models in 01's overview, the others in 02's KV table."""
    if model.role == "frontier":
        return MODELS_PAGE, model.id
    return KV_TABLE_PAGE, f"kv-{model.id}"


def model_link(ctx: RenderContext, model: Model) -> str:
    page, anchor = model_anchor(model)
    return f'<a href="{attr(ctx.href(page, anchor))}">{esc(model.name)}</a>'


# ------------------------------------------------------------------------------------ chapter 00
@renderer("baseline")
def baseline(ctx: RenderContext) -> str:
    hb = ctx.kb.handbook
    rows = [[esc(ctx.t(r.component)), esc(r.baseline), ctx.text_html(r.note)] for r in hb.baseline]
    return table(
        [ctx.msg("baseline-col-component"), ctx.msg("baseline-col-baseline"), ctx.msg("col-notes")], rows
    )


@renderer("engine-version", inline=True)
def engine_version(ctx: RenderContext) -> str:
    return esc(ctx.kb.handbook.engine_version)


@renderer("install")
def install(ctx: RenderContext) -> str:
    """The one line that installs the command line on a fresh machine (handbook/core/install.py), with what
    it needs and, where the repository's address is not known to this build, where to put it in."""
    url = repository_url()
    said = [ctx.msg("install-needs")]
    if url is None:
        said.append(ctx.msg("install-placeholder", placeholder=PLACEHOLDER))
    return fence(install_line(url)) + "\n\n" + esc(ctx.msg("sep-sentence").join(said))


# ------------------------------------------------------------------------------------ chapter 01
def _params_text(ctx: RenderContext, model: Model, which: str) -> str:
    value = getattr(model.params, which)
    return billions(value) if value is not None else "—"


def _experts_text(model: Model) -> str:
    e = model.experts
    if e is None:
        return "—"
    return f"{e.routed if e.routed else '—'} / {e.per_token if e.per_token else '—'}"


@renderer("moe-table")
def moe_table(ctx: RenderContext, models: str) -> str:
    rows = []
    for mid in _ids(ctx, models, ctx.kb.models, "model"):
        m = ctx.kb.models[mid]
        rows.append(
            [
                model_link(ctx, m),
                _params_text(ctx, m, "total_b"),
                _params_text(ctx, m, "active_b"),
                _experts_text(m),
            ]
        )
    headers = [
        ctx.msg("col-model"),
        ctx.msg("moe-col-total"),
        ctx.msg("moe-col-active"),
        ctx.msg("moe-col-experts"),
    ]
    return table(headers, rows, numeric=(1, 2))


@renderer("models-overview")
def models_overview(ctx: RenderContext, models: str = "") -> str:
    ids = (
        _ids(ctx, models, ctx.kb.models, "model")
        if models
        else [m.id for m in ctx.kb.models.values() if m.role == "frontier"]
    )
    rows, row_ids = [], []
    for mid in ids:
        m = ctx.kb.models[mid]
        sizes = (
            esc(ctx.t(m.params.stated))
            if m.params.stated and (m.params.total_b is None or m.params.active_b is None)
            else (f"{_params_text(ctx, m, 'total_b')} / {_params_text(ctx, m, 'active_b')}")
        )
        if m.context is None:
            context = "—"
        elif m.context.extended:
            context = f"{thousands(m.context.native)} → {sig(m.context.extended / 1e6)}M"
        else:
            context = thousands(m.context.native)
        precisions = " / ".join(esc(ctx.kb.dtypes[p.dtype].name) for p in m.precisions) or "—"
        rows.append(
            [
                f"<strong>{esc(m.name)}</strong>",
                sizes,
                context,
                ctx.text_html(m.attention.stated),
                precisions,
                ctx.text_html(m.overview_note) if m.overview_note else "—",
            ]
        )
        row_ids.append(m.id)
    headers = [
        ctx.msg("col-model"),
        ctx.msg("models-col-size"),
        ctx.msg("models-col-context"),
        ctx.msg("models-col-attention"),
        ctx.msg("col-precision"),
        ctx.msg("models-col-remarks"),
    ]
    return table(headers, rows, numeric=(2,), row_ids=row_ids)


@renderer("attention-families")
def attention_families(ctx: RenderContext, families: str = "") -> str:
    ids = (
        _ids(ctx, families, ctx.kb.attention, "attention family")
        if families
        else [f.id for f in ctx.kb.attention.values() if f.flags or f.flags_note]
    )
    rows = []
    for fid in ids:
        f = ctx.kb.attention[fid]
        flags = " / ".join(f"<code>{esc(line)}</code>" for line in f.flags)
        if f.flags_note:
            flags = (flags + "<br>" if flags else "") + ctx.text_html(f.flags_note)
        rows.append(
            [esc(ctx.t(f.label)), ctx.text_html(f.representatives), (flags or "—") + verdicts(ctx, f.rules)]
        )
    headers = [
        ctx.msg("families-col-family"),
        ctx.msg("families-col-examples"),
        ctx.msg("families-col-flags"),
    ]
    return table(headers, rows)


def _get(obj: Any, path: str) -> Any:
    """``context.native``, ``precisions.0.checkpoint``, ``config.layer_types_count.full_attention``."""
    for part in path.split("."):
        if isinstance(obj, dict):
            obj = obj.get(part)
        elif isinstance(obj, list):
            obj = obj[int(part)] if part.isdigit() and int(part) < len(obj) else None
        else:
            obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


@renderer("fact", inline=True)
def fact(
    ctx: RenderContext, model: str = "", hardware: str = "", field: str = "", format: str = "plain"
) -> str:
    """One value of a model or accelerator: ``<!-- kb:fact model=<id> field=context.native -->``."""
    if bool(model) == bool(hardware):
        raise RenderError("give exactly one of model= or hardware=")
    pool, key = (ctx.kb.models, model) if model else (ctx.kb.hardware, hardware)
    if key not in pool:
        raise RenderError(f"{key!r} is not a {'model' if model else 'hardware'} id")
    value = _get(pool[key], field)
    if value is None:
        raise RenderError(f"{key}: field {field!r} has no value")
    if format == "thousands":
        return thousands(value)
    if format == "billions":
        return billions(value)
    if format == "code":
        return f"<code>{esc(value)}</code>"
    if format != "plain":
        raise RenderError(f"format {format!r}: expected plain, thousands, billions or code")
    return esc(ctx.t(value) if not isinstance(value, int | float) else value)


# ------------------------------------------------------------------------------------ claims & KV
def claim_value(ctx: RenderContext, claim_id: str) -> tuple[Any, claim_calc.Outcome]:
    claim = ctx.kb.claims.get(claim_id)
    if claim is None:
        raise RenderError(f"{claim_id!r} is not a claim id in kb/claims.yaml")
    try:
        return claim, claim_calc.evaluate(ctx.kb, claim)
    except claim_calc.ClaimError as exc:
        raise RenderError(str(exc)) from None


def format_claim(ctx: RenderContext, claim: Any, values: tuple[float, ...]) -> str:
    unit = claim.unit
    if unit == "1/x":
        return f"1/{sig(values[0], 2)}"
    if unit == "x":
        return f"{sig(values[0], 2)}×"
    if unit == "%":
        return "–".join(percent(v) for v in values)
    if unit in claim_calc.UNIT_BYTES:
        n_bytes = values[0] * claim_calc.UNIT_BYTES[unit]
        return f"{binary_size(n_bytes)} ({gb(n_bytes)})" if n_bytes >= GB / 10 else binary_size(n_bytes)
    raise RenderError(f"unit {unit!r} has no format")


@renderer("claim", inline=True)
def claim(ctx: RenderContext, id: str) -> str:
    """A figure the source states, as computed from the KB (the drift list shows any disagreement). A
    percentage that agrees is shown as the source rounds it (3%–6%, not the computed 3.1%–6.1%)."""
    c, outcome = claim_value(ctx, id)
    if outcome.agrees and c.unit == "%":
        decimals = [len(v.partition(".")[2]) for v in c.stated_values]
        return "–".join(f"{v:.{d}f}%" for v, d in zip(outcome.values, decimals, strict=True))
    return format_claim(ctx, c, outcome.values)


@renderer("kv-example")
def kv_example(ctx: RenderContext, claim: str) -> str:
    """The worked KV formula of a per-token claim, with every factor taken from the model's config."""
    c, _ = claim_value(ctx, claim)
    if c.quantity != "kv-bytes-per-token":
        raise RenderError(f"claim {claim} is a {c.quantity}, expected kv-bytes-per-token")
    model = ctx.kb.models[str(c.args["model"])]
    dtype = ctx.kb.dtypes[str(c.args["kv_dtype"])]
    cell = memory.kv_cell(model, dtype)
    cfg = model.config
    nbytes = sig(dtype.bits / 8)
    if cell.formula == "mla":
        expr = f"{cell.layers_counted} × ({cfg.kv_lora_rank} + {cfg.qk_rope_head_dim}) × {nbytes}"
    else:
        dims = (
            f"{cfg.head_dim}"
            if not cfg.v_head_dim or cfg.v_head_dim == cfg.head_dim
            else (f"({cfg.head_dim} + {cfg.v_head_dim}) / 2")
        )
        expr = f"2 × {cell.layers_counted} × {cfg.num_key_value_heads} × {dims} × {nbytes}"
    result = f"{expr} = {thousands(cell.bytes_per_token)} B ≈ {binary_size(cell.bytes_per_token)} / token"
    return f"```text\n{result}\n```"


KV_TABLE_TOKENS = (8192, 131072, 1048576)
# The layers the KV formula leaves out (memory.KvCell.elsewhere), by kind.
LAYER_KEYS = {"linear_attention": "layers-linear_attention", "sliding_attention": "layers-sliding_attention"}


@renderer("kv-table")
def kv_table(ctx: RenderContext) -> str:
    """Every model's KV bytes per token (BF16 / FP8 KV) and the KV of one 8K / 128K / 1M-token sequence."""
    bf16, fp8 = ctx.kb.dtypes["bf16"], ctx.kb.dtypes["fp8"]
    rows, ids = [], []
    for m in ctx.kb.models.values():
        try:
            cells = [memory.kv_cell(m, bf16), memory.kv_cell(m, fp8)]
        except memory.NotPublished as exc:
            missing = ", ".join(exc.missing)
            note = ctx.msg("not-published-fields", fields=missing)
            try:  # the layer count may be known when a dimension is not (Kimi's 24 MLA layers)
                counted = str(memory.layer_split(m).full)
            except memory.NotPublished:
                counted = ctx.msg("not-published")
            formula = esc(m.attention.kv_formula.upper())
            rows.append([model_link(ctx, m), formula, esc(counted), note, "—", "—", "—"])
            ids.append(f"kv-{m.id}")
            continue
        elsewhere = ctx.msg("sep-list").join(
            ctx.msg(LAYER_KEYS[kind], count=n) for kind, n in cells[0].elsewhere.items()
        )
        layers = str(cells[0].layers_counted)
        if elsewhere:
            layers += ctx.msg("layers-elsewhere", layers=elsewhere)
        if cells[0].sparse_indexer:
            layers += ctx.msg("layers-dsa-indexer", topk=m.config.index_topk)
        if "qsa" in m.attention.families:  # the compressed QSA index keys (see the model's notes)
            layers += ctx.msg("layers-qsa-indexer")
        rows.append(
            [
                model_link(ctx, m),
                esc(m.attention.kv_formula.upper()),
                esc(layers),
                f"{thousands(cells[0].bytes_per_token)} / {thousands(cells[1].bytes_per_token)}",
                *[
                    " / ".join(binary_size(cell.bytes_per_token * t) for cell in cells)
                    for t in KV_TABLE_TOKENS
                ],
            ]
        )
        ids.append(f"kv-{m.id}")
    headers = [
        ctx.msg("col-model"),
        ctx.msg("kv-col-formula"),
        ctx.msg("kv-col-layers"),
        ctx.msg("kv-col-bytes"),
        "8K",
        "128K",
        "1M",
    ]
    return table(headers, rows, numeric=(3, 4, 5, 6), row_ids=ids)


# ------------------------------------------------------------------------------------ chapter 06
@renderer("precision-table")
def precision_table(ctx: RenderContext, model: str) -> str:
    if model not in ctx.kb.models:
        raise RenderError(f"{model!r} is not a model id")
    m = ctx.kb.models[model]
    rows = []
    for p in m.precisions:
        rows.append(
            [
                esc(ctx.kb.dtypes[p.dtype].name),
                f"<code>{esc(p.checkpoint)}</code>" if p.checkpoint else "—",
                f"{sig(p.min_memory_gb)} GB" if p.min_memory_gb else "—",
                ctx.text_html(p.recommended_hardware) if p.recommended_hardware else "—",
            ]
        )
    headers = [
        ctx.msg("col-precision"),
        "checkpoint",
        ctx.msg("precision-col-memory"),
        ctx.msg("precision-col-hardware"),
    ]
    return table(headers, rows, numeric=(2,))


@renderer("hardware-table")
def hardware_table(ctx: RenderContext, model: str) -> str:
    """Accelerator × precision → the smallest TP whose weight share fits, computed beside the source's own.
    One row per accelerator and one column per precision: a handful of columns that fit a phone, where one
    column per accelerator ran off the page."""
    if model not in ctx.kb.models:
        raise RenderError(f"{model!r} is not a model id")
    m = ctx.kb.models[model]
    cells = memory.tp_table(m, ctx.kb.dtypes, ctx.kb.hardware)
    if not cells:
        raise RenderError(f"{model} has no precision with a stated hardware table (stated_tp)")
    hw_ids = list(dict.fromkeys(c.hardware for c in cells))
    precisions = [p for p in m.precisions if p.stated_tp]
    headers = [ctx.msg("col-accelerator")]
    for precision in precisions:
        dtype = ctx.kb.dtypes[precision.dtype]
        weights = ctx.msg("hardware-col-weights-of", weights=gb(memory.weight_bytes(m, dtype)))
        headers.append(f"{esc(dtype.name)}<br><small>{esc(weights)}</small>")
    rows = []
    for hw_id in hw_ids:
        hardware = ctx.kb.hardware[hw_id]
        row = [f"{esc(hardware.name)}<br><small>{sig(hardware.memory_gb)} GB</small>"]
        for precision in precisions:
            cell = next((c for c in cells if c.dtype == precision.dtype and c.hardware == hw_id), None)
            if cell is None or cell.tp is None:
                row.append("—")
                continue
            tp = f"≥ tp{cell.tp}" if cell.at_least else f"tp{cell.tp}"
            # the planner's figure, in its unit: the same "KV pool per GPU" as the planner and configurator
            pool = "—" if cell.kv_pool_per_gpu is None else binary_size(cell.kv_pool_per_gpu)
            bound = "≤ " if cell.at_least and cell.kv_pool_per_gpu is not None else ""
            text = f"{tp} <small>· {esc(ctx.msg('planner-fig-kv-pool'))} {bound}{pool}</small>"
            if not cell.agrees:
                text += f"<br><small>{ctx.msg('hardware-source-tp')}: tp{cell.stated_tp}</small>"
            row.append(text)
        rows.append(row)
    out = table(headers, rows)
    notes = [ctx.text_html(p.stated_tp_note) for p in m.precisions if p.stated_tp_note]
    stated = [c for c in cells if c.stated_tp is not None]
    agreeing = sum(c.agrees for c in stated)
    out += "\n\n" + ctx.text_html(ctx.msg("tp-table-note"))
    out += " " + ctx.msg("tp-table-agreement", stated=len(stated), agreeing=agreeing)
    if notes:
        out += " " + " ".join(notes)
    return out


# ------------------------------------------------------------------------------------ chapter 06.8
def _key_flags(ctx: RenderContext, model: Model) -> str:
    """The row's flag lines as code, each linked to its parameter's entry, then the row's remark."""
    rec = model.recommended
    assert rec is not None
    cells = []
    for line in rec.key_flags:
        parameter = ctx.kb.parameter(line.split()[0])
        assert parameter is not None, line  # the loader accepts only documented flags here
        cells.append(ctx.parameter_link(parameter, line))
    text = ctx.msg("sep-enum").join(cells)
    if rec.key_flags_note:
        text += f"<br><small>{ctx.text_html(rec.key_flags_note)}</small>"
    return text


def _image(ctx: RenderContext, model: Model) -> str:
    """The image tag (or the source's wording where it names none), and the source branch if there is one."""
    image = model.image
    if image is None:
        return "—"
    text = f"<code>{esc(image.tag)}</code>" if image.tag else ctx.text_html(image.stated)
    if image.branch:
        text += f"<br><small>{ctx.msg('quickref-branch', branch=f'<code>{esc(image.branch)}</code>')}</small>"
    return text


@renderer("quick-reference")
def quick_reference(ctx: RenderContext, models: str = "", highlight: str = "") -> str:
    """Chapter 06.8: per model the recommended TP/EP, key flags and image; ``highlight=`` rows in bold."""
    if models:
        ids = [m for m in models.split(",") if m]
        for mid in ids:
            if mid not in ctx.kb.models:
                raise RenderError(f"{mid!r} is not a model id")
            if ctx.kb.models[mid].recommended is None:
                raise RenderError(f"{mid} has no `recommended` entry in kb/models/{mid}.yaml")
    else:
        ids = [m.id for m in ctx.kb.models.values() if m.recommended is not None]
    bold = [m for m in highlight.split(",") if m]
    for mid in bold:
        if mid not in ids:
            raise RenderError(f"highlight={mid}: not one of the table's models")
    rows = []
    for mid in ids:
        m = ctx.kb.models[mid]
        assert m.recommended is not None
        name = model_link(ctx, m)
        rows.append(
            [
                f"<strong>{name}</strong>" if mid in bold else name,
                esc(ctx.t(m.recommended.layout)),
                _key_flags(ctx, m),
                _image(ctx, m),
            ]
        )
    if not rows:
        raise RenderError("no model has a `recommended` entry")
    headers = [
        ctx.msg("col-model"),
        ctx.msg("quickref-col-layout"),
        ctx.msg("quickref-col-flags"),
        ctx.msg("quickref-col-image"),
    ]
    return table(headers, rows)
