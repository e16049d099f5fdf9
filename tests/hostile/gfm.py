"""Render Markdown as GitHub does (cmark-gfm with GitHub's extensions) and find what data could turn into.

GitHub renders comments and step summaries with cmark-gfm (autolink, table, strikethrough, tagfilter,
tasklist), then turns `@name` into a mention and `#123` or `owner/repo#123` into a reference in every
text node that is not inside code. cmark-gfm does the first part here (the `cmarkgfm` package, a test
dependency); the second is checked on the text outside `<code>` and `<pre>`.
"""

from __future__ import annotations

import html
import re

import pytest


def render_gfm(markdown: str) -> str:
    try:
        import cmarkgfm
        from cmarkgfm.cmark import Options
    except ImportError:
        pytest.skip("cmarkgfm is not installed (it is a test dependency: pip install -e '.[test]')")
    # A lone surrogate cannot be UTF-8 (what GitHub receives): written as the replacement character, as a
    # UTF-8 stream with errors="replace" would.
    text = markdown.encode("utf-8", "replace").decode("utf-8")
    return cmarkgfm.github_flavored_markdown_to_html(text, options=Options.CMARK_OPT_UNSAFE)


_CODE = re.compile(r"<(code|pre)\b[^>]*>.*?</\1>", re.S)
_TAG = re.compile(r"<[^>]+>")
_MENTION = re.compile(r"(?<![\w`])@[A-Za-z0-9][A-Za-z0-9-]*")
_REFERENCE = re.compile(r"(?<![\w&])(?:[\w.-]+/[\w.-]+)?#\d+\b|\bGH-\d+\b")


def made_from(markdown: str) -> list[str]:
    """What GitHub would make of `markdown` beyond text: links, images, HTML elements it keeps, mentions,
    issue references (each as a short description). gpudoctor's own markup (headings, lists, emphasis,
    tables, code, <details>, <sub>, <br>) is not counted."""
    out = render_gfm(markdown)
    found = [f"element {m.group(0)[:60]}" for m in re.finditer(r"<(a|img|script|iframe|input|math|svg)\b[^>]*>", out)]
    outside = _CODE.sub(" ", out)
    words = html.unescape(_TAG.sub(" ", outside))
    found += [f"mention {m.group(0)}" for m in _MENTION.finditer(words)]
    found += [f"reference {m.group(0)}" for m in _REFERENCE.finditer(words)]
    return found
