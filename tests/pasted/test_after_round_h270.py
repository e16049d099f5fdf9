"""After-round h270 (set 19, facts stated in prose or titles): Windows read from what only Windows prints or names
(Python's "DLL load failed", a "cmd prompt", an nvidia-smi header of a Windows-only driver release such as 475.14), a
GPU named in words beside PyTorch's "no kernel image" (a Kepler GTX 650 / GTX 760 no PyTorch CUDA build carries), and
a project's own CUDA extension printing "no kernel image" from its launch check on a GPU the text names (a rebuild for
that compute capability). Recorded pastes of different threads, expectations by hand; each rule has its quiet twin."""

from __future__ import annotations

from pathlib import Path

from tests.pasted.cli_json import blind_case, check, paste

HERE = Path(__file__).resolve().parent
CASES = HERE / "cases"
BLOCKING = ("warning", "error", "critical")


def _codes(doc: dict) -> list[str]:
    return [f["code"] for f in doc["findings"] if f["severity"] in BLOCKING]


def _commands(doc: dict, code: str) -> list[str]:
    return [c for f in doc["findings"] if f["code"] == code for c in (f.get("remediation") or {}).get("commands", [])]


def _system(doc: dict) -> str | None:
    return doc["facts"]["platform"]["system"]


# --- Windows from the text -----------------------------------------------------------------------------------------


def test_python_dll_load_failed_from_a_cmd_prompt_is_windows():
    # MVIMP#30 (plans19/1968): "ImportError: DLL load failed" run "from cmd prompt", no path or OS named
    doc = check(blind_case("plans19/cases/1968"))
    assert _system(doc) == "Windows"
    assert all(not a["argv"] or a["argv"][0] != "python3" for a in doc["pasted"]["ask_for"])


def test_dll_load_failed_alone_is_windows(tmp_path):
    # CPython's Python/dynload_win.c wording (3.8+): nothing else in the text names the OS
    doc = paste(tmp_path, "ImportError: DLL load failed while importing _ext: The specified module could not be found.\n")
    assert _system(doc) == "Windows"


def test_a_linux_loader_error_is_not_windows(tmp_path):
    # the quiet twin: the Linux loader's own words for the same failure
    doc = paste(tmp_path, "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory\n")
    assert _system(doc) != "Windows"


def test_nvidia_smi_header_of_a_windows_only_driver_is_windows():
    # MobileAgent#60 (plans19/1972): "NVIDIA-SMI 475.14  Driver Version: 475.14  CUDA Version: 11.4" and Chinese prose
    doc = check(blind_case("plans19/cases/1972"))
    assert _system(doc) == "Windows"
    cmds = _commands(doc, "framework-cpu-build")
    assert cmds and cmds[0].startswith("python -m pip install torch==") and "+cu118" in cmds[0]


def test_nvidia_smi_header_of_a_linux_branch_is_not_windows(tmp_path):
    # the quiet twins: a two-number Linux driver of the R470 branch, and a three-number one
    for header in (
        "NVIDIA-SMI 470.74       Driver Version: 470.74       CUDA Version: 11.4",
        "NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2",
    ):
        doc = paste(tmp_path, f"AssertionError: Torch not compiled with CUDA enabled\n{header}\n")
        assert _system(doc) != "Windows", header


# --- a GPU named in words beside "no kernel image" -----------------------------------------------------------------


def test_kepler_gtx650_named_in_words_is_below_every_torch_build():
    # GPT-SoVITS#1671 (plans19/1941): "GPU：(N)GeForce GTX 650" and torch's "RuntimeError: CUDA error: no kernel image"
    doc = check(blind_case("plans19/cases/1941"))
    assert _codes(doc) == ["framework-arch-unsupported"]
    f = next(f for f in doc["findings"] if f["code"] == "framework-arch-unsupported")
    assert "GeForce GTX 650" in f["title"] and "3.0" in f["title"]
    assert _commands(doc, "framework-arch-unsupported") == []  # no install: the CPU or another GPU


def test_kepler_gtx760_named_in_words_is_below_every_torch_build():
    # Squirrel-RIFE#344: the title's error, "显卡：gtx760 2g" in a comment
    doc = check(CASES / "squirrel-rife-344-gtx760-kepler-no-kernel-image" / "report.txt")
    assert _codes(doc) == ["framework-arch-unsupported"]


def test_a_turing_gpu_named_beside_torch_no_kernel_image_is_not_below_the_builds(tmp_path):
    # the quiet twin: a GPU some torch build carries is no hardware verdict; which build or extension lacks it is asked
    doc = paste(
        tmp_path, "I have a GTX 1660 Ti\nRuntimeError: CUDA error: no kernel image is available for execution on the device\n"
    )
    assert not any("no PyTorch CUDA build supports" in f["title"] for f in doc["findings"])
    assert "pasted-error-unexplained" in _codes(doc)


# --- a project's own extension said "no kernel image" on a named GPU ------------------------------------------------


def test_neural_renderer_error_in_kernel_on_a_named_gtx1660ti_is_a_rebuild_for_75():
    # iPERCore#128 (plans19/1962): "Error in forward_face_index_map_1: no kernel image ..." on a GTX 1660 TI, Windows 10
    doc = check(blind_case("plans19/cases/1962"))
    assert _codes(doc) == ["framework-arch-unsupported"]
    f = next(f for f in doc["findings"] if f["code"] == "framework-arch-unsupported")
    assert "extension" in f["title"] and "7.5" in f["title"]
    assert any("TORCH_CUDA_ARCH_LIST" in c and "7.5" in c for c in _commands(doc, "framework-arch-unsupported"))


def test_pointnet2_kernel_failed_on_a_named_rtx3090_is_a_rebuild_for_86():
    # TriplaneGaussian#3: "CUDA kernel failed : no kernel image ..." with "- RTX 3090" and "Pytorch 1.12.1"
    doc = check(CASES / "triplanegaussian-3-rtx3090-pointnet2-ops-cuda-kernel-failed-no-kernel-image" / "report.txt")
    found = [f for f in doc["findings"] if f["code"] == "framework-arch-unsupported"]
    assert len(found) == 1 and "extension" in found[0]["title"]  # not also "the installed PyTorch has no kernels"
    assert any("TORCH_CUDA_ARCH_LIST" in c and "8.6" in c for c in _commands(doc, "framework-arch-unsupported"))


def test_extension_no_kernel_image_without_a_named_gpu_stays_undecided(tmp_path):
    # the quiet twin: which capability to build for is unknown, so the catalogue's asks stand
    doc = paste(tmp_path, "Error in forward_face_index_map_1: no kernel image is available for execution on the device\n")
    assert "framework-arch-unsupported" not in _codes(doc)
    assert "pasted-error-unexplained" in _codes(doc)
