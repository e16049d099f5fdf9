"""--format npd: a Node Problem Detector custom plugin (docs/cluster.md): one line, and the plugin's exit
status (0 ok, 1 problem, 2 unknown) instead of the check's. Rendered by gpudoctor.render.nfd."""

from __future__ import annotations

import json
from typing import Any

from gpudoctor.render.json_report import check_document
from gpudoctor.render.nfd import npd_status, render_npd


def render(result: Any) -> str:
    return render_npd(check_document(result))


def render_error(message: str, hint: str | None, exit_code: Any, started: float = 0.0) -> str:
    return render_npd(_error(message, hint, exit_code))


def exit_status(result: Any) -> int:
    """The plugin protocol's status of a check's result."""
    return npd_status(check_document(result))


def error_status(message: str, hint: str | None, exit_code: Any) -> int:
    """The plugin protocol's status of a failure: unknown."""
    return npd_status(_error(message, hint, exit_code))


def _error(message: str, hint: str | None, exit_code: Any) -> dict[str, Any]:
    from gpudoctor.render.json_report import error_document

    return json.loads(error_document(message, hint, exit_code))
