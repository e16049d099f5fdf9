"""The applications' own words for an environment fault (src/gpudoctor/parsers/catalogue.toml, h144, issue 28):
Ollama's discovery, llama.cpp's CUDA backend, CTranslate2's compute types, Ultralytics' and YOLOv5's device check,
detectron2's build, kohya_ss's start-up check, FFmpeg's NVENC and AutoGPTQ's kernels. Each entry is read on its real
example (the thread named beside it) and says what decides it, a finding or a targeted ask; each has a quiet twin, the
application's healthy line or the message where it is quoted."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.model import Severity
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.ask import ask_for

EXAMPLES = Path(__file__).resolve().parent / "catalogue_examples"


def _run(text: str):
    snapshot = validate_snapshot(read_pasted([Source("t", text)]), "t")
    report = diagnose(ReplayHost(snapshot))
    assert not report.internal_errors, report.internal_errors
    asks = {
        " ".join(map(str, a.command.argv)) + (" | " + " ".join(map(str, a.command.pipe)) if a.command.pipe else "")
        for a in ask_for(report.facts, report.findings)
    }
    errors = {e["kind"]: dict(e.get("values") or {}) for e in snapshot["pasted"]["errors"]}
    findings = {f.code: f for f in report.findings if f.severity >= Severity.WARNING}
    return errors, findings, asks


def _example(name: str) -> str:
    return (EXAMPLES / name).read_text(encoding="utf-8")


# --- Ollama ---------------------------------------------------------------------------------------------------------


def test_ollama_skipping_a_gpu_its_old_release_refused_is_an_upgrade():
    # ollama/ollama#1992: a GTX 970 (5.2) skipped by Ollama 0.1.20, whose floor was 6.0; later releases run on 5.0
    errors, findings, _ = _run(_example("ollama-1992-gtx970-cuda-gpu-too-old.txt"))
    assert errors["app-gpu-too-old"] == {"capability": "5.2", "entry": "ollama-cuda-gpu-too-old"}
    f = findings["framework-arch-unsupported"]
    assert f.remediation.component == "environment" and not f.remediation.commands
    assert "pasted-error-unexplained" not in findings


def test_ollama_without_a_cuda_runner_is_its_build():
    # Arch Linux's ollama package (0.1.27, CPU runners only) on a driver 550 machine whose GPU it detects
    # (tests/blind/plans12/cases/1232-*): Ollama's own Linux build, the service restarted, the runner list read again
    path = "tests/blind/plans12/cases/1232-ollama-2883-arch-linux-ollama-package-cpu-only-runners-gpu-detected-not-used/input.txt"
    errors, findings, _ = _run(Path(path).read_text(encoding="utf-8"))
    assert errors["framework-cpu-build-said"] == {"runners": "cpu_avx cpu_avx2 cpu", "entry": "ollama-runners-without-cuda"}
    f = findings["framework-cpu-build"]
    argvs = [(c.argv, c.pipe) for c in f.remediation.commands]
    assert argvs[1] == (("curl", "-fsSL", "https://ollama.com/install.sh"), ("sh",))
    assert argvs[2][0] == ("systemctl", "restart", "ollama") and f.remediation.commands[2].root
    assert argvs[3][1] == ("grep", "-E", "Dynamic LLM libraries|offloaded")
    assert "pasted-error-unexplained" not in findings


def test_ollama_source_build_without_cuda_on_windows():
    # ollama/ollama#2012: a Windows build from source (version 0.0.0), runners [cpu_avx2 cpu_avx cpu], an RTX 4090
    errors, findings, _ = _run(_example("ollama-2012-windows-source-build-cpu-runners.txt"))
    assert errors["framework-cpu-build-said"]["runners"] == "cpu_avx2 cpu_avx cpu"
    f = findings["framework-cpu-build"]
    assert f.remediation.component == "environment" and not f.remediation.commands


def test_ollama_with_a_cuda_runner_or_no_nvidia_gpu_is_quiet():
    # ollama/ollama#2524 (0.1.25 on Windows 11, an RTX 2070): its own build lists cuda_v11.3, not matched
    line = 'time=2024-02-15T22:13:55.403+01:00 level=INFO source=payload_common.go:146 msg="Dynamic LLM libraries [cpu_avx cpu_avx2 cpu cuda_v11.3]"\n'
    errors, findings, _ = _run("Windows 11, RTX 2070\n" + line)
    assert "framework-cpu-build-said" not in errors and "framework-cpu-build" not in findings
    # CPU runners only where no NVIDIA GPU is shown (a CPU server): the build fits the machine
    cpu_only = 'time=2024-11-09T18:44:42.975Z level=INFO source=common.go:49 msg="Dynamic LLM libraries" runners="[cpu cpu_avx cpu_avx2]"\n'
    errors, findings, _ = _run(cpu_only)
    assert errors["framework-cpu-build-said"]["runners"] == "cpu cpu_avx cpu_avx2"
    assert "framework-cpu-build" not in findings


def test_ollama_skipping_a_gpu_below_every_release_is_the_gpu():
    # the wording of 0.1.29 and later, one GPU index per line (discover/gpu.go @05de33f8)
    line = 'time=2024-11-02T10:01:12.311Z level=INFO source=gpu.go:260 msg="[0] CUDA GPU is too old. Compute Capability detected: 3.5"\n'
    errors, findings, _ = _run(line)
    assert errors["app-gpu-too-old"]["capability"] == "3.5"
    assert findings["framework-arch-unsupported"].remediation.component == "gpu"


def test_ollama_finding_no_gpu_asks_where_it_runs():
    # ollama/ollama#8674: Ollama in a compose service that reserves an NVIDIA GPU, its log "No compatible GPUs"
    errors, findings, asks = _run(_example("ollama-8674-docker-no-compatible-gpus.txt"))
    assert "ollama-no-gpu-discovered" in errors
    assert "pasted-error-unexplained" in findings
    assert {"nvidia-smi -L", "ls -l /dev | grep nvidia"} <= asks


def test_ollama_nvcuda_999_is_the_unusable_uvm_module():
    # ollama/ollama#5166: Ollama 0.1.4x in a container, cuInit answering 999 through the driver's libcuda
    errors, findings, _ = _run(_example("ollama-5166-docker-nvcuda-init-failure-999.txt"))
    assert errors["cudart-init-failure"] == {"code": "999", "entry": "ollama-nvcuda-init-failure"}
    assert "cuda-init-unknown" in findings
    # the later wording (discover/gpu_info_nvcuda.c @9f3a37fd), another CUresult: not the unknown error
    errors, findings, _ = _run('msg="Unable to load cudart" error="cuda driver library init failure: 100"\n')
    assert errors["cudart-init-failure"]["code"] == "100" and "cuda-init-unknown" not in findings


def test_ollamas_healthy_discovery_line_is_quiet():
    # Ollama's own test data of a CUDA GPU found (app/server/server_test.go @fb307609)
    line = (
        'time=2025-07-01T19:33:43.162Z level=INFO source=types.go:130 msg="inference compute" '
        "id=GPU-452cac9f-6960-839c-4fb3-0cec83699196 library=cuda variant=v12 compute=6.1 driver=12.7 "
        'name="NVIDIA GeForce GT 1030" total="3.9 GiB" available="3.9 GiB"\n'
    )
    errors, findings, _ = _run(line)
    assert not errors and not findings


_NVML_999_CASE = (
    Path(__file__).resolve().parents[2]
    / "tests/blind/plans12/cases/1236-ollama-3024-debian-docker-ollama-0128-nvml-vram-init-failure-999-toolkit-installed-ask/input.txt"
)
_HOST_ASKS = {"nvidia-smi", "sudo dmesg | grep -E NVRM|Xid", "ls -l /dev | grep nvidia"}


def test_ollamas_nvml_answering_unknown_999_asks_the_host_and_is_no_clean_bill():
    """Ollama 0.1.x's discovery: the driver's libnvidia-ml loaded and nvmlInit_v2 answered 999 (NVML_ERROR_UNKNOWN;
    ollama/ollama gpu/gpu_info_cuda.c @1d1eb168). Read on ollama/ollama#4216 (Docker, driver 550.78; the catalogue's
    example) and on the plans12 case 1236 (Docker on Debian, 550.54.14, a CUDA toolkit added on the host): a warning,
    never "No problems found", and the host's driver, kernel log and device nodes asked."""
    for text in (_example("ollama-4216-docker-libnvidia-ml-550-unloadable.txt"), _NVML_999_CASE.read_text(encoding="utf-8")):
        errors, findings, asks = _run(text)
        assert errors["nvml-init-unknown"] == {"entry": "ollama-nvml-init-unknown"}
        assert "pasted-error-unexplained" in findings
        assert asks >= _HOST_ASKS, asks


def test_ollamas_nvml_other_codes_are_not_the_unknown_error():
    # The quiet twin: NVML_ERROR_DRIVER_NOT_LOADED (9), the line Ollama prints inside WSL 2 where a Linux driver's
    # library shadows WSL's (gpudoctor.checks.reported.check_reported_wsl judges it), is not 999
    line = (
        'time=2024-03-09T14:52:46.434Z level=INFO source=gpu.go:249 msg="Unable to load CUDA management library '
        '/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.535.104.05: nvml vram init failure: 9"\n'
    )
    errors, _, _ = _run(line)
    assert "nvml-init-unknown" not in errors and "gpu-library-unloadable" in errors


_OLLAMA_WINDOWS_SERVER = str(
    Path(__file__).resolve().parents[2]
    / "tests/blind/plans10/cases/1045-ollama3074-windows-server-2022-rtx-a6000-illegal-memory-access-ask/input.txt"
)
_SERVER_LOG = 'powershell -NoProfile -Command Get-Content "$env:LOCALAPPDATA\\Ollama\\server.log" -Tail 80'


def test_ollama_on_windows_asks_for_its_release_and_the_server_log():
    """Ollama for Windows keeps the server's log in %LOCALAPPDATA%\\Ollama\\server.log (ollama/ollama
    docs/troubleshooting.md @65563874), where journalctl does not exist: read on a Windows Server 2022 report whose error
    is only in a screenshot, and on ollama/ollama#9496 (Windows, cudart init failure 100)."""
    for text in (Path(_OLLAMA_WINDOWS_SERVER).read_text(encoding="utf-8"), _example("ollama-9496-cudart-init-failure-100.txt")):
        _, _, asks = _run(text)
        assert {"ollama --version", _SERVER_LOG} <= asks, asks
        assert not any(a.startswith("journalctl") for a in asks)


def test_ollama_on_linux_keeps_journalctl():
    # The quiet twin: Ollama's server on a Linux host (ollama/ollama#9298) asks systemd's journal, not a Windows path.
    _, _, asks = _run(_example("ollama-9298-no-nvidia-devices-detected-by-library.txt"))
    assert "journalctl -u ollama --no-pager" in asks
    assert _SERVER_LOG not in asks and "ollama --version" not in asks
    # ... and the portable binary started by hand (./ollama-linux-amd64) has no systemd unit: no journal is asked of it
    _, _, asks = _run(Path(_LLAMA_CPP_LOG).read_text(encoding="utf-8"))
    assert not any(a.startswith("journalctl") for a in asks) and _SERVER_LOG not in asks


_NO_SYSTEMD_CASE = (
    Path(__file__).resolve().parents[2]
    / "tests/blind/plans12/cases/1239-ollama-14661-vastai-container-no-systemd-install-script-unable-to-detect-gpu-no-lspci-ask/input.txt"
)
_SERVE_BY_HAND = "env OLLAMA_DEBUG=1 ollama serve"


def test_ollama_where_no_service_manager_runs_is_started_by_hand_not_asked_of_journalctl():
    """Ollama's install script writes a systemd unit but starts nothing where systemd does not run (scripts/install.sh
    @3fa8daae: 'warning "systemd is not running"'); systemctl itself refuses with "System has not been booted with
    systemd as init system" there. The server's log is then the terminal of `ollama serve` started by hand
    (docs/troubleshooting.md @00d2ca26), never the journal of a unit that never ran."""
    # a rented GPU container: the install script's warning (the plans12 case, cited by its path)
    _, _, asks = _run(_NO_SYSTEMD_CASE.read_text(encoding="utf-8"))
    assert _SERVE_BY_HAND in asks
    assert not any(a.startswith(("journalctl", "systemctl")) for a in asks)
    # systemctl's own refusal in a container (gezp/docker-ubuntu-desktop#17, https://github.com/gezp/docker-ubuntu-desktop/issues/17),
    # beside Ollama's discovery finding no device (ollama/ollama#9298's log, the catalogue's example)
    text = (
        "$sudo systemctl daemon-reload\n"
        "System has not been booted with systemd as init system (PID 1). Can't operate.\n"
        "Failed to connect to bus: Host is down\n" + _example("ollama-9298-no-nvidia-devices-detected-by-library.txt")
    )
    _, _, asks = _run(text)
    assert _SERVE_BY_HAND in asks and not any(a.startswith("journalctl") for a in asks)


def test_ollama_installed_where_systemd_runs_keeps_its_journal():
    # The quiet twin: the install script enabling and starting the unit (ollama/ollama#11793,
    # https://github.com/ollama/ollama/issues/11793) with a GPU discovery failure: systemd's journal is the log.
    text = (
        "root@llama30:~# curl -fsSL https://ollama.com/install.sh | sh\n"
        ">>> Creating ollama systemd service...\n"
        ">>> Enabling and starting ollama service...\n"
        ">>> The Ollama API is now available at 127.0.0.1:11434.\n"
        '>>> Install complete. Run "ollama" from the command line.\n'
        + _example("ollama-9298-no-nvidia-devices-detected-by-library.txt")
    )
    _, _, asks = _run(text)
    assert "journalctl -u ollama --no-pager" in asks and _SERVE_BY_HAND not in asks


# --- llama.cpp ------------------------------------------------------------------------------------------------------


def test_ggml_cuda_init_failing_asks_for_the_driver_and_the_device_nodes():
    # meta-llama/llama3#215: Ollama's llama.cpp runner on Ubuntu 18.04 with a T4, "initialization error"
    errors, findings, asks = _run(_example("llama3-215-ggml-cuda-init-initialization-error.txt"))
    assert errors["ggml-cuda-init-failed"]["error"] == "initialization error"
    assert "pasted-error-unexplained" in findings
    assert {"nvidia-smi", "ls -l /dev | grep nvidia"} <= asks


_UNKNOWN_ASKS = {"sudo dmesg | grep -E NVRM|Xid", "nvidia-smi", "lsmod | grep nvidia", "ls -l /dev/nvidia-uvm"}


def test_ggml_cuda_init_unknown_error_asks_the_kernel_log_and_the_uvm_module():
    """cudaErrorUnknown (999) from llama.cpp's CUDA backend is a driver state, not its libraries: the kernel log (an Xid
    such as 79, fallen off the bus) and nvidia_uvm decide, and nothing is prescribed before they are read. Read on
    ggml-org/llama.cpp#7218 (an RTX 3090 server build) and on an Ollama runner that lost the GPU after minutes."""
    for text in (
        _example("llama-cpp-7218-ggml-cuda-init-unknown-error.txt"),
        Path(_LLAMA_CPP_LOG).read_text(encoding="utf-8"),
    ):
        errors, findings, asks = _run(text)
        assert "ggml-cuda-init-unknown" in errors and "ggml-cuda-init-failed" in errors
        assert set(findings) == {"pasted-error-unexplained"}  # an ask, no fix (no cuda-init-unknown reload)
        assert _UNKNOWN_ASKS - {"nvidia-smi"} <= asks, asks
        assert "ls -l /dev | grep nvidia" not in asks  # (the generic entry's ask yields to the runtime's own words)


def test_ggml_cuda_init_other_errors_keep_the_generic_asks():
    # The quiet twin: "initialization error" (meta-llama/llama3#215) is no 999: no kernel-log or uvm asks.
    errors, _, asks = _run(_example("llama3-215-ggml-cuda-init-initialization-error.txt"))
    assert "ggml-cuda-init-unknown" not in errors
    assert "ls -l /dev | grep nvidia" in asks
    assert not (_UNKNOWN_ASKS - {"nvidia-smi"}) & asks


def test_the_runtimes_own_words_decide_ggml_and_the_no_gpu_warning():
    # ggml-org/llama.cpp#13059: a CUDA build on an A800 whose fabric manager is not up ("system not yet initialized")
    errors, _, asks = _run(_example("llama-cpp-13059-no-usable-gpu-system-not-initialized.txt"))
    assert {"ggml-cuda-init-failed", "llama-cpp-no-gpu-device", "cuda-system-not-ready"} <= set(errors)
    assert "systemctl status nvidia-fabricmanager" in asks
    assert "ls -l /dev | grep nvidia" not in asks  # (ggml's own asks yield to the runtime error's)


_LLAMA_CPP_LOG = str(
    Path(__file__).resolve().parents[2]
    / "tests/blind/plans10/cases/1035-ollama6149-portable-binary-gpu-lost-after-minutes-cuda-unknown-error-ask/input.txt"
)
_FLASH_ATTN_PACKAGE = str(
    Path(__file__).resolve().parents[2]
    / "tests/blind/plans9/cases/904-fa821-conda-torch220-cu118-flashattn252-skip-cuda-build-undefined-symbol-zeros/input.txt"
)


def _extensions_named(text: str) -> list[str]:
    from gpudoctor.facts import EXTENSION_NAMED

    return [c["means"] for c in read_pasted([Source("t", text)])["pasted"]["cues"] if c["cue"] == EXTENSION_NAMED]


def test_llama_cpps_flash_attn_setting_names_no_flash_attn_package():
    """llama.cpp's context log prints its own attention setting, "llama_new_context_with_model: flash_attn = 0"
    (newer trees "llama_context: flash_attn    = auto", src/llama-context.cpp @4c7103b9): no Python package, so no ask
    for torch and flash-attn's versions. Read on an Ollama runner's whole log and on a llama.cpp report with the
    newer line in it."""
    text = Path(_LLAMA_CPP_LOG).read_text(encoding="utf-8")
    assert "flash_attn = 0" in text
    assert _extensions_named(text) == []
    _, _, asks = _run(text)
    assert not any("flash-attn" in a or "flash_attn" in a for a in asks)
    newer = _example("llama3-215-ggml-cuda-init-initialization-error.txt") + "llama_context: flash_attn    = auto\n"
    assert _extensions_named(newer) == []


def test_flash_attn_the_package_is_still_named():
    """The quiet twin: a report about the package (the recorded case above: "flash_attn 2.5.2 and torch 2.1.2")
    and a pin ("flash_attn==2.5.8") name flash-attn, whose versions the asks then read."""
    assert _extensions_named(Path(_FLASH_ATTN_PACKAGE).read_text(encoding="utf-8")) == ["flash-attn"]
    assert _extensions_named("pip install flash_attn==2.5.8 --no-build-isolation\n") == ["flash-attn"]


def test_no_usable_gpu_on_a_machine_without_one_is_quiet():
    # llama.cpp's CPU CI runs its binaries with -ngl 99 (ggml-org/ci logs): the warning, and no GPU anywhere
    text = (
        "+ ./bin/llama-embedding --model ../models-mnt/bge-small/ggml-model-f16.gguf -p 'I believe the meaning of "
        "life is' -ngl 99 -c 0\n"
        "warning: no usable GPU found, --gpu-layers option will be ignored\n"
        "warning: one possible reason is that llama.cpp was compiled without GPU support\n"
        "warning: consult docs/build.md for compilation instructions\n"
    )
    errors, findings, _ = _run(text)
    assert "llama-cpp-no-gpu-device" in errors and not findings


def test_ggml_finding_its_devices_is_quiet():
    # ggml-org/llama.cpp#11700: the CUDA backend's healthy start
    text = (
        "ggml_cuda_init: GGML_CUDA_FORCE_MMQ:    no\n"
        "ggml_cuda_init: found 1 CUDA devices:\n"
        "  Device 0: Tesla V100-SXM2-32GB, compute capability 7.0, VMM: yes\n"
    )
    errors, findings, _ = _run(text)
    assert "ggml-cuda-init-failed" not in errors and not findings


# --- CTranslate2 (faster-whisper, whisperX) -------------------------------------------------------------------------


def test_ctranslate2_refusing_a_type_the_gpu_lacks_is_the_programs_setting():
    # MahmoudAshraf97/whisper-diarization#216: whisperX asking float16 on a Tesla P40 (6.1), which CTranslate2 runs in
    # float32 or int8 only (docs/quantization.md @0d8bcd36): read, and no environment finding
    errors, findings, _ = _run(_example("whisper-diarization-216-p40-float16-compute-type.txt"))
    assert errors["ctranslate2-compute-type-unsupported"]["compute_type"] == "float16"
    assert not findings
    # SYSTRAN/faster-whisper#615: int16 on two Tesla V100s, a type CTranslate2 runs on no GPU
    text = (
        "2 x\nTesla V100\n"
        "2023-12-11 17:03:14 - root - ERROR - Requested int16 compute type, but the target device or backend do not "
        "support efficient int16 computation.\n"
    )
    errors, findings, _ = _run(text)
    assert errors["ctranslate2-compute-type-unsupported"]["compute_type"] == "int16" and not findings


def test_ctranslate2_converting_a_saved_models_type_itself_is_quiet():
    # models/model.cc @0d8bcd36: its warning where no compute type was asked for, the model converted and run
    line = (
        "[ctranslate2] [thread 1] [warning] The compute type inferred from the saved model is float16, but the target "
        "device or backend do not support efficient float16 computation. The model weights have been automatically "
        "converted to use the float32 compute type instead.\n"
    )
    errors, findings, _ = _run(line)
    assert "ctranslate2-compute-type-unsupported" not in errors and not findings


# --- Ultralytics and YOLOv5 -----------------------------------------------------------------------------------------


def test_yolov5s_device_assertion_asks_for_the_interpreters_torch():
    # mats-robotics/yolov5_ros#9: YOLOv5 in a VirtualBox VM (no GPU passthrough)
    errors, findings, asks = _run(_example("yolov5-ros-9-virtualbox-invalid-cuda-device.txt"))
    assert errors["torch-cuda-device-missing"] == {"device": "0", "entry": "yolov5-invalid-cuda-device"}
    assert "pasted-error-unexplained" in findings
    assert "nvidia-smi -L" in asks
    # ultralytics/yolov5#474: the wording before 2022, on a machine whose torch answered False
    errors, _, _ = _run("AssertionError: CUDA unavailable, invalid device 0 requested\n")
    assert errors["torch-cuda-device-missing"] == {"device": "0", "entry": "yolov5-invalid-cuda-device"}


def test_ultralytics_printing_torchs_false_leaves_it_to_that_line():
    # SunOner/sunone_aimbot#164: Ultralytics' ValueError with torch.cuda.is_available(): False below it
    errors, _, asks = _run(_example("sunone-aimbot-164-ultralytics-invalid-cuda-device.txt"))
    assert errors["torch-cuda-device-missing"]["entry"] == "ultralytics-invalid-cuda-device"
    assert "cuda-unavailable" in errors
    assert "nvidia-smi -L" not in asks  # (its asks yield to the False's)


def test_ultralytics_healthy_device_line_is_quiet():
    # select_device's own start-up line on a GPU (ultralytics/utils/torch_utils.py @1488e07d)
    line = "Ultralytics YOLOv8.1.3 🚀 Python-3.10.11 torch-2.1.0+cu121 CUDA:0 (NVIDIA GeForce RTX 3060 Ti, 8192MiB)\n"
    errors, findings, _ = _run(line)
    assert "torch-cuda-device-missing" not in errors and not findings


# --- detectron2, kohya_ss, AutoGPTQ ---------------------------------------------------------------------------------


def test_detectron2_built_without_cuda_asks_what_its_build_saw():
    # facebookresearch/detectron2#257: ROIAlign's CUDA kernel missing from the built ops
    errors, findings, asks = _run(_example("detectron2-257-roialign-not-compiled-with-gpu.txt"))
    assert "extension-built-without-cuda" in errors
    assert "pasted-error-unexplained" in findings
    assert any(a.endswith("print(torch.__version__, torch.version.cuda, torch.cuda.is_available(), CUDA_HOME)") for a in asks)


def test_detectron2s_faq_quoting_the_message_is_quiet():
    # INSTALL.md @02b5c4e2: the heading of its FAQ entry quotes the message
    line = '"nvcc not found" or "Not compiled with GPU support" or "Detectron2 CUDA Compiler: not available".\n'
    errors, findings, _ = _run(line)
    assert "extension-built-without-cuda" not in errors and not findings


def test_kohya_reporting_no_gpu_is_torch_unavailable_in_its_venv():
    # bmaltais/kohya_ss#1608 (the wording before 2024) and #2378 (after), the second on RunPod beside torch's warning
    errors, findings, _ = _run(_example("kohya-ss-1608-torch-reports-cuda-not-available.txt"))
    assert errors["cuda-unavailable"]["entry"] == "kohya-torch-reports-no-gpu"
    assert "pasted-error-unexplained" in findings
    errors, _, asks = _run(_example("kohya-ss-2378-runpod-torch-reports-gpu-not-available.txt"))
    assert {"cuda-unavailable", "cuda-driver-init-failed"} <= set(errors)
    assert "/workspace/all_data/kohya_ss/venv/bin/python -c import torch; print(torch.__version__, torch.version.cuda)" in asks


def test_kohyas_healthy_gpu_line_is_quiet():
    # bmaltais/kohya_ss#943: its start-up on an RTX 4090
    text = (
        "23:51:01-313733 INFO     Torch 2.0.1+cu118\n"
        "23:51:01-326239 INFO     Torch backend: nVidia CUDA 11.8 cuDNN 8700\n"
        "23:51:01-327921 INFO     Torch detected GPU: NVIDIA GeForce RTX 4090 VRAM 24564 Arch (8, 9) Cores 128\n"
    )
    errors, findings, _ = _run(text)
    assert "cuda-unavailable" not in errors and not findings


def test_autogptq_without_its_kernels_asks_for_its_release_and_torch():
    # oobabooga/textgen#1289: text-generation-webui's one-click install on Windows loading a GPTQ model
    errors, _, asks = _run(_example("textgen-1289-windows-autogptq-cuda-extension-not-installed.txt"))
    assert "gptq-cuda-extension-missing" in errors
    # (the one-click installer's env is a conda prefix, python.exe at its root: pasted.read._installer_env)
    assert "D:\\Gpt\\oobabooga-windows\\installer_files\\env\\python.exe -m pip show auto-gptq torch" in asks


def test_code_silencing_autogptqs_warning_is_quiet():
    line = 'warnings.filterwarnings("ignore", message=".*CUDA extension not installed.*")\n'
    errors, findings, _ = _run(line)
    assert "gptq-cuda-extension-missing" not in errors and not findings


# --- FFmpeg's NVENC (Jellyfin, HandBrake, Frigate, transcoders) -----------------------------------------------------


def test_nvenc_api_newer_than_the_driver_reads_both_versions_and_the_minimum():
    # HandBrake/HandBrake#5641 (API 12.1 against 12.0, minimum "(unknown)") and livepeer/go-livepeer#1106 (418.30)
    errors, findings, asks = _run(_example("handbrake-5641-nvenc-api-12-1-driver-12-0.txt"))
    assert errors["nvenc-driver-too-old"] == {"entry": "ffmpeg-nvenc-api-version", "required": "12.1", "found": "12.0"}
    assert "pasted-error-unexplained" in findings
    assert "nvidia-smi --query-gpu=name,driver_version --format=csv" in asks
    snapshot = read_pasted([Source("t", _example("livepeer-1106-nvenc-minimum-driver-418-30.txt"))])
    said = [dict(e["values"]) for e in snapshot["pasted"]["errors"] if e["kind"] == "nvenc-driver-too-old"]
    assert {"driver": "418.30", "entry": "ffmpeg-nvenc-minimum-driver"} in said


def test_nvenc_session_refused_names_its_status():
    # joinhive-ai/transcoder#4: out of memory (10) on GeForce cards; valkjsaaa/auto-bilibili-recorder#9 with the
    # "No NVENC capable devices found" that follows, which yields to it
    errors, findings, asks = _run(_example("hive-transcoder-4-nvenc-open-session-out-of-memory.txt"))
    assert (errors["nvenc-session-failed"]["status"], errors["nvenc-session-failed"]["code"]) == ("out of memory", "10")
    assert "nvidia-smi --query-gpu=name,driver_version,encoder.stats.sessionCount --format=csv" in asks
    errors, _, asks = _run(_example("auto-bilibili-recorder-9-nvenc-no-capable-devices.txt"))
    assert {"nvenc-session-failed", "nvenc-no-capable-device"} <= set(errors)
    assert "nvidia-smi --query-gpu=name,driver_version --format=csv" not in asks


def test_no_capable_nvenc_device_asks_for_the_gpu():
    # TNTwise/REAL-Video-Enhancer#250: av1_nvenc on an RTX 4060 Laptop GPU
    errors, findings, asks = _run(_example("real-video-enhancer-250-av1-nvenc-no-capable-devices.txt"))
    assert "nvenc-no-capable-device" in errors and "pasted-error-unexplained" in findings
    assert "nvidia-smi --query-gpu=name,driver_version --format=csv" in asks


def test_ffmpegs_healthy_nvenc_device_lines_are_quiet():
    # nvenc_check_device's lines for a GPU that encodes (libavcodec/nvenc.c @00282752), and the minimum line of a
    # build that does not know it, alone
    text = (
        "[h264_nvenc @ 0x55d5c8e0a2c0] [ GPU #0 - < NVIDIA GeForce RTX 3060 > has Compute SM 8.6 ]\n"
        "[h264_nvenc @ 0x55d5c8e0a2c0] supports NVENC\n"
        "[h264_nvenc @ 0x55d5c8e0a2c0] The minimum required Nvidia driver for nvenc is (unknown) or newer\n"
    )
    errors, findings, _ = _run(text)
    assert not {"nvenc-driver-too-old", "nvenc-session-failed", "nvenc-no-capable-device"} & set(errors)
    assert not findings


# --- EasyOCR and Cellpose: their probes of torch.cuda ------------------------------------------------------------------


def test_easyocr_falling_back_to_the_cpu_asks_its_torch_build():
    # the blind case plans11/1148 (Windows: Task Manager; a GTX 1080 Ti named): the Reader's fallback line where the
    # GPU was meant, asked of the torch the program runs
    cases = Path(__file__).resolve().parents[1] / "blind/plans11/cases"
    text = next(cases.glob("1148-*")).joinpath("input.txt").read_text(encoding="utf-8")
    errors, findings, asks = _run(text)
    assert errors["cuda-unavailable"]["entry"] == "easyocr-cuda-not-available"
    assert "pasted-error-unexplained" in findings
    assert "python -c import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available())" in asks
    assert "nvidia-smi" in asks and not any(a.startswith("printenv") for a in asks)


def test_easyocr_falling_back_where_no_gpu_was_meant_is_the_programs_own_fallback():
    # the quiet twin, the blind control plans11/1143 (its thread named in its folder only): the same line, with no
    # NVIDIA GPU or driver named, no CUDA build asked for and no word that the GPU is not used: the Reader on a CPU
    # machine, working as designed (its report was about a model download)
    cases = Path(__file__).resolve().parents[1] / "blind/plans11/cases"
    text = next(cases.glob("1143-*")).joinpath("input.txt").read_text(encoding="utf-8")
    errors, findings, _ = _run(text)
    assert errors["cuda-unavailable"]["entry"] == "easyocr-cuda-not-available"
    assert not findings


def test_easyocr_told_to_use_the_cpu_is_quiet():
    # the quiet twin: Reader(gpu=False) prints its own line (easyocr/easyocr.py @d4ef5e82), the user's choice
    errors, findings, _ = _run("Using CPU. Note: This module is much faster with a GPU.\n")
    assert "cuda-unavailable" not in errors and not findings


def test_cellposes_failed_gpu_probe_asks_which_torch_its_environment_imports():
    # MouseLand/cellpose#595: Windows 10 (its Anaconda Prompt), the probe failing after a reinstall
    errors, findings, asks = _run(_example("cellpose-torch-cuda-not-installed-working.txt"))
    assert errors["cuda-unavailable"]["entry"] == "cellpose-torch-cuda-not-working"
    assert "pasted-error-unexplained" in findings
    assert (
        "python -c import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available(), torch.__file__)" in asks
    )


def test_cellposes_probe_on_a_mac_or_working_is_quiet():
    # plans11/1131: a Mac laptop has no CUDA, the message only says the CPU is used; and the healthy line
    case = "1131-cellpose809-macos-cpu-torch-cuda-not-installed-message-control"
    text = (Path(__file__).resolve().parents[1] / "blind/plans11/cases" / case / "input.txt").read_text(encoding="utf-8")
    errors, findings, asks = _run(text)
    assert "cuda-unavailable" in errors and not findings
    assert "nvidia-smi" not in asks
    errors, findings, _ = _run("** TORCH CUDA version installed and working. **\n>>>> using GPU\n")
    assert "cuda-unavailable" not in errors and not findings


def test_sherpa_onnx_falling_back_to_the_cpu_asks_for_the_programs_onnxruntime_dlls():
    # thewh1teagle/loud.cpp#18 (Windows 10) and plans11/1139 (a C# program beside the win-x64-cuda release)
    errors, findings, asks = _run(_example("loudcpp-18-windows-sherpa-onnx-cpu-providers.txt"))
    assert errors["native-runtime-cpu-build"]["entry"] == "sherpa-onnx-no-cuda-provider"
    assert errors["native-runtime-cpu-build"]["available"] == "CPUExecutionProvider,"
    assert "pasted-error-unexplained" in findings
    assert "where.exe /R . onnxruntime*.dll" in asks
    case = "1139-sherpaonnx1620-windows-csharp-nuget-cpu-only-native-dlls-provider-cuda-falls-back"
    text = (Path(__file__).resolve().parents[1] / "blind/plans11/cases" / case / "input.txt").read_text(encoding="utf-8")
    errors, _, asks = _run(text)
    assert errors["native-runtime-cpu-build"]["entry"] == "sherpa-onnx-no-cuda-provider"
    assert "where.exe /R . onnxruntime*.dll" in asks


def test_sherpa_onnx_asked_for_cuda_on_a_mac_is_quiet():
    # the quiet twin: k2-fsa/sherpa-onnx#1435, an Intel Mac (CUDA is Linux x64 and Windows x64 only, its maintainer)
    text = (
        "平台：intel芯片的macos\n"
        "/Users/runner/work/sherpa-onnx/sherpa-onnx/sherpa-onnx/csrc/session.cc:GetSessionOptionsImpl:170 Please compile "
        "with -DSHERPA_ONNX_ENABLE_GPU=ON. Available providers: CoreMLExecutionProvider, CPUExecutionProvider, . "
        "Fallback to cpu!\n"
    )
    errors, findings, asks = _run(text)
    assert "native-runtime-cpu-build" in errors and not findings
    assert not any(a.startswith("nvidia-smi") for a in asks)
