"""The compatibility matrix: CUDA/driver, GPU, cuDNN and framework facts, each citing its source.

The data lives in ``compat_matrix/*.toml`` (shipped as the package ``gpudoctor.compat_matrix``).
``load_matrix()`` parses it lazily (never at import time) and caches the bundled matrix; candidate
files are validated in full (every problem collected into one MatrixError), the bundled data is
validated in full by the test suite and built with the cheap checks only. Every query on
:class:`Matrix` is pure: it reads the loaded data and nothing else.

Every record a query returns carries ``source`` (the source keys its row cites) and ``sources``
(the resolved :class:`Source` objects with title and url/document), so a finding can cite it.

Versions compare numerically part by part ("570.124.06" > "570.26"; "12.0" == "12").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from gpudoctor.matrix.terms import _cc_key, _norm_os, gpu_name_tokens, normalize_cc
from gpudoctor.versions import version_key, version_parts

# typing's constant without typing: a bare check imports this module (bench/README.md, h161)
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    from gpudoctor.matrix.records import (
        Arch,
        BnbRelease,
        C2cLink,
        CcTarget,
        CompanionRelease,
        CudaRelease,
        CudaRepo,
        CudnnMajor,
        CudnnPip,
        CudnnRelease,
        DriverBranch,
        Gpu,
        JaxPin,
        JaxRelease,
        LibraryArch,
        LibraryBuild,
        LinkSpec,
        MemorySettings,
        MinorCompat,
        PcieGen,
        Precision,
        PtxIsa,
        Source,
        TfRelease,
        Threshold,
        TorchPins,
        TorchRelease,
        TorchVariant,
        Verdict,
        _Cited,
    )

# --------------------------------------------------------------------------- version helpers


def _minor(version: str) -> tuple[int, int]:
    parts = version_parts(version)
    return (parts[0], parts[1] if len(parts) > 1 else 0)


def _minor_str(version: str) -> str:
    major, minor = _minor(version)
    return f"{major}.{minor}"


def _ge(a: str, b: str) -> bool:
    return version_key(a) >= version_key(b)


# --------------------------------------------------------------------------- specifiers
# --------------------------------------------------------------------------- GPU name matching

# --------------------------------------------------------------------------- the matrix

_FRAMEWORK_ALIASES = {"torch": "pytorch", "tf": "tensorflow", "jaxlib": "jax"}


class Matrix:
    """A loaded, validated compatibility matrix. Build it with :func:`load_matrix`."""

    def __init__(
        self,
        *,
        sources: Mapping[str, Source],
        cuda_releases: Iterable[CudaRelease],
        minor_compat: Iterable[MinorCompat],
        driver_branches: Iterable[DriverBranch],
        archs: Iterable[Arch],
        cc_targets: Iterable[CcTarget],
        gpus: Iterable[Gpu],
        cudnn_releases: Iterable[CudnnRelease],
        cudnn_majors: Iterable[CudnnMajor],
        cudnn_pip: Iterable[CudnnPip],
        torch_releases: Iterable[TorchRelease],
        tf_releases: Iterable[TfRelease],
        jax_releases: Iterable[JaxRelease],
        jax_pins: Iterable[JaxPin],
        precision_rows: Iterable[Precision],
        pcie: Iterable[PcieGen],
        c2c: Iterable[C2cLink],
        thresholds: Iterable[Threshold],
        memory: Iterable[MemorySettings],
        cuda_repos: Iterable[CudaRepo] = (),
        companions: Iterable[CompanionRelease] = (),
        torch_pins: Iterable[TorchPins] = (),
        library_builds: Iterable[LibraryBuild] = (),
        library_archs: Iterable[LibraryArch] = (),
        bnb_releases: Iterable[BnbRelease] = (),
        ptx_isas: Iterable[PtxIsa] = (),
        origins: Mapping[str, str] | None = None,
    ) -> None:
        self.sources: Mapping[str, Source] = dict(sources)
        self.cuda_releases = tuple(cuda_releases)
        self.minor_compat = tuple(minor_compat)
        self.driver_branches = tuple(sorted(driver_branches, key=lambda b: b.branch))
        self.archs = tuple(archs)
        self.cc_targets = tuple(sorted(cc_targets, key=lambda t: _cc_key(t.cc)))
        self.gpus = tuple(gpus)
        self.cudnn_releases = tuple(sorted(cudnn_releases, key=lambda r: version_key(r.version)))
        self.cudnn_majors = tuple(cudnn_majors)
        self.cudnn_pip = tuple(cudnn_pip)
        self.torch_releases = tuple(sorted(torch_releases, key=lambda r: version_key(r.version)))
        self.tf_releases = tuple(sorted(tf_releases, key=lambda r: version_key(r.version)))
        self.jax_releases = tuple(sorted(jax_releases, key=lambda r: version_key(r.version)))
        self.jax_pins = tuple(jax_pins)
        self.precision_rows = tuple(precision_rows)
        self.pcie = tuple(sorted(pcie, key=lambda p: p.gen))
        self.c2c = tuple(c2c)
        self.thresholds = tuple(thresholds)
        self.memory = tuple(memory)
        self.cuda_repos = tuple(cuda_repos)
        self.companions = tuple(companions)
        self.torch_pins = tuple(torch_pins)
        self.library_builds = tuple(library_builds)
        self.library_archs = tuple(sorted(library_archs, key=lambda r: (r.package, version_key(r.since))))
        self.bnb_releases = tuple(sorted(bnb_releases, key=lambda r: version_key(r.since)))
        self.ptx_isas = tuple(sorted(ptx_isas, key=lambda r: version_key(r.ptx)))
        #: file stem -> where it was read from ("bundled" or a path)
        self.origins: Mapping[str, str] = dict(origins or {})

        self._by_minor: dict[tuple[int, int], list[CudaRelease]] = {}
        self._by_release: dict[tuple[int, ...], CudaRelease] = {}
        for r in sorted(self.cuda_releases, key=lambda r: version_key(r.release)):
            self._by_minor.setdefault(_minor(r.cuda), []).append(r)
            self._by_release[version_key(r.release)] = r
        self._mvc = {m.major: m for m in self.minor_compat}
        self._cc = {t.cc: t for t in self.cc_targets}
        self._arch_of = {cc: a for a in self.archs for cc in a.ccs}
        self._gpu_index = [(gpu_name_tokens(g.name)[0], g) for g in self.gpus]
        self._torch = {_minor(r.version): r for r in self.torch_releases}
        self._tf = {_minor(r.version): r for r in self.tf_releases}
        self._precision = {p.cc: p for p in self.precision_rows}
        self._pcie = {p.gen: p for p in self.pcie}
        self._memory = {m.framework: m for m in self.memory}
        self._threshold = {t.name: t for t in self.thresholds}

    def __repr__(self) -> str:
        return (
            f"<Matrix {len(self.cuda_releases)} CUDA releases, {len(self.gpus)} GPUs, "
            f"{len(self.torch_releases)} torch, {len(self.tf_releases)} tensorflow, "
            f"{len(self.jax_releases)} jax rows, {len(self.sources)} sources>"
        )

    # ------------------------------------------------------------------ sources

    def source(self, key: str) -> Source | None:
        return self.sources.get(key)

    def sources_for(self, item: Any) -> tuple[Source, ...]:
        """The Source objects for a record (anything with ``.source``), a key, or keys."""
        if isinstance(item, str):
            keys: Iterable[str] = (item,)
        elif hasattr(item, "source"):
            keys = item.source
        else:
            keys = item
        return tuple(self.sources[k] for k in keys if k in self.sources)

    # ------------------------------------------------------------------ CUDA and drivers

    def cuda_versions(self) -> tuple[str, ...]:
        """The CUDA minors in the matrix, oldest first ("8.0", ..., "13.4")."""
        return tuple(f"{a}.{b}" for (a, b) in sorted(self._by_minor))

    def cuda_release(self, cuda: str) -> CudaRelease | None:
        """The release row for ``cuda``: the exact release ("12.2.2") or the minor's GA ("12.2")."""
        try:
            parts = version_parts(cuda)
        except ValueError:
            return None
        if len(parts) >= 3 and version_key(cuda) in self._by_release:
            return self._by_release[version_key(cuda)]
        rows = self._by_minor.get(_minor(cuda))
        if not rows:
            return None
        for r in rows:
            if not r.prerelease:
                return r
        return rows[0]

    def cuda_last_release(self, cuda: str) -> CudaRelease | None:
        """The newest release row of ``cuda``'s minor ("11.0" -> 11.0.3, its last update), prereleases left out."""
        try:
            rows = [r for r in self._by_minor.get(_minor(cuda), ()) if not r.prerelease]
        except ValueError:
            return None
        return max(rows, key=lambda r: version_key(r.release), default=None)

    def min_driver_for_cuda(self, cuda: str, os: str = "linux") -> str | None:
        """The toolkit driver: minimum driver for full support of ``cuda`` (None if NVIDIA lists none).

        "12.2" -> the GA row (535.54.03); "12.2.2" -> that update's row (535.104.05). Updates not
        in NVIDIA's table (e.g. "10.1.243", or an nvcc build number "12.2.140") use the GA row.
        """
        try:
            parts = version_parts(cuda)
        except ValueError:
            return None
        if len(parts) >= 3:
            exact = self._by_release.get(version_key(cuda))
            if exact is not None:
                return exact.driver(os)
        for r in self._by_minor.get(_minor(cuda), ()):
            if not r.prerelease and r.driver(os):
                return r.driver(os)
        return None

    def minor_compat_floor(self, cuda_major: int, os: str = "linux") -> str | None:
        """The minor-version-compatibility floor of a CUDA major (11 -> 450.80.02)."""
        row = self._mvc.get(int(cuda_major))
        return row.driver(os) if row else None

    def minor_compat_row(self, cuda_major: int) -> MinorCompat | None:
        """The minor-version-compatibility row of a CUDA major (floors, branch range, sources)."""
        return self._mvc.get(int(cuda_major))

    def driver_branch(self, driver: str) -> DriverBranch | None:
        """The branch row of a driver: the highest branch <= its first version part.

        Works for Windows numbering too (576.xx -> R575, 596.36 -> R595).
        """
        try:
            major = version_parts(driver)[0]
        except ValueError:
            return None
        best = None
        for b in self.driver_branches:
            if b.branch <= major:
                best = b
            else:
                break
        return best

    def ptx_isa(self, ptx: str) -> PtxIsa | None:
        """The row of PTX ISA ``ptx`` ("8.7" -> CUDA 12.8): the CUDA whose compiler writes it and whose driver loads it."""
        return next((r for r in self.ptx_isas if r.ptx == ptx), None)

    def smi_cuda_for_driver(self, driver: str) -> str | None:
        """The CUDA version nvidia-smi / cuDriverGetVersion reports for ``driver`` (R565 -> "12.7")."""
        b = self.driver_branch(driver)
        return b.cuda if b else None

    def max_cuda_for_driver(self, driver: str, os: str = "linux") -> str | None:
        """Newest CUDA release (minor, e.g. "12.2") whose toolkit driver is <= ``driver``.

        Where NVIDIA lists no toolkit driver for a newer minor (CUDA 13.x on Windows, 13.4), the
        driver-branch table decides. "12.7" (R565's nvidia-smi value) is not a toolkit release,
        so R565 gives "12.6".
        """
        try:
            version_parts(driver)
        except ValueError:
            return None
        best: str | None = None
        for r in self.cuda_releases:
            v = r.driver(os)
            if r.prerelease or not v or not _ge(driver, v):
                continue
            if best is None or version_key(r.cuda) > version_key(best):
                best = r.cuda
        b = self.driver_branch(driver)
        if (
            b is not None
            and _minor(b.cuda) in self._by_minor
            and (best is None or version_key(b.cuda) > version_key(best))
            and self.min_driver_for_cuda(b.cuda, os) is None
        ):
            floor = self.minor_compat_floor(_minor(b.cuda)[0], os)
            if floor is None or _ge(driver, floor):
                best = b.cuda
        return best

    def next_driver_floor(self, driver: str, os: str = "linux") -> CudaRelease | None:
        """The release whose toolkit driver is the lowest one above ``driver``: the least driver that serves a CUDA
        release this one does not ("352.99" -> 8.0 GA1, 367.48; "367.57" -> 8.0 GA2, 375.26). What a program built
        for a newer CUDA than ``driver`` serves needs at the least, where the build's CUDA is not known. A release of a
        major whose minor-version-compatibility floor ``driver`` meets is served already (CUDA 11 on: every toolkit of
        the major runs there, cuda_driver.toml minor_compat), so "525.125.06" -> 13.0 GA. None for a driver that every
        release listed is served by (or no version)."""
        try:
            version_parts(driver)
        except ValueError:
            return None

        def served(r: CudaRelease) -> bool:
            floor = self.minor_compat_floor(int(version_parts(r.cuda)[0]), os)
            return _ge(driver, r.driver(os) or "") or (floor is not None and _ge(driver, floor))

        above = [r for r in self.cuda_releases if not r.prerelease and r.driver(os) and not served(r)]
        return min(above, key=lambda r: (version_key(r.driver(os)), version_key(r.release)), default=None)

    def driver_supports_cuda(self, driver: str, cuda: str, os: str = "linux") -> Verdict:
        """Whether ``driver`` runs a CUDA ``cuda`` runtime on ``os``, fully or by minor-version compat."""
        from gpudoctor.matrix.records import Verdict

        osn = _norm_os(os)
        try:
            major, _m = _minor(cuda)
            version_parts(driver)
        except ValueError:
            return Verdict(
                ok=False,
                via=None,
                needed=None,
                floor=None,
                driver=str(driver),
                cuda=str(cuda),
                os=osn,
                known=False,
                reason=f"cannot read driver {driver!r} or CUDA {cuda!r}",
            )
        minor = _minor_str(cuda)
        mvc = self._mvc.get(major)
        floor = mvc.driver(osn) if mvc else None
        if _minor(cuda) not in self._by_minor:
            return Verdict(
                ok=False,
                via=None,
                needed=None,
                floor=floor,
                driver=driver,
                cuda=cuda,
                os=osn,
                known=False,
                reason=f"CUDA {cuda} is not in the compatibility matrix",
            )
        needed = self.min_driver_for_cuda(cuda, osn)
        row = self.cuda_release(cuda)

        def verdict(ok: bool, via: str | None, reason: str, cited: Iterable[_Cited | None]) -> Verdict:
            return self._cited_verdict(ok, via, reason, list(cited), needed=needed, floor=floor, driver=driver, cuda=cuda, os=osn)

        if needed is not None and _ge(driver, needed):
            return verdict(True, "full", f"driver {driver} >= {needed}, the toolkit driver of CUDA {cuda}", [row])
        if needed is None:
            branch = self.driver_branch(driver)
            if branch is not None and version_key(branch.cuda) >= version_key(minor) and (floor is None or _ge(driver, floor)):
                return verdict(
                    True,
                    "full",
                    f"NVIDIA lists no {osn} toolkit driver for CUDA {cuda}; driver branch R{branch.branch} "
                    f"serves CUDA {branch.cuda}",
                    [row, branch],
                )
        if floor is not None and _ge(driver, floor):
            need = f"below {needed}, " if needed else ""
            reason = (
                f"driver {driver} is {need}but >= {floor}, the CUDA {major}.x minor-version-compatibility "
                f"floor: the runtime works, but PTX from the newer toolkit cannot be JIT-compiled and "
                f"features that need a newer driver fail"
            )
            if osn == "windows" and mvc is not None and mvc.windows_alt and not _ge(driver, mvc.windows_alt):
                reason += f" (some NVIDIA tables give {mvc.windows_alt} as the Windows floor)"
            return verdict(True, "minor-version-compat", reason, [row, mvc])
        target = needed or floor
        if target:
            reason = f"driver {driver} is older than {target}, the minimum for CUDA {cuda}"
        else:
            reason = f"no driver minimum is known for CUDA {cuda} on {osn}"
        return verdict(False, None, reason, [row, mvc])

    def driver_cuda_supports_cuda(self, driver_cuda: str, cuda: str, os: str = "linux") -> Verdict:
        """Whether a driver known only by the CUDA version it reports (NVML's cuDriverGetVersion,
        nvidia-smi's header, --cuda) runs a CUDA ``cuda`` runtime. The driver's version number was not
        seen, so ``driver`` in the verdict is "" and ``needed``/``floor`` say what a driver must be.

        Every CUDA up to the reported one runs fully; a newer minor of the same major runs through
        minor-version compatibility only where every driver reporting that CUDA is at or above the
        major's floor (the oldest driver reporting CUDA 11.0, its GA driver 450.51.05, is below CUDA 11's
        450.80.02, so an "11.0" driver may not); a newer major never does (cuda-compat-guide).
        """
        from gpudoctor.matrix.records import Verdict
        from gpudoctor.versions import major_minor, vkey

        osn = _norm_os(os)
        have = major_minor(driver_cuda) or ""
        try:
            cmajor, _m = _minor(cuda)
            hmajor, _h = _minor(have)
        except ValueError:
            return Verdict(
                ok=False,
                via=None,
                needed=None,
                floor=None,
                driver="",
                cuda=str(cuda),
                os=osn,
                known=False,
                reason=f"cannot read CUDA {cuda!r} or the driver's CUDA {driver_cuda!r}",
            )
        mvc = self._mvc.get(cmajor)
        floor = mvc.driver(osn) if mvc else None
        needed = self.min_driver_for_cuda(cuda, osn)
        row = self.cuda_release(cuda)

        def verdict(ok: bool, via: str | None, reason: str, cited: Iterable[_Cited | None], known: bool = True) -> Verdict:
            return self._cited_verdict(
                ok, via, reason, list(cited), needed=needed, floor=floor, driver="", cuda=cuda, os=osn, known=known
            )

        if vkey(major_minor(cuda)) <= vkey(have):
            return verdict(True, "full", f"the driver reports CUDA {have}, so it runs CUDA {cuda} fully", [row])
        oldest = self._oldest_driver_reporting(have, osn)
        if cmajor == hmajor and floor and oldest and _ge(oldest, floor):
            return verdict(
                True,
                "minor-version-compat",
                f"every driver reporting CUDA {have} is >= {floor}, the CUDA {cmajor}.x minor-version-compatibility "
                f"floor: the runtime works, but PTX from the newer toolkit cannot be JIT-compiled",
                [row, mvc],
            )
        # The lowest driver that runs it: the major's floor (minor-version compatibility) or the toolkit
        # driver, whichever is lower (CUDA 11.0's own 450.51.05 is below CUDA 11's floor).
        target = min((d for d in (floor, needed) if d), key=vkey, default=None)
        if target is None:
            return verdict(False, None, f"no driver minimum is known for CUDA {cuda} on {osn}", [], known=False)
        return verdict(False, None, f"the driver reports CUDA {have}; CUDA {cuda} needs a driver >= {target}", [row, mvc])

    def _cited_verdict(
        self,
        ok: bool,
        via: str | None,
        reason: str,
        cited: list[_Cited | None],
        *,
        needed: str | None,
        floor: str | None,
        driver: str,
        cuda: str,
        os: str,
        known: bool = True,
    ) -> Verdict:
        """A driver verdict citing the sources of the rows it rests on (each key once, in order), at the
        lowest confidence among them: one builder for driver_supports_cuda and driver_cuda_supports_cuda."""
        from gpudoctor.matrix.records import Verdict

        keys = list(dict.fromkeys(k for c in cited if c is not None for k in c.source))
        return Verdict(
            ok=ok,
            via=via,
            needed=needed,
            floor=floor,
            driver=driver,
            cuda=cuda,
            os=os,
            known=known,
            reason=reason,
            source=tuple(keys),
            sources=self.sources_for(keys),
            confidence=min((c.confidence for c in cited if c is not None), key=_conf_rank, default="high"),
        )

    def _oldest_driver_reporting(self, have: str, os: str) -> str | None:
        """The lowest driver that reports CUDA `have`: the toolkit driver of the newest CUDA minor at or below
        it ("12.7", R565's nvidia-smi value, is no toolkit release: 12.6's driver bounds it)."""
        from gpudoctor.versions import major, vkey

        minors = [c for c in self.cuda_versions() if major(c) == major(have) and vkey(c) <= vkey(have)]
        for c in reversed(minors):
            d = self.min_driver_for_cuda(c, os)
            if d:
                return d
        return None

    # ------------------------------------------------------------------ GPUs and architectures

    def gpu_for_name(self, name: str) -> Gpu | None:
        """The GPU row for an NVML / nvidia-smi name (None when unknown or ambiguous)."""
        return self._match_gpu(name)[1]

    def compute_capability_for_gpu(self, name: str) -> str | None:
        """Compute capability for a GPU name as NVML / nvidia-smi print it.

        Robust to a leading "NVIDIA " / "Tesla ", letter case, punctuation ("A100-SXM4-40GB") and
        nvidia-smi truncation ("NVIDIA GeForce RTX 40..." -> "8.9" when every candidate agrees).
        """
        return self._match_gpu(name)[0]

    def _match_gpu(self, name: str) -> tuple[str | None, Gpu | None]:
        if not isinstance(name, str):
            return None, None
        q, truncated = gpu_name_tokens(name)
        if not q:
            return None, None
        if not truncated:
            best: Gpu | None = None
            best_len = 0
            for toks, g in self._gpu_index:
                if len(toks) > best_len and q[: len(toks)] == toks:
                    best, best_len = g, len(toks)
            return (best.cc, best) if best else (None, None)
        complete, partial = q[:-1], q[-1]
        definite: list[tuple[int, Gpu]] = []
        possible: list[Gpu] = []
        for toks, g in self._gpu_index:
            if len(toks) <= len(complete):
                if complete[: len(toks)] == toks:
                    definite.append((len(toks), g))
            elif toks[: len(complete)] == complete and toks[len(complete)].startswith(partial):
                possible.append(g)
        candidates = list(possible)
        if definite:
            candidates.append(max(definite, key=lambda t: t[0])[1])
        ccs = {g.cc for g in candidates}
        if len(ccs) != 1:
            return None, None
        return ccs.pop(), (candidates[0] if len(candidates) == 1 else None)

    def arch(self, cc: str) -> Arch | None:
        c = normalize_cc(cc)
        return self._arch_of.get(c) if c else None

    def arch_name(self, cc: str) -> str | None:
        """Architecture name of a compute capability ("9.0" / "sm_90" -> "Hopper")."""
        a = self.arch(cc)
        return a.name if a else None

    def cc_target(self, cc: str) -> CcTarget | None:
        c = normalize_cc(cc)
        return self._cc.get(c) if c else None

    def cuda_can_target(self, cuda: str, cc: str) -> bool | None:
        """Whether CUDA ``cuda`` can compile for ``cc`` (None if either is unknown to the matrix)."""
        t = self.cc_target(cc)
        try:
            m = _minor(cuda)
        except ValueError:
            return None
        if t is None or m not in self._by_minor:
            return None
        if t.first_cuda and m < _minor(t.first_cuda):
            return False
        return not (t.last_cuda and m > _minor(t.last_cuda))

    def cuda_cc_range(self, cuda: str) -> tuple[str, str] | None:
        """(lowest, highest) compute capability CUDA ``cuda`` can target; None if CUDA is unknown."""
        ccs = [t.cc for t in self.cc_targets if self.cuda_can_target(cuda, t.cc)]
        if not ccs:
            return None
        return ccs[0], ccs[-1]

    # ------------------------------------------------------------------ cuDNN

    def cudnn_release(self, version: str) -> CudnnRelease | None:
        """The cuDNN release row covering ``version`` ("8.9.7.29", "8.9", "9.1.0")."""
        try:
            key = version_key(".".join(str(p) for p in version_parts(version)[:3]))
        except ValueError:
            return None
        for r in self.cudnn_releases:
            if version_key(r.version) <= key <= version_key(r.through):
                return r
        return None

    def cudnn_cuda_majors(self, version: str) -> tuple[int, ...]:
        """CUDA majors a cuDNN release ships builds for (() when the release is unknown)."""
        r = self.cudnn_release(version)
        return r.cuda_majors if r else ()

    def cudnn_major(self, major: int) -> CudnnMajor | None:
        for m in self.cudnn_majors:
            if m.major == int(major):
                return m
        return None

    # ------------------------------------------------------------------ frameworks

    def companion_releases(self, package: str) -> tuple[CompanionRelease, ...]:
        """The matrix's rows for one companion of torch (compat_matrix/torch.toml `companion`), oldest first."""
        return tuple(r for r in self.companions if r.package == package)

    def companion_for(self, package: str, torch_version: str) -> CompanionRelease | None:
        """The newest release of `package` whose published binaries are built for `torch_version`."""
        fits = [r for r in self.companion_releases(package) if r.fits(torch_version)]
        return fits[-1] if fits else None

    def companion_nearest(
        self, package: str, installed: str, torch_version: str, cuda: str | None = None
    ) -> CompanionRelease | None:
        """The release of `package` nearest above `installed` whose binaries are built for `torch_version` (a companion
        moves to the torch, the least it can: rows sorted by version); the newest such release when none is above it;
        with `installed` unknown ("": a pasted message named no version), the first such release. `cuda`: torch's CUDA,
        whose major a row that names its binaries' CUDA majors must have (flash-attn 2.7.4.post1 on: CUDA 12 only)."""
        from packaging.version import InvalidVersion, Version

        fits = [r for r in self.companion_releases(package) if r.serves(torch_version, cuda)]
        if not installed:
            return fits[0] if fits else None
        try:
            newer = [r for r in fits if Version(r.version) > Version(installed.split("+", 1)[0])]
        except InvalidVersion:
            newer = []
        return newer[0] if newer else (fits[-1] if fits else None)

    def library_builds_of(self, package: str) -> tuple[LibraryBuild, ...]:
        """The matrix's builds of a library tied to one CUDA/cuDNN major (compat_matrix/libraries.toml), oldest first."""
        return tuple(b for b in self.library_builds if b.package == package)

    def bnb_first_for(self, cuda: str) -> BnbRelease | None:
        """The oldest bitsandbytes release (from 0.43.0, the first with official wheels) that ships a library for torch
        built with CUDA `cuda` ("12.6"), or None."""
        return next((r for r in self.bnb_releases if r.ships(cuda)), None)

    def bnb_pin_for(self, cuda: str, torch: str | None, python: str | None) -> BnbRelease | None:
        """The newest pinned bitsandbytes release that ships a library for torch's CUDA `cuda` and installs beside the
        installed torch (`torch`; None when not known: only a release naming no torch version) on CPython `python`."""
        return next((r for r in reversed(self.bnb_releases) if r.pin and r.ships(cuda) and r.accepts(torch, python)), None)

    def library_build(self, package: str, version: str) -> LibraryBuild | None:
        """The build of `package` that release `version` ("4.5.0", "1.17.0+cu118") is, or None outside the rows."""
        try:
            return next((b for b in self.library_builds_of(package) if b.holds(version.split("+", 1)[0])), None)
        except ValueError:
            return None

    def library_archs_of(self, package: str) -> tuple[LibraryArch, ...]:
        """The matrix's rows of the GPU architectures in `package`'s prebuilt binaries (libraries.toml arch), oldest
        first."""
        return tuple(r for r in self.library_archs if r.package == package)

    def library_arch(self, package: str, version: str) -> LibraryArch | None:
        """The row of `package`'s architectures that release `version` ("1.6.2", "4.5.0+cu12") is in, or None."""
        try:
            return next((r for r in self.library_archs_of(package) if r.holds(version.split("+", 1)[0])), None)
        except ValueError:
            return None

    def torch_release(self, version: str) -> TorchRelease | None:
        """The PyTorch release row for "2.1", "2.1.2" or "2.1.0+cu121"."""
        try:
            return self._torch.get(_minor(version))
        except ValueError:
            return None

    def nvidia_pins(self, torch_version: str, tag: str) -> TorchPins | None:
        """The NVIDIA wheels the build `tag` of torch `torch_version` ("2.2.1", "2.2.1+cu121") pins, where the matrix
        read that build (the release's PyPI build: torch.toml nvidia_pins), else None."""
        base = torch_version.split("+", 1)[0]
        return next((p for p in self.torch_pins if p.torch == base and p.variant == tag), None)

    def torch_variant(self, torch_version: str, cuda_version: str | None = None) -> TorchVariant | None:
        """The CUDA variant of a PyTorch release.

        ``cuda_version`` may be "12.1", "12.1.105" or a tag "cu121". Without it, the local tag of
        ``torch_version`` decides ("2.1.0+cu121"); a plain version means the PyPI default build.
        """
        rel = self.torch_release(torch_version)
        if rel is None:
            return None
        if cuda_version is None:
            local = str(torch_version).partition("+")[2]
            if not local:
                return rel.variants.get(rel.pypi_default)
            tag = local.lower()
        else:
            s = str(cuda_version).strip().lower()
            if s.startswith("cu"):
                tag = s
            else:
                try:
                    a, b = _minor(s)
                except ValueError:
                    return None
                tag = f"cu{a}{b}"
        return rel.variants.get(tag)

    def torch_variant_at_or_below(self, torch_version: str, tag: str) -> tuple[TorchRelease, TorchVariant] | None:
        """(release, variant) of the newest release at or below ``torch_version``'s X.Y that has the
        variant ``tag`` ("cu124"): what a nightly's kernels are judged by, since nightlies of one CUDA
        variant are built with that variant's arch list, which the next release ships (or drops)."""
        try:
            key = _minor(torch_version)
        except ValueError:
            return None
        tag = tag.strip().lower()
        found = [r for r in self.torch_releases if _minor(r.version) <= key and tag in r.variants]
        if not found:
            return None
        rel = max(found, key=lambda r: _minor(r.version))
        return rel, rel.variants[tag]

    def tensorflow_release(self, version: str) -> TfRelease | None:
        """The TensorFlow row for "2.10", "2.10.1", ..."""
        try:
            return self._tf.get(_minor(version))
        except ValueError:
            return None

    def jax_release(self, version: str) -> JaxRelease | None:
        """The JAX row in force for ``version`` (the newest row whose version <= it)."""
        try:
            key = version_key(version)
        except ValueError:
            return None
        best = None
        for r in self.jax_releases:
            if version_key(r.version) <= key:
                best = r
        return best

    # ------------------------------------------------------------------ precision, links, memory

    def precision_info(self, cc: str) -> Precision | None:
        c = normalize_cc(cc)
        return self._precision.get(c) if c else None

    def precisions(self, cc: str) -> tuple[str, ...] | None:
        """Tensor Core formats of a compute capability (() = no Tensor Cores, None = unknown CC)."""
        p = self.precision_info(cc)
        return p.precisions if p else None

    def link(self, pcie_gen: int | str, width: int | str = 16) -> LinkSpec | None:
        """Theoretical and typical measured per-direction bandwidth of PCIe ``pcie_gen`` x``width``."""
        from gpudoctor.matrix.records import LinkSpec

        try:
            gen = int(str(pcie_gen).lower().removeprefix("gen").removeprefix("pcie").strip())
            w = int(str(width).lower().removeprefix("x").strip())
        except ValueError:
            return None
        row = self._pcie.get(gen)
        if row is None or w <= 0:
            return None
        theo = round(row.per_lane_gb_per_s * w, 2)

        def share(x: float | None) -> float | None:
            return round(theo * x, 2) if x is not None else None

        return LinkSpec(
            kind="pcie",
            name=f"PCIe Gen{gen} x{w}",
            gen=gen,
            width=w,
            encoding=row.encoding,
            theoretical_gb_per_s=theo,
            practical_gb_per_s=share(row.practical_share),
            practical_low_gb_per_s=share(row.practical_share_low),
            practical_high_gb_per_s=share(row.practical_share_high),
            source=row.source,
            sources=row.sources,
            note=row.note,
            confidence=row.confidence,
        )

    def c2c_link(self, system: str) -> LinkSpec | None:
        """NVLink-C2C CPU<->GPU bandwidth of a Grace system ("GH200", "GB200")."""
        from gpudoctor.matrix.records import LinkSpec

        s = system.strip().lower()
        for row in self.c2c:
            if any(s == x.lower() for x in row.systems):
                return LinkSpec(
                    kind="nvlink-c2c",
                    name=row.name,
                    theoretical_gb_per_s=row.bidirectional_gb_per_s / 2,
                    practical_gb_per_s=row.practical_gb_per_s,
                    practical_low_gb_per_s=row.practical_low,
                    practical_high_gb_per_s=row.practical_high,
                    source=row.source,
                    sources=row.sources,
                    note=row.note,
                    confidence=row.confidence,
                )
        return None

    def link_threshold(self, name: str) -> Threshold | None:
        """A bandwidth rule-of-thumb, e.g. "suspicious_below_share" (0.5)."""
        return self._threshold.get(name)

    def memory_setting(self, framework: str) -> MemorySettings | None:
        """Memory behaviour and controls of "tensorflow", "pytorch"/"torch" or "jax"."""
        f = framework.strip().lower()
        return self._memory.get(_FRAMEWORK_ALIASES.get(f, f))

    # ------------------------------------------------------------------ NVIDIA's CUDA repositories

    def cuda_repo_for(self, distro_id: str | None, version_id: str | None) -> CudaRepo | None:
        """NVIDIA's CUDA repository for this distribution release (os-release ID and VERSION_ID), if known."""
        for r in self.cuda_repos:
            if r.serves(distro_id, version_id):
                return r
        return None

    # ------------------------------------------------------------------ summary

    def summary(self) -> dict[str, Any]:
        """Counts and newest entries per section, for a one-screen overview."""
        return {
            "cuda": {"releases": len(self.cuda_releases), "newest": self.cuda_versions()[-1] if self._by_minor else None},
            "gpu": {"gpus": len(self.gpus), "compute_capabilities": len(self.cc_targets), "architectures": len(self.archs)},
            "cudnn": {
                "releases": len(self.cudnn_releases),
                "newest": self.cudnn_releases[-1].through if self.cudnn_releases else None,
            },
            "torch": {
                "releases": len(self.torch_releases),
                "newest": self.torch_releases[-1].version if self.torch_releases else None,
            },
            "tensorflow": {
                "releases": len(self.tf_releases),
                "newest": self.tf_releases[-1].version if self.tf_releases else None,
            },
            "jax": {"rows": len(self.jax_releases), "newest": self.jax_releases[-1].version if self.jax_releases else None},
            "precision": {"compute_capabilities": len(self.precision_rows)},
            "link": {"pcie_generations": len(self.pcie), "c2c": len(self.c2c)},
            "memory": {"frameworks": len(self.memory), "controls": sum(len(m.controls) for m in self.memory)},
            "repos": {"repositories": len(self.cuda_repos)},
            "sources": {"declared": len(self.sources)},
        }


_CONF_ORDER = {"low": 0, "medium": 1, "high": 2}


def _conf_rank(c: str) -> int:
    return _CONF_ORDER.get(c, 2)
