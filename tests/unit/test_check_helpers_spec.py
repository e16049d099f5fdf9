"""The checks' small documented rules (docstrings of gpudoctor.checks.driver, .frameworks), one sentence each, the
expectations written by hand: how a driver version is printed, where the user-space driver version comes from,
what counts as a GPU under WSL, which builds are pre-releases and nightlies, how an arch list is read."""

from __future__ import annotations

import pytest

from gpudoctor.checks.driver import _driver_version_printed, _library_version, gpu_present, wsl_linux_driver_libs
from gpudoctor.checks.frameworks import dev_base, image_build, runs_on
from gpudoctor.facts import DeviceNode
from gpudoctor.probed import Found
from tests.spec.machine import facts_of, replace

H100 = "h100x8-driver565-torch221-cu121"


# --- _driver_version_printed: "no third number where it is 0, else two digits (515.48.07)"


@pytest.mark.parametrize(
    ("tuple_digits", "printed"),
    [
        ("440.36.0", "440.36"),
        ("515.48.7", "515.48.07"),
        ("550.54.14", "550.54.14"),
        ("535.104.05", "535.104.05"),
        ("470.82", "470.82"),
    ],
)
def test_a_driver_version_is_printed_as_nvidia_writes_it(tuple_digits, printed):
    assert _driver_version_printed(tuple_digits) == printed


# --- _library_version: "NVML's version is "12.550.54.14": CUDA major, then the driver version."


def test_the_library_version_drops_nvmls_cuda_major():
    facts = facts_of(H100)
    d = replace(facts, driver={"nvml_version": "12.550.54.14", "smi_error": None, "nvml_error": None})
    assert _library_version(d) == "550.54.14"


# --- gpu_present: "the PCI bus, the driver's own list, or (WSL2) the GPU paravirtualisation node"


def _wsl(wsl: int | None, dxg: bool):
    facts = facts_of(H100)
    nodes = (DeviceNode("/dev/dxg", "char", True, True),) if dxg else ()
    return replace(
        facts,
        platform={"wsl": wsl},
        driver={"gpus": (), "smi_gpus": ()},
        kernel={"pci": Found((), "sysfs"), "device_nodes": nodes},
    )


@pytest.mark.parametrize(("wsl", "dxg", "present"), [(2, True, True), (2, False, False), (1, True, False), (None, True, False)])
def test_the_dxg_node_is_a_gpu_under_wsl2_only(wsl, dxg, present):
    assert gpu_present(_wsl(wsl, dxg)) is present


# --- wsl_linux_driver_libs: "Driver libraries installed by a Linux driver package inside WSL (outside /usr/lib/wsl)"


def test_linux_driver_libraries_inside_wsl2_are_those_outside_usr_lib_wsl():
    cache = {
        "libcuda.so.1": ("/usr/lib/wsl/lib/libcuda.so.1", "/usr/lib/x86_64-linux-gnu/libcuda.so.1"),
        "libnvidia-ml.so.1": ("/usr/lib/wsl/drivers/nv_dispi.inf_amd64/libnvidia-ml.so.1", "/usr/lib64/libnvidia-ml.so.1"),
    }
    facts = replace(_wsl(2, True), ldconfig=Found(cache, "cmd:ldconfig -p"))
    assert wsl_linux_driver_libs(facts) == ["/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/usr/lib64/libnvidia-ml.so.1"]
    assert wsl_linux_driver_libs(replace(facts, platform={"wsl": 1})) == []


# --- image_build: "A pre-release version (2.1.0a0+32f93b1) ... A nightly (.devYYYYMMDD) is not one"; dev_base: "the
# release a nightly (development) build leads to"


@pytest.mark.parametrize(
    ("version", "image"),
    [
        ("2.1.0a0+32f93b1", True),
        ("2.2.0b1", True),
        ("2.3.0rc1", True),
        ("2.3.0rc1+cu121", True),
        ("2.7.0.dev20250310+cu124", False),
        ("2.2.1+cu121", False),
        ("2.2.1", False),
        (None, False),
    ],
)
def test_image_build(version, image):
    assert image_build(version) is image


@pytest.mark.parametrize(
    ("version", "base"),
    [("2.7.0.dev20250310+cu124", "2.7.0"), ("2.6.0.dev20241112", "2.6.0"), ("2.6.0", None), ("2.1.0a0", None)],
)
def test_dev_base(version, base):
    assert dev_base(version) == base


# --- runs_on: kernels "listed as sm_XY / compute_XY (or "X.Y" cubins)": compute_ is PTX, the rest cubins


@pytest.mark.parametrize(
    ("archs", "cc", "runs"),
    [
        (("sm_80", "compute_80"), "9.0", True),  # PTX 8.0 JIT-compiles for 9.0
        (("sm_80", "sm_86"), "9.0", False),  # cubins never cross a major
        (("sm_80", "COMPUTE_80"), "9.0", True),
        ((" sm_80", " compute_80 "), "9.0", True),
        (("8.0", "8.6"), "8.9", True),
        (("sm_90a",), "9.0", True),
        (("sm_90a",), "10.0", False),
        ((), "9.0", None),  # nothing listed: unknown
    ],
)
def test_runs_on(archs, cc, runs):
    assert runs_on(archs, cc) is runs


# --- gpudoctor.checks.wheel_majors: which CUDA major a framework loads NVIDIA's wheels for


def _frameworks(**changes):
    return replace(facts_of(H100), frameworks=changes)


@pytest.mark.parametrize(
    ("plugins", "jaxlib", "cuda_major"),
    [
        ({"jax-cuda12-plugin": "0.4.30", "jax-cuda12-pjrt": "0.4.30"}, "0.4.30", 12),
        ({"jax-cuda13-pjrt": "0.7.1"}, "0.7.1", 13),
        ({"jax-cuda11-plugin": "0.4.20"}, "0.4.20", 11),
        ({}, "0.4.6+cuda11.cudnn86", 11),  # a jaxlib+cudaNN build (before the plugins)
        ({}, "0.4.23+cuda12.cudnn89", 12),
        ({}, "0.4.30", None),  # a CPU jaxlib
    ],
)
def test_jax_cuda_major_from_its_plugin_or_its_local_tag(plugins, jaxlib, cuda_major):
    from gpudoctor.checks.wheel_majors import jax_cuda_major
    from gpudoctor.facts import JaxFacts

    jax = JaxFacts(jaxlib.split("+")[0], jaxlib, plugins, "/site-packages/jax")
    assert jax_cuda_major(_frameworks(jax=Found(jax, "dist:jax"))) == cuda_major


@pytest.mark.parametrize(
    ("distribution", "cuda_build", "wants_gpu"),
    [
        ("tensorflow", True, True),
        ("tensorflow", False, False),
        ("tensorflow", None, False),  # build_info unreadable: only tensorflow-gpu says it wants one
        ("tensorflow-gpu", None, True),
        ("tensorflow-gpu", False, False),
        ("tensorflow-cpu", True, False),
        ("tensorflow-cpu", None, False),
    ],
)
def test_a_tensorflow_that_wants_a_gpu(distribution, cuda_build, wants_gpu):
    """tf_gpu: "A TensorFlow that wants a GPU: a CUDA build, or tensorflow-gpu whose build_info was unreadable." """
    from gpudoctor.checks.wheel_majors import tf_gpu
    from gpudoctor.facts import TensorflowFacts

    tf = TensorflowFacts("2.11.0", distribution, cuda_build, "11.2", "8", "/site-packages/tensorflow")
    assert (tf_gpu(_frameworks(tensorflow=Found(tf, "dist:tensorflow"))) is not None) is wants_gpu
