"""Every line any plan prints for the hostile corpus, pasted into bash, dash, zsh (`-c` and interactive,
without interactivecomments), fish, and checked for PowerShell.

The shells run the printed lines (notes' lines included) as a person would paste them, in an empty
directory, with PATH holding only stub programs (every program the plans name, plus sudo, which runs
the rest). The POSIX lines go into every shell, fish included (people paste what they see into the
shell they have); fish's own lines into fish. No line may create the marker file the payloads aim at,
nor any other file. PowerShell is not packaged for the test images: its lines are checked statically
(tests/hostile/shells.py).
"""

from __future__ import annotations

import re
import stat

import pytest

from gpudoctor.cmdline import Cmd
from gpudoctor.doctor import diagnose
from gpudoctor.errors import GpudoctorError
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot
from gpudoctor.planner.prescribe import build
from tests.hostile.corpus import MARKER, cases, shell_cases
from tests.hostile.shells import SHELLS, powershell_problem, run_script

_PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*\Z")


def _printed(tmp_path_factory) -> tuple[dict[str, list[str]], set[str]]:
    """target -> every distinct line printed for the corpus; the program names those lines run."""
    lines: dict[str, list[str]] = {"posix": [], "fish": [], "powershell": []}
    seen: dict[str, set[str]] = {"posix": set(), "fish": set(), "powershell": set()}
    programs: set[str] = set()
    tmp = tmp_path_factory.mktemp("snapshots")
    for i, case in enumerate(cases() + shell_cases()):
        path = tmp / f"{i}.json"
        path.write_text(case.text(), encoding="utf-8", errors="surrogatepass")
        try:
            report = diagnose(ReplayHost(load_snapshot(str(path))))
        except GpudoctorError:
            continue  # an unusable snapshot prints no plan (test_corpus checks its message)
        for target in lines:
            plan = build(report.findings, target)
            for step in plan.steps:
                for cmd in step.commands:
                    if isinstance(cmd, Cmd):
                        programs.update(w for w in (str(cmd.argv[0]), str(cmd.pipe[0]) if cmd.pipe else "") if _PLAIN.match(w))
                for line in step.lines(target):
                    if line not in seen[target]:
                        seen[target].add(line)
                        lines[target].append(line)
    return lines, programs


@pytest.fixture(scope="module")
def printed(tmp_path_factory):
    return _printed(tmp_path_factory)


def _stubs(tmp_path, programs: set[str]):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    stub = "#!/bin/sh\nexit 0\n"
    for name in programs | {"gpudoctor", "python3", "grep"}:
        p = bin_dir / name
        p.write_text(stub, encoding="utf-8")
        p.chmod(p.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    sudo = bin_dir / "sudo"
    sudo.write_text('#!/bin/sh\nexec "$@"\n', encoding="utf-8")
    sudo.chmod(0o755)
    return bin_dir


def test_the_corpus_reaches_the_printed_commands(printed):
    lines, _ = printed
    # Payloads must reach printed commands, or this test proves nothing: count lines holding one.
    reached = [line for line in lines["posix"] if MARKER in line or "\\x" in line]
    # The directories put first on LD_LIBRARY_PATH carry payloads too (the site-packages path of a recorded machine).
    assert any(MARKER in line and "LD_LIBRARY_PATH:+" in line for line in lines["posix"])
    assert any(MARKER in line and line.startswith("set -gx LD_LIBRARY_PATH") for line in lines["fish"])
    assert len(reached) >= 40 and len({line.split(MARKER)[0][-12:] for line in reached}) >= 5, (
        f"only {len(reached)} printed lines carry a payload"
    )


@pytest.mark.parametrize(("shell", "target"), [*((s, "posix") for s in sorted(SHELLS)), ("fish", "fish")])
def test_pasted_plans_execute_no_payload(shell, target, printed, tmp_path):
    lines, programs = printed
    bin_dir = _stubs(tmp_path, programs)
    work = tmp_path / "work"
    work.mkdir()
    # /bin/sh for the stubs' own interpreter line only; no other program is reachable by name.
    env = {"PATH": str(bin_dir), "HOME": str(tmp_path / "home"), "LANG": "C.UTF-8"}
    pasted = lines[target]
    if shell == "fish" and target == "posix":
        # fish refuses a script with a POSIX `${NAME:+...}` in it (a directory put first on a list variable) as a whole:
        # those lines go in one by one, each refused by its parser (nothing runs), the rest as one script.
        posix_only = [line for line in pasted if '"${' in line]
        for line in posix_only:
            refused = run_script(shell, [line], cwd=work, env=env, home=tmp_path)
            assert refused.returncode != 0 and "${" in refused.stderr, line
        pasted = [line for line in pasted if line not in posix_only]
    proc = run_script(shell, pasted, cwd=work, env=env, home=tmp_path)
    created = sorted(p.name for p in work.iterdir())
    assert not created, f"{shell}: pasting the printed plans created {created}\n{proc.stderr[-2000:]}"
    assert not (tmp_path / MARKER).exists() and not (bin_dir / MARKER).exists()
    assert len(lines[target]) > 100  # the corpus reached this shell's lines


def test_powershell_lines_quote_every_payload(printed):
    lines, _ = printed
    assert len(lines["powershell"]) > 100
    problems = [(line[:120], why) for line in lines["powershell"] if (why := powershell_problem(line))]
    assert problems == []
