"""docs/findings: the framework and cuDNN areas (framework-*, jax-*, tf-preallocates, nvidia-wheels-conflict,
cudnn-*), each documented rule as a test on a recorded machine with one fact changed: versions at every component
(major, minor, patch, build) where the page compares versions."""

from __future__ import annotations

import dataclasses

import pytest

from gpudoctor.probed import Found
from tests.spec.machine import facts_of, found, judged, recorded, replace
from tests.spec.registry import FIRES, QUIET, states


def _fw(facts, name: str, **changes):
    """facts with framework `name`'s facts changed."""
    current = getattr(facts.frameworks, name)
    return replace(facts, frameworks={name: dataclasses.replace(current, value=dataclasses.replace(current.value, **changes))})


def _dists(slug: str, **versions):
    """The recorded machine with Python distributions set (None removes one)."""
    snap = recorded(slug)
    dists = snap["python"]["distributions"]
    for name, version in versions.items():
        name = name.replace("_", "-")
        if version is None:
            dists.pop(name, None)
        else:
            dists[name] = version
    return snap


# --- framework-driver-too-old -----------------------------------------------------------------------------
P100 = "p100-driver510-torch-cu121"  # nvidia-smi: driver 510.47.03 (CUDA 11.6); PyTorch 2.2.1+cu121


@pytest.mark.parametrize(
    ("driver", "fires"),
    [
        ("525.60.13", False),  # CUDA 12's minor-version-compatibility floor on Linux
        ("525.60.14", False),
        ("525.60.12", True),  # patch below
        ("525.59.99", True),  # minor below
        ("524.99.99", True),  # major below
        ("510.47.03", True),  # the recorded driver
    ],
)
@states("framework-driver-too-old", FIRES, QUIET)
def test_the_driver_runs_the_frameworks_cuda_from_the_majors_floor(driver, fires):
    """framework-driver-too-old.md: "The driver runs that CUDA when either holds: it is at least the release's toolkit
    driver; it is at least the minor-version-compatibility floor of the same major: ... CUDA 12, 525.60.13"; "The
    version named as needed: the floor of that major ... driver 510.47.03 with a cu121 PyTorch gives needs driver >=
    525.60.13"."""
    facts = replace(facts_of(P100), driver={"smi_driver_version": driver, "smi_cuda_version": "12.0"})
    got = judged(facts, "framework-driver-too-old")
    assert len(got) == int(fires)
    if fires:
        assert "525.60.13" in got[0].remediation.summary + " ".join(e.value for e in got[0].evidence) + got[0].detail


@pytest.mark.parametrize(("cuda", "fires"), [("12.0", False), ("12.1", False), ("11.8", True), ("11.0", True)])
@states("framework-driver-too-old", FIRES, QUIET)
def test_known_only_by_its_cuda_the_driver_runs_up_to_it_and_newer_minors_of_its_major(cuda, fires):
    """framework-driver-too-old.md: "Without it, the CUDA version the driver reports decides: the driver runs every CUDA
    up to that one fully, a newer minor of the same major through minor-version compatibility ... and no newer major." """
    facts = replace(facts_of(P100), driver={"smi_driver_version": None, "smi_cuda_version": cuda})
    assert len(judged(facts, "framework-driver-too-old")) == int(fires)


@states("framework-driver-too-old", QUIET)
def test_silent_without_a_driver_or_for_a_cuda_the_matrix_does_not_know():
    """framework-driver-too-old.md: "With neither, the check stays silent" and "When it stays silent: the matrix does
    not know the CUDA release." """
    facts = facts_of(P100)
    assert judged(replace(facts, driver={"smi_driver_version": None, "smi_cuda_version": None}), "framework-driver-too-old") == []
    assert judged(_fw(facts, "torch", cuda="12.97", version="2.2.1+cu1297"), "framework-driver-too-old") == []


# --- framework-arch-unsupported ---------------------------------------------------------------------------
RTX5070 = "rtx5070-torch-cu121-no-sm120"  # compute capability 12.0; PyTorch 2.2.1+cu121: sm_50 .. sm_90


@states("framework-arch-unsupported", FIRES)
def test_nothing_in_the_list_runs_on_the_gpu():
    """framework-arch-unsupported.md: "The rule: nothing in the list runs on the GPU's compute capability." """
    assert len(judged(facts_of(RTX5070), "framework-arch-unsupported")) == 1


@pytest.mark.parametrize("cc", ["8.9", "9.0", "8.6"])
@states("framework-arch-unsupported", QUIET)
def test_a_gpu_the_list_covers_is_quiet(cc):
    """framework-arch-unsupported.md: cu121's cubins cover 8.6, 8.9 and 9.0: something in the list runs there."""
    facts = facts_of(RTX5070)
    gpus = tuple(dataclasses.replace(g, compute_capability=cc) for g in facts.driver.gpus)
    facts = replace(facts, driver={"gpus": gpus, "smi_gpus": gpus})
    assert judged(facts, "framework-arch-unsupported") == []


@states("framework-arch-unsupported", FIRES, QUIET)
def test_an_arch_specific_cubin_counts_only_for_its_exact_capability():
    """framework-arch-unsupported.md: "An arch-specific cubin such as sm_90a counts only for exactly 9.0." (a
    TensorFlow build whose list is sm_90a alone)"""
    facts = facts_of("rtx4000ada-tf-beside-torch-job")
    only_90a = _fw(facts, "tensorflow", compute_capabilities=("sm_90a",))
    assert len(judged(only_90a, "framework-arch-unsupported")) == 1  # the RTX 4000 Ada is 8.9
    gpus = tuple(dataclasses.replace(g, compute_capability="9.0") for g in facts.driver.gpus)
    assert judged(replace(only_90a, driver={"gpus": gpus, "smi_gpus": gpus}), "framework-arch-unsupported") == []


# --- framework-cpu-build ----------------------------------------------------------------------------------


@states("framework-cpu-build", FIRES)
def test_cpu_builds_of_each_framework_fire():
    """framework-cpu-build.md: "PyTorch is CPU-only when torch.version.cuda is None and it is not a ROCm (HIP) build";
    "TensorFlow is CPU-only when the installed distribution is tensorflow-cpu, or when build_info.py says
    is_cuda_build is False"; "JAX is CPU-only when jax is installed with neither a jax-cudaNN-plugin / jax-cudaNN-pjrt
    package nor a +cudaNN jaxlib." """
    assert len(judged(facts_of("rtx3060-laptop-torch-cpu-build"), "framework-cpu-build")) == 1
    assert len(judged(facts_of("rtx4090-jax-cpu-only"), "framework-cpu-build")) == 1
    tf = facts_of("rtx4000ada-tf-beside-torch-job")
    assert len(judged(_fw(tf, "tensorflow", is_cuda_build=False), "framework-cpu-build")) == 1
    assert len(judged(_fw(tf, "tensorflow", distribution="tensorflow-cpu"), "framework-cpu-build")) == 1


@states("framework-cpu-build", QUIET)
def test_gpu_builds_rocm_builds_and_gpu_less_machines_are_quiet():
    """framework-cpu-build.md: a CUDA build, a ROCm (HIP) PyTorch, a JAX with a CUDA plugin or a +cuda jaxlib, and a
    machine where no GPU is present ("A GPU is present: the PCI bus, or the driver's GPU list ...") are quiet."""
    torch = facts_of("rtx3060-laptop-torch-cpu-build")
    assert judged(_fw(torch, "torch", cuda="12.1", version="2.13.0+cu121"), "framework-cpu-build") == []
    assert judged(_fw(torch, "torch", hip="6.0.32830", version="2.13.0+rocm6.0"), "framework-cpu-build") == []
    jax = facts_of("rtx4090-jax-cpu-only")
    assert judged(_fw(jax, "jax", plugins={"jax-cuda12-plugin": "0.4.38"}), "framework-cpu-build") == []
    assert judged(_fw(jax, "jax", jaxlib="0.4.13+cuda11.cudnn86", jax="0.4.13"), "framework-cpu-build") == []
    assert judged(facts_of("rtx4000ada-tf-beside-torch-job"), "framework-cpu-build") == []
    no_gpu = replace(torch, driver={"gpus": (), "nvml_gpus": (), "smi_gpus": ()}, kernel={"pci": Found((), "test")})
    assert judged(no_gpu, "framework-cpu-build") == []


# --- framework-cuda-libs-missing --------------------------------------------------------------------------


@states("framework-cuda-libs-missing", FIRES)
def test_a_soname_found_nowhere_fires():
    """framework-cuda-libs-missing.md: "The rule: any soname is found nowhere." (TensorFlow 2.11's CUDA 11 sonames,
    with only CUDA 12.4 on LD_LIBRARY_PATH: tests/machines/rtx3060-tf211-cuda12-only)"""
    assert len(found(recorded("rtx3060-tf211-cuda12-only"), "framework-cuda-libs-missing")) == 1


@states("framework-cuda-libs-missing", QUIET)
def test_every_soname_found_is_quiet_and_old_torch_bundles_everything():
    """framework-cuda-libs-missing.md: every soname found (TensorFlow 2.11 on CUDA 11.8) is quiet; "Older PyTorch
    bundles everything and is not judged." (PyTorch 1.12.1+cu113)"""
    assert found(recorded("rtx3060-tf211-on-cuda118-cudnn86"), "framework-cuda-libs-missing") == []
    assert found(recorded("p100-torch112-static-cudnn-none-installed"), "framework-cuda-libs-missing") == []


# --- framework-windows-native-gpu -------------------------------------------------------------------------
WIN_TF215 = "windows-rtx3080-tensorflow215"


@pytest.mark.parametrize("version", ["2.15.0", "2.11.0", "2.99.0"])
@states("framework-windows-native-gpu", FIRES)
def test_tensorflow_after_2_10_on_native_windows_fires(version):
    """framework-windows-native-gpu.md: "The rule: the release's row ... has windows_gpu = false, which is the case for
    2.11 and later. A release missing from the matrix counts as unsupported when it is newer than 2.10." """
    facts = _fw(facts_of(WIN_TF215), "tensorflow", version=version)
    assert len(judged(facts, "framework-windows-native-gpu")) == 1


@states("framework-windows-native-gpu", QUIET)
def test_tensorflow_2_10_tensorflow_cpu_and_linux_are_quiet():
    """framework-windows-native-gpu.md: "Where: the platform is Windows (not WSL), and a TensorFlow distribution other
    than tensorflow-cpu is installed"; 2.10 still had a Windows GPU build."""
    facts = facts_of(WIN_TF215)
    assert judged(_fw(facts, "tensorflow", version="2.10.1"), "framework-windows-native-gpu") == []
    assert judged(_fw(facts, "tensorflow", distribution="tensorflow-cpu"), "framework-windows-native-gpu") == []
    assert judged(facts_of("rtx4000ada-tf-beside-torch-job"), "framework-windows-native-gpu") == []


# --- jax-plugin-mismatch ----------------------------------------------------------------------------------
JAXMIX = "rtx4090-jax-plugin-mismatch"  # jax 0.4.38, jaxlib 0.4.36, jax-cuda12-plugin/pjrt 0.4.38


@pytest.mark.parametrize(
    "versions",
    [
        {"jaxlib": "0.4.36"},  # the recorded case: jaxlib and the plugin differ at the patch
        {"jaxlib": "0.3.38"},  # at the minor
        {"jax_cuda12_pjrt": "0.4.37"},  # plugin and pjrt not identical
        {"jax": "0.4.30", "jaxlib": "0.4.31", "jax_cuda12_plugin": "0.4.31", "jax_cuda12_pjrt": "0.4.31"},  # jaxlib newer
    ],
    ids=["jaxlib-patch", "jaxlib-minor", "pjrt", "jaxlib-newer-than-jax"],
)
@states("jax-plugin-mismatch", FIRES)
def test_a_broken_agreement_fires(versions):
    """jax-plugin-mismatch.md: "jaxlib not newer than jax"; "jax-cuda12-plugin, jax-cuda12-pjrt: identical versions";
    "jaxlib, jax-cuda12-plugin: same numeric version"."""
    assert len(found(_dists(JAXMIX, **versions), "jax-plugin-mismatch")) == 1


@pytest.mark.parametrize(
    "versions",
    [
        {"jaxlib": "0.4.38"},
        {"jax": "0.7.2", "jaxlib": "0.7.2", "jax_cuda12_plugin": "0.7.2.post1", "jax_cuda12_pjrt": "0.7.2.post1"},
        {"jaxlib": None, "jax_cuda12_pjrt": None},  # only jax and the plugin: no agreement has two of its packages
    ],
    ids=["all-equal", "post1-equals", "one-of-each-pair"],
)
@states("jax-plugin-mismatch", QUIET)
def test_kept_agreements_are_quiet(versions):
    """jax-plugin-mismatch.md: "0.7.2 equals 0.7.2.post1"; "An agreement is judged on the packages that are installed,
    when at least two of them are." """
    assert found(_dists(JAXMIX, **versions), "jax-plugin-mismatch") == []


@states("jax-plugin-mismatch", QUIET)
def test_an_agreement_holds_only_from_its_since():
    """jax-plugin-mismatch.md: "Each agreement holds from its own Since, judged by the installed jax's version" - the
    jaxlib = plugin rule starts at 0.4.30, so 0.4.29 with a different plugin is not judged by it."""
    snap = _dists(JAXMIX, jax="0.4.29", jaxlib="0.4.28", jax_cuda12_plugin="0.4.29", jax_cuda12_pjrt="0.4.29")
    assert found(snap, "jax-plugin-mismatch") == []


# --- jax-preallocates, tf-preallocates --------------------------------------------------------------------
JAXNB = "t4-jax-beside-tf-notebook"
TFJOB = "rtx4000ada-tf-beside-torch-job"


def _env(slug: str, **env):
    snap = recorded(slug)
    snap.setdefault("env", {}).update(env)
    return snap


@pytest.mark.parametrize("env", [{}, {"XLA_PYTHON_CLIENT_PREALLOCATE": "true"}, {"XLA_PYTHON_CLIENT_ALLOCATOR": "bfc"}])
@states("jax-preallocates", FIRES)
def test_jax_preallocating_on_a_shared_gpu_fires(env):
    """jax-preallocates.md: preallocation is off only for the listed values; otherwise, on a GPU where a compute
    process holds memory, it fires."""
    assert len(found(_env(JAXNB, **env), "jax-preallocates")) == 1


@pytest.mark.parametrize(
    "env",
    [
        {"XLA_PYTHON_CLIENT_PREALLOCATE": "false"},
        {"XLA_PYTHON_CLIENT_PREALLOCATE": "False"},
        {"XLA_PYTHON_CLIENT_PREALLOCATE": "0"},
        {"XLA_PYTHON_CLIENT_ALLOCATOR": "platform"},
        {"XLA_PYTHON_CLIENT_MEM_FRACTION": ".5"},
    ],
)
@states("jax-preallocates", QUIET)
def test_jax_preallocation_off_or_a_deliberate_share_is_quiet(env):
    """jax-preallocates.md: "preallocation is off when XLA_PYTHON_CLIENT_PREALLOCATE is one of the values the matrix
    lists (false, False, 0), or XLA_PYTHON_CLIENT_ALLOCATOR=platform. Any XLA_PYTHON_CLIENT_MEM_FRACTION counts as a
    deliberate share, and the check says nothing." """
    assert found(_env(JAXNB, **env), "jax-preallocates") == []


@pytest.mark.parametrize("value", [None, "True", "1", "false"])
@states("tf-preallocates", FIRES)
def test_tf_without_exactly_true_preallocates(value):
    """tf-preallocates.md: "TensorFlow reads exactly true or false ...; any other value (True, 1) is logged as
    unparsable and ignored, so it counts as unset" (false: growth off, it preallocates)."""
    snap = _env(TFJOB) if value is None else _env(TFJOB, TF_FORCE_GPU_ALLOW_GROWTH=value)
    assert len(found(snap, "tf-preallocates")) == 1


@states("tf-preallocates", QUIET)
def test_tf_growth_on_is_quiet():
    """tf-preallocates.md: TF_FORCE_GPU_ALLOW_GROWTH=true: TensorFlow allocates as it needs."""
    assert found(_env(TFJOB, TF_FORCE_GPU_ALLOW_GROWTH="true"), "tf-preallocates") == []


@states("tf-preallocates", QUIET)
def test_an_idle_gpu_or_display_processes_alone_are_not_shared():
    """tf-preallocates.md: "Display processes (type G ...) alone do not make a GPU shared"; "An idle GPU is not
    shared: preallocating there is TensorFlow's intended behaviour." """
    facts = facts_of(TFJOB)
    idle = tuple(dataclasses.replace(g, processes=()) for g in facts.driver.gpus)
    assert judged(replace(facts, driver={"gpus": idle, "smi_gpus": idle, "nvml_gpus": ()}), "tf-preallocates") == []
    display = tuple(
        dataclasses.replace(g, processes=tuple(dataclasses.replace(p, type="G") for p in g.processes)) for g in facts.driver.gpus
    )
    assert judged(replace(facts, driver={"gpus": display, "smi_gpus": display, "nvml_gpus": ()}), "tf-preallocates") == []


@pytest.mark.parametrize(("slug", "code"), [(TFJOB, "tf-preallocates"), (JAXNB, "jax-preallocates")])
@states("tf-preallocates", FIRES)
@states("jax-preallocates", FIRES)
def test_a_process_nvml_lists_without_a_type_makes_a_gpu_shared(slug, code):
    """tf-preallocates.md: "nvidia-smi type `C` or `C+G`, or any process NVML lists (NVML lists compute processes
    only)"; jax-preallocates.md: "(type C or C+G, or NVML-listed)". A process NVML lists carries no type: it counts as
    compute."""
    facts = facts_of(slug)
    untyped = tuple(
        dataclasses.replace(g, processes=tuple(dataclasses.replace(p, type=None) for p in g.processes)) for g in facts.driver.gpus
    )
    assert any(g.processes for g in untyped)
    assert len(judged(replace(facts, driver={"gpus": untyped, "smi_gpus": (), "nvml_gpus": untyped}), code)) == 1


# --- nvidia-wheels-conflict -------------------------------------------------------------------------------
WHEELS = "rtx4090-nvidia-wheels-cu11-and-cu12"  # nvidia-cudnn-cu11 8.5.0.96 beside nvidia-cudnn-cu12 8.9.2.26


@states("nvidia-wheels-conflict", FIRES)
def test_one_base_with_two_cuda_majors_fires():
    """nvidia-wheels-conflict.md: "names are grouped by their base, the part before -cuNN. It fires when one base has
    two or more CUDA majors." """
    assert len(found(recorded(WHEELS), "nvidia-wheels-conflict")) == 1


@states("nvidia-wheels-conflict", QUIET)
def test_one_major_per_base_is_quiet():
    """nvidia-wheels-conflict.md: bases of one major each (nccl-cu11 beside the cu12 wheels: another base) do not
    conflict; "nvidia-ml-py is left out"."""
    assert found(_dists(WHEELS, nvidia_cudnn_cu11=None), "nvidia-wheels-conflict") == []
    assert found(_dists(WHEELS, nvidia_cudnn_cu11=None, nvidia_nccl_cu11="2.14.3"), "nvidia-wheels-conflict") == []
    assert len(found(_dists(WHEELS, nvidia_cudnn_cu11=None, nvidia_cublas_cu11="11.11.3.6"), "nvidia-wheels-conflict")) == 1
    assert found(_dists(WHEELS, nvidia_cudnn_cu11=None, nvidia_ml_py="12.535.133"), "nvidia-wheels-conflict") == []


# --- cudnn-missing, cudnn-too-old, cudnn-cuda-mismatch ----------------------------------------------------
H100 = "h100x8-driver565-torch221-cu121"  # PyTorch 2.2.1+cu121 pins nvidia-cudnn-cu12==8.9.2.26 (torch.toml)


@states("cudnn-missing", FIRES)
def test_no_cudnn_of_the_needed_major_anywhere_is_missing():
    """cudnn-missing.md: "The rule: no libcudnn.so.N of the needed major anywhere." (TensorFlow 2.11 needs cuDNN 8;
    only CUDA 12.4 is on LD_LIBRARY_PATH: tests/machines/rtx3060-tf211-cuda12-only)"""
    assert len(found(recorded("rtx3060-tf211-cuda12-only"), "cudnn-missing")) == 1


@states("cudnn-missing", QUIET)
def test_old_pytorch_wheels_carry_their_own_cudnn():
    """cudnn-missing.md: "PyTorch's pip wheels of 1.8 to 1.12 need no cuDNN at all ... gpudoctor asks for no cuDNN, so
    no cudnn-missing"; and a cuDNN of the needed major found is quiet (TensorFlow 2.11 with cuDNN 8.6)."""
    assert found(recorded("p100-torch112-static-cudnn-none-installed"), "cudnn-missing") == []
    assert found(recorded("rtx3060-tf211-on-cuda118-cudnn86"), "cudnn-missing") == []


@pytest.mark.parametrize("version", ["8.9.1.99", "8.8.9.99", "8.0.5.39", "8.9.1.23"])
@states("cudnn-too-old", FIRES)
def test_cudnn_lower_in_its_first_three_parts_is_too_old(version):
    """cudnn-too-old.md: "The rule: the first three version parts are lower than the minimum's." (minimum 8.9.2.26;
    lower at the patch, the minor, both)"""
    (f,) = found(_dists(H100, nvidia_cudnn_cu12=version), "cudnn-too-old")
    assert version in f.title


@pytest.mark.parametrize("version", ["8.9.2.26", "8.9.2.0", "8.9.3.0", "8.10.0.0"])
@states("cudnn-too-old", QUIET)
def test_cudnn_equal_in_its_first_three_parts_or_newer_is_not_too_old(version):
    """cudnn-too-old.md: "the first three version parts" - 8.9.2.0 against 8.9.2.26 differs only in the build: not
    too old; "Newer minors of the same major are fine"."""
    assert found(_dists(H100, nvidia_cudnn_cu12=version), "cudnn-too-old") == []


@states("cudnn-cuda-mismatch", FIRES)
def test_the_only_cudnn_wheel_is_for_another_cuda_major():
    """cudnn-cuda-mismatch.md: "1. The copy comes from NVIDIA's wheel directory, and the only nvidia-cudnn-cuNN installed
    is for another major." (nvidia-cudnn-cu11 under a cu121 PyTorch)"""
    assert len(found(recorded("rtx4090-torch-cu121-with-cudnn-cu11-wheel"), "cudnn-cuda-mismatch")) == 1


@states("cudnn-cuda-mismatch", QUIET)
def test_a_wheel_of_the_frameworks_own_major_beside_it_is_assumed():
    """cudnn-cuda-mismatch.md: "With a wheel of the framework's own major installed too, that one is assumed; see
    nvidia-wheels-conflict." """
    snap = _dists("rtx4090-torch-cu121-with-cudnn-cu11-wheel", nvidia_cudnn_cu12="8.9.2.26")
    assert found(snap, "cudnn-cuda-mismatch") == []
    assert found(recorded(H100), "cudnn-cuda-mismatch") == []


@states("cudnn-cuda-mismatch", FIRES, QUIET)
def test_a_cudnn_release_built_only_for_other_majors():
    """cudnn-cuda-mismatch.md: "2. The copy's version is known, and compat_matrix/cudnn.toml says that cuDNN release was
    built only for other CUDA majors. For example, cuDNN 8.0.5 has builds for CUDA 10.1, 10.2 and 11.0 to 11.1, and
    none for 12." "Limitation: a release built for several majors cannot be told apart by its version alone." """
    from gpudoctor.facts import CudnnInstall

    facts = _fw(facts_of("rtx3060-tf211-cudnn80-too-old"), "tensorflow", version="2.15.0", cuda="12.2", cudnn="8")
    assert len(judged(facts, "cudnn-cuda-mismatch")) == 1
    newer = replace(facts, cudnn=(CudnnInstall("8.9.7", 8, "library", "/usr/local/cuda-11.8/lib64/libcudnn.so.8.9.7"),))
    assert judged(newer, "cudnn-cuda-mismatch") == []


@pytest.mark.parametrize(
    ("cuda", "driver", "fires"),
    [
        ("11.8", "450.80.02", False),  # CUDA 11's floor on Linux
        ("11.8", "450.80.01", True),
        ("11.8", "450.79.99", True),
        ("11.8", "449.99.99", True),
        ("13.0", "580.65.06", False),  # CUDA 13's floor on Linux
        ("13.0", "580.65.05", True),
        ("13.0", "580.64.99", True),
        ("13.0", "575.99.99", True),
    ],
)
@states("framework-driver-too-old", FIRES, QUIET)
def test_the_floors_of_cuda_11_and_13_at_every_component(cuda, driver, fires):
    """framework-driver-too-old.md: "it is at least the minor-version-compatibility floor of the same major: CUDA 11,
    450.80.02; CUDA 12, 525.60.13; CUDA 13, 580.65.06 (Linux)." """
    facts = _fw(facts_of(P100), "torch", cuda=cuda, version=f"2.1.2+cu{cuda.replace('.', '')}")
    facts = replace(facts, driver={"smi_driver_version": driver, "smi_cuda_version": f"{cuda.split('.')[0]}.0"})
    assert len(judged(facts, "framework-driver-too-old")) == int(fires)


@pytest.mark.parametrize(("driver", "fires"), [("527.41", False), ("528.33", False), ("527.40", True), ("526.98", True)])
@states("framework-driver-too-old", FIRES, QUIET)
def test_the_windows_floor_of_cuda_12(driver, fires):
    """toolkit-newer-than-driver.md: "The floors (Linux / Windows): ... CUDA 12: 525.60.13 / 527.41", which
    framework-driver-too-old.md applies too (tests/machines/windows-forge-torch21-cu121-driver-cuda114: a cu121
    PyTorch on Windows)."""
    facts = replace(
        facts_of("windows-forge-torch21-cu121-driver-cuda114"), driver={"smi_driver_version": driver, "smi_cuda_version": "12.0"}
    )
    assert len(judged(facts, "framework-driver-too-old")) == int(fires)


@states("framework-cpu-build", FIRES, QUIET)
def test_without_version_py_the_tag_and_the_os_tell_the_build():
    """framework-cpu-build.md: "If that file is missing, only a +cuXXX tag in the installed version marks a CUDA build,
    and another tag (+cpu) a CPU-only one. A plain 2.1.0 counts as CPU-only on Windows and macOS ...; on Linux, where
    PyPI's default wheel is a CUDA build, its build is unknown and nothing is said." """
    snap = recorded("rtx3060-laptop-torch-cpu-build")
    version_py = [k for k in snap["files"] if k.endswith("torch/version.py")]
    assert version_py
    for k in version_py:
        snap["files"].pop(k)
    expected = {"2.1.0+cpu": 1, "2.1.0+cu121": 0, "2.1.0": 0}
    for version, n in expected.items():
        snap["python"]["distributions"]["torch"] = version
        assert len(found(snap, "framework-cpu-build")) == n, version
    windows = recorded("windows-rtx4080-laptop-torch222-cpu")
    for k in [k for k in windows.get("files", {}) if k.replace("\\", "/").endswith("torch/version.py")]:
        windows["files"].pop(k)
    windows["python"]["distributions"]["torch"] = "2.2.2"
    assert len(found(windows, "framework-cpu-build")) == 1


@states("tf-preallocates", QUIET)
def test_tf_on_native_windows_or_a_gpu_hidden_from_it_is_not_judged():
    """tf-preallocates.md: "Native Windows is skipped"; "a GPU this environment would use (CUDA_VISIBLE_DEVICES
    applied ...)" - the shared GPU hidden is no finding."""
    snap = _env(TFJOB, CUDA_VISIBLE_DEVICES="")
    assert found(snap, "tf-preallocates") == []
    windows = _fw(facts_of(TFJOB), "tensorflow", version="2.10.0")
    windows = replace(windows, platform={"system": "Windows"})
    assert judged(windows, "tf-preallocates") == []


@states("framework-arch-unsupported", QUIET, FIRES)
def test_ptx_is_assumed_to_jit_to_newer_gpus():
    """framework-arch-unsupported.md: "PTX is assumed to be JIT-compilable by the installed driver." - TensorFlow
    2.11's list ends in compute_80 (PTX), which runs on the RTX 4000 Ada's 8.9; without it, sm_75 cubins do not."""
    facts = facts_of("rtx4000ada-tf-beside-torch-job")
    assert "compute_80" in facts.frameworks.tensorflow.value.compute_capabilities
    assert judged(facts, "framework-arch-unsupported") == []
    cubins_only = _fw(facts, "tensorflow", compute_capabilities=("sm_35", "sm_50", "sm_60", "sm_70", "sm_75"))
    assert len(judged(cubins_only, "framework-arch-unsupported")) == 1
    ptx_above = _fw(facts, "tensorflow", compute_capabilities=("sm_75", "compute_90"))
    assert len(judged(ptx_above, "framework-arch-unsupported")) == 1  # PTX for 9.0 does not run on 8.9


@states("framework-arch-unsupported", QUIET)
def test_an_unknown_list_is_not_judged():
    """framework-arch-unsupported.md: "When the list is unknown, the check stays silent." """
    facts = _fw(facts_of("rtx4000ada-tf-beside-torch-job"), "tensorflow", compute_capabilities=(), version="2.99.0")
    assert judged(facts, "framework-arch-unsupported") == []


@states("jax-preallocates", QUIET)
def test_display_processes_alone_do_not_make_a_gpu_shared_for_jax():
    """jax-preallocates.md: "at least one compute process (type C or C+G, or NVML-listed) holds memory on a GPU this
    environment would use; display processes alone, MIG instances and idle GPUs do not count." """
    facts = facts_of(JAXNB)
    assert len(judged(facts, "jax-preallocates")) == 1
    display = tuple(
        dataclasses.replace(g, processes=tuple(dataclasses.replace(p, type="G") for p in g.processes)) for g in facts.driver.gpus
    )
    assert judged(replace(facts, driver={"gpus": display, "smi_gpus": display, "nvml_gpus": ()}), "jax-preallocates") == []
    idle = tuple(dataclasses.replace(g, processes=()) for g in facts.driver.gpus)
    assert judged(replace(facts, driver={"gpus": idle, "smi_gpus": idle, "nvml_gpus": ()}), "jax-preallocates") == []
    mig = tuple(dataclasses.replace(g, mig_current=True, mig_devices=1) for g in facts.driver.gpus)
    assert judged(replace(facts, driver={"gpus": mig, "smi_gpus": mig, "nvml_gpus": ()}), "jax-preallocates") == []


@states("cudnn-too-old", QUIET)
def test_a_cudnn_bundled_in_torch_lib_is_not_judged():
    """cudnn-too-old.md: "A copy bundled inside torch/lib is not judged: it ships with PyTorch." (PyTorch 1.12.1+cu113
    carries its cuDNN in torch/lib)"""
    assert found(recorded("p100-torch112-static-cudnn-none-installed"), "cudnn-too-old") == []


@pytest.mark.parametrize(
    ("version", "conda", "judged_"),
    [
        ("1.12.1+cu113", False, False),  # PyTorch's pip wheel: carries its cuDNN
        ("1.12.1+cu113", True, False),  # a tagged wheel, even inside a conda environment
        ("1.12.1", False, False),  # untagged outside conda: the pip wheel
        ("1.12.1", True, True),  # untagged in conda: the conda package, on the environment's cudnn
        ("1.12.0a0+bd13bc6", False, True),  # a pre-release: a source or NGC build on the system's cuDNN
    ],
)
@states("cudnn-missing", FIRES, QUIET)
def test_which_old_pytorch_builds_carry_their_own_cudnn(version, conda, judged_):
    """cudnn-missing.md: "For such a wheel (a +cuXYZ version tag, or an untagged torch outside a conda environment)
    gpudoctor asks for no cuDNN ... Conda packages of the same releases (an untagged torch in a conda environment) load
    the environment's cudnn package and are still judged; so are pre-releases (2.1.0a0+...)". (PyTorch 1.12 with no
    cuDNN anywhere: tests/machines/p100-torch112-static-cudnn-none-installed)"""
    facts = _fw(facts_of("p100-torch112-static-cudnn-none-installed"), "torch", version=version)
    if conda:
        py = facts.frameworks.python
        facts = replace(facts, frameworks={"python": dataclasses.replace(py, value=dataclasses.replace(py.value, kind="conda"))})
    assert len(judged(facts, "cudnn-missing")) == int(judged_)


@pytest.mark.parametrize(("cu12", "too_old"), [("8.9.2.26", None), ("8.9.1.23", "8.9.1.23")])
@states("cudnn-too-old", FIRES, QUIET)
def test_the_version_is_the_wheel_of_the_frameworks_own_cuda_major(cu12, too_old):
    """cudnn-too-old.md: "Its version: for a wheel, the version of the installed nvidia-cudnn-cuNN of the framework's
    CUDA major" - beside nvidia-cudnn-cu11 8.5.0.96, a cu121 PyTorch is judged on nvidia-cudnn-cu12's version."""
    snap = _dists("rtx4090-torch-cu121-with-cudnn-cu11-wheel", nvidia_cudnn_cu12=cu12)
    got = found(snap, "cudnn-too-old")
    assert [too_old in f.title for f in got] == ([True] if too_old else [])


@states("tf-preallocates", QUIET)
def test_cuda_visible_devices_naming_a_mig_instance_leaves_no_shared_gpu():
    """tf-preallocates.md: "a GPU this environment would use (CUDA_VISIBLE_DEVICES applied; none when it names a MIG
    instance)"."""
    assert len(found(_env(TFJOB), "tf-preallocates")) == 1
    assert found(_env(TFJOB, CUDA_VISIBLE_DEVICES="MIG-4a2f1c3e-0000-0000-0000-000000000000"), "tf-preallocates") == []


def test_without_elf_records_the_fixed_order_is_ld_library_path_own_directories_cache():
    """cudnn-too-old.md: "Otherwise (a snapshot without ELF records) a fixed order: LD_LIBRARY_PATH, then the
    framework's own and NVIDIA's wheel directories, then the ldconfig cache." (cudnn-missing.md: the same three)"""
    from gpudoctor.facts import LibDir
    from gpudoctor.loader import resolve_library

    so = "libcudnn.so.8"
    llp = (LibDir("/opt/old/lib64", "LD_LIBRARY_PATH", (so,)),)
    own = (LibDir("/venv/site-packages/nvidia/cudnn/lib", "wheel", (so,)),)
    cache = {so: ("/usr/lib/x86_64-linux-gnu/libcudnn.so.8",)}
    assert resolve_library(so, llp, own, cache).path == "/opt/old/lib64/" + so
    assert resolve_library(so, (), own, cache).path == "/venv/site-packages/nvidia/cudnn/lib/" + so
    assert resolve_library(so, (), (), cache).path == "/usr/lib/x86_64-linux-gnu/libcudnn.so.8"
    assert resolve_library(so, (LibDir("/opt/x", "LD_LIBRARY_PATH", ("libcudnn.so.9",)),), (), None).path is None
