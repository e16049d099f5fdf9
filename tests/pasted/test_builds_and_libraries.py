"""Builds and libraries a paste shows (issues 27 and 28): short pastes written for the test in the shapes reporters
use; each test asserts the finding's code and the plan's argv, with a quiet twin where a false alarm is plausible."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.cmdline import Cmd, render
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.ask import ask_for
from gpudoctor.pasted.provenance import unsourced


def _run(text: str):
    snapshot = validate_snapshot(read_pasted([Source("t", text)]), "t")
    assert not unsourced(snapshot["pasted"]["read_from"]), unsourced(snapshot["pasted"]["read_from"])
    report = diagnose(ReplayHost(snapshot))
    assert not report.internal_errors, report.internal_errors
    asks = [" ".join(a.command.argv) for a in ask_for(report.facts, report.findings)]
    return snapshot, {f.code: f for f in report.findings}, asks


# --- Triton's "libcuda.so cannot found!" ----------------------------------------------------------------------------

_TRITON = (
    "  File ~/.conda/envs/ft/lib/python3.9/site-packages/triton/common/build.py:40, in libcuda_dirs()\n"
    "AssertionError: libcuda.so cannot found!\n"
    "Possible files are located at ['/lib/x86_64-linux-gnu/libcuda.so.1'].Please create a symlink of libcuda.so to any "
    "of the file.\n"
)


def test_triton_without_libcuda_so_links_the_file_it_names_and_refreshes_the_cache():
    _, codes, _ = _run(_TRITON)
    f = codes["framework-cuda-libs-missing"]
    cmds = [c for c in f.remediation.commands if isinstance(c, Cmd)]
    assert cmds[0].argv == ("ldconfig", "-p") and cmds[0].pipe == ("grep", "libcuda")
    link = cmds[1]
    assert link.root and link.argv == ("ln", "-s", "/lib/x86_64-linux-gnu/libcuda.so.1", "/lib/x86_64-linux-gnu/libcuda.so")
    assert cmds[2].argv == ("ldconfig",) and cmds[2].root
    # Triton's cache of the launcher it failed to build, under the home directory (~/.triton/cache, Triton's default):
    # the quoting layer leaves a leading ~/ bare, so the shell expands it; a relative path would depend on the folder
    # the command is pasted in (planner/needs: no relative rm)
    assert cmds[3].argv == ("rm", "-rf", "~/.triton/cache") and not cmds[3].root
    assert render(cmds[3]) == "rm -rf ~/.triton/cache"
    assert "pasted-error-unexplained" not in codes


def test_triton_without_a_file_named_refreshes_the_cache_only():
    _, codes, _ = _run("AssertionError: libcuda.so cannot found!\n")
    cmds = [c for c in codes["framework-cuda-libs-missing"].remediation.commands if isinstance(c, Cmd)]
    assert [c.argv[0] for c in cmds] == ["ldconfig", "ldconfig"]
    assert not any(c.argv[0] == "ln" for c in cmds)


def test_a_home_relative_traceback_path_keeps_its_tilde_or_is_not_run():
    snapshot, _, asks = _run(_TRITON)
    # the path without its ~ (/.conda/...) names a directory that does not exist: never an interpreter to run; with its
    # ~ it is the environment's interpreter, which the shell finds under $HOME (gpudoctor.cmdline keeps the tilde bare)
    assert not any(a.startswith("/.conda") for a in asks)
    assert snapshot["python"]["executable"] == "~/.conda/envs/ft/bin/python"
    assert all(a.startswith("~/.conda/envs/ft/bin/python ") for a in asks if "python" in a.split(" ", 1)[0])
    assert any(site.startswith("~/.conda/envs/ft/") for site in snapshot["python"].get("site_packages", []))


def test_a_traceback_through_triton_without_the_message_is_quiet():
    text = "  File /opt/env/lib/python3.10/site-packages/triton/common/build.py, line 40, in libcuda_dirs\n    return dirs\n"
    _, codes, _ = _run(text)
    assert "framework-cuda-libs-missing" not in codes


# --- Whisper's "FP16 is not supported on CPU" ---------------------------------------------------------------------

_WHISPER = 'UserWarning: FP16 is not supported on CPU; using FP32 instead\n  warnings.warn("FP16 is not supported on CPU; using FP32 instead")\n'


def test_whisper_on_the_cpu_beside_an_nvidia_gpu_named_asks_which_torch_runs_it():
    snapshot, codes, asks = _run("I have a 3060 and an i9 and when using the tool I get:\n" + _WHISPER)
    assert snapshot["nvml"]["devices"][0]["compute_capability"] == "8.6"
    f = codes["pasted-error-unexplained"]
    assert "FP16 is not supported on CPU" in f.evidence[0].value
    assert "python3 -c import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available())" in asks


def test_whisper_on_the_cpu_with_no_gpu_named_is_no_failure():
    # the program may have chosen the CPU itself (a device option spelled "gpu"): nothing says the machine has one
    _, codes, _ = _run(_WHISPER + "\nWhen I set the device to GPU my CPU usage spikes.\n")
    assert "pasted-error-unexplained" not in codes


def test_a_geforce_number_with_a_unit_is_no_gpu_owned():
    snapshot, _, _ = _run("I have a 3060 MHz memory clock\n" + _WHISPER)
    assert not (snapshot.get("nvml") or {}).get("devices")


# --- a CUDA library missing whose toolkit directory the text shows -------------------------------------------------

_NVRTC = "OSError: libnvrtc.so.12: cannot open shared object file: No such file or directory\n"


def test_a_missing_cuda_library_whose_directory_the_text_shows_puts_that_directory_on_the_loader_path():
    text = _NVRTC + "$ patchelf --print-rpath nvrtc.so\n/opt/sw/cudacore/12.2.2/lib64:/opt/sw/cudacore/12.2.2/lib\n"
    _, codes, _ = _run(text)
    cmds = codes["framework-cuda-libs-missing"].remediation.commands
    assert cmds[0].argv == ("ls", "/opt/sw/cudacore/12.2.2/lib64/libnvrtc.so.12")
    assert cmds[1].name == "LD_LIBRARY_PATH" and cmds[1].literal == "/opt/sw/cudacore/12.2.2/lib64"


def test_a_directory_of_another_cuda_major_is_not_offered():
    _, codes, _ = _run(_NVRTC + "ls /usr/local/cuda-11.8/lib64\n")
    assert not codes["framework-cuda-libs-missing"].remediation.commands


# --- facts written in prose: the driver's version, how many GPUs ----------------------------------------------------


def test_a_driver_version_in_running_text_is_read():
    snapshot, _, _ = _run("my hardware is a GTX1650 (TU116) with driver 470.103.01 & CUDA 11.4.\n")
    assert snapshot["nvml"]["driver_version"] == "470.103.01"


def test_a_driver_version_in_brackets_after_the_gpu_is_read():
    snapshot, _, _ = _run("OS: Windows 11\nGPU: RTX 3080 (531.18)\n")
    assert snapshot["nvml"]["driver_version"] == "531.18"


def test_a_cuda_version_beside_the_word_driver_is_no_driver_version():
    snapshot, _, _ = _run("the CUDA driver 12.2 API and GPU: RTX 3080 (12.2)\n")
    assert not (snapshot.get("nvml") or {}).get("driver_version")


def test_a_gpu_count_in_prose_is_kept():
    snapshot, _, _ = _run("I ran it on a server with 4x A100. It only uses 1 of them.\n")
    assert [d["name"] for d in snapshot["nvml"]["devices"]] == ["A100"] * 4


def test_a_version_before_a_gpu_name_is_no_count():
    snapshot, _, _ = _run("built with CUDA 11 A100 kernels\n")
    assert len(snapshot["nvml"]["devices"]) == 1


# --- an extension build whose nvcc is older than the GPU ------------------------------------------------------------

_D2 = """nvcc fatal: Unsupported gpu architecture 'compute_86'

----------------------  ---------------------------------------------------------------
sys.platform            linux
CUDA compiler           Build cuda_11.0_bu.TC445_37.28845127_0
PyTorch                 1.7.0+cu110 @/usr/local/lib/python3.6/dist-packages/torch
GPU 0                   GeForce RTX 3070
torchvision             0.8.1+cu110 @/usr/local/lib/python3.6/dist-packages/torchvision
"""


def test_an_environment_tables_nvcc_and_torch_rows_are_read():
    snapshot, _, _ = _run(_D2)
    assert snapshot["python"]["distributions"]["torch"] == "1.7.0+cu110"
    assert snapshot["python"]["site_packages"] == ["/usr/local/lib/python3.6/dist-packages"]  # no "@", no package


def test_nvcc_older_than_the_gpu_offers_the_newest_arch_of_the_gpus_major_with_ptx():
    _, codes, _ = _run(_D2)
    f = codes["toolkit-arch-unsupported"]
    # the smaller change first (same nvcc, same torch); a newer toolkit is the alternative
    (env,) = f.remediation.commands  # no checkout shown: nothing to remove or rebuild by name
    assert (env.name, env.value) == ("TORCH_CUDA_ARCH_LIST", "8.0+PTX")
    assert f.remediation.alternative is not None and f.remediation.alternative.component == "toolkit"


def test_an_extension_built_in_a_checkout_shown_by_its_table_row_is_rebuilt_there_from_a_clean_build_directory():
    text = _D2 + "maskrcnn_benchmark      0.1 @/opt/src/maskrcnn/maskrcnn_benchmark\n"
    snapshot, codes, _ = _run(text)
    env, remove, build = codes["toolkit-arch-unsupported"].remediation.commands
    assert (env.name, env.value) == ("TORCH_CUDA_ARCH_LIST", "8.0+PTX")
    assert remove.argv == ("rm", "-rf", "/opt/src/maskrcnn/build")
    assert build.argv[1:] == ("-m", "pip", "install", "--no-build-isolation", "-e", "/opt/src/maskrcnn")


def test_a_table_row_of_a_package_in_site_packages_is_no_checkout():
    text = _D2 + "maskrcnn_benchmark      0.1 @/usr/local/lib/python3.6/dist-packages/maskrcnn_benchmark\n"
    _, codes, _ = _run(text)
    assert len(codes["toolkit-arch-unsupported"].remediation.commands) == 1


def test_no_same_major_build_where_the_gpu_is_of_a_newer_major():
    # CUDA 10.2 targets up to 7.5: an 8.6 GPU runs none of its cubins, only a newer toolkit helps
    _, codes, _ = _run(_D2.replace("cuda_11.0_bu", "cuda_10.2_bu").replace("+cu110", "+cu102"))
    assert codes["toolkit-arch-unsupported"].remediation.alternative is None


# --- NVIDIA's PyTorch image whose own torch was replaced or shadowed ------------------------------------------------

_TE = (
    "ImportError: /usr/local/lib/python3.8/dist-packages/transformer_engine_extensions.cpython-38-x86_64-linux-gnu.so: "
    "undefined symbol: _ZN5torch3jit17parseSchemaOrNameERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE\n"
)


def test_a_release_torch_over_the_images_own_brings_a_fresh_container_back():
    text = "container: nvcr.io/nvidia/pytorch:23.04-py3\n\ntorch==2.0.1\n\n" + _TE
    _, codes, _ = _run(text)
    rem = codes["extension-symbol-missing"].remediation
    assert rem.commands[0].argv == ("docker", "run", "--gpus", "all", "-it", "--rm", "nvcr.io/nvidia/pytorch:23.04-py3")
    assert not any("--no-build-isolation" in c.argv for c in rem.commands if isinstance(c, Cmd))


def test_the_images_extension_with_no_torch_shown_looks_for_a_shadowing_torch():
    text = "I use the `nvcr.io/nvidia/pytorch` docker image (i.e., `24.08-py3`) with singularity.\n" + _TE.replace(
        "python3.8", "python3.10"
    )
    _, codes, _ = _run(text)
    cmds = codes["extension-symbol-missing"].remediation.commands
    assert "torch.__file__" in cmds[0].argv[-1]
    assert (cmds[1].name, cmds[1].value) == ("PYTHONNOUSERSITE", "1")


def test_an_extension_outside_any_image_keeps_the_rebuild_advice():
    _, codes, _ = _run("torch==2.0.1\n" + _TE)
    rem = codes["extension-symbol-missing"].remediation
    assert rem is None or not any(getattr(c, "name", "") == "PYTHONNOUSERSITE" for c in rem.commands)


# --- a GPU below a component's minimum architecture -----------------------------------------------------------------

_CUML = """  File "cuml/cluster/dbscan.pyx", line 253, in cuml.cluster.dbscan.DBSCAN.fit
RuntimeError: Exception occured! FAIL: call='cudaGetLastError()'. Reason:no kernel image is available for execution on the device

nvidia-smi -L
GPU 0: Tesla M60 (UUID: GPU-a57c5af6-46ff-2642-e855-6815c2af4f0d)
GPU 1: Tesla M60 (UUID: GPU-ded0fd48-5551-bf9b-1e51-0c82b92edb4f)

+-----------------------------------------------------------------------------+
| NVIDIA-SMI 430.64       Driver Version: 430.64       CUDA Version: 10.1     |
|-------------------------------+----------------------+----------------------+
"""


def test_a_gpu_below_every_rapids_release_is_the_cause_of_its_missing_kernel_image():
    snapshot, codes, asks = _run(_CUML)
    assert [d["name"] for d in snapshot["nvml"]["devices"]] == ["Tesla M60", "Tesla M60"]  # the table was cut
    f = codes["framework-arch-unsupported"]
    assert f.remediation.component == "gpu" and not f.remediation.commands
    assert "pasted-error-unexplained" not in codes
    assert not any(a.startswith("nvidia-smi -L") for a in asks)


def test_a_gpu_rapids_runs_on_gets_no_such_finding():
    _, codes, _ = _run(_CUML.replace("Tesla M60", "Tesla P100-PCIE-16GB"))
    f = codes.get("framework-arch-unsupported")
    assert f is None or "rapids" not in f.title


# --- torch installed from PyTorch's CPU index into an application's environment -----------------------------------

_CPU_INDEX = (
    "I run this app under WSL and it does not use my GPU.\n"
    "(env) $ source /home/u/apps/demo/env/bin/activate\n"
    "(env) $ uv pip install torch==2.6.0 torchvision==0.21.0 torchaudio==2.6.0 --index-url "
    "https://download.pytorch.org/whl/cpu\n"
    "Using Python 3.10.15 environment at: env\n"
    "{outcome}\n"
)


def _torch_step(codes):
    return [c.argv for c in codes["framework-cpu-build"].remediation.commands if isinstance(c, Cmd)]


@pytest.mark.parametrize("outcome", ["Audited 3 packages in 3ms", "Installed 3 packages in 2.1s"])
def test_a_pinned_install_from_the_cpu_index_is_a_cpu_build_reinstalled_with_its_companions_into_that_env(outcome):
    snapshot, codes, _ = _run(_CPU_INDEX.format(outcome=outcome))
    assert snapshot["python"]["executable"] == "/home/u/apps/demo/env/bin/python"
    (argv,) = _torch_step(codes)
    # the same release's default Linux wheel (cu124 for 2.6.0), torchvision and torchaudio moved with it
    # the person installs with uv (its own summary line): the fix goes through uv into that environment, whose venv
    # may have no pip of its own (gpudoctor.planner.where)
    assert argv[:5] == ("uv", "pip", "install", "--python", "/home/u/apps/demo/env/bin/python")
    assert argv[5:8] == (
        "torch==2.6.0+cu124",
        "torchvision==0.21.0+cu124",
        "torchaudio==2.6.0+cu124",
    )
    assert argv[-2:] == ("--index-url", "https://download.pytorch.org/whl/cu124")


def test_a_pip_install_from_the_cpu_index_with_pips_own_success_line_is_read_too():
    text = (
        "$ pip3 install torch==2.1.0 -i https://download.pytorch.org/whl/cpu\n"
        "Successfully installed torch-2.1.0\n"
        "torch.cuda.is_available() returns False on my RTX 3060\n"
    )
    _, codes, _ = _run(text)
    assert "framework-cpu-build" in codes


@pytest.mark.parametrize(
    "outcome",
    [
        "ERROR: No matching distribution found for torch==2.6.0",
        "",  # the command alone: no outcome shown
    ],
)
def test_a_cpu_index_install_that_failed_or_shows_no_outcome_is_no_finding(outcome):
    _, codes, _ = _run(_CPU_INDEX.format(outcome=outcome))
    assert "framework-cpu-build" not in codes


def test_a_cuda_index_install_is_no_cpu_build():
    _, codes, _ = _run(_CPU_INDEX.replace("/whl/cpu", "/whl/cu124").format(outcome="Installed 3 packages in 2.1s"))
    assert "framework-cpu-build" not in codes


# --- vLLM's collect_env: aligned keys under "=====" titles, the GPU rows on lines of their own -----------------------

_VLLM_ENV = (
    "==============================\n"
    "       PyTorch Info\n"
    "==============================\n"
    "PyTorch version              : 2.7.0+cu126\n"
    "CUDA used to build PyTorch   : 12.6\n"
    "==============================\n"
    "       CUDA / GPU Info\n"
    "==============================\n"
    "Is CUDA available            : True\n"
    "GPU models and configuration :\n"
    "GPU 0: {name}\n"
    "...\n"
)


def test_a_gpu_name_cut_to_its_family_asks_for_the_name_and_compute_capability():
    snapshot, _, asks = _run(_VLLM_ENV.format(name="NVIDIA GeForce GTX"))
    assert [g["name"] for g in snapshot["nvml"]["devices"]] == ["NVIDIA GeForce GTX"]
    assert "nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv" in asks
    assert "nvidia-smi" not in asks


@pytest.mark.parametrize("name", ["NVIDIA GeForce RTX 3090", "Tesla V100-SXM2-32GB", "NVIDIA A100-SXM4-80GB"])
def test_a_whole_gpu_name_keeps_the_plain_nvidia_smi_ask(name):
    _, _, asks = _run(_VLLM_ENV.format(name=name))
    assert "nvidia-smi" in asks
    assert not any("compute_cap" in a for a in asks)


# --- an extension rebuilt from its checkout: the old build directory goes first ------------------------------------


def test_a_rebuild_from_an_absolute_checkout_removes_its_build_directory_first():
    text = (
        "Traceback (most recent call last):\n"
        '  File "/srv/code/flash-attention/flash_attn/__init__.py", line 3, in <module>\n'
        "    from flash_attn.flash_attn_interface import flash_attn_func\n"
        '  File "/srv/code/flash-attention/flash_attn/flash_attn_interface.py", line 10, in <module>\n'
        "    import flash_attn_2_cuda as flash_attn_cuda\n"
        "ImportError: /usr/local/lib/python3.10/dist-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: "
        "undefined symbol: _ZN3c104cuda9SetDeviceEi\n"
    )
    _, codes, _ = _run(text)
    cmds = [c.argv for c in codes["extension-symbol-missing"].remediation.commands if isinstance(c, Cmd)]
    # torch's version not shown: what the rebuild compiles against (torch, its CUDA, CUDA_HOME) is read first
    assert cmds[0][1] == "-c" and "torch.version.cuda" in cmds[0][2] and cmds[0][0] == cmds[2][0]
    assert cmds[1] == ("rm", "-rf", "/srv/code/flash-attention/build")
    assert cmds[2][-1] == "/srv/code/flash-attention" and "--no-build-isolation" in cmds[2]


def test_a_cpu_build_shown_without_the_command_that_chose_the_cpu_index_guesses_no_cuda_build():
    # pip's own line names the +cpu build, but no command shows the CPU index chosen for a pinned release: no build is
    # guessed. nvidia-smi, whose CUDA Version decides it, comes first; the release's CUDA builds wait on its answer
    # (the newest stable one in the step, the oldest as the alternative: checks.frameworks.builds_by_driver)
    _, codes, _ = _run("Linux box, GPU not used\nSuccessfully installed torch-2.6.0+cpu\n")
    steps = _torch_step(codes)
    assert steps[0] == ("nvidia-smi",)
    assert [a for a in steps[1] if a.startswith("torch==")] == ["torch==2.6.0+cu124"]
    alternative = codes["framework-cpu-build"].remediation.alternative
    assert [a for c in alternative.commands for a in c.argv if a.startswith("torch==")] == ["torch==2.6.0+cu118"]


# --- apex's own CUDA check ("Pytorch binaries were compiled with Cuda X"), with the torch its setup.py printed -------

_APEX_EXAMPLES = Path(__file__).resolve().parent / "catalogue_examples"
_APEX_923 = (
    Path(__file__).resolve().parents[1]
    / "blind/plans9/cases/923-apex1761-ubuntu2204-torch212-cu121-apt-nvcc115-usr-bin-mismatch/input.txt"
)


@pytest.mark.parametrize(
    ("path", "nvcc", "torch", "cuda"),
    [
        # https://github.com/NVIDIA/apex/issues/1171: a CUDA 9.0 nvcc under the home directory, torch 1.6.0 (CUDA 10.2)
        (_APEX_EXAMPLES / "apex-1171-nvcc90-torch-cuda102-binary-mismatch.txt", "9.0.176", "1.6.0", "10.2"),
        # tests/blind/plans9/cases/923: Ubuntu's CUDA 11.5 nvcc in /usr/bin, torch 2.1.2+cu121
        (_APEX_923, "11.5.119", "2.1.2+cu121", "12.1"),
    ],
)
def test_apex_refusing_an_nvcc_of_another_major_is_the_toolkit_major_mismatch(path, nvcc, torch, cuda):
    snapshot, codes, _ = _run(path.read_text(encoding="utf-8"))
    # the torch apex's setup.py printed ("torch.__version__  = X") is the torch it builds against
    assert snapshot["python"]["distributions"]["torch"] == torch
    f = codes["toolkit-torch-major-mismatch"]
    assert [e.value for e in f.evidence] == [f"{nvcc} via PATH", f"torch {torch}, CUDA {cuda}"]
    assert "pasted-error-unexplained" not in codes


def test_apex_refusing_a_minor_mismatch_is_not_a_major_mismatch():
    # https://github.com/NVIDIA/apex/issues/1748: nvcc 12.3 beside torch 2.1.0+cu121, the same major: apex's own
    # check is stricter than cpp_extension's, and the major rule must stay quiet
    _, codes, _ = _run((_APEX_EXAMPLES / "apex-1748-nvcc123-torch-cuda121-minor.txt").read_text(encoding="utf-8"))
    assert "toolkit-torch-major-mismatch" not in codes


def test_apex_check_quoted_as_code_is_no_version_said():
    # tests/blind/plans/cases/046 quotes the check's source, "Cuda {}":
    # no version is said, so neither the message nor a torch is read from it
    text = (
        Path(__file__).resolve().parents[1] / "blind/plans/cases/046-apex1012-nvcc91-usr-bin-torch140-cudatoolkit100/input.txt"
    ).read_text(encoding="utf-8")
    snapshot, _, _ = _run(text)
    assert "cuda-version-detected-mismatch" not in {e["kind"] for e in snapshot["pasted"]["errors"]}
    assert snapshot["python"]["distributions"] == {"torch": "1.4.0"}  # the environment fields' "Pytorch: 1.4.0"


# --- XLA's "Could not create cudnn handle" asked in the framework at work ---------------------------------------------

_JAX_921 = (
    Path(__file__).resolve().parents[1]
    / "blind/plans9/cases/921-jax28752-pace-hpc-v100-jax060-cudnn-status-internal-error-plenty-free-ask/input.txt"
)


@pytest.mark.parametrize(
    "path",
    [
        # https://github.com/jax-ml/jax/issues/23145: a JAX program, 46.6 of 47.6 GB free
        _APEX_EXAMPLES / "jax-23145-cudnn-handle-internal-error-memory-free.txt",
        # tests/blind/plans9/cases/921: jax 0.6.0 on a cluster's V100, 16.6 of 16.9 GB free
        _JAX_921,
    ],
)
def test_a_jax_program_failing_to_create_a_cudnn_handle_is_asked_about_its_cudnn_not_torchs_or_tensorflows(path):
    _, _, asks = _run(path.read_text(encoding="utf-8"))
    assert not [a for a in asks if "import torch" in a or "tensorflow as tf" in a]
    assert "printenv LD_LIBRARY_PATH" in asks
    assert any(a.endswith("-m pip list") for a in asks)  # (its pipe, grep for the jax and nvidia-cudnn wheels)


def test_a_tensorflow_program_failing_to_create_a_cudnn_handle_keeps_its_tensorflow_ask():
    text = (_APEX_EXAMPLES / "urlnet-7-could-not-create-cudnn-handle.txt").read_text(encoding="utf-8")
    _, _, asks = _run(text)
    assert any("tensorflow as tf" in a and "tf.nn.conv2d" in a for a in asks)


# --- an elided or relative site-packages path names no interpreter ----------------------------------------------------


@pytest.mark.parametrize(
    ("case", "wrong"),
    [
        # tests/blind/plans9/cases/904: ".../test_env/lib/python3.10/site-packages/..."
        ("904-fa821-conda-torch220-cu118-flashattn252-skip-cuda-build-undefined-symbol-zeros", "/test_env"),
        # tests/blind/plans9/cases/920: "conda/envs/megatron/lib/python3.10/site-packages/..."
        ("920-te918-slurm-modules-cuda124-cudnn91-venv-te-build-cudnn-h-not-found", "/envs/megatron"),
    ],
)
def test_an_elided_or_relative_site_path_is_not_made_absolute(case, wrong):
    text = (Path(__file__).resolve().parents[1] / "blind/plans9/cases" / case / "input.txt").read_text(encoding="utf-8")
    snapshot, _, asks = _run(text)
    assert not any(p.startswith(wrong) for p in snapshot.get("python", {}).get("site_packages", []))
    assert not any(a.startswith(wrong) for a in asks)


def test_an_absolute_site_path_beside_it_is_still_read():
    # the same traceback line with the path whole (the shape of jax #23145's traceback)
    text = (_APEX_EXAMPLES / "jax-23145-cudnn-handle-internal-error-memory-free.txt").read_text(encoding="utf-8")
    snapshot, _, _ = _run(text)
    assert snapshot["python"]["executable"] == "/a/home/cc/chemist/mikabell/anaconda3/envs/jax-env/bin/python"


# --- CuPy failing to load a CUDA library: which CuPy distributions share cupy/, asked without importing it -----------


@pytest.mark.parametrize(
    "case",
    [
        # tests/blind/plans9/cases/912: cupy-cuda11x 12.0.0 wanting libnvJitLink.so.12 (a CUDA 12 library)
        "plans9/cases/912-cupy7573-anaconda-base-py39-cupy-cuda11x-1200-wants-libnvjitlink12-ask",
        # tests/blind/plans4/cases/324: a venv's cupy wanting libcudart.so.12
        "plans4/cases/324-cupy8227-venv-cupy-cuda12x-libcudart-so-12-missing-ask",
    ],
)
def test_cupy_failing_to_load_a_cuda_library_asks_which_cupy_distributions_are_installed(case):
    text = (Path(__file__).resolve().parents[1] / "blind" / case / "input.txt").read_text(encoding="utf-8")
    snapshot = validate_snapshot(read_pasted([Source("t", text)]), "t")
    report = diagnose(ReplayHost(snapshot))
    asks = [(a.command.argv[-3:], a.command.pipe) for a in ask_for(report.facts, report.findings)]
    assert (("-m", "pip", "list"), ("grep", "-i", "cupy")) in asks


def test_cupy_named_without_a_library_failing_is_not_asked_for_its_distributions():
    # tests/blind/plans9/cases/905: pip freeze lists cupy-cuda91, no loader error is shown
    case = "plans9/cases/905-cupy1057-cluster-conda-fish-cupy-cuda91-nvcc91-older-cuda-libs-ask"
    text = (Path(__file__).resolve().parents[1] / "blind" / case / "input.txt").read_text(encoding="utf-8")
    snapshot = validate_snapshot(read_pasted([Source("t", text)]), "t")
    report = diagnose(ReplayHost(snapshot))
    assert not [a for a in ask_for(report.facts, report.findings) if a.command.pipe == ("grep", "-i", "cupy")]


def test_a_stated_cuda_too_old_for_a_turing_gpu_asks_the_fact_that_decides_and_names_no_tegra_architecture():
    # An issue form's "RTX2060 / CUDA9.2 / torch1.3.0" and nvcc's "Unsupported gpu architecture 'compute_75'"
    # (tests/blind/plans12/cases/1231): CUDA 9.2 knows 7.0 and 7.2, and 7.2 is Xavier's, whose cubins a desktop 7.5 does
    # not run. The torch's CUDA build is not shown: the ask that names the finding reads it.
    from tests.pasted.cli_json import blind_case, check

    doc = check(blind_case("plans12/cases/1231"))
    (f,) = [f for f in doc["findings"] if f["code"] == "toolkit-arch-unsupported"]
    assert "TORCH_CUDA_ARCH_LIST=7.0 " in f["remediation"]["summary"] and "7.2" not in f["remediation"]["summary"]
    (ask,) = [a for a in doc["pasted"]["ask_for"] if a.get("codes") == ["toolkit-arch-unsupported"]]
    assert ask["argv"][-1].startswith("import torch, torch.utils.cpp_extension") and "torch.version.cuda" in ask["argv"][-1]
