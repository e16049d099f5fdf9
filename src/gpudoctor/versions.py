"""Version strings as machines print them, compared as numbers; the matrix's version keys and specifiers.

Driver versions have two or three parts ("595.80", "535.104.05"), CUDA
versions two or three ("12.4", "12.4.131"); leading zeros are not
significant when comparing ("05" == 5) but are kept for display.

One ordering for every version gpudoctor compares, the one packaging gives releases: part by part as
numbers, trailing zeros not counted ("12.0" == "12" < "12.0.1"). `version_key` is that ordering's key;
`vkey` keeps every part a machine printed (its length, indexes and slices see them all) and compares in
the same ordering (`Key`).
"""

from __future__ import annotations

import functools
import re

from gpudoctor.lazypattern import LazyPattern

_NUMS = LazyPattern(r"\d+")


class Key(tuple):
    """A version's numeric parts as printed ((11, 8, 0) for "11.8.0"), ordered as `version_key` orders:
    trailing zeros not counted, so (11, 8, 0) == (11, 8). A slice or a sum is a plain tuple of its parts."""

    def _ordered(self, other: object) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
        if not isinstance(other, tuple):
            return None
        return _significant(self), _significant(other)

    def __eq__(self, other: object) -> bool:
        pair = self._ordered(other)
        return NotImplemented if pair is None else pair[0] == pair[1]

    def __ne__(self, other: object) -> bool:
        pair = self._ordered(other)
        return NotImplemented if pair is None else pair[0] != pair[1]

    def __lt__(self, other: object) -> bool:
        pair = self._ordered(other)
        return NotImplemented if pair is None else pair[0] < pair[1]

    def __le__(self, other: object) -> bool:
        pair = self._ordered(other)
        return NotImplemented if pair is None else pair[0] <= pair[1]

    def __gt__(self, other: object) -> bool:
        pair = self._ordered(other)
        return NotImplemented if pair is None else pair[0] > pair[1]

    def __ge__(self, other: object) -> bool:
        pair = self._ordered(other)
        return NotImplemented if pair is None else pair[0] >= pair[1]

    def __hash__(self) -> int:
        return hash(_significant(self))


def _significant(parts: tuple) -> tuple:
    """`parts` without trailing zeros (one part kept): the ordering's form."""
    end = len(parts)
    while end > 1 and parts[end - 1] == 0:
        end -= 1
    return tuple(parts[:end])


def vkey(version: str | None) -> Key:
    """Numeric sort key: "535.104.05" -> (535, 104, 5); "" or None -> ()."""
    if not version:
        return Key()
    head = re.match(r"[\d.]+", version.strip())
    if not head:
        return Key()
    return Key(int(n) for n in _NUMS.findall(head.group(0)))


def major(version: str | None) -> int | None:
    key = vkey(version)
    return key[0] if key else None


def major_minor(version: str | None) -> str | None:
    key = vkey(version)
    if len(key) < 2:
        return str(key[0]) if key else None
    return f"{key[0]}.{key[1]}"


def cuda_from_int(value: int) -> str:
    """NVML and cuda.h encode CUDA as 1000*major + 10*minor: 12040 -> "12.4"."""
    return f"{value // 1000}.{(value % 1000) // 10}"


def cudnn_from_int(value: int) -> str:
    """cuDNN's CUDNN_VERSION (cudnnGetVersion()) as "major.minor.patch". cudnn_version.h defines it as MAJOR*1000 +
    MINOR*100 + PATCHLEVEL before 9.0 (8.2.1 = 8201: Minerallka/cudnn-missed-files-for-cuda-11.4 @55a96dcb,
    include/cudnn_version.h) and MAJOR*10000 + MINOR*100 + PATCHLEVEL from 9.0 on (9.6.0 = 90600: zspace/system.cuda-12.6
    @b3d92c83, include/cudnn_version.h; the change is in NVIDIA's cuDNN 9.0.0 release notes,
    https://docs.nvidia.com/deeplearning/cudnn/release-notes.html). So 8907 -> 8.9.7, 90000 -> 9.0.0, 91002 -> 9.10.2;
    a number below 90000 is the older encoding, which is also how JAX writes its floor "Minimum supported: 9100"
    (9.1.0; jax/_src/xla_bridge.py `min_supported_version=9100`, printed in conda-forge/jax-feedstock#149)."""
    multiplier = 10000 if value >= 90000 else 1000
    return f"{value // multiplier}.{(value % multiplier) // 100}.{value % 100}"


def at_least(version: str | None, floor: str) -> bool | None:
    """Whether `version` >= `floor`; None when `version` is unknown."""
    key = vkey(version)
    if not key:
        return None
    floor_key = vkey(floor)
    width = max(len(key), len(floor_key))
    return key + (0,) * (width - len(key)) >= floor_key + (0,) * (width - len(floor_key))


# --------------------------------------------------------------------------- the matrix's keys

_VERSION_PREFIX = LazyPattern(r"\s*[vV]?(\d+(?:\.\d+)*)")


@functools.lru_cache(maxsize=4096)
def version_parts(version: str | int | float) -> tuple[int, ...]:
    """The dotted numeric prefix of ``version`` as integers ("2.1.0+cu121" -> (2, 1, 0)).

    Raises ValueError when ``version`` does not start with a number.
    """
    m = _VERSION_PREFIX.match(str(version))
    if m is None:
        raise ValueError(f"not a version: {version!r}")
    return tuple(int(p) for p in m.group(1).split("."))


@functools.lru_cache(maxsize=4096)
def version_key(version: str | int | float) -> tuple[int, ...]:
    """A sort/compare key: numeric parts with trailing zeros dropped ("12.0" == "12" < "12.0.1")."""
    return _significant(version_parts(version))


# --------------------------------------------------------------------------- specifiers
# A small PEP 440 specifier matcher for the numeric versions this matrix uses. It avoids importing
# packaging.specifiers (which pulls in logging/platform/subprocess, ~12 ms) on every load; the
# tests check it against packaging.specifiers.SpecifierSet for every specifier in the data.

_CLAUSE = LazyPattern(r"\s*(~=|===|==|!=|<=|>=|<|>)\s*(\S+?)\s*")


@functools.lru_cache(maxsize=1024)
def parse_spec(spec: str) -> tuple[tuple[str, str, bool], ...]:
    """Split a specifier set into (operator, version, wildcard) clauses. Raises ValueError."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError("empty specifier")
    clauses = []
    for raw in spec.split(","):
        m = _CLAUSE.fullmatch(raw)
        if m is None:
            raise ValueError(f"bad specifier clause {raw.strip()!r}")
        op, ver = m.groups()
        wildcard = ver.endswith(".*")
        base = ver[:-2] if wildcard else ver
        if wildcard and op not in ("==", "!="):
            raise ValueError(f"'.*' only goes with == or != ({raw.strip()!r})")
        if not re.fullmatch(r"\d+(?:\.\d+)*", base):
            raise ValueError(f"bad version {ver!r} in specifier")
        if op == "~=" and "." not in base:
            raise ValueError(f"~= needs at least two version parts ({raw.strip()!r})")
        clauses.append((op, base, wildcard))
    return tuple(clauses)


@functools.lru_cache(maxsize=8192)
def spec_contains(spec: str, version: str) -> bool:
    """Whether the numeric ``version`` satisfies the specifier set ``spec``."""
    v = version_key(version)
    vparts = version_parts(version)
    for op, base, wildcard in parse_spec(spec):
        b = version_key(base)
        if wildcard:
            prefix = version_parts(base)
            padded = vparts + (0,) * max(0, len(prefix) - len(vparts))
            hit = padded[: len(prefix)] == prefix
            ok = hit if op == "==" else not hit
        elif op in ("==", "==="):
            ok = v == b
        elif op == "!=":
            ok = v != b
        elif op == ">=":
            ok = v >= b
        elif op == "<=":
            ok = v <= b
        elif op == ">":
            ok = v > b
        elif op == "<":
            ok = v < b
        else:  # ~=
            prefix = version_parts(base)[:-1]
            padded = vparts + (0,) * max(0, len(prefix) - len(vparts))
            ok = v >= b and padded[: len(prefix)] == prefix
        if not ok:
            return False
    return True


def spec_floor(spec: str) -> str | None:
    """The lowest version a specifier admits through >=, ==, ~= or a wildcard (None if unbounded)."""
    best: str | None = None
    for op, base, _wild in parse_spec(spec):
        if op in (">=", "==", "===", "~=", ">") and (best is None or version_key(base) > version_key(best)):
            best = base
    return best
