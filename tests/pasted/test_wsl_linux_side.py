"""A report naming WSL whose OS is stated as Windows: what its program printed says which side ran (issues 27/28).

pasted/cues.linux_side_in_wsl: with WSL named, a shared object or a POSIX path in the output and nothing only
Windows prints (a DLL, a drive-letter path, a Windows prompt) is the Linux side, whatever the issue form's OS field
says. Minimal pastes of the class, written for it; data asserted."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.cmdline import Cmd
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.planner import where
from gpudoctor.planner.prescribe import build

ROOT = Path(__file__).resolve().parents[2]
_SO = "ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory\n"
_NUMA = "could not open file to read NUMA node: /sys/bus/pci/devices/0000:01:00.0/numa_node\n"
_FRAME = 'File "/home/me/venv/lib/python3.10/site-packages/ctranslate2/__init__.py", line 21, in <module>\n'
_DLL = (
    'OSError: [WinError 126] The specified module could not be found. Error loading "C:\\Users\\me\\venv\\Lib\\'
    'site-packages\\torch\\lib\\cudnn_ops_infer64_8.dll" or one of its dependencies.\n'
)


@pytest.mark.parametrize(
    "text",
    [
        # The form's OS field says Windows, the prose says WSL, the loader's error is Linux's.
        "- OS: Windows 11\nI run it in WSL2 Ubuntu.\n" + _SO,
        # TensorFlow's sysfs read (a Linux log line) under a template answered "Windows 11" with WSL's version.
        "Operating System + Version: Windows 11\nWSL version: 2.0.14.0\n" + _NUMA,
        # One field naming both ("Ubuntu 24.04 / Windows 11 WSL2") and a traceback frame in a POSIX file.
        "- OS: Ubuntu 22.04 / Windows 11 WSL2\nTraceback (most recent call last):\n  " + _FRAME + _SO,
        # GitHub's issue form: "### Platform" answered Windows, WSL in the OS line.
        "### Platform\n\nWindows\n\n- OS: Windows 11 WSL2\n" + _SO,
    ],
)
def test_a_wsl_report_whose_output_is_linux_runs_on_the_linux_side(text):
    snap = read_pasted([Source("report.txt", text)])
    assert snap["platform"]["system"] == "Linux"
    assert "WSL2" in snap["platform"]["release"]
    # the Linux side cites its line: a cue, or the OS field itself where it names WSL beside Windows (read._os, h229)
    read = [f for f in snap["pasted"]["read_from"] if f["fact"] == "platform.system" and f["value"] == "Linux"]
    assert any(c["means"] == "Linux" and c["line"] for c in snap["pasted"]["cues"]) or any(f["lines"] for f in read)
    report = diagnose(ReplayHost(validate_snapshot(snap, "report")))
    assert report.facts.platform.wsl == 2
    assert where.shell(report.facts) == "posix"


@pytest.mark.parametrize(
    "text",
    [
        # WSL named, but the failure is a Windows DLL in a drive-letter path: the program is Windows' own.
        "- OS: Windows 11\nI also have WSL2 installed.\n" + _DLL,
        # No WSL named: the stated Windows stands (a .so name alone does not move it).
        "- OS: Windows 11\n" + _SO,
        # Both sides' output shown: the OS stays as stated.
        "- OS: Windows 11\nWSL2 too\n" + _SO + _DLL,
    ],
)
def test_windows_stays_where_the_output_is_windows_or_wsl_is_not_named(text):
    snap = read_pasted([Source("report.txt", text)])
    assert snap["platform"]["system"] == "Windows"


def test_the_plan_of_a_wsl_onnxruntime_report_is_a_linux_shell_line():
    text = (
        "- OS: Ubuntu 24.04 / Windows 11 WSL2\n- NVIDIA Driver: 550.54.14\n"
        "[E:onnxruntime:Default, provider_bridge_ort.cc:1548 TryGetProviderInfo_CUDA] "
        "/onnxruntime_src/onnxruntime/core/session/provider_bridge_ort.cc:1209 onnxruntime::Provider& "
        "onnxruntime::ProviderLibrary::Get() [ONNXRuntimeError] : 1 : FAIL : Failed to load library "
        "libonnxruntime_providers_cuda.so with error: libcublas.so.11: cannot open shared object file: No such file "
        "or directory\n\n### Platform\n\nWindows\n\nonnxruntime-gpu           1.17.1\n"
    )
    report = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("report.txt", text)]), "report")))
    plan = build(report.findings, where.shell(report.facts))
    commands = [c for s in plan.steps for c in s.commands if isinstance(c, Cmd)]
    assert commands and all(c.argv[0] == "python3" for c in commands if "pip" in c.argv)


def test_an_unanswered_wsl_question_and_a_hyphenated_identifier_say_no_wsl():
    # tests/blind/plans16/cases/1653: a bug template's "- WSL version (if applicable):" left empty on Ubuntu 24.10, and
    # plans16/1639: a compose file's comment listing the "vaapi-wsl" transcoding choice on a NAS: neither is WSL said
    for case in ("1653", "1639"):
        (path,) = (ROOT / "tests/blind/plans16/cases").glob(f"{case}-*/input.txt")
        snap = read_pasted([Source("report.txt", path.read_text(encoding="utf-8"))])
        assert snap["platform"] == {"system": "Linux"}, case
    # quiet twins: the same question answered, and WSL said in prose, still say WSL 2
    for text in ("- OS: Ubuntu 22.04\n- WSL version (if applicable): 2\n", "I run it in WSL2 Ubuntu.\n" + _SO):
        assert "WSL2" in read_pasted([Source("report.txt", text)])["platform"]["release"]


def test_wsl_set_between_cjk_letters_is_wsl_said():
    # Chinese reports set WSL between their own letters with no space, and Python's \w counts those letters as word
    # characters: plans18/1803 ("WSL2Ubuntu报警告", a Paddle warning in WSL 2's Ubuntu) was planned as plain Linux, and
    # plans5/447 ("在WSL2虚拟机下") read WSL only from elsewhere. Both now say WSL 2 from their words.
    for case, folder in (("1803", "plans18"), ("447", "plans5")):
        (path,) = (ROOT / "tests/blind" / folder / "cases").glob(f"{case}-*/input.txt")
        snap = read_pasted([Source("report.txt", path.read_text(encoding="utf-8"))])
        assert snap["platform"]["system"] == "Linux", case
        assert "WSL2" in snap["platform"]["release"], case
    # quiet twins: an ASCII identifier holding the letters, and WSL's package version, keep their reading
    assert read_pasted([Source("report.txt", "if isWSL: pass\n" + _SO)])["platform"] == {"system": "Linux"}
    assert "WSL2" in read_pasted([Source("report.txt", "WSL 1.2.5 on Windows 11\n" + _SO)])["platform"]["release"]


def test_a_prompt_only_wsls_shell_shows_is_wsl_whatever_the_prose_says():
    # plans3/231: "(textgen) eugeo@DESKTOP-88L7K4D:/mnt/c/Users/...$ python server.py" beside "it works on Windows (not
    # WSL)": the failing command ran in WSL's bash (a Windows drive under /mnt, Windows' generated PC name as host);
    # plans16/1649: "(gdr) root@DESKTOP-3696316:/home/zjy/models/GDRnet#", the PC name alone
    for case, folder in (("231", "plans3"), ("1649", "plans16")):
        (path,) = (ROOT / "tests/blind" / folder / "cases").glob(f"{case}-*/input.txt")
        snap = read_pasted([Source("report.txt", path.read_text(encoding="utf-8"))])
        assert (snap["platform"]["system"], "WSL2" in snap["platform"]["release"]) == ("Linux", True), case
        assert "a prompt only WSL's shell shows" in [c["cue"] for c in snap["pasted"]["cues"]], case
    # quiet twins: Git Bash's prompt on the same PC name (MSYS, native Windows: no colon), a Linux host of another
    # name, and a /mnt directory that is no drive letter's
    for text in (
        "me@DESKTOP-88L7K4D MINGW64 ~/app $ python x.py\n",
        "me@desktop-pc:~/app$ python x.py\n" + _SO,
        "me@server:/mnt/data/app$ python x.py\n" + _SO,
    ):
        snap = read_pasted([Source("report.txt", text)])
        assert "WSL2" not in snap["platform"].get("release", ""), text
        assert "a prompt only WSL's shell shows" not in [c["cue"] for c in snap["pasted"]["cues"]], text
