"""Issue 32: the plan moves torch's companions with it, or refuses with the reason, on whole recorded machines.

One place decides it (gpudoctor.planner.pick_torch: install_specs pins torchvision, torchaudio and xformers in the torch
line; companion_moves adds what follows the install, flash-attn; judge_pins refuses a release a companion pinning torch
exactly, vLLM, does not run on). The consequence model flags a torch move that leaves a companion built for the old
torch (gpudoctor.planner.effects.left_behind). Asserted on argv, codes and fields, never on prose.
"""

from __future__ import annotations

from pathlib import Path

from gpudoctor.checks import run_checks
from gpudoctor.cmdline import Cmd, SetEnv
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot
from gpudoctor.model import Finding, Remediation, Severity
from gpudoctor.planner.consequences import consequences
from gpudoctor.planner.context import Context
from gpudoctor.planner.plan import plan_install
from gpudoctor.planner.prescribe import build
from tests.machines import snapshot_file

MACHINES = Path(__file__).resolve().parents[1] / "machines"
PY = "/usr/bin/python3"  # the interpreter of every machine below
INDEX = "https://download.pytorch.org/whl"


def _report(slug: str):
    return diagnose(ReplayHost(load_snapshot(str(snapshot_file(MACHINES / slug)))))


def _install_line(plan) -> tuple[str, ...]:
    (line,) = [s.argv for s in plan.steps if "--dry-run" not in s.argv]
    return line


def test_every_companion_moves_in_the_torch_line_and_flash_attn_is_rebuilt_after_it():
    """torch 2.3.1 with torchvision, torchaudio, xformers, flash-attn (rtx4090-torch231-companions-healthy) to 2.9: the
    companion table's releases for torch 2.9.1 in the same pip line; flash-attn, whose release assets stop at torch 2.8,
    rebuilt against the new torch after the install, for this GPU."""
    plan = plan_install(_report("rtx4090-torch231-companions-healthy").facts, Context(), "torch", "2.9")
    assert _install_line(plan) == (
        PY,
        "-m",
        "pip",
        "install",
        "torch==2.9.1+cu128",
        "torchvision==0.24.1",
        "torchaudio==2.9.1",
        "xformers==0.0.33.post2",
        "--index-url",
        f"{INDEX}/cu128",
    )
    assert plan.after == (
        SetEnv("TORCH_CUDA_ARCH_LIST", "8.9"),
        SetEnv("FLASH_ATTENTION_FORCE_BUILD", "TRUE"),
        Cmd((PY, "-m", "pip", "install", "--no-build-isolation", "--no-binary", "flash-attn", "--no-cache-dir",
             "--force-reinstall", "--no-deps", "flash-attn==2.5.8")),
    )  # fmt: skip
    assert len(plan.companions) == 4  # torchvision, torchaudio, xformers, flash-attn: each named


def test_torch_2_10_pins_its_torchvision_and_torchaudio_and_leaves_xformers_to_the_resolver():
    plan = plan_install(_report("rtx4090-torch231-companions-healthy").facts, Context(), "torch", "2.10")
    line = _install_line(plan)
    assert line[4:8] == ("torch==2.10.0+cu128", "torchvision==0.25.0", "torchaudio==2.10.0", "xformers")


def test_flash_attn_moves_to_its_nearest_release_with_wheels_for_the_new_torch_and_cuda():
    """flash-attn 2.5.7 beside torch 2.3.0+cu121 (rtx4090-flashattn257-torch230-setdevice) asked to 2.8 (cu128): 2.8.3 is
    the nearest release whose assets are built for torch 2.8 and CUDA 12; its setup fetches the one for the new torch,
    so it follows the install."""
    plan = plan_install(_report("rtx4090-flashattn257-torch230-setdevice").facts, Context(), "torch", "2.8")
    assert _install_line(plan)[4:] == ("torch==2.8.*", "--index-url", f"{INDEX}/cu128")
    assert plan.after == (
        Cmd((PY, "-m", "pip", "install", "--no-build-isolation", "--force-reinstall", "--no-deps", "flash-attn==2.8.3")),
    )


def test_flash_attn_is_rebuilt_where_no_release_has_wheels_for_the_new_torchs_cuda():
    """flash-attn 2.6.3 beside torch 2.6 (rtx4090-flashattn263-torch260-cxx11abi) asked to 2.7, whose build for this driver
    is cu118: 2.8.3, the one release with torch 2.7 wheels, publishes CUDA 12 only (its publish.yml), so it is rebuilt."""
    plan = plan_install(_report("rtx4090-flashattn263-torch260-cxx11abi").facts, Context(), "torch", "2.7")
    assert _install_line(plan)[-1] == f"{INDEX}/cu118"
    assert plan.after[-1] == Cmd(
        (PY, "-m", "pip", "install", "--no-build-isolation", "--no-binary", "flash-attn", "--no-cache-dir",
         "--force-reinstall", "--no-deps", "flash-attn==2.6.3")
    )  # fmt: skip
    assert SetEnv("TORCH_CUDA_ARCH_LIST", "8.9") in plan.after


def test_a_cuda_major_switch_of_the_same_torch_moves_flash_attn_too():
    """torch 2.7.1+cu126 to 2.7.1+cu118 (rtx4090-flashattn274-debian11-glibc231): the same version, another CUDA major,
    whose runtime flash-attn's kernels link: it is rebuilt after."""
    plan = plan_install(_report("rtx4090-flashattn274-debian11-glibc231").facts, Context(), "torch", "2.7")
    assert _install_line(plan)[4] == "torch==2.7.1+cu118"
    assert plan.after[-1].argv[-1] == "flash-attn==2.7.4"


def test_vllm_pinning_torch_refuses_another_release_and_holds_its_patch():
    """vLLM 0.3.2's wheel requires torch==2.1.2 (rtx4090-vllm032-torch221-undefined-symbol): a torch 2.3 plan is refused
    with the pin as the reason; 2.1 installs exactly 2.1.2, with the xformers built for it in the same line."""
    facts = _report("rtx4090-vllm032-torch221-undefined-symbol").facts
    refused = plan_install(facts, Context(), "torch", "2.3")
    assert not refused.fits and not refused.steps
    fails = {j.topic for c in refused.ruled_out for j in c.failures()}
    assert fails == {"companion"}
    assert refused.machine.pins == (("vllm", "0.3.2", "2.1.2"),)
    kept = plan_install(facts, Context(), "torch", "2.1")
    assert _install_line(kept)[4:6] == ("torch==2.1.2+cu121", "xformers==0.0.23.post1")


def test_the_framework_step_asked_off_vllms_pin_takes_torch_to_the_pin():
    """The framework step asked for torch 2.3.1 on the vLLM machine: no build of 2.3 (nor any newer release) keeps vLLM,
    so the release that fits is vLLM's own torch, 2.1.2, downgraded to with the xformers built for it."""
    from gpudoctor.checks.frameworks import framework_plan

    plan, _how = framework_plan(_report("rtx4090-vllm032-torch221-undefined-symbol").facts, Context(), "torch", "2.3.1")
    assert plan.fits and plan.change is not None and plan.change.kind == "downgrade"
    assert _install_line(plan)[4:6] == ("torch==2.1.2+cu121", "xformers==0.0.23.post1")


def _moved_alone(slug: str, *lines):
    report = _report(slug)
    finding = Finding(
        "framework-driver-too-old", Severity.ERROR, "frameworks", "x", "", remediation=Remediation("x", lines, component="torch")
    )
    return consequences(build([finding]), report.facts, [finding], lambda f: run_checks(f)[0])


def test_the_model_flags_a_torch_move_that_leaves_a_companion_behind():
    """torch moved alone from 2.3.1 to 2.9.1: each companion installed is left built for 2.3.1 (breaks), flash-attn
    among them, which no check judges by its version."""
    got = _moved_alone(
        "rtx4090-torch231-companions-healthy",
        Cmd((PY, "-m", "pip", "install", "torch==2.9.1+cu128", "--index-url", f"{INDEX}/cu128")),
    )
    behind = [v for v in got.of_kind("breaks") if v.codes == ("companion-torch-mismatch",) and "left built" in v.reason]
    assert sorted(v.reason.split()[0] for v in behind) == ["flash-attn", "torchaudio", "torchvision", "xformers"]


def test_the_planners_moves_leave_nothing_behind():
    report = _report("rtx4090-torch231-companions-healthy")
    plan = plan_install(report.facts, Context(), "torch", "2.9")
    lines = (*(Cmd(s.argv) for s in plan.steps), *plan.after)
    got = _moved_alone("rtx4090-torch231-companions-healthy", *lines)
    assert not [v for v in got.violations if "left built" in v.reason]
    assert "companion-torch-mismatch" not in got.after


def test_fix_prints_what_follows_the_install_and_runs_only_the_steps():
    """`gpudoctor fix` runs the plan's steps; the lines after them (flash-attn's rebuild) are printed, never run."""
    from gpudoctor.cli.fix_run import describe
    from gpudoctor.install.fix import Fix

    plan = plan_install(_report("rtx4090-torch231-companions-healthy").facts, Context(), "torch", "2.9")
    lines = describe(Fix("reinstall", "x", ("framework-driver-too-old",), plan))
    assert lines[-1].strip().endswith("flash-attn==2.5.8") and "export TORCH_CUDA_ARCH_LIST=8.9" in lines[-3]
    assert len(plan.steps) == 1  # what fix runs: the torch line alone


# A GPU newer than every kernel of the torch installed, as PyTorch's own warning says it; the rest of the environment
# (its package list) is not shown, so which companions are installed is unknown.
_NO_SM120 = (
    "NVIDIA GeForce RTX 5070 Ti with CUDA capability sm_120 is not compatible with the current PyTorch installation.\n"
    "The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_61 sm_70 sm_75 sm_80 sm_86 sm_90.\n"
)
_WINDOWS_FRAME = '  File "E:\\sd\\venv\\lib\\site-packages\\torch\\cuda\\__init__.py", line 209, in _check_capability\n'


def _pasted_arch_fix(text: str) -> tuple[str, ...]:
    from gpudoctor.host.snapshot import validate_snapshot
    from gpudoctor.pasted import Source, read_pasted

    report = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("t", text)]), "t")))
    (f,) = [f for f in report.findings if f.code == "framework-arch-unsupported"]
    (line,) = [c.argv for c in f.remediation.commands if "install" in getattr(c, "argv", ())]
    return line


def test_a_torch_move_on_a_paste_without_its_package_list_carries_torchvision_and_torchaudio():
    """Where the package list was not shown, torch's line carries the companions PyTorch's own install line moves with
    it, each pinned to the release built for the new torch and tagged for its index (pip keeps an installed build of the
    same version otherwise): on Windows and on Linux alike."""
    for text in (_WINDOWS_FRAME + _NO_SM120, _NO_SM120):
        line = _pasted_arch_fix(text)
        assert line[1:] == (
            "-m",
            "pip",
            "install",
            "torch==2.11.0+cu128",
            "torchvision==0.26.0+cu128",
            "torchaudio==2.11.0+cu128",
            "--index-url",
            f"{INDEX}/cu128",
        )


def test_a_package_list_shown_whole_moves_only_the_companions_in_it():
    """A whole `pip list` without torchvision or torchaudio: none of them is added to the torch line."""
    listing = "Package    Version\n---------- -------\ntorch      2.1.2+cu121\nnumpy      1.26.4\n"
    line = _pasted_arch_fix(listing + _NO_SM120)
    (moved,) = [a for a in line if a.startswith(("torch", "xformers"))]
    assert moved.startswith("torch==")


def _fa_moves(torch_installed: str, release: str, cuda: str, pin: str) -> tuple[tuple[str, ...], tuple]:
    """pick_torch.companion_moves for a flash-attn 2.6.3 beside `torch_installed` on a recorded machine, planned to the
    torch build `pin` of CUDA `cuda`."""
    import dataclasses

    from gpudoctor.planner.machine import machine_from_facts
    from gpudoctor.planner.model import Build
    from gpudoctor.planner.pick_torch import companion_moves

    ctx = Context()
    machine = machine_from_facts(_report("rtx4090-flashattn274-debian11-glibc231").facts, ctx)
    machine = dataclasses.replace(machine, installed={"torch": torch_installed, "flash-attn": "2.6.3"})
    variant = "cu" + cuda.replace(".", "")
    build = Build("torch", release, variant, cuda, (f"torch=={pin}+{variant}",), f"{INDEX}/{variant}", pin=pin)
    return companion_moves(ctx.matrix, machine, build, "pip")


def test_flash_attn_moves_with_torchs_version_or_cuda_major_and_not_its_cuda_minor():
    """pick_torch.companion_moves: "What is built against torch moves when torch's version moves, or its CUDA major
    (its kernels link that runtime)". flash-attn 2.6.3 beside torch 2.4.0+cu121: to 2.4.0+cu124 (the same version, a
    CUDA 12 minor) nothing moves; to 2.4.0+cu118 (another major) and to 2.5.1+cu124 (another version) it does."""
    said, after = _fa_moves("2.4.0+cu121", "2.4", "12.4", "2.4.0")
    assert not [s for s in said if s.startswith("flash-attn")] and after == ()
    # a range of the same release (torch==2.4.*): the installed 2.4.0 is of that release, so nothing moves either
    said, after = _fa_moves("2.4.0+cu121", "2.4", "12.4", "2.4.*")
    assert not [s for s in said if s.startswith("flash-attn")] and after == ()
    for installed, release, cuda, pin in [("2.4.0+cu121", "2.4", "11.8", "2.4.0"), ("2.4.0+cu121", "2.5", "12.4", "2.5.1")]:
        said, after = _fa_moves(installed, release, cuda, pin)
        assert [s.split(" ", 2)[:2] for s in said if s.startswith("flash-attn")] == [["flash-attn", "2.6.3"]]
        assert after and after[-1].argv[-1].startswith("flash-attn==")


def test_what_is_built_against_torch_is_left_behind_by_a_version_or_a_cuda_major_not_a_cuda_minor():
    """effects._torch_moved: "another version (its C++ names change with each release), or another CUDA major (its
    kernels link that runtime)": the consequence model's one answer for what a torch step leaves behind. The version is
    compared without its local tag, the CUDA by its major only."""
    from gpudoctor.planner.effects import _torch_moved

    assert _torch_moved("2.4.0+cu121", "12.1", "2.4.0+cu124", "12.4") is False
    assert _torch_moved("2.4.0+cu124", "12.4", "2.4.0+cu121", "12.1") is False
    assert _torch_moved("2.4.0+cu121", "12.1", "2.4.0", "12.1") is False
    assert _torch_moved("2.4.0+cu121", "12.1", "2.4.0+cu118", "11.8") is True
    assert _torch_moved("2.7.1+cu126", "12.6", "2.7.1+cu128", "12.8") is False
    assert _torch_moved("2.7.1+cu128", "12.8", "2.7.1+cu130", "13.0") is True
    assert _torch_moved("2.4.0+cu121", "12.1", "2.4.1+cu121", "12.1") is True  # a patch release
    assert _torch_moved("2.4.0+cu121", "12.1", "2.5.0+cu121", "12.1") is True  # a minor release
    assert _torch_moved("2.4.0+cu121", None, "2.4.0+cu124", "12.4") is False  # an unknown CUDA is not a move


def test_a_torch_step_to_another_cuda_minor_leaves_nothing_behind_another_major_does():
    """effects._torch_moved through the consequence model: torch 2.7.1+cu126 beside flash-attn 2.7.4
    (rtx4090-flashattn274-debian11-glibc231) reinstalled as 2.7.1+cu128, the same version of the same CUDA major, leaves
    flash-attn bound; as 2.7.1+cu118 it is left built for the old torch (breaks)."""

    def behind(variant: str) -> list[str]:
        line = Cmd((PY, "-m", "pip", "install", f"torch==2.7.1+{variant}", "--index-url", f"{INDEX}/{variant}"))
        got = _moved_alone("rtx4090-flashattn274-debian11-glibc231", line)
        return sorted(v.reason.split()[0] for v in got.of_kind("breaks") if "left built" in v.reason)

    assert behind("cu128") == []
    assert behind("cu118") == ["flash-attn"]


def test_a_companion_pinning_torch_exactly_is_left_behind_by_another_patch():
    """effects.left_behind: a companion "not built for the torch the plan leaves (its wheel's torch pin ...)": vLLM
    0.3.2 and xformers 0.0.23.post1 require torch==2.1.2 (rtx4090-vllm032-torch221-undefined-symbol); a step to 2.1.2
    leaves them bound, to 2.1.1 (the same minor, another patch) or 2.2.0 it leaves them behind."""

    def behind(version: str) -> list[str]:
        line = Cmd((PY, "-m", "pip", "install", f"torch=={version}+cu121", "--index-url", f"{INDEX}/cu121"))
        got = _moved_alone("rtx4090-vllm032-torch221-undefined-symbol", line)
        return sorted(v.reason.split()[0] for v in got.of_kind("breaks") if "left built" in v.reason)

    assert behind("2.1.2") == []
    assert behind("2.1.1") == behind("2.2.0") == ["vllm", "xformers"]


def test_a_flash_attn_tag_names_torchs_minor_exactly():
    """effects._built_for: flash-attn's local tag (2.5.8+cu122torch2.1cxx11abiFALSE) names the torch minor it was built
    for: 2.1.x only, never 2.10 (a prefix of the text is not the minor)."""
    import dataclasses

    from gpudoctor.planner.effects import _built_for

    (fa,) = [c for c in _report("rtx4090-flashattn274-debian11-glibc231").facts.extensions.companions if c.name == "flash-attn"]
    tagged = dataclasses.replace(fa, version="2.5.8+cu122torch2.1cxx11abiFALSE", requires=())
    assert _built_for(None, tagged, "2.1.2+cu121") is True  # type: ignore[arg-type]
    assert _built_for(None, tagged, "2.10.0+cu128") is False  # type: ignore[arg-type]
    assert _built_for(None, tagged, "2.2.0+cu121") is False  # type: ignore[arg-type]


def test_vllm_built_for_its_torchs_cuda_refuses_another_cuda_build_of_the_same_release():
    """vLLM's compiled kernels are built with its torch's CUDA (vllm-project/vllm installation.rst: CUDA 12.1 by default,
    a separate +cu118 wheel): on the vLLM machine (torch 2.2.1+cu121 beside vLLM 0.3.2, pinning 2.1.2) told a driver that
    runs CUDA 11.8 at most, torch 2.1.2's cu118 build is refused for vLLM's sake, as the cu121 ones are for the driver:
    no build fits. The same release's cu121 build stays allowed where the driver runs it (the quiet twin)."""
    from gpudoctor.planner.model import Target
    from gpudoctor.planner.plan import Options

    facts = _report("rtx4090-vllm032-torch221-undefined-symbol").facts
    told = plan_install(facts, Context(), "torch", "2.1", options=Options(target=Target(cuda="11.8")))
    assert not told.fits and not told.steps
    by_variant = {c.build.variant: {j.topic for j in c.failures()} for c in told.ruled_out if c.build.release == "2.1"}
    assert by_variant["cu118"] == {"companion"}
    assert "driver" in by_variant["cu121"] and "companion" not in by_variant["cu121"]
    kept = plan_install(facts, Context(), "torch", "2.1")
    assert kept.fits and _install_line(kept)[4] == "torch==2.1.2+cu121"


def test_vllms_compiled_module_in_a_paste_holds_torch_and_the_driver_leads():
    """vllm-project/vllm#11623 (tests/blind/plans9/cases/916-*/input.txt): vLLM's _C.abi3.so in a user site fails on
    cuTensorMapEncodeTiled, torch 2.4.0+cu121 beside it, a driver of CUDA 11.4. vLLM is installed (its module's path),
    built for torch 2.4.0+cu121: moving torch alone to cu118 would leave it behind, so the driver upgrade is the step."""
    from gpudoctor.planner.machine import machine_from_facts
    from tests.spec.machine import pasted_report

    cases = Path(__file__).resolve().parents[1] / "blind" / "plans9" / "cases"
    text = next(cases.glob("916-*")).joinpath("input.txt").read_text(encoding="utf-8")
    report = pasted_report(text)
    assert machine_from_facts(report.facts, Context()).pins == (("vllm", "", "2.4.0"),)
    (finding,) = [f for f in report.findings if f.code == "framework-driver-too-old"]
    assert finding.remediation.component == "driver" and finding.remediation.alternative is None
    assert not any("pip" in c.argv for c in finding.remediation.commands if isinstance(c, Cmd))
