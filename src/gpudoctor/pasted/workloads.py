"""What a pasted compose file, pod spec or compose log says about where the program runs and the GPUs it was given.

A compose service or a pod's container, as pasted, becomes evidence (`workload-without-gpu`, `workload-gpus`: the
spec's own values) and a cue of where the program ran; `docker compose` prefixes each line of a service's log with
the service's name and a bar (docker/compose, cmd/formatter/logs.go), so lines shown that way ran in that service.
Judged by gpudoctor.checks.workloads.
"""

from __future__ import annotations

import re

from gpudoctor.facts import CONTAINER_NAMED, EXEC_NAMED, KUBECTL_POD, LOGGED_SERVICE, POD_OWNER
from gpudoctor.lazypattern import LazyPattern
from gpudoctor.parsers.anchors import Lines
from gpudoctor.parsers.error_texts import ErrorEvidence
from gpudoctor.parsers.workload_spec import parse_workloads
from gpudoctor.pasted.cues import _cue
from gpudoctor.pasted.gathered import Gathered

# "ollama  | 2023/12/22 00:17:24 routes.go:915: ..." : the service's name, padded, then "| ". Compose v2 prints the
# container's name less its project ("text-generation-webui-1 | ": <service>-<number>; docker/compose
# pkg/compose/compose.go @ecee21b5, getContainerNameWithoutProject), and `docker compose exec` takes the service, so
# the number is not the name's (the name's pattern is lazy, or it would swallow the "-1").
_COMPOSE_LOG = re.compile(r"^(?P<service>[a-z0-9][a-z0-9_.-]{0,62}?)(?:-\d{1,3})? {1,40}\| ")
# The service's own log saying it has no GPU: nvidia-smi failing inside it, or no GPU found.
_NO_GPU_LOGGED = re.compile(
    r"nvidia-smi(?: command)? (?:failed|not found)|\bno (?:NVIDIA |CUDA )?GPUs? (?:detected|found)\b|num_gpu=0\b",
    re.IGNORECASE,
)
_MAX_LINE = 2_000
# containerd's CRI default runtime (config.toml: `default_runtime_name = "runc"`) beside an nvidia runtime table, the
# keys nvidia-ctk writes (NVIDIA/nvidia-container-toolkit pkg/config/engine/containerd/config.go @d34b3046).
_CONTAINERD_DEFAULT = re.compile(r"^\s*default_runtime_name\s*=\s*\"(?P<name>[\w.-]{0,60})\"")
_CONTAINERD_NVIDIA = re.compile(r"\.runtimes\.\"?nvidia\"?\]")
# A node whose container runtime is Docker: nvidia-docker2 (the package that registers the nvidia runtime with Docker
# and leaves runc its default), docker info's "Default Runtime:" line, or docker version's banner (Docker on the node).
_DOCKER_NODE = re.compile(
    r"\bnvidia-docker2\b|^\s*Default Runtime:\s*(?P<default>[\w.-]{1,60})|^\s*(?:Client|Server):\s*Docker Engine\b", re.IGNORECASE
)
# Docker already told to run everything with nvidia: daemon.json's key, or docker info's answer. The plugin's NVML
# failure then has another cause (k8s-device-plugin#60 shows that key set and the failure still there).
_DOCKER_DEFAULT_NVIDIA = re.compile(r"\"default-runtime\"\s*:\s*\"nvidia\"|^\s*Default Runtime:\s*nvidia\b", re.IGNORECASE)
# containerd (or CRI-O) named as the node's runtime: its fix is nvidia-ctk's for that runtime, not Docker's.
_OTHER_NODE_RUNTIME = re.compile(r"\bcontainerd://|\bcri-o://|\bdefault_runtime_name\b|\bcrio\.conf\b", re.IGNORECASE)
# A container started with Apptainer or Singularity (global options such as -s before the verb): --nv (or --nvccli,
# which implies it) binds the host driver's libraries under /.singularity.d/libs and the /dev/nvidia* devices; without
# it the container has neither (apptainer/apptainer, docs: "GPU Support"; the --nv flag in cmd/internal/cli/action_flags.go).
# A line may be the command written as Markdown inline code (`singularity exec ...`), as issue threads quote a job's line.
_APPTAINER_RUN = re.compile(
    r"^\s*`?(?:[$#]\s+)?(?:sudo\s+)?(?P<tool>singularity|apptainer)(?:\s+-{1,2}[a-z][\w-]{0,30})*\s+(?P<verb>exec|run|shell)\s+(?P<rest>\S.*)$"
)
_APPTAINER_GPU_FLAG = re.compile(r"(?:^|\s)--(?:nv|nvccli)(?=\s|=|$)")
# A container asking for the driver's video libraries: NVIDIA_DRIVER_CAPABILITIES set (or printed) with video or all,
# or a docker run whose --gpus capabilities list has video (NVIDIA/nvidia-container-toolkit,
# internal/config/image/capabilities.go: "video", "all"). A question about the flag ("how to add --gpus ...") is not one.
_VIDEO_ASKED = re.compile(
    r"NVIDIA_DRIVER_CAPABILITIES\s{0,3}[=:\s]\s{0,3}[\"']?[\w,]{0,80}\b(?:video|all)\b"
    r"|^\s*(?:[$#]\s+)?(?:sudo\s+)?docker\s+run\b[^\n]{0,500}capabilities=[\w,]{0,80}\bvideo\b",
    re.IGNORECASE,
)
# `kubectl describe node`'s resource sections: the header, and an entry under it ("  cpu:  48", "  pods:  110").
_NODE_CAPACITY = re.compile(r"^\s*Capacity:\s*$")
_NODE_RESOURCE = re.compile(r"^\s+(?:cpu|memory|pods|ephemeral-storage|hugepages-\w+):\s+\S")
_GPU_NAMED = re.compile(r"\bGPUs?\b|\bnvidia\b", re.IGNORECASE | re.ASCII)
# nvidia.com/gpu in a node's status with its count: `kubectl describe node` ("nvidia.com/gpu:     0") or the node's YAML
# (nvidia.com/gpu: "0"), in a line or quoted in prose. The kubelet counts what the device plugin lists (its device
# manager's GetCapacity: kubernetes/kubernetes pkg/kubelet/cm/devicemanager/manager.go @7510f329), so 0 is a plugin
# that registered and serves no GPU.
_NODE_GPU_COUNT = re.compile(r"(?:^|[\s`])nvidia\.com/gpu:\s*[\"']?(?P<count>\d{1,4})[\"']?(?![\w.])")
# The device plugin's own words that its pod could not load NVML (catalogue.toml: its advice, and the older plugin's line).
_PLUGIN_NO_NVML = "device-plugin-no-nvml"
# A Slurm job's GPU request (sbatch/srun options, on an #SBATCH line or a command line): --gres=gpu[:type]:N, --gpus=N,
# --gpus-per-node=N (slurm.schedmd.com sbatch.html); and what a Lightning Trainer in the program asks per node.
_SLURM_GPUS = re.compile(
    r"(?:^\s*#SBATCH\b|\b(?:srun|sbatch|salloc)\b)[^\n]*?--(?:gres=gpu(?::(?P<type>[A-Za-z][\w.-]{0,40}))?:(?P<gres>\d{1,3})\b"
    r"|gpus(?:-per-node)?[= ](?:[A-Za-z][\w.-]{0,40}:)?(?P<gpus>\d{1,3})\b)"
)
_TRAINER_GPUS = re.compile(r"\bTrainer\([^)\n]{0,200}?\b(?:gpus|devices)\s*=\s*(?P<n>\d{1,3})\b")
# GKE's device plugin mounts the node's driver libraries into every GPU container at /usr/local/nvidia/lib64
# (GoogleCloudPlatform/container-engine-accelerators, cmd/nvidia_gpu/README.md: -container-path).
_GKE = re.compile(r"\bGKE\b|Google Kubernetes Engine")
GKE_NODE = "a GKE node"
# (the pod as the reporter typed it: a name written in capitals, "My-Ollama-POD", is theirs to fill in, kept as given;
# a container chosen with -c before the namespace is skipped over, so the namespace after it is still read)
_KUBECTL_POD = re.compile(
    r"\bkubectl\s+(?:-n\s+(?P<ns>[a-z0-9][a-z0-9.-]{0,62})\s+)?(?:exec(?:\s+-(?:it|ti|i|t))*|describe\s+pods?|logs)"
    r"\s+(?:pod/)?(?P<pod>[A-Za-z0-9][A-Za-z0-9.-]{0,252})(?=\s|$|`)(?:\s+(?:-c|--container)[ =][a-z0-9][a-z0-9-]{0,62})?"
    r"(?:\s+-n\s+(?P<ns2>[a-z0-9][a-z0-9.-]{0,62}))?"
)
# The pod's owner as `kubectl describe pod` prints it ("Controlled By:  StatefulSet/test-gpu"), and the labels its
# controller puts on it: a StatefulSet's pods carry apps.kubernetes.io/pod-index (or statefulset.kubernetes.io/pod-name)
# and are named <set>-<ordinal>; a Deployment's carry pod-template-hash and are named <deployment>-<hash>-<suffix>.
_CONTROLLED_BY = re.compile(r"^\s*Controlled By:\s+(?P<kind>[A-Za-z]{2,40})/(?P<name>[a-z0-9][a-z0-9.-]{0,252})\s*$")
_STATEFUL_LABEL = re.compile(r"\b(?:apps\.kubernetes\.io/pod-index|statefulset\.kubernetes\.io/pod-name)=")
_TEMPLATE_HASH = re.compile(r"\bpod-template-hash=(?P<hash>[a-z0-9]{1,20})\b")
# Kubeflow's notebook controller names the StatefulSet after its Notebook (kubeflow/kubeflow,
# components/notebook-controller/controllers/notebook_controller.go, generateStatefulSet: `Name: instance.Name`) and
# labels its pods notebook-name=<notebook>.
_KUBEFLOW_NOTEBOOK = re.compile(r"\bnotebook-name=|\bkubeflow\b[^\n]{0,80}?\bnotebooks?\b", re.IGNORECASE)
# The reporter saying a workload given no GPU sees them all anyway ("a notebook with no GPUs assigned still sees all
# GPUs"): the request and the seeing, said within a few lines of each other.
_NO_GPU_REQUESTED = re.compile(
    r"\b(?:no|without(?:\s+an?y?)?|zero|0)\s+(?:GPUs?|nvidia\.com/gpu)\s+(?:(?:is|are|was|were)\s+)?"
    r"(?:assigned|requested|allocated|attached|requests?|limits?)\b"
    # "I don't allocate any GPU resource", "if you don't request GPUs" (the device plugin's README, as
    # NVIDIA/k8s-device-plugin#61 quotes it)
    r"|\b(?:(?:did|do|does)\s*n[o']t|not|never)\s+(?:request|assign|allocate|ask)(?:ed|ing)?\s+(?:for\s+)?(?:an?y?\s+)?GPUs?\b",
    re.IGNORECASE,
)
_SEES_ALL_GPUS = re.compile(
    r"\b(?:sees?|seeing|shows?|showing|lists?|listing|visible|access\s+to)\b[^\n.]{0,40}?\b(?:all|every)\b"
    r"(?:\s+(?:the|of\s+the|\d{1,2}))?\s+(?:\w+\s+)?GPUs?\b"
    # "all the GPUs on the machine will be exposed inside your container"
    r"|\ball\s+(?:the\s+)?(?:\d{1,2}\s+)?GPUs?\s+(?:on\s+the\s+(?:host|machine|node)\s+)?(?:(?:are|will\s+be)\s+)?"
    r"(?:visible|exposed)\b",
    re.IGNORECASE,
)
_DOCKER_EXEC = re.compile(
    r"\b(?:docker|podman)\s+(?:container\s+)?exec\s+(?:-(?:it|ti|i|t|-interactive|-tty)\s+)*"
    r"(?P<name>[A-Za-z0-9][A-Za-z0-9_.-]{0,127})(?=\s)"
)
# A compose file's `container_name:` (quoted or not; a trailing comment): a name docker accepts is RestrictedNameChars'
# `[a-zA-Z0-9][a-zA-Z0-9_.-]+` (docker/docker daemon/names/names.go @v28.3.0); a variable (`${NAME}`) or anything else
# is no name the paste shows.
_CONTAINER_NAME = LazyPattern(
    r"container_name:[ \t]{0,40}(?P<q>['\"]?)(?P<name>[A-Za-z0-9][A-Za-z0-9_.-]{0,127})(?P=q)[ \t]*(?:#.*)?"
)
# The reporter saying the GPU's video encoder or decoder fails ("the NVENC encoder doesn't work"): a failure in words,
# so the report names it rather than "No problems found" (a media server's transcode log is often not pasted).
_VIDEO_CODEC_FAILING = re.compile(
    r"\b(?:NVENC|NVDEC|(?:h264|hevc|av1)_(?:nvenc|cuvid))\b[^\n.]{0,60}?\b(?:does\s*n[o']t\s+work|doesn't\s+work|"
    r"(?:is\s+)?not\s+working|no\s+longer\s+works?|stopped\s+working|fail(?:s|ed|ing)?|broken|won't\s+work)\b"
    r"|\b(?:can(?:no|')t|unable\s+to)\s+(?:use|get|enable)\s+(?:the\s+)?(?:NVENC|NVDEC)\b",
    re.IGNORECASE,
)
# The reporter saying the GPU falls off the bus, in words or quoting the driver without its kernel log line ("gpu
# randomly falls off the bus when playing games", tests/blind/plans17/cases/1713-*; the title 'nvidia error "GPU has
# fallen off the bus"' of pop-os/pop#3363): Xid 79's own words (NVIDIA/open-gpu-kernel-modules
# src/nvidia/arch/nvalloc/unix/src/osinit.c @df1c9a3d, "GPU has fallen off the bus."), so the report names the loss rather
# than "No problems found". The GPU (or the card, or "it") is the subject, with no negation between ("has never fallen
# off the bus"); the driver's NVRM line is the catalogue's (nvrm-fallen-off-bus), read beside it.
_OFF_BUS_SAID = re.compile(
    r"\b(?:GPUs?|cards?|it)\b(?:(?!\bnever\b|\bnot\b|n't\b|n’t\b)[^\n.]){0,40}?"
    r"\b(?:falls?|fell|fallen|falling|drops?|dropped|dropping)\s+off\s+(?:of\s+)?the\s+(?:PCIe?\s+)?bus\b",
    re.IGNORECASE,
)
# The reporter saying the program does not use or find the GPU ("it can't use the GPU, it can only use the cpu",
# "it cannot load cudart", "falls back to the CPU", "it does not run on GPU", "No GPU Found", "GPU utilization was
# always zero", "it will not use gpu", "unable to get PyTorch to recognize the CUDA cores", "cuda.is_available() always
# returns false", the GPU by its model: "does not seem to utilize my RTX 3060 mobile GPU", tests/blind/plans13/cases/1339-*,
# and Plachtaa/seed-vc#38's "Doesn't appear to be using Nvidia RTX 3060 but instead using my CPU"): beside a pasted spec that requests none, its symptom when no program output was pasted
# (gpudoctor.checks.workloads); anywhere, a symptom whose causes the paste leaves open (gpudoctor.checks.symptoms).
# Not a GPU's memory or process listing ("NOT allocate GPU memory", "Cannot see gpu process") nor a GPU the program
# was told to pick ("not using the GPU specified by CUDA_VISIBLE_DEVICES"): those are other questions, and fine cases
# of the blind sets (plans3/202, plans4/303, plans4/320).
_GPU_UNUSED_SAID = re.compile(
    r"\b(?:can(?:no|')?t|could(?:n't| not)|unable to|fail(?:s|ed)? to|does(?:n't|n’t| not)|do(?:n't|n’t| not)|"
    r"did(?:n't|n’t| not)|won't|will not|is(?:n't| not))\s+(?:get\s+\S{1,40}\s+to\s+|(?:appear|seem)\s+to\s+(?:be\s+)?)?"
    r"(?:use|using|utili[sz]e|utili[sz]ing|detect|detecting|find|finding|see|seeing|load|loading|access|recogni[sz]e|"
    r"recogni[sz]ing|run\s+on|running\s+on|train\s+on)\s+"
    r"(?:the\s+|my\s+|a\s+|an\s+|any\s+)?(?:NVIDIA\s+|GeForce\s+)*"
    # the GPU by its model ("my RTX 3060 mobile GPU", "Nvidia RTX 3060"): GeForce's and the workstation lines' names
    r"(?:(?:RTX|GTX|Quadro|Tesla)\s*[A-Z]?\d{3,4}\b(?:\s+(?:Ti|Super|mobile|laptop))*(?:\s+GPUs?)?|GPUs?|CUDA|cudart)\b"
    r"(?!\s*(?:memory|process|specified|selected|chosen|index|id\b|number|\d))"
    r"|\b(?:only|still)\s+(?:use[sd]?|using|runs?|running|ran)\s+(?:on\s+)?(?:the\s+)?CPU\b"
    # (onnxruntime's CPU provider by its name, as the reporters spell it: "always falling back to the CPUProvider",
    # "always fall back to CPUExecutorProvider": tests/blind/plans18/cases/1834-*, microsoft/onnxruntime#9302)
    r"|\bfall(?:s|ing)?\s+back\s+to\s+(?:the\s+)?CPU(?:Execut(?:ion|or))?(?:Providers?)?\b"
    # "I still get cuda.is_available false", "'torch.cuda.is_available()' always returns 'false'"; R torch's
    # cuda_is_available() "reports FALSE"; "`torch.cuda.is_available()` always fails" (its False, in the reporter's word)
    r"|(?:\b|(?<=cuda_))is_available\b(?:\(\))?['\"`]?\s+(?:always\s+|still\s+)?"
    # (the -ing forms too: "torch.cuda.is_available() returning False", BayesWatch/nas-without-training#2;
    # "`torch.cuda.is_available()` is showing as False", pytorch/pytorch#167042 in tests/blind/plans21/cases/2123-*)
    r"(?:(?:(?:is\s+|was\s+|keeps?\s+)?(?:returning|showing|giving|printing)(?:\s+(?:up\s+)?as)?\s+"
    r"|(?:returns?|returned|gives?|gave|prints?|printed|shows?|showed|reports?|reported|is|was)\s+)?['\"`]?false\b"
    r"|fail(?:s|ed)?\b(?!\s+(?:to|with|on|in|when|if)\b))"
    r"|\bno\s+(?:NVIDIA\s+)?GPUs?\s+(?:was\s+|were\s+|is\s+)?(?:found|detected|usage)\b"
    r"|\bGPU\s+(?:utili[sz]ation|usage|util)\s+(?:is\s+|was\s+|remains\s+|stays\s+)?(?:always\s+|at\s+|still\s+)*"
    r"(?:0\s?%|zero)",
    re.IGNORECASE,
)
# The reporter saying the work runs at the CPU's pace ("much slower than before, just like run in a cpu version",
# "GPU training is as slow as CPU training"): a GPU the framework does not use (the CPU package shadowing the GPU one,
# libraries it failed to load), which the words leave open. Not a GPU measured slower than the CPU ("GPU MUCH slower
# than CPU", "far slower than on CPU"): the GPU at work on a model too small for it, another question.
# Also the program's choice of device landing on the CPU, in the reporter's words: it "defaults to CPU" or "uses by
# default the CPU" (pytorch/pytorch#9464, Windows 10: "it uses by default the CPU, not the GPU"), or the wish that it
# "use GPU instead of CPU" (tests/blind/plans16/cases/1636-*: "make it use GPU instead of CPU ... It seems to default to
# using CPU"). The whole device choice, unlike "still using CPU" (part of a model left on the CPU: plans9/945); never
# the wish for the CPU ("how to make it default to CPU", "run on CPU instead of GPU"): only "defaults"/"seems to
# default" and "uses"/"runs" in the third person read. Nor a program's own notice that it found no GPU and goes on
# ("CUDA not available - defaulting to CPU", EasyOCR on a machine without one: the fine case plans11/1143).
_CPU_PACE_SAID = re.compile(
    r"\b(?:as\s+slow(?:ly)?\s+as|(?:the\s+)?same\s+speed\s+as|slow(?:er)?\b[^.\n]{0,60}?\blike)\s+(?:if\s+)?"
    r"(?:(?:it|I|we|was|were|is|runs?|running|ran|training|trained|on|in|with|a|the)\s+){0,5}CPU\b"
    r"(?!\s*(?:usage|utili|load|memory|ram|is\b|was\b|bound|bottleneck|cores?|threads?))"
    r"|\b(?:defaults|(?:seems?|appears?)\s+to\s+default)\s+to\s+(?:using\s+|running\s+on\s+)?"
    r"(?:the\s+)?CPU\b(?!\s*(?:usage|utili|load|memory|ram|bound|bottleneck|cores?|threads?))"
    r"|\b(?:uses|runs)\s+by\s+default\s+(?:on\s+)?(?:the\s+)?CPU\b|\b(?:uses|runs)\s+(?:on\s+)?(?:the\s+)?CPU\s+by\s+default\b"
    r"|\buse\s+(?:the\s+)?GPU\s+(?:instead\s+of|rather\s+than)\s+(?:the\s+)?CPU\b"
    # its time or speed told as the CPU's ("taking computation time similar as CPU", tests/blind/plans19/cases/1950-*)
    r"|\b(?:time|speed|pace|performance)\s+(?:is\s+|was\s+)?(?:(?:very|exactly|almost|about|quite)\s+)?"
    r"(?:similar|comparable|equal|close)\s+(?:to|as|with)\s+(?:(?:the|a|my|on|in|with|running)\s+){0,3}CPU\b"
    r"(?!\s*(?:usage|utili|load|memory|ram|bound|bottleneck|cores?|threads?))",
    re.IGNORECASE,
)
# The reporter saying nvidia-smi answers inside the container or pod the program runs in ("I can execute the nvidia-smi
# command in the container", "the nvidia-smi tool is working and detect my card in the docker pod"): the GPU reaches
# the program's place, so a program that still works on the CPU is its own setting, not the environment's (jellyfin's
# ffmpeg copying a stream: tests/blind/plans10/cases/1040-*). Not where the words deny it (_DENIED).
_GPU_REACHED_SAID = re.compile(
    r"\b(?:can|could)\s+(?:run|execute|use|call)\s+(?:the\s+)?nvidia-smi(?:\s+(?:command|tool))?\s+"
    r"(?:in|inside|within|from)\s+(?:the\s+|my\s+|that\s+)?(?:docker\s+|podman\s+)?(?:container|pod)\b"
    r"|\bnvidia-smi\b[^.\n]{0,40}?\b(?:works?|working|runs?|shows?|lists?|sees?|detects?)\b[^.\n]{0,40}?"
    r"\b(?:in|inside|within|from)\s+(?:the\s+|my\s+|that\s+)?(?:docker\s+|podman\s+)?(?:container|pod)\b",
    re.IGNORECASE,
)
_DENIED = re.compile(r"n't|\bnot\b|\bnever\b|\bno\b|\bfail|\berror|cannot|unable", re.IGNORECASE)
# The reporter saying another Python on the same machine reaches the GPU ("when I run this globally, it finds the correct
# GPU. However, when I run it from the faster whisper virtual environment, ...": tests/blind/plans13/cases/1339-*; "CUDA
# cannot be detected although it can be detected in the base environment and any other environment I have created
# before": openvinotoolkit/openvino#16578): the driver answers on that machine, so what fails is the program's own
# environment (its framework's build), not the driver (gpudoctor.checks.symptoms closes the driver's cause on it).
_ELSEWHERE_PLACE = (
    r"(?:\bglobally\b|\b(?:in|from|with|on|using)\s+(?:the\s+|my\s+)?(?:global|system(?:-wide)?|base)\s+"
    r"(?:python|interpreter|env(?:ironment)?|conda)\b"
    r"|\boutside\s+(?:of\s+)?(?:the\s+|my\s+|its\s+)?(?:venv|virtual\s*env(?:ironment)?|conda\s+env(?:ironment)?)\b)"
)
_ELSEWHERE_FOUND = r"\b(?:finds?|found|detects?|detected|sees?|saw|recogni[sz]e[sd]?|works?|worked|returns?\s+true|is\s+true)\b"
_GPU_REACHED_ELSEWHERE = LazyPattern(
    _ELSEWHERE_PLACE + r"[^.\n]{0,60}?" + _ELSEWHERE_FOUND + "|" + _ELSEWHERE_FOUND + r"[^.\n]{0,60}?" + _ELSEWHERE_PLACE,
    re.IGNORECASE,
)
# An env file's GPU variable ("gpus=all", "GPUS=all"): docker compose substitutes .env's variables into the compose file
# and env_file passes them into the container's environment, but no variable requests a GPU (docs.docker.com, "GPU
# support in Compose": deploy.resources.reservations.devices, or the service's gpus attribute).
_GPUS_VARIABLE = re.compile(r"^\s*(?:export\s+)?(?P<name>gpus|GPUS|DOCKER_GPUS)=(?P<value>[\w,\"'-]{1,40})\s*$")
# The hosts a distributed job's ranks run on: two or more addresses on lines that name a node, rank, host or the
# rendezvous (init_method, MASTER_ADDR), or the reporter's words ("a task with 2 nodes", "two machines", --nnodes=2).
_IPV4 = re.compile(r"(?<![\d.])(?P<ip>(?:25[0-5]|2[0-4]\d|1?\d{1,2})(?:\.(?:25[0-5]|2[0-4]\d|1?\d{1,2})){3})(?![\d.])")
_RANK_LINE = re.compile(r"\b(?:node|rank|host|master|init_method|addr|worker)", re.IGNORECASE)
_HOSTS_SAID = re.compile(
    r"\b(?:two|2|three|3|four|4|multiple|several|different|separate)\s+(?:physical\s+)?(?:nodes|hosts|machines|servers)\b"
    r"|\bmulti-?(?:node|host|machine)\b|--nnodes[= ]?(?:[2-9]|\d{2})\b",
    re.IGNORECASE,
)
# NCCL's own log prefix (src/debug.cc, NVIDIA/nccl @5067397c: "%s:%d:%d ", hostname, pid, tid, then "[%d] NCCL INFO %s"
# or "[%d] %s:%d NCCL WARN %s", cudaDev and the source file's line), after mpirun's "[1,0]<stdout>:" tag where one is
# shown. Each rank names the host it runs on: two names are two nodes, whatever addresses the lines carry.
_NCCL_HOST = re.compile(
    r"(?:\[\d+,\d+\]<std(?:out|err)>:)?(?P<host>[A-Za-z0-9][\w.-]{0,62}):\d+:\d+ \[\d+\] "
    r"(?:[\w./-]{1,200}:\d+ (?:\([^)\n]{0,200}\) )?)?NCCL (?:INFO|WARN)\b"
)
# A container started without network isolation: docker's --network=host (--net=host), compose's network_mode: host.
_HOST_NETWORK = re.compile(r"--net(?:work)?[= ]host\b|\bnetwork_mode:\s*[\"']?host\b", re.IGNORECASE)
# Docker Desktop named as the daemon's side (its 2.x releases were numbered in four parts, 2.5.0.0, which no docker
# engine release is), and the distribution saying it has no docker engine of its own: `service docker ...` answering
# "unrecognized service", systemd without a docker unit, or no systemd at all (WSL before its systemd support).
_DOCKER_DESKTOP = re.compile(
    r"\bdocker\s+desktop\b(?:\s+(?:version\s+)?v?(?P<version>\d+\.\d+(?:\.\d+){0,2}))?"
    r"|\bdocker\s+(?:version\s+)?(?P<four>[1-4]\.\d{1,2}\.\d{1,2}\.\d{1,2})\b",
    re.IGNORECASE,
)
_NO_ENGINE = re.compile(
    r"\bdocker: unrecognized service\b|\bUnit docker\.service (?:not found|could not be found)"
    r"|System has not been booted with systemd as init system",
    re.IGNORECASE,
)
# A distributed run of several processes over NCCL: Lightning's DDP start lines, torch.distributed's launchers and
# process-group set-up, the NCCL backend named.
_DISTRIBUTED = re.compile(
    r"\binitializing (?:ddp|distributed)\b|\binit_process_group\b|\bDistributedDataParallel\b"
    r"|\btorch\.distributed\.(?:launch|run)\b|\btorchrun\b|\bbackend\s*=\s*[\"']?nccl\b|\bMASTER_ADDR\b",
    re.IGNORECASE,
)
# Interpreters by path: an environment's (conda, a venv, pyenv) and the system's own. A launcher that starts the ranks
# of other nodes over ssh (DeepSpeed's pdsh runner, mpirun, horovodrun) runs there whatever python a non-interactive
# shell finds first.
_INTERPRETER = re.compile(r"(?<![\w/.-])(?P<path>(?:/[\w.+-]{1,80}){0,12}/bin/python(?:\d(?:\.\d{1,2})?)?)(?![\w/.-])")
_ENV_PREFIX = re.compile(r"conda|mamba|miniforge|/envs/|venv|virtualenv|pyenv", re.IGNORECASE)
_SYSTEM_PYTHON = re.compile(r"^(?:/usr(?:/local)?)?/bin/python")
_SSH_LAUNCHER = re.compile(r"\bdeepspeed\b|\bpdsh\b|\bmpirun\b|\bmpiexec\b|\bhorovodrun\b", re.IGNORECASE)
# Windows 10 named (the host of a WSL distribution, whose build then decides GPU access).
_WINDOWS_10 = re.compile(r"\bWin(?:dows)?\s?10\b", re.IGNORECASE)
_KUBERNETES = re.compile(r"\bkubectl\b|\bkubernetes\b|\bk8s\b|\bkubelet\b|\bdevice[- ]plugin\b", re.IGNORECASE)


def _pod_owner(scan: Lines, pod: str) -> tuple[str, str] | None:
    """("kind/name", the line that shows it) of the controller owning `pod`, or None where the text does not show one."""
    kind = name = shown = ""
    for number, x in enumerate(scan.lines):
        if m := scan.match(_CONTROLLED_BY, number):
            kind, name, shown = m.group("kind"), m.group("name"), x.strip()
            if kind == "ReplicaSet" and re.fullmatch(r".+-[a-z0-9]{5,10}", name):
                kind, name = "Deployment", name.rsplit("-", 1)[0]  # a Deployment's ReplicaSet: <deployment>-<hash>
            break
        if not kind and scan.search(_STATEFUL_LABEL, number) and re.fullmatch(r".+-\d{1,5}", pod):
            kind, name, shown = "StatefulSet", pod.rsplit("-", 1)[0], x.strip()
        elif not kind and (m := scan.search(_TEMPLATE_HASH, number)) and f"-{m.group('hash')}-" in pod:
            kind, name, shown = "Deployment", pod[: pod.rindex(f"-{m.group('hash')}-")], x.strip()
    if not kind:
        return None
    if kind == "StatefulSet" and scan.first(_KUBEFLOW_NOTEBOOK) is not None:
        kind = "Notebook"
    return f"{kind}/{name}", shown[:300]


def _container_named(g: Gathered, lines: list[str]) -> None:
    """The one container a pasted compose file names (CONTAINER_NAMED). Two names are two services, and which of them
    the program ran in is not shown: then none."""
    named = {
        m.group("name"): x.strip()
        for x in lines[:20_000]
        if "container_name" in x and (m := _CONTAINER_NAME.fullmatch(x[:_MAX_LINE].strip().lstrip("-").strip()))
    }
    if len(named) == 1:
        name, line = next(iter(named.items()))
        _cue(g, CONTAINER_NAMED, name, line)


def read_workloads(g: Gathered, lines: list[str]) -> None:
    """Add the workloads `lines` declare or log. Never raises on content."""
    # The scans for one pattern's first line read only the lines that hold a text it requires (parsers.anchors).
    scan = Lines([x[:_MAX_LINE] for x in lines[:20_000]])
    workloads = parse_workloads(lines)
    for w in workloads:
        values = {"runtime": w.kind, "name": w.name[:120], "image": w.image[:200]}
        if w.gpus is None:
            if w.complete:
                _add(g, ErrorEvidence("workload-without-gpu", w.line[:300], tuple(sorted(values.items()))))
        else:
            _add(g, ErrorEvidence("workload-gpus", w.line[:300], tuple(sorted({**values, "gpus": w.gpus[:10]}.items()))))
        _where(g, "docker" if w.kind == "compose" else "kubernetes", f"its {w.kind} spec is pasted", w.line)
    beside_spec = bool(workloads) and all(w.gpus is None for w in workloads) and any(w.complete for w in workloads)
    if beside_spec:
        _gpus_variable(g, lines)
    _unused_said(g, lines, scan, beside_spec)
    _idle_said(g, lines, scan)
    _cl_not_found_said(g, lines, scan)
    _reached_said(g, lines, scan)
    _reached_elsewhere_said(g, lines, scan)
    logged: dict[str, int] = {}
    for line in lines[:20_000]:
        if "|" in line[:80] and (m := _COMPOSE_LOG.match(line[:_MAX_LINE])):
            logged[m.group("service")] = logged.get(m.group("service"), 0) + 1
            if _NO_GPU_LOGGED.search(line[:_MAX_LINE]):
                _add(g, ErrorEvidence("workload-logged-no-gpu", line[:300], (("name", m.group("service")),)))
    _default_runtime(g, scan)
    _docker_node_runtime(g, scan)
    if (
        pod := next((m for x in lines[:20_000] if "kubectl" in x and (m := _KUBECTL_POD.search(x[:_MAX_LINE]))), None)
    ) is not None:
        _cue(g, KUBECTL_POD, f"{pod.group('ns') or pod.group('ns2') or ''}/{pod.group('pod')}", pod.group(0))
        if owner := _pod_owner(scan, pod.group("pod")):
            _cue(g, POD_OWNER, owner[0], owner[1])
    if (gke := scan.first(_GKE)) is not None:
        _cue(g, GKE_NODE, "the node's driver libraries are mounted in the container at /usr/local/nvidia/lib64", lines[gke[0]])
    if (ex := next((m for x in lines[:20_000] if "exec" in x and (m := _DOCKER_EXEC.search(x[:_MAX_LINE]))), None)) is not None:
        _cue(g, EXEC_NAMED, ex.group("name"), ex.group(0))
    _container_named(g, lines)
    if (said := scan.first(_VIDEO_CODEC_FAILING)) is not None:
        _add(g, ErrorEvidence("video-codec-failing-said", lines[said[0]].strip()[:300]))
    if (lost := scan.first(_OFF_BUS_SAID)) is not None and "NVRM" not in lines[lost[0]]:
        _add(g, ErrorEvidence("gpu-off-bus-said", lines[lost[0]].strip()[:300]))
    if (asked := scan.first(_VIDEO_ASKED)) is not None:
        _add(g, ErrorEvidence("video-capability-said", lines[asked[0]].strip()[:300]))
    _apptainer_without_nv(g, lines)
    _node_without_gpu_capacity(g, lines)
    _job_gpus(g, lines)
    _ranks_on_hosts(g, scan)
    _docker_desktop(g, lines, scan)
    _remote_interpreters(g, lines, scan)
    if (g.wsl_said or g.wsl) and (w10 := scan.first(_WINDOWS_10)) is not None:
        _add(g, ErrorEvidence("windows10-said", w10[1].group(0)))
    if (dist := scan.first(_DISTRIBUTED)) is not None:
        _add(g, ErrorEvidence("distributed-run-said", dist[1].group(0)))
    _unrequested_gpus(g, lines, scan)
    for service, count in logged.items():
        if count >= 2:  # one bar is a table's cell; a log prints line after line
            _where(g, "docker", f"docker compose's log of the service {service}", service)
            _cue(g, LOGGED_SERVICE, service, service)


def _ranks_on_hosts(g: Gathered, scan: Lines) -> None:
    """The hosts a distributed job's ranks run on (`ranks-on-hosts`), where the text shows two or more (addresses on
    lines that name a rank or node, else the hosts NCCL's own log lines name), and whether a container of it was
    started on the host's network (`network`: host)."""
    hosts: list[str] = []
    shown = ""
    for number, x in enumerate(scan.lines):
        if "." not in x or not scan.search(_RANK_LINE, number):
            continue
        for m in _IPV4.finditer(x):
            ip = m.group("ip")
            if not ip.startswith(("127.", "0.", "255.")) and ip not in hosts:
                hosts.append(ip)
                shown = shown or x.strip()
    if len(hosts) < 2:
        named: dict[str, str] = {}  # host -> its first line
        for x in scan.lines[:20_000]:
            if "NCCL" in x and (found := _NCCL_HOST.match(x.strip()[:_MAX_LINE])):
                named.setdefault(found.group("host"), x.strip())
        if len(named) >= 2:
            hosts, shown = list(named), next(iter(named.values()))
    values: dict[str, str] = {}
    if len(hosts) >= 2:
        values["hosts"] = ",".join(hosts[:4])
    elif (said := scan.first(_HOSTS_SAID)) is not None:
        values["said"], shown = said[1].group(0), said[1].group(0)
    else:
        return
    if scan.first(_HOST_NETWORK) is not None:
        values["network"] = "host"
    _add(g, ErrorEvidence("ranks-on-hosts", shown[:300], tuple(sorted(values.items()))))


def _remote_interpreters(g: Gathered, lines: list[str], scan: Lines) -> None:
    """A multi-node run by a launcher that starts remote ranks over ssh, where the text shows both an environment's
    interpreter and the system's (`interpreters-said`: env, system, launcher)."""
    if not any(e.kind == "ranks-on-hosts" for e in g.errors):
        return
    if (found := scan.first(_SSH_LAUNCHER)) is None:
        return
    launcher = found[1].group(0).lower()
    env = system = ""
    shown = ""
    for line in lines[:20_000]:
        if "/bin/python" not in line:
            continue
        for m in _INTERPRETER.finditer(line[:_MAX_LINE]):
            path = m.group("path")
            if not env and _ENV_PREFIX.search(path):
                env = path
            elif not system and _SYSTEM_PYTHON.match(path):
                system, shown = path, line.strip()
    if env and system:
        values = {"env": env[:200], "system": system, "launcher": launcher}
        _add(g, ErrorEvidence("interpreters-said", shown[:300], tuple(sorted(values.items()))))


def _docker_desktop(g: Gathered, lines: list[str], scan: Lines) -> None:
    """Docker Desktop named (`docker-desktop-said`, with its version where shown) and the distribution shown without a
    docker engine of its own (`docker-engine-absent`): inside WSL the docker CLI then talks to Docker Desktop's daemon."""
    for line in lines[:20_000]:
        if "ocker" in line and (m := _DOCKER_DESKTOP.search(line[:_MAX_LINE])):
            version = m.group("version") or m.group("four")
            _add(g, ErrorEvidence("docker-desktop-said", m.group(0), (("version", version),) if version else ()))
            break
    if (no := scan.first(_NO_ENGINE)) is not None:
        _add(g, ErrorEvidence("docker-engine-absent", no[1].group(0)))


# The reporter saying cl.exe is not found although they put it on PATH ("I add the 'cl.exe' to PATH, but still says can
# not found"): nvcc's "Cannot find compiler 'cl.exe' in PATH" in their words (catalogue.toml's nvcc-cannot-find-cl),
# where the build's own line is cut from the paste. Whether that PATH reaches the build's shell is what decides.
_CL_NOT_FOUND_SAID = re.compile(
    r"\bcl\.exe'?[^\n]{0,80}?\b(?:can ?not (?:be )?found|cannot find|can't find|not (?:be )?found|isn't found)\b"
    r"|\b(?:can ?not|can't|could ?n[o']t|unable to|does ?n[o']t|fails? to) (?:be )?find\b[^\n]{0,20}?\bcl\.exe\b"
    # in Chinese: "nvcc 执行命令时未找到cl.exe" (not found), "找不到 cl.exe" (cannot find)
    r"|(?:未找到|找不到)\s?cl\.exe\b|\bcl\.exe\s?(?:未找到|找不到)",
    re.IGNORECASE,
)


def _cl_not_found_said(g: Gathered, lines: list[str], scan: Lines) -> None:
    """The reporter's words that the MSVC compiler is not found (nvcc's own line not pasted)."""
    if any(e.kind == "nvcc-host-compiler-missing" for e in g.errors):
        return  # nvcc's own line is there: the catalogue read it
    for i in range(scan.count):
        if scan.search(_CL_NOT_FOUND_SAID, i) is not None:
            _add(g, ErrorEvidence("nvcc-host-compiler-missing", lines[i].strip()[:300], (("entry", "nvcc-cannot-find-cl"),)))
            return


# The reporter saying the GPU was what ran it before, or is what it should run on: "All the previous times it correctly
# used gpu" (invoke-ai/InvokeAI#4202: tests/blind/plans22/cases/2237-*), "using CPU instead of GPU" (the words
# parsers.failure_lines' cpu-said reads: mudler/LocalAI#1108, tests/blind/plans13/cases/1345-*). Beside words of the
# CPU at work they say the whole program moved to the CPU (a change, or a device never reached), not that layers of a
# model too large stay there.
_GPU_BEFORE_SAID = re.compile(
    r"\b(?:CPU|cpu)\s+instead\s+of\s+(?:the\s+)?(?:GPU|CUDA)\b"
    r"|\b(?:previous(?:ly)?|before|used\s+to|earlier|all\s+the\s+(?:previous|other)\s+times?)\b[^.\n]{0,60}?"
    r"\b(?:used|using|ran|run|running|worked\s+on)\s+(?:on\s+)?(?:the\s+|my\s+)?(?:GPU|CUDA)\b",
    re.IGNORECASE,
)


def _gpu_before_said(lines: list[str], i: int) -> bool:
    """_GPU_BEFORE_SAID on line i or the five lines either side of it (the same part of a post: a form's answer and the
    sentences added under it)."""
    return any(_GPU_BEFORE_SAID.search(x[:_MAX_LINE]) for x in lines[max(0, i - 5) : i + 6])


# The reporter saying the GPU sits (near) idle while the program runs: its load, usage or utilisation told as a figure
# under 10 % ("near 0% GPU usage when running a prompt", "the GPU is at 0% - 3% load", "the 3rd one is GPU (0%)") or the
# work told as done on the CPU ("all training computation seems run on CPU"). Not the same as the program not reaching
# the GPU (gpu-unused-said): a framework that found the GPU and filled its memory can still leave it idle (the data
# pipeline on the CPU, a model only partly offloaded), and a monitor that does not count CUDA's compute (Task Manager's
# default 3D graph, facts.GPU_GRAPH_SAID) reads 0 % over a busy GPU. The driver's own reading while the program runs
# decides (gpudoctor.checks.symptoms.GPU_IDLE). (A figure of 10 % or more is a reading, not a complaint.)
_LOW_PERCENT = r"(?<![\d.])(?:0|[1-9])(?:\.\d+)?\s?%(?:\s*(?:-|–|~|to)\s*(?:0|[1-9])(?:\.\d+)?\s?%)?"
_IDLE_WORDS = r"(?:usage|utili[sz]ation|util|load|activity|use)"
_GPU_IDLE_SAID = re.compile(
    # "GPU usage ... 0%", "GPU utilization is about 2%", "GPU is at 0% - 3% load"
    rf"\bGPUs?\b(?:\s+\w+){{0,2}}?\s+{_IDLE_WORDS}\b[^.!?\n]{{0,30}}?{_LOW_PERCENT}"
    rf"|\bGPUs?\s+(?:is|was|stays?|remains?|sits?|shows?|stuck)\s+(?:\w+\s+){{0,2}}?(?:at\s+|on\s+)?{_LOW_PERCENT}\s+{_IDLE_WORDS}\b"
    # "near 0% GPU usage", "0% GPU load", "1% of the GPU utilisation"
    rf"|{_LOW_PERCENT}\s+(?:of\s+)?(?:the\s+)?GPU\s+{_IDLE_WORDS}\b"
    # a monitor's columns told: "GPU (0%)"
    rf"|\bGPU\s*\(\s*{_LOW_PERCENT}\s*\)"
    # the work told as done on the CPU: "computation seems run on CPU", "the training appears to be running on the CPU"
    r"|\b(?:seems?|appears?)\s+(?:to\s+)?(?:be\s+)?(?:run|runs|running|ran|executed|computed|done)\s+(?:on|by)\s+"
    r"(?:the\s+|my\s+)?CPU\b(?!\s+instead)",
    re.IGNORECASE,
)
# A sentence's end (a question is no statement: "is the GPU at 0% load normal?" asks, it does not tell).
_SENTENCES = re.compile(r"(?<=[.!?])\s+")
# A runner that splits a model's layers between the GPU and the CPU (Ollama offloads as many layers as fit in the GPU's
# memory, ollama docs/faq.md; llama.cpp offloads the layers -ngl / n_gpu_layers names; a GGML or GGUF model file is
# theirs): there a GPU near idle is most often that split, the model's size or the run's own setting (the controls
# plans6/545, a 70B model on a 24 GB card, and plans23/2343, llama.cpp run without -ngl), which the words cannot tell
# from a fault; the runner's own asks (catalogue.toml's ollama component: its server log's offload lines) decide.
_LAYER_SPLITTING_RUNNER = re.compile(
    r"\bollama\b|\bllama[.\-_]?cpp\b|\.(?:ggml|gguf)\b|\bggml\b|\bgguf\b|\bn_gpu_layers\b|\s-ngl\b", re.I
)

# The GPU's run measured against the CPU's ("GPU training is MUCH slower than CPU training ... GPU usage is around 2-5%",
# tensorflow/tensorflow#5995, a quiet twin in tests/pasted/test_symptom_families.py): the GPU does the work, on a model
# too small to keep it busy (as _CPU_PACE_SAID leaves out), another question than a GPU left idle.
_GPU_MEASURED_SLOWER = re.compile(
    r"\bGPU\b[^.\n]{0,40}?\bslower\s+than\b[^.\n]{0,30}?\bCPU\b|\bCPU\b[^.\n]{0,40}?\bfaster\s+than\b[^.\n]{0,30}?\bGPU\b",
    re.IGNORECASE,
)


def _idle_said(g: Gathered, lines: list[str], scan: Lines) -> None:
    """The reporter's words that the GPU sits idle while the program runs (gpu-idle-said), the first such statement;
    not where the paste names a runner that splits a model's layers between the GPU and the CPU, nor where it measures
    the GPU's run slower than the CPU's."""
    if scan.first(_GPU_IDLE_SAID) is None:
        return
    if any(_LAYER_SPLITTING_RUNNER.search(x[:_MAX_LINE]) or _GPU_MEASURED_SLOWER.search(x[:_MAX_LINE]) for x in lines[:20_000]):
        return
    for i in range(scan.count):
        if scan.search(_GPU_IDLE_SAID, i) is None:
            continue
        stated = [x for x in _SENTENCES.split(lines[i][:_MAX_LINE]) if not x.rstrip().endswith("?")]
        if any(_GPU_IDLE_SAID.search(x) for x in stated):
            _add(g, ErrorEvidence("gpu-idle-said", lines[i].strip()[:300]))
            return


def _unused_said(g: Gathered, lines: list[str], scan: Lines, beside_spec: bool) -> None:
    """The reporter's words that the program does not use the GPU (gpudoctor.checks.workloads reads them only beside
    a spec that requests none). Words of the CPU at work ("still using CPU", "falling back to CPU") count only beside
    such a spec: elsewhere they say as often that part of the work stays on the CPU (a model larger than the GPU, its
    layers split: the fine case plans9/945) or quote a message an upgrade made go away (tests/blind/pasted/005), unless
    the reporter says beside them that the GPU ran it before or should (_GPU_BEFORE_SAID)."""
    for i in range(scan.count):
        # (onnxruntime's CPU provider named is a whole session falling back, not layers left on the CPU: it counts anywhere)
        said = m.group(0).lower() if (m := scan.search(_GPU_UNUSED_SAID, i)) is not None else ""
        if m is not None and (beside_spec or "cpu" not in said or "provider" in said or _gpu_before_said(lines, i)):
            _add(g, ErrorEvidence("gpu-unused-said", lines[i].strip()[:300]))
            return
    for i in range(scan.count):
        if scan.search(_CPU_PACE_SAID, i) is not None:
            _add(g, ErrorEvidence("gpu-unused-said", lines[i].strip()[:300]))
            return


def _reached_said(g: Gathered, lines: list[str], scan: Lines) -> None:
    """The reporter's words that nvidia-smi answers inside the program's container or pod (gpu-reached-said)."""
    for i in range(scan.count):
        if (m := scan.search(_GPU_REACHED_SAID, i)) is not None and not _DENIED.search(m.group(0)):
            _add(g, ErrorEvidence("gpu-reached-said", lines[i].strip()[:300]))
            return


def _reached_elsewhere_said(g: Gathered, lines: list[str], scan: Lines) -> None:
    """The reporter's words that another Python on the machine reaches the GPU (gpu-reached-elsewhere-said)."""
    for i in range(scan.count):
        if scan.search(_GPU_REACHED_ELSEWHERE, i) is None:
            continue
        line = scan.lines[i]
        # every reading that starts anywhere ("cannot be detected although it can be detected in the base environment":
        # the second), none denied in its words or the few before them ("it does not find the GPU globally")
        for start in range(len(line)):
            m = _GPU_REACHED_ELSEWHERE.match(line, start)
            if m is not None and not _DENIED.search(line[max(0, start - 16) : m.end()]):
                _add(g, ErrorEvidence("gpu-reached-elsewhere-said", lines[i].strip()[:300]))
                return


def _gpus_variable(g: Gathered, lines: list[str]) -> None:
    """Beside a spec that requests no GPU: an env file's GPU variable (which requests nothing)."""
    if (m := next((m for x in lines[:20_000] if "=" in x and (m := _GPUS_VARIABLE.match(x[:200]))), None)) is not None:
        _add(g, ErrorEvidence("gpus-variable-said", m.group(0).strip(), (("name", m.group("name")),)))


def _unrequested_gpus(g: Gathered, lines: list[str], scan: Lines) -> None:
    """The reporter's words that a workload requesting no GPU sees every GPU: what the device plugin should prevent."""
    for i in range(scan.count):
        if (m := scan.search(_NO_GPU_REQUESTED, i)) is None:
            continue
        near = " ".join(x[:_MAX_LINE] for x in lines[max(0, i - 2) : i + 3])
        if _SEES_ALL_GPUS.search(near):
            _add(g, ErrorEvidence("gpus-seen-unrequested", lines[i].strip()[:300], (("said", m.group(0)),)))
            return


def _add(g: Gathered, evidence: ErrorEvidence) -> None:
    if evidence not in g.errors:
        g.errors.append(evidence)


def _where(g: Gathered, runtime: str, why: str, line: str) -> None:
    """A cue of where the program ran, unless the text already said where (its words win)."""
    if not any((c.get("means") or "").startswith("run inside a ") for c in g.cues):
        _cue(g, "a workload's spec or log", f"run inside a {runtime} container ({why})", line)


def _default_runtime(g: Gathered, scan: Lines) -> None:
    """containerd's default runtime, where the text shows it other than nvidia with an nvidia runtime configured and
    Kubernetes named: the device plugin's pod (and every pod without a runtime class) runs without the NVIDIA runtime."""
    found = scan.first(_CONTAINERD_DEFAULT, match=True)
    if found is None or (default := found[1]).group("name") == "nvidia":
        return
    if scan.first(_CONTAINERD_NVIDIA) is None:
        return
    if scan.first(_KUBERNETES) is None:
        return
    _add(g, ErrorEvidence("default-runtime-not-nvidia", default.group(0).strip(), (("default", default.group("name")),)))


def _docker_node_runtime(g: Gathered, scan: Lines) -> None:
    """Docker as the node's runtime, with nvidia not its default, where the device plugin says its pod loaded no NVML:
    dockershim cannot ask Docker for a runtime per pod, so the plugin's pod runs under Docker's default (runc, which
    nvidia-docker2 leaves in place) without the driver's libraries. Quiet where the text shows nvidia as Docker's
    default already, or another runtime as the node's."""
    if not any(e.kind == _PLUGIN_NO_NVML for e in g.errors) or any(e.kind == "default-runtime-not-nvidia" for e in g.errors):
        return
    if scan.first(_DOCKER_DEFAULT_NVIDIA) is not None or scan.first(_OTHER_NODE_RUNTIME) is not None:
        return
    if (docker := scan.first(_DOCKER_NODE)) is None:
        return
    values = {"runtime": "docker", "default": docker[1].group("default") or "runc"}
    _add(g, ErrorEvidence("default-runtime-not-nvidia", scan.lines[docker[0]].strip()[:300], tuple(sorted(values.items()))))


def _node_without_gpu_capacity(g: Gathered, lines: list[str]) -> None:
    """A Kubernetes node's Capacity (kubectl describe node) without nvidia.com/gpu, where the text shows the node's
    NVIDIA GPU (nvidia-smi's table) or asks for the GPU: the device plugin has not registered the node's GPUs with the
    kubelet. Whether its pod runs there, and whether the node's runtime gives that pod the driver, is what the asks
    decide. A node that lists nvidia.com/gpu only at a count of 0 (capacity and allocatable) is the plugin registered
    with no GPU found in its pod: the same question, read without the GPU shown (the registration says a plugin was
    meant to find one). A count above 0 anywhere is the plugin's registration of GPUs: not this."""
    head = lines[:20_000]
    counts = [(x, m.group("count")) for x in head if "nvidia.com/gpu" in x and (m := _NODE_GPU_COUNT.search(x[:_MAX_LINE]))]
    if counts and all(int(c) == 0 for _, c in counts):
        # registered with no GPU at all (capacity and allocatable 0): the plugin's pod found none, which is the same
        # question as no registration; a capacity above 0 is GPUs it found (0 allocatable of them: unhealthy), not this
        _add(g, ErrorEvidence("node-gpu-capacity-missing", counts[0][0].strip()[:300], (("count", "0"),)))
        return
    if any("nvidia.com/gpu" in x for x in head):
        return
    if not (g.smi_table or g.driver_version or any(_GPU_NAMED.search(x[:_MAX_LINE]) for x in head)):
        return
    for i, line in enumerate(lines[:20_000]):
        if "Capacity:" in line and _NODE_CAPACITY.match(line) and any(_NODE_RESOURCE.match(x) for x in lines[i + 1 : i + 4]):
            _add(g, ErrorEvidence("node-gpu-capacity-missing", line.strip()))
            return


def _apptainer_without_nv(g: Gathered, lines: list[str]) -> None:
    """An Apptainer/Singularity command line that starts its container without --nv: the container then has no driver
    library and no GPU device, whatever the host has. Its continuation lines (a trailing backslash) are read with it,
    since the options may follow on them; the command (up to a trailing `&`) is kept to repeat with --nv."""
    for i, line in enumerate(lines[:20_000]):
        if "singularity" not in line and "apptainer" not in line:
            continue
        if (m := _APPTAINER_RUN.match(line[:_MAX_LINE])) is None:
            continue
        parts = [m.group(0).rstrip()]
        j = i
        while parts[-1].endswith("\\") and j + 1 < len(lines) and len(parts) < 60:
            parts[-1] = parts[-1][:-1].rstrip()
            j += 1
            parts.append(lines[j][:_MAX_LINE].strip())
        # (a closing backtick of inline code, then a trailing `&`, are not the command's)
        whole = " ".join(p for p in parts if p).removesuffix("`").rstrip().removesuffix("&").rstrip()
        if _APPTAINER_GPU_FLAG.search(whole):
            return
        start = whole.find(m.group("tool"))
        values = {"runtime": m.group("tool"), "name": "", "image": "", "command": whole[start:][:1_500]}
        _add(g, ErrorEvidence("workload-without-gpu", line.strip()[:300], tuple(sorted(values.items()))))
        return


def _job_gpus(g: Gathered, lines: list[str]) -> None:
    """A Slurm job's GPUs per node (`job-gpus`) and what the program in it asks per node (`program-gpus`)."""
    job = next((m for x in lines[:20_000] if "gpu" in x and (m := _SLURM_GPUS.search(x[:_MAX_LINE]))), None)
    if job is None:
        return
    values = {"gpus": job.group("gres") or job.group("gpus")}
    if job.group("type"):
        values["type"] = job.group("type")
    _add(g, ErrorEvidence("job-gpus", job.group(0).strip()[:300], tuple(sorted(values.items()))))
    program = next((m for x in lines[:20_000] if "Trainer(" in x and (m := _TRAINER_GPUS.search(x[:_MAX_LINE]))), None)
    if program is not None:
        _add(g, ErrorEvidence("program-gpus", program.group(0)[:300], (("gpus", program.group("n")),)))
