"""Chapter 05's four SGLang topologies: what each GPU of the TP group holds, and how the GPUs talk.

Everything per GPU is computed from kb/topologies.yaml: the sizes from each topology's flags, the KV
heads from the GQA example's ``example_num_key_value_heads``. Numbers the handbook does not give (the
example's query heads H, its routed experts E unless ``example_routed_experts`` is set) stay symbolic.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from handbook.core.messages import msg
from handbook.core.text import LANGS
from handbook.diagrams.dot import (
    COLOURS,
    DiagramError,
    h,
    new_graph,
    rows,
    sentences,
    small,
    text_cell,
    wrap,
)
from handbook.diagrams.figure import Drawing, Figure, flags_of
from handbook.kb.loader import KB
from handbook.kb.schema import TopologiesFile, Topology

FOLDER = "topologies/sglang"


@dataclass(frozen=True)
class Sizes:
    """The parallel sizes a topology's flags set, and what follows from them."""

    tp: int
    attn_dp: int
    ep: int

    @property
    def attn_tp(self) -> int:
        """GPUs that split one attention group's heads (SGLang: tp-size / attn-dp-size)."""
        return self.tp // self.attn_dp


def stem(topology: Topology) -> str:
    """topology-1 … topology-4, in the order of the handbook's letters A–D."""
    return f"topology-{'ABCD'.index(topology.letter) + 1}"


def _flag_int(kb: KB, topology: Topology, flag: str) -> int | None:
    values = [v for name, v in flags_of(kb, [topology.flags]) if name == flag]
    if not values:
        return None
    if len(values[-1]) != 1 or not values[-1][0].isdigit():
        raise ValueError(f"{flag} needs one whole number, got {' '.join(values[-1]) or 'nothing'}")
    return int(values[-1][0])


def sizes(kb: KB, index: int) -> Sizes:
    """A topology's sizes, checked against its layout and GPU count (a mismatch cannot be drawn)."""
    topologies = kb.topologies
    topology = topologies.topologies[index]
    origin = kb.origin(topologies)
    where = ("topologies", index)
    problems: list[tuple[tuple[str, ...], str]] = []  # (path below the topology, message)
    try:
        tp = _flag_int(kb, topology, "--tp-size") or 1
        attn_dp = _flag_int(kb, topology, "--attn-dp-size") or 1
        ep = _flag_int(kb, topology, "--ep-size") or 1
    except ValueError as exc:
        raise DiagramError([str(origin.at(where + ("flags",), str(exc)))]) from None
    if topology.gpus != tp:
        problems.append(
            (("gpus",), f"got {topology.gpus}, expected {tp} (the figure draws one TP group: --tp-size {tp})")
        )
    if tp % attn_dp:
        problems.append((("flags",), f"--attn-dp-size {attn_dp} does not divide --tp-size {tp}"))
    if (topology.layout.attention == "dp") != (attn_dp > 1):
        message = f"got '{topology.layout.attention}', but the flags give --attn-dp-size {attn_dp}"
        problems.append((("layout", "attention"), message))
    if (topology.layout.experts == "ep") != (ep > 1):
        message = f"got '{topology.layout.experts}', but the flags give --ep-size {ep}"
        problems.append((("layout", "experts"), message))
    if ep not in (1, tp):
        message = (
            f"--ep-size {ep} with --tp-size {tp}: the figure draws routed experts either TP-sliced on "
            "every GPU (ep-size 1) or spread over the whole TP group (ep-size = tp-size)"
        )
        problems.append((("flags",), message))
    if problems:
        raise DiagramError([str(origin.at(where + path, message)) for path, message in problems])
    result = Sizes(tp, attn_dp, ep)
    kv = topologies.example_num_key_value_heads
    if kv % result.attn_tp:
        message = f"{kv} KV heads do not split evenly over attention TP {result.attn_tp} ({topology.letter})"
        raise DiagramError([str(origin.at(("example_num_key_value_heads",), message))])
    experts = topologies.example_routed_experts
    if experts is not None and experts % ep:
        message = f"{experts} routed experts do not split evenly over --ep-size {ep} ({topology.letter})"
        raise DiagramError([str(origin.at(("example_routed_experts",), message))])
    return result


# ------------------------------------------------------------------------------------- per-GPU facts
def kv_heads(topologies: TopologiesFile, s: Sizes, gpu: int) -> tuple[int, int, int]:
    """(count, first, last) of the example's KV heads that ``gpu`` holds: split over attention TP."""
    per_gpu = topologies.example_num_key_value_heads // s.attn_tp
    first = (gpu % s.attn_tp) * per_gpu
    return per_gpu, first, first + per_gpu - 1


def _multiple(k: int, n: int, symbol: str = "E") -> str:
    """k·E/n written symbolically: 0, E/4, 2E/4, …, E."""
    if k == 0:
        return "0"
    if k == n:
        return symbol
    return f"{'' if k == 1 else k}{symbol}/{n}"


def expert_range(topologies: TopologiesFile, s: Sizes, gpu: int) -> tuple[str, str, str]:
    """(count, first, last) of the whole routed experts ``gpu`` holds under EP, as numbers or symbols."""
    experts = topologies.example_routed_experts
    if experts is not None:
        per_gpu = experts // s.ep
        return str(per_gpu), str(gpu * per_gpu), str((gpu + 1) * per_gpu - 1)
    return f"E/{s.ep}", _multiple(gpu, s.ep), f"{_multiple(gpu + 1, s.ep)}−1"


def query_heads(s: Sizes, lang: str) -> str:
    return msg("fig-heads-all", lang) if s.attn_tp == 1 else f"H/{s.attn_tp}"


def experts_total(topologies: TopologiesFile) -> str:
    n = topologies.example_routed_experts
    return "E" if n is None else str(n)


def _gpu_label(topologies: TopologiesFile, s: Sizes, gpu: int, lang: str) -> str:
    count, first, last = kv_heads(topologies, s, gpu)
    group = gpu // s.attn_tp
    if s.attn_dp > 1:
        attention_title = msg("fig-attention-dp", lang, group=group)
        if s.attn_tp > 1:
            attention_title += f" · TP{s.attn_tp}"
        whose = msg("fig-kv-own-requests", lang)
    else:
        attention_title = msg("fig-attention-tp", lang, size=s.attn_tp)
        whose = msg("fig-kv-all-requests", lang)
    if count == topologies.example_num_key_value_heads:
        kv = msg("fig-kv-all-heads", lang, count=count)
    else:
        kv = msg("fig-kv-heads", lang, count=count, first=first, last=last)
    if s.ep > 1:
        n, lo, hi = expert_range(topologies, s, gpu)
        experts_title = msg("fig-experts-ep", lang, size=s.ep)
        experts = [msg("fig-experts-whole", lang, count=n), msg("fig-experts-ids", lang, first=lo, last=hi)]
    else:
        experts_title = msg("fig-experts-tp", lang, size=s.tp)
        experts = [
            msg("fig-experts-every", lang, total=experts_total(topologies)),
            msg("fig-experts-slice", lang, size=s.tp),
        ]
    cells = [
        text_cell(
            [msg("fig-gpu", lang, n=gpu)],
            COLOURS["header"],
            bold_first=True,
            align="CENTER",
            font_colour="white",
        ),
        text_cell(
            [attention_title, msg("fig-query-heads", lang, heads=query_heads(s, lang))],
            COLOURS["attention"],
            bold_first=True,
        ),
        text_cell([kv, whose], COLOURS["kv"]),
        text_cell([msg("fig-shared-expert", lang)], COLOURS["shared"], extra=' STYLE="dashed"'),
        text_cell([experts_title, *experts], COLOURS["experts"], bold_first=True),
    ]
    body = "".join(f"<TR>{cell}</TR>" for cell in cells)
    return f'<TABLE BORDER="1" CELLBORDER="1" CELLSPACING="0" COLOR="#475569">{body}</TABLE>'


def _bus(title: str, lines: list[str], colour: str) -> str:
    cell = text_cell([title, *lines], "white", bold_first=True, small_rest=True, align="CENTER")
    return f'<TABLE BORDER="1" STYLE="rounded" COLOR="{colour}" CELLBORDER="0"><TR>{cell}</TR></TABLE>'


def summary(topologies: TopologiesFile, s: Sizes, lang: str) -> str:
    """What one GPU holds, in one sentence (the alt text's core)."""
    count, _, _ = kv_heads(topologies, s, 0)
    if s.ep > 1:
        experts = msg("fig-alt-experts-ep", lang, count=expert_range(topologies, s, 0)[0])
    else:
        experts = msg("fig-alt-experts-tp", lang, total=experts_total(topologies), size=s.tp)
    key = "fig-alt-gpu-dp" if s.attn_dp > 1 else "fig-alt-gpu-tp"
    return msg(key, lang, heads=query_heads(s, lang), kv=count, experts=experts)


def draw(kb: KB, index: int, lang: str) -> Drawing:
    topologies = kb.topologies
    topology = topologies.topologies[index]
    s = sizes(kb, index)
    title = f"{kb.handbook.engine} · {topology.letter} · {topology.name}"
    g = new_graph(stem(topology), h(title), h(topology.flags))
    gpus = [f"gpu{n}" for n in range(topology.gpus)]

    # Above the GPUs: how attention is shared out (one all-reduce group, or independent DP groups).
    if s.attn_dp > 1:
        for group in range(s.attn_dp):
            node = f"dp{group}"
            g.node(
                node,
                label="<"
                + _bus(
                    msg("fig-dp-group", lang, group=group),
                    [msg("fig-dp-group-owns", lang)],
                    COLOURS["attention-line"],
                )
                + ">",
            )
            for gpu in gpus[group * s.attn_tp : (group + 1) * s.attn_tp]:
                g.edge(node, f"{gpu}:n", color=COLOURS["attention-line"])
    else:
        g.node(
            "attention_bus",
            label="<"
            + _bus(
                msg("fig-all-reduce", lang),
                [msg("fig-attention-bus", lang, size=s.attn_tp)],
                COLOURS["attention-line"],
            )
            + ">",
        )
        for gpu in gpus:
            g.edge("attention_bus", f"{gpu}:n", dir="both", color=COLOURS["attention-line"])

    with g.subgraph(name="gpus") as row:
        row.attr(rank="same")
        for n, gpu in enumerate(gpus):
            row.node(gpu, label=f"<{_gpu_label(topologies, s, n, lang)}>")
        for left, right in itertools.pairwise(gpus):
            row.edge(left, right, style="invis")

    # Below the GPUs: how the routed experts' results come back together.
    if s.ep > 1:
        bus = _bus(
            msg("fig-ep-bus", lang),
            [msg("fig-ep-bus-a2a", lang), msg("fig-ep-bus-none", lang)],
            COLOURS["experts-line"],
        )
    else:
        bus = _bus(
            msg("fig-all-reduce", lang), [msg("fig-experts-bus", lang, size=s.tp)], COLOURS["experts-line"]
        )
    g.node("experts_bus", label=f"<{bus}>")
    for gpu in gpus:
        g.edge(f"{gpu}:s", "experts_bus", dir="both", color=COLOURS["experts-line"])

    legend = msg("fig-topology-legend", lang, kv=topologies.example_num_key_value_heads)
    if topologies.example_routed_experts is None:
        legend += msg("fig-topology-legend-e", lang)
    notes = [*wrap(legend, 62), *wrap(topologies.shared_expert_premise[lang], 62)]
    g.node("notes", label=f"<{small(rows(*map(h, notes)))}>")
    g.edge("experts_bus", "notes", style="invis")

    caption = title
    alt = sentences(
        lang,
        [
            msg("fig-alt-topology", lang, title=title, gpus=topology.gpus),
            summary(topologies, s, lang),
            topology.communication[lang],
            topologies.shared_expert_premise[lang],
        ],
    )
    return Drawing(g.source, caption, alt)


def figures(kb: KB) -> list[Figure]:
    out, problems = [], []
    for index, topology in enumerate(kb.topologies.topologies):
        try:
            drawings = {lang: draw(kb, index, lang) for lang in LANGS}
        except DiagramError as exc:
            problems += exc.problems
            continue
        out.append(Figure(topology.id, "kb/topologies.yaml", FOLDER, stem(topology), drawings))
    if problems:
        raise DiagramError(problems)
    return out
