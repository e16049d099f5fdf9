"""Record types of the compatibility matrix (see gpudoctor.matrix).

Every record is a frozen dataclass with a keyword-only constructor: ``dataclasses.fields``,
``asdict`` and ``replace`` work on them. Their ``__init__``/``__repr__``/``__eq__``/``__hash__`` are
shared from one base class instead of being generated per class, which keeps defining them cheap
(the module is imported on the first load_matrix(), not when gpudoctor.matrix is imported).

Records that come from a data row carry ``source`` (the cited source keys), ``sources`` (the
resolved Source objects: title, url or document, accessed), ``note`` and ``confidence``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import MISSING, FrozenInstanceError, dataclass, field
from itertools import pairwise
from typing import Any

from gpudoctor.matrix.terms import _norm_os, kernel_route, normalize_cc
from gpudoctor.versions import spec_contains, spec_floor, version_key, version_parts

_record = dataclass(init=False, repr=False, eq=False, kw_only=True)

_FIELD_SPECS: dict[type, tuple[tuple[str, Any, Any, bool, bool], ...]] = {}
_INIT_SPECS: dict[type, tuple[frozenset[str], dict[str, Any], tuple[tuple[str, Any], ...], frozenset[str]]] = {}


def _field_specs(cls: type) -> tuple[tuple[str, Any, Any, bool, bool], ...]:
    specs = _FIELD_SPECS.get(cls)
    if specs is None:
        specs = tuple((f.name, f.default, f.default_factory, f.repr, f.compare) for f in dataclasses.fields(cls))
        _FIELD_SPECS[cls] = specs
    return specs


def _init_spec(cls: type) -> tuple[frozenset[str], dict[str, Any], tuple[tuple[str, Any], ...], frozenset[str]]:
    spec = _INIT_SPECS.get(cls)
    if spec is None:
        fields = _field_specs(cls)
        names = frozenset(n for n, *_ in fields)
        defaults = {n: d for n, d, _f, _r, _c in fields if d is not MISSING}
        factories = tuple((n, f) for n, d, f, _r, _c in fields if d is MISSING and f is not MISSING)
        required = frozenset(n for n, d, f, _r, _c in fields if d is MISSING and f is MISSING)
        spec = (names, defaults, factories, required)
        _INIT_SPECS[cls] = spec
    return spec


def _hashable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return tuple(sorted((k, _hashable(v)) for k, v in value.items()))
    return value


class _Record:
    """Shared behaviour of the matrix records (immutable, keyword-only)."""

    __slots__ = ()

    def __init__(self, **kwargs: Any) -> None:
        names, defaults, factories, required = _init_spec(type(self))
        if not names.issuperset(kwargs):
            extra = ", ".join(sorted(set(kwargs) - names))
            raise TypeError(f"{type(self).__name__}() got unexpected keyword arguments: {extra}")
        if not required.issubset(kwargs):
            missing = ", ".join(sorted(required - set(kwargs)))
            raise TypeError(f"{type(self).__name__}() missing required keyword arguments: {missing}")
        values = dict(defaults)
        for name, factory in factories:
            if name not in kwargs:
                values[name] = factory()
        values.update(kwargs)
        self.__dict__.update(values)

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field '{name}'")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field '{name}'")

    def __repr__(self) -> str:
        parts = ", ".join(f"{n}={getattr(self, n)!r}" for n, _d, _f, r, _c in _field_specs(type(self)) if r)
        return f"{type(self).__name__}({parts})"

    def _key(self) -> tuple[Any, ...]:
        return tuple(_hashable(getattr(self, n)) for n, _d, _f, _r, c in _field_specs(type(self)) if c)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._key()))

    def to_dict(self) -> dict[str, Any]:
        """A plain dict (nested records and sources included), e.g. for JSON output."""
        return dataclasses.asdict(self)  # type: ignore[call-overload]


@_record
class Source(_Record):
    """One declared source (sources.toml)."""

    key: str
    title: str
    accessed: str
    url: str | None = None
    document: str | None = None
    note: str | None = None

    @property
    def where(self) -> str:
        """The url, or the description of a document without one."""
        return self.url or self.document or ""

    def cite(self) -> str:
        return f"{self.title} <{self.where}>" if self.url else f"{self.title} ({self.where})"


@_record
class _Cited(_Record):
    """Fields shared by every record that comes from a data row."""

    source: tuple[str, ...] = ()
    sources: tuple[Source, ...] = field(default=(), repr=False, compare=False)
    note: str | None = None
    confidence: str = "high"

    def cite(self) -> str:
        """The sources of this record as one line (title <url>; ...)."""
        return "; ".join(s.cite() for s in self.sources)


@_record
class CudaRelease(_Cited):
    """A CUDA toolkit release and its toolkit driver per OS (cuda_driver.toml release)."""

    cuda: str  # the minor, "12.2"
    release: str  # "12.2.2"
    label: str
    linux: str | None = None
    windows: str | None = None
    prerelease: bool = False

    def driver(self, os: str = "linux") -> str | None:
        return self.windows if _norm_os(os) == "windows" else self.linux


@_record
class MinorCompat(_Cited):
    """The minor-version-compatibility floor of a CUDA major (cuda_driver.toml minor_compat)."""

    major: int
    linux: str
    windows: str | None = None
    windows_alt: str | None = None
    branch_min: int | None = None
    branch_max_exclusive: int | None = None

    def driver(self, os: str = "linux") -> str | None:
        return self.windows if _norm_os(os) == "windows" else self.linux


@_record
class DriverBranch(_Cited):
    """Driver branch -> newest CUDA it serves, as nvidia-smi reports it (cuda_driver.toml branch)."""

    branch: int
    cuda: str


@_record
class PtxIsa(_Cited):
    """PTX ISA version -> the first CUDA release that writes and loads it (cuda_driver.toml ptx)."""

    ptx: str
    cuda: str


@_record
class Verdict(_Cited):
    """Whether a driver runs a CUDA runtime, and how.

    ok: it runs. via: "full" (driver >= the toolkit driver, or the branch table says so),
    "minor-version-compat" (driver >= the major's floor only: no JIT of newer PTX, features that
    need a newer driver fail) or None (not ok / unknown). needed: the toolkit driver for full
    support (None when NVIDIA lists none). floor: the major's minor-version-compatibility floor.
    known: False when the CUDA version is not in the matrix (then ok is False and nothing is known).
    """

    ok: bool
    via: str | None
    needed: str | None
    floor: str | None
    driver: str
    cuda: str
    os: str
    known: bool = True
    reason: str = ""


@_record
class Arch(_Cited):
    """A GPU architecture and its compute capabilities (gpu_arch.toml arch)."""

    name: str
    ccs: tuple[str, ...]
    # The last driver branch NVIDIA released for the architecture (a legacy branch: no newer driver drives these GPUs)
    # and the newest CUDA that branch runs; None while current drivers still support it.
    last_driver: int | None = None
    last_driver_cuda: str | None = None


@_record
class CcTarget(_Cited):
    """A compute capability and the CUDA releases that can target it (gpu_arch.toml cc)."""

    cc: str
    arch: str
    first_cuda: str | None = None  # None: before CUDA 8.0
    last_cuda: str | None = None  # None: still targetable by the newest toolkit
    a_first_cuda: str | None = None  # the first toolkit that compiles sm_XYa (None: the CC has no such variant)
    f_first_cuda: str | None = None  # the first toolkit that compiles sm_XYf (None: the CC has no such variant)

    def first_for(self, suffix: str) -> str | None:
        """The first toolkit that compiles this CC with an architecture suffix: "" the plain sm_XY, "a" the
        architecture-specific sm_XYa, "f" the family-specific sm_XYf. None where the variant does not exist, or (plain)
        where it predates CUDA 8.0."""
        return {"": self.first_cuda, "a": self.a_first_cuda, "f": self.f_first_cuda}.get(suffix)


@_record
class Gpu(_Cited):
    """A GPU product name (as NVML prints it, minus NVIDIA/Tesla) and its compute capability."""

    name: str
    cc: str
    segment: str
    inferred: bool = False


@_record
class CudnnRelease(_Cited):
    """A cuDNN release range and the CUDA majors it ships for (cudnn.toml release)."""

    version: str
    through: str
    cuda: tuple[str, ...]  # PEP 440 specifiers, one per CUDA major
    cuda_majors: tuple[int, ...]
    min_cc: str | None = None

    def supports_cuda(self, cuda: str) -> bool:
        return any(spec_contains(s, cuda) for s in self.cuda)


@_record
class CudnnMajor(_Cited):
    """A cuDNN major: sonames, header, version encoding (cudnn.toml major)."""

    major: int
    soname: str
    header: str
    version_multiplier: int
    windows_dll: str | None = None
    sublibraries: tuple[str, ...] = ()


@_record
class CudnnPip(_Cited):
    """A PyPI cuDNN package series (cudnn.toml pip)."""

    package: str
    cuda_major: int
    first: str
    last: str


@_record
class TorchPins(_Cited):
    """The NVIDIA wheels one torch build pins on Linux x86_64 (torch.toml nvidia_pins): name -> version."""

    torch: str  # an exact release, "2.2.1"
    variant: str  # its PyPI build's tag, "cu121"
    wheels: tuple[tuple[str, str], ...]  # ("nvidia-cublas-cu12", "12.1.3.1"), in the wheel's order


@_record
class TorchVariant(_Cited):
    """One CUDA variant (cuXYZ) of a PyTorch release."""

    tag: str  # "cu121"
    cuda: str  # "12.1"
    cudnn: str | None = None
    arch: tuple[str, ...] = ()  # ("sm_50", ...): cubins compiled into the wheel
    ptx: tuple[str, ...] = ()  # ("compute_90", ...): PTX in the wheel
    status: str | None = None  # "stable" / "experimental" in RELEASE.md

    @property
    def ccs(self) -> tuple[str, ...]:
        """The cubin architectures as compute capabilities ("5.0", ...)."""
        return tuple(normalize_cc(a) or a for a in self.arch)

    @property
    def ptx_ccs(self) -> tuple[str, ...]:
        return tuple(normalize_cc(a) or a for a in self.ptx)

    def runs_on(self, cc: str) -> bool | None:
        """Whether kernels for a GPU of compute capability ``cc`` are in the wheel (gpudoctor.matrix.kernel_route);
        None when cc is not a compute capability or the arch list is unknown."""
        if not self.arch:
            return None
        route, _ = kernel_route(self.arch, self.ptx, cc)
        return None if route == "unknown" else route != "none"


@_record
class TorchRelease(_Cited):
    """A PyTorch release: Python range, PyPI default variant and CUDA variants."""

    version: str  # "1.12"
    python: str  # PEP 440 specifier
    pypi_default: str
    variants: Mapping[str, TorchVariant] = field(default_factory=dict, hash=False)
    python_experimental: tuple[str, ...] = ()
    # The release's pip wheels carry cuDNN themselves (linked into libtorch_cuda or in torch/lib): they load
    # no system or nvidia-cudnn wheel copy. Conda and source builds of the release do not.
    cudnn_bundled: bool = False

    def supports_python(self, python: str) -> bool:
        return spec_contains(self.python, python)


@_record
class TfRelease(_Cited):
    """A TensorFlow release's tested GPU configuration and the sonames it loads."""

    version: str  # "2.10"
    tested: str  # "2.10.0"
    package: str
    python: str
    cuda: str
    cudnn: str
    sonames: tuple[str, ...]
    windows_gpu: bool
    arch: tuple[str, ...] = ()  # sm_XX
    ptx: tuple[str, ...] = ()  # compute_XX
    and_cuda: bool = False

    def supports_python(self, python: str) -> bool:
        return spec_contains(self.python, python)


@_record
class JaxCuda(_Cited):
    """What a JAX release needs for one CUDA major."""

    major: int
    cuda: str  # specifier, ">=12.1"
    build_cuda: str | None = None
    cudnn: str | None = None  # specifier
    driver_linux: str | None = None
    plugin: str | None = None
    pjrt: str | None = None
    arch: tuple[str, ...] = ()
    ptx: tuple[str, ...] = ()

    @property
    def cuda_min(self) -> str | None:
        return spec_floor(self.cuda)

    @property
    def cudnn_min(self) -> str | None:
        return spec_floor(self.cudnn) if self.cudnn else None


@_record
class JaxPin(_Cited):
    """Package versions JAX requires to agree."""

    since: str
    packages: tuple[str, ...]
    rule: str  # "equal" | "equal-numeric" | "not-newer"

    def satisfied(self, versions: Mapping[str, str]) -> bool | None:
        """Whether installed ``versions`` (package -> version) obey the pin; None if one is missing."""
        try:
            vs = [versions[p] for p in self.packages]
        except KeyError:
            return None
        if self.rule == "equal":
            return all(v == vs[0] for v in vs)
        if self.rule == "equal-numeric":
            return all(version_parts(v) == version_parts(vs[0]) for v in vs)
        return all(version_key(a) <= version_key(b) for a, b in pairwise(vs))


@_record
class JaxRelease(_Cited):
    """JAX requirements in force from ``version`` up to the next row."""

    version: str  # first jax version the row applies to
    python: str
    packaging: str  # "jaxlib" | "jaxlib+plugin" | "plugin"
    cuda: Mapping[int, JaxCuda] = field(default_factory=dict, hash=False)
    pins: tuple[JaxPin, ...] = ()  # the pins in force for this release

    def supports_python(self, python: str) -> bool:
        return spec_contains(self.python, python)


@_record
class Precision(_Cited):
    """Tensor Core number formats of a compute capability."""

    cc: str
    tensor_cores: bool
    precisions: tuple[str, ...]
    sparsity: bool = False


@_record
class PcieGen(_Cited):
    """A PCIe generation: line rate, encoding and typical measured share."""

    gen: int
    rate_gt_s: float
    encoding: str
    efficiency: float
    practical_share: float | None = None
    practical_share_low: float | None = None
    practical_share_high: float | None = None

    @property
    def per_lane_gb_per_s(self) -> float:
        return self.rate_gt_s * self.efficiency / 8.0


@_record
class C2cLink(_Cited):
    """An NVLink-C2C CPU<->GPU link."""

    name: str
    systems: tuple[str, ...]
    bidirectional_gb_per_s: float
    practical_gb_per_s: float | None = None
    practical_low: float | None = None
    practical_high: float | None = None


@_record
class CompanionRelease(_Cited):
    """A release of a package built against torch (torchvision, xformers, flash-attn, ...) and the torch
    releases its published binaries are built for: exact versions ("2.3.1") or minors ("2.3")."""

    package: str
    version: str
    torch: tuple[str, ...]
    wheels: str | None = None  # where the project publishes them: "pytorch-index", "package-index", "release-assets"
    cuda: tuple[str, ...] = ()  # the CUDA majors its published binaries are built for ("11", "12"); () not said

    def serves(self, torch_version: str, cuda: str | None) -> bool:
        """Whether a published binary of it is built for this torch and (where the row says) this CUDA major."""
        return self.fits(torch_version) and (not self.cuda or not cuda or cuda.split(".")[0] in self.cuda)

    def fits(self, torch_version: str) -> bool:
        base = torch_version.split("+", 1)[0]
        minor = ".".join(base.split(".")[:2])
        return base in self.torch or minor in self.torch


@_record
class Threshold(_Cited):
    """A bandwidth rule of thumb."""

    name: str
    value: float


@_record
class LinkSpec(_Cited):
    """Per-direction host<->GPU bandwidth for one link (GB/s = 1e9 bytes/s)."""

    kind: str  # "pcie" | "nvlink-c2c"
    name: str  # "PCIe Gen4 x16"
    theoretical_gb_per_s: float
    practical_gb_per_s: float | None = None
    practical_low_gb_per_s: float | None = None
    practical_high_gb_per_s: float | None = None
    gen: int | None = None
    width: int | None = None
    encoding: str | None = None


@_record
class MemoryControl(_Cited):
    """One framework GPU-memory control (env variable, option, API or config field)."""

    framework: str
    name: str
    kind: str  # "env" | "env-option" | "python" | "config"
    effect: str
    default: str | None = None
    values: tuple[str, ...] = ()
    since: str | None = None


@_record
class MemorySettings(_Cited):
    """A framework's default GPU memory behaviour and its controls."""

    framework: str
    preallocates: bool
    default: str
    default_fraction: float | None = None
    controls: tuple[MemoryControl, ...] = ()

    def control(self, name: str) -> MemoryControl | None:
        for c in self.controls:
            if c.name == name:
                return c
        return None


@_record
class CudaRepo(_Cited):
    """One of NVIDIA's CUDA package repositories (cuda_repos.toml): the distribution release it serves and
    the toolkits it packages as cuda-toolkit-X-Y."""

    repo: str  # the repository's name in its URL: "ubuntu2204"
    distro: tuple[str, ...]  # os-release IDs it serves: ("rhel", "rocky", ...)
    release: str  # the VERSION_ID it serves ("22.04"), or its major ("9": 9.3 too)
    first: str | None = None  # the oldest toolkit the sources show packaged
    last: str | None = None  # the newest; None: the repository still receives new releases
    first_verified: bool = False  # nothing older is packaged
    last_verified: bool = False  # nothing newer is packaged

    def serves(self, distro_id: str | None, version_id: str | None) -> bool:
        """Whether this repository is the one for os-release ID `distro_id`, VERSION_ID `version_id`."""
        v = version_id or ""
        return (distro_id or "").lower() in self.distro and (v == self.release or v.startswith(self.release + "."))

    def packages(self, cuda: str) -> bool | None:
        """Whether cuda-toolkit-X-Y of CUDA `cuda` (major.minor) is in this repository: True, False, or
        None where the sources do not say (outside an unverified bound, or no bounds known)."""
        if self.first is None:
            return None
        key = version_key(cuda)
        if key < version_key(self.first):
            return False if self.first_verified else None
        if self.last is not None and key > version_key(self.last):
            return False if self.last_verified else None
        return True


@_record
class LibraryBuild(_Cited):
    """The package index's releases of a library (onnxruntime-gpu, ctranslate2) from `since` up to `until`
    (excluded; None: to the newest) load CUDA `cuda` and cuDNN `cudnn`; `pin` is the release printed for that build."""

    package: str
    since: str
    until: str | None = None
    cuda: int
    cudnn: int
    pin: str | None = None
    pin_python: str | None = None  # the CPython versions `pin` has wheels for (a specifier set)

    def holds(self, version: str) -> bool:
        key = version_key(version)
        return version_key(self.since) <= key and (self.until is None or key < version_key(self.until))

    def pin_for(self, python: str | None) -> str | None:
        """`pin` where it has a wheel for `python` ("3.11"; None: not shown, the pin stands), else None."""
        if self.pin is None or python is None or self.pin_python is None:
            return self.pin
        return self.pin if spec_contains(self.pin_python, python) else None


@_record
class LibraryArch(_Cited):
    """The GPU architectures in the prebuilt binaries of a library's releases from `since` up to `until` (excluded;
    None: to the newest): cubins for `arch`, PTX for `ptx` (compat_matrix/libraries.toml arch); `pin`, the release
    printed for the row, with the CPython versions it has wheels for."""

    package: str
    since: str
    until: str | None = None
    arch: tuple[str, ...]
    ptx: tuple[str, ...] = ()
    pin: str | None = None
    pin_python: str | None = None

    def holds(self, version: str) -> bool:
        key = version_key(version)
        return version_key(self.since) <= key and (self.until is None or key < version_key(self.until))

    def below_floor(self, cc: str) -> bool:
        """Whether a GPU of compute capability `cc` is below every architecture of the row: no cubin it can run and no
        PTX at or under it (gpudoctor.matrix.terms.kernel_route), and lower than the lowest cubin. A GPU newer than
        the list is not judged here: the rows read the floor, not every wheel's newest arch."""
        route, _ = kernel_route(self.arch, self.ptx, cc)
        floor = min((normalize_cc(a) or a for a in self.arch), key=version_key, default=None)
        return route == "none" and floor is not None and version_key(cc) < version_key(floor)

    def pin_for(self, python: str | None) -> str | None:
        """`pin` where it has a wheel for `python` ("3.11"; None: not shown, the pin stands), else None."""
        if self.pin is None or python is None or self.pin_python is None:
            return self.pin
        return self.pin if spec_contains(self.pin_python, python) else None


@_record
class BnbRelease(_Cited):
    """bitsandbytes' releases from `since` up to `until` (excluded; None: to the newest), on Linux x86_64 and Windows:
    `cuda`, the torch CUDA versions ("12.6") it ships a library for; `same_major`, whether it loads another library of
    torch's CUDA major where its own version has none; `torch` and `python`, what its wheels require (Requires-Dist,
    Requires-Python); `pin`, the release the planner prints for the row."""

    since: str
    until: str | None = None
    cuda: tuple[str, ...]
    same_major: bool = False
    torch: str | None = None
    python: str | None = None
    pin: str | None = None

    def holds(self, version: str) -> bool:
        key = version_key(version)
        return version_key(self.since) <= key and (self.until is None or key < version_key(self.until))

    def ships(self, cuda: str) -> bool:
        """Whether it loads a CUDA library for torch built with CUDA `cuda` ("12.6", "12.6.3")."""
        minor = ".".join(cuda.split(".")[:2])
        return minor in self.cuda or (self.same_major and any(c.split(".")[0] == minor.split(".")[0] for c in self.cuda))

    def accepts(self, torch: str | None, python: str | None) -> bool:
        """Whether its wheels install beside torch `torch` on CPython `python` (None: not known; a torch not known
        is accepted only by a release that names no torch version, so the install cannot move torch)."""
        if self.torch is not None and (torch is None or not spec_contains(self.torch, torch.split("+", 1)[0])):
            return False
        return python is None or self.python is None or spec_contains(self.python, python)
