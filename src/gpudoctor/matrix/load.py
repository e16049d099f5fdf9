"""Loading the matrix: the bundled data (parsed on first use, cached) or a directory given, validated."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Mapping

from gpudoctor.matrix.files import BESIDE, FILES

# typing's constant without typing: a bare check imports this module (bench/README.md, h161)
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    # (pathlib is imported where a path is read: it brings urllib.parse and ipaddress, and a check imports this
    # module whether or not it reads the matrix: 15 M instructions of a bare check installed from a wheel)
    from pathlib import Path
    from typing import Any

    if sys.version_info >= (3, 11):
        from importlib.resources.abc import Traversable
    else:
        from importlib.abc import Traversable

    from gpudoctor.matrix.queries import Matrix


def _checkout_dir() -> str | None:
    """The compat_matrix/ of the source checkout this module sits in, where it is one; None for an installed package.

    The checkout comes first because an editable install maps ``gpudoctor.compat_matrix`` to the checkout it was
    made from: a second worktree run with PYTHONPATH=src would otherwise read another tree's data. An installed wheel
    has no ``pyproject.toml`` three levels up. (os.path, not pathlib: a bare check imports no pathlib.)
    """
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    data = os.path.join(top, "compat_matrix")
    return data if os.path.isfile(os.path.join(top, "pyproject.toml")) and os.path.isdir(data) else None


def _bundled_dir() -> Traversable:
    """The installed package's data (importlib.resources)."""
    from importlib.resources import files

    return files("gpudoctor.compat_matrix")


def _parse_toml(text: str) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # tomli, a dependency on Python 3.10 only
        import tomli as tomllib
    return tomllib.loads(text)


def bundled_text(name: str) -> str:
    """One bundled data file's text (`indexes.toml`), from the checkout where there is one (_checkout_dir)."""
    checkout = _checkout_dir()
    if checkout is not None:
        with open(os.path.join(checkout, name), encoding="utf-8") as fh:
            return fh.read()
    return (_bundled_dir() / name).read_text(encoding="utf-8")


@functools.lru_cache(maxsize=1)
def _bundled_texts() -> dict[str, str]:
    return {stem: bundled_text(f"{stem}.toml") for stem in FILES}


@functools.lru_cache(maxsize=1)
def _load_bundled() -> Matrix:
    # The bundled data is validated in full by the test suite; here it is built with the cross-file
    # checks only (any surprise falls back to the full validation and its MatrixError).
    return _build_from_texts(_bundled_texts(), {stem: "bundled" for stem in FILES}, trusted=True)


def _build_from_texts(texts: Mapping[str, str], origins: Mapping[str, str], *, trusted: bool = False) -> Matrix:
    from gpudoctor.errors import MatrixError
    from gpudoctor.matrix.schema import build

    problems: list[str] = []
    docs: dict[str, dict[str, Any]] = {}
    for stem in FILES:
        try:
            docs[stem] = _parse_toml(texts[stem])
        except Exception as exc:  # tomllib.TOMLDecodeError and friends
            problems.append(f"{stem}.toml: TOML syntax error: {exc}")
    if problems:
        raise MatrixError(problems, hint="fix the TOML syntax first")
    return build(docs, origins, trusted=trusted)


def load_matrix(path: str | Path | None = None) -> Matrix:
    """Load and validate a matrix; raise MatrixError listing every problem.

    ``None``: the bundled data (cached). A directory: its ``<stem>.toml`` files replace the bundled
    ones (files it lacks come from the bundled matrix; an unknown ``*.toml`` is a problem). A single
    file named like a matrix file (``torch.toml``): validated together with the bundled others, so
    cross-file checks (sources, CUDA versions, compute capabilities, cuDNN) apply.
    """
    if path is None:
        return _load_bundled()
    from pathlib import Path

    from gpudoctor.errors import MatrixError

    p = Path(path)
    texts = dict(_bundled_texts())
    origins = {stem: "bundled" for stem in FILES}
    names = ", ".join(s + ".toml" for s in FILES)
    # Fail closed: every candidate file is read bounded (a regular file, at most 32 MiB, UTF-8); a
    # FIFO, a directory or an unreadable file named like a matrix file is a problem, never skipped.
    if p.is_dir():
        try:
            entries = sorted(os.listdir(p))
        except OSError as exc:
            raise MatrixError([f"{p}: cannot list the directory: {exc.strerror or exc}"]) from None
        problems = [
            f"{name}: not a matrix file (expected one of {names})"
            for name in entries
            if name.endswith(".toml") and name[:-5] not in FILES and name[:-5] not in BESIDE
        ]
        for name in entries:
            stem = name[:-5]
            if name.endswith(".toml") and stem in FILES:
                text, problem = _read_candidate(p / name)
                if problem:
                    problems.append(problem)
                else:
                    texts[stem] = text
                    origins[stem] = str(p / name)
        if not any(name.endswith(".toml") for name in entries):
            # Fail closed: a directory that holds no candidate validates nothing; "valid" would mislead.
            problems.append(f"{p}: no matrix files (*.toml) in this directory (expected some of {names})")
        if problems:
            raise MatrixError(problems)
    elif os.path.lexists(p):
        if p.suffix != ".toml" or p.stem not in FILES:
            raise MatrixError(
                [f"{p.name}: not a matrix file name (expected one of {names})"],
                hint="name the candidate after the file it replaces, e.g. torch.toml",
            )
        text, problem = _read_candidate(p)
        if problem:
            raise MatrixError([problem])
        texts[p.stem] = text
        origins[p.stem] = str(p)
    else:
        from gpudoctor.errors import MissingInput

        raise MissingInput(f"no such matrix file or directory: {p}")
    return _build_from_texts(texts, origins)


def _read_candidate(path: Path) -> tuple[str, str | None]:
    """(text, None), or ("", the problem) for a candidate that is not a readable regular text file."""
    from gpudoctor.bounded import read_input_text
    from gpudoctor.errors import GpudoctorError

    try:
        return read_input_text(str(path), "matrix file"), None
    except GpudoctorError as exc:  # InputError, or MissingInput for a dangling link
        return "", exc.message


def check_matrix(path: str | Path | None = None) -> list[str]:
    """Validate like :func:`load_matrix` but return the problems ([] when valid) instead of raising."""
    from gpudoctor.errors import MatrixError, MissingInput

    try:
        load_matrix(path)
    except MatrixError as exc:
        return list(exc.problems)
    except MissingInput:
        return [f"{path}: no such file or directory"]
    return []


def validate(docs: Mapping[str, Mapping[str, Any]], origins: Mapping[str, str] | None = None) -> Matrix:
    """Validate parsed TOML documents (file stem -> dict, all of FILES) and build the Matrix.

    Collects every problem as "file:row-key: message" and raises one MatrixError(problems).
    """
    from gpudoctor.matrix.schema import build

    return build(docs, origins or {stem: "memory" for stem in docs})


def render_matrix_text(matrix: Matrix, section: str | None = None) -> str:
    """Plain-text tables of one section (see SECTIONS) or of all of them."""
    from gpudoctor.matrix.render import render

    return render(matrix, section)
