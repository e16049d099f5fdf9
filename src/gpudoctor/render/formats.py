"""The output formats of `gpudoctor check`, in the order --help lists them: the one table of them.

Each row names the module that renders the format. Such a module has
- `render(result) -> str`: the whole output for a gpudoctor.pipeline.CheckResult;
- `render_error(message, hint, exit_code, started) -> str`: the output when no result could be made
  (none where the row `raises`: the text view lets the failure propagate);
and may have `exit_status(result) -> int` with `error_status(message, hint, exit_code) -> int` (a format
whose exit status follows a protocol of its own: npd) and `write_beside(result)` (what it writes besides
standard output: github's step summary).

A new format is one module with those functions and one row here: the --format choices, their
completion and `check` itself read this table. The modules load only when their format is asked for:
a check imports one renderer, not eight.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from gpudoctor.record import Record, record_class


@record_class(frozen=True, eq=False, repr=False)
class Format(Record):
    """One --format choice: its name and the module that renders it."""

    name: str
    module: str  # the renderer's module (see above)
    raises: bool = False  # a failure is not rendered: it propagates (the text view: click prints it, exit 2 or 3)

    def renderer(self) -> ModuleType:
        return importlib.import_module(self.module)


FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        Format("text", "gpudoctor.render.terminal", raises=True),
        Format("json", "gpudoctor.render.json_report"),
        Format("github", "gpudoctor.render.github"),
        Format("junit", "gpudoctor.render.junit"),
        Format("prometheus", "gpudoctor.render.prometheus"),
        Format("nfd", "gpudoctor.render.nfd"),
        Format("npd", "gpudoctor.render.npd"),
        Format("markdown", "gpudoctor.render.markdown"),
    )
}
