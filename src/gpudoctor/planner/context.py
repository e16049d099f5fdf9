"""What the rules and the planner consult beside the facts: the matrix (loaded on first use) and settings."""

from __future__ import annotations

import functools

# typing's constant without typing: a bare check imports this module (bench/README.md, h161)
TYPE_CHECKING = False
if TYPE_CHECKING:  # (a check builds its Context before the probes start, and the facts' types after: pipeline.check)
    from typing import Any

    from gpudoctor.facts import Gpu


class Context:
    """What checks may consult beside the facts: the matrix (loaded on first use) and settings; and the
    planner's choices made so far (`choices`), so that a choice several rules ask for, and `fix`'s offers
    after them, is made once per check (gpudoctor.checks.frameworks.framework_plan)."""

    def __init__(self, matrix_path: str | None = None, memory_held_share: float = 0.25) -> None:
        self._matrix_path = matrix_path
        self.memory_held_share = memory_held_share
        self.choices: dict[Any, Any] = {}

    @functools.cached_property
    def matrix(self):  # -> gpudoctor.matrix.Matrix
        from gpudoctor.matrix import load_matrix

        return load_matrix(self._matrix_path)


def gpu_cc(gpu: Gpu, ctx: Context) -> str | None:
    """A GPU's compute capability: NVML's, else the matrix's entry for its name."""
    if gpu.compute_capability:
        return gpu.compute_capability
    return ctx.matrix.compute_capability_for_gpu(gpu.name) if gpu.name else None
