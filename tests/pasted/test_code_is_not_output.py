"""Issue 27/28 (a pasted script is not output): a message inside a statement of the reporter's code is what the
program would print, not what the machine printed, so it is no finding; the same message printed below the code is.

Each script is written here in the shapes reports paste: a Python helper returning a message from an except clause
(tensorflow/tensorflow#63455's shape), a shell check echoing one, a raise in a module's source, a Dockerfile RUN line.
"""

from __future__ import annotations

import json

import pytest

from gpudoctor.pasted.blocks import output_only
from tests.hostile.test_corpus import run_cli

SMI_MISSING = "nvidia-smi: command not found"
LIB_MISSING = "OSError: libcudart.so.11.0: cannot open shared object file: No such file or directory"

PY_EXCEPT = f"""import subprocess
def gpu_info():
    try:
        return subprocess.run(['nvidia-smi'], stdout=subprocess.PIPE).stdout.decode()
    except FileNotFoundError:
        return "{SMI_MISSING}. Make sure NVIDIA drivers are installed."
print(gpu_info())
"""
SHELL_IF = f"""#!/bin/bash
if ! command -v nvidia-smi >/dev/null; then
    echo "{SMI_MISSING}"
    exit 1
fi
python train.py
"""
PY_RAISE = f"""def load_cudart():
    try:
        return ctypes.CDLL("libcudart.so.11.0")
    except OSError as e:
        raise RuntimeError('{LIB_MISSING}') from e
"""
DOCKERFILE = f"""FROM nvidia/cuda:11.8.0-runtime-ubuntu22.04
RUN echo "{SMI_MISSING}" > /etc/motd
CMD ["python3", "serve.py"]
"""
# What a finding cites for each printed message (the library's name for a loader error).
CITED = {SMI_MISSING: SMI_MISSING, LIB_MISSING: "libcudart.so.11.0"}
SCRIPTS = {
    "python-except": (PY_EXCEPT, SMI_MISSING),
    "shell-if": (SHELL_IF, SMI_MISSING),
    "python-raise": (PY_RAISE, LIB_MISSING),
    "dockerfile": (DOCKERFILE, SMI_MISSING),
}


def _check(tmp_path, text: str) -> dict:
    paste = tmp_path / "issue.txt"
    paste.write_text(text, encoding="utf-8")
    code, out, err = run_cli("check", "--from", str(paste), "--format", "json")
    doc = json.loads(out)
    assert code == doc["exit_code"], err
    return doc


def _cited(doc: dict) -> list[str]:
    return [e["value"] for f in doc["findings"] for e in f.get("evidence", [])]


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_a_message_inside_the_reporters_code_is_no_finding(tmp_path, name):
    script, _ = SCRIPTS[name]
    doc = _check(tmp_path, "My GPU is not used. Here is my code:\n```\n" + script + "```\n")
    message = SCRIPTS[name][1]
    assert not any(CITED[message] in value for value in _cited(doc))
    # what remains is the reporter's own words, read as a stated symptom nothing shown explains (not a clean bill,
    # parsers/failure_lines): a warning that cites the sentence, never the code's message
    assert [(f["code"], f["severity"]) for f in doc["findings"]] == [("pasted-error-unexplained", "warning")]
    assert _cited(doc) == ["My GPU is not used. Here is my code:"]


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_the_same_message_printed_below_the_code_is_read(tmp_path, name):
    # The quiet twin turned over: the program ran and printed the message, so it is evidence.
    script, message = SCRIPTS[name]
    doc = _check(tmp_path, "```\n" + script + "```\nOutput:\n```\n" + message + "\n```\n")
    assert doc["findings"], "a printed failure is read"
    assert any(CITED[message] in value for value in _cited(doc))


def test_only_the_literals_of_statements_are_blanked():
    lines = [
        '    return "nvidia-smi not found"',
        ">>> print(torch.cuda.is_available())",
        "False",
        "nvidia-smi: command not found",
        "if you run it, it says 'nvidia-smi: command not found'",
        "    if not ok: print('CUDA failed')",
    ]
    out = output_only(lines)
    assert out[0] == '    return "' + " " * len("nvidia-smi not found") + '"'
    assert out[1:5] == lines[1:5]  # code without literals, output and prose are kept
    assert out[5] == "    if not ok: print('" + " " * len("CUDA failed") + "')"
    assert [len(a) for a in out] == [len(b) for b in lines]


def test_assignments_are_code_but_a_logs_key_value_pairs_are_output():
    lines = [
        'MSG="nvidia-smi: command not found"',
        'msg = "CUDA failed"',
        'time=2024-08-01T10:00:00 level=INFO msg="Unable to load cudart" library=/usr/lib/libcudart.so.12',
        'msg="Unable to load cudart" library=/usr/lib/libcudart.so.12 error="cudart init failure: 999"',
    ]
    out = output_only(lines)
    assert out[0] == 'MSG="' + " " * 29 + '"' and out[1] == 'msg = "' + " " * 11 + '"'
    assert out[2:] == lines[2:]


def test_source_lines_python_echoes_are_output():
    # A traceback frame and a warning's display print the statement that ran: what it says happened.
    lines = [
        '  File "/app/check.py", line 12, in main',
        '    raise RuntimeError("nvidia-smi: command not found")',
        "/usr/lib/python3/site-packages/whisper/transcribe.py:114: UserWarning: FP16 is not supported on CPU",
        '  warnings.warn("FP16 is not supported on CPU; using FP32 instead")',
    ]
    assert output_only(lines) == lines
