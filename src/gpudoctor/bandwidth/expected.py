"""What a link should give: theoretical and practical copy bandwidth per direction. Pure math on matrix figures.

- PCIe: theoretical = line rate (GT/s) x encoding efficiency / 8 x lanes, in GB/s (10^9 bytes/s)
  per direction; Gen3 x16 is 15.75, Gen4 x16 31.5, Gen5 x16 63.0. The practical figure is the
  share of that a healthy system's copy engine reaches with pinned memory and large transfers
  (about 0.80-0.88; TLP headers and flow control take the rest), with a low and high bound from
  published measurements. All of it comes from the compatibility matrix (link_bandwidth.toml).
- NVLink-C2C (GH200, GB200): the CPU and GPU share a coherent 900 GB/s (both directions) link,
  450 GB/s each way; the matrix gives what nvbandwidth measures on GH200.

The one place figures enter is `load_link_table()`; everything else takes a `LinkTable`.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping

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


def pcie_theoretical_gb_per_s(rate_gt_s: float, efficiency: float, width: int) -> float:
    """Per direction: each lane carries rate x efficiency bits per second; 8 bits a byte."""
    return rate_gt_s * efficiency / 8.0 * width


@dataclass(frozen=True)
class _PcieRow:
    gen: int
    rate_gt_s: float
    efficiency: float
    practical_share: float | None
    practical_share_low: float | None
    practical_share_high: float | None
    sources: tuple[str, ...]


@dataclass(frozen=True)
class _C2cRow:
    name: str
    systems: tuple[str, ...]
    bidirectional_gb_per_s: float
    practical_gb_per_s: float | None
    practical_low: float | None
    practical_high: float | None
    sources: tuple[str, ...]


class LinkTable:
    """Link figures: PCIe by generation and width, NVLink-C2C by system, and the judging thresholds."""

    def __init__(
        self,
        pcie_rows: dict[int, _PcieRow],
        c2c_rows: tuple[_C2cRow, ...],
        thresholds: dict[str, tuple[float, tuple[str, ...]]],
        matrix_link: Callable[[int, int], Any] | None = None,
    ) -> None:
        self._pcie = pcie_rows
        self._c2c = c2c_rows
        self._thresholds = thresholds
        # Matrix.link(gen, width) where gpudoctor.matrix offers it: its theoretical and practical
        # figures then win, so that `gpudoctor matrix show link` and this benchmark cannot disagree.
        self._matrix_link = matrix_link

    def pcie(self, gen: int, width: int) -> LinkSpec | None:
        """PCIe GenN xW; None for a generation the matrix does not know."""
        row = self._pcie.get(gen)
        if row is None or width <= 0:
            return None
        theoretical = pcie_theoretical_gb_per_s(row.rate_gt_s, row.efficiency, width)
        practical = theoretical * row.practical_share if row.practical_share else None
        sources = row.sources
        if self._matrix_link is not None:
            try:
                spec = self._matrix_link(gen, width)
            except (LookupError, ValueError):
                spec = None
            if spec is not None:
                theoretical = float(spec.theoretical_gb_per_s)
                matrix_practical = getattr(spec, "practical_gb_per_s", None)
                practical = float(matrix_practical) if matrix_practical is not None else practical
                sources = tuple(getattr(spec, "sources", ()) or sources)
        return LinkSpec(
            label=f"PCIe Gen{gen} x{width}",
            kind="pcie",
            theoretical_gb_per_s=theoretical,
            practical_gb_per_s=practical,
            practical_low_gb_per_s=theoretical * row.practical_share_low if row.practical_share_low else None,
            practical_high_gb_per_s=theoretical * row.practical_share_high if row.practical_share_high else None,
            sources=sources,
            gen=gen,
            width=width,
        )

    def c2c_for(self, gpu_name: str | None) -> LinkSpec | None:
        """The NVLink-C2C link of a Grace system whose GPU name names it (GH200, GB200); else None."""
        if not gpu_name:
            return None
        upper = gpu_name.upper()
        for row in self._c2c:
            if any(re.search(rf"\b{re.escape(system.upper())}\b", upper) for system in row.systems):
                return LinkSpec(
                    label=row.name,
                    kind="c2c",
                    theoretical_gb_per_s=row.bidirectional_gb_per_s / 2.0,
                    practical_gb_per_s=row.practical_gb_per_s,
                    practical_low_gb_per_s=row.practical_low,
                    practical_high_gb_per_s=row.practical_high,
                    sources=row.sources,
                )
        return None

    def threshold(self, name: str) -> float:
        return self._thresholds[name][0]

    def threshold_sources(self, name: str) -> tuple[str, ...]:
        return self._thresholds[name][1]


def _sources(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    return tuple(str(v) for v in value)


def _opt_float(row: Mapping[str, Any], key: str) -> float | None:
    value = row.get(key)
    return float(value) if value is not None else None


def parse_link_table(data: Mapping[str, Any], where: str = PCIE_FILE) -> LinkTable:
    """Build a LinkTable from link_bandwidth.toml's data; MatrixError naming every problem."""
    problems: list[str] = []
    pcie: dict[int, _PcieRow] = {}
    for i, row in enumerate(data.get("pcie") or ()):
        try:
            pcie[int(row["gen"])] = _PcieRow(
                gen=int(row["gen"]),
                rate_gt_s=float(row["rate_gt_s"]),
                efficiency=float(row["efficiency"]),
                practical_share=_opt_float(row, "practical_share"),
                practical_share_low=_opt_float(row, "practical_share_low"),
                practical_share_high=_opt_float(row, "practical_share_high"),
                sources=_sources(row.get("source")),
            )
        except (KeyError, TypeError, ValueError) as exc:
            problems.append(f"{where}: pcie[{i}]: {type(exc).__name__}: {exc}")
    c2c: list[_C2cRow] = []
    for i, row in enumerate(data.get("c2c") or ()):
        try:
            c2c.append(
                _C2cRow(
                    name=str(row["name"]),
                    systems=tuple(str(s) for s in row["systems"]),
                    bidirectional_gb_per_s=float(row["bidirectional_gb_per_s"]),
                    practical_gb_per_s=_opt_float(row, "practical_gb_per_s"),
                    practical_low=_opt_float(row, "practical_low"),
                    practical_high=_opt_float(row, "practical_high"),
                    sources=_sources(row.get("source")),
                )
            )
        except (KeyError, TypeError, ValueError) as exc:
            problems.append(f"{where}: c2c[{i}]: {type(exc).__name__}: {exc}")
    thresholds = {}
    for row in data.get("threshold") or ():
        try:
            thresholds[str(row["name"])] = (float(row["value"]), _sources(row.get("source")))
        except (KeyError, TypeError, ValueError) as exc:
            problems.append(f"{where}: threshold: {type(exc).__name__}: {exc}")
    for needed in ("suspicious_below_share", "pageable_share_low", "pageable_share_high"):
        if needed not in thresholds:
            problems.append(f"{where}: threshold {needed!r} is missing")
    if not pcie:
        problems.append(f"{where}: no pcie rows")
    if problems:
        raise MatrixError(problems)
    return LinkTable(pcie, tuple(c2c), thresholds)


@functools.lru_cache(maxsize=4)
def load_link_table(matrix_dir: str | None = None) -> LinkTable:
    """The link figures from the compatibility matrix (bundled, or the directory given with --matrix).

    Reads link_bandwidth.toml; where `gpudoctor.matrix` offers `Matrix.link(gen, width)`, PCIe
    theoretical and practical figures are taken from it instead.
    """
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]

    if matrix_dir:
        from pathlib import Path

        path = Path(matrix_dir)
        path = path if path.is_file() else path / PCIE_FILE
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise MatrixError([f"{path}: {exc.strerror or exc}"]) from None
        where = str(path)
    else:
        from importlib.resources import files

        text = files("gpudoctor.compat_matrix").joinpath(PCIE_FILE).read_text(encoding="utf-8")
        where = PCIE_FILE
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise MatrixError([f"{where}: {exc}"]) from None
    table = parse_link_table(data, where)
    table._matrix_link = _matrix_link(matrix_dir)
    return table


def _matrix_link(matrix_dir: str | None) -> Callable[[int, int], Any] | None:
    try:
        from gpudoctor.matrix import load_matrix  # being written alongside; absent until then
    except ImportError:
        return None
    link = getattr(load_matrix(matrix_dir), "link", None)
    return link if callable(link) else None


@dataclass(frozen=True)
class Expectation:
    """What one GPU's host link should give: the link at its maximum, and as it trained."""

    best: LinkSpec | None  # the link it should run at: PCIe max gen and width, or NVLink-C2C
    trained: LinkSpec | None  # the PCIe link it actually ran at (under load where read), if it differs

    @property
    def judged(self) -> LinkSpec | None:
        return self.best


def expectation_for(table: LinkTable, name: str | None, gen_max: int | None, width_max: int | None,
                    gen_now: int | None, width_now: int | None) -> Expectation:
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
