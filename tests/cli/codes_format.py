"""A format that exists only for tests/cli/test_formats.py: one line per finding, `severity code`, then the
exit status. A new output format is a module like this one and one row of gpudoctor.render.formats.FORMATS."""

from __future__ import annotations

from typing import Any


def render(result: Any) -> str:
    lines = [f"{f.severity.label} {f.code}" for f in result.report.findings]
    return "\n".join([*lines, f"exit {int(result.exit_code)}"]) + "\n"


def render_error(message: str, hint: str | None, exit_code: Any, started: float = 0.0) -> str:
    return f"failed {int(exit_code)}\n"
