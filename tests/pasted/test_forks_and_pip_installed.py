"""pip's "Successfully installed" line read as what is installed now, and unofficial forks that install the official
package's import directory (issue 28, class "unofficial forks"): bitsandbytes-windows, alone and failing or listed
beside bitsandbytes, is uninstalled with bitsandbytes and the official Windows release installed, one order, in the
environment the text shows. The pastes are written for the test in the shapes reporters use."""

from __future__ import annotations

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.provenance import unsourced


def _run(text: str):
    snapshot = validate_snapshot(read_pasted([Source("t", text)]), "t")
    assert not unsourced(snapshot["pasted"]["read_from"]), unsourced(snapshot["pasted"]["read_from"])
    report = diagnose(ReplayHost(snapshot))
    assert not report.internal_errors, report.internal_errors
    return snapshot, {f.code: f for f in report.findings}


_DLL = (
    "CUDA SETUP: Loading binary C:\\Users\\me\\venv\\lib\\site-packages\\bitsandbytes\\cuda_setup\\libbitsandbytes_cuda116.dll...\n"
    "Could not find module 'C:\\Users\\me\\venv\\lib\\site-packages\\bitsandbytes\\cuda_setup\\libbitsandbytes_cuda116.dll' "
    "(or one of its dependencies). Try using the full path with constructor syntax.\n"
)


def test_pips_installed_line_is_read_as_installed():
    snapshot, _ = _run("$ pip install requests\nSuccessfully installed certifi-2024.2.2 requests-2.31.0 urllib3-2.2.1\n")
    assert snapshot["python"]["distributions"] == {"certifi": "2024.2.2", "requests": "2.31.0", "urllib3": "2.2.1"}


def test_pips_install_after_a_listing_moves_what_the_listing_showed():
    text = (
        "$ pip list\nPackage    Version\n---------- -------\nnumpy      1.26.4\nscipy      1.11.4\n\n"
        "$ pip install numpy==2.0.0\nSuccessfully installed numpy-2.0.0\n"
    )
    snapshot, _ = _run(text)
    assert snapshot["python"]["distributions"]["numpy"] == "2.0.0"


def test_a_listing_after_pips_install_wins():
    text = (
        "$ pip install numpy==2.0.0\nSuccessfully installed numpy-2.0.0\n\n"
        "$ pip list\nPackage    Version\n---------- -------\nnumpy      1.26.4\nscipy      1.11.4\n"
    )
    snapshot, _ = _run(text)
    assert snapshot["python"]["distributions"]["numpy"] == "1.26.4"


def test_the_fork_alone_failing_on_windows_is_replaced_by_the_official_release():
    text = "Windows 11\n`pip install bitsandbytes-windows`\nSuccessfully installed bitsandbytes-windows-0.37.5\n\n" + _DLL
    _, codes = _run(text)
    argv = [c.argv for c in codes["framework-windows-native-gpu"].remediation.commands]
    assert argv[0][-5:] == ("pip", "uninstall", "-y", "bitsandbytes-windows", "bitsandbytes")
    assert argv[1][-3:] == ("pip", "install", "bitsandbytes>=0.43.0")
    assert argv[0][0] == argv[1][0] == "C:\\Users\\me\\venv\\Scripts\\python.exe"


def test_the_official_old_release_failing_is_upgraded_without_uninstalling():
    _, codes = _run("Windows 11\nSuccessfully installed bitsandbytes-0.37.2\n\n" + _DLL)
    argv = [c.argv for c in codes["framework-windows-native-gpu"].remediation.commands]
    assert len(argv) == 1 and "uninstall" not in argv[0] and argv[0][-1] == "bitsandbytes>=0.43.0"


def test_the_fork_listed_beside_the_official_package_is_a_conflict_with_the_same_order():
    text = (
        "C:\\> pip list\nPackage              Version\n-------------------- -------\nbitsandbytes         0.43.1\n"
        "bitsandbytes-windows 0.37.5\ntorch                2.3.1+cu121\n"
    )
    _, codes = _run(text)
    argv = [c.argv for c in codes["nvidia-wheels-conflict"].remediation.commands]
    assert argv[0][-5:] == ("pip", "uninstall", "-y", "bitsandbytes-windows", "bitsandbytes")
    assert argv[1][-1] == "bitsandbytes>=0.43.0"


def test_the_official_package_alone_is_quiet():
    text = "C:\\> pip list\nPackage      Version\n------------ -------\nbitsandbytes 0.43.1\ntorch        2.3.1+cu121\n"
    _, codes = _run(text)
    assert "nvidia-wheels-conflict" not in codes
