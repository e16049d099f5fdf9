"""An environment listing's torch is the field that names torch itself, never a package named after it (issues 27/28):
Lightning's environment report lists pytorch-lightning, torchmetrics and torchvision beside torch, each with its own
version. Real reports: a case of tests/blind (cited by path) and other public threads (their URLs)."""

from __future__ import annotations

import pytest

from tests.pasted.test_asks_that_can_run import _case
from tests.pasted.test_asks_the_report_can_run import _check

# Lightning-AI/pytorch-lightning#18933 (the environment block, cut after its Lightning section)
_LIGHTNING_2 = """
* CUDA:
        - GPU:
                - NVIDIA A100-SXM4-40GB
                - NVIDIA A100-SXM4-40GB
                - NVIDIA A100-SXM4-40GB
                - NVIDIA A100-SXM4-40GB
        - available:         True
        - version:           11.8
* Lightning:
        - lightning:         2.1.0
        - lightning-cloud:   0.5.46
        - lightning-utilities: 0.9.0
        - pytorch-lightning: 2.0.7
        - pytorch-optimizer: 2.12.0
        - torch:             2.1.0
        - torch-tb-profiler: 0.4.1
        - torchaudio:        2.1.0
        - torchinfo:         1.8.0
        - torchmetrics:      1.0.3
        - torchvision:       0.16.0
"""
# Lightning-AI/pytorch-lightning#3865 (the environment block): torch only as pyTorch_version, pytorch-lightning after it
_LIGHTNING_0 = """
### Environment
* CUDA:
        - GPU:
                - GeForce GTX 1080
                - GeForce GTX 1080
        - available:         True
        - version:           10.1
* Packages:
        - numpy:             1.18.1
        - pyTorch_debug:     False
        - pyTorch_version:   1.6.0
        - pytorch-lightning: 0.10.0rc1
        - tqdm:              4.46.1
* System:
        - OS:                Linux
        - architecture:
                - 64bit
                - 
        - processor:         
        - python:            3.7.7
        - version:           #1 SMP Tue May 12 16:57:42 UTC 2020
"""


def _torch(doc: dict) -> str | None:
    torch = doc["facts"]["frameworks"].get("torch") or {}
    return (torch.get("value") or {}).get("version")


@pytest.mark.parametrize(
    ("text", "torch"),
    [
        # tests/blind/plans11/cases/1107-…: "- pytorch-lightning: 1.7.7" above "- torch:             1.12.1"
        (_case("1107"), "1.12.1"),
        (_LIGHTNING_2, "2.1.0"),
    ],
)
def test_the_torch_field_is_torch_not_a_package_named_after_it(tmp_path, text, torch):
    assert _torch(_check(tmp_path, text)) == torch


def test_pytorch_lightning_alone_is_no_torch_version(tmp_path):
    assert _torch(_check(tmp_path, _LIGHTNING_0)) != "0.10.0rc1"
