"""What a link should give: theoretical and practical copy bandwidth per direction. Pure math on matrix figures.

- PCIe: theoretical = line rate (GT/s) x encoding efficiency / 8 x lanes, in GB/s (10^9 bytes/s)
  per direction; Gen3 x16 is 15.75, Gen4 x16 31.5, Gen5 x16 63.0. The practical figure is the
  share of that a healthy system's copy engine reaches with pinned memory and large transfers
  (about 0.80-0.88; TLP headers and flow control take the rest), with a low and high bound from
  published measurements. All of it comes from the compatibility matrix (link_bandwidth.toml,
  read through `gpudoctor.matrix`).
- NVLink-C2C (GH200, GB200): the CPU and GPU share a coherent 900 GB/s (both directions) link,
  450 GB/s each way; the matrix gives what nvbandwidth measures on GH200.

The one place figures enter is `load_link_table()`; everything else takes a `LinkTable`. GPUs
lower their PCIe generation at idle to save power, so the link a GPU "should" run at is its
maximum, and the link it "did" run at is the one read under load.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

from gpudoctor.errors import MatrixError

PCIE_FILE = "link_bandwidth.toml"


@dataclass(frozen=True)
class LinkSpec:
    """A link and what copies over it should reach, per direction, in GB/s."""

    label: str  # "PCIe Gen4 x16", "NVLink-C2C (GH200)"
    kind: str  # pcie or c2c
    theoretical_gb_per_s: float
    practical_gb_per_s: float | None = None  # typical healthy figure; None where nothing was measured
    practical_low_gb_per_s: float | None = None  # the lowest a healthy system was seen to give
    practical_high_gb_per_s: float | None = None
    sources: tuple[str, ...] = ()
    gen: int | None = None
    width: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "kind": self.kind,
            "gen": self.gen,
            "width": self.width,
            "theoretical_gb_per_s": round(self.theoretical_gb_per_s, 3),
            "practical_gb_per_s": _r(self.practical_gb_per_s),
            "practical_low_gb_per_s": _r(self.practical_low_gb_per_s),
            "practical_high_gb_per_s": _r(self.practical_high_gb_per_s),
            "sources": list(self.sources),
        }


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


class LinkTable:
    """Link figures from the compatibility matrix: PCIe by generation and width, NVLink-C2C by system, thresholds.

    A thin view of `gpudoctor.matrix.Matrix` (its `link`, `c2c`, `c2c_link` and `link_threshold`),
    so judging code sees only this module's LinkSpec and plain numbers.
    """

    def __init__(self, matrix: Any) -> None:
        self._matrix = matrix

    def pcie(self, gen: int, width: int) -> LinkSpec | None:
        """PCIe GenN xW; None for a generation the matrix does not know."""
        return _spec(self._matrix.link(gen, width), "pcie")

    def c2c_for(self, gpu_name: str | None) -> LinkSpec | None:
        """The NVLink-C2C link of a Grace system whose GPU name names it (GH200, GB200); else None."""
        if not gpu_name:
            return None
        upper = gpu_name.upper()
        for row in getattr(self._matrix, "c2c", ()):
            for system in row.systems:
                if re.search(rf"(?<![A-Z0-9]){re.escape(system.upper())}(?![A-Z0-9])", upper):
                    return _spec(self._matrix.c2c_link(system), "c2c")
        return None

    def threshold(self, name: str) -> float:
        row = self._matrix.link_threshold(name)
        if row is None:
            raise MatrixError([f"{PCIE_FILE}: threshold {name!r} is missing"])
        return float(row.value)

    def threshold_sources(self, name: str) -> tuple[str, ...]:
        row = self._matrix.link_threshold(name)
        return tuple(row.source) if row is not None else ()


def _spec(record: Any, kind: str) -> LinkSpec | None:
    if record is None:
        return None
    return LinkSpec(
        label=str(record.name),
        kind=kind,
        theoretical_gb_per_s=float(record.theoretical_gb_per_s),
        practical_gb_per_s=record.practical_gb_per_s,
        practical_low_gb_per_s=record.practical_low_gb_per_s,
        practical_high_gb_per_s=record.practical_high_gb_per_s,
        sources=tuple(record.source),
        gen=record.gen,
        width=record.width,
    )


@functools.lru_cache(maxsize=4)
def load_link_table(matrix_path: str | None = None) -> LinkTable:
    """The one place link figures come from: the compatibility matrix (bundled, or --matrix DIR/FILE)."""
    from gpudoctor.matrix import load_matrix

    return LinkTable(load_matrix(matrix_path))


@dataclass(frozen=True)
class Expectation:
    """What one GPU's host link should give: the link at its maximum, and as it trained."""

    best: LinkSpec | None  # the link it should run at: PCIe max gen and width, or NVLink-C2C
    trained: LinkSpec | None  # the PCIe link it actually ran at (under load where read), if it differs

    @property
    def judged(self) -> LinkSpec | None:
        return self.best


def expectation_for(
    table: LinkTable, name: str | None, gen_max: int | None, width_max: int | None, gen_now: int | None, width_now: int | None
) -> Expectation:
    """The expected link of a GPU from its name (Grace systems) and its PCIe generation and width."""
    c2c = table.c2c_for(name)
    if c2c is not None:
        return Expectation(c2c, None)
    best = table.pcie(gen_max, width_max) if gen_max and width_max else None
    trained = None
    if gen_now and width_now and (gen_now, width_now) != (gen_max, width_max):
        trained = table.pcie(gen_now, width_now)
    return Expectation(best, trained)


def expected_for_test(spec: LinkSpec | None, test: str) -> tuple[float | None, float | None]:
    """(theoretical, practical) GB/s for one test over `spec`; (None, None) where the host link does not bound it.

    Pinned copies are judged against the link. Bidirectional copies can reach twice the one-way
    theoretical figure (PCIe is full duplex); no practical figure is claimed for them. Device to
    device and peer copies do not cross the host link.
    """
    if spec is None:
        return None, None
    if test in ("h2d", "d2h", "h2d-pageable", "d2h-pageable"):
        practical = spec.practical_gb_per_s if test in ("h2d", "d2h") else None
        return spec.theoretical_gb_per_s, practical
    if test == "bidir":
        return 2 * spec.theoretical_gb_per_s, None
    return None, None
