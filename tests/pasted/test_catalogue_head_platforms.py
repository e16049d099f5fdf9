"""The head of containers, clusters, Windows and WSL, closed by general means (tests/pasted/head/platforms.toml): a pod's
shell known by Jupyter's container user, so NVML's Unknown Error is said as the container's lost devices; the DLLs
TensorFlow's loader warned of on native Windows asked of where.exe; CuPy's toolkit DLL planned as the toolkit CUDA_PATH
names; cuDNN 8's zlibwapi.dll planned with where it comes from. Each with the near miss that must stay quiet."""

from __future__ import annotations

from pathlib import Path

from tests.pasted.test_catalogue import _run

HEAD = Path(__file__).resolve().parent / "head" / "platforms"


def _text(name: str) -> str:
    return (HEAD / name).read_text(encoding="utf-8")


def _argvs(finding) -> list[tuple[str, ...]]:
    return [tuple(map(str, c.argv)) for c in finding.remediation.commands if hasattr(c, "argv")]


def test_nvml_unknown_error_under_jupyters_container_user_is_the_containers_lost_devices():
    # gpu-operator issue 430: a Kubeflow notebook's shell (jovyan, the Jupyter Docker Stacks user), nvidia-smi failing
    # a day after it worked: the fix is on the node (the /dev/char links), not the host's driver and kernel log
    _, _, codes, _ = _run(_text("container-nvml-unknown-error.txt"))
    fix = codes["driver-unreachable"].remediation
    assert fix.component == "container" and fix.where == "the host"
    assert ("nvidia-ctk", "system", "create-dev-char-symlinks", "--create-all") in _argvs(codes["driver-unreachable"])


def test_the_same_error_at_another_users_prompt_is_no_container():
    # the quiet twin: the same lines at an ordinary user's prompt say nothing of a container
    text = _text("container-nvml-unknown-error.txt").replace("jovyan@agm-0", "ubuntu@agm-0")
    _, _, codes, _ = _run(text)
    assert codes["driver-unreachable"].remediation.component != "container"
    assert all("create-dev-char-symlinks" not in a for a in _argvs(codes["driver-unreachable"]))


def test_dso_loader_dll_warning_on_windows_asks_where_the_dll_is():
    # cloudhan/jax-windows-builder issue 16: jaxlib's loader warned of cudart64_110.dll and went on on the CPU
    _, _, codes, asks = _run(_text("tf-cudart64-dll.txt"))
    assert "where.exe cudart64_110.dll" in asks
    assert not any(f.severity.label in ("warning", "error") for f in codes.values())  # a warning it goes on from


def test_dso_loader_warning_on_linux_asks_no_where_exe():
    # the quiet twin: the same loader's warning for Linux's soname
    text = (
        "2022-09-18 11:52:21.036734: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load "
        "dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: No such "
        "file or directory\n"
    )
    _, _, _, asks = _run(text)
    assert not any(a.startswith("where.exe") for a in asks)


def test_cupy_toolkit_dll_is_the_toolkit_cuda_path_names():
    # kijai/ComfyUI-GIMM-VFI issue 17: cupy-cuda12x without a CUDA 12 toolkit installed
    snapshot, _, codes, _ = _run(_text("cupy-nvrtc-dll.txt"))
    assert "library-missing" in {e["kind"] for e in snapshot["pasted"]["errors"]}
    found = codes["windows-dll-missing"]
    argvs = _argvs(found)
    assert ("where.exe", "/R", "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA", "nvrtc64_*.dll") in argvs
    assert any(a[:2] == ("reg", "query") and a[-1] == "CUDA_PATH" for a in argvs)
    assert found.remediation.component == "toolkit"


def test_cupy_on_linux_is_not_a_windows_dll():
    # the quiet twin: CuPy's words for Linux's soname
    text = (
        "CuPy failed to load libnvrtc.so.13: OSError: libnvrtc.so.13: cannot open shared object file: No such file or directory\n"
    )
    _, _, codes, _ = _run(text)
    assert "windows-dll-missing" not in codes


def test_zlibwapi_is_searched_for_and_put_on_path():
    # AlexeyAB/darknet issue 8551: cuDNN 8.4 on Windows without zlibwapi.dll
    _, _, codes, _ = _run(_text("cudnn-zlibwapi.txt"))
    argvs = _argvs(codes["windows-dll-missing"])
    assert ("where.exe", "/R", "C:\\", "zlibwapi.dll") in argvs


def test_zlibwapi_named_in_passing_is_no_failure():
    # the quiet twin: the DLL named where nothing failed to load it
    _, _, codes, _ = _run("copied zlibwapi.dll into C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.7\\bin\n")
    assert "windows-dll-missing" not in codes


def test_winerror_1114_wrapped_before_error_loading_is_read():
    # XiaoGu-G2020/DeltaForceMarketBot issue 46: the console wrapped the system's message before "Error loading"
    snapshot, _, _, _ = _run(_text("torch-c10-winerror-1114.txt"))
    assert "windows-dll-init-failed" in {e["kind"] for e in snapshot["pasted"]["errors"]}


def test_another_winerror_wrapped_the_same_way_is_not_1114():
    # the quiet twin: error 126 wrapped alike is a DLL not found, not one whose start-up failed
    text = _text("torch-c10-winerror-1114.txt").replace(
        "[WinError 1114] 动态链接库(DLL)初始化例程失败。", "[WinError 126] 找不到指定的模块。"
    )
    snapshot, _, _, _ = _run(text)
    assert "windows-dll-init-failed" not in {e["kind"] for e in snapshot["pasted"]["errors"]}


def test_torch_c_dll_load_failed_in_a_cpu_build_is_the_visual_cpp_runtime():
    # pytorch/pytorch issue 9071: torch 0.4.0's CPU wheel on Windows; collect_env's rows in pip's legacy format
    # ("[pip3] torch (0.4.0)") are read, not a crash
    _, report, codes, _ = _run(_text("torch-c-dll-load-failed.txt"))
    assert report.facts.frameworks.torch.value.version == "0.4.0"
    assert ("winget", "install", "--id", "Microsoft.VCRedist.2015+.x64", "--exact") in _argvs(codes["windows-dll-missing"])


def test_torch_c_procedure_not_found_is_not_the_runtime():
    # the quiet twin: error 127's words (a procedure missing: DLLs of two releases) are no missing runtime
    text = _text("torch-c-dll-load-failed.txt").replace(
        "The specified module could not be found", "The specified procedure could not be found"
    )
    _, _, codes, _ = _run(text)
    assert "windows-dll-missing" not in codes
