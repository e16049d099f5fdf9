"""The one quoting layer: what is printed runs exactly the argument vector, in every shell people paste into.

Each rendered line (its note's line included) is run by the real shell (bash, dash, zsh, fish; zsh and
bash also interactive, where zsh reads no `#` comments) with stub programs first on PATH that record the
arguments they receive; injection attempts must arrive as plain arguments and create no file. A POSIX
line is also pasted into fish: people paste what they see into the shell they have. PowerShell, where
it cannot be installed, is checked statically (tests/hostile/shells.py).
"""

from __future__ import annotations

import random
import re
import stat

import pytest

from gpudoctor.cmdline import (
    Cmd,
    EvalShell,
    Placeholder,
    SetEnv,
    Unrenderable,
    quote_cmd,
    quote_fish,
    quote_posix,
    quote_powershell,
    render,
    render_all,
    render_envfile,
    render_lines,
)
from tests.hostile.shells import SHELLS, powershell_problem, run_script, shell_exe

HOSTILE = [
    "2.1.0;touch PWNED;echo",
    "$(touch PWNED)",
    "`touch PWNED`",
    "a b",
    "it's",
    '"double"',
    "back\\slash",
    "* ?[a]",
    "~root",
    "--index-url",
    "-rf",
    "#comment",
    "a|touch PWNED",
    "a&&touch PWNED",
    "a>PWNED",
    "<PWNED",
    "{a,b}",
    "$HOME",
    "${HOME}",
    "!!",
    "%PATH%",
    "(touch PWNED)",
    "\u2019typographic\u2018",
    "ü中文",
    "",
    " ",
    "a'b\"c\\d$e`f",
    "\\'",
    "'\\''",
    "=",
    "=printargs",  # zsh expands a bare =cmd to the path of cmd
    "x=y",
    # fish reads \\ and \' as escapes inside single quotes: each must stay a plain character.
    "/usr\\';touch PWNED;#",
    "x\\'';touch PWNED;#",
    "\\",
    "a\\\\'b",
    '\\"$(touch PWNED)\\"',
    "%s\\n",
    "a\\\\b\\",
    "\\n\\\\",
]
# Random strings of printable characters: every shell metacharacter comes up.
_ALPHABET = "abcXYZ019 \t'\"\\$`!#&|;<>(){}[]*?~=%^,.:/@+-_\u2019\u00e9\\\\''"
random.seed(1234)
GENERATED = ["".join(random.choice(_ALPHABET) for _ in range(random.randint(1, 12))).replace("\t", " ") for _ in range(150)]
VALUES = HOSTILE + GENERATED


def test_a_word_starting_with_equals_is_quoted_and_one_holding_it_is_not():
    """cmdline.quote_posix: "zsh expands a word that starts with "=" (=cmd is the path of cmd): quote those too."
    An "=" inside a word (x=y, --index=1) expands in no shell and stays bare."""
    values = ("=nvcc", "=python3", "=printargs", "x=y", "--index=1")
    assert [quote_posix(v) for v in values] == ["'=nvcc'", "'=python3'", "'=printargs'", "x=y", "--index=1"]


def _stub_dir(tmp_path):
    """printargs and sudo: record argv (sudo runs the rest as-is, so sudo lines run too)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    rec = bin_dir / "printargs"
    # Each argument NUL-terminated, each call ended by \x01 (rendered values hold no control characters).
    rec.write_text('#!/bin/sh\nprintf \'%s\\0\' "$@" >> "$ARGS_LOG"; printf \'\\001\' >> "$ARGS_LOG"\n', encoding="utf-8")
    sudo = bin_dir / "sudo"
    sudo.write_text('#!/bin/sh\nexec "$@"\n', encoding="utf-8")
    for p in (rec, sudo):
        p.chmod(p.stat().st_mode | stat.S_IXUSR)
    return bin_dir


# Every shell runs the POSIX lines (a person pastes them into whatever shell they have); fish its own too.
@pytest.mark.parametrize(("shell", "target"), [*((s, "posix") for s in sorted(SHELLS)), ("fish", "fish")])
def test_rendered_commands_run_exactly_their_argv(shell, target, tmp_path):
    bin_dir = _stub_dir(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    log = tmp_path / "args.log"
    expected = []
    lines = []
    for i, v in enumerate(VALUES):
        # The notes carry what a shell would run if it read them: `;`, `$()`, a quote, a redirection.
        cmd = Cmd(("printargs", str(i), v, "tail"), root=i % 3 == 0, note="a note; touch PWNED $(touch PWNED) it's <x> `y`")
        lines += render_all([cmd], target)
        expected.append([str(i), v, "tail"])
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "ARGS_LOG": str(log), "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    proc = run_script(shell, lines, cwd=work, env=env, home=tmp_path)
    got = [rec.split("\0")[:-1] for rec in log.read_text(encoding="utf-8").split("\x01")[:-1]]
    assert got == expected, proc.stderr[-2000:]
    assert not list(work.iterdir()), f"{shell}: a rendered command created files: {list(work.iterdir())}"
    assert not (bin_dir.parent / "PWNED").exists()


@pytest.mark.parametrize("shell", sorted(SHELLS))
def test_setenv_sets_exactly_the_value(shell, tmp_path):
    shell_exe(shell)
    target = "fish" if shell.startswith("fish") else "posix"
    bin_dir = _stub_dir(tmp_path)
    log = tmp_path / "args.log"
    values = [v for v in VALUES if v][:60]
    lines = []
    for v in values:
        lines.append(render(SetEnv("GD_VALUE", v), target))
        lines.append(render(Cmd(("printenv", "GD_VALUE")), target) + " >> " + str(log))
    lines.append(render(SetEnv("GD_VALUE", None), target))
    lines.append(
        "printenv GD_VALUE >> " + str(log) + " || echo unset >> " + str(log)
        if target == "posix"
        else f"printenv GD_VALUE >> {log}; or echo unset >> {log}"
    )
    script = tmp_path / "script"
    script.write_text("\n".join(lines) + "\n", encoding="utf-8")
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    run_script(shell, script.read_text(encoding="utf-8").splitlines(), cwd=tmp_path, env=env, home=tmp_path)
    assert log.read_text(encoding="utf-8").splitlines() == [*values, "unset"]


def test_eval_shell_hooks_quote_their_arguments():
    line = EvalShell(("gpudoctor", "switch-cuda", "12.1;touch x"))
    assert render(line, "posix") == "eval \"$(gpudoctor switch-cuda '12.1;touch x' --shell)\""
    assert render(line, "fish") == "gpudoctor switch-cuda '12.1;touch x' --shell fish | source"
    assert render(line, "powershell") == "gpudoctor switch-cuda '12.1;touch x' --shell powershell | Invoke-Expression"
    with pytest.raises(Unrenderable):
        render(line, "cmd")


def test_control_characters_are_refused_not_rendered():
    for bad in ("a\nb", "a\x1b]0;title\x07", "\x00", "a\rb", "\x9b2J"):
        with pytest.raises(Unrenderable):
            render(Cmd(("echo", bad)), "posix")
        with pytest.raises(Unrenderable):
            render(Cmd(("echo", bad)), "powershell")
    # render_all turns a refused line into a comment that says so: never a half command
    out = render_all([Cmd(("echo", "ok")), Cmd(("echo", "a\nb"))])
    assert out[0] == "echo ok" and out[1].startswith("# not shown:") and "\n" not in out[1]


def test_powershell_doubles_every_single_quote_kind():
    assert quote_powershell("it's") == "'it''s'"
    assert quote_powershell("a\u2019b") == "'a\u2019\u2019b'"
    assert quote_powershell("$(calc)") == "'$(calc)'"
    assert quote_powershell("C:\\Program Files\\x") == "'C:\\Program Files\\x'"
    assert render(Cmd(("C:\\Program Files\\Python311\\python.exe", "-m", "pip", "install", "tensorflow<2.11")), "powershell") == (
        "& 'C:\\Program Files\\Python311\\python.exe' -m pip install 'tensorflow<2.11'"
    )


def test_cmd_exe_refuses_what_it_cannot_hold():
    assert quote_cmd("tensorflow<2.11") == '"tensorflow<2.11"'
    for bad in ('a"b', "%PATH%", "a!b"):
        with pytest.raises(Unrenderable):
            quote_cmd(bad)


def test_root_commands_say_so_per_target():
    cmd = Cmd(("nvidia-smi", "-mig", "0"), root=True)
    assert render(cmd, "posix") == "sudo nvidia-smi -mig 0"
    assert render(cmd, "fish") == "sudo nvidia-smi -mig 0"
    assert render_all([cmd], "powershell") == ["# as Administrator", "nvidia-smi -mig 0"]
    assert render_all([cmd], "cmd") == ["REM as Administrator", "nvidia-smi -mig 0"]


def test_posix_and_fish_words_are_one_string_without_a_fish_escape_in_single_quotes():
    # fish reads \\ and \' inside single quotes (and no other backslash); outside them, in double quotes, every shell
    # reads them alike. So a single-quoted run holds no backslash before a backslash, a quote or its closing quote.
    assert quote_posix("/usr\\';touch PWNED;#/bin/python3") == "'/usr'\"\\\\'\"';touch PWNED;#/bin/python3'"
    assert quote_posix("it's") == "'it'\"'\"'s'"
    assert quote_posix("%s\\n") == "'%s\\n'"  # printf's format as people write it (an append to a file)
    assert quote_posix("C:\\Users\\me") == "'C:\\Users\\me'"
    for v in VALUES:
        assert quote_fish(v) == quote_posix(v)
        # Read as quoted runs: no single-quoted run holds a fish escape; a double-quoted one holds only
        # quotes and escaped backslashes; a bare word only plain characters.
        runs = re.findall(r"""'[^']*'|"(?:[^"\\]|\\.)*"|[^'"]+""", quote_posix(v))
        assert "".join(runs) == quote_posix(v), v
        for run in runs:
            if run.startswith("'"):
                assert not re.search(r"\\(?=[\\'])", run), (v, run)
            elif run.startswith('"'):
                assert re.fullmatch(r"""["](?:'|\\\\)+["]""", run), (v, run)
            else:
                assert re.fullmatch(r"[A-Za-z0-9_@%+=:,./-]+", run), (v, run)


def test_a_program_another_user_can_change_is_printed_to_run_as_that_user():
    cmd = Cmd(("/home/alice/venv/bin/python", "-m", "pip", "install", "torch"), as_user=1000)
    lines = render_all([cmd])
    assert lines[1] == "sudo -u '#1000' /home/alice/venv/bin/python -m pip install torch"
    assert lines[0].startswith("# as the user uid 1000, not as root")
    assert cmd.to_json()["as_user"] == 1000


def test_pipe_and_placeholder():
    cmd = Cmd(("lspci", "-vv", "-s", "0000:01:00.0;id"), root=True, pipe=("grep", "-E", "LnkCap|LnkSta"))
    assert render(cmd) == "sudo lspci -vv -s '0000:01:00.0;id' | grep -E 'LnkCap|LnkSta'"
    assert render(Cmd(("wsl", "--set-version", Placeholder("distro"), "2"))) == "wsl --set-version '<distro>' 2"
    with pytest.raises(ValueError):
        Placeholder("x; rm")


def test_commands_must_be_strings_and_names_must_be_names():
    with pytest.raises(TypeError):
        Cmd(("echo", 3))  # type: ignore[arg-type]
    with pytest.raises(Unrenderable):
        SetEnv("LD_PRELOAD=/x X", "1")


def test_envfile_refuses_values_that_would_add_lines():
    assert render_envfile([("CUDA_VISIBLE_DEVICES", "GPU-0f1e2d3c")]) == "CUDA_VISIBLE_DEVICES=GPU-0f1e2d3c\n"
    for bad in ("GPU-1\nLD_PRELOAD=/tmp/x.so", "a\rb", "$(x)", "a'b", 'a"b', "a\\b"):
        with pytest.raises(Unrenderable):
            render_envfile([("X", bad)])
    with pytest.raises(Unrenderable):
        render_envfile([("X\nY", "1")])


def test_notes_are_a_line_of_their_own_that_no_shell_runs():
    lines = render_all([Cmd(("true",), note="x\n; touch PWNED $(id) `id` it's (a) <b> =c \\d")])
    assert lines[1] == "true" and render(Cmd(("true",), note="n")) == "true"
    assert lines[0].startswith("# ") and "\n" not in lines[0]
    # Nothing a shell (interactive zsh reads `#` lines as commands) quotes, expands, redirects or separates.
    assert not set(lines[0][2:]) & set(";$`'\"()<>\\|&*?[]{}~!^#")
    assert " =" not in lines[0]


def test_json_form_is_the_argv():
    cmd = Cmd(("python3", "-m", "pip", "install", "jax[cuda12]==0.4.30"), note="n")
    assert cmd.to_json() == {"argv": ["python3", "-m", "pip", "install", "jax[cuda12]==0.4.30"], "root": False, "note": "n"}


def test_what_the_terminal_sanitizer_would_rewrite_is_never_rendered():
    # A command shown through the sanitizer must be the command that runs: a bidi override or a
    # zero-width character would be shown escaped (or hide text), so no target renders one.
    from gpudoctor.cmdline import render_envfile
    from gpudoctor.sanitize import has_unsafe

    for ch in ("\u202e", "\u200b", "\u2066", "\ufeff", "\x1b", "\x9b", "\n", "\t"):
        value = f"12.4{ch}x"
        for target in ("posix", "fish", "powershell", "cmd", "windows"):
            with pytest.raises(Unrenderable):
                render(Cmd(("nvcc", value)), target)
        with pytest.raises(Unrenderable):
            render_envfile([("CUDA_HOME", value)])
    for code in range(0x3000):
        ch = chr(code)
        if has_unsafe(ch):
            with pytest.raises(Unrenderable):
                render(Cmd(("echo", ch)), "posix")


def test_powershell_lines_hold_every_value_as_one_quoted_word():
    # PowerShell is not packaged for the test images: its quoting is checked statically (tests/hostile/shells.py).
    for i, v in enumerate(VALUES):
        for line in render_all(
            [Cmd(("printargs", str(i), v), root=True, note="a; b $(c) 'd'"), SetEnv("GD_VALUE", v)], "powershell"
        ):
            assert powershell_problem(line) is None, (v, line)
    assert powershell_problem("printargs 'a'; calc") is not None
    assert powershell_problem("printargs 'it's'") is not None


def test_every_placeholder_written_in_the_code_is_a_valid_name() -> None:
    """A Placeholder is constant text from code, checked when it is made: a name the check refuses ("job id")
    would end `check` with a traceback only when the path that builds it runs (a pasted Slurm report did).
    So every `Placeholder("...")` literal in src/ is made here, whatever path builds it."""
    import ast
    from pathlib import Path

    from gpudoctor.cmdline import Placeholder

    src = Path(__file__).resolve().parents[2] / "src" / "gpudoctor"
    names = []
    for path in sorted(src.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", getattr(node.func, "attr", None)) == "Placeholder"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                names.append((path.name, node.args[0].value))
    assert len(names) >= 30  # the walk found the code's placeholders (34 literals today)
    for where, name in names:
        assert str(Placeholder(name)) == f"<{name}>", where


def test_windows_lines_read_as_the_same_argv_in_cmd_and_powershell():
    # A line for either Windows shell: bare words and double-quoted ones, nothing inside that either shell expands
    # (cmd.exe's % and !, PowerShell's $ and backtick) and no quote inside; so both split it into the argv, and the
    # program's own parser (no backslash before a closing quote) reads each word back. Else PowerShell's line, marked.
    token = re.compile(r'"([^"]*)"(?= |$)|([^ "]+)(?= |$)')
    for i, v in enumerate(VALUES):
        cmd = Cmd(("printargs", str(i), v), root=True)
        try:
            lines = render_lines(cmd, "windows")
        except Unrenderable:  # no shell holds it (a control character): PowerShell refuses it too
            with pytest.raises(Unrenderable):
                render(cmd, "powershell")
            continue
        if "in PowerShell" in lines[0]:
            assert render(cmd, "windows") == render(cmd, "powershell") and powershell_problem(lines[-1]) is None, v
            continue
        assert lines[0] == "# as Administrator"
        words, pos = [], 0
        for m in token.finditer(lines[-1]):
            assert m.start() == pos, (v, lines[-1])
            word = m.group(1) if m.group(1) is not None else m.group(2)
            assert not set(word) & set('%!$`"\u201c\u201d\u201e'), (v, lines[-1])
            assert m.group(1) is None or not word.endswith("\\"), (v, lines[-1])
            words.append(word)
            pos = m.end() + 1
        assert words == ["printargs", str(i), v], (v, lines[-1])


# --- a shown command line read back (split_plain): only a plain command becomes argv -------------------------------


@pytest.mark.parametrize(
    ("text", "shell", "argv"),
    [
        ("pip install --upgrade tensorflow", "posix", ("pip", "install", "--upgrade", "tensorflow")),
        # an operator inside quotes is the program's argument, not the shell's
        ('python -c "import torch; print(torch.cuda.is_available())"', "posix", ("python", "-c", "import torch; print(torch.cuda.is_available())")),
        ('pip install "x>=1"', "posix", ("pip", "install", "x>=1")),
        (r".\venv\Scripts\python.exe -s ComfyUI\main.py", "cmd", (r".\venv\Scripts\python.exe", "-s", r"ComfyUI\main.py")),
        (r'"C:\Program Files\app\python.exe" run.py', "powershell", (r"C:\Program Files\app\python.exe", "run.py")),
    ],
)  # fmt: skip
def test_a_plain_command_line_is_read_back_as_its_words(text, shell, argv):
    from gpudoctor.cmdline import split_plain

    assert split_plain(text, shell) == argv


@pytest.mark.parametrize(
    ("text", "shell"),
    [
        ("python train.py | tee log", "posix"),
        ("python train.py > log 2>&1", "posix"),
        ("cd app && python train.py", "posix"),
        ("python $SCRIPT", "posix"),
        ('python "$HOME/x.py"', "posix"),  # expanded inside double quotes too
        ("python $(which train)", "posix"),
        ("python *.py", "posix"),
        ("pip install 'unbalanced", "posix"),
        ("python %APPDATA%\\x.py", "cmd"),
        ("python 'x.py'", "powershell"),  # a PowerShell literal cmd.exe does not know
        ("", "posix"),
    ],
)  # fmt: skip
def test_a_line_with_shell_syntax_is_not_read_back(text, shell):
    from gpudoctor.cmdline import split_plain

    assert split_plain(text, shell) is None
