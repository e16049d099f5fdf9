"""A requirement a program states against what is installed (issues 27/28), `requirement-unmet`: pip's own check after
an install, "X 1.0 requires Y<2, but you have Y 2.1 which is incompatible", for any package
(checks.installers.check_requirement_conflict), and a program's own floor for the driver, the CUDA toolkit or cuDNN,
"Minimum required Nvidia driver is 570.0 or newer" (checks.stated). Each on a recorded case, with its quiet twins: the
requirement met by the version shown, a floor the program could not name, and a torch companion's conflict, which the
catalogue's own entry answers (the companion moves).
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


def test_stated_driver_floor_above_the_driver_shown_installs_that_branch():
    # The log's own floor ("Minimum required Nvidia driver is 570.0 or newer") against the form's driver, 550.163.01.
    doc = check(_case("netv-42"))
    (finding,) = [f for f in doc["findings"] if f["code"] == "requirement-unmet"]
    assert finding["severity"] == "error"
    assert [e["value"] for e in finding["evidence"]] == ["Minimum required Nvidia driver is 570.0 or newer"]
    (step,) = [s for s in doc["plan"]["steps"] if "requirement-unmet" in s["codes"]]
    assert step["component"] == "driver"


def test_stated_driver_floor_met_by_the_driver_shown_is_quiet(tmp_path):
    # The twin: the same log beside a driver at the floor: the requirement is met, the cause is elsewhere.
    text = _case("netv-42").read_text(encoding="utf-8").replace("NVIDIA driver: 550.163.01", "NVIDIA driver: 570.86.16")
    text = text.replace("nvidia-smi confirms driver 550 / CUDA 12.4.", "")
    assert "requirement-unmet" not in _codes(paste(tmp_path, text))


def test_floor_the_program_could_not_name_is_quiet(tmp_path):
    # FFmpeg's "(unknown) or newer" where its table lacks the API version: no release stated, nothing to judge.
    text = _case("netv-42").read_text(encoding="utf-8")
    text = text.replace(
        "Minimum required Nvidia driver is 570.0 or newer", "The minimum required Nvidia driver for nvenc is (unknown) or newer"
    )
    assert "requirement-unmet" not in _codes(paste(tmp_path, text))


def test_floor_in_the_reporters_own_sentence_is_quiet(tmp_path):
    # The reporter retelling a floor ("I read it requires ...") is not the program's line: nothing stated to judge.
    text = _case("netv-42").read_text(encoding="utf-8")
    text = text.replace(
        "Minimum required Nvidia driver is 570.0 or newer", "I read that it requires NVIDIA driver 570.0 or newer"
    )
    assert "requirement-unmet" not in _codes(paste(tmp_path, text))
