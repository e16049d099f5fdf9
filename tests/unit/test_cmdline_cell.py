"""A notebook cell's line (the `cell` target, gpudoctor.cmdline._cell): a program after the cell's shell escape `!`, a
`%pip` magic as it is, a variable or a directory on a path as a Python statement on the kernel's environment.

IPython expands `$name` and evaluates `{expr}` in a `!` line and in a magic's line before any shell reads it (ipython
IPython/utils/text.py, DollarFormatter): a line holding either is never a `!` line; the same argument vector is run by
Python's subprocess instead, which is run here with every hostile value and must pass exactly that value. The `!`
line's own text is the POSIX line, which tests/unit/test_cmdline.py runs in the real shells.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from gpudoctor.cmdline import Cmd, Output, PrependPath, SetEnv, Unrenderable, render, render_lines
from tests.unit.test_cmdline import VALUES

# A program that writes its second argument into the file its first names: what the line passed, byte for byte.
WRITER = "import sys; open(sys.argv[1], 'w', encoding='utf-8').write(sys.argv[2])"
EXPANDED = [v for v in VALUES if set(v) & set("${}")]


def test_a_program_is_the_cells_shell_escape_before_its_posix_line():
    assert render(Cmd(("nvidia-smi",)), "cell") == "!nvidia-smi"
    assert render(Cmd(("apt-get", "update"), root=True), "cell") == "!sudo apt-get update"
    assert render(Cmd(("ldconfig", "-p"), pipe=("grep", "libcuda")), "cell") == "!ldconfig -p | grep libcuda"
    assert render(Cmd(("python3", "-c", "import torch")), "cell") == "!python3 -c 'import torch'"


def test_pip_magic_stays_a_magic():
    assert render(Cmd(("%pip", "install", "torch==2.3.0")), "cell") == "%pip install torch==2.3.0"


def test_a_note_is_a_python_comment_on_its_own_line():
    assert render_lines(Cmd(("nvidia-smi",), note="the driver"), "cell") == ["# the driver", "!nvidia-smi"]


@pytest.mark.parametrize("value", [v for v in VALUES if v not in EXPANDED][:60])
def test_a_shell_escape_line_is_the_posix_line_with_nothing_ipython_expands(value):
    cmd = Cmd(("printf", "%s", value))
    line = render(cmd, "cell")
    assert line == "!" + render(cmd, "posix")
    assert not set(line) & set("${}")


def test_a_word_ipython_would_expand_is_passed_exactly_by_pythons_subprocess(tmp_path):
    assert EXPANDED  # (the hostile corpus holds $ and braces)
    for i, value in enumerate(EXPANDED):
        out = tmp_path / f"o{i}"
        line = render(Cmd((sys.executable, "-c", WRITER, str(out), value)), "cell")
        assert not line.startswith("!")
        subprocess.run([sys.executable, "-c", line], check=True, capture_output=True, cwd=tmp_path)
        assert out.read_text(encoding="utf-8") == value


def test_a_magic_or_a_pipe_with_a_word_ipython_expands_is_refused():
    with pytest.raises(Unrenderable):
        render(Cmd(("%pip", "install", "x{__import__('os')}")), "cell")
    with pytest.raises(Unrenderable):
        render(Cmd(("ls",), pipe=("grep", "$HOME")), "cell")


def test_a_variable_is_set_in_the_kernels_environment(tmp_path):
    for value in VALUES[:80]:
        try:
            line = render(SetEnv("GD_CELL", value), "cell")
        except Unrenderable:
            continue  # (a control character: no target holds it)
        got = subprocess.run(
            [sys.executable, "-c", line + "; import sys; sys.stdout.write(os.environ['GD_CELL'])"],
            capture_output=True,
            text=True,
            check=True,
            env={k: v for k, v in os.environ.items() if k != "GD_CELL"},
        ).stdout
        assert got == value
    assert render(SetEnv("GD_CELL", None), "cell") == "import os; os.environ.pop('GD_CELL', None)"


def test_a_directory_on_a_path_is_the_notebook_statement_with_or_without_the_flag():
    step = PrependPath("LD_LIBRARY_PATH", (Output(("python3", "-c", "print(1)")), "/lib"))
    flagged = PrependPath("LD_LIBRARY_PATH", step.parts, notebook=True)
    assert render(step, "cell") == render(flagged, "posix")
    assert render(step, "cell").startswith("import os, subprocess; os.environ['LD_LIBRARY_PATH'] = ")
