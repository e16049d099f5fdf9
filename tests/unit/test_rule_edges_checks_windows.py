"""The Windows rules (checks/windows.py) at the edges the mutation run found unguarded.

Each test is written for a mutant that survived the suite (tools/mutate.py; docs/testing.md, "Mutation
testing"), and asserts what a user sees. The snapshots are built as in tests/unit/test_windows_checks.py: a
Windows platform, NVML's driver and GPUs, pnputil's listing (the layouts of the real captures in
tests/fixtures/windows, with constructed packages), environment variables and folder listings.
"""

from __future__ import annotations

from gpudoctor.cmdline import render_all
from gpudoctor.host.snapshot import validate_snapshot
from tests.unit.test_windows_checks import TOOLKITS, _block, _findings, _machine, cuda_path_at_removed_v12_1

# Windows 7's `pnputil -e` layout (tests/fixtures/windows/pnputil-e_en_win7_nvidia-display-258.49.txt): no
# original INF name, so two packages cannot be told apart by INF family.
_WIN7_PACKAGE = (
    "Published name : {name}\nDriver package provider : NVIDIA\nClass : Display adapters\n"
    "Driver date and version : {date} {version}\nSigner name : Microsoft Windows Hardware Compatibility Publisher\n\n"
)


def _lines(finding):
    return render_all(finding.remediation.commands, "powershell")


def _tensorflow(version: str, python: str = "3.10.11") -> dict:
    folder = "C:\\Python" + "".join(python.split(".")[:2])
    return {
        "version": python,
        "executable": folder + "\\python.exe",
        "site_packages": [folder + "\\Lib\\site-packages"],
        "distributions": {"tensorflow": version},
    }


# --- the driver store ---------------------------------------------------------------------------------------


def test_with_two_gpus_and_no_inf_names_no_package_is_offered_for_deletion():
    """A Windows 7 workstation with two Quadro 4000s, running driver 260.99 (oem4.inf, 8.17.12.6099); oem1.inf
    (8.17.12.5849 = 258.49) is older. Without original INF names, the other GPU may be bound to oem1.inf: nothing
    is offered, and the detail says why."""
    store = _WIN7_PACKAGE.format(name="oem1.inf", date="06/09/2010", version="8.17.12.5849") + _WIN7_PACKAGE.format(
        name="oem4.inf", date="11/02/2010", version="8.17.12.6099"
    )
    snap = validate_snapshot(
        {
            "format": "gpudoctor-snapshot/1",
            "platform": {"system": "Windows", "release": "7", "machine": "AMD64"},
            "commands": {"pnputil -e": {"rc": 0, "stdout": "Microsoft PnP Utility\n\n" + store, "stderr": ""}},
            "nvml": {
                "status": "ok",
                "driver_version": "260.99",
                "devices": [{"index": 0, "name": "Quadro 4000"}, {"index": 1, "name": "Quadro 4000"}],
            },
        }
    )
    (f,) = _findings(snap, "windows-driver-store-stale")
    assert f.remediation.commands == ()
    assert "The running driver 260.99 is oem4.inf" in f.detail
    assert "Not offered: oem1.inf: with several NVIDIA GPUs" in f.detail


def test_why_the_package_in_use_cannot_be_told_is_said():
    """Neither package is driver 560.94 (536.67 and 552.22 are in the store): that is the reason, not an unknown
    driver; with no driver version read, the unknown version is."""
    store = _block("oem12.inf", "31.0.15.3667") + _block("oem41.inf", "31.0.15.5222")
    (f,) = _findings(_machine(store, "560.94"), "windows-driver-store-stale")
    assert "(none of them is the running driver 560.94)" in f.detail
    (f,) = _findings(_machine(store, None), "windows-driver-store-stale")
    assert "(the running driver's version is not known here)" in f.detail


# --- CUDA_PATH ------------------------------------------------------------------------------------------------


def test_a_toolkit_on_a_network_share_is_not_judged():
    """CUDA_PATH = \\\\fileserver\\apps\\CUDA\\v12.1 (a UNC path: a lab's shared install). gpudoctor lists only
    Program Files' toolkit folder, so it cannot say that folder is gone."""
    snap = _machine(
        "",
        env={"CUDA_PATH": "\\\\fileserver\\apps\\CUDA\\v12.1"},
        dirs={TOOLKITS: ["v11.8"]},
        files={TOOLKITS + "\\v11.8\\bin\\nvcc.exe": {"type": "file"}},
    )
    assert _findings(snap, "windows-cuda-path-missing") == []


def test_only_the_listed_program_files_folder_is_judged():
    """Program Files is on D: (ProgramFiles=D:\\Program Files), where CUDA 11.8 is listed. CUDA_PATH_V10_2 names
    C:'s toolkit folder, which was never listed: not judged. CUDA_PATH_V12_1 names a v12.1 that D:'s listing
    lacks: that one is gone."""
    d_toolkits = "D:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA"
    snap = _machine(
        "",
        env={
            "ProgramFiles": "D:\\Program Files",
            "CUDA_PATH_V10_2": TOOLKITS + "\\v10.2",
            "CUDA_PATH_V12_1": d_toolkits + "\\v12.1",
        },
        dirs={d_toolkits: ["v11.8"]},
        files={d_toolkits + "\\v11.8\\bin\\nvcc.exe": {"type": "file"}},
    )
    (f,) = _findings(snap, "windows-cuda-path-missing")
    assert f.title == f"CUDA_PATH_V12_1 points at a CUDA toolkit that is not installed ({d_toolkits}\\v12.1)"
    assert "CUDA_PATH_V10_2" not in f.detail


def test_the_fix_says_what_it_does_with_cuda_path():
    """CUDA_PATH itself broken, a toolkit installed: it is pointed there (and the other stale variable dropped).
    Only a version variable broken: the fix removes it and leaves CUDA_PATH alone."""
    snap = cuda_path_at_removed_v12_1()
    (f,) = _findings(snap, "windows-cuda-path-missing")
    assert f.remediation.summary.startswith(
        "Point CUDA_PATH at the installed CUDA 11.8 and drop the variables of removed toolkits,"
    )
    snap["env"]["CUDA_PATH"] = TOOLKITS + "\\v11.8"
    (f,) = _findings(snap, "windows-cuda-path-missing")
    assert f.remediation.summary.startswith("Remove the variables of the removed toolkit,")
    assert _lines(f) == [
        "# as Administrator",
        "reg delete 'HKLM\\SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Environment' /v CUDA_PATH_V12_1 /f",
    ]


# --- the DLLs TensorFlow loads ----------------------------------------------------------------------------------


def test_tensorflow_2_0_loads_cuda_10_0_and_cudnn_7():
    """TensorFlow 2.0's Windows GPU build was tested with CUDA 10.0 and cuDNN 7.4
    (https://www.tensorflow.org/install/source_windows#gpu): it loads cudart64_100.dll and cudnn64_7.dll."""
    snap = _machine("", env={"PATH": "C:\\Windows\\system32"}, python=_tensorflow("2.0.0", python="3.7.9"))
    (f,) = _findings(snap, "windows-dll-missing")
    assert f.title == "TensorFlow 2.0.0 cannot find cudart64_100.dll, cudnn64_7.dll on this Windows machine"


def test_with_only_cudnn_missing_the_fix_installs_cudnn_not_the_toolkit():
    """CUDA 11.2's bin folder (cudart64_110.dll) is on PATH; only cudnn64_8.dll is nowhere: the fix is cuDNN's."""
    snap = _machine(
        "",
        env={"PATH": TOOLKITS + "\\v11.2\\bin;C:\\Windows\\system32"},
        dirs={TOOLKITS + "\\v11.2\\bin": ["cudart64_110.dll", "nvcc.exe"]},
        python=_tensorflow("2.10.1"),
    )
    (f,) = _findings(snap, "windows-dll-missing")
    assert f.title == "TensorFlow 2.10.1 cannot find cudnn64_8.dll on this Windows machine"
    assert f.remediation.summary.startswith("Install cuDNN 8 for CUDA 11.2 (NVIDIA's cuDNN archive, the Windows zip)")
    assert f.remediation.component == "cudnn"
