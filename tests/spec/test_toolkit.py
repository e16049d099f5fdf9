"""docs/findings: the toolkit area (toolkit-newer-than-driver, toolkit-arch-unsupported, toolkit-torch-major-mismatch,
cuda-link-dangling, cuda-paths-disagree), each documented rule as a test: recorded machines with one fact changed
(versions at every component: major, minor, patch)."""

from __future__ import annotations

import dataclasses

import pytest

from gpudoctor.model import Severity
from tests.spec.machine import facts_of, judged, replace
from tests.spec.registry import FIRES, QUIET, states


def _toolkit(facts, version: str):
    """facts with its one toolkit (and its nvcc on PATH) at `version`."""
    (tk,) = facts.toolkits.toolkits
    return replace(facts, toolkits={"toolkits": (dataclasses.replace(tk, version=version),), "nvcc_on_path_version": version})


def _driver(facts, version: str, cuda: str):
    return replace(facts, driver={"smi_driver_version": version, "smi_cuda_version": cuda})


# --- toolkit-newer-than-driver ----------------------------------------------------------------------------
# tests/machines/rtx3090-nvcc125-only-driver525: nvcc 12.5 on PATH (known only from its output), driver 525.147.05
# reporting CUDA 12.0. CUDA 12's minor-version-compatibility floor on Linux is 525.60.13 (cuda_driver.toml).
NVCC125 = "rtx3090-nvcc125-only-driver525"


@pytest.mark.parametrize(
    ("driver", "severity"),
    [
        ("525.60.13", Severity.WARNING),  # at the floor: runs through minor-version compatibility
        ("525.61.0", Severity.WARNING),
        ("525.60.12", Severity.ERROR),  # patch below the floor
        ("525.59.99", Severity.ERROR),  # minor below
        ("524.99.99", Severity.ERROR),  # major below
    ],
)
@states("toolkit-newer-than-driver", FIRES)
def test_the_floor_of_the_major_decides_at_every_component(driver, severity):
    """toolkit-newer-than-driver.md: "The driver runs a CUDA release when either holds: it is at least that release's
    toolkit driver; it is at least the minor-version-compatibility floor of the same major." "CUDA 12: 525.60.13";
    the severity table: runs it through minor-version compatibility: warning (active toolkit); cannot run it: error."""
    (f,) = judged(_driver(facts_of(NVCC125), driver, "12.0"), "toolkit-newer-than-driver")
    assert f.severity == severity


@pytest.mark.parametrize(("toolkit", "cuda"), [("12.0.140", "12.0"), ("11.8.89", "12.0"), ("12.4.1", "12.4")])
@states("toolkit-newer-than-driver", QUIET)
def test_a_toolkit_not_newer_than_the_drivers_cuda_by_major_minor_is_not_judged(toolkit, cuda):
    """toolkit-newer-than-driver.md: "Rule: toolkits whose major.minor is newer than the driver's CUDA are judged"
    - a patch above (12.0.140 on CUDA 12.0) is not newer."""
    facts = _driver(facts_of(NVCC125), "550.54.14", cuda)
    facts = replace(facts, toolkits={"nvcc_on_path_version": toolkit})
    assert judged(facts, "toolkit-newer-than-driver") == []


@states("toolkit-newer-than-driver", FIRES)
def test_minor_version_compatibility_never_crosses_a_major():
    """toolkit-newer-than-driver.md: "Majors: minor-version compatibility never crosses a major." - a CUDA 13
    toolkit on a CUDA 12.8 driver far above CUDA 12's floor still cannot run."""
    facts = replace(_driver(facts_of(NVCC125), "570.124.04", "12.8"), toolkits={"nvcc_on_path_version": "13.0.88"})
    (f,) = judged(facts, "toolkit-newer-than-driver")
    assert f.severity == Severity.ERROR


@states("toolkit-newer-than-driver", QUIET)
def test_without_a_driver_version_the_toolkit_check_is_silent():
    """toolkit-newer-than-driver.md: "No cascade: without a driver version, this check stays silent"."""
    facts = replace(facts_of(NVCC125), driver={"smi_driver_version": None, "smi_cuda_version": None})
    assert judged(facts, "toolkit-newer-than-driver") == []


# --- toolkit-arch-unsupported -----------------------------------------------------------------------------
# tests/machines/quadro-p2000-driver525-cuda13-toolkit: compute capability 6.1, whose last CUDA is 12.9 (gpu_arch.toml).
P2000 = "quadro-p2000-driver525-cuda13-toolkit"


@pytest.mark.parametrize("version", ["13.0.88", "13.1.0"])
@states("toolkit-arch-unsupported", FIRES)
def test_a_toolkit_past_the_last_cuda_for_the_gpu_fires(version):
    """toolkit-arch-unsupported.md: "gpu_arch.toml gives, per compute capability, the first and last CUDA release that
    can target it. It fires when the toolkit's major.minor falls outside that range." (6.1: 8.0 to 12.9)"""
    assert len(judged(_toolkit(facts_of(P2000), version), "toolkit-arch-unsupported")) == 1


@pytest.mark.parametrize("version", ["12.9.1", "12.9.0", "8.0.61", "11.8.89", "99.0.0"])
@states("toolkit-arch-unsupported", QUIET)
def test_a_toolkit_inside_the_range_or_unknown_to_the_matrix_is_quiet(version):
    """toolkit-arch-unsupported.md: inside [first, last] by major.minor (12.9.1: the patch does not count) it is quiet;
    "When it stays silent: the matrix knows either the CUDA release or the compute capability not at all." (99.0)"""
    assert judged(_toolkit(facts_of(P2000), version), "toolkit-arch-unsupported") == []


@states("toolkit-arch-unsupported", FIRES)
def test_a_toolkit_before_the_first_cuda_for_the_gpu_fires():
    """toolkit-arch-unsupported.md: outside the range below its first CUDA: 7.5 (Turing) needs CUDA 10.0; CUDA 9.2 is
    before it."""
    facts = facts_of(P2000)
    gpus = tuple(dataclasses.replace(g, compute_capability="7.5", name="Tesla T4") for g in facts.driver.gpus)
    facts = replace(_toolkit(facts, "9.2.148"), driver={"gpus": gpus, "smi_gpus": gpus})
    assert len(judged(facts, "toolkit-arch-unsupported")) == 1
    assert judged(_toolkit(facts, "10.0.130"), "toolkit-arch-unsupported") == []


# --- toolkit-torch-major-mismatch -------------------------------------------------------------------------
# tests/machines/rtx4090-nvcc118-torch-cu121: nvcc 11.8 on PATH, PyTorch 2.x+cu121.
NVCC118 = "rtx4090-nvcc118-torch-cu121"


@states("toolkit-torch-major-mismatch", FIRES)
def test_nvcc_and_torch_of_different_majors_fire():
    """toolkit-torch-major-mismatch.md: "Rule: it fires when both are known and their majors differ." """
    assert len(judged(facts_of(NVCC118), "toolkit-torch-major-mismatch")) == 1


@pytest.mark.parametrize("version", ["12.1.105", "12.0.76", "12.9.0"])
@states("toolkit-torch-major-mismatch", QUIET)
def test_nvcc_of_the_same_major_but_another_minor_is_quiet(version):
    """toolkit-torch-major-mismatch.md: only the majors are compared (12.0 and 12.9 against cu121: no finding)."""
    assert judged(_toolkit(facts_of(NVCC118), version), "toolkit-torch-major-mismatch") == []


@states("toolkit-torch-major-mismatch", FIRES, QUIET)
def test_the_toolkit_cuda_home_names_is_the_one_compared():
    """toolkit-torch-major-mismatch.md: "CUDA_HOME first: when CUDA_HOME and PATH name different toolkits, the one
    CUDA_HOME names is compared, as it is the one the build uses" (torch.utils.cpp_extension's order)."""
    facts = facts_of(NVCC118)  # nvcc on PATH: CUDA 11.8; PyTorch cu121
    (tk,) = facts.toolkits.toolkits
    cuda12 = dataclasses.replace(tk, root="/opt/cuda-12.1", version="12.1.105", found_via=("CUDA_HOME",))
    both = replace(facts, toolkits={"toolkits": (tk, cuda12)})
    assert judged(both, "toolkit-torch-major-mismatch") == []  # CUDA_HOME's 12.1 matches cu121
    only_home = replace(
        facts,
        toolkits={
            "toolkits": (dataclasses.replace(tk, found_via=("CUDA_HOME",)),),
            "nvcc_on_path": None,
            "nvcc_on_path_version": None,
        },
    )
    assert len(judged(only_home, "toolkit-torch-major-mismatch")) == 1  # CUDA_HOME's 11.8 against cu121


# --- cuda-link-dangling, cuda-paths-disagree --------------------------------------------------------------
DISAGREE = "rtx4090-toolkit-paths-disagree"  # CUDA_HOME 11.8, nvcc on PATH 12.5, /usr/local/cuda -> missing 10.2


@states("cuda-link-dangling", FIRES)
def test_a_link_that_does_not_resolve_dangles():
    """cuda-link-dangling.md: "Rule: the path is a link, and the link does not resolve." """
    assert len(judged(facts_of(DISAGREE), "cuda-link-dangling")) == 1


@states("cuda-link-dangling", QUIET)
def test_a_resolving_link_a_directory_or_no_link_do_not_dangle():
    """cuda-link-dangling.md: a link that resolves, or a path that is not a link, does not dangle."""
    facts = facts_of(DISAGREE)
    for link in (
        dataclasses.replace(facts.toolkits.link, target="/usr/local/cuda-11.8", resolved="/usr/local/cuda-11.8"),
        dataclasses.replace(facts.toolkits.link, kind="dir", target=None, resolved=None),
        dataclasses.replace(facts.toolkits.link, kind="missing", target=None, resolved=None),
    ):
        assert judged(replace(facts, toolkits={"link": link}), "cuda-link-dangling") == []


@states("cuda-paths-disagree", FIRES)
def test_two_roots_named_by_path_and_cuda_home_disagree():
    """cuda-paths-disagree.md: "Rule: it fires when these resolve to two or more different toolkit roots." """
    assert len(judged(facts_of(DISAGREE), "cuda-paths-disagree")) == 1


@states("cuda-paths-disagree", QUIET)
def test_one_root_named_many_ways_agrees():
    """cuda-paths-disagree.md: nvcc on PATH, CUDA_HOME and the link naming one toolkit agree
    (tests/machines/rtx4090-nvcc118-torch-cu121: all name /usr/local/cuda-11.8)."""
    assert judged(facts_of(NVCC118), "cuda-paths-disagree") == []


@pytest.mark.parametrize(
    ("via", "fires"),
    [
        ("CUDA_HOME", True),
        ("CUDA_PATH", True),
        ("LD_LIBRARY_PATH", True),
        ("/usr/local/cuda link", True),
        ("CUDA_ROOT", False),
        ("CONDA_PREFIX", False),
    ],
)
@states("cuda-paths-disagree", FIRES, QUIET)
def test_what_is_compared_with_the_nvcc_on_path(via, fires):
    """cuda-paths-disagree.md: "Compared: nvcc on PATH ...; CUDA_HOME and CUDA_PATH; LD_LIBRARY_PATH ...; the
    /usr/local/cuda link." "Not compared: CUDA_ROOT, CONDA_PREFIX" - a second toolkit named only one way."""
    facts = facts_of(DISAGREE)
    other, nvcc = facts.toolkits.toolkits  # 11.8 (CUDA_HOME), 12.5 (nvcc on PATH)
    link = facts.toolkits.link
    if via == "/usr/local/cuda link":
        link = dataclasses.replace(link, target=other.root, resolved=other.root)
    env = {k: v for k, v in facts.platform.env.items() if k != "CUDA_HOME"}
    facts = replace(
        facts,
        toolkits={"toolkits": (dataclasses.replace(other, found_via=(other.root, via)), nvcc), "link": link, "cuda_home": None},
        platform={"env": env},
    )
    assert len(judged(facts, "cuda-paths-disagree")) == int(fires)


@pytest.mark.parametrize(("active", "severity"), [(True, Severity.ERROR), (False, Severity.WARNING)])
@states("toolkit-newer-than-driver", FIRES)
def test_a_toolkit_the_driver_cannot_run_is_an_error_when_active_a_warning_otherwise(active, severity):
    """toolkit-newer-than-driver.md, Severity: "cannot run it | error | warning" (the active toolkit, another one)."""
    facts = facts_of("quadro-p2000-driver525-cuda13-toolkit")  # CUDA 13.0 on a CUDA 12.0 driver
    (tk,) = facts.toolkits.toolkits
    if not active:
        inactive = dataclasses.replace(tk, found_via=(tk.root,))
        facts = replace(
            facts,
            toolkits={"toolkits": (inactive,), "nvcc_on_path": None, "nvcc_on_path_version": None,
                      "link": dataclasses.replace(facts.toolkits.link, kind="missing", target=None, resolved=None)},
        )  # fmt: skip
    (f,) = judged(facts, "toolkit-newer-than-driver")
    assert f.severity == severity


@states("toolkit-arch-unsupported", QUIET)
def test_only_the_active_toolkit_is_judged_against_the_gpu():
    """toolkit-arch-unsupported.md: "The toolkit: the active one ...: nvcc on PATH, else /usr/local/cuda, else
    CUDA_HOME/CUDA_PATH." - the CUDA 13.0 tree present but named by none of them is not judged."""
    facts = facts_of(P2000)
    (tk,) = facts.toolkits.toolkits
    facts = replace(
        facts,
        toolkits={"toolkits": (dataclasses.replace(tk, found_via=(tk.root,)),), "nvcc_on_path": None, "nvcc_on_path_version": None,
                  "link": dataclasses.replace(facts.toolkits.link, kind="missing", target=None, resolved=None)},
    )  # fmt: skip
    assert judged(facts, "toolkit-arch-unsupported") == []


@pytest.mark.parametrize(
    ("name", "fires"),
    [("Quadro P2000", True), ("Quadro P20...", True), ("Quadro P...", True), ("NVIDIA GeForce GTX 1...", False)],
)
@states("toolkit-arch-unsupported", FIRES, QUIET)
def test_a_truncated_name_counts_when_every_candidate_agrees(name, fires):
    """toolkit-arch-unsupported.md: "Each GPU's compute capability: from NVML, else looked up by the GPU's name in
    compat_matrix/gpu_arch.toml. That lookup covers the nvidia-smi names, including truncated ones ..., when every
    candidate agrees." (Quadro P...: every one 6.1; GeForce GTX 1...: 6.1 and 7.5 disagree, so nothing is judged)"""
    facts = facts_of(P2000)
    gpus = tuple(dataclasses.replace(g, name=name, compute_capability=None) for g in facts.driver.gpus)
    assert len(judged(replace(facts, driver={"gpus": gpus, "smi_gpus": gpus}), "toolkit-arch-unsupported")) == int(fires)


@pytest.mark.parametrize(("active", "severity"), [(True, Severity.WARNING), (False, Severity.INFO)])
@states("toolkit-newer-than-driver", FIRES)
def test_a_toolkit_run_through_minor_version_compatibility_is_a_warning_when_active_info_otherwise(active, severity):
    """toolkit-newer-than-driver.md, Severity: "runs it through minor-version compatibility | warning | info" (the active
    toolkit, another one): CUDA 12.4 on driver 525.125.06 (CUDA 12.0), above CUDA 12's floor 525.60.13."""
    facts = facts_of("quadro-p2000-driver525-cuda13-toolkit")
    (tk,) = facts.toolkits.toolkits
    tk = dataclasses.replace(tk, version="12.4.131")
    if active:
        facts = replace(facts, toolkits={"toolkits": (tk,), "nvcc_on_path_version": "12.4.131"})
    else:
        facts = replace(
            facts,
            toolkits={"toolkits": (dataclasses.replace(tk, found_via=(tk.root,)),), "nvcc_on_path": None, "nvcc_on_path_version": None,
                      "link": dataclasses.replace(facts.toolkits.link, kind="missing", target=None, resolved=None)},
        )  # fmt: skip
    (f,) = judged(facts, "toolkit-newer-than-driver")
    assert f.severity == severity
