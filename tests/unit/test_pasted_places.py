"""Where a pasted report's commands run, read from the text: a notebook (Kaggle's, or cells shown as a list), a compose
service by its log's prefix, a one-click installer's conda environment. Asserted on cues and argv, never the prose."""

from __future__ import annotations

from gpudoctor.cmdline import Cmd
from gpudoctor.doctor import diagnose
from gpudoctor.facts import LOGGED_SERVICE, NOTEBOOK_SAID, PROJECT_TOOL
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import read_pasted
from gpudoctor.pasted.read import Source


def _report(text: str):
    return diagnose(ReplayHost(validate_snapshot(read_pasted([Source("issue.txt", text)]), "pasted text")))


def _cues(report, cue: str) -> list[str]:
    return [c.get("means", "") for c in report.facts.pasted.cues if c.get("cue") == cue]


def _asked(report) -> list[tuple[str, ...]]:
    from gpudoctor.pasted.ask import ask_for

    return [a.command.words for a in ask_for(report.facts, report.findings) if isinstance(a.command, Cmd)]


# Kaggle/docker-python issue 1546 (plans19/1931): the P100 warning of a Kaggle notebook's torch.
KAGGLE = """/usr/local/lib/python3.12/dist-packages/torch/cuda/__init__.py:435: UserWarning:
Tesla P100-PCIE-16GB with CUDA capability sm_60 is not compatible with the current PyTorch installation.
The current PyTorch install supports CUDA capabilities sm_70 sm_75 sm_80 sm_86 sm_90 sm_100 sm_120.

Use P100 GPU on Kaggle, move Pytorch neural network model to GPU and start training loop.
"""


def test_kaggle_named_as_where_it_ran_is_a_notebook():
    report = _report(KAGGLE)
    assert _cues(report, NOTEBOOK_SAID) and _cues(report, PROJECT_TOOL) == ["notebook"]
    # pytorch/pytorch issue 134929 (plans18/1816) says it the other way round
    assert _cues(_report("On Kaggle : libcusparse.so.12: undefined symbol: __nvJitLinkComplete_12_4\n"), NOTEBOOK_SAID)


def test_kaggle_as_a_link_or_a_machine_compared_with_is_no_notebook():
    # (plans17/1710: a Kaggle project run on the reporter's own Ubuntu; plans19/1908: a Kaggle GPU where it works)
    for text in (
        "it is a [kaggle project](https://www.kaggle.com/vinhnguyen/accelerating-xgboost-with-gpu/execution) that I run\n",
        "I'm trying to train on two RTX 5000 GPUs. On a Kaggle GPU the same code runs without any problem.\n",
        "I downloaded the data set from Kaggle.com and the dataset in Kaggle datasets\n",
    ):
        report = _report(text + "RuntimeError: No CUDA GPUs are available\n")
        assert not _cues(report, NOTEBOOK_SAID) and not _cues(report, PROJECT_TOOL), text


def test_pip_typed_at_a_shell_prompt_keeps_the_shell_where_a_notebook_is_only_named():
    # rapidsai/cuml issue 404 (plans20/2003): installed and imported at a root shell in a custom image, "able to
    # replicate inside Kaggle kernel for testing": the Kaggle kernel is another place, the asks are shell commands.
    text = (
        "```\n# apt install libopenblas-base libomp-dev\n# pip install cuml-cuda100\n# python3\n>> import cuml\n"
        "ImportError: libcuml.so: cannot open shared object file: No such file or directory\n```\n"
        " - Environment location: custom docker (able to replicate inside Kaggle kernel for testing)\n"
    )
    report = _report(text)
    assert "notebook" not in _cues(report, PROJECT_TOOL)
    assert _asked(report) and not any(words[0].startswith(("!", "%")) for words in _asked(report))
    # the same words with the install run in a cell: a notebook
    cell = _report(text.replace("# pip install", "!pip install"))
    assert _cues(cell, PROJECT_TOOL) == ["notebook"]


def test_notebook_pip_cells_shown_as_a_numbered_list():
    # ddPn08/automatic1111-colab issue 62 (plans19/1951): the cells the reporter ran, numbered
    text = (
        "RuntimeError: Detected that PyTorch and torchvision were compiled with different CUDA versions. PyTorch has "
        "CUDA Version=11.7 and torchvision has CUDA Version=11.8. Please reinstall the torchvision that matches your "
        "PyTorch install.\n\n1. %pip install torch==2.0.1+cu118 torchvision==0.15.2+cu118 --index-url "
        "https://download.pytorch.org/whl/cu118\n"
    )
    report = _report(text)
    assert _cues(report, NOTEBOOK_SAID) and _cues(report, PROJECT_TOOL) == ["notebook"]
    # a numbered list of shell commands is no notebook
    assert not _cues(_report(text.replace("1. %pip", "1. pip")), PROJECT_TOOL)


def test_a_compose_logs_prefix_names_the_service_without_the_container_number():
    # Compose v2 prefixes a service's lines with <service>-<number> (the container's name less the project):
    # oobabooga/text-generation-webui issue 7115 (plans19/1953) and ollama/ollama issue 6961 ("ollama-1  | ...").
    for line, service in (
        ("text-generation-webui-1  | 21:44:20-995053 ERROR    Failed to load the model.", "text-generation-webui"),
        ('ollama-1  | time=2024-09-25T17:46:47.254Z level=INFO source=images.go:753 msg="total blobs: 28"', "ollama"),
        ("ollama  | 2023/12/22 00:17:24 routes.go:915: INFO Listening on [::]:11434", "ollama"),
    ):
        # (two lines at least: one bar is a table's cell, a log prints line after line)
        text = f"{line}\n{line}\nRuntimeError: CUDA error: no kernel image is available\n"
        assert _cues(_report(text), LOGGED_SERVICE) == [service]


EXLLAMA = r"""Traceback (most recent call last):
  File "C:\text-generation-webui\installer_files\env\lib\site-packages\exllama\__init__.py", line 1, in <module>
    from . import cuda_ext, generator, model, tokenizer
ImportError: DLL load failed while importing exllama_ext: The specified module could not be found.
"""


def _interpreters(report) -> set[str]:
    return {w[0] for w in _asked(report) if w and w[0].lower().endswith("python.exe")}


def test_a_one_click_installers_environment_is_conda_s_python_at_its_root():
    # oobabooga's start_windows.bat makes installer_files\env with conda: python.exe at its root, none in Scripts
    # (plans6/537, plans19/1939 by their full paths; plans19/1935 with the root cut to "...")
    assert _interpreters(_report(EXLLAMA)) == {"C:\\text-generation-webui\\installer_files\\env\\python.exe"}
    cut = EXLLAMA.replace("C:\\text-generation-webui", "...\\text-generation-webui")
    assert _interpreters(_report(cut)) == {"installer_files\\env\\python.exe"}
    # a venv elsewhere keeps its Scripts\python.exe
    venv = EXLLAMA.replace("installer_files\\env", "venv")
    assert _interpreters(_report(venv)) == {"C:\\text-generation-webui\\venv\\Scripts\\python.exe"}


def test_an_anaconda_installation_under_another_folder_name_is_conda_s_base():
    # plans21/2172's D:\Py_Anaconda, an Anaconda3_64 (Visual Studio's name for its shared one): python.exe at the
    # root, none in Scripts
    for root in ("D:\\Py_Anaconda", "C:\\Anaconda3_64"):
        text = EXLLAMA.replace("C:\\text-generation-webui\\installer_files\\env", root)
        assert _interpreters(_report(text)) == {root + "\\python.exe"}
    # a venv whose name holds no distribution's keeps its Scripts\python.exe
    text = EXLLAMA.replace("C:\\text-generation-webui\\installer_files\\env", "D:\\Py_env")
    assert _interpreters(_report(text)) == {"D:\\Py_env\\Scripts\\python.exe"}


def test_the_installers_scripts_named_make_its_environment_the_interpreter():
    # oobabooga/text-generation-webui issue 7493 (plans19/1936): one_click.py named, no path shown
    text = (
        "The installer/updater is pushing the wrong torch (2.11.0) and xformers (0.0.35) for exllamav3 to operate\n"
        "It even uninstalled the 2.9.1+cu128 that is in one_click.py to replace for 2.11.0\n"
        "Exllamav3 will error out on LLM load\nWindows 11\nNVIDIA RTX 5080\n"
    )
    assert _interpreters(_report(text)) == {"installer_files\\env\\python.exe"}
    assert not _interpreters(_report(text.replace("one_click.py", "the installer")))


# ollama's debug log lists the patterns it searches for libcuda on every Linux host, WSL's among them
# (ollama/ollama issue 11519: a maintainer's working A100 on Linux; plans19/1944: a Kubernetes pod).
OLLAMA_SEARCH = (
    'Jul 28 06:38:05 a100-40g ollama[8080]: time=2025-07-28T06:38:05.241Z level=DEBUG source=gpu.go:525 msg="gpu library '
    'search" globs="[/usr/local/lib/ollama/libcuda.so* /usr/lib/*-linux-gnu/libcuda.so* /usr/lib/wsl/lib/libcuda.so* '
    '/usr/lib/wsl/drivers/*/libcuda.so* /usr/lib*/libcuda.so*]"\n'
)


def test_the_patterns_ollama_searches_say_no_wsl_what_it_found_does():
    found = 'time=2025-07-28T06:38:05.243Z level=DEBUG source=gpu.go:558 msg="discovered GPU libraries" paths="[{}]"\n'
    linux = _report(OLLAMA_SEARCH + found.format("/usr/lib/x86_64-linux-gnu/libcuda.so.550.90.07"))
    assert not linux.facts.platform.wsl
    # ollama/ollama issue 4726: Docker Desktop on WSL 2, the driver found under /usr/lib/wsl/drivers
    wsl = _report(OLLAMA_SEARCH + found.format("/usr/lib/wsl/drivers/nvltsi.inf_amd64_0f2f0ed95e1f8d10/libcuda.so.1.1"))
    assert wsl.facts.platform.wsl
    # the older wording (ollama/ollama issue 3825)
    older = (
        'level=DEBUG source=gpu.go:286 msg="gpu management search paths: [/usr/lib/wsl/lib/libnvidia-ml.so* '
        '/usr/lib*/libnvidia-ml.so*]"\n'
    )
    assert not _report(older + "cuInit err: 999\n").facts.platform.wsl
