"""After-round h299 (sets 20 and 21, native Windows): a cuBLAS DLL that cuDNN 8 itself says it cannot locate names the
CUDA the loaded cuDNN was built for, not the program's, so the reads decide and no toolkit of that major is installed
first; a CUDA DLL of one major missing where the text says the toolkit installed is of another major is a toolkit to
install beside it, not a folder to put on PATH. Each rule is shown by two real threads. Expectations by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.cmdline import Cmd, PrependPath
from gpudoctor.parsers.error_texts import extract_evidence
from tests.pasted.cli_json import asked, blind_case, check
from tests.pasted.test_windows_evidence import _run

pytestmark = pytest.mark.slow

CASES = Path(__file__).resolve().parent / "cases"


def _dll_findings(doc: dict) -> list[dict]:
    return [f for f in doc["findings"] if f["code"] == "windows-dll-missing"]


def _finding(path: Path):
    """The windows-dll-missing finding of a paste, with its remediation's commands as data (PATH steps among them)."""
    report, _target, _steps, _asks = _run(path.read_text(encoding="utf-8"))
    (f,) = [f for f in report.findings if f.code == "windows-dll-missing"]
    return f


# --- cuDNN 8's "Could not locate cublas(Lt)64_NN.dll. Please make sure it is in your library path!" -----------------


@pytest.mark.parametrize(
    ("path", "dll"),
    [
        (blind_case("plans21/cases/2138"), "cublasLt64_10.dll"),  # hacksider/Deep-Live-Cam#1338, PowerShell
        (next(CASES.glob("pulidflux2-5-*")) / "report.txt", "cublasLt64_10.dll"),  # ComfyUI portable, CUDA 11.8 said
        (next(CASES.glob("deeplivecam-1063-*")) / "report.txt", "cublas64_10.dll"),  # hacksider/Deep-Live-Cam#1063
    ],
)
def test_cudnn_asking_for_cublas_reads_which_cudnn_is_found_first(path: Path, dll: str):
    doc = check(path)
    (shown,) = _dll_findings(doc)
    assert shown["area"] == "cudnn" and shown["severity"] == "error"
    f = _finding(path)
    # read-only: the cuDNN copies PATH finds first, then each CUDA major's copy of the DLL; no PATH step, no install
    (where,) = f.remediation.commands
    assert isinstance(where, Cmd) and where.argv[0] == "where.exe"
    assert where.argv[1:3] == ("cudnn64_8.dll", "cudnn_ops_infer64_8.dll")
    assert {dll, dll.replace("_10.", "_11."), dll.replace("_10.", "_12.")} <= set(where.argv)
    # and nothing asks where a CUDA 10 toolkit holds it (its answer "none" would send the reporter to install one)
    assert not any(a[:2] == ["where.exe", "/R"] for a in asked(doc))


def test_another_cuda_dll_keeps_the_toolkit_folder_answer(tmp_path: Path):
    # (the twin: a CUDA DLL no cuDNN line asks for, nothing said of the toolkits: the toolkit's bin on PATH, as before)
    path = tmp_path / "issue.txt"
    path.write_text("Windows 11\nCould not load library cudart64_110.dll\n", encoding="utf-8")
    f = _finding(path)
    assert any(isinstance(c, PrependPath) and c.name == "PATH" for c in f.remediation.commands)
    assert not f.title.startswith("cuDNN asks")


def test_a_cublas_dll_told_missing_asks_for_the_cudnn_copies_too():
    # lightvector/KataGo#751: a CUDA 11.2 build told to miss CUDA 10's cublasLt64_10.dll, in the reporter's words only
    doc = check(blind_case("plans21/cases/2144"))
    (where,) = [a for a in asked(doc) if a[0] == "where.exe"]
    assert where[1:3] == ["cudnn64_8.dll", "cudnn_ops_infer64_8.dll"] and "cublasLt64_10.dll" in where


# --- a CUDA DLL of one major, the toolkit said installed of another -------------------------------------------------


@pytest.mark.parametrize(
    ("text", "cuda"),
    [
        ("When running rembg on a system with CUDA 13.0 installed, it fails", "13.0"),  # danielgatis/rembg#783
        ("it wants cuda 12 but i have cuda 13 as i should as indicated in the guide.", "13"),  # Wan2GP#1513
        ("I have a GeForce RTX 3090 with CUDA 11.0 installed", "11.0"),
    ],
)
def test_a_toolkit_said_installed_after_its_version_is_read(text: str, cuda: str):
    said = [e for e in extract_evidence(text) if e.kind == "cuda-have-said"]
    assert [e.get("cuda") for e in said] == [cuda]


@pytest.mark.parametrize(
    "text",
    [
        "torch 2.1 built with CUDA 11.8",  # a framework's build, not a toolkit
        "I have 12 GB of VRAM",
        "I have cuda 12.1 installed",  # read by the first-person form already, once
    ],
)
def test_a_build_or_a_size_is_not_a_toolkit_said(text: str):
    said = [e.get("cuda") for e in extract_evidence(text) if e.kind == "cuda-have-said"]
    assert said in ([], ["12.1"])


@pytest.mark.parametrize(
    ("path", "other"),
    [
        (blind_case("plans21/cases/2131"), "13.0"),  # danielgatis/rembg#783
        (next(CASES.glob("wan2gp-1513-*")) / "report.txt", "13"),  # deepbeepmeep/Wan2GP#1513
    ],
)
def test_a_cuda12_dll_with_only_cuda13_installed_is_a_toolkit_to_install_beside(path: Path, other: str):
    f = _finding(path)
    assert f.remediation.component == "toolkit"
    assert f.title.startswith("cublasLt64_12.dll is CUDA 12's") and f"CUDA {other} is" in f.title
    where, path_step = f.remediation.commands
    # each installed toolkit's copy read first, then the CUDA 12 toolkit's bin (a placeholder: its minor is not known)
    assert isinstance(where, Cmd) and where.argv[:2] == ("where.exe", "/R") and where.argv[-1] == "cublasLt64_*.dll"
    assert isinstance(path_step, PrependPath) and path_step.name == "PATH"
    assert path_step.parts[0].name == "cuda-12-toolkit-folder" and path_step.parts[1] == "\\bin"


# --- torch's own DLL failing with error 126: what that DLL links decides, the 2.4.0 libomp regression only fbgemm's ---


@pytest.mark.parametrize(
    "path",
    [
        blind_case("plans21/cases/2172"),  # innnky/so-vits-svc#162, an Anaconda base
        next(CASES.glob("comfyui-989-*")) / "report.txt",  # Comfy-Org/ComfyUI#989, a user site-packages
    ],
)
def test_caffe2_nvrtc_reads_what_it_links_and_not_the_fbgemm_regression(path: Path):
    f = _finding(path)
    assert "2.4.0" not in f.detail and "libomp" not in f.detail
    assert not any(isinstance(c, Cmd) and "install" in c.argv for c in f.remediation.commands)
    where = [c for c in f.remediation.commands if isinstance(c, Cmd) and c.argv[0] == "where.exe"]
    assert [c.argv[1:] for c in where] == [("nvrtc64*.dll", "cudart64*.dll", "nvcuda.dll")]


def test_fbgemm_keeps_the_libomp_regression():
    # (the twin: plans5/411, fbgemm.dll failing with the torch release not shown: the 2.4.0 regression is named)
    f = _finding(blind_case("plans5/cases/411"))
    assert "libomp140.x86_64.dll" in f.detail
    assert not any(isinstance(c, Cmd) and c.argv[0] == "where.exe" for c in f.remediation.commands)
