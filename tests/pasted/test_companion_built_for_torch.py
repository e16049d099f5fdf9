"""A companion's compiled extension that names the torch it was built for (xformers' "xFormers was built for: PyTorch
2.1.2+cu121 ... (you have 2.1.0+cpu)", facebookresearch/xformers xformers/_cpp_lib.py @ca6d2aa0): where the installed
torch is replaced anyway (a CPU build), the CUDA build of that very torch is the one installed, its companions pinned
to the releases built for it, not the installed patch (planner.machine.built_for, checks.frameworks._framework_plan).
Threads: facebookresearch/xformers#971 (plans22/2210: 2.1.2 named, 2.1.0+cpu installed), open-mmlab/PIA#30 (plans4/348:
2.1.2 named and installed, the expected plan "the CUDA build of the same torch the xformers was built for")."""

from __future__ import annotations

import pytest

from tests.pasted.cli_json import blind_case, check


def _torch_lines(doc: dict) -> list[list[str]]:
    return [
        c["argv"]
        for s in doc["plan"]["steps"]
        for c in s["commands"]
        if "install" in c.get("argv", []) and any(a.startswith("torch==") for a in c["argv"])
    ]


@pytest.mark.parametrize("case", ["plans22/cases/2210", "plans4/cases/348"])
def test_the_torch_the_extension_names_is_installed(case: str):
    (argv,) = _torch_lines(check(blind_case(case)))
    assert [a for a in argv if a.startswith(("torch==", "torchvision==", "torchaudio=="))][:2] == [
        "torch==2.1.2+cu121",
        "torchvision==0.16.2+cu121",
    ]
    assert argv[-2:] == ["--index-url", "https://download.pytorch.org/whl/cu121"]
