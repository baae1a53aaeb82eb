"""The engine snapshot: SGLang's real argument parsers and env-var registry, taken from the wheels.

``nox -s engine-snapshot -- 0.5.23`` runs ``dump.py`` in a throwaway venv and writes
``kb/engine/sglang-0.5.23.json``; everything else reads that committed file through ``load_snapshot``.
"""

from handbook.engine.snapshot import (
    PARSER_NAMES,
    AmbiguousOption,
    EngineSnapshot,
    EnvVar,
    Option,
    Parser,
    SnapshotError,
    UnknownOption,
    load_snapshot,
    pinned_version,
    snapshot_path,
)

__all__ = [
    "PARSER_NAMES",
    "AmbiguousOption",
    "EngineSnapshot",
    "EnvVar",
    "Option",
    "Parser",
    "SnapshotError",
    "UnknownOption",
    "load_snapshot",
    "pinned_version",
    "snapshot_path",
]
