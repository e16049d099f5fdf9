"""Per framework, the settings that hold one job to its memory budget: an environment file and the
first lines of the program. Names, defaults and sources are the matrix's (compat_matrix/memory_settings.toml).

- PyTorch: torch.cuda.set_per_process_memory_fraction caps the caching allocator at total x fraction.
  The same cap from the environment (PYTORCH_CUDA_ALLOC_CONF=per_process_memory_fraction:F) exists
  from 2.10 only, and older releases stop on an allocator option they do not know, so the env file
  carries it commented out.
- TensorFlow: a logical device with memory_limit (MiB) is the cap; TF_FORCE_GPU_ALLOW_GROWTH=true
  makes it start small. TF refuses set_memory_growth on a GPU with logical devices configured
  (tensorflow/tensorflow#38367), so the code uses the limit alone. TF reads the variable as exactly
  "true" or "false" (gpu_bfc_allocator.cc).
- JAX: XLA_PYTHON_CLIENT_MEM_FRACTION is the share of total memory its pool takes at the first
  operation, and the pool does not grow past it: the budget, reserved up front.

A fraction is rounded down, so the cap never exceeds the budget.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

MIB = 1024**2
GIB = 1024**3

FRAMEWORK_NAMES = {"torch": "PyTorch", "tensorflow": "TensorFlow", "jax": "JAX", "any": "any framework", "other": "other"}
# The matrix's names (memory_setting accepts "torch" as an alias of "pytorch").
_MATRIX = {"torch": "pytorch", "tensorflow": "tensorflow", "jax": "jax"}


@dataclass(frozen=True)
class EnvLine:
    name: str
    value: str
    comment: str = ""
    active: bool = True  # False: written commented out, for the reader to enable

    def lines(self) -> tuple[str, ...]:
        """Comments on their own lines: docker --env-file and systemd read `# ...` after a value as part of it.

        The assignment is rendered by gpudoctor.cmdline.render_envfile, the one writer of env files: a value
        read from the machine (a GPU or MIG UUID) that holds a newline, a quote or a `$` raises
        cmdline.Unrenderable instead of adding a line (`LD_PRELOAD=...`) to the file.
        """
        from gpudoctor.cmdline import Unrenderable, render_envfile
        from gpudoctor.sanitize import has_unsafe

        line = render_envfile([(self.name, self.value)]).rstrip("\n")
        if has_unsafe(line):
            # render_envfile refuses controls only; a line separator, bidi override or zero-width character
            # would be shown escaped, so the file people copy would not hold the machine's value.
            raise Unrenderable(f"{self.name}: an env file cannot hold {self.value!r} as it is shown")
        if not self.active:
            line = "# " + line
        return (f"# {self.comment}", line) if self.comment else (line,)


def env_file(env: tuple[EnvLine, ...]) -> str:
    """The whole env file of a job; raises cmdline.Unrenderable when any value cannot be held.

    All or nothing: a file without its CUDA_VISIBLE_DEVICES line would let the job see every GPU.
    """
    return "".join(line + "\n" for e in env for line in e.lines())


@dataclass(frozen=True)
class JobSettings:
    env: tuple[EnvLine, ...]
    snippets: tuple[tuple[str, str], ...]  # (framework, code)
    sources: tuple[str, ...]  # matrix source keys of the controls used
    note: str | None = None


def fraction(budget: int, total: int) -> float:
    """budget/total rounded down to 3 decimals, at least 0.001."""
    return max(0.001, math.floor(budget / total * 1000) / 1000)


def device_env(uuid: str | None, index: int) -> tuple[EnvLine, ...]:
    if uuid:
        return (EnvLine("CUDA_VISIBLE_DEVICES", uuid, "this job sees only this GPU (as device 0)"),)
    # CUDA numbers GPUs fastest first unless told otherwise; nvidia-smi numbers them by PCI bus.
    return (
        EnvLine("CUDA_DEVICE_ORDER", "PCI_BUS_ID", "number GPUs as nvidia-smi does"),
        EnvLine("CUDA_VISIBLE_DEVICES", str(index), "this job sees only this GPU (as device 0)"),
    )


def _torch(budget: int, total: int) -> tuple[tuple[EnvLine, ...], str]:
    f = fraction(budget, total)
    env = (
        EnvLine(
            "PYTORCH_CUDA_ALLOC_CONF",
            f"per_process_memory_fraction:{f}",
            "torch >= 2.10 only; older releases stop on it: use the code",
            active=False,
        ),
    )
    code = (
        "import torch\n"
        f"# Cap PyTorch's allocator at {f} of the GPU ({f * total / GIB:.2f} GiB); before the first CUDA tensor.\n"
        f"torch.cuda.set_per_process_memory_fraction({f}, device=0)\n"
    )
    return env, code


def _tensorflow(budget: int, total: int) -> tuple[tuple[EnvLine, ...], str]:
    limit = max(1, budget // MIB)
    env = (EnvLine("TF_FORCE_GPU_ALLOW_GROWTH", "true", "start small instead of mapping the whole GPU"),)
    code = (
        "import tensorflow as tf\n"
        f"# Cap TensorFlow at {limit} MiB on the one GPU this job sees; before any GPU work.\n"
        'gpus = tf.config.list_physical_devices("GPU")\n'
        f"tf.config.set_logical_device_configuration(gpus[0], [tf.config.LogicalDeviceConfiguration(memory_limit={limit})])\n"
    )
    return env, code


def _jax(budget: int, total: int) -> tuple[tuple[EnvLine, ...], str]:
    f = fraction(budget, total)
    env = (
        EnvLine("XLA_PYTHON_CLIENT_MEM_FRACTION", str(f), "JAX reserves this share of the GPU at its first operation"),
        EnvLine("XLA_PYTHON_CLIENT_PREALLOCATE", "false", "or: allocate on demand instead (more fragmentation)", active=False),
    )
    code = (
        "import os\n"
        "# Before the first `import jax`: JAX reads this once.\n"
        f'os.environ["XLA_PYTHON_CLIENT_MEM_FRACTION"] = "{f}"\n'
        "import jax\n"
    )
    return env, code


_BUILDERS = {"torch": _torch, "tensorflow": _tensorflow, "jax": _jax}
_CONTROLS = {
    "torch": ("torch.cuda.set_per_process_memory_fraction", "PYTORCH_CUDA_ALLOC_CONF:per_process_memory_fraction"),
    "tensorflow": ("tf.config.set_logical_device_configuration", "TF_FORCE_GPU_ALLOW_GROWTH"),
    "jax": ("XLA_PYTHON_CLIENT_MEM_FRACTION", "XLA_PYTHON_CLIENT_PREALLOCATE"),
}


def control_sources(framework: str, matrix: Any) -> tuple[str, ...]:
    """The matrix source keys behind a framework's controls; a control missing from the matrix is a bug here."""
    settings = matrix.memory_setting(_MATRIX[framework])
    keys: list[str] = []
    for name in _CONTROLS[framework]:
        control = settings.control(name) if settings else None
        if control is None:
            raise LookupError(f"compat_matrix/memory_settings.toml has no control {name!r} for {framework}")
        keys += [k for k in control.source if k not in keys]
    return tuple(keys)


def job_settings(framework: str, budget: int, total: int, uuid: str | None, index: int, matrix: Any = None) -> JobSettings:
    """The settings for one job; `framework` is torch, tensorflow, jax, any (not named) or other."""
    env = list(device_env(uuid, index))
    snippets: list[tuple[str, str]] = []
    sources: list[str] = []
    wanted = ("torch", "tensorflow", "jax") if framework == "any" else (framework,)
    note = None
    for fw in wanted:
        if fw not in _BUILDERS:
            note = "No software cap is known for this program: give it a MIG instance (--isolate) or use its own memory option."
            continue
        fw_env, code = _BUILDERS[fw](budget, total)
        env += fw_env
        snippets.append((fw, code))
        if matrix is not None:
            sources += [k for k in control_sources(fw, matrix) if k not in sources]
    if framework == "any":
        note = "Framework not named (name=SIZE:torch|tensorflow|jax): every framework's settings are given; each ignores the others'."
    return JobSettings(tuple(env), tuple(snippets), tuple(sources), note)
