"""The few words of the site's own in kb.json's neighbours: llms.txt and llms-full.txt. Each entry is (zh, en)."""

MESSAGES: dict[str, tuple[str, str]] = {}
