"""Charts drawn from the KB with the planner's own arithmetic (handbook.calc.memory), as bars in DOT:

- ``kv-per-token``: every model's KV bytes per token with BF16 and with FP8 KV, the figures of chapter 02's KV
  table (``memory.kv_cell``). A model whose config is not published gets no bar and says so.
- ``weights-vs-kv``: for each model of chapter 06.8's cheat sheet, at each TP its recommended layout names,
  one GPU of ``HARDWARE`` split into its weights, its KV pool (with the recurrent-state pool where the model
  has one) and the rest, as ``memory.plan`` sizes it (the planner's defaults: the model's first weights
  precision, BF16 KV, the engine's default --mem-fraction-static, the context the planner opens on). A figure
  the planner computes from an upper bound is drawn as one and labelled ≤; an unknown one gets no bar.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from handbook.calc import memory
from handbook.calc.planner_data import kv_dtypes, opening_context, weight_dtypes
from handbook.core.formatting import binary_size, thousands
from handbook.core.messages import msg
from handbook.core.text import LANGS
from handbook.diagrams.dot import COLOURS, DiagramError, h, new_graph, width_em
from handbook.diagrams.figure import Drawing, Figure
from handbook.kb.loader import KB
from handbook.kb.schema import Model

KV_ID = "kv-per-token"
SPLIT_ID = "weights-vs-kv"
HARDWARE = "h200"  # the accelerator most of chapter 06's commands name
KV_DTYPES = ("bf16", "fp8")
BAR_PT = 360  # the longest bar (or a whole GPU), in points
ROW_PT = 20
FONT_PT = 13
# A layout of 6.8's cheat sheet: "tp8", "tp4 + ep4 / tp8 + ep8", "tp1 / tp4", "tp4–8" (both ends).
_TP = re.compile(r"\btp(\d+)(?:–(\d+))?(?:\s*\+\s*ep(\d+))?")


def _label_cell(text: str, width: int, *, bold: bool = False, align: str = "LEFT") -> str:
    shown = f"<B>{h(text)}</B>" if bold and text else h(text) or " "
    font = f'<FONT POINT-SIZE="{FONT_PT}">{shown}</FONT>'
    return f'<TD ALIGN="{align}" WIDTH="{width}" HEIGHT="{ROW_PT}">{font}</TD>'


def _bar(parts: list[tuple[float, str, bool]], total: float, note: str, note_width: int) -> str:
    """One bar as a cell holding its own table (so that no two rows share column widths): (value, colour,
    upper bound?) parts scaled to BAR_PT for ``total``, an upper bound drawn dashed, then the note."""
    cells, used = [], 0
    for value, colour, bound in parts:
        width = max(1, round(BAR_PT * value / total)) if value > 0 else 0
        if not width:
            continue
        used += width
        dashed = ' STYLE="dashed"' if bound else ""
        cells.append(
            f'<TD WIDTH="{width}" HEIGHT="{ROW_PT - 4}" FIXEDSIZE="TRUE" BGCOLOR="{colour}" BORDER="1"'
            f' COLOR="#475569"{dashed}><FONT POINT-SIZE="2"> </FONT></TD>'
        )
    # the note, a little apart from the bar, takes what the bar leaves
    cells.append(_label_cell(note, note_width + BAR_PT - used).replace("<TD ", '<TD CELLPADDING="4" ', 1))
    inner = (
        f'<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="0"><TR>{"".join(cells)}</TR></TABLE>'
    )
    return f'<TD ALIGN="LEFT" WIDTH="{BAR_PT + note_width}">{inner}</TD>'


def _note_width(notes: list[str]) -> int:
    return int(max(width_em(n) for n in notes) * FONT_PT) + 16


def _table(rows: list[str]) -> str:
    body = "".join(f"<TR>{row}</TR>" for row in rows)
    return f'<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="2" CELLPADDING="1">{body}</TABLE>>'


def _name_width(names: list[str]) -> int:
    return int(max(width_em(n) for n in names) * FONT_PT * 1.15) + 12


# ------------------------------------------------------------------------------------------ KV per token
def _kv_rows(kb: KB) -> list[tuple[Model, list[int] | None, tuple[str, ...]]]:
    out: list[tuple[Model, list[int] | None, tuple[str, ...]]] = []
    for model in kb.models.values():
        try:
            sizes = [memory.kv_cell(model, kb.dtypes[d]).bytes_per_token for d in KV_DTYPES]
        except memory.NotPublished as exc:
            out.append((model, None, tuple(exc.missing)))
            continue
        out.append((model, sizes, ()))
    return out


Row = tuple[list[str], list[tuple[float, str, bool]], float, str]  # heads, bar parts, scale, note


def _render(rows: list[Row]) -> list[str]:
    note_w = _note_width([note for _, _, _, note in rows])
    return ["".join(heads) + _bar(parts, total, note, note_w) for heads, parts, total, note in rows]


def draw_kv(kb: KB, lang: str) -> Drawing:
    absent = [d for d in KV_DTYPES if d not in kb.dtypes]
    if absent:
        raise DiagramError([f"kb/dtypes.yaml: the KV chart needs the dtypes {', '.join(absent)}"])
    found = _kv_rows(kb)
    known = [sizes for _, sizes, _ in found if sizes]
    if not known:
        raise DiagramError(["kb/models/: no model publishes the fields the KV formula needs"])
    longest = max(max(sizes) for sizes in known)
    name_w = _name_width([m.name for m, _, _ in found])
    dtype_names = [kb.dtypes[d].name for d in KV_DTYPES]
    tag_w = _name_width(dtype_names)
    colours = (COLOURS["kv-pool"], "#bbf7d0")
    rows: list[Row] = []
    alt = []
    for model, sizes, missing in found:
        if sizes is None:
            note = msg("chart-not-published", lang, fields=", ".join(missing))
            rows.append(([_label_cell(model.name, name_w, bold=True), _label_cell("", tag_w)], [], 1, note))
            alt.append(msg("chart-alt-kv-unknown", lang, model=model.name, fields=", ".join(missing)))
            continue
        for i, (size, name) in enumerate(zip(sizes, dtype_names, strict=True)):
            heads = [_label_cell(model.name if i == 0 else "", name_w, bold=True), _label_cell(name, tag_w)]
            value = msg("chart-bytes", lang, value=thousands(size), size=binary_size(size))
            rows.append((heads, [(size, colours[i], False)], longest, value))
        alt.append(
            msg("chart-alt-kv", lang, model=model.name, bf16=thousands(sizes[0]), fp8=thousands(sizes[1]))
        )
    title = msg("chart-kv-title", lang)
    g = new_graph(KV_ID, h(title), h(msg("chart-kv-subtitle", lang)))
    g.node("chart", label=_table(_render(rows)))
    caption = msg("chart-kv-caption", lang)
    return Drawing(g.source, caption, title + msg("sep-label", lang) + msg("sep-clause", lang).join(alt))


# ------------------------------------------------------------------------------------------ weights vs KV
@dataclass(frozen=True)
class Layout:
    tp: int
    ep: int


def layouts(model: Model) -> list[Layout]:
    """The TP (and EP) sizes a model's recommended layout names, in its order; [] when it names none."""
    if model.recommended is None:
        return []
    out: list[Layout] = []
    for match in _TP.finditer(model.recommended.layout.en):
        first, last, ep = match.group(1), match.group(2), match.group(3)
        for tp in (first, last) if last else (first,):
            layout = Layout(int(tp), int(ep) if ep and not last else 1)
            if layout not in out:
                out.append(layout)
    return out


def _row_name(lang: str, model: Model, layout: Layout | None) -> str:
    if layout is None:
        return model.name
    if layout.ep > 1:
        return msg("chart-split-row-ep", lang, model=model.name, tp=layout.tp, ep=layout.ep)
    return msg("chart-split-row", lang, model=model.name, tp=layout.tp)


def draw_split(kb: KB, lang: str) -> Drawing:
    if HARDWARE not in kb.hardware:
        raise DiagramError(
            [f"kb/hardware/{HARDWARE}.yaml: the weights-vs-KV chart is drawn for this accelerator"]
        )
    hw = kb.hardware[HARDWARE]
    kv = kb.dtypes[kv_dtypes(kb)[0]]
    models = [m for m in kb.models.values() if m.recommended is not None]
    if not models:
        raise DiagramError(["kb/models/: no model has a `recommended` layout (chapter 06.8)"])
    entries = []
    for model in models:
        weights = kb.dtypes[weight_dtypes(kb, model)[0]]
        context = opening_context(kb, model)
        found = layouts(model)
        if not found:
            entries.append((model, None, None, weights))
        for layout in found:
            plan = memory.plan(model, hw, weights, kv, layout.tp, ep=layout.ep, context=context)
            entries.append((model, layout, plan, weights))
    names = [_row_name(lang, m, lay) for m, lay, _, _ in entries]
    name_w = _name_width(names)
    rows: list[Row] = []
    alt = []
    legend = [
        (msg("fig-budget-weights", lang), COLOURS["weights"]),
        (msg("fig-budget-kv", lang), COLOURS["kv-pool"]),
        (msg("chart-split-rest", lang), COLOURS["rest"]),
    ]
    for (_, layout, plan, weights), name in zip(entries, names, strict=True):
        heads = [_label_cell(name, name_w, bold=True)]
        if layout is None or plan is None:
            note = msg("chart-split-no-layout", lang)
            rows.append((heads, [], 1, note))
            alt.append(f"{name}: {note}")
            continue
        if plan.free_bytes is None or plan.weights_per_gpu is None or plan.static_bytes is None:
            missing = ", ".join(sorted({f for fields in plan.missing.values() for f in fields}))
            note = msg("chart-not-published", lang, fields=missing)
            rows.append((heads, [], 1, note))
            alt.append(f"{name}: {note}")
            continue
        # which figures the planner computed from an upper bound: marked ≤, drawn dashed
        weights_bound = "weights-gpu" in plan.bounded
        static_bound = bool({"static", "budget"} & set(plan.bounded))
        rest_bound = "rest" in plan.bounded

        def mark(bound: bool) -> str:
            return "≤ " if bound else ""

        free = plan.free_bytes
        if plan.weights_per_gpu >= plan.static_bytes:
            note = msg(
                "chart-split-no-fit",
                lang,
                weights=mark(weights_bound) + binary_size(plan.weights_per_gpu),
                budget=mark(static_bound) + binary_size(plan.static_bytes),
            )
            rows.append(
                (heads, [(min(plan.weights_per_gpu, free), COLOURS["weights"], weights_bound)], free, note)
            )
            alt.append(f"{name}: {note}")
            continue
        pool = plan.static_bytes - plan.weights_per_gpu
        note = msg(
            "chart-split-values",
            lang,
            weights=mark(weights_bound) + binary_size(plan.weights_per_gpu),
            kv=mark(static_bound) + binary_size(pool),
            dtype=weights.name,
        )
        parts = [
            (plan.weights_per_gpu, COLOURS["weights"], weights_bound),
            (pool, COLOURS["kv-pool"], static_bound),
            (plan.rest_bytes or 0, COLOURS["rest"], rest_bound),
        ]
        rows.append((heads, parts, free, note))
        alt.append(f"{name}: {note}")
    lines = _render(rows)
    key = "".join(
        f'<TD BGCOLOR="{colour}" WIDTH="12" HEIGHT="12" FIXEDSIZE="TRUE" BORDER="1" COLOR="#475569">'
        '<FONT POINT-SIZE="2"> </FONT></TD>' + _label_cell(text, int(width_em(text) * FONT_PT) + 16)
        for text, colour in legend
    )
    legend_row = f'<TD></TD><TD ALIGN="LEFT"><TABLE BORDER="0" CELLSPACING="2"><TR>{key}</TR></TABLE></TD>'
    gpu = binary_size(memory.device_memory(hw).mib * 2**20)
    title = msg("chart-split-title", lang, hardware=hw.name, memory=gpu)
    g = new_graph(SPLIT_ID, h(title), h(msg("chart-split-subtitle", lang, kv=kv.name)))
    g.node("chart", label=_table([*lines, legend_row]))
    caption = msg("chart-split-caption", lang, hardware=hw.name, kv=kv.name)
    return Drawing(g.source, caption, title + msg("sep-label", lang) + msg("sep-clause", lang).join(alt))


def kv_figures(kb: KB) -> list[Figure]:
    kv = {lang: draw_kv(kb, lang) for lang in LANGS}
    return [Figure(KV_ID, "kb/models/", "figures", KV_ID, kv)]


def split_figures(kb: KB) -> list[Figure]:
    split = {lang: draw_split(kb, lang) for lang in LANGS}
    return [Figure(SPLIT_ID, f"kb/models/, kb/hardware/{HARDWARE}.yaml", "figures", SPLIT_ID, split)]
