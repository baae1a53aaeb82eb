"""The engine snapshots: SGLang's real argument parsers and env-var registry, taken from the wheels.

``nox -s engine-snapshot`` runs ``dump.py`` in a throwaway venv for every release of
``kb/engine/releases.json`` and combines the dumps into ``kb/engine/sglang-history.json``
(``history.py``); the pinned release also keeps its own file, ``kb/engine/sglang-0.5.23.json``.
Everything else reads them through ``load_snapshot(version)`` and ``load_history()``.
"""

from handbook.engine.history import Change, History, Lifetime
from handbook.engine.snapshot import (
    PARSER_NAMES,
    AmbiguousOption,
    EngineSnapshot,
    EnvVar,
    Option,
    Parser,
    SnapshotError,
    UnknownOption,
    load_history,
    load_snapshot,
    pinned_version,
    snapshot_path,
    snapshot_versions,
)

__all__ = [
    "PARSER_NAMES",
    "AmbiguousOption",
    "Change",
    "EngineSnapshot",
    "EnvVar",
    "History",
    "Lifetime",
    "Option",
    "Parser",
    "SnapshotError",
    "UnknownOption",
    "load_history",
    "load_snapshot",
    "pinned_version",
    "snapshot_path",
    "snapshot_versions",
]
