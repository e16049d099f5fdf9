"""`check --deep` results in the text view, not only in JSON (facts.frameworks.deep).

Recorded machines with the replies of the --deep import script added under their command keys
("gpudoctor-deep torch", as a snapshot records them): the text view says per framework what the import
showed, under the Frameworks line, within the terminal's width; the JSON report keeps the replies as before.
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tests.conftest import real_app

MACHINES = Path(__file__).resolve().parents[1] / "machines"


def with_deep(tmp_path: Path, slug: str, replies: dict[str, dict | str]) -> str:
    snapshot = json.loads((MACHINES / slug / "snapshot.json").read_text())
    for name, reply in replies.items():
        stdout = reply if isinstance(reply, str) else "GPUDOCTOR-JSON " + json.dumps(reply)
        snapshot["commands"][f"gpudoctor-deep {name}"] = {
            "rc": 0 if not isinstance(reply, str) else 1,
            "stdout": stdout,
            "stderr": "",
        }
    path = tmp_path / "snapshot.json"
    path.write_text(json.dumps(snapshot))
    return str(path)


def check(path: str, *args: str, columns: int = 80):
    return CliRunner().invoke(real_app(), ["check", "--replay", path, "--deep", *args], env={"COLUMNS": str(columns)})


TORCH = {
    "framework": "torch",
    "version": "2.2.1+cu121",
    "cuda": "12.1",
    "cudnn": 8902,
    "available": True,
    "device_count": 1,
    "arch_list": ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"],
    "devices": [{"name": "NVIDIA GeForce RTX 5070", "capability": "12.0"}],
}


def test_a_torch_import_is_shown_under_the_frameworks_line(tmp_path):
    r = check(with_deep(tmp_path, "rtx5070-torch-cu121-no-sm120", {"torch": TORCH}))
    lines = r.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if "Frameworks:" in line)
    shown = " ".join(" ".join(lines[at + 1 : at + 4]).split())
    assert shown.startswith(
        "--deep: import torch: torch 2.2.1+cu121; built with CUDA 12.1, cuDNN 8902; sees 1 GPU: "
        "NVIDIA GeForce RTX 5070 (compute capability 12.0); kernels for sm_50, sm_60, sm_70, sm_75, sm_80, sm_86, sm_90"
    )
    assert all(len(line) <= 80 for line in lines if not line.startswith("      "))  # prose within the width
    doc = json.loads(check(with_deep(tmp_path, "rtx5070-torch-cu121-no-sm120", {"torch": TORCH}), "--format", "json").stdout)
    assert doc["facts"]["frameworks"]["deep"]["torch"] == TORCH  # JSON as before


def test_a_failed_import_and_a_gpu_less_one(tmp_path):
    tf_error = {
        "framework": "tensorflow",
        "error": "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory",
    }
    jax = {
        "framework": "jax",
        "version": "0.4.30",
        "backend": "cpu",
        "devices": ["TFRT_CPU_0"],
        "device_count": 0,
        "available": False,
    }
    r = check(with_deep(tmp_path, "h100-load-tf-jax-configured", {"tensorflow": tf_error, "jax": jax}), columns=200)
    lines = [line.strip() for line in r.stdout.splitlines()]
    assert "--deep: import jax: jax 0.4.30; backend cpu; sees no GPU" in lines
    assert (
        "--deep: import tensorflow failed: ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory"
        in lines
    )


def test_an_import_that_crashed_says_so_shortened(tmp_path):
    crash = "Segmentation fault " + "x" * 3000  # no GPUDOCTOR-JSON line: the interpreter died
    r = check(with_deep(tmp_path, "rtx5070-torch-cu121-no-sm120", {"torch": crash}), columns=120)
    line = next(line for line in r.stdout.splitlines() if "--deep: import torch failed" in line)
    assert "exit status 1" in line
    text = " ".join(r.stdout.split())
    assert "…" in text and "x" * 300 not in text  # the evidence cut in the text view (JSON keeps it whole)


def test_without_deep_nothing_is_added(tmp_path):
    r = CliRunner().invoke(real_app(), ["check", "--replay", str(MACHINES / "rtx5070-torch-cu121-no-sm120" / "snapshot.json")])
    assert "--deep:" not in r.stdout
