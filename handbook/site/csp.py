"""A Content-Security-Policy on every page, as a ``<meta http-equiv>`` (a static host sets no headers).

The policy allows the site's own files and nothing else: scripts only from files of the site (no inline
script, no eval), workers (search, the doctor's checks) and data requests from the site, images from the
site or ``data:`` URLs (Material's icons are SVG data URLs in its stylesheet), no plugins, no ``<base>`` or
form target elsewhere. Styles may be inline: Python-Markdown writes a table column's alignment as a
``style`` attribute and the pages' scripts size bars with one; a style cannot run code.

Material writes a few small scripts inline (its storage helpers, the saved colour scheme, linked content
tabs). They are needed, so they are moved, unchanged, into files of the site named by their content's hash
(``assets/javascripts/inline/<hash>.js``) and loaded from there at the same place in the page, which keeps
their order and timing. No script of the site's own is inline (JSON data in ``<script type="application/
json">`` is never run, and the policy does not apply to it).
"""

from __future__ import annotations

import hashlib
import html
import re
from pathlib import Path

from handbook.core.files import write_text

POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "worker-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
    ]
)
META = f'<meta http-equiv="Content-Security-Policy" content="{html.escape(POLICY)}">'
SCRIPTS_DIR = "assets/javascripts/inline"
# A <script> element: its attributes and its text (Material writes them on one line each)
_SCRIPT = re.compile(r"<script(?P<attrs>(?:\s[^>]*)?)>(?P<body>.*?)</script>", re.S)
_DATA_TYPE = re.compile(r"""\stype=["']?(?!text/javascript|module)[^"'\s>]+""", re.I)
_BASE = re.compile(r'"base":\s*"(?P<base>[^"]*)"')
_CHARSET = re.compile(r"<meta charset=[^>]*>", re.I)


class ExternalScripts:
    """Pages with the policy in their head and their inline scripts moved to files; ``files`` collects
    what to write (name below the site's root → text)."""

    def __init__(self) -> None:
        self.files: dict[str, str] = {}

    def page(self, page_html: str) -> str:
        """The page with the policy and without inline script."""
        base = _BASE.search(page_html)
        root = (base.group("base").rstrip("/") + "/") if base else ""

        def moved(match: re.Match[str]) -> str:
            attrs, body = match.group("attrs"), match.group("body")
            if "src=" in attrs or _DATA_TYPE.search(attrs) or not body.strip():
                return match.group(0)  # a file already, or data that is never run
            name = f"{SCRIPTS_DIR}/{hashlib.sha256(body.encode('utf-8')).hexdigest()[:16]}.js"
            self.files[name] = body + "\n"
            return f'<script src="{html.escape(root + name)}"></script>'

        page_html = _SCRIPT.sub(moved, page_html)
        charset = _CHARSET.search(page_html)
        if charset is not None:
            return page_html[: charset.end()] + META + page_html[charset.end() :]
        return page_html.replace("<head>", "<head>" + META, 1)

    def write(self, site_root: Path) -> list[Path]:
        """Write every moved script under the site's root (both languages' pages load them from there)."""
        written = []
        for name, text in sorted(self.files.items()):
            path = site_root / name
            write_text(path, text, root=site_root, folders=True, durable=False)
            written.append(path)
        return written


def inline_scripts(page_html: str) -> list[str]:
    """The executable inline scripts left in a page (what the policy would block): none, after ``page``."""
    return [
        m.group("body")
        for m in _SCRIPT.finditer(page_html)
        if "src=" not in m.group("attrs")
        and not _DATA_TYPE.search(m.group("attrs"))
        and m.group("body").strip()
    ]


def policy_of(page_html: str) -> str | None:
    """The policy a page's meta element declares, or None."""
    found = re.search(r'<meta http-equiv="Content-Security-Policy" content="(?P<policy>[^"]*)">', page_html)
    return html.unescape(found.group("policy")) if found else None
