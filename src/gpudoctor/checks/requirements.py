"""Requirements a job states on the command line (`gpudoctor check --require SPEC`), and their verdicts.

A spec is a name, optionally followed by a condition:

    gpu                        at least one GPU is visible
    gpus>=2                    how many GPUs are visible (CUDA_VISIBLE_DEVICES applied)
    driver>=535                the NVIDIA driver version
    cuda>=12.1                 the newest CUDA version the driver supports (not the toolkit)
    compute-capability>=8.0    every visible GPU (alias: cc)
    gpu-memory>=40GiB          every visible GPU's total memory
    gpu-memory-free>=20GiB     every visible GPU's free memory, now
    torch>=2.3                 an installed distribution (also tensorflow, jax, jaxlib)
    torch:cuda                 a CUDA build of PyTorch that can use this GPU
    tensorflow:gpu             a GPU build of TensorFlow that can use this GPU (alias tensorflow:cuda)
    jax:cuda                   JAX with its CUDA plugin, on a GPU (alias jax:gpu)
    bf16                       every visible GPU runs BF16 in hardware (also tf32, fp8)

Versions and counts are compared with `packaging` specifiers (`>=`, `==`, `<`,
`~=`, `!=`, ..., combined with commas: `torch>=2.3,<3`); sizes take a unit
(B, KB, MB, GB, TB: powers of 1000; KiB, MiB, GiB, TiB: powers of 1024).
A spec that cannot be parsed raises `RequirementSyntaxError`, which the CLI
turns into a usage error (exit 2). Requirements that cannot be verified (no
driver to ask, a build that cannot be read) are unmet: a preflight fails closed.

Pure: judged on Facts, the report's findings, and the compatibility matrix.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from gpudoctor.cmdline import Cmd, Placeholder
from gpudoctor.facts import Facts, Gpu
from gpudoctor.host.nvml import NAMED_IN_TEXT
from gpudoctor.model import Evidence, Finding, Remediation, Severity
from gpudoctor.probed import Found

CODE = "requirement-unmet"

# name -> (kind, subject, what the condition compares)
_NAMES: dict[str, tuple[str, str]] = {
    "gpu": ("gpu", ""),
    "gpus": ("gpus", ""),
    "driver": ("driver", ""),
    "cuda": ("cuda", ""),
    "compute-capability": ("cc", ""),
    "cc": ("cc", ""),
    "gpu-memory": ("memory", "total"),
    "gpu-memory-total": ("memory", "total"),
    "gpu-memory-free": ("memory", "free"),
    "torch": ("package", "torch"),
    "tensorflow": ("package", "tensorflow"),
    "jax": ("package", "jax"),
    "jaxlib": ("package", "jaxlib"),
    "torch:cuda": ("build", "torch"),
    "tensorflow:gpu": ("build", "tensorflow"),
    "tensorflow:cuda": ("build", "tensorflow"),
    "jax:cuda": ("build", "jax"),
    "jax:gpu": ("build", "jax"),
    "bf16": ("precision", "bf16"),
    "tf32": ("precision", "tf32"),
    "fp8": ("precision", "fp8"),
}
# Names documented in messages (aliases left out).
KNOWN = (
    "gpu",
    "gpus",
    "driver",
    "cuda",
    "compute-capability",
    "gpu-memory",
    "gpu-memory-free",
    "torch",
    "tensorflow",
    "jax",
    "torch:cuda",
    "tensorflow:gpu",
    "jax:cuda",
    "bf16",
)
_NO_CONDITION = ("gpu", "build", "precision")
_NEEDS_CONDITION = ("memory",)

_AREA = {
    "gpu": "gpu",
    "gpus": "gpu",
    "cc": "gpu",
    "precision": "gpu",
    "driver": "driver",
    "cuda": "driver",
    "memory": "memory",
    "package": "frameworks",
    "build": "frameworks",
}

_UNITS = {
    "b": 1,
    "kb": 1000,
    "mb": 1000**2,
    "gb": 1000**3,
    "tb": 1000**4,
    "kib": 1024,
    "mib": 1024**2,
    "gib": 1024**3,
    "tib": 1024**4,
}
_SIZE = re.compile(r"^\s*(>=|<=|==|!=|>|<)\s*(\d+(?:\.\d+)?)\s*([A-Za-z]+)\s*$")
_SPEC = re.compile(r"^([A-Za-z][A-Za-z0-9_-]*(?::[A-Za-z0-9_-]+)?)\s*(.*)$", re.S)

# The hardware floor of each Tensor Core precision, used only when the
# compatibility matrix has no precision table: BF16 and TF32 arrived with
# Ampere (CC 8.0), FP8 with Ada (CC 8.9). Sources: NVIDIA CUDA C++ Programming
# Guide, "Warp Matrix Functions" (__nv_bfloat16 and tf32 need CC >= 8.0; the
# e4m3/e5m2 mma shapes of the PTX ISA need sm_89), and the NVIDIA A100 Tensor
# Core GPU Architecture whitepaper (2020).
PRECISION_FLOOR = {"bf16": "8.0", "tf32": "8.0", "fp8": "8.9"}
PRECISION_FLOOR_SOURCES = ("cuda-programming-guide-wmma", "ptx-isa")

# Error findings from the framework checks that mean a framework cannot use the GPU.
BLOCKING_CODES = ("framework-arch-unsupported", "framework-driver-too-old", "framework-cuda-libs-missing", "cudnn-missing")
_FRAMEWORK_WORDS = {"torch": ("torch",), "tensorflow": ("tensorflow",), "jax": ("jax",)}
_FRAMEWORK_TITLE = {"torch": "PyTorch", "tensorflow": "TensorFlow", "jax": "JAX"}


class RequirementSyntaxError(ValueError):
    """A --require spec that cannot be parsed; the message says what is wrong and how to write it."""


@dataclass(frozen=True)
class Requirement:
    spec: str  # as typed, trimmed
    name: str  # canonical lower-case name (aliases kept as typed)
    kind: str  # gpu, gpus, driver, cuda, cc, memory, package, build, precision
    subject: str = ""  # torch/tensorflow/jax/jaxlib, total/free, bf16/tf32/fp8
    specifier: SpecifierSet | None = None
    sizes: tuple[tuple[str, int], ...] = ()  # memory: (operator, bytes)

    @property
    def area(self) -> str:
        return _AREA[self.kind]


@dataclass(frozen=True)
class Outcome:
    """The verdict on one requirement: met or not, what was found, and the finding when unmet."""

    requirement: Requirement
    met: bool
    found: str
    finding: Finding | None = None
    evidence: tuple[Evidence, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        return {
            "spec": self.requirement.spec,
            "kind": self.requirement.kind,
            "area": self.requirement.area,
            "met": self.met,
            "found": self.found,
        }


# --------------------------------------------------------------------------- parsing


def parse_requirement(text: str) -> Requirement:
    spec = (text or "").strip()
    if not spec:
        raise RequirementSyntaxError("empty requirement; write one such as driver>=535 or torch:cuda")
    match = _SPEC.match(spec)
    if not match:
        raise RequirementSyntaxError(f"malformed requirement {spec!r}: it must start with a name such as driver, gpus or torch")
    name, rest = match.group(1).lower(), match.group(2).strip()
    if name not in _NAMES:
        close = difflib.get_close_matches(name, list(_NAMES), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise RequirementSyntaxError(f"unknown requirement {name!r} in {spec!r}{hint}; known: {', '.join(KNOWN)}")
    kind, subject = _NAMES[name]
    if kind in _NO_CONDITION:
        if rest:
            raise RequirementSyntaxError(f"{name!r} takes no condition, but {spec!r} has {rest!r}")
        return Requirement(spec, name, kind, subject)
    if kind in _NEEDS_CONDITION and not rest:
        raise RequirementSyntaxError(f"{name!r} needs a size, such as {name}>=40GiB")
    if kind == "memory":
        return Requirement(spec, name, kind, subject, sizes=_parse_sizes(spec, name, rest))
    if not rest:
        return Requirement(spec, name, kind, subject)
    try:
        specifier = SpecifierSet(rest)
    except InvalidSpecifier as exc:
        example = {"gpus": "gpus>=2", "cc": f"{name}>=8.0", "cuda": "cuda>=12.1", "driver": "driver>=535"}.get(
            kind, f"{name}>=2.3"
        )
        raise RequirementSyntaxError(
            f"malformed version condition {rest!r} in {spec!r} ({exc}); "
            f"write an operator (>=, <=, >, <, ==, !=, ~=) and a version, several joined with commas: {example}"
        ) from None
    if not list(specifier):
        raise RequirementSyntaxError(f"empty version condition in {spec!r}")
    if kind == "gpus":
        for s in specifier:
            if not re.fullmatch(r"\d+", s.version):
                raise RequirementSyntaxError(f"{spec!r}: a GPU count is a whole number, not {s.version!r}")
    return Requirement(spec, name, kind, subject, specifier)


def _parse_sizes(spec: str, name: str, rest: str) -> tuple[tuple[str, int], ...]:
    out = []
    for part in rest.split(","):
        if not part.strip():
            continue
        m = _SIZE.match(part)
        if not m:
            raise RequirementSyntaxError(
                f"malformed size condition {part.strip()!r} in {spec!r}; write an operator (>=, <=, >, <, ==, !=), "
                f"a number and a unit, such as {name}>=40GiB"
            )
        unit = m.group(3).lower()
        if unit not in _UNITS:
            raise RequirementSyntaxError(
                f"unknown size unit {m.group(3)!r} in {spec!r}; use B, KB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024)"
            )
        out.append((m.group(1), int(float(m.group(2)) * _UNITS[unit])))
    if not out:
        raise RequirementSyntaxError(f"{name!r} needs a size, such as {name}>=40GiB")
    return tuple(out)


_OPERATOR_CHARS = "<>=!~,"


def split_specs(value: str) -> list[str]:
    """One --require value (or the action's `requires` input) as specs: whitespace separates them,
    except around an operator or a comma, or before a size unit, so `torch >= 2.3, <3 bf16` is
    `torch>=2.3,<3` and `bf16`, and `gpu-memory >= 40 GiB` is `gpu-memory>=40GiB`."""
    specs: list[str] = []
    for token in (value or "").split():
        glue = token[0] in _OPERATOR_CHARS or (specs and specs[-1][-1] in _OPERATOR_CHARS)
        unit = specs and specs[-1][-1].isdigit() and token.lower() in _UNITS  # gpu-memory>=40 GiB
        if specs and (glue or unit):
            specs[-1] += token
        else:
            specs.append(token)
    return specs


def parse_requirements(specs: Iterable[str]) -> list[Requirement]:
    """Each --require value; one value may hold several specs separated by whitespace."""
    out: list[Requirement] = []
    for value in specs:
        parts = split_specs(value)
        if not parts:
            out.append(parse_requirement(value))
        out += [parse_requirement(spec) for spec in parts]
    return out


# --------------------------------------------------------------------------- judging


def _matrix_call(matrix: Any, method: str, *args: Any) -> Any:
    """Ask the compatibility matrix, if it has that question; None when it cannot answer."""
    if matrix is None:
        return None
    fn = getattr(matrix, method, None)
    if fn is None:
        return None
    return fn(*args)


def visible_gpus(facts: Facts) -> tuple[tuple[Gpu, ...], str]:
    """The GPUs a CUDA program here would see, and a note on how they were chosen."""
    from gpudoctor.checks.platform import visible_devices

    gpus = tuple(facts.driver.gpus)
    value = facts.platform.env.get("CUDA_VISIBLE_DEVICES")
    if value is None or not gpus:
        return gpus, ""
    mig = sum(g.mig_devices or 0 for g in gpus)
    valid, _invalid = visible_devices(value, [(g.index, g.uuid) for g in gpus], mig)
    if any(v.startswith("MIG-") for v in valid):
        return gpus, f" (CUDA_VISIBLE_DEVICES={value} names MIG instances; all GPUs counted)"
    chosen: list[Gpu] = []
    for entry in valid:
        if entry.isdigit():
            idx = int(entry)
            match = next((g for g in gpus if g.index == idx), gpus[idx] if idx < len(gpus) else None)
        else:
            match = next((g for g in gpus if g.uuid and g.uuid.startswith(entry)), None)
        if match is not None and match not in chosen:
            chosen.append(match)
    return tuple(chosen), f" (CUDA_VISIBLE_DEVICES={value} of {len(gpus)})"


def gpu_cc(gpu: Gpu, matrix: Any) -> str | None:
    """NVML's compute capability, else the matrix's entry for the GPU's name."""
    if gpu.compute_capability:
        return gpu.compute_capability
    if not gpu.name:
        return None
    try:
        return _matrix_call(matrix, "compute_capability_for_gpu", gpu.name)
    except Exception:  # noqa: BLE001 - a name the matrix cannot place is an unknown CC, not a crash
        return None


def _version(text: str | None) -> Version | None:
    if not text:
        return None
    try:
        return Version(text)
    except InvalidVersion:
        m = re.match(r"\d+(\.\d+)*", text.strip())
        try:
            return Version(m.group(0)) if m else None
        except InvalidVersion:
            return None


def _contains(spec: SpecifierSet | None, version: Version | None) -> bool:
    if version is None:
        return False
    return True if spec is None else spec.contains(version, prereleases=True)


def _gib(n: int | None) -> str:
    return "?" if n is None else f"{n / 1024**3:.2f} GiB"


def _size_ok(value: int, op: str, bound: int) -> bool:
    return {
        ">=": value >= bound,
        "<=": value <= bound,
        ">": value > bound,
        "<": value < bound,
        "==": value == bound,
        "!=": value != bound,
    }[op]


def _gpu_label(g: Gpu) -> str:
    return f"GPU {g.index} ({g.name or 'unknown GPU'})"


def _gpu_source(g: Gpu) -> str:
    return "nvml" if g.source == "nvml" else "cmd:nvidia-smi -q -x"


class _Judge:
    def __init__(self, facts: Facts, findings: Sequence[Finding], matrix: Any, matrix_path: str | None) -> None:
        self.facts = facts
        self.findings = findings
        self._matrix = matrix
        self._matrix_path = matrix_path
        self.gpus, self.visible_note = visible_gpus(facts)
        # A lost GPU (gpu-lost) is on the bus but no program can use it: no requirement counts or judges it
        # (what was recorded of it predates the loss).
        self.usable = [g for g in self.gpus if not g.lost]

    @functools.cached_property
    def matrix(self) -> Any:
        # Loaded only when a requirement needs it (a GPU without NVML's compute capability, a precision).
        return self._matrix if self._matrix is not None else load_matrix_or_none(self._matrix_path)

    # Each returns (met, found, evidence, remediation summary, commands, sources).
    def no_gpu(self) -> str:
        d = self.facts.driver
        if d.gpus and not self.gpus:
            return f"no GPU visible{self.visible_note}"
        if self.gpus and not self.usable:
            return f"no usable GPU: {len(self.gpus)} lost (see gpu-lost)"
        if not d.reachable:
            return "no GPU: the NVIDIA driver is not reachable (see the driver findings)"
        return "no GPU"

    def judge(self, req: Requirement):
        return getattr(self, f"_{req.kind}")(req)

    def _gpu(self, req: Requirement):
        if self.usable:
            names = sorted({g.name or "unknown GPU" for g in self.usable})
            return True, f"{len(self.usable)} GPU(s): {', '.join(names)}{self.visible_note}", self._gpu_evidence(), None
        return (
            False,
            self.no_gpu(),
            self._gpu_evidence(),
            Remediation(
                "Run on a machine with an NVIDIA GPU, and give the job access to it: Slurm `--gres=gpu:1`, Docker "
                "`--gpus all`, Kubernetes `resources: {limits: {nvidia.com/gpu: 1}}`.",
                (
                    Cmd(("srun", "--gres=gpu:1", Placeholder("command")), note="Slurm"),
                    Cmd(("docker", "run", "--gpus", "all", Placeholder("image")), note="Docker"),
                ),
                component="platform",
            ),
        )

    def _gpu_evidence(self) -> tuple[Evidence, ...]:
        d = self.facts.driver
        # GPUs a pasted text only named (NAMED_IN_TEXT) are the text's word, not NVML's nor nvidia-smi's.
        source = {"ok": "nvml", NAMED_IN_TEXT: "pasted"}.get(d.nvml_status, "cmd:nvidia-smi")
        out = [Evidence(source, f"{len(d.gpus)} GPU(s)")]
        if "CUDA_VISIBLE_DEVICES" in self.facts.platform.env:
            out.append(Evidence("env:CUDA_VISIBLE_DEVICES", self.facts.platform.env["CUDA_VISIBLE_DEVICES"]))
        return tuple(out)

    def _gpus(self, req: Requirement):
        n = len(self.usable)
        lost = len(self.gpus) - n
        met = _contains(req.specifier, Version(str(n))) if req.specifier else n >= 1
        found = f"{n} GPU(s){self.visible_note}" + (f", and {lost} lost" if lost else "")
        wanted = next((k for k in range(1, 1025) if _contains(req.specifier, Version(str(k)))), None) if req.specifier else 1
        count: Any = str(wanted) if wanted is not None else Placeholder("n")
        gres = f"--gres=gpu:{wanted}" if wanted is not None else Placeholder("gres")
        return (
            met,
            found,
            self._gpu_evidence(),
            Remediation(
                f"Run where {req.spec} holds: ask the scheduler for enough GPUs (Slurm --gres=gpu:{count}, Kubernetes "
                f"nvidia.com/gpu: {count}), or unset a CUDA_VISIBLE_DEVICES that hides some.",
                (Cmd(("srun", gres, Placeholder("command")), note="Slurm"), Cmd(("nvidia-smi", "-L"))),
                component="platform",
            ),
        )

    def _driver(self, req: Requirement):
        d = self.facts.driver
        version = d.version
        ev = (Evidence("nvml" if d.nvml_driver_version else "cmd:nvidia-smi", version or d.nvml_status),)
        fix = self._driver_fix(f"Install an NVIDIA driver that satisfies {req.spec}, then reboot.", _driver_branch(req.specifier))
        if not version:
            return (
                False,
                f"no driver version: the NVIDIA driver is not reachable (NVML: {d.nvml_status}, nvidia-smi: {d.smi_status})",
                ev,
                fix,
            )
        return _contains(req.specifier, _version(version)), f"driver {version}", ev, fix

    def _cuda(self, req: Requirement):
        d = self.facts.driver
        cuda = d.cuda_version
        ev = (Evidence("nvml" if d.nvml_cuda_version else "cmd:nvidia-smi", cuda or d.nvml_status),)
        fix = self._driver_fix(
            f"The newest CUDA a program can use is the one the driver supports; install a newer driver for {req.spec} "
            "(the CUDA toolkit does not raise it). See `gpudoctor matrix show cuda` for the minimum driver of each CUDA."
        )
        if not cuda:
            return False, "unknown: the NVIDIA driver is not reachable, so the CUDA version it supports cannot be read", ev, fix
        return _contains(req.specifier, _version(cuda)), f"the driver ({d.version or '?'}) supports CUDA {cuda}", ev, fix

    def _driver_fix(self, summary: str, branch: str | None = None) -> Remediation:
        from gpudoctor.planner.remedy import driver_install_and_reboot, where_run

        commands = driver_install_and_reboot(self.facts, branch, self._context())  # the matrix names the GPU's flavour
        return Remediation(summary, commands, requires_root=True, component="driver", where=where_run(self.facts))

    def _per_gpu(self, req: Requirement, value_of, show, fix):
        """Every visible GPU must pass; (met, found, evidence, fix).

        A lost GPU is listed as not judged; with no usable GPU nothing is met.
        """
        if not self.usable:
            return False, self.no_gpu(), self._gpu_evidence(), fix
        failing, parts, evidence = [], [], []
        for g in self.gpus:
            if g.lost:
                parts.append(f"{_gpu_label(g)}: lost, not judged")
                continue
            value = value_of(g)
            ok = value is not None and self._ok(req, value)
            parts.append(f"{_gpu_label(g)}: {show(value)}")
            evidence.append(Evidence(_gpu_source(g), f"{_gpu_label(g)}: {show(value)}"))
            if not ok:
                failing.append(g)
        found = "; ".join(parts) + self.visible_note
        return not failing, found, tuple(evidence), fix

    def _ok(self, req: Requirement, value: Any) -> bool:
        # Only memory and compute-capability requirements are judged per GPU (_memory, _cc).
        if req.kind == "memory":
            return all(_size_ok(value, op, bound) for op, bound in req.sizes)
        return _contains(req.specifier, _version(value))

    def _cc(self, req: Requirement):
        return self._per_gpu(
            req,
            lambda g: gpu_cc(g, self.matrix),
            lambda v: f"compute capability {v}" if v else "compute capability unknown",
            Remediation(
                f"Run on GPUs with {req.spec}; `gpudoctor matrix show gpu` lists each GPU's compute capability.", component="gpu"
            ),
        )

    def _memory(self, req: Requirement):
        attr = "memory_free_bytes" if req.subject == "free" else "memory_total_bytes"
        word = "free" if req.subject == "free" else "total"
        if req.subject == "free":
            fix = Remediation(
                f"Free GPU memory for {req.spec}: stop the processes that hold it, or run on an idle GPU.",
                (Cmd(("nvidia-smi", "--query-compute-apps=pid,process_name,used_memory", "--format=csv")),),
                component="memory",
            )
        else:
            fix = Remediation(
                f"Run on GPUs with {req.spec} (the memory the driver reports, a little below the marketed size).", component="gpu"
            )
        return self._per_gpu(
            req, lambda g: getattr(g, attr), lambda v: f"{_gib(v)} {word}" if v is not None else f"{word} memory unknown", fix
        )

    def _precision(self, req: Requirement):
        name = req.subject
        floor = PRECISION_FLOOR[name]
        sources: set[str] = set()

        def supports(g: Gpu):
            cc = gpu_cc(g, self.matrix)
            if not cc:
                return None
            table = None
            try:
                table = _matrix_call(self.matrix, "precisions", cc)
            except Exception:  # noqa: BLE001 - an unknown CC: fall back to the documented floor
                table = None
            if table is not None:
                try:
                    keys = getattr(_matrix_call(self.matrix, "precision_info", cc), "source", None) or ()
                    sources.update((keys,) if isinstance(keys, str) else keys)
                except Exception:  # noqa: BLE001 - sources are a courtesy
                    pass
                return name.upper() in {str(p).upper() for p in table}
            sources.update(PRECISION_FLOOR_SOURCES)
            version = _version(cc)
            # A compute capability that is not a version (a snapshot holds any text there) is unknown, like none.
            return version >= Version(floor) if version is not None else None

        def show(g: Gpu) -> str:
            cc = gpu_cc(g, self.matrix)
            verdict = supports(g)
            if verdict is None:
                return "compute capability unknown"
            return f"compute capability {cc}, {name.upper()} {'supported' if verdict else 'not supported'}"

        if not self.usable:
            met, found, evidence = False, self.no_gpu(), self._gpu_evidence()
        else:
            met = all(supports(g) for g in self.usable)
            found = (
                "; ".join(f"{_gpu_label(g)}: {'lost, not judged' if g.lost else show(g)}" for g in self.gpus) + self.visible_note
            )
            evidence = tuple(Evidence(_gpu_source(g), f"{_gpu_label(g)}: {show(g)}") for g in self.usable)
        alt = " Use FP16 with loss scaling (torch.autocast(dtype=torch.float16)) on older GPUs." if name == "bf16" else ""
        fix = Remediation(
            f"{name.upper()} needs hardware support (compute capability {floor} or newer); run on such a GPU.{alt}",
            component="gpu",
        )
        return met, found, evidence, fix, tuple(sorted(sources))

    def _package(self, req: Requirement):
        env = self.facts.frameworks.python
        name = req.subject
        fix = self._package_fix(req)
        if not isinstance(env, Found):
            return False, "unknown: the Python environment could not be read", (Evidence("python", env.status),), fix
        dists = env.value.distributions
        dist = name
        if name == "tensorflow" and name not in dists:
            from gpudoctor.probes.python import TF_DISTRIBUTIONS

            dist = next((d for d in TF_DISTRIBUTIONS if d in dists), name)  # tensorflow-cpu, tf-nightly, ...
        version = dists.get(dist)
        where = env.value.executable
        ev = (Evidence(f"dist:{dist}", version or "not installed"),)
        if version is None:
            return False, f"{name} is not installed in {where}", ev, fix
        return _contains(req.specifier, _version(version)), f"{dist} {version} in {where}", ev, fix

    def _blocking(self, framework: str) -> list[Finding]:
        words = _FRAMEWORK_WORDS[framework]
        out = []
        for f in self.findings:
            if f.code not in BLOCKING_CODES or f.severity < Severity.ERROR:
                continue
            text = " ".join([f.title, *(e.source for e in f.evidence)]).lower()
            if any(w in text for w in words):
                out.append(f)
        return out

    def _build(self, req: Requirement):
        fw = self.facts.frameworks
        name = req.subject
        title = _FRAMEWORK_TITLE[name]
        fix = self._build_fix(name)
        outcome = getattr(fw, name)
        if not isinstance(outcome, Found):
            reason = getattr(outcome, "reason", None) or getattr(outcome, "message", None) or "not found"
            return False, f"{title} is not usable: {reason}", (Evidence(outcome.source or f"dist:{name}", outcome.status),), fix
        facts = outcome.value
        ev = [Evidence(outcome.source, self._build_text(name, facts))]
        if name == "torch":
            if facts.cuda is None:
                label = f"ROCm {facts.hip}" if facts.hip else "CPU-only"
                return False, f"torch {facts.version} is a {label} build", tuple(ev), fix
            build = f"torch {facts.version} (CUDA {facts.cuda})"
        elif name == "tensorflow":
            if facts.distribution == "tensorflow-cpu" or facts.is_cuda_build is False:
                return False, f"{facts.distribution} {facts.version} is a CPU-only build", tuple(ev), fix
            if facts.is_cuda_build is None:
                return (
                    False,
                    f"{facts.distribution} {facts.version}: whether it is a GPU build cannot be read (no build_info.py)",
                    tuple(ev),
                    fix,
                )
            build = f"{facts.distribution} {facts.version} (CUDA {facts.cuda or '?'})"
        else:
            plugin = self._jax_cuda(facts)
            if plugin is None:
                return False, f"jax {facts.jax or '?'} has no CUDA plugin (CPU only)", tuple(ev), fix
            build = f"jax {facts.jax or '?'} with {plugin}"
        if not self.gpus:
            return False, f"{build}, but {self.no_gpu()}", tuple(ev), fix
        blocking = self._blocking(name)
        if blocking:
            ev += [Evidence(f"finding:{f.code}", f.title) for f in blocking]
            why = "; ".join(f"{f.title} ({f.code})" for f in blocking)
            first = next((f.remediation for f in blocking if f.remediation and f.remediation.commands), None)
            return (
                False,
                f"{build} cannot use this GPU: {why}",
                tuple(ev),
                Remediation(
                    "Fix the findings named here first; they say what stops it." + (f" {first.summary}" if first else ""),
                    first.commands if first else fix.commands,
                    requires_root=first.requires_root if first else False,
                    component=first.component if first else fix.component,
                    where=first.where if first else "",
                ),
            )
        return True, build, tuple(ev), fix

    @staticmethod
    def _jax_cuda(jax: Any) -> str | None:
        for dist, version in sorted(jax.plugins.items()):
            if "cuda" in dist:
                return f"{dist} {version}"
        if jax.jaxlib and "+cuda" in jax.jaxlib:
            return f"jaxlib {jax.jaxlib}"
        return None

    @staticmethod
    def _build_text(name: str, facts: Any) -> str:
        if name == "torch":
            return f"{facts.version} cuda={facts.cuda}"
        if name == "tensorflow":
            return f"{facts.distribution} {facts.version} is_cuda_build={facts.is_cuda_build} cuda={facts.cuda}"
        return f"jax {facts.jax} jaxlib {facts.jaxlib} plugins {', '.join(sorted(facts.plugins)) or 'none'}"

    def _context(self):
        """A checks Context on this judge's matrix: the framework fixes come from gpudoctor install's planner."""
        from gpudoctor.checks.base import Context

        ctx = Context(self._matrix_path)
        if self._matrix is not None:
            ctx.__dict__["matrix"] = self._matrix  # functools.cached_property's slot: the matrix given, not a reload
        return ctx

    def _framework_fix(self, name: str, why: str, installed: str | None) -> Remediation:
        from gpudoctor.checks.frameworks import plan_remediation

        if self.matrix is None:
            return Remediation(
                f"{why} (No compatibility matrix here to choose the build: run `gpudoctor install {name}`.)", component=name
            )
        return plan_remediation(self.facts, self._context(), name, installed, why)

    def _installed(self, name: str) -> str | None:
        env = self.facts.frameworks.python
        dists = env.value.distributions if isinstance(env, Found) else {}
        if name == "tensorflow":
            from gpudoctor.probes.python import TF_DISTRIBUTIONS

            return next((dists[d] for d in TF_DISTRIBUTIONS if d in dists), None)
        return dists.get(name)

    def _build_fix(self, name: str) -> Remediation:
        why = {
            "torch": "Install a CUDA build of PyTorch whose CUDA this driver runs and that has kernels for these GPUs.",
            "tensorflow": "Install TensorFlow's GPU build (tensorflow-cpu has no GPU support).",
            "jax": "Install JAX with the CUDA plugin of its version.",
        }[name]
        return self._framework_fix(name, why, self._installed(name))

    def _package_fix(self, req: Requirement) -> Remediation:
        """The planner's build when the newest that fits satisfies the spec; else the spec itself, in the probed interpreter."""
        from gpudoctor.planner.remedy import pip

        name = req.subject
        framework = "jax" if name == "jaxlib" else name
        why = f"Install a version that satisfies {req.spec} in the environment the job uses."
        if framework in _FRAMEWORK_TITLE and self.matrix is not None:
            fix = self._framework_fix(framework, why, None)
            plan_version = _plan_release(fix)
            if fix.commands and plan_version is not None and (not req.specifier or _contains(req.specifier, plan_version)):
                return fix
        wanted = f"{name}{req.specifier}" if req.specifier else name
        return Remediation(
            why, (pip(self.facts, "install", wanted),), component=framework if framework in _FRAMEWORK_TITLE else "environment"
        )


def _driver_branch(spec: SpecifierSet | None) -> str | None:
    """The driver branch a `driver>=550`-style requirement asks for at least (its lower bound's major), if any."""
    for clause in spec or ():
        if clause.operator in (">=", "==", "~=", ">"):
            v = _version(clause.version.rstrip(".*"))
            if v is not None and v.major >= 100:
                return str(v.major)
    return None


def _plan_release(fix: Remediation) -> Version | None:
    """The lowest version a planned install can give (its pin's floor: torch==2.7.* -> 2.7), for comparing with a spec."""
    for c in fix.commands:
        for a in getattr(c, "argv", ()):
            m = re.match(r"^(?:torch|tensorflow|jax)(?:\[[^\]]*\])?(?:==|>=)(\d+(?:\.\d+)*)", str(a))
            if m:
                return _version(m.group(1))
    return None


def evaluate(
    requirements: Sequence[Requirement],
    facts: Facts,
    findings: Sequence[Finding] = (),
    matrix: Any = None,
    matrix_path: str | None = None,
) -> list[Outcome]:
    """Judge each requirement; an unmet one carries its `requirement-unmet` finding.

    `matrix` is a loaded compatibility matrix; without one, the bundled (or `matrix_path`) matrix is
    loaded on first need.
    """
    judge = _Judge(facts, findings, matrix, matrix_path)
    out: list[Outcome] = []
    for req in requirements:
        result = judge.judge(req)
        met, found, evidence, fix = result[:4]
        sources = result[4] if len(result) > 4 else ()
        finding = None
        if not met:
            finding = Finding(
                CODE,
                Severity.ERROR,
                req.area,
                f"requirement not met: {req.spec}",
                f"This job requires {req.spec}; found: {found}.",
                tuple(evidence),
                fix,
                tuple(sources),
            )
        out.append(Outcome(req, met, found, finding, tuple(evidence)))
    return out


def load_matrix_or_none(matrix_path: str | None) -> Any:
    """The compatibility matrix, or None where this build has none (requirements then use NVML's facts only)."""
    try:
        from gpudoctor.matrix import load_matrix
    except ImportError:
        return None
    try:
        return load_matrix(matrix_path)
    except ImportError:
        return None
