"""A cluster's node, used by one of its users: decided here once, for every plan.

On a cluster (a scheduler's job here, a job in the pasted text, or the text saying so: "our HPC", a login node,
`module load`) its user has no root: the driver, the kernel, the system's packages and reboots are its
administrators'. So a remediation that needs root is, there, something to ask the administrators for, with what
to ask; and what the user can do comes first: a build for the driver the nodes have, the site's toolkits
(`module avail cuda`), NVIDIA's pip wheels. A job that sees no GPU has, first of all, not asked its scheduler for
one (`srun --gres=gpu:1`): that decides between the job and the node before any driver is blamed.

`for_cluster_user` applies this to the findings once (gpudoctor.checks.run_checks); the checks' own `where`
(gpudoctor.planner.remedy.where_run) and the consequence model's needs (gpudoctor.planner.needs) read
`cluster_node` from here.
"""

from __future__ import annotations

import dataclasses

from gpudoctor.cmdline import Cmd, Line
from gpudoctor.facts import ADMIN_SAID, CLUSTER_SAID, Facts
from gpudoctor.model import Finding, Remediation

# The job variables each scheduler sets in a job's environment (the host probe records them).
SCHEDULER_JOB_VARS = {"SLURM_JOB_ID": "slurm", "PBS_JOBID": "pbs", "LSB_JOBID": "lsf"}
ADMINISTRATORS = "the cluster's nodes, by its administrators: ask them"

# No GPU for the job to use: what the scheduler decides before any driver does.
_NO_GPU_CODES = ("driver-unreachable", "driver-missing", "gpu-none", "container-no-gpu")
# A driver older than the build: the user's own way is a build (or a site toolkit) for the driver the node has.
_DRIVER_OLD_CODES = ("toolkit-newer-than-driver", "framework-driver-too-old")


def scheduler(facts: Facts) -> str | None:
    """The scheduler whose job this is ("slurm", "pbs", "lsf"): its job variables here, or a job in the pasted text."""
    if facts.pasted.cluster:
        return facts.pasted.cluster
    return next((s for v, s in SCHEDULER_JOB_VARS.items() if v in facts.platform.env), None)


def cluster_node(facts: Facts) -> bool:
    """Whether this is a cluster's node, used by one of its users (no root there)."""
    return scheduler(facts) is not None or any(c.get("cue") == CLUSTER_SAID for c in facts.pasted.cues)


def administers(facts: Facts) -> bool:
    """Whether the reporter says they administer the cluster ("our cgroup.conf"): its root steps are then theirs."""
    return any(c.get("cue") == ADMIN_SAID for c in facts.pasted.cues)


def gpu_given(facts: Facts) -> bool:
    """Whether the scheduler gave this job a GPU (its variables name one): then a driver that fails is the node's."""
    env = facts.platform.env
    return any(env.get(v) for v in ("SLURM_JOB_GPUS", "SLURM_STEP_GPUS", "CUDA_VISIBLE_DEVICES"))


def gpu_request(facts: Facts) -> tuple[Cmd, ...]:
    """Ask the scheduler for one GPU and show it; then, inside a job, what it was given (empty: no GPU)."""
    kind = scheduler(facts)
    if kind == "pbs":
        ask = Cmd(("qsub", "-I", "-l", "select=1:ngpus=1"), note="an interactive PBS job with one GPU, then nvidia-smi in it")
        given = Cmd(("printenv", "CUDA_VISIBLE_DEVICES"), note="inside the job: the GPU it was given")
    elif kind == "lsf":
        ask = Cmd(("bsub", "-gpu", "num=1", "-Is", "nvidia-smi"), note="nvidia-smi in an LSF job that holds one GPU")
        given = Cmd(("printenv", "CUDA_VISIBLE_DEVICES"), note="inside the job: the GPU it was given")
    else:
        note = "nvidia-smi in a Slurm job step holding one GPU, with -p and the GPU partition where the site has one"
        if kind != "slurm":
            note += "; PBS: qsub -I -l select=1:ngpus=1"
        ask = Cmd(("srun", "--gres=gpu:1", "--pty", "nvidia-smi"), note=note)
        given = Cmd(
            ("printenv", "CUDA_VISIBLE_DEVICES", "SLURM_JOB_GPUS"),
            note="inside the job script, before the program: empty means the job was given no GPU",
        )
    return ask, given


def _as_root(c: Line) -> bool:
    """Whether a command needs root: marked so, or run through sudo (`sudo systemctl ...`, `echo ... | sudo tee FILE`)."""
    return isinstance(c, Cmd) and (c.root or c.argv[:1] == ("sudo",) or "sudo" in c.pipe)


def _admin_only(r: Remediation) -> bool:
    return r.requires_root or any(_as_root(c) for c in r.commands)


def _ask(r: Remediation, finding: Finding) -> Remediation:
    """The administrators' part as what to ask them for, with the finding's facts; the commands the user can run
    themselves (reading, not changing, the node) stay."""
    own: tuple[Line, ...] = tuple(c for c in r.commands if not _as_root(c))
    return Remediation(
        f"Ask your cluster's administrators (you have no root on its nodes) about this: {finding.title}. What they "
        f"would do: {r.summary}",
        own,
        requires_root=False,
        component=r.component,
        where=ADMINISTRATORS,
    )


def _requests_gpu(r: Remediation) -> bool:
    """Whether the fix itself runs a Slurm step or job that asks for a GPU (the request is then already in it: a pyxis
    container's fix is the request with the container's environment, which the plain request would lose)."""
    return any(
        isinstance(c, Cmd)
        and str(c.argv[0]) in ("srun", "sbatch", "salloc")
        and any(str(a).startswith(("--gpus", "--gres=gpu")) for a in c.argv[1:])
        for c in r.commands
    )


def _request_gpu(facts: Facts) -> Remediation:
    kind = scheduler(facts)
    script = {"pbs": "#PBS -l select=1:ngpus=1", "lsf": "#BSUB -gpu num=1"}.get(kind or "", "#SBATCH --gres=gpu:1")
    return Remediation(
        "On a cluster a job sees a GPU only when it asks the scheduler for one; a job without (and a login node) has "
        "no GPU and often no driver, which is what this looks like. Run nvidia-smi in a job that holds a GPU: if it "
        f"lists one, add `{script}` (and the GPU partition, per the site's documentation) to the job script and "
        "submit it again. Only if it fails there too is the node's driver at fault: the administrators' to fix.",
        gpu_request(facts),
        component="platform",
    )


def _own_build(facts: Facts, finding: Finding) -> Remediation:
    ask, _ = gpu_request(facts)
    return Remediation(
        "The driver is the cluster administrators', so use a build for the CUDA the nodes' driver supports: read it "
        "with nvidia-smi on a GPU node (in a job that holds a GPU; a login node may have none), then load a CUDA of "
        "the site's no newer than it (`module load cuda/<version>`), or install the framework's build for that CUDA "
        "(an older release, NVIDIA's pip wheels or conda's cudatoolkit of that CUDA).",
        (ask, Cmd(("module", "avail", "cuda"), note="the CUDA toolkits the site provides")),
        component="toolkit" if finding.code == "toolkit-newer-than-driver" else "environment",
    )


def for_cluster_user(facts: Facts, finding: Finding) -> Finding:
    """The finding as a cluster's user can act on it: what they can do first, what needs root as an ask."""
    r = finding.remediation
    if r is None or not cluster_node(facts) or administers(facts):
        return finding  # (the reporter is the administrator: theirs to do, as written)
    alt = r.alternative
    if finding.code in _NO_GPU_CODES and scheduler(facts) and not gpu_given(facts) and not _requests_gpu(r):
        # A job that asked for no GPU: the request decides it; the node's own fault, if any, is asked for after.
        return dataclasses.replace(
            finding,
            remediation=dataclasses.replace(_request_gpu(facts), alternative=_ask(r, finding) if _admin_only(r) else None),
        )
    if not _admin_only(r):
        if alt is not None and _admin_only(alt):
            return dataclasses.replace(finding, remediation=dataclasses.replace(r, alternative=_ask(alt, finding)))
        return finding
    ask = _ask(dataclasses.replace(r, alternative=None), finding)
    if alt is not None and not _admin_only(alt):
        first = dataclasses.replace(alt, alternative=ask)  # the user's own way first
    elif finding.code in _NO_GPU_CODES and not gpu_given(facts):
        first = dataclasses.replace(_request_gpu(facts), alternative=ask)  # a cluster said, its scheduler not shown
    elif finding.code in _DRIVER_OLD_CODES:
        first = dataclasses.replace(_own_build(facts, finding), alternative=ask)
    else:
        # Nothing the user can do on the node: the ask, and the administrators' other way (also theirs) beside it.
        first = dataclasses.replace(ask, alternative=_ask(alt, finding) if alt is not None else None)
    return dataclasses.replace(finding, remediation=first)


__all__ = ["ADMINISTRATORS", "administers", "cluster_node", "for_cluster_user", "gpu_request", "scheduler"]
