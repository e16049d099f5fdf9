"""Parse torch/version.py, generated at build time: the 1.x format (plain assignments) and 2.x (typing, annotations, rocm/xpu fields).

Read with ast, never imported or executed.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpudoctor.errors import ParseError
from gpudoctor.parsers._pyliteral import module_literals


@dataclass(frozen=True)
class TorchBuild:
    """What the torch wheel was built for.  cuda/hip are None on builds without them."""

    version: str  # "2.2.1+cu121"
    cuda: str | None  # "12.1"
    hip: str | None
    rocm: str | None  # 2.x only
    xpu: str | None  # recent 2.x only
    git_version: str | None
    debug: bool | None


def _str_or_none(value: object) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def parse_torch_version_py(text: str) -> TorchBuild:
    """Parse torch/version.py.  Raises ParseError without a string __version__."""
    values = module_literals(text, "torch/version.py")
    version = _str_or_none(values.get("__version__"))
    if version is None:
        raise ParseError("torch/version.py has no literal __version__ string")
    debug = values.get("debug")
    return TorchBuild(
        version=version,
        cuda=_str_or_none(values.get("cuda")),
        hip=_str_or_none(values.get("hip")),
        rocm=_str_or_none(values.get("rocm")),
        xpu=_str_or_none(values.get("xpu")),
        git_version=_str_or_none(values.get("git_version")),
        debug=debug if isinstance(debug, bool) else None,
    )
