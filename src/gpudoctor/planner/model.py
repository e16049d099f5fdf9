"""The plan as plain data: the machine it was made for, the builds judged, the steps to run."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gpudoctor.cmdline import Cmd

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
    # What the commands name when no environment was seen: the platform's usual interpreter (remedy.python_exe).
    placeholder: str = "python3"

    def describe(self) -> str:
        if not self.python:
            return "no Python environment seen"
        managed = ", uv-managed" if self.uv else ""
        return f"Python {self.version or '?'} at {self.python} ({self.kind}{managed})"


@dataclass(frozen=True)
class Target:
    """What the person says about the machine the build is for, where the probes saw no GPU or driver
    (or the build is for another machine): `gpu` a name or a compute capability, `driver` its version,
    `cuda` the newest CUDA the driver runs (nvidia-smi's header), `cpu` a CPU-only build."""

    gpu: str | None = None
    driver: str | None = None
    cuda: str | None = None
    cpu: bool = False

    def __bool__(self) -> bool:
        return bool(self.gpu or self.driver or self.cuda or self.cpu)

    def options(self) -> tuple[str, ...]:
        return tuple(f"--{k} {v}" for k, v in (("gpu", self.gpu), ("driver", self.driver), ("cuda", self.cuda)) if v) + (
            ("--cpu",) if self.cpu else ()
        )


@dataclass(frozen=True)
class Machine:
    """What the choice depends on, read from the facts once (and what the person told, `told`)."""

    os: str  # linux, windows, macos
    arch: str  # x86_64, aarch64, AMD64
    driver: str | None
    driver_cuda: str | None  # the newest CUDA this driver runs fully
    gpus: tuple[GpuInfo, ...]
    env: TargetEnv
    installed: dict[str, str] = field(default_factory=dict)  # relevant distributions -> version
    told: tuple[str, ...] = ()  # the options that described the target instead of the probes: ("--gpu 8.9",)
    cpu: bool = False  # a CPU-only build was asked for (--cpu)
    # Companions whose wheel pins one torch exactly (vLLM's Requires-Dist torch==X): (name, its version, that torch).
    pins: tuple[tuple[str, str, str], ...] = ()
    # Whether the environment's package list was seen whole: a companion not in `installed` is then absent. A paste
    # that showed no `pip list` (or no environment at all) leaves them unknown: gpudoctor.planner.pick_torch.carried.
    listed: bool = True

    @property
    def python(self) -> str | None:
        return self.env.version

    def describe(self) -> str:
        if self.driver:
            driver = f"driver {self.driver} (runs CUDA up to {self.driver_cuda or '?'})"
        elif self.driver_cuda:
            driver = f"a driver that runs CUDA up to {self.driver_cuda} (its version unknown)"
        else:
            driver = "no NVIDIA driver seen"
        gpus = "; ".join(g.describe() for g in self.gpus) or "no GPU seen"
        told = f"; as told: {' '.join(self.told)}" if self.told else ""
        return f"{self.os} {self.arch}; {driver}; {gpus}; {self.env.describe()}{told}"


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
    cuda: str | None  # the CUDA version the driver must run; None for a CPU build
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

    @property
    def cmd(self) -> Cmd:
        return Cmd(self.argv)


@dataclass(frozen=True)
class Change:
    """What the plan does to the installed framework, named: install, upgrade, downgrade, switch (the same
    release, another build or patch), reinstall (the same version). `major` lines call out a jump whose
    code changes (PyTorch 1 -> 2, TensorFlow across 2.16 and Keras 3)."""

    kind: str
    distribution: str
    before: str | None  # the installed version; None for a first install
    after: str  # the version installed: exact ("2.2.1+cu118") or the range pip chooses in ("2.5.*")
    major: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        if self.kind == "install":
            return f"install {self.distribution} {self.after}"
        if self.kind == "reinstall":
            return f"reinstall {self.distribution} {self.before} (same version)" + (
                f" as {self.after}" if self.after != self.before else ""
            )
        return f"{self.kind} {self.distribution} {self.before} -> {self.after}"

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "distribution": self.distribution,
            "from": self.before,
            "to": self.after,
            "text": self.text,
            "major": list(self.major),
        }


@dataclass(frozen=True)
class Online:
    """Whether the package index was seen to hold a wheel of the chosen build for this Python, OS and
    architecture: `status` confirmed, missing (the index answered without one) or unconfirmed."""

    status: str
    text: str
    index: str | None = None
    files: tuple[str, ...] = ()  # the matching wheel file names (a few)

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "text": self.text, "index": self.index, "files": list(self.files)}


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
    undo: tuple[Cmd, ...] = ()  # how to go back to what was installed before
    change: Change | None = None  # what the steps do to the installed framework
    online: Online | None = None  # the package index's word on the chosen wheel (None: not asked)
    # What moves with the framework (pick_torch.companion_moves): sentences, and the commands that follow the install
    # (cmdline lines: a companion built against the new torch, which must be installed first).
    companions: tuple[str, ...] = ()
    after: tuple[Any, ...] = ()

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
                "told": list(m.told),
                "cpu": m.cpu,
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
            "undo": [u.to_json() for u in self.undo],
            "change": self.change.to_json() if self.change else None,
            "online": self.online.to_json() if self.online else None,
            "companions": list(self.companions),
            "after": [c.to_json() for c in self.after],
        }
