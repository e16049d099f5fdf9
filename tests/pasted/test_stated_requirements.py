"""A requirement a program states against what is installed (issues 27/28): pip's own check after an install, "X 1.0
requires Y<2, but you have Y 2.1 which is incompatible", for any package (checks.installers'
check_requirement_conflict, `requirement-unmet`). Each on a recorded case, with its quiet twins: the requirement met
by the version shown, and a torch companion's conflict, which the catalogue's own entry answers (the companion moves).
"""

from __future__ import annotations

from pathlib import Path

from tests.pasted.cli_json import ROOT, check, paste

CASES = ROOT / "tests/pasted/cases"


def _case(prefix: str) -> Path:
    (path,) = CASES.glob(f"{prefix}*/report.txt")
    return path


def _codes(doc: dict) -> set[str]:
    return {f["code"] for f in doc["findings"]}


def _argv(doc: dict) -> list[list[str]]:
    return [c["argv"] for s in doc["plan"]["steps"] for c in s["commands"]]


def test_pip_conflicts_install_the_release_every_line_names_in_one_command():
    doc = check(_case("cryocare-pip-56"))
    (finding,) = [f for f in doc["findings"] if f["code"] == "requirement-unmet"]
    assert finding["severity"] == "warning"
    assert len(finding["evidence"]) == 3  # the three lines of pip's, one package required
    # cupy's numpy<1.27,>=1.20 and matplotlib's numpy>=1.20 together: the pins the lines name, nothing wider.
    assert ["python3", "-m", "pip", "install", "numpy<1.27,>=1.20"] in _argv(doc)


def test_requirement_met_by_the_version_shown_is_quiet(tmp_path):
    # The twin: pip saying the same requirement is already satisfied, by the version it shows (numpy 1.26.4).
    text = _case("cryocare-pip-56").read_text(encoding="utf-8")
    twin = text.replace(
        "cupy-cuda11x 12.2.0 requires numpy<1.27,>=1.20, but you have numpy 1.19.5 which is incompatible.",
        "Requirement already satisfied: numpy<1.27,>=1.20 in ./lib/python3.10/site-packages (from cupy-cuda11x) (1.26.4)",
    )
    twin = "\n".join(line for line in twin.splitlines() if "which is incompatible" not in line)
    assert "requirement-unmet" not in _codes(paste(tmp_path, twin))


def test_torch_companion_conflict_is_the_companions_answer():
    # pip's same sentence for torchvision against torch: the catalogue's entry, one finding (the companion moves to
    # the torch installed), never a second that moves torch.
    doc = check(ROOT / "tests/pasted/catalogue_examples/comfyui-pmrf-11-pip-torchvision-0191-requires-torch241.txt")
    assert "requirement-unmet" not in _codes(doc)
    assert "companion-torch-mismatch" in _codes(doc)
