"""After-round h235 (plans16): the platform a GitHub issue form's OS field states. Recorded pastes, expectations by
hand; each rule with the near miss that must not fire."""

from __future__ import annotations

from gpudoctor.pasted import Source, read_pasted
from tests.pasted.cli_json import blind_case, check


def _system(text: str) -> str | None:
    """The platform the form's text states; None where it is only assumed."""
    read = read_pasted([Source("paste", text)])
    said = [r for r in read["pasted"]["read_from"] if r["fact"] == "platform.system" and not r["assumed"]]
    return said[0]["value"] if said else None


def test_an_issue_forms_operating_systems_field_is_the_platform_with_its_lines():
    # llama.cpp's issue form (.github/ISSUE_TEMPLATE/*.yml: a dropdown labelled "Operating systems", rendered as
    # "### Operating systems" and the answer): ggml-org/llama.cpp#13271 (tests/blind/plans16/cases/1655-*), answered
    # "Windows", is planned for Windows (`where nvcc`, not `which -a nvcc`)
    doc = check(blind_case("plans16/cases/1655"))
    assert doc["facts"]["platform"]["system"] == "Windows"
    assert [b["lines"] for b in doc["pasted"]["blocks"] if b["kind"] == "issue_form"] == [[1, 15]]
    argvs = [c["argv"] for s in doc["plan"]["steps"] for c in s["commands"]]
    assert ["where", "nvcc"] in argvs and ["which", "-a", "nvcc"] not in argvs
    # ggml-org/llama.cpp#24418 (tests/blind/plans10/cases/1033-*): the same field answered with a distribution
    doc = check(blind_case("plans10/cases/1033"))
    assert doc["facts"]["platform"]["system"] == "Linux"
    assert [7, 9] in [b["lines"] for b in doc["pasted"]["blocks"] if b["kind"] == "issue_form"]


def test_a_form_that_asks_the_browsers_platform_or_ticks_two_decides_nothing():
    # AUTOMATIC1111's form asks "What platforms do you use to access the UI ?": the browser's system, not the server's
    # (tests/blind/plans11/cases/1150-*): no issue-form block is read from it
    doc = check(blind_case("plans11/cases/1150"))
    assert not [b for b in doc["pasted"]["blocks"] if b["kind"] == "issue_form"]
    # llama.cpp's dropdown takes several answers: "Linux, Windows" names the reporter's systems, not the failing one
    form = "### Operating systems\n\n{}\n\n### GGML backends\n\nCUDA\n"
    assert _system(form.format("Windows")) == "Windows"
    assert _system(form.format("Linux, Windows")) is None
    assert _system(form.format("Windows 11 + WSL2")) == "Linux"  # (h229: WSL named beside Windows)


def _findings(doc: dict) -> set[tuple[str, str]]:
    return {(f["code"], f["severity"]) for f in doc["findings"]}


def _nvidia_smi_why(doc: dict) -> str:
    return next(a["why"] for a in doc["pasted"]["ask_for"] or [] if a["argv"] == ["nvidia-smi"])


def test_a_gpu_seen_idle_only_in_task_manager_is_no_failure_and_asks_nvidia_smi_while_it_works():
    # ollama/ollama#3536 (tests/blind/plans16/cases/1635-*, a control: ollama idle between requests): "when I watch my
    # tsak manager, I noticed that my gpu was not being used" - Task Manager's default GPU graphs are the 3D, Copy and
    # Video engines (Microsoft's DirectX blog, "GPUs in the Task Manager"), so the sentence is no stated failure
    doc = check(blind_case("plans16/cases/1635"))
    assert not [f for f in doc["findings"] if f["severity"] in ("error", "warning")]
    assert "Compute_0" in _nvidia_smi_why(doc) and "while the program works" in _nvidia_smi_why(doc)
    # tensorflow/tensorflow#31654 (tests/blind/plans12/cases/1204-*, a control): "Still taskmanager shows a low gpu
    # utilisation": the same cue, no failure
    doc = check(blind_case("plans12/cases/1204"))
    assert not [f for f in doc["findings"] if f["severity"] in ("error", "warning")]
    assert "Compute_0" in _nvidia_smi_why(doc)


def test_a_program_that_prints_it_runs_on_the_cpu_keeps_its_finding_beside_task_manager():
    # the near miss: JaidedAI/EasyOCR#370 (tests/blind/plans11/cases/1148-*): the program's own "CUDA not available -
    # defaulting to CPU" beside Task Manager: the failure stays a warning, its causes asked
    doc = check(blind_case("plans11/cases/1148"))
    assert ("pasted-error-unexplained", "warning") in _findings(doc)
    # and a sentence that says the GPU is unused without naming Task Manager is read as before
    assert read_pasted([Source("paste", "I noticed that my gpu was not being used by ollama.\n")])["pasted"]["errors"]
