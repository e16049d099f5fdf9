"""MIG profiles per GPU model, and which profiles give each job its budget in hardware.

The table restates NVIDIA's MIG user guide ("Supported MIG Profiles", SOURCE): for each profile its
compute slices (the "Ng"), its memory slices (the guide's "fraction of memory") and how many
instances of it one GPU holds. Media-extension (+me) profiles are left out: they give no memory.

A profile's name says its memory in rounded decimal GB; what a process can use is smaller. Usable
memory is estimated as slices/total slices x the GPU's total memory x USABLE_FACTOR. Real instances
seen in captures (tests/fixtures) are 0.975 (A100-40GB 3g.20gb: 19968 MiB), 0.979 to 0.992 (H100 80GB
1g.10gb, 2g.20gb, 3g.40gb: 9984, 20096, 40448 MiB) and 0.95 (A100-40GB 1g.5gb: 4.75 GiB, JuliaGPU
docs) of that product: 0.95 is the smallest seen. `nvidia-smi mig -lgip` prints the exact sizes.
"""

from __future__ import annotations

from dataclasses import dataclass

SOURCE = "NVIDIA Multi-Instance GPU User Guide: Supported MIG Profiles"
SOURCE_URL = "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html"
USABLE_FACTOR = 0.95
GIB = 1024**3


@dataclass(frozen=True)
class MigProfile:
    name: str  # "3g.40gb"
    compute: int  # compute slices
    memory: int  # memory slices
    max_instances: int


@dataclass(frozen=True)
class MigGpu:
    model: str
    names: tuple[str, ...]  # substrings of the GPU name that select this row
    min_gib: float  # total memory range (GiB) that tells boards of one name apart
    max_gib: float
    compute_slices: int
    memory_slices: int
    profiles: tuple[MigProfile, ...]
    confidence: str = "high"  # medium: names read from the guide's prose and third-party configs, not its table
    note: str = ""


def _p(name: str, compute: int, memory: int, count: int) -> MigProfile:
    return MigProfile(name, compute, memory, count)


def _seven(names: tuple[str, str, str, str, str, str]) -> tuple[MigProfile, ...]:
    """The A100/H100/H200 family: 7 compute and 8 memory slices, six profiles of the same shape."""
    one, one_double, two, three, four, seven = names
    return (
        _p(one, 1, 1, 7),
        _p(one_double, 1, 2, 4),
        _p(two, 2, 2, 3),
        _p(three, 3, 4, 2),
        _p(four, 4, 4, 1),
        _p(seven, 7, 8, 1),
    )


TABLE: tuple[MigGpu, ...] = (
    MigGpu("A30 24GB", ("A30",), 20, 30, 4, 4, (_p("1g.6gb", 1, 1, 4), _p("2g.12gb", 2, 2, 2), _p("4g.24gb", 4, 4, 1))),
    MigGpu(
        "A100 40GB",
        ("A100",),
        35,
        45,
        7,
        8,
        _seven(("1g.5gb", "1g.10gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb")),
        note="1g.10gb needs driver R525 or newer.",
    ),
    MigGpu("A100 80GB", ("A100",), 70, 90, 7, 8, _seven(("1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"))),
    MigGpu("H100 80GB", ("H100",), 70, 85, 7, 8, _seven(("1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"))),
    MigGpu(
        "H100 94GB",
        ("H100",),
        85,
        100,
        7,
        8,
        _seven(("1g.12gb", "1g.24gb", "2g.24gb", "3g.47gb", "4g.47gb", "7g.94gb")),
        confidence="medium",
    ),
    MigGpu(
        "H200 141GB",
        ("H200",),
        130,
        150,
        7,
        8,
        _seven(("1g.18gb", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb")),
        confidence="medium",
    ),
)


def mig_gpu(name: str | None, total_bytes: int | None) -> MigGpu | None:
    """The table row of a GPU, by name and total memory; None for a GPU without MIG (or one not in the table)."""
    if not name or not total_bytes:
        return None
    gib = total_bytes / GIB
    for row in TABLE:
        if any(n in name for n in row.names) and row.min_gib <= gib < row.max_gib:
            return row
    return None


def usable_bytes(row: MigGpu, profile: MigProfile, total_bytes: int) -> int:
    return int(total_bytes * profile.memory / row.memory_slices * USABLE_FACTOR)


@dataclass(frozen=True)
class MigFit:
    row: MigGpu
    choices: tuple[tuple[str, MigProfile | None], ...]  # (job name, smallest profile that holds it)
    compute_used: int
    memory_used: int
    fits: bool
    why: str | None  # why not, in a sentence


def fit_profiles(row: MigGpu, total_bytes: int, needs: list[tuple[str, int]]) -> MigFit:
    """The smallest profile for each (job, bytes needed), and whether they fit on one GPU together.

    Judged on slices and instance counts; NVIDIA's placement rules can still refuse a mix that
    passes this count (`nvidia-smi mig -lgipp` lists the placements).
    """
    ordered = sorted(row.profiles, key=lambda p: (p.memory, p.compute))
    choices = []
    for job, need in needs:
        choices.append((job, next((p for p in ordered if usable_bytes(row, p, total_bytes) >= need), None)))
    chosen = [p for _, p in choices if p is not None]
    compute = sum(p.compute for p in chosen)
    memory = sum(p.memory for p in chosen)
    why = None
    too_big = [job for job, p in choices if p is None]
    if too_big:
        why = f"{', '.join(too_big)} needs more than the largest instance holds"
    elif compute > row.compute_slices or memory > row.memory_slices:
        why = "more slices than one GPU has"
    else:
        for p in {p.name: p for p in chosen}.values():
            count = sum(1 for q in chosen if q.name == p.name)
            if count > p.max_instances:
                why = f"a GPU holds at most {p.max_instances} {p.name} instance(s), {count} wanted"
                break
    return MigFit(row, tuple(choices), compute, memory, why is None, why)
