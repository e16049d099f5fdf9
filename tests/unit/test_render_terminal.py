"""The terminal view on whole recorded machines: one line per area, findings with fixes, plain ASCII when needed."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path

import pytest

from gpudoctor.cmdline import shell_for_os
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot
from gpudoctor.model import Report
from gpudoctor.planner.prescribe import build
from gpudoctor.render.terminal import render_terminal
from gpudoctor.render.textconsole import TextConsole

MACHINES = Path(__file__).resolve().parents[1] / "machines"
REAL = Path(__file__).resolve().parents[1] / "real"
EVERY_MACHINE = sorted(MACHINES.glob("*/snapshot.json")) + sorted(REAL.glob("*/snapshot.json"))


class _Terminal(io.StringIO):
    """A captured terminal whose encoding (what it can carry) the test chooses."""

    def __init__(self, encoding: str) -> None:
        super().__init__()
        self._enc = encoding

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._enc


def render(slug: str, verbose: bool = False, encoding: str = "utf-8", width: int = 100) -> str:
    report = diagnose(ReplayHost(load_snapshot(str(MACHINES / slug / "snapshot.json"))))
    out = _Terminal(encoding)
    console = TextConsole(out, width=width, styled=False)
    render_terminal(report, console, verbose=verbose)
    return out.getvalue()


def test_healthy_node():
    text = render("h100x8-driver565-torch221-cu121")
    lines = text.splitlines()
    assert lines[0] == "gpudoctor check (replayed snapshot)"
    assert "✓ GPU: 8 × NVIDIA H100 80GB HBM3" in text
    assert "✓ NVIDIA driver: 565.57.01 (supports CUDA 12.7)" in text
    assert "✓ Frameworks: torch 2.2.1+cu121 (CUDA 12.1) in /usr/bin/python3 (the snapshot)" in text
    # Eight GPUs that say the same are one phrase, not four of them and a silent cut.
    assert "✓ GPU memory: GPUs 0-7: 0.0 GiB of 79.6 GiB used" in text
    assert lines[-1] == "No problems found." or "✓ No problems found." in lines[-1]


def test_findings_carry_fix_commands_unwrapped_and_evidence_with_verbose():
    text = render("p100-driver510-torch-cu121", verbose=True)
    # The title is prose, wrapped at 100 columns with a hanging indent: read it with the wrapping undone.
    assert "✗ PyTorch 2.2.1+cu121 needs CUDA 12.1, which driver 510.47.03 cannot run (framework-driver-too-old)" in " ".join(
        text.split()
    )
    assert "evidence: cmd:nvidia-smi: driver 510.47.03" in text
    # The commands a person types, each whole on its line, in order: install the cu118 build (pip fetches before it
    # replaces anything), remove the CUDA 12 wheels the cu121 build brought, force-reinstall the cu118 build.
    fix = [line.strip() for line in text.splitlines() if "torch==2.2.1+cu118" in line or "-cu12" in line]
    assert fix == [
        "/usr/bin/python3 -m pip install torch==2.2.1+cu118 --index-url https://download.pytorch.org/whl/cu118",
        "/usr/bin/python3 -m pip uninstall -y nvidia-cublas-cu12 nvidia-cuda-runtime-cu12 nvidia-cudnn-cu12",
        "/usr/bin/python3 -m pip install --force-reinstall torch==2.2.1+cu118 --index-url https://download.pytorch.org/whl/cu118",
    ]


def test_ascii_terminal_gets_ascii_glyphs():
    text = render("rtx3080-nouveau", encoding="ascii")
    assert "[X] NVIDIA driver:" in text and "✗" not in text


def test_each_findings_step_pointer_names_the_step_that_answers_it():
    import re

    checked = 0
    for path in sorted(MACHINES.glob("*/snapshot.json")):
        # Wide enough that no heading wraps: this reads the structure, the width tests read the layout.
        text = render(path.parent.name, width=1000)
        plan = text.split("\nPlan", 1)[1] if "\nPlan" in text else ""
        heads = {int(m.group(1)): m.group(2) for m in re.finditer(r"^  (\d+)\. .*?\s(\S+(?:, \S+)*)$", plan, re.M)}
        code = None
        for line in text.split("\nPlan", 1)[0].splitlines():
            title = re.search(r"\(([a-z0-9]+(?:-[a-z0-9]+)+)\)$", line)  # a finding's line ends with its code
            if title:
                code = title.group(1)
            pointer = re.search(r"\(step (\d+) of the plan\)", line)
            if pointer:
                assert code in heads.get(int(pointer.group(1)), ""), (path.parent.name, code, pointer.group(1), heads)
                checked += 1
    assert checked >= 20


def _plan_commands(report: Report) -> set[str]:
    """Every command line the plan prints, as the shell of the machine's system renders it."""
    plan = build(report.findings, shell_for_os(report.facts.platform.system))
    lines: set[str] = set()
    for step in plan.steps:
        lines.update(step.lines(plan.target))
        for alt in step.alternatives:
            lines.update(alt.lines(plan.target))
    return lines


def _render_report(report: Report, width: int, verbose: bool = True, stream: io.TextIOBase | None = None) -> str:
    out = stream if stream is not None else _Terminal("utf-8")
    render_terminal(report, TextConsole(out, width=width, styled=False), verbose=verbose)
    return out.getvalue() if isinstance(out, io.StringIO) else ""


@pytest.mark.parametrize("width", [80, 120])
def test_every_recorded_machine_fits_the_width_and_prints_commands_whole(width):
    prose = wide_commands = 0
    for path in EVERY_MACHINE:
        report = diagnose(ReplayHost(load_snapshot(str(path))))
        commands = _plan_commands(report)
        lines = _render_report(report, width).splitlines()
        stripped = [line.strip() for line in lines]
        for line in lines:
            if line.strip() in commands:
                wide_commands += len(line) > width
            else:
                assert len(line) <= width, (path.parent.name, width, line)
                prose += 1
        # Each command of the plan is on one line of its own, whole, however long.
        for cmd in commands:
            assert cmd in stripped, (path.parent.name, width, cmd)
    assert len(EVERY_MACHINE) >= 70 and prose > 2000
    # Some commands are wider than the terminal, and those were kept whole rather than wrapped.
    assert wide_commands > 0


def test_a_long_process_command_line_is_shortened_in_text_and_whole_in_json():
    report = diagnose(ReplayHost(load_snapshot(str(MACHINES / "gt1030-desktop-memory-held" / "snapshot.json"))))
    held = next(f for f in report.findings if f.code == "gpu-memory-held")
    longest = max((p.name or "" for g in report.facts.driver.gpus for p in g.processes), key=len)
    assert len(longest) > 200 and longest in held.to_json()["detail"]
    text = _render_report(report, 80)
    assert longest not in text and longest[:40] in text and "…" in text


def test_eight_gpus_saying_different_things_end_in_a_count_not_a_silent_cut():
    from gpudoctor.render.terminal import per_gpu

    assert per_gpu([(i, f"{i}.0 GiB used") for i in range(8)]) == (
        "GPU 0: 0.0 GiB used; GPU 1: 1.0 GiB used; GPU 2: 2.0 GiB used; GPU 3: 3.0 GiB used; +4 more GPUs"
    )
    assert per_gpu([(0, "a"), (1, "a"), (2, "b"), (3, "a")]) == "GPUs 0-1, 3: a; GPU 2: b"


def test_identical_per_gpu_findings_are_one_sentence():
    text = render("rtx2070x2-cuda-visible-devices-wrong")
    assert "GPUs 0-1: PCIe link runs below its maximum while idle" in text
    assert "GPU 0's PCIe link" not in text and "GPU 1's PCIe link" not in text
    # Both GPUs' commands stay in the plan.
    assert "nvidia-smi -i 0 --query-gpu" in text and "nvidia-smi -i 1 --query-gpu" in text


def test_driver_cuda_version_comes_from_the_matrix_when_the_machine_did_not_say():
    from gpudoctor.matrix import load_matrix
    from gpudoctor.render.terminal import area_summaries

    report = diagnose(ReplayHost(load_snapshot(str(MACHINES / "h100x8-driver565-torch221-cu121" / "snapshot.json"))))
    facts = replace(report.facts, driver=replace(report.facts.driver, nvml_cuda_version=None, smi_cuda_version=None))
    assert area_summaries(facts)["driver"] == "565.57.01 (supports CUDA ?)"
    assert area_summaries(facts, load_matrix())["driver"] == "565.57.01 (supports CUDA 12.7, by the compatibility matrix)"


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_a_non_utf8_terminal_gets_text_it_can_carry(encoding):
    for slug in ("h100x8-driver565-torch221-cu121", "gt1030-desktop-memory-held", "h100nvl-failing-gpu"):
        report = diagnose(ReplayHost(load_snapshot(str(MACHINES / slug / "snapshot.json"))))
        raw = io.BytesIO()
        stream = io.TextIOWrapper(raw, encoding=encoding, errors="strict")
        _render_report(report, 80, stream=stream)  # a character it cannot carry would raise here
        stream.flush()
        text = raw.getvalue().decode(encoding)
        assert "gpudoctor check" in text
        if slug.startswith("h100x8"):
            assert "8 x NVIDIA H100" in text if encoding == "ascii" else "8 × NVIDIA H100" in text


def test_a_gpu_only_named_in_pasted_text_claims_no_driver_nor_health():
    # A paste that names its GPU in words (NVML status named_in_text): the GPU line says where it came from, the
    # driver and health lines say nothing was shown, without a check mark.
    from gpudoctor.pasted import Source, read_pasted

    snapshot = read_pasted([Source("report.txt", "My graphics card is a Tesla K40m and torch fails to start.\n")])
    out = _Terminal("utf-8")
    render_terminal(diagnose(ReplayHost(snapshot)), TextConsole(out, width=100, styled=False), pasted=True)
    lines = out.getvalue().splitlines()
    assert "✓ GPU: 1 × Tesla K40m (named in the text)" in lines
    assert "- NVIDIA driver: not shown in the text" in lines
    assert "- GPU health: not shown in the text" in lines
    assert not any("reporting" in line or "version not recorded" in line for line in lines)
