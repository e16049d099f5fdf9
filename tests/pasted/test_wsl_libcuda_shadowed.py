"""Inside WSL 2, a libcuda other than /usr/lib/wsl/lib's answering cuInit (issues 27/28).

Two members of the class: a Linux driver's libcuda found first (cuInit: CUDA_ERROR_NO_DEVICE, as XLA and numba print
it), and the CUDA toolkit's stub libcuda linked or put on LD_LIBRARY_PATH (cuInit: error 34, the stub library). Minimal
pastes of the class written for it, with quiet twins outside WSL; data asserted (codes, argv, the env step's kind)."""

from __future__ import annotations

import pytest

from gpudoctor.cmdline import Cmd, PrependPath, SetEnv
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.model import Severity
from gpudoctor.pasted import Source, read_pasted


def _findings(text: str):
    report = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("report.txt", text)]), "report")))
    return {f.code: f for f in report.findings}


_WSL = "Running Ubuntu 22.04 in WSL2 on Windows 11.\n"
_NO_DEVICE = [
    # numba (cuDF, cuML) since 0.5x, and its older "[code] first" form
    "numba.cuda.cudadrv.error.CudaSupportError: Error at driver init: Call to cuInit results in CUDA_ERROR_NO_DEVICE (100)\n",
    "CudaSupportError: Error at driver init: [100] Call to cuInit results in CUDA_ERROR_NO_DEVICE:\n",
    # XLA (JAX, TensorFlow)
    "E external/xla/xla/stream_executor/cuda/cuda_driver.cc:268] failed call to cuInit: CUDA_ERROR_NO_DEVICE: no "
    "CUDA-capable device is detected\n",
]


@pytest.mark.parametrize("error", _NO_DEVICE)
def test_no_device_in_wsl_asks_which_libcuda_and_removes_a_linux_driver(error):
    f = _findings(_WSL + error)["wsl-linux-driver-installed"]
    argvs = [c.argv for c in f.remediation.commands if isinstance(c, Cmd)]
    # NO_DEVICE alone does not say which libcuda answered (an old Windows driver answers the same): not decided, a
    # warning, where a package or a library the text names makes it an error (the next tests)
    assert f.severity is Severity.WARNING and f.title.startswith("NOT DECIDED")
    # which libcuda the loader finds, and the Linux driver packages, come before anything is removed
    assert argvs[0] == ("ldconfig", "-p") and argvs[2] == ("dpkg", "-l")
    assert tuple(argvs[3][:3]) == ("apt-get", "remove", "--purge")
    assert not any("install" in a for a in argvs)  # no driver installed inside WSL


@pytest.mark.parametrize("error", _NO_DEVICE)
def test_no_device_outside_wsl_is_not_a_wsl_finding(error):
    assert "wsl-linux-driver-installed" not in _findings("Ubuntu 22.04, RTX 3090\n" + error)


@pytest.mark.parametrize(
    "error",
    [
        "E external/org_tensorflow/tensorflow/stream_executor/cuda/cuda_driver.cc:271] failed call to cuInit: "
        "UNKNOWN ERROR (34)\n",
        "CUDA Runtime (CUDA driver is a stub library)\n",
    ],
)
def test_the_stub_libcuda_in_wsl_is_removed_and_wsl_lib_prepended(error):
    f = _findings(_WSL + error)["framework-cuda-libs-missing"]
    cmds = f.remediation.commands
    finds = [c.argv for c in cmds if isinstance(c, Cmd) and c.argv[0] == "find"]
    assert finds and "*stubs*" in finds[0]
    # put first, never assigned over the variable's other directories
    assert [(c.name, c.literal) for c in cmds if isinstance(c, PrependPath)] == [("LD_LIBRARY_PATH", "/usr/lib/wsl/lib")]
    assert not [c for c in cmds if isinstance(c, SetEnv)]


def test_the_stub_outside_wsl_is_not_the_wsl_library_path():
    f = _findings("Ubuntu 22.04\nfailed call to cuInit: UNKNOWN ERROR (34)\n").get("framework-cuda-libs-missing")
    assert f is None or not any(isinstance(c, PrependPath) and c.literal == "/usr/lib/wsl/lib" for c in f.remediation.commands)
