"""Catalogued messages of a TensorRT engine loaded where it was not built: by another TensorRT release (the plan's
library version, its serialization tag) or on a GPU of another compute capability.

An engine holds the kernels and tactics one TensorRT release chose on one GPU: TensorRT's support matrix ("Engine
Portability", docs.nvidia.com/deeplearning/tensorrt, TensorRT 10.10.0: serialized engines are not portable across
platforms; without the version-compatible flag or hardware compatibility mode, not across TensorRT versions or GPU
architectures either). No driver, CUDA or cuDNN change makes it load: it is built again from its ONNX model, by the
TensorRT that runs it, on the GPU that runs it.
"""

from __future__ import annotations

from collections.abc import Iterable

from gpudoctor.checks.base import ev
from gpudoctor.checks.catalogued._common import _said
from gpudoctor.facts import Facts
from gpudoctor.model import Finding, Remediation, Severity
from gpudoctor.planner.context import Context

CODE = "tensorrt-engine-not-portable"
# trtexec takes its files as --onnx=FILE and --saveEngine=FILE only (one word each): the word stays whole, its file the
# person's to fill in, quoted like a placeholder
_BUILD = ("--onnx=<model-onnx>", "--saveEngine=<engine-file>")


def check_tensorrt_engine_elsewhere(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """The engine refused by its compute capability (`expecting compute X got compute Y`) or by its release (`expecting
    library version X got Y`, `Version tag does not match`): rebuilt where it runs. For a release, the TensorRT the
    program loads is asked first, since trtexec from another install (a tar's bin beside a wheel) would build for its
    own release, not the program's."""
    from gpudoctor.cmdline import Cmd
    from gpudoctor.planner.where import python_step

    said = _said(facts, "tensorrt-engine-other-gpu") + _said(facts, "tensorrt-engine-mismatch")
    if not said:
        return
    e = said[0]
    other_gpu = e.kind == "tensorrt-engine-other-gpu"
    running, engine = e.get("running") or "", e.get("engine") or ""
    windows = (facts.platform.system or "").lower().startswith("win")
    trtexec = "trtexec.exe" if windows else "trtexec"
    if other_gpu:
        what = (
            f"built on a GPU of compute capability {engine}, loaded on one of {running}"
            if running and engine
            else "built on a GPU of another compute capability"
        )
        # (R470 and older drivers have no compute_cap field: the planner prints the GPUs' names there, whose
        # capability the matrix knows: gpudoctor.planner.deciders.released, tool_floors.runnable)
        first = Cmd(
            ("nvidia-smi", "--query-gpu=index,name,compute_cap", "--format=csv"),
            note="the GPU the engine is built on: the one that will run it",
        )
    else:
        # TensorRT 8.5 and earlier print the two releases (8.5.3.1); 8.2 and later the two serialization tags (237), which
        # differ between releases without naming them
        tags = "." not in running + engine
        what = (
            f"serialized by another TensorRT release than the one loading it (the engine's serialization tag {engine}, "
            f"the loading TensorRT's {running})"
            if running and engine and tags
            else f"serialized by TensorRT {engine}, loaded by TensorRT {running}"
            if running and engine
            else "serialized by another TensorRT release than the one loading it"
        )
        # which interpreter and which copy of TensorRT (its folder: a wheel's, a tar install's bindings): a notebook's
        # kernel or an IDE can run another Python than the shell that built the engine (blind sets 7 and 12's reviewers)
        first = python_step(facts, "-c", "import sys, tensorrt; print(sys.executable, tensorrt.__version__, tensorrt.__file__)")
        first = Cmd(first.argv, root=first.root, note="the TensorRT the program loads: trtexec of this release builds it")
    yield Finding(
        CODE,
        Severity.ERROR,
        "frameworks",
        f"the TensorRT engine was {what}",
        "A TensorRT engine holds the kernels one TensorRT release chose on one GPU model, for one platform: it loads "
        "only with that release, on a GPU of that compute capability (unless built version-compatible or "
        "hardware-compatible, TensorRT 8.6 and later). No driver, CUDA or cuDNN change makes it load; it is built "
        "again from its ONNX model where it runs.",
        (ev("pasted", e.line),),
        Remediation(
            "Build the engine again from its ONNX model on the machine and GPU that run it, with the TensorRT release "
            "the program loads (trtexec of that release, or the program's own export step), and point the program at "
            "the new engine file.",
            (first, Cmd((trtexec, *_BUILD), note="from the ONNX model the engine was built from")),
            component="environment",
        ),
    )
