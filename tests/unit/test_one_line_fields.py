"""A newline in a machine's text cannot forge a line of the text view.

The area summaries and finding titles are one line each; a GPU name is machine data (a snapshot someone sent
holds any text there). Before, a name "RTX 3060\\n✓ No problems found." printed a line of its own that read
like gpudoctor's verdict. Prose (a finding's detail) keeps its line breaks; these fields show `\\x0a` instead.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.hostile.test_corpus import run_cli

MACHINE = Path(__file__).resolve().parents[1] / "machines" / "rtx3060-desktop-other-jobs-hold-memory" / "snapshot.json"
FORGED = "NVIDIA RTX 3060\n✓ No problems found."


def _replayed(tmp_path: Path, name: str) -> list[str]:
    snap = json.loads(MACHINE.read_text(encoding="utf-8"))
    for dev in snap["nvml"]["devices"]:
        dev["name"] = name
    path = tmp_path / "snapshot.json"
    path.write_text(json.dumps(snap), encoding="utf-8")
    _, out, _ = run_cli("check", "--replay", str(path))
    return out.splitlines()


def test_a_gpu_name_with_a_newline_stays_on_the_summary_line(tmp_path):
    lines = _replayed(tmp_path, FORGED)
    assert "✓ GPU: 1 × NVIDIA RTX 3060\\x0a✓ No problems found." in lines
    # The machine has a warning (gpu-memory-held): no line may claim otherwise.
    assert not any(line.strip() == "✓ No problems found." for line in lines)


def test_a_finding_title_naming_the_gpu_stays_one_line(tmp_path):
    # Titles of several findings carry a GPU's name (framework-arch-unsupported): a forged one, through the renderer.
    import io

    from gpudoctor.model import Finding, Severity
    from gpudoctor.render.terminal import render_finding
    from gpudoctor.render.textconsole import TextConsole

    buf = io.StringIO()
    console = TextConsole(file=buf, width=200)
    render_finding(console, Finding("gpu-lost", Severity.ERROR, "health", "GPU 0 (X\n✓ fine) is lost", "detail\nmore"), False)
    out = buf.getvalue().splitlines()
    assert out[0].strip() == "✗ GPU 0 (X\\x0a✓ fine) is lost (gpu-lost)"
    # The detail is prose: its line break stays.
    assert [line.strip() for line in out[1:3]] == ["detail", "more"]
