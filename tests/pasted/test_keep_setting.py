"""A setting the plan makes is kept by a command where the place has one (issue 27, kind 9: "a setting with no way to
keep it"): planner.remedy.kept adds, after the last directory put on a path (or variable set from a program's output),
one line that appends those lines, as the quoting layer wrote them, to the file the next shell reads there.

Whole pasted cases, expectations by hand: a conda environment keeps it in its activate.d (plans12 1211, Anaconda's base
environment; the conda case of test_companion_build_facts), a Python with no environment of its own in ~/.bashrc
(plans13 1309). The quiet twins, where the plan says how in prose and adds no line: a notebook (plans3 245, Colab), a
container (plans7 610, a TensorFlow image docker runs), a cluster (plans5 409, an HPC login node) and Windows (plans3 246).

The keep programs themselves run here: each writes exactly the lines it is given into its place, which a shell then
sources, setting the variable and running nothing else, whatever the lines hold.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gpudoctor.cmdline import Cmd, PrependPath, SetFrom, render
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.planner.remedy import KEEP, KEEP_VALUES, keep_place
from tests.unit.test_cmdline_prepend import DIRS

_BLIND = Path(__file__).resolve().parents[1] / "blind"


def _report(case: str):
    name, number = case.split("/")
    (folder,) = (_BLIND / name / "cases").glob(f"{number}-*")
    snapshot = validate_snapshot(read_pasted([Source("t", (folder / "input.txt").read_text("utf-8"))]), "t")
    report = diagnose(ReplayHost(snapshot))
    assert not report.internal_errors, report.internal_errors
    return report


def _keeps(report) -> list[tuple[str, ...]]:
    return [
        c.words
        for f in report.findings
        if f.remediation
        for c in f.remediation.commands
        if isinstance(c, Cmd) and c.words[1:2] == ("-c",) and c.words[2] in (*KEEP.values(), *KEEP_VALUES.values())
    ]


def _place(root: Path, place: str) -> tuple[Path, dict[str, str], Path, str]:
    """A conda environment, a venv and a home folder under `root`: the environment's root, the variables a keep program
    runs with, the file `place` keeps lines in, and the program that stands in for the environment's interpreter (this
    one, with sys.prefix set to the environment's root)."""
    prefix, home = root / "env", root / "home"
    (prefix / "bin").mkdir(parents=True)
    home.mkdir()
    (prefix / "bin" / "activate").write_text("# a venv's activate\n", encoding="utf-8")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "CONDA_PREFIX": str(prefix), "LANG": "C.UTF-8"}
    path = {
        "conda": prefix / "etc" / "conda" / "activate.d" / "gpudoctor.sh",
        "conda-active": prefix / "etc" / "conda" / "activate.d" / "gpudoctor.sh",
        "venv": prefix / "bin" / "activate",
        "bashrc": home / ".bashrc",
    }[place]
    as_env = f"import sys; sys.prefix = {str(prefix)!r}; exec(compile(sys.argv.pop(1), 'keep', 'exec'))"
    return prefix, env, path, as_env


def test_a_conda_environment_keeps_the_loader_path_in_its_activate_d():
    report = _report("plans12/1211")
    assert keep_place(report.facts) == "conda"
    # the directory is the look's output (gpudoctor.checks.library_copy): kept as the value, by the variable's name
    assert _keeps(report) == [("/home/godman/anaconda3/bin/python", "-c", KEEP_VALUES["conda"], "+LD_LIBRARY_PATH")]


def test_a_python_of_no_environment_keeps_xla_flags_in_bashrc():
    report = _report("plans13/1309")
    assert keep_place(report.facts) == "bashrc"
    (f,) = [f for f in report.findings if f.code == "toolkit-missing-for-build"]
    (set_from,) = [c for c in f.remediation.commands if isinstance(c, SetFrom)]
    # a value set from a program's output is kept as the value, by the variable's name: not the program again
    assert set_from.name == "XLA_FLAGS"
    assert _keeps(report) == [("python3", "-c", KEEP_VALUES["bashrc"], "XLA_FLAGS")]


@pytest.mark.parametrize("case", ["plans3/245", "plans7/610", "plans5/409", "plans3/246"])
def test_a_notebook_a_container_a_cluster_and_windows_add_no_keep_line(case):
    report = _report(case)
    assert keep_place(report.facts) is None
    # the plan still sets something there (the twin is of a setting made, not of a plan without one)
    assert any(isinstance(c, (PrependPath, SetFrom)) for f in report.findings if f.remediation for c in f.remediation.commands)
    assert _keeps(report) == []


def test_each_keep_program_writes_exactly_its_lines_and_the_shell_that_reads_them_runs_nothing_else(tmp_path):
    # hostile directories, each a line the quoting layer writes; the place's file then sourced by bash
    lines = [render(PrependPath("LD_LIBRARY_PATH", (d,)), "posix") for d in DIRS[:40]]
    work = tmp_path / "work"
    work.mkdir()
    for place in ("conda", "conda-active", "venv", "bashrc"):
        _prefix, env, path, as_env = _place(tmp_path / place, place)
        before = path.read_text(encoding="utf-8") if path.exists() else ""
        subprocess.run([sys.executable, "-c", as_env, KEEP[place], *lines], cwd=work, env=env, check=True, timeout=60)
        assert path.read_text(encoding="utf-8") == before + "".join(line + "\n" for line in lines), place
        done = subprocess.run(
            ["bash", "-c", 'unset LD_LIBRARY_PATH; . "$1"; printf "%s" "$LD_LIBRARY_PATH"', "bash", str(path)],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        assert done.stdout == ":".join(reversed(DIRS[:40])), place  # each line put its directory first, the rest kept
    assert not list(work.iterdir()), f"a line ran something: {list(work.iterdir())}"


def test_each_keep_values_program_writes_the_values_as_data_and_the_shell_that_reads_them_runs_nothing_else(tmp_path):
    # the values a setting made from a program's output, hostile: each kept by name (+NAME: its first directory put
    # first on the list each new shell has; NAME: the whole value), then the place's file sourced by bash
    work = tmp_path / "work"
    work.mkdir()
    for i, d in enumerate(DIRS[:40]):
        if ":" in d or "\0" in d:
            continue  # a list's separator (or no C string) cannot be one directory of it
        for place in ("conda", "conda-active", "venv", "bashrc"):
            _prefix, env, path, as_env = _place(tmp_path / f"{place}{i}", place)
            env |= {"LD_LIBRARY_PATH": d + ":/second:/session/only", "XLA_FLAGS": "--xla_gpu_cuda_data_dir=" + d}
            argv = [sys.executable, "-c", as_env, KEEP_VALUES[place], "++LD_LIBRARY_PATH", "XLA_FLAGS"]
            subprocess.run(argv, cwd=work, env=env, check=True, timeout=60)
            done = subprocess.run(
                ["bash", "-c", '. "$1"; printf "%s\\n%s" "$LD_LIBRARY_PATH" "$XLA_FLAGS"', "bash", str(path)],
                cwd=work,
                env={**env, "LD_LIBRARY_PATH": "/new/shell"},
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert done.returncode == 0, done.stderr[-2000:]
            # the two directories put first, in order, then what the new shell had (not the session's other entries);
            # the flag whole
            assert done.stdout == f"{d}:/second:/new/shell\n--xla_gpu_cuda_data_dir={d}", (place, d)
    assert not list(work.iterdir()), f"a line ran something: {list(work.iterdir())}"


def test_two_directories_put_first_from_programs_are_kept_as_one_argument_that_counts_them():
    # plans13 1309's facts (a Python of no environment: ~/.bashrc), two wheel directories put first on the loader's
    # path one after the other, as a cuDNN-and-cuBLAS step does: both are kept, the last put first, not one twice
    from gpudoctor.cmdline import Output
    from gpudoctor.planner.remedy import kept

    facts = _report("plans13/1309").facts
    dirs = [PrependPath("LD_LIBRARY_PATH", (Output(("python3", "-c", f"print({n!r})")),)) for n in ("/cublas", "/cudnn")]
    commands = kept(facts, (Cmd(("python3", "-m", "pip", "install", "x")), *dirs))
    assert commands[:3] == (Cmd(("python3", "-m", "pip", "install", "x")), *dirs)
    assert commands[3].words == ("python3", "-c", KEEP_VALUES["bashrc"], "++LD_LIBRARY_PATH")
