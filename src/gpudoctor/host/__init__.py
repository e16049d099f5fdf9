"""The one seam through which gpudoctor touches a machine.

Every probe asks a `Host`; nothing else reads files, runs commands, loads NVML
or looks at the environment. Three hosts implement it: `LiveHost` (the real
machine, or a temporary root for mutation tests), `RecordingHost` (live, and
writes every answer into a snapshot) and `ReplayHost` (answers only from a
snapshot). Because recording happens here, everything above the seam runs
unchanged when a machine is replayed.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Mapping
from dataclasses import field

from gpudoctor.host import winpath
from gpudoctor.lazypattern import LazyPattern
from gpudoctor.record import MutableRecord, Record, record_class

# typing's constant without typing: a live check imports this module before it starts the user's interpreter
# (bench/README.md, h151)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from gpudoctor.elf import ElfDynamic
    from gpudoctor.elfsyms import ElfSymbols

# Environment variables a probe may see. An allow-list, never the whole
# environment: snapshots are shared, and environments hold secrets.
ENV_NAMES = (
    "PATH",
    "LD_LIBRARY_PATH",
    "LD_PRELOAD",  # preloaded objects win every soname they carry (gpudoctor.loader)
    "CUDA_HOME",
    "CUDA_PATH",
    "CUDA_ROOT",
    "CUDA_VISIBLE_DEVICES",
    "CUDA_DEVICE_ORDER",
    "NVIDIA_VISIBLE_DEVICES",
    "NVIDIA_DRIVER_CAPABILITIES",
    "NVIDIA_REQUIRE_CUDA",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "CONDA_DEFAULT_ENV",
    "TF_FORCE_GPU_ALLOW_GROWTH",
    "TF_GPU_ALLOCATOR",
    "TF_CPP_MIN_LOG_LEVEL",
    "XLA_PYTHON_CLIENT_PREALLOCATE",
    "XLA_PYTHON_CLIENT_MEM_FRACTION",
    "XLA_PYTHON_CLIENT_ALLOCATOR",
    "XLA_FLAGS",
    "PYTORCH_CUDA_ALLOC_CONF",
    "PYTORCH_ALLOC_CONF",
    "PYTORCH_NO_CUDA_MEMORY_CACHING",
    "JAX_PLATFORMS",
    "WSL_DISTRO_NAME",
    "WSL_INTEROP",
    "KUBERNETES_SERVICE_HOST",
    "container",
    "SLURM_JOB_ID",
    "SLURM_JOB_GPUS",
    "SLURM_STEP_GPUS",
    "PBS_JOBID",  # a PBS/Torque job (gpudoctor.planner.cluster)
    "LSB_JOBID",  # an LSF job
    # NCCL variables that turn transports off (gpudoctor.checks.extensions, nccl-transport-disabled).
    "NCCL_P2P_DISABLE",
    "NCCL_SHM_DISABLE",
    "NCCL_IB_DISABLE",
    "NCCL_NVLS_ENABLE",
    "NCCL_P2P_LEVEL",
    "NCCL_NET_GDR_LEVEL",
    # Windows: where Program Files and the Windows folder are (the toolkits and nvidia-smi.exe live there).
    "ProgramFiles",
    "SystemRoot",
)
# Windows' CUDA installer sets one CUDA_PATH_VX_Y per toolkit beside CUDA_PATH; recorded by pattern, each beside the
# literal its names begin with: a live host reads its environment before the user's interpreter is started, and the
# pattern is compiled only where a name begins so (compiled at import, 0.5 M instructions of every live check on
# Linux, where none does: bench/README.md, h242).
ENV_PATTERNS = (("CUDA_PATH_V", LazyPattern(r"CUDA_PATH_V\d+_\d+\Z")),)


class HostError(Exception):
    """A question the machine answered with an error, such as ENOENT or EACCES.

    `code` is the errno name (`ENOENT`, `EACCES`, `EISDIR`, `ENOTDIR`, `EIO`,
    `ELOOP`), or one of ours: `EBINARY` for a file that is not text, `ETOOBIG`
    for one larger than a probe will read (or an interpreter whose output passed
    the cap), `ENOTREG` for a FIFO, socket or device where a file was expected.
    """

    def __init__(self, code: str, path: str, detail: str = "") -> None:
        super().__init__(f"{code}: {path}" + (f" ({detail})" if detail else ""))
        self.code = code
        self.path = path
        self.detail = detail

    @property
    def missing(self) -> bool:
        return self.code in ("ENOENT", "ENOTDIR")


@record_class(frozen=True, eq=False, repr=False)
class PathInfo(Record):
    """What `lstat` says of a path, plus whether this user may read and write it.

    `kind` is `file`, `dir`, `link`, `char` (a character device such as
    /dev/nvidia0), `other`, `missing`, or `error` (stat itself failed;
    `error` holds the errno name).
    """

    path: str
    kind: str
    target: str | None = None
    readable: bool | None = None
    writable: bool | None = None
    error: str | None = None

    @property
    def exists(self) -> bool:
        return self.kind not in ("missing", "error")


@record_class(frozen=True, eq=False, repr=False)
class CommandResult(Record):
    """The result of running one argv with a time limit.

    `missing` means the executable was not found; `timed_out` that it was
    killed at its time limit; `overflow` that it was killed because its output
    passed gpudoctor.bounded.MAX_COMMAND_OUTPUT (`stderr` then says so, and
    `stdout` is empty). None raises: each is a fact about the machine.
    """

    argv: tuple[str, ...]
    rc: int | None
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False
    missing: bool = False
    duration_s: float = 0.0
    overflow: bool = False

    @property
    def key(self) -> str:
        return command_key(self.argv)

    @property
    def ok(self) -> bool:
        return self.rc == 0 and not self.timed_out and not self.missing and not self.overflow


def command_key(argv: tuple[str, ...] | list[str]) -> str:
    """The command line as a person would type it: the snapshot's key for a command."""
    # Imported here: a replayed machine's commands and a recording's are keyed, a live check's are not, and importing
    # shlex with this module delayed the start of the user's interpreter by 1.2 M instructions (bench/README.md, h242).
    import shlex

    return shlex.join(argv)


@record_class(eq=False, repr=False)
class PythonEnv(MutableRecord):
    """The Python environment the user works in, as its own interpreter reports it."""

    executable: str
    version: str
    prefix: str = ""
    kind: str = "system"  # venv, conda or system
    site_packages: list[str] = field(default_factory=list)
    distributions: dict[str, str] = field(default_factory=dict)
    # Where each distribution is installed: name -> site-packages directory.
    locations: dict[str, str] = field(default_factory=dict)
    how: str = "in-process"  # in-process, subprocess or snapshot

    def to_json(self) -> dict[str, Any]:
        return {
            "executable": self.executable,
            "version": self.version,
            "prefix": self.prefix,
            "kind": self.kind,
            "site_packages": list(self.site_packages),
            "distributions": dict(self.distributions),
            "locations": dict(self.locations),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], how: str = "snapshot") -> PythonEnv:
        dists = data.get("distributions") or {}
        return cls(
            executable=str(data.get("executable", "python3")),
            version=str(data.get("version", "")),
            prefix=str(data.get("prefix", "")),
            kind=str(data.get("kind", "system")),
            site_packages=[str(p) for p in data.get("site_packages") or []],
            distributions={canonical_name(str(k)): str(v) for k, v in dists.items()},
            locations={canonical_name(str(k)): str(v) for k, v in (data.get("locations") or {}).items()},
            how=how,
        )


def canonical_name(name: str) -> str:
    """PEP 503 normalisation, so `nvidia_cudnn_cu12` and `nvidia-cudnn-cu12` are one name."""
    out = []
    prev_sep = False
    for ch in name.lower():
        if ch in "-_.":
            if not prev_sep:
                out.append("-")
            prev_sep = True
        else:
            out.append(ch)
            prev_sep = False
    return "".join(out)


class Host:
    """The protocol every host implements, plus helpers built only on it.

    Paths are absolute POSIX paths as seen on the probed machine.
    """

    #: `live`, `recording` or `replay`; shown in reports.
    mode = "live"

    # --- primitives -----------------------------------------------------
    def read_text(self, path: str, max_bytes: int = 4 * 1024 * 1024) -> str:
        raise NotImplementedError

    def stat(self, path: str) -> PathInfo:
        raise NotImplementedError

    def list_dir(self, path: str) -> list[str]:
        raise NotImplementedError

    def run(self, argv: list[str] | tuple[str, ...], timeout_s: float, key: str | None = None) -> CommandResult:
        """Run argv (never through a shell) with a time limit.

        `key` names the command in snapshots instead of its full command line, for commands whose
        argv is long and internal (the --deep import script); people write snapshots by that name.
        """
        raise NotImplementedError

    def env(self) -> Mapping[str, str]:
        raise NotImplementedError

    def elf(self, path: str) -> ElfDynamic:
        """The dynamic section of the ELF file at `path` (gpudoctor.elf): what the loader reads of it.

        Raises HostError: ENOENT, EACCES, ENOTREG, ENOEXEC (not ELF, or unreadable within the reader's
        bounds), ENODATA (a snapshot that holds the file but not its ELF record).
        """
        raise NotImplementedError

    def elf_symbols(self, path: str, keep: Callable[[str], bool] | None = None) -> ElfSymbols:
        """The dynamic symbols of the ELF file at `path` (gpudoctor.elfsyms), exported names filtered by `keep`.

        Read only for installed extensions and the torch they bind to. Raises HostError as `elf` does.
        """
        raise HostError("ENODATA", path, "this host does not read symbol tables")

    def nvml(self, timeout_s: float) -> dict[str, Any]:
        raise NotImplementedError

    def python_env(self, executable: str | None, timeout_s: float) -> PythonEnv | None:
        raise NotImplementedError

    def python_env_started(self, executable: str | None, timeout_s: float) -> Callable[[], PythonEnv | None]:
        """`python_env` in two steps: what can be read or started now is, and the function returned gives the
        answer (gpudoctor.probes starts the user's interpreter so, then waits for it in a thread). Here nothing
        is started: the function asks `python_env` (a snapshot answers at once). HostError from either step."""
        return lambda: self.python_env(executable, timeout_s)

    def start_python_env_early(self, executable: str | None, timeout_s: float) -> None:
        """Start the user's interpreter ahead of the probes, for the next `python_env_started` with the same
        arguments (gpudoctor.host.live). Here there is nothing to start ahead: a snapshot answers at once."""

    def platform(self) -> dict[str, str]:
        raise NotImplementedError

    def pasted(self) -> dict[str, Any]:
        """A partial snapshot's `partial` flag and `pasted` section (docs/pasted.md); {} for a whole machine."""
        return {}

    # --- derived, identical for every host --------------------------------
    def exists(self, path: str) -> bool:
        return self.resolve_stat(path).exists

    def is_dir(self, path: str) -> bool:
        return self.resolve_stat(path).kind == "dir"

    def resolve_stat(self, path: str) -> PathInfo:
        """`stat` that follows links; a dangling link reports `missing`."""
        real = self.realpath(path)
        if real is None:
            return PathInfo(path, "missing")
        return self.stat(real)

    def realpath(self, path: str, _depth: int = 0) -> str | None:
        """Resolve every link in `path` through this host; None when it does not exist, or a link dangles or loops."""
        if winpath.is_windows_path(path):
            # Windows links (junctions) are not followed: the path is its own answer where it exists.
            return winpath.canon(path) if self.stat(path).exists else None
        parts = [p for p in path.split("/") if p not in ("", ".")]
        current = "/"
        for i, part in enumerate(parts):
            if part == "..":
                current = posixpath.dirname(current) or "/"
                continue
            candidate = posixpath.join(current, part)
            info = self.stat(candidate)
            if info.kind == "link" and info.target is not None:
                if _depth > 40:
                    return None
                target = info.target
                if not target.startswith("/"):
                    target = posixpath.join(current, target)
                rest = "/".join(parts[i + 1 :])
                resolved = self.realpath(target, _depth + 1)
                if resolved is None:
                    return None
                return self.realpath(posixpath.join(resolved, rest), _depth + 1) if rest else resolved
            if info.kind == "missing":
                return None
            current = candidate
        return current

    def which(self, name: str) -> str | None:
        """The first `name` on this host's PATH that exists (as `command -v` finds it; `where` on Windows)."""
        if self.platform().get("system") == "Windows":
            return winpath.which(self.env().get("PATH", ""), name, lambda p: self.stat(p).kind == "file")
        for directory in self.env().get("PATH", "").split(":"):
            if not directory.startswith("/"):
                continue
            candidate = posixpath.join(directory, name)
            info = self.resolve_stat(candidate)
            if info.kind == "file":
                return candidate
        return None

    def read_text_or_none(self, path: str) -> str | None:
        try:
            return self.read_text(path)
        except HostError:
            return None
