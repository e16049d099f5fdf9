"""After-round h281 (set 20, missed broken machines): ggml's own "no device code compatible with CUDA arch N. ggml-cuda.cu
was compiled for: LIST" line, judged against the GPU the text shows (ggml's device line or nvidia-smi). Each rule is shown
by two real threads; the quiet twins keep it to them. Expectations by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.cmdline import Cmd, Placeholder
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from tests.pasted.cli_json import blind_case, check, paste

pytestmark = pytest.mark.slow

EXAMPLES = Path(__file__).resolve().parent / "catalogue_examples"
CODE = "framework-arch-unsupported"


def _finding(doc: dict, code: str) -> dict | None:
    return next((f for f in doc["findings"] if f["code"] == code), None)


def _argvs(path: Path, code: str) -> list[tuple]:
    """The fix's commands as data (a placeholder's command too: the JSON plan keeps those in its summary)."""
    snapshot = validate_snapshot(read_pasted([Source("t", path.read_text("utf-8"))]), "t")
    report = diagnose(ReplayHost(snapshot))
    assert not report.internal_errors, report.internal_errors
    f = next(f for f in report.findings if f.code == code)
    return [c.argv for c in f.remediation.commands if isinstance(c, Cmd)]


# --- ggml compiled without the GPU's architecture ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        # nextcloud/llm2#52: an RTX A4500 (nvidia-smi's header and the reporter's words), llama-cpp-python built for 520
        lambda: blind_case("plans20/cases/2047"),
        # qualcomm/GenieX#419: an RTX 3060 (ggml's device line, 8.6), a prebuilt stable-diffusion.cpp built for 520
        lambda: EXAMPLES / "geniex-419-sdcpp-rtx3060-ggml-compiled-for-520.txt",
    ],
)
def test_a_ggml_build_compiled_for_sm52_only_is_rebuilt_for_the_gpus_arch(path):
    doc = check(path())
    f = _finding(doc, CODE)
    assert f is not None and f["severity"] == "error"
    argvs = _argvs(path(), CODE)
    assert argvs[0] == ("nvcc", "--version")
    assert argvs[1][:2] == ("cmake", "-B") and isinstance(argvs[1][2], Placeholder)
    assert argvs[1][3:] == ("-DCMAKE_CUDA_ARCHITECTURES=86",)
    assert argvs[2][:2] == ("cmake", "--build")
    codes = {x["code"] for x in doc["findings"]}
    # the driver is not the cause (llm2#52's title blamed the new driver)
    assert not codes & {"driver-too-old", "toolkit-newer-than-driver", "pasted-error-unexplained"}


def test_a_list_holding_an_arch_the_gpu_runs_is_quiet(tmp_path: Path):
    # the quiet twin: sm_80 code runs on an sm_86 GPU (binary compatibility within a major): another cause
    text = (EXAMPLES / "geniex-419-sdcpp-rtx3060-ggml-compiled-for-520.txt").read_text("utf-8")
    doc = paste(tmp_path, text.replace("was compiled for: 520", "was compiled for: 520,610,800"))
    assert _finding(doc, CODE) is None


def test_the_line_without_a_known_gpu_makes_no_claim(tmp_path: Path):
    # the quiet twin: nothing names the GPU, so whether 520 is its architecture is unknown
    doc = paste(
        tmp_path,
        "mmv.cu:53: ERROR: CUDA kernel mul_mat_vec has no device code compatible with CUDA arch 520. "
        "ggml-cuda.cu was compiled for: 520\n",
    )
    assert _finding(doc, CODE) is None


# --- a console script pip put in the user scheme's bin folder, off PATH ------------------------------------------------

SCRIPTS = "python-scripts-off-path"
CASES = Path(__file__).resolve().parent / "cases"


@pytest.mark.parametrize(
    ("path", "program"),
    [
        # deepspeedai/DeepSpeed#3308: bash in a script, "line 17: deepspeed: command not found" after a user-scheme pip
        (lambda: blind_case("plans20/cases/2013"), "deepspeed"),
        # huggingface/huggingface_hub#1512: zsh's "command not found: huggingface-cli" (package huggingface_hub)
        (
            lambda: CASES / "hfhub-1512-macos-pip-user-install-huggingface-cli-zsh-command-not-found" / "report.txt",
            "huggingface-cli",
        ),
    ],
)
def test_a_launcher_pip_put_in_the_user_scheme_is_put_on_path(path, program: str):
    doc = check(path())
    f = _finding(doc, SCRIPTS)
    assert f is not None and f["severity"] == "error"
    step = next(s for s in doc["plan"]["steps"] if SCRIPTS in s["codes"])
    prepend, found = step["commands"]
    assert prepend["prepend"] == "PATH"
    assert prepend["parts"][0]["output_of"][1:] == ["-m", "site", "--user-base"] and prepend["parts"][1] == "/bin"
    assert found["argv"] == ["command", "-v", program]
    assert "pasted-error-unexplained" not in {x["code"] for x in doc["findings"]}


_USER = "$ pip install deepspeed\nDefaulting to user installation because normal site-packages is not writeable\n"


def test_a_system_tool_not_found_beside_a_user_install_is_not_this_rule(tmp_path: Path):
    # the quiet twin: the program is no package's the paste installed
    doc = paste(tmp_path, _USER + "Successfully installed deepspeed-0.9.0\n$ tegrastats\nbash: tegrastats: command not found\n")
    assert _finding(doc, SCRIPTS) is None


def test_a_command_not_found_alone_is_no_finding(tmp_path: Path):
    # the quiet twin: no user-scheme install shown, and the shell's line alone is no failure to explain
    doc = paste(tmp_path, "$ deepspeed train.py\nbash: deepspeed: command not found\n")
    codes = {x["code"] for x in doc["findings"]}
    assert SCRIPTS not in codes and "pasted-error-unexplained" not in codes
