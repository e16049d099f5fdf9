"""docs/findings/wsl-linux-driver-installed.md on whole real reports: a program's GPU discovery that names the Linux
driver library it failed on (Ollama 0.1.x's "Unable to load CUDA management library PATH: ...") is that library's
presence inside WSL 2, which shadows /usr/lib/wsl/lib (gpudoctor.checks.reported.check_reported_wsl)."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.model import Severity
from tests.spec.machine import argv_of, pasted_findings
from tests.spec.registry import FIRES, QUIET, states

ROOT = Path(__file__).resolve().parents[2]
CODE = "wsl-linux-driver-installed"


@states(CODE, FIRES)
def test_discovery_failing_on_a_linux_libnvidia_ml_in_wsl_fires_with_its_package():
    """tests/blind/plans9 case 935 (its thread is named only there): inside WSL, Ollama found
    /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.535.104.05 before /usr/lib/wsl/lib's, NVML answered 9 (driver not
    loaded), and the runner failed with CUDA error 100: the plan asks dpkg which package put the file there."""
    path = ROOT / "tests/blind/plans9/cases/935-ollama1940-wsl-linux-libnvidia-ml-535-shadows-wsl-lib-cuda-error-100/input.txt"
    f = pasted_findings(path.read_text(encoding="utf-8"))[CODE]
    argv = argv_of(f)
    assert argv[0] == ("dpkg", "-S", "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.535.104.05")
    assert ("ldconfig",) in argv
    # the library the text names decides it: an error, not the NOT DECIDED warning cuInit's NO_DEVICE alone gets
    assert f.severity is Severity.ERROR and not f.title.startswith("NOT DECIDED")


@states(CODE, QUIET)
def test_the_same_line_outside_wsl_is_not_this_cause():
    """https://github.com/ollama/ollama/issues/4216 (tests/pasted/catalogue_examples): the same discovery line in
    Docker on a Linux host, where /usr/lib/x86_64-linux-gnu is where the driver belongs."""
    text = (ROOT / "tests/pasted/catalogue_examples/ollama-4216-docker-libnvidia-ml-550-unloadable.txt").read_text(
        encoding="utf-8"
    )
    assert CODE not in pasted_findings(text)
