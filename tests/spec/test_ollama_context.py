"""docs/findings/ollama-context-too-large: an `ollama ps` row holding a model on the CPU, wholly or in part, while it
takes several times its weights in memory (gpudoctor.parsers.ollama_ps): the context length, set where Ollama's server
reads it, per platform; quiet where the size is the weights' own or no GPU was found."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.parsers.ollama_ps import context_overload
from tests.spec.machine import argv_words, pasted_findings, pasted_report
from tests.spec.registry import FIRES, QUIET, states

ROOT = Path(__file__).resolve().parents[2]
CODE = "ollama-context-too-large"

# ollama/ollama#10848 (https://github.com/ollama/ollama/issues/10848, a comment, its blocks verbatim): a 4.3 GB model
# loaded at 13 GB, split between CPU and GPU; the same comment's log shows n_ctx = 32768.
SPLIT = """Checking ps shows this;

ollama ps
NAME               ID              SIZE     PROCESSOR          UNTIL
qwen3-4b:latest    fe7c4d51aadb    13 GB    59%/41% CPU/GPU

I'm not sure how a 4gb model is taking up 13gb of memory - but this may be why it's slow and using the CPU ?

ollama list
NAME               ID              SIZE      MODIFIED
qwen3-4b:latest    fe7c4d51aadb    4.3 GB    16 minutes ago
"""


def _case(prefix: str, folder: str) -> str:
    return (
        next((ROOT / "tests" / "blind" / folder / "cases").glob(prefix + "-*")).joinpath("input.txt").read_text(encoding="utf-8")
    )


@states(CODE, FIRES)
def test_a_small_model_loaded_at_a_huge_context_on_windows_sets_the_users_variable():
    # plans16/1650: qwen3:4b listed at 2.5 GB, loaded at 41 GB with CONTEXT 262144, 100% CPU, an RTX 5060 in PowerShell
    report = pasted_report(_case("1650", "plans16"))
    codes = {f.code: f for f in report.findings}
    assert "pasted-error-unexplained" not in codes
    f = codes[CODE]
    assert argv_words(f.remediation) == [
        ("setx", "OLLAMA_CONTEXT_LENGTH", "8192"),
        ("ollama", "run", "qwen3:4b", "hi"),
        ("ollama", "ps"),
    ]
    assert "262144" in f.evidence[0].value


@states(CODE, FIRES)
def test_a_split_model_several_times_its_listed_size_fires_without_a_gpu_named():
    # the CPU/GPU split shows Ollama found a GPU itself; no OS named: the systemd service's variable
    over = context_overload(SPLIT)
    assert over is not None and (over.name, over.loaded_gb, over.context) == ("qwen3-4b:latest", 13.0, None)
    f = pasted_findings(SPLIT)[CODE]
    assert [w[:2] for w in argv_words(f.remediation)] == [
        ("systemctl", "edit"),
        ("systemctl", "daemon-reload"),
        ("systemctl", "restart"),
        ("ollama", "run"),
        ("ollama", "ps"),
    ]
    assert all(c.root for c in f.remediation.commands[:3])


@states(CODE, QUIET)
def test_a_model_whose_size_is_its_weights_or_a_default_context_is_quiet():
    for text in (
        # ollama/ollama#13152 (https://github.com/ollama/ollama/issues/13152, the description): gpt-oss:120b at 32768 is
        # mostly its weights; and the catalogue's example of ollama/ollama#11676 (a 120b model at 69 GB)
        "gpt-oss:120b    a951a23b46a1    66 GB    100% CPU     32768      4 minutes from now\n",
        (ROOT / "tests/pasted/catalogue_examples/ollama-11676-ps-100-percent-cpu-gpt-oss.txt").read_text(encoding="utf-8"),
        # plans14/1431: qwen2:7b at 4.7 GB, 100% CPU on an RTX 3090: Ollama found no GPU, its size is its weights
        _case("1431", "plans14"),
        # the same small model at a default context: no enlarged context, whatever its size
        "qwen3:4b    359d7dd4bcda    41 GB    100% CPU     8192     4 minutes from now\n| NVIDIA-SMI 595.97  Driver Version: 595.97  CUDA Version: 13.2 |\n",
    ):
        assert CODE not in pasted_findings(text)


@states(CODE, QUIET)
def test_wholly_on_the_cpu_with_no_nvidia_gpu_shown_is_quiet():
    # plans16/1650's rows without its nvidia-smi table: a machine without a usable GPU runs every model on the CPU
    rows = "\n".join(line for line in _case("1650", "plans16").splitlines()[:15])
    assert context_overload(rows) is not None
    assert CODE not in pasted_findings(rows)
