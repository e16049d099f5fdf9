"""A library the loader could not load asks what its failure class needs decided (issue 28, gpudoctor.pasted.load_asks):
on Linux every copy of the library on the machine beside the loader's own search; on Windows the folder a package's own
DLL failed from, the copies of its family and major that PATH reaches, where NVIDIA's installers put a cuDNN, and, for a
Python program, the interpreter with its PATH in order. Each on real reports from different threads (tests/blind and
tests/pasted cases, cited by path), with the near misses that must stay quiet."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.ask import ask_for
from gpudoctor.pasted.load_asks import LOAD_FAILURE_ASKS
from gpudoctor.planner.actions import classify

_TESTS = Path(__file__).resolve().parent.parent
_PATH_ASK = "import os, sys; print(sys.executable); print(*os.environ['PATH'].split(os.pathsep), sep='\\n')"


def _text(folder: str, prefix: str) -> str:
    (case,) = (_TESTS / "blind" / folder / "cases").glob(prefix + "-*")
    return (case / "input.txt").read_text("utf-8")


def _asks(text: str):
    report = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("t", text)]), "t")))
    assert not report.internal_errors, report.internal_errors
    return ask_for(report.facts, report.findings)


def _argvs(text: str) -> list[tuple[str, ...]]:
    return [tuple(map(str, a.command.argv)) for a in _asks(text)]


def test_a_linux_library_not_loaded_asks_every_copy_on_the_machine():
    for text, lib in (
        # plans14 1449: faster-whisper's CTranslate2 cannot load libcudnn_ops_infer.so.8 (a cuDNN for CUDA 11 copied
        # beside the toolkit, off the loader's path)
        (_text("plans14", "1449"), "libcudnn_ops_infer"),
        # plans9 910: Paddle's libcudnn_ops_infer needs libcublas.so.11, which the loader does not find
        (_text("plans9", "910"), "libcublas"),
        # tests/pasted tensorflow-56413: libcudart.so.11.0 lies in the conda environment, off the loader's path
        (
            (_TESTS / "pasted/cases/tensorflow-56413-libcudart-in-conda-env-not-on-loader-path/report.txt").read_text(),
            "libcudart",
        ),
    ):
        asks = _asks(text)
        (copies,) = [a for a in asks if a.command.argv[0] == "find"]
        assert copies.command.argv == ("find", "/", "-xdev", "-name", f"{lib}.so*")
        assert copies.why == LOAD_FAILURE_ASKS["linux-library"]["copies"].format(lib=lib)
        # beside the loader's own search, which pasted.ask already reads
        assert ("ldconfig", "-p") in [a.command.argv for a in asks]


def test_the_copies_ask_only_reads():
    # find without an action of its own (-delete, -exec ...) prints: a plan that asks it changes nothing (no check step)
    from gpudoctor.cmdline import Cmd

    assert classify(Cmd(("find", "/", "-xdev", "-name", "libcudart.so*"))).kind == "inspect"
    assert classify(Cmd(("find", "/tmp", "-name", "*.lock", "-delete"))).kind != "inspect"


def test_libcuda_and_a_container_keep_their_own_asks():
    # plans5 410 (WSL 2, libcuda.so.1 missing): WSL's libcuda comes from Windows, asked by its own folder, not found
    assert not [argv for argv in _argvs(_text("plans5", "410")) if argv[0] == "find" and argv[1] == "/"]
    # plans7 610 (pip's Paddle in a TensorFlow image: libcudnn.so not found inside the container): the host's disk holds
    # none of the image's copies, so no find is asked on the host's shell
    assert not [argv for argv in _argvs(_text("plans7", "610")) if argv[:2] == ("find", "/")]


def test_a_packages_own_dll_asks_its_folder_its_family_on_path_and_the_interpreters_path():
    # plans17 1709: Paddle loads cudnn_cnn64_9.dll from pip's nvidia-cudnn wheel folder, error 127
    site = "C:\\Users\\Administrator\\AppData\\Local\\Programs\\Python\\Python312"
    argvs = _argvs(_text("plans17", "1709"))
    assert ("dir", site + "\\Lib\\site-packages\\nvidia\\cudnn\\bin") in argvs  # (paddle\..\nvidia resolved)
    assert ("where.exe", "cudnn*64_9.dll") in argvs
    assert (site + "\\python.exe", "-c", _PATH_ASK) in argvs
    # plans5 411: torch 2.4.0's fbgemm.dll, error 126 from torch\lib: its folder, and no family (fbgemm is no CUDA library)
    argvs = _argvs(_text("plans5", "411"))
    assert ("dir", "C:\\Users\\USER\\AppData\\Local\\Programs\\Python\\Python312\\Lib\\site-packages\\torch\\lib") in argvs
    assert not [a for a in argvs if a[0] == "where.exe" and "*" in a[-1]]


def test_a_cudnn_dll_not_found_asks_where_the_installers_put_it():
    for folder, prefix in (
        ("plans17", "1708"),  # Paddle 2.4.2 post117: cudnn_ops_infer64_8.dll could not be located
        ("plans8", "835"),  # faster-whisper on CUDA 12 with cuDNN 8's DLLs, error 126
    ):
        assert ("where.exe", "/R", "C:\\Program Files", "cudnn*64_8.dll") in _argvs(_text(folder, prefix)), prefix


def test_no_interpreter_ask_for_a_compiled_program_nor_for_the_paging_file():
    # plans6 510: trtexec.exe cannot open nvinfer_plugin_10.dll; the issue form's "Python Version (if applicable)" does
    # not make it a Python program
    assert not [a for a in _argvs(_text("plans6", "510")) if _PATH_ASK in a]
    # plans10 1034: WinError 1455 (the paging file too small) loading torch's own DLLs: no question of copies
    argvs = _argvs(_text("plans10", "1034"))
    assert not [a for a in argvs if a[0] == "dir" or _PATH_ASK in a]
