"""The framework findings' fixes, judged as a person pasting them would: complete, in the probed
interpreter, pinned to builds the matrix says exist for this machine, with the move named."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from types import SimpleNamespace

import pytest

from gpudoctor.checks import Context
from gpudoctor.checks.frameworks import _keras_note
from gpudoctor.cmdline import Cmd, render_all
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot
from gpudoctor.matrix import spec_contains
from gpudoctor.model import Remediation
from gpudoctor.planner import prescribe, remedy
from gpudoctor.probed import Found

MACHINES = Path(__file__).resolve().parents[1] / "machines"
CTX = Context()
MINE = {
    "framework-cpu-build",
    "framework-driver-too-old",
    "framework-arch-unsupported",
    "framework-cuda-libs-missing",
    "framework-windows-native-gpu",
    "nvidia-wheels-conflict",
    "jax-plugin-mismatch",
}


def _report(slug: str):
    return diagnose(ReplayHost(load_snapshot(str(MACHINES / slug / "snapshot.json"))))


def _mine(report, code: str):
    return next(f for f in report.findings if f.code == code)


def _argvs(remediation: Remediation) -> list[tuple[str, ...]]:
    return [c.words for c in remediation.commands if isinstance(c, Cmd)]


@pytest.mark.parametrize("slug", sorted(p.parent.name for p in MACHINES.glob("*/snapshot.json")))
def test_every_machine_plan_holds_together_and_pip_runs_in_the_probed_interpreter(slug):
    report = _report(slug)
    assert prescribe.build(report.findings).problems == ()
    py = report.facts.frameworks.python
    exe = py.value.executable if isinstance(py, Found) else None
    for f in report.findings:
        if f.code not in MINE or f.remediation is None:
            continue
        assert f.remediation.component in ("torch", "tensorflow", "jax", "toolkit", "environment"), f.code
        for argv in _argvs(f.remediation):
            if "pip" in argv and argv[0] != "conda":  # conda run -n ENV: a new environment made for the fix
                assert argv[0] == (exe or "python3"), (f.code, argv)
            if argv[1:2] == ("-c",) and argv[2] in remedy.KEEP.values():
                continue  # the line that keeps a setting: its arguments are the quoting layer's lines, as data
            assert not any(a.startswith(("'", '"')) or a.endswith(("'", '"')) for a in argv), argv  # no quoting of our own


def test_wheels_conflict_removes_and_reinstalls_in_one_step():
    report = _report("rtx4090-nvidia-wheels-cu11-and-cu12")
    r = _mine(report, "nvidia-wheels-conflict").remediation
    exe = report.facts.frameworks.python.value.executable
    assert r.component == "torch"
    assert _argvs(r) == [
        (exe, "-m", "pip", "uninstall", "-y", "nvidia-cudnn-cu11"),
        (
            exe,
            "-m",
            "pip",
            "install",
            "--force-reinstall",
            "torch==2.2.1+cu121",
            "--index-url",
            "https://download.pytorch.org/whl/cu121",
        ),
    ]
    assert "libcudnn.so.8" in r.summary
    # The lint catches the old fix: a removal of files a framework loads with nothing put back.
    removal_only = dataclasses.replace(
        _mine(report, "nvidia-wheels-conflict"), remediation=dataclasses.replace(r, commands=r.commands[:1])
    )
    assert any("removes nvidia-cudnn-cu11 and installs nothing" in p for p in prescribe.build([removal_only]).problems)


def test_windows_tensorflow_offers_a_python_the_last_windows_gpu_release_supports():
    report = _report("windows-rtx3080-tensorflow215")
    r = _mine(report, "framework-windows-native-gpu").remediation
    pyv = report.facts.frameworks.python.value.version
    last = max(
        (row for row in CTX.matrix.tf_releases if row.windows_gpu), key=lambda row: tuple(map(int, row.version.split(".")))
    )
    assert not spec_contains(last.python, pyv)  # 3.11 has no TF 2.10 wheel: the old advice could not install
    # No conda on this machine: WSL 2 first (TensorFlow's page after 2.10), no conda command it could not run; the
    # native 2.10 route said with the Python it needs and the libraries it loads.
    assert _argvs(r) == [("wsl", "--install")]
    assert "tensorflow[and-cuda]" in r.summary and f"Python {last.python} environment (not this {pyv})" in r.summary
    assert "downgrade" not in r.summary and "tensorflow 2.15.0 -> 2.10" in r.summary and "cudatoolkit=11.2" in r.summary


def test_driver_too_old_reinstalls_a_build_the_driver_runs():
    report = _report("p100-driver510-torch-cu121")
    r = _mine(report, "framework-driver-too-old").remediation
    spec = next(a for argv in _argvs(r) for a in argv if a.startswith("torch=="))
    assert spec == "torch==2.2.1+cu118"  # the same release, the variant driver 510 runs
    assert CTX.matrix.driver_supports_cuda(report.facts.driver.version, "11.8").ok
    assert "driver" in r.summary


def test_a_release_with_no_fitting_build_names_the_one_that_fits_and_the_move():
    r = _mine(_report("rtx5070-torch-cu121-no-sm120"), "framework-arch-unsupported").remediation
    assert "No build of PyTorch 2.2.1 fits this machine" in r.summary
    # The smallest upgrade that fits: 2.7 is the first release with sm_120 kernels (cu128), not the newest.
    assert "PyTorch 2.7 (cu128) is the nearest newer release that does: upgrade torch 2.2.1+cu121 -> 2.7.* (cu128)" in r.summary
    r = _mine(_report("rtx3060-laptop-torch-cpu-build"), "framework-cpu-build").remediation
    assert "downgrade torch 2.13.0+cpu -> 2.7" in r.summary


def test_jax_pins_an_extra_its_version_has():
    r = _mine(_report("rtx4090-jax-plugin-mismatch"), "jax-plugin-mismatch").remediation
    specs = {a for argv in _argvs(r) for a in argv if a.startswith("jax[")}
    assert specs == {"jax[cuda12]==0.4.38"}
    assert CTX.matrix.jax_release("0.4.38").cuda[12].plugin


def test_hostile_interpreter_path_stays_one_argument():
    report = _report("rtx4090-nvidia-wheels-cu11-and-cu12")
    py = report.facts.frameworks.python
    evil = dataclasses.replace(py.value, executable="/tmp/x;touch /tmp/pwned;/python")
    facts = dataclasses.replace(
        report.facts, frameworks=dataclasses.replace(report.facts.frameworks, python=dataclasses.replace(py, value=evil))
    )
    from gpudoctor.checks.frameworks import check_wheels_conflict

    (finding,) = check_wheels_conflict(facts, CTX)
    for line in finding.remediation.lines():
        assert line.startswith("'/tmp/x;touch /tmp/pwned;/python' -m pip ")


@pytest.mark.parametrize(
    ("before", "after", "said"),
    [
        ("2.15.0", "2.16", "Major move: Keras 3; tf-keras keeps Keras 2 code working"),
        ("2.17.0", "2.15", "Back to Keras 2"),
        ("2.16.1", "2.18", ""),
    ],
)
def test_keras_3_is_said_when_the_move_crosses_2_16(before, after, said):
    plan = SimpleNamespace(fits=True, change=None, chosen=SimpleNamespace(build=SimpleNamespace(release=after)))
    note = _keras_note("tensorflow", before, plan)
    assert (said in note) if said else note == ""


def test_a_driver_too_old_offers_the_build_first_and_the_driver_as_the_alternative():
    r = _mine(_report("p100-driver510-torch-cu121"), "framework-driver-too-old").remediation
    assert r.component == "torch" and any("whl/cu118" in str(c) for c in r.commands)
    alt = r.alternative
    assert alt is not None and alt.component == "driver" and alt.summary.startswith("Upgrade the NVIDIA driver to >= 525.60.13")
    assert [c.argv for c in alt.commands] == [("apt-get", "update"), ("ubuntu-drivers", "install"), ("reboot",)]


def test_pre_release_builds_are_image_builds_and_nightlies_are_not():
    from gpudoctor.checks.frameworks import image_build

    assert image_build("2.1.0a0+32f93b1") and image_build("2.4.0rc1")
    assert not image_build("2.7.0.dev20250310+cu124")  # a nightly: its stable release replaces it
    assert not image_build("2.2.1+cu121") and not image_build(None)


def test_windows_tensorflow_in_a_python_210_fits_is_installed_in_place_without_a_driver():
    # tests/real/tf212-windows-native-gtx1050ti: Python 3.10.10, no driver recorded. TensorFlow 2.10 has one
    # Windows build, so no CUDA build is guessed: it is installed in this environment, not a new one.
    report = diagnose(
        ReplayHost(load_snapshot(str(MACHINES.parent / "real" / "tf212-windows-native-gtx1050ti" / "snapshot.json")))
    )
    r = _mine(report, "framework-windows-native-gpu").remediation
    # TensorFlow 2.10 fits this Python, but no conda was seen to bring its CUDA 11.2/cuDNN 8.1 DLLs: the install is
    # said with what it needs, not printed alone (it would leave windows-dll-missing); WSL 2 is the printed route.
    assert "not this" not in r.summary and 'python -m pip install "tensorflow==2.10.*" needs CUDA 11.2 and cuDNN 8.1' in r.summary
    assert render_all(r.commands, "powershell")[-1] == "wsl --install"
