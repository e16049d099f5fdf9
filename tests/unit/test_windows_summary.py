"""The status line of the CUDA toolkits area on Windows: the toolkits under Program Files, CUDA_PATH's marked.

Windows has no /usr/local/cuda: its toolkits are the probe's `windows.toolkits` (one folder per version) and
CUDA_PATH names the one builds use. The summary used to read only the Linux facts and said "none found" on
every Windows machine, beside a finding about those very toolkits.
"""

from __future__ import annotations

from pathlib import Path

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot
from gpudoctor.render.terminal import area_summaries

MACHINES = Path(__file__).resolve().parents[1] / "machines"


def summary(machine: str) -> str:
    facts = diagnose(ReplayHost(load_snapshot(str(MACHINES / machine / "snapshot.json")))).facts
    return area_summaries(facts)["toolkit"]


def test_the_toolkit_cuda_path_names_is_marked():
    # The user deleted v12.3 and kept v11.8, which CUDA_PATH names (tests/fixtures/windows/PROVENANCE.md).
    assert (
        summary("windows-cuda118-after-deleting-v123")
        == "11.8 at C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v11.8 (CUDA_PATH)"
    )


def test_a_windows_machine_without_toolkits_still_says_none_found():
    # The TF 2.9 venv machine has no toolkit at all (its DLLs are missing: windows-dll-missing).
    assert summary("windows-tf291-venv-no-cuda-dlls") == "none found"
