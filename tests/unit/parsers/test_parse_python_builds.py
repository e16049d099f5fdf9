"""torch/version.py, TensorFlow build_info.py, jaxlib/version.py and dist-info METADATA."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.errors import ParseError
from gpudoctor.parsers.jax_version import parse_dist_metadata, parse_jaxlib_version_py, requirements
from gpudoctor.parsers.tf_build_info import parse_tf_build_info
from gpudoctor.parsers.torch_version import parse_torch_version_py

FIXTURES = Path(__file__).parents[2] / "fixtures"


def _files(folder: str) -> list[str]:
    return sorted(p.name for p in (FIXTURES / folder).iterdir())


def _read(folder: str, name: str) -> str:
    return (FIXTURES / folder / name).read_text(encoding="utf-8")


# --- torch ------------------------------------------------------------------------------

TORCH_EXPECTED = {
    "version.py_torch-1.13.1+cu117_old-format.py": (
        "1.13.1+cu117",
        "11.7",
        None,
        False,
        "49444c3e546bf240bed24a101e747422d1f8a0ee",
    ),
    "version.py_torch-2.13.0+cpu.py": ("2.13.0+cpu", None, None, False, "cf30153c4c131c8164ee7798e5022d810682e2cb"),
    "version.py_torch-2.2.1+cu121.py": ("2.2.1+cu121", "12.1", None, False, "6c8c5ad5eaf47a62fafbb4a2747198cbffbf1ff0"),
}


def test_every_torch_fixture_has_expectations() -> None:
    assert set(_files("torch-version")) == set(TORCH_EXPECTED)


@pytest.mark.parametrize("name", _files("torch-version"))
def test_torch_facts(name: str) -> None:
    build = parse_torch_version_py(_read("torch-version", name))
    assert (build.version, build.cuda, build.hip, build.debug, build.git_version) == TORCH_EXPECTED[name]
    assert build.rocm is None and build.xpu is None


def test_torch_version_is_never_executed() -> None:
    text = "import os\nos.system('false')\n__version__ = '2.3.0+cu118'\ncuda = '11.8'\nhip = None\n"
    assert parse_torch_version_py(text).cuda == "11.8"
    rocm = "__version__ = '2.3.0+rocm6.0'\ncuda: Optional[str] = None\nhip: Optional[str] = '6.0.32830-d62f6a171'\n"
    assert parse_torch_version_py(rocm).hip == "6.0.32830-d62f6a171"
    for bad in ("", "cuda = '12.1'\n", "__version__ = compute()\n", "def (:\n", "__version__ = '1.0'\x00"):
        with pytest.raises(ParseError):
            parse_torch_version_py(bad)


# --- TensorFlow -----------------------------------------------------------------------------

TF_EXPECTED = {
    "build_info.py_tensorflow-2.11.0_linux_cuda-11.2_cudnn-8.py": dict(
        is_cuda_build=True,
        is_tensorrt_build=True,
        cuda_version="11.2",
        cudnn_version="8",
        cuda_version_normalized="11.2",
        cudnn_version_normalized="8",
        cuda_compute_capabilities=("sm_35", "sm_50", "sm_60", "sm_70", "sm_75", "compute_80"),
        cpu_compiler="/dt9/usr/bin/gcc",
        cudart_dll_name=None,
        msvcp_dll_names=(),
    ),
    "build_info.py_tensorflow-2.3-era_windows_cuda-64_101_plain-dict.py": dict(
        is_cuda_build=True,
        is_tensorrt_build=None,
        cuda_version="64_101",
        cudnn_version="64_7",
        cuda_version_normalized="10.1",
        cudnn_version_normalized="7",
        cuda_compute_capabilities=("sm_35", "sm_37", "sm_52", "sm_60", "sm_61", "compute_70"),
        cudart_dll_name="cudart64_101.dll",
        cudnn_dll_name="cudnn64_7.dll",
        nvcuda_dll_name="nvcuda.dll",
        msvcp_dll_names=("msvcp140.dll", "msvcp140_1.dll"),
    ),
    "build_info.py_tensorflow-2.5-era_windows_cuda-64_112.py": dict(
        is_cuda_build=True,
        is_tensorrt_build=False,
        cuda_version="64_112",
        cudnn_version="64_8",
        cuda_version_normalized="11.2",
        cudnn_version_normalized="8",
        cuda_compute_capabilities=("sm_35", "sm_50", "sm_60", "sm_70", "sm_75", "compute_80"),
        cudart_dll_name="cudart64_112.dll",
        cudnn_dll_name="cudnn64_8.dll",
        msvcp_dll_names=("msvcp140.dll", "msvcp140_1.dll"),
    ),
    "build_info.py_tensorflow-cpu-2.21.0_linux_cpu-only.py": dict(
        is_cuda_build=False,
        is_rocm_build=False,
        is_tensorrt_build=False,
        cuda_version=None,
        cudnn_version=None,
        cuda_version_normalized=None,
        cuda_compute_capabilities=(),
        cpu_compiler=None,
    ),
    "build_info.py_tensorflow-gpu-1.15.0_linux_module-vars_cuda-10.py": dict(
        is_cuda_build=True,
        is_rocm_build=False,
        is_tensorrt_build=None,
        cuda_version="10",
        cudnn_version="7",
        cuda_version_normalized="10",
        cudnn_version_normalized="7",
        cuda_compute_capabilities=(),
    ),
}


def test_every_tf_fixture_has_expectations() -> None:
    assert set(_files("tf-build-info")) == set(TF_EXPECTED)


@pytest.mark.parametrize("name", _files("tf-build-info"))
def test_tf_facts(name: str) -> None:
    build = parse_tf_build_info(_read("tf-build-info", name))
    for field, want in TF_EXPECTED[name].items():
        assert getattr(build, field) == want, field


def test_tf_raw_keeps_the_dict() -> None:
    build = parse_tf_build_info(_read("tf-build-info", "build_info.py_tensorflow-gpu-1.15.0_linux_module-vars_cuda-10.py"))
    assert build.raw == {"is_rocm_build": False, "is_cuda_build": True, "cuda_version_number": "10", "cudnn_version_number": "7"}
    build = parse_tf_build_info(_read("tf-build-info", "build_info.py_tensorflow-cpu-2.21.0_linux_cpu-only.py"))
    assert build.raw == {"is_cuda_build": False, "is_rocm_build": False, "is_tensorrt_build": False}


def test_tf_garbage() -> None:
    for bad in ("", "import collections\n", "build_info = make()\n", "build_info = collections.OrderedDict(x)\n"):
        with pytest.raises(ParseError):
            parse_tf_build_info(bad)


# --- JAX ---------------------------------------------------------------------------------------


def test_jax_fixtures_are_all_covered() -> None:
    assert _files("jax-version") == ["jax-cuda12-plugin-0.4.38_dist-info_METADATA.txt", "jaxlib-0.10.2_version.py"]


def test_jaxlib_version_py() -> None:
    parsed = parse_jaxlib_version_py(_read("jax-version", "jaxlib-0.10.2_version.py"))
    assert parsed.version == "0.10.2"
    assert parsed.base_version == "0.10.2" and parsed.release_version == "0.10.2"
    assert parsed.git_hash == "990e6a0b84138346e6a38785412f36356e0e5dc3"
    assert parsed.minimum_jaxlib_version == "0.10.1"
    assert parse_jaxlib_version_py('__version__ = "0.1.69"\n').version == "0.1.69"
    unreleased = '_version = "0.4.31"\n_release_version: str | None = None\n'
    assert parse_jaxlib_version_py(unreleased).version == "0.4.31"
    with pytest.raises(ParseError):
        parse_jaxlib_version_py("__version__ = _get_version_string()\n")


def test_dist_metadata() -> None:
    meta = parse_dist_metadata(_read("jax-version", "jax-cuda12-plugin-0.4.38_dist-info_METADATA.txt"))
    assert (meta.name, meta.version, meta.requires_python) == ("jax-cuda12-plugin", "0.4.38", ">=3.10")
    assert meta.summary == "JAX Plugin for NVIDIA GPUs"
    assert len(meta.requires_dist) == 11
    assert meta.requires_dist[0] == "jax-cuda12-pjrt ==0.4.38"
    assert "nvidia-cudnn-cu12 <10.0,>=9.1 ; extra == 'with_cuda'" in meta.requires_dist
    by_name = {r.name: r for r in requirements(meta)}
    assert str(by_name["nvidia-cudnn-cu12"].specifier) == "<10.0,>=9.1"
    assert by_name["nvidia-cuda-runtime-cu12"].marker is not None
    for bad in ("", "Name: x\n", "just some text\n"):
        with pytest.raises(ParseError):
            parse_dist_metadata(bad)
