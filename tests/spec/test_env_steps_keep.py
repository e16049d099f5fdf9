"""No printed step drops a search-list variable's value (issues 27/28).

A plan that writes `export LD_LIBRARY_PATH=/dir` (or PATH, ...) as a plain assignment throws away every directory
the variable held: the CUDA, cuDNN or conda directories the program needed along with it. A directory is put first
through cmdline.PrependPath (which keeps the old value in every shell); a SetEnv of such a variable is only right
where the step computed the new value from the known old one, keeping each entry it does not name for removal.

Walks the plan `check` prints, its alternatives and the pasted asks, for every recorded machine, real case, pasted
case and catalogue example.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest

from gpudoctor.cmdline import SetEnv
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot, validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from tests.machines import snapshot_file

TESTS = Path(__file__).resolve().parent.parent
# The variables the loader, the shells, compilers and Python read as lists of directories.
LISTS = ("PATH", "LD_LIBRARY_PATH", "LIBRARY_PATH", "CPATH", "PYTHONPATH", "DYLD_LIBRARY_PATH")


def _cases() -> list[str]:
    out = [f"machine:{p.parent.name}" for p in sorted((TESTS / "machines").glob("*/expected.toml"))]
    out += [f"real:{p.parent.name}" for p in sorted((TESTS / "real").glob("*/case.toml"))]
    out += [f"pasted:{p.parent.name}" for p in sorted((TESTS / "pasted" / "cases").glob("*/case.toml"))]
    out += [f"example:{p.name}" for p in sorted((TESTS / "pasted" / "catalogue_examples").glob("*.txt"))]
    return out


def _snapshot(case: str):
    kind, slug = case.split(":", 1)
    if kind in ("machine", "real"):
        return load_snapshot(str(snapshot_file(TESTS / ("machines" if kind == "machine" else "real") / slug)))
    path = TESTS / "pasted" / ("cases" if kind == "pasted" else "catalogue_examples") / slug
    if kind == "pasted":
        path /= "report.txt"
    return validate_snapshot(read_pasted([Source(path.name, path.read_bytes().decode("utf-8-sig", errors="replace"))]), slug)


@functools.cache
def _checked(case: str):
    from gpudoctor.pipeline import CheckRequest, check

    return check(ReplayHost(_snapshot(case)), CheckRequest())


def _lines(checked):
    for step in checked.plan.steps:
        yield from step.commands
        for alt in step.alternatives:
            yield from alt.remediation.commands
    for finding in checked.report.findings:
        if finding.remediation is not None:
            yield from finding.remediation.commands


def dropped(line, env: dict[str, str]) -> str | None:
    """Why `line` loses a list variable's value, or None: an assignment of a variable whose old value is not known,
    or one that leaves out an old entry its note does not name for removal."""
    if not isinstance(line, SetEnv) or line.name not in LISTS:
        return None
    old = env.get(line.name)
    if old is None:
        return f"{line.name} set to {line.value!r} where its value is not known: what it held is lost"
    sep = ";" if ";" in old or ";" in (line.value or "") else ":"
    kept = set((line.value or "").split(sep))
    lost = [d for d in old.split(sep) if d and d not in kept and d not in line.note]
    return f"{line.name} loses {lost}" if lost else None


@pytest.mark.parametrize("case", _cases())
def test_no_env_step_drops_a_list_variable(case: str) -> None:
    checked = _checked(case)
    env = dict(checked.report.facts.platform.env)
    assert [why for line in _lines(checked) if (why := dropped(line, env))] == []


def test_the_rule_sees_an_overwrite() -> None:
    """The rule itself: a plain assignment over an unknown value, and one that leaves an entry out silently, fail;
    one that names the entry it removes, or keeps them all, passes."""
    assert dropped(SetEnv("LD_LIBRARY_PATH", "/usr/lib/wsl/lib"), {}) is not None
    assert dropped(SetEnv("LD_LIBRARY_PATH", "/a"), {"LD_LIBRARY_PATH": "/a:/b"}) is not None
    assert dropped(SetEnv("LD_LIBRARY_PATH", "/a", note="without /b"), {"LD_LIBRARY_PATH": "/a:/b"}) is None
    assert dropped(SetEnv("PATH", "C:\\x;C:\\old"), {"PATH": "C:\\old"}) is None
    assert dropped(SetEnv("CUDA_VISIBLE_DEVICES", "0"), {}) is None
    assert re.search("not known", dropped(SetEnv("PATH", "C:\\x"), {}) or "")
