"""Where the reporter's commands run (gpudoctor.planner.where), decided once from the paste and used by every printed
step, asks and plan alike; and the asks that decide, keyed by the component the paste names
(gpudoctor/parsers/catalogue.toml's [[component]]). Short pastes written for these tests; argv and fields, not prose."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.cmdline import Cmd, SetEnv, Unrenderable, quote_windows, render, render_lines
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.parsers.catalogue import components
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.ask import ask_for
from gpudoctor.planner import where
from gpudoctor.planner.prescribe import build


def _run(text: str):
    snap = validate_snapshot(read_pasted([Source("report.txt", text)]), "report")
    report = diagnose(ReplayHost(snap))
    target = where.shell(report.facts)
    plan = build(report.findings, target)
    steps = [c for s in plan.steps for c in s.commands if isinstance(c, Cmd)]
    return report, target, steps, ask_for(report.facts, report.findings)


def _argvs(asks) -> list[tuple[str, ...]]:
    return [a.command.words for a in asks]


# --- the shell ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "shell"),
    [
        ('PS C:\\Users\\me> python -c "import torch"\nRuntimeError: Library cublas64_12.dll is not found', "powershell"),
        ("C:\\Users\\me\\app>python main.py\nRuntimeError: Library cublas64_12.dll is not found", "cmd"),
        # Windows, no prompt shown: one line that both shells run alike.
        ("RuntimeError: Library cublas64_12.dll is not found or cannot be loaded", "windows"),
        ("$ python3 train.py\nImportError: libcudnn.so.8: cannot open shared object file", "posix"),
        # No OS named and nothing only a POSIX system shows: lines every shell runs alike.
        ("I have a 3060 and get: UserWarning: FP16 is not supported on CPU; using FP32 instead", "any"),
        # ...but a POSIX path, a distribution's name or a soname decides it (quiet twins).
        (
            'File "/home/me/env/lib/python3.10/site-packages/whisper/transcribe.py"\nUserWarning: FP16 is not supported on CPU; using FP32 instead',
            "posix",
        ),
        ("Ubuntu 22.04, a 3060: UserWarning: FP16 is not supported on CPU; using FP32 instead", "posix"),
    ],
)
def test_the_shell_is_the_prompts_or_both_windows_shells(text, shell):
    assert _run(text)[1] == shell


def test_a_windows_program_with_code_is_written_so_cmd_and_powershell_read_one_argument():
    # webui-user.bat's users type into cmd.exe: a single-quoted program is three words there.
    text = (
        'venv "C:\\sd\\webui\\venv\\Scripts\\Python.exe"\n'
        "RuntimeError: Torch is not able to use GPU; add --skip-torch-cuda-test to COMMANDLINE_ARGS variable to disable this check\n"
    )
    report, target, _, asks = _run(text)
    assert target == "windows"
    code = [a.command for a in asks if a.command.words[1:2] == ("-c",)]
    assert code and code[0].words[0] == "C:\\sd\\webui\\venv\\Scripts\\Python.exe"
    line = render(code[0], target)
    assert "'" not in line.split(" -c ", 1)[0] and line.split(" -c ", 1)[1].startswith('"import torch;')


def test_the_windows_target_quotes_only_what_both_shells_hold_alike():
    assert quote_windows("torch==2.4.*") == '"torch==2.4.*"'
    assert quote_windows("xformers==0.0.23.post1") == "xformers==0.0.23.post1"
    assert quote_windows("numpy>=1.14,<2") == '"numpy>=1.14,<2"'
    assert quote_windows("C:\\a\\b.exe") == "C:\\a\\b.exe"
    for bad in ("$env:PATH", 'say "hi"', "100%", "a`b", "", "C:\\dir with space\\", "\u201cx\u201d"):
        with pytest.raises(Unrenderable):
            quote_windows(bad)
    # Where no line runs alike in both (a quoted program, a variable), the PowerShell line, and a note saying so.
    spaced = Cmd(("C:\\Program Files\\App\\python.exe", "-m", "pip", "list"))
    assert render(spaced, "windows") == render(spaced, "powershell")
    assert render_lines(spaced, "windows")[0] == "# in PowerShell"
    assert render_lines(SetEnv("CUDA_VISIBLE_DEVICES", "0"), "windows") == ["# in PowerShell", "$env:CUDA_VISIBLE_DEVICES = '0'"]
    assert render_lines(Cmd(("nvidia-smi", "-pm", "1"), root=True), "windows") == ["# as Administrator", "nvidia-smi -pm 1"]


# --- the interpreter ---------------------------------------------------------------------------------------------


def test_an_environments_site_packages_names_the_interpreter_of_plan_and_asks():
    # A venv inside a container (/opt/svc/venv): its bin/python, not the image's python3.
    text = (
        "ImportError: /opt/svc/venv/lib/python3.10/site-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: "
        "undefined symbol: _ZN3c105ErrorC2ENS_14SourceLocationENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE\n"
    )
    report, _, steps, asks = _run(text)
    assert report.facts.frameworks.python.value.executable == "/opt/svc/venv/bin/python"
    # (the release installed is read in the rebuild's plan since h258, so it is no longer asked apart)
    assert ("/opt/svc/venv/bin/python", "-m", "pip", "show", "flash-attn") in [c.words for c in steps]
    assert {c.words[0] for c in steps if c.words[0].endswith(("python", "python3"))} == {"/opt/svc/venv/bin/python"}
    assert not [a for a in _argvs(asks) if a[0].endswith(("python", "python3")) and a[0] != "/opt/svc/venv/bin/python"]


@pytest.mark.parametrize(
    "site",
    [
        "/usr/lib/python3/dist-packages",
        "/usr/local/lib/python3.10/site-packages",
        "/home/u/.local/lib/python3.10/site-packages",
        # Paths the reporter wrote over are no interpreter to run.
        "/path/to/Anaconda3/envs/x/lib/python3.9/site-packages",
        "/home/$USER/miniconda3/envs/o/lib/python3.11/site-packages",
    ],
)
def test_the_systems_the_users_and_a_written_over_site_keep_python3(site):
    text = (
        f'  File "{site}/torch/cuda/__init__.py", line 9, in _lazy_init\nAssertionError: Torch not compiled with CUDA enabled\n'
    )
    report, _, _, _ = _run(text)
    assert report.facts.frameworks.python.value.executable == "python3"


def test_a_webui_launcher_and_its_venv_make_the_venvs_python_the_interpreter():
    text = (
        "NVIDIA GeForce RTX 5080 with CUDA capability sm_120 is not compatible with the current PyTorch installation.\n"
        "The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_61 sm_70 sm_75 sm_80 sm_86 sm_90.\n"
        "Running webui-user.bat rebuilds the venv with the old torch.\n"
    )
    report, target, steps, asks = _run(text)
    assert target == "windows"
    pips = [c.words for c in steps if c.words[1:3] == ("-m", "pip")]
    assert pips and {w[0] for w in pips} == {"venv\\Scripts\\python.exe"}
    assert {w[0] for w in _argvs(asks) if w[0] != "nvidia-smi"} == {"venv\\Scripts\\python.exe"}


def test_a_program_in_an_image_run_with_gpus_is_asked_inside_that_image():
    text = (
        "docker run --rm --gpus all -p 8000:8000 -e HF_TOKEN=x --ipc=host \\\n"
        "    example/llm-server:latest --model some/model\n"
        "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
        "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n"
    )
    _, target, _, asks = _run(text)
    assert target == "posix"
    inside = [w for w in _argvs(asks) if w[:1] == ("docker",)]
    prefix = ("docker", "run", "--rm", "--gpus", "all", "--entrypoint", "python3", "example/llm-server:latest")
    assert inside and all(w[:8] == prefix for w in inside)
    # The architectures torch carries decide a missing kernel image: asked in the image.
    assert any("torch.cuda.get_arch_list()" in w[-1] for w in inside)
    assert not [w for w in _argvs(asks) if w[0] in ("python3", "python")]


def test_a_conda_environment_lists_its_packages_with_conda_and_a_conda_forge_build_by_name():
    text = (
        "I installed it in a conda environment.\n"
        "CUDA error 35 at /home/conda/feedstock_root/build_artifacts/llama.cpp_1703017359354/work/ggml-cuda.cu:493: "
        "CUDA driver version is insufficient for CUDA runtime version\n"
    )
    _, _, steps, asks = _run(text)
    printed = [*_argvs(asks), *(c.words for c in steps)]
    # conda's own listing, asked once: the conda-forge build's `conda list llama.cpp` is a filter of the whole listing
    # asked beside it, so it is folded into it, its reason kept (gpudoctor.pasted.ask._without_filtered_twice)
    listing = [a for a in asks if a.command.words[:2] == ("conda", "list")]
    assert [a.command.words for a in listing] == [("conda", "list")]
    assert "the conda-forge llama.cpp installed and its build string" in listing[0].why
    assert not [w for w in printed if w[1:4] == ("-m", "pip", "list")]


def test_a_cuda_sample_is_a_compiled_program_with_no_python_to_ask():
    text = (
        "C:\\CUDA\\v8.0\\extras\\demo_suite>bandwidthTest.exe\n"
        "cudaGetDeviceProperties returned 35\n-> CUDA driver version is insufficient for CUDA runtime version\n"
        "CUDA error at D:/bld/bandwidthTest/bandwidthTest.cu:255 code=35(cudaErrorInsufficientDriver)\n"
    )
    _, target, steps, asks = _run(text)
    assert target == "cmd"
    printed = [*_argvs(asks), *(c.words for c in steps)]
    assert ("nvidia-smi",) in printed and not [w for w in printed if w[0] in ("python", "python3")]


# --- the deciding asks of the components -------------------------------------------------------------------------


def test_every_component_names_its_source_and_its_asks_are_commands():
    for c in components():
        assert c.source.get("url") or (c.source.get("repo") and c.source.get("commit")), c.id
        # (a component may ask only beside an error kind it names, its `when`: accelerate's saved configuration)
        when = [argv for _, more, _ in c.when for argv in more]
        assert c.decides and (c.ask or c.ask_windows or c.ask_linux or c.ask_container or when), c.id
        for argv in (*c.ask, *c.ask_windows, *c.ask_linux, *c.ask_container, *c.ask_unmanaged, *when):
            assert argv and argv[0] not in ("|", "") and argv.count("|") <= 1, (c.id, argv)


def test_onnxruntime_on_windows_asks_its_build_and_where_the_dlls_lie():
    text = "### Platform\n\nWindows\n\n### ONNX Runtime API\n\nPython\n\n### Execution Provider\n\nCUDA\n"
    _, target, _, asks = _run(text)
    assert target == "windows"
    argvs = _argvs(asks)
    assert ("where.exe", "cudnn*.dll", "cublas*.dll", "cudart*.dll") in argvs
    assert any(w[0] == "python" and "get_available_providers()" in w[-1] for w in argvs)
    assert ("python", "-m", "pip", "list") in argvs  # onnxruntime-gpu or the CPU package, and its version
    assert render(Cmd(("where.exe", "cudnn*.dll")), target) == 'where.exe "cudnn*.dll"'


def test_onnxruntime_in_a_compiled_program_asks_no_interpreter():
    text = (
        "### ONNX Runtime API\n\nC#\n\nCould not load library cudnn_cnn_infer64_8.dll. Error code 127\n### Platform\n\nWindows\n"
    )
    argvs = _argvs(_run(text)[3])
    assert ("where.exe", "cudnn*.dll", "cublas*.dll", "cudart*.dll") in argvs
    assert not [w for w in argvs if w[0] in ("python", "python3")]


def test_paddle_named_beside_cjk_text_asks_its_own_check():
    text = "我在ubuntu20.04的conda环境中安装了paddle-gpu2.3.0，运行paddle.utils.run_check()但是报错了\n"
    argvs = _argvs(_run(text)[3])
    # (Paddle 2's paddle.utils.run_check, else Paddle 1's paddle.fluid.install_check.run_check: one probe for both)
    assert any(w[:2] == ("python3", "-c") and w[3:] == ("utils", "run_check", "paddle.fluid.install_check") for w in argvs)
    # "conda环境" (a conda environment): its packages, cuDNN's build among them, with conda list.
    assert ("conda", "list") in argvs and not [w for w in argvs if w[1:4] == ("-m", "pip", "list")]


def test_a_server_in_a_named_container_asks_its_own_log():
    text = (
        "OS: Ubuntu 22.04\nNVIDIA driver version: 545.23.06\n"
        "I ran `docker run -d --gpus=all -v ollama:/root/.ollama -p 11434:11434 --name llm ollama/ollama` "
        "and ollama does not use the GPU.\n"
    )
    argvs = _argvs(_run(text)[3])
    # the server runs in the container: its log is the container's, no systemd unit of the host holds it
    assert ("docker", "logs", "llm") in argvs and ("journalctl", "-u", "ollama", "--no-pager") not in argvs


def test_an_unnamed_container_is_listed_among_its_images_containers():
    # the container is not named, its image is: `docker ps` lists that image's containers, and their log is asked
    # once one is known (a command holding <container> is no command to paste)
    text = "I ran docker run --gpus all ollama/ollama and ollama uses only the CPU. Ubuntu 22.04\n"
    argvs = _argvs(_run(text)[3])
    assert ("docker", "ps", "-a", "--filter", "ancestor=ollama/ollama") in argvs
    assert not [w for w in argvs if w[:2] == ("docker", "logs")]


def test_a_torch_build_shown_is_not_asked_again():
    text = "torch 2.4.1+cu121\nRuntimeError: CUDA error: no kernel image is available for execution on the device\n"
    argvs = _argvs(_run(text)[3])
    assert not [w for w in argvs if "torch.utils.collect_env" in w]


# --- Linux programs never reach a Windows reporter -------------------------------------------------------------


@pytest.mark.parametrize("prompt", ["PS C:\\Users\\me> ", "C:\\Users\\me>", ""])
def test_nvidia_smi_that_cannot_reach_the_driver_on_windows_gets_windows_steps(prompt):
    # nvidia-smi's own words on Windows (no kernel log, module or DKMS there): the step reads which driver holds the
    # GPU, in a program both Windows shells have; no dmesg, reboot or dkms, as a Linux machine gets.
    text = (
        f"{prompt}nvidia-smi\n"
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
        "Make sure that the latest NVIDIA driver is installed and running.\n" + ("" if prompt else "This is on Windows 11.\n")
    )
    report, target, steps, asks = _run(text)
    assert target in ("powershell", "cmd", "windows")
    assert [f.code for f in report.findings] == ["driver-unreachable"]
    assert [c.argv for c in steps] == [("pnputil", "/enum-devices", "/class", "Display"), ("nvidia-smi",)]
    from gpudoctor.planner.needs import LINUX_ONLY

    assert not {w for a in asks for w in a.command.words[:1]} & LINUX_ONLY, _argvs(asks)


def test_the_same_words_on_linux_read_the_kernel_log():
    text = (
        "$ nvidia-smi\nNVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
        "Make sure that the latest NVIDIA driver is installed and running.\n"
    )
    report, target, steps, asks = _run(text)
    assert target == "posix"
    assert ("dmesg",) in [c.argv for c in steps]
    assert ("modinfo", "-F", "filename", "nvidia") in _argvs(asks)


@pytest.mark.parametrize(
    ("said", "container"),
    [
        ("I run the training inside the docker container.", True),
        ("I ran it in a running container on the same host.", True),
        # docs/pasted.md: "a container only built, pulled or listed is not" where the program ran.
        ("I installed torch in the docker image and pushed it to our registry.", False),
        ("The wheel is in the docker hub image we pulled.", False),
        # The image the program's own image is built from, named with its tag: SYSTRAN/faster-whisper#734 (plans9 937),
        # NVIDIA/nvidia-docker#400 and #399 (their descriptions' words); a list of base images tried is none
        # (ray-project/ray#45674, tests/blind/plans4/cases/325-*/input.txt).
        ("I am using the base image of ```nvidia/cuda:11.6.2-cudnn8-runtime-ubuntu20.04```", True),
        ("Im using the following docker image, based on `nvidia/cuda:7.0-cudnn4-devel-ubuntu14.04`NVIDIA official", True),
        ("So I build from `nvidia/cuda:8.0-cudnn5-devel-ubuntu14.04`.", True),
        ("I have tried the following base images with no luck:", False),
    ],
)
def test_a_container_is_where_it_ran_only_when_the_text_says_it_ran_there(said, container):
    from gpudoctor.facts import CONTAINER_SAID

    report = _run(f"{said}\nRuntimeError: No CUDA GPUs are available\n")[0]
    assert any(c.get("cue") == CONTAINER_SAID for c in report.facts.pasted.cues) is container


_ERR = "ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory\n"
_PAIRING = "| NVIDIA-SMI 550.54.10    Driver Version: 551.61    CUDA Version: 12.4 |\n"


@pytest.mark.parametrize(
    ("text", "system"),
    [
        # WSL (its /usr/lib/wsl/lib, or the Linux NVIDIA-SMI beside the Windows driver) wins over Windows' prompts and
        # paths, shown before or after it: "a WSL report shows Windows' side too; the program runs in Linux".
        ("/usr/lib/wsl/lib/libcuda.so.1\nPS C:\\Users\\me> wsl --version\n", "Linux"),
        ("PS C:\\Users\\me> wsl --version\n/usr/lib/wsl/lib/libcuda.so.1\n", "Linux"),
        ("ls /usr/lib/wsl/lib\nC:\\Users\\me>nvidia-smi\n", "Linux"),
        (_PAIRING + "PS C:\\Users\\me> wsl --version\n", "Linux"),
        ("PS C:\\Users\\me> wsl --version\n" + _PAIRING, "Linux"),
        (_PAIRING + '  File "C:\\Users\\me\\x.py", line 3\n', "Linux"),
        # Without WSL, a Windows prompt, path, traceback frame or Windows file is Windows.
        ("PS C:\\Users\\me> python x.py\n" + _ERR, "Windows"),
        ('  File "C:\\Users\\me\\x.py", line 3\n' + _ERR, "Windows"),
        ("cudnn64_8.dll\n" + _ERR, "Windows"),
        # A Windows file name only where no Linux is named.
        ("cudnn64_8.dll beside /home/me/app\n" + _ERR, "Linux"),
        # "Windows 10/11" named in a report with no other platform; with WSL named, Linux.
        ("I am on Windows 10.\n" + _ERR, "Windows"),
        ("Windows 10 host, Ubuntu 22.04 in WSL2\n" + _ERR, "Linux"),
        ("I am on Windows 11.\nls /usr/lib/wsl/lib\nlibcuda.so.1\n" + _ERR, "Linux"),
        (_PAIRING + "I am on Windows 10.\n" + _ERR, "Linux"),
        # The weaker words only where the text names no Linux.
        ("win10\n" + _ERR, "Windows"),
        ("win10 and Ubuntu\n" + _ERR, "Linux"),
        ("I'm using Windows.\n" + _ERR, "Windows"),
        ("I'm using Windows, the server is Ubuntu.\n" + _ERR, "Linux"),
        ("macOS 14\n" + _ERR, "Darwin"),
        ("macOS laptop, the server runs Ubuntu\n" + _ERR, "Linux"),
    ],
)
def test_the_platform_cues_in_their_documented_order(text, system):
    """pasted.md, "Where and on what: cues": `PS C:\\...>` and `C:\\...>` are Windows; WSL's driver pairing "or
    `/usr/lib/wsl/lib`" is WSL 2, whose report shows Windows' side too (cues._windows); "Windows 10/11" named in a
    report with no other platform; weaker words ("win10", "I'm using Windows", "macOS") only where the text names no
    Linux. Asserted in both orders where two cues meet."""
    snap = read_pasted([Source("report.txt", text)])
    assert snap["platform"]["system"] == system
    windows_cued = any(c["means"] == "Windows" for c in snap["pasted"]["cues"])
    assert windows_cued is (system == "Windows")


def test_with_no_os_named_a_python_ask_is_double_quoted_for_every_shell():
    # A single-quoted `python3 -c '...'` is three words in cmd.exe: with the OS unknown, the line all shells read alike.
    _, target, _, asks = _run("I have a 3060 and get: UserWarning: FP16 is not supported on CPU; using FP32 instead\n")
    assert target == "any"
    code = [a.command for a in asks if a.command.words[1:2] == ("-c",)]
    assert code
    line = render(code[0], target)
    assert line == render(code[0], "windows") and line.split(" ", 2)[2].startswith('"')


def test_the_any_target_keeps_posix_where_no_line_runs_in_every_shell():
    assert render(SetEnv("CUDA_VISIBLE_DEVICES", "0"), "any") == render(SetEnv("CUDA_VISIBLE_DEVICES", "0"), "posix")
    root = Cmd(("apt-get", "install", "-y", "nvidia-driver-550"), root=True)
    assert render(root, "any") == "sudo apt-get install -y nvidia-driver-550"
    # a backslash is a POSIX shell's escape: such a word stays single-quoted
    assert render(Cmd(("python3", "-c", "print('a\\\\b')")), "any") == render(Cmd(("python3", "-c", "print('a\\\\b')")), "posix")
    assert render_lines(Cmd(("nvidia-smi",), note="the driver"), "any") == ["# the driver", "nvidia-smi"]


# Whole recorded reports written in Chinese that name Windows inside their own script, where \b finds no word edge.
_CJK_WINDOWS = str(
    Path(__file__).resolve().parents[2]
    / "tests/blind/plans10/cases/1005-paddle23487-windows-gtx10xx-please-note-driver-api-101-runtime-100-control/input.txt"
)
_CJK_WINDOWS_DLL = str(
    Path(__file__).resolve().parents[2]
    / "tests/blind/plans9/cases/908-paddle34837-windows-paddle21-cuda102-wants-cudnn7-has-cudnn8/input.txt"
)
_CJK_WSL = str(
    Path(__file__).resolve().parents[2]
    / "tests/blind/plans5/cases/447-comfyuidocker93-wsl2-docker-desktop-gpus-0-requests-no-gpu/input.txt"
)


def test_windows_named_inside_chinese_prose_is_windows():
    """ "我是在本地windows运行paddle的" names the OS and nothing else does (a Paddle glog log, no path): the asks and plan
    are Windows', not ldconfig's. The second report ("我选择的版本是windows，") says it beside its DLL names."""
    from gpudoctor.pasted.cues import _WINDOWS_PROSE

    snap = read_pasted([Source("report.txt", Path(_CJK_WINDOWS).read_text(encoding="utf-8"))])
    assert snap["platform"]["system"] == "Windows"
    assert [c["cue"] for c in snap["pasted"]["cues"] if c["means"] == "Windows"] == ["Windows named in prose"]
    other = Path(_CJK_WINDOWS_DLL).read_text(encoding="utf-8")
    assert _WINDOWS_PROSE.search(other).group(0).strip().lower() == "windows"
    assert read_pasted([Source("report.txt", other)])["platform"]["system"] == "Windows"


def test_windows_inside_chinese_prose_beside_wsl_stays_linux():
    """The quiet twin: "我使用的是windows 10 WSL2 + docker desktop" and "在windows 下" name Windows in Chinese, and WSL 2
    beside it: the program runs in Linux. A Latin word run into Windows ("xwindows", "windows_x64") is no OS named."""
    from gpudoctor.pasted.cues import _WINDOWS_PROSE

    snap = read_pasted([Source("report.txt", Path(_CJK_WSL).read_text(encoding="utf-8"))])
    assert snap["platform"] == {"system": "Linux", "release": "microsoft-standard-WSL2"}
    assert not any(c["means"] == "Windows" for c in snap["pasted"]["cues"])
    assert _WINDOWS_PROSE.search("下载了xwindows包") is None
    assert _WINDOWS_PROSE.search("用的是windows_x64版本") is None


def _case(path: str) -> str:
    return (Path(__file__).resolve().parents[2] / path).read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "path",
    [
        # "when opening task manager, it does not appear ..." and "my GPU usage doesn't go above 20% in task manager":
        # Windows' Task Manager, where the reporters read the GPU's load, and no other OS named
        "tests/blind/plans4/cases/338-a1111-16843-windows-task-manager-3d-graph-rtx3060-control/input.txt",
        "tests/blind/plans9/cases/946-deepfacelab215-windows-rtx2070-task-manager-3d-graph-low-gpu-usage-control/input.txt",
        "tests/blind/plans11/cases/1148-easyocr370-windows-gtx1080ti-easyocr-cli-gpu-true-cuda-not-available-cpu-torch/input.txt",
        # "i am using gpu z to monitor vram usage": TechPowerUp's GPU-Z, a Windows program
        "tests/blind/plans11/cases/1142-ttswebui595-windows-gpuz-chatterbox-unload-leaves-1-4gb-vram-cuda-context-control/input.txt",
    ],
)
def test_task_manager_named_is_windows(path):
    snap = read_pasted([Source("report.txt", _case(path))])
    assert snap["platform"]["system"] == "Windows"
    assert [c["cue"] for c in snap["pasted"]["cues"] if c["means"] == "Windows"] == ["a tool only Windows has"]


def test_task_manager_typed_in_a_hurry_is_windows_too():
    # plans16/1635's sentence alone, the installer's words before it left out: "tsak manager" is read by the one pattern of Task Manager's
    # words (gpudoctor.parsers.failure_lines.TASK_MANAGER_WORDS), which the idle-graph reading uses as well
    line = next(
        ln
        for ln in _case(
            "tests/blind/plans16/cases/1635-ollama-3536-windows-installer-rtx2080ti-task-manager-idle-gpu-not-used-between-requests-control/input.txt"
        ).splitlines()
        if "tsak manager" in ln
    )
    sentence = line[line.index("when I watch") :]
    snap = read_pasted([Source("report.txt", sentence + "\n" + _ERR)])
    assert snap["platform"]["system"] == "Windows"
    assert [c["cue"] for c in snap["pasted"]["cues"] if c["means"] == "Windows"] == ["a tool only Windows has"]
    # the quiet twin: a word that only ends like it
    assert read_pasted([Source("report.txt", "the cluster's ask manager queued it\n" + _ERR)])["platform"]["system"] == "Linux"


def test_a_windows_machine_and_the_anaconda_prompt_are_windows():
    # "on one of our virtualized Windows machine" (plans11/1132); "typing "cellpose" caused the anaconda prompt to
    # stall" (MouseLand/cellpose#595, tests/pasted/catalogue_examples/cellpose-torch-cuda-not-installed-working.txt)
    vm = _case(
        "tests/blind/plans11/cases/1132-cellpose484-windows-vm-driver-43208-conda-pytorch-cudatoolkit101-still-cpu-ask/input.txt"
    )
    snap = read_pasted([Source("report.txt", vm)])
    assert snap["platform"]["system"] == "Windows"
    assert [c["cue"] for c in snap["pasted"]["cues"] if c["means"] == "Windows"] == ["Windows named in prose"]
    prompt = read_pasted(
        [Source("report.txt", _case("tests/pasted/catalogue_examples/cellpose-torch-cuda-not-installed-working.txt"))]
    )
    assert [c["cue"] for c in prompt["pasted"]["cues"] if c["means"] == "Windows"] == ["a tool only Windows has"]
    # the quiet twins: the same words where Linux is named run on Linux; Windows Subsystem and "windows manager" are
    # no machine
    for text in (
        "It works on my Windows machine but not on the Ubuntu server.\n",
        "On the cluster (CentOS) the task manager shows nothing.\n",
        "the X windows manager froze\n",
    ):
        assert read_pasted([Source("report.txt", text + _ERR)])["platform"]["system"] == "Linux"


@pytest.mark.parametrize(
    "text",
    [
        # plans11/1131: "Im running cell pose locally on my Mac laptop (CPU)"
        _case("tests/blind/plans11/cases/1131-cellpose809-macos-cpu-torch-cuda-not-installed-message-control/input.txt"),
        # phamquiluan/ResidualMaskingNetwork#31 (the description)
        "When I try to train on my mac i get - AssertionError: Torch not compiled with CUDA enabled\n",
        # yizhiwang96/deepvecfont-v2#9 (the description's last line)
        "my current machine is MacBook Pro 2021 with M1 Pro Chip, and 16 GB RAM, hoping some helps, thanks!\n",
    ],
)
def test_a_mac_named_as_the_machine_is_macos_and_asks_no_nvidia_smi(text):
    report, _, _, asks = _run(text)
    assert report.facts.platform.system == "Darwin"
    assert not any(a.command.words[0] == "nvidia-smi" for a in asks)


def test_a_mac_address_is_no_mac():
    # the quiet twin: a network card's MAC address names no machine
    snap = read_pasted([Source("report.txt", "the MAC address of the node changed after the reboot\n" + _ERR)])
    assert snap["platform"]["system"] == "Linux"


def test_a_drive_letter_path_beside_posix_search_paths_is_windows():
    """A cargo build script printing its CUDA search list ("/usr", "/opt/cuda", ..., "C:/Program Files/...") and
    running from F:\\Projects (plans11/1123), and bitsandbytes on Windows listing a POSIX folder beside its conda
    environment's drive-letter path (plans/023): no Linux by name, so the backslashed drive path says Windows."""
    cargo = _case(
        "tests/blind/plans11/cases/1123-candle2241-windows-cargo-build-candle-kernels-cuda124-nvcc-cannot-find-cl-exe-in-path-ask/input.txt"
    )
    snap = read_pasted([Source("report.txt", cargo)])
    assert snap["platform"]["system"] == "Windows"
    assert "a Windows path beside POSIX search paths" in [c["cue"] for c in snap["pasted"]["cues"]]
    bnb = read_pasted(
        [Source("report.txt", _case("tests/blind/plans/cases/023-bnb1106-windows-conda-genai-unofficial-041-wheel/input.txt"))]
    )
    assert bnb["platform"]["system"] == "Windows"
    assert "a Windows path beside POSIX search paths" in [c["cue"] for c in bnb["pasted"]["cues"]]
    # the quiet twin: Linux named beside the same paths keeps Linux (a WSL user's Windows folder, a dual boot)
    twin = "Ubuntu 22.04\nls /usr/local/cuda\ncp C:\\Users\\me\\model.bin .\n" + _ERR
    assert read_pasted([Source("report.txt", twin)])["platform"]["system"] == "Linux"


@pytest.mark.parametrize(
    ("text", "system"),
    [
        # plans11/1139: the win-x64-cuda release archive the reporter ran beside the C# program
        (
            _case(
                "tests/blind/plans11/cases/1139-sherpaonnx1620-windows-csharp-nuget-cpu-only-native-dlls-provider-cuda-falls-back"
                "/input.txt"
            ),
            "Windows",
        ),
        # ggml-org/llama.cpp#15204 (the description's first lines)
        (
            "I want to run llama.cpp on my GPU with CUDA support.\n\nI guess I should use llama-b6123-bin-win-cuda-12.4-x64.zip\n",
            "Windows",
        ),
        # the quiet twins: a macOS or Linux archive (gpustack/llama-box#43: "I use the package:
        # llama-box-linux-amd64-cuda-12.4.zip"), a word that only ends in "win"
        ("I use the package: `llama-box-linux-amd64-cuda-12.4.zip`\n", "Linux"),
        ("downloaded llama-b6123-bin-macos-arm64.zip and darwin-x64.zip\n", "Darwin"),
    ],
)
def test_a_release_archive_built_for_windows_is_windows(text, system):
    assert read_pasted([Source("report.txt", text + _ERR)])["platform"]["system"] == system


# --- a run the reporter says works -------------------------------------------------------------------------------

_HOOK_FILE_EXISTS = (
    "nvidia-container-cli: mount error: file creation failed: /var/lib/docker/overlay2/abc/merged/usr/lib/"
    "x86_64-linux-gnu/libnvidia-ml.so.1: file exists: unknown.\n"
)


def _image_cue(text: str) -> str | None:
    snap = validate_snapshot(read_pasted([Source("report.txt", text)]), "report")
    img = where.image(diagnose(ReplayHost(snap)).facts)
    return img["means"] if img is not None else None


def test_a_sample_run_the_reporter_says_works_is_not_the_image_that_failed():
    # the recorded case tests/blind/plans5/cases/420-* (nvidia-container-toolkit#289): "this sample just works fine:"
    # above NVIDIA's nbody sample; the image that failed is the reporter's own, whose name the plan leaves to fill in
    case = next((Path(__file__).resolve().parents[1] / "blind" / "plans5" / "cases").glob("420-*"))
    text = (case / "input.txt").read_text(encoding="utf-8")
    assert _image_cue(text) is None
    report, _, steps, _ = _run(text)
    ls = next(c for c in steps if c.argv[:2] == ("docker", "run"))
    assert "nvcr.io/nvidia/k8s/cuda-sample:nbody" not in map(str, ls.argv)
    # the same said after the command's closing backtick, on its line
    said_after = "running `docker run --gpus all nvcr.io/nvidia/k8s/cuda-sample:nbody nbody -benchmark` works fine.\n"
    assert _image_cue(said_after + _HOOK_FILE_EXISTS) is None


def test_a_run_that_fails_or_works_but_is_still_the_image():
    # quiet twins: a run the prose says fails, or "works, but" its program does not, is where the program ran
    for text in (
        "running `docker run --gpus all myorg/train:1.0 python train.py` fails with\n" + _HOOK_FILE_EXISTS,
        "`docker run --gpus all myorg/train:1.0 python train.py` works, but torch sees no GPU\n",
        "$ docker run --gpus all myorg/train:1.0 python train.py\n" + _HOOK_FILE_EXISTS,
    ):
        assert _image_cue(text) == "myorg/train:1.0", text


@pytest.mark.parametrize(
    "path",
    [
        # "ComfyUI\comfy\ldm\modules\attention.py:407: UserWarning: 1Torch was not compiled with flash attention."
        # (a warning's location, Python's own path with backslashes)
        "tests/blind/plans10/cases/1038-cogvideoxwrapper97-windows-comfyui-torch-not-compiled-with-flash-attention-warning-control"
        "/input.txt",
        # '...\text-generation-webui\modules\ui_model_menu.py", line 209, in load_model_wrapper' (traceback frames cut
        # before their drive letter)
        "tests/blind/plans8/cases/847-textgen4868-windows-laptop-intel-plus-rtx3060-gpu-split-invalid-ordinal-control/input.txt",
    ],
)
def test_a_python_source_located_with_backslashes_is_windows(path):
    snap = read_pasted([Source("report.txt", _case(path))])
    assert snap["platform"]["system"] == "Windows"
    assert [c["cue"] for c in snap["pasted"]["cues"] if c["means"] == "Windows"] == [
        "a Python source file's location written with Windows' separator"
    ]


@pytest.mark.parametrize(
    "text",
    [
        # the quiet twins: the same warning at a POSIX path, a JSON log's escaped newlines and backslash-escaped text
        # with no line number, a doubled (escaped) backslash
        "comfy/ldm/modules/attention.py:407: UserWarning: 1Torch was not compiled with flash attention.\n",
        '{"msg": "Traceback\\nmodels\\nloader.py failed"}\n',
        "see comfy\\\\ldm\\\\attention.py:407: UserWarning: 1Torch was not compiled with flash attention.\n",
    ],
)
def test_a_python_source_without_windows_separator_and_line_is_no_windows(text):
    assert read_pasted([Source("report.txt", text)])["platform"].get("system") != "Windows"


@pytest.mark.parametrize(
    "text",
    [
        # the quiet twins: a word that only starts with "gpu z", and GPU-Z beside a Linux the text names (the reporter's
        # other machine)
        "the gpuzilla dashboard shows 1.4 GB still in use\n",
        "On Ubuntu 22.04 nvidia-smi shows 1.4 GB; GPU-Z on my Windows box shows none\n",
    ],
)
def test_gpu_z_as_part_of_a_word_or_beside_linux_is_no_windows(text):
    assert read_pasted([Source("report.txt", text + _ERR)])["platform"].get("system") != "Windows"


def test_an_os_field_naming_windows_and_wsl_is_linux_under_wsl():
    """TensorFlow's form answered "Windows 11 + WSL2" (tests/blind/plans7/cases/603-*): the program runs in WSL's Linux,
    Windows is its host; the quiet twin, the same field with Windows alone, stays Windows."""
    text = _case("tests/blind/plans7/cases/603-tf60101-wsl2-conda-env-pip-tf212-no-gpu-no-log-ask/input.txt")
    assert read_pasted([Source("report.txt", text)])["platform"] == {"system": "Linux", "release": "microsoft-standard-WSL2"}
    alone = text.replace("Windows 11 + WSL2", "Windows 11").replace("WSL2", "Windows").replace("WSL", "Windows")
    assert "wsl" not in alone.lower()
    assert read_pasted([Source("report.txt", alone)])["platform"]["system"] == "Windows"


@pytest.mark.parametrize(
    "text",
    [
        # plans16/1631: "most intel MAC uses AMD GPU" beside whisper's FP16-on-CPU warning from a venv's site-packages
        _case(
            "tests/blind/plans16/cases/1631-whisperdictation-9-intel-mac-venv-openai-whisper-fp16-not-supported-on-cpu-warning-control/input.txt"
        ),
        # TeamAudio/reaspeech-lite#77 (https://github.com/TeamAudio/reaspeech-lite/pull/77, the description)
        "Disable GPU support on Intel Macs. Whisper.cpp does not support GPU acceleration on this architecture, and it "
        "crashes when trying to initialize.\n",
    ],
)
def test_a_mac_named_by_its_processor_is_macos_and_asks_no_nvidia_smi(text):
    report, _, _, asks = _run(text)
    assert report.facts.platform.system == "Darwin"
    assert not any(a.command.words[0] == "nvidia-smi" for a in asks)


def test_an_intel_mac_beside_linux_or_a_mac_address_is_no_macos():
    # the quiet twins: an Intel Mac named beside the Linux server that failed, and an Intel NIC's MAC address
    for text in (
        "It works on my Intel Mac, but the Ubuntu server fails:\n",
        "the Intel MAC address of the node changed after the reboot\n",
    ):
        assert read_pasted([Source("report.txt", text + _ERR)])["platform"]["system"] == "Linux"


@pytest.mark.parametrize(
    "path",
    [
        # "My ollama is use windows installer setup running ... I noticed that my gpu was not being used" (plans16/1635)
        "tests/blind/plans16/cases/1635-ollama-3536-windows-installer-rtx2080ti-task-manager-idle-gpu-not-used-between-requests-control/input.txt",
    ],
)
def test_a_program_set_up_with_its_windows_installer_is_windows(path):
    # (the installer names Windows before the case's "tsak manager", which the Task Manager cue reads too)
    snap = read_pasted([Source("report.txt", _case(path))])
    assert snap["platform"]["system"] == "Windows"
    assert [c["cue"] for c in snap["pasted"]["cues"] if c["means"] == "Windows"] == ["Windows named in prose"]


def test_the_windows_installer_alone_and_beside_linux():
    # plans/042's first line, alone (its win_config.bat says Windows too): "I am using the  1-Click Windows Installer"
    line = _case("tests/blind/plans/cases/042-tldream3-windows-installer-torch-cpu-xformers-cu118/input.txt").splitlines()[0]
    assert read_pasted([Source("report.txt", line + "\n" + _ERR)])["platform"]["system"] == "Windows"
    # the quiet twin: the Windows installer named beside the Linux machine that failed
    text = "The Windows installer works; on my Ubuntu box it fails:\n"
    assert read_pasted([Source("report.txt", text + _ERR)])["platform"]["system"] == "Linux"
