"""MkDocs hook: the site's home page is README.md, with its links made relative to docs/."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
#: Repository files outside the site: named, not linked.
OUTSIDE = ("CONTRIBUTING.md", "CHANGELOG.md", "LICENSE")


def readme_for_site(text: str) -> str:
    text = text.replace("](docs/", "](")
    for name in OUTSIDE:
        text = re.sub(r"\[([^\]]+)\]\(" + re.escape(name) + r"\)", r"\1 (`" + name + "`)", text)
    return text


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    if page.file.src_uri == "index.md":
        return readme_for_site((ROOT / "README.md").read_text(encoding="utf-8"))
    return markdown
