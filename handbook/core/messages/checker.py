"""The command checker's wording: findings, the engine's verdicts, the CLI's summary. Each entry is (zh, en)."""

MESSAGES: dict[str, tuple[str, str]] = {}
