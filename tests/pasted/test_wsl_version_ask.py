"""`wsl -l -v`, asked where a report says WSL 2 without showing its kernel and no driver answers, with no check having
found why (gpudoctor.pasted.ask._wsl_version_ask): a distribution still on WSL 1 has no GPU, and its VERSION column
decides it. Real texts only; each asserts the asked commands' argv."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.ask import ask_for

ROOT = Path(__file__).resolve().parents[2]
WSL_LIST = ("wsl", "-l", "-v")


def _asked(path: Path) -> list[tuple[str, ...]]:
    snap = validate_snapshot(read_pasted([Source("report.txt", path.read_text(encoding="utf-8"))]), "report")
    report = diagnose(ReplayHost(snap))
    return [tuple(map(str, a.command.argv)) for a in ask_for(report.facts, report.findings)]


def test_wsl2_said_in_an_issue_form_and_no_driver_found_asks_the_wsl_version():
    # https://github.com/microsoft/WSL/issues/6623: "Whether the issue is on WSL 2 and/or WSL 1: WSL2", PyTorch's
    # "Found no NVIDIA driver on your system", no kernel release
    assert WSL_LIST in _asked(ROOT / "tests/pasted/catalogue_examples/wsl-6623-wsl2-said-found-no-nvidia-driver.txt")


def test_wsl2_said_in_prose_and_no_driver_found_asks_the_wsl_version():
    # the twelfth blind set's case: "Ubuntu1804/WSL2", "Found no NVIDIA driver"; the reporter was on WSL 1
    case = next((ROOT / "tests/blind/plans12/cases").glob("1248-*"))
    asked = _asked(case / "input.txt")
    assert WSL_LIST in asked and ("ls", "-l", "/usr/lib/wsl/lib") in asked


def test_not_asked_where_a_check_found_why():
    # tests/blind/plans4/cases/301-*: WSL 2 said, numba's cuInit finds no device, and the text shows a Linux driver
    # package inside WSL (wsl-linux-driver-installed decides it): the WSL version is no question there
    case = next((ROOT / "tests/blind/plans4/cases").glob("301-*"))
    assert WSL_LIST not in _asked(case / "input.txt")


def test_not_asked_where_the_kernel_release_shows_which_wsl():
    # https://github.com/microsoft/WSL/issues/5554: "on wsl2" said, but the kernel 4.4.0-19041-Microsoft is WSL 1's
    # (wsl1-no-cuda decides it from the kernel)
    assert WSL_LIST not in _asked(ROOT / "tests/pasted/cases/wsl-5554-wsl1-kernel-nvidia-driver-440-apt/report.txt")
