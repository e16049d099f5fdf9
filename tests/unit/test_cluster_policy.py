"""A cluster's user gets steps they can run (gpudoctor.planner.cluster): held on recorded machines seen as a
scheduler's job, and on short pasted texts. Asserted on argv, codes and fields, never the prose.

- a job that asked for no GPU: the deciding step requests one (srun --gres=gpu:1), never sudo, a driver or a reboot;
- a job that holds a GPU and whose driver fails: the administrators' fix, as an ask without root commands;
- a driver older than the build: the user's own way (a site toolkit, a build for the driver) first, the driver an ask;
- a notebook (Colab): the library directory set in the kernel's environment, not by `!export`.
"""

from __future__ import annotations

import json
from pathlib import Path

from gpudoctor.cmdline import Cmd, PrependPath
from gpudoctor.doctor import diagnose
from gpudoctor.facts import CLUSTER_SAID, NOTEBOOK_SAID
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot, validate_snapshot
from gpudoctor.pasted import read_pasted
from gpudoctor.pasted.read import Source
from gpudoctor.planner import prescribe
from gpudoctor.planner.cluster import ADMINISTRATORS, cluster_node, scheduler

MACHINES = Path(__file__).resolve().parents[1] / "machines"
SRUN = ("srun", "--gres=gpu:1", "--pty", "nvidia-smi")


def _machine(slug: str, **env: str):
    snap = json.loads((MACHINES / slug / "snapshot.json").read_text(encoding="utf-8"))
    snap.setdefault("env", {}).update(env)
    return diagnose(ReplayHost(snap))


def _pasted(text: str):
    return diagnose(ReplayHost(validate_snapshot(read_pasted([Source("issue.txt", text)]), "pasted text")))


def _argvs(lines) -> list[tuple[str, ...]]:
    return [c.words for c in lines if isinstance(c, Cmd)]


def _roots(plan) -> list[tuple[str, ...]]:
    lines = [c for s in plan.steps for c in (*s.commands, *(x for a in s.alternatives for x in a.remediation.commands))]
    return [c.words for c in lines if isinstance(c, Cmd) and c.root]


def test_a_job_without_a_gpu_asks_the_scheduler_for_one():
    report = diagnose(ReplayHost(load_snapshot(str(MACHINES / "slurm-job-cpu-node-without-gres" / "snapshot.json"))))
    assert (cluster_node(report.facts), scheduler(report.facts)) == (True, "slurm")
    plan = prescribe.build(report.findings)
    (step,) = plan.steps
    assert step.codes == ("gpu-none",) and step.where == ""
    assert _argvs(step.commands) == [SRUN, ("printenv", "CUDA_VISIBLE_DEVICES", "SLURM_JOB_GPUS")]
    assert _roots(plan) == []


def test_an_unreachable_driver_in_a_job_without_a_gpu_is_the_request_first_the_node_an_ask():
    plan = prescribe.build(_machine("h100-driver-unreachable", SLURM_JOB_ID="4242").findings)
    (step,) = plan.steps
    assert step.codes == ("driver-unreachable",) and _argvs(step.commands)[0] == SRUN
    (alt,) = step.alternatives
    assert alt.remediation.where == ADMINISTRATORS and _argvs(alt.remediation.commands) == [("nvidia-smi",)]
    assert _roots(plan) == []  # sudo dmesg and sudo reboot are the administrators'
    # The same node outside a cluster: the kernel log and the reboot are this machine's owner's to run.
    (plain,) = prescribe.build(_machine("h100-driver-unreachable").findings).steps
    assert ("dmesg",) in _argvs(plain.commands) and any(c.root for c in plain.commands if isinstance(c, Cmd))


def test_a_job_that_holds_a_gpu_asks_the_administrators_about_the_driver():
    plan = prescribe.build(_machine("h100-driver-unreachable", SLURM_JOB_ID="4242", SLURM_JOB_GPUS="0").findings)
    (step,) = plan.steps
    assert step.where == ADMINISTRATORS and SRUN not in _argvs(step.commands)
    assert _roots(plan) == []


def test_pbs_and_lsf_jobs_get_their_own_scheduler_s_request():
    (step,) = prescribe.build(_machine("slurm-job-cpu-node-without-gres", PBS_JOBID="77.pbs").findings).steps
    # SLURM_JOB_ID is recorded too on that machine: a Slurm job first; a PBS job alone gets qsub
    assert _argvs(step.commands)[0] == SRUN
    snap = json.loads((MACHINES / "slurm-job-cpu-node-without-gres" / "snapshot.json").read_text(encoding="utf-8"))
    for var, first in (
        ("PBS_JOBID", ("qsub", "-I", "-l", "select=1:ngpus=1")),
        ("LSB_JOBID", ("bsub", "-gpu", "num=1", "-Is", "nvidia-smi")),
    ):
        snap["env"] = {var: "77"}
        (step,) = prescribe.build(diagnose(ReplayHost(snap)).findings).steps
        assert _argvs(step.commands)[0] == first


def test_a_driver_mismatch_on_a_cluster_node_is_all_the_administrators():
    plan = prescribe.build(_machine("driver-library-mismatch-after-upgrade", SLURM_JOB_ID="4242").findings)
    (step,) = plan.steps
    assert step.where == ADMINISTRATORS and step.alternatives[0].remediation.where == ADMINISTRATORS
    assert _roots(plan) == []
    assert ("modinfo", "-F", "version", "nvidia") in _argvs(step.commands)  # what the user can read for them stays


HPC_DRIVER = """I generally work on a HPC. Whenever I try to load CuPy I get
cupy_backends.cuda.api.runtime.CUDARuntimeError: cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version
I installed it with pip install cupy-cuda11x
"""


def test_a_cluster_said_in_words_gets_its_own_build_first_and_the_driver_as_an_ask():
    report = _pasted(HPC_DRIVER)
    assert cluster_node(report.facts) and scheduler(report.facts) is None
    assert any(c["cue"] == CLUSTER_SAID for c in report.facts.pasted.cues)
    plan = prescribe.build(report.findings)
    (step,) = plan.steps
    assert step.codes == ("toolkit-newer-than-driver",) and step.where == ""
    assert _argvs(step.commands) == [SRUN, ("module", "avail", "cuda")]
    (alt,) = step.alternatives
    assert alt.remediation.where == ADMINISTRATORS and alt.code == "toolkit-newer-than-driver"
    assert _roots(plan) == []
    # Without the cluster: the driver upgrade is the step, this machine's own.
    (plain,) = prescribe.build(_pasted(HPC_DRIVER.replace("on a HPC", "on my desktop")).findings).steps
    assert plain.where == "" and plain.component == "driver" and not plain.alternatives


SLURM_JOB = """submitted with sbatch job.sh, slurm-1234.out says:
NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.
"""


def test_a_pasted_slurm_job_whose_nvidia_smi_fails_requests_a_gpu():
    report = _pasted(SLURM_JOB)
    assert scheduler(report.facts) == "slurm"
    plan = prescribe.build(report.findings)
    (step,) = plan.steps
    assert step.codes == ("driver-unreachable",)
    assert _argvs(step.commands) == [SRUN, ("printenv", "CUDA_VISIBLE_DEVICES", "SLURM_JOB_GPUS")]
    assert _roots(plan) == []


def test_windows_tcc_and_kubernetes_clusters_are_not_hpc_clusters():
    for text in ("switch the GPU to TCC (Tesla Compute Cluster) mode", "our GKE cluster has T4 nodes"):
        assert not cluster_node(_pasted(text + "\nCUDA driver version is insufficient for CUDA runtime version\n").facts)


COLAB = """On google colab it worked, now:
!whisper-ctranslate2 audio.mp3 --device cuda
RuntimeError: Library libcublas.so.11 is not found or cannot be loaded
"""


def test_a_notebook_sets_the_library_directory_in_the_kernel_not_with_export():
    report = _pasted(COLAB)
    assert any(c["cue"] == NOTEBOOK_SAID for c in report.facts.pasted.cues)
    (step,) = prescribe.build(report.findings).steps
    pip, path, cudnn = step.commands
    # (in a notebook the wheels go into the kernel's interpreter: %pip, gpudoctor.planner.where.package_step;
    # CTranslate2's cuDNN comes with its cuBLAS, h180: its wheels ship only cuDNN's main library)
    assert isinstance(pip, Cmd) and pip.words == ("%pip", "install", "nvidia-cublas-cu11", "nvidia-cudnn-cu11==8.*")
    assert isinstance(path, PrependPath) and (path.name, path.notebook) == ("LD_LIBRARY_PATH", True)
    assert path.parts[0].site_dir == "nvidia/cublas/lib"  # type: ignore[union-attr]
    assert isinstance(cudnn, PrependPath) and cudnn.notebook and cudnn.parts[0].site_dir == "nvidia/cudnn/lib"  # type: ignore[union-attr]
    # The same error in a terminal: the shell's own prepend.
    (plain,) = prescribe.build(_pasted(COLAB.replace("On google colab it worked, now:\n!", "")).findings).steps
    assert isinstance(plain.commands[1], PrependPath) and not plain.commands[1].notebook
