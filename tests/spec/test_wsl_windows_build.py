"""docs/findings/wsl-windows-too-old.md: a WSL 2 report whose stated Windows build gives WSL 2 no GPU (before 21H2,
19044, or an Insider build before 20145). Variants written here from the class: `ver`'s line and winver's "(OS Build
N)", a build before and after the line; the quiet twins are a supported build and nvidia-smi listing a GPU."""

from __future__ import annotations

import pytest

from tests.spec.machine import argv_words, pasted_findings
from tests.spec.registry import FIRES, QUIET, states

_FAIL = "I run Ubuntu 20.04 on WSL2.\n>>> import torch\n>>> torch.cuda.is_available()\nFalse\n"


@states("wsl-windows-too-old", FIRES)
@pytest.mark.parametrize(
    "build_line",
    [
        "Microsoft Windows [Version 10.0.19042.1052]",  # 20H2, ver's line
        "Windows 10 Pro Version 21H1 (OS Build 19043.1237)",  # winver's words
        "Windows 10 version 1909 (OS Build 18363.1256)",  # 1909 ran WSL 2 from update 1049, without the GPU
    ],
)
def test_a_windows_build_before_21h2_under_wsl2_updates_windows_then_wsl(build_line):
    f = pasted_findings(build_line + "\n" + _FAIL)["wsl-windows-too-old"]
    words = argv_words(f.remediation)
    assert ("wsl", "--update") in words and ("wsl", "--shutdown") in words
    assert words.index(("wsl", "--update")) < words.index(("wsl", "--shutdown"))
    assert f.remediation.where == "Windows"


@states("wsl-windows-too-old", QUIET)
@pytest.mark.parametrize(
    "text",
    [
        "Microsoft Windows [Version 10.0.19044.2130]\n" + _FAIL,  # 21H2: supported
        "Microsoft Windows [Version 10.0.22631.3007]\n" + _FAIL,  # Windows 11
        "Microsoft Windows [Version 10.0.19042.1052]\n"
        + _FAIL.replace(
            ">>> import torch",
            "$ nvidia-smi -L\nGPU 0: NVIDIA GeForce RTX 3060 (UUID: GPU-5d3a1c2e-0000-0000-0000-000000000000)\n>>> import torch",
        ),
    ],
)
def test_a_supported_build_or_a_gpu_listed_in_the_distribution_is_quiet(text):
    assert "wsl-windows-too-old" not in pasted_findings(text)
