"""Failures whose deciding question is their own class's, not the stack's (h272): the GPUs a process is given, the file
Python imported as a module, NVIDIA's installer refusing the machine, the torch a Lightning Trainer ran with (in a
notebook's kernel), a Windows DLL load message cut short. Each is shown by a real thread (catalogue_examples) and a
blind case of plans19."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.ask import ask_for

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = Path(__file__).resolve().parent / "catalogue_examples"
PLANS19 = ROOT / "tests" / "blind" / "plans19" / "cases"


def _run(text: str):
    snapshot = validate_snapshot(read_pasted([Source("t", text)]), "t")
    report = diagnose(ReplayHost(snapshot))
    assert not report.internal_errors, report.internal_errors
    asks = ask_for(report.facts, report.findings)
    lines = [" ".join(map(str, a.command.argv)) for a in asks]
    return snapshot, {f.code for f in report.findings}, asks, lines


def _case(prefix: str) -> str:
    return next(PLANS19.glob(prefix + "*")).joinpath("input.txt").read_text(encoding="utf-8")


def _kinds(snapshot) -> set[str]:
    return {e["kind"] for e in snapshot["pasted"]["errors"]}


_VISIBLE = " -c import os, torch; print(os.environ.get('CUDA_VISIBLE_DEVICES'), torch.cuda.device_count())"


def test_a_checkpoint_device_index_the_process_lacks_asks_which_gpus_it_is_given():
    for text in ((EXAMPLES / "semstyle-3-deserialize-cuda-device-2-count-1.txt").read_text(encoding="utf-8"), _case("1906")):
        snapshot, codes, _, lines = _run(text)
        assert "torch-load-device-index" in _kinds(snapshot)
        assert codes == {"pasted-error-unexplained"}
        # (in the program's own interpreter: the traceback's environment where it shows one)
        assert "printenv CUDA_VISIBLE_DEVICES" in lines and any(line.endswith(_VISIBLE) for line in lines)
        assert any(line.startswith("nvidia-smi") for line in lines)
        # which GPUs the process sees is no build's question: the package list and collect_env are not asked
        assert not any("pip list" in line or "collect_env" in line for line in lines)


def test_a_shared_library_imported_as_a_python_2_module_asks_which_file_the_name_resolves_to():
    for text, name in (
        ((EXAMPLES / "pybind11-162-no-init-function-initctl.txt").read_text(encoding="utf-8"), "ctl"),
        (_case("1963"), "libcudnn"),
    ):
        snapshot, codes, asks, lines = _run(text)
        assert "python-extension-no-init" in _kinds(snapshot)
        assert "pasted-error-unexplained" in codes
        # Python 2's message (init<name>): imp.find_module, in `python`, from where the program starts
        assert f"python -c import imp, sys; print(imp.find_module(sys.argv[1])) {name}" in lines
        assert f"ls -ld {name}.py {name}.so {name}module.so" in lines
        assert "printenv PYTHONPATH" in lines
        assert not any(line.startswith("nvidia-smi") for line in lines)


def test_a_python_3_module_without_pyinit_asks_importlib_for_the_file():
    snapshot, _, _, lines = _run("ImportError: dynamic module does not define module export function (PyInit__C)\n")
    assert "python-extension-no-init" in _kinds(snapshot)
    assert "python3 -c import importlib.util, sys; print(importlib.util.find_spec(sys.argv[1]).origin) _C" in lines
    assert "ls -ld _C.py _C.so" in lines


def test_nvidia_installer_refusing_the_machine_asks_for_the_adapters_and_the_windows():
    for text in (
        (EXAMPLES / "easy-gpu-pv-274-nvidia-installer-not-compatible.txt").read_text(encoding="utf-8"),
        _case("1970"),
    ):
        snapshot, _, _, lines = _run(text)
        assert "nvidia-installer-incompatible" in _kinds(snapshot)
        assert any("Win32_VideoController" in line and "PNPDeviceID" in line for line in lines)
        assert any("Win32_OperatingSystem" in line and "OSArchitecture" in line for line in lines)


def test_lightning_without_a_gpu_backend_asks_the_torch_that_ran_the_trainer():
    text = (EXAMPLES / "mattergen-217-lightning-no-supported-gpu-backend.txt").read_text(encoding="utf-8")
    snapshot, codes, asks, _ = _run(text)
    assert "lightning-no-gpu-backend" in _kinds(snapshot) and "pasted-error-unexplained" in codes
    probe = next(a for a in asks if "sys.executable" in str(a.command.argv[-1]))
    assert "torch.version.cuda" in str(probe.command.argv[-1]) and not probe.command.note  # (no notebook named)


def test_a_python_probe_is_placed_in_the_notebook_kernel_a_paste_names():
    _, _, asks, _ = _run(_case("1908"))
    probe = next(a for a in asks if "sys.executable" in str(a.command.argv[-1]))
    assert probe.command.note and "notebook" in probe.command.note and "kernel" in probe.command.note


def test_a_probe_reading_its_arguments_is_not_sent_to_a_notebook_cell():
    text = (ROOT / "tests/pasted/cases/trax-302-ubuntu-pypi-jaxlib-0139-cpu-only-no-gpu/report.txt").read_text(encoding="utf-8")
    _, _, asks, _ = _run(text)
    assert all(not a.command.note for a in asks if "sys.argv" in " ".join(map(str, a.command.argv)))


def test_a_dll_load_message_cut_at_the_end_of_a_traceback_is_read_as_the_load_failure():
    snapshot, _, _, lines = _run(_case("1935"))
    assert "extension-dll-load-failed" in _kinds(snapshot)
    # (in the one-click installer's environment its frames show, root cut: pasted.read._interpreter_of_installer_frames)
    assert "installer_files\\env\\python.exe -m pip list" in lines
    # a line that only mentions the words mid-sentence is not the cut message
    snapshot, _, _, _ = _run("I saw ImportError: DLL load failed yesterday and it went away\n")
    assert "extension-dll-load-failed" not in _kinds(snapshot)


def test_work_said_much_slower_under_wsl_is_no_clean_bill_and_asks_where_the_data_lives():
    # plans19/1922 (onnxruntime-gpu in WSL 2 vs Windows), and microsoft/WSL#10787 (the description's sentence:
    # https://github.com/microsoft/WSL/issues/10787)
    wsl_10787 = (
        "### WSL Version\n\n2.0.9.0\n\n### Are you using WSL 1 or WSL 2?\n\n- [X] WSL 2\n- [ ] WSL 1\n\n"
        "### Kernel Version\n\nLinux version 5.15.133.1-microsoft-standard-WSL2\n\n"
        "### Distro Version\n\nUbuntu 22.04.1 LTS\n\n"
        "After conduct the comparison on the performance, I notice TensorFlow GPU performance on WSL2 lags behind "
        "TensorFlow GPU and CPU performance on native Windows environments.\n"
    )
    for text in (_case("1922"), wsl_10787):
        snapshot, codes, asks, _ = _run(text)
        assert any("slow-said" in str(e) for e in snapshot["pasted"]["errors"])
        assert "pasted-error-unexplained" in codes  # (no clean bill over the slowdown told)
        df = next(a for a in asks if a.command.argv == ("df", "-h", "."))
        assert "WSL" in df.command.note and "/mnt/c" in df.why


def test_slowness_said_of_no_wsl_is_not_read_as_wsl_slowness():
    snapshot, _, asks, _ = _run("Training with CUDA is slower than I expected on my RTX 3090 under Ubuntu.\n")
    assert not any("slow-said" in str(e) for e in snapshot["pasted"]["errors"])
    assert not any(a.command.argv == ("df", "-h", ".") for a in asks)
