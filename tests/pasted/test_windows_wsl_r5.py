"""Windows and WSL reports of the fifth blind set's kinds (issues 27/28): minimal pastes, data asserted."""

from __future__ import annotations

import pytest

from gpudoctor.cmdline import Cmd, Placeholder
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.model import Severity
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.ask import ask_for
from gpudoctor.planner import where
from gpudoctor.planner.prescribe import build


def _run(text: str):
    report = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("report.txt", text)]), "report")))
    target = where.shell(report.facts)
    plan = build(report.findings, target)
    return report, [c for s in plan.steps for c in s.commands if isinstance(c, Cmd)]


def _codes(report) -> list[str]:
    return [f.code for f in report.findings if f.severity >= Severity.WARNING]


_NO_DRIVER = (
    'File "/home/me/miniconda3/envs/tg/lib/python3.10/site-packages/torch/cuda/__init__.py", line 229, in _lazy_init\n'
    "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver\n"
)


@pytest.mark.parametrize("said", ["I'm using wsl 1 on windows 10.", "Ubuntu under WSL1"])
def test_a_reporter_saying_wsl_1_gets_the_conversion_to_wsl_2_on_windows(said):
    report, steps = _run(said + "\n" + _NO_DRIVER)
    assert report.facts.platform.wsl == 1
    assert "wsl1-no-cuda" in _codes(report)
    assert [c.argv for c in steps] == [("wsl", "--update"), ("wsl", "--set-version", Placeholder("distro"), "2")]


@pytest.mark.parametrize(
    "said", ["I'm using WSL 2 on windows 10.", "wsl 1.2.5 installed, Ubuntu in WSL", "WSL 1 before, now WSL 2"]
)
def test_wsl_2_or_the_wsl_package_version_is_not_wsl_1(said):
    report, _ = _run(said + "\n" + _NO_DRIVER)
    assert report.facts.platform.wsl == 2
    assert "wsl1-no-cuda" not in {f.code for f in report.findings}


_FBGEMM = (
    'OSError: [WinError 126] The specified module could not be found. Error loading "C:\\Users\\me\\venv\\Lib\\'
    'site-packages\\torch\\lib\\fbgemm.dll" or one of its dependencies.\n'
)


def test_a_torch_240_dll_in_its_own_lib_folder_is_the_release_regression_upgraded_from_the_same_index():
    # (the notebook's JSON error escapes each quote and doubles each backslash)
    text = "Successfully installed torch-2.4.0+cu121\n" + _FBGEMM.replace("\\", "\\\\").replace('"', '\\"')
    report, steps = _run(text)
    assert _codes(report) == ["windows-dll-missing"]
    (step,) = steps
    assert step.argv[1:] == (
        "-m",
        "pip",
        "install",
        "--upgrade",
        "torch==2.4.1",
        "--index-url",
        "https://download.pytorch.org/whl/cu121",
    )


def test_the_torch_240_upgrade_moves_the_companions_the_text_shows_in_the_same_line():
    text = (
        "> pip list\nPackage     Version\n----------- ------------\ntorch       2.4.0+cu121\n"
        "torchvision 0.19.0+cu121\ntorchaudio  2.4.0+cu121\n\n" + _FBGEMM
    )
    report, steps = _run(text)
    (step,) = steps
    install = step.argv[step.argv.index("--upgrade") + 1 :]
    assert install == (
        "torch==2.4.1",
        "torchvision==0.19.1",
        "torchaudio==2.4.1",
        "--index-url",
        "https://download.pytorch.org/whl/cu121",
    )


def test_a_package_dll_of_an_unknown_torch_asks_its_version_and_never_puts_the_folder_on_path():
    report, steps = _run(_FBGEMM)
    assert _codes(report) == ["windows-dll-missing"]
    # the version first; the Visual C++ runtime read (not installed: c10.dll, loaded first, links it); no PATH step
    assert steps[0].argv[1:] == ("-m", "pip", "show", "torch")
    assert [s.argv[:2] for s in steps[1:]] == [("reg", "query")]


def test_a_dll_outside_any_package_still_goes_on_path():
    report, _ = _run("(venv) F:\\app>python main.py\nFileNotFoundError: Could not find: nvinfer.dll. Is it on your PATH?\n")
    (f,) = [f for f in report.findings if f.code == "windows-dll-missing"]
    assert f.remediation is not None and type(f.remediation.commands[-1]).__name__ == "PrependPath"
    # (the commands before it only search for the folder: where.exe /R)
    assert {c.words[0] for c in f.remediation.commands[:-1]} == {"where.exe"}


_CUDA_PATH_GONE = (
    "FileNotFoundError: [WinError 3] The system cannot find the path specified: "
    "'C:\\\\Program Files\\\\NVIDIA GPU Computing Toolkit\\\\CUDA\\\\11.2\\\\bin'\n"
)


_TOOLKITS_LISTED = ("dir", "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA")


@pytest.mark.parametrize("said", ["I installed CUDA 12.3 on Windows 10.", "Using Windows 10 and I have CUDA version 12.3"])
def test_add_dll_directory_on_a_missing_toolkit_folder_repoints_the_users_cuda_path_at_the_installed_toolkit(said):
    report, steps = _run(said + "\n" + _CUDA_PATH_GONE)
    assert _codes(report) == ["windows-cuda-path-missing"]
    listed, step = steps
    assert listed.argv == _TOOLKITS_LISTED  # the folders installed, as a command (cmd.exe and PowerShell alike)
    assert step.argv == ("setx", "CUDA_PATH", "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.3")
    assert not step.root  # the user's variable: no Administrator shell


def test_a_cuda_the_reporter_has_is_descriptive_and_alone_makes_no_finding():
    report, _ = _run("I have CUDA version 12.3 and the model loads fine.\n")
    assert _codes(report) == []


def test_a_missing_toolkit_folder_without_the_installed_version_leaves_the_folder_a_placeholder():
    report, steps = _run(_CUDA_PATH_GONE)
    listed, step = steps
    assert listed.argv == _TOOLKITS_LISTED
    assert step.argv == ("setx", "CUDA_PATH", Placeholder("installed-cuda-toolkit-folder"))


def test_a_missing_folder_that_is_not_a_cuda_toolkits_is_not_cuda_path():
    report, _ = _run(
        "FileNotFoundError: [WinError 3] The system cannot find the path specified: 'C:\\\\Users\\\\me\\\\models\\\\out'\n"
    )
    assert "windows-cuda-path-missing" not in {f.code for f in report.findings}


_BNB_LEGACY = (
    "The following directories listed in your path were found to be non-existent: {WindowsPath('/usr/local/cuda/lib64')}\n"
    "CUDA_SETUP: WARNING! libcudart.so not found in any environmental path. Searching in backup paths...\n"
)


def test_a_pre_windows_bitsandbytes_on_windows_is_upgraded_to_the_first_release_that_supports_windows():
    report, steps = _run(_BNB_LEGACY)
    assert report.facts.platform.system == "Windows"  # pathlib's WindowsPath, whatever path it holds
    assert _codes(report) == ["framework-windows-native-gpu"]
    (step,) = steps
    assert step.argv[1:] == ("-m", "pip", "install", "--upgrade", "bitsandbytes>=0.43.0")


def test_the_same_search_on_linux_is_not_a_windows_finding():
    report, _ = _run(
        "Ubuntu 22.04\n"
        "The following directories listed in your path were found to be non-existent: {PosixPath('/usr/local/cuda/lib64')}\n"
        "CUDA_SETUP: WARNING! libcudart.so not found in any environmental path. Searching in backup paths...\n"
    )
    assert report.facts.platform.system == "Linux"
    assert "framework-windows-native-gpu" not in {f.code for f in report.findings}


_JAX_CUDA = 'C:\\Users\\me\\app>pip install --upgrade "jax[cuda12_pip]"\nCollecting jax[cuda12_pip]\n'


def test_jax_cuda_asked_on_native_windows_is_wsl_2_or_the_cpu():
    report, steps = _run(_JAX_CUDA)
    assert report.facts.platform.system == "Windows"
    assert _codes(report) == ["framework-windows-native-gpu"]
    assert [c.argv for c in steps] == [("wsl", "--install", "-d", "Ubuntu")]
    (f,) = [f for f in report.findings if f.code == "framework-windows-native-gpu"]
    alt = f.remediation.alternative
    assert alt is not None and alt.commands[0].argv[1:] == ("-m", "pip", "install", "--upgrade", "jax")


@pytest.mark.parametrize(
    "text", ['me@box:~$ pip install --upgrade "jax[cuda12]"\nUbuntu 22.04\n', 'I use WSL2.\npip install "jax[cuda12]"\n']
)
def test_jax_cuda_asked_on_linux_or_wsl_is_not_the_windows_finding(text):
    report, _ = _run(text)
    assert "framework-windows-native-gpu" not in {f.code for f in report.findings}


def _asks(text: str) -> list[tuple]:
    from gpudoctor.pasted.ask import ask_for

    report, _ = _run(text)
    return [a.command.argv for a in ask_for(report.facts, report.findings)]


def test_a_wsl_2_report_without_the_driver_asks_what_windows_puts_in_usr_lib_wsl_lib():
    asks = _asks("Ubuntu 18.04 running on WSL2, TensorFlow 2.4.0 finds no GPU\nimport tensorflow as tf\n")
    assert ("nvidia-smi",) in asks and ("ls", "-l", "/usr/lib/wsl/lib") in asks


def test_a_plain_linux_report_without_the_driver_does_not_ask_for_wsls_folder():
    asks = _asks("Ubuntu 18.04, TensorFlow 2.4.0 finds no GPU\nimport tensorflow as tf\n")
    assert ("nvidia-smi",) in asks and ("ls", "-l", "/usr/lib/wsl/lib") not in asks


def test_triton_windows_finding_no_cuda_is_the_cuda_12_toolkit_not_the_driver_or_torch():
    report, steps = _run("(env) C:\\Users\\me>python\n>>> import triton\nWARNING: Failed to find CUDA.\n")
    (f,) = [f for f in report.findings if f.severity >= Severity.WARNING]
    assert f.code == "framework-cuda-libs-missing" and f.remediation.component == "toolkit"
    assert [c.argv for c in steps] == [_TOOLKITS_LISTED, ("where", "nvcc")]


def test_the_same_words_on_linux_are_not_tritons_windows_search():
    report, _ = _run("me@box:~$ python x.py\nWARNING: Failed to find CUDA.\nUbuntu 22.04\n")
    assert "framework-cuda-libs-missing" not in {f.code for f in report.findings}


_VENV_AFTER_CONDA = (
    "I'm using wsl to run this app; it installs the cpu version of torch.\n"
    'eval "$(conda shell.bash hook)" ; conda deactivate ; conda activate base ; source /home/u/app/env/bin/activate '
    "/home/u/app/env ; uv pip install torch==2.6.0 --index-url https://download.pytorch.org/whl/cpu\n"
    "Using Python 3.10.15 environment at: env\n"
)


def test_a_venv_activated_after_conda_is_the_programs_interpreter_and_no_conda_list_is_asked():
    asks = _asks(_VENV_AFTER_CONDA)
    assert ("conda", "list") not in asks
    assert any(a[0] == "/home/u/app/env/bin/python" for a in asks)


def test_a_conda_environment_alone_still_asks_conda_list():
    asks = _asks("I'm on Ubuntu.\n(tg) me@box:~$ conda activate tg\nimport torch\ntorch.cuda.is_available() is False\n")
    assert ("conda", "list") in asks


def test_bitsandbytes_naming_its_missing_binary_is_left_to_that_finding_alone():
    report, _ = _run(
        _BNB_LEGACY + "CUDA SETUP: Required library version not found: libbitsandbytes_cuda118.dll. Maybe you need to "
        "compile it from source?\n"
    )
    codes = _codes(report)
    assert "companion-torch-mismatch" in codes and "framework-windows-native-gpu" not in codes


_ERROR_500 = (
    "/opt/conda/lib/python3.11/site-packages/torch/cuda/__init__.py:128: UserWarning: CUDA initialization: Unexpected "
    "error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have "
    "already set an error? Error 500: named symbol not found\n"
)


def test_cuda_init_error_500_in_a_container_is_a_finding_asking_for_docker_desktop_and_wsl_versions():
    report, _ = _run("Windows 11 host, docker container from pytorch/pytorch.\n" + _ERROR_500)
    assert _codes(report) == ["pasted-error-unexplained"]
    assert [e.kind for e in report.facts.pasted.errors if e.kind == "cuda-init-symbol-not-found"]
    asked = [a.command.words for a in ask_for(report.facts, report.findings)]
    assert ("docker", "version") in asked and ("wsl", "--version") in asked


def test_a_named_symbol_not_found_of_a_programs_own_kernel_is_not_cuda_init():
    # cudaGetSymbolAddress on a missing __device__ symbol: the program's own code, not the driver the container got
    report, _ = _run("cudaGetSymbolAddress failed: named symbol not found\n")
    assert not [e for e in report.facts.pasted.errors if e.kind == "cuda-init-symbol-not-found"]


@pytest.mark.parametrize(
    ("text", "asked", "not_asked"),
    [
        # CuPy on Windows: the loader's copies asked with where.exe (cmd.exe and PowerShell), never ldconfig
        (
            "OS : Windows-10-10.0.19041-SP0\ncupy_backends.cuda.libs.nvrtc.NVRTCError: NVRTC_ERROR_BUILTIN_OPERATION_FAILURE (7)\n",
            ("where.exe", "nvrtc*.dll"),
            ("ldconfig", "-p"),
        ),
        # NVRTC's own message on Linux: the loader's cache, never a Windows program
        (
            "RuntimeError: nvrtc: error: failed to open libnvrtc-builtins.so.11.1.\n"
            "  Make sure that libnvrtc-builtins.so.11.1 is installed correctly.\n",
            ("ldconfig", "-p"),
            ("where.exe", "nvrtc*.dll"),
        ),
    ],
)
def test_nvrtc_failing_to_open_its_builtins_is_a_finding_asking_the_loaders_copies_in_the_platforms_shell(text, asked, not_asked):
    report, _ = _run(text)
    assert _codes(report) == ["pasted-error-unexplained"]
    argvs = [a.command.argv for a in ask_for(report.facts, report.findings)]
    assert asked in argvs and not_asked not in argvs


def test_nvrtc_builtins_named_without_a_failure_is_no_evidence():
    report, _ = _run("CuPy ships nvrtc-builtins64_112.dll in its wheel; I listed it with dir.\n")
    assert not [e for e in report.facts.pasted.errors if e.kind == "nvrtc-builtins-missing"]
