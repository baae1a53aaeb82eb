"""The few words of the site's own in kb.json's neighbours: llms.txt and llms-full.txt. Each entry is (zh, en)."""

MESSAGES: dict[str, tuple[str, str]] = {
    # llms.txt's "Optional" section: what each machine-readable file holds
    "exports-full": (
        "以上每一页的 Markdown 全文，知识库中的数字、表格与命令均已填入",
        "Every page above as Markdown, with the knowledge base's figures, tables and commands filled in",
    ),
    "exports-kb": (
        "整个知识库的 JSON（schema 版本 {version}，SGLang {engine}）",
        "The whole knowledge base as JSON (schema version {version}, SGLang {engine})",
    ),
    "exports-schema": ("kb.json 的 JSON Schema", "The JSON Schema of kb.json"),
    # llms-full.txt's opening
    "exports-full-intro": (
        "手册每一页的 Markdown 全文，知识库中的数字、表格与命令均已填入：先英文，后中文。每页开头是它的网址。",
        "Every page of the handbook as Markdown with the knowledge base's figures, tables and commands filled in: English first, then Chinese. Each page starts with its URL.",
    ),
}
