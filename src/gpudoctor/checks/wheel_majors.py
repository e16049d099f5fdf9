"""Which CUDA major each installed framework loads NVIDIA's wheels for, and a torch moved across majors.

Shared by the framework, toolkit and cuDNN checks (it sits below them, so none imports another for it).
"""

from __future__ import annotations

import dataclasses
import re

from gpudoctor.checks.base import Context
from gpudoctor.cmdline import Cmd
from gpudoctor.facts import Facts, TensorflowFacts, TorchFacts
from gpudoctor.lazypattern import LazyPattern
from gpudoctor.planner.remedy import pip
from gpudoctor.probed import Found
from gpudoctor.versions import major

_JAX_CUDA_PLUGIN = LazyPattern(r"^jax-cuda(\d+)-(plugin|pjrt)$")
_WHEEL_CUDA = LazyPattern(r"^(nvidia-[a-z0-9-]+?)-cu(\d+)$")


def torch_cuda(facts: Facts) -> TorchFacts | None:
    t = facts.frameworks.torch
    return t.value if isinstance(t, Found) and t.value.cuda else None


def tf_gpu(facts: Facts) -> TensorflowFacts | None:
    """A TensorFlow that wants a GPU: a CUDA build, or tensorflow-gpu whose build_info was unreadable."""
    t = facts.frameworks.tensorflow
    if not isinstance(t, Found):
        return None
    tf = t.value
    if tf.distribution == "tensorflow-cpu" or tf.is_cuda_build is False:
        return None
    if tf.is_cuda_build is None and tf.distribution != "tensorflow-gpu":
        return None
    return tf


def jax_cuda_major(facts: Facts) -> int | None:
    """The CUDA major of an installed JAX CUDA plugin (or a jaxlib+cudaNN build), if any."""
    j = facts.frameworks.jax
    if not isinstance(j, Found):
        return None
    for name in j.value.plugins:
        m = _JAX_CUDA_PLUGIN.match(name)
        if m:
            return int(m.group(1))
    local = re.search(r"\+cuda(\d+)", j.value.jaxlib or "")
    return int(local.group(1)) if local else None


def old_wheels_said(old_major: str) -> str:
    return (
        f"Then remove the CUDA {old_major} wheels the old build brought (they would stay beside the new build's, in the "
        "same nvidia/ directory) and force-reinstall the new build, which puts back the files both majors share."
    )


def old_major_wheels_dropped(facts: Facts, ctx: Context, build, commands: tuple[Cmd, ...]) -> tuple[tuple[Cmd, ...], str]:
    """A torch moved across CUDA majors (cu121 -> cu118): pip leaves the old major's nvidia-*-cuXX wheels beside the
    new ones (nvidia-wheels-conflict). After the new build is installed (nothing is removed before its replacement is
    in hand), the same step uninstalls the old major's wheels that are installed, unless another framework here loads
    that major, then force-reinstalls the new build: both majors write the same files under nvidia/ (libcudnn.so.8,
    the packages' __init__.py), so the uninstall deletes some of the new wheels' files and only a reinstall puts them
    back. Returns the commands and the old major ("" when nothing is dropped)."""
    t = torch_cuda(facts)
    old, new = (major(t.cuda) if t else None), major(build.cuda or "")
    installs = [c for c in commands if "install" in c.words[:4] and any(w.startswith("torch==") for w in c.words)]
    if old is None or new is None or old == new or len(installs) != 1:
        return commands, ""
    tf = tf_gpu(facts)
    row = ctx.matrix.tensorflow_release(tf.version) if tf else None
    if jax_cuda_major(facts) == old or (row is not None and row.and_cuda and major(row.cuda) == old):
        return commands, ""  # another framework loads the old major's wheels: they stay
    drop = sorted(n for n in facts.frameworks.nvidia_wheels if (m := _WHEEL_CUDA.match(n)) and int(m.group(2)) == old)
    if not drop:
        return commands, ""
    (install,) = installs
    at = install.words.index("install") + 1
    again = dataclasses.replace(install, argv=(*install.argv[:at], "--force-reinstall", *install.argv[at:]))
    return (*commands, pip(facts, "uninstall", "-y", *drop), again), str(old)
