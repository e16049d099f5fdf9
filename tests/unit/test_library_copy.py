"""A library the loader could not open, nothing shown deciding where a copy is (gpudoctor.checks.library_copy): the
plan's fix is the look and the export of the first copy's directory, the program's own environment searched first;
never where the text shows the machine's or the framework's CUDA of another major than the soname asks (a module
built for a CUDA that is gone), nor where the text shows no CUDA at all (which package asks for that major is open: the
reads decide). Threads: tensorflow/tensorflow#56413 (tests/pasted), Lee-zix/RE-GCN#11 (plans22/2271),
NVIDIA/TensorRT#3061 (tests/pasted), jhj0517/Whisper-WebUI#114 (plans18/1843), opendatalab/PDF-Extract-Kit#77
(plans21/2134), apache/mxnet#3829 (plans3/227)."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.cmdline import Cmd, Output, PrependPath
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted

BLIND = Path(__file__).resolve().parent.parent / "blind"
PASTED = Path(__file__).resolve().parent.parent / "pasted" / "cases"


def _finding(case: str, code: str):
    (path,) = BLIND.glob(f"plans*/cases/{case}-*/input.txt")
    text = path.read_bytes().decode("utf-8-sig", errors="replace")
    report = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("report.txt", text)]), case)))
    return next((f for f in report.findings if f.code == code), None)


def _export(finding) -> tuple:
    """The argv of the program whose output the LD_LIBRARY_PATH setting takes."""
    (setting,) = [c for c in finding.remediation.commands if isinstance(c, PrependPath)]
    assert setting.names == ("LD_LIBRARY_PATH",)
    (part,) = [p for p in setting.parts if isinstance(p, Output)]
    return part.argv


def _pasted_finding(case: str, code: str):
    (path,) = PASTED.glob(f"{case}-*/report.txt")
    report = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("report.txt", path.read_text())]), case)))
    return next((f for f in report.findings if f.code == code), None)


def test_an_unplaced_runtime_is_looked_for_and_its_directory_exported():
    # tensorflow#56413: TensorFlow's CUDA 11 shown, libcudart.so.11.0 of that major not on the loader path
    f = _pasted_finding("tensorflow-56413", "framework-cuda-libs-missing")
    argv = _export(f)
    assert argv[:2] == ("sh", "-c") and argv[4] == "libcudart.so.11.0"
    looks = [c.argv for c in f.remediation.commands if isinstance(c, Cmd) and c.argv[:1] == ("find",)]
    assert looks and looks[0][-3:] == ("-name", "libcudart.so*", "-print")


def test_a_runtime_whose_cuda_nothing_shows_gets_the_reads_not_the_export():
    # RE-GCN#11 (plans22/2271: libcublas.so.10, some CUDA 10 build) and TensorRT#3061 (libcublas.so.11 of TensorRT's
    # plugin): no CUDA of the machine or a framework shown, so which package asks for that major is open; the reads
    # (the copies there are among them) decide before any copy is put first on the path
    for f in (_finding("2271", "framework-cuda-libs-missing"), _pasted_finding("tensorrt-3061", "framework-cuda-libs-missing")):
        assert f is not None and not any(isinstance(c, PrependPath) for c in f.remediation.commands)


def test_the_kept_value_of_a_setting_that_set_nothing_is_not_written(tmp_path: Path):
    # the look found no copy: the `&&` export set nothing, LD_LIBRARY_PATH is unset, and the keep line writes nothing
    # (it raised a KeyError, the reviewer of plans22/2271 saw); set, its first directory is kept
    import subprocess
    import sys

    from gpudoctor.planner.remedy import KEEP_VALUES

    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    run = subprocess.run([sys.executable, "-c", KEEP_VALUES["bashrc"], "+LD_LIBRARY_PATH"], env=env, check=False)
    assert run.returncode == 0 and (tmp_path / ".bashrc").read_text() == ""
    env["LD_LIBRARY_PATH"] = "/opt/x/lib:/usr/lib"
    subprocess.run([sys.executable, "-c", KEEP_VALUES["bashrc"], "+LD_LIBRARY_PATH"], env=env, check=True)
    assert (tmp_path / ".bashrc").read_text() == 'export LD_LIBRARY_PATH=/opt/x/lib"${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"\n'


def test_the_programs_own_environment_is_searched_first():
    f = _finding("1843", "cudnn-missing")
    assert _export(f)[4:] == ("libcudnn_ops_infer.so.8", "/home/a/Downloads/Whisper-WebUI/venv", "/")


def test_the_development_name_is_looked_for_not_guessed_in_the_archive_folder():
    f = _finding("2134", "cudnn-missing")
    assert _export(f)[4:] == ("libcudnn.so*", "/raid/shnu/miniconda3/envs/pipe", "/")
    assert not any("/usr/local/cuda/lib64" in str(c) for c in f.remediation.commands)


def test_a_runtime_of_another_cuda_than_the_text_shows_is_not_exported():
    # CUDA 8 shown, libcudart.so.7.5 asked: a build for the CUDA that is gone, rebuilt, not given its old runtime
    f = _finding("227", "framework-cuda-libs-missing")
    assert f is not None and not any(isinstance(c, PrependPath) for c in f.remediation.commands)
