"""A directory put first on a list variable (`PrependPath`), literal or a fixed program's output (`Output`).

Each rendered line runs in the real shells (bash, dash, zsh; bash and zsh also interactive, zsh without
interactivecomments; fish its own lines) with hostile directories and a program that prints hostile text: the
variable must hold exactly the directory, then what it held before, and nothing may run or be created. The
notebook form is Python, run here with the same values; PowerShell's lines are checked statically.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys

import pytest

from gpudoctor.cmdline import Output, PrependPath, SetEnv, Unrenderable, render, render_all, render_lines
from gpudoctor.planner.actions import classify
from tests.hostile.shells import SHELLS, powershell_problem, run_script, shell_exe
from tests.unit.test_cmdline import VALUES

# Directories a machine could report: every hostile value but those no target can hold (control characters are
# refused at rendering) and the empty one (nothing to add).
DIRS = [v for v in VALUES if v.strip()][:80]


def _bin(tmp_path):
    """printdir prints $GD_PRINT (hostile text from the environment, as a program's output would be); faildir prints
    nothing and fails, as `python3 -c 'import nvidia.cublas.lib'` does where the wheel is missing."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, body in (("printdir", 'printf "%s\\n" "$GD_PRINT"'), ("faildir", "exit 1")):
        p = bin_dir / name
        p.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
        p.chmod(p.stat().st_mode | stat.S_IXUSR)
    return bin_dir


def _lines(target: str, log) -> tuple[list[str], list[str]]:
    """The script (reset, prepend, record) and what the log must read after it."""
    lines, expected = [], []
    record = f"printenv LD_LIBRARY_PATH >> {log}"
    reset = "set -gx LD_LIBRARY_PATH /old" if target == "fish" else "export LD_LIBRARY_PATH=/old"
    unset = "set -e LD_LIBRARY_PATH" if target == "fish" else "unset LD_LIBRARY_PATH"
    for d in DIRS:
        lines += [reset, *render_all([PrependPath("LD_LIBRARY_PATH", (d,), note="a; b $(touch PWNED)")], target), record]
        expected.append(f"{d}:/old")
        # Without a value before, no separator is added (an empty entry is the current directory).
        lines += [unset, render(PrependPath("LD_LIBRARY_PATH", (d, "/lib")), target), record]
        expected.append(f"{d}/lib")
    for d in DIRS[:30]:
        # A program's output, hostile: one word, never read as shell text.
        lines += [reset, render(SetEnv("GD_PRINT", d), target)]
        lines += [render(PrependPath("LD_LIBRARY_PATH", (Output(("printdir",)), "/lib")), target), record]
        expected.append(f"{d}/lib:/old")
    # A program that fails adds nothing: the old value stays as it was.
    lines += [reset, render(PrependPath("LD_LIBRARY_PATH", (Output(("faildir",)),)), target), record]
    expected.append("/old")
    return lines, expected


def run_lines(shell: str, tmp_path, script) -> None:
    """Run the lines `script(target, log, bin_dir)` gives (with _bin's programs on PATH) in `shell`, from an empty
    folder: the log must read what it expects, and nothing may be created there."""
    shell_exe(shell)
    target = "fish" if shell == "fish" else "posix"
    bin_dir = _bin(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    log = tmp_path / "log"
    lines, expected = script(target, log, bin_dir)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    proc = run_script(shell, lines, cwd=work, env=env, home=tmp_path)
    assert log.read_text(encoding="utf-8").splitlines() == expected, proc.stderr[-2000:]
    assert not list(work.iterdir()), f"{shell}: a line created files: {list(work.iterdir())}"


@pytest.mark.parametrize("shell", sorted(SHELLS))
def test_prepend_puts_exactly_the_directory_first_and_keeps_the_rest(shell, tmp_path):
    run_lines(shell, tmp_path, lambda target, log, _: _lines(target, log))


def test_what_each_shell_reads():
    cublas = Output(("python3", "-c", "import os, nvidia.cublas.lib as m; print(os.path.dirname(m.__file__))"))
    line = PrependPath("LD_LIBRARY_PATH", (cublas,))
    program = "python3 -c 'import os, nvidia.cublas.lib as m; print(os.path.dirname(m.__file__))'"
    assert render(line, "posix") == (
        f'_gd_dir="$({program})" && export LD_LIBRARY_PATH="$_gd_dir""${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}"'
    )
    assert render(line, "fish") == f"set -gx LD_LIBRARY_PATH ({program}) $LD_LIBRARY_PATH"
    trt = PrependPath("LD_LIBRARY_PATH", ("/usr/local/TensorRT-8.4.2.4/lib",))
    assert render(trt, "posix") == 'export LD_LIBRARY_PATH=/usr/local/TensorRT-8.4.2.4/lib"${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"'
    assert render(trt, "fish") == "set -gx LD_LIBRARY_PATH /usr/local/TensorRT-8.4.2.4/lib $LD_LIBRARY_PATH"
    win = PrependPath("PATH", (Output(("python", "-c", "import nvidia.cublas as m; print(*m.__path__)")), "\\bin"))
    assert render(win, "powershell") == (
        "$env:PATH = $( python -c 'import nvidia.cublas as m; print(*m.__path__)' ) + '\\bin' + ';' + $env:PATH"
    )
    assert render(win, "cmd") == (
        'for /f "delims=" %i in (\'python -c "import nvidia.cublas as m; print(*m.__path__)"\') do set "PATH=%i\\bin;%PATH%"'
    )
    assert render(PrependPath("PATH", ("C:\\CUDA\\bin",)), "cmd") == 'set "PATH=C:\\CUDA\\bin;%PATH%"'
    # A Windows paste of no known shell: no line extends PATH in both, so the PowerShell one, marked, joined by ";".
    assert render_lines(win, "windows") == ["# in PowerShell", render(win, "powershell")]
    assert render(PrependPath("PATH", ("C:\\CUDA\\bin",)), "windows") == "$env:PATH = 'C:\\CUDA\\bin' + ';' + $env:PATH"


def test_what_cannot_be_held_is_refused():
    with pytest.raises(Unrenderable):
        PrependPath("LD_PRELOAD", ("/x",))  # not a list of directories: fish would join it with spaces
    with pytest.raises(Unrenderable):
        render(PrependPath("PATH", ("C:\\a%PATH%",)), "cmd")
    with pytest.raises(Unrenderable):
        render(PrependPath("PATH", (Output(("C:\\Program Files\\py.exe", "-c", "x")),)), "cmd")
    for target in ("posix", "fish", "powershell", "cmd"):
        with pytest.raises(Unrenderable):
            render(PrependPath("LD_LIBRARY_PATH", ("/a\n/b",)), target)
    with pytest.raises(TypeError):
        PrependPath("PATH", ())


def test_powershell_lines_quote_every_directory():
    for d in DIRS:
        both = PrependPath("PATH", (Output(("python", "-c", d)), d), also=("LIBRARY_PATH",))
        for line in render_all(
            [PrependPath("PATH", (d,)), PrependPath("PATH", (Output(("python", "-c", d)), d)), both], "powershell"
        ):
            assert powershell_problem(line) is None, (d, line)


def test_the_notebook_form_is_python_that_sets_exactly_the_value(tmp_path):
    # Each hostile directory, literal and printed by a program, in the kernel's environment (a subprocess here).
    # The printer runs without `site` (-S): eighty interpreters started with the environment's site cost seconds,
    # and what is printed is the same (sys.argv and print need no site).
    lines = []
    for d in DIRS:
        printer = Output((sys.executable, "-S", "-c", "import sys; print(sys.argv[1])", d))
        lines.append(render(PrependPath("LD_LIBRARY_PATH", (printer, "/x", d), notebook=True), "posix"))
        lines.append("print(repr(os.environ['LD_LIBRARY_PATH']))")
    lines.append("del os.environ['LD_LIBRARY_PATH']")
    lines.append(render(PrependPath("LD_LIBRARY_PATH", ("/only",), notebook=True), "fish"))
    lines.append("print(repr(os.environ['LD_LIBRARY_PATH']))")
    script = tmp_path / "cell.py"
    script.write_text("\n".join(lines) + "\n", encoding="utf-8")
    env = {**os.environ, "LD_LIBRARY_PATH": "/old"}
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    got = [eval(x) for x in done.stdout.splitlines()]  # noqa: S307 - reprs printed by the script above
    want, old = [], "/old"
    for d in DIRS:
        old = f"{d}/x{d}:{old}"
        want.append(old)
    assert got == [*want, "/only"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cell.py"]


def test_the_consequence_model_reads_the_step():
    a = classify(PrependPath("LD_LIBRARY_PATH", ("/opt/trt/lib",)))
    assert (a.kind, a.name, a.value) == ("env-prepend", "LD_LIBRARY_PATH", "/opt/trt/lib")
    b = classify(PrependPath("LD_LIBRARY_PATH", (Output(("python3", "-c", "x"), site_dir="nvidia/cublas/lib"),)))
    assert (b.kind, b.value) == ("env-prepend", None)
    assert PrependPath("PATH", (Output(("py",)), "\\bin"), notebook=True).to_json() == {
        "prepend": "PATH",
        "parts": [{"output_of": ["py"]}, "\\bin"],
        "notebook": True,
    }


def _also_lines(target: str, log, bin_dir) -> tuple[list[str], list[str]]:
    """One directory a program prints put first on LIBRARY_PATH and LD_LIBRARY_PATH (the one unset before), each run
    counted in the log; then a program that fails."""
    (bin_dir / "countdir").write_text(f'#!/bin/sh\necho run >> {log}\nprintf "%s\\n" "$GD_PRINT"\n', encoding="utf-8")
    (bin_dir / "countdir").chmod(0o755)
    both = PrependPath("LIBRARY_PATH", (Output(("countdir",)), "/lib"), also=("LD_LIBRARY_PATH",))
    failing = PrependPath("LIBRARY_PATH", (Output(("faildir",)),), also=("LD_LIBRARY_PATH",))
    fish = target == "fish"
    reset = ["set -gx LIBRARY_PATH /oldl" if fish else "export LIBRARY_PATH=/oldl"]
    reset.append("set -e LD_LIBRARY_PATH" if fish else "unset LD_LIBRARY_PATH")
    record = [f"printenv LIBRARY_PATH >> {log}", f'echo "[$LD_LIBRARY_PATH]" >> {log}']
    lines, expected = [], []
    for d in DIRS[:20]:
        lines += [*reset, render(SetEnv("GD_PRINT", d), target), render(both, target), *record]
        expected += ["run", f"{d}/lib:/oldl", f"[{d}/lib]"]  # the program once, before both variables
    lines += [*reset, render(failing, target), *record]
    expected += ["/oldl", "[]"]
    return lines, expected


@pytest.mark.parametrize("shell", sorted(SHELLS))
def test_one_lookup_goes_first_on_each_variable_it_names(shell, tmp_path):
    # PrependPath.also (a link's LIBRARY_PATH and the load's LD_LIBRARY_PATH, checks.catalogued.builds): the program
    # that finds the directory runs once, its one answer first on each variable, each keeping its own rest; a program
    # that fails changes neither.
    run_lines(shell, tmp_path, _also_lines)


def test_one_lookup_for_several_variables_in_each_shell_and_the_model():
    line = PrependPath("LIBRARY_PATH", (Output(("finddir",)),), also=("LD_LIBRARY_PATH",))
    assert line.to_json() == {"prepend": "LIBRARY_PATH", "parts": [{"output_of": ["finddir"]}], "also": ["LD_LIBRARY_PATH"]}
    assert render(line, "powershell") == (
        "$gd_dir = $( finddir ) ; $env:LIBRARY_PATH = $gd_dir + ';' + $env:LIBRARY_PATH ; "
        "$env:LD_LIBRARY_PATH = $gd_dir + ':' + $env:LD_LIBRARY_PATH"
    )
    assert powershell_problem(render(line, "powershell")) is None
    assert render(line, "cmd") == (
        'for /f "delims=" %i in (\'finddir\') do set "LIBRARY_PATH=%i;%LIBRARY_PATH%" & '
        'set "LD_LIBRARY_PATH=%i:%LD_LIBRARY_PATH%"'
    )
    # the consequence model reads it as one action over both names
    a = classify(line)
    assert (a.kind, a.name, a.line.names) == ("env-prepend", "LIBRARY_PATH", ("LIBRARY_PATH", "LD_LIBRARY_PATH"))
    with pytest.raises(Unrenderable):
        PrependPath("PATH", ("/x",), also=("PATH",))  # one variable twice
    with pytest.raises(Unrenderable):
        PrependPath("PATH", ("/x",), also=("LD_PRELOAD",))  # not a list of directories


def test_the_notebook_form_sets_each_variable_from_one_run(tmp_path):
    count = tmp_path / "count"
    printer = Output((sys.executable, "-S", "-c", f"open({str(count)!r}, 'a').write('run\\n'); print('/found')"))
    lines = [
        render(PrependPath("LIBRARY_PATH", (printer,), also=("LD_LIBRARY_PATH",), notebook=True), "posix"),
        "print(repr((os.environ['LIBRARY_PATH'], os.environ['LD_LIBRARY_PATH'])))",
    ]
    script = tmp_path / "cell.py"
    script.write_text("\n".join(lines) + "\n", encoding="utf-8")
    env = {**os.environ, "LIBRARY_PATH": "/oldl", "LD_LIBRARY_PATH": ""}
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert eval(done.stdout.strip()) == ("/found:/oldl", "/found")  # noqa: S307 - the repr printed by the script above
    assert count.read_text(encoding="utf-8").splitlines() == ["run"]
