"""The install choice on replayed machines. Every expectation is written by hand from the matrix rows
(compat_matrix/*.toml) and the machine's captures; `why` says which rows decide it."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from gpudoctor.checks import Context
from gpudoctor.cmdline import render
from gpudoctor.errors import UsageError
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot
from gpudoctor.install.environment import read_env
from gpudoctor.matrix import kernel_route
from gpudoctor.planner.judge import judge_python
from gpudoctor.planner.plan import Options, newest_torch, plan_install, suggest_python, torch_variant_for
from gpudoctor.probes import run_probes
from tests.conftest import replay_host

ROOT = Path(__file__).resolve().parents[1]
MACHINES = ROOT / "machines"
INSTALL_MACHINES = ROOT / "install_machines"
CTX = Context()


def snapshot_path(slug: str) -> Path:
    path = MACHINES / slug / "snapshot.json"
    return path if path.exists() else INSTALL_MACHINES / slug / "snapshot.json"


def probe(slug: str, change=None):
    snap = json.loads(snapshot_path(slug).read_text(encoding="utf-8"))
    if change:
        change(snap)
    host = replay_host(snap)
    facts = run_probes(host)
    return host, facts


def plan_for(slug: str, framework: str, version: str | None = None, change=None, **options):
    host, facts = probe(slug, change)
    return plan_install(facts, CTX, framework, version, env=read_env(host, facts), options=Options(**options))


def texts(candidate) -> str:
    return " | ".join(j.text for j in candidate.judgements)


# --- the choice: (machine, framework, asked, release, variant, why) ---------------------------------

CHOICES = [
    # Old driver: 510.47.03 is branch R510 (CUDA 11.6). Every CUDA 12/13 variant needs at least the CUDA 12
    # minor-version floor 525.60.13; cu118 goes to 2.7 (2.8 dropped CUDA 11.8), runs by CUDA 11 minor-version
    # compatibility (floor 450.80.02) and carries sm_60 for the P100; Python 3.10 is inside 2.7's >=3.9,<3.14.
    ("p100-driver510-torch-cu121", "torch", None, "2.7", "cu118", "CUDA 12+ need >= 525.60.13; 2.7 is the last with cu118"),
    # The asked 2.2: cu121 needs >= 525.60.13 (12.x floor), cu118 runs by 11.x compatibility.
    ("p100-driver510-torch-cu121", "torch", "2.2", "2.2", "cu118", "cu121 needs >= 525.60.13"),
    # TensorFlow: 2.15-2.21 are tested with CUDA 12.2-12.5 (floor 525.60.13); 2.14 with CUDA 11.8 and [and-cuda].
    ("p100-driver510-torch-cu121", "tensorflow", None, "2.14", "and-cuda", "2.15+ need CUDA 12"),
    # JAX: every CUDA 12 build needs 525.60.13; the last row with a CUDA 11 build is 0.4.24 (0.4.26 dropped 11.8).
    ("p100-driver510-torch-cu121", "jax", None, "0.4.24", "cuda11", "CUDA 11 builds end before 0.4.26"),
    # New Blackwell GPU (RTX 5070, 12.0) on 575.64.03 (R575, CUDA 12.9), Python 3.10.12: 2.15 needs Python >= 3.11;
    # 2.12-2.14 offer cu130/cu132 (need >= 580.65.06) and cu126 (cubins up to sm_90, no PTX); 2.11's cu128 has
    # sm_120 and 575.64.03 >= 570.26 (CUDA 12.8 GA).
    ("rtx5070-torch-cu121-no-sm120", "torch", None, "2.11", "cu128", "sm_120 only in cu128+; CUDA 13 needs 580"),
    # TensorFlow has no sm_120 cubin; 2.21 ships compute_90 PTX, and 575.64.03 runs its CUDA 12.5 fully (>= 555.42.02),
    # so the driver can JIT it. Python 3.10 is inside 2.21's >=3.10,<3.14.
    ("rtx5070-torch-cu121-no-sm120", "tensorflow", None, "2.21", "and-cuda", "PTX JIT with full driver support"),
    # JAX 0.7+ need Python >= 3.11; the 0.6.0 row's CUDA 12 build has sm_120 cubins.
    ("rtx5070-torch-cu121-no-sm120", "jax", None, "0.6.0", "cuda12", "Python 3.10 stops at 0.6.x"),
    # Old Pascal GPU (Quadro P2000, 6.1) on 525.125.06 (CUDA 12.0), no Python recorded: 2.15 has only cu132
    # (sm_75+, needs 580.65.06); 2.14's cu130/cu132 need 580.65.06 and lack Pascal; cu126 has sm_60 (runs on 6.1)
    # and runs by CUDA 12 compatibility (525.125.06 >= 525.60.13).
    ("quadro-p2000-driver525-cuda13-toolkit", "torch", None, "2.14", "cu126", "cu126 is the last with sm_60"),
    # Pascal GT 1030 (6.1) on 470.74 (R470, CUDA 11.4): no CUDA 12 (floor 525.60.13), so 2.7 cu118 by 11.x compat.
    ("gt1030-desktop-memory-held", "torch", None, "2.7", "cu118", "CUDA 11 compat only"),
    # CPU-only build present (torch 2.13.0+cpu) on 515.65.01 (R515, CUDA 11.7): like the P100, only cu118 runs, so
    # 2.7; Python 3.11.7 is inside >=3.9,<3.14.
    ("rtx3060-laptop-torch-cpu-build", "torch", None, "2.7", "cu118", "driver 515: CUDA 11 only"),
    # TensorFlow on a CUDA-12-only system (driver 570.124.04, CUDA 12.8 libraries only): 2.21 brings its CUDA 12
    # libraries ([and-cuda]); CUDA 12.5 <= 12.8 (570.124.04 >= 555.42.02); sm_80 cubins run on the RTX 3060 (8.6).
    ("rtx3060-tf211-cuda12-only", "tensorflow", None, "2.21", "and-cuda", "and-cuda brings CUDA 12 libraries"),
    # Python 3.13.1 (uv venv) on 595.84 (CUDA 13.2): 2.15 (>=3.11,<3.16) cu132 needs 595.45.04, has sm_86 for Ada 8.9.
    ("rtx4000ada-driver595-py313-uv", "torch", None, "2.15", "cu132", "fully supported CUDA 13.2"),
    # JAX 0.12.0 (Python >= 3.12): CUDA 13 (driver 580.65.06 floor) preferred; its arch list is assumed from 0.11.0.
    ("rtx4000ada-driver595-py313-uv", "jax", None, "0.12.0", "cuda13", "newest major the driver runs"),
    # conda env, RTX 3090 on 525.147.05: like the P2000, 2.14 cu126 by CUDA 12 compatibility; Python 3.10.14.
    ("rtx3090-driver525-conda-py310", "torch", None, "2.14", "cu126", "CUDA 12 compat, 13 needs 580"),
]


@pytest.mark.parametrize("slug,framework,version,release,variant,why", CHOICES, ids=[f"{c[0]}-{c[1]}-{c[2]}" for c in CHOICES])
def test_the_choice(slug, framework, version, release, variant, why):
    plan = plan_for(slug, framework, version)
    assert plan.chosen is not None, why
    assert (plan.chosen.build.release, plan.chosen.build.variant) == (release, variant), why


# --- old driver ----------------------------------------------------------------------------------


def test_old_driver_says_why_and_which_driver_opens_newer_builds():
    plan = plan_for("p100-driver510-torch-cu121", "torch")
    said = texts(plan.chosen)
    assert (
        "CUDA 11.8 runs only through CUDA 11 minor-version compatibility (>= 450.80.02); full support needs >= 520.61.05" in said
    )
    # The newest build ruled out first: 2.15 for Python, the driver and Pascal, each reason said.
    first = plan.ruled_out[0]
    assert first.build.label == "PyTorch 2.15 (cu132)"
    assert [j.topic for j in first.failures()] == ["python", "driver", "gpu"]
    # 2.14's cu126 is the newest with sm_60 (2.15 has cu132 only): the smallest upgrade that opens a newer one.
    assert plan.upgrade == ("a driver >= 525.60.13 (>= 560.28.03 for full CUDA 12.6 support) would open PyTorch 2.14 (cu126)",)
    assert "sm_60 kernels were last shipped in PyTorch 2.14 (cu126); newer PyTorch releases dropped Pascal" in plan.reasons
    # torch 2.2.1+cu121 is installed: the one command a person types; pip fetches everything before it replaces
    # the old build, and puts it back if the install fails (gpudoctor.planner.commands).
    assert [s.argv for s in plan.steps] == [
        ("/usr/bin/python3", "-m", "pip", "install", "torch==2.7.*", "--index-url", "https://download.pytorch.org/whl/cu118"),
    ]
    assert tuple(render(u) for u in plan.undo) == (
        "/usr/bin/python3 -m pip install torch==2.2.1+cu121 --index-url https://download.pytorch.org/whl/cu121",
    )


def test_an_exact_version_is_pinned_with_its_variant():
    plan = plan_for("p100-driver510-torch-cu121", "torch", "2.2.1")
    assert plan.chosen.build.specs == ("torch==2.2.1+cu118",)
    assert [c.build.variant for c in plan.ruled_out] == ["cu121"]
    assert "needs driver >= 525.60.13 for CUDA 12.1 (>= 530.30.02 for full support)" in texts(plan.ruled_out[0])


def test_old_driver_jax_takes_the_cuda11_jaxlib_route_with_its_find_links():
    plan = plan_for("p100-driver510-torch-cu121", "jax")
    assert plan.chosen.build.specs == ("jax[cuda11_pip]>=0.4.24,<0.4.26",)
    assert plan.steps[0].argv[-2:] == ("--find-links", "https://storage.googleapis.com/jax-releases/jax_cuda_releases.html")


# --- new Blackwell GPU ------------------------------------------------------------------------------


def test_blackwell_says_when_its_kernels_first_shipped_and_why_newer_builds_do_not_fit():
    plan = plan_for("rtx5070-torch-cu121-no-sm120", "torch")
    assert "NVIDIA GeForce RTX 5070 needs kernels for sm_120, first shipped in PyTorch 2.7 (cu128)" in plan.reasons
    ruled = {c.build.label: [j.topic for j in c.failures()] for c in plan.ruled_out}
    assert ruled["PyTorch 2.15 (cu132)"] == ["python", "driver"]
    assert ruled["PyTorch 2.14 (cu130)"] == ["driver"]
    assert ruled["PyTorch 2.14 (cu126)"] == ["gpu"]  # cubins sm_50..sm_90, no PTX
    assert ruled["PyTorch 2.11 (cu126)"] == ["gpu"]
    # 2.14 cu130 needs 580.65.06 (CUDA 13.0 GA, also the 13.x floor); cu132 would need 595.45.04 for full support.
    assert plan.upgrade == ("a driver >= 580.65.06 would open PyTorch 2.14 (cu130)",)


def test_blackwell_asked_for_an_old_release_gets_no_plan_and_the_newest_that_fits():
    plan = plan_for("rtx5070-torch-cu121-no-sm120", "torch", "2.2")
    assert plan.chosen is None and plan.steps == ()
    assert all(j.topic == "gpu" for c in plan.ruled_out for j in c.failures())  # both 2.2 builds stop at sm_90
    assert plan.instead.build.label == "PyTorch 2.11 (cu128)"


def test_blackwell_tensorflow_runs_from_ptx_and_says_so():
    plan = plan_for("rtx5070-torch-cu121-no-sm120", "tensorflow")
    assert "the driver JIT-compiles its compute_90 PTX" in texts(plan.chosen)
    assert (
        "no TensorFlow build carries sm_120 cubins: on NVIDIA GeForce RTX 5070 it runs from PTX the driver compiles"
        in plan.reasons
    )


# --- old Pascal GPU ---------------------------------------------------------------------------------


def test_pascal_asked_for_a_release_without_pascal_kernels():
    plan = plan_for("quadro-p2000-driver525-cuda13-toolkit", "torch", "2.15")
    assert plan.chosen is None
    (only,) = plan.ruled_out
    assert (
        "no kernels for GPU 0 Quadro P2000 (sm_61, Pascal): the build carries sm_75, sm_80, sm_86, sm_90, sm_100, sm_120, no PTX"
        in texts(only)
    )
    assert plan.instead.build.label == "PyTorch 2.14 (cu126)"


def test_pascal_without_a_recorded_python_plans_with_a_placeholder_and_says_so():
    plan = plan_for("quadro-p2000-driver525-cuda13-toolkit", "torch")
    assert plan.chosen.judgements[0].note and "was not checked" in plan.chosen.judgements[0].text
    assert plan.steps[-1].argv[0] == "python3"
    assert any("no Python environment was seen" in n for n in plan.notes)


def _k80(snap):
    # The GT 1030 capture (driver 470.74, R470: the last branch for Kepler) named as a Tesla K80 (3.7).
    snap["commands"]["nvidia-smi -q -x"]["stdout"] = snap["commands"]["nvidia-smi -q -x"]["stdout"].replace(
        "NVIDIA GeForce GT 1030", "Tesla K80"
    )
    snap["python"] = {
        "version": "3.10.12",
        "executable": "/usr/bin/python3",
        "site_packages": ["/usr/lib/python3/dist-packages"],
        "distributions": {},
    }


def test_kepler_and_a_recent_pytorch():
    # sm_37 is in cu118 only, which ends with 2.7 (2.8 dropped CUDA 11.8; CUDA 12 cannot target Kepler).
    plan = plan_for("gt1030-desktop-memory-held", "torch", change=_k80)
    assert plan.chosen.build.label == "PyTorch 2.7 (cu118)"
    assert "sm_37 kernels were last shipped in PyTorch 2.7 (cu118); newer PyTorch releases dropped Kepler" in plan.reasons
    recent = plan_for("gt1030-desktop-memory-held", "torch", "2.8", change=_k80)
    assert recent.chosen is None and recent.instead.build.label == "PyTorch 2.7 (cu118)"
    assert all({j.topic for j in c.failures()} == {"driver", "gpu"} for c in recent.ruled_out)
    assert recent.upgrade == ()  # no driver opens a newer build for sm_37


# --- CPU-only build present ---------------------------------------------------------------------------


def test_cpu_build_is_replaced_and_its_own_release_needs_a_newer_driver():
    plan = plan_for("rtx3060-laptop-torch-cpu-build", "torch")
    # Replaced in one step, never removed first: 2.7 is not the installed 2.13, so the range replaces the CPU build.
    assert [s.argv[3:] for s in plan.steps] == [
        ("install", "torch==2.7.*", "--index-url", "https://download.pytorch.org/whl/cu118")
    ]
    assert tuple(render(u) for u in plan.undo) == (
        "/usr/bin/python3 -m pip install torch==2.13.0+cpu --index-url https://download.pytorch.org/whl/cpu",
    )
    same = plan_for("rtx3060-laptop-torch-cpu-build", "torch", "2.13")
    assert same.chosen is None
    # 2.13's cheapest fitting build is cu126: the CUDA 12 floor opens it (560.28.03 for full 12.6 support).
    assert same.upgrade == ("a driver >= 525.60.13 (>= 560.28.03 for full CUDA 12.6 support) would open PyTorch 2.13 (cu126)",)
    assert same.instead.build.label == "PyTorch 2.7 (cu118)"


# --- TensorFlow on a CUDA-12-only system ------------------------------------------------------------------


def test_tensorflow_211_on_cuda12_only_needs_cuda11_libraries_by_hand():
    plan = plan_for("rtx3060-tf211-cuda12-only", "tensorflow", "2.11")
    # 2.11 is installed already, and has no [and-cuda]: it dlopen()s CUDA 11 sonames the system lacks.
    assert plan.already and plan.steps == ()
    libs = next(j for j in plan.chosen.judgements if j.topic == "libraries")
    assert libs.note and "libcudart.so.11.0" in libs.text and "libcudnn.so.8" in libs.text
    assert "  sudo apt-get install -y cuda-libraries-11-2" in plan.manual


def test_tensorflow_newest_on_cuda12_only_brings_its_libraries_and_keeps_the_distribution():
    plan = plan_for("rtx3060-tf211-cuda12-only", "tensorflow")
    assert [s.argv for s in plan.steps] == [("/usr/bin/python3", "-m", "pip", "install", "tensorflow[and-cuda]==2.21.*")]
    assert tuple(render(u) for u in plan.undo) == ("/usr/bin/python3 -m pip install tensorflow==2.11.0",)


def test_tensorflow_cpu_is_uninstalled_before_the_cuda_package():
    def cpu(snap):
        snap["python"]["distributions"] = {"tensorflow-cpu": "2.21.0"}

    plan = plan_for("rtx3060-tf211-cuda12-only", "tensorflow", change=cpu)
    # Only after a dry run resolved and fetched the new build, right before the install (tensorflow-cpu and
    # tensorflow share one package directory).
    assert [s.argv[3:5] for s in plan.steps] == [
        ("install", "--dry-run"),
        ("uninstall", "-y"),
        ("install", "tensorflow[and-cuda]==2.21.*"),
    ]
    assert plan.steps[1].argv == ("/usr/bin/python3", "-m", "pip", "uninstall", "-y", "tensorflow-cpu")


# --- Python too new for the asked version -------------------------------------------------------------------


def test_python_too_new_for_the_asked_tensorflow():
    plan = plan_for("rtx4000ada-driver595-py313-uv", "tensorflow", "2.15")
    assert plan.chosen is None
    assert [j.text for c in plan.ruled_out for j in c.failures()] == ["supports Python >=3.9,<3.12, not 3.13.1"]
    assert plan.instead.build.label == "TensorFlow 2.21 (and-cuda)"  # 2.21: >=3.10,<3.14
    assert plan.upgrade == (
        "an environment with Python 3.11 would open TensorFlow 2.15 (and-cuda) (it supports Python >=3.9,<3.12)",
    )


def test_python_too_new_for_the_asked_pytorch():
    plan = plan_for("rtx4000ada-driver595-py313-uv", "torch", "2.4")
    assert plan.chosen is None and plan.instead.build.label == "PyTorch 2.15 (cu132)"
    # 2.4 lists no experimental Python 3.13; with 3.12 its PyPI default, cu121, would be the pick.
    assert plan.upgrade == ("an environment with Python 3.12 would open PyTorch 2.4 (cu121) (it supports Python >=3.8,<3.13)",)


def test_an_experimental_python_fits_with_a_note():
    def py313(snap):
        snap["python"]["version"] = "3.13.1"

    plan = plan_for("rtx4090-nvcc118-torch-cu121", "torch", "2.5", change=py313)  # 2.5: >=3.9,<3.13, 3.13 experimental
    python = next(j for j in plan.chosen.judgements if j.topic == "python")
    assert python.ok and python.note and python.text == "PyTorch 2.5 supports Python 3.13 only experimentally"


# --- environments: uv, conda ------------------------------------------------------------------------------


def test_a_uv_environment_without_pip_installs_with_uv():
    plan = plan_for("rtx4000ada-driver595-py313-uv", "torch")
    assert plan.installer == "uv"
    # One uv command: uv fetches every distribution before it replaces anything (nothing to remove first, so no dry run).
    uv, py = ("/home/user/.local/bin/uv", "pip", "install"), ("--python", "/home/user/proj/.venv/bin/python")
    assert [s.argv for s in plan.steps] == [(*uv, *py, "torch==2.15.*", "--index-url", "https://download.pytorch.org/whl/cu132")]
    assert plan.equivalents == ()  # no pip in that environment to offer instead


def test_a_uv_made_environment_with_pip_installs_with_pip_and_prints_the_uv_equivalent():
    def with_pip(snap):
        snap["python"]["distributions"]["pip"] = "24.3.1"

    plan = plan_for("rtx4000ada-driver595-py313-uv", "torch", change=with_pip)
    assert plan.installer == "pip" and plan.steps[0].argv[:3] == ("/home/user/proj/.venv/bin/python", "-m", "pip")
    assert plan.equivalents[0][0] == "uv" and plan.equivalents[0][1][0][:3] == ("/home/user/.local/bin/uv", "pip", "install")


def test_uv_must_be_on_path_for_the_environment_to_count_as_uv_managed():
    def no_uv(snap):
        del snap["files"]["/home/user/.local/bin/uv"]

    plan = plan_for("rtx4000ada-driver595-py313-uv", "torch", change=no_uv)
    assert plan.installer == "pip" and plan.machine.env.uv is None


def test_a_conda_environment_gets_pip_and_the_conda_equivalent_printed():
    plan = plan_for("rtx3090-driver525-conda-py310", "torch")
    assert plan.steps[0].argv == (
        "/home/user/miniconda3/envs/ml/bin/python",
        "-m",
        "pip",
        "install",
        "torch==2.14.*",
        "--index-url",
        "https://download.pytorch.org/whl/cu126",
    )
    assert plan.equivalents == (
        ("conda", (("conda", "install", "-p", "/home/user/miniconda3/envs/ml", "-c", "conda-forge", "pytorch=2.14=cuda*"),)),
    )
    # Up to 2.5 the pytorch channel's pytorch-cuda metapackage is the conda way. (525.147.05 runs CUDA 11.8
    # fully, >= 520.61.05, but 12.1/12.4 only by compatibility: full support outranks the PyPI default cu124.)
    old = plan_for("rtx3090-driver525-conda-py310", "torch", "2.5")
    assert old.chosen.build.variant == "cu118"
    assert old.equivalents[0][1][0][-6:] == ("pytorch=2.5", "pytorch-cuda=11.8", "-c", "pytorch", "-c", "nvidia")


# --- options, requests, companions ---------------------------------------------------------------------------


def test_a_mirror_index_and_extra_arguments():
    plan = plan_for(
        "rtx3090-driver525-conda-py310", "torch", index_url="https://mirror.example/pytorch/{variant}", extra_args=("--no-deps",)
    )
    assert [s.argv[-3:] for s in plan.steps] == [("--index-url", "https://mirror.example/pytorch/cu126", "--no-deps")]


def test_torchvision_and_torchaudio_go_with_torch():
    def companions(snap):
        snap["python"]["distributions"].update({"torchvision": "0.17.1+cu121", "torchaudio": "2.2.1+cu121"})

    plan = plan_for("p100-driver510-torch-cu121", "torch", change=companions)
    # Issue 27, kind 4: one command, torch at the newest 2.7 patch the companion table knows and each companion
    # at its release built for it (compat_matrix/torch.toml: torchvision 0.22.1 and torchaudio 2.7.1 for 2.7.1).
    assert [s.argv[3:] for s in plan.steps] == [
        (
            "install",
            "torch==2.7.1+cu118",
            "torchvision==0.22.1",
            "torchaudio==2.7.1",
            "--index-url",
            "https://download.pytorch.org/whl/cu118",
        )
    ]
    assert tuple(render(u) for u in plan.undo) == (
        "/usr/bin/python3 -m pip install torch==2.2.1+cu121 torchvision==0.17.1+cu121 torchaudio==2.2.1+cu121 "
        "--index-url https://download.pytorch.org/whl/cu121",
    )


def test_the_installed_build_is_nothing_to_do_unless_reinstall():
    plan = plan_for("p100-driver510-torch-cu121", "torch", "2.2.1+cu121", change=_new_driver)
    assert plan.already and plan.steps == ()
    again = plan_for("p100-driver510-torch-cu121", "torch", "2.2.1+cu121", change=_new_driver, reinstall=True)
    # The same version again: --force-reinstall --no-deps of it, alone (a plain install would keep what is installed).
    assert not again.already and [s.argv[3:6] for s in again.steps] == [("install", "--force-reinstall", "--no-deps")]
    assert again.steps[0].argv[6] == "torch==2.2.1+cu121"


def test_a_reinstall_after_a_removal_brings_it_back_before_the_forced_install():
    # Over the same build with a distribution removed first (a +cuda jaxlib the extra brings again): the plain
    # install restores it, then --force-reinstall --no-deps puts the same build's files back; nothing removed
    # before the dry run resolved its replacement.
    from gpudoctor.planner.commands import replace_steps
    from gpudoctor.planner.model import TargetEnv

    env = TargetEnv("/srv/env/bin/python", "3.10.12", "venv")
    steps = replace_steps("pip", env, ("jax[cuda12]==0.4.30",), ("jax", "jaxlib"), label="JAX", reinstall=True)
    assert [s.argv[3:5] for s in steps] == [
        ("install", "--dry-run"),
        ("uninstall", "-y"),
        ("install", "jax[cuda12]==0.4.30"),
        ("install", "--force-reinstall"),
    ]
    alone = replace_steps("pip", env, ("jax[cuda12]==0.4.30",), ("jax",), label="JAX", reinstall=True)
    assert [s.argv[3:] for s in alone] == [("install", "--force-reinstall", "--no-deps", "jax[cuda12]==0.4.30")]


def _new_driver(snap):
    # The P100 capture with a driver that runs CUDA 12.1 fully (530.30.02 is its toolkit driver).
    snap["commands"]["nvidia-smi -q -x"]["stdout"] = snap["commands"]["nvidia-smi -q -x"]["stdout"].replace(
        "510.47.03", "535.104.05"
    )


@pytest.mark.parametrize(
    "framework,bad",
    [("torch", "2"), ("torch", "3.0"), ("torch", "2.2+cu999"), ("tensorflow", "2.99"), ("jax", "0.3.1"), ("jax", "latest")],
)
def test_a_version_that_is_not_one_or_not_in_the_matrix_is_a_usage_error(framework, bad):
    with pytest.raises(UsageError):
        plan_for("rtx3090-driver525-conda-py310", framework, bad)


def test_a_jax_series_installs_the_range_of_the_row_in_force():
    # 0.5.x has no row of its own: the 0.4.31 row applies to it.
    plan = plan_for("rtx4090-jax-cpu-only", "jax", "0.5")
    assert plan.chosen.build.specs == ("jax[cuda12]>=0.5.0,<0.6.0",) and plan.chosen.build.release == "0.4.31"
    exact = plan_for("rtx4090-jax-cpu-only", "jax", "0.4.38")
    assert exact.chosen.build.specs == ("jax[cuda12]==0.4.38",)


def test_jax_plugins_of_another_major_are_removed_first():
    def cu13(snap):
        snap["python"]["version"] = "3.12.8"
        snap["python"]["distributions"].update({"jax-cuda13-plugin": "0.7.2", "jax-cuda13-pjrt": "0.7.2"})

    plan = plan_for("rtx4090-jax-cpu-only", "jax", change=cu13)  # driver 535: CUDA 13 needs 580.65.06, so cuda12
    assert plan.chosen.build.variant == "cuda12"
    assert plan.steps[1].argv[-2:] == ("jax-cuda13-plugin", "jax-cuda13-pjrt") and plan.steps[1].argv[3] == "uninstall"


def test_windows_has_no_jax_and_no_tensorflow_gpu_after_210():
    jax = plan_for("windows-rtx3080-tensorflow215", "jax")
    assert jax.chosen is None and jax.instead is None
    tf = plan_for("windows-rtx3080-tensorflow215", "tensorflow")
    assert tf.chosen is None
    # 2.10 is the last native-Windows GPU release; it needs Python < 3.11 (this one is 3.11.7).
    assert tf.upgrade == (
        "an environment with Python 3.10 would open TensorFlow 2.10 (system CUDA) (it supports Python >=3.7,<3.11)",
    )


# --- the rules themselves -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "arch,ptx,cc,route",
    [
        (("8.0",), (), "8.6", ("cubin", "8.0")),  # same major, lower minor
        (("8.6",), (), "8.0", ("none", None)),  # a higher minor does not run on a lower one
        (("9.0",), (), "10.0", ("none", None)),  # nor across majors
        (("8.0",), ("9.0",), "12.0", ("ptx", "9.0")),  # PTX at or below the GPU's capability
        (("8.0",), ("9.0",), "8.6", ("cubin", "8.0")),
        ((), (), "8.6", ("unknown", None)),
    ],
)
def test_kernel_routes(arch, ptx, cc, route):
    assert kernel_route(arch, ptx, cc) == route


def test_a_free_threaded_experimental_python_does_not_count():
    from gpudoctor.planner.model import Machine, TargetEnv

    m = Machine("linux", "x86_64", None, None, (), TargetEnv("/p", "3.13.1"))
    assert not judge_python(m, ">=3.9,<3.13", ("3.13t",), "PyTorch 2.6").ok


@pytest.mark.parametrize(
    "spec,python", [(">=3.9,<3.12", "3.11"), (">=3.12", "3.12"), (">=3.7,<3.11", "3.10"), (">=2.7,!=3.0.*,<3.8", "3.7")]
)
def test_suggested_python(spec, python):
    assert suggest_python(spec) == python


# --- the helpers the framework checks use for their reinstall commands -----------------------------------------


def test_check_helpers_follow_the_plan():
    _, facts = probe("p100-driver510-torch-cu121")
    assert torch_variant_for(facts, CTX, "2.2.1+cu121") == "cu118"
    assert newest_torch(facts, CTX) == ("2.7", "cu118")
    _, blackwell = probe("rtx5070-torch-cu121-no-sm120")
    assert torch_variant_for(blackwell, CTX, "2.2.1") is None  # no 2.2 build has sm_120
    assert newest_torch(blackwell, CTX) == ("2.11", "cu128")


def test_the_plan_as_json_keeps_every_ruled_out_build():
    plan = plan_for("rtx5070-torch-cu121-no-sm120", "torch")
    doc = plan.to_json()
    assert doc["chosen"]["variant"] == "cu128" and doc["fits"] is True
    assert len(doc["ruled_out"]) == len(plan.ruled_out)
    assert doc["steps"][0]["argv"][-1] == "https://download.pytorch.org/whl/cu128"
    json.dumps(doc)


def test_install_machine_snapshots_are_assembled_from_their_machine_toml():
    from tests.machines.assemble import assemble

    for machine in sorted(INSTALL_MACHINES.glob("*/machine.toml")):
        assert (machine.parent / "snapshot.json").read_text(encoding="utf-8") == assemble(machine.parent), machine.parent.name


def test_replay_hosts_answer_the_uv_question_from_the_snapshot():
    host = ReplayHost(load_snapshot(str(snapshot_path("rtx4000ada-driver595-py313-uv"))))
    facts = run_probes(host)
    env = read_env(host, facts)
    assert env.uv == "/home/user/.local/bin/uv" and env.kind == "venv" and not env.has_pip
    assert replace(env, uv=None).describe() == "Python 3.13.1 at /home/user/proj/.venv/bin/python (venv)"


# --- gpudoctor fix: which findings get which automatic fix ----------------------------------------------------


def fixes_for(slug: str, change=None, **kw):
    from gpudoctor.checks import run_checks
    from gpudoctor.install.fix import propose

    host, facts = probe(slug, change)
    findings, _ = run_checks(facts, ctx=CTX)
    return propose(facts, findings, CTX, env=read_env(host, facts), **kw)


def test_fix_reinstalls_the_cpu_build_with_the_newest_build_when_its_own_release_cannot_run():
    (fix,) = fixes_for("rtx3060-laptop-torch-cpu-build")
    # 2.13.0 has no build for driver 515 (CUDA 12/13 only): the newest that fits, 2.7 cu118.
    assert (fix.kind, fix.title, fix.codes, fix.blocked) == (
        "reinstall",
        "reinstall PyTorch 2.7 (cu118)",
        ("framework-cpu-build",),
        None,
    )


def test_fix_keeps_the_installed_release_when_a_build_of_it_fits():
    fixes = fixes_for("p100-driver510-torch-cu121")
    (fix,) = [f for f in fixes if f.kind == "reinstall"]
    assert fix.title == "reinstall PyTorch 2.2 (cu118)" and "framework-driver-too-old" in fix.codes
    assert fix.payload.steps[-1].argv[4] == "torch==2.2.1+cu118"  # 2.2.1 kept, the variant changed


def test_fix_reinstalls_jax_at_its_version_to_match_the_plugin():
    (fix,) = fixes_for("rtx4090-jax-plugin-mismatch")
    assert fix.codes == ("jax-plugin-mismatch",)
    assert [s.argv[3:] for s in fix.payload.steps] == [("install", "jax[cuda12]==0.4.38")]


def test_fix_switches_the_toolkit_behind_the_link_to_one_the_driver_and_gpu_take():
    (fix,) = fixes_for("quadro-p2000-cuda13-active-cuda118-installed")
    # 13.0 is newer than the driver's 12.0 and cannot build for sm_61; 11.8 can, and 11.8 <= 12.0.
    assert fix.kind == "switch-cuda" and fix.codes == ("toolkit-newer-than-driver", "toolkit-arch-unsupported")
    assert fix.payload.target.root == "/usr/local/cuda-11.8"
    assert fix.blocked == "changing /usr/local/cuda needs root"  # a snapshot is never root
    (as_root,) = fixes_for("quadro-p2000-cuda13-active-cuda118-installed", is_root=True)
    assert as_root.blocked is None and as_root.payload.method == "rename"


def test_fix_does_not_switch_the_link_when_another_nvcc_on_path_is_the_active_one():
    # rtx4090-toolkit-paths-disagree: the active 12.5 is the nvcc on PATH (/usr/local/cuda-12.5/bin), not the link,
    # so re-pointing the link answers only the dangling link. Its target is the one the findings print
    # (checks.toolkit.toolkit_target): 12.5, of torch cu121's major and run by driver 535 through minor
    # version compatibility; 11.8 would leave torch's extensions with a CUDA 11 nvcc.
    (fix,) = fixes_for("rtx4090-toolkit-paths-disagree")
    assert fix.kind == "switch-cuda" and fix.codes == ("cuda-link-dangling",)
    assert fix.payload.target.root == "/usr/local/cuda-12.5"


def _jax_on_the_gt1030(snap):
    snap["python"] = {
        "version": "3.10.12",
        "executable": "/usr/bin/python3",
        "site_packages": ["/usr/lib/python3/dist-packages"],
        "distributions": {"jax": "0.4.38", "jaxlib": "0.4.38", "jax-cuda12-plugin": "0.4.38", "jax-cuda12-pjrt": "0.4.38"},
    }


def test_fix_sets_jax_to_allocate_on_demand_on_a_gpu_others_hold_in_the_file_named():
    fixes = [f for f in fixes_for("gt1030-desktop-memory-held", _jax_on_the_gt1030) if f.kind == "env"]
    (unnamed,) = fixes
    assert unnamed.blocked == "no file named to write it to"
    assert "export XLA_PYTHON_CLIENT_PREALLOCATE=false" in unnamed.manual[0]
    (named,) = [
        f for f in fixes_for("gt1030-desktop-memory-held", _jax_on_the_gt1030, env_file="/home/u/.bashrc") if f.kind == "env"
    ]
    assert named.blocked is None and (named.payload.name, named.payload.value) == ("XLA_PYTHON_CLIENT_PREALLOCATE", "false")


def test_fix_takes_no_allocator_variable_the_environment_sets_already():
    def set_already(snap):
        _jax_on_the_gt1030(snap)
        snap.setdefault("env", {})["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"

    assert [f for f in fixes_for("gt1030-desktop-memory-held", set_already, env_file="/x/.env") if f.kind == "env"] == []


def test_the_preallocation_variables_are_the_matrix_controls():
    from gpudoctor.install.fix import PREALLOCATION_OFF

    frameworks = {"jax": "jax", "tensorflow": "tensorflow"}
    for fw, (name, value) in PREALLOCATION_OFF.items():
        control = CTX.matrix.memory_setting(frameworks[fw]).control(name)
        assert control is not None and control.kind == "env" and value in control.values


def test_fix_has_nothing_for_a_machine_without_a_driver():
    assert fixes_for("rtx3080-no-driver") == []


def test_the_three_kernel_questions_share_one_rule():
    """The checks' list form, the matrix records and the installer answer alike (gpudoctor.matrix.kernel_route)."""
    from gpudoctor.checks.frameworks import runs_on
    from gpudoctor.matrix import load_matrix

    variant = load_matrix().torch_variant("2.2.1", "cu121")
    for cc in ("6.1", "8.6", "9.0", "12.0"):
        route, _ = kernel_route(variant.arch, variant.ptx, cc)
        assert variant.runs_on(cc) is runs_on(variant.arch + variant.ptx, cc) is (route != "none"), cc


# --- issue 27: every pin real (kind 3), the framework never moves alone (kind 4) -------------------------------


def test_tensorflow_2150_with_its_cuda_libraries_is_the_post1_release_whose_extra_resolves():
    # Kind 3. tensorflow[and-cuda]==2.15.0 cannot resolve (its extra pins tensorrt==8.6.1.post1, which the
    # package index does not serve); 2.15.0.post1 resolves (tests/install_pins/pins-checked.txt).
    plan = plan_for("rtx3060-tf211-cuda12-only", "tensorflow", "2.15.0")
    assert [s.argv[3:] for s in plan.steps] == [("install", "tensorflow[and-cuda]==2.15.0.post1", "numpy<2")]
    series = plan_for("rtx3060-tf211-cuda12-only", "tensorflow", "2.15")
    assert [s.argv[3:] for s in series.steps] == [("install", "tensorflow[and-cuda]==2.15.*", "numpy<2")]


def test_tensorflow_before_218_is_installed_with_numpy_1():
    # Kind 4. TensorFlow 2.18 is the first release built against NumPy 2; 2.10's own requirement is only
    # numpy>=1.20, so pip would pair it with numpy 2 (pins-checked.txt). 2.18+ goes alone.
    old = plan_for("rtx3060-tf211-cuda12-only", "tensorflow", "2.14")
    assert old.steps[-1].argv[4:] == ("tensorflow[and-cuda]==2.14.*", "numpy<2")
    new = plan_for("rtx3060-tf211-cuda12-only", "tensorflow", "2.18")
    assert new.steps[-1].argv[4:] == ("tensorflow[and-cuda]==2.18.*",)


def test_a_build_switch_of_the_same_version_pins_torch_and_its_companions_with_the_new_tag():
    # Kind 10. torch 2.5.1+cu121 with torchvision 0.20.1+cu121 and torchaudio 2.5.1+cu121 on driver 510 (CUDA
    # 11.6): 2.5's cu118 is asked. pip keeps an installed 2.5.1+cu121 for torch==2.5.*, so the installed
    # version is pinned with the new tag, and each companion (same version) with it too: one command.
    def cu121(snap):
        snap["python"]["distributions"].update(
            {"torch": "2.5.1+cu121", "torchvision": "0.20.1+cu121", "torchaudio": "2.5.1+cu121"}
        )

    plan = plan_for("p100-driver510-torch-cu121", "torch", "2.5", change=cu121)
    assert [s.argv[3:] for s in plan.steps] == [
        (
            "install",
            "torch==2.5.1+cu118",
            "torchvision==0.20.1+cu118",
            "torchaudio==2.5.1+cu118",
            "--index-url",
            "https://download.pytorch.org/whl/cu118",
        )
    ]


def test_no_cu102_build_is_offered_on_windows_after_torch_110():
    # Kind 3. PyTorch stopped building CUDA 10.2 for Windows after 1.10 (pytorch/pytorch PR 65649; the 1.11
    # install matrix: "There are no CUDA-10.2 binaries on Windows", pytorch.github.io PR 959). A Pascal GPU
    # (sm_61) on a driver that runs CUDA 10.2: 1.12's cu102 would fit on Linux, not on Windows; 1.10's does.
    from gpudoctor.planner.model import Target

    told = Target(gpu="6.1", cuda="10.2")
    plan = plan_for("windows-rtx3060-laptop-torch1121-conda-cpu", "torch", "1.12", target=told)
    assert plan.chosen is None
    (cu102,) = [c for c in plan.ruled_out if c.build.variant == "cu102"]
    assert [j.topic for j in cu102.failures()] == ["os"]
    older = plan_for("windows-rtx3060-laptop-torch1121-conda-cpu", "torch", "1.10", target=told)
    assert (older.chosen.build.release, older.chosen.build.variant) == ("1.10", "cu102")


@pytest.mark.parametrize(
    ("release", "cuda", "pin", "matches"),
    [
        ("2.7", "12.6", None, True),  # the installed 2.7.1+cu126 itself
        ("2.7", "12.6", "2.7.1", True),
        ("2.7", "12.8", None, False),  # another CUDA minor of the same major is another build
        ("2.7", "11.8", None, False),
        ("2.7", "12.6", "2.7.0", False),  # another patch, asked for exactly
        ("2.6", "12.6", None, False),  # another minor release
    ],
)
def test_the_installed_build_matches_only_at_its_release_and_its_cuda_major_and_minor(release, cuda, pin, matches):
    """pick_torch.installed_matches: "Whether this exact build is what is installed (same release and CUDA; the same
    version when one was asked)": torch 2.7.1+cu126 (rtx4090-flashattn274-debian11-glibc231) is the cu126 build of 2.7,
    not its cu128 build, whose plan must install it."""
    from gpudoctor.planner.machine import machine_from_facts
    from gpudoctor.planner.model import Build
    from gpudoctor.planner.pick_torch import installed_matches

    _, facts = probe("rtx4090-flashattn274-debian11-glibc231")
    torch = facts.frameworks.torch.value
    assert (torch.version, torch.cuda) == ("2.7.1+cu126", "12.6")
    variant = "cu" + cuda.replace(".", "")
    build = Build("torch", release, variant, cuda, (f"torch=={pin or release + '.*'}",), pin=pin or f"{release}.*")
    assert installed_matches(machine_from_facts(facts, Context()), torch, build) is matches
