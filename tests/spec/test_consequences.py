"""Every printed plan checked by its consequences (issue 27): applied to its machine, the machine diagnosed again.

For every recorded machine (tests/machines), real case (tests/real) and pasted case (tests/pasted/cases), the
plan `check` prints (gpudoctor.planner.prescribe.build) is applied step by step to the machine's facts
(gpudoctor.planner.consequences) and the checks judge the result. A violation (an error left, something
broken, a step undone, a need unmet) fails the test unless it is in KNOWN below: today's plans as they are,
each with the reason, the to-do list of issue 27. A KNOWN entry that no longer happens fails too (remove it):
the list only shrinks. What the model cannot follow is counted (`unmodelled`, with its reason), never passed
over: its total may not grow past UNMODELLED_AT_MOST.
"""

from __future__ import annotations

import functools
from collections import Counter
from pathlib import Path
from typing import NamedTuple

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.cmdline import Cmd, SetEnv
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot, validate_snapshot
from gpudoctor.model import Finding, Remediation, Severity
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.planner.actions import classify
from gpudoctor.planner.consequences import KINDS, alternatives, consequences, revise
from gpudoctor.planner.prescribe import build
from tests.machines import snapshot_file

TESTS = Path(__file__).resolve().parent.parent


def _cases() -> list[str]:
    machines = [f"machine:{p.parent.name}" for p in sorted((TESTS / "machines").glob("*/expected.toml"))]
    real = [f"real:{p.parent.name}" for p in sorted((TESTS / "real").glob("*/case.toml"))]
    pasted = [f"pasted:{p.parent.name}" for p in sorted((TESTS / "pasted" / "cases").glob("*/case.toml"))]
    return machines + real + pasted


CASES = _cases()


def _snapshot(case: str):
    kind, slug = case.split(":", 1)
    if kind == "machine":
        return load_snapshot(str(snapshot_file(TESTS / "machines" / slug)))
    if kind == "real":
        return load_snapshot(str(snapshot_file(TESTS / "real" / slug)))
    text = (TESTS / "pasted" / "cases" / slug / "report.txt").read_bytes().decode("utf-8-sig", errors="replace")
    return validate_snapshot(read_pasted([Source("report.txt", text)]), slug)


def _rediagnose(facts) -> list[Finding]:
    return run_checks(facts)[0]


@functools.cache
def _checked(case: str):
    from gpudoctor.pipeline import CheckRequest, check

    checked = check(ReplayHost(_snapshot(case)), CheckRequest())  # the plan `check` prints, pasted asks included
    report, plan = checked.report, checked.plan
    return (
        consequences(plan, report.facts, report.findings, _rediagnose),
        alternatives(plan, report.facts, report.findings, _rediagnose),
    )


def result(case: str):
    """The consequences of the plan printed for `case`."""
    return _checked(case)[0]


def alternative_violations(case: str):
    """(the step whose "or instead" it is, a violation of the plan that takes it) for every printed alternative."""
    return [(step, v) for step, _code, got in _checked(case)[1] for v in got.violations if v.kind != "unmodelled"]


class Known(NamedTuple):
    """A violation today's plan has: the case, the step (1-based), the kind, the code or the command's start, why."""

    case: str
    step: int
    kind: str
    what: str
    why: str

    def matches(self, case: str, v) -> bool:
        return self.step == v.step and self.matches_anywhere(case, v)

    def matches_anywhere(self, case: str, v) -> bool:
        """For an alternative: `step` names the step whose alternative it is; the violation may be at any step of the
        plan that takes it (a later step planned for what the alternative replaced)."""
        return (self.case, self.kind) == (case, v.kind) and (self.what in v.codes or v.command.startswith(self.what))


W = {
    "prose": "kind 9: the step is prose only, no command",
}

# Today's violations (issue 27; 54 after the merges of h35/h36, 4 after h43), its to-do: shrink it, never grow it.
# What is left needs a command no recorded fact decides: a driver on a host whose system is unknown, an image's
# own build, Windows DLLs with neither conda nor a command-line installer at hand. (A machine without a GPU is no
# longer here since h279: its step is other hardware, and the machine after the plan still has no NVIDIA device on its
# bus, so it is counted in NO_ENVIRONMENT_FIX, not failed.)
KNOWN = (
    Known("machine:windows-tf291-venv-no-cuda-dlls", 1, "left-error", "windows-dll-missing", W["prose"]),
    Known("real:yuan2-ngc-container-torch-cu121-driver-cuda110", 3, "left-error", "framework-cuda-libs-missing", W["prose"]),
    # A GPU below every PyTorch build (sm_21): the fix is the CPU or another GPU, which no command makes (h74: it was
    # a step deferring to asks that decided nothing, counted in UNDECIDED; it is a hardware step like gpu-none's).
    # h279 left these four here rather than in NO_ENVIRONMENT_FIX: the GPU's capability is the check's reading of the
    # text (a name, a "cuda capability" line) against the matrix, which the consequence layer would have to make again
    # to confirm "below every build"; and vLLM's step names a build from source, an environment fix without a command.
    Known("pasted:pytorch-6515-geforce-820m-cc21-too-old", 1, "left-error", "framework-arch-unsupported", W["prose"]),
    # h270: the same, read from a GPU the text names beside PyTorch's "no kernel image" (the K40c, sm_35, beside a
    # K80 that runs it; Squirrel-RIFE's GTX 760, sm_30): the CPU or another GPU, no command.
    Known("pasted:pytorch-31319-k40c-sm35-torch131-no-kernel-image", 1, "left-error", "framework-arch-unsupported", W["prose"]),
    Known("pasted:squirrel-rife-344-gtx760-kepler-no-kernel-image", 1, "left-error", "framework-arch-unsupported", W["prose"]),
    # h174: a GPU below every vLLM build (Pascal, sm_60; vLLM's kernels start at sm_70): another GPU, no command.
    Known("pasted:vllm-16307-p100x8-vllm073-no-kernel-image", 1, "left-error", "framework-arch-unsupported", W["prose"]),
    # h129: the driver's dnf module stream is the GPU's generation (open modules from Turing on), which nothing recorded
    # names (nouveau holds the GPU: no NVML; the PCI id was not pasted): lspci is asked, the install is prose, no longer
    # a command with '<nvidia-driver-stream>' in it.
    Known(
        "real:fedora29-nouveau-holds-gm204", 1, "left-error", "driver-nouveau", "kind 5: the GPU's generation decides the stream"
    ),
    # h153: the same machine's paste, whose boot line's .fc29 kernel now names Fedora (pasted.distro_traces): it meets
    # the same gap as its recorded twin above (the chip nouveau names, GM204, is no GPU the matrix knows), no new one.
    Known(
        "pasted:negativo17-73-fedora29-nouveau-holds-gm204",
        1,
        "left-error",
        "driver-nouveau",
        "kind 5: the GPU's generation decides the stream",
    ),
)

# The printed alternatives ("or instead"), each checked as the plan a person who takes it runs: `step` is the
# step whose alternative it is.
KNOWN_ALTERNATIVES = (
    Known("machine:windows-forge-torch21-cu121-driver-cuda114", 1, "left-error", "framework-driver-too-old", W["prose"]),
    Known("real:gke-driver470-torch210-cu121", 1, "left-error", "framework-driver-too-old", W["prose"]),
    Known("pasted:pytorch-43058-v100-torch160-cu102-driver418", 1, "left-error", "framework-driver-too-old", W["prose"]),
)

# What the model does not follow today, each counted with its reason in the result: no more than this.
# History, short: 170 after h71; 161 after h93/h103; up to 227 by h271 as pasted cases came; 197 after h279 (docker's
# listings are reads, rm of a stale binary, packages pinned exactly, the reporter's container with --gpus); 207 with
# h276, h277, h280, h281's new pasted cases. 159 after h289 (48 fewer): the driver as a plan changes it
# (gpudoctor.planner.driver_state): a driver package or a finished upgrade (dpkg --configure -a, apt-get install
# --fix-broken) sets the user-space build and leaves its module pending; a reboot, or modprobe after rmmod, loads it;
# module and library one build, NVML answers and the mismatch texts go (39 over 12 mismatch cases); the branch
# `ubuntu-drivers install` picks where any NVIDIA driver answers the finding (none installed, nouveau: 9 over 3 cases).
# 138 (21 fewer): a bare python3 on a paste that shows no interpreter by its path is the environment's where the paste
# shows no other environment (no conda, venv or prefix; the system's site directories only).
# 128 (10 fewer): reads read as reads: wsl -l -v, --status, --version; id; fuser without -k; command -v; module list,
# avail, show, spider.
# What is left, by the model's reason (h289's census of the 128): findings judged on the pasted text alone (23);
# wsl --install (another system, 15) and wsl --update on WSL 1 (6); the NVIDIA wheels of a PyTorch-index torch build,
# whose pins the matrix read for PyPI's builds only (10); cuDNN packages where the loader's cache was not recorded (8);
# NVIDIA wheels and other packages unpinned (11); the host's container runtime (6); conda installs other than CUDA and
# cuDNN into a Windows prefix (5); a GPU off the bus or reset (6); the branch the distribution picks for a driver judged
# too old (4); a bare python3 where the paste shows a conda environment (4); the module and device nodes without a
# driver step (4); package removals and ldconfig (5); LD_LIBRARY_PATH directories nobody listed (3); a reboot after a
# mismatch whose module is newer than its libraries (2: the CUDA compatibility package's libcuda); the rest (under 3).
# 129 (1 more, h291): OpenMMLab's installer, openmim, installed unpinned before `python -m mim install mmcv==V` (mmcv's
# own recipe for its prebuilt wheels; mim's version does not change the mmcv it installs).
# 133 (4 more, h297): the pasted case wilicc/gpu-burn#92 (fabric-manager-not-running): the fabric manager's systemd
# service read and started (systemctl: facts record no services), the reporter's own gpu_burn rerun, and a finding judged
# on CUDA's error 802 alone, which a changed machine would not print again.
# 135 (6 more, h300): a library the loader could not open, nothing shown deciding where it is, now gets the look for a
# copy and the export of the first copy's directory (gpudoctor.checks.library_copy) where its step deferred to the
# asks: the directory is the look's output, known only once it has run, so what it puts on LD_LIBRARY_PATH is not
# modelled (as _native_program_lib_dir's export before it); the pastes' steps were counted in UNDECIDED instead.
# 139 with both merged.
# 140 (1 more, h302): the pasted case jhj0517/Whisper-WebUI#235 (cuDNN's "Could not locate cudnn_ops_infer64_8.dll"
# beside torch\lib's cuDNN 9 DLLs: gpudoctor.checks.cudnn_locate), its ctranslate2 install judged on the pasted error
# text alone, which a changed machine would not print again (no fact records which cuDNN major CTranslate2 loads).
# 141 (3 more than the 138 counted before it, h311): the pasted case uzh-rpg/rpg_open_remode#9 ("on Linux Mint 17.2",
# driver 340.93 under a CUDA 7.0 build) gets Ubuntu's driver route (gpudoctor.planner.remedy.ubuntu_archive) where its
# step deferred to the asks (counted in UNDECIDED): the branch ubuntu-drivers chooses on the day, the reboot that loads
# it and the finding judged on the pasted error text are not modelled, as in every such Ubuntu step.
# 143 with h310 merged (2 more): the pasted case MIT-REALM/gcbfplus#1 (cuDNN 8.6 loaded under JAX's cuDNN 8.9 build)
# now installs the cuDNN wheel of the build's CUDA major and puts its directory first on LD_LIBRARY_PATH
# (gpudoctor.checks.cudnn_wheel) where it deferred (UNDECIDED): the directory is a program's output, not followed, and
# the finding is judged on the pasted error text alone.
# 145 (2 more, h314): the new pasted case MrMEEE/ironhide#41 (nouveau read from the NVIDIA module's "probe routine was
# not called"): its modprobe failure (pasted-error-unexplained) is judged on the pasted text alone, and its resume
# command, the reporter's own `optirun glxgears` (Bumblebee/Ironhide's launcher), has no model. No old case grew.
UNMODELLED_AT_MOST = 145


def _violations(case: str):
    return [v for v in result(case).violations if v.kind != "unmodelled"]


@pytest.mark.parametrize("case", CASES)
def test_the_plan_holds_by_its_consequences(case):
    unknown = [v for v in _violations(case) if not any(k.matches(case, v) for k in KNOWN)]
    assert not unknown, f"{case}: " + "; ".join(f"step {v.step} {v.kind} {v.codes} {v.command!r}: {v.reason}" for v in unknown)


@pytest.mark.parametrize("case", CASES)
def test_every_alternative_holds_by_its_consequences(case):
    unknown = [
        (s, v)
        for s, v in alternative_violations(case)
        if not any(k.step == s and k.matches_anywhere(case, v) for k in KNOWN_ALTERNATIVES)
    ]
    assert not unknown, f"{case}: " + "; ".join(
        f"alternative of step {s}: {v.kind} {v.codes} {v.command!r}: {v.reason}" for s, v in unknown
    )


def test_every_known_violation_still_happens():
    stale = [k for k in KNOWN if not any(k.matches(k.case, v) for v in _violations(k.case))]
    assert not stale, "fixed, remove from KNOWN: " + "; ".join(f"{k.case} step {k.step} {k.kind} {k.what}" for k in stale)
    stale = [
        k
        for k in KNOWN_ALTERNATIVES
        if not any(s == k.step and k.matches_anywhere(k.case, v) for s, v in alternative_violations(k.case))
    ]
    assert not stale, "fixed, remove from KNOWN_ALTERNATIVES: " + "; ".join(
        f"{k.case} step {k.step} {k.kind} {k.what}" for k in stale
    )


# Errors whose step is other hardware and whose premise the machine after the plan still shows (consequences.
# hardware_step: no NVIDIA device on the bus): no command fixes them on this machine. The two recorded GPU-less
# machines (h56's job machine was built on the same one as ci-docker-cuda13-no-gpu).
NO_ENVIRONMENT_FIX = {
    "machine:ci-docker-cuda13-no-gpu": ("gpu-none",),
    "machine:build-machine-job-maps-another-cudart": ("gpu-none",),
}


def test_what_no_environment_fix_can_reach_is_counted_apart():
    got = {case: result(case).no_environment_fix for case in CASES if result(case).no_environment_fix}
    assert got == NO_ENVIRONMENT_FIX
    # An alternative that is the same hardware step is judged alike: no violation of the plan that takes it.
    assert not alternative_violations("machine:build-machine-job-maps-another-cudart")


def test_a_hardware_step_counts_apart_only_where_the_machine_still_shows_its_premise():
    report = _machine("ci-docker-cuda13-no-gpu")
    hardware = Remediation("another machine", (), component="gpu")
    plan, findings = _plan(report, hardware, codes=("gpu-none",))
    got = consequences(plan, report.facts, findings, _rediagnose)
    assert got.no_environment_fix == ("gpu-none",) and got.holds
    assert got.to_json()["no_environment_fix"] == ["gpu-none"]
    # The same prose step for another component (not the hardware) is an error the plan leaves.
    prose = Remediation("another machine", (), component="driver")
    plan, findings = _plan(report, prose, codes=("gpu-none",))
    got = consequences(plan, report.facts, findings, _rediagnose)
    assert got.no_environment_fix == () and [v.codes for v in got.of_kind("left-error")] == [("gpu-none",)]
    # And on a machine whose bus shows a GPU, the premise does not hold: the error is left, not excused.
    report = _machine("p100-driver510-torch-cu121")
    plan, findings = _plan(report, hardware, codes=("framework-driver-too-old",))
    got = consequences(plan, report.facts, findings, _rediagnose)
    assert got.no_environment_fix == () and got.of_kind("left-error")


def test_every_case_is_checked_and_what_is_not_modelled_is_counted():
    assert len(CASES) >= 180  # 65 machines, 41 real cases, 75 pasted cases today (fewer: a loader lost some)
    counts: Counter[str] = Counter()
    for case in CASES:
        counts.update(v.kind for v in result(case).violations)
    assert set(counts) <= set(KINDS)
    assert counts["unmodelled"] <= UNMODELLED_AT_MOST, counts
    assert sum(counts[k] for k in KINDS if k != "unmodelled") == len(KNOWN), counts


# --- the model itself, on plans written here -------------------------------------------------------


def _machine(slug: str):
    return diagnose(ReplayHost(load_snapshot(str(snapshot_file(TESTS / "machines" / slug)))))


def _plan(report, *remedies: Remediation, codes=("framework-driver-too-old",)):
    findings = [Finding(codes[0], Severity.ERROR, "frameworks", codes[0], "", remediation=r) for r in remedies]
    return build(findings), findings


def test_step_kinds_are_read_from_the_argument_vector():
    assert (
        classify(
            Cmd(("/usr/bin/python3", "-m", "pip", "install", "torch==2.2.1+cu118", "--index-url", "https://x/whl/cu118"))
        ).kind
        == "pip-install"
    )
    a = classify(Cmd(("uv", "pip", "install", "--no-deps", "jax[cuda12]==0.4.38")))
    assert (a.kind, a.requirements[0].name, a.requirements[0].extras, a.requirements[0].version) == (
        "pip-install",
        "jax",
        ("cuda12",),
        "0.4.38",
    )
    assert "--no-deps" in a.flags
    assert classify(Cmd(("apt-get", "install", "-y", "cuda-toolkit-12-1"), root=True)).packages == ("cuda-toolkit-12-1",)
    assert classify(Cmd(("reboot",), root=True)).kind == "reboot"
    assert classify(Cmd(("docker", "run", "--gpus", "all", "<image>"))).kind == "container-run"
    assert classify(Cmd(("gpudoctor", "switch-cuda", "12.1"), root=True)).kind == "link-switch"
    assert classify(SetEnv("CUDA_VISIBLE_DEVICES", None)).kind == "env-unset"
    assert classify(Cmd(("nvidia-smi", "-L"))).kind == "inspect"
    assert classify(Cmd(("frobnicate",))).kind == "other"


def test_a_companion_built_from_its_source_against_torch_or_removed_clears_its_missing_symbol():
    report = _machine("rtx4090-apex-torch25-empty-memory-format")
    py, url = "/opt/conda/bin/python", "apex @ git+https://github.com/NVIDIA/apex"
    a = classify(Cmd((py, "-m", "pip", "install", "--no-build-isolation", url)))
    assert (a.requirements[0].name, a.requirements[0].op, a.requirements[0].spec) == (
        "apex",
        "@",
        "git+https://github.com/NVIDIA/apex",
    )
    codes = ("extension-symbol-missing",)
    for cmd in ((py, "-m", "pip", "install", "--no-build-isolation", url), (py, "-m", "pip", "uninstall", "-y", "apex")):
        plan, findings = _plan(report, Remediation("apex", (Cmd(cmd),), component="torch"), codes=codes)
        got = consequences(plan, report.facts, findings, _rediagnose)
        assert "extension-symbol-missing" in got.before and "extension-symbol-missing" not in got.after, cmd
    # An isolated build fetches its own torch: the model does not call that a rebuild against this one.
    plan, findings = _plan(report, Remediation("apex", (Cmd((py, "-m", "pip", "install", url)),), component="torch"), codes=codes)
    assert consequences(plan, report.facts, findings, _rediagnose).of_kind("unmodelled")


def test_a_torch_for_the_driver_clears_the_error_and_a_later_pin_undoes_it():
    report = _machine("p100-driver510-torch-cu121")
    py = "/usr/bin/python3"
    ok = Remediation(
        "torch cu118",
        (Cmd((py, "-m", "pip", "install", "torch==2.2.1+cu118", "--index-url", "https://x/whl/cu118")),),
        component="torch",
    )
    plan, findings = _plan(report, ok)
    got = consequences(plan, report.facts, findings, _rediagnose)
    assert "framework-driver-too-old" in got.before and "framework-driver-too-old" not in got.after
    assert not got.of_kind("left-error") and not got.of_kind("undone")
    again = Remediation(
        "torch cu121",
        (Cmd((py, "-m", "pip", "install", "torch==2.1.2+cu121", "--index-url", "https://x/whl/cu121")),),
        component="jax",
    )
    plan, findings = _plan(report, ok, again)
    got = consequences(plan, report.facts, findings, _rediagnose)
    undone = got.of_kind("undone")
    assert [(v.step, v.codes) for v in undone] == [(2, ())] and "torch" in undone[0].reason
    assert "framework-driver-too-old" in got.after  # the second pin brings the cu121 build back, and its error


def test_a_reboot_alone_and_conda_without_conda_are_unmet_and_the_hook_says_what_it_cannot_decide():
    report = _machine("p100-driver510-torch-cu121")
    reboot = Remediation("reboot", (Cmd(("nvidia-smi",)), Cmd(("reboot",), root=True)), requires_root=True, component="driver")
    plan, findings = _plan(report, reboot)
    got = consequences(plan, report.facts, findings, _rediagnose)
    assert [v.command for v in got.of_kind("unmet-precondition")] == ["sudo reboot"]
    revised, after = revise(plan, report.facts, findings, _rediagnose)
    assert [c.words for c in revised.steps[0].commands] == [("nvidia-smi",)]
    assert revised.steps[0].summaries[0].startswith("Cannot decide")
    assert not after.of_kind("unmet-precondition")
    conda = Remediation(
        "conda", (Cmd(("conda", "run", "-n", "x", "python", "-m", "pip", "install", "torch==2.2.1")),), component="torch"
    )
    plan, findings = _plan(report, conda)
    reasons = [v.reason for v in consequences(plan, report.facts, findings, _rediagnose).of_kind("unmet-precondition")]
    assert any("conda is not on this machine" in r for r in reasons) and any("no conda environment x" in r for r in reasons)


def test_the_hook_takes_the_alternative_that_holds():
    report = _machine("rtx2070x2-cuda-visible-devices-wrong")
    unset = Remediation("unset it", (SetEnv("CUDA_VISIBLE_DEVICES", None),), component="environment")
    first = Remediation("reboot", (Cmd(("reboot",), root=True),), requires_root=True, component="environment", alternative=unset)
    plan, findings = _plan(report, first, codes=("cuda-visible-devices-hides-all",))
    assert consequences(plan, report.facts, findings, _rediagnose).of_kind("unmet-precondition")
    revised, after = revise(plan, report.facts, findings, _rediagnose)
    assert revised.steps[0].commands == (SetEnv("CUDA_VISIBLE_DEVICES", None),)
    assert after.holds and "cuda-visible-devices-hides-all" not in after.after


@pytest.mark.parametrize(
    ("case", "gone"),
    [
        # LD_LIBRARY_PATH unset: the loader's copies re-ordered, the wheel's cuDNN loads.
        ("machine:rtx3060-jax-cudnn-shadowed-by-ld-library-path", "cudnn-too-old"),
        # conda's own variable: the environment's lib/ on the loader's path.
        ("machine:rtx3060-conda-tf211-cuda-libs-not-on-path", "framework-cuda-libs-missing"),
        # a toolkit installed, the link and this shell's variables re-pointed.
        ("machine:rtx4090-nvcc118-torch-cu121", "toolkit-torch-major-mismatch"),
        # torch from the index of a CUDA its kernels and this driver share, with its wheels' libraries.
        ("machine:rtx5070-torch-cu121-no-sm120", "framework-arch-unsupported"),
        ("machine:rtx4090-jax-cpu-only", "framework-cpu-build"),
    ],
)
def test_what_a_modelled_plan_clears(case, gone):
    got = result(case)
    assert gone in got.before and gone not in got.after
    assert not [v for v in got.violations if v.kind != "unmodelled"]


def test_an_error_the_plan_turns_into_a_warning_is_shown_not_failed():
    got = result("machine:quadro-p2000-driver525-cuda13-toolkit")  # 12.0 linked; the 13.0 toolkit stays, unused
    assert "toolkit-newer-than-driver" in got.left_warnings
    assert not got.of_kind("left-error")
    assert got.to_json()["counts"] == got.counts() and got.to_json()["left_warnings"] == ["toolkit-newer-than-driver"]


def test_the_pipeline_hands_a_checked_plan_as_json():
    from gpudoctor.pipeline import CheckRequest, check, consequences_of

    checked = check(ReplayHost(_snapshot("machine:rtx3060-laptop-torch-cpu-build")), CheckRequest())
    doc = consequences_of(checked).to_json()
    assert "framework-cpu-build" in doc["before"] and "framework-cpu-build" not in doc["after"]
    assert set(doc["counts"]) == set(KINDS) and all(
        set(v) >= {"step", "kind", "codes", "command", "reason"} for v in doc["violations"]
    )


_TORCH_CU118 = Cmd(("/usr/bin/python3", "-m", "pip", "install", "torch==2.2.1+cu118", "--index-url", "https://x/whl/cu118"))
# the same install without its NVIDIA wheels: a step whose every effect the model follows
_TORCH_CU118_ALONE = Cmd(_TORCH_CU118.words[:4] + ("--no-deps",) + _TORCH_CU118.words[4:])


def _step(*lines):
    from gpudoctor.planner.prescribe import Prescription, Step

    return Prescription((Step("torch", ("x",), lines, ("framework-driver-too-old",), Severity.ERROR, False, ""),))


@pytest.mark.parametrize(("severity", "breaks"), [(Severity.INFO, False), (Severity.WARNING, True), (Severity.ERROR, True)])
def test_a_finding_of_warning_or_error_that_appears_after_a_step_breaks(severity, breaks):
    """consequences.py: "breaks  a finding of warning or error that was not there before appears after a step"
    (a judge that finds `new-code` on any machine but the one before the plan; a note does not count)."""
    report = _machine("p100-driver510-torch-cu121")
    judged: list = []

    def judge(facts):
        judged.append(facts)
        return [] if facts is judged[0] else [Finding("new-code", severity, "frameworks", "new-code", "")]

    got = consequences(_step(_TORCH_CU118), report.facts, report.findings, judge)
    assert [(v.step, v.codes) for v in got.of_kind("breaks")] == ([(1, ("new-code",))] if breaks else [])


@pytest.mark.parametrize(
    ("lines", "kind"),
    [
        ((Cmd(("nvidia-smi",)),), "undecided"),
        ((Cmd(("nvidia-smi",)), Cmd(("dmesg",))), "undecided"),
        ((Cmd(("nvidia-smi",)), _TORCH_CU118_ALONE), "left-error"),
        ((_TORCH_CU118_ALONE, Cmd(("nvidia-smi",))), "left-error"),
    ],
)
def test_only_a_step_that_only_inspects_leaves_its_error_undecided(lines, kind):
    """consequences.py: "A step that only inspects (nvidia-smi, dmesg, gpudoctor memory) leaves its finding by design
    ... it is counted as `undecided`, not as a violation": a step that also runs a real command and leaves its error
    is a `left-error` (a judge that finds the error on every machine)."""
    report = _machine("p100-driver510-torch-cu121")
    error = Finding("framework-driver-too-old", Severity.ERROR, "frameworks", "framework-driver-too-old", "")
    got = consequences(_step(*lines), report.facts, [error], lambda facts: [error])
    assert not got.of_kind("unmodelled")
    assert got.undecided == (("framework-driver-too-old",) if kind == "undecided" else ())
    assert [v.codes for v in got.of_kind("left-error")] == ([("framework-driver-too-old",)] if kind == "left-error" else [])


@pytest.mark.parametrize(
    ("pin", "cudart"),
    [
        ("torch==2.2.1+cu118", "libcudart.so.11.0"),
        ("torch==2.0.1+cu117", "libcudart.so.11.0"),
        ("torch==2.2.1+cu121", "libcudart.so.12"),
    ],
)
def test_a_planned_torch_wheel_brings_its_cuda_runtime_by_its_soname(pin, cudart):
    """effects.py _sonames: "CUDA 11 keeps the 11.0 soname for cudart, 12 on the major alone" (the libraries a planned
    torch CUDA wheel puts beside it, as the loader will look for them)."""
    from gpudoctor.matrix import load_matrix
    from gpudoctor.planner.effects import apply, enrich
    from gpudoctor.planner.plan_state import State

    s = State(enrich(_machine("p100-driver510-torch-cu121").facts), load_matrix())
    variant = pin.rpartition("+")[2]
    apply(s, classify(Cmd(("/usr/bin/python3", "-m", "pip", "install", pin, "--index-url", f"https://x/whl/{variant}"))))
    (wheel,) = s.facts.frameworks.torch.value.lib_dirs
    major = cudart.split(".")[2]
    assert wheel.names[:3] == (cudart, f"libcublas.so.{major}", f"libcublasLt.so.{major}")


def test_after_an_ld_library_path_step_rpath_copies_still_load_first_and_runpath_ones_after():
    """effects.py _loader_path: "each framework's resolutions re-ordered as ld.so searches (RPATH copies first, then
    LD_LIBRARY_PATH, then the rest: gpudoctor.loader.search_order)": cuDNN found by libtorch_cuda.so's RPATH keeps
    loading from there; cuBLAS, found by its RUNPATH, now loads from the directory the step adds."""
    from dataclasses import replace

    from gpudoctor.facts import FrameworkLoading, LibDir, LibraryCopy, LibraryResolution, LoadingFacts
    from gpudoctor.matrix import load_matrix
    from gpudoctor.planner.effects import apply, enrich
    from gpudoctor.planner.plan_state import State

    wheel, toolkit = "/usr/lib/python3/dist-packages/nvidia", "/usr/local/cuda-12.1/lib64"
    rpath, runpath = "RPATH of libtorch_cuda.so", "RUNPATH of libtorch_cuda.so"
    cudnn = LibraryResolution("libcudnn.so.8", f"{wheel}/cudnn/lib/libcudnn.so.8", rpath,
                              copies=(LibraryCopy(f"{wheel}/cudnn/lib/libcudnn.so.8", rpath),))  # fmt: skip
    cublas = LibraryResolution("libcublas.so.12", f"{wheel}/cublas/lib/libcublas.so.12", runpath,
                               copies=(LibraryCopy(f"{wheel}/cublas/lib/libcublas.so.12", runpath),))  # fmt: skip
    listed = (LibDir(toolkit, "listed", ("libcudnn.so.8", "libcublas.so.12")),)
    loading = LoadingFacts(None, (), (), listed, (FrameworkLoading("torch", (), (cudnn, cublas)),))
    s = State(enrich(replace(_machine("p100-driver510-torch-cu121").facts, loading=loading)), load_matrix())
    apply(s, classify(SetEnv("LD_LIBRARY_PATH", toolkit)))
    assert not s.out
    got = {r.soname: r for r in s.facts.loading.of("torch").loads}
    assert [(c.path, c.via) for c in got["libcudnn.so.8"].copies] == [
        (f"{wheel}/cudnn/lib/libcudnn.so.8", rpath),
        (f"{toolkit}/libcudnn.so.8", "LD_LIBRARY_PATH"),
    ]
    assert (got["libcudnn.so.8"].path, got["libcudnn.so.8"].via) == (f"{wheel}/cudnn/lib/libcudnn.so.8", rpath)
    assert [(c.path, c.via) for c in got["libcublas.so.12"].copies] == [
        (f"{toolkit}/libcublas.so.12", "LD_LIBRARY_PATH"),
        (f"{wheel}/cublas/lib/libcublas.so.12", runpath),
    ]
    assert (got["libcublas.so.12"].path, got["libcublas.so.12"].via) == (f"{toolkit}/libcublas.so.12", "LD_LIBRARY_PATH")


# --- what each step kind needs first, one need at a time on one recorded machine --------------------------

_PY = "/usr/bin/python3"  # p100-driver510-torch-cu121's interpreter: Ubuntu 22.04, Python 3.10, not a container


def _unmet(facts, *lines, where: str = "") -> list[str]:
    from gpudoctor.planner.prescribe import Prescription, Step

    step = Step("driver", ("x",), tuple(lines), ("framework-driver-too-old",), Severity.ERROR, False, where)
    report = _machine("p100-driver510-torch-cu121")
    got = consequences(Prescription((step,)), facts, report.findings, _rediagnose)
    return [v.reason for v in got.of_kind("unmet-precondition")]


def _facts(**platform):
    from dataclasses import replace

    facts = _machine("p100-driver510-torch-cu121").facts
    return replace(facts, platform=replace(facts.platform, **platform)) if platform else facts


@pytest.mark.parametrize(
    ("facts", "lines", "where", "unmet"),
    [
        # the person: inside a container the kernel is the host's; WSL's driver is Windows'; a cluster job has no root
        (dict(container="docker"), (Cmd(("ubuntu-drivers", "install"), root=True),), "", "inside a docker container"),
        (dict(container="docker"), (Cmd(("ubuntu-drivers", "install"), root=True),), "the host", None),
        (dict(wsl=2), (Cmd(("modprobe", "nvidia"), root=True),), "", "WSL uses the Windows driver"),
        (dict(env={"SLURM_JOB_ID": "7"}), (Cmd(("apt-get", "update"), root=True),), "", "a cluster job has no root"),
        # the tool: dnf is not Ubuntu's; a Windows program on Linux
        ({}, (Cmd(("dnf", "install", "-y", "nvidia-open"), root=True),), "", "dnf is not on ubuntu"),
        ({}, (Cmd(("Restart-Computer",), root=True),), "", "Restart-Computer is a Windows program"),
        # what comes first: the repository added and read, the download before an offline install
        ({}, (Cmd(("apt-get", "install", "-y", "cuda-toolkit-12-1"), root=True),), "", "no earlier step adds it"),
        (
            {},
            (
                Cmd(("wget", "https://example.invalid/cuda-keyring_1.1-1_all.deb")),
                Cmd(("dpkg", "-i", "cuda-keyring_1.1-1_all.deb"), root=True),
                Cmd(("apt-get", "install", "-y", "cuda-toolkit-12-1"), root=True),
            ),
            "",
            "no package-index update after",
        ),
        (
            {},
            (
                Cmd(("wget", "https://example.invalid/cuda-keyring_1.1-1_all.deb")),
                Cmd(("dpkg", "-i", "cuda-keyring_1.1-1_all.deb"), root=True),
                Cmd(("apt-get", "update"), root=True),
                Cmd(("apt-get", "install", "-y", "cuda-toolkit-12-1"), root=True),
                Cmd(("gpudoctor", "switch-cuda", "12.1"), root=True),
            ),
            "",
            None,
        ),
        ({}, (Cmd(("dpkg", "-i", "cuda-keyring_1.1-1_all.deb"), root=True),), "", "is not downloaded by an earlier"),
        # any apt-get install reads the package index, which the recording does not hold: an update comes first (its
        # twins: apt-get update before it, and apt's update, which reads the same index)
        ({}, (Cmd(("apt-get", "install", "-y", "python3-venv"), root=True),), "", "no package-index update (apt-get update)"),
        (
            {},
            (Cmd(("apt-get", "update"), root=True), Cmd(("apt-get", "install", "-y", "python3-venv"), root=True)),
            "",
            None,
        ),
        ({}, (Cmd(("apt", "update"), root=True), Cmd(("apt-get", "install", "-y", "gcc-10"), root=True)), "", None),
        # a recursive removal names its folder from anywhere: relative, it depends on the shell's directory (twins: under
        # the home directory, absolute, and a relative file removed without -r)
        ({}, (Cmd(("rm", "-rf", "./.triton/cache")),), "", "removes ./.triton/cache, a path relative to"),
        ({}, (Cmd(("rm", "-r", "--", "build")),), "", "removes build, a path relative to"),
        ({}, (Cmd(("rm", "-rf", "~/.triton/cache")),), "", None),
        ({}, (Cmd(("rm", "-rf", "/home/u/repo/build")),), "", None),
        ({}, (Cmd(("rm", "-f", "nohup.out")),), "", None),
        (
            {},
            (Cmd((_PY, "-m", "pip", "install", "--no-index", "--find-links", "d", "torch==2.2.1+cu118")),),
            "",
            "not downloaded into d",
        ),
        ({}, (Cmd(("gpudoctor", "switch-cuda", "11.8"), root=True),), "", "no CUDA 11.8 toolkit is installed"),
        # the release is served for this Python (the matrix: torch 1.8 wheels end at Python 3.9), and this build
        ({}, (Cmd((_PY, "-m", "pip", "install", "torch==1.8.1+cu111")),), "", "has no wheel for Python 3.10"),
        ({}, (Cmd((_PY, "-m", "pip", "install", "torch==2.2.1+cu102")),), "", "has no cu102 build"),
        ({}, (Cmd(("/opt/other/bin/python", "-m", "pip", "install", "torch==2.2.1+cu118")),), "", "not the environment's"),
    ],
)
def test_each_need_is_met_or_said(facts, lines, where, unmet):
    reasons = _unmet(_facts(**facts), *lines, where=where)
    if unmet is None:
        assert reasons == []
    else:
        assert any(unmet in r for r in reasons), reasons


if __name__ == "__main__":  # python -m tests.spec.test_consequences: today's violations, as KNOWN entries to review
    for case in CASES:
        for v in _violations(case):
            what = v.codes[0] if v.codes else " ".join(v.command.split()[: 4 if v.command.startswith("sudo") else 3])
            print(f"    Known({case!r}, {v.step}, {v.kind!r}, {what!r}, {v.reason!r}),")
        for s, v in alternative_violations(case):
            what = v.codes[0] if v.codes else " ".join(v.command.split()[: 4 if v.command.startswith("sudo") else 3])
            print(f"    # alternative: Known({case!r}, {s}, {v.kind!r}, {what!r}, {v.reason!r}),")


def test_any_argument_vector_is_read_or_called_other_and_any_plan_is_judged():
    """Commands are data the model reads back: no argument vector makes it raise, and every plan of them is judged."""
    import random

    from gpudoctor.planner.prescribe import Prescription, Step

    words = [
        "python",
        "-m",
        "pip",
        "install",
        "uninstall",
        "download",
        "conda",
        "create",
        "run",
        "-n",
        "env",
        "config",
        "vars",
        "set",
        "apt-get",
        "apt-mark",
        "hold",
        "dnf",
        "module",
        "-y",
        "docker",
        "restart",
        "gpudoctor",
        "switch-cuda",
        "nvidia-smi",
        "mig",
        "-cgi",
        "reg",
        "delete",
        "/v",
        "--index-url",
        "--dest",
        "--find-links",
        "--no-index",
        "--no-deps",
        "--no-binary",
        "torch==2.2.1+cu118",
        "torch==2.7.*",
        "jax[cuda12]==0.4.38",
        "nvidia-cudnn-cu12==9.1.0.70",
        "torchvision",
        "python=3.10",
        "cuda-toolkit-12-1",
        "libcudnn8=8.*-1+cuda11.*",
        "printf",
        "tee",
        "dpkg",
        "-i",
        "reboot",
        "modprobe",
        "=",
        "==",
        "x[",
    ]
    rng = random.Random(27)
    report = _machine("p100-driver510-torch-cu121")
    lines = []
    for _ in range(3000):
        argv = tuple(rng.choice(words) for _ in range(rng.randint(1, 8)))
        line = Cmd(argv, root=rng.random() < 0.3, pipe=("sudo", "tee", "/etc/modprobe.d/x.conf") if rng.random() < 0.1 else ())
        assert classify(line).kind  # every vector is some kind ("other" when no model has it)
        lines.append(line)
    for i in range(0, 600, 6):
        step = Step("torch", ("x",), tuple(lines[i : i + 6]), ("framework-driver-too-old",), Severity.ERROR)
        got = consequences(Prescription((step,)), report.facts, report.findings, _rediagnose)
        assert {v.kind for v in got.violations} <= set(KINDS)


def test_what_is_not_recorded_is_counted_not_assumed():
    from gpudoctor.planner.prescribe import Prescription, Step

    report = _machine("p100-driver510-torch-cu121")
    lines = (Cmd(("uv", "pip", "install", "torch==2.2.1+cu118")), Cmd(("apt-get", "install", "-y", "cuda-drivers"), root=True))
    step = Step("torch", ("x",), lines, ("framework-driver-too-old",), Severity.ERROR)
    got = consequences(Prescription((step,)), report.facts, report.findings, _rediagnose)
    reasons = [v.reason for v in got.of_kind("unmodelled")]
    assert any("whether uv is there" in r for r in reasons)
    assert any("cuda-drivers: the driver version it installs" in r for r in reasons)


@pytest.mark.parametrize(
    ("requirement", "after", "unmet"),
    [
        # The extra brings NVIDIA's wheels of the release's CUDA and cuDNN (compat_matrix/tensorflow.toml sonames).
        ("tensorflow[and-cuda]==2.16.*", (), None),
        ("tensorflow[and-cuda]==2.11.*", ("cudnn-missing", "framework-cuda-libs-missing"), "has no [and-cuda] extra"),
    ],
)
def test_a_tensorflow_with_its_cuda_wheels(requirement, after, unmet):
    report = _machine("rtx3060-tf211-cuda12-only")  # TensorFlow 2.11 from pip, only CUDA 12 libraries on the machine
    rem = Remediation("tf", (Cmd((_PY, "-m", "pip", "install", requirement)),), component="tensorflow")
    plan, findings = _plan(report, rem, codes=("framework-cuda-libs-missing",))
    got = consequences(plan, report.facts, findings, _rediagnose)
    assert {f.code for f in report.findings} == {"cudnn-missing", "framework-cuda-libs-missing"} and got.after == after
    reasons = [v.reason for v in got.of_kind("unmet-precondition")]
    assert (any(unmet in r for r in reasons)) if unmet else reasons == []


def test_the_hook_turns_an_unmet_source_into_the_query_that_decides_it():
    report = _machine("rtx3060-tf211-cudnn80-too-old")  # Ubuntu: apt's own query says whether a source serves it
    lines = (Cmd(("apt-get", "install", "-y", "libcudnn8=8.*-1+cuda11.*"), root=True),)
    plan, findings = _plan(report, Remediation("cudnn", lines, requires_root=True, component="cudnn"), codes=("cudnn-too-old",))
    got = consequences(plan, report.facts, findings, _rediagnose)
    assert [(n, c.words) for n, c in got.deciders] == [(1, ("apt-cache", "policy", "libcudnn8"))]
    assert got.to_json()["deciders"] == [{"step": 1, "command": "apt-cache policy libcudnn8"}]
    revised, after = revise(plan, report.facts, findings, _rediagnose)
    assert [c.words for c in revised.steps[0].commands] == [("apt-cache", "policy", "libcudnn8")]
    assert revised.steps[0].summaries[0].startswith("Cannot decide") and not after.of_kind("unmet-precondition")


def test_a_cudnn_package_of_nvidias_repository_lands_in_the_loaders_cache():
    from dataclasses import replace

    from gpudoctor.probed import Found

    report = _machine("rtx3060-tf211-cuda12-only")  # TensorFlow 2.11 without cuDNN 8; its snapshot has no ldconfig
    lines = (
        Cmd(("wget", "https://example.invalid/cuda-keyring_1.1-1_all.deb")),
        Cmd(("dpkg", "-i", "cuda-keyring_1.1-1_all.deb"), root=True),
        Cmd(("apt-get", "update"), root=True),
        Cmd(("apt-get", "install", "-y", "libcudnn8=8.*-1+cuda11.*"), root=True),
    )
    plan, findings = _plan(report, Remediation("cudnn", lines, requires_root=True, component="cudnn"), codes=("cudnn-missing",))
    got = consequences(plan, report.facts, findings, _rediagnose)
    assert "cudnn-missing" in got.after and any("cache was not recorded" in v.reason for v in got.of_kind("unmodelled"))
    cached = replace(report.facts, ldconfig=Found({"libcudart.so.12": ("/usr/local/cuda-12.2/lib64/libcudart.so.12",)}, "test"))
    got = consequences(plan, cached, findings, _rediagnose)
    # The newest cuDNN 8 for CUDA 11 (8.9.7, the matrix) in the Debian library directory: TensorFlow loads it.
    assert "cudnn-missing" in got.before and "cudnn-missing" not in got.after
    assert not [v for v in got.violations if v.kind != "unmodelled"]


# --- what the recorded text cannot decide: the step says what decides it (issue 27) ---------------------------


def test_a_pasted_step_without_a_command_says_what_decides_it():
    from gpudoctor.pipeline import CheckRequest, check
    from gpudoctor.planner.deciders import DEFERS

    # "found version 11060": the driver supports CUDA 11.6; which PyTorch, and how it was installed, was not shown.
    got = result("pasted:chatglm3-100-driver-found-11060")
    assert got.holds and got.undecided == ("framework-driver-too-old",)
    (step,) = check(ReplayHost(_snapshot("pasted:chatglm3-100-driver-found-11060")), CheckRequest()).plan.steps
    assert [c.words for c in step.commands] == [
        ("nvidia-smi",),
        ("python3", "-m", "torch.utils.collect_env"),
        ("python3", "-m", "pip", "list"),
        ("cat", "/etc/os-release"),  # the distribution decides the driver's packages (h129)
    ]
    assert {classify(c).kind for c in step.commands} == {"inspect"} and step.summaries[0].endswith(DEFERS)


def test_where_the_paste_shows_the_framework_and_the_drivers_cuda_a_command_is_printed():
    from dataclasses import replace

    from gpudoctor.pasted.ask import ask_for
    from gpudoctor.planner.deciders import with_deciders

    # The same paste with PyTorch 2.2.1+cu121 known (as `python -m torch.utils.collect_env` would show it): the
    # build this driver runs, for the user; the driver upgrade offered to whoever administers the machine.
    pasted = diagnose(ReplayHost(_snapshot("pasted:chatglm3-100-driver-found-11060"))).facts
    known = _machine("p100-driver510-torch-cu121").facts.frameworks
    facts = replace(pasted, frameworks=replace(pasted.frameworks, torch=known.torch, python=known.python))
    found = run_checks(facts)[0]
    findings = with_deciders(found, [a.command for a in ask_for(facts, found)])
    (step,) = build(findings).steps
    (install,) = [classify(c) for c in step.commands]
    assert (install.kind, install.requirements[0].name, install.requirements[0].version) == (
        "pip-install",
        "torch",
        "2.2.1+cu118",
    )
    assert [a.remediation.component for a in step.alternatives] == ["driver"]
    got = consequences(build(findings), facts, findings, _rediagnose)
    assert not got.undecided and not [v for v in got.violations if v.kind != "unmodelled"]


# The steps that defer with a concrete deciding command (all of their commands read and print): counted, not failed.
# 31 today: 30 in 29 pasted cases (their text does not show the framework's build, the driver or the installer; 31
# before jax-24901 got the jax[cuda12] fix its paste decides), and the recorded Slurm job that asked for no GPU (its
# step runs nvidia-smi in a job step that holds one: that decides). 30 since h74: pytorch-6515's GPU is below every
# PyTorch build, so its step names the CPU or another GPU and asks nothing (in KNOWN, as a hardware step). 29 since
# h75: pasted wsl-9166 decides now (its Linux driver package named: removed). 28 since h106: pasted pytorch-32369's
# conda CPU build gets conda's own fix (cpuonly out first) rather than a step deferring to nvidia-smi alone. 29 since
# h126: pasted pipenv-3548 (a TensorFlow that wants CUDA 9 libraries, the release not shown) defers to its reads, asked
# through `pipenv run`. 30 since h138: the recorded yuan2 container's host driver upgrade defers to the host's
# /etc/os-release (gpudoctor.planner.deciders.with_host_release), which its snapshot cannot read.
# 29 since h148: pasted fooocus-1313's driver step no longer defers to /etc/os-release: a line of its paste names
# Ubuntu 22.04, so `ubuntu-drivers install` is printed. 28 since h153: pasted nvidia-docker-365's kernel release
# (3.13.0-116-generic #163-Ubuntu) names Ubuntu (gpudoctor.pasted.distro_traces), so its driver step is printed too.
# 30 since h173: two of its new pasted cases defer a step to a deciding command, as the code before it did too
# (trax-302's framework-cpu-build, whose JAX CUDA build waits for nvidia-smi; yolov5-2389's framework-driver-too-old,
# whose driver step waits for the distribution and GPU it asks for).
# 33 at the session's merge of h168-h175: h171's comfyui-4297 and ultralytics-1981 and h173's sdnext-4232 each defer one
# step to a deciding command (the GPU and driver for a torch build; the JetPack release for an image tag).
# 34 after h183: its new pasted netv-42 (a program's stated driver floor, 570, over the 550 shown) defers the driver
# step to the distribution the paste does not show.
# 33 since Ubuntu is read from a package's version: pasted verba-72's GCC line (9.4.0-1ubuntu1~20.04.2) names Ubuntu
# 20.04, so its driver step is printed (`ubuntu-drivers install`) instead of deferring to /etc/os-release.
# 34 after h269: its new pasted ccminer-149 (the loader's libcudart.so.9.0 missing, nothing else shown) defers the
# libraries' step to the commands that find them, as every such paste does; 33 after h270: pasted pytorch-31319's
# K40c (named in its prose) is below every PyTorch build in the matrix, so its step names the CPU or another GPU (the
# K80 beside it) and defers to no read (in KNOWN, as a hardware step).
# 32 after h277: ccminer-149's loader message at a native program's start now prints the step that finds libcudart.so.9.0
# and puts its directory on LD_LIBRARY_PATH (checks.reported._native_program_lib_dir) instead of deferring to the finds.
# 40 after h279 (8 more, none a new step): docker's listings (docker images, ps, info) and a throwaway container running
# ldd --version are read as reads (gpudoctor.planner.actions), so five container-no-gpu steps whose `docker run --gpus
# all <image>` waits for the image `docker images` lists, and three extension-glibc-too-old steps that ask a newer
# image's C library, defer to those reads where they were counted unmodelled.
# 41 after h280: its new pasted voxelnet-tf-19 (cuDNN 7 loaded by a TensorFlow 1.4 built for cuDNN 6, on CUDA 8)
# defers to the reads that show where TensorFlow loads cuDNN: every release built for cuDNN 7 needs CUDA 9.
# 42 after h289: `id -un` is a read (gpudoctor.planner.actions), so real a1111-opensuse's device-nodes step, whose
# `usermod -aG video <user>` waits for the user's name, defers to it where it was counted unmodelled.
# 44 after h291: its new pasted tensorrt-3061 (libcublas.so.11 missing, the framework's CUDA not shown) and wan2gp-1513
# (cublasLt64_12.dll missing on Windows, the toolkit's folder not shown) defer their step to the commands that find the
# library, as every such paste does.
# 47 after h299: its three new pasted cases defer their step to the reads that decide it: deeplivecam-1063 and
# pulidflux2-5 (a cuBLAS DLL cuDNN 8 itself could not locate: which cuDNN PATH finds first decides, where.exe) and
# comfyui-989 (torch's caffe2_nvrtc.dll failing with error 126: the release and the copies of what it links decide).
# 41 after h300 (3 fewer): tensorrt-3061, tensorflow-56413 and tensorflow-42199's missing library is looked for and the
# first copy's directory exported (gpudoctor.checks.library_copy) instead of deferring to the finds.
# 44 with both merged.
# 46 after h304: its new pasted pytorch-5369 and t2f-6 (PyTorch's integer cuDNN check: the cuDNN that loads is older
# than the one torch was built with, where it comes from not shown) defer their step to the reads that find the copy
# that loads first, as every such paste does.
# 45 after h303: tensorrt-3061's libcublas.so.11 defers to the reads again (no CUDA of the machine or a framework
# shown: which package asks for that major is open, gpudoctor.checks.library_copy.a_copy_may_fix).
# 47 with both merged.
# 46 after h311: pasted rpg-open-remode-9 names Linux Mint, whose driver is Ubuntu's archive's
# (gpudoctor.planner.remedy.ubuntu_archive): its driver step prints `ubuntu-drivers install` and the reboot instead of
# deferring to /etc/os-release.
# 45 after h308 (2 fewer): comfyui-4297 and sdnext-4232 (a CPU-only PyTorch, neither its version nor a driver shown) get
# the newest release whose companions the matrix pins, in its CUDA build that asks least of the driver, with the
# assumption said and nvidia-smi and pip show torch first (gpudoctor.checks.frameworks._assumed_release_build).
# 46 after h310: gcbfplus-1's cuDNN older than JAX's build installs the cuDNN wheel of the build's CUDA major (JAX's
# cuDNN 8.9 builds are CUDA 12 ones) and puts it first on LD_LIBRARY_PATH (gpudoctor.checks.cudnn_wheel) instead of
# deferring to the reads.
# 43 with the three merged.
# 44 after h314: its new pasted colabtools-1773 (a torch newer than a Colab VM's driver, its version not shown) gets the
# hosted notebook's step (checks.reported._hosted_notebook_driver): the driver is the platform's, so the step reads the
# driver's CUDA and the installed torch's before the build for that CUDA is chosen, where it printed a driver upgrade.
UNDECIDED = 44


def test_the_steps_that_defer_are_counted():
    undecided = sum(len(result(case).undecided) for case in CASES)
    assert undecided == UNDECIDED, f"{undecided} steps defer with a deciding command (UNDECIDED)"


def test_a_torch_moved_across_cuda_majors_takes_the_old_majors_wheels_away_after_the_new_build_is_in():
    got = result("machine:p100-driver510-torch-cu121")  # torch 2.2.1+cu121 with nvidia-*-cu12 wheels; driver 510 (CUDA 11.6)
    assert "nvidia-wheels-conflict" not in got.after and not [v for v in got.violations if v.kind != "unmodelled"]
    report = _machine("p100-driver510-torch-cu121")
    step = build(report.findings).step("torch")
    assert step is not None
    acts = [classify(c) for c in step.commands]
    assert [(a.kind, "--force-reinstall" in a.flags) for a in acts] == [
        ("pip-install", False),
        ("pip-uninstall", False),
        ("pip-install", True),
    ]
    # only the installed distributions of the old major, none of the new build's; the same build installed both times
    assert [r.name for r in acts[1].requirements] == sorted(
        n for n in report.facts.frameworks.nvidia_wheels if n.endswith("-cu12")
    )
    assert acts[0].requirements == acts[2].requirements and acts[0].requirements[0].version == "2.2.1+cu118"


def test_native_windows_tensorflow_brings_its_dlls_with_conda_or_takes_wsl_where_no_conda_is_there():
    # Anaconda's Python: TensorFlow's documented 2.10 route, conda-forge's CUDA 11.2 and cuDNN 8.1 first, in this environment.
    got = result("real:tf212-windows-native-rtx2060")
    assert "windows-dll-missing" not in got.after and not [v for v in got.violations if v.kind != "unmodelled"]
    report = diagnose(ReplayHost(_snapshot("real:tf212-windows-native-rtx2060")))
    (step,) = build(report.findings, "powershell").steps
    acts = [classify(c) for c in step.commands]
    assert [a.kind for a in acts] == ["conda-install", "pip-install"]
    assert (acts[0].dest, acts[0].packages) == ("C:/Users/user/anaconda3", ("cudatoolkit=11.2", "cudnn=8.1"))
    # No conda seen: no conda command, no TensorFlow 2.10 without its DLLs; WSL 2 first, as TensorFlow's page advises.
    for case in ("machine:windows-rtx3080-tensorflow215", "real:tf212-windows-native-gtx1050ti"):
        report = diagnose(ReplayHost(_snapshot(case)))
        (step,) = build(report.findings, "powershell").steps
        assert [c.words for c in step.commands] == [("wsl", "--install")], case
        assert not [v for v in result(case).violations if v.kind != "unmodelled"], case


def test_a_no_deps_torch_without_a_driver_seen_is_put_back_as_the_same_build():
    # PyTorch 2.1.2+cu118 installed with --no-deps, no GPU or driver recorded: its build is known, so nothing is guessed.
    got = result("real:era3d-tinycudann-nvcc120-torch212-cu118")
    assert "framework-cuda-libs-missing" in got.before and "framework-cuda-libs-missing" not in got.after
    report = diagnose(ReplayHost(_snapshot("real:era3d-tinycudann-nvcc120-torch212-cu118")))
    step = build(report.findings).step("torch")
    assert step is not None
    (a,) = [classify(c) for c in step.commands]
    assert (a.kind, a.requirements[0].version, a.index, "--force-reinstall" in a.flags) == (
        "pip-install",
        "2.1.2+cu118",
        "https://download.pytorch.org/whl/cu118",
        True,
    )


def test_a_cudnn_package_of_nvidias_repository_comes_after_the_repository_is_added():
    report = diagnose(ReplayHost(_snapshot("real:jax046-cuda11-cudnn86-no-libcudnn")))  # Ubuntu 22.04, x86_64
    step = build(report.findings).step("cudnn")
    assert step is not None
    assert [classify(c).kind for c in step.commands] == ["inspect", "repo-add", "pkg-update", "pkg-install", "pkg-hold"]
    assert not result("real:jax046-cuda11-cudnn86-no-libcudnn").of_kind("unmet-precondition")


@pytest.mark.parametrize("spelled", ["Flash_Attn==2.7.3", "flash.attn==2.7.3", "FLASH-ATTN==2.7.3"])
def test_a_pip_requirement_is_named_by_its_canonical_name(spelled):
    # actions.Requirement's name is PEP 503's canonical form (lower case, runs of -_. as one -), so a step that
    # installs Flash_Attn is seen to move flash-attn, the name the companion rules and the effects model use.
    from gpudoctor.planner.actions import classify

    (req,) = classify(Cmd(("python", "-m", "pip", "install", spelled))).requirements
    assert (req.name, req.op, req.version) == ("flash-attn", "==", "2.7.3")


@pytest.mark.parametrize(("flags", "left"), [((), ()), (("--no-deps",), ("nccl-too-old",))])
def test_a_torch_of_a_build_whose_pins_were_read_brings_its_nvidia_wheels_at_their_pins(flags, left):
    # torch 2.2.0+cu121 beside nvidia-nccl-cu12 2.18.1; torch 2.2.1's PyPI build pins 2.19.3 (compat_matrix/torch.toml
    # nvidia_pins): pip moves every pinned wheel with it, unless --no-deps, when the older NCCL stays below the pin.
    report = _machine("rtx4090-torch220-nccl2181-ncclcommregister")
    rem = Remediation("torch", (Cmd(("/usr/bin/python3", "-m", "pip", "install", *flags, "torch==2.2.1")),), component="torch")
    plan, findings = _plan(report, rem, codes=("nccl-too-old",))
    got = consequences(plan, report.facts, findings, _rediagnose)
    assert "nccl-too-old" in got.before and got.after == left
    assert not [v for v in got.of_kind("unmodelled") if "NVIDIA wheels" in v.reason]


def test_an_alternative_moving_torch_to_another_cuda_major_skips_the_steps_planned_for_the_old_one():
    # Step 2 installs a CUDA 12.1 toolkit for torch 2.3.1+cu121, or instead moves torch to a cu130 build; step 3 installs
    # the cuDNN wheel of CUDA 12 for the cu121 build. Taking the alternative skips step 3: the cu130 build brings its
    # own cuDNN wheel, and the CUDA 12 one beside it would mix two majors in one nvidia/ directory.
    case = "machine:build-machine-job-maps-another-cudart"
    report = diagnose(ReplayHost(_snapshot(case)))
    plan = build(report.findings)
    (alt,) = plan.steps[1].alternatives
    assert (plan.steps[2].component, alt.replaces) == ("cudnn", ("cudnn",))
    assert alt.to_json()["replaces"] == ["cudnn"]
    ((step, code, got),) = alternatives(plan, report.facts, report.findings, _rediagnose)
    # what step 3 answered is the alternative's to answer: cudnn-missing is gone, nothing breaks
    assert (step, code, got.after) == (2, "toolkit-torch-major-mismatch", ("gpu-none",))
    assert "cudnn-missing" in got.before and [v.kind for v in got.violations if v.kind != "unmodelled"] == []
    assert got.no_environment_fix == ("gpu-none",)  # the machine has no GPU: step 1 is other hardware


@pytest.mark.parametrize(
    ("case", "code"),
    [
        # torch 2.7.1+cu118 for an RTX 3090 (sm_86) whose paste quotes the old build's arch list (sm_37 ... sm_75)
        ("pasted:cryodrgn-91-rtx3090-sm86-torch-sm75", "framework-arch-unsupported"),
        # torch 2.11.0+cu128 for an RTX 5090 (sm_120), whose paste quotes torch 2.0.1+cu118's warning
        ("pasted:deepprep-233-rtx5090-torch201-cu118", "framework-arch-unsupported"),
        # jax[cuda12]==0.4.32 where the paste quotes JAX falling back to the CPU (a conda jaxlib without CUDA)
        ("pasted:jaxlib-feedstock-285-conda-jaxlib-falls-back-to-cpu", "framework-cpu-build"),
    ],
)
def test_a_moved_framework_no_longer_prints_what_the_paste_quotes_of_the_old_build(case, code):
    got = result(case)
    assert code in got.before and code not in got.after
    assert not [v for v in got.violations if code in v.codes]


def test_the_hook_taking_an_alternative_drops_the_steps_it_replaces():
    from gpudoctor.planner.prescribe import Alternative, Prescription, Step

    report = _machine("p100-driver510-torch-cu121")  # torch 2.2.1+cu121 on a driver for CUDA 11.6
    py = "/usr/bin/python3"
    wheel = Step("cudnn", ("x",), (Cmd((py, "-m", "pip", "install", "nvidia-cudnn-cu12==8.9.2.26")),), (), Severity.WARNING)
    planned = build(report.findings).step("torch")  # the cu118 build, the CUDA 12 wheels out, the build reinstalled
    assert planned is not None
    alt = Alternative("framework-driver-too-old", Remediation("torch cu118", planned.commands, component="torch"), ("cudnn",))
    reboot = Step("torch", ("x",), (Cmd(("reboot",), root=True),), ("framework-driver-too-old",), Severity.ERROR, True,
                  alternatives=(alt,))  # fmt: skip
    revised, after = revise(Prescription((wheel, reboot)), report.facts, report.findings, _rediagnose)
    # the reboot activates nothing (unmet); the cu118 build answers the error and brings its own wheels: the CUDA 12
    # cuDNN step planned for the cu121 build goes with it
    assert [(s.component, s.commands) for s in revised.steps] == [("torch", planned.commands)]
    assert "framework-driver-too-old" not in after.after and not after.of_kind("unmet-precondition")


def test_the_same_build_installed_again_prints_what_the_paste_quotes_again():
    from dataclasses import replace

    from gpudoctor.facts import TorchFacts
    from gpudoctor.probed import Found

    case = "pasted:cryodrgn-91-rtx3090-sm86-torch-sm75"  # the paste quotes an arch list without sm_86
    report = diagnose(ReplayHost(_snapshot(case)))
    (step,) = build(report.findings).steps
    (install,) = [classify(c) for c in step.commands]
    version = install.requirements[0].version  # the build the plan installs: 2.7.1+cu118
    for installed, left in (("2.0.1+cu118", ()), (version, ("framework-arch-unsupported",))):
        torch = Found(TorchFacts(installed, "11.8", None, "", (), True), "test")
        facts = replace(report.facts, frameworks=replace(report.facts.frameworks, torch=torch))
        got = consequences(build(report.findings), facts, report.findings, _rediagnose)
        assert got.after == left, installed


def test_a_reboot_that_no_driver_install_precedes_boots_into_no_driver():
    """tests/blind/plans10/cases/1004 (nouveau holds a laptop's RTX 3050, no NVIDIA driver installed): the plan its
    after-session run printed (after-session.json: Secure Boot read, nouveau blacklisted, the initramfs rebuilt, a reboot)
    boots into no NVIDIA driver, so the model fails that reboot (issue 27, kind 9: the plan's goal is not reached).
    Quiet twin: the plan printed today for the same text, the install before the reboot, holds."""
    import json

    from gpudoctor.pipeline import CheckRequest, check

    case = TESTS / "blind/plans10/cases/1004-cupy8395-ubuntu-laptop-rtx3050-bound-to-nouveau-no-nvidia-driver"
    text = (case / "input.txt").read_text(encoding="utf-8")
    checked = check(ReplayHost(validate_snapshot(read_pasted([Source("input.txt", text)]), "1004")), CheckRequest())
    facts, findings = checked.report.facts, checked.report.findings
    assert [f.code for f in findings] == ["driver-nouveau"]
    got = consequences(checked.plan, facts, findings, _rediagnose)
    assert not [v for v in got.violations if v.kind != "unmodelled"]
    (step,) = json.loads((case / "after-session.json").read_text(encoding="utf-8"))["plan"]["steps"]
    recorded = tuple(Cmd(tuple(c["argv"]), pipe=tuple(c.get("pipe") or ()), root=c["root"]) for c in step["commands"])
    assert [c.argv[0] for c in recorded] == ["mokutil", "printf", "update-initramfs", "reboot"]
    plan, nouveau = _plan(
        None, Remediation("blacklist, reboot", recorded, requires_root=True, component="driver"), codes=("driver-nouveau",)
    )
    unmet = consequences(plan, facts, nouveau, _rediagnose).of_kind("unmet-precondition")
    assert [(v.command, v.reason) for v in unmet] == [
        ("sudo reboot", "reboots into no NVIDIA driver: none is installed, and no earlier step installs one")
    ]


def test_dockers_listings_and_a_throwaway_container_running_a_read_are_reads():
    for argv in (("docker", "images"), ("docker", "ps", "-a"), ("docker", "info", "--format", "{{.CgroupDriver}}"),
                 ("docker", "run", "--rm", "ubuntu:22.04", "ldd", "--version"),
                 ("docker", "run", "--rm", "--gpus", "all", "nvidia/cuda:12.4.1-base-ubuntu22.04", "nvidia-smi")):  # fmt: skip
        assert classify(Cmd(argv)).kind == "inspect", argv
    # A container started to work in (no --rm, or a program that is not a read) is a new container.
    assert classify(Cmd(("docker", "run", "--gpus", "all", "-it", "img:tag"))).kind == "container-run"
    assert classify(Cmd(("docker", "run", "--rm", "-v", "/d:/d", "img:tag", "bash", "train.sh"))).kind == "container-run"
    assert classify(Cmd(("docker", "pull", "img:tag"))).kind == "other"


def _pasted_report(slug: str):
    from gpudoctor.pipeline import CheckRequest, check

    return check(ReplayHost(_snapshot(f"pasted:{slug}")), CheckRequest()).report


_JIT = "stylegan2-pytorch-5-stale-jit-torch-extensions-undefined-symbol"  # /tmp/torch_extensions/fused/fused.so
_IN_TREE = "maskrcnn-benchmark-421-in-tree-c-built-other-torch-undefined-symbol"  # /maskrcnn-benchmark/.../_C...so


def test_a_removed_binary_takes_the_text_it_printed_and_must_be_built_again():
    codes = ("extension-symbol-missing",)
    assert classify(Cmd(("rm", "-rf", "/a/b", "/c"))).packages == ("/a/b", "/c")
    # torch's JIT cache: the program's next load() builds the extension again, no step needed.
    report = _pasted_report(_JIT)
    plan, findings = _plan(report, Remediation("rm", (Cmd(("rm", "-rf", "/tmp/torch_extensions/fused")),)), codes=codes)
    got = consequences(plan, report.facts, findings, _rediagnose)
    assert "extension-symbol-missing" in got.before and "extension-symbol-missing" not in got.after and got.holds
    # A module built in its source tree: removed alone it is gone, and its import fails ...
    report = _pasted_report(_IN_TREE)
    rm = Cmd(("rm", "-rf", "/maskrcnn-benchmark/build", "/maskrcnn-benchmark/maskrcnn_benchmark"))
    plan, findings = _plan(report, Remediation("rm", (rm,)), codes=codes)
    got = consequences(plan, report.facts, findings, _rediagnose)
    assert [v.command for v in got.of_kind("breaks")] == [""] and "no later step builds" in got.of_kind("breaks")[0].reason
    # ... built again by a later install of its tree, it holds.
    again = Cmd(("/usr/bin/python3", "-m", "pip", "install", "--no-build-isolation", "-e", "/maskrcnn-benchmark"))
    plan, findings = _plan(report, Remediation("rm", (rm, again)), codes=codes)
    got = consequences(plan, report.facts, findings, _rediagnose)
    assert not got.of_kind("breaks") and "extension-symbol-missing" not in got.after
    # A removal of a folder no text names: what it takes is not followed, and counted.
    plan, findings = _plan(report, Remediation("rm", (Cmd(("rm", "-rf", "/elsewhere")),)), codes=codes)
    got = consequences(plan, report.facts, findings, _rediagnose)
    assert "extension-symbol-missing" in got.after and [v.command for v in got.of_kind("unmodelled")][:1] == ["rm -rf /elsewhere"]


@pytest.mark.parametrize(("spec", "followed"), [("onnxruntime-gpu==1.22.0", True), ("onnxruntime-gpu", False),
                                                ("numpy<1.27,>=1.20", False)])  # fmt: skip
def test_a_package_without_a_model_of_its_own_is_that_distribution_at_its_pinned_version(spec, followed):
    report = _machine("p100-driver510-torch-cu121")
    step = Remediation("pkg", (Cmd((_PY, "-m", "pip", "install", spec)),), component="environment")
    plan, findings = _plan(report, step)
    got = consequences(plan, report.facts, findings, _rediagnose)
    reasons = [v.reason for v in got.of_kind("unmodelled")]
    if followed:
        assert not any("onnxruntime" in r for r in reasons), reasons
    else:
        assert any("which version pip picks is not modelled" in r for r in reasons), reasons


@pytest.mark.parametrize(
    "slug", ["deepo-112-docker-run-without-gpus-tf-libcuda-so-1-missing", "floydhub-3-docker-run-without-nvidia-runtime"]
)
def test_the_reporters_container_started_again_with_gpus_no_longer_shows_the_missing_gpu(slug):
    got = result(f"pasted:{slug}")
    assert "container-no-gpu" in got.before and "container-no-gpu" not in got.after
    assert not [v for v in got.violations if v.kind != "unmodelled"]
    reasons = [v.reason for v in got.of_kind("unmodelled")]
    assert len(reasons) == 1 and "host has NVIDIA's container runtime" in reasons[0]  # --gpus needs it: not recorded
    # Another image started with --gpus is another container: not followed, the report's finding stays.
    report = _pasted_report(slug)
    other = Remediation("run", (Cmd(("docker", "run", "--gpus", "all", "-it", "some/other:image")),), component="container")
    plan, findings = _plan(report, other, codes=("container-no-gpu",))
    got = consequences(plan, report.facts, findings, _rediagnose)
    assert any("a new container" in v.reason for v in got.of_kind("unmodelled"))


# --- the driver as a plan changes it (gpudoctor.planner.driver_state) -------------------------------------------------

_MISMATCH = ("driver-library-mismatch",)
_FINISH = (Cmd(("dpkg", "--configure", "-a"), root=True), Cmd(("apt-get", "install", "--fix-broken", "-y"), root=True))
_MODINFO = Cmd(("modinfo", "-F", "version", "nvidia"))
_REBOOT = Cmd(("reboot",), root=True)


@pytest.mark.parametrize(
    "case",
    [
        "machine:driver-library-mismatch-after-upgrade",  # module 565.57.01, libraries 550.144: the packages finished
        "real:nvml-mismatch-debian-partial-upgrade",  # module 520.56.06, the libraries' version not shown
        "real:nvml-mismatch-unattended-upgrade-460-slurm-node",
        "pasted:nvidia-docker-182-nvrm-367-44-vs-367-35",  # libraries 367.44 newer than the module 367.35
        "pasted:shine-cluster-30-nvml-mismatch-unattended-upgrade",
        "pasted:ansible-slurm-287-nvrm-api-mismatch-535-530",  # modinfo, then the reboot alone
        "pasted:nvidia-all-394-nvrm-595-84-vs-595-80",
        "pasted:machine-shop-60-nvml-mismatch-reboot",  # neither version shown: modinfo, the reboot
    ],
)
def test_a_finished_driver_upgrade_and_the_reboot_after_it_clear_the_mismatch(case):
    got = result(case)
    assert "driver-library-mismatch" in got.before and "driver-library-mismatch" not in got.after
    assert not got.violations, [(v.kind, v.command, v.reason) for v in got.violations]


def test_the_driver_builds_packages_install():
    from gpudoctor.planner.driver_state import DriverBuild, package_build

    assert package_build("nvidia-utils-565=565.57.01-*", "s") == (DriverBuild("565.57.01", "565", "s"), False)
    assert package_build("libnvidia-compute-565=565.57.01-*", "s") == (DriverBuild("565.57.01", "565", "s"), False)
    # A branch without a pin: the distribution's newest release of that branch, whose version is not known ahead.
    assert package_build("nvidia-driver-535", "s") == (DriverBuild(None, "535", "s"), True)
    assert package_build("nvidia-driver-535-server-open", "s") == (DriverBuild(None, "535", "s"), True)
    assert package_build("cuda-drivers", "s") == (DriverBuild(None, None, "s"), True)
    assert package_build("cuda-toolkit-12-4", "s") is None


def test_libraries_newer_than_the_module_are_loaded_by_the_reboot_after_the_module_on_disk_is_read():
    report = _pasted_report("nvidia-docker-182-nvrm-367-44-vs-367-35")  # libraries 367.44, module 367.35 loaded
    # The packages finished: the libraries are the upgrade's, the module waits for the next boot.
    plan, findings = _plan(report, Remediation("finish", _FINISH, component="driver"), codes=_MISMATCH)
    got = consequences(plan, report.facts, findings, _rediagnose)
    assert "driver-library-mismatch" in got.after and [v.codes for v in got.of_kind("left-error")] == [_MISMATCH]
    plan, findings = _plan(report, Remediation("finish, reboot", (*_FINISH, _REBOOT), component="driver"), codes=_MISMATCH)
    got = consequences(plan, report.facts, findings, _rediagnose)
    assert "driver-library-mismatch" not in got.after and not got.violations
    facts = _after_plan(report, (*_FINISH, _REBOOT))
    assert (facts.kernel.proc_driver.value.version, facts.driver.nvml_driver_version, facts.driver.nvml_status) == (
        "367.44",
        "367.44",
        "ok",
    )
    assert not [e for e in facts.pasted.errors if e.kind == "nvrm-api-mismatch"]  # the new boot does not print it
    # A reboot alone: which module is on disk decides it; the plan that reads it first (modinfo) reboots for the
    # libraries' one, the module an upgrade leaves on disk. Without that read the model does not follow it.
    plan, findings = _plan(report, Remediation("reboot", (_MODINFO, _REBOOT), component="driver"), codes=_MISMATCH)
    assert consequences(plan, report.facts, findings, _rediagnose).after == ()
    plan, findings = _plan(report, Remediation("reboot", (_REBOOT,), component="driver"), codes=_MISMATCH)
    got = consequences(plan, report.facts, findings, _rediagnose)
    assert "driver-library-mismatch" in got.after and got.of_kind("unmodelled") and not got.of_kind("left-error")
    # Reloading the modules (rmmod, modprobe) after the read loads it as the reboot does; loading them again once the
    # module answers changes nothing.
    rmmod = Cmd(("rmmod", "nvidia_uvm", "nvidia_drm", "nvidia_modeset", "nvidia"), root=True)
    modprobe = Cmd(("modprobe", "nvidia"), root=True)
    for cmds in ((_MODINFO, rmmod, modprobe), (*_FINISH, _REBOOT, rmmod, modprobe)):
        plan, findings = _plan(report, Remediation("reload", cmds, component="driver"), codes=_MISMATCH)
        got = consequences(plan, report.facts, findings, _rediagnose)
        assert got.after == () and not got.violations, cmds


def test_a_module_newer_than_the_libraries_is_no_upgrade_a_reboot_completes():
    # The CUDA compatibility package's libcuda 418 under the 440 module: the module on disk is not the libraries'.
    got = result("pasted:tensorflow-38164-cuda-compat-libcuda-418-vs-kernel-440")
    assert "driver-library-mismatch" in got.after
    assert [v.reason for v in got.of_kind("unmodelled")][0] == "loads the kernel module on disk, whose version was not recorded"
    # Finishing the packages there installs the libraries the module's packages depend on: its own version.
    report = _machine("driver-library-mismatch-after-upgrade")  # module 565.57.01, libraries 550.144
    facts = _after_plan(report, _FINISH)
    assert (facts.driver.nvml_driver_version, facts.driver.nvml_status) == ("565.57.01", "ok")


def test_a_driver_the_distribution_chooses_answers_a_missing_driver_but_not_one_too_old():
    # None installed: any NVIDIA driver answers it; its version stays unknown (the branch is chosen on the day).
    for case in (
        "machine:rtx3080-no-driver",
        "machine:rtx3080-nouveau",
        "pasted:nvidia-docker-365-kernel-upgrade-module-missing",
    ):
        got = result(case)
        assert set(got.before) & {"driver-missing", "driver-nouveau"} and got.after == () and not got.violations, case
    facts = _after_plan(_machine("rtx3080-no-driver"), (Cmd(("ubuntu-drivers", "install"), root=True), _REBOOT))
    assert facts.driver.nvml_status == "ok" and facts.driver.version is None
    assert {n.path for n in facts.kernel.device_nodes} >= {"/dev/nvidiactl", "/dev/nvidia0", "/dev/nvidia-uvm"}
    # A driver too old: whether the branch the distribution picks is new enough is not known ahead.
    got = result("pasted:fooocus-1313-driver470-found-11040-rtx3050")
    assert "framework-driver-too-old" in got.after
    assert any("chosen on the day" in v.reason for v in got.of_kind("unmodelled")) and not got.of_kind("left-error")


def _after_plan(report, commands):
    """The facts a plan of `commands` leaves (gpudoctor.planner.effects applied to each)."""
    from gpudoctor.planner.effects import apply, enrich
    from gpudoctor.planner.needs import needs
    from gpudoctor.planner.plan_state import State

    s = State(enrich(report.facts), None)
    s.step = 1
    for line in commands:
        a = classify(line)
        needs(s, a)
        apply(s, a)
    return s.facts


_WHICH_PYTHON = "is the environment's interpreter: the report does not show which it is"


@pytest.mark.parametrize(
    ("slug", "stands"),
    [
        ("cryodrgn-91-rtx3090-sm86-torch-sm75", True),  # no interpreter shown at all
        ("gliner-267-pip-onnxruntime-and-onnxruntime-gpu-both-device-cpu", True),  # the system's site directory only
        ("pytorch-30071-titanxp-torch131-cu101-driver410", True),
        ("mt3-83-colab-jaxlib-0320-newer-than-jax-0315", True),  # Debian's /usr/local/lib/python3.7/dist-packages
        ("pytorch-28321-t4-conda-torch130-cu101-driver410", False),  # a conda environment: python3 is it only activated
        ("pytorch-51858-windows-torch1121-conda-cpu-rtx3060", False),
    ],
)
def test_a_bare_python3_is_the_environments_interpreter_where_the_paste_shows_no_other(slug, stands):
    reasons = [v.reason for v in result(f"pasted:{slug}").of_kind("unmodelled")]
    assert any(_WHICH_PYTHON in r for r in reasons) is not stands, reasons


def test_wsl_listings_id_fuser_command_v_and_module_listings_are_reads():
    for argv in (("wsl", "-l", "-v"), ("wsl", "--list", "--verbose"), ("wsl", "--status"), ("id", "-un"),
                 ("fuser", "-v", "/dev/nvidia0"), ("command", "-v", "huggingface-cli"), ("module", "list"),
                 ("module", "avail", "cuda")):  # fmt: skip
        assert classify(Cmd(argv)).kind == "inspect", argv
    # What changes something stays what it is: WSL's own update and conversion, fuser -k, module load.
    assert classify(Cmd(("wsl", "--update"))).kind == "wsl"
    assert classify(Cmd(("wsl", "--set-version", "Ubuntu", "2"))).kind == "wsl"
    assert classify(Cmd(("fuser", "-k", "/dev/nvidia0"))).kind == "other"
    assert classify(Cmd(("module", "load", "cuda/12.1"))).kind == "other"
