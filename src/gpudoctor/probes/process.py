"""Which copy of each CUDA library a running process really mapped: /proc/PID/maps, read bounded.

The static loader model (gpudoctor.probes.loading) says which copy ld.so would load; a running job may
differ (a library dlopen()ed by full path, an LD_LIBRARY_PATH set only in the job's own environment,
another interpreter). The kernel lets the process's owner and root read its maps (ptrace access mode
PTRACE_MODE_READ); anyone else gets EACCES, reported as such. The prediction's copies are resolved to
their real files here, since maps names the file a link leads to (libcudart.so.12.1.105).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

from gpudoctor.extension_facts import MappedLibrary, ProcessFacts
from gpudoctor.facts import LoadingFacts
from gpudoctor.host import Host, HostError

MAX_MAPS_BYTES = 16 * 1024 * 1024  # a large training process maps a few thousand regions: under 1 MiB
MAX_MAPPED = 512
# The libraries whose copy decides a CUDA job: the runtime libraries (gpudoctor.probes.common.CUDA_LIB's
# families, by file name as mapped, versioned or hashed) and the driver's.
_LIBRARY = re.compile(
    r"^(lib(?:cudart|cublas|cublasLt|cudnn|cudnn_[a-z_]+|nvrtc|cufft|cusparse|cusolver|curand|nccl|nvJitLink|cuda|nvidia-ml))"
    r"(?:-[0-9a-f]{8})?\.so(?:\.\d+)*$"
)


def library_stem(name: str) -> str | None:
    """libcudart for libcudart.so.12.1.105, libcudart-e409450e.so.11.0 or libcudart.so.12; None for others."""
    m = _LIBRARY.match(name)
    return m.group(1) if m else None


def parse_maps(text: str) -> tuple[MappedLibrary, ...]:
    """The CUDA libraries in a maps text, each file once, in the order first mapped."""
    seen: dict[str, MappedLibrary] = {}
    for line in text.splitlines():
        fields = line.split(None, 5)
        if len(fields) < 6 or not fields[5].startswith("/"):
            continue
        path = fields[5].strip()
        if path.endswith(" (deleted)"):
            path = path[: -len(" (deleted)")]
        name = posixpath.basename(path)
        if library_stem(name) and path not in seen and len(seen) < MAX_MAPPED:
            seen[path] = MappedLibrary(name, path)
    return tuple(seen.values())


@dataclass(frozen=True)
class MappedVerdict:
    """One library file a process mapped, beside the copies the loader model predicts for its family."""

    library: str  # the family: libcudart, libcudnn_ops, libnccl, ...
    path: str  # the file the process mapped
    predicted: tuple[tuple[str, str], ...]  # (framework, the real file its copy leads to) for this family
    verdict: str  # "as-predicted", "differs" (another file than some framework's), or "not-predicted"

    @property
    def differs_from(self) -> tuple[tuple[str, str], ...]:
        return tuple((fw, real) for fw, real in self.predicted if real != self.path)


def compare_mapped(proc: ProcessFacts) -> tuple[MappedVerdict, ...]:
    """Each mapped CUDA library judged against the prediction: the one answer `check --pid` and `memory --pid` give.

    Another file than a framework's predicted copy differs; so does the second of two copies of one library
    in one process, since one of them is then not the predicted file."""
    out = []
    for m in proc.mapped:
        stem = library_stem(m.soname) or m.soname
        predicted = tuple(dict.fromkeys((fw, real) for fw, soname, real in proc.predicted if library_stem(soname) == stem))
        if not predicted:
            verdict = "not-predicted"
        elif any(real != m.path for _, real in predicted):
            verdict = "differs"
        else:
            verdict = "as-predicted"
        out.append(MappedVerdict(stem, m.path, predicted, verdict))
    return tuple(out)


def probe_process(host: Host, pid: int, loading: LoadingFacts | None) -> ProcessFacts:
    path = f"/proc/{int(pid)}/maps"
    try:
        text = host.read_text(path, MAX_MAPS_BYTES)
    except HostError as exc:
        missing = (
            f"process {pid}'s maps are not recorded in the snapshot" if host.mode == "replay" else f"no process {pid} is running"
        )
        why = {
            "ENOENT": missing,
            "EACCES": f"process {pid} belongs to another user: run as its owner or root",
        }.get(exc.code, str(exc))
        return ProcessFacts(int(pid), error=why)
    mapped = parse_maps(text)
    predicted: list[tuple[str, str, str]] = []
    for fw in loading.frameworks if loading is not None else ():
        for res in fw.loads:
            if res.path is None:
                continue
            real = host.realpath(res.path) or res.path
            predicted.append((fw.framework, res.soname, real))
    return ProcessFacts(int(pid), mapped, None, tuple(predicted))
