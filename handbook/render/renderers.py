"""Importing this module registers every kb: renderer."""

import handbook.render.changes  # kb:drift (appendix D)
import handbook.render.configurator  # kb:configurator and kb:doctor
import handbook.render.contributors  # kb:translation-status and kb:benchmarks (the contributors' pages)
import handbook.render.engine  # command status, the engine drift page, the option reference
import handbook.render.production  # chapter 08: the manifests, dashboards and alerts
import handbook.render.replays  # replays of the recipes under their commands
import handbook.render.verdicts
import handbook.render.versions  # noqa: F401 - option history, upgrading page, compatibility matrix
from handbook.render import facts, figures, landscape, ops, params, planner, recipes, topologies  # noqa: F401
