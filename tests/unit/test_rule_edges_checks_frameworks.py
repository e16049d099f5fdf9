"""The framework rules (checks/frameworks.py) at the edges the mutation run found unguarded.

Each test is written for a mutant that survived the suite (tools/mutate.py; docs/testing.md, "Mutation
testing"), and asserts what a user sees: the finding, what it names, the commands of its fix. Facts are
recorded machines (tests/machines) with one fact changed at a time; the versions and their CUDA are the
compatibility matrix's (compat_matrix/*.toml, each row with its source).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from gpudoctor.checks import Context, run_checks
from gpudoctor.checks.frameworks import system_cuda_libraries
from gpudoctor.cmdline import render_all
from gpudoctor.doctor import diagnose
from gpudoctor.facts import LibDir
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot

MACHINES = Path(__file__).resolve().parents[1] / "machines"


def facts_of(slug):
    return diagnose(ReplayHost(load_snapshot(str(MACHINES / slug / "snapshot.json")))).facts


def findings(facts, code):
    found, internal = run_checks(facts)
    assert not internal
    return [f for f in found if f.code == code]


def lines(remediation):
    """Each command as rendered with its note (data) after it; where a note is printed is gpudoctor.cmdline's
    to decide (tests/unit/test_cmdline.py)."""
    return [line + (f"  # {c.note}" if c.note else "") for c in remediation.commands for line in render_all([c], "posix")[-1:]]


def replace(facts, **areas):
    return dataclasses.replace(facts, **{k: dataclasses.replace(getattr(facts, k), **v) for k, v in areas.items()})


def with_framework(facts, name, **changes):
    found = getattr(facts.frameworks, name)
    return replace(facts, frameworks={name: dataclasses.replace(found, value=dataclasses.replace(found.value, **changes))})


def with_distributions(facts, **versions):
    """The environment's installed distributions as pip lists them (tensorflow_cpu: tensorflow-cpu; None: gone)."""
    py = facts.frameworks.python
    dists = {**py.value.distributions, **{k.replace("_", "-"): v for k, v in versions.items()}}
    dists = {k: v for k, v in dists.items() if v is not None}
    return replace(
        facts, frameworks={"python": dataclasses.replace(py, value=dataclasses.replace(py.value, distributions=dists))}
    )


def with_driver(facts, version, cuda):
    return replace(
        facts,
        driver={
            "smi_driver_version": version,
            "nvml_driver_version": version,
            "smi_cuda_version": cuda,
            "nvml_cuda_version": cuda,
        },
    )


@pytest.fixture(scope="module")
def tf211():
    """TensorFlow 2.11.0 (CUDA 11.2 build) on an RTX 3060, driver 570.124.04, Ubuntu 22.04."""
    return facts_of("rtx3060-tf211-on-cuda118-cudnn86")


# --- framework-cpu-build ---------------------------------------------------------------------------------


def test_tensorflow_cpu_on_linux_is_a_cpu_build(tf211):
    """tensorflow-cpu has no CUDA code on any system. (On Windows, TensorFlow after 2.10 has no GPU build at all,
    and framework-windows-native-gpu says so instead; on Linux this is the finding.)"""
    facts = with_distributions(
        with_framework(tf211, "tensorflow", distribution="tensorflow-cpu"), tensorflow=None, tensorflow_cpu="2.11.0"
    )
    (f,) = findings(facts, "framework-cpu-build")
    assert f.title == "tensorflow-cpu 2.11.0 is built without CUDA, so it cannot use the NVIDIA GPU"


def test_a_move_back_across_keras_3_is_said_once(tf211):
    """tensorflow-cpu 2.16.1 on driver 515.65.01 (CUDA 11.7): TensorFlow 2.16 needs CUDA 12.3, which that driver
    cannot run even by minor-version compatibility (>= 525.60.13), so the newest build that fits is 2.14 (CUDA
    11.8). That crosses 2.16, where tf.keras became Keras 3 (https://github.com/tensorflow/tensorflow/releases/tag/v2.16.1):
    the plan's change says it, and the fix must not say it a second time in other words."""
    facts = with_distributions(
        with_framework(
            with_driver(tf211, "515.65.01", "11.7"),
            "tensorflow",
            version="2.16.1",
            distribution="tensorflow-cpu",
            is_cuda_build=False,
        ),
        tensorflow=None,
        tensorflow_cpu="2.16.1",
    )
    (f,) = findings(facts, "framework-cpu-build")
    said = f.remediation.summary
    assert "TensorFlow 2.14 (and-cuda) is the newest that does" in said
    assert "before TensorFlow 2.16 tf.keras is Keras 2" in said
    assert said.count("Keras 2") == 1, said


def test_a_version_the_matrix_does_not_know_is_said_to_be_unknown():
    """PyTorch 1.6.0+cpu is older than every release in compat_matrix/torch.toml (1.7 on): the fix says the
    matrix does not know it, rather than that no build of it fits."""
    base = facts_of("rtx3060-laptop-torch-cpu-build")
    facts = with_distributions(with_framework(base, "torch", version="1.6.0+cpu"), torch="1.6.0+cpu")
    (f,) = findings(facts, "framework-cpu-build")
    assert "PyTorch 1.6.0 is not in the compatibility matrix; PyTorch " in f.remediation.summary
    assert "is the newest build it knows that fits: " in f.remediation.summary


def test_with_no_build_that_runs_the_fix_says_what_would_open_one(tf211):
    """A GeForce GTX 680 (compute capability 3.0, Kepler) under TensorFlow 2.11, whose build_info lists sm_35 and
    up: no kernels for it. No TensorFlow build in the matrix runs on this machine's Python; the fix says what
    would open one (an older Python) instead of a command."""
    gpus = tuple(dataclasses.replace(g, compute_capability="3.0", name="NVIDIA GeForce GTX 680") for g in tf211.driver.gpus)
    (f,) = findings(replace(tf211, driver={"gpus": gpus}), "framework-arch-unsupported")
    assert f.title == "TensorFlow 2.11.0 has no kernels for GPU 0 (NVIDIA GeForce GTX 680, compute capability 3.0)"
    # The kernels listed are the installed build's own (its build_info), not the matrix row's.
    assert f.evidence[0].source == "file:/usr/lib/python3/dist-packages/tensorflow/python/platform/build_info.py"
    said = f.remediation.summary
    assert (
        "No TensorFlow build in the compatibility matrix runs on this machine: an environment with Python 3.8 would open" in said
    )
    assert said.endswith(" Fix the driver or GPU first (gpudoctor install tensorflow says why).")
    assert f.remediation.commands == ()


def test_with_no_build_and_nothing_that_would_open_one_the_sentence_ends_plainly():
    """The same Kepler GPU under PyTorch (every release in the matrix needs 3.5 or newer): nothing to suggest."""
    base = facts_of("rtx3060-laptop-torch-cpu-build")
    gpus = tuple(dataclasses.replace(g, compute_capability="3.0", name="NVIDIA GeForce GTX 680") for g in base.driver.gpus)
    (f,) = findings(replace(base, driver={"gpus": gpus}), "framework-cpu-build")
    assert f.remediation.summary.endswith(
        "No PyTorch build in the compatibility matrix runs on this machine. Fix the driver or GPU first (gpudoctor install torch says why)."
    )


# --- framework-cuda-libs-missing -------------------------------------------------------------------------


def test_pytorch_installed_without_its_dependencies_misses_the_cuda_runtime():
    """`pip install --no-deps torch==2.2.1+cu121`: no NVIDIA wheels, no torch/lib copies, nothing on
    LD_LIBRARY_PATH. Its CUDA 12 build loads libcudart.so.12 and libcublas.so.12 by soname."""
    base = facts_of("h100x8-driver565-torch221-cu121")
    facts = replace(with_framework(base, "torch", lib_dirs=()), frameworks={"nvidia_wheels": {}})
    (f,) = findings(facts, "framework-cuda-libs-missing")
    assert f.title == "PyTorch 2.2.1+cu121 cannot find its CUDA libraries: libcudart.so.12, libcublas.so.12"


def test_libraries_bundled_in_torch_lib_under_hashed_names_are_found():
    """The wheels on PyTorch's own index carry the CUDA libraries in torch/lib under hashed names
    (libcudart-d0da41ae.so.11.0, as users' `ls torch/lib` shows for the cu117 builds; pytorch/builder's manywheel
    scripts copy them in and rename them with a hash): libtorch_cuda.so loads them by those names, so nothing is
    missing. Without that folder both are."""
    base = facts_of("h100x8-driver565-torch221-cu121")
    bundled = LibDir(
        "/usr/lib/python3/dist-packages/torch/lib",
        "bundled",
        ("libtorch_cuda.so", "libcudart-d0da41ae.so.11.0", "libcublas-3b81d170.so.11", "libcublasLt-b6d14a74.so.11"),
    )
    facts = replace(
        with_framework(base, "torch", version="1.13.1+cu117", cuda="11.7", lib_dirs=(bundled,)), frameworks={"nvidia_wheels": {}}
    )
    assert findings(facts, "framework-cuda-libs-missing") == []
    (f,) = findings(with_framework(facts, "torch", lib_dirs=()), "framework-cuda-libs-missing")
    assert f.title == "PyTorch 1.13.1+cu117 cannot find its CUDA libraries: libcudart.so.11.0, libcublas.so.11"


def test_the_conda_environments_lib_goes_first_and_the_rest_of_ld_library_path_stays():
    """tests/machines/rtx3060-conda-tf211-cuda-libs-not-on-path, with LD_LIBRARY_PATH already naming oneAPI's MKL:
    the fix puts the environment's lib/ ahead and keeps what was there."""
    base = facts_of("rtx3060-conda-tf211-cuda-libs-not-on-path")
    facts = replace(base, platform={"env": {**base.platform.env, "LD_LIBRARY_PATH": "/opt/intel/oneapi/mkl/lib"}})
    (f,) = findings(facts, "framework-cuda-libs-missing")
    assert lines(f.remediation) == [
        "conda env config vars set -p /home/user/miniconda3/envs/tf "
        "LD_LIBRARY_PATH=/home/user/miniconda3/envs/tf/lib:/opt/intel/oneapi/mkl/lib  # then: conda deactivate, and activate it again"
    ]


def test_a_conda_environment_without_the_libraries_gets_cudatoolkit_from_conda_forge():
    """The same conda environment, its lib/ without the CUDA libraries: TensorFlow 2.11 loads CUDA 11, and the
    newest CUDA 11 in the matrix is 11.8, which conda-forge's cudatoolkit package provides; into the
    environment, so no root."""
    base = facts_of("rtx3060-conda-tf211-cuda-libs-not-on-path")
    (f,) = findings(replace(base, frameworks={"env_lib": None}), "framework-cuda-libs-missing")
    assert lines(f.remediation) == [
        "conda install -y -p /home/user/miniconda3/envs/tf -c conda-forge cudatoolkit=11.8  # into this conda environment"
    ]
    assert not f.remediation.requires_root


def test_cuda_12_runtime_libraries_are_not_offered_as_cudatoolkit():
    """conda-forge's cudatoolkit package ends with CUDA 11.8; CUDA 12 is packaged as separate cuda-* packages
    (https://matthewfeickert-talks.github.io/reproducible-ml-for-scientists-with-pixi-scipy-2025/cuda-conda), so
    a CUDA 12 runtime (a TensorFlow built for it) comes from NVIDIA's repository even in a conda environment."""
    base = facts_of("rtx3060-conda-tf211-cuda-libs-not-on-path")
    fix = system_cuda_libraries(replace(base, frameworks={"env_lib": None}), Context(), "12.0")
    said = lines(fix)
    assert not any("cudatoolkit" in line for line in said), said
    assert any(line.startswith("sudo apt-get install -y cuda-libraries-12-") for line in said), said


# --- nvidia-wheels-conflict --------------------------------------------------------------------------------


def test_tensorflow_with_and_cuda_keeps_its_cuda_major_and_is_reinstalled(tf211):
    """TensorFlow 2.15 installs NVIDIA's CUDA 12 wheels through tensorflow[and-cuda] (pypi-tf-wheels): the cu11
    cuDNN wheel beside them is the one to drop, and TensorFlow's own [and-cuda] install puts back the files
    both wrote."""
    facts = with_distributions(with_framework(tf211, "tensorflow", version="2.15.0", cuda="12.2"), tensorflow="2.15.0")
    facts = replace(facts, frameworks={"nvidia_wheels": {"nvidia-cudnn-cu11": "8.6.0.163", "nvidia-cudnn-cu12": "8.9.4.25"}})
    (f,) = findings(facts, "nvidia-wheels-conflict")
    assert lines(f.remediation) == [
        "/usr/bin/python3 -m pip uninstall -y nvidia-cudnn-cu11",
        "/usr/bin/python3 -m pip install --force-reinstall 'tensorflow[and-cuda]==2.15.0'",
    ]
    assert f.remediation.component == "tensorflow"


def test_jax_with_its_cuda_12_plugin_keeps_cuda_12_and_is_reinstalled():
    """JAX 0.4.38's CUDA 12 plugin (tests/machines/rtx4090-jax-plugin-mismatch) with a cu11 cuDNN wheel beside
    its cu12 one: keep 12, and reinstall jax[cuda12] at the installed jax version."""
    base = facts_of("rtx4090-jax-plugin-mismatch")
    facts = replace(base, frameworks={"nvidia_wheels": {**base.frameworks.nvidia_wheels, "nvidia-cudnn-cu11": "9.1.0.70"}})
    (f,) = findings(facts, "nvidia-wheels-conflict")
    assert lines(f.remediation) == [
        "/usr/bin/python3 -m pip uninstall -y nvidia-cudnn-cu11",
        "/usr/bin/python3 -m pip install --force-reinstall 'jax[cuda12]==0.4.38'",
    ]


def test_a_jaxlib_built_for_local_cuda_has_no_reinstall_to_offer():
    """jaxlib 0.4.13+cuda11.cudnn86 (tests/machines/t4-jax-beside-tf-notebook) predates the CUDA plugins: its
    CUDA major is 11, and no pip command reinstalls that build, so the fix only uninstalls the cu12 wheel."""
    base = facts_of("t4-jax-beside-tf-notebook")
    facts = replace(base, frameworks={"nvidia_wheels": {"nvidia-cudnn-cu11": "8.6.0.163", "nvidia-cudnn-cu12": "8.9.2.26"}})
    (f,) = findings(facts, "nvidia-wheels-conflict")
    assert lines(f.remediation) == ["/srv/env/bin/python -m pip uninstall -y nvidia-cudnn-cu12"]
    assert f.remediation.component == "environment"


# --- jax-plugin-mismatch -----------------------------------------------------------------------------------


def test_with_the_gpu_and_driver_seen_the_jax_fix_is_the_planners_build():
    """tests/machines/rtx4090-jax-plugin-mismatch: the RTX 4090 and its driver were seen, so the agreed version's
    build is chosen by the planner, which checks it against them (the JAX step of every framework fix)."""
    (f,) = findings(facts_of("rtx4090-jax-plugin-mismatch"), "jax-plugin-mismatch")
    assert "JAX 0.4.38 (cuda12) fits this machine" in f.remediation.summary
    assert "needs no GPU facts" not in f.remediation.summary
    assert lines(f.remediation)[-1] == "/usr/bin/python3 -m pip install 'jax[cuda12]==0.4.38'"
