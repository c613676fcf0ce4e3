"""A Markdown report as one self-contained HTML page (charts embedded as data URIs).

Kept apart from the report tools so that the PDF worker process (``pdf_worker``) can make
the page without importing the agents' frameworks: the Markdown parse is CPU work the
Agent Server's one process is better without (issue 18's ramp).
"""

from __future__ import annotations

import base64
import html
import re
import secrets

__all__ = ["IMAGE_LINK", "IMAGE_MAGIC", "render_html"]

IMAGE_MAGIC = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff")
"""How a PNG and a JPEG start."""
IMAGE_LINK = re.compile(r"!\[([^\]]*)\]\(([^)\s]+)\)")
"""A Markdown image: (alt text, link)."""
_CSS = """
@page { size: A4 landscape; margin: 14mm 14mm; }
body { font-family: "Noto Sans CJK SC", "WenQuanYi Micro Hei", "Noto Sans", sans-serif;
       font-size: 10.5pt; line-height: 1.5; color: #1f2328; max-width: 60em; margin: auto; }
h1 { font-size: 18pt; } h2 { font-size: 14pt; margin-top: 1.4em; } h3 { font-size: 12pt; }
table { border-collapse: collapse; margin: .6em 0; font-size: 9pt; }
th, td { border: 1px solid #c9ced6; padding: 3px 6px; vertical-align: top; }
th { background: #eef1f5; }
img { max-width: 100%; page-break-inside: avoid; }
blockquote { color: #57606a; border-left: 3px solid #d0d7de; margin: 0; padding-left: .8em; }
a { color: #0b57d0; word-break: break-all; }
"""


def render_html(markdown: str, images: dict[str, bytes], *, title: str, lang: str) -> str:
    """One self-contained HTML page for a Markdown report; ``images`` (by the link the
    report uses) are embedded as data URIs, so the page needs no other file.

    The Markdown parser sees a short stand-in for each image and the data URIs go into
    the page after it: parsing the base64 text (hundreds of kB a report) cost the Agent
    Server more CPU than the rest of the export."""
    from markdown_it import MarkdownIt

    uris: dict[str, str] = {}
    tag = secrets.token_hex(8)

    def embed(m: re.Match[str]) -> str:
        data = images.get(m.group(2))
        if data is None:  # a chart that was not saved: its title, not a broken image
            return f"*{m.group(1)}*" if "://" not in m.group(2) else m.group(0)
        kind = "png" if data.startswith(IMAGE_MAGIC[0]) else "jpeg"
        stand_in = f"embedded-{tag}-{len(uris)}"
        uris[stand_in] = f"data:image/{kind};base64,{base64.b64encode(data).decode('ascii')}"
        return f"![{m.group(1)}]({stand_in})"

    body = (
        MarkdownIt("commonmark", {"html": False})
        .enable("table")
        .render(IMAGE_LINK.sub(embed, markdown))
    )
    if uris:
        body = re.sub(rf'src="(embedded-{tag}-\d+)"', lambda m: f'src="{uris[m.group(1)]}"', body)
    return (
        f'<!DOCTYPE html>\n<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{html.escape(title)}</title>\n<style>{_CSS}</style>\n</head>\n"
        f"<body>\n{body}</body>\n</html>\n"
    )
