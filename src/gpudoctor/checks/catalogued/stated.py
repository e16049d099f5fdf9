"""Messages that state their own fix: a library's guard that names the environment variable it wants.

The plan sets what the library's own words ask for (a variable of a fixed name and value, through cmdline's SetEnv),
read from the library's source (catalogue.toml's after-round block of h215), never a command copied from the paste.
"""

from __future__ import annotations

from collections.abc import Iterable

from gpudoctor.checks.base import ev
from gpudoctor.checks.catalogued._common import _said
from gpudoctor.cmdline import Cmd, Placeholder, SetEnv
from gpudoctor.facts import Facts
from gpudoctor.model import Finding, Remediation, Severity
from gpudoctor.planner.context import Context


def check_accelerate_p2p_ib(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """accelerate's guard on several GeForce RTX 40-series GPUs: AcceleratorState raises NotImplementedError unless
    NCCL_P2P_DISABLE and NCCL_IB_DISABLE are both in the environment (huggingface/accelerate src/accelerate/state.py
    @16cb6eb8), where utils/environment.py's check_cuda_p2p_ib_support finds more than one "RTX 40" GPU on a driver
    older than 550.40.07 (these cards have no peer-to-peer, a workstation no InfiniBand; the maintainer on
    huggingface/accelerate#2328: "it's only on the 4000-series"). `accelerate launch` sets both itself
    (commands/launch.py); a script started by python, torchrun or deepspeed must have them set in its shell."""
    said = _said(facts, "accelerate-p2p-ib-refused")
    if not said:
        return
    yield Finding(
        "nccl-transport-disabled",
        Severity.WARNING,
        "frameworks",
        "accelerate refuses several GeForce RTX 40-series GPUs until NCCL_P2P_DISABLE and NCCL_IB_DISABLE are set",
        "accelerate stopped before training, as the text shows: on more than one GeForce RTX 40-series GPU (with a "
        "driver older than 550.40.07) it requires NCCL to be told not to use peer-to-peer and InfiniBand, which these "
        "cards and a workstation do not have, and asks for NCCL_P2P_DISABLE=1 and NCCL_IB_DISABLE=1, or for the run "
        "to start through `accelerate launch`, which sets both. The driver, CUDA and torch are not at fault.",
        (ev("pasted", said[0].line),),
        Remediation(
            "Set both variables in the shell that starts the training (and in its launch script for later runs), "
            "then start it again from that shell; `accelerate launch` sets them by itself.",
            (
                Cmd(("nvidia-smi", "-L"), note="the GPUs the run uses: several GeForce RTX 40xx"),
                SetEnv("NCCL_P2P_DISABLE", "1"),
                SetEnv("NCCL_IB_DISABLE", "1"),
                Cmd((Placeholder("the-training-command"),), note="again, from this shell"),
            ),
            component="environment",
        ),
    )


def check_tcpstore_without_libuv(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """torch.distributed's TCPStore asked for libuv, which this PyTorch lacks: torch 2.4 made libuv the default
    (torch/distributed/rendezvous.py @f186b9ee: `os.environ.get("USE_LIBUV", "1") == "1"`, a URL's use_libuv first),
    and PyTorch's Windows wheels are built without it (TCPStore.cpp's TORCH_CHECK @b8744784; the reports
    are Windows wheels: cocktailpeanut/fluxgym#302, hiyouga/LlamaFactory#7124). The variable selects the other backend; nothing is reinstalled. Said on Windows only,
    where every wheel lacks libuv: elsewhere the build is one's own, and the catalogue's meaning is what the report
    says of it."""
    from gpudoctor.planner.where import python_exe

    said = _said(facts, "tcpstore-libuv-missing")
    if not said or not (facts.platform.system or "").lower().startswith("win"):
        return
    python = python_exe(facts)
    yield Finding(
        "framework-windows-native-gpu",
        Severity.WARNING,
        "frameworks",
        "PyTorch's Windows build has no libuv, which torch.distributed's TCPStore uses by default: set USE_LIBUV=0",
        "torch.distributed's rendezvous created a TCPStore with its libuv backend, the default since PyTorch 2.4, "
        "and this PyTorch was built without libuv, as every Windows wheel is, as the text shows. USE_LIBUV=0 in the "
        "environment of the process (or use_libuv=0 in the init_method URL) selects the store's other backend; "
        "reinstalling PyTorch changes nothing.",
        (ev("pasted", said[0].line),),
        Remediation(
            "Set USE_LIBUV=0 where the program starts (the same console, or the job step's environment), then start "
            "it again; the check below starts a one-process group through the same rendezvous.",
            (
                SetEnv("USE_LIBUV", "0"),
                Cmd(
                    (
                        python,
                        "-c",
                        "import os, torch.distributed as dist; "
                        "os.environ.update(MASTER_ADDR='127.0.0.1', MASTER_PORT='29500'); "
                        "dist.init_process_group('gloo', rank=0, world_size=1); print(dist.is_initialized())",
                    ),
                    note="True: the rendezvous works without libuv",
                ),
            ),
            component="environment",
        ),
    )
