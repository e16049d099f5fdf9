"""After-round h253 (issue 27, kind 9): a CPU-only torch left open where the program does not reach the GPU gets its
replacement in the plan, behind the one read-only check that decides it (checks/reported.py's _if_cpu_torch, planner
.remedy.if_cpu_build). Recorded pastes of different threads, expectations by hand; each with the near miss that must
not get the step."""

from __future__ import annotations

from tests.pasted.cli_json import blind_case, check, paste

_CHECK = "import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available())"


def _torch_step(doc: dict) -> dict | None:
    steps = [s for s in doc["plan"]["steps"] if "pasted-error-unexplained" in s["codes"] and s["component"] == "torch"]
    return steps[0] if steps else None


def test_a_windows_env_whose_torch_may_be_a_cpu_build_gets_the_check_then_the_cuda_build_in_that_env():
    # neonbjb/tortoise-tts#648 (tests/blind/plans16/cases/1642-*): autocast's "CUDA is not available" from the conda
    # env's torch, nvcc 12.3 shown, no driver: the env's own python.exe checks the build, then installs a CUDA 12 one
    doc = check(blind_case("plans16/cases/1642"))
    step = _torch_step(doc)
    assert step is not None
    python = r"C:\ProgramData\miniconda3\envs\tortoise\python.exe"
    first, *rest = [c["argv"] for c in step["commands"]]
    assert first == [python, "-c", _CHECK]
    install = next(a for a in rest if a[1:4] == ["-m", "pip", "install"])
    assert install[0] == python
    assert install[-2:][0] == "--index-url" and install[-1].rsplit("/", 1)[1].startswith("cu12")
    # still not decided: the finding asserts no cause, its step is the conditional fix
    assert [f["code"] for f in doc["findings"] if f["severity"] in ("error", "warning")] == ["pasted-error-unexplained"]


def test_a_cluster_job_whose_torch_sees_no_gpu_beside_the_driver_gets_the_build_the_driver_runs():
    # mila-iqia/mila-docs#213 (tests/blind/plans12/cases/1251-*): the job's torch sees no GPU, nvidia-smi in the same
    # job shows driver 535 (CUDA 12.2): the build for the driver, behind the check
    doc = check(blind_case("plans12/cases/1251"))
    step = _torch_step(doc)
    assert step is not None
    argvs = [c["argv"] for c in step["commands"]]
    assert argvs[0][1:] == ["-c", _CHECK]
    assert any(a[1:4] == ["-m", "pip", "install"] and "--index-url" in a for a in argvs[1:])


def test_where_nothing_decides_the_cuda_build_nvidia_smi_is_read_before_the_assumed_install(tmp_path):
    # Policy of h308 (issue 27, kind 9): neither driver nor torch version shown, the step installs the newest release
    # whose companions the matrix pins, in its build that asks least of the driver (checks.frameworks
    # ._assumed_release_build), after the reads that would show otherwise; it installed nothing before.
    doc = paste(
        tmp_path,
        "Windows 11. My script runs on the CPU, not the GPU.\n"
        "```\nC:\\proj\\venv\\lib\\site-packages\\torch\\amp\\autocast_mode.py:250: UserWarning: User provided "
        "device_type of 'cuda', but CUDA is not available. Disabling\n```\n",
    )
    step = _torch_step(doc)
    assert step is not None
    argvs = [c["argv"] for c in step["commands"]]
    assert argvs[0][1:] == ["-c", _CHECK] and ["nvidia-smi"] in argvs
    installs = [i for i, a in enumerate(argvs) if a[1:4] == ["-m", "pip", "install"]]
    assert installs == [len(argvs) - 1] and argvs.index(["nvidia-smi"]) < installs[0]
    assert argvs[-1][-2] == "--index-url" and any(a.startswith("torch==") and "+cu" in a for a in argvs[-1])


def test_a_cuda_build_shown_or_another_framework_gets_no_torch_step(tmp_path):
    text = (
        "Ubuntu 22.04. My script runs on the CPU, not the GPU.\n"
        "```\n/home/u/venv/lib/python3.10/site-packages/torch/amp/autocast_mode.py:250: UserWarning: User provided "
        "device_type of 'cuda', but CUDA is not available. Disabling\n```\n"
    )
    assert _torch_step(paste(tmp_path, text)) is not None
    # the build shown a CUDA one: a CPU build is not what is open
    assert _torch_step(paste(tmp_path, text + "torch 2.3.1+cu121\n")) is None
    # TensorFlow at work beside it: which framework's build is not decided by torch's
    assert (
        _torch_step(paste(tmp_path, text + "```\n/home/u/venv/lib/python3.10/site-packages/tensorflow/__init__.py\n```\n"))
        is None
    )
