"""The pasted-text engine on real captures: each block kind is recognised alone and inside prose, and gives
what its parser (gpudoctor.parsers, one per format) reads from the same capture."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.parsers.error_texts import classify_error_text, extract_evidence
from gpudoctor.parsers.nvcc import parse_nvcc_version
from gpudoctor.parsers.nvidia_smi_text import parse_nvidia_smi_table
from gpudoctor.parsers.proc_driver_version import parse_proc_driver_version
from gpudoctor.parsers.tf_build_info import parse_tf_build_info
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.blocks import find_blocks

FIXTURES = Path(__file__).parents[2] / "fixtures"
CASES = Path(__file__).parents[2] / "pasted" / "cases"
PROSE_BEFORE = "Hi, I get an error when I run my script. Here is what I see:\n```\n"
PROSE_AFTER = "\n```\nAny idea? Thanks!\n"

SMI_TABLES = sorted(
    p
    for p in (FIXTURES / "nvidia-smi-text").glob("*.txt")
    if "NVIDIA-SMI" in p.read_text(encoding="utf-8") and "Driver" in p.read_text(encoding="utf-8")
)
NVCC = sorted((FIXTURES / "nvcc").glob("*.txt"))
PROC = sorted((FIXTURES / "proc-driver-version").glob("*.txt"))
TF = sorted(p for p in (FIXTURES / "tf-build-info").glob("*.py") if "build_info = " in p.read_text(encoding="utf-8"))


def _read(text: str) -> dict:
    return validate_snapshot(read_pasted([Source("paste.txt", text)]), "paste")


def _kinds(text: str) -> list[str]:
    return [b.kind for b in find_blocks(text)]


@pytest.mark.parametrize("path", SMI_TABLES, ids=lambda p: p.name)
def test_nvidia_smi_tables(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    table = parse_nvidia_smi_table(text)
    if table.driver_version is None:
        pytest.skip("an excerpt without the header's driver version")
    for pasted in (text, PROSE_BEFORE + text + PROSE_AFTER, "\n".join("> " + line for line in text.splitlines())):
        assert "nvidia_smi" in _kinds(pasted)
        snap = _read(pasted)
        again = parse_nvidia_smi_table(snap["commands"]["nvidia-smi"]["stdout"])
        assert again.driver_version == table.driver_version
        assert len(again.gpus) == len(table.gpus)
        assert [g.name for g in again.gpus] == [g.name for g in table.gpus]
    if any((g.driver_model or "") in ("WDDM", "TCC") for g in table.gpus):
        assert _read(text)["platform"]["system"] == "Windows"


@pytest.mark.parametrize("path", NVCC, ids=lambda p: p.name)
def test_nvcc(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    pasted = "$ nvcc --version\n" + text + "\n$ python train.py\n"
    assert "nvcc" in _kinds(pasted)
    snap = _read(pasted)
    assert parse_nvcc_version(snap["commands"]["nvcc --version"]["stdout"]).version == parse_nvcc_version(text).version


@pytest.mark.parametrize("path", PROC, ids=lambda p: p.name)
def test_proc_driver_version(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    snap = _read(PROSE_BEFORE + "$ cat /proc/driver/nvidia/version\n" + text + PROSE_AFTER)
    assert (
        parse_proc_driver_version(snap["files"]["/proc/driver/nvidia/version"]).version == parse_proc_driver_version(text).version
    )


@pytest.mark.parametrize("path", TF, ids=lambda p: p.name)
def test_tf_build_info_as_printed(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    start = source.find("OrderedDict(") if "OrderedDict(" in source else source.find("{", source.find("build_info = "))
    printed = source[start:].strip()  # what tf.sysconfig.get_build_info() prints for this build
    pasted = (
        ">>> import tensorflow as tf\n>>> tf.sysconfig.get_build_info()\n"
        + printed
        + "\ntensorflow 2.11.0\ntensorflow-estimator 2.11.0\n"
    )
    assert "tf_build_info" in _kinds(pasted)
    snap = _read(pasted)
    site = snap["python"]["site_packages"][0]
    written = snap["files"][f"{site}/tensorflow/python/platform/build_info.py"]
    assert parse_tf_build_info(written).cuda_version == parse_tf_build_info(source).cuda_version
    if parse_tf_build_info(source).msvcp_dll_names:
        assert snap["platform"]["system"] == "Windows"


@pytest.mark.parametrize(
    "name, code",
    [
        ("nvml_driver-library-version-mismatch_nvml-550.144.txt", "driver-library-mismatch"),
        ("nvml_unknown-error_container-after-daemon-reload.txt", "nvml-unknown-error"),
        ("nvidia-smi_couldnt-communicate-with-driver.txt", "driver-unreachable"),
    ],
)
def test_nvml_errors(name: str, code: str) -> None:
    text = (FIXTURES / "errors" / name).read_text(encoding="utf-8")
    kinds = {(e.kind, e.get("code")) for e in extract_evidence(text)}
    assert ("nvml", code) in kinds and classify_error_text(text) == code
    snap = _read(PROSE_BEFORE + text + PROSE_AFTER)
    if code == "driver-library-mismatch":
        assert snap["nvml"]["status"] == "lib_rm_version_mismatch"
    else:
        assert classify_error_text(snap["commands"]["nvidia-smi"]["stdout"]) == code


def _case(slug: str) -> str:
    path = CASES / slug / "report.txt"
    if not path.exists():
        pytest.skip(f"case {slug} is not in tests/pasted/cases")
    return path.read_text(encoding="utf-8", errors="replace")


def test_collect_env_old_layout_hand_edited() -> None:
    # PyTorch 1.5's layout, pasted with the first colon lost and full-width colons in the GPU lines.
    snap = _read(_case("pytorch-37320-p100-torch150-cu102-driver410"))
    assert snap["python"]["distributions"]["torch"] == "1.5.0"
    assert snap["nvml"]["driver_version"] == "410.104"
    assert [d["name"] for d in snap["nvml"]["devices"]] == ["Tesla P100-PCIE-16GB"] * 4
    version_py = next(v for k, v in snap["files"].items() if k.endswith("torch/version.py"))
    assert "cuda = '10.2'" in version_py
    assert snap["files"]["/usr/lib/x86_64-linux-gnu/libcudnn.so.7.6.5"] == {"type": "file"}


def test_collect_env_windows_cpu_build() -> None:
    snap = _read(_case("pytorch-49325-windows-torch171-cpu-nvcc102"))
    assert snap["platform"]["system"] == "Windows"
    assert snap["python"]["distributions"]["torch"] == "1.7.1+cpu"
    assert snap["commands"]["nvcc --version"]["stdout"].count("release 10.2") == 1


def test_nvidia_smi_q_text() -> None:
    snap = _read(_case("sysmon-12-nvidia-smi-q-gtx780-env-fine"))
    assert snap["nvml"]["driver_version"] == "450.66"
    assert snap["nvml"]["cuda_driver_version"] == 11000
    assert [d["name"] for d in snap["nvml"]["devices"]] == ["GeForce GTX 780"]


def test_jax_environment_info() -> None:
    text = _case("jaxlib-feedstock-285-conda-jaxlib-falls-back-to-cpu")
    # The command lines above each output are blocks of their own (prompts: cues), the outputs below them read whole.
    assert [k for k in _kinds(text) if k != "prompt"][:2] == ["jax_env", "nvidia_smi"]
    snap = _read(text)
    assert snap["python"]["distributions"]["jax"] == "0.4.32"
    assert snap["python"]["distributions"]["jaxlib"] == "0.4.32"
    assert snap["platform"]["release"] == "6.11.0-8-generic"
    assert "jaxlib-cpu-fallback" in {e["kind"] for e in snap["pasted"]["errors"]}


def test_conda_list_rows_with_build_strings() -> None:
    snap = _read(_case("pytorch-32369-conda-cpuonly-obtained-torch140"))
    assert snap["python"]["distributions"]["torch"] == "1.4.0"
    version_py = next(v for k, v in snap["files"].items() if k.endswith("torch/version.py"))
    assert "cuda = None" in version_py  # py3.7_cpu_0: the cpuonly build


def test_dmesg_api_mismatch_in_syslog_form() -> None:
    snap = _read(_case("ansible-slurm-287-nvrm-api-mismatch-535-530"))
    (e,) = [e for e in snap["pasted"]["errors"] if e["kind"] == "nvrm-api-mismatch"]
    assert e["values"] == {"client": "535.54.03", "kernel": "530.30.02"}
    assert snap["nvml"]["status"] == "lib_rm_version_mismatch"


def test_ls_of_usr_local() -> None:
    text = _case("pytorch-4546-driver-cuda91-torch-cu100-nvcc101")
    assert "ls_cuda" in _kinds(text)
    assert "pip_list" not in _kinds(text)  # "drwxr-xr-x 15 root ..." is not a package row


def test_windows_paths_in_tracebacks() -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "C:\\Users\\me\\anaconda3\\envs\\sd\\lib\\site-packages\\torch\\cuda\\__init__.py", line 239, in _lazy_init\n'
        '    raise AssertionError("Torch not compiled with CUDA enabled")\n'
        "AssertionError: Torch not compiled with CUDA enabled\n"
    )
    assert _kinds(text) == ["traceback"]
    snap = _read(text)
    assert snap["platform"]["system"] == "Windows"
    assert snap["python"]["site_packages"] == ["C:/Users/me/anaconda3/envs/sd/lib/site-packages"]
    assert snap["pasted"]["frameworks"] == ["torch"]
    assert "torch-not-compiled-with-cuda" in {e["kind"] for e in snap["pasted"]["errors"]}


@pytest.mark.parametrize(
    "line, kind, values",
    [
        (
            "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.",
            "arch-unsupported",
            {"gpu": "NVIDIA GeForce RTX 5090", "capability": "12.0"},
        ),
        (
            "The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.",
            "arch-list",
            {"archs": "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90"},
        ),
        (
            "ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory",
            "library-missing",
            {"soname": "libcudnn.so.8"},
        ),
        (
            "E tensorflow/stream_executor/cuda/cuda_dnn.cc:362] Loaded runtime CuDNN library: 8.0.4 but source was compiled with: 8.1.0.",
            "cudnn-version-mismatch",
            {"loaded": "8.0.4", "compiled": "8.1.0"},
        ),
        ("The NVIDIA driver on your system is too old (found version 11040).", "driver-too-old-found", {"cuda": "11.4"}),
        # Quoted in prose without the space PyTorch prints (pytorch/pytorch#1564): 8000 is CUDA 8.0.
        (
            'assertion error which shows "The NVIDIA driver on your system is too old(found version 8000)".',
            "driver-too-old-found",
            {"cuda": "8.0"},
        ),
        # The message quoted inside a sentence (pytorch/pytorch#153944): the GPU is the name PyTorch printed, not the prose.
        (
            "we are trying to run inference on rtx 5080 with torch using yolov8 facing issue like NVIDIA GeForce RTX 5080 with CUDA capability sm_120 is not compatible with the current PyTorch installation.",
            "arch-unsupported",
            {"gpu": "NVIDIA GeForce RTX 5080", "capability": "12.0"},
        ),
        ("RuntimeError: CUDA error: no kernel image is available for execution on the device", "no-kernel-image", {}),
        ("RuntimeError: CUDA driver version is insufficient for CUDA runtime version", "cuda-driver-insufficient", {}),
        (
            "CUDA backend failed to initialize: Found cuDNN version 8600, but JAX was built against version 8906, which is newer.",
            "cudnn-version-mismatch",
            {"loaded": "8.6.0", "compiled": "8.9.6"},
        ),
        (
            "Outdated cuDNN installation found.\nVersion JAX was built against: 8907\nMinimum supported: 9100\nInstalled version: 8907",
            "cudnn-version-mismatch",
            {"loaded": "8.9.7", "compiled": "9.1.0"},
        ),
        # PyTorch before 1.0 printed cudnnGetVersion() integers and took only the same major.minor (pytorch#1586)
        (
            "RuntimeError: cuDNN version mismatch: PyTorch was compiled against 6021 but linked against 5110",
            "cudnn-version-mismatch",
            {"loaded": "5.1.10", "compiled": "6.0.21", "program": "PyTorch", "rule": "equal-minor"},
        ),
        # retyped in an issue's title (xingyizhou/CenterNet#119)
        (
            "cuDNN version mismatch:Pytorch was compiled against 7102 but link against 7301",
            "cudnn-version-mismatch",
            {"loaded": "7.3.1", "compiled": "7.1.2", "program": "PyTorch", "rule": "equal-minor"},
        ),
        # PyTorch 1.0's wording with integers (akanimax/T2F#6): an equal or newer minor passes, no equal-minor rule
        (
            "RuntimeError: cuDNN version incompatibility: PyTorch was compiled against 7401 but linked against 7301",
            "cudnn-version-mismatch",
            {"loaded": "7.3.1", "compiled": "7.4.1", "program": "PyTorch"},
        ),
        # cuDNN 9's CUDNN_VERSION counts MAJOR*10000 (versions.cudnn_from_int): 90100 is 9.1.0, never 90.1.0
        (
            "CUDA backend failed to initialize: Found cuDNN version 90100, but JAX was built against version 90300, which is newer.",
            "cudnn-version-mismatch",
            {"loaded": "9.1.0", "compiled": "9.3.0"},
        ),
        (
            "E tensorflow/stream_executor/cuda/cuda_dnn.cc:319] Loaded runtime CuDNN l\nibrary: 7.4.1 but source was compiled with: 7.6.4.",
            "cudnn-version-mismatch",
            {"loaded": "7.4.1", "compiled": "7.6.4"},
        ),
        (
            "E cuda_diagnostics.cc:313] kernel version 440.64.0 does not match DSO version 418.87.1 - cannot find working devices",
            "libcuda-kernel-mismatch",
            {"kernel": "440.64.0", "client": "418.87.1"},
        ),
        ("modprobe: FATAL: Module nvidia not found.", "nvidia-module-missing", {}),
        (
            "RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (8, 3, 2) but linked against (8, 0, 3)",
            "cudnn-version-mismatch",
            {"loaded": "8.0.3", "compiled": "8.3.2"},
        ),
        (
            "CUDA out of memory. Tried to allocate 216.00 MiB (GPU 0; 7.92 GiB total capacity; 69.17 MiB already allocated; "
            "24.56 MiB free; 86.00 MiB reserved in total by PyTorch)",
            "torch-oom",
            {"gpu": "0", "total": str(int(7.92 * 1024**3)), "free": str(int(24.56 * 1024**2)), "reserved": str(86 * 1024**2)},
        ),
        ("$ sudo docker run -t -i floydhub/pytorch:latest-gpu-py3 ipython", "docker-run-without-gpus", {}),
        (
            "nvidia-container-cli: requirement error: unsatisfied condi\ntion: cuda >= 9.0\\n",
            "container-requires-cuda",
            {"cuda": "9.0"},
        ),
    ],
)
def test_error_texts_give_evidence(line: str, kind: str, values: dict) -> None:
    found = [e for e in extract_evidence("some prose\n" + line + "\nmore prose") if e.kind == kind]
    assert found and dict(found[0].values) == values


def test_docker_run_with_gpus_is_not_evidence() -> None:
    for line in (
        "docker run --gpus all -it img",
        "docker run --runtime=nvidia img",
        "docker run -e NVIDIA_VISIBLE_DEVICES=all img",
    ):
        assert not [e for e in extract_evidence(line) if e.kind == "docker-run-without-gpus"]


def test_docker_run_continued_over_lines_reads_its_gpus_option_from_them() -> None:
    """A `docker run` spread over backslash-continued lines (plans21/2109, plans3/237): --gpus on a later line is the
    same command's; a run whose continued lines hold no GPU option still counts, and so does the next command."""
    continued = "docker run --rm --shm-size=1g \\\n    -p 8080:8080 \\\n    --gpus all \\\n    img:latest \\\n    serve --x\n"
    assert not [e for e in extract_evidence(continued) if e.kind == "docker-run-without-gpus"]
    without = "docker run --rm \\\n    -p 8080:8080 \\\n    img:latest\ndocker run --gpus all other\n"
    assert [e.line for e in extract_evidence(without) if e.kind == "docker-run-without-gpus"] == ["docker run --rm \\"]
    after = "docker run --rm \\\n    img:latest\n--gpus all is what I should add?\n"
    assert [e for e in extract_evidence(after) if e.kind == "docker-run-without-gpus"]


_SMI_HEADER = "| NVIDIA-SMI {smi}              Driver Version: {driver}      CUDA Version: 12.6     |"


@pytest.mark.parametrize(
    ("smi", "driver", "wsl"),
    [
        ("560.35.02", "560.94", True),  # same major, another release: WSL's Linux nvidia-smi on the Windows driver
        ("560.35.03", "560.35.02", False),  # two Linux releases: an nvidia-smi of another driver (h96), not WSL
        ("555.52.01", "561.09", True),
        ("560.35.02", "560.35.02", False),  # Linux (and Windows): nvidia-smi is the driver's own
        ("560.94", "560.94", False),
    ],
)
def test_an_nvidia_smi_of_another_release_than_its_driver_is_wsl(smi: str, driver: str, wsl: bool) -> None:
    # pasted/cues.py: "On Linux and on Windows nvidia-smi is the driver's own (same version); in WSL the Linux
    # nvidia-smi reports the Windows driver, a different release."
    platform = read_pasted([Source("t", _SMI_HEADER.format(smi=smi, driver=driver))])["platform"]
    assert (platform["system"], "WSL2" in platform.get("release", "")) == ("Linux", wsl)


@pytest.mark.parametrize(
    ("text", "system"),
    [
        ("I'm using Windows at home but this fails on the Ubuntu server", "Linux"),
        ("Works on Win10, fails on our Linux box", "Linux"),
        ("It fails on /home/me/venv too. I'm using Windows for the notebook", "Linux"),
        ("I'm using Windows at home and this fails", "Windows"),
        ("Works on Win10, fails on the other laptop", "Windows"),
    ],
)
def test_windows_in_prose_is_read_only_where_the_text_names_no_linux(text: str, system: str) -> None:
    # pasted/cues.py: "Weaker words, read only where the text names no Linux ("works on Windows, fails on my Ubuntu
    # server")".
    assert read_pasted([Source("t", text)]).get("platform", {}).get("system") == system


@pytest.mark.parametrize("apostrophe", ["\u2018", "\u2019"])
def test_a_typographic_apostrophe_reads_as_the_message(apostrophe: str) -> None:
    # a forum's or an IME's "couldn‘t" (tests/blind/plans18/cases/1866-*) is nvidia-smi's "couldn't"
    text = (FIXTURES / "errors" / "nvidia-smi_couldnt-communicate-with-driver.txt").read_text(encoding="utf-8")
    snap = _read(PROSE_BEFORE + text.replace("couldn't", f"couldn{apostrophe}t") + PROSE_AFTER)
    assert ("nvml", "driver-unreachable") in {(e["kind"], e["values"].get("code")) for e in snap["pasted"]["errors"]}


@pytest.mark.parametrize(
    "line",
    [
        "ERROR: Unable to load the kernel module 'nvidia.ko'.  This happens most frequently when this kernel module was",
        "Unable to load the kernel module 'nvidia.ko",  # an issue's title, cut
    ],
)
def test_nvidia_installer_load_failure_is_its_catalogue_entry(line: str) -> None:
    snap = _read(PROSE_BEFORE + line + PROSE_AFTER)
    found = [e for e in snap["pasted"]["errors"] if e["kind"] == "nvidia-module-load-failed"]
    assert [e["values"]["entry"] for e in found] == ["nvidia-installer-module-load-failed"]
