"""Where things live on the site: the page of each kind of entity and the anchors of its rows.

Pages are paths relative to a language folder (``04-parameters.md``); both languages use the same anchors.
"""

from __future__ import annotations

# Where each kind of entity has its anchor, as a page path relative to the language folder.
PARAMETERS_PAGE = "04-parameters.md"
MODELS_PAGE = "01-landscape.md"
KV_TABLE_PAGE = "02-memory.md"
ENV_PAGE = "09-appendix.md"

PROGRAM_ANCHOR_PREFIX = {"launch_server": "", "launch_router": "router-", "bench_serving": "bench-"}


def parameter_anchor(program: str, flag: str) -> str:
    return PROGRAM_ANCHOR_PREFIX[program] + flag.lstrip("-")


def env_anchor(name: str) -> str:
    return name.lower().replace("_", "-")


def page_url(page: str) -> str:
    """The URL (directory style, relative to the language root) of a docs page path."""
    stem = page.removesuffix(".md")
    if stem == "index":
        return ""
    if stem.endswith("/index"):
        return stem.removesuffix("index")
    return stem + "/"


DRIFT_PAGE = "engine-drift.md"
OPTIONS_PAGE = "engine-options.md"
OPTION_ANCHOR_PREFIX = {
    "launch_server": "opt-",
    "launch_router": "router-opt-",
    "bench_serving": "bench-opt-",
}


def option_anchor(program: str, name: str) -> str:
    """The anchor of an engine option (``--tp-size``) on the option reference page."""
    return OPTION_ANCHOR_PREFIX[program] + name.lstrip("-")
