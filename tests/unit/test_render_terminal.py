"""The terminal view on whole recorded machines: one line per area, findings with fixes, plain ASCII when needed."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot
from gpudoctor.render.terminal import render_terminal

MACHINES = Path(__file__).resolve().parents[1] / "machines"


class _Terminal(io.StringIO):
    """A captured terminal whose encoding (what it can carry) the test chooses."""

    def __init__(self, encoding: str) -> None:
        super().__init__()
        self._enc = encoding

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._enc


def render(slug: str, verbose: bool = False, encoding: str = "utf-8") -> str:
    report = diagnose(ReplayHost(load_snapshot(str(MACHINES / slug / "snapshot.json"))))
    out = _Terminal(encoding)
    console = Console(file=out, width=100, color_system=None, legacy_windows=False)
    render_terminal(report, console, verbose=verbose)
    return out.getvalue()


def test_healthy_node():
    text = render("h100x8-driver565-torch221-cu121")
    lines = text.splitlines()
    assert lines[0] == "gpudoctor check (replayed snapshot)"
    assert "✓ GPU: 8 × NVIDIA H100 80GB HBM3" in text
    assert "✓ NVIDIA driver: 565.57.01 (supports CUDA 12.7)" in text
    assert "✓ Frameworks: torch 2.2.1+cu121 (CUDA 12.1) in /usr/bin/python3 (the snapshot)" in text
    assert lines[-1] == "No problems found." or "✓ No problems found." in lines[-1]


def test_findings_carry_fix_commands_unwrapped_and_evidence_with_verbose():
    text = render("p100-driver510-torch-cu121", verbose=True)
    assert "✗ PyTorch 2.2.1+cu121 needs CUDA 12.1, which driver 510.47.03 cannot run (framework-driver-too-old)" in text
    assert "evidence: cmd:nvidia-smi: driver 510.47.03" in text
    # Download first, then replace from what was downloaded: a failing index leaves the old build in place.
    fix = [line.strip() for line in text.splitlines() if "torch==2.2.1+cu118" in line]
    assert fix and fix[0].startswith("/usr/bin/python3 -m pip download --dest ")
    assert fix[0].endswith("torch==2.2.1+cu118 --index-url https://download.pytorch.org/whl/cu118")
    assert all("--no-index" in line for line in fix[1:]) and len(fix) >= 2


def test_ascii_terminal_gets_ascii_glyphs():
    text = render("rtx3080-nouveau", encoding="ascii")
    assert "[X] NVIDIA driver:" in text and "✗" not in text


def test_each_findings_step_pointer_names_the_step_that_answers_it():
    import re

    checked = 0
    for path in sorted(MACHINES.glob("*/snapshot.json")):
        text = render(path.parent.name)
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
