"""Hostile strings for the renderer tests: each tries to make machine data act on its reader.

Shared by tests/hostile/test_render_*.py; every string is shown, never obeyed, by every renderer.
"""

from __future__ import annotations

HOSTILE = (
    # GitHub workflow commands: a new line that starts a command, with and without the runner's escapes.
    "x\n::add-mask::secret",
    "x\r::add-mask::secret",
    "x\r\n::stop-commands::pwned",
    "%0A::error::forged",
    "%0D%0A::set-output name=a::b",
    "  ::warning title=forged::indented",
    "::error file=a,line=1::starts with a command",
    "##[add-mask]secret",
    "ok ##[stop-commands]tok",
    "x\u2028::error::line separator",
    "x\x85::error::NEL",
    "x\x0b::error::VT",
    "x\x0c::error::FF",
    "x\x1c::error::FS",
    # Markdown and HTML in the step summary.
    "a|b",
    "| forged | row |\n|---|---|",
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "&lt;b&gt;entity&lt;/b&gt;",
    "`code` and ``two``",
    "```",
    "[link](javascript:alert(1)) ![img](https://example.invalid/x.png)",
    "**bold** _em_ ~~del~~ $x^2$",
    "back\\slash\\|pipe",
    # GitHub autolinks, mentions and references, also behind the backslash escapes that do not stop them.
    "_www.example.com",
    "see www.example.com/x",
    "x@y.co",
    "\\@admin and @admin",
    "\\#1 and #12 and owner/repo#3 and GH-4",
    "https://evil.example/a?b=c",
    "<https://evil.example>",
    "`` ` ``` a `````",
    # Terminal controls: OSC 52 clipboard write, window title, clear line, bidi override.
    "\x1b]52;c;ZXZpbA==\x07",
    "\x1b]0;owned\x07title",
    "\x1b[2K\x1b[1Aclear",
    "\x9b31mC1 CSI",
    "abc\u202edcba",
    # XML: characters XML 1.0 cannot hold, and markup.
    "nul\x00byte",
    "bell\x07",
    "\ud800 lone surrogate",
    "\ufffe\uffff",
    "]]><evil/>",
    "\"quotes' & <amp>",
    # rich markup.
    "[bold red]markup[/]",
    "[link=file:///etc/passwd]x[/link]",
    # env files.
    "GPU-1\nLD_PRELOAD=/tmp/x.so",
    "GPU-1$(touch /tmp/x)",
)
