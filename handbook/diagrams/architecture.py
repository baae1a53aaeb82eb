"""Chapter 03's process architecture: client → HTTP server → scheduler(s) → model runners.

The components, their replica counts, duties and the links between them come from kb/architecture.yaml;
the client's link is labelled with the request path's first stage (access), which is where it happens.
"""

from __future__ import annotations

from handbook.core.messages import msg
from handbook.core.text import LANGS
from handbook.diagrams.dot import COLOURS, client_label, edge_label, h, new_graph, text_cell
from handbook.diagrams.figure import Drawing, Figure
from handbook.kb.loader import KB
from handbook.kb.schema import Component

FIGURE_ID = "architecture"


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


def figures(kb: KB) -> list[Figure]:
    drawings = {lang: draw(kb, lang) for lang in LANGS}
    return [Figure(FIGURE_ID, "kb/architecture.yaml", "figures", FIGURE_ID, drawings)]
