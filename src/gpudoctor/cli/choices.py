"""The choices of options that the command line's framework lists (--format of `check`, --fail-on): enums built for
typer's options and help only. Apart from gpudoctor.cli.common, which a bare check imports before it starts the
user's interpreter: a bare check builds no options (gpudoctor.cli.fast), and these classes were 2.6 M instructions
of that leg (bench/README.md, h161)."""

from __future__ import annotations

import enum

from gpudoctor.render.formats import FORMATS

# check's --format values, in the order --help lists them: the table of formats (gpudoctor.render.formats).
OutputFormat = enum.Enum("OutputFormat", {name: name for name in FORMATS}, type=str)  # type: ignore[misc]


class FailOn(str, enum.Enum):
    error = "error"
    warning = "warning"
    info = "info"
