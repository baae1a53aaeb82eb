"""Chapter 03's figures: the process architecture (client → HTTP server → scheduler(s) → model runners)
and the path of a request through its seven stages.

The components, their replica counts, duties and the links between them, and the stages with their steps
and the flags that act on each, all come from kb/architecture.yaml: both figures name a stage alike. The
client's link in the first is labelled with the request path's first stage (ingress), where it happens.
"""

from __future__ import annotations

from handbook.core.messages import msg
from handbook.core.text import LANGS
from handbook.diagrams.dot import COLOURS, client_label, edge_label, h, new_graph, text_cell, width_em
from handbook.diagrams.figure import Drawing, Figure
from handbook.kb.loader import KB
from handbook.kb.schema import Component

FIGURE_ID = "architecture"
PATH_ID = "request-path"


def stage_mark(number: int) -> str:
    """①…⑦, as chapter 03 numbers the request path."""
    return chr(0x2460 + number - 1)


def component_name(component: Component) -> str:
    """``Scheduler × (TP × DP × attn-dp)``, ``Model Runner × N``: the name with its replica count."""
    if component.replicas is None:
        return component.name
    replicas = component.replicas
    return f"{component.name} × ({replicas})" if " " in replicas else f"{component.name} × {replicas}"


def _component_label(component: Component, lang: str) -> str:
    header = text_cell(
        [component_name(component)], COLOURS["header"], bold_first=True, align="CENTER", font_colour="white"
    )
    duties = text_cell([f"· {duty[lang]}" for duty in component.duties], COLOURS["process"])
    return (
        '<TABLE BORDER="1" CELLBORDER="0" CELLSPACING="0" COLOR="#475569">'
        f"<TR>{header}</TR><TR>{duties}</TR></TABLE>"
    )


def draw(kb: KB, lang: str) -> Drawing:
    arch = kb.architecture
    engine = kb.handbook.engine
    title = msg("fig-architecture-title", lang, engine=engine)
    g = new_graph(FIGURE_ID, h(title), ranksep="0.35")
    access = arch.stages[0]
    g.node("client", label=client_label(lang))
    access_label = msg(
        "fig-stage", lang, mark=stage_mark(access.number), name=access.name[lang], steps=access.steps[lang]
    )
    previous, link = "client", access_label
    for component in arch.components:
        g.node(component.id, label=f"<{_component_label(component, lang)}>")
        g.edge(previous, component.id, label=edge_label(link) if link else None)
        previous, link = component.id, component.link_to_next

    chain = [msg("fig-client", lang), f"({access_label})"]
    for component in arch.components:
        duties = msg("sep-clause", lang).join(d[lang] for d in component.duties)
        chain.append(msg("fig-alt-component", lang, name=component_name(component), duties=duties))
        if component.link_to_next:
            chain.append(f"({component.link_to_next})")
    alt = msg("fig-alt-architecture", lang, title=title, chain=" ".join(chain))
    return Drawing(g.source, title, alt)


def _fixed(cell: str, width: int) -> str:
    """A text cell widened to ``width`` points, so that the column lines up from one stage to the next."""
    start = cell.index('WIDTH="') + len('WIDTH="')
    end = cell.index('"', start)
    return cell[:start] + str(max(width, int(cell[start:end]))) + cell[end:]


def _width(lines: list[str], size: int, padding: int = 6, boldness: float = 1.0) -> int:
    return int(max(width_em(line) for line in lines) * size * boldness) + 2 * padding + 1


def draw_path(kb: KB, lang: str) -> Drawing:
    """The request's seven stages, top to bottom: each box its mark and name, what happens there, and the
    flags that act on it."""
    stages = kb.architecture.stages
    title = msg("fig-path-title", lang)
    g = new_graph(PATH_ID, h(title), ranksep="0.22")
    names = [f"{stage_mark(s.number)} {s.name[lang]}" for s in stages]
    flags = [list(s.flags) or ["—"] for s in stages]
    name_w = max(_width([n], 12, boldness=1.2) for n in names)
    steps_w = max(_width([s.steps[lang]], 12) for s in stages)
    flags_w = max(_width(f, 10) for f in flags)
    g.node("client", label=client_label(lang))
    previous = "client"
    for stage, name, acting in zip(stages, names, flags, strict=True):
        cells = [
            _fixed(text_cell([name], COLOURS["header"], bold_first=True, font_colour="white"), name_w),
            _fixed(text_cell([stage.steps[lang]], COLOURS["process"]), steps_w),
            _fixed(text_cell(acting, COLOURS["shared"], size=10), flags_w),
        ]
        node = f"stage{stage.number}"
        label = '<TABLE BORDER="1" CELLBORDER="0" CELLSPACING="0" COLOR="#475569"><TR>' + "".join(cells)
        g.node(node, label=f"<{label}</TR></TABLE>>")
        g.edge(previous, node)
        previous = node
    g.edge(previous, "client-end")
    g.node("client-end", label=client_label(lang))
    steps = [
        msg("fig-alt-stage", lang, name=name, steps=s.steps[lang], flags=", ".join(s.flags) or "—")
        for s, name in zip(stages, names, strict=True)
    ]
    alt = msg("fig-alt-path", lang, title=title, stages=msg("sep-clause", lang).join(steps))
    return Drawing(g.source, title, alt)


def figures(kb: KB) -> list[Figure]:
    drawings = {lang: draw(kb, lang) for lang in LANGS}
    paths = {lang: draw_path(kb, lang) for lang in LANGS}
    return [
        Figure(FIGURE_ID, "kb/architecture.yaml", "figures", FIGURE_ID, drawings),
        Figure(PATH_ID, "kb/architecture.yaml", "figures", PATH_ID, paths),
    ]
