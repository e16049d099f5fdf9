"""Issue 27 (h245): the reporter's words that the program runs on the CPU and not the GPU, in English and in Chinese.

gpudoctor.parsers.failure_lines' "cpu-said" form reads a sentence that says the CPU works where the GPU was meant;
checks.reported then names the failure NOT DECIDED with the asks of a GPU not reached, never "No problems found".
The wordings read here: "only utilizing my CPU and not my GPU" (and its reverse, "doesn't use my GPU only CPU"), and
the Chinese "只使用CPU" (only the CPU used) and "GPU没有上升" / "GPU空闲" (the GPU's load not rising, the GPU idle).
Each is a real report's text: a blind case's input (cited by path) or a thread's line (named beside it). The quiet
twins are real lines too: a question, a program's design told by its maintainer, the GPU's free memory.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpudoctor.parsers.failure_lines import read_failure_lines
from tests.hostile.test_corpus import run_cli

BLIND = Path(__file__).resolve().parent.parent / "blind"


def _forms(line: str) -> list[str]:
    return [dict(e.values).get("form", "") for e in read_failure_lines([line])]


@pytest.mark.parametrize(
    "line",
    [
        # https://github.com/lllyasviel/style2paints/issues/141 (its title; the reporter's CPU at 90-100%)
        "It doesn't use my GPU only CPU",
        # https://github.com/continue-revolution/sd-webui-animatediff/issues/322 ("the CPU runs, its load high, the
        # GPU idle"; the answer: a CPU build)
        "CPU在跑,占用高, GPU空闲",
        # https://github.com/HypoX64/DeepMosaics/issues/79 (its comment: the GPU not put to use)
        "有占用，但是GPU没有用上全部的性能，特别慢",
        # https://github.com/jamiepine/voicebox/issues/222 (a comment: the CPU named against "my GPU")
        "I found out it's using my CPU instead of my GPU.",
        # https://github.com/iperov/DeepFaceLab/issues/343 (its "Actual behavior")
        "Am instead running on CPU which is very slow compared to expected performance from GPU.",
        # https://github.com/Tencent/ncnn/issues/2927 (only on the CPU it runs, the GPU unused)
        "编译运行都不报错，但是检测发现仅在cpu上运行，不使用gpu",
        # https://github.com/chatchat-space/Langchain-Chatchat/issues/1858 (its title: the GPU cannot be called)
        "为什么安装requirements之前print(torch.cuda.is_available())为True 安装之后变成了False 无法调用GPU",
        # tests/blind/plans19/cases/1942-* (only CPU inference, CUDA cannot be loaded), a version pin in the sentence
        "conda下pynini==2.1.6，用conda install -c pytorch pytorch torchvision安装的最新版。但运行时只能cpu推理，无法加载cuda。",
    ],
)
def test_the_cpu_said_used_instead_of_the_gpu_is_read(line):
    assert _forms(line) == ["cpu-said"]


@pytest.mark.parametrize(
    "line",
    [
        # https://github.com/alexjc/neural-doodle/issues/21: a question, not a failure told
        "Is that normal or is it just not using my GPU despite telling me so?",
        # https://github.com/ColorfulSoft/DeOldify.NET/issues/18: the maintainer telling the program's design
        "The program really works only on the CPU, so at 100% CPU load, the load on the graphics card will be zero.",
        # https://github.com/jianchang512/ChatTTS-ui/issues/243: the program's own rule about the GPU's free memory
        "GPU可用独立显存低于2048M，将强制使用CPU",
        # the GPU's free memory ("GPU空闲显存"), not the GPU idle
        "GPU空闲显存不足",
        # the wish for the CPU, "instead" after it
        "Can I run the model on the CPU instead?",
        # a comparison in code is still code, not a sentence (a pin "pkg==1.2" is a sentence's word)
        "if torch.cuda.device_count() == 0: print('the GPU is not used, only CPU')",
    ],
)
def test_a_question_a_design_or_free_memory_is_no_cpu_said(line):
    assert "cpu-said" not in _forms(line)


@pytest.mark.parametrize(
    "case",
    [
        "plans17/cases/1737-sadtalker-848-installed-only-cpu-used-no-environment-shown-ask",
        "plans17/cases/1747-sadtalker-557-windows-pip-torch20-cpu-wheel-cuda118-installed-gpu-idle",
        "plans19/cases/1942-megatts3-97-windows-conda-pytorch-channel-install-no-pytorch-cuda-webui-runs-on-cpu-cuda-load-error-not-shown-ask",
    ],
)
def test_a_report_that_only_says_the_cpu_runs_is_not_decided(case):
    code, out, err = run_cli("check", "--from", str(BLIND / case / "input.txt"), "--format", "json")
    doc = json.loads(out)
    assert code == doc["exit_code"] == 1, err
    (finding,) = [f for f in doc["findings"] if f["severity"] in ("warning", "error", "critical")]
    assert finding["code"] == "pasted-error-unexplained"
    said = (BLIND / case / "input.txt").read_text(encoding="utf-8").splitlines()[0].strip()
    assert [e["value"] for e in finding["evidence"]] == [said]  # the sentence that tells it, the first line of each
    assert ["nvidia-smi"] in [a["argv"] for a in doc["pasted"]["ask_for"]]
