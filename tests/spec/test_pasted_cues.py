"""gpudoctor.pasted.cues, stated from its docstrings: WSL's driver pairing ("NVIDIA's Windows drivers are numbered
<branch>.<two digits> ... A Linux driver beside an nvidia-smi of another release (440.59 beside 550.100, 390.48 beside
390.59) is no WSL")."""

from __future__ import annotations

import pytest

from gpudoctor.pasted.cues import windows_driver_beside


@pytest.mark.parametrize(
    ("smi", "driver", "wsl"),
    [
        ("560.35.02", "560.94", True),  # WSL: the same branch, a three-number Linux nvidia-smi
        ("545.29.04", "546.17", True),
        ("470.57.02", "510.06", True),  # the 510.06 preview beside 470.57.02
        ("390.48", "390.59", False),  # two two-number releases of one old branch: a Linux pair
        ("440.59", "550.100", False),  # 550.100 has three digits after the branch: a Linux driver
        ("560.35.03", "560.35.03", False),
    ],
)
def test_a_windows_driver_beside_wsls_nvidia_smi(smi, driver, wsl):
    assert windows_driver_beside(smi, driver) is wsl
