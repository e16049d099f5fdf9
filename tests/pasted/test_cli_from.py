"""`gpudoctor check --from` and `snapshot --from` end to end: text, JSON (valid against its schema),
Markdown (nothing pasted becomes markup), standard input, and several files at once."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.hostile.test_corpus import run_cli
from tests.schemas import assert_valid

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
SMI = FIXTURES / "nvidia-smi-text" / "h100-80gb-hbm3_driver-590.48.01_cuda-13.1_idle.txt"

COLLECT_ENV_CPU = """Collecting environment information...
PyTorch version: 2.2.2+cpu
Is debug build: False
CUDA used to build PyTorch: None
ROCM used to build PyTorch: N/A

OS: Ubuntu 22.04.4 LTS (x86_64)
Python version: 3.10.12 (main, Nov 20 2023, 15:14:05) [GCC 11.4.0] (64-bit runtime)
Python platform: Linux-6.5.0-27-generic-x86_64-with-glibc2.35
Is CUDA available: False
CUDA runtime version: No CUDA
GPU models and configuration: GPU 0: NVIDIA H100 80GB HBM3
Nvidia driver version: 590.48.01
cuDNN version: No CUDA
"""


def _doc(out: str) -> dict:
    doc = json.loads(out)
    # The Windows facts (facts.windows) are another change's; its schema entry lands with it.
    schema_facts = json.loads((ROOT / "src/gpudoctor/schemas/report.schema.json").read_text())["$defs"]["facts"]["properties"]
    if "windows" not in schema_facts:
        doc["facts"].pop("windows", None)
    return doc


def test_json_report_of_pasted_text(tmp_path):
    paste = tmp_path / "issue.txt"
    paste.write_text("I get no GPU:\n\n" + COLLECT_ENV_CPU, encoding="utf-8")
    code, out, err = run_cli("check", "--from", str(paste), "--format", "json")
    assert code == 1, err
    doc = _doc(out)
    assert_valid(doc, "report")
    assert [f["code"] for f in doc["findings"]] == ["framework-cpu-build"]
    assert [b["kind"] for b in doc["pasted"]["blocks"]] == ["collect_env"]
    assert doc["facts"]["pasted"]["partial"] is True
    # PyTorch, the driver and the GPU were all shown; the interpreter's path was not (collect_env prints its version
    # only), and the fix installs with pip: which Python runs the program is the one question left.
    assert [a["argv"] for a in doc["pasted"]["ask_for"]] == [["python3", "-c", "import sys; print(sys.executable)"]]


def test_several_files_and_standard_input(tmp_path):
    paste = tmp_path / "log.txt"
    paste.write_text("RuntimeError: CUDA error: no kernel image is available for execution on the device\n", encoding="utf-8")
    r = subprocess.run(
        [sys.executable, "-m", "gpudoctor", "check", "--from", str(paste), "--from", "-", "--format", "json"],
        input=SMI.read_text(encoding="utf-8"),
        capture_output=True,
        text=True,
        timeout=60,
        env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"},
    )
    doc = _doc(r.stdout)
    assert r.returncode in (0, 1), r.stderr
    assert [b["source"] for b in doc["pasted"]["blocks"]] == ["-"]
    assert doc["facts"]["driver"]["smi_driver_version"] == "590.48.01"
    asked = [a["command"] for a in doc["pasted"]["ask_for"]]
    assert "python3 -m pip list" in asked  # the framework that failed was not shown


def test_text_view_lists_blocks_and_questions(tmp_path):
    paste = tmp_path / "issue.txt"
    paste.write_text("UserWarning: The NVIDIA driver on your system is too old (found version 11040).\n", encoding="utf-8")
    code, out, err = run_cli("check", "--from", str(paste))
    assert code == 1, err
    assert "framework-driver-too-old" in out or "needs a newer CUDA" in out
    # The error's fix is undecided: its plan step carries the questions, printed there once and not listed again.
    plan = out.split("Plan:", 1)[1].split("Read from pasted text", 1)[0]
    for command in ("nvidia-smi", "python3 -m torch.utils.collect_env"):
        assert command in plan and out.count(command) == 1, command
    assert "Ask the reporter for" not in out


def test_text_view_lists_the_questions_no_plan_step_carries(tmp_path):
    # A lone recognised error that no check explains is a warning with no step: the questions are listed apart.
    paste = tmp_path / "issue.txt"
    paste.write_text("RuntimeError: CUDA error: no kernel image is available for execution on the device\n", encoding="utf-8")
    code, out, err = run_cli("check", "--from", str(paste))
    assert code == 1, err
    asked = out.split("Ask the reporter for", 1)[1]
    assert "nvidia-smi" in asked and "python3 -m pip list" in asked and "Plan:" not in out


def test_markdown_escapes_what_was_pasted(tmp_path):
    hostile = COLLECT_ENV_CPU.replace(
        "PyTorch version: 2.2.2+cpu",
        "PyTorch version: 2.2.2+cpu[click](https://evil.example)<img src=x onerror=alert(1)>@admin![x](y)",
    )
    paste = tmp_path / "issue.txt"
    paste.write_text(hostile, encoding="utf-8")
    code, out, err = run_cli("check", "--from", str(paste), "--format", "markdown")
    assert code == 1, err
    assert "framework-cpu-build" in out
    # As GitHub renders the reply: no link, image, HTML element, mention or reference from the paste.
    from tests.hostile.gfm import made_from

    assert made_from(out) == []
    assert "<img src=x onerror=alert(1)>@admin" in out  # shown, inside a code span
    # Commands sit in fences no pasted backtick can close.
    assert "```sh" in out or "```powershell" in out


def test_snapshot_from_is_what_check_from_judges(tmp_path):
    paste = tmp_path / "issue.txt"
    paste.write_text(COLLECT_ENV_CPU, encoding="utf-8")
    snap = tmp_path / "snap.json"
    code, out, err = run_cli("snapshot", "--from", str(paste), "-o", str(snap))
    assert code == 0, err
    data = json.loads(snap.read_text(encoding="utf-8"))
    assert data["partial"] is True and data["pasted"]["blocks"][0]["kind"] == "collect_env"
    assert_valid(data, "snapshot")
    code_replay, out_replay, _ = run_cli("check", "--replay", str(snap), "--format", "json")
    code_from, out_from, _ = run_cli("check", "--from", str(paste), "--format", "json")
    assert code_replay == code_from
    assert [f["code"] for f in json.loads(out_replay)["findings"]] == [f["code"] for f in json.loads(out_from)["findings"]]


def test_json_cites_the_line_of_each_fact(tmp_path):
    text = "I get no GPU:\n\n" + COLLECT_ENV_CPU
    paste = tmp_path / "issue.txt"
    paste.write_text(text, encoding="utf-8")
    code, out, err = run_cli("check", "--from", str(paste), "--format", "json")
    assert code == 1, err
    doc = _doc(out)
    assert_valid(doc, "report")
    facts = {f["fact"]: f for f in doc["pasted"]["read_from"]}
    lines = text.splitlines()
    torch = facts["python.distributions.torch"]
    assert (torch["value"], torch["assumed"]) == ("2.2.2+cpu", False)
    assert torch["lines"] == [
        {"source": str(paste), "line": lines.index("PyTorch version: 2.2.2+cpu") + 1, "text": "PyTorch version: 2.2.2+cpu"}
    ]
    assert facts["nvml.driver_version"]["lines"][0]["line"] == lines.index("Nvidia driver version: 590.48.01") + 1
    # Shown, so read: assumed are only what collect_env does not print (the interpreter's name, the installation's
    # kind, where the packages are).
    assumed = sorted(f["fact"] for f in doc["pasted"]["read_from"] if f["assumed"])
    assert assumed == ["python.executable", "python.kind", "python.site_packages.0"]
    assert all(f["lines"] for f in doc["pasted"]["read_from"] if not f["assumed"])


def test_verbose_text_shows_the_source_line_of_each_fact_sanitized(tmp_path):
    paste = tmp_path / "issue.txt"
    # A title-setting escape inside a pasted line: shown escaped, never sent to the terminal.
    paste.write_text(
        COLLECT_ENV_CPU.replace("GPU 0: NVIDIA H100 80GB HBM3", "GPU 0: NVIDIA H100\x1b]0;pwned\x07 80GB"), encoding="utf-8"
    )
    code, out, err = run_cli("check", "--from", str(paste), "-v")
    assert code == 1, err
    assert "facts read (source:line):" in out
    at = COLLECT_ENV_CPU.splitlines().index("PyTorch version: 2.2.2+cpu") + 1
    assert f"python.distributions.torch = 2.2.2+cpu  ({paste}:{at}: PyTorch version: 2.2.2+cpu)" in out
    assert "\x1b]0;pwned" not in out and "\\x1b]0;pwned" in out
    assert "facts assumed (no line states them): python.executable = python3, python.site_packages.0 = " in out
    quiet = run_cli("check", "--from", str(paste))[1]
    assert "facts read" not in quiet  # the lines are for -v
