"""Symptom families: a failure several causes share, the causes still open where the program runs, and what decides.

A report often shows only the symptom ("it does not use the GPU", "No CUDA GPUs are available"), its log in a
screenshot. Which causes stay open depends on where the program runs: on a Linux or Windows machine the driver, the
program's build and its own device choice; in a container also whether the container was given the GPU; in a pod
whether it requested one and a node advertises it; in WSL whether the Windows driver's libraries reach the
distribution. (A cluster job is read as its Linux node, the scheduler's own asks beside it: gpudoctor.pasted.ask.)
Data only (in the checks layer, below the asker in gpudoctor.pasted, which reads it too): the finding that
names the candidates is gpudoctor.checks.reported's (pasted-error-unexplained), the asks are gpudoctor.pasted.ask's;
both read the same family here, so the candidates named and the commands asked cannot drift apart.

Argv words: "{python}" is the program's interpreter (gpudoctor.planner.where), "{container}" the container the paste
names (written for docker; gpudoctor.planner.where.in_container turns it into podman's or a pod's form), "|" starts
the pipe stage.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gpudoctor.facts import Facts

# Where the program runs, as far as the symptom's causes differ.
PLACES = ("pod", "container", "wsl", "windows", "linux")


@dataclass(frozen=True)
class FamilyAsk:
    argv: tuple[str, ...]
    decides: str
    note: str = ""  # where it is typed, where that is not where the program runs (the host)
    # the paste's own `docker run` line answers it where that line requests GPUs (--gpus): not asked again
    run_line_answers: bool = False
    # the cause it decides (a Cause's `closed_by`): where the paste rules that cause out, its answer decides nothing
    cause: str = ""
    # asked only where the job's ranks run on that many nodes ("one", "several": nodes()); "" wherever
    nodes: str = ""
    # asked only on that scheduler's cluster (facts.pasted.cluster: "slurm"); "" on any machine
    cluster: str = ""


@dataclass(frozen=True)
class Cause:
    text: str
    driver: bool = False  # a cause the driver is: ruled out where the paste shows a driver answering with its GPUs
    # the evidence kinds that rule it out, shown anywhere in the paste (a framework in the same environment reaching the
    # GPU: nothing there hides it); its `key` is what a FamilyAsk names as the cause it decides
    closed_by: frozenset[str] = frozenset()
    key: str = ""
    nodes: str = ""  # open only where the ranks run on that many nodes (as FamilyAsk.nodes)
    # a cause CUDA_VISIBLE_DEVICES is: ruled out where the paste shows the program started with it naming only GPUs
    # the driver lists ("CUDA_VISIBLE_DEVICES=0 prog ..." beside nvidia-smi's GPU 0): it hides none of them
    visible_devices: bool = False


@dataclass(frozen=True)
class Family:
    id: str
    symptom: str
    kinds: frozenset[str]  # the evidence kinds (parsers.error_texts, catalogue.toml) that show the symptom
    candidates: dict[str, tuple[Cause, ...]]  # place -> the causes still open there
    asks: dict[str, tuple[FamilyAsk, ...]]  # place -> what decides between them, in order
    sources: tuple[str, ...]
    # where one evidence kind shows several symptoms, the rest of the paste decides which family's it is: (evidence,
    # facts) -> whether this family's (None: the kind alone decides)
    applies: Callable[[Any, Facts], bool] | None = None


_SMI = FamilyAsk(("nvidia-smi",), "whether a driver answers where the program runs, and which GPUs it lists")
_VISIBLE = FamilyAsk(
    ("printenv", "CUDA_VISIBLE_DEVICES"),
    "whether the environment hides the GPUs from the program (empty, or an index the driver does not list)",
    cause="hidden",
)
# The reporter's words that another Python on the same machine reaches the GPU (the global interpreter, a base
# environment: gpudoctor.pasted.workloads): the driver answers there, so it is no cause of the program's failure.
_DRIVER_ANSWERS_ELSEWHERE = frozenset({"gpu-reached-elsewhere-said"})
# What decides the framework's build, whichever framework the program uses: the versions pip lists in the program's own
# environment (PyTorch's wheels carry their build, "+cpu" or "+cu121", pytorch.org's previous-versions page; TensorFlow's
# CPU package is tensorflow-cpu, ONNX Runtime's GPU one onnxruntime-gpu, JAX's CUDA support the jax-cuda12-plugin wheels).
_BUILDS = FamilyAsk(
    ("{python}", "-m", "pip", "list"),
    "which builds the program's environment holds (torch +cpu, or +cuXXX newer than the driver's CUDA; tensorflow-cpu; "
    "onnxruntime without -gpu; no jax-cuda plugin): run it with the Python of the environment the program runs in",
    cause="build",
)
# PyTorch's "No CUDA GPUs are available": the CUDA runtime asked the driver and it answered with no device (c10/cuda/
# CUDAFunctions.cpp @68e217b9, device_count_ensure_non_zero). A CPU-only build never gets that far ("Torch not compiled
# with CUDA enabled", torch/cuda/__init__.py @17e3b6a9), and a driver older than the build's CUDA stops it with "The
# NVIDIA driver on your system is too old" (the same device_count_impl): neither build is the cause where it shows.
_DEVICE_COUNT_ZERO = frozenset({"cuda-no-gpus"})
# A framework's own answer that it reaches the GPU (collect_env's "Is CUDA available: True", a REPL's
# torch.cuda.is_available() answered True: parsers.error_texts): in that environment no variable hides the GPU.
_REACHED = frozenset({"cuda-available-said", "cuda-available-answered"})
_HOST_PASSES = FamilyAsk(
    ("docker", "run", "--rm", "--gpus", "all", "ubuntu", "nvidia-smi"),
    "whether the host's container runtime passes a GPU into any container at all (the NVIDIA Container Toolkit's "
    "sample workload)",
    "on the host",  # (podman's --gpus=all is its CDI device nvidia.com/gpu=all: projectbluefin/dakota#376)
)
_INSIDE_SMI = FamilyAsk(
    ("docker", "exec", "{container}", "nvidia-smi", "-L"),
    "whether the program's own container sees the GPU",
)
_STARTED_WITH = FamilyAsk(
    ("docker", "inspect", "{container}", "--format", "{{.HostConfig.Runtime}} {{json .HostConfig.DeviceRequests}}"),
    "whether the container was started with a GPU (docker: runc and null; podman: a command without --device "
    "nvidia.com/gpu=...: it was given none)",
    "on the host",
    run_line_answers=True,
)
POD_LIMITS = FamilyAsk(
    # every pod's row, so no pod name has to be known first (a pod restarted under a new name answers too)
    (
        "kubectl",
        "get",
        "pods",
        "-A",
        "-o",
        'jsonpath={range .items[*]}{.metadata.name} {.spec.runtimeClassName} {.spec.containers[*].resources.limits}{"\\n"}{end}',
    ),
    "whether the program's pod requests nvidia.com/gpu under its limits, and the runtime class it runs with",
)
_NODE_GPUS = FamilyAsk(
    ("kubectl", "describe", "nodes", "|", "grep", "-E", "^Name:|nvidia.com/gpu"),
    "which nodes advertise nvidia.com/gpu (the NVIDIA device plugin registers them)",
)
_WSL_LIBS = FamilyAsk(
    ("ls", "-l", "/usr/lib/wsl/lib"),
    "whether the Windows driver's libraries (libcuda.so.1, libnvidia-ml.so.1, nvidia-smi) reach the distribution",
)
_WSL_SHADOW = FamilyAsk(
    ("dpkg", "-l", "|", "grep", "-Ei", "nvidia|libcuda"),
    "whether a Linux driver package installed in the distribution shadows the Windows driver's libraries",
)
# What a program prints where no driver reached it at all (catalogue.toml: torch-found-no-driver; error_texts' own
# nvidia-smi-not-found and nvml-library-missing). On a machine it is the driver's own failure (its checks and asks); in
# a docker, podman or Kubernetes container it is this family's: the driver is the host's, which the NVIDIA Container
# Toolkit mounts into a container started with a GPU request, and none is installed in the image (reviewers of
# plans22 2276, "Found no NVIDIA driver" where a driver install inside the container failed; NVIDIA/nvidia-docker#812,
# the same error from a script that starts the container, tests/pasted).
_NO_DRIVER_INSIDE = ("torch-no-driver", "nvidia-smi-not-found", "nvml-library-missing")


def _reached_inside_container(e: Any, facts: Facts) -> bool:
    """Whether this evidence shows the program not reaching the GPU: the no-driver kinds only in a container (pyxis's
    own check judges its containers: gpudoctor.checks.catalogued.clusters)."""
    if e.kind not in _NO_DRIVER_INSIDE:
        return True
    return place(facts) in ("container", "pod") and not facts.pasted.reported("pyxis-container-started")


GPU_NOT_REACHED = Family(
    "gpu-not-reached",
    "the program does not reach the GPU",
    # (a program's warning that it found no usable GPU, XGBoost's "No visible GPU is found, setting device to CPU":
    # failure_lines' gpu-unavailable-warning)
    frozenset(
        {
            "gpu-unused-said",
            "cuda-no-gpus",
            "cuda-unavailable",
            "gpu-stack-failure:gpu-unavailable-warning",
            "gpu-stack-failure:device-list-no-gpu",  # the framework's own device list without a GPU (failure_lines)
            "gpu-stack-failure:cpu-device-chosen",  # the program's own log that it chose the CPU (failure_lines)
            "gpu-stack-failure:cpu-said",  # the reporter's words that it runs on the CPU instead (failure_lines)
            # no driver at all where the program runs, in a container only (_reached_inside_container)
            *_NO_DRIVER_INSIDE,
        }
    ),
    {
        "linux": (
            Cause(
                "no NVIDIA driver answering (none installed, or its module not loaded after a kernel update)",
                driver=True,
                closed_by=_DRIVER_ANSWERS_ELSEWHERE,
            ),
            Cause("a CPU-only build of the program or its framework", closed_by=_DEVICE_COUNT_ZERO, key="build"),
            # (torch.cuda.is_available() answers False, the reason only in a warning the paste may not hold, where the
            # driver is older than the build's CUDA: "The NVIDIA driver on your system is too old (found version N)",
            # pytorch/pytorch c10/cuda/CUDAFunctions.cpp @01a6a16d, catalogue.toml's torch-driver-too-old-*)
            Cause("a framework build for a newer CUDA than the driver supports", closed_by=_DEVICE_COUNT_ZERO, key="build"),
            Cause(
                "the GPU hidden from the program (CUDA_VISIBLE_DEVICES, or its own device setting)",
                closed_by=_REACHED,
                key="hidden",
                visible_devices=True,
            ),
        ),
        "windows": (
            Cause(
                "no NVIDIA driver answering, or no NVIDIA GPU in the machine", driver=True, closed_by=_DRIVER_ANSWERS_ELSEWHERE
            ),
            Cause(
                "a CPU-only build of the program or its framework (pip's default index gives a CPU-only torch on Windows)",
                closed_by=_DEVICE_COUNT_ZERO,
                key="build",
            ),
            Cause("a framework build for a newer CUDA than the driver supports", closed_by=_DEVICE_COUNT_ZERO, key="build"),
            Cause("the program's own device setting"),
        ),
        "wsl": (
            Cause("the Windows driver's libraries not reaching the distribution (/usr/lib/wsl/lib)"),
            Cause("a Linux driver package in the distribution shadowing them"),
            Cause("a CPU-only build of the program or its framework", closed_by=_DEVICE_COUNT_ZERO, key="build"),
        ),
        "container": (
            Cause("the container started without the GPU (no --gpus or device reservation, or no NVIDIA runtime on the host)"),
            Cause("the host's driver", driver=True),
            Cause("a CPU-only image or build"),
        ),
        "pod": (
            Cause("the pod requests no nvidia.com/gpu, or runs without the NVIDIA runtime class"),
            Cause("no node advertising nvidia.com/gpu (the device plugin)"),
            Cause("a CPU-only image or build"),
        ),
    },
    {
        "linux": (_SMI, _VISIBLE, _BUILDS),
        "windows": (_SMI, _BUILDS),
        "wsl": (_SMI, _WSL_LIBS, _WSL_SHADOW, _BUILDS),
        "container": (_HOST_PASSES, _STARTED_WITH, _INSIDE_SMI),
        "pod": (POD_LIMITS, _INSIDE_SMI, _NODE_GPUS),
    },
    (
        "NVIDIA Container Toolkit docs, sample-workload.html: 'sudo docker run --rm --runtime=nvidia --gpus all ubuntu "
        "nvidia-smi'",
        "NVIDIA/k8s-device-plugin README: containers request GPUs with 'nvidia.com/gpu' under resources.limits",
        "NVIDIA CUDA on WSL User Guide: the Windows driver is mapped into WSL 2 as libcuda.so under /usr/lib/wsl/lib; "
        "no Linux display driver is to be installed in WSL",
        "pytorch/pytorch c10/cuda/CUDAFunctions.cpp @68e217b9: 'No CUDA GPUs are available'",
    ),
    applies=lambda e, facts: _reached_inside_container(e, facts),
)

_LOGS = FamilyAsk(
    ("docker", "logs", "{container}"),
    "the program's whole output where it runs, to its last line: the failure's own line is not in the paste",
    "on the host",
)
# A failure the paste tells or starts but does not show: its traceback cut before the error line (the paste ends
# before the error), or only the reporter's words ("it hangs", "NaN", "an error occurred" above a screenshot:
# gpudoctor.parsers.failure_lines' said forms). No cause is named (the paste shows none); what decides first is the
# failure's own output where the program runs, beside whether a GPU reaches that place at all.
FAILURE_UNSHOWN = Family(
    "failure-unshown",
    "the failure's own output is not in the paste",
    frozenset(
        {
            "traceback-cut",
            "gpu-stack-failure:hang-said",
            "gpu-stack-failure:nan-said",
            "gpu-stack-failure:fails-said",
            "gpu-stack-failure:error-said",
            "gpu-stack-failure:error-in-picture",
        }
    ),
    {},
    {
        "linux": (_SMI,),
        "windows": (_SMI,),
        "wsl": (_SMI, _WSL_LIBS),
        "container": (_LOGS, _INSIDE_SMI, _STARTED_WITH),
        "pod": (_LOGS, _INSIDE_SMI, POD_LIMITS),
    },
    (
        "docker docs, reference/cli/docker/container/logs: 'docker logs' fetches the logs of a container",
        "Kubernetes docs, reference/kubectl/generated/kubectl_logs: 'Print the logs for a container in a pod'",
    ),
)

# A distributed job over NCCL that the reporter says hangs (no error line: NCCL waits, it does not fail). The ranks
# reached NCCL on their GPUs, so the driver and the framework's build explain nothing; what is open depends on whether
# the ranks span nodes. Across nodes: the network between them (NCCL's socket transport and bootstrap open TCP
# connections on ephemeral ports, which a firewall or a cloud network's rules that let ssh or ping through can drop,
# or an interface the other node cannot reach) and the launcher (a node starting fewer ranks than the world size
# leaves the others waiting at the rendezvous). On one node: PCIe peer-to-peer that ACS or the IOMMU blocks (the
# classic hang that NCCL_P2P_DISABLE=1 makes go away), or too little shared memory for the SHM transport (a container's
# 64 MB /dev/shm). NCCL's own INFO log to the hang, from every rank, shows which step each reached.
_NCCL_LOG = FamilyAsk(
    ("env", "NCCL_DEBUG=INFO", "NCCL_DEBUG_SUBSYS=INIT,NET", "{failing-command}"),
    "each rank's NCCL log up to the hang: the interface and address each offers, the transport between each pair, and "
    "the last step each rank reached (a rank that never prints its channels, or a WARN line, names where it stops)",
    "on every node, as the job starts its ranks",
    nodes="several",
)
_NCCL_LOG_ONE = FamilyAsk(
    ("env", "NCCL_DEBUG=INFO", "{failing-command}"),
    "NCCL's whole log up to the hang: the transport between each pair of GPUs (P2P, SHM, or NET where neither works) "
    "and the last step each rank reached",
    nodes="one",
)
_NCCL_LOG_INSIDE = FamilyAsk(
    ("docker", "exec", "{container}", "env", "NCCL_DEBUG=INFO", "{failing-command}"),
    "NCCL's whole log up to the hang, inside the program's container: the transport between each pair of GPUs and the "
    "last step each rank reached",
)
_PORT_OPEN = FamilyAsk(
    ("{python}", "-m", "http.server", "45678"),
    "a listener on a high TCP port, for the connection test that follows",
    "on one node of the job, left running: the one the next command connects to",
    nodes="several",
    cause="network",
)
_PORT_REACHED = FamilyAsk(
    (
        "{python}",
        "-c",
        'import socket, sys; socket.create_connection((sys.argv[1], 45678), 5); print("connected")',
        "{first-node}",
    ),
    "whether the other node can open a TCP connection to the first on a high port, as NCCL's sockets do (a timeout: a "
    "firewall or the cloud network's rules drop it, though ssh and ping pass)",
    "on another node of the job, while the listener runs",
    nodes="several",
    cause="network",
)
_TASKS_SEEN = FamilyAsk(
    (
        "srun",
        "bash",
        "-c",
        "echo $(hostname) SLURM_NTASKS=$SLURM_NTASKS SLURM_PROCID=$SLURM_PROCID SLURM_LOCALID=$SLURM_LOCALID "
        "CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES",
    ),
    "one line per task the job starts: how many ranks each node runs, against the world size the program waits for "
    "(a node running fewer tasks than its GPUs leaves the others waiting at the rendezvous)",
    "inside the job's allocation, in its batch script before the training command",
    nodes="several",
    cluster="slurm",
)
_JOB_SCRIPT = FamilyAsk(
    # scontrol(1), "write batch_script <job_id> -": the script Slurm stored at submission, to stdout, for its owner
    # (SchedMD/slurm doc/man/man1/scontrol.1 @284c3b95)
    ("scontrol", "write", "batch_script", "{job-id}", "-"),
    "the #SBATCH lines that decide the ranks (--nodes, --ntasks-per-node or --ntasks, the GPUs per node) and whether the "
    "program is started with srun, one task per GPU",
    nodes="several",
    cluster="slurm",
)
_TOPOLOGY = FamilyAsk(
    ("nvidia-smi", "topo", "-m"),
    "how the GPUs connect: NV# is NVLink; PIX, PXB, PHB and SYS are PCIe paths, where ACS or the IOMMU can block peer-to-peer",
    "on the host",
    nodes="one",
    cause="p2p",
)
_ACS = FamilyAsk(
    ("sudo", "lspci", "-vvv", "|", "grep", "-i", "ACSCtl"),
    "whether ACS redirects peer-to-peer traffic on the PCIe bridges (SrcValid+ on an ACSCtl line)",
    "on the host",
    nodes="one",
    cause="p2p",
)
_WITHOUT_P2P = FamilyAsk(
    ("env", "NCCL_P2P_DISABLE=1", "NCCL_DEBUG=INFO", "{failing-command}"),
    "whether the hang goes away without PCIe peer-to-peer (it does: ACS or the IOMMU blocks P2P the topology "
    "advertises; a test, not the fix)",
    nodes="one",
    cause="p2p",
)
_SHM_SIZE = FamilyAsk(
    ("df", "-h", "/dev/shm"),
    "the shared memory where the ranks run (64M, a container's default, is too small for NCCL's SHM transport)",
    nodes="one",
)
_IPC_OF = FamilyAsk(
    ("docker", "inspect", "{container}", "--format", "{{.HostConfig.IpcMode}} {{.HostConfig.ShmSize}}"),
    "whether the container was started with --ipc=host or a large --shm-size (private 67108864: docker's 64 MB "
    "default, too small for NCCL's shared memory)",
    "on the host",
    nodes="one",
)
_NETWORK_OF = FamilyAsk(
    ("docker", "inspect", "{container}", "--format", "{{.HostConfig.NetworkMode}} {{.HostConfig.IpcMode}}"),
    "whether each node's container runs on the host's network (bridge: a private address the other node cannot reach)",
    "on each host",
    nodes="several",
)
_NCCL_NAMED = re.compile(r"\bnccl\b", re.IGNORECASE)
# What shows a distributed job over NCCL at work (gpudoctor.parsers.error_texts, catalogue.toml's NCCL INFO entries).
_NCCL_AT_WORK = (
    "distributed-run-said",
    "ranks-on-hosts",
    "nccl-interfaces-said",
    "nccl-channels-net",
    "nccl-channels-local",
    "nccl-ib-no-device",
    "nccl-plugin-absent",
    "nccl-variable-said",
)


def nccl_hang(e: Any, facts: Facts) -> bool:
    """Whether the failure is the reporter's word that a job over NCCL hangs: the line names NCCL, or the paste shows
    a distributed run over it."""
    if e.get("form") != "hang-said":
        return False
    return bool(_NCCL_NAMED.search(e.line)) or any(facts.pasted.reported(kind) for kind in _NCCL_AT_WORK)


NCCL_HANG = Family(
    "nccl-hang",
    "a distributed job over NCCL hangs",
    frozenset({"gpu-stack-failure:hang-said"}),
    {
        place: (
            Cause(
                "the nodes cannot open TCP connections to each other on NCCL's ports (a firewall or cloud network rule)",
                key="network",
                nodes="several",
            ),
            Cause("an interface NCCL offers that the other node cannot reach (NCCL_SOCKET_IFNAME chooses)", nodes="several"),
            Cause("the launcher starting fewer ranks on a node than the world size the program waits for", nodes="several"),
            Cause("PCIe peer-to-peer that ACS or the IOMMU blocks between the GPUs", key="p2p", nodes="one"),
            Cause("too little shared memory for NCCL's SHM transport (a container's 64 MB /dev/shm)", nodes="one"),
        )
        for place in ("linux", "container", "pod")
    },
    {
        "linux": (
            _NCCL_LOG,
            _NCCL_LOG_ONE,
            _PORT_OPEN,
            _PORT_REACHED,
            _TASKS_SEEN,
            _JOB_SCRIPT,
            _TOPOLOGY,
            _ACS,
            _WITHOUT_P2P,
            _SHM_SIZE,
        ),
        "container": (_IPC_OF, _NETWORK_OF, _NCCL_LOG_INSIDE, _PORT_OPEN, _PORT_REACHED, _TOPOLOGY, _ACS),
        "pod": (_NCCL_LOG, _NCCL_LOG_ONE, _PORT_OPEN, _PORT_REACHED),
    },
    (
        "NCCL user guide, troubleshooting.rst (nccl_2262 archive), 'GPU Direct': PCI ACS redirects peer-to-peer traffic "
        "and can make GPU Direct fail or hang; 'IP Network Interfaces': interfaces that are up but cannot communicate "
        "between nodes make NCCL fail during init or even hang; 'Docker': --shm-size or --ipc=host for shared memory",
        "NVIDIA/nccl#199 (maintainer: disable ACS, or NCCL_P2P_DISABLE=1 to use SHM instead of P2P, for a multi-GPU hang)",
        "NVIDIA/nccl src/debug.cc @5067397c: NCCL_DEBUG=INFO prints each rank's hostname:pid:tid and its INIT/NET steps",
        "Lightning docs, clouds/cluster (SLURM-managed cluster): --nodes and --ntasks-per-node match num_nodes and the "
        "devices per node, the script started with srun",
    ),
    applies=nccl_hang,
)

# The GPU told as (near) idle while the program runs (gpudoctor.pasted.workloads' gpu-idle-said: "near 0% GPU usage",
# "the GPU is at 0% - 3% load", "computation seems run on CPU"). The framework may have found the GPU (its memory filled:
# TensorFlow 1.x reserves nearly all of it at session start) and still leave it idle, or the monitor read may not count
# CUDA at all; nothing the words say decides. The driver's own counters while the program runs do: its utilisation and
# memory sampled each second, and whether the program's process holds memory on the GPU at all.
_UTILISATION = FamilyAsk(
    ("nvidia-smi", "--query-gpu=utilization.gpu,memory.used", "--format=csv", "-l", "1"),
    "typed while the program runs (Ctrl+C stops it): the GPU's utilisation and memory as the driver counts them, CUDA's "
    "compute included, which a monitor's default graph may not show",
)
_PROCESSES = FamilyAsk(
    ("nvidia-smi", "--query-compute-apps=pid,process_name,used_memory", "--format=csv"),
    "typed while the program runs: whether the program's own process holds memory on the GPU (absent: it computes on the CPU)",
)
_UTILISATION_HOST = FamilyAsk(_UTILISATION.argv, _UTILISATION.decides, "on the host")
_PROCESSES_INSIDE = FamilyAsk(
    ("docker", "exec", "{container}", *_PROCESSES.argv),
    "typed while the program runs: whether the program's container holds memory on the GPU (absent: it computes on the CPU)",
)
_ON_CPU = Cause("the work running on the CPU (a CPU-only build, or the program's own device setting)", key="build")
_STARVED = Cause(
    "the GPU waiting on the CPU (data loading or preprocessing in the training loop, or a model only partly offloaded to the GPU)"
)
_GRAPH = Cause(
    "a monitor that does not count CUDA's compute (Windows Task Manager's GPU graphs show the 3D, Copy and Video "
    "engines unless Cuda or Compute_0 is chosen)"
)
GPU_IDLE = Family(
    "gpu-idle",
    "the GPU sits idle while the program runs",
    frozenset({"gpu-idle-said"}),
    {
        "linux": (_ON_CPU, _STARVED),
        "windows": (_ON_CPU, _STARVED, _GRAPH),
        "wsl": (_ON_CPU, _STARVED, _GRAPH),
        "container": (_ON_CPU, _STARVED),
        "pod": (_ON_CPU, _STARVED),
    },
    {
        "linux": (_UTILISATION, _PROCESSES, _BUILDS),
        "windows": (_UTILISATION, _PROCESSES, _BUILDS),
        "wsl": (_UTILISATION, _PROCESSES, _BUILDS),
        "container": (_UTILISATION_HOST, _PROCESSES_INSIDE),
        "pod": (_INSIDE_SMI,),
    },
    (
        "NVIDIA nvidia-smi documentation (nvidia-smi.txt, 'Query options'): --query-gpu=utilization.gpu,memory.used "
        "with --format=csv, -l SEC repeats the query every SEC seconds; --query-compute-apps lists the processes with a "
        "CUDA context and their used_memory",
        "Microsoft DirectX blog, 'GPUs in the Task Manager' (https://devblogs.microsoft.com/directx/gpus-in-the-task-"
        "manager/): the GPU graphs show the busiest engines (3D, Copy, Video); other engines are chosen in the graph's "
        "drop-down",
    ),
)

# (CUDA's "driver version is insufficient" is not a family here: gpudoctor.checks.reported judges it from the message
# itself, toolkit-newer-than-driver, and no pasted case leaves it unexplained.)
FAMILIES = (GPU_NOT_REACHED, GPU_IDLE, NCCL_HANG, FAILURE_UNSHOWN)


def place(facts: Facts) -> str:
    """Where the pasted program runs, as far as the causes of a symptom differ (one of PLACES)."""
    from gpudoctor.planner import where

    runtime = where.container_of(facts)
    if runtime == "kubernetes":
        return "pod"
    if runtime or where.image(facts) is not None:  # (or an image the paste starts with `docker run`)
        return "container"
    if facts.platform.wsl == 2:
        return "wsl"
    return "windows" if (facts.platform.system or "").lower().startswith("win") else "linux"


def nodes(facts: Facts) -> str:
    """How many nodes the pasted job's ranks run on, as far as the paste shows: "several" where it shows two hosts or
    says so (ranks-on-hosts: gpudoctor.pasted.workloads), else "one"."""
    return "several" if facts.pasted.reported("ranks-on-hosts") else "one"


def fits(item: FamilyAsk | Cause, facts: Facts) -> bool:
    """Whether an ask or a cause belongs to the pasted job: its number of nodes, and (an ask) its scheduler."""
    if item.nodes and item.nodes != nodes(facts):
        return False
    return not (isinstance(item, FamilyAsk) and item.cluster and item.cluster != facts.pasted.cluster)


def open_causes(family: Family, facts: Facts) -> tuple[str, ...]:
    """The family's causes still open where the pasted program runs: a driver's is closed where the paste shows the
    driver answering with its GPUs, on the machine itself (not a host's nvidia-smi under a container's symptom)."""
    return tuple(c.text for c in family.candidates.get(place(facts), ()) if fits(c, facts) and not _closed(c, facts))


def reached(facts: Facts) -> bool:
    """Whether the paste shows a framework answering that it reaches the GPU (_REACHED): its build is a CUDA one."""
    return any(facts.pasted.reported(kind) for kind in _REACHED)


def closed_keys(family: Family, facts: Facts) -> frozenset[str]:
    """The keys of the family's causes the paste rules out where the program runs: their asks decide nothing."""
    return frozenset(c.key for c in family.candidates.get(place(facts), ()) if c.key and _closed(c, facts))


def _closed(cause: Cause, facts: Facts) -> bool:
    answered = bool(facts.driver.version and facts.driver.gpus) and place(facts) in ("linux", "windows", "wsl")
    return (
        (cause.driver and answered)
        or any(facts.pasted.reported(kind) for kind in cause.closed_by)
        or (cause.visible_devices and _visible_devices_listed(facts))
    )


def _visible_devices_listed(facts: Facts) -> bool:
    """Whether the paste shows CUDA_VISIBLE_DEVICES set, every entry a GPU the driver lists (CUDA's own reading of it:
    gpudoctor.checks.platform.visible_devices)."""
    from gpudoctor.checks.platform import visible_devices

    value, gpus = facts.platform.env.get("CUDA_VISIBLE_DEVICES"), facts.driver.gpus
    if not value or not gpus:
        return False
    mig = sum(g.mig_devices or 0 for g in gpus)
    valid, invalid = visible_devices(value, [(g.index, g.uuid) for g in gpus], mig)
    return bool(valid) and not invalid


def run_with_gpus(facts: Facts) -> bool:
    """Whether the paste shows the `docker run` line that started the program's image, and it requests GPUs."""
    from gpudoctor.planner import where

    said = facts.pasted.reported
    return where.image(facts) is not None and bool(said("docker-run-said")) and not said("docker-run-without-gpus")


def family_of(e, facts: Facts) -> Family | None:
    """The family whose symptom this error evidence shows, if any: by its kind, or for a line no catalogue entry
    knows (gpu-stack-failure) by its form (gpudoctor.parsers.failure_lines), "kind:form" in a family's kinds; where
    a family reads the rest of the paste too (`applies`), only where that holds."""
    return next(
        (
            f
            for f in FAMILIES
            if (e.kind in f.kinds or f"{e.kind}:{e.get('form')}" in f.kinds) and (f.applies is None or f.applies(e, facts))
        ),
        None,
    )
