"""The Windows checks judged through the whole doctor on snapshots, and Windows paths in the host seam.

The driver-store snapshots here wrap constructed pnputil text in the real layout; the one public capture of a
store with two NVIDIA display packages (tests/fixtures/windows/PROVENANCE.md) is judged in
tests/unit/test_windows_store_real_capture.py.
"""

from __future__ import annotations

import pytest

from gpudoctor.cmdline import render_all
from gpudoctor.doctor import diagnose
from gpudoctor.errors import SnapshotError
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot

TOOLKITS = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA"


def _block(name: str, version: str) -> str:
    return (
        f"Published Name:     {name}\nOriginal Name:      nv_dispi.inf\nProvider Name:      NVIDIA\n"
        f"Class Name:         Display adapters\nClass GUID:         {{4d36e968-e325-11ce-bfc1-08002be10318}}\n"
        f"Driver Version:     01/01/2024 {version}\nSigner Name:        Microsoft Windows Hardware Compatibility Publisher\n\n"
    )


def _machine(store: str, driver: str | None = "552.22", **extra) -> dict:
    snap = {
        "format": "gpudoctor-snapshot/1",
        "platform": {"system": "Windows", "release": "11", "machine": "AMD64"},
        "commands": {"pnputil /enum-drivers": {"rc": 0, "stdout": "Microsoft PnP Utility\n\n" + store, "stderr": ""}},
    }
    if driver:
        snap["nvml"] = {"status": "ok", "driver_version": driver, "devices": [{"index": 0, "name": "NVIDIA GeForce RTX 3080"}]}
    snap.update(extra)
    return validate_snapshot(snap)


def _findings(snap: dict, code: str):
    return [f for f in diagnose(ReplayHost(snap)).findings if f.code == code]


def test_stale_packages_get_delete_commands_and_the_one_in_use_is_kept():
    store = _block("oem12.inf", "31.0.15.3667") + _block("oem41.inf", "31.0.15.5222") + _block("oem7.inf", "30.0.14.7141")
    (f,) = _findings(_machine(store), "windows-driver-store-stale")
    lines = render_all(f.remediation.commands, "powershell")
    assert lines == [
        "# as Administrator, driver 536.67",
        "pnputil /delete-driver oem12.inf",
        "# as Administrator, driver 471.41",
        "pnputil /delete-driver oem7.inf",
    ]
    assert "KEEP oem41.inf" in f.remediation.summary
    assert not any("oem41.inf" in line for line in lines)


def test_no_deletion_when_the_package_in_use_is_unknown():
    store = _block("oem12.inf", "31.0.15.3667") + _block("oem41.inf", "31.0.15.5222")
    for driver in (None, "560.94"):
        (f,) = _findings(_machine(store, driver), "windows-driver-store-stale")
        assert not any("/delete-driver" in " ".join(map(str, c.argv)) for c in f.remediation.commands)


def test_one_package_is_not_a_finding():
    assert _findings(_machine(_block("oem41.inf", "31.0.15.5222")), "windows-driver-store-stale") == []


@pytest.mark.parametrize("hostile", ["oem1.inf & calc", "oem2.inf'; Remove-Item -Recurse C:\\ ;'", "$(calc).inf"])
def test_hostile_published_names_never_reach_a_command(hostile):
    store = _block(hostile, "31.0.15.3667") + _block("oem41.inf", "31.0.15.5222") + _block("oem9.inf", "30.0.14.7141")
    (f,) = _findings(_machine(store), "windows-driver-store-stale")
    rendered = "\n".join(render_all(f.remediation.commands, "powershell") + render_all(f.remediation.commands, "cmd"))
    assert "calc" not in rendered and "Remove-Item" not in rendered
    assert "oem9.inf" in rendered


def cuda_path_at_removed_v12_1() -> dict:
    """CUDA_PATH and CUDA_PATH_V12_1 at a deleted v12.1; v11.8 installed, its CUDA_PATH_V11_8 right."""
    return _machine(
        "",
        env={"CUDA_PATH": TOOLKITS + "\\v12.1", "CUDA_PATH_V12_1": TOOLKITS + "\\v12.1", "CUDA_PATH_V11_8": TOOLKITS + "\\v11.8"},
        dirs={TOOLKITS: ["v11.8"]},
        files={TOOLKITS + "\\v11.8\\bin\\nvcc.exe": {"type": "file"}},
    )


def test_cuda_path_at_a_removed_toolkit():
    snap = cuda_path_at_removed_v12_1()
    (f,) = _findings(snap, "windows-cuda-path-missing")
    lines = render_all(f.remediation.commands, "powershell")
    assert lines[:2] == ["# as Administrator", "setx CUDA_PATH 'C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.8' /M"]
    assert any("CUDA_PATH_V12_1" in line for line in lines)
    assert not any("CUDA_PATH_V11_8" in line for line in lines)  # that toolkit is there


def test_cuda_path_outside_the_toolkits_folder_is_not_judged():
    snap = _machine("", env={"CUDA_PATH": "D:\\cuda\\12.1"}, dirs={TOOLKITS: ["v11.8"]})
    assert _findings(snap, "windows-cuda-path-missing") == []


def test_cudnn_dll_installed_but_not_on_path():
    cudnn_bin = "C:\\Program Files\\NVIDIA\\CUDNN\\v8.1\\bin"
    snap = _machine(
        "",
        env={"PATH": TOOLKITS + "\\v11.2\\bin;C:\\Windows\\system32"},
        dirs={TOOLKITS + "\\v11.2\\bin": ["cudart64_110.dll", "nvcc.exe"], cudnn_bin: ["cudnn64_8.dll"]},
        python={
            "version": "3.10.11",
            "executable": "C:\\Python310\\python.exe",
            "site_packages": ["C:\\Python310\\Lib\\site-packages"],
            "distributions": {"tensorflow": "2.10.1"},
        },
    )
    (f,) = _findings(snap, "windows-dll-missing")
    assert "cudnn64_8.dll" in f.title and "cudart64_110.dll" not in f.title
    (line,) = render_all(f.remediation.commands, "powershell")
    assert line.startswith("$env:PATH = 'C:\\Program Files\\NVIDIA\\CUDNN\\v8.1\\bin;")


def test_no_dll_finding_when_everything_is_on_path():
    snap = _machine(
        "",
        env={"PATH": TOOLKITS + "\\v11.2\\bin"},
        dirs={TOOLKITS + "\\v11.2\\bin": ["cudart64_110.dll", "cudnn64_8.dll"]},
        python={"version": "3.10.11", "executable": "C:\\Python310\\python.exe", "distributions": {"tensorflow": "2.10.1"}},
    )
    assert _findings(snap, "windows-dll-missing") == []


@pytest.mark.parametrize("path", ["C:\\Program Files\\x.txt", "C:/Python311/python.exe", "d:\\data"])
def test_windows_paths_are_accepted_in_snapshots(path):
    snap = validate_snapshot({"format": "gpudoctor-snapshot/1", "files": {path: "x"}, "dirs": {path + "_dir": ["a.dll"]}})
    host = ReplayHost(snap)
    assert host.read_text(path.replace("\\", "/").upper()) == "x"  # either separator, any case


@pytest.mark.parametrize("path", ["C:relative", "\\\\server\\share\\x", "relative\\x"])
def test_non_absolute_windows_paths_are_refused(path):
    with pytest.raises(SnapshotError, match="not an absolute path"):
        validate_snapshot({"format": "gpudoctor-snapshot/1", "files": {path: "x"}})


def test_windows_directory_listing_names_hold_no_separator():
    with pytest.raises(SnapshotError, match="must list names"):
        validate_snapshot({"format": "gpudoctor-snapshot/1", "dirs": {"C:\\x": ["a\\b"]}})


def test_replay_lists_windows_roots_and_finds_programs_on_path():
    snap = validate_snapshot(
        {
            "format": "gpudoctor-snapshot/1",
            "platform": {"system": "Windows"},
            "env": {"PATH": '"C:\\Program Files\\NVIDIA Corporation\\NVSMI";C:\\Windows\\system32'},
            "files": {"C:\\Windows\\System32\\nvidia-smi.exe": {"type": "file"}},
        }
    )
    host = ReplayHost(snap)
    assert host.list_dir("C:\\") == ["Windows"]
    assert host.which("nvidia-smi") == "C:/Windows/system32/nvidia-smi.exe"
    assert host.which("nvcc") is None


def _family_block(name: str, inf: str, version: str) -> str:
    return _block(name, version).replace("nv_dispi.inf", inf)


def test_another_inf_family_is_never_offered():
    # A workstation INF (nv_dispwi.inf) beside the GeForce one may drive a second GPU at another version.
    store = (
        _family_block("oem17.inf", "nv_dispwi.inf", "32.0.15.9159")
        + _family_block("oem60.inf", "nv_dispi.inf", "32.0.15.9579")
        + _family_block("oem12.inf", "nv_dispi.inf", "32.0.15.9186")
    )
    snap = _machine(store, "595.79")
    snap["nvml"]["devices"] = [{"index": 0, "name": "NVIDIA RTX PRO 6000"}, {"index": 1, "name": "NVIDIA GeForce RTX 5090"}]
    (f,) = _findings(snap, "windows-driver-store-stale")
    lines = render_all(f.remediation.commands, "powershell")
    assert lines == ["# as Administrator, driver 591.86", "pnputil /delete-driver oem12.inf"]
    assert "Not offered: oem17.inf" in f.detail
    # One GPU: the other family is a leftover (NVIDIA's installer leaves nvmd.inf beside nvmdig.inf).
    (f,) = _findings(_machine(store, "595.79"), "windows-driver-store-stale")
    assert len(f.remediation.commands) == 2 and "Not offered" not in f.detail


def _payloads():
    from tests.hostile.corpus import PAYLOADS

    return sorted(PAYLOADS.items())


@pytest.mark.parametrize(("kind", "payload"), _payloads())
@pytest.mark.parametrize("where", ["published", "provider", "original", "version", "cuda_path", "path_entry", "toolkit_dir"])
def test_hostile_values_never_reach_a_command(kind, payload, where):
    import re

    store = _block("oem41.inf", "31.0.15.5222") + _block(
        payload if where == "published" else "oem12.inf", payload if where == "version" else "31.0.15.3667"
    )
    if where == "provider":
        store = store.replace(
            "Provider Name:      NVIDIA\nClass Name:         Display adapters\nClass GUID:         {4d36e968-e325-11ce-bfc1-08002be10318}\nDriver Version:     01/01/2024 31.0.15.3667",
            f"Provider Name:      NVIDIA {payload}\nClass Name:         Display adapters\nClass GUID:         {{4d36e968-e325-11ce-bfc1-08002be10318}}\nDriver Version:     01/01/2024 31.0.15.3667",
        )
    if where == "original":
        store = store.replace(
            "nv_dispi.inf\nProvider Name:      NVIDIA\nClass Name:         Display adapters\nClass GUID:         {4d36e968-e325-11ce-bfc1-08002be10318}\nDriver Version:     01/01/2024 31.0.15.3667",
            f"{payload}\nProvider Name:      NVIDIA\nClass Name:         Display adapters\nClass GUID:         {{4d36e968-e325-11ce-bfc1-08002be10318}}\nDriver Version:     01/01/2024 31.0.15.3667",
        )
    env = {"CUDA_PATH": TOOLKITS + "\\v9.9" + (payload if where == "cuda_path" else ""), "CUDA_PATH_V9_9": TOOLKITS + "\\v9.9"}
    env["PATH"] = TOOLKITS + "\\v11.2\\bin;" + ("C:\\" + payload if where == "path_entry" else "C:\\x")
    try:
        snap = _machine(
            store,
            env=env,
            dirs={
                TOOLKITS: ["v11.2", "v" + payload if where == "toolkit_dir" else "v11.8"],
                TOOLKITS + "\\v11.2\\bin": ["nvcc.exe", "cudart64_110.dll"],
            },
            python={"version": "3.10.11", "executable": "C:\\Python310\\python.exe", "distributions": {"tensorflow": "2.10.0"}},
        )
    except SnapshotError:
        return  # refused at the door: never judged
    report = diagnose(ReplayHost(snap))
    assert not report.internal_errors
    for f in report.findings:
        if f.remediation is None:
            continue
        for line in f.remediation.commands:
            words = [str(w) for w in getattr(line, "argv", ())]
            if words[:2] == ["pnputil", "/delete-driver"]:
                assert re.fullmatch(r"oem\d+\.inf", words[2])
            if f.code.startswith("windows-") and where != "path_entry":  # a PATH value is quoted, not refused
                assert payload not in " ".join(words) + str(getattr(line, "value", "") or "")
        for target in ("powershell", "cmd"):
            render_all(f.remediation.commands, target)  # renders or says it cannot: never raises


def test_nvidia_smi_is_found_in_the_driver_store_when_nowhere_else(tmp_path):
    import os

    from gpudoctor.host.live import windows_nvidia_smi

    env = {"PATH": str(tmp_path / "empty"), "SystemRoot": str(tmp_path), "ProgramFiles": str(tmp_path / "pf")}
    assert windows_nvidia_smi(env) is None
    store = tmp_path / "System32" / "DriverStore" / "FileRepository"
    old, new = store / "nv_dispi.inf_amd64_1111" / "nvidia-smi.exe", store / "nv_dispi.inf_amd64_2222" / "nvidia-smi.exe"
    for i, exe in enumerate((old, new)):
        exe.parent.mkdir(parents=True)
        exe.write_text("", encoding="utf-8")
        os.utime(exe, (1_000_000 + i, 1_000_000 + i))
    assert windows_nvidia_smi(env) == str(new)  # the newest copy: the driver installed last
    system32 = tmp_path / "System32" / "nvidia-smi.exe"
    system32.write_text("", encoding="utf-8")
    assert windows_nvidia_smi(env) == str(system32)


@pytest.mark.parametrize(
    ("env", "files", "expected"),
    [
        ({"VIRTUAL_ENV": "C:\\proj\\venv"}, ["C:\\proj\\venv\\Scripts\\python.exe"], "C:/proj/venv/Scripts/python.exe"),
        (
            {"CONDA_PREFIX": "C:\\Users\\me\\miniconda3\\envs\\tf"},
            ["C:\\Users\\me\\miniconda3\\envs\\tf\\python.exe"],
            "C:/Users/me/miniconda3/envs/tf/python.exe",
        ),
        (
            {"PATH": "C:\\Python311;C:\\Users\\me\\AppData\\Local\\Microsoft\\WindowsApps"},
            ["C:\\Python311\\python.exe", "C:\\Users\\me\\AppData\\Local\\Microsoft\\WindowsApps\\python3.exe"],
            "C:/Python311/python.exe",
        ),
    ],
)
def test_the_users_interpreter_on_windows(env, files, expected):
    from gpudoctor.host import PathInfo
    from gpudoctor.host.interpreter import choose_interpreter

    snap = validate_snapshot(
        {
            "format": "gpudoctor-snapshot/1",
            "platform": {"system": "Windows"},
            "env": env,
            "files": {f: {"type": "file"} for f in files},
        }
    )

    class Live(ReplayHost):  # a replayed machine that answers as a live one (choose_interpreter skips replays)
        mode = "live"

    host = Live(snap)
    assert isinstance(host.stat(files[0]), PathInfo)
    assert choose_interpreter(host, None)[0] == expected


def test_windows_user_names_are_redacted_in_both_spellings():
    from gpudoctor.host.snapshot import dump_snapshot

    snap = {
        "format": "gpudoctor-snapshot/1",
        "env": {"PATH": "C:\\Users\\Tamir\\venv\\Scripts;C:/Users/tamir/bin;C:\\Users\\tamira"},
    }
    text = dump_snapshot(snap, "desk", ["tamir"])
    assert "C:\\\\Users\\\\user\\\\venv" in text and "C:/Users/user/bin" in text
    assert "tamira" in text  # another user whose name starts the same is not touched
