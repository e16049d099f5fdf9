"""The catalogue of the stack's messages (src/gpudoctor/parsers/catalogue.toml): every entry is sourced, finds its
real example, and drives what it says (evidence, a finding through the checks, or a targeted ask); the cues set
platform, setting and interpreter from the lines that show them; nothing is stated that no line says."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpudoctor.cmdline import Output, PrependPath
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.parsers.catalogue import coverage_table, match, messages
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.ask import ask_for

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = Path(__file__).resolve().parent / "catalogue_examples"
BLIND = ROOT / "tests" / "blind" / "pasted" / "cases"


def _run(text: str):
    snapshot = validate_snapshot(read_pasted([Source("t", text)]), "t")
    report = diagnose(ReplayHost(snapshot))
    assert not report.internal_errors, report.internal_errors
    asks = [
        " ".join(map(str, a.command.argv)) + (" | " + " ".join(map(str, a.command.pipe)) if a.command.pipe else "")
        for a in ask_for(report.facts, report.findings)
    ]
    return snapshot, report, {f.code: f for f in report.findings}, asks


def _blind(prefix: str) -> str:
    return next(BLIND.glob(prefix + "*")).joinpath("input.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize("message", messages(), ids=lambda m: m.id)
def test_every_entry_is_sourced_and_finds_its_real_example(message):
    source = message.source
    assert source["repo"].count("/") == 1 and source["path"] and source["quote"], source
    assert source["checked"] in ("mirror", "index", "thread"), source
    if source["checked"] != "thread":
        assert re.fullmatch(r"[0-9a-f]{40}", source["commit"]), source
    example = ROOT / message.example
    assert example.is_file(), message.example
    found = [e for e in match(example.read_text(encoding="utf-8", errors="replace")) if e.get("entry") == message.id]
    assert found and found[0].kind == message.evidence
    # Read as a paste, the example carries the evidence kind the entry names (from the catalogue or the extractors).
    snapshot = read_pasted([Source("example", example.read_text(encoding="utf-8", errors="replace"))])
    assert message.evidence in {e["kind"] for e in snapshot["pasted"]["errors"]}


def test_docs_show_the_coverage_per_source():
    assert coverage_table() in (ROOT / "docs" / "pasted.md").read_text(encoding="utf-8")


def test_ids_are_unique():
    ids = [m.id for m in messages()]
    assert len(ids) == len(set(ids))


def test_docker_without_an_nvidia_runtime_is_container_no_gpu():
    _, _, codes, _ = _run(_blind("027"))
    assert codes["container-no-gpu"].evidence[0].value.startswith("**docker: Error response from daemon: could not select")


def test_tensorflow_cannot_dlopen_is_cuda_libs_missing_and_asks_for_the_named_library():
    _, _, codes, asks = _run(_blind("042"))
    assert "framework-cuda-libs-missing" in codes
    assert any(a.startswith("env TF_CPP_MIN_LOG_LEVEL=0") for a in asks)


def test_xla_without_a_cuda_platform_is_a_cpu_jaxlib():
    _, _, codes, _ = _run(_blind("034"))
    assert "framework-cpu-build" in codes


def test_a_traceback_inside_the_cuda_plugin_is_not_a_missing_cuda_jaxlib():
    snapshot, _, codes, asks = _run((EXAMPLES / "mujoco-playground-137-jax-plugin-cusparse.txt").read_text(encoding="utf-8"))
    kinds = {e["kind"] for e in snapshot["pasted"]["errors"]}
    assert "jaxlib-cpu-fallback" not in kinds and {"jax-cuda-plugin-failed", "jax-library-load-failed"} <= kinds
    assert "framework-cpu-build" not in codes
    # The environment's own interpreter, as the traceback's site-packages shows it (gpudoctor.pasted.read).
    assert "/home/ygr/miniconda3/envs/mujo_rl/bin/python -m pip list" in asks and "printenv LD_LIBRARY_PATH" in asks


def test_insufficient_cuda_driver_number_is_the_drivers_cuda_not_nvml():
    snapshot, _, codes, _ = _run((EXAMPLES / "serominer-readme-insufficient-cuda-driver.txt").read_text(encoding="utf-8"))
    assert snapshot["nvml"]["cuda_driver_version"] == 9010
    assert "driver-unreachable" not in codes


def test_couldnt_communicate_alone_does_not_say_the_module_is_loaded():
    line = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running."
    _, _, codes, asks = _run(line + "\n")
    finding = codes["driver-unreachable"]
    assert "loaded but" not in finding.title and "may not be loaded" in finding.title
    assert {"lsmod | grep nvidia", "modinfo -F filename nvidia", "uname -r"} <= set(asks)


def test_nothing_shown_failing_is_not_driver_unreachable():
    # /proc/driver/nvidia/version shown, nvidia-smi and NVML never: whether NVML answers is unknown.
    text = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  396.54  Tue Aug 14 22:25:28 PDT 2018\n"
    _, _, codes, _ = _run(text)
    assert "driver-unreachable" not in codes


def test_nvcc_unsupported_architecture_asks_for_the_toolkit_and_the_gpu():
    _, _, _, asks = _run((EXAMPLES / "openpose-2053-nvcc-cuda110-compute86.txt").read_text(encoding="utf-8"))
    # which nvcc the build ran decides it (PATH, /usr/local/cuda's link, CUDA_HOME), and the GPUs by name on any driver
    assert {"nvcc --version", "which -a nvcc", "ls -ld /usr/local/cuda", "printenv CUDA_HOME", "nvidia-smi -L"} <= set(asks)


def test_slurm_gres_asks_for_the_partitions_gres():
    _, _, _, asks = _run((EXAMPLES / "nemo-launcher-72-sbatch-invalid-gres.txt").read_text(encoding="utf-8"))
    assert "sinfo -o %P %N %G" in asks


# --- cues ---------------------------------------------------------------------------------------------


def test_a_failure_under_the_container_prompt_wins_over_the_hosts_listing():
    snapshot, _, codes, _ = _run(_blind("028"))
    assert snapshot["commands"]["nvidia-smi"]["rc"] != 0
    assert "driver-unreachable" in codes
    assert {"(container) prompt", "(host) prompt"} <= {c["cue"] for c in snapshot["pasted"]["cues"]}


def test_cuda_visible_devices_on_the_command_line_is_the_programs_environment():
    snapshot, _, codes, _ = _run(_blind("032"))
    assert snapshot["env"] == {"CUDA_VISIBLE_DEVICES": "2"}
    assert "cuda-visible-devices-hides-all" in codes


def test_wsl_nvml_failures_ask_the_windows_side_and_are_not_a_linux_driver_fault():
    for prefix in ("017", "018", "019", "020"):
        snapshot, _, codes, asks = _run(_blind(prefix))
        assert "driver-unreachable" not in codes and "gpu-lost" not in codes, prefix
        assert {"nvidia-smi.exe", "ls -l /usr/lib/wsl/lib", "dpkg -l | grep nvidia"} <= set(asks), prefix
        assert snapshot["platform"]["system"] == "Linux"


def test_a_windows_table_in_a_wsl_report_is_the_windows_side():
    snapshot, _, codes, _ = _run(_blind("026"))
    assert snapshot["pasted"]["windows_side"] == {"driver_models": {"0": "TCC"}}
    assert "windows-tcc-mode" in codes and "nvidia-smi" not in snapshot["commands"]
    # Inside WSL 2 the TCC GPU does not exist: the error the reporter meets, where a native Windows machine's TCC GPU is a
    # note (tests/spec/test_platform.py: the P100 beside a WDDM GeForce). One check decides both (checks.windows).
    assert codes["windows-tcc-mode"].severity.name == "ERROR"
    assert [str(c) for c in codes["windows-tcc-mode"].remediation.commands[0].argv] == ["nvidia-smi", "-g", "0", "-dm", "0"]


def test_wsl_driver_pairing_and_windows_paths():
    pairing = "| NVIDIA-SMI 550.60.01              Driver Version: 551.76         CUDA Version: 12.4     |\n"
    snapshot = read_pasted([Source("t", pairing)])
    assert snapshot["platform"]["release"].startswith("microsoft") or "WSL" in snapshot["platform"]["release"]
    portable = "D:\\ComfyUI_windows_portable>.\\python_embeded\\python.exe -s ComfyUI\\main.py\n"
    snapshot = read_pasted([Source("t", portable + "torch 2.3.0+cpu\n")])
    assert snapshot["platform"]["system"] == "Windows"


def test_prompts_and_paths_set_windows_and_the_interpreter():
    text = "PS C:\\Users\\me> C:\\Users\\me\\ComfyUI_windows_portable\\python_embeded\\python.exe -m pip list\nPackage Version\n------- -------\ntorch   2.3.0+cpu\n"
    snapshot = read_pasted([Source("t", text)])
    assert snapshot["platform"]["system"] == "Windows"
    assert snapshot["python"]["executable"] == "C:\\Users\\me\\ComfyUI_windows_portable\\python_embeded\\python.exe"


def test_nvidia_docker_1_names_the_drivers_cuda_and_the_images():
    snapshot, _, codes, asks = _run((EXAMPLES / "nvidia-docker-497-driver80-image90.txt").read_text(encoding="utf-8"))
    assert "toolkit-newer-than-driver" in codes
    assert "nvidia-smi" not in asks  # its table is in the paste


def test_python_exe_run_from_a_cmd_prompt_is_the_interpreter_by_its_full_path():
    # ComfyUI portable's launcher, as users paste it (tests/blind/plans/cases/018-...: the prompt and the command).
    text = "A:\\Sin Sincronización\\Chrome\\ComfyUI_windows_portable>.\\python_embeded\\python.exe -s ComfyUI\\main.py --windows-standalone-build\n"
    snapshot = read_pasted([Source("t", text)])
    assert snapshot["platform"]["system"] == "Windows"
    exe = "A:\\Sin Sincronización\\Chrome\\ComfyUI_windows_portable\\python_embeded\\python.exe"
    assert snapshot["python"]["executable"] == exe
    assert snapshot["python"]["site_packages"] == [
        "A:/Sin Sincronización/Chrome/ComfyUI_windows_portable/python_embeded/Lib/site-packages"
    ]


PLANS2 = ROOT / "tests" / "blind" / "plans2" / "cases"


def _plans2(prefix: str) -> str:
    return next(PLANS2.glob(prefix + "-*")).joinpath("input.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize("case", ["162", "172"])
def test_another_vendors_gpu_alone_is_gpu_none_and_no_nvidia_install(case):
    # 162: docker's --gpus refused on a laptop whose graphics is "Mesa Intel® Xe Graphics"; 172: bitsandbytes' "CUDA
    # driver version is insufficient" from a reporter whose only GPU is an Intel Iris Xe.
    _, report, codes, _ = _run(_plans2(case))
    assert "gpu-none" in codes
    assert re.search(r"Intel", codes["gpu-none"].evidence[0].value)
    prescribed = {"toolkit-newer-than-driver", "framework-driver-too-old", "driver-missing"}
    assert not prescribed & set(codes)
    # docker's refusal (162) is answered by dropping --gpus (h46's rule), never by the NVIDIA Container Toolkit.
    if "container-no-gpu" in codes:
        r = codes["container-no-gpu"].remediation
        argvs = [c.argv for c in r.commands]
        # no docker run is shown (./build.sh starts the container): none is invented, the script's option decides
        assert not r.requires_root and all(str(a[0]) == "docker" and "--gpus" not in map(str, a) for a in argvs)
        assert not any("nvidia-container-toolkit" in str(w) for a in argvs for w in a)


def test_an_intel_gpu_beside_an_nvidia_one_is_not_gpu_none():
    text = _plans2("162") + "\nGraphics NVIDIA GeForce RTX 3050 Laptop GPU\n"
    _, _, codes, _ = _run(text)
    assert "gpu-none" not in codes
    assert "container-no-gpu" in codes


@pytest.mark.parametrize("case, soname", [("153", "libcudnn_cnn.so.9"), ("167", "libcudnn_ops.so.9")])
def test_cudnn9_unable_to_load_any_of_is_cudnn_missing(case, soname):
    # CTranslate2 4.5 (faster-whisper, whisper-ctranslate2) built for cuDNN 9: its sub-library not on the loader's path.
    said = [e for e in match(_plans2(case)) if e.get("entry") == "cudnn9-sublibrary-not-loaded"]
    assert [(e.get("soname"), e.line[:23]) for e in said] == [(soname, "Unable to load any of {")]
    _, _, codes, asks = _run(_plans2(case))
    f = codes["cudnn-missing"]
    assert soname in f.title and "cuDNN 9 for CUDA 12" in f.title
    # CTranslate2 does not search NVIDIA's wheels: cuDNN 9 for CUDA 12 as a wheel, its directory printed for the path
    assert f.remediation.commands[0].argv[-2:] == ("nvidia-cublas-cu12", "nvidia-cudnn-cu12==9.*")
    assert "printenv LD_LIBRARY_PATH" in asks


def test_a_cpu_torch_named_by_its_tag_is_framework_cpu_build():
    # 157: Ultralytics' banner "Python-3.10.11 torch-2.1.0+cpu" over "torch.cuda.is_available(): False".
    snapshot, _, codes, _ = _run(_plans2("157"))
    assert snapshot["python"]["distributions"]["torch"] == "2.1.0+cpu"
    assert "framework-cpu-build" in codes


@pytest.mark.parametrize(
    "pip_says, torch",
    [
        # pip's install command: "Successfully installed" with each name-version, after what it took away.
        (
            "Successfully uninstalled torch-2.1.0+cu118\nSuccessfully installed torch-2.1.0+cpu torchvision-0.16.0+cpu",
            "2.1.0+cpu",
        ),
        ("Collecting torch\n  Downloading torch-2.3.0+cpu-cp310-cp310-win_amd64.whl (159.8 MB)", "2.3.0+cpu"),
        ("  Found existing installation: torch 2.1.0+cpu\nSuccessfully installed torch-2.1.0+cu121", "2.1.0+cu121"),
    ],
)
def test_pips_own_lines_name_the_installed_torch(pip_says, torch):
    snapshot, _, codes, _ = _run(pip_says + "\ntorch.cuda.is_available() returns False\n")
    assert snapshot["python"]["distributions"]["torch"] == torch
    assert ("framework-cpu-build" in codes) == torch.endswith("+cpu")


def test_a_torch_asked_for_on_a_pip_command_line_is_not_the_installed_one():
    _, _, codes, _ = _run("pip install torch==2.1.0+cpu\ntorch.cuda.is_available() returns False\n")
    assert "framework-cpu-build" not in codes


@pytest.mark.parametrize("case", ["107", "130", "170", "176"])
def test_windows_named_in_prose_is_the_platform(case):
    # "win10" (107, 170), "Win11" (130), "On Windows, with CUDA 11.8" (176): no path or prompt says it.
    snapshot, _, _, _ = _run(_plans2(case))
    assert snapshot["platform"]["system"] == "Windows"


@pytest.mark.parametrize(
    "text, system",
    [
        ("It works on Windows, but on my Ubuntu server torch.cuda.is_available() returns False", None),
        ("I'm on macOS 14 and torch.cuda.is_available() returns False", "Darwin"),
    ],
)
def test_weaker_platform_words_yield_to_a_named_linux(text, system):
    snapshot, _, _, _ = _run(text)
    said = [c for c in snapshot.get("pasted", {}).get("cues", []) if c.get("means") in ("Windows", "macOS")]
    assert [c["means"] for c in said] == ([] if system is None else ["macOS"])
    assert (snapshot["platform"]["system"] == "Darwin") == (system == "Darwin")


PLANS3 = ROOT / "tests" / "blind" / "plans3" / "cases"


def _plans3(prefix: str) -> str:
    return next(PLANS3.glob(prefix + "-*")).joinpath("input.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "case, soname, wheel, exe, other",
    [
        # 245: whisper-ctranslate2 on Colab, CTranslate2 3.x (CUDA 11) after the image moved to CUDA 12
        ("245", "libcublas.so.11", "nvidia-cublas-cu11", "python3", "ctranslate2 4.0 or later"),
        # 251: ctranslate2.Translator on a server with a CUDA 11 driver but no cuBLAS 11 runtime
        ("251", "libcublas.so.11", "nvidia-cublas-cu11", "python3", "ctranslate2 4.0 or later"),
        # 246: Windows, CTranslate2 4.x (CUDA 12) without cublas64_12.dll
        ("246", "cublas64_12.dll", "nvidia-cublas-cu12", "python", "ctranslate2==3.24.0"),
    ],
)
def test_ctranslate2_naming_its_cublas_is_cuda_libs_missing_with_the_wheel_of_that_major(case, soname, wheel, exe, other):
    said = [e for e in match(_plans3(case)) if e.get("entry") == "ctranslate2-cublas-not-loadable"]
    assert [(e.get("soname"), e.get("major")) for e in said] == [(soname, wheel[-2:])]
    _, _, codes, _ = _run(_plans3(case))
    f = codes["framework-cuda-libs-missing"]
    assert soname in f.title and f"CUDA {wheel[-2:]} build" in f.title
    cmds = f.remediation.commands
    # (a Windows CUDA 12 build whose release is not shown reads PATH's DLLs and the release first: its cuDNN major)
    first = 2 if soname == "cublas64_12.dll" else 0
    assert [c.argv[0] for c in cmds[:first]] == ["where.exe", exe][:first]
    # (the CUDA 12 build's whole set: cuDNN 9's wheel beside cuBLAS's, h103; a CUDA 11 build's, cuDNN 8's, h180)
    # (245 ran on Colab: the wheel goes into the notebook kernel's interpreter with %pip, gpudoctor.planner.where)
    pip = ("%pip",) if case == "245" else (exe, "-m", "pip")
    cudnn = "nvidia-cudnn-cu12==9.*" if first else "nvidia-cudnn-cu11==8.*"
    assert cmds[first].argv == (*pip, "install", wheel, cudnn)
    # the wheel's directory, printed by the same interpreter, put first where the loader looks (the rest kept)
    path = cmds[first + 1]
    assert isinstance(path, PrependPath) and path.name == ("PATH" if exe == "python" else "LD_LIBRARY_PATH")
    printer = path.parts[0]
    assert isinstance(printer, Output) and printer.argv[:2] == (exe, "-c") and "nvidia.cublas" in printer.argv[2]
    assert path.notebook == (case == "245")  # Colab: set in the kernel's environment, not by !export
    assert other in f.remediation.summary


def test_ctranslate2_cublas_of_cuda10_gets_no_wheel():
    # CTranslate2 1.x bundled cuBLAS 10 in its wheel: there is no NVIDIA wheel of that major to name.
    _, _, codes, _ = _run("RuntimeError: Library libcublas.so.10 is not found or cannot be loaded\n")
    assert "framework-cuda-libs-missing" not in codes


@pytest.mark.parametrize(
    "text, spec",
    [
        # 228: TensorFlow 1.x of 2018 built against NumPy 1.14's C-API (0xc), a NumPy 1.10-1.12 (0xa) imported
        (_plans3("228"), "numpy>=1.14,<2"),
        # NumPy 2's wording names the release the module was built against
        (
            "RuntimeError: module was compiled against NumPy C-API version 0x12 (NumPy 2.0) but the running NumPy "
            "has C-API version 0x10. Check the section C-API incompatibility",
            "numpy>=2.0",
        ),
    ],
)
def test_a_module_built_for_a_newer_numpy_c_api_upgrades_numpy(text, spec):
    _, _, codes, _ = _run(text)
    f = codes["numpy-abi-mismatch"]
    assert f.remediation.commands[0].argv[-3:] == ("install", "--upgrade", spec)


def test_numpys_abi_version_message_is_not_read_as_a_too_old_numpy():
    # The major-ABI check ("ABI version 0x1000009 but this version of numpy is 0x2000000") is NumPy 1 vs 2, not this.
    said = match("RuntimeError: module compiled against ABI version 0x1000009 but this version of numpy is 0x2000000")
    assert not [e for e in said if e.kind == "numpy-too-old"]


def test_nccl_shm_open_denied_is_dev_shm_not_writable_with_its_mode_restored():
    # 213: a bare cluster node, NCCL_DEBUG=INFO's "Call to shm_open failed : Permission denied"; not docker's size.
    _, _, codes, _ = _run(_plans3("213"))
    f = codes["shm-too-small"]
    assert "permission denied" in f.title
    assert [c.argv for c in f.remediation.commands] == [("ls", "-ld", "/dev/shm"), ("sudo", "chmod", "1777", "/dev/shm")]
    assert f.remediation.requires_root and not any("docker" in c.argv for c in f.remediation.commands)


def test_nccl_other_shm_warnings_are_not_read_as_permission_denied():
    said = match("node08:1:2 [0] include/shm.h:27 NCCL WARN Call to shm_open failed : No such file or directory")
    assert not [e for e in said if e.kind == "shm-not-writable"]


def test_tensorrt_unable_to_load_its_library_sets_the_tar_lib_dir_of_that_release():
    # 216: TensorRT 8.4.2.4's tar install; the reporter names /usr/local/TensorRT-8.4.2.4/lib as where the file is.
    _, _, codes, asks = _run(_plans3("216"))
    f = codes["framework-cuda-libs-missing"]
    assert "libnvinfer_builder_resource.so.8.4.2" in f.title
    lib = "/usr/local/TensorRT-8.4.2.4/lib"
    assert f.remediation.commands[0].argv == ("ls", f"{lib}/libnvinfer_builder_resource.so.8.4.2")
    assert f.remediation.commands[1].argv == ("printenv", "LD_LIBRARY_PATH")
    path = f.remediation.commands[2]
    assert isinstance(path, PrependPath) and (path.name, path.literal) == ("LD_LIBRARY_PATH", lib)
    assert "ldconfig -p | grep -i libnvinfer" in asks


def test_tensorrt_with_another_releases_lib_dir_sets_none():
    text = (
        "[libLoader.h::DynamicLibrary::50] Error Code 6: Internal Error (Unable to load library: "
        "libnvinfer_builder_resource.so.8.4.2)\nexport LD_LIBRARY_PATH=/opt/TensorRT-8.4.0.6/lib\n"
    )
    _, _, codes, _ = _run(text)
    assert codes["framework-cuda-libs-missing"].remediation.commands == ()


def test_a_traceback_frame_in_a_windows_file_names_windows():
    # 246: 'File "C:\Users\simon\Desktop\BallonsTranslator_dev_src_with_gitpython\ui\module_manager.py", line 471'
    snapshot, _, _, _ = _run(_plans3("246"))
    assert snapshot["platform"]["system"] == "Windows"
    snapshot, _, _, _ = _run('  File "/mnt/c/Users/me/x.py", line 3, in <module>\nRuntimeError: x\n')
    assert snapshot["platform"]["system"] != "Windows"


@pytest.mark.parametrize(
    "text",
    [
        "RuntimeError: Library cublas64_12.dll is not found or cannot be loaded",  # Windows: python
        "$ /opt/env/bin/python app.py\nImportError: libcudnn.so.8: cannot open shared object file",  # an interpreter
    ],
)
def test_every_catalogue_ask_keeps_its_pipe_a_pipe(text):
    # "|" in a catalogue ask starts its pipe stage, with or without the "{python}" interpreter before it: never a
    # quoted '|' argument (`pip list '|' grep` fails: pip reads '|' as a package name).
    from gpudoctor.parsers.catalogue import components
    from gpudoctor.pasted.ask import _catalogue_cmd

    facts = _run(text)[1].facts
    argvs = [argv for m in messages() for argv in m.ask]
    argvs += [argv for c in components() for argv in (*c.ask, *c.ask_linux, *c.ask_windows)]
    piped = [argv for argv in argvs if "|" in argv]
    assert any(argv[0] == "{python}" for argv in piped)  # the case that went wrong is among them
    for argv in piped:
        cmd = _catalogue_cmd(facts, argv)
        at = list(argv).index("|")
        assert "|" not in cmd.argv and tuple(cmd.pipe) == tuple(argv[at + 1 :]), (argv, cmd)
        assert "{python}" not in cmd.argv


# Compilers and builds of CUDA code (nvcc's host_config.h, nvcc's own errors, torch.utils.cpp_extension): each message
# leads to the asks that decide it, on a minimal paste and on its real example; the same words where nothing failed stay
# quiet.
def _entries(text: str) -> list[str]:
    return [e.get("entry") for e in match(text)]


def _example(name: str) -> str:
    return (EXAMPLES / name).read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("text", "entry", "expected"),
    [
        (
            "/usr/local/cuda/include/crt/host_config.h:143:2: error: #error -- unsupported GNU version! gcc versions "
            "later than 13 are not supported! The nvcc flag '-allow-unsupported-compiler' can be used",
            "nvcc-host-gcc-unsupported",
            ["gcc --version", "nvcc --version", "ls /usr/bin | grep -E ^g(cc|\\+\\+)-[0-9]+$"],
        ),
        (
            "/usr/include/crt/host_config.h:147:2: error: -- unsupported clang version! clang version must be less "
            "than 13 and greater than 3.2 .",
            "nvcc-host-clang-unsupported",
            ["clang --version", "nvcc --version"],
        ),
        (
            r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v11.8\include\crt/host_config.h(153): fatal error C1189: "
            "#error:  -- unsupported Microsoft Visual Studio version! Only the versions between 2017 and 2022 (inclusive) "
            "are supported!",
            "nvcc-host-msvc-unsupported",
            ["where.exe cl", "nvcc --version"],
        ),
        ("nvcc fatal   : Cannot find compiler 'cl.exe' in PATH", "nvcc-cannot-find-cl", ["where.exe cl"]),
        (
            "nvcc fatal   : Value 'sm_89' is not defined for option 'gpu-architecture'",
            "nvcc-gpu-architecture-not-defined",
            ["nvcc --version", "nvcc --list-gpu-arch", "nvidia-smi --query-gpu=name,compute_cap --format=csv"],
        ),
        (
            "OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.",
            "cpp-extension-cuda-home-not-set",
            ["which nvcc", "ls /usr/local"],
        ),
        (
            "RuntimeError: Ninja is required to load C++ extensions",
            "cpp-extension-ninja-required",
            ["ninja --version"],  # (the interpreter is not shown: its pip is not asked)
        ),
        (
            "No CUDA runtime is found, using CUDA_HOME='/usr/local/cuda'",
            "cpp-extension-no-cuda-runtime",
            ["printenv TORCH_CUDA_ARCH_LIST"],
        ),
        (
            "ValueError: Unknown CUDA arch (8.9) or GPU not supported",
            "cpp-extension-unknown-cuda-arch",
            ["printenv TORCH_CUDA_ARCH_LIST", "nvidia-smi --query-gpu=name,compute_cap --format=csv"],
        ),
        (
            "nvcc fatal   : Unknown option '-generate-dependencies-with-compile'",
            "nvcc-unknown-option-generate-dependencies",
            ["nvcc --version", "which nvcc"],
        ),
        (
            "nvcc fatal   : Could not set up the environment for Microsoft Visual Studio using "
            "'C:/Program Files (x86)/Microsoft Visual Studio/2019/Community/VC/Auxiliary/Build/vcvars64.bat'",
            "nvcc-vcvars-setup-failed",
            ["where.exe cl"],
        ),
        (
            "nvcc fatal   : The version ('40000') of the host compiler ('clang') is not supported",
            "nvcc-host-compiler-version-not-supported",
            ["nvcc --version", "clang --version"],
        ),
    ],
    ids=lambda v: v if isinstance(v, str) and v.startswith(("nvcc-", "cpp-")) else None,
)
def test_build_messages_ask_what_decides_them(text, entry, expected):
    assert entry in _entries(text)
    _, _, codes, asks = _run(text)
    assert "internal-check-error" not in codes
    for command in expected:
        assert command in asks, (command, asks)


def test_old_msvc_text_lists_its_years_and_is_caught():
    # CUDA 9's host_config.h named the years, not a range (fireice-uk/xmr-stak#973's report)
    line = "fatal error C1189: #error:  -- unsupported Microsoft Visual Studio version! Only the versions 2012, 2013, 2015 and 2017 are supported!"
    found = [e for e in match(line) if e.get("entry") == "nvcc-host-msvc-unsupported"]
    assert found and found[0].get("supported") == "2012, 2013, 2015 and 2017"


def test_build_messages_on_their_real_examples():
    _, _, codes, asks = _run(_example("ninja-2595-nvcc-host-gcc-later-than-11.txt"))
    assert "gcc --version" in asks and "nvcc --version" in asks
    assert "gcc 11 and older" in codes["host-compiler-unsupported"].title
    gcc = [
        e for e in match(_example("ninja-2595-nvcc-host-gcc-later-than-11.txt")) if e.get("entry") == "nvcc-host-gcc-unsupported"
    ]
    assert gcc[0].get("gcc_max") == "11"
    _, _, codes, asks = _run(_example("espresso-4574-nvcc114-host-clang-unsupported.txt"))
    assert "clang --version" in asks and "clang below 13" in codes["host-compiler-unsupported"].title
    snapshot, _, codes, asks = _run(_example("brushedit-17-nvcc118-msvc-unsupported.txt"))
    assert snapshot["platform"]["system"] == "Windows" and "where.exe cl" in asks
    assert "host-compiler-unsupported" in codes and "pasted-error-unexplained" not in codes
    # nvcc's command line says "-arch sm_61", which reads as Arch Linux: nvcc wanting cl.exe still places it on Windows
    snapshot, _, _, asks = _run(_example("pydrr-6-nvcc-cannot-find-cl-exe.txt"))
    assert snapshot["platform"]["system"] == "Windows" and "where.exe cl" in asks
    # the paste shows nvcc 11.6 already: its --version is not asked again; its architecture list and the GPU's are
    _, _, codes, asks = _run(_example("pycuda-440-nvcc116-sm89-not-defined.txt"))
    assert "nvcc --version" not in asks and "nvcc --list-gpu-arch" in asks
    # nvcc 11.6 and sm_89 (CUDA 11.8 and later): the paste decides it
    assert "toolkit-arch-unsupported" in codes and "pasted-error-unexplained" not in codes
    arch = [
        e
        for e in match(_example("pycuda-440-nvcc116-sm89-not-defined.txt"))
        if e.get("entry") == "nvcc-gpu-architecture-not-defined"
    ]
    assert arch[0].get("arch") == "sm_89"
    _, _, _, asks = _run(_example("flownet2-218-cuda-home-not-set.txt"))
    assert "which nvcc" in asks and any(a.endswith("print(torch.__version__, torch.version.cuda)") for a in asks)
    assert "where.exe nvcc" not in asks  # a Windows program is not asked on Linux
    _, _, codes, asks = _run(_example("gptq-33-gxx-above-cuda117-bound.txt"))
    title = codes["host-compiler-unsupported"].title
    assert "g++ 12.2.1" in title and "CUDA 11.7" in title and ">=6.0.0, <=11.5.0" in title
    _, _, codes, _ = _run(_example("lbann-105-nvcc-host-compiler-version-not-supported.txt"))
    assert "clang (version 40000)" in codes["host-compiler-unsupported"].title
    _, _, _, asks = _run(_example("knn-cuda-14-ninja-required.txt"))
    assert "/home/liy0r/anaconda3/envs/pt/bin/python -m pip show ninja" in asks  # the interpreter of the traceback
    _, _, _, asks = _run(_example("dpft-3-docker-build-no-cuda-runtime.txt"))
    assert any(a.endswith("torch.cuda.is_available())") for a in asks)
    _, _, _, asks = _run(_example("ootdiffusion-65-nvcc10-generate-dependencies.txt"))
    assert "nvcc --version" in asks and "which nvcc" in asks
    snapshot, _, _, asks = _run(_example("stylegan-web-10-nvcc-vcvars64-setup-failed.txt"))
    assert snapshot["platform"]["system"] == "Windows" and "where.exe cl" in asks
    _, _, _, asks = _run(_example("basicsr-354-unknown-cuda-arch-86-torch13.txt"))
    assert "printenv TORCH_CUDA_ARCH_LIST" in asks
    snapshot, _, _, asks = _run(_example("apex-521-error-checking-compiler-version-cl.txt"))
    assert snapshot["platform"]["system"] == "Windows" and "where.exe cl" in asks and "which c++" not in asks


@pytest.mark.parametrize(
    "text",
    [
        # the override flag on a command line that compiled: no host_config.h refusal
        "/usr/local/cuda/bin/nvcc -allow-unsupported-compiler -ccbin gcc-12 -c kernel.cu -o kernel.o",
        # a script's own words about CUDA_HOME, not cpp_extension's error
        'echo "CUDA_HOME environment variable is not set and CUDA is not found in /usr/local/cuda"',
        # another tool's message about an architecture (cuobjdump reads binaries, it does not compile)
        "cuobjdump fatal   : Value 'sm_120' is not defined for option 'gpu-architecture'",
        # BuildExtension's fallback where ninja is missing (a warning: the slow backend builds instead)
        "UserWarning: Attempted to use ninja as the BuildExtension backend but we could not find ninja.. Falling back",
        # PyTorch's ninja build line that passes the option to an nvcc that knows it
        "[1/2] /usr/local/cuda/bin/nvcc --generate-dependencies-with-compile --dependency-output a.o.d -c a.cu -o a.o",
        # ROCm's twin of the no-runtime line
        "No ROCm runtime is found, using ROCM_HOME='/opt/rocm'",
        # cl.exe named where nothing failed
        r"-- Check for working CXX compiler: C:/Program Files/Microsoft Visual Studio/2022/bin/cl.exe - works",
    ],
)
def test_build_words_where_nothing_failed_stay_quiet(text):
    family = {
        "nvcc-host-gcc-unsupported",
        "nvcc-host-clang-unsupported",
        "nvcc-host-msvc-unsupported",
        "nvcc-cannot-find-cl",
        "nvcc-gpu-architecture-not-defined",
        "cpp-extension-cuda-home-not-set",
        "cpp-extension-error-checking-compiler",
        "cpp-extension-ninja-required",
        "cpp-extension-no-cuda-runtime",
        "cpp-extension-unknown-cuda-arch",
        "cpp-extension-compiler-above-cuda-bound",
        "nvcc-host-compiler-version-not-supported",
        "nvcc-unknown-option-generate-dependencies",
        "nvcc-vcvars-setup-failed",
    }
    assert not family & set(_entries(text))
    _, _, codes, asks = _run(text)
    assert not any(a.startswith(("gcc --version", "where.exe cl", "nvcc --list-gpu-arch", "which nvcc")) for a in asks)


# --- the driver's own health (h118): Xid lines by the bucket of NVIDIA's Xid catalog, NVML's and CUDA's words


def _all_argv(report) -> list[tuple[str, ...]]:
    """Every command any finding of the report proposes (each word as text)."""
    return [
        tuple(str(w) for w in c.argv)
        for f in report.findings
        if f.remediation
        for c in f.remediation.commands
        if hasattr(c, "argv")
    ]


def test_an_application_xid_alone_is_no_finding():
    # Xid 13 (relion#436): the program's own illegal instruction; the GPU is healthy, nothing in the environment to fix.
    snapshot, report, codes, _ = _run((EXAMPLES / "relion-436-xid13-graphics-exception.txt").read_text(encoding="utf-8"))
    assert "xid-application" in {e["kind"] for e in snapshot["pasted"]["errors"]}
    assert codes == {}


def test_xid_48_on_a_node_is_gpu_ecc_errors_reset_at_its_bus_id():
    text = (EXAMPLES / "gpu-operator-1146-xid48-dbe-validator.txt").read_text(encoding="utf-8")
    _, report, codes, _ = _run(text)
    f = codes["gpu-ecc-errors"]
    assert f.severity.name == "ERROR" and "0000:07:00.0" in f.title and "Xid 48" in f.title
    argv = [tuple(str(w) for w in c.argv) for c in f.remediation.commands]
    assert argv == [
        ("nvidia-smi", "-q", "-d", "ECC,ROW_REMAPPER,PAGE_RETIREMENT", "-i", "0000:07:00.0"),
        ("nvidia-smi", "--gpu-reset", "-i", "0000:07:00.0"),
    ]
    assert [c.root for c in f.remediation.commands] == [False, True]
    # a hardware fault: nothing installed, no driver touched
    assert not any(a[0] in ("apt-get", "dnf", "yum", "pip", "conda") or "install" in a for a in _all_argv(report))


def test_cuda_ecc_uncorrectable_names_no_gpu_so_the_query_is_of_every_gpu():
    text = (EXAMPLES / "deepfacelab-linux-89-ecc-uncorrectable.txt").read_text(encoding="utf-8")
    _, _, codes, _ = _run(text)
    argv = [tuple(str(w) for w in c.argv) for c in codes["gpu-ecc-errors"].remediation.commands]
    assert argv == [("nvidia-smi", "-q", "-d", "ECC,ROW_REMAPPER,PAGE_RETIREMENT"), ("nvidia-smi", "--gpu-reset", "-i", "<gpu>")]


def test_the_ecc_message_in_a_programs_own_code_is_quiet():
    # a training loop that retries on the message (a string literal of its source): not an error that happened
    text = 'except RuntimeError as e:\n    if "uncorrectable ecc error encountered" in str(e).lower():\n        retries += 1\n'
    _, _, codes, _ = _run(text)
    assert "gpu-ecc-errors" not in codes


def test_firmware_xids_ask_what_decides_gsp_and_install_nothing():
    text = (EXAMPLES / "nvidia-forum-364958-xid120-xid62-gsp.txt").read_text(encoding="utf-8")
    snapshot, report, codes, asks = _run(text)
    kinds = [e["kind"] for e in snapshot["pasted"]["errors"]]
    assert "gpu-firmware-error" in kinds and "xid-application" in kinds  # the Xid 45 after the halt is the cleanup
    assert set(codes) == {"pasted-error-unexplained"}
    assert {"cat /proc/driver/nvidia/version", "nvidia-smi -q | grep -i GSP Firmware", "sudo nvidia-bug-report.sh"} <= set(asks)
    assert _all_argv(report) == []


def test_the_drivers_probe_finding_the_gpu_fallen_off_the_bus_is_gpu_lost_at_its_bus_id():
    text = (
        "[ 1843.308145] NVRM: The NVIDIA GPU 0000:b3:00.0\n"
        "               NVRM: (PCI ID: 10de:26b5) installed in this system has\n"
        "               NVRM: fallen off the bus and is not responding to commands.\n"
    )
    _, _, codes, _ = _run(text)
    f = codes["gpu-lost"]
    assert "0000:b3:00.0" in f.title
    argv = [tuple(str(w) for w in c.argv) for c in f.remediation.commands]
    assert ("lspci", "-s", "0000:b3:00.0") in argv and argv[-1] == ("reboot",)


def test_pynvmls_driver_not_loaded_is_the_driver_unreachable_and_asks_for_the_module():
    text = (EXAMPLES / "gpustat-110-pynvml-driver-not-loaded.txt").read_text(encoding="utf-8")
    _, _, codes, asks = _run(text)
    assert "driver-unreachable" in codes
    assert {"lsmod | grep nvidia", "modinfo -F filename nvidia", "uname -r"} <= set(asks)


def test_nvidia_smis_device_handle_unknown_error_is_gpu_lost_at_its_bus_id():
    text = (EXAMPLES / "xxd3vin-workspace-19-device-handle-unknown-error.txt").read_text(encoding="utf-8")
    _, report, codes, _ = _run(text)
    f = codes["gpu-lost"]
    assert "0000:0B:00.0" in f.title
    assert ("reboot",) in _all_argv(report) and not any("install" in a for a in _all_argv(report))


def test_no_devices_with_rm_init_adapter_reads_the_kernel_log_and_lspci_before_changing_anything():
    text = (EXAMPLES / "open-gpu-kernel-modules-862-no-devices-rm-init-adapter.txt").read_text(encoding="utf-8")
    snapshot, report, codes, asks = _run(text)
    assert "nvrm-init-failed" in {e["kind"] for e in snapshot["pasted"]["errors"]}
    f = codes["driver-unreachable"]
    assert "brought up no GPU" in f.title and "may not be loaded" not in f.title
    argv = [tuple(str(w) for w in c.argv) for c in f.remediation.commands]
    assert argv == [("dmesg",), ("lspci", "-nnk", "-d", "10de:")] and f.remediation.commands[0].pipe == ("grep", "-i", "nvrm")
    assert {"cat /proc/driver/nvidia/version", "lspci -vvv -d 10de:"} <= set(asks)
    assert ("reboot",) not in _all_argv(report)


def test_nvml_function_not_found_asks_for_the_driver_and_the_binding():
    text = (EXAMPLES / "gpustat-105-nvml-function-not-found.txt").read_text(encoding="utf-8")
    _, report, codes, asks = _run(text)
    assert set(codes) == {"pasted-error-unexplained"} and _all_argv(report) == []
    # (in the environment the traceback's site-packages names, h266: the program's own interpreter)
    assert "nvidia-smi" in asks and "~/gitProject/venv/siren/bin/python -m pip list | grep -i -E pynvml|nvidia-ml-py" in asks


def test_a_device_handle_not_found_is_not_a_lost_gpu():
    # "...: Not Found" is a GPU the driver never brought up (another cause), not one that fell off the bus
    _, _, codes, _ = _run("Unable to determine the device handle for GPU 0000:01:00.0: Not Found\n")
    assert "gpu-lost" not in codes


def test_rm_init_adapter_beside_the_nvrm_api_mismatch_asks_nothing_of_its_own():
    # bazzite#2668: the module of another version than the driver's files finds no GSP firmware of its own version;
    # the mismatch decides (catalogue.toml's `unless`), so the BAR and driver-version asks would only add noise
    text = (ROOT / "tests/pasted/cases/bazzite-2668-nvrm-570-153-vs-570-144/report.txt").read_text(encoding="utf-8")
    snapshot, _, codes, asks = _run(text)
    assert "nvrm-init-failed" in {e["kind"] for e in snapshot["pasted"]["errors"]}
    assert "driver-library-mismatch" in codes
    assert "lspci -vvv -d 10de:" not in asks


def test_the_recovery_action_xid_is_the_drivers_word_not_a_failure_of_its_own():
    line = "Mar 29 15:38:59 kernel: NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)\n"
    snapshot, _, codes, _ = _run(line)
    (e,) = [x for x in snapshot["pasted"]["errors"] if x["kind"] == "gpu-recovery-action"]
    assert dict(e["values"])["action"] == "GPU Reset Required"
    assert codes == {}


def test_the_gsp_firmware_missing_alone_asks_for_the_module_and_the_firmware_directories():
    text = (
        "[   23.991660] nvidia 0000:07:00.0: Direct firmware load for nvidia/570.144/gsp_ga10x.bin failed with error -2\n"
        "[   23.991667] NVRM: RmFetchGspRmImages: No firmware image found\n"
    )
    _, report, codes, asks = _run(text)
    assert set(codes) == {"pasted-error-unexplained"} and _all_argv(report) == []
    assert {"cat /proc/driver/nvidia/version", "ls /lib/firmware/nvidia"} <= set(asks)


def test_an_amd_card_named_with_its_board_revision_is_gpu_none():
    # plans16/1643: "GPU: MSI AMD Radeon RX 6750 XT MECH 2X 12GB GDDR6 V1": the board's revision "V1" is no Tesla V100,
    # so the machine's only GPU named is AMD's. AUTOMATIC1111/stable-diffusion-webui#1220
    # (https://github.com/AUTOMATIC1111/stable-diffusion-webui/issues/1220, a comment, verbatim): another AMD card alone.
    amd = next((ROOT / "tests" / "blind" / "plans16" / "cases").glob("1643-*")).joinpath("input.txt")
    for text in (
        amd.read_text(encoding="utf-8"),
        "It seems Torch can't see/use the GPU.\n"
        "Device: AMD Radeon RX 570 Series (polaris10, LLVM 12.0.1, DRM 3.46, 5.18.19_1) (0x67df)\n",
    ):
        _, _, codes, _ = _run(text)
        assert "gpu-none" in codes
        assert re.search(r"Radeon", codes["gpu-none"].evidence[0].value)
        # AMD's route is named beside the CPU (pytorch/pytorch README.md: ROCm builds, Linux only)
        assert "ROCm" in codes["gpu-none"].remediation.summary
    # an Intel GPU alone (plans2/172) is told no ROCm route
    _, _, codes, _ = _run(_plans2("172"))
    assert "ROCm" not in codes["gpu-none"].remediation.summary
    # the quiet twin: a Tesla V100 (or V100S) beside the same AMD card is an NVIDIA GPU
    for nvidia in ("V100", "V100S"):
        _, _, codes, _ = _run("It only uses my cpu.\nGPU: AMD Radeon RX 570 and a " + nvidia + " 32GB\n")
        assert "gpu-none" not in codes


# A framework add-on imported without the package that carries its integration with the framework (DALI's TensorFlow
# plugin, Transformer Engine's PyTorch extension): extension-not-built, whose plan installs that package with the
# interpreter that failed (from the add-on's own index, where the paste's pip command names one) and imports the module.
@pytest.mark.parametrize(
    ("text", "install", "index"),
    [
        (_example("dali-1263-conda-tf112-no-matching-dali-plugin.txt"), "nvidia-dali-tf-plugin", True),
        (
            (ROOT / "tests/blind/plans19/cases").glob("1905-*").__next__().joinpath("input.txt").read_text(encoding="utf-8"),
            "nvidia-dali-tf-plugin",
            True,
        ),
        (_example("te-1147-pip-te190-import-pytorch-stopiteration.txt"), "transformer-engine[pytorch]", False),
        (
            (ROOT / "tests/blind/plans19/cases").glob("1917-*").__next__().joinpath("input.txt").read_text(encoding="utf-8"),
            "transformer-engine[pytorch]",
            False,
        ),
    ],
)
def test_addon_without_its_framework_extension(text, install, index):
    _, report, codes, _ = _run(text)
    assert "extension-not-built" in codes
    steps = [tuple(map(str, c.argv)) for c in codes["extension-not-built"].remediation.commands]
    installs = [s for s in steps if s[1:4] == ("-m", "pip", "install")]
    assert installs and installs[0][-1] == install
    assert ("--extra-index-url" in installs[0]) == index
    assert any(s[1] == "-c" and s[2].startswith("import ") for s in steps)
    if install.startswith("transformer-engine"):
        assert "--no-build-isolation" in installs[0]
        assert any(s[3:5] == ("uninstall", "-y") for s in steps)
