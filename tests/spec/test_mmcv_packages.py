"""docs/findings/nvidia-wheels-conflict.md: two of mmcv's distributions (mmcv-full, mmcv, mmcv-lite) installed together
- they all install site-packages/mmcv, which mmcv's installation notes forbid - read from the environment's package
list. Variants written here from the class (the 1.x pair and a 2.x mmcv beside a 1.x mmcv-full); the quiet twins are
each distribution alone and a package of another import name."""

from __future__ import annotations

import pytest

from tests.spec.machine import argv_words, pasted_findings
from tests.spec.registry import FIRES, QUIET, states

_PIP_LIST = """Package            Version
------------------ -----------
mmcv               {mmcv}
mmcv-full          {full}
mmdet              2.28.2
torch              1.13.1
"""


@states("nvidia-wheels-conflict", FIRES)
@pytest.mark.parametrize(
    ("mmcv", "full", "keep"),
    [
        ("1.4.5", "1.4.5", "mmcv-full==1.4.5"),  # 1.x: mmcv is the lite one, mmcv-full has the ops
        ("2.1.0", "1.7.2", "mmcv==2.1.0"),  # from 2.0 mmcv is the build with the ops
    ],
)
def test_two_mmcv_distributions_are_all_uninstalled_then_the_one_with_the_ops_alone_through_mim(mmcv, full, keep):
    f = pasted_findings(_PIP_LIST.format(mmcv=mmcv, full=full))["nvidia-wheels-conflict"]
    words = argv_words(f.remediation)
    assert words[0][:5] == ("python3", "-m", "pip", "uninstall", "-y")
    assert set(words[0][5:]) == {"mmcv", "mmcv-full"}
    assert words[1] == ("python3", "-m", "pip", "install", "-U", "openmim")
    assert words[2] == ("python3", "-m", "mim", "install", keep)
    assert words[3][:2] == ("python3", "-c") and "mmcv.ops" in words[3][2]


@states("nvidia-wheels-conflict", QUIET)
@pytest.mark.parametrize(
    "text",
    [
        _PIP_LIST.format(mmcv="2.1.0", full="1.7.2").replace("mmcv-full          1.7.2\n", ""),  # mmcv alone
        _PIP_LIST.format(mmcv="2.1.0", full="1.7.2").replace("mmcv               2.1.0\n", ""),  # mmcv-full alone
        _PIP_LIST.format(mmcv="2.1.0", full="1.7.2").replace("mmcv-full          1.7.2", "mmengine           0.10.3"),
    ],
)
def test_one_mmcv_distribution_alone_is_quiet(text):
    assert "nvidia-wheels-conflict" not in pasted_findings(text)
