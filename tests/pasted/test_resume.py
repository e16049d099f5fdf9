"""A plan ends where the reporter resumes (issue 27, kind 9): the failing command read from the paste
(gpudoctor.pasted.failing) and run again as the plan's last step, or the one line that shows the fix took
(gpudoctor.planner.resume). Recorded pastes, expectations by hand; each rule with the near miss that must not fire."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.facts import REPORTER_COMMAND
from gpudoctor.pasted import load_sources, read_pasted
from tests.pasted.cli_json import ROOT, blind_case, check, paste


def failing(path: Path) -> list[dict]:
    """The reporter's-command cues the reader sets on the paste at `path`."""
    return [c for c in read_pasted(load_sources([str(path)]))["pasted"]["cues"] if c["cue"] == REPORTER_COMMAND]


def last(doc: dict) -> dict:
    return doc["plan"]["steps"][-1]


# --- the reader -----------------------------------------------------------------------------------------------------


def test_the_one_pip_install_beside_pips_error_is_the_failing_command():
    (cue,) = failing(blind_case("plans11/cases/1106"))
    assert (cue["means"], cue["shell"]) == ("pip install --upgrade tensorflow", "")


def test_older_pips_failure_without_its_error_prefix_makes_the_install_the_failing_command(tmp_path):
    # pip as it printed in January 2019, "Could not install packages due to an EnvironmentError" with no "ERROR:":
    # tests/blind/plans13/cases/1303-* typed at an Anaconda prompt, and tensorflow/tensorflow#24705
    # (https://github.com/tensorflow/tensorflow/issues/24705) in a code block beside the error (markdown bold)
    (cue,) = failing(blind_case("plans13/cases/1303"))
    assert (cue["means"], cue["shell"]) == ("pip install tf-nightly-2.0-preview", "cmd")
    text = tmp_path / "24705.txt"
    text.write_text(
        "On a Windows 10 machine, anytime I try to install the TF 2.0 preview by:\n\n"
        "```pip install tf-nightly-2.0-preview```\n\nI obtain the following error message:\n\n"
        "**Could not install packages due to an EnvironmentError: [Errno 2] No such file or directory: "
        "'C:\\\\Users\\\\xxx\\\\AppData\\\\Local\\\\Temp\\\\pip-install-3rfhl_nx\\\\tf-nightly-2.0-preview"
        "\\\\tf_nightly_2.0_preview-1.13.0.dev20181226.data/purelib/tensorflow/include/tensorflow/include/external/"
        "eigen_archive/unsupported/Eigen/CXX11/src/Tensor/TensorSyclConvertToDeviceExpression.h'**\n",
        encoding="utf-8",
    )
    assert [c["means"] for c in failing(text)] == ["pip install tf-nightly-2.0-preview"]


def test_a_command_at_the_containers_prompt_with_a_failure_under_it():
    (cue,) = failing(blind_case("pasted/cases/028"))
    assert (cue["means"], cue["shell"]) == ("nvidia-smi -L", "container")


def test_a_missing_program_at_a_prompt_is_not_the_failing_command():
    # (cmd.exe's "'wget' is not recognized" under `C:\Users\x>wget ...`: an aside, not the install that failed)
    assert failing(blind_case("plans11/cases/1126")) == []


def test_prompts_whose_output_shows_no_failure_set_nothing():
    # a fine report: `$ python3 -c "import jax; ..."` and `$ nvidia-smi`, their outputs clean
    assert failing(blind_case("pasted/cases/005")) == []


def test_a_comment_after_a_hash_is_no_root_prompt():
    # `# Convert predictions back to CPU for evaluation` in a script, a traceback below it
    assert failing(blind_case("plans8/cases/825")) == []


# --- the plan's last step -------------------------------------------------------------------------------------------


def test_the_install_is_run_again_last_and_no_placeholder_stands_for_it():
    doc = check(blind_case("plans11/cases/1106"))
    step = last(doc)
    assert step["component"] == "resume"
    assert [c["argv"] for c in step["commands"]] == [["pip", "install", "--upgrade", "tensorflow"]]
    assert not any("<packages>" in w for s in doc["plan"]["steps"] for c in s["commands"] for w in c["argv"])


def test_the_script_is_run_again_by_the_environments_interpreter():
    step = last(check(blind_case("plans5/cases/441")))
    assert step["component"] == "resume"
    assert [c["argv"] for c in step["commands"]] == [["/home/crazykrow/miniconda3/envs/textgen/bin/python", "server.py"]]


def test_a_plan_that_runs_the_same_install_by_another_python_adds_no_rerun():
    # 1125: the plan installs the reporter's packages with the 64-bit Python; the 32-bit one would fail as before
    doc = check(blind_case("plans11/cases/1125"))
    assert [s["component"] for s in doc["plan"]["steps"]] == ["torch"]


def test_a_command_with_a_pipe_is_said_not_printed(tmp_path):
    text = blind_case("plans11/cases/1106").read_text(encoding="utf-8")
    text = text.replace("pip install --upgrade tensorflow\n", "pip install --upgrade tensorflow | tee pip.log\n")
    step = last(paste(tmp_path, text))
    assert step["component"] == "resume"
    assert step["commands"] == []


def test_with_no_command_shown_the_plan_ends_with_the_frameworks_check():
    step = last(check(ROOT / "tests/pasted/cases/cryodrgn-91-rtx3090-sm86-torch-sm75/report.txt"))
    assert step["component"] == "resume"
    assert [c["argv"] for c in step["commands"]] == [
        ["python3", "-c", "import torch; print(torch.__version__, torch.cuda.is_available())"]
    ]


def test_a_fix_that_reads_its_own_change_back_gets_no_second_check():
    # conda's cpuonly removed: the fix's own last command prints torch's CUDA build and is_available()
    step = last(check(ROOT / "tests/pasted/cases/pytorch-32369-conda-cpuonly-obtained-torch140/report.txt"))
    assert step["component"] != "resume"
    assert "import torch" in step["commands"][-1]["argv"][-1]


def test_a_plan_that_already_ends_with_its_own_test_gets_no_other():
    # 1101: no command of the reporter's is shown, the fix is the container runtime's, its steps end with docker run
    doc = check(blind_case("plans11/cases/1101"))
    assert [s["component"] for s in doc["plan"]["steps"]] == ["container"]


def test_a_fine_report_has_no_plan_to_end():
    assert check(blind_case("pasted/cases/005"))["plan"]["steps"] == []


def test_a_host_compilers_fix_is_a_builds_and_gets_no_frameworks_check(tmp_path):
    # 1032 (detectron2 built by pip with gcc 11, which apt's nvcc refuses) without the reporter's pip line, a CUDA
    # torch listed beside it: the fix (CC/CXX of an older gcc) took when the build runs through, which
    # torch.cuda.is_available() does not show (model.BUILD_CODES: host-compiler-unsupported is a build's finding).
    # Its quiet twin: test_with_no_command_shown_the_plan_ends_with_the_frameworks_check, a fix of torch's own build.
    lines = blind_case("plans10/cases/1032").read_text(encoding="utf-8").splitlines()
    text = "\n".join(x for x in lines if "pip install" not in x) + "\n\n$ pip list\ntorch          1.10.0+cu113\n"
    doc = paste(tmp_path, text)
    assert [s["component"] for s in doc["plan"]["steps"]] == ["toolkit"]
    assert doc["plan"]["steps"][0]["codes"] == ["host-compiler-unsupported"]
