"""docs/findings/windows-shell-syntax.md, each documented rule as a test on the real reports saved in
tests/pasted/catalogue_examples (cmd.exe's error in English, Chinese and French, PowerShell's category line, pip's
single-quoted requirement) and their near misses."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.cmdline import Cmd, SetEnv
from tests.spec.machine import pasted_findings, pasted_report
from tests.spec.registry import FIRES, QUIET, states

EXAMPLES = Path(__file__).resolve().parents[1] / "pasted" / "catalogue_examples"


def _example(name: str) -> str:
    return (EXAMPLES / name).read_text(encoding="utf-8")


def _lines(finding) -> list:
    return [
        ("set", c.name, c.value) if isinstance(c, SetEnv) else tuple(str(w) for w in c.argv)
        for c in finding.remediation.commands
        if isinstance(c, (SetEnv, Cmd))
    ]


@pytest.mark.parametrize(
    ("example", "expected"),
    [
        # cmd.exe's English error, the command quoted after it in prose: the value read from it
        ("streaming-llm-11-cmd-cuda-visible-devices-prefix.txt", [("set", "CUDA_VISIBLE_DEVICES", "0")]),
        # French cmd.exe, the prompt's line before the error (its value in double quotes)
        ("lane-detection-138-cmd-cuda-visible-devices-fr.txt", [("set", "CUDA_VISIBLE_DEVICES", "0")]),
        # PowerShell's category line, the same in every language, names the value
        ("nnunet-1393-powershell-cuda-visible-devices-prefix.txt", [("set", "CUDA_VISIBLE_DEVICES", "1")]),
        # Chinese cmd.exe, no value shown: the GPUs' indices are what decides it
        ("ms-swift-256-cmd-cuda-visible-devices-zh.txt", [("nvidia-smi", "-L")]),
        # Chinese PowerShell's sentence, quoted without its category line, names the value
        ("ldp-net-3-powershell-zh-cuda-visible-devices.txt", [("set", "CUDA_VISIBLE_DEVICES", "0")]),
    ],
)
@states("windows-shell-syntax", FIRES)
def test_an_assignment_refused_by_cmd_or_powershell_is_set_on_its_own_line(example, expected):
    """windows-shell-syntax.md: "cmd.exe's error for a word in capitals ... PowerShell's ObjectNotFound ... The value
    meant is read from the typed line where the text shows it"."""
    f = pasted_findings(_example(example))["windows-shell-syntax"]
    assert _lines(f) == expected


@states("windows-shell-syntax", FIRES)
def test_the_plan_is_written_for_the_shell_that_refused_it():
    """windows-shell-syntax.md: cmd.exe's own error makes the plan cmd.exe's (`set "NAME=value"`), PowerShell's prompt
    PowerShell's (`$env:NAME = '...'`)."""
    cmd = pasted_report(_example("streaming-llm-11-cmd-cuda-visible-devices-prefix.txt"))
    ps = pasted_report(_example("nnunet-1393-powershell-cuda-visible-devices-prefix.txt"))
    from gpudoctor.planner.where import shell

    assert (shell(cmd.facts), shell(ps.facts)) == ("cmd", "powershell")


@states("windows-shell-syntax", FIRES)
def test_a_single_quoted_requirement_is_installed_in_double_quotes():
    """windows-shell-syntax.md: "pip's Invalid requirement: "'...'" (a requirement that kept its single quotes)"."""
    f = pasted_findings(_example("daphne-467-invalid-requirement-single-quotes.txt"))["windows-shell-syntax"]
    [argv] = _lines(f)
    assert argv[-3:] == ("pip", "install", "Twisted[tls,http2]")


@pytest.mark.parametrize(
    "text",
    [
        # a program that is merely not installed (not a variable's name)
        "C:\\Users\\me>nvcc --version\n'nvcc' is not recognized as an internal or external command,\noperable program or batch file.\n",
        "C:\\Users\\me>nnUNetv2_train 011 3d_fullres 0\n'nnUNetv2_train' is not recognized as an internal or external command,\n",
        # pip naming a requirements file's line: the quotes are the file's, not the shell's
        "ERROR: Invalid requirement: \"'torch==2.1.0'\" (from line 3 of requirements.txt)\n",
        # a single-quoted requirement naming a URL: never printed as an install to run
        "C:\\x>pip install 'torch @ https://example.invalid/torch.whl'\n"
        "ERROR: Invalid requirement: \"'torch @ https://example.invalid/torch.whl'\"\n",
        # PowerShell's error for a missing program, no assignment in it
        "PS C:\\x> nvcc --version\n    + CategoryInfo          : ObjectNotFound: (nvcc:String) [], CommandNotFoundException\n",
    ],
)
@states("windows-shell-syntax", QUIET)
def test_not_said_for_a_missing_program_or_a_requirements_file(text):
    """windows-shell-syntax.md: "Not said for a program that is merely not installed ... or for a requirements
    file's line"."""
    assert "windows-shell-syntax" not in pasted_findings(text)


@pytest.mark.parametrize(
    ("example", "script"),
    [
        # the English sentence, a relative path (not run again: which folder it is relative to is not shown)
        ("vscode-200177-activate-ps1-scripts-disabled.txt", None),
        # Spanish: the category line after the environment's Activate.ps1, under a prompt that looks like cmd.exe's
        ("chiadog-235-powershell-activate-scripts-disabled-es.txt", "C:\\Users\\aitor\\chiadog\\venv\\Scripts\\Activate.ps1"),
    ],
)
@states("windows-script-policy", FIRES)
def test_the_execution_policy_is_set_for_the_user_then_the_script_runs_again(example, script):
    """windows-script-policy.md: "PowerShell's English sentence naming the script, or the category line ... after an
    environment's Activate.ps1 (any language)"; the plan is PowerShell's (its own error record says it ran)."""
    report = pasted_report(_example(example))
    f = {x.code: x for x in report.findings}["windows-script-policy"]
    assert _lines(f) == [("Set-ExecutionPolicy", "-Scope", "CurrentUser", "-ExecutionPolicy", "RemoteSigned")] + (
        [(script,)] if script else []
    )
    from gpudoctor.planner.where import shell

    assert shell(report.facts) == "powershell"


@states("windows-script-policy", QUIET)
def test_a_security_error_without_an_activate_script_is_not_the_policy():
    """windows-script-policy.md: "Not said for the category line without an Activate.ps1 before it"."""
    text = (
        "PS C:\\x> .\\setup.ps1\n"
        ".\\setup.ps1 : File C:\\x\\setup.ps1 is not digitally signed. You cannot run this script on the current system.\n"
        "    + CategoryInfo          : SecurityError: (:) [], PSSecurityException\n"
        "    + FullyQualifiedErrorId : UnauthorizedAccess\n"
    )
    assert "windows-script-policy" not in pasted_findings(text)


def _asks(text: str) -> list[str]:
    from gpudoctor.pasted.ask import ask_for

    report = pasted_report(text)
    return [" ".join(map(str, a.command.argv)) for a in ask_for(report.facts, report.findings)]


@pytest.mark.parametrize(
    ("example", "asked"),
    [
        # Windows' python.exe alias: which Pythons are installed, and which python.exe PATH finds first
        ("kohya-ss-1275-python-not-found-store-alias.txt", ["py -0p", "where.exe python"]),
        ("virtual-avatar-27-python-not-found-store-alias.txt", ["py -0p", "where.exe python"]),
        # setuptools found no build tools: the interpreter's version and width decide whether a wheel fits it
        ("btcrecover-327-msvc-14-required.txt", ["python -c"]),
    ],
)
def test_the_store_alias_and_a_missing_compiler_ask_what_decides_them(example, asked):
    """catalogue.toml's windows-store-python-alias and setuptools-msvc-14-required: not decided by the message alone (no
    finding), each asks what decides it, in Windows' own commands."""
    asks = _asks(_example(example))
    assert all(any(a.startswith(want) for a in asks) for want in asked), asks


@pytest.mark.parametrize(
    "text",
    [
        # the Visual C++ runtime named, not the build tools missing
        "I installed the Microsoft Visual C++ 2015-2022 Redistributable (x64) - 14.38.33130\n",
        # a working interpreter's banner
        "C:\\Users\\me>python\nPython 3.10.11 (tags/v3.10.11:7d4cc5a, Apr  5 2023, 00:38:17) [MSC v.1929 64 bit (AMD64)] on win32\n",
    ],
)
def test_the_runtime_or_a_working_python_asks_neither(text):
    """The quiet twins: neither entry reads a text that only names the runtime or shows Python starting."""
    asks = _asks(text)
    assert not any(a.startswith(("py -0p", "where.exe python")) for a in asks), asks
    assert not any("struct.calcsize" in a and "sys.version" in a for a in asks), asks


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # export typed at cmd.exe's prompt, a literal value: set the same way
        (
            "C:\\Users\\me\\repo>export CUDA_HOME=C:\\cuda\n'export' is not recognized as an internal or external command,\n",
            [("set", "CUDA_HOME", "C:\\cuda")],
        ),
        # a value of shell syntax ($PYTHONPATH, backquotes) is not read: said in words, no line printed for it
        (EXAMPLES.joinpath("background-matting-19-cmd-export-not-recognized.txt").read_text(encoding="utf-8"), []),
    ],
)
@states("windows-shell-syntax", FIRES)
def test_export_is_set_with_the_value_the_prompt_shows(text, expected):
    """windows-shell-syntax.md: "The value meant is read from the typed line where the text shows it ... a value
    holding a shell's own syntax (`%`, `$`, backquotes, quotes) is not read"."""
    f = pasted_findings(text)["windows-shell-syntax"]
    assert [x for x in _lines(f) if x[0] == "set"] == expected
