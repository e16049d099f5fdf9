"""A TensorRT release stated beside a CUDA or cuDNN older than its support matrix lists (issues 27/28): named with
the CUDA and cuDNN it needs, the DLLs or libraries on the path read first. Minimal pastes, data asserted."""

from __future__ import annotations

from gpudoctor.cmdline import Cmd
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted

FAILED = "ImportError: DLL load failed: The specified procedure could not be found.\n"


def _trt(text: str):
    report = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("report.txt", text)]), "report")))
    found = [f for f in report.findings if f.code == "framework-cuda-libs-missing" and "TensorRT" in f.title]
    return found


def _form(trt: str, cuda: str, cudnn: str, os: str = "Windows 10") -> str:
    return (
        f"Environment\nTensorRT Version: {trt}\nCUDA Version: {cuda}\nCUDNN Version: {cudnn}\n"
        f"Operating System: {os}\nPython Version: 3.8\n"
    )


def test_trt82_with_cuda101_and_cudnn76_on_windows():
    (f,) = _trt(_form("8.2.0.6", "10.1", "7.6") + FAILED)
    assert [e.value for e in f.evidence] == ["TensorRT Version: 8.2.0.6", "CUDA Version: 10.1", "CUDNN Version: 7.6"]
    (cmd,) = f.remediation.commands
    assert isinstance(cmd, Cmd) and cmd.argv == ("where.exe", "cudart64_*.dll", "cudnn64_*.dll", "nvinfer*.dll")
    assert "CUDA 10.2 toolkit and cuDNN 8.2.1" in f.remediation.summary  # the same CUDA major, the matrix's cuDNN


def test_trt86_with_cudnn8_2_on_linux_is_quiet_on_cudnn_but_names_an_old_cuda():
    (f,) = _trt(_form("8.6.1.6", "10.2", "8.2", os="Ubuntu 20.04"))
    assert f.remediation.commands[0].argv == ("ldconfig", "-p")
    assert "CUDA 12.1 toolkit" in f.remediation.summary  # no CUDA 10 build: the newest CUDA it lists
    assert "cuDNN" not in f.title  # 8.2 is cuDNN 8, the major 8.6 loads


def test_trt85_with_cudnn7_alone():
    (f,) = _trt(_form("8.5.3.1", "11.8", "7.6.5"))
    assert "cuDNN 7.6.5" in f.title and "CUDA 11.8" not in f.title  # 11.8 is in 8.5's list


def test_a_supported_pair_is_quiet():
    assert _trt(_form("8.2.0.6", "11.4", "8.2.1") + FAILED) == []


def test_a_newer_cuda_than_listed_is_not_judged():
    # "CUDA Version: 12.2" may be the driver's (nvidia-smi's header) beside an 11.x toolkit: not judged
    assert _trt(_form("8.2.0.6", "12.2", "8.2.1")) == []
