"""Build choices and driver judgements with partial driver facts: a GPU without its driver, a driver known
only by the CUDA version it reports, and a nightly PyTorch. Real reports from tests/real/ (their snapshots
unchanged, or with one fact taken out where the test says so).

Every expectation is written by hand from compat_matrix/ (torch.toml, cuda_driver.toml); the comment at
each says which rows decide it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpudoctor.checks import Context
from gpudoctor.checks.frameworks import dev_base, framework_plan
from gpudoctor.doctor import diagnose
from gpudoctor.install.environment import read_env
from gpudoctor.planner.machine import machine_from_facts, target_gaps
from gpudoctor.planner.model import Target
from gpudoctor.planner.plan import Options, TargetNeeded, newest_torch, plan_install, torch_variant_for
from gpudoctor.probes import run_probes
from tests.conftest import replay_host

REAL = Path(__file__).resolve().parents[1] / "real"
MACHINES = Path(__file__).resolve().parents[1] / "machines"
CTX = Context()


def _snap(slug: str, change=None) -> dict:
    path = REAL / slug / "snapshot.json"
    if not path.exists():
        path = MACHINES / slug / "snapshot.json"
    snap = json.loads(path.read_text(encoding="utf-8"))
    if change:
        change(snap)
    return snap


def _facts(slug: str, change=None):
    host = replay_host(_snap(slug, change))
    return host, run_probes(host)


def _plan(slug: str, version: str | None = None, change=None):
    host, facts = _facts(slug, change)
    return plan_install(facts, CTX, "torch", version, env=read_env(host, facts))


def _findings(slug: str, change=None):
    return diagnose(replay_host(_snap(slug, change))).findings


def _no_driver_version(snap):
    snap["nvml"].pop("driver_version", None)


# --- a GPU seen, its driver not: the build that needs the lowest driver -----------------------------------


@pytest.mark.parametrize(
    "slug,version,variant",
    [
        # torch 1.10: cu102 (no sm_80), cu111 and cu113 (sm_80): the lower CUDA of the two that run on the A100.
        ("a100-torch1101-cu102-no-sm80", "1.10.1", "cu111"),
        # torch 2.8: only cu126 keeps sm_60 (cu128/cu129 start at sm_70), so the GTX 1080 Ti (6.1) gets cu126.
        ("gtx1080ti-pascal-torch280-cu128-docker", "2.8.0", "cu126"),
        # torch 1.7: cu92/cu101/cu102 stop at sm_75; cu110 has sm_80, whose cubins run on the RTX 3070 (8.6).
        ("rtx3070-torch171-cu102-no-sm86", "1.7.1", "cu110"),
    ],
)
def test_a_gpu_without_a_driver_gets_the_least_demanding_build_with_its_kernels(slug, version, variant):
    plan = _plan(slug, version)
    assert plan.machine.driver_cuda is None and plan.machine.gpus
    assert plan.chosen.build.variant == variant
    assert plan.steps and plan.steps[0].argv[-1] == f"https://download.pytorch.org/whl/{variant}"


def test_the_plan_says_the_driver_was_not_seen_and_which_driver_the_build_needs():
    # cu111: CUDA 11's minor-version floor 450.80.02 is below 11.1's toolkit driver 455.23 (cuda_driver.toml).
    plan = _plan("a100-torch1101-cu102-no-sm80", "1.10.1")
    said = plan.reasons[1]
    assert said == (
        "no NVIDIA driver was seen here: of the builds with kernels for this GPU, PyTorch 1.10 (cu111) needs "
        "the lowest driver: driver >= 450.80.02 (>= 455.23 for full CUDA 11.1 support); run nvidia-smi and give "
        "its CUDA version (--cuda) for the newest build that driver runs"
    )
    # CUDA 11.0: its GA driver 450.51.05 is below CUDA 11's floor, but an RTX 3070 (sm_86, first targeted by
    # CUDA 11.1) needs CUDA 11.1's driver 455.23 to run at all: the GPU's own floor is the one named.
    plan = _plan("rtx3070-torch171-cu102-no-sm86", "1.7.1")
    assert "PyTorch 1.7 (cu110) needs the lowest driver: driver >= 455.23; run nvidia-smi" in plan.reasons[1]


def test_the_finding_names_the_same_build_and_the_driver_it_needs():
    (f,) = [f for f in _findings("a100-torch1101-cu102-no-sm80") if f.code == "framework-arch-unsupported"]
    text = f.remediation.summary
    assert "reinstall torch 1.10.1 (same version) as 1.10.1+cu111" in text
    assert "No NVIDIA driver was seen here" in text and "needs the lowest driver: driver >= 450.80.02" in text
    assert "No NVIDIA GPU or driver was seen" not in text


def test_the_newest_release_for_a_gpu_without_a_driver_is_its_lowest_cuda_variant():
    # Python 3.8: the newest torch for it is 2.4 (>=3.8,<3.13); its cu118, cu121 and cu124 all carry sm_80.
    plan = _plan("a100-torch1101-cu102-no-sm80")
    assert (plan.chosen.build.release, plan.chosen.build.variant) == ("2.4", "cu118")
    _, facts = _facts("a100-torch1101-cu102-no-sm80")
    assert newest_torch(facts, CTX) == ("2.4", "cu118")
    assert torch_variant_for(facts, CTX, "1.10.1") == "cu111"


def test_a_gpu_of_unknown_capability_without_a_driver_still_refuses():
    def mystery(snap):
        for d in snap["nvml"]["devices"]:
            d.pop("compute_capability")
            d["name"] = "NVIDIA Mystery Accelerator"

    host, facts = _facts("a100-torch1101-cu102-no-sm80", mystery)
    assert target_gaps(machine_from_facts(facts, CTX)) == ("no NVIDIA driver",)
    with pytest.raises(TargetNeeded):
        plan_install(facts, CTX, "torch", env=read_env(host, facts))
    assert framework_plan(facts, CTX, "torch", "1.10.1") == (None, "no-target")


def test_no_gpu_and_no_driver_refuses_in_the_check_helpers_too():
    # docker-started-without-gpus: no device nodes, no driver, torch 2.2.1+cu121 installed.
    _, facts = _facts("docker-started-without-gpus")
    assert torch_variant_for(facts, CTX, "2.2.1") is None
    assert newest_torch(facts, CTX) is None


# --- a driver known only by its CUDA version ---------------------------------------------------------------


@pytest.mark.parametrize(
    "have,cuda,ok,via",
    [
        ("12.4", "12.1", True, "full"),  # an older minor of the driver's CUDA: fully
        ("11.4", "11.8", True, "minor-version-compat"),  # 11.4's first driver 470.42.01 >= CUDA 11's floor 450.80.02
        ("11.0", "11.8", False, None),  # 11.0's GA driver 450.51.05 < 450.80.02: not every "11.0" driver runs 11.8
        ("11.4", "12.1", False, None),  # a newer major never
        ("11.0", "12.1", False, None),
    ],
)
def test_the_driver_cuda_verdict(have, cuda, ok, via):
    v = CTX.matrix.driver_cuda_supports_cuda(have, cuda)
    assert (v.ok, v.via) == (ok, via)
    assert v.source  # cited: cuda_driver.toml's rows


def test_the_driver_cuda_verdict_names_the_floors():
    v = CTX.matrix.driver_cuda_supports_cuda("11.0", "12.1")
    assert (v.floor, v.needed) == ("525.60.13", "530.30.02")  # CUDA 12's floor; 12.1 GA's toolkit driver


def test_a_driver_known_by_its_cuda_only_same_major_is_judged_and_offered_the_minor_compat_build():
    # gke without its driver version: CUDA 11.4 cannot run torch 2.1.0's cu121 (a newer major), but 2.1's
    # cu118 runs through CUDA 11 minor-version compatibility (11.4's drivers are all >= 450.80.02).
    (f,) = [f for f in _findings("gke-driver470-torch210-cu121", _no_driver_version) if f.code == "framework-driver-too-old"]
    assert f.title == "PyTorch 2.1.0+cu121 needs CUDA 12.1, which the driver (CUDA 11.4) cannot run"
    assert "None" not in f.title + f.detail
    assert "needs driver >= 525.60.13" in f.detail
    assert "as 2.1.0+cu118" in f.remediation.summary
    assert any("whl/cu118" in str(c) for c in f.remediation.commands)


def test_a_driver_known_by_its_cuda_only_lower_major_in_a_container_says_upgrade_the_hosts_driver():
    # yuan2: the driver reports CUDA 11.0, torch is a CUDA 12.1 build: CUDA 12's floor 525.60.13 is needed.
    (f,) = [f for f in _findings("yuan2-ngc-container-torch-cu121-driver-cuda110") if f.code == "framework-driver-too-old"]
    assert f.title.endswith("needs CUDA 12.1, which the driver (CUDA 11.0) cannot run")
    # The driver step first, on the host; no pip reinstall over the image's pre-release build (2.1.0a0).
    assert f.remediation.component == "driver" and f.remediation.where == "the host"
    assert f.remediation.summary.startswith(
        "Upgrade the host's NVIDIA driver to >= 525.60.13: a container runs on the host's driver"
    )
    assert not f.remediation.commands and f.remediation.alternative is None


def test_a_driver_cuda_at_or_above_the_builds_is_no_finding():
    def cuda_124(snap):
        _no_driver_version(snap)
        snap["nvml"]["cuda_driver_version"] = 12040

    assert not [f for f in _findings("gke-driver470-torch210-cu121", cuda_124) if f.code == "framework-driver-too-old"]


# --- a nightly PyTorch --------------------------------------------------------------------------------------


def test_dev_base():
    assert dev_base("2.7.0.dev20250310+cu124") == "2.7.0"
    assert dev_base("2.7.0") is None
    assert dev_base("2.1.0a0+32f93b1") is None  # a pre-release from source (NGC), not a nightly


def test_the_newest_release_build_of_a_variant_at_or_below_a_version():
    rel, v = CTX.matrix.torch_variant_at_or_below("2.7.0", "cu124")
    assert (rel.version, v.tag) == ("2.6", "cu124")  # 2.7 has no cu124; 2.6 does
    rel, v = CTX.matrix.torch_variant_at_or_below("2.7.0", "cu126")
    assert rel.version == "2.7"  # the nightly's own release when it has the variant
    assert CTX.matrix.torch_variant_at_or_below("2.7.0", "cu999") is None
    assert CTX.matrix.torch_variant_at_or_below("1.6.0", "cu102") is None  # the matrix starts at 1.7


def test_a_nightly_is_judged_by_its_variants_release_arch_list_and_says_so():
    found = [f for f in _findings("rtx5090x2-torch27-nightly-cu124-driver570") if f.code == "framework-arch-unsupported"]
    assert len(found) == 2  # both RTX 5090s (12.0); 2.6 cu124 stops at sm_90
    assert "judged by PyTorch 2.6's cu124 build" in found[0].detail


def test_a_nightly_whose_variant_has_the_gpus_kernels_is_no_finding():
    def cu128(snap):
        snap["python"]["distributions"]["torch"] = "2.7.0.dev20250310+cu128"

    # 2.7's cu128 carries sm_120 (torch.toml), so the RTX 5090 runs the nightly.
    assert not [
        f for f in _findings("rtx5090x2-torch27-nightly-cu124-driver570", cu128) if f.code == "framework-arch-unsupported"
    ]


def test_a_nightly_is_replaced_by_its_stable_release_never_pinned_on_a_stable_index():
    (f,) = [f for f in _findings("rtx5090x2-torch27-nightly-cu124-driver570") if f.code == "framework-arch-unsupported"][:1]
    text = f.remediation.summary
    # driver 570.124.06 runs CUDA 12.8; 2.7's cu128 has sm_120: the stable 2.7.0 of the nightly's version.
    assert "upgrade torch 2.7.0.dev20250310+cu124 -> 2.7.0+cu128" in text
    assert "a nightly (development) build -> a stable release (2.7.0, the nightly's own release)" in text
    argv = " ".join(str(c) for c in f.remediation.commands)
    assert ".dev" not in argv and "whl/cu128" in argv and "whl/cu124" not in argv


def test_the_way_back_from_a_nightly_uses_the_nightly_index():
    host, facts = _facts("rtx5090x2-torch27-nightly-cu124-driver570")
    plan = plan_install(facts, CTX, "torch", "2.7.0", env=read_env(host, facts))
    (undo,) = plan.undo
    assert undo.argv[-2:] == ("--index-url", "https://download.pytorch.org/whl/nightly/cu124")


# --- issue 27: the wrong choice when facts are missing (kind 5), no command where one is possible (kind 9) ---


def test_with_the_driver_unknown_an_rtx_50_gets_the_build_that_needs_the_lowest_driver():
    # Kind 5. A CI container without a GPU or driver (Python 3.11.7), the build asked for an RTX 50 (--gpu sm_120,
    # its driver unknown): the sm_120 builds are cu128 (2.7-2.11, CUDA 12: floor 525.60.13, but an RTX 50 needs
    # CUDA 12.8's driver 570.26 to run at all), cu129 (2.8) and cu130/cu132 (>= 580.65.06). The newest cu128
    # build is 2.11's (2.12+ dropped cu128; torch.toml), not 2.15's cu132; the plan names 570.26 and asks for
    # nvidia-smi.
    host, facts = _facts("ci-docker-cuda13-no-gpu")
    plan = plan_install(facts, CTX, "torch", env=read_env(host, facts), options=Options(target=Target(gpu="sm_120")))
    assert plan.machine.driver_cuda is None
    assert (plan.chosen.build.release, plan.chosen.build.variant) == ("2.11", "cu128")
    assert [s.argv[3:] for s in plan.steps] == [
        ("install", "torch==2.11.*", "--index-url", "https://download.pytorch.org/whl/cu128")
    ]
    assert any("needs the lowest driver: driver >= 570.26" in r and "run nvidia-smi" in r for r in plan.reasons)


def test_a_companion_built_for_a_cuda_variant_names_the_build_when_no_gpu_or_driver_is_seen():
    # Kind 9. torch 1.10.1+cpu beside torchvision 0.11.2+cu111, neither the GPU's capability nor a driver seen:
    # the companion says which build the environment was made with, so the same version is reinstalled as that
    # build (PyTorch 1.10 has cu111, torch.toml) instead of "cannot be chosen without guessing".
    def mystery_with_companion(snap):
        for d in snap["nvml"]["devices"]:
            d.pop("compute_capability")
            d["name"] = "NVIDIA Mystery Accelerator"
        snap["python"]["distributions"].update({"torch": "1.10.1+cpu", "torchvision": "0.11.2+cu111"})

    host, facts = _facts("a100-torch1101-cu102-no-sm80", mystery_with_companion)
    plan = plan_install(facts, CTX, "torch", "1.10.1", env=read_env(host, facts))
    assert (plan.chosen.build.release, plan.chosen.build.variant) == ("1.10", "cu111")
    assert [s.argv[3:] for s in plan.steps] == [
        # torchvision pinned to the release built for 1.10.1 (torch.toml's companion rows); the installed one is its
        # cu111 build already, so no tag (issue 32).
        ("install", "torch==1.10.1+cu111", "torchvision==0.11.2", "--index-url", "https://download.pytorch.org/whl/cu111")
    ]
    assert any("torchvision 0.11.2+cu111" in r for r in plan.reasons)
    assert framework_plan(facts, CTX, "torch", "1.10.1")[1] == "kept"


def test_a_release_asked_beside_its_nightly_pins_the_stable_patch_never_the_nightly():
    # pip keeps an installed 2.7.0.dev20250310+cu124 for torch==2.7.*, so the plan pins the stable 2.7.0 of the
    # build chosen (the stable index has no dev builds).
    def nightly(snap):
        snap["python"]["distributions"]["torch"] = "2.7.0.dev20250310+cu124"

    plan = _plan("rtx5070-torch-cu121-no-sm120", "2.7", change=nightly)
    assert plan.chosen.build.specs == (f"torch==2.7.0+{plan.chosen.build.variant}",)
