"""Issue 27: an error the reporter says they hit, in a sentence that names nothing of the GPU stack ("when I start the
server it raises an error"), in a paste that names the stack elsewhere, whose error line is cut or left out: NOT DECIDED
with the asks, never "No problems found". And the controls beside it that must stay as they were: an error told above
output that shows a failure, a program's own fault shown below the sentence, a third party's behaviour described, a
line of a source listing, a message a catalogue entry reads.

Each case is cited by its path; the expected values were written from the paste by hand.
"""

from __future__ import annotations

import pytest

from gpudoctor.parsers.failure_lines import read_failure_lines
from tests.pasted import cli_json

UNEXPLAINED = "pasted-error-unexplained"


def _blocking(doc: dict) -> list[str]:
    return [f["code"] for f in doc["findings"] if f["severity"] in ("warning", "error", "critical")]


def _failures(doc: dict) -> list[dict]:
    return [e for e in doc["facts"]["pasted"]["errors"] if e["kind"] == "gpu-stack-failure"]


@pytest.mark.parametrize(
    ("case", "line_no", "form", "component"),
    [
        # oobabooga/text-generation-webui#367: "But when I start the server it raises an error." above a log cut at
        # bitsandbytes' warning (its banner's "submit your error trace" is no error shown)
        ("plans3/cases/231", 4, "error-said", "the program"),
        # cellbender#127: "I often get the following error, ..." above a log cut before it
        ("plans10/cases/1047", 23, "error-said", "the program"),
        # vllm#23655: "However, **the following error occurred** when deploying it ..." (the error is not in the paste)
        ("plans16/cases/1622", 1, "error-said", "torch"),
        # dmlc/xgboost#3030: "there is the error:" above one line of output that no catalogue entry reads as it is
        # written (the reporter's "not compile", the entry's "not compiled"): that line is the failure
        ("plans17/cases/1717", 22, "error-introduced", "the program"),
    ],
)
def test_an_error_told_without_the_stack_in_a_paste_about_it_is_not_decided(case, line_no, form, component):
    doc = cli_json.check(cli_json.blind_case(case))
    assert _blocking(doc) == [UNEXPLAINED]
    # a warning: exit 1 under the default --fail-on (docs/exit-codes.md), never the clean bill's 0
    assert (doc["status"], doc["exit_code"]) == ("warning", 1)
    (told,) = _failures(doc)
    got = dict(told["values"])
    assert (got["form"], got["component"], got["component_kind"]) == (form, component, "said")
    assert told["at"].endswith(f"/input.txt:{line_no}")
    assert cli_json.asked(doc)  # what decides it is asked for


@pytest.mark.parametrize(
    ("case", "codes"),
    [
        # NVIDIA/nccl-tests#25: "and get an error" above nccl-tests' output, whose NCCL WARN line says it failed to
        # open libibverbs (the thread: nothing broken)
        ("plans7/cases/618", []),
        # Lightning-AI#20391: "Slurm doesn't let you schedule the job and raises an error" (a behaviour described)
        ("plans12/cases/1202", []),
        # Lightning-AI#61: IPython's source listing of a frame, "166     # Loop on join until it returns True or raises
        # an exception."
        ("plans16/cases/1605", []),
        # vllm#7028: the error introduced below the sentence is vLLM's own message, which the catalogue reads as the
        # program's fault (its note stays)
        ("plans3/cases/252", ["program-fault"]),
    ],
)
def test_an_error_told_where_the_paste_shows_what_it_is_stays_as_it_was(case, codes):
    doc = cli_json.check(cli_json.blind_case(case))
    assert [f["code"] for f in doc["findings"]] == codes
    assert not [e for e in _failures(doc) if dict(e["values"])["form"] in ("error-said", "error-introduced")]


def test_a_program_fault_shown_below_keeps_the_reporters_other_words():
    # bmaltais/kohya_ss#3329: "I still get the same error:" above CUDA's out-of-memory message, the program's own: the
    # failure read is the reporter's hang ("it just freezes"), not an error the paste does not show
    doc = cli_json.check(cli_json.blind_case("plans16/cases/1632"))
    assert [dict(e["values"])["form"] for e in _failures(doc)] == ["hang-said"]


def test_the_introduced_line_is_the_one_below_the_colon():
    # The parser alone, nothing read before it: vllm#7028's sentence introduces vLLM's message on the next line (through
    # the command line the catalogue reads that line first, above), and a command below the colon is no error shown.
    lines = cli_json.blind_case("plans3/cases/252").read_text(encoding="utf-8").splitlines()
    (told,) = [e for e in read_failure_lines(lines) if dict(e.values)["form"] == "error-introduced"]
    assert told.line.startswith("'No available memory for the cache blocks.")
    command = ["I run it on my GPU and there is the error:", "$ python train.py", ""]
    assert [dict(e.values)["form"] for e in read_failure_lines(command)] == ["error-said"]


def test_a_paste_that_names_nothing_of_the_stack_is_not_read():
    # the same sentence where no line names the GPU stack or a GPU framework: nothing says the error is the GPU's
    assert read_failure_lines(["When I start the server it raises an error.", "Thanks"]) == []
    lines = ["When I start the server it raises an error.", "GPU: RTX 3090"]
    assert [dict(e.values)["form"] for e in read_failure_lines(lines)] == ["error-said"]
