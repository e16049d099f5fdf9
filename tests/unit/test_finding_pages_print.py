"""docs/findings pages show what gpudoctor prints: each page's `## What gpudoctor prints` section is
compared with the fix the tool gives on the recorded machine (or bandwidth run) the page names.

Regenerate a section after a deliberate change: python -m tests.unit.test_finding_pages_print
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = ROOT / "docs" / "findings"
# code -> (the example the page shows, the --require spec it needs)
EXAMPLES = {
    "framework-cpu-build": ("tests/machines/rtx3060-laptop-torch-cpu-build", None),
    "framework-driver-too-old": ("tests/machines/p100-driver510-torch-cu121", None),
    "framework-arch-unsupported": ("tests/machines/rtx5070-torch-cu121-no-sm120", None),
    "framework-cuda-libs-missing": ("tests/machines/rtx3060-tf211-cuda12-only", None),
    "framework-windows-native-gpu": ("tests/machines/windows-rtx3080-tensorflow215", None),
    "nvidia-wheels-conflict": ("tests/machines/rtx4090-nvidia-wheels-cu11-and-cu12", None),
    "jax-plugin-mismatch": ("tests/machines/rtx4090-jax-plugin-mismatch", None),
    "requirement-unmet": ("tests/cli/machines/rtx4090-torch-cu121.json", "driver>=550"),
    "bandwidth-low": ("tests/fixtures/bandwidth/constructed_gen4x16_trained-x8.json", None),
    "bandwidth-copy-corrupt": ("tests/fixtures/bandwidth/constructed_gen4x16_verify-failed.json", None),
}
HEADING = "## What gpudoctor prints"


def _fix(code: str):
    """(summary, the command lines as the machine's shell gets them, how to reproduce)."""
    from gpudoctor.cmdline import shell_for_os

    path, spec = EXAMPLES[code]
    if code.startswith("bandwidth-"):
        from gpudoctor.bandwidth.expected import load_link_table
        from gpudoctor.bandwidth.judge import judge_run
        from gpudoctor.bandwidth.results import BenchRun

        run = BenchRun.from_json(json.loads((ROOT / path).read_text(encoding="utf-8")))
        finding = next(f for f in judge_run(run, load_link_table()).findings if f.code == code)
        return finding.remediation.summary, finding.remediation.lines(), f"the bandwidth results `{path}`"
    from gpudoctor.doctor import diagnose
    from gpudoctor.host.replay import ReplayHost
    from gpudoctor.host.snapshot import load_snapshot

    snapshot = ROOT / path if path.endswith(".json") else ROOT / path / "snapshot.json"
    report = diagnose(ReplayHost(load_snapshot(str(snapshot))))
    findings = report.findings
    if spec:
        from gpudoctor.requirements import evaluate, parse_requirements

        findings = [o.finding for o in evaluate(parse_requirements([spec]), report.facts, report.findings) if o.finding]
    finding = next(f for f in findings if f.code == code)
    shell = shell_for_os(report.facts.platform.system)
    how = f"`gpudoctor check --replay {snapshot.relative_to(ROOT)}" + (f" --require '{spec}'" if spec else "") + "`"
    return finding.remediation.summary, finding.remediation.lines(shell), how + (" (rendered for PowerShell: the machine runs Windows)" if shell == "powershell" else "")


def section(code: str) -> str:
    summary, lines, how = _fix(code)
    return (
        f"{HEADING}\n"
        f"From {how}, the fix reads:\n\n"
        f"> {summary}\n\n"
        "```\n" + "".join(line + "\n" for line in lines) + "```\n"
    )


def _current(text: str) -> str | None:
    m = re.search(re.escape(HEADING) + r"\n.*?(?=\n## |\Z)", text, re.S)
    return m.group(0).rstrip("\n") + "\n" if m else None


@pytest.mark.parametrize("code", sorted(EXAMPLES))
def test_page_shows_what_gpudoctor_prints(code):
    text = (PAGES / f"{code}.md").read_text(encoding="utf-8")
    assert _current(text) == section(code), f"docs/findings/{code}.md is stale: python -m tests.unit.test_finding_pages_print"


def _write_all() -> None:
    for code in EXAMPLES:
        page = PAGES / f"{code}.md"
        text = page.read_text(encoding="utf-8")
        new = section(code)
        old = _current(text)
        if old is not None:
            text = text.replace(old, new)
        elif "\n## Related" in text:
            text = text.replace("\n## Related", "\n" + new + "\n## Related", 1)
        else:
            text = text.rstrip("\n") + "\n\n" + new
        page.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    _write_all()
