"""GPUs whose architecture NVIDIA's current drivers no longer drive: each such architecture's last driver is a legacy
branch (compat_matrix/gpu_arch.toml arch.last_driver: 340.xx for compute capability 1.x, 390.xx for Fermi, 470.xx for
Kepler; NVIDIA's legacy driver lists, http://www.nvidia.com/object/IO_32667.html). A driver floor above that branch
cannot be met on such a GPU: "upgrade the driver" is then no fix, and a floor within it must stay on that branch."""

from __future__ import annotations

import dataclasses

from gpudoctor.model import Remediation
from gpudoctor.planner.context import Context, gpu_cc

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gpudoctor.facts import Facts


@dataclasses.dataclass(frozen=True)
class LegacyGpu:
    """A GPU of the machine on a legacy driver branch: its name, compute capability, architecture, and that branch."""

    name: str
    cc: str
    arch: str
    last_driver: int
    last_cuda: str

    def beyond(self, floor: str) -> bool:
        """Whether a driver floor ("411.31") is above this GPU's last branch (no driver for the GPU reaches it)."""
        head = floor.split(".", 1)[0]
        return head.isdigit() and int(head) > self.last_driver

    @property
    def said(self) -> str:
        return (
            f"the {self.name} ({self.arch} architecture, compute capability {self.cc}) was last supported by NVIDIA's "
            f"{self.last_driver}.xx legacy driver branch, which runs CUDA {self.last_cuda} at most"
        )


def legacy_gpu(facts: Facts, ctx: Context) -> LegacyGpu | None:
    """The machine's GPU on the oldest legacy branch, where one is known (its name or NVML's compute capability); None
    where every GPU shown is still driven by current drivers, or none is shown."""
    found: list[LegacyGpu] = []
    for g in facts.driver.gpus:
        cc = gpu_cc(g, ctx)
        arch = ctx.matrix.arch(cc) if cc else None
        if cc and arch is not None and arch.last_driver and arch.last_driver_cuda:
            found.append(
                LegacyGpu(g.name or f"GPU of compute capability {cc}", cc, arch.name, arch.last_driver, arch.last_driver_cuda)
            )
    return min(found, key=lambda x: x.last_driver) if found else None


def no_driver_remedy(old: LegacyGpu) -> Remediation:
    """The one remedy where no driver for the GPU can give the program what it needs (the finding says what: a driver
    floor, a driver function, a toolkit that no longer targets the GPU): the CPU, or a GPU current drivers support.
    Nothing is installed; the same words from each finding, so the plan says it once."""
    said = old.said[0].upper() + old.said[1:]
    return Remediation(
        f"{said}: no newer driver exists for it. Nothing installed on this machine makes the {old.name} run a current "
        "CUDA program: use the program's CPU build here, or a GPU that current drivers support (Maxwell, compute "
        "capability 5.0, or newer) with a current driver.",
        (),
        component="gpu",
    )
