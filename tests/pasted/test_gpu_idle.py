"""Issues 27/28/31: the GPU told as (near) idle while the program runs is a failure to decide, never a clean bill.

The reporter's words that the GPU's load or utilisation stays under 10 % ("the GPU is at 0% - 3% load"), or that the
work "seems run on CPU" (gpudoctor.pasted.workloads' gpu-idle-said), leave three causes open (gpudoctor.checks.symptoms'
GPU_IDLE): the work on the CPU, the GPU waiting on the CPU, a monitor that does not count CUDA. The report is the
unexplained warning naming them, and the asks are the driver's own counters while the program runs. Its quiet twins: a
figure of 10 % or more, a question, and a runner that splits a model's layers between the GPU and the CPU (the
controls of the blind sets, whose low load is the model's size or the run's setting).
"""

from __future__ import annotations

from gpudoctor.checks.symptoms import GPU_IDLE
from tests.pasted import cli_json

UNEXPLAINED = "pasted-error-unexplained"
_UTILISATION = ["nvidia-smi", "--query-gpu=utilization.gpu,memory.used", "--format=csv", "-l", "1"]
_PROCESSES = ["nvidia-smi", "--query-compute-apps=pid,process_name,used_memory", "--format=csv"]


def _blocking(doc: dict) -> list[str]:
    return [f["code"] for f in doc["findings"] if f["severity"] in ("warning", "error", "critical")]


def _idle_read(doc: dict) -> list[str]:
    return [e["line"] for e in doc["facts"]["pasted"]["errors"] if e["kind"] == "gpu-idle-said"]


def test_windows_training_at_low_load_names_the_causes_and_asks_the_drivers_counters():
    # matterport/Mask_RCNN#2163: TensorFlow finds the RTX 2070 SUPER and fills its memory, "the GPU is at 0% - 3% load"
    doc = cli_json.check(cli_json.blind_case("plans23/cases/2337-"))
    assert _idle_read(doc)
    assert _blocking(doc) == [UNEXPLAINED]
    (finding,) = (f for f in doc["findings"] if f["code"] == UNEXPLAINED)
    for cause in GPU_IDLE.candidates["windows"]:
        assert cause.text in finding["detail"], cause.text
    asked = cli_json.asked(doc)
    assert _UTILISATION in asked and _PROCESSES in asked


def test_linux_words_of_a_gpu_near_idle(tmp_path):
    doc = cli_json.paste(
        tmp_path,
        "Training with PyTorch on my RTX 3090 is very slow.\nGPU utilization stays at 2% the whole time while the CPU is busy.\n",
    )
    assert _idle_read(doc)
    assert _blocking(doc) == [UNEXPLAINED]
    assert _UTILISATION in cli_json.asked(doc)


def test_quiet_twin_a_reading_of_ten_percent_or_more(tmp_path):
    doc = cli_json.paste(tmp_path, "Training with PyTorch on my RTX 3090: GPU utilization is 85% and it runs well.\n")
    assert _idle_read(doc) == []
    assert _blocking(doc) == []


def test_quiet_twin_a_question(tmp_path):
    doc = cli_json.paste(tmp_path, "I train with PyTorch on an RTX 3090. Is a GPU usage of 0% between epochs normal?\n")
    assert _idle_read(doc) == []


def test_quiet_twins_runners_that_split_layers_between_gpu_and_cpu():
    # ollama/ollama#9753: a 70B q4 model on a 24 GB A5000, "the GPU usage is always around 2%" (a control);
    # ggml-org/llama.cpp#1448: "1000% CPU usage and 0% GPU usage" from ./main run without -ngl (a control)
    for case in ("plans6/cases/545-", "plans23/cases/2343-"):
        doc = cli_json.check(cli_json.blind_case(case))
        assert _idle_read(doc) == [], case
