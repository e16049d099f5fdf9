"""The head of the libraries beyond the frameworks (catalogue.toml's block for tests/pasted/head/libraries.toml, h185):
xformers' "No operator found", mmcv's version assertion and missing ops, Numba's libNVVM, bitsandbytes' Linux library
on Windows, CuPy's duplicate-wheel warning under a server's line prefix (with its plan when two CUDA majors are
listed), and a GPU named in words beside an nvidia-smi header without rows. Each read from a real paste (the head's
inputs), and each with its near miss that must stay quiet."""

from __future__ import annotations

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.parsers.catalogue import match
from gpudoctor.pasted import Source, read_pasted
from tests.pasted.head.figures import HERE

INPUTS = HERE / "libraries"


def _read(text: str) -> dict:
    return read_pasted([Source("t", text)])


def _run(text: str):
    snapshot = validate_snapshot(_read(text), "t")
    report = diagnose(ReplayHost(snapshot))
    assert not report.internal_errors, report.internal_errors
    return report


def _input(name: str) -> str:
    return (INPUTS / name).read_text(encoding="utf-8")


def _entries(text: str) -> set[str]:
    return {e.get("entry") for e in match(text)}


def test_xformers_no_operator_is_read_and_its_operator_list_is_not():
    # https://github.com/sipie800/ComfyUI-PuLID-Flux-Enhanced/issues/34
    assert "xformers-no-operator" in _entries(_input("xformers-no-operator.txt"))
    # quiet twin: python -m xformers.info's own listing of operators, one unavailable, is no failure
    healthy = "xFormers 0.0.23\nmemory_efficient_attention.cutlassF:               available\nmemory_efficient_attention.flshattF@v2.3.6:        unavailable\n"
    assert "xformers-no-operator" not in _entries(healthy)


def test_mmcv_version_assertion_is_read_and_its_source_line_is_not():
    # https://github.com/open-mmlab/mmsegmentation/issues/3729
    [e] = [e for e in match(_input("mmcv-version-incompatible.txt")) if e.get("entry") == "mmcv-version-incompatible"]
    assert e.kind == "mmcv-version-incompatible" and e.get("have") == "2.2.0" and e.get("range") == "2.0.0rc4."
    # quiet twin: a traceback showing the assert's source line (the f-string, no version in it)
    source_line = "    f'MMCV=={mmcv.__version__} is used but incompatible. ' \\\n"
    assert "mmcv-version-incompatible" not in _entries(source_line)


def test_mmcv_without_its_ops_is_read_and_the_loader_line_alone_is_not():
    # https://github.com/icey-zhang/E2E-MFD/issues/24
    assert "mmcv-ext-missing" in _entries(_input("mmcv-ext-missing.txt"))
    # quiet twin: the loader's line in a traceback that failed for another reason
    other = "    ext = importlib.import_module('mmcv.' + name)\nImportError: libcudart.so.11.0: cannot open shared object file\n"
    assert "mmcv-ext-missing" not in _entries(other)


def test_numba_nvvm_missing_is_read():
    # https://github.com/xinzhuma/monodle/issues/23 (Windows: nvvm.dll)
    report = _run(_input("numba-nvvm-not-found.txt"))
    assert report.facts.pasted.reported("numba-nvvm-not-found")
    # quiet twin: numba -s finding NVVM
    found = "Finding nvvm from CUDA_HOME\n\tnamed  libnvvm.so.4.0.0\n\ttrying to open library...\tok\n"
    assert "numba-nvvm-not-found" not in _entries(found)


def test_bitsandbytes_linux_library_on_windows_is_the_old_release():
    # https://github.com/deepseek-ai/DeepSeek-Coder/issues/97: bitsandbytes loads libbitsandbytes_cpu.so from a D:\ path
    report = _run(_input("bnb-compiled-without-gpu.txt"))
    codes = {f.code: f for f in report.findings}
    f = codes["framework-windows-native-gpu"]
    assert any("bitsandbytes>=0.43.0" in map(str, c.argv) for c in f.remediation.commands)
    assert "companion-torch-mismatch" not in codes  # one cause, one finding
    # quiet twins: the same library under a Linux path, and a Windows release's .dll
    assert "bitsandbytes-windows-linux-library" not in _entries(
        "bin /opt/conda/lib/python3.10/site-packages/bitsandbytes/libbitsandbytes_cpu.so\n"
    )
    assert "bitsandbytes-windows-linux-library" not in _entries(
        "C:\\venv\\Lib\\site-packages\\bitsandbytes\\libbitsandbytes_cuda121.dll\n"
    )


def test_cupy_duplicate_wheels_under_a_server_prefix_plan_the_cuda_major():
    # https://github.com/gpustack/gpustack/issues/5459: vLLM's "(APIServer pid=1) " before each line
    report = _run(_input("cupy-multiple-packages.txt"))
    f = {f.code: f for f in report.findings}["nvidia-wheels-conflict"]
    argvs = [[str(a) for a in c.argv] for c in f.remediation.commands]
    assert argvs[0][-2:] == ["-c", "import torch; print(torch.version.cuda)"]
    assert argvs[1][-4:] == ["uninstall", "-y", "cupy-cuda12x", "cupy-cuda13x"]
    assert argvs[2][-1] == "<cupy-package-of-that-cuda-major>"
    # quiet twin: the same prefix on a line that only names the wheels
    assert "cupy-multiple-packages" not in _entries("(APIServer pid=1) INFO  cupy-cuda12x, cupy-cuda13x loaded\n")


def test_one_cuda_wheel_beside_source_cupy_keeps_that_wheel():
    # the twin of the two-major plan: one wheel built for a CUDA major is the one installed back, no torch asked
    text = (
        "  CuPy may not function correctly because multiple CuPy packages are installed\n  in your environment:\n\n"
        "    cupy, cupy-cuda11x\n"
    )
    f = {f.code: f for f in _run(text).findings}["nvidia-wheels-conflict"]
    argvs = [[str(a) for a in c.argv] for c in f.remediation.commands]
    assert [a[-2:] for a in argvs] == [["cupy", "cupy-cuda11x"], ["install", "cupy-cuda11x"]]


def test_a_gpu_named_beside_an_nvidia_smi_header_without_rows_is_the_machines():
    # https://github.com/microsoft/MInference/issues/51: "GPU：Tesla V100S" and nvidia-smi's header line only
    report = _run(_input("flash-attn-ampere-only.txt"))
    codes = {f.code: f for f in report.findings}
    assert [e.value for e in codes["framework-arch-unsupported"].evidence][1:] == ["Tesla V100S: 7.0"]
    # quiet twin: an nvidia-smi table with its GPU row wins over a GPU the prose names
    table = (
        "+-----------------------------------------------------------------------------+\n"
        "| NVIDIA-SMI 450.102.04   Driver Version: 450.102.04   CUDA Version: 11.0     |\n"
        "|-------------------------------+----------------------+----------------------+\n"
        "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
        "| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |\n"
        "|                               |                      |               MIG M. |\n"
        "|===============================+======================+======================|\n"
        "|   0  Tesla T4            On   | 00000000:00:09.0 Off |                    0 |\n"
        "| N/A   N/A    P0    N/A /  N/A |   1104MiB / 15109MiB |      0%      Default |\n"
        "|                               |                      |                  N/A |\n"
        "+-------------------------------+----------------------+----------------------+\n"
        "GPU: Tesla V100S\nRuntimeError: FlashAttention only supports Ampere GPUs or newer.\n"
    )
    names = [g.name for g in _run(table).facts.driver.gpus]
    assert names and all("V100S" not in n for n in names)
