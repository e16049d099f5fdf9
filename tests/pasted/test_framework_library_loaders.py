"""What a framework says of the CUDA libraries it loads (issues 27/28): Paddle's cuDNN older than its build, a loader that
opens cuDNN by its development name, and a TensorRT engine of another release, whose asks reach both sides.

Real reports, whole: Paddle's start-up warning in https://github.com/PaddlePaddle/PaddleDetection/issues/3331 (cuDNN 7.4
loaded, 7.6 compiled; tests/pasted/catalogue_examples) and tests/blind/plans12/cases/1208-* (a conda environment); the
unversioned libcudnn.so in https://github.com/PaddlePaddle/Paddle/issues/11068 (its log as the terminal wrapped it) and
tests/blind/plans12/cases/1211-*; TensorRT's version-tag refusal in tests/blind/plans7/cases/612-* and
tests/blind/plans12/cases/1217-* (NVIDIA's issue form, its optional fields left blank). Each rule has its quiet twin."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.cmdline import Cmd, PrependPath
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.ask import ask_for

_TESTS = Path(__file__).resolve().parents[1]
_EXAMPLES = _TESTS / "pasted" / "catalogue_examples"
_PADDLE_3331 = _EXAMPLES / "paddledetection-3331-paddle-cudnn-76-machine-74.txt"


def _case(folder: str, prefix: str) -> str:
    return next((_TESTS / "blind" / folder / "cases").glob(prefix + "-*")).joinpath("input.txt").read_text("utf-8")


def _run(text: str):
    snapshot = validate_snapshot(read_pasted([Source("t", text)]), "t")
    report = diagnose(ReplayHost(snapshot))
    assert not report.internal_errors, report.internal_errors
    asks = [
        " ".join(map(str, a.command.argv)) + (" | " + " ".join(map(str, a.command.pipe)) if a.command.pipe else "")
        for a in ask_for(report.facts, report.findings)
    ]
    return {f.code: f for f in report.findings}, asks


def _commands(finding) -> list[tuple[str, ...]]:
    return [c.words for c in finding.remediation.commands if isinstance(c, Cmd)]


# --- Paddle's cuDNN older than its build --------------------------------------------------------------------------


def test_paddles_warning_is_a_cudnn_older_than_the_build():
    codes, _ = _run(_PADDLE_3331.read_text("utf-8"))
    f = codes["cudnn-too-old"]
    assert "7.4" in f.title and "7.6" in f.title and "Paddle" in f.title
    assert f.remediation.component == "cudnn"
    # a pip install: no conda command, the loader's copies decide where the newer cuDNN goes
    assert not any(c[0] == "conda" for c in _commands(f))


def test_in_a_conda_environment_the_environments_cudnn_is_raised():
    codes, _ = _run(_case("plans12", "1208"))
    f = codes["cudnn-too-old"]
    assert "7.3" in f.title and "7.6" in f.title
    assert _commands(f) == [("conda", "list", "cudnn"), ("conda", "install", "cudnn=7.6")]


def test_paddles_cudnn_line_without_the_warning_is_quiet():
    # the same log's line before the warning: the cuDNN that loaded, with nothing compared
    line = next(x for x in _PADDLE_3331.read_text("utf-8").splitlines() if "cuDNN Version: 7.4." in x)
    codes, _ = _run(line + "\n")
    assert "cudnn-too-old" not in codes


# --- cuDNN opened by its development name -------------------------------------------------------------------------


def _wrapped_11068() -> str:
    return (
        "Cuda-9.0\nGPU-TeslaP100\nUbuntu 16.04\n\n```\n"
        "F0531 03:56:01.989326  2382 DynamicLoader.cpp:104] Check faile\n"
        "d: nullptr != *dso_handle Failed to find dynamic library: libc\n"
        "udnn.so (libcudnn.so: cannot open shared object file: No such \n"
        "file or directory) \n"
        "Please specify its path correctly using following ways: \n"
        "Method. set environment variable LD_LIBRARY_PATH on Linux or D\n"
        "YLD_LIBRARY_PATH on Mac OS. \n"
        "```\n"
    )


def test_the_unversioned_libcudnn_is_looked_for_and_its_directory_put_on_the_path():
    # where cuDNN is, the look decides, not the install guide's folder (opendatalab/PDF-Extract-Kit#77's cuDNN was
    # elsewhere, tests/blind/plans21/cases/2134-*): the program's own installation searched first, then the machine
    for text in (_case("plans12", "1211"), _wrapped_11068()):
        codes, _ = _run(text)
        f = codes["cudnn-missing"]
        (path,) = [c for c in f.remediation.commands if isinstance(c, PrependPath)]
        roots = ("/home/godman/anaconda3", "/") if "godman" in text else ("/",)
        assert path.name == "LD_LIBRARY_PATH" and path.parts[0].argv[-1 - len(roots) :] == ("libcudnn.so*", *roots)
        # then kept for new shells in the place the paste shows (issue 27): 1211 runs Anaconda's base environment, so its
        # activate.d, written by that interpreter; the wrapped 11068 names no Python, so ~/.bashrc
        keep = ("/home/godman/anaconda3/bin/python", "-c") if "godman" in text else ("python3", "-c")
        commands = _commands(f)
        assert commands[0] == ("ldconfig", "-p") and commands[1][:2] == ("find", "/") and commands[-1][:2] == keep
        assert not any("/usr/local/cuda/lib64" in c for c in commands)


def test_a_majors_soname_keeps_the_general_fix():
    # a framework's soname of a major (libcudnn.so.8, as TensorFlow opens it) is no development name
    text = "Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open shared object file: No such file or directory\n"
    codes, _ = _run(text)
    commands = codes["cudnn-missing"].remediation.commands
    # neither the development name's folder nor its link: the directories put on the path are NVIDIA's cuDNN 8 wheels'
    # (checks.libraries.cudnn8_wheels_by_cuda), behind the package list that shows the program's CUDA major
    assert not any(isinstance(c, PrependPath) and "/usr/local/cuda/lib64" in c.parts for c in commands)
    assert not any(isinstance(c, Cmd) and c.argv[0] == "ln" for c in commands)
    assert [c.site_dir for p in commands if isinstance(p, PrependPath) for c in p.parts] == [
        "nvidia/cublas/lib",
        "nvidia/cudnn/lib",
    ]


# --- a TensorRT engine of another release -------------------------------------------------------------------------


def test_the_engines_asks_reach_every_libnvinfer_and_no_framework_left_blank():
    for prefix, folder in (("612", "plans7"), ("1217", "plans12")):
        _, asks = _run(_case(folder, prefix))
        assert {"ldconfig -p | grep -i libnvinfer", "printenv LD_LIBRARY_PATH"} <= set(asks), prefix
        # the form's "Tensorflow Version (if applicable): " left blank names no TensorFlow to ask about
        assert not any("tensorflow" in a for a in asks), prefix
    # the form's PyTorch field answered: a bystander of TensorRT's own failure ([TRT] lines), not asked about either
    _, asks = _run(_case("plans12", "1217"))
    assert not any("collect_env" in a for a in asks)


def test_a_form_field_answered_still_names_the_framework():
    # plans8 811: "**PyTorch Version (if applicable)**: 2.1.1" answered, TensorFlow's left blank
    from gpudoctor.pasted.cues import without_unanswered

    text = _case("plans8", "811")
    kept = without_unanswered(text)
    assert "**PyTorch Version (if applicable)**: 2.1.1" in kept
    assert "**TensorFlow Version (if applicable)**:" not in kept


# --- jax's import stopped at jaxlib -------------------------------------------------------------------------------


def _import_failed(text: str) -> set[str]:
    from gpudoctor.facts import IMPORT_FAILED

    snapshot = validate_snapshot(read_pasted([Source("t", text)]), "t")
    report = diagnose(ReplayHost(snapshot))
    return {c["means"] for c in report.facts.pasted.cues if c.get("cue") == IMPORT_FAILED}


def test_a_traceback_through_jaxs_jaxlib_wrapper_is_jaxs_import_failing():
    # the paste cut at the wrapper's frame (a Windows per-user Python): pip's view of jax's distributions is asked, with
    # cmd.exe's and PowerShell's own filter, in place of a probe that imports jax
    text = _case("plans12", "1212")
    assert "jaxlib" in _import_failed(text)
    _, asks = _run(text)
    python = r"C:\Users\daihao\AppData\Local\Programs\Python\Python310\python.exe"
    assert f"{python} -m pip list | findstr /i jax" in asks
    assert not any("print_environment_info" in a for a in asks)
    # the whole traceback, to its RuntimeError (https://github.com/ayaka14732/TransCan/issues/4)
    whole = (_TESTS / "pasted/cases/transcan-4-windows-jaxlib-0412-vs-jax-0411/report.txt").read_text("utf-8")
    assert "jaxlib" in _import_failed(whole)


def test_a_jax_traceback_past_the_wrapper_is_quiet():
    # plans8 801: jax imported, its CUDA plugin failed later (jax_plugins): jaxlib's import is not what failed
    assert "jaxlib" not in _import_failed(_case("plans8", "801"))


# --- CuPy's CUDA library modules not loading on Windows -----------------------------------------------------------

# https://github.com/Fannovel16/ComfyUI-Frame-Interpolation/issues/19 (the description's traceback, its first lines):
# CuPy's runtime module (cupy_backends/cuda/api/runtime.pyx, the CUDA runtime) not loading under ComfyUI's embedded Python
_COMFYUI_19 = r"""Using pytorch cross attention
Traceback (most recent call last):
  File "C:\sdComfyUI\ComfyUI_windows_portable\python_embeded\Lib\site-packages\cupy\__init__.py", line 17, in <module>
    from cupy import _core  # NOQA
    ^^^^^^^^^^^^^^^^^^^^^^
  File "C:\sdComfyUI\ComfyUI_windows_portable\python_embeded\Lib\site-packages\cupy\_core\__init__.py", line 3, in <module>
    from cupy._core import core  # NOQA
    ^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "cupy\_core\core.pyx", line 1, in init cupy._core.core
  File "C:\sdComfyUI\ComfyUI_windows_portable\python_embeded\Lib\site-packages\cupy\cuda\__init__.py", line 8, in <module>
    from cupy.cuda import compiler  # NOQA
    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "C:\sdComfyUI\ComfyUI_windows_portable\python_embeded\Lib\site-packages\cupy\cuda\compiler.py", line 13, in <module>
    from cupy.cuda import device
  File "cupy\cuda\device.pyx", line 1, in init cupy.cuda.device
ImportError: DLL load failed while importing runtime: The specified module could not be found.
"""
_CUDA_DLLS = ("cudart64_*.dll", "cublas64_*.dll", "cublasLt64_*.dll", "cusolver64_*.dll", "cusparse64_*.dll")


def _where_cuda_dlls(text: str) -> list[str]:
    return [a for a in _run(text)[1] if a.startswith("where.exe") and all(d in a for d in _CUDA_DLLS)]


def test_cupys_module_of_a_cuda_library_not_loading_lists_where_each_dll_is():
    assert _where_cuda_dlls(_case("plans12", "1219"))  # cusolver, in a pip cupy-cuda111 on Python 3.8
    assert _where_cuda_dlls(_COMFYUI_19)  # runtime, in ComfyUI's embedded Python


def test_another_packages_dll_load_failure_is_quiet():
    # localGPT#630 (catalogue_examples): exllama's kernels, no CuPy at work
    assert not _where_cuda_dlls((_EXAMPLES / "localgpt-630-dll-load-failed-exllama-kernels.txt").read_text("utf-8"))


def test_paddles_own_check_is_asked_in_a_form_paddle_1_runs():
    # plans12 1208: Paddle 1.7.1, whose check is paddle.fluid.install_check.run_check (paddle.utils has no run_check)
    _, asks = _run(_case("plans12", "1208"))
    (probe,) = [a for a in asks if "import sys, paddle" in a]
    assert "getattr(getattr(paddle, sys.argv[1], None), sys.argv[2], None)" in probe
    assert probe.endswith(".fluid.install_check.run_check() utils run_check paddle.fluid.install_check")
