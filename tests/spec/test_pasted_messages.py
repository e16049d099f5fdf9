"""docs/findings: the messages of torch's companions, NumPy, bitsandbytes, DeepSpeed, PyTorch's driver check and WSL's
libcuda, read from pasted text (src/gpudoctor/parsers/catalogue.toml): each fires on the message as its source prints
it, with the facts it states, and stays quiet where the message is absent or another finding names the cause."""

from __future__ import annotations

import pytest

from gpudoctor.cmdline import PrependPath, SetEnv
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.planner.remedy import KEEP_VALUES
from tests.spec.machine import argv_of, pasted_findings, pasted_report
from tests.spec.registry import FIRES, QUIET, states

NUMPY2 = (
    "A module that was compiled using NumPy 1.x cannot be run in\n"
    "NumPy 2.0.0 as it may crash. To support both 1.x and 2.x\n"
    "versions of NumPy, modules must be compiled with NumPy 2.0.\n"
)
XFORMERS = (
    "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
    "    PyTorch {built} with CUDA 1201 (you have {have})\n"
    "    Python  3.10.11 (you have 3.10.11)\n"
)


_codes = pasted_findings
_argv = argv_of


@states("numpy-abi-mismatch", FIRES)
def test_numpys_own_message_fires_with_the_version_and_numpy_below_2():
    f = _codes(NUMPY2)["numpy-abi-mismatch"]
    assert "NumPy 2.0.0" in f.title
    assert _argv(f) == [("python3", "-m", "pip", "install", "numpy<2")]
    assert f.evidence[0].value.startswith("A module that was compiled using NumPy 1.x")


@states("numpy-abi-mismatch", FIRES)
def test_array_api_not_found_alone_fires_with_the_windows_interpreter():
    text = (
        '  File "D:\\AI\\venv\\lib\\site-packages\\torch\\__init__.py", line 1382, in <module>\n'
        "UserWarning: Failed to initialize NumPy: _ARRAY_API not found\n"
    )
    f = _codes(text)["numpy-abi-mismatch"]
    assert _argv(f)[0][1:] == ("-m", "pip", "install", "numpy<2") and _argv(f)[0][0] != "python3"


@states("numpy-abi-mismatch", QUIET)
def test_numpy_2_in_a_package_list_alone_is_quiet():
    text = "Package    Version\n---------- -------\nnumpy      2.0.0\ntorch      2.1.0\n"
    assert "numpy-abi-mismatch" not in _codes(text)


@states("companion-torch-mismatch", FIRES)
def test_xformers_built_for_another_torch_moves_xformers_to_the_installed_torch():
    f = _codes(XFORMERS.format(built="2.1.2+cu121", have="2.3.1+cu121"))["companion-torch-mismatch"]
    assert f.title == "xformers is built for another torch than the installed 2.3.1+cu121"
    assert _argv(f) == [("python3", "-m", "pip", "install", "--force-reinstall", "--no-deps", "xformers==0.0.27")]


@states("companion-torch-mismatch", QUIET)
def test_xformers_beside_a_cpu_torch_is_the_cpu_build_not_xformers():
    codes = _codes(XFORMERS.format(built="2.1.0+cu121", have="2.1.0+cpu"))
    assert "framework-cpu-build" in codes and "companion-torch-mismatch" not in codes


@states("companion-torch-mismatch", FIRES)
def test_torchaudio_of_another_cuda_fires_and_names_both_cudas():
    text = (
        "RuntimeError: Detected that PyTorch and TorchAudio were compiled with different CUDA versions. PyTorch has "
        "CUDA version 11.8 whereas TorchAudio has CUDA version 11.7. Please install the TorchAudio version that matches "
        "your PyTorch version.\n"
    )
    f = _codes(text)["companion-torch-mismatch"]
    assert "CUDA 11.7" in f.detail and "CUDA 11.8" in f.detail
    assert "cu118" in f.remediation.summary  # the torch version was not shown: no pinned command is invented


@states("companion-torch-mismatch", FIRES)
def test_bitsandbytes_without_a_binary_for_torchs_cuda_fires():
    text = (
        "CUDA SETUP: Required library version not found: libbitsandbytes_cuda118.dll. Maybe you need to compile it from source?\n"
    )
    f = _codes(text)["companion-torch-mismatch"]
    assert "CUDA 11.8" in f.title
    # torch not shown: the newest release with a CUDA 11.8 library whose wheels name no torch version (it keeps torch)
    assert _argv(f)[0][-2:] == ("install", "bitsandbytes==0.45.0")


@states("toolkit-torch-major-mismatch", FIRES)
def test_deepspeeds_cuda_mismatch_is_the_toolkit_against_torchs_cuda():
    text = (
        "deepspeed.ops.op_builder.builder.CUDAMismatchException: >- DeepSpeed Op Builder: Installed CUDA version 12.2 "
        "does not match the version torch was compiled with 11.7, unable to compile cuda/cpp extensions without a "
        "matching cuda version.\n"
    )
    assert "toolkit-torch-major-mismatch" in _codes(text)


@states("toolkit-torch-major-mismatch", QUIET)
def test_deepspeeds_accepted_minor_mismatch_is_quiet():
    text = (
        "Installed CUDA version 11.8 does not match the version torch was compiled with 11.7 but since the APIs are "
        "compatible, accepting this combination\n"
    )
    assert "toolkit-torch-major-mismatch" not in _codes(text)


@states("framework-driver-too-old", FIRES)
def test_the_driver_too_old_without_its_version_fires_and_the_version_stays_unknown():
    f = _codes("RuntimeError: The NVIDIA driver on your system is too old\n")["framework-driver-too-old"]
    assert "supports CUDA up to" not in f.title  # the driver's CUDA was not shown


@states("framework-cuda-libs-missing", FIRES)
def test_libcuda_so_missing_in_wsl_is_the_wsl_library_path_not_cudnn():
    text = (
        "I am on WSL2.\n"
        "Could not load library libcudnn_cnn_infer.so.8. Error: libcuda.so: cannot open shared object file: No such file "
        "or directory\n"
    )
    codes = _codes(text)
    f = codes["framework-cuda-libs-missing"]
    assert "cudnn-missing" not in codes
    # Put first, the variable's other directories kept (a plain assignment would drop them).
    assert [(c.name, c.literal) for c in f.remediation.commands if isinstance(c, PrependPath)] == [
        ("LD_LIBRARY_PATH", "/usr/lib/wsl/lib")
    ]
    assert not [c for c in f.remediation.commands if isinstance(c, SetEnv)]


@states("framework-cuda-libs-missing", QUIET)
def test_libcuda_so_missing_outside_wsl_is_not_the_wsl_path():
    text = "OSError: libcuda.so: cannot open shared object file: No such file or directory\n"
    f = _codes(text).get("framework-cuda-libs-missing")
    assert f is None or "/usr/lib/wsl/lib" not in f.title


@states("companion-torch-mismatch", FIRES)
def test_xformers_for_a_torch_without_a_known_release_prints_no_invented_pin():
    # (torch 1.13.1: the matrix pairs no xformers release with it; 2.0.0 has 0.0.19 since its wheel metadata was read)
    f = _codes(XFORMERS.format(built="2.3.0+cu121", have="1.13.1+cu117"))["companion-torch-mismatch"]
    assert f.title == "xformers is built for another torch than the installed 1.13.1+cu117"
    assert f.remediation.commands == ()


def test_xformers_for_torch_200_is_its_release_from_the_wheel_metadata():
    f = _codes(XFORMERS.format(built="2.3.0+cu121", have="2.0.0+cu117"))["companion-torch-mismatch"]
    assert any("xformers==0.0.19" in c.argv for c in f.remediation.commands)


def test_the_programs_torch_version_outranks_an_issue_forms():
    text = "- PyTorch Version (e.g., 1.0): PyTorch 2.0.1+cu121\n\n" + XFORMERS.format(built="2.0.1", have="2.1.0+cu121")
    snapshot = read_pasted([Source("t", text)])
    assert snapshot["python"]["distributions"]["torch"] == "2.1.0+cu121"


def test_wsl_named_in_other_words_or_by_its_windows_drive_mounts():
    for said in ("I run it on Ubuntu Subsystem on Windows.\n", 'File "/mnt/c/Users/me/proj/run.py", line 3\n'):
        snapshot = read_pasted([Source("t", said)])
        assert snapshot["platform"]["release"].lower().startswith("microsoft") or "WSL" in snapshot["platform"]["release"], said
    snapshot = read_pasted([Source("t", "mounted the data disk at /mnt/data/Users/x\n")])
    assert "release" not in snapshot["platform"]


def _plans9(prefix: str) -> str:
    from pathlib import Path

    cases = Path(__file__).resolve().parents[1] / "blind" / "plans9" / "cases"
    return next(cases.glob(prefix + "-*")).joinpath("input.txt").read_text(encoding="utf-8")


def _plans2(prefix: str) -> str:
    from pathlib import Path

    cases = Path(__file__).resolve().parents[1] / "blind" / "plans2" / "cases"
    return next(cases.glob(prefix + "-*")).joinpath("input.txt").read_text(encoding="utf-8")


@states("framework-cpu-build", FIRES)
def test_dgls_device_api_not_enabled_is_a_cpu_dgl():
    f = _codes(_plans2("166"))["framework-cpu-build"]  # dmlc/dgl#5427: dgl==1.0.1 from the package index
    assert "Device API cuda is not enabled" in f.evidence[0].value and f.remediation.component == "environment"
    assert not _argv(f)  # DGL's wheel index per torch and CUDA: named, not guessed


@states("framework-cpu-build", FIRES)
def test_conda_pytorch_select_cpu_build_is_a_cpu_torch():
    f = _codes(_plans2("101"))["framework-cpu-build"]  # Lightning-AI/pytorch-lightning#899
    assert "_pytorch_select" in f.evidence[0].value and "cpu_0" in f.evidence[0].value


@states("framework-cpu-build", QUIET)
def test_pytorch_select_of_a_gpu_build_is_quiet():
    text = "# Name                    Version                   Build  Channel\n_pytorch_select           0.1                       gpu_0\n"
    assert "framework-cpu-build" not in _codes(text)


@states("toolkit-torch-major-mismatch", FIRES)
def test_k2s_assertion_of_another_cuda_major_is_the_toolkit_against_torchs_cuda():
    f = _codes(_plans2("177"))["toolkit-torch-major-mismatch"]  # k2-fsa/k2#1158: torch cu117, nvcc 10.2
    assert "PyTorch is built with CUDA version: 11.7" in f.evidence[0].value


@states("toolkit-torch-major-mismatch", QUIET)
def test_k2s_assertion_of_another_cuda_minor_is_not_a_major_mismatch():
    assert "toolkit-torch-major-mismatch" not in _codes(_plans2("178"))  # k2-fsa/k2#1189: 11.3 against 11.4


ORT_CUDA11 = (
    "FAIL : Failed to load library libonnxruntime_providers_cuda.so with error: libcublasLt.so.11: cannot open shared "
    "object file: No such file or directory\n"
)


@states("framework-cuda-libs-missing", FIRES)
def test_onnxruntimes_provider_asking_for_a_cuda11_library_is_its_cuda11_build():
    f = _codes(_plans2("151"))["framework-cuda-libs-missing"]  # stepfun-ai/Step-Audio-EditX#3: onnxruntime-gpu 1.17.0
    assert "CUDA 11 build" in f.title and "libcublasLt.so.11" in f.title
    assert _argv(f) == [("python3", "-m", "pip", "install", "onnxruntime-gpu==1.23.2")]
    f = _codes(_plans2("152"))["framework-cuda-libs-missing"]  # fudan-generative-vision/hallo#203: 1.18.0, nvcc 12.1
    assert _argv(f) == [("python3", "-m", "pip", "install", "onnxruntime-gpu==1.23.2")]


@states("framework-cuda-libs-missing", FIRES)
def test_a_programs_own_cuda11_onnxruntime_gets_cuda11_libraries_not_pips_wheel():
    # A program that runs no Python carries its own onnxruntime: a C++ build linked to the one its CMake downloaded
    # (tests/blind/plans11/cases/1146-sherpaonnx1465-linux-gpu-build-ort-cuda11-provider-needs-libcublaslt11-only-
    # cuda124-installed) and a Java service's Maven package (https://github.com/microsoft/onnxruntime/issues/12540, the
    # catalogue example). pip reaches neither: the provider's missing libraries and a CUDA 11 lib64 on the loader's path.
    from pathlib import Path

    tests = Path(__file__).resolve().parents[1]
    case = next((tests / "blind" / "plans11" / "cases").glob("1146-*")) / "input.txt"
    example = tests / "pasted" / "catalogue_examples" / "onnxruntime-12540-java-maven-provider-libcublas11.txt"
    for path, soname in ((case, "libcublasLt.so.11"), (example, "libcublas.so.11")):
        f = _codes(path.read_text(encoding="utf-8"))["framework-cuda-libs-missing"]
        assert f.title.startswith("the program's own onnxruntime") and soname in f.title
        words = [tuple(str(w) for w in a) for a in _argv(f)]
        assert words[0] == ("ldd", "<providers-cuda-library>") and not any(w[:1] == ("python3",) for w in words)
        (path_line,) = [c for c in f.remediation.commands if isinstance(c, PrependPath)]
        assert path_line.name == "LD_LIBRARY_PATH"
    # quiet twin: the same message from Python (plans2 case 151's traceback, onnxruntime-gpu 1.17.0) keeps pip's fix
    f = _codes(_plans2("151"))["framework-cuda-libs-missing"]
    assert not f.title.startswith("the program's own") and _argv(f)[0][:3] == ("python3", "-m", "pip")


@states("framework-cuda-libs-missing", QUIET)
def test_onnxruntimes_cuda11_build_is_kept_where_the_driver_stops_at_cuda11():
    # The driver shown supports CUDA 11.4 only: a CUDA 12 build cannot run there, so no onnxruntime pin is printed (the
    # step is the look for the CUDA 11 library and its directory's export, gpudoctor.checks.library_copy: no install).
    f = _codes("Driver Version: 470.57.02    CUDA Version: 11.4\n" + ORT_CUDA11)["framework-cuda-libs-missing"]
    assert "onnxruntime" not in f.title and not [a for a in _argv(f) if "install" in a]


NVCC = "nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release {r}, V{v}\n"
FOUND_12_2 = "RuntimeError: The NVIDIA driver on your system is too old (found version 12020).\n"


@pytest.mark.parametrize(
    ("release", "version", "fires"),
    [("12.4", "12.4.131", True), ("13.0", "13.0.48", True), ("12.2", "12.2.140", False), ("12.1", "12.1.105", False)],
)
@states("toolkit-newer-than-driver", FIRES, QUIET)
def test_nvcc_beside_the_drivers_cuda_alone_is_judged_by_major_and_minor(release, version, fires):
    """toolkit-newer-than-driver.md: "toolkits whose major.minor is newer than the driver's CUDA are judged"; on pasted
    text nvcc --version beside the driver's CUDA alone (PyTorch's "found version 12020": CUDA 12.2): nvcc 12.4 and
    13.0 fire, 12.2.140 (a patch of the same minor) and 12.1 do not."""
    f = _codes(FOUND_12_2 + NVCC.format(r=release, v=version)).get("toolkit-newer-than-driver")
    assert (f is not None) is fires
    if f is not None:
        assert [(e.source, e.value) for e in f.evidence] == [("cmd:nvcc --version", version), ("driver", "CUDA 12.2")]


@pytest.mark.parametrize(
    ("smi", "cuda11_build"),
    [
        ("Driver Version: 520.61.05    CUDA Version: 11.8", False),
        ("Driver Version: 525.60.13    CUDA Version: 12.0", True),
        ("Driver Version: 535.104.05   CUDA Version: 12.2", True),
        ("Driver Version: 580.65.06    CUDA Version: 13.0", True),
        ("", True),  # no driver shown: not shown to stop at CUDA 11
    ],
    ids=["driver-11.8", "driver-12.0", "driver-12.2", "driver-13.0", "no-driver"],
)
@states("framework-cuda-libs-missing", FIRES, QUIET)
def test_onnxruntimes_cuda12_build_is_the_fix_unless_the_driver_stops_below_cuda_12(smi, cuda11_build):
    """framework-cuda-libs-missing.md: "Unless the driver shown stops below CUDA 12, the fix is the CUDA 12 build":
    the driver's CUDA major is what is compared, so a 12.x driver (12.0, 12.2) and a 13.0 one get the CUDA 12 build,
    an 11.8 one does not."""
    f = _codes(f"{smi}\n{ORT_CUDA11}")["framework-cuda-libs-missing"]
    assert ("CUDA 11 build" in f.title) is cuda11_build
    expected = [("python3", "-m", "pip", "install", "onnxruntime-gpu==1.23.2")] if cuda11_build else []
    assert [a for a in _argv(f) if "install" in a] == expected


@states("cudnn-missing", FIRES)
def test_ctranslate2s_cudnn_major_missing_prints_the_cu12_wheels_of_that_major():
    f = _codes(_plans2("153"))["cudnn-missing"]  # SYSTRAN/faster-whisper#1182: ctranslate2==4.5.0, libcudnn_cnn.so.9
    assert f.title.startswith("ctranslate2 4.5.0 needs cuDNN 9 for CUDA 12")
    # each wheel's directory, as the interpreter prints it, put first on LD_LIBRARY_PATH (the rest kept), and both
    # directories kept for new shells in ~/.bashrc (a system Python: no environment of its own), as values: ++ for two
    paths = [c for c in f.remediation.commands if isinstance(c, PrependPath)]
    assert _argv(f) == [
        ("python3", "-m", "pip", "install", "nvidia-cublas-cu12", "nvidia-cudnn-cu12==9.*"),
        ("python3", "-c", KEEP_VALUES["bashrc"], "++LD_LIBRARY_PATH"),
    ]
    assert [(p.name, p.parts[0].argv, p.parts[0].site_dir) for p in paths] == [  # type: ignore[union-attr]
        (
            "LD_LIBRARY_PATH",
            ("python3", "-c", f"import os, nvidia.{lib}.lib as m; print(os.path.dirname(m.__file__))"),
            f"nvidia/{lib}/lib",
        )
        for lib in ("cublas", "cudnn")
    ]
    f = _codes(_plans2("154"))["cudnn-missing"]  # faster-whisper#885: libcudnn_ops_infer.so.8 (ctranslate2 < 4.5)
    assert _argv(f)[0][-1] == "nvidia-cudnn-cu12==8.9.7.29"


def _example(name: str) -> str:
    from pathlib import Path

    return (Path(__file__).resolve().parents[1] / "pasted" / "catalogue_examples" / name).read_text(encoding="utf-8")


@states("cudnn-missing", FIRES)
def test_ctranslate2s_cudnn_8_beside_a_torch_of_cudnn_9_moves_ctranslate2_to_torchs_major():
    # m-bain/whisperX#1154 (tests/blind/plans9/cases/934-*/input.txt): whisperX (faster-whisper on CTranslate2) in a
    # conda env, pyannote.audio's "yours is 2.5.1" (torch 2.5.1 pins nvidia-cudnn-cu12==9.1.0.70), and
    # libcudnn_ops_infer.so.8 (cuDNN 8: CTranslate2 before 4.5). NVIDIA's cuDNN 8 wheel would replace torch's 9.
    exe = "/home/name/miniconda3/envs/whisperX/bin/python"
    f = _codes(_plans9("934"))["cudnn-missing"]
    assert f.title == "CTranslate2 needs cuDNN 8, and this environment's PyTorch 2.5.1 brings cuDNN 9"
    assert _argv(f)[0] == (exe, "-m", "pip", "install", "ctranslate2==4.5.0")
    assert _argv(f)[1][:2] == (exe, "-c") and "torch.backends.cudnn.version()" in _argv(f)[1][2]
    # m-bain/whisperX#1051 (a comment: whisperX as a uv tool, "yours is 2.6.0+cu124"): the same split.
    f = _codes(_example("whisperx-1051-uv-tool-torch260-cu124-ops-infer-so8.txt"))["cudnn-missing"]
    assert f.title == "CTranslate2 needs cuDNN 8, and this environment's PyTorch 2.6.0+cu124 brings cuDNN 9"
    assert _argv(f)[0][-3:] == ("pip", "install", "ctranslate2==4.5.0")
    assert not any("nvidia-cudnn-cu12" in " ".join(a) for a in _argv(f))


@states("cudnn-missing", QUIET)
def test_ctranslate2s_cudnn_8_without_a_torch_shown_keeps_the_cudnn_8_wheels():
    # SYSTRAN/faster-whisper#885: libcudnn_ops_infer.so.8 and a system cuDNN 9.2, no PyTorch shown: no split to
    # mend, the cuDNN 8 wheels of the CUDA 12 build stay the answer.
    f = _codes(_plans2("154"))["cudnn-missing"]
    assert "PyTorch" not in f.title
    assert _argv(f)[0][-1] == "nvidia-cudnn-cu12==8.9.7.29"


def test_pyannotes_checkpoint_line_names_the_installed_torch_as_yours():
    """pasted/read.py: pyannote.audio's "Model was trained with torch 1.10.0+cu102, yours is X" (Model.check_version)
    names the installed torch last; the checkpoint's is not read as installed. A relative path before it
    (pytorch_lightning's "../../.local/share/...") is no interpreter."""
    report = pasted_report(_plans9("934"))
    assert report.facts.frameworks.torch.value.version == "2.5.1"
    report = pasted_report(_example("whisperx-1051-uv-tool-torch260-cu124-ops-infer-so8.txt"))
    torch = report.facts.frameworks.torch.value
    assert (torch.version, torch.cuda) == ("2.6.0+cu124", "12.4")
    assert report.facts.frameworks.python.value.executable == "/home/michael/.local/share/uv/tools/whisperx/bin/python"


@states("cudnn-missing", QUIET)
def test_a_cudnn_soname_missing_without_ctranslate2_at_work_gets_no_ctranslate2_plan():
    text = "Could not load library libcudnn_ops_infer.so.8. Error: libcudnn_ops_infer.so.8: cannot open shared object file\n"
    f = _codes(text)["cudnn-missing"]
    assert "CTranslate2" not in f.title
    # no ctranslate2 install: the program is not named, so its CUDA major is read first and cuDNN 8's CUDA 11 wheels
    # follow behind that read (checks.libraries.cudnn8_wheels_by_cuda)
    assert not any(a.startswith("ctranslate2") for argv in _argv(f) for a in argv)
    assert _argv(f)[1][-2:] == ("nvidia-cublas-cu11", "nvidia-cudnn-cu11==8.*")


@states("framework-driver-too-old", FIRES)
def test_ctranslate2_4_on_a_driver_below_cuda12_gets_its_cuda11_build():
    # SYSTRAN/faster-whisper#866: "CUDA 11.7 and driver version 472.12" (R470 held for a Kepler card).
    # faster-whisper is named ("the device I am running faster-whisper on"): its 1.0 and later require ctranslate2 4,
    # so its last release that takes 3.x comes in the same command; a plain install (no --force-reinstall, which
    # would also move numpy and pyyaml), then CTranslate2's own count of the GPUs it sees.
    f = _codes(_plans2("169"))["framework-driver-too-old"]
    assert f.title == "CTranslate2 4.x is built for CUDA 12, newer than the driver supports"
    assert _argv(f) == [
        ("python3", "-m", "pip", "install", "faster-whisper==0.10.1", "ctranslate2==3.24.0"),
        ("python3", "-c", "import ctranslate2; print(ctranslate2.__version__, ctranslate2.get_cuda_device_count())"),
    ]
    # SYSTRAN/faster-whisper#734 (tests/blind/plans9/cases/937-*/input.txt): "faster-whisper >= v1.0.0" with
    # ctranslate2==4.0.0 on driver 510.85.02 (CUDA 11.6): the same pair.
    f = _codes(_plans9("937"))["framework-driver-too-old"]
    assert f.title == "ctranslate2 4.0.0 is built for CUDA 12, newer than the driver supports"
    assert _argv(f)[0][-2:] == ("faster-whisper==0.10.1", "ctranslate2==3.24.0")


@states("framework-driver-too-old", FIRES)
def test_ctranslate2_alone_on_a_driver_below_cuda12_moves_alone():
    # OpenNMT/CTranslate2#1842 (tests/blind/plans9/cases/936-*/input.txt): driver 470.256.02 (CUDA 11.4) and
    # "Is ctranslate2 compatible with cuda 11.4?", no faster-whisper named: ctranslate2 alone moves to its CUDA 11
    # build; faster-whisper's pin stays in the words, for where it is installed.
    f = _codes(_plans9("936"))["framework-driver-too-old"]
    assert _argv(f)[0] == ("python3", "-m", "pip", "install", "ctranslate2==3.24.0")
    assert "faster-whisper==0.10.1" in f.remediation.summary


@states("framework-driver-too-old", QUIET)
def test_ctranslate2_with_the_driver_not_shown_keeps_the_driver_route():
    codes = _codes(_plans2("168"))  # faster-whisper#363: no driver version shown, mid-2023 (a CUDA 11 ctranslate2)
    assert "framework-driver-too-old" not in codes
    assert not any("ctranslate2" in " ".join(a) for f in codes.values() for a in _argv(f))


def test_a_librarys_build_of_a_cuda_major_is_its_newest():
    """checks/libraries.py: "The matrix's build of `package`: the one `version` is, else the newest of that CUDA (and
    cuDNN) major." compat_matrix/libraries.toml lists each package's builds oldest first: CTranslate2 for CUDA 12 is
    the 4.5 build (cuDNN 9), not 4.0-4.5 (cuDNN 8), unless cuDNN 8 is asked for or a 4.4 release named."""
    from gpudoctor.checks.libraries import _build
    from gpudoctor.planner.context import Context

    ctx = Context()
    builds = ctx.matrix.library_builds_of("ctranslate2")
    assert [(b.since, b.cudnn) for b in builds if b.cuda == 12] == [("4.0", 8), ("4.5", 9)]
    newest = _build(ctx, "ctranslate2", cuda=12)
    assert newest is not None and (newest.since, newest.cudnn) == ("4.5", 9)
    assert [getattr(_build(ctx, "ctranslate2", cuda=12, cudnn=8), "pin", None)] == ["4.4.0"]
    for package in {b.package for b in ctx.matrix.library_builds}:
        for cuda in {b.cuda for b in ctx.matrix.library_builds_of(package)}:
            last = [b for b in ctx.matrix.library_builds_of(package) if b.cuda == cuda][-1]
            assert _build(ctx, package, cuda=cuda) == last, (package, cuda)


@states("nvidia-wheels-conflict", FIRES)
def test_cupys_multiple_packages_warning_uninstalls_all_and_keeps_the_cuda_build():
    f = _codes(_plans2("129"))["nvidia-wheels-conflict"]  # rapidsai/cugraph#3057: conda cupy + pip cupy-cuda11x
    assert f.title == "2 CuPy distributions are installed together: cupy, cupy-cuda11x"
    assert _argv(f) == [
        ("python3", "-m", "pip", "uninstall", "-y", "cupy", "cupy-cuda11x"),
        ("python3", "-m", "pip", "install", "cupy-cuda11x"),
    ]


@states("nvidia-wheels-conflict", QUIET)
def test_one_cupy_named_in_prose_is_no_conflict():
    assert "nvidia-wheels-conflict" not in _codes("I installed cupy-cuda12x and import cupy works.\n")


CUDA_BINDINGS = "cuda.bindings._internal.utils.NotSupportedError: CUDA driver version {n} is not supported\n"


@states("cuda-bindings-too-old", FIRES)
def test_cuda_bindings_refusing_a_cuda13_driver_moves_both_cuda_python_packages_to_12_9_1():
    f = _codes(_plans2("123"))["cuda-bindings-too-old"]  # NVIDIA/numba-cuda#369: Windows, python.org Python 3.12
    assert f.title == "the installed cuda-bindings refuses the CUDA 13.0 driver"
    python = "C:\\Users\\Gabe\\AppData\\Local\\Programs\\Python\\Python312\\python.exe"
    assert _argv(f) == [(python, "-m", "pip", "install", "--upgrade", "cuda-bindings>=12.9.1,<13", "cuda-python>=12.9.1,<13")]


@states("cuda-bindings-too-old", QUIET)
def test_cuda_bindings_refusing_an_older_driver_is_not_the_12_9_0_bug():
    assert "cuda-bindings-too-old" not in _codes(CUDA_BINDINGS.format(n=11040))
    # The page's rule, "the driver's version is CUDA 13.0 or newer", at its boundary: 12.9 is not, 13.0 itself is.
    assert "cuda-bindings-too-old" not in _codes(CUDA_BINDINGS.format(n=12090))
    assert "cuda-bindings-too-old" in _codes(CUDA_BINDINGS.format(n=13000))
    assert "cuda-bindings-too-old" in _codes(CUDA_BINDINGS.format(n=13010))


@states("cudnn-missing", FIRES)
def test_onnxruntimes_provider_missing_cudnn9_gets_the_cu12_wheels_and_their_directories():
    from pathlib import Path

    case = next((Path(__file__).resolve().parents[1] / "blind" / "plans" / "cases").glob("030-*"))
    f = _codes(case.joinpath("input.txt").read_text(encoding="utf-8"))["cudnn-missing"]  # microsoft/onnxruntime#25609
    assert f.title == "onnxruntime-gpu needs cuDNN 9 for CUDA 12, and the loader cannot find libcudnn.so.9"
    assert _argv(f)[0] == ("python3", "-m", "pip", "install", "nvidia-cublas-cu12", "nvidia-cudnn-cu12==9.*")


TRITON = (
    "GPUTooOldForTriton: Found Tesla P100-PCIE-16GB which is too old to be supported by the triton GPU compiler, which "
    "is used as the backend. Triton only supports devices of CUDA Capability >= 7.0, but your device is of CUDA "
    "capability 6.0\n"
)


@states("framework-arch-unsupported", FIRES)
def test_triton_gpu_too_old_is_the_gpu_not_a_build_and_installs_nothing():
    f = _codes(TRITON)["framework-arch-unsupported"]
    assert "Tesla P100-PCIE-16GB" in f.title and "6.0" in f.title and "7.0" in f.title
    assert f.remediation.component == "gpu"
    # No install of torch, triton or a driver: whatever the step asks to run only reads.
    assert not any(a[:3] == ("python3", "-m", "pip") and "install" in a for a in _argv(f))
    assert f.evidence[0].value.startswith("GPUTooOldForTriton: Found Tesla P100")


@states("framework-arch-unsupported", QUIET)
def test_triton_message_named_without_its_capabilities_is_quiet():
    # Only the message's first words (a title, a code comment) state neither the GPU's capability nor Triton's floor.
    assert "framework-arch-unsupported" not in _codes(
        "# Found Tesla M60 which is too old to be supported by the triton GPU compiler\n"
    )


@states("framework-driver-too-old", FIRES)
def test_driver_too_old_quoted_without_the_space_decodes_the_cuda_version():
    f = _codes('It raise assertion error which shows "The NVIDIA driver on your system is too old(found version 8000)".\n')[
        "framework-driver-too-old"
    ]
    assert "8.0" in f.title


PIP_ROWS = "python                3.10\ntorch                   {torch}\ntorchaudio          2.7.0+cu118\n"


@states("companion-torch-mismatch", QUIET)
def test_a_torch_version_no_release_has_beside_its_companion_is_not_read():
    # "torch 7.0+cu118" beside torchaudio 2.7.0+cu118 (pytorch/pytorch#153944): a slip, not a torch to move torchaudio to.
    snap = read_pasted([Source("t", PIP_ROWS.format(torch="7.0+cu118"))])
    assert "torch" not in snap["python"]["distributions"]
    assert any("7.0+cu118" in n and "torchaudio 2.7.0" in n for n in snap["pasted"]["notes"])
    assert "companion-torch-mismatch" not in _codes(PIP_ROWS.format(torch="7.0+cu118"))


@states("companion-torch-mismatch", FIRES)
def test_a_real_torch_release_beside_a_companion_of_another_stays_a_mismatch():
    snap = read_pasted([Source("t", PIP_ROWS.format(torch="2.3.1+cu118"))])
    assert snap["python"]["distributions"]["torch"] == "2.3.1+cu118"
    assert "companion-torch-mismatch" in _codes(PIP_ROWS.format(torch="2.3.1+cu118"))


FORM = "system: ubuntu\nGraphics card: {gpu}\nCUDA Version: {cuda}\npytorch: 1.10\npython: 3.9\n"


@states("toolkit-arch-unsupported", FIRES)
def test_a_stated_cuda_older_than_the_named_gpu_is_the_toolkit_that_cannot_build_for_it():
    f = _codes(FORM.format(gpu="rtx4090", cuda="11.3"))["toolkit-arch-unsupported"]
    assert [e.value for e in f.evidence] == ["CUDA Version: 11.3", "rtx4090: 8.9"]
    assert "11.8" in f.title and f.remediation.component == "toolkit" and "TORCH_CUDA_ARCH_LIST=8.6" in f.remediation.summary


@states("toolkit-arch-unsupported", QUIET)
def test_a_stated_cuda_that_knows_the_gpu_or_a_gpu_too_old_for_it_is_quiet():
    assert "toolkit-arch-unsupported" not in _codes(FORM.format(gpu="RTX 3090", cuda="11.3"))
    # Kepler with CUDA 12: a CUDA 12 driver on a K80 reads the same as a CUDA 12 toolkit; neither is decided here.
    assert "toolkit-arch-unsupported" not in _codes(FORM.format(gpu="Tesla K80", cuda="12.2"))


TURING_ON_92 = FORM.format(gpu="RTX 2060", cuda="9.2")


def _arch_asks(text: str) -> list[tuple[str, ...]]:
    """The codes of each ask of the report on `text` (the findings whose command the answer decides)."""
    from gpudoctor.pasted.ask import ask_for

    r = pasted_report(text)
    return [a.codes for a in ask_for(r.facts, r.findings)]


@states("toolkit-arch-unsupported", FIRES)
def test_a_stated_cuda_builds_for_the_discrete_gpus_of_the_major_never_a_tegra_parts():
    # CUDA 9.2 knows 7.0 (Volta) and 7.2 (Xavier, a Tegra part: its cubins do not run on a desktop GPU); a Turing 7.5
    # runs 7.0's. The torch is stated without its CUDA build: which way fits is asked, by the ask naming the finding.
    f = _codes(TURING_ON_92)["toolkit-arch-unsupported"]
    assert "TORCH_CUDA_ARCH_LIST=7.0 " in f.remediation.summary and "7.2" not in f.remediation.summary
    assert f.remediation.commands == ()
    assert ("toolkit-arch-unsupported",) in _arch_asks(TURING_ON_92)


@states("toolkit-arch-unsupported", FIRES)
def test_a_stated_cuda_beside_a_torch_of_its_major_gets_the_same_major_build_as_a_command():
    text = TURING_ON_92.replace("pytorch: 1.10\n", "") + "\n$ pip list\ntorch          1.3.0+cu92\n"
    f = _codes(text)["toolkit-arch-unsupported"]
    (env, *_) = f.remediation.commands
    assert isinstance(env, SetEnv) and (env.name, env.value) == ("TORCH_CUDA_ARCH_LIST", "7.0+PTX")
    assert f.remediation.alternative is not None and f.remediation.alternative.component == "toolkit"
    assert ("toolkit-arch-unsupported",) not in _arch_asks(text)  # (decided: nothing left to ask)


@states("toolkit-arch-unsupported", QUIET)
def test_a_stated_cuda_beside_a_torch_of_another_major_keeps_the_toolkit_way():
    # torch's cu101 builds with a CUDA 10 toolkit, which knows 7.5: no architecture list set for CUDA 9.2's nvcc
    text = TURING_ON_92.replace("pytorch: 1.10\n", "") + "\n$ pip list\ntorch          1.3.0+cu101\n"
    f = _codes(text)["toolkit-arch-unsupported"]
    assert not any(isinstance(c, SetEnv) for c in f.remediation.commands) and f.remediation.alternative is None


def _gpus(text: str) -> list:
    return (read_pasted([Source("t", text)]).get("nvml") or {}).get("devices") or []


def test_a_gpu_named_in_words_is_the_machines_with_its_matrix_capability():
    assert _gpus("I am using a Tesla K40m, installed pytorch 1.3 with conda\n") == [
        {"index": 0, "name": "Tesla K40m", "compute_capability": "3.5"}
    ]
    # A four-digit GeForce number after NVIDIA, a CJK word right after it (no space): the RTX 2070.
    assert _gpus("win10, nvidia 2070\u663e\u5361\n")[0]["compute_capability"] == "7.5"


def test_several_gpus_named_or_a_tools_output_leave_the_words_unread():
    assert _gpus("It works on my RTX 3090 but not on the GTX 1080.\n") == []
    assert _gpus("GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-12345678-1234-1234-1234-123456789abc)\nmy RTX 3090 at home\n") == [
        {"index": 0, "name": "NVIDIA A100-SXM4-40GB", "uuid": "GPU-12345678-1234-1234-1234-123456789abc"}
    ]


def test_a_form_cuda_version_no_toolkit_has_is_the_drivers():
    # 12.7 was never a toolkit release: it is nvidia-smi's header (driver 565), the newest CUDA the driver supports.
    snap = read_pasted([Source("t", FORM.format(gpu="NVIDIA GeForce RTX 2070", cuda="12.7"))])
    assert snap["nvml"]["cuda_driver_version"] == 12070
    # 11.3 is a toolkit release as well as a driver's header: whose it is stays unsaid.
    assert "cuda_driver_version" not in read_pasted([Source("t", FORM.format(gpu="RTX 3090", cuda="11.3"))])["nvml"]


# Windows' loader naming a torch symbol an xformers build made before the update no longer finds.
_XFORMERS_POPUP = (
    "The procedure entry point ?element_size@TensorIteratorBase@at@@QEBA_JH@Z could not be located in the dynamic "
    "link library\nE:\\apps\\comfy\\env\\lib\\site-packages\\xformers\\_C.pyd.\n"
)


_report = pasted_report


@states("extension-symbol-missing", FIRES)
def test_a_torch_update_the_text_states_with_its_conda_build_moves_xformers_to_that_torch():
    """The reporter says torch was updated to 2.3.1 and shows the conda line that did it (pytorch-cuda=12.1): the
    installed torch is that one, and xformers moves to the release built for it, without touching conda's torch."""
    text = (
        "Since I upgraded PyTorch to 2.3.1 the app shows this:\n"
        "conda install pytorch==2.3.1 pytorch-cuda=12.1 -c pytorch -c nvidia\n" + _XFORMERS_POPUP
    )
    report = _report(text)
    torch = report.facts.frameworks.torch.value
    assert (torch.version, torch.cuda) == ("2.3.1", "12.1")
    codes = {f.code: f for f in report.findings}
    assert "framework-cpu-build" not in codes
    assert _argv(codes["extension-symbol-missing"])[0][1:] == (
        "-m", "pip", "install", "--force-reinstall", "--no-deps", "xformers==0.0.27",
    )  # fmt: skip


@states("extension-symbol-missing", FIRES)
def test_a_linux_torch_update_stated_in_prose_moves_the_companion_whatever_its_build():
    text = (
        "after updating torch to 2.4.1 torchvision fails:\n"
        "ImportError: /home/u/env/lib/python3.11/site-packages/torchvision/_C.so: undefined symbol: "
        "_ZN3c1017RegisterOperatorsD1Ev\n"
    )
    f = {f.code: f for f in _report(text).findings}["extension-symbol-missing"]
    assert [a for a in _argv(f)[0] if a.startswith("torchvision")] == ["torchvision==0.19.1"]


def test_a_torch_update_asked_about_or_without_its_build_on_windows_is_not_the_installed_torch():
    """A question is no update; on Windows an untagged version without the command that installed it would read as
    PyPI's CPU-only wheel, so it is not taken either."""
    from gpudoctor.probed import Found

    for said in ("Should I update to torch 2.3.1?\n", "Since I upgraded PyTorch to 2.3.1 the app shows this:\n"):
        report = _report(said + _XFORMERS_POPUP)
        assert not isinstance(report.facts.frameworks.torch, Found)
        assert "framework-cpu-build" not in {f.code for f in report.findings}


@states("extension-symbol-missing", FIRES)
def test_an_extension_in_nvidias_pytorch_image_is_rebuilt_against_the_images_own_torch():
    """NVIDIA's PyTorch image ships its own torch build: no release wheel of a companion matches it, so the fix builds
    the release the text names from source against that torch (flash-attn: its setup would fetch the wheel again
    without FLASH_ATTENTION_FORCE_BUILD)."""
    from gpudoctor.cmdline import SetEnv

    text = (
        "Running in nvcr.io/nvidia/pytorch:24.01-py3 with "
        "flash_attn-2.5.6+cu122torch2.2cxx11abiFALSE-cp310-cp310-linux_x86_64.whl installed:\n"
        "ImportError: /workspace/env/lib/python3.10/site-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: "
        "undefined symbol: _ZN3c104cuda9SetDeviceEi\n"
    )
    f = {f.code: f for f in _report(text).findings}["extension-symbol-missing"]
    assert SetEnv("FLASH_ATTENTION_FORCE_BUILD", "TRUE") in f.remediation.commands
    assert _argv(f)[0][1:] == (
        "-m", "pip", "install", "--no-build-isolation", "--no-binary", "flash-attn", "--no-cache-dir",
        "--force-reinstall", "--no-deps", "flash-attn==2.5.6",
    )  # fmt: skip


def _plans15(prefix: str) -> str:
    from pathlib import Path

    cases = Path(__file__).resolve().parents[1] / "blind" / "plans15" / "cases"
    return next(cases.glob(prefix + "-*")).joinpath("input.txt").read_text(encoding="utf-8")


@states("extension-symbol-missing", FIRES)
def test_selective_scan_cuda_is_mamba_ssms_extension_and_its_installed_release_is_rebuilt():
    """plans15/1504 (Colab, torch 2.3.0+cu121, mamba-ssm installed without a version): the undefined symbol is in
    selective_scan_cuda, mamba-ssm's extension (state-spaces/mamba setup.py @fe5f0c85), built here against the
    installed torch (MAMBA_FORCE_BUILD: not a release asset). Its release not shown, the fix is decided with a named
    assumption (issue 27, kind 9): pip show first (the read that shows the release), the broken build removed, the
    release pip picks installed without build isolation or pip's cache, no placeholder in the command."""
    from gpudoctor.cmdline import Placeholder, SetEnv

    report = _report(_plans15("1504"))
    f = {f.code: f for f in report.findings}["extension-symbol-missing"]
    assert f.title.startswith("mamba-ssm needs")
    show, remove, force, install, loads = f.remediation.commands
    assert force == SetEnv("MAMBA_FORCE_BUILD", "TRUE")
    assert show.argv == ("%pip", "show", "mamba-ssm")
    assert remove.argv == ("%pip", "uninstall", "-y", "mamba-ssm")
    assert install.argv == ("%pip", "install", "--no-build-isolation", "--no-cache-dir", "mamba-ssm")
    assert "assumes" in install.note and not any(isinstance(a, Placeholder) for a in install.argv)
    # the module the error named, imported after torch: the rebuild took when it loads (plans20/2065)
    assert loads.argv[-2:] == ("-c", "import torch, selective_scan_cuda")


@states("extension-symbol-missing", FIRES)
def test_a_mamba_ssm_of_a_version_shown_is_rebuilt_without_pips_cached_wheel():
    """plans15/1504's error with the versions a `pip list` shows: mamba-ssm 1.2.0.post1 (on the index) is built again
    against the installed torch. --no-cache-dir: pip would reinstall the wheel it built for the old torch from its cache
    (pypa/pip#9162, fixed by #11872: --no-binary no longer bypasses it)."""
    error = next(line for line in _plans15("1504").splitlines() if "undefined symbol" in line)
    text = "$ pip list\nPackage Version\n--------- -----------\ntorch 2.3.0+cu121\nmamba-ssm 1.2.0.post1\n" + error + "\n"
    f = {f.code: f for f in _report(text).findings}["extension-symbol-missing"]
    assert _argv(f) == [
        ("python3", "-m", "pip", "install", "--no-build-isolation", "--no-binary", "mamba-ssm", "--no-cache-dir",
         "--force-reinstall", "--no-deps", "mamba-ssm==1.2.0.post1"),
    ]  # fmt: skip


@states("extension-symbol-missing", QUIET)
def test_an_extension_merely_named_like_mamba_ssms_is_not_mamba_ssm():
    """The quiet twin: a project's own selective_scan.so (not mamba-ssm's selective_scan_cuda) is no mamba-ssm; the
    extension of causal-conv1d, which mamba-ssm requires, is causal-conv1d's (Dao-AILab/causal-conv1d setup.py
    @dedc05ff)."""
    from gpudoctor.checks.extensions import object_owner

    site = "/usr/local/lib/python3.10/dist-packages"
    assert object_owner(f"{site}/selective_scan_cuda.cpython-310-x86_64-linux-gnu.so") == "mamba-ssm"
    assert object_owner(f"{site}/causal_conv1d_cuda.cpython-310-x86_64-linux-gnu.so") == "causal-conv1d"
    assert object_owner("/home/u/proj/build/selective_scan.cpython-310-x86_64-linux-gnu.so") is None


@states("extension-symbol-missing", FIRES)
def test_outside_an_image_an_unversioned_extension_is_decided_with_its_assumption_named():
    """Issue 27, kind 9: the release not shown, the newest is installed for this torch (flash-attn's setup fetches the
    wheel built for it, or builds against it), after pip show, the read that shows the release installed, and the
    note says so. flash-attn is built here (FLASH_ATTENTION_FORCE_BUILD): a release asset can be of the other C++ ABI
    (plans3/247: flash-attn 2.8.0.post2's for torch 2.6)."""
    from gpudoctor.cmdline import SetEnv

    text = (
        "ImportError: /workspace/env/lib/python3.10/site-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: "
        "undefined symbol: _ZN3c104cuda9SetDeviceEi\n"
    )
    f = {f.code: f for f in _report(text).findings}["extension-symbol-missing"]
    pips = [c[3:] for c in _argv(f) if c[1:3] == ("-m", "pip")]
    assert pips == [
        ("show", "flash-attn"),
        ("uninstall", "-y", "flash-attn"),
        ("install", "--no-build-isolation", "--no-cache-dir", "flash-attn"),
    ]
    install = next(c for c in f.remediation.commands if "install" in getattr(c, "argv", ()))
    assert install.note.startswith("assumes")
    assert SetEnv("FLASH_ATTENTION_FORCE_BUILD", "TRUE") in f.remediation.commands


_PJRT = (
    "RuntimeError: Unable to initialize backend 'cuda': INVALID_ARGUMENT: Mismatched PJRT plugin PJRT API version "
    "(0.47) and framework PJRT API version 0.40).\n"
)


@states("jax-plugin-mismatch", FIRES)
def test_a_pjrt_mismatch_with_its_cuda_major_named_reinstalls_every_jax_package_of_that_major():
    """The versions were not shown, the major was (the plugin's name): jax's own extra, upgraded, pins jaxlib, the
    plugin and PJRT to one release; a cuDNN older than JAX's build is the same step (the extra brings cuDNN)."""
    text = (
        "jaxlib and jax-cuda12-plugin were installed a week apart\n" + _PJRT + "E0101 cuda_dnn.cc:535] Loaded runtime CuDNN "
        "library: 8.9.0 but source was compiled with: 8.9.4.  CuDNN library needs to have matching major version and "
        "equal or higher minor version.\n"
    )
    found = {f.code: f for f in _report(text).findings}
    want = [("python3", "-m", "pip", "install", "-U", "jax[cuda12]")]
    assert _argv(found["jax-plugin-mismatch"]) == want
    assert _argv(found["cudnn-too-old"]) == want


@states("jax-plugin-mismatch", FIRES)
def test_a_pjrt_mismatch_without_a_cuda_major_the_newest_jax_builds_asks_instead():
    for text in (_PJRT, "pip install jaxlib==0.4.1+cuda11.cudnn82\n" + _PJRT):
        assert _argv({f.code: f for f in _report(text).findings}["jax-plugin-mismatch"]) == []


@states("extension-symbol-missing", FIRES)
def test_a_companion_imported_from_its_source_checkout_is_rebuilt_there():
    """The traceback runs torchvision from ~/src/vision (a checkout, no site-packages): its extension was built there
    against the torch of that time, so it is built there again, against the torch installed now."""
    from gpudoctor.cmdline import Cmd

    text = (
        '  File "~/src/vision/torchvision/extension.py", line 12, in <module>\n'
        "ImportError: /home/u/.local/lib/python3.9/site-packages/torchvision/_C.so: undefined symbol: "
        "_ZN3c1017RegisterOperatorsD1Ev\n"
    )
    f = {f.code: f for f in _report(text).findings}["extension-symbol-missing"]
    read, remove, cmd = [c for c in f.remediation.commands if isinstance(c, Cmd)]
    # torch's version not shown: what the rebuild compiles against is read first, with the same interpreter
    assert read.words[1] == "-c" and read.words[0] == cmd.words[0] and "torch.version.cuda" in read.words[2]
    # the old build's objects go first (setuptools would link them again), named from the home directory as the
    # traceback names the checkout: the same folder from any directory the shell is in
    assert remove.words == ("rm", "-rf", "~/src/vision/build")
    assert cmd.words[1:] == ("-m", "pip", "install", "--no-build-isolation", "--force-reinstall", "--no-deps", "~/src/vision")


# --- nvcc refusing an architecture, with its release shown (catalogue: nvcc-gpu-architecture-not-defined,
# nvcc-unsupported-gpu-architecture; gpu_arch.toml: 8.9 from CUDA 11.8, 3.0 up to CUDA 10.2) ---------------------------
def _nvcc(release: str, error: str) -> str:
    return f"nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release {release}, V{release}.100\n{error}\n"


@pytest.mark.parametrize(
    ("release", "error", "words"),
    [
        ("11.6", "nvcc fatal   : Value 'sm_89' is not defined for option 'gpu-architecture'", ("11.6", "11.8")),
        ("11.0", "nvcc fatal   : Unsupported gpu architecture 'compute_86'", ("11.0", "11.1")),
        ("11.2", "nvcc fatal   : Value 'sm_30' is not defined for option 'gpu-architecture'", ("11.2", "no longer")),
    ],
)
@states("toolkit-arch-unsupported", FIRES)
def test_nvcc_refusing_an_architecture_with_its_release_shown_fires(release, error, words):
    f = _codes(_nvcc(release, error))["toolkit-arch-unsupported"]
    assert all(w in f.title for w in words), f.title
    assert f.evidence[0].value == error
    assert "pasted-error-unexplained" not in _codes(_nvcc(release, error))


@pytest.mark.parametrize(
    "text",
    [
        # (a release shown that can target it is two toolkits since h241: the test below)
        # (no release shown is judged since h230: an nvcc that refuses an architecture every release since its first
        # compiles is older than that first release; tests/pasted/test_nvcc_older_than_arch.py states it)
        # another tool's words
        _nvcc("12.4", "cuobjdump fatal   : Value 'sm_120' is not defined for option 'gpu-architecture'"),
    ],
)
@states("toolkit-arch-unsupported", QUIET)
def test_nvcc_refusal_is_not_judged_without_a_release_that_cannot_target_it(text):
    assert "toolkit-arch-unsupported" not in _codes(text)


@states("toolkit-arch-unsupported", FIRES)
def test_nvcc_refusing_an_architecture_its_shown_release_compiles_asks_which_nvcc_ran():
    # nvcc 12.4 shown, sm_89 refused (CUDA 11.8 on): the nvcc that refused it is another, older one the build found
    # first; the plan reads which (PATH, CMake's cache) and installs nothing
    f = _codes(_nvcc("12.4", "nvcc fatal   : Value 'sm_89' is not defined for option 'gpu-architecture'"))[
        "toolkit-arch-unsupported"
    ]
    argvs = [tuple(c.words) for c in f.remediation.commands]
    assert ("which", "-a", "nvcc") in argvs and ("grep", "CMAKE_CUDA_COMPILER", "CMakeCache.txt") in argvs
    assert not any(a[0] in ("apt-get", "dnf", "zypper", "gpudoctor") for a in argvs)


# --- nvcc's host_config.h refusing the host compiler (catalogue: nvcc-host-gcc-unsupported, nvcc-host-clang-unsupported,
# nvcc-host-msvc-unsupported) -----------------------------------------------------------------------------------------
GCC13 = (
    "/usr/local/cuda/include/crt/host_config.h:143:2: error: #error -- unsupported GNU version! gcc versions later than 13 "
    "are not supported! The nvcc flag '-allow-unsupported-compiler' can be used to override this version check"
)
MSVC = (
    r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v11.8\include\crt/host_config.h(153): fatal error C1189: "
    "#error:  -- unsupported Microsoft Visual Studio version! Only the versions between 2017 and 2022 (inclusive) are "
    "supported!"
)
CLANG = "/usr/include/crt/host_config.h:147:2: error: -- unsupported clang version! clang version must be less than 13 and greater than 3.2 ."


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (GCC13, ("gcc 13 and older",)),
        (_nvcc("12.6", GCC13), ("CUDA 12.6", "gcc 13")),
        (CLANG, ("clang below 13",)),
        (MSVC, ("Visual Studio", "between 2017 and 2022")),
        # torch.utils.cpp_extension's own table, checked before nvcc runs
        (
            "RuntimeError: The current installed version of g++ (13.2.0) is greater than the maximum required version by "
            "CUDA 11.3. Please make sure to use an adequate version of g++ (>=5.0.0, <11.0).",
            ("g++ 13.2.0", "CUDA 11.3", ">=5.0.0, <11.0"),
        ),
        # an older nvcc's own check
        ("nvcc fatal   : The version ('70000') of the host compiler ('Apple clang') is not supported", ("Apple clang",)),
    ],
)
@states("host-compiler-unsupported", FIRES)
def test_nvccs_host_compiler_refusal_fires_with_the_limit_it_names(text, words):
    codes = _codes(text)
    f = codes["host-compiler-unsupported"]
    assert all(w in f.title for w in words), f.title
    assert f.evidence[0].value.endswith(text.splitlines()[-1][-60:])
    assert "pasted-error-unexplained" not in codes
    assert f.remediation is not None and f.remediation.commands == ()  # what to install is decided by the asks


@pytest.mark.parametrize(
    "text",
    [
        # the override on a command line that compiled
        "/usr/local/cuda/bin/nvcc -allow-unsupported-compiler -ccbin g++-12 -c kernel.cu -o kernel.o\n",
        # a README's advice naming the message with a placeholder, not a build's error
        'If make complains "unsupported GNU version! gcc versions later than X are not supported", install an older gcc.\n',
        # CMake finding MSVC, nothing refused
        "-- The CUDA compiler identification is NVIDIA 12.6.77\n-- Check for working CUDA compiler: nvcc.exe - skipped\n",
    ],
)
@states("host-compiler-unsupported", QUIET)
def test_no_refusal_no_finding(text):
    assert "host-compiler-unsupported" not in _codes(text)


@states("toolkit-arch-unsupported", QUIET)
def test_nvcc_refusal_beside_a_shown_gpu_leaves_it_to_the_toolkit_check():
    # the GPU is shown (nvidia-smi -L): the toolkit's own check names it, and the message adds no second finding
    text = "$ nvidia-smi -L\nGPU 0: NVIDIA GeForce RTX 3090 (UUID: GPU-5c1a7b0e-1f0e-4a8e-9e1b-0c6f3d2a9b10)\n" + _nvcc(
        "11.0", "nvcc fatal   : Unsupported gpu architecture 'compute_86'"
    )
    snapshot = validate_snapshot(read_pasted([Source("t", text)]), "t")
    found = [f for f in diagnose(ReplayHost(snapshot)).findings if f.code == "toolkit-arch-unsupported"]
    assert len(found) == 1 and "RTX 3090" in found[0].title


# --- the kernel log's Xid lines and CUDA's ECC error (catalogue.toml, the driver's own health) ---------------------

XID48 = "Dec  2 10:43:35 worker4 kernel: [240314.528856] NVRM: Xid (PCI:0000:07:00): 48, pid='<unknown>', name=<unknown>, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer\n"


@states("gpu-ecc-errors", FIRES)
def test_a_memory_xid_in_a_pasted_kernel_log_is_gpu_ecc_errors_at_its_bus_id():
    """gpu-ecc-errors.md: "In pasted text ... the kernel log's memory Xids ... An error for 48, 64, 95 and the CUDA
    error, a warning for 63, 92 and 94. The plan queries the GPU the Xid names by its bus id ..., then resets it" """
    f = _codes(XID48)["gpu-ecc-errors"]
    assert f.severity.name == "ERROR"
    assert _argv(f) == [
        ("nvidia-smi", "-q", "-d", "ECC,ROW_REMAPPER,PAGE_RETIREMENT", "-i", "0000:07:00.0"),
        ("nvidia-smi", "--gpu-reset", "-i", "0000:07:00.0"),
    ]
    pending = "[ 10.1] NVRM: Xid (PCI:0000:86:00): 63, pid='<unknown>', name=<unknown>, Row Remapper: New row marked for remapping, reset gpu to activate.\n"
    f = _codes(pending)["gpu-ecc-errors"]
    assert f.severity.name == "WARNING" and _argv(f)[1] == ("nvidia-smi", "--gpu-reset", "-i", "0000:86:00.0")
    sbe = "NVRM: Xid (PCI:0000:3b:00): 92, pid=1234, High single-bit ECC error rate\n"
    assert _argv(_codes(sbe)["gpu-ecc-errors"]) == [
        ("nvidia-smi", "-q", "-d", "ECC,ROW_REMAPPER,PAGE_RETIREMENT", "-i", "0000:3b:00.0")
    ]


@states("gpu-ecc-errors", FIRES)
def test_cudas_uncorrectable_ecc_error_is_gpu_ecc_errors_of_every_gpu():
    """gpu-ecc-errors.md: "or CUDA's own `uncorrectable ECC error encountered` ... the CUDA error names no GPU, so the
    query is of every GPU." """
    f = _codes("RuntimeError: CUDA error: uncorrectable ECC error encountered\n")["gpu-ecc-errors"]
    assert _argv(f)[0] == ("nvidia-smi", "-q", "-d", "ECC,ROW_REMAPPER,PAGE_RETIREMENT")


@states("gpu-ecc-errors", QUIET)
def test_the_programs_own_xids_and_a_dcgm_field_name_are_not_gpu_ecc_errors():
    """gpu-ecc-errors.md: "The Xids of the program's own faults (13, 31, 43, 45) are not this code, nor anything
    else." - nor is the word Xid 48 in prose or a monitoring field's name."""
    app = (
        "NVRM: Xid (PCI:0000:cb:00): 13, pid='<unknown>', name=<unknown>, Graphics SM Warp Exception on (GPC 7, TPC 7, SM 0): Illegal Instruction Parameter\n"
        "NVRM: Xid (PCI:0000:dc:00): 45, pid=1818990, name=python3, Ch 00000001\n"
    )
    assert _codes(app) == {}
    prose = "Our dashboards alert on Xid 48 and DCGM_FI_DEV_ECC_DBE_VOL_TOTAL; nothing fired this week.\n"
    assert "gpu-ecc-errors" not in _codes(prose)


@states("gpu-lost", FIRES)
def test_the_drivers_probe_finding_a_gpu_fallen_off_the_bus_is_gpu_lost():
    """gpu-lost.md: "so is the driver's probe finding it gone without an Xid (`NVRM: The NVIDIA GPU 0000:b3:00.0 ...
    installed in this system has fallen off the bus and is not responding to commands.`)" """
    text = (
        "Oct 25 10:01:02 node kernel: NVRM: The NVIDIA GPU 0000:b3:00.0\n"
        "Oct 25 10:01:02 node kernel: NVRM: (PCI ID: 10de:26b5) installed in this system has\n"
        "Oct 25 10:01:02 node kernel: NVRM: fallen off the bus and is not responding to commands.\n"
    )
    f = _codes(text)["gpu-lost"]
    assert "0000:b3:00.0" in f.title and _argv(f)[-1] == ("reboot",)


@states("driver-unreachable", FIRES)
def test_no_devices_were_found_is_a_loaded_driver_that_brought_up_no_gpu():
    """driver-unreachable.md: "`No devices were found`: NVML answered (the module is loaded) but the driver brought up
    no GPU; the kernel log says why (`RmInitAdapter failed!`), and the plan reads it and `lspci -nnk -d 10de:` before
    anything is changed" """
    f = _codes("$ nvidia-smi\nNo devices were found\n")["driver-unreachable"]
    assert "brought up no GPU" in f.title
    assert _argv(f) == [("dmesg",), ("lspci", "-nnk", "-d", "10de:")]


@states("host-compiler-unsupported", FIRES)
def test_a_python_builds_gcc_refusal_runs_the_reporters_own_install_again_with_the_older_gcc():
    """tests/blind/plans10/cases/1032 (detectron2 built by `python -m pip install 'git+...'`, nvcc refusing gcc 11): the
    rerun of the same install is a command after CC and CXX, the reporter's words as data, never a comment (issue 27,
    kind 9). The reader takes a pip install only as a command line of its own: pasted pytorch-4546's two `pip3 install`
    lines are read, and transcan-4's "when running pip install -r requirements.txt", inside a sentence, is not."""
    from tests.conftest import ROOT

    case = ROOT / "tests/blind/plans10/cases/1032-detectron2-4361-pip-git-build-apt-nvcc-usr-lib-cuda-gcc11-too-new"
    text = (case / "input.txt").read_text(encoding="utf-8")
    f = pasted_findings(text)["host-compiler-unsupported"]
    lines = f.remediation.commands
    assert [(c.name, c.value) for c in lines if isinstance(c, SetEnv)] == [("CC", "gcc-10"), ("CXX", "g++-10")]
    assert argv_of(f)[-1] == ("python3", "-m", "pip", "install", "git+https://github.com/facebookresearch/detectron2.git")
    assert isinstance(lines[-2], SetEnv) and lines[-2].name == "CXX"  # the rerun comes after both variables

    def said(slug):
        facts = _facts(ROOT / "tests/pasted/cases" / slug / "report.txt")
        return [e.get("args") for e in facts.pasted.reported("pip-install-said")]

    assert said("pytorch-4546-driver-cuda91-torch-cu100-nvcc101") == [
        "https://download.pytorch.org/whl/cu100/torch-1.0.1.post2-cp35-cp35m-linux_x86_64.whl",
        "torchvision",
    ]
    assert said("transcan-4-windows-jaxlib-0412-vs-jax-0411") == []
    # a pip install is the command that ran, not a failure: beside a traceback the paste cuts off (plans7 620, its
    # `pip install -U "jax[cuda12]"` read without plain words), the cut is still read and the error still judged: XLA's
    # own "Please upgrade to CUDA 12.x or newer" line is the program's stated floor (checks/stated.py, h183)
    jax = ROOT / "tests/blind/plans7/cases/620-jax25718-venv-jax-cuda12-system-cuda121-ptxas-on-path-shadows-pip/input.txt"
    assert [e.get("args") for e in _facts(jax).pasted.reported("pip-install-said")] == [None]
    assert "requirement-unmet" in pasted_findings(jax.read_text(encoding="utf-8"))


def _facts(path):
    text = path.read_text(encoding="utf-8")
    return diagnose(ReplayHost(validate_snapshot(read_pasted([Source("report.txt", text)]), "pasted text"))).facts
