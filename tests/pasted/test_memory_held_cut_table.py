"""GPU memory in use read from a pasted nvidia-smi table cut before its "Processes:" section (issue 27, h180): nothing
says who holds it, and the reporter's own program (a server holding its model) is as likely as another, so no
gpu-memory-held finding. Read on tests/blind/plans12/cases/1233-* (Ollama on an RTX 4090, 20102MiB / 24564MiB, the
table cut after the GPU row) and on vllm-project/vllm#7581 (vLLM's server in docker, 72591MiB / 81920MiB, cut alike:
vLLM reserves most of the GPU itself). The twins: PyTorch's out-of-memory message, which says how much its process holds
(tests/pasted/cases/fastmri-238-*), still finds the memory held; and the reporter's words that the program "does not
appear to use the GPU" are read as such, not the same words about the GPU's memory."""

from __future__ import annotations

from pathlib import Path

from tests.pasted.test_catalogue_applications import _run

PLANS12_1233 = (
    "tests/blind/plans12/cases/1233-ollama-1651-arch-rtx4090-pacman-ollama-is-the-gpu-used-20gb-vram-in-nvidia-smi-ask/input.txt"
)

# vllm-project/vllm#7581: the reporter's nvidia-smi beside its vLLM container, as pasted (cut after the GPU row)
VLLM_7581 = """I tried to run vllm server with docker as below command.
docker run --gpus all -v ~/.cache/huggingface:/root/.cache/huggingface -p 8000:8000 --ipc=host vllm/vllm-openai:latest --model meta-llama/Meta-Llama-3.1-8B-Instruct
Run docker successfully but it consumes gpu memory  about 72GiB. Here is the result of `nvidia-smi`
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 550.67                 Driver Version: 550.67         CUDA Version: 12.4     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  NVIDIA A100 80GB PCIe          Off |   00000000:81:00.0 Off |                    0 |
| N/A   58C    P0             83W /  300W |   72591MiB /  81920MiB |      5%      Default |
"""


def test_a_table_cut_before_its_processes_names_no_holder():
    errors, findings, asks = _run(Path(PLANS12_1233).read_text(encoding="utf-8"))
    assert "gpu-memory-held" not in findings
    # the reporter's words are the symptom, and Ollama's asks decide it: its log and who holds the memory
    assert "gpu-unused-said" in errors and "pasted-error-unexplained" in findings
    assert "journalctl -u ollama --no-pager" in asks
    assert "nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv" in asks


def test_a_serving_engine_reserving_the_gpu_is_not_another_process():
    _errors, findings, _asks = _run(VLLM_7581)
    assert "gpu-memory-held" not in findings


def test_pytorch_out_of_memory_still_names_the_memory_held():
    text = Path("tests/pasted/cases/fastmri-238-oom-zombie-holds-8gb-gpu/report.txt").read_text(encoding="utf-8")
    _errors, findings, _asks = _run(text)
    assert "gpu-memory-held" in findings


def test_words_about_the_gpus_memory_are_not_the_gpu_unused():
    errors, _findings, _asks = _run("Linux, RTX 3090\nThe model does not appear to use the GPU memory I set aside.\n")
    assert "gpu-unused-said" not in errors
