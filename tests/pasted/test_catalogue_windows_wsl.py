"""The catalogue's Windows and WSL block (issue 28, catalogue.toml): Windows' loader errors as torch raises them, read by
their number (the system's text is localized), torch's Visual C++ runtime warning, and WSL's ldconfig line. Each on a
minimal paste and on its real example, with the twin that must keep its own answer or stay quiet."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.model import Severity
from tests.pasted.test_windows_evidence import _run

EXAMPLES = Path(__file__).resolve().parent / "catalogue_examples"
SITE = "C:\\Users\\me\\venv\\Lib\\site-packages"
VENV_PY = "C:\\Users\\me\\venv\\Scripts\\python.exe"
WINGET = ("winget", "install", "--id", "Microsoft.VCRedist.2015+.x64", "--exact")


def _loading(code: str, text: str, dll: str) -> str:
    return (
        f'  File "{SITE}\\torch\\__init__.py", line 128, in <module>\n    raise err\n'
        f'OSError: [WinError {code}] {text} Error loading "{SITE}\\torch\\lib\\{dll}" or one of its dependencies.\n'
    )


def _example(name: str) -> str:
    return (EXAMPLES / name).read_text(encoding="utf-8")


def _codes(report) -> dict:
    return {f.code: f for f in report.findings if f.severity >= Severity.WARNING}


def _ask_words(asks) -> list[tuple]:
    return [tuple(str(w) for w in a.command.argv) for a in asks]


# --- the Visual C++ runtime: torch's warning, or c10.dll refused ---------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Microsoft Visual C++ Redistributable is not installed, this may lead to the DLL load failure.\n"
        "                 It can be downloaded at https://aka.ms/vs/16/release/vc_redist.x64.exe\n"
        + _loading("126", "The specified module could not be found.", "c10.dll"),
        # (c10.dll links only the C++ runtime and Windows' own DLLs: not found without the warning shown is the runtime)
        _loading("126", "The specified module could not be found.", "c10.dll"),
    ],
)
def test_the_vc_runtime_missing_is_installed_with_winget_not_put_on_path(text):
    report, _target, steps, _asks = _run(text)
    finding = _codes(report)["windows-dll-missing"]
    assert finding.title.endswith("not installed")
    assert [c.argv for c in steps] == [WINGET]


def test_c10_dll_refusing_to_start_1114_localized_is_an_old_vc_runtime():
    report, _target, steps, _asks = _run(_example("graph-rag-agent-54-winerror-1114-c10-dll.txt"))
    finding = _codes(report)["windows-dll-missing"]
    assert finding.title.endswith("older than its build")
    assert [c.argv for c in steps] == [WINGET]


def test_the_real_warning_above_a_dll_load_failed_is_the_vc_runtime():
    report, _target, steps, _asks = _run(_example("atri-plugin-3-torch-vc-redist-not-installed.txt"))
    assert set(_codes(report)) == {"windows-dll-missing"}
    assert [c.argv for c in steps] == [WINGET]


def test_a_dependency_of_torchs_own_fbgemm_keeps_its_release_answer_not_the_vc_runtime():
    """The release is read first (pip show: 2.4.0 is libomp140's regression, upgraded to 2.4.1); the Visual C++
    runtime is read beside it, not installed (torch loaded c10.dll, which links it, before fbgemm.dll, and the text
    shows no runtime missing): never the c10 rule's runtime-only answer."""
    report, _target, steps, _asks = _run(_loading("126", "The specified module could not be found.", "fbgemm.dll"))
    assert [c.argv[1:] for c in steps][0] == ("-m", "pip", "show", "torch")
    assert [c.argv for c in steps][1:] == [
        ("reg", "query", "HKLM\\SOFTWARE\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes\\x64", "/v", "Version")
    ]


# --- 1114 elsewhere, 127, 1455: no DLL missing, so no PATH step; the asks that decide ---------------------------------


@pytest.mark.parametrize(
    ("text", "entry", "asked"),
    [
        (
            _loading("1114", "A dynamic link library (DLL) initialization routine failed.", "cublas64_11.dll"),
            "windows-dll-init-failed",
            (VENV_PY, "-m", "pip", "list"),
        ),
        (
            _loading("127", "The specified procedure could not be found.", "caffe2_nvrtc.dll"),
            "windows-dll-procedure-not-found",
            (VENV_PY, "-m", "pip", "list"),
        ),
        (
            _loading("127", "La procédure spécifiée est introuvable.", "cudnn_adv_infer64_8.dll"),
            "windows-dll-procedure-not-found",
            (VENV_PY, "-m", "pip", "list"),
        ),
        (
            _loading("193", "%1 不是有效的 Win32 应用程序。", "cublas64_12.dll"),
            "windows-dll-bad-image",
            (VENV_PY, "-c", "import struct, sys; print(struct.calcsize('P') * 8, sys.executable)"),
        ),
    ],
)
def test_loader_errors_that_are_no_missing_dll_ask_what_decides(text, entry, asked):
    report, target, steps, asks = _run(text)
    assert target == "powershell"
    assert set(_codes(report)) == {"pasted-error-unexplained"}
    assert not steps  # no PATH step: the DLL was found
    assert any(e.get("entry") == entry for e in report.facts.pasted.errors)
    assert asked in _ask_words(asks)


@pytest.mark.parametrize(
    ("example", "asked"),
    [
        ("lunar-58-winerror-127-c10-cuda-dll.txt", ("-m", "pip", "list")),
        ("pytorch-chatbot-10-winerror-193.txt", ("-m", "pip", "list")),
    ],
)
def test_the_real_127_and_193_reports_ask_and_plan_nothing(example, asked):
    report, _target, steps, asks = _run(_example(example))
    assert "windows-dll-missing" not in _codes(report) and not steps
    assert asked in [w[1:] for w in _ask_words(asks)]


_PAGEFILE = (
    "powershell",
    "-NoProfile",
    "-Command",
    "Get-CimInstance Win32_PageFileUsage | Format-List Name,AllocatedBaseSize,PeakUsage",
)


@pytest.mark.parametrize(
    "text",
    [
        _loading("1455", "The paging file is too small for this operation to complete.", "cudnn_cnn_infer64_8.dll"),
        _example("yolov5-11418-winerror-1455-paging-file.txt"),
    ],
)
def test_the_paging_file_is_its_own_finding_read_on_windows_never_a_missing_dll(text):
    report, _target, steps, _asks = _run(text)
    assert report.facts.platform.system == "Windows"
    assert set(_codes(report)) == {"windows-paging-file-too-small"}  # not windows-dll-missing, not unexplained
    assert [c.argv for c in steps][0] == _PAGEFILE and len(steps) == 2
    assert not any(c.argv[0] in ("free", "cat", "swapon", "winget") for c in steps)


_SPAWNED_WORKERS_1455 = str(
    Path(__file__).resolve().parents[2]
    / ("tests/blind/plans10/cases/1034-mockingbird486-windows-anaconda-pre-py-six-workers-winerror-1455-page-file/input.txt")
)
_FBGEMM_126 = str(
    Path(__file__).resolve().parents[2]
    / "tests/blind/plans5/cases/411-pt133397-windows-python312-fbgemm-dll-torch-version-na-ask/input.txt"
)


@pytest.mark.parametrize(
    "text",
    [
        Path(_SPAWNED_WORKERS_1455).read_text(encoding="utf-8"),  # six workers spawned by a preprocessing script
        _example("yolov5-11418-winerror-1455-paging-file.txt"),  # YOLOv5's DataLoader workers
    ],
)
def test_the_paging_file_leaves_torch_importable_so_collect_env_is_asked(text):
    """Error 1455 is the commit limit, not a DLL torch lacks: the same DLL loads where commit is left (the main process
    that spawned the workers), so torch imports, and collect_env (not pip list "as torch cannot be imported") is asked."""
    report, _target, _steps, asks = _run(text)
    assert "windows-paging-file-too-small" in _codes(report)
    words = _ask_words(asks)
    assert any(w[1:] == ("-m", "torch.utils.collect_env") for w in words), words
    assert not any(w[1:3] == ("-m", "pip") for w in words), words


def test_a_dll_torch_cannot_load_still_asks_pip_not_collect_env():
    # The quiet twin: WinError 126 loading fbgemm.dll (a dependency missing) keeps torch from importing at all.
    _report, _target, _steps, asks = _run(Path(_FBGEMM_126).read_text(encoding="utf-8"))
    words = _ask_words(asks)
    assert any(w[1:4] == ("-m", "pip", "list") for w in words), words
    assert not any(w[1:] == ("-m", "torch.utils.collect_env") for w in words), words


_FBGEMM_WRAPPED = str(
    Path(__file__).resolve().parents[2]
    / "tests/blind/plans14/cases/1438-sdscripts-1597-windows-powershell-kohya-venv-flux-branch-torch-update-fbgemm-dll-libomp140-missing/input.txt"
)


@pytest.mark.parametrize(
    "path",
    [
        _FBGEMM_WRAPPED,  # a launcher's log formatter broke the message after "Error loading", the path indented below
        _FBGEMM_126,  # the same raise on one line (torch imported at a prompt)
    ],
)
def test_torch_own_dll_126_is_read_wrapped_or_whole(path):
    """torch's ' Error loading "<dll>" or one of its dependencies' is one answer whether a log formatter wrapped it:
    the DLL is torch's own, so a dependency of it is missing, and the torch release installed is read first."""
    report, _target, steps, asks = _run(Path(path).read_text(encoding="utf-8"))
    missing = [e for e in report.facts.pasted.errors if e.kind == "library-missing"]
    assert [e.get("soname") for e in missing] == ["fbgemm.dll"]
    assert "site-packages\\torch\\lib\\fbgemm.dll" in missing[0].line
    finding = _codes(report)["windows-dll-missing"]
    assert finding.remediation.component == "torch"
    assert any(tuple(str(w) for w in c.argv)[1:] == ("-m", "pip", "show", "torch") for c in steps), steps
    # (its folder is searched already: which folders on PATH hold a copy decides nothing)
    assert not any(w[0] == "where.exe" for w in _ask_words(asks)), _ask_words(asks)


def test_a_dll_off_any_package_folder_still_asks_where_path_holds_it():
    # The twin: Paddle's error 126 names cudnn64_7.dll alone, found by PATH search (no package folder named)
    text = "RuntimeError: (PreconditionNotMet) The third-party dynamic library (cudnn64_7.dll) that Paddle depends on is not configured correctly. (error code is 126)\n"
    _report, _target, _steps, asks = _run(text)
    assert ("where.exe", "cudnn64_7.dll") in _ask_words(asks), _ask_words(asks)


def test_a_wrapped_launcher_error_without_a_dll_is_no_missing_library():
    # The quiet twin: the same launcher's log (bmaltais/kohya_ss issue 2500), torch failing on a missing module, no DLL.
    text = (
        "14:07:40-688967 INFO     Kohya_ss GUI version: v24.1.4\n"
        "14:07:41-110714 INFO     Submodule initialized and updated.\n"
        "14:07:41-112714 INFO     nVidia toolkit detected\n"
        "14:07:41-839146 ERROR    Could not load torch: No module named 'torch.amp'\n"
    )
    report, _target, _steps, _asks = _run(text)
    assert not [e for e in report.facts.pasted.errors if e.kind == "library-missing"]
    assert "windows-dll-missing" not in _codes(report)


# --- WSL: ldconfig's warning over /usr/lib/wsl/lib is no failure ---------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Processing triggers for libc-bin (2.35-0ubuntu3.1) ...\n"
        "/sbin/ldconfig.real: /usr/lib/wsl/lib/libcuda.so.1 is not a symbolic link\n",
        _example("wsl-11229-ldconfig-libcuda-not-symlink.txt"),
    ],
)
def test_wsl_ldconfig_not_a_symbolic_link_stays_quiet(text):
    report, _target, steps, _asks = _run(text)
    assert any(e.get("entry") == "wsl-ldconfig-libcuda-not-symlink" for e in report.facts.pasted.errors)
    assert report.facts.platform.wsl == 2
    assert not _codes(report) and not steps


def test_a_real_failure_beside_the_ldconfig_line_is_still_read():
    text = (
        "/sbin/ldconfig.real: /usr/lib/wsl/lib/libcuda.so.1 is not a symbolic link\n"
        "Failed to initialize NVML: GPU access blocked by the operating system\n"
    )
    report, _target, _steps, _asks = _run(text)
    assert _codes(report)  # NVML's failure is judged; the ldconfig line neither hides nor adds one
    assert all("ldconfig" not in ev.value for f in report.findings for ev in f.evidence)


# --- WSL: wsl -l -v's default row decides WSL 1 or 2; nvidia-smi missing inside WSL 2 --------------------------------

_PY_FALSE = '$ python3 -c "import torch; print(torch.cuda.is_available())"\nFalse\n'


def _listed(*rows: str) -> str:
    return "PS C:\\Users\\me> wsl -l -v\n  NAME            STATE           VERSION\n" + "\n".join(rows) + "\n\n" + _PY_FALSE


def test_wsl_list_verbose_default_version_1_converts_that_distribution_by_name():
    report, _target, steps, _asks = _run(_listed("* Ubuntu-20.04    Running         1", "  docker-desktop  Stopped         2"))
    assert report.facts.platform.wsl == 1
    assert "wsl1-no-cuda" in _codes(report)
    assert [c.argv for c in steps] == [("wsl", "--update"), ("wsl", "--set-version", "Ubuntu-20.04", "2")]


@pytest.mark.parametrize(
    "text",
    [
        # the default runs WSL 2; another distribution's 1 is not the one that runs
        _listed("* Ubuntu          Running         2", "  Legacy          Stopped         1"),
        # the table beats the reporter's words
        "I was on WSL 1 before.\n" + _listed("* Ubuntu          Running         2"),
        _example("wsl-5554-kernel-headers-wsl-list-verbose.txt"),
    ],
)
def test_wsl_list_verbose_default_version_2_is_no_wsl_1(text):
    report, _target, _steps, _asks = _run(text)
    assert report.facts.platform.wsl == 2
    assert "wsl1-no-cuda" not in _codes(report)


def test_nvidia_smi_not_found_inside_wsl_2_asks_wsls_folder_and_the_windows_driver():
    text = "$ nvidia-smi\nnvidia-smi: command not found\n$ uname -r\n5.15.153.1-microsoft-standard-WSL2\n"
    report, _target, steps, asks = _run(text)
    assert report.facts.platform.wsl == 2 and not steps
    assert _ask_words(asks)[:2] == [("ls", "-l", "/usr/lib/wsl/lib"), ("nvidia-smi.exe",)]


def test_nvidia_smi_not_found_on_plain_linux_does_not_ask_for_wsls_folder():
    report, _target, _steps, asks = _run("$ nvidia-smi\nnvidia-smi: command not found\n$ uname -r\n6.8.0-45-generic\n")
    assert report.facts.platform.wsl is None or report.facts.platform.wsl == 0
    assert ("ls", "-l", "/usr/lib/wsl/lib") not in _ask_words(asks)


_VIDEO = (
    "powershell",
    "-NoProfile",
    "-Command",
    "Get-CimInstance Win32_VideoController | Format-List Name,DriverVersion,Status",
)


@pytest.mark.parametrize(
    "text",
    [
        "C:\\Users\\me>nvidia-smi\n'nvidia-smi' is not recognized as an internal or external command,\n"
        "operable program or batch file.\n",
        "PS C:\\Users\\me> nvidia-smi\nnvidia-smi : The term 'nvidia-smi' is not recognized as the name of a cmdlet, "
        "function, script file, or operable\nprogram.\n",
    ],
)
def test_nvidia_smi_not_found_on_windows_asks_the_display_adapters_and_their_driver(text):
    report, _target, steps, asks = _run(text)
    assert report.facts.platform.system == "Windows" and not steps
    assert _VIDEO in _ask_words(asks)
    assert ("ls", "-l", "/usr/lib/wsl/lib") not in _ask_words(asks)


def test_nvidia_smi_named_without_a_failure_on_windows_asks_no_display_adapters():
    text = 'C:\\Users\\me>python -c "import torch; print(torch.cuda.is_available())"\nFalse\nnvidia-smi works and shows my GPU.\n'
    report, _target, _steps, asks = _run(text)
    assert report.facts.platform.system == "Windows"
    assert _VIDEO not in _ask_words(asks)


# --- ctypes' "Could not find module" (CPython on Windows): the driver's nvcuda.dll, or a package's file ----------------


@pytest.mark.parametrize(
    "text",
    [
        _example("langchain-chatchat-87-nvcuda-dll-not-found.txt"),
        # Python 3.8's wording, without "(or one of its dependencies)"
        "FileNotFoundError: Could not find module 'C:\\Windows\\System32\\nvcuda.dll'. Try using the full path with "
        "constructor syntax.\n",
    ],
)
def test_nvcuda_dll_not_found_asks_whether_an_nvidia_display_driver_is_installed(text):
    report, _target, steps, asks = _run(text)
    assert any(e.get("entry") == "windows-ctypes-nvcuda-not-found" for e in report.facts.pasted.errors)
    assert not any(e.kind == "windows-module-not-found" for e in report.facts.pasted.errors)
    assert "windows-dll-missing" not in _codes(report) and not steps  # the driver's DLL: no PATH step
    assert _VIDEO in _ask_words(asks)


def test_a_package_file_not_found_asks_where_exe_in_its_folder_and_the_environment():
    report, _target, _steps, asks = _run(_example("bitsandbytes-1524-could-not-find-module-cpu-dll.txt"))
    folder = "C:\\aitest\\SkyReels-V1\\venv\\lib\\site-packages\\bitsandbytes"
    assert ("where.exe", "/R", folder, "libbitsandbytes_cpu.dll") in _ask_words(asks)
    assert ("C:\\aitest\\SkyReels-V1\\venv\\Scripts\\python.exe", "-m", "pip", "list") in _ask_words(asks)


def test_a_bare_module_name_asks_no_where_exe_folder():
    text = "FileNotFoundError: Could not find module 'llmodel.dll' (or one of its dependencies). Try using the full path\n"
    report, _target, _steps, asks = _run(text)
    assert any(e.kind == "windows-module-not-found" for e in report.facts.pasted.errors)
    assert not any(w[0] == "where.exe" for w in _ask_words(asks))


def test_torchvisions_optional_image_extension_warning_is_not_read():
    text = (
        "C:\\Users\\me\\anaconda3\\envs\\hr\\lib\\site-packages\\torchvision\\io\\image.py:11: UserWarning: Failed to load "
        "image Python extension: Could not find module 'C:\\Users\\me\\anaconda3\\envs\\hr\\Lib\\site-packages\\torchvision"
        "\\image.pyd' (or one of its dependencies). Try using the full path with constructor syntax.\n"
        '  warn(f"Failed to load image Python extension: {e}")\n'
    )
    report, _target, _steps, _asks = _run(text)
    assert not any(e.kind == "windows-module-not-found" for e in report.facts.pasted.errors)
    assert not _codes(report)


_CI_POLICY = ("reg", "query", "HKLM\\SYSTEM\\CurrentControlSet\\Control\\CI\\Policy", "/v", "VerifiedAndReputablePolicyState")


@pytest.mark.parametrize(
    "text",
    [
        _loading("4551", "An Application Control policy has blocked this file.", "c10.dll"),
        _loading("4551", "应用程序控制策略已阻止此文件。", "c10_cuda.dll"),
        _example("comfyui-15117-winerror-4551-application-control.txt"),
    ],
)
def test_application_control_blocking_a_torch_dll_asks_smart_app_control_not_the_vc_runtime(text):
    report, _target, steps, asks = _run(text)
    assert any(e.get("entry") == "windows-application-control-blocked" for e in report.facts.pasted.errors)
    assert "windows-dll-missing" not in _codes(report) and not steps  # neither winget nor PATH: the DLL is intact
    assert _CI_POLICY in _ask_words(asks)


# --- libnvidia-container under WSL 2: dxcore found no GPU adapter ----------------------------------------------------


def test_wsl_no_adapters_from_the_distribution_asks_the_windows_driver_and_wsls_folder():
    report, _target, steps, asks = _run(_example("dreambooth-gui-23-wsl-no-adapters.txt"))
    assert report.facts.platform.wsl == 2 and not steps
    assert any(e.get("entry") == "wsl-dxcore-no-adapters" for e in report.facts.pasted.errors)
    words = _ask_words(asks)
    assert ("nvidia-smi.exe",) in words and ("ls", "-l", "/usr/lib/wsl/lib") in words
    assert ("docker", "version") in words


def test_wsl_no_adapters_from_a_windows_prompt_is_docker_desktops_wsl_2_engine():
    text = (
        "E:\\HeyGem\\deploy>docker-compose up -d\n"
        "Error response from daemon: failed to create task for container: failed to create shim task: OCI runtime create "
        "failed: runc create failed: unable to start container process: error during container init: error running "
        "prestart hook #0: exit status 1, stdout: , stderr: Auto-detected mode as 'legacy'\n"
        "nvidia-container-cli: initialization error: WSL environment detected but no adapters were found: unknown\n"
    )
    report, _target, _steps, asks = _run(text)
    words = _ask_words(asks)
    # (the hook ran in WSL 2, Docker Desktop's engine: Windows' driver is asked for by its Windows name)
    assert report.facts.platform.wsl == 2
    assert ("nvidia-smi.exe",) in words and ("docker", "version") in words


def test_libnvidia_containers_dxcore_info_lines_on_a_linux_host_are_no_wsl_and_no_failure():
    text = (
        "I0828 18:43:18.664828 4993 nvc.c:389] attempting to load dxcore to see if we are running under Windows "
        "Subsystem for Linux (WSL)\n"
        "I0828 18:43:18.664969 4993 nvc.c:391] dxcore initialization failed, continuing assuming a non-WSL environment\n"
        "I0828 18:43:18.665502 4995 driver.c:101] starting driver service\n"
    )
    report, _target, _steps, _asks = _run(text)
    assert not report.facts.platform.wsl
    assert not _codes(report)


def test_bitsandbytes_cuda_setup_dll_on_windows_is_the_pre_043_release_upgraded_in_its_interpreter():
    report, _target, steps, asks = _run(_example("bitsandbytes-626-windows-cuda-setup-dll.txt"))
    assert "framework-windows-native-gpu" in _codes(report)
    py = "D:\\PycharmProjects\\localGPT\\venv\\Scripts\\python.exe"
    assert [c.argv for c in steps] == [(py, "-m", "pip", "install", "--upgrade", "bitsandbytes>=0.43.0")]
    assert not any(w[0] == "where.exe" for w in _ask_words(asks))  # the line is explained


def test_a_current_bitsandbytes_dll_outside_cuda_setup_is_not_the_pre_043_release():
    text = (
        "Could not find module 'C:\\aitest\\venv\\lib\\site-packages\\bitsandbytes\\libbitsandbytes_cuda124.dll' "
        "(or one of its dependencies). Try using the full path with constructor syntax.\n"
    )
    report, _target, _steps, _asks = _run(text)
    assert "framework-windows-native-gpu" not in _codes(report)


def test_wsl_2_kernels_dxg_ioctl_lines_beside_a_working_gpu_are_no_failure():
    # (the WSL 2 kernel's dxgkrnl logs these at every start; microsoft/WSL issue 11293: they do not affect the GPU)
    text = (
        "$ dmesg | grep dxg\n[    0.265917] hv_vmbus: registering driver dxgkrnl\n"
        "[    1.265648] misc dxg: dxgk: dxgkio_is_feature_enabled: Ioctl failed: -22\n"
        "[    1.272072] misc dxg: dxgk: dxgkio_query_adapter_info: Ioctl failed: -22\n"
        '$ python3 -c "import torch; print(torch.cuda.is_available())"\nTrue\n'
    )
    report, _target, steps, _asks = _run(text)
    assert not _codes(report) and not steps
    assert not report.facts.pasted.errors


@pytest.mark.parametrize(
    "text",
    [
        _loading("126", "The specified module could not be found.", "fbgemm.dll"),
        _loading("1455", "The paging file is too small for this operation to complete.", "shm.dll"),
        "Microsoft Visual C++ Redistributable is not installed, this may lead to the DLL load failure.\n"
        f'  File "{SITE}\\torch\\__init__.py", line 139, in <module>\n    from torch._C import *  # noqa: F403\n'
        "ImportError: DLL load failed: The specified module could not be found.\n",
    ],
)
def test_where_torch_itself_cannot_import_collect_env_is_not_asked_but_pip_list_is(text):
    _report, _target, _steps, asks = _run(text)
    words = _ask_words(asks)
    assert not any("torch.utils.collect_env" in w for w in words)
    assert (VENV_PY, "-m", "pip", "list") in words or any(w[1:] == ("-m", "pip", "show", "torch") for w in words)
