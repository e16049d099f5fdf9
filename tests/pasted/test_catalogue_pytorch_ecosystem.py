"""The PyTorch ecosystem's messages about its environment (catalogue.toml's block for flash-attn, xformers, Triton and
torch.compile's inductor, bitsandbytes, torchvision and vLLM; h139, issue 28): each read from a real report, decided
where the text decides it (a GPU below a library's minimum compute capability, a torchvision built for another torch),
asked for otherwise, and each with its near miss that must stay quiet."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.model import Severity
from gpudoctor.parsers.catalogue import match
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.ask import ask_for

EXAMPLES = Path(__file__).resolve().parent / "catalogue_examples"


def _run(text: str):
    snapshot = validate_snapshot(read_pasted([Source("t", text)]), "t")
    report = diagnose(ReplayHost(snapshot))
    assert not report.internal_errors, report.internal_errors
    asks = [
        " ".join(map(str, a.command.argv)) + (" | " + " ".join(map(str, a.command.pipe)) if a.command.pipe else "")
        for a in ask_for(report.facts, report.findings)
    ]
    return {f.code: f for f in report.findings}, asks


def _example(name: str) -> str:
    return (EXAMPLES / name).read_text(encoding="utf-8")


def _entries(text: str) -> set[str]:
    return {e.get("entry") for e in match(text)}


def test_flash_attn_on_a_turing_gpu_is_arch_unsupported():
    # https://github.com/Dao-AILab/flash-attention/issues/762 (Tesla T4, compute capability 7.5)
    codes, _ = _run(_example("flash-attention-762-t4-ampere-only.txt"))
    f = codes["framework-arch-unsupported"]
    assert [e.value for e in f.evidence][1:] == ["Tesla T4: 7.5"]
    assert f.remediation is not None and f.remediation.commands == ()  # another GPU, or another attention: nothing installed


def test_flash_attn_refusing_a_blackwell_gpu_is_asked_not_called_too_old():
    # https://github.com/Dao-AILab/flash-attention/issues/1540: an RTX 5090 (12.0) gets the same words from a build that
    # predates it; the GPU is not below 8.0, so no arch finding, and the failure stays named.
    text = _example("flash-attention-1540-rtx5090-ampere-only.txt")
    assert "flash-attn-ampere-only" in _entries(text)
    codes, _ = _run(text)
    assert "framework-arch-unsupported" not in codes
    assert "pasted-error-unexplained" in codes


def test_vllm_bfloat16_on_a_t4_is_the_runs_dtype_not_the_environment():
    # The thread of tests/blind/plans6 case 533 (its expect.toml names it; a blind set's threads are named nowhere else):
    # a control, the T4 runs vLLM in float16; the answer in the thread is --dtype half. Read, shown, and no finding.
    text = _example("vllm-1153-aws-t4-bfloat16.txt")
    [e] = [e for e in match(text) if e.get("entry") == "vllm-bfloat16-compute-capability"]
    assert (e.kind, e.get("gpu"), e.get("capability")) == ("program-fault", "Tesla T4", "7.5")
    codes, _ = _run(text)
    assert not [c for c, f in codes.items() if f.severity >= Severity.WARNING]


def test_the_maintainers_answer_about_bfloat16_is_no_failure():
    # https://github.com/vllm-project/vllm/issues/946, the maintainer's reply: the advice, not the error
    text = (
        "As mentioned in the error message, bfloat16 is not natively supported by Turing and Volta GPUs. "
        'Please use `LLM(model=..., dtype="half")` instead.\n'
    )
    codes, _ = _run(text)
    assert not match(text) and "framework-arch-unsupported" not in codes


def test_flash_attn_build_refusing_an_old_nvcc_asks_for_the_toolkit():
    # https://github.com/Dao-AILab/flash-attention/issues/825 (torch 2.2.0+cu118, nvcc 10.1 at CUDA_HOME)
    codes, asks = _run(_example("flash-attention-825-nvcc101-cuda-too-old.txt"))
    assert "pasted-error-unexplained" in codes
    assert {"nvcc --version", "which nvcc", "printenv CUDA_HOME"} <= set(asks)


def test_a_question_that_repeats_flash_attns_requirement_is_not_its_error():
    # https://github.com/huggingface/alignment-handbook/issues/130: a macOS user asking, no build ran
    text = _example("alignment-handbook-130-macos-question-cuda116.txt")
    assert "flash-attn-build-cuda-too-old" not in _entries(text)
    assert _run(text)[0] == {}


def test_xformers_without_its_cuda_kernels_asks_xformers_info():
    # https://github.com/unslothai/unsloth/issues/1358 (Windows, xformers 0.0.28.post3, torch 2.5.1)
    codes, asks = _run(_example("unsloth-1358-windows-xformers-not-built-with-cuda.txt"))
    assert "pasted-error-unexplained" in codes
    assert any(a.endswith("-m xformers.info") for a in asks)


def test_xformers_naming_the_torch_it_was_built_for_decides_without_the_ask():
    # https://github.com/ShivamShrirao/diffusers/issues/251: the reporter's title says "wasn't built with CUDA support" in
    # their words; xformers' own warning names the torch it was built for, which decides it.
    text = _example("diffusers-shivam-251-xformers-built-for-cu121-have-cu118.txt")
    assert "xformers-not-built-with-cuda" not in _entries(text)
    codes, asks = _run(text)
    assert "companion-torch-mismatch" in codes
    assert not any(a.endswith("-m xformers.info") for a in asks)


def test_bitsandbytes_cuda_setup_failed_asks_its_own_report():
    # https://github.com/bitsandbytes-foundation/bitsandbytes/issues/828
    codes, asks = _run(_example("bnb-828-cuda-setup-failed-despite-gpu.txt"))
    assert "pasted-error-unexplained" in codes
    assert any(a.endswith("-m bitsandbytes") for a in asks)


def test_bitsandbytes_0_37_wording_is_read_and_its_bug_report_banner_is_not():
    # https://github.com/bitsandbytes-foundation/bitsandbytes/issues/305 (0.37's tail) and #558 (the banner of
    # `python -m bitsandbytes`, printed on every run of its report)
    assert "bitsandbytes-cuda-setup-failed" in _entries(
        "RuntimeError:\n        CUDA Setup failed despite GPU being available. Inspect the CUDA SETUP outputs above to fix your environment!\n"
    )
    banner = "===================================BUG REPORT===================================\nWelcome to bitsandbytes. For bug reports, please run\n\npython -m bitsandbytes\n"
    assert not match(banner) and _run(banner)[0] == {}


def test_inductor_without_triton_on_windows_is_decided_and_asks_which_triton_the_interpreter_holds():
    # https://github.com/kijai/ComfyUI-WanVideoWrapper/issues/978 (ComfyUI portable on Windows): PyTorch ships no
    # Triton for Windows, so it is decided (tests/spec/test_inductor_triton_windows.py holds the plan); the asks stay
    codes, asks = _run(_example("comfyui-wanvideowrapper-978-triton-missing.txt"))
    assert "framework-cuda-libs-missing" in codes and "pasted-error-unexplained" not in codes
    assert any(a.endswith("-m pip show torch triton triton-windows") and "python_embeded" in a for a in asks)


def test_a_program_saying_triton_is_missing_is_not_inductors_error():
    # https://github.com/devilismyfriend/StableTuner/issues/110: the program's own note, which it goes on after
    text = "Error caught was: No module named 'triton'\n"
    assert "inductor-triton-missing" not in _entries(text)


def test_triton_with_no_active_driver_asks_whether_a_gpu_reaches_the_process():
    # https://github.com/hiyouga/EasyR1/issues/211
    codes, asks = _run(_example("easyr1-211-triton-zero-active-drivers.txt"))
    assert "pasted-error-unexplained" in codes
    assert {"nvidia-smi", "printenv CUDA_VISIBLE_DEVICES"} <= set(asks)


def test_tritons_source_line_in_a_traceback_is_not_the_error():
    # the frame above the error in the same thread: Triton's own f-string, no count of drivers
    text = '    raise RuntimeError(f"{len(actives)} active drivers ({actives}). There should only be one.")\n'
    assert "triton-no-active-driver" not in _entries(text)


def test_torchvision_custom_ops_not_loaded_is_a_companion_built_for_another_torch():
    # https://github.com/concept-graphs/concept-graphs/issues/79
    codes, _ = _run(_example("concept-graphs-79-torchvision-custom-ops.txt"))
    f = codes["companion-torch-mismatch"]
    assert f.title.startswith("torchvision ")


def test_torchvisions_source_line_cut_before_the_cause_is_not_read():
    # https://github.com/ultralytics/yolov5/issues/11149: the reporter's first line is the source's string literal
    text = '"Couldn\'t load custom C++ ops. This can happen if your PyTorch and "\n'
    assert "torchvision-custom-ops-not-loaded" not in _entries(text)


def test_vllm_failing_to_infer_its_device_asks_nvml_and_its_bindings():
    # https://github.com/ai-dynamo/dynamo/issues/391 (fixed there by reinstalling pynvml)
    codes, asks = _run(_example("dynamo-391-vllm-failed-to-infer-device.txt"))
    assert "pasted-error-unexplained" in codes
    assert "nvidia-smi" in asks and any(a.endswith("pip show vllm torch pynvml nvidia-ml-py") for a in asks)


def test_vllms_raise_line_alone_is_not_the_error():
    text = '    raise RuntimeError("Failed to infer device type")\n'
    assert "vllm-failed-to-infer-device" not in _entries(text)


def test_inductor_without_a_cxx_compiler_asks_for_the_compiler_on_path():
    # https://github.com/pytorch/pytorch/issues/92745 (a conda image without g++)
    codes, asks = _run(_example("pytorch-92745-inductor-no-working-cxx-compiler.txt"))
    assert "pasted-error-unexplained" in codes
    assert {"printenv CXX", "which g++ clang++"} <= set(asks)
    assert "where.exe cl" not in asks  # a Linux path: Windows' compiler is not asked


def test_inductors_raise_line_alone_is_not_the_error():
    text = "    raise exc.InvalidCxxCompiler()\n"
    assert "inductor-no-working-cxx-compiler" not in _entries(text)


def test_accelerate_fp16_without_a_gpu_is_torch_seeing_no_cuda():
    # https://github.com/bmaltais/kohya_ss/issues/719 (Windows, accelerate's check before 0.28)
    text = _example("kohya-ss-719-accelerate-fp16-requires-gpu.txt")
    assert [e.kind for e in match(text) if e.get("entry") == "accelerate-fp16-requires-gpu"] == ["cuda-unavailable"]
    codes, asks = _run(text)
    assert "pasted-error-unexplained" in codes
    assert "nvidia-smi" in asks and any(a.endswith("torch.cuda.is_available())") for a in asks)


def test_accelerate_fp16_on_apples_mps_is_not_read():
    # https://github.com/huggingface/accelerate/issues/3718 (a MacBook: no NVIDIA GPU to diagnose)
    text = "ValueError: fp16 mixed precision requires a GPU (not 'mps').\n"
    assert "accelerate-fp16-requires-gpu" not in _entries(text)


def test_deepspeed_jit_without_ninja_asks_for_ninja():
    # https://github.com/xsc1234/INFO-RAG/issues/7 (the reporter says ninja is installed: the asks decide where)
    codes, asks = _run(_example("info-rag-7-deepspeed-jit-ninja-not-installed.txt"))
    assert "pasted-error-unexplained" in codes
    assert "ninja --version" in asks and any(a.endswith("-m pip show ninja") for a in asks)


def test_ds_report_finding_ninja_is_no_failure():
    # https://github.com/deepspeedai/DeepSpeed/issues/1687: ds_report's line where ninja is there
    text = "JIT compiled ops requires ninja\nninja .................. [OKAY]\n"
    assert not match(text) and _run(text)[0] == {}


def test_transformers_without_flash_attn_asks_the_gpu_and_the_versions():
    # https://github.com/hiyouga/EasyR1/issues/384
    codes, asks = _run(_example("easyr1-384-transformers-flash-attn-not-installed.txt"))
    assert "pasted-error-unexplained" in codes
    assert "nvidia-smi --query-gpu=name,compute_cap --format=csv" in asks
    assert any(a.endswith("-m pip show torch flash-attn") for a in asks)  # flash-attn's own ask, once


def test_flash_attention_refused_on_the_cpu_is_not_flash_attn_missing():
    # https://github.com/QwenAudio/FunMusic/issues/30: the model was left on the CPU (fixed there with gpu=0)
    text = (
        "ValueError: FlashAttention2 has been toggled on, but it cannot be used due to the following error: Flash "
        "Attention 2 is not available on CPU. Please make sure torch can access a CUDA device.\n"
    )
    assert "transformers-flash-attn-not-installed" not in _entries(text)


def test_bitsandbytes_046_wording_of_a_missing_cuda_binary_is_read_as_before():
    # https://github.com/Lightning-AI/lightning-thunder/pull/2426: bitsandbytes without a CUDA 13.0 binary
    text = _example("lightning-thunder-2426-bnb-configured-cuda130-binary-not-found.txt")
    [e] = [e for e in match(text) if e.get("entry") == "bitsandbytes-cuda-binary-not-found"]
    assert (e.kind, e.get("cuda"), e.get("library")) == ("bitsandbytes-binary-missing", "130", "libbitsandbytes_cuda130.so")
    codes, _ = _run(text)
    assert "companion-torch-mismatch" in codes


def test_bitsandbytes_cuda_version_override_notice_is_not_a_missing_binary():
    # https://github.com/bitsandbytes-foundation/bitsandbytes/pull/1615: the override's notice, printed before loading
    text = "WARNING: BNB_CUDA_VERSION=124 environment variable detected; loading libbitsandbytes_cuda124.so.\n"
    assert "bitsandbytes-cuda-binary-not-found" not in _entries(text)


def test_transformers_refusing_bf16_on_a_v100_is_the_runs_precision():
    # https://github.com/lm-sys/FastChat/issues/399 (8x V100, --bf16 True; the answer there: --bf16 False)
    text = _example("fastchat-399-v100-transformers-bf16-unsupported.txt")
    assert [e.kind for e in match(text) if e.get("entry") == "transformers-bf16-unsupported"] == ["program-fault"]
    codes, asks = _run(text)
    assert not [c for c, f in codes.items() if f.severity >= Severity.WARNING] and asks == []


def test_transformers_bf16_refusal_on_the_cpu_is_another_message():
    # transformers' CPU branch of the same check (use_cpu and torch too old for bf16 on the CPU): not this entry
    text = "ValueError: Your setup doesn't support bf16/(cpu, tpu, neuroncore). You need torch>=1.10\n"
    assert "transformers-bf16-unsupported" not in _entries(text)


def test_triton_without_a_c_compiler_on_windows_asks_which_triton():
    # https://github.com/thu-ml/SageAttention/issues/7 (Windows venv, Triton 2.1.0 and 3.0.0)
    codes, asks = _run(_example("sageattention-7-windows-triton-no-c-compiler.txt"))
    assert "pasted-error-unexplained" in codes
    assert any(a.endswith("-m pip show triton triton-windows") and "CogVideo" in a for a in asks)
    assert "which gcc clang" not in asks  # a Windows path: no Linux compiler asked


def test_tritons_raise_line_quoted_alone_is_code_not_output():
    # the frame of the same report: Triton's own statement, which the paste reader does not take for output
    codes, _ = _run('    raise RuntimeError("Failed to find C compiler. Please specify via CC environment variable.")\n')
    assert not [c for c, f in codes.items() if f.severity >= Severity.WARNING]


def test_triton_launcher_without_python_h_asks_the_interpreters_headers():
    # https://github.com/gensyn-ai/rl-swarm/issues/226 (a uv venv over the distribution's Python 3.10)
    codes, asks = _run(_example("rl-swarm-226-triton-python-h-missing.txt"))
    # the interpreter's version is shown: the headers' package is the finding's (tests/pasted/test_triton_python_headers.py)
    assert "framework-cuda-libs-missing" in codes and "pasted-error-unexplained" not in codes
    assert any(a.startswith("/root/rl-swarm/.venv/bin/python -c import os, sysconfig") for a in asks)


def test_another_packages_build_missing_python_h_is_not_tritons():
    # https://github.com/gyoisamurai/GyoiThon/issues/39: pip building Twisted's C extension, no Triton launcher
    text = "src/twisted/test/raiser.c:4:10: fatal error: Python.h: No such file or directory\n"
    assert "triton-python-h-missing" not in _entries(text)
