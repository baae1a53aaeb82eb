"""Importing this module registers every kb: renderer."""

import handbook.render.contributors  # kb:translation-status and kb:benchmarks (the contributors' pages)
import handbook.render.engine  # command status, the engine drift page, the option reference
import handbook.render.replays
import handbook.render.versions  # noqa: F401 - option history, upgrading page, compatibility matrix
from handbook.render import facts, figures, landscape, ops, params, planner, recipes, topologies  # noqa: F401
