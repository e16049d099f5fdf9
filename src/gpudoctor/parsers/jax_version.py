"""Parse jaxlib/version.py (literal _version / _release_version / __version__) and a dist-info METADATA file (RFC 822 headers).

METADATA is how the separate jax-cuda*-plugin / -pjrt packages state the CUDA libraries they expect.
"""

from __future__ import annotations

import email.parser
import email.policy
from dataclasses import dataclass

from packaging.requirements import InvalidRequirement, Requirement

from gpudoctor.errors import ParseError
from gpudoctor.parsers._common import require_text
from gpudoctor.parsers._pyliteral import module_literals


@dataclass(frozen=True)
class JaxlibVersion:
    """What jaxlib/version.py states.  `version` is the release version when build-stamped."""

    version: str  # _release_version if set, else a literal __version__, else _version
    base_version: str | None  # _version, e.g. "0.10.2"
    release_version: str | None  # _release_version, set by release builds
    git_hash: str | None
    minimum_jaxlib_version: str | None  # _minimum_jaxlib_version (jax side)


@dataclass(frozen=True)
class DistMetadata:
    """The parts of a dist-info METADATA file a doctor needs."""

    name: str
    version: str
    requires_dist: tuple[str, ...]  # each Requires-Dist value as written
    requires_python: str | None
    summary: str | None


def _str(value: object) -> str | None:
    return (value.strip() or None) if isinstance(value, str) else None


def parse_jaxlib_version_py(text: str) -> JaxlibVersion:
    """Parse jaxlib/version.py (or jax/version.py).  Raises ParseError without any literal version."""
    values = module_literals(text, "jaxlib/version.py")
    base = _str(values.get("_version"))
    release = _str(values.get("_release_version"))
    literal = _str(values.get("__version__"))  # older files; newer ones compute it at import
    version = release or literal or base
    if version is None:
        raise ParseError("jaxlib/version.py has no literal _release_version, __version__ or _version")
    return JaxlibVersion(
        version=version,
        base_version=base,
        release_version=release,
        git_hash=_str(values.get("_git_hash")),
        minimum_jaxlib_version=_str(values.get("_minimum_jaxlib_version")),
    )


def parse_dist_metadata(text: str) -> DistMetadata:
    """Parse a *.dist-info/METADATA (or PKG-INFO) file.  Raises ParseError without Name and Version."""
    require_text(text, "METADATA")
    try:
        # Headers only: the long description after the blank line is of no interest.
        message = email.parser.HeaderParser(policy=email.policy.compat32).parsestr(text)
        name = _header(message.get("Name"))
        version = _header(message.get("Version"))
        requires = tuple(r for r in (_header(v) for v in message.get_all("Requires-Dist") or []) if r is not None)
        requires_python = _header(message.get("Requires-Python"))
        summary = _header(message.get("Summary"))
    except Exception as exc:  # noqa: BLE001 - the email package may raise many types on garbage
        raise ParseError(f"malformed METADATA: {type(exc).__name__}: {exc}") from None
    if name is None or version is None:
        raise ParseError("not a dist-info METADATA file: no Name and Version headers")
    return DistMetadata(name=name, version=version, requires_dist=requires, requires_python=requires_python, summary=summary)


def _header(value: object) -> str | None:
    # compat32 returns str for plain headers; anything else (Header objects for odd
    # encodings) is turned into text rather than trusted.
    if value is None:
        return None
    text = " ".join(str(value).split())
    return text or None


def requirements(metadata: DistMetadata) -> tuple[Requirement, ...]:
    """The Requires-Dist entries as packaging Requirements; malformed entries are left out."""
    parsed = []
    for spec in metadata.requires_dist:
        try:
            parsed.append(Requirement(spec))
        except InvalidRequirement:
            continue
    return tuple(parsed)
