"""A variable set from what a fixed program prints (`SetFrom`): a value an earlier step prints, used by a command
instead of told in prose (issue 27: XLA_FLAGS=--xla_gpu_cuda_data_dir=<the folder the wheel's interpreter prints>).

Each rendered line runs in the real shells (bash, dash, zsh, interactive too; fish its own lines) with hostile literal
text and a program that prints hostile text: the variable must hold exactly the text and the output, nothing may run
or be created, and a program that fails leaves the variable as it was. PowerShell's lines are checked statically.
"""

from __future__ import annotations

import pytest

from gpudoctor.cmdline import Output, SetEnv, SetFrom, Unrenderable, render, render_all, render_lines
from gpudoctor.planner.actions import classify
from tests.hostile.shells import SHELLS, powershell_problem
from tests.unit.test_cmdline_prepend import DIRS, run_lines


def _lines(target: str, log) -> tuple[list[str], list[str]]:
    lines, expected = [], []
    record = f"printenv GD_FLAGS >> {log}"
    reset = "set -gx GD_FLAGS old" if target == "fish" else "export GD_FLAGS=old"
    for d in DIRS[:40]:
        # hostile literal text around a hostile output, one word each, never read as shell text
        lines += [reset, render(SetEnv("GD_PRINT", d), target)]
        lines += [
            *render_all([SetFrom("GD_FLAGS", (f"--dir={d}", Output(("printdir",)), '"'), note="a; b $(touch PWNED)")], target)
        ]
        lines.append(record)
        expected.append(f'--dir={d}{d}"')
    # A program that fails sets nothing: the old value stays.
    lines += [reset, render(SetFrom("GD_FLAGS", ("--dir=", Output(("faildir",)))), target), record]
    expected.append("old")
    return lines, expected


@pytest.mark.parametrize("shell", sorted(SHELLS))
def test_set_from_holds_exactly_the_text_and_the_output(shell, tmp_path):
    run_lines(shell, tmp_path, lambda target, log, _: _lines(target, log))


def test_what_each_shell_reads():
    nvcc = Output(("python3", "-c", "import os, nvidia.cuda_nvcc as m; print(os.path.dirname(m.__file__))"))
    line = SetFrom("XLA_FLAGS", ('--xla_gpu_cuda_data_dir="', nvcc, '"'))
    program = "python3 -c 'import os, nvidia.cuda_nvcc as m; print(os.path.dirname(m.__file__))'"
    assert render(line, "posix") == (f'_gd_out="$({program})" && export XLA_FLAGS=\'--xla_gpu_cuda_data_dir="\'"$_gd_out"\'"\'')
    assert render(line, "fish") == f"set -g _gd_out ({program}); and set -gx XLA_FLAGS '--xla_gpu_cuda_data_dir=\"'$_gd_out'\"'"
    win = SetFrom("XLA_FLAGS", ("--xla_gpu_cuda_data_dir=", Output(("python", "-c", "print(1)"))))
    assert render(win, "powershell") == "$env:XLA_FLAGS = '--xla_gpu_cuda_data_dir=' + $( python -c 'print(1)' )"
    assert render(win, "cmd") == 'for /f "delims=" %i in (\'python -c "print(1)"\') do set "XLA_FLAGS=--xla_gpu_cuda_data_dir=%i"'
    # A Windows paste of no known shell: no line sets a variable in both, so the PowerShell one, marked.
    assert render_lines(win, "windows") == ["# in PowerShell", render(win, "powershell")]


def test_what_cannot_be_held_is_refused():
    with pytest.raises(Unrenderable):
        SetFrom("XLA FLAGS", (Output(("x",)),))
    with pytest.raises(TypeError):
        SetFrom("XLA_FLAGS", ("--dir=/x",))  # no program: a plain SetEnv
    with pytest.raises(TypeError):
        SetFrom("XLA_FLAGS", (Output(("a",)), Output(("b",))))  # cmd.exe reads one program's line at a time
    with pytest.raises(Unrenderable):
        render(SetFrom("XLA_FLAGS", ('--dir="', Output(("x",)))), "cmd")  # cmd has no escape for a quote
    for target in ("posix", "fish", "powershell", "cmd"):
        with pytest.raises(Unrenderable):
            render(SetFrom("XLA_FLAGS", ("a\nb", Output(("x",)))), target)


def test_powershell_lines_quote_every_value():
    for d in DIRS:
        line = render(SetFrom("XLA_FLAGS", (d, Output(("python", "-c", d)), d)), "powershell")
        assert powershell_problem(line) is None, (d, line)


def test_the_consequence_model_reads_the_step():
    a = classify(SetFrom("XLA_FLAGS", ("--xla_gpu_cuda_data_dir=", Output(("python3", "-c", "x")))))
    assert (a.kind, a.name, a.value) == ("env-set", "XLA_FLAGS", "--xla_gpu_cuda_data_dir=$(python3 -c x)")
    assert SetFrom("XLA_FLAGS", ("--d=", Output(("py",)))).to_json() == {
        "set": "XLA_FLAGS",
        "parts": ["--d=", {"output_of": ["py"]}],
    }
