"""The plan as plain data: the machine it was made for, the builds judged, the steps to run."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

TITLES = {"torch": "PyTorch", "tensorflow": "TensorFlow", "jax": "JAX"}


@dataclass(frozen=True)
class GpuInfo:
    index: int
    name: str
    cc: str | None  # "12.0"; None when neither NVML nor the matrix knows it
    arch: str | None = None  # "Blackwell"

    @property
    def sm(self) -> str:
        return f"sm_{self.cc.replace('.', '')}" if self.cc else "sm_?"

    def describe(self) -> str:
        what = ", ".join(x for x in (self.sm if self.cc else "compute capability unknown", self.arch) if x)
        return f"GPU {self.index} {self.name} ({what})"


@dataclass(frozen=True)
class TargetEnv:
    """The Python environment to install into, and which installers manage it."""

    python: str | None  # its interpreter; None when no environment was seen
    version: str | None  # "3.11.7"
    kind: str = "unknown"  # venv, conda, system, unknown
    prefix: str | None = None
    chosen_by: str = ""  # --python, VIRTUAL_ENV, CONDA_PREFIX, PATH, the snapshot
    has_pip: bool = False
    uv: str | None = None  # the uv executable, when uv manages this environment

    def describe(self) -> str:
        if not self.python:
            return "no Python environment seen"
        managed = ", uv-managed" if self.uv else ""
        return f"Python {self.version or '?'} at {self.python} ({self.kind}{managed})"


@dataclass(frozen=True)
class Machine:
    """What the choice depends on, read from the facts once."""

    os: str  # linux, windows, macos
    arch: str  # x86_64, aarch64, AMD64
    driver: str | None
    driver_cuda: str | None  # the newest CUDA this driver runs fully
    gpus: tuple[GpuInfo, ...]
    env: TargetEnv
    installed: dict[str, str] = field(default_factory=dict)  # relevant distributions -> version

    @property
    def python(self) -> str | None:
        return self.env.version

    def describe(self) -> str:
        driver = f"driver {self.driver} (runs CUDA up to {self.driver_cuda or '?'})" if self.driver else "no NVIDIA driver seen"
        gpus = "; ".join(g.describe() for g in self.gpus) or "no GPU seen"
        return f"{self.os} {self.arch}; {driver}; {gpus}; {self.env.describe()}"


@dataclass(frozen=True)
class Judgement:
    """One rule applied to one build: `ok`, and `note` when it holds only with a caveat worth saying."""

    topic: str  # python, os, driver, gpu, libraries
    ok: bool
    text: str
    note: bool = False
    needs: str | None = None  # driver: the driver version that would make it pass


@dataclass(frozen=True)
class Build:
    """One installable build of a framework, as the matrix describes it."""

    framework: str
    release: str  # the matrix row: "2.11", "2.21", "0.6.0"
    variant: str  # cu128, and-cuda, cuda12, ...
    cuda: str | None  # the CUDA version the driver must run
    specs: tuple[str, ...]  # pip requirement strings: ("torch==2.11.*",)
    index_url: str | None = None
    find_links: str | None = None
    experimental: bool = False
    default: bool = False  # the variant a plain `pip install` from PyPI gets (PyTorch)
    sources: tuple[str, ...] = ()
    pin: str | None = None  # the version range installed, as people say it: "2.11.*", "0.6.x"

    @property
    def label(self) -> str:
        # A JAX row covers a range of releases: say which range gets installed.
        shown = self.pin.removeprefix("==") if self.framework == "jax" and self.pin else self.release
        return f"{TITLES[self.framework]} {shown} ({self.variant})"


@dataclass(frozen=True)
class Candidate:
    build: Build
    judgements: tuple[Judgement, ...]

    @property
    def fits(self) -> bool:
        return all(j.ok for j in self.judgements)

    def failures(self, ignore: tuple[str, ...] = ()) -> tuple[Judgement, ...]:
        return tuple(j for j in self.judgements if not j.ok and j.topic not in ignore)

    def notes(self) -> tuple[Judgement, ...]:
        return tuple(j for j in self.judgements if j.ok and j.note)


@dataclass(frozen=True)
class Step:
    """One command gpudoctor runs, as an argument list (never a shell line), and why."""

    argv: tuple[str, ...]
    why: str


@dataclass(frozen=True)
class Plan:
    framework: str
    requested: str | None
    machine: Machine
    chosen: Candidate | None
    reasons: tuple[str, ...] = ()  # why the chosen build, beyond its judgements
    ruled_out: tuple[Candidate, ...] = ()  # newer builds (or the asked release's other builds) that do not fit
    steps: tuple[Step, ...] = ()
    installer: str = "pip"  # pip or uv: what runs the steps
    equivalents: tuple[tuple[str, tuple[tuple[str, ...], ...]], ...] = ()  # (uv|pip|conda, argvs): printed only
    manual: tuple[str, ...] = ()  # what the user must do besides, which gpudoctor does not do
    notes: tuple[str, ...] = ()
    instead: Candidate | None = None  # the request does not fit: the newest build that does
    upgrade: tuple[str, ...] = ()  # what a newer driver, or another Python, would open
    already: bool = False  # the chosen build is installed already: nothing to run
    undo: tuple[str, ...] = ()  # how to go back to what was installed before

    @property
    def title(self) -> str:
        return TITLES[self.framework]

    @property
    def fits(self) -> bool:
        return self.chosen is not None

    def to_json(self) -> dict[str, Any]:
        def cand(c: Candidate | None) -> dict[str, Any] | None:
            if c is None:
                return None
            b = c.build
            return {
                "framework": b.framework,
                "release": b.release,
                "variant": b.variant,
                "cuda": b.cuda,
                "specs": list(b.specs),
                "index_url": b.index_url,
                "find_links": b.find_links,
                "fits": c.fits,
                "judgements": [
                    {"topic": j.topic, "ok": j.ok, "note": j.note, "text": j.text, **({"needs": j.needs} if j.needs else {})}
                    for j in c.judgements
                ],
                "sources": list(b.sources),
            }

        m = self.machine
        return {
            "framework": self.framework,
            "requested": self.requested,
            "machine": {
                "os": m.os,
                "arch": m.arch,
                "driver": m.driver,
                "driver_cuda": m.driver_cuda,
                "gpus": [{"index": g.index, "name": g.name, "compute_capability": g.cc, "architecture": g.arch} for g in m.gpus],
                "python": {
                    "executable": m.env.python,
                    "version": m.env.version,
                    "kind": m.env.kind,
                    "chosen_by": m.env.chosen_by,
                    "uv": m.env.uv,
                },
            },
            "fits": self.fits,
            "chosen": cand(self.chosen),
            "reasons": list(self.reasons),
            "ruled_out": [cand(c) for c in self.ruled_out],
            "installer": self.installer,
            "steps": [{"argv": list(s.argv), "why": s.why} for s in self.steps],
            "equivalents": {name: [list(a) for a in argvs] for name, argvs in self.equivalents},
            "manual": list(self.manual),
            "notes": list(self.notes),
            "instead": cand(self.instead),
            "upgrade": list(self.upgrade),
            "already_installed": self.already,
            "undo": list(self.undo),
        }
