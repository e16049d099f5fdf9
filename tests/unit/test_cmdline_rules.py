"""The quoting layer's documented rules, one sentence a test (gpudoctor.cmdline's module doc and comments).

Each expectation is written by hand from the sentence it states, not computed by the code under test.
"""

from __future__ import annotations

import pytest

from gpudoctor.cmdline import Cmd, Output, PrependPath, SetEnv, Unrenderable, render, render_lines, shell_for_os


def test_ld_library_path_keeps_the_colon_on_windows_shells_and_path_takes_the_semicolon():
    """_separator: "Windows' PATH is ";"-separated; LD_LIBRARY_PATH, and every list on the POSIX shells' systems, ":"."""
    ld = PrependPath("LD_LIBRARY_PATH", ("/opt/x/lib",))
    assert render(ld, "powershell") == "$env:LD_LIBRARY_PATH = '/opt/x/lib' + ':' + $env:LD_LIBRARY_PATH"
    assert render(ld, "cmd") == 'set "LD_LIBRARY_PATH=/opt/x/lib:%LD_LIBRARY_PATH%"'
    path = PrependPath("PATH", ("C:\\CUDA\\bin",))
    assert render(path, "powershell") == "$env:PATH = 'C:\\CUDA\\bin' + ';' + $env:PATH"
    assert render(path, "cmd") == 'set "PATH=C:\\CUDA\\bin;%PATH%"'
    assert render(PrependPath("PATH", ("/opt/x/bin",)), "posix") == 'export PATH=/opt/x/bin"${PATH:+:$PATH}"'


def test_a_command_run_as_a_user_is_never_the_line_for_every_shell():
    """_any: a command run as root (sudo) is POSIX's; so is one run as a user (`sudo -u '#1000' ...`): the `windows`
    line would drop the sudo and run it as whoever pastes it."""
    line = Cmd(("python3", "-m", "pip", "list"), as_user=1000)
    assert render(line, "any") == "sudo -u '#1000' python3 -m pip list"
    assert render(Cmd(("python3", "-m", "pip", "list")), "any") == "python3 -m pip list"


def test_shell_for_os_reads_windows_in_any_case():
    """shell_for_os: "PowerShell on Windows, a POSIX shell elsewhere" (platform.system() says "Windows"; reports and
    pasted text spell it in other cases)."""
    systems = ("Windows", "windows", "WINDOWS", "win32", "Linux", "Darwin", "", None)
    assert [shell_for_os(s) for s in systems] == ["powershell"] * 4 + ["posix"] * 4


def test_nothing_empty_is_ever_added_to_a_list_of_directories():
    """PrependPath: "Nothing empty is ever added: an empty entry (a leading or trailing ":") means the current
    directory to the loader." Empty pieces are dropped; a directory of nothing but empty pieces is no directory."""
    assert PrependPath("LD_LIBRARY_PATH", ("", "/opt/x/lib", "")).parts == ("/opt/x/lib",)
    assert render(PrependPath("LD_LIBRARY_PATH", ("", "/opt/x/lib")), "posix") == (
        'export LD_LIBRARY_PATH=/opt/x/lib"${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"'
    )
    with pytest.raises(TypeError):
        PrependPath("LD_LIBRARY_PATH", ("",))
    with pytest.raises(TypeError):
        PrependPath("PATH", ())


def test_cmd_sets_a_variable_from_one_program_at_a_time():
    """_prepend (cmd): "cmd.exe sets a variable from one program's output at a time: use PowerShell"; one program is
    `for /f`."""
    one = PrependPath("PATH", (Output(("python", "-c", "print(1)")), "\\bin"))
    assert render(one, "cmd") == 'for /f "delims=" %i in (\'python -c "print(1)"\') do set "PATH=%i\\bin;%PATH%"'
    two = PrependPath("PATH", (Output(("python", "-c", "print(1)")), "\\", Output(("python", "-c", "print(2)"))))
    with pytest.raises(Unrenderable):
        render(two, "cmd")


def test_the_run_as_a_user_note_is_on_fish_lines_too():
    """render_lines: a command with `as_user` says, on the line before it, in every POSIX-family target (posix and
    fish), that it runs as that user and not as root."""
    line = Cmd(("pip", "install", "x"), as_user=1000)
    note = "# as the user uid 1000, not as root: it runs files that user can change"
    assert render_lines(line, "posix") == [note, "sudo -u '#1000' pip install x"]
    assert render_lines(line, "fish") == [note, "sudo -u '#1000' pip install x"]


def test_cmd_set_quotes_the_whole_assignment():
    """_setenv (cmd): `set "NAME=value"`: the quotes around the whole assignment keep a value with spaces or `&`
    one value (and no trailing space from the line joins it); unset is `set "NAME="`."""
    assert render(SetEnv("CUDA_PATH", "C:\\Program Files\\CUDA & v12"), "cmd") == 'set "CUDA_PATH=C:\\Program Files\\CUDA & v12"'
    assert render(SetEnv("CUDA_PATH", None), "cmd") == 'set "CUDA_PATH="'
    assert render(SetEnv("CUDA_PATH", "C:\\CUDA"), "powershell") == "$env:CUDA_PATH = 'C:\\CUDA'"
    assert render(SetEnv("CUDA_PATH", None), "powershell") == "Remove-Item Env:CUDA_PATH"
    assert render(SetEnv("CUDA_PATH", None), "fish") == "set -e CUDA_PATH"
    assert render(SetEnv("CUDA_PATH", None), "posix") == "unset CUDA_PATH"


def test_a_comma_is_quoted_on_the_line_for_both_windows_shells():
    """_BOTH_SAFE: "`,` is PowerShell's array": a word holding one is quoted for cmd.exe and PowerShell alike."""
    assert render(Cmd(("nvidia-smi", "--query-gpu=name,uuid")), "windows") == 'nvidia-smi "--query-gpu=name,uuid"'
    assert render(Cmd(("nvidia-smi", "--query-gpu=name")), "windows") == "nvidia-smi --query-gpu=name"
