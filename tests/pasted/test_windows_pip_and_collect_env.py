"""Windows, pip and collect_env on pasted text (after-round h218): collect_env's "No CUDA" is no GPU's name and says
nvidia-smi listed none; pip's isolated build environment is no interpreter of the reporter's. Each on whole real pastes,
with the near miss that must keep its answer."""

from __future__ import annotations

from pathlib import Path

from tests.pasted.test_catalogue import _run

ROOT = Path(__file__).resolve().parents[2]
PLANS15 = ROOT / "tests" / "blind" / "plans15" / "cases"
HEAD = ROOT / "tests" / "pasted" / "head" / "platforms"


def _case(prefix: str) -> str:
    return next(PLANS15.glob(prefix + "*")).joinpath("input.txt").read_text(encoding="utf-8")


def test_collect_env_no_cuda_is_no_gpu_and_a_cpu_build_is_no_fault_there():
    # tests/blind/plans15/cases/1527-pt12831-...: torch 0.4.1's CPU build on a machine without an NVIDIA GPU;
    # collect_env prints "No CUDA" in every CUDA row (pytorch/pytorch torch/utils/collect_env.py @95511e23)
    snapshot, report, codes, _ = _run(_case("1527-"))
    assert report.facts.driver.gpus == ()  # no GPU called "No CUDA"
    assert "gpu" in snapshot["pasted"]["whole"]
    assert report.facts.frameworks.torch.value.version == "0.4.1"
    assert "framework-cpu-build" not in codes


def test_collect_env_no_cuda_row_quoted_in_a_form_is_no_gpu_either():
    # pytorch/pytorch issue 9071 (tests/pasted/head/platforms/torch-c-dll-load-failed.txt): the rows quoted with "> ",
    # an AMD machine: the runtime is the fault, the CPU build is not
    snapshot, _, codes, _ = _run((HEAD / "torch-c-dll-load-failed.txt").read_text(encoding="utf-8"))
    assert "gpu" in snapshot["pasted"]["whole"]
    assert "windows-dll-missing" in codes and "framework-cpu-build" not in codes


def test_collect_env_naming_a_gpu_keeps_the_cpu_build_finding():
    # the quiet twin: the same collect_env with nvidia-smi's GPU row: a CPU build beside an NVIDIA GPU is the fault
    text = _case("1527-").replace(
        "GPU models and configuration: No CUDA", "GPU models and configuration: GPU 0: GeForce GTX 1080"
    )
    snapshot, _, codes, _ = _run(text)
    assert "gpu" not in snapshot["pasted"]["whole"]
    assert "framework-cpu-build" in codes


# vllm-project/vllm issue 13518 (https://github.com/vllm-project/vllm/issues/13518), as its reporter pasted pip's output
# on native Windows (a Miniconda environment): the build ran in pip's isolated environment, with vLLM's own warning
VLLM_13518 = r"""Requirement already satisfied: MarkupSafe>=2.0 in c:\users\ectek\miniconda3\envs\ds\lib\site-packages (from jinja2->outlines==0.1.11->vllm) (2.1.5)
Building wheels for collected packages: vllm
  Building wheel for vllm (pyproject.toml) ... error
  error: subprocess-exited-with-error

  × Building wheel for vllm (pyproject.toml) did not run successfully.
  │ exit code: 1
  ╰─> [1200 lines of output]
      C:\Users\ectek\AppData\Local\Temp\pip-build-env-imi_2xx7\overlay\Lib\site-packages\torch\_subclasses\functional_tensor.py:295: UserWarning: Failed to initialize NumPy: No module named 'numpy' (Triggered internally at C:\actions-runner\_work\pytorch\pytorch\builder\windows\pytorch\torch\csrc\utils\tensor_numpy.cpp:84.)
        cpu = _conversion_method_template(device=torch.device("cpu"))
      vLLM only supports Linux platform (including WSL) and MacOS.Building on win32, so vLLM may not be able to run correctly
      running bdist_wheel
"""


def test_pip_build_env_is_no_interpreter_of_the_reporters():
    # tests/blind/plans15/cases/1517-vllm669-...: cpp_extension's frames in pip's build environment (overlay) beside
    # the reporter's own REPL; and vllm issue 13518's torch warning from the same kind of folder
    for text in (_case("1517-"), VLLM_13518):
        snapshot, _, _, asks = _run(text)
        assert not any("pip-build-env" in p for p in snapshot["pasted"].get("site_packages", [])), snapshot["pasted"]
        assert not any("pip-build-env" in a for a in asks)
        assert snapshot["platform"]["system"] == "Windows"


def test_a_venvs_site_packages_is_still_the_interpreter():
    # the quiet twin: the same frames in a venv's site-packages name that venv's python.exe
    text = _case("1517-").replace("AppData\\Local\\Temp\\pip-build-env-5lg7tzgg\\overlay", "proj\\.venv")
    _, _, _, asks = _run(text)
    assert any(a.startswith("C:\\Users\\A\\proj\\.venv\\Scripts\\python.exe") for a in asks), asks


def _wsl_route(codes) -> bool:
    f = codes.get("framework-windows-native-gpu")
    return f is not None and ("wsl", "--install", "-d", "Ubuntu") in [tuple(map(str, c.argv)) for c in f.remediation.commands]


def test_vllm_asked_for_on_native_windows_is_routed_to_wsl2():
    # vLLM publishes Linux wheels only (vllm-project/vllm docs/getting_started/installation/gpu.md @4487edc6)
    for text in (_case("1517-"), VLLM_13518):
        _, _, codes, _ = _run(text)
        assert _wsl_route(codes)


def test_vllm_asked_for_inside_wsl_or_linux_is_no_windows_finding():
    # the quiet twins: the same pip output inside WSL 2 (Linux paths), and vllm named on native Windows without pip
    linux = VLLM_13518.replace(
        "c:\\users\\ectek\\miniconda3\\envs\\ds\\lib\\site-packages",
        "/home/ectek/miniconda3/envs/ds/lib/python3.12/site-packages",
    )
    linux = linux.replace(
        "C:\\Users\\ectek\\AppData\\Local\\Temp\\pip-build-env-imi_2xx7\\overlay\\Lib",
        "/tmp/pip-build-env-imi_2xx7/overlay/lib/python3.12",
    )
    linux = linux.replace("Building on win32", "Building on linux").replace("C:\\actions-runner", "/actions-runner")
    _, _, codes, _ = _run("uname -a\nLinux pc 5.15.153.1-microsoft-standard-WSL2 #1 SMP x86_64 GNU/Linux\n" + linux)
    assert "framework-windows-native-gpu" not in codes
    _, _, codes, _ = _run("C:\\Users\\me>python -c \"import vllm\"\nModuleNotFoundError: No module named 'vllm'\n")
    assert "framework-windows-native-gpu" not in codes


def test_pip_typed_bare_that_found_nothing_is_asked_which_python_it_belongs_to():
    # tests/blind/plans15/cases/1506-pt79347-...: `pip3 install torch` in a code span on Windows 11; and tensorflow issue
    # 79349 (tests/pasted/cases/tensorflow-79349-windows-python313-no-tensorflow-wheel): `pip install` at a cmd prompt
    _, _, _, asks = _run(_case("1506-"))
    assert "pip3 --version" in asks and "py -0p" in asks
    report = ROOT / "tests/pasted/cases/tensorflow-79349-windows-python313-no-tensorflow-wheel/report.txt"
    _, _, _, asks = _run(report.read_text(encoding="utf-8"))
    assert "pip --version" in asks and "py -0p" in asks


def test_pip_run_by_its_interpreter_is_not_asked_which_python():
    # the quiet twin: `python -m pip install` names its interpreter; and on Linux no py launcher is asked
    _, _, _, asks = _run(_case("1506-").replace("`pip3 install", "`python -m pip install"))
    assert not any(a.endswith("--version") and a.startswith("pip") for a in asks) and "py -0p" not in asks
    _, _, _, asks = _run(
        "$ pip3 install torch\nERROR: Could not find a version that satisfies the requirement torch (from versions: none)\n"
    )
    assert "pip3 --version" in asks and "py -0p" not in asks


EXAMPLES = ROOT / "tests" / "pasted" / "catalogue_examples"


def _entries(snapshot) -> set[str]:
    return {(e.get("values") or {}).get("entry") for e in snapshot["pasted"]["errors"]}


def test_torchvision_op_without_a_cuda_kernel_is_a_torchvision_without_cuda():
    # ltdrdata/ComfyUI-Impact-Pack issue 915 (catalogue example) and tests/blind/plans15/cases/1546-ultralytics-22069-...:
    # torchvision::nms on CUDA tensors, the dispatcher's list CPU only (pytorch/pytorch OperatorEntry.cpp @9bd401ee)
    text = (EXAMPLES / "comfyui-impact-pack-915-torchvision-nms-cuda-backend-cpu-only.txt").read_text(encoding="utf-8")
    for paste in (text, _case("1546-")):
        snapshot, _, codes, _ = _run(paste)
        assert "torchvision-op-no-cuda-kernel" in _entries(snapshot)
        assert "companion-torch-mismatch" in codes


def test_on_a_jetson_the_torchvision_fix_keeps_nvidias_torch():
    # 1546 names a Jetson Orin Nano: PyTorch's indexes hold no Jetson build, so no index command is printed, and the
    # torch/torchvision pair is asked
    _, _, codes, asks = _run(_case("1546-"))
    fix = codes["companion-torch-mismatch"].remediation
    assert not any("download.pytorch.org" in " ".join(map(str, c.argv)) for c in fix.commands)
    assert "--no-deps" in fix.summary
    assert any("torchvision.__version__" in a for a in asks)


def test_a_backend_list_with_cuda_is_not_the_cpu_torchvision():
    # the quiet twin: the same message whose backends list the plain CUDA key is no build without CUDA
    text = (EXAMPLES / "comfyui-impact-pack-915-torchvision-nms-cuda-backend-cpu-only.txt").read_text(encoding="utf-8")
    snapshot, _, _, _ = _run(text.replace("backends: [CPU, Meta,", "backends: [CPU, CUDA, Meta,"))
    assert "torchvision-op-no-cuda-kernel" not in _entries(snapshot)


def _blind(path: str) -> str:
    return next(ROOT.glob(path)).joinpath("input.txt").read_text(encoding="utf-8")


def test_a_cut_traceback_through_runpy_asks_for_the_console_script_not_runpy():
    # tests/blind/plans15/cases/1544-invokeai-5773-... and tests/blind/plans9/cases/942-nerfstudio1177-...: the paste
    # ends inside a traceback that starts in the interpreter's runpy.py and then the venv's console-script launcher
    for path, exe in (
        ("tests/blind/plans15/cases/1544-*", "C:\\Users\\m1-x3\\invokeai\\.venv\\Scripts\\invokeai-web.exe"),
        ("tests/blind/plans9/cases/942-*", "C:\\Users\\glens\\miniconda3\\envs\\ns\\Scripts\\ns-train.exe"),
    ):
        snapshot, _, _, asks = _run(_blind(path))
        cut = [e for e in snapshot["pasted"]["errors"] if e["kind"] == "traceback-cut"]
        assert cut and cut[0]["values"]["script"] == exe
        assert exe in asks and not any("runpy.py" in a for a in asks)


def test_a_cut_traceback_from_the_reporters_script_still_runs_that_script():
    # the quiet twin: a first frame in the reporter's own script is run again with the interpreter
    text = 'Traceback (most recent call last):\n  File "C:\\Users\\me\\train.py", line 3, in <module>\n    import torch\n'
    snapshot, _, _, _ = _run(text)
    cut = [e for e in snapshot["pasted"]["errors"] if e["kind"] == "traceback-cut"]
    assert cut and cut[0]["values"]["script"] == "C:\\Users\\me\\train.py"
