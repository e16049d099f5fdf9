"""Issues 27, 28 and 31 (item 2): the line a Python traceback ends on is a failure wherever no entry knows it.

gpudoctor.parsers.failure_lines reads the exception line after a traceback's last frame (the `traceback-end` form,
whatever it names) with its type and its subject; checks.reported names it (pasted-error-unexplained, NOT DECIDED,
its file:line) and pasted.ask asks what its subject needs. Python went on past some: an exception "ignored in" a
finaliser at exit, a KeyboardInterrupt; those stay quiet. Each text under tracebacks/ is a real thread's paste, as
the thread printed it (named at each test); the expectations are written by hand.
"""

from __future__ import annotations

from pathlib import Path

from gpudoctor.parsers.failure_lines import KIND, read_failure_lines
from tests.pasted.cli_json import check

HERE = Path(__file__).resolve().parent / "tracebacks"
BLOCKING = ("warning", "error", "critical")


def _check(name: str) -> dict:
    return check(HERE / name)


def _blocking(doc: dict) -> list[str]:
    return [f["code"] for f in doc["findings"] if f["severity"] in BLOCKING]


def _read(name: str) -> list[dict[str, str]]:
    lines = (HERE / name).read_text(encoding="utf-8").splitlines()
    return [dict(e.values) for e in read_failure_lines(lines) if e.kind == KIND]


def test_a_missing_module_is_named_and_asked_of_the_interpreter_the_paste_shows(tmp_path):
    # DengPingFan/SINet#45: PyCharm ran the venv's python.exe; the traceback ends in ModuleNotFoundError for apex, which
    # the Apex entry now explains (extension-not-built, checks.extensions): the end of the traceback is still read as
    # such, and the same paste with a module no entry knows (thop, an edited copy) is named NOT DECIDED and asked of
    # that interpreter
    assert _blocking(_check("sinet-45-module-not-found-apex.txt")) == ["extension-not-built"]
    (v,) = _read("sinet-45-module-not-found-apex.txt")
    assert (v["form"], v["exception"], v["component"], v["component_kind"]) == (
        "traceback-end",
        "ModuleNotFoundError",
        "apex",
        "module",
    )
    edited = tmp_path / "sinet-45-module-not-found-apex.txt"
    edited.write_text((HERE / edited.name).read_text(encoding="utf-8").replace("apex", "thop"), encoding="utf-8")
    doc = check(edited)
    assert _blocking(doc) == ["pasted-error-unexplained"]
    (finding,) = doc["findings"]
    assert finding["title"].startswith("NOT DECIDED:") and "(thop)" in finding["title"]
    assert [e["value"] for e in finding["evidence"]] == ["ModuleNotFoundError: No module named 'thop'"]
    assert "sinet-45-module-not-found-apex.txt:9" in finding["detail"]
    asked = [a["argv"] for a in doc["pasted"]["ask_for"]]
    assert [r"D:\asif\Projects\OtitisNet2\Scripts\python.exe", "-m", "pip", "show", "thop"] in asked
    # the paste shows which interpreter ran (its path): sys.executable is not asked again
    assert not any("import sys; print(sys.executable)" in argv for argv in asked)


def test_a_builds_own_assertion_names_the_op_and_is_read_as_deepspeeds_abort():
    # LlamaChinese/Llama-Chinese#27: DeepSpeed's setup.py aborts with `assert False, msg` (its abort(), shown in the
    # traceback) where async_io cannot be built; an AssertionError, yet the build's, not the program's. The catalogue
    # reads the abort (deepspeed-precompile-async-io-failed), on Windows (its LNK1181 line, localised): built again
    # without the ops DeepSpeed's build_win.bat turns off (gpudoctor.checks.catalogued.builds.check_deepspeed_aio)
    doc = _check("llama-chinese-27-deepspeed-async-io-build-assertion.txt")
    assert _blocking(doc) == ["extension-not-built"]
    assert "async_io" in doc["findings"][0]["title"]
    sets = [c for c in doc["findings"][0]["remediation"]["argv"] if "set" in c]
    assert [(c["set"], c["value"]) for c in sets][0] == ("DS_BUILD_AIO", "0")
    # (the traceback's end first; the build's own "[ERROR]  Unable to pre-compile async_io" log line after it)
    v = _read("llama-chinese-27-deepspeed-async-io-build-assertion.txt")[0]
    assert (v["exception"], v["component"], v["component_kind"]) == ("AssertionError", "async_io", "build")


def test_an_assertion_that_names_no_build_stays_the_programs_own():
    # the quiet twin of the build's assertion: pytorch/pytorch#53703's DataLoader worker check, a program's assertion
    lines = [
        "Traceback (most recent call last):",
        '  File "path/to/env/lib/python3.8/multiprocessing/process.py", line 160, in is_alive',
        "    assert self._parent_pid == os.getpid(), 'can only test a child process'",
        "AssertionError: can only test a child process",
    ]
    assert read_failure_lines(lines) == []


def test_a_keyboard_interrupt_is_the_person_stopping_the_run():
    # nagadomi/nunif#26: training stopped with Ctrl-C inside GradScaler.step; no failure to name
    assert _read("nunif-26-keyboard-interrupt.txt") == []
    assert _blocking(_check("nunif-26-keyboard-interrupt.txt")) == []


def test_the_same_frames_ending_in_an_error_are_read():
    # the KeyboardInterrupt's twin: the same traceback (nagadomi/nunif#26) ending in an exception is a failure
    lines = (HERE / "nunif-26-keyboard-interrupt.txt").read_text(encoding="utf-8").splitlines()
    (e,) = read_failure_lines([*lines[:-1], "RuntimeError: CUDA driver error: unknown error"])
    assert dict(e.values)["form"] == "traceback-end"


def test_an_exception_ignored_at_exit_is_not_read():
    # pytorch/pytorch#6461: "At the end of the script execution", DataLoaderIter.__del__'s ImportError, reported by
    # sys.unraisablehook as "Exception ignored in"; the script had finished
    assert _read("pytorch-6461-exception-ignored-at-exit.txt") == []
    assert _blocking(_check("pytorch-6461-exception-ignored-at-exit.txt")) == []


def test_the_same_traceback_without_ignored_in_is_read():
    # its twin: the same frames and ImportError, not reported as ignored, end the run
    lines = [
        line
        for line in (HERE / "pytorch-6461-exception-ignored-at-exit.txt").read_text(encoding="utf-8").splitlines()
        if not line.startswith("Exception ignored in")
    ]
    (e,) = read_failure_lines(lines)
    assert (dict(e.values)["exception"], dict(e.values)["component_kind"]) == ("ImportError", "exception")


ROOT = Path(__file__).resolve().parent.parent


def _read_file(path: Path) -> list[dict[str, str]]:
    return [dict(e.values) for e in read_failure_lines(path.read_text(encoding="utf-8").splitlines()) if e.kind == KIND]


def test_a_dll_outside_cudas_names_is_the_subject_with_its_folder():
    # pytorch/pytorch#131662 (tests/blind/plans5 404): IPython's traceback ends in WinError 126 for torch's fbgemm.dll,
    # which names no part of the GPU stack (its own entry, windows-dll-missing, decides the whole report)
    (v,) = _read_file(ROOT / "blind/plans5/cases/404-pt131662-windows-torch240-cu121-fbgemm-dll-libomp-missing/input.txt")
    assert (v["form"], v["exception"], v["component"], v["component_kind"]) == ("traceback-end", "OSError", "fbgemm.dll", "dll")
    assert v["folder"].endswith("torch\\\\lib")  # (the paste escapes its backslashes)


def test_a_shared_object_is_read_as_the_loader_names_it_with_who_needs_it():
    # pyg-team/pyg-lib#548 (tests/pasted/cases): glibc's loader refuses libc.so.6 for libpyg.so, no GPU library named
    (v,) = _read_file(ROOT / "pasted/cases/pyg-lib-548-ubuntu2004-glibc231-libpyg-needs-glibc233/report.txt")
    assert (v["form"], v["component"], v["component_kind"]) == ("traceback-end", "libc.so.6", "library")
    assert v["requirer"] == "/home/ee615/anaconda3/envs/qcnet/lib/python3.10/site-packages/libpyg.so"
