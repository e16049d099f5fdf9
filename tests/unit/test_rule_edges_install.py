"""The installer's choice at the edges the suite left unguarded (tools/mutate.py survivors: docs/testing.md).

Each test pins down what `gpudoctor install` decides or prints, on replayed machines (tests/machines/) or on a
machine described by hand, with the expectation worked out from the rule and the matrix rows
(compat_matrix/*.toml). Rules:
- kernels (gpudoctor.planner.judge): a cubin for X.y runs on X.z with z >= y; PTX at or below the GPU's
  capability is JIT-compiled by the driver (CUDA C Programming Guide, "Binary Compatibility" and "PTX
  Compatibility": https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#binary-compatibility).
- JAX: from 0.4.30 GPU support is the jax-cudaNN-plugin pair from PyPI; before, a CUDA jaxlib (local tag
  +cudaNN) from JAX's release page (https://docs.jax.dev/en/latest/installation.html). Both would provide
  the `jaxlib` module, so a CUDA jaxlib left installed would shadow the plugin route's plain jaxlib.
- `already_installed` of `gpudoctor install --json` is a boolean (src/gpudoctor/schemas/install.schema.json).
"""

from __future__ import annotations

import pytest

from gpudoctor.errors import UsageError
from gpudoctor.planner.judge import judge_kernels
from gpudoctor.planner.model import GpuInfo, Machine, Target, TargetEnv
from gpudoctor.planner.plan import _nvcc_builds_for
from tests.unit.test_install_plan import plan_for

RTX3060 = GpuInfo(0, "NVIDIA GeForce RTX 3060", "8.6", "Ampere")
UNKNOWN_GPU = GpuInfo(1, "NVIDIA Graphics Device", None)


def machine(*gpus: GpuInfo) -> Machine:
    return Machine("linux", "x86_64", "570.124.04", "12.8", gpus, TargetEnv("/usr/bin/python3", "3.11.7"))


# --- kernels ------------------------------------------------------------------------------------------------


def test_a_cubin_of_a_lower_minor_is_named_and_one_of_the_gpus_own_is_not():
    # sm_80 cubins run on compute capability 8.6 (same major, lower minor): the judgement says which ones run;
    # with sm_86 cubins in the build there is nothing to add.
    (lower,) = judge_kernels(machine(RTX3060), ("8.0",), (), True, "12.8")
    assert (lower.ok, lower.text) == (
        True,
        "has kernels for GPU 0 NVIDIA GeForce RTX 3060 (sm_86, Ampere): its sm_80 cubins run there",
    )
    (own,) = judge_kernels(machine(RTX3060), ("8.0", "8.6"), (), True, "12.8")
    assert (own.ok, own.text) == (True, "has kernels for GPU 0 NVIDIA GeForce RTX 3060 (sm_86, Ampere)")


def test_a_gpu_of_unknown_compute_capability_does_not_rule_a_build_out():
    # Neither NVML nor the matrix knows the GPU's capability: nothing can be checked, so the build is not
    # ruled out for it (a note says so), while the known GPU is judged as usual.
    unknown, known = judge_kernels(machine(UNKNOWN_GPU, RTX3060), ("8.6",), (), True, "12.8")
    assert (unknown.ok, unknown.note) == (True, True)
    assert (
        unknown.text
        == "GPU 1 NVIDIA Graphics Device (compute capability unknown): compute capability unknown, kernels not checked"
    )
    assert (known.ok, known.note) == (True, False)


def test_a_build_whose_architectures_the_matrix_does_not_list_is_a_note_not_a_pass():
    # No cubins and no PTX listed: the matrix cannot say whether the build runs on the GPU. It is not ruled out,
    # and the plan says the kernels were not checked rather than claiming they are there.
    (j,) = judge_kernels(machine(RTX3060), (), (), True, "12.8")
    assert (j.ok, j.note) == (True, True)
    assert j.text == "the matrix does not list this build's GPU architectures: kernels for sm_86 not checked"


def test_no_kernels_names_what_the_build_carries_in_either_spelling():
    # kernel_route reads "5.0", "sm_50" and "compute_50" alike (torch.cuda.get_arch_list() spells them
    # sm_XY / compute_XY): a Kepler GPU (3.5) runs neither sm_50 cubins (another major) nor compute_50 PTX (newer
    # than 3.5), and the message names them once, each in NVIDIA's own spelling.
    kepler = GpuInfo(0, "Tesla K40m", "3.5", "Kepler")
    for arch, ptx in ((("5.0",), ("5.0",)), (("sm_50",), ("compute_50",))):
        (j,) = judge_kernels(machine(kepler), arch, ptx, True, "11.8")
        assert not j.ok
        assert j.text == "no kernels for GPU 0 Tesla K40m (sm_35, Kepler): the build carries sm_50 and PTX compute_50"


# --- JAX ---------------------------------------------------------------------------------------------------


def _driver_560(snap):
    # The T4 notebook with driver 560.35.03 (CUDA 12.6): JAX's CUDA 12 plugin builds run there, so the plugin
    # route (no --find-links) replaces the jaxlib 0.4.13+cuda11.cudnn86 from JAX's release page.
    smi = snap["commands"]["nvidia-smi -q -x"]
    smi["stdout"] = smi["stdout"].replace("515.105.01", "560.35.03")


def test_a_cuda_jaxlib_from_the_release_page_is_removed_before_the_plugin_route():
    plan = plan_for("t4-jax-beside-tf-notebook", "jax", change=_driver_560)
    assert plan.chosen.build.variant == "cuda12" and plan.chosen.build.find_links is None
    # Left installed, jaxlib 0.4.13+cuda11.cudnn86 would keep providing the jaxlib module beside the plugin
    # route's plain jaxlib: it is removed first.
    removes = [s.argv[3:] for s in plan.steps if s.argv[3] == "uninstall"]
    assert removes == [("uninstall", "-y", "jaxlib")]


def test_a_cuda_jaxlib_stays_when_the_plan_installs_one_from_the_release_page_too():
    # Driver 515 (CUDA 11.7): the cuda11 build from the release page; its jaxlib replaces the old one by pip's
    # own install, so nothing is removed by hand.
    plan = plan_for("t4-jax-beside-tf-notebook", "jax")
    assert plan.chosen.build.find_links is not None
    assert not [s for s in plan.steps if s.argv[3] == "uninstall"]


def test_reinstall_over_another_version_is_the_install_alone():
    # --reinstall where the chosen jax is another version than the installed 0.4.13: the plain install replaces it,
    # so a forced one after it would only repeat it; jaxlib, a CUDA build the cuda11_pip extra brings again, is
    # removed first, after a dry run resolved the new one.
    plan = plan_for("t4-jax-beside-tf-notebook", "jax", reinstall=True)
    assert plan.change is not None and plan.change.kind == "upgrade"
    assert [s.argv[3:5] for s in plan.steps] == [
        ("install", "--dry-run"),
        ("uninstall", "-y"),
        ("install", plan.chosen.build.specs[0]),
    ]


def test_jax_builds_of_a_release_are_listed_newest_cuda_first():
    # Driver 535.86.05 (CUDA 12.2) rules out JAX 0.7+ (Python 3.10): each row's CUDA 13 build is ruled out
    # before its CUDA 12 one, as PyTorch lists its variants (newest CUDA first).
    plan = plan_for("rtx4090-jax-plugin-mismatch", "jax")
    assert [c.build.label for c in plan.ruled_out[:4]] == [
        "JAX >=0.12.0 (cuda13)",
        "JAX >=0.12.0 (cuda12)",
        "JAX >=0.11.0,<0.12.0 (cuda13)",
        "JAX >=0.11.0,<0.12.0 (cuda12)",
    ]


def test_a_jax_cpu_build_of_the_installed_version_is_nothing_to_do():
    # jax 0.4.38 and a plain (CPU) jaxlib 0.4.38, no plugin: `--cpu 0.4.38` is installed already.
    plan = plan_for("rtx4090-jax-cpu-only", "jax", "0.4.38", target=Target(cpu=True))
    assert plan.chosen.build.specs == ("jax==0.4.38",)
    assert plan.already is True and plan.steps == ()


@pytest.mark.parametrize(("installed", "version", "kind"), [("0.4.38", None, "upgrade"), ("0.4.38", "0.4.30", "downgrade")])
def test_a_jax_version_range_is_named_an_upgrade_or_a_downgrade(installed, version, kind):
    # JAX builds carry a range (">=0.6.0,<0.7.0") or an exact pin ("==0.4.30"): 0.4.38 is below the range's floor
    # 0.6.0 (an upgrade) and above 0.4.30 (a downgrade); neither is "switch", which means the same release.
    plan = plan_for("rtx4090-jax-plugin-mismatch", "jax", version)
    assert (plan.change.kind, plan.change.before) == (kind, installed)


# --- TensorFlow ----------------------------------------------------------------------------------------------


def test_tensorflow_without_and_cuda_asks_nothing_by_hand_when_its_libraries_are_there():
    # TensorFlow 2.11 loads CUDA 11 and cuDNN 8 from the system; this machine has CUDA 11.8's libcudart.so.11.0
    # and cuDNN 8.6 in the ldconfig cache, so there is nothing to install by hand.
    plan = plan_for("rtx3060-tf211-on-cuda118-cudnn86", "tensorflow", "2.11")
    assert plan.chosen.build.variant == "system CUDA"
    assert plan.manual == ()
    # The same release on a machine with CUDA 12 libraries only: the CUDA 11.2 / cuDNN 8.1 lines.
    missing = plan_for("rtx3060-tf211-cuda12-only", "tensorflow", "2.11")
    # The note on its own line before the command (issue 30: no `#` on a command line interactive zsh would run).
    assert missing.manual[1:3] == ("  # NVIDIA\u2019s CUDA repository", "  sudo apt-get install -y cuda-libraries-11-2")


@pytest.mark.parametrize("bad", ["latest", "2", "2.15.1.4", "v2.15"])
def test_a_tensorflow_version_pip_would_not_read_is_a_usage_error(bad):
    with pytest.raises(UsageError, match="not a TensorFlow version"):
        plan_for("rtx3060-tf211-on-cuda118-cudnn86", "tensorflow", bad)


@pytest.mark.parametrize(
    ("slug", "framework", "version"),
    [
        ("rtx3060-tf211-on-cuda118-cudnn86", "tensorflow", "2.11.1"),  # 2.11.0 installed, 2.11.1 asked
        ("rtx3060-tf211-on-cuda118-cudnn86", "tensorflow", "2.12"),  # another release
        ("rtx3060-laptop-torch-cpu-build", "torch", None),  # torch 2.13.0+cpu: not a CUDA build
        ("rtx4090-jax-plugin-mismatch", "jax", None),  # jax 0.4.38 is outside the chosen >=0.6.0,<0.7.0
        ("p100-driver510-torch-cu121", "tensorflow", "cpu"),  # no TensorFlow installed, a CPU build asked
        ("p100-driver510-torch-cu121", "torch", "cpu"),  # torch 2.2.1+cu121 is not the CPU build asked
    ],
)
def test_a_build_other_than_the_installed_one_is_not_installed_already(slug, framework, version):
    plan = plan_for(slug, framework, None, target=Target(cpu=True)) if version == "cpu" else plan_for(slug, framework, version)
    assert plan.steps  # it installs
    assert plan.to_json()["already_installed"] is False  # a boolean in the --json plan, never null


def test_tensorflow_cpu_build_of_the_installed_version_is_nothing_to_do():
    # tensorflow 2.11.0 installed: `--cpu 2.11.0` asks for exactly it; `--cpu 2.11.1` for another version.
    same = plan_for("rtx3060-tf211-on-cuda118-cudnn86", "tensorflow", "2.11.0", target=Target(cpu=True))
    assert same.already is True and same.steps == ()
    other = plan_for("rtx3060-tf211-on-cuda118-cudnn86", "tensorflow", "2.11.1", target=Target(cpu=True))
    # numpy<2 beside it: TensorFlow supports NumPy 2 from 2.18 (pick_tensorflow.NUMPY2_FROM).
    assert other.to_json()["already_installed"] is False and other.steps[-1].argv[4:] == ("tensorflow==2.11.1", "numpy<2")


# --- PyTorch -------------------------------------------------------------------------------------------------


def test_an_exact_pytorch_version_asked_as_a_cpu_build_is_that_version():
    # `--cpu 2.2.1`: PyTorch's cpu index holds torch 2.2.1 (local tag +cpu); the request names one version, so
    # the spec is that version, not the 2.2 series.
    plan = plan_for("p100-driver510-torch-cu121", "torch", "2.2.1", target=Target(cpu=True))
    build = plan.chosen.build
    assert (build.specs, build.index_url, build.pin) == (("torch==2.2.1",), "https://download.pytorch.org/whl/cpu", "2.2.1")
    # The series with 2.2.1+cu121 installed: pip would keep it for torch==2.2.*, so the installed patch is pinned
    # with the cpu tag.
    series = plan_for("p100-driver510-torch-cu121", "torch", "2.2", target=Target(cpu=True))
    assert series.chosen.build.specs == ("torch==2.2.1+cpu",)


@pytest.mark.parametrize(
    ("nvcc", "cuda", "builds"),
    [
        ("12.4", "12.4", True),
        ("12.4", "12.1", True),  # an older minor of the same major
        ("12.4", "12.6", False),  # newer than nvcc
        ("12.4", "11.8", False),  # another major: torch.utils.cpp_extension refuses it
        # Options.nvcc is nvcc's major.minor (gpudoctor.checks.toolkit): a build's CUDA written with its update
        # (12.4.1) is the same minor, so nvcc 12.4 builds for it.
        ("12.4", "12.4.1", True),
        ("12.4", None, False),  # a CPU build has no CUDA extensions to build
    ],
)
def test_which_builds_an_nvcc_can_build_extensions_for(nvcc, cuda, builds):
    assert _nvcc_builds_for(nvcc, cuda) is builds


# --- more edges (the sample of the run with function-scoped ids) ---------------------------------------------


def test_jax_with_its_plugin_at_one_version_is_installed_already():
    # jax, jaxlib, jax-cuda12-plugin and -pjrt all 0.6.0 (and NVIDIA's cuDNN wheel): `install jax 0.6.0` has nothing
    # to do; a plugin of the build's own CUDA major is no reason to reinstall.
    plan = plan_for("rtx3060-jax-cudnn-shadowed-by-ld-library-path", "jax", "0.6.0")
    assert plan.chosen.build.variant == "cuda12"
    assert plan.already is True and plan.steps == ()


def test_a_jax_series_older_than_its_first_row_is_taken_when_the_series_reaches_it():
    # The matrix starts at JAX 0.4.20: "0.4" (0.4.0 to 0.4.x) reaches into it, so the series is planned (its newest
    # row that fits, 0.4.31's CUDA 12 plugin build), while "0.3.1" is refused (test_install_plan).
    plan = plan_for("rtx4090-jax-plugin-mismatch", "jax", "0.4")
    assert plan.chosen.build.specs == ("jax[cuda12]>=0.4.31,<0.5.0",)


def test_tensorflow_from_ptx_needs_a_driver_that_runs_its_cuda_fully():
    # An RTX 50-series GPU (12.0) on driver 535.104.05 (CUDA 12.2): TensorFlow 2.21 has no sm_120 cubin, only
    # compute_90 PTX, and runs CUDA 12.5 here through minor-version compatibility only, which cannot JIT newer PTX
    # (cuda-compat-guide). No TensorFlow fits.
    plan = plan_for("docker-started-without-gpus", "tensorflow", "2.21", target=Target(gpu="12.0", driver="535.104.05"))
    assert plan.chosen is None
    (ruled,) = plan.ruled_out
    assert [j.text for j in ruled.failures()] == [
        "no cubin for GPU 0 a GPU of compute capability 12.0 (sm_120, Blackwell): only compute_90 PTX, which the driver "
        "must JIT-compile, and a driver running CUDA 12.5 through minor-version compatibility cannot"
    ]


def test_an_asked_pytorch_variant_is_the_only_one_judged():
    # `2.2.1+cu121` on driver 510 (CUDA 11.6): cu121 needs >= 525.60.13, so nothing fits; the cu118 build of 2.2.1
    # (which would run) was not asked for and is not offered in its place.
    plan = plan_for("p100-driver510-torch-cu121", "torch", "2.2.1+cu121")
    assert plan.chosen is None
    assert [c.build.label for c in plan.ruled_out] == ["PyTorch 2.2 (cu121)"]


def test_a_pytorch_cpu_build_of_the_installed_release_is_nothing_to_do():
    # torch 2.13.0+cpu installed: `--cpu 2.13` asks for the CPU build of 2.13, which it is.
    plan = plan_for("rtx3060-laptop-torch-cpu-build", "torch", "2.13", target=Target(cpu=True))
    assert plan.chosen.build.specs == ("torch==2.13.*",)
    assert plan.already is True and plan.steps == ()


def test_a_conda_environment_is_told_conda_forge_builds_are_not_these_wheels():
    plan = plan_for("rtx3090-driver525-conda-py310", "torch")
    assert plan.notes == (
        "conda-forge builds are not the wheels this plan was checked against (their CUDA versions and GPU architectures "
        "are conda-forge's); do not mix conda and pip installs of the same package",
    )


def test_the_first_reason_says_whether_the_release_was_asked():
    assert plan_for("rtx3060-tf211-on-cuda118-cudnn86", "tensorflow", "2.11").reasons[0] == "TensorFlow 2.11, as asked"
    newest = plan_for("rtx3060-tf211-on-cuda118-cudnn86", "tensorflow").reasons[0]
    assert newest == "the newest TensorFlow release that fits this machine"


def _tensorflow(version):
    def change(snap):
        snap["python"]["distributions"]["tensorflow"] = version

    return change


@pytest.mark.parametrize(
    ("installed", "asked", "keras_note"),
    [
        ("2.15.1", None, "a major move: from TensorFlow 2.16 tf.keras is Keras 3"),  # across 2.16, upwards
        ("2.16.1", None, None),  # Keras 3 already: 2.16 -> 2.21 crosses nothing
        ("2.16.1", "2.15", "a major move: before TensorFlow 2.16 tf.keras is Keras 2"),  # across 2.16, downwards
    ],
)
def test_the_keras_3_move_is_named_only_when_a_change_crosses_2_16(installed, asked, keras_note):
    # TensorFlow 2.16 made tf.keras Keras 3 (TensorFlow 2.16 release notes).
    change = plan_for("rtx3060-tf211-on-cuda118-cudnn86", "tensorflow", asked, change=_tensorflow(installed)).change
    notes = [m for m in change.major if "Keras" in m]
    assert len(notes) == (1 if keras_note else 0)
    assert all(n.startswith(keras_note or "") for n in notes)


def test_the_python_suggested_for_a_floor_is_a_minor_version():
    from gpudoctor.planner.plan import suggest_python

    # A floor written with a patch (">=3.9.1") still names an interpreter series people install: 3.9.
    assert (suggest_python(">=3.9.1"), suggest_python(">=3.10")) == ("3.9", "3.10")


def test_a_cuda_the_matrix_does_not_list_against_a_driver_known_by_its_cuda():
    from gpudoctor.matrix import load_matrix
    from gpudoctor.planner.judge import judge_driver

    told = Machine("linux", "x86_64", None, "12.4", (RTX3060,), TargetEnv("/usr/bin/python3", "3.11.7"))
    judgement, full = judge_driver(load_matrix(), told, "99.0")
    assert (judgement.ok, full) == (False, False)
    assert judgement.text == "CUDA 99.0 is not in the compatibility matrix: cannot tell whether this driver runs it"


def test_the_plan_says_which_release_first_shipped_the_gpus_kernels():
    # An A100 (8.0): TensorFlow's oldest rows in the matrix carry no sm_80 cubins; 2.4 (CUDA 11.0) is the first that
    # does (compat_matrix/tensorflow.toml), which the plan says as its reason for not going older.
    plan = plan_for("docker-started-without-gpus", "tensorflow", target=Target(gpu="8.0", driver="535.104.05"))
    assert (
        plan.reasons[1]
        == "a GPU of compute capability 8.0 needs kernels for sm_80, first shipped in TensorFlow 2.4 (system CUDA)"
    )
