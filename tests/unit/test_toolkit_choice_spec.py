"""The toolkit decision's documented rules (docs/findings/toolkit-newer-than-driver.md, "The active toolkit" and
"How to fix"; the docstrings of gpudoctor.checks.toolkit), one sentence each, on a recorded machine with its toolkits
changed: tests/machines/quadro-p2000-driver525-cuda13-toolkit (driver 525.125.06 reporting CUDA 12.0, a Quadro P2000,
compute capability 6.1). Expectations by hand from the docs and compat_matrix rows."""

from __future__ import annotations

import dataclasses

import pytest

from gpudoctor.checks.base import Context
from gpudoctor.checks.toolkit import (
    active_toolkit,
    driver_runs,
    extension_toolkit,
    install_version,
    switch_request,
    toolkit_target,
)
from gpudoctor.facts import CudaLink, Toolkit
from tests.spec.machine import facts_of, replace

P2000 = "quadro-p2000-driver525-cuda13-toolkit"
CTX = Context()


def _tk(version: str, *via: str, complete: bool = True) -> Toolkit:
    root = f"/usr/local/cuda-{version.rsplit('.', 1)[0] if version.count('.') == 2 else version}"
    return Toolkit(root, version, "version.json", (root, *via), f"{root}/bin/nvcc", complete)


def _with(*toolkits: Toolkit, link: str | None = None):
    facts = facts_of(P2000)
    cuda_link = CudaLink("/usr/local/cuda", "link" if link else "missing", link, link)
    return replace(facts, toolkits={"toolkits": toolkits, "link": cuda_link, "nvcc_on_path": None, "nvcc_on_path_version": None})


# --- the active toolkit: "the nvcc on PATH, else the target of /usr/local/cuda, else CUDA_HOME/CUDA_PATH"


def test_the_nvcc_on_path_is_active_before_the_link_and_cuda_home():
    a, b, c = _tk("12.0.1", "CUDA_HOME"), _tk("11.8.0", "nvcc on PATH"), _tk("12.1.1", "/usr/local/cuda link")
    assert active_toolkit(_with(a, c, b, link=c.root)).root == b.root


def test_the_link_target_is_active_before_cuda_home():
    a, c = _tk("12.0.1", "CUDA_HOME"), _tk("12.1.1", "/usr/local/cuda link")
    assert active_toolkit(_with(a, c, link=c.root)).root == c.root


@pytest.mark.parametrize("via", ["CUDA_HOME", "CUDA_PATH"])
def test_cuda_home_or_cuda_path_is_active_last(via):
    a = _tk("12.0.1", via)
    assert active_toolkit(_with(_tk("11.8.0"), a)).root == a.root


# --- PyTorch's extension builder: "CUDA_HOME (or CUDA_PATH), else the nvcc on PATH, else /usr/local/cuda"


@pytest.mark.parametrize("via", ["CUDA_HOME", "CUDA_PATH"])
def test_the_extension_builder_takes_cuda_home_first(via):
    home, path, link = _tk("12.0.1", via), _tk("11.8.0", "nvcc on PATH"), _tk("12.1.1", "/usr/local/cuda link")
    assert extension_toolkit(_with(link, path, home, link=link.root)).root == home.root


def test_the_extension_builder_takes_the_nvcc_on_path_before_the_link():
    path, link = _tk("11.8.0", "nvcc on PATH"), _tk("12.1.1", "/usr/local/cuda link")
    assert extension_toolkit(_with(link, path, link=link.root)).root == path.root
    assert extension_toolkit(_with(link, link=link.root)).root == link.root


# --- driver_runs: "fully (<= the driver's CUDA) or through minor version compatibility"


@pytest.mark.parametrize(
    ("cuda", "runs"),
    [("12.0", True), ("12.0.1", True), ("11.8", True), ("12.8", True), ("13.0", False)],  # 525.125.06 >= 525.60.13
)
def test_driver_runs(cuda, runs):
    assert driver_runs(facts_of(P2000), CTX, cuda) is runs


def test_driver_runs_the_drivers_own_cuda_without_the_matrix():
    # A driver reporting CUDA 12.0 whose version the matrix cannot judge: CUDA 12.0 (equal) still runs fully.
    facts = replace(facts_of(P2000), driver={"smi_driver_version": "1.0", "nvml_driver_version": None})
    if facts.driver.version != "1.0":
        pytest.skip("the driver version is derived otherwise on this record")
    assert driver_runs(facts, CTX, "12.0") is True
    assert driver_runs(facts, CTX, "12.1") is False


# --- toolkit_target: "The active toolkit is kept when it qualifies; otherwise the newest that qualifies"


def test_the_active_toolkit_is_kept_when_it_qualifies():
    old, new = _tk("11.8.0", "nvcc on PATH"), _tk("12.4.1")
    assert toolkit_target(_with(new, old), CTX).root == old.root


def test_otherwise_the_newest_that_qualifies():
    too_new = _tk("13.0.0", "nvcc on PATH")  # CUDA 13 on a CUDA 12.0 driver and a 6.1 GPU: does not qualify
    a, b, c = _tk("11.8.0"), _tk("12.4.1"), _tk("12.2.2")
    assert toolkit_target(_with(too_new, a, b, c), CTX).root == b.root


def test_an_incomplete_toolkit_never_qualifies():
    assert toolkit_target(_with(_tk("12.4.1", "nvcc on PATH", complete=False)), CTX) is None


# --- switch_request: "its major.minor, or its full version when another installed toolkit of the same major.minor
# is newer"


def test_switch_request_names_the_major_minor_unless_a_newer_patch_is_installed():
    a, b = _tk("12.4.0"), Toolkit("/opt/cuda-12.4.1", "12.4.1", "version.json", ("/opt/cuda-12.4.1",), None, True)
    assert switch_request(_with(a), a) == "12.4"
    assert switch_request(_with(a, b), a) == "12.4.0"
    assert switch_request(_with(a, b), b) == "12.4"


# --- install_version: "PyTorch's own CUDA (extensions then match it exactly), else the driver's CUDA"


def test_install_version_is_the_drivers_cuda_without_pytorch():
    assert install_version(_with(), CTX) == "12.0"


def test_install_version_is_pytorchs_cuda_first():
    from gpudoctor.probed import Found

    facts = _with()
    torch = dataclasses.replace(facts_of("h100x8-driver565-torch221-cu121").frameworks.torch.value)
    facts = replace(facts, frameworks={"torch": Found(torch, "dist:torch")})
    assert torch.cuda.startswith("12.1")
    assert install_version(facts, CTX) == "12.1"


def test_a_toolkit_of_another_cuda_major_than_pytorchs_does_not_qualify():
    """qualifies: "of PyTorch's CUDA major (when PyTorch is a CUDA build)": with PyTorch 2.2.1+cu121 the active CUDA 11.8
    is passed over for the CUDA 12.4 beside it (run by this 525 driver through minor-version compatibility)."""
    from gpudoctor.probed import Found

    old, new = _tk("11.8.0", "nvcc on PATH"), _tk("12.4.1")
    torch = facts_of("h100x8-driver565-torch221-cu121").frameworks.torch.value
    facts = replace(_with(new, old), frameworks={"torch": Found(torch, "dist:torch")})
    assert toolkit_target(facts, CTX).root == new.root
    assert toolkit_target(_with(new, old), CTX).root == old.root  # without PyTorch the active one stays


def test_install_version_is_else_the_newest_of_pytorchs_major_that_qualifies():
    """install_version: "else the newest CUDA of PyTorch's major in the matrix that qualifies (extensions build with
    any minor of that major)": PyTorch cu121 on a Blackwell GPU (compute capability 12.0, first CUDA 12.8) and a driver
    reporting CUDA 13.0: not 12.1 (cannot build for 12.0), not 13.0 (another major), but 12.9, the newest CUDA 12."""
    import dataclasses as dc

    from gpudoctor.probed import Found

    h100 = facts_of("h100x8-driver565-torch221-cu121")
    gpus = tuple(dc.replace(g, name="NVIDIA GeForce RTX 5090", compute_capability="12.0") for g in h100.driver.gpus[:1])
    facts = replace(
        _with(),
        frameworks={"torch": Found(h100.frameworks.torch.value, "dist:torch")},
        driver={"gpus": gpus, "smi_gpus": gpus, "smi_driver_version": "580.65.06", "smi_cuda_version": "13.0",
                "nvml_driver_version": None, "nvml_cuda_version": None},
    )  # fmt: skip
    assert (facts.driver.version, facts.driver.cuda_version) == ("580.65.06", "13.0")
    assert install_version(facts, CTX) == "12.9"
