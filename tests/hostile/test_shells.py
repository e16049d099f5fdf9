"""Every command any plan prints for the hostile corpus, pasted into bash, dash, zsh and fish.

The shells run the printed lines as a person would paste them, in an empty directory, with PATH
holding only stub programs (every program the plans name, plus sudo, which runs the rest). No line
may create the marker file the payloads aim at, nor any other file.
"""

from __future__ import annotations

import re
import shutil
import stat
import subprocess

import pytest

from gpudoctor.cmdline import Cmd
from gpudoctor.doctor import diagnose
from gpudoctor.errors import GpudoctorError
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot
from gpudoctor.planner.prescribe import build
from tests.hostile.corpus import MARKER, cases, shell_cases

SHELLS = {"bash": ["bash", "--norc", "--noprofile"], "dash": ["dash"], "zsh": ["zsh", "-f"], "fish": ["fish", "--no-config"]}
_PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*\Z")


def _printed(tmp_path_factory) -> tuple[dict[str, list[str]], set[str]]:
    """target -> every distinct line printed for the corpus; the program names those lines run."""
    lines: dict[str, list[str]] = {"posix": [], "fish": []}
    seen: dict[str, set[str]] = {"posix": set(), "fish": set()}
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
    assert len(reached) >= 40 and len({line.split(MARKER)[0][-12:] for line in reached}) >= 5, (
        f"only {len(reached)} printed lines carry a payload"
    )


@pytest.mark.parametrize("shell", sorted(SHELLS))
def test_pasted_plans_execute_no_payload(shell, printed, tmp_path):
    if shutil.which(SHELLS[shell][0]) is None:
        pytest.skip(f"{shell} is not installed (make test installs it with apt-get when run as root)")
    lines, programs = printed
    target = "fish" if shell == "fish" else "posix"
    bin_dir = _stubs(tmp_path, programs)
    work = tmp_path / "work"
    work.mkdir()
    script = tmp_path / "pasted"
    script.write_text("\n".join(lines[target]) + "\n", encoding="utf-8")
    # /bin/sh for the stubs' own interpreter line only; no other program is reachable by name.
    env = {"PATH": str(bin_dir), "HOME": str(tmp_path / "home"), "LANG": "C.UTF-8"}
    sh = shutil.which(SHELLS[shell][0])
    proc = subprocess.run([sh, *SHELLS[shell][1:], str(script)], cwd=work, env=env, capture_output=True, text=True, timeout=300)
    created = sorted(p.name for p in work.iterdir())
    assert not created, f"{shell}: pasting the printed plans created {created}\n{proc.stderr[-2000:]}"
    assert not (tmp_path / MARKER).exists() and not (bin_dir / MARKER).exists()
