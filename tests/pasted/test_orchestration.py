"""Issues 27/28: containers, Kubernetes, Slurm and WSL as the paste shows them, and the driver's own version facts.

Each test is a minimal paste, its lines as the tools print them, and asserts data: finding codes, argv, fields.
"""

from __future__ import annotations

import json

from tests.hostile.test_corpus import run_cli


def _check(tmp_path, text: str) -> dict:
    paste = tmp_path / "issue.txt"
    paste.write_text(text + "\n", encoding="utf-8")
    _, out, err = run_cli("check", "--from", str(paste), "--format", "json")
    return json.loads(out)


def _codes(doc: dict) -> list[str]:
    return [f["code"] for f in doc["findings"]]


def _argv(doc: dict) -> list[list[str]]:
    return [c["argv"] for s in doc["plan"]["steps"] for c in s["commands"]]


def _asked(doc: dict) -> list[list[str]]:
    return [a["argv"] for a in doc["pasted"]["ask_for"]]


# --- the driver's two versions, as the mismatch message states them --------------------------------------------

# TensorFlow's cuda_diagnostics prints both halves as three numbers ("515.48.7" is the driver 515.48.07).
LIBCUDA_OLDER = "kernel version 515.48.7 does not match DSO version 510.73.5 -- cannot find working devices in this configuration"


def test_libcuda_mismatch_states_both_versions_and_which_side_is_stale(tmp_path):
    doc = _check(tmp_path, LIBCUDA_OLDER)
    (finding,) = [f for f in doc["findings"] if f["code"] == "driver-library-mismatch"]
    assert finding["detail"].startswith("Kernel module 515.48.07, library 510.73.05: the libraries are older")
    # the module is the newer side: a reboot alone is not the fix, the module on disk is compared first
    assert ["modinfo", "-F", "version", "nvidia"] in _argv(doc)
    # the message named the loaded module: /proc/driver/nvidia/version is not asked again
    assert ["cat", "/proc/driver/nvidia/version"] not in _asked(doc)


def test_image_own_libcuda_is_fixed_in_the_image_not_on_the_host(tmp_path):
    # nvidia-smi inside the container answers with the host's 440.36 (the toolkit mounted the host's NVML), while
    # the libcuda that failed is 440.33.01: a copy the image carries.
    text = "\n".join(
        (
            "inside the container:",
            "E external/org_tensorflow/tensorflow/stream_executor/cuda/cuda_diagnostics.cc:313] kernel version 440.36.0 "
            "does not match DSO version 440.33.1 -- cannot find working devices in this configuration",
            "(base) [docker@4d16b48b1a22 ~]$ nvidia-smi",
            "+-----------------------------------------------------------------------------+",
            "| NVIDIA-SMI 440.36       Driver Version: 440.36       CUDA Version: 10.2     |",
            "|-------------------------------+----------------------+----------------------+",
        )
    )
    doc = _check(tmp_path, text)
    (finding,) = [f for f in doc["findings"] if f["code"] == "driver-library-mismatch"]
    assert finding["detail"].startswith("Kernel module 440.36, library 440.33.01:")
    assert finding["remediation"]["where"] == "the image"
    argv = _argv(doc)
    assert ["find", "/", "-xdev", "-name", "libcuda.so*"] in argv
    assert not any("reboot" in a for a in argv) and not any(a[:2] == ["docker", "commit"] for a in argv)
