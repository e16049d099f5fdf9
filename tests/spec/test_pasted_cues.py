"""gpudoctor.pasted.cues, stated from its docstrings: WSL's driver pairing ("NVIDIA's Windows drivers are numbered
<branch>.<two digits> ... A Linux driver beside an nvidia-smi of another release (440.59 beside 550.100, 390.48 beside
390.59) is no WSL")."""

from __future__ import annotations

import pytest

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.cues import windows_driver_beside
from gpudoctor.planner import where


@pytest.mark.parametrize(
    ("smi", "driver", "wsl"),
    [
        ("560.35.02", "560.94", True),  # WSL: the same branch, a three-number Linux nvidia-smi
        ("545.29.04", "546.17", True),
        ("470.57.02", "510.06", True),  # the 510.06 preview beside 470.57.02
        ("390.48", "390.59", False),  # two two-number releases of one old branch: a Linux pair
        ("440.59", "550.100", False),  # 550.100 has three digits after the branch: a Linux driver
        ("560.35.03", "560.35.03", False),
    ],
)
def test_a_windows_driver_beside_wsls_nvidia_smi(smi, driver, wsl):
    assert windows_driver_beside(smi, driver) is wsl


def _facts(text: str):
    snap = validate_snapshot(read_pasted([Source("report.txt", text)]), "report")
    return diagnose(ReplayHost(snap)).facts


def _shell(text: str) -> str:
    return where.shell(_facts(text))


def test_a_paste_showing_both_windows_prompts_is_written_for_both_shells():
    # where.shell: a PowerShell prompt makes `powershell`, a cmd.exe prompt `cmd`; "any other Windows paste `windows`,
    # one line that cmd.exe and PowerShell both run alike": both prompts shown is neither one alone.
    error = "RuntimeError: Library cublas64_12.dll is not found"
    ps = 'PS C:\\Users\\me> python -c "import torch"\n'
    cmd = "C:\\Users\\me\\app>python main.py\n"
    assert _shell(ps + error) == "powershell"
    assert _shell(cmd + error) == "cmd"
    assert _shell(ps + cmd + error) == "windows"
    assert _shell(cmd + ps + error) == "windows"


@pytest.mark.parametrize("prompt", ["(container) #", "(Container) $", "(CONTAINER) #"])
def test_a_container_side_prompt_is_read_in_any_letter_case(prompt):
    # "`(container) $` / `(host) #` (a report that shows both sides)": the side is a word, whatever its case.
    text = f"{prompt} nvidia-smi\nFailed to initialize NVML: Unknown Error\n"
    cues = [c.get("cue") for c in _facts(text).pasted.cues]
    assert "(container) prompt" in cues


@pytest.mark.parametrize(
    ("line", "cue"),
    [
        ("srun --gres=gpu:1 python train.py", "Slurm"),
        ("#SBATCH --gres=gpu:1", "Slurm"),
        ("echo $SLURM_STEP_GPUS", "Slurm"),
        ("echo $SLURM_JOB_GPUS", "Slurm"),
        ("qsub job.sh", "PBS"),
        ("#PBS -l select=1:ngpus=1", "PBS"),
        ("cat $PBS_NODEFILE", "PBS"),
        ("bsub -gpu num=1 python train.py", "LSF"),
        ("#BSUB -gpu num=1", "LSF"),
        ("echo $LSB_JOBID", "LSF"),
        ("it works on the login node but not on a compute node", "a cluster named as where it ran"),
        ("I ran it on the head node", "a cluster named as where it ran"),
        ("module load cuda/12.1", "a cluster named as where it ran"),
    ],
)
def test_each_scheduler_and_cluster_word_the_cues_name_is_read(line, cue):
    # cues: "A cluster job by its scheduler (srun, sbatch, SLURM_*; qsub, #PBS; bsub, #BSUB), a cluster by its words
    # (HPC, `module load`, a login node)"; _CLUSTER_SAID names login, compute and head nodes.
    text = f"{line}\nRuntimeError: CUDA error: no CUDA-capable device is detected\n"
    assert cue in [c.get("cue") for c in _facts(text).pasted.cues]


_WIN_WHEEL = "Processing ./torch-2.1.0+cu118-cp310-cp310-win_amd64.whl\n"


@pytest.mark.parametrize(
    ("line", "windows"),
    [
        ("nvcc -arch sm_61 -o kernel kernel.cu", True),  # a compiler option, not Arch Linux
        ("nvcc -gencode arch=compute_86,code=sm_86 kernel.cu", True),
        ("TORCH_CUDA_ARCH_LIST=8.6 python setup.py install", True),
        ("I'm on Arch with the latest driver", False),  # the distribution, named
        ("Arch Linux, kernel 6.6", False),
        ("same on Manjaro", False),
    ],
)
def test_arch_linux_is_the_distribution_named_not_a_compilers_arch_option(line, windows):
    # cues._LINUX_SAID: Windows is read from a Windows wheel's tag only "where the text names no Linux".
    facts = _facts(_WIN_WHEEL + line + "\nRuntimeError: CUDA error: no kernel image is available for execution on the device\n")
    assert (facts.platform.system == "Windows") is windows
