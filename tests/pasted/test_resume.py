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


# --- the check derived from what failed (issue 27: "it tests nothing that failed") ------------------------------------


def test_a_variables_fix_for_an_error_outside_the_framework_runs_again_what_failed():
    # 1542: accelerate refuses RTX 40-series P2P/IB until NCCL_P2P_DISABLE/NCCL_IB_DISABLE are set; no command of the
    # reporter's is shown. torch.cuda.is_available() was never what failed: the last step runs the program again, named
    # by the error it printed (a pasted line: prose, no command).
    doc = check(blind_case("plans15/cases/1542"))
    step = last(doc)
    assert step["component"] == "resume" and step["commands"] == []
    assert "Using RTX 4000 series doesn't support faster communication broadband via P2P or IB." in step["summaries"][0]
    assert [s["component"] for s in doc["plan"]["steps"]] == ["environment", "resume"]


def test_a_fix_that_installs_the_frameworks_own_libraries_keeps_its_check():
    # the near miss: 1014, TensorFlow 2.15 without its CUDA 12 wheels; the fix installs tensorflow[and-cuda], so
    # TensorFlow's device list is the query that decides it, though the failing line (TSL's) does not name TensorFlow
    step = last(check(blind_case("plans10/cases/1014")))
    assert step["component"] == "resume"
    assert [c["argv"] for c in step["commands"]] == [
        ["python3", "-c", "import tensorflow as tf; print(tf.__version__, tf.config.list_physical_devices())"]
    ]


def test_a_reporters_own_words_are_not_quoted_as_the_error_to_watch_for():
    # 333: llama-cpp-python built without CUDA, told in the reporter's words (a `-said` kind): the step names no line
    step = last(check(blind_case("plans4/cases/333")))
    assert step["component"] == "resume" and step["commands"] == []
    assert "--force-reinstall" not in step["summaries"][0]
    # its twin: 228's NumPy ABI error is the catalogue's own line, quoted
    step = last(check(blind_case("plans3/cases/228")))
    assert "module compiled against API version 0xc but this version of numpy is 0xa" in step["summaries"][0]


def test_a_fix_that_puts_a_directory_on_the_path_then_loads_the_library_gets_no_second_check():
    # 1301: tensorrt_libs put first on LD_LIBRARY_PATH, then libnvinfer.so.8 loaded by name: the fix reads its own
    # change back (a PrependPath is a change, as an install is); torch.cuda.is_available() said nothing of ONNX Runtime
    steps = check(blind_case("plans13/cases/1301"))["plan"]["steps"]
    assert [s["component"] for s in steps] == ["environment"]
    assert steps[0]["commands"][-1]["argv"] == ["python3", "-c", 'import ctypes; ctypes.CDLL("libnvinfer.so.8")']


def test_a_path_fix_whose_last_line_keeps_the_setting_still_gets_its_check():
    # the near miss: 521 (torch's cuDNN taken from an older copy) puts the wheel's cudnn/lib first and ends with the
    # line that keeps it in conda's activate.d: a file written, nothing read back, so torch's own check still ends it
    steps = check(blind_case("plans6/cases/521"))["plan"]["steps"]
    assert [s["component"] for s in steps] == ["torch", "resume"]
    assert steps[-1]["commands"][0]["argv"] == [
        "/home/hh/anaconda3/envs/aio/bin/python",
        "-c",
        "import torch; print(torch.__version__, torch.cuda.is_available())",
    ]
