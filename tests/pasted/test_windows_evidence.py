"""Windows evidence decides the platform, the interpreter and the shell of a pasted report's plan and asks (issue 27):
a drive-letter path, a .dll/.pyd/.bat name, a relative python.exe (ComfyUI's python_embeded). WSL reports, which show
Windows' side too, stay Linux. Minimal pastes, and real reports as pasted (tests/blind/plans3/cases, frozen inputs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.cmdline import Cmd, Placeholder, PrependPath, SetEnv, render, render_all, shell_for_os
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.model import Severity
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.ask import ask_for
from gpudoctor.planner import where
from gpudoctor.planner.prescribe import build

BLIND = Path(__file__).resolve().parent.parent / "blind" / "plans3" / "cases"
LINUX_ONLY = {"ldconfig", "printenv", "grep", "cat", "dpkg", "uname", "python3"}


def _snap(text: str) -> dict:
    return validate_snapshot(read_pasted([Source("report.txt", text)]), "report")


def _case(prefix: str) -> str:
    (folder,) = BLIND.glob(f"{prefix}-*")
    return (folder / "input.txt").read_bytes().decode("utf-8-sig", errors="replace")


def _run(text: str):
    report = diagnose(ReplayHost(_snap(text)))
    target = shell_for_os(report.facts.platform.system)
    plan = build(report.findings, target)
    steps = [c for s in plan.steps for c in s.commands if isinstance(c, Cmd)]
    return report, target, steps, ask_for(report.facts, report.findings)


@pytest.mark.parametrize(
    "text",
    [
        "RuntimeError: Library cublas64_12.dll is not found or cannot be loaded",
        'File "C:\\Users\\me\\app\\main.py", line 3, in <module>',
        "could not be located in k:\\ComfyUI\\env\\lib\\site-packages\\xformers\\_C.pyd",
        "when trying to build a venv from webui-user.bat it installs torch for cu121",
        "I updated with python_embeded\\python.exe -m pip install torch",
        # cmd.exe's assignment and the Windows compiler, where no Linux is named.
        "    set CMAKE_ARGS=-DLLAMA_CUBLAS=on\npip install llama-cpp-python\nBLAS = 0",
        "Installed Visual Studio Community 2022 and CUDA Toolkit 12.1. BLAS = 0",
        # cmd.exe's own answer to a command it cannot find: a POSIX prefix assignment typed in cmd (the reporter's words
        # in tests/blind/plans14/cases/1441-*/input.txt, where only the GPU and the toolkit are named)
        "but it gives me error: 'CMAKE_ARGS' is not recognized as an internal or external command,\n"
        "operable program or batch file.\n\nRTX 2060\nCuda Toolkit 12.1",
        # (and cmd at a prompt, as tests/blind/plans11/cases/1126-*/input.txt shows it: wget is no cmd command)
        "'wget' is not recognized as an internal or external command,\noperable program or batch file.\n",
    ],
)
def test_windows_evidence_sets_windows(text):
    assert _snap(text)["platform"]["system"] == "Windows"


@pytest.mark.parametrize(
    "text",
    [
        # WSL: Windows' side shown beside Linux's; the program runs in Linux.
        "ls /usr/lib/wsl/lib\nC:\\Windows\\System32\\nvidia-smi.exe\nlibcuda.so.1 not found",
        # Linux named: a .dll named in passing does not move the report to Windows.
        "On Ubuntu 22.04 the Windows build's cublas64_12.dll is no use: libcublas.so.12 not found",
        # A POSIX shell's `set` takes options; Visual Studio Code runs everywhere.
        "set -e\nexport CMAKE_ARGS=-DGGML_CUDA=on\nBLAS = 0",
        "I use Visual Studio Code on my laptop. BLAS = 0",
        # A POSIX shell's own answer where the name is taken for a command (`CMAKE_ARGS = "..."`, spaces round =).
        "bash: CMAKE_ARGS: command not found\nRTX 2060\nCuda Toolkit 12.1",
    ],
)
def test_linux_evidence_beside_windows_names_keeps_linux(text):
    assert _snap(text)["platform"]["system"] != "Windows"


def test_a_relative_python_exe_is_the_plans_interpreter_in_powershell():
    text = (
        "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
        "    PyTorch 2.2.0+cu121 with CUDA 1201 (you have 2.1.2+cu121)\n"
        "I updated by python_embeded\\python.exe -m pip install torch\n"
    )
    report, target, steps, asks = _run(text)
    assert (report.facts.platform.system, target) == ("Windows", "powershell")
    pips = [c.words for c in steps if c.words[1:3] == ("-m", "pip")]
    assert pips and all(w[0] == "python_embeded\\python.exe" for w in pips)
    assert all(a.command.words[0] != "python3" for a in asks)


def test_forge_bat_venv_report_gets_windows_python_not_python3():
    report, target, steps, asks = _run(_case("254"))
    assert (report.facts.platform.system, target) == ("Windows", "powershell")
    # Its launcher (user.bat) and the venv it builds named: the venv's interpreter, in the launcher's folder.
    pips = [c.words for c in steps if c.words[1:3] == ("-m", "pip")]
    assert pips and all(w[0] == "venv\\Scripts\\python.exe" for w in pips)
    assert {a.command.words[0] for a in asks} <= {"nvidia-smi", "venv\\Scripts\\python.exe"}


@pytest.mark.parametrize("case", ["225", "238", "246", "254", "226", "228", "233", "210"])
def test_no_linux_only_command_in_a_windows_plan_or_asks(case):
    report, target, steps, asks = _run(_case(case))
    assert target == "powershell"
    words = [w for c in (*steps, *(a.command for a in asks)) for w in (*c.argv[:1], *c.pipe[:1])]
    assert not LINUX_ONLY & set(words), words
    assert not [w for c in steps for w in c.words if str(w).startswith("/proc/")]


def test_cmds_set_makes_a_windows_plan_that_sets_the_variable_in_a_windows_shell():
    text = "    set CMAKE_ARGS=-DLLAMA_CUBLAS=on\npip install llama-cpp-python --no-cache-dir\nAVX = 1 | BLAS = 0 | SSE3 = 1 |\n"
    report, target, steps, asks = _run(text)
    assert (report.facts.platform.system, target) == ("Windows", "powershell")
    assert "framework-cpu-build" in {f.code for f in report.findings}
    plan = build(report.findings, "windows")
    lines = [c for s in plan.steps for c in s.commands]
    assert [(c.name, c.value) for c in lines if isinstance(c, SetEnv)] == [("CMAKE_ARGS", "-DGGML_CUDA=on")]
    assert "$env:CMAKE_ARGS = '-DGGML_CUDA=on'" in render_all(lines, "windows")
    assert all(c.words[0] == "python" for c in steps) and all(a.command.words[0] != "python3" for a in asks)


@pytest.mark.parametrize(
    ("text", "system"),
    [
        ("Ollama on Windows (11 + WSL2), the version for Windows. It runs on the CPU, not the Nvidia 1080 GPU.", "Windows"),
        ("Ollama in WSL2 on Windows 11 runs on the CPU, not the Nvidia 1080 GPU.", "Linux"),
    ],
)
def test_wsl_named_beside_windows_own_program_is_windows(text, system):
    report, _, _, asks = _run(text)
    assert report.facts.platform.system == system
    assert ("journalctl" in {a.command.words[0] for a in asks}) == (system == "Linux")


def test_a_compiled_program_without_python_gets_no_interpreter_asks():
    # An ONNX Runtime C# program failing to load a cuDNN DLL: no Python anywhere in the text.
    # ONNX Runtime named: where its CUDA provider's DLLs lie on PATH decides it (no interpreter to ask).
    report, _, _, asks = _run(_case("210"))
    # (and, since h250, every copy of cuDNN 8 the installers leave under Program Files: where.exe /R walks that tree)
    assert [a.command.words for a in asks] == [
        ("nvidia-smi",),
        ("where.exe", "cudnn*.dll", "cublas*.dll", "cudart*.dll"),
        ("where.exe", "/R", "C:\\Program Files", "cudnn*64_8.dll"),
    ]
    text = "C# app: Could not load library cudnn_cnn_infer64_8.dll. Error code 127"
    # No interpreter either; where Windows finds the DLL (error 127: a copy without the procedure, found first) is
    # asked where a finding judges the failure (pasted/ask._missing_dll_asks).
    assert [a.command.words for a in _run(text)[3]] == [
        ("nvidia-smi",),
        ("where.exe", "cudnn_cnn_infer64_8.dll"),
        ("where.exe", "/R", "C:\\Program Files", "cudnn*64_8.dll"),
    ]
    # The same error with Python shown keeps the interpreter's asks.
    text = "Could not load library cudnn_cnn_infer64_8.dll. Error code 127\nimport onnxruntime as ort"
    assert any(a.command.words[1:3] == ("-m", "pip") for a in _run(text)[3])


def test_a_site_packages_under_a_conda_folder_is_a_conda_env_with_python_exe_at_its_root():
    # ComfyUI in a conda environment (k:\...\python_miniconda_env\ComfyUI): no Scripts\ in a conda env on Windows.
    snap = _snap(_case("239"))
    assert snap["python"]["executable"] == "k:\\ComfyUI\\ComfyUI_Ex\\python_miniconda_env\\ComfyUI\\python.exe"
    # A venv elsewhere keeps its Scripts\python.exe.
    text = 'File "D:\\apps\\tool\\venv\\Lib\\site-packages\\torch\\__init__.py", line 1\nImportError: DLL load failed'
    assert _snap(text)["python"]["executable"] == "D:\\apps\\tool\\venv\\Scripts\\python.exe"


# --- a DLL the program could not find: its folder on PATH, in the user's shell --------------------------------------

_PADDLE_126 = (
    "W0103 device_context.cc:447] Please NOTE: device: 0, GPU Compute Capability: 8.6, Driver API Version: 11.5, "
    "Runtime API Version: 11.2\n"
    "RuntimeError: (PreconditionNotMet) The third-party dynamic library (cublas64_112.dll;cublas64_11.dll) that Paddle "
    "depends on is not configured correctly. (error code is 126)\n"
)
_TRT = "(venv) F:\\app>python main.py\nFileNotFoundError: Could not find: nvinfer.dll. Is it on your PATH?\n"


def _dll_steps(text: str):
    report, _, _, _ = _run(text)
    target = where.shell(report.facts)
    plan = build(report.findings, target)
    return report, target, [c for s in plan.steps for c in s.commands]


def test_a_cuda_dll_paddle_cannot_load_puts_the_toolkits_bin_of_the_runtime_it_names_on_path():
    report, target, lines = _dll_steps(_PADDLE_126)
    assert report.facts.platform.system == "Windows" and target == "windows"
    assert [f.code for f in report.findings if f.severity >= Severity.WARNING] == ["windows-dll-missing"]
    (step,) = lines
    assert isinstance(step, PrependPath) and step.name == "PATH"
    assert step.literal == "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2\\bin"
    assert render(step, "cmd") == 'set "PATH=C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2\\bin;%PATH%"'
    assert render(step, "powershell").endswith(" + ';' + $env:PATH")


def test_a_dll_of_no_known_folder_is_a_placeholder_on_path_in_the_prompts_shell():
    report, target, lines = _dll_steps(_TRT)
    assert target == "cmd"
    assert "windows-dll-missing" in {f.code for f in report.findings}
    *search, step = lines
    # (no interpreter's path shown, only a prompt's folder: the system drive is searched)
    assert [c.words for c in search] == [("where.exe", "/R", "C:\\", "nvinfer.dll")]
    assert isinstance(step, PrependPath) and step.parts == (Placeholder("folder-holding-the-dll"),)
    assert render(step, "cmd") == 'set "PATH=<folder-holding-the-dll>;%PATH%"'


@pytest.mark.parametrize(
    "text",
    [
        # Linux: the loader's own message; LD_LIBRARY_PATH is that platform's answer, not this finding's.
        "The third-party dynamic library (libcudnn.so) that Paddle depends on is not configured correctly. (error code "
        "is libcudnn.so: cannot open shared object file: No such file or directory)\nOn Ubuntu 22.04",
        # CTranslate2's cuBLAS: its own check names the build's CUDA major.
        "RuntimeError: Library cublas64_12.dll is not found or cannot be loaded",
    ],
)
def test_dlls_that_are_not_a_windows_path_question_are_left_to_their_checks(text):
    report, _, _, _ = _run(text)
    assert "windows-dll-missing" not in {f.code for f in report.findings}


def test_torchaudio_refused_by_windows_loader_is_a_companion_built_for_another_torch_asked_in_its_python():
    site = "C:\\Users\\me\\AppData\\Local\\Programs\\Python\\Python39\\lib\\site-packages"
    text = (
        f'  File "{site}\\torchaudio\\_extension\\__init__.py", line 43, in <module>\n'
        '    _load_lib("libtorchaudio")\n'
        f'  File "{site}\\torch\\_ops.py", line 643, in load_library\n'
        "    ctypes.CDLL(path)\n"
        "FileNotFoundError: Could not find mo\n"
    )
    report, _, _, asks = _run(text)
    assert [f.code for f in report.findings if f.severity >= Severity.WARNING] == ["companion-torch-mismatch"]
    python = "C:\\Users\\me\\AppData\\Local\\Programs\\Python\\Python39\\python.exe"
    assert {a.command.words[0] for a in asks if a.command.words[1:2] in (("-m",), ("-c",))} == {python}


@pytest.mark.parametrize(
    ("size", "cpu"),
    [("184.0 MB", True), ("2.4 GB", False)],
)
def test_an_untagged_windows_torch_wheel_of_a_cpu_builds_size_is_the_cpu_build(size, cpu):
    text = (
        "> python -m pip install torch===1.7.1 -f https://download.pytorch.org/whl/torch_stable.html\n"
        "Collecting torch===1.7.1\n"
        f"  Downloading torch-1.7.1-cp38-cp38-win_amd64.whl ({size})\n"
        "Successfully installed torch-1.7.1\n"
        "torch.cuda.is_available() is False\n"
    )
    report, _, _, _ = _run(text)
    assert report.facts.platform.system == "Windows"
    assert ("framework-cpu-build" in {f.code for f in report.findings}) == cpu
    torch = report.facts.frameworks.torch
    assert (getattr(torch, "value", None) and torch.value.version) == ("1.7.1+cpu" if cpu else None)


@pytest.mark.parametrize(("venv", "package"), [(False, True), (True, False)])
def test_the_webuis_release_package_runs_its_own_system_python(venv, package):
    text = (
        "Click on run.bat does not open\n"
        + ('venv "C:\\SD\\webui\\venv\\Scripts\\Python.exe"\n' if venv else "")
        + 'Traceback (most recent call last):\n  File "C:\\SD\\webui\\launch.py", line 48, in <module>\n    main()\n'
        "RuntimeError: Torch is not able to use GPU; add --skip-torch-cuda-test to COMMANDLINE_ARGS variable to disable this check\n"
    )
    _, _, _, asks = _run(text)
    pythons = {a.command.words[0] for a in asks if a.command.words[1:2] in (("-m",), ("-c",))}
    assert pythons and (pythons == {"C:\\SD\\system\\python\\python.exe"}) == package


@pytest.mark.parametrize("launched", [True, False])
def test_the_programs_torch_wins_over_a_list_from_another_interpreter(launched):
    text = (
        "Windows 11\n"
        + ("Launching Web UI with arguments: --xformers\n" if launched else "")
        + "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
        "    PyTorch 2.1.2+cu121 with CUDA 1201 (you have 2.0.1+cu118)\n"
        "    Python  3.10.11 (you have 3.10.11)\n"
        " Here are versions from pip:\n"
        " torch                  2.3.0+cu121\n"
        " xformers               0.0.26.post1\n"
    )
    report, _, _, _ = _run(text)
    torch = report.facts.frameworks.torch
    assert torch.value.version == "2.0.1+cu118"
    assert "companion-torch-mismatch" in {f.code for f in report.findings}
    python = report.facts.frameworks.python.value.executable
    assert (python == "venv\\Scripts\\python.exe") == launched


@pytest.mark.parametrize("frozen", [True, False])
def test_a_frozen_program_gets_no_pip_step_and_no_interpreter_asks(frozen):
    text = (
        'Traceback (most recent call last):\n  File "faster_whisper\\transcribe.py", line 814, in encode\n'
        "RuntimeError: Library cublas64_11.dll is not found or cannot be loaded\n"
        + ("[8080] Failed to execute script '__main__' due to unhandled exception!\n" if frozen else "")
    )
    report, _, steps, asks = _run(text)
    assert "framework-cuda-libs-missing" in {f.code for f in report.findings}
    pips = [c.words for c in steps if "pip" in c.words]
    assert bool(pips) != frozen
    assert bool([a for a in asks if a.command.words[1:2] in (("-m",), ("-c",))]) != frozen
