"""Schema of the compat_matrix files: validate parsed TOML documents and build a Matrix.

Every problem is collected as "<file>.toml:<table>[<row key>]: <message>" (or "<file>.toml: <message>"
for file-level problems) and all of them are raised together in one MatrixError.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from typing import Any

from gpudoctor.errors import MatrixError
from gpudoctor.matrix.files import FILES
from gpudoctor.matrix.queries import Matrix
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
    JaxCuda,
    JaxPin,
    JaxRelease,
    LibraryArch,
    LibraryBuild,
    MemoryControl,
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
)
from gpudoctor.matrix.terms import gpu_name_tokens
from gpudoctor.versions import parse_spec, spec_contains, spec_floor, version_key, version_parts

SCHEMA_VERSION = 1

PRECISIONS = ("FP64", "TF32", "BF16", "FP16", "FP8", "FP6", "FP4", "INT8", "INT4", "INT1")
CONFIDENCE = ("high", "medium", "low")
ENUMS: dict[str, tuple[str, ...]] = {
    "segment": ("datacenter", "workstation", "geforce", "jetson"),
    "status": ("stable", "experimental"),
    "packaging": ("jaxlib", "jaxlib+plugin", "plugin"),
    "rule": ("equal", "equal-numeric", "not-newer"),
    "kind": ("env", "env-option", "python", "config"),
    "precision": PRECISIONS,
}

# --------------------------------------------------------------------------- schema description


class Table:
    """An array of tables: its fields (name -> (type, required)), row key, ordering, sub-tables."""

    __slots__ = ("fields", "key", "sort", "strict", "sub", "sort_what")

    def __init__(
        self,
        fields: Mapping[str, tuple[str, bool]],
        key: Callable[[Mapping[str, Any]], Any],
        sort: Callable[[Mapping[str, Any]], Any] | None = None,
        strict: bool = True,
        sub: Mapping[str, Table] | None = None,
        sort_what: str = "version",
    ) -> None:
        self.fields = fields
        self.key = key
        self.sort = sort
        self.strict = strict  # sorted strictly (keys unique) or only non-decreasing
        self.sub = sub or {}
        self.sort_what = sort_what


COMMON = {"source": ("source", True), "note": ("str", False), "confidence": ("conf", False)}


def _f(**fields: tuple[str, bool]) -> dict[str, tuple[str, bool]]:
    return {**fields, **COMMON}


def _pep440(version: str) -> Any:
    from packaging.version import InvalidVersion, Version

    try:
        return Version(version)
    except InvalidVersion:
        return Version("0")  # the field's own check reports it


def _vk(name: str) -> Callable[[Mapping[str, Any]], Any]:
    return lambda r: version_key(r[name])


def _cck(name: str) -> Callable[[Mapping[str, Any]], Any]:
    return lambda r: tuple(int(x) for x in r[name].split("."))


def _get(name: str) -> Callable[[Mapping[str, Any]], Any]:
    return lambda r: r[name]


REQ, OPT = True, False

SCHEMAS: dict[str, dict[str, Table]] = {
    "sources": {
        "source": Table(
            fields={
                "key": ("str", REQ),
                "title": ("str", REQ),
                "url": ("str", OPT),
                "document": ("str", OPT),
                "accessed": ("date", REQ),
                "note": ("str", OPT),
            },
            key=_get("key"),
        ),
    },
    "cuda_driver": {
        "release": Table(
            fields=_f(
                cuda=("version", REQ),
                release=("version", REQ),
                label=("str", REQ),
                linux=("version", OPT),
                windows=("version", OPT),
                prerelease=("bool", OPT),
            ),
            key=_get("release"),
            sort=_vk("release"),
        ),
        "minor_compat": Table(
            fields=_f(
                major=("int", REQ),
                linux=("version", REQ),
                windows=("version", OPT),
                windows_alt=("version", OPT),
                branch_min=("int", OPT),
                branch_max_exclusive=("int", OPT),
            ),
            key=_get("major"),
            sort=_get("major"),
            sort_what="major",
        ),
        "branch": Table(
            fields=_f(branch=("int", REQ), cuda=("version", REQ)),
            key=_get("branch"),
            sort=_get("branch"),
            sort_what="branch",
        ),
        "ptx": Table(
            fields=_f(ptx=("version", REQ), cuda=("version", REQ)),
            key=_get("ptx"),
            sort=_vk("ptx"),
        ),
    },
    "gpu_arch": {
        "arch": Table(
            fields=_f(name=("str", REQ), cc=("list:cc", REQ), last_driver=("int", OPT), last_driver_cuda=("version", OPT)),
            key=_get("name"),
            sort=lambda r: tuple(int(x) for x in r["cc"][0].split(".")) if r["cc"] else (0,),
            strict=False,
            sort_what="first compute capability",
        ),
        "cc": Table(
            fields=_f(
                cc=("cc", REQ),
                arch=("str", REQ),
                first_cuda=("version", OPT),
                last_cuda=("version", OPT),
                a_first_cuda=("version", OPT),
                f_first_cuda=("version", OPT),
            ),
            key=_get("cc"),
            sort=_cck("cc"),
            sort_what="compute capability",
        ),
        "gpu": Table(
            fields=_f(name=("str", REQ), cc=("cc", REQ), segment=("enum:segment", REQ), inferred=("bool", OPT)),
            key=lambda r: " ".join(gpu_name_tokens(r["name"])[0]) or r["name"],
            sort=_cck("cc"),
            strict=False,
            sort_what="compute capability",
        ),
    },
    "cudnn": {
        "release": Table(
            fields=_f(version=("version", REQ), through=("version", OPT), cuda=("list:spec", REQ), min_cc=("cc", OPT)),
            key=_get("version"),
            sort=_vk("version"),
        ),
        "major": Table(
            fields=_f(
                major=("int", REQ),
                soname=("str", REQ),
                windows_dll=("str", OPT),
                header=("str", REQ),
                version_multiplier=("int", REQ),
                sublibraries=("list:str", OPT),
            ),
            key=_get("major"),
            sort=_get("major"),
            sort_what="major",
        ),
        "pip": Table(
            fields=_f(package=("str", REQ), cuda_major=("int", REQ), first=("version", REQ), last=("version", REQ)),
            key=_get("package"),
            sort=_get("cuda_major"),
            sort_what="cuda_major",
        ),
    },
    "torch": {
        "release": Table(
            fields={
                **_f(
                    version=("version", REQ),
                    python=("spec", REQ),
                    python_experimental=("list:str", OPT),
                    pypi_default=("str", REQ),
                    cudnn_bundled=("bool", OPT),
                ),
                "variant": ("rows", REQ),
            },
            key=_get("version"),
            sort=_vk("version"),
            sub={
                "variant": Table(
                    fields=_f(
                        tag=("str", REQ),
                        cuda=("version", REQ),
                        cudnn=("version", OPT),
                        arch=("list:cc", REQ),
                        ptx=("list:cc", OPT),
                        status=("enum:status", OPT),
                    ),
                    key=_get("tag"),
                    sort=_vk("cuda"),
                )
            },
        ),
        "companion": Table(
            fields=_f(
                package=("str", REQ),
                version=("version", REQ),
                torch=("list:str", REQ),
                wheels=("str", OPT),
                cuda=("list:str", OPT),
            ),
            key=lambda r: (r["package"], r["version"]),
            sort=lambda r: (r["package"], _pep440(r["version"])),  # xformers' .postN releases sort after their base
            sort_what="package and version",
        ),
        "nvidia_pins": Table(
            fields=_f(torch=("version", REQ), variant=("str", REQ), wheels=("list:str", REQ)),
            key=_get("torch"),
            sort=_vk("torch"),
            sort_what="torch",
        ),
    },
    "tensorflow": {
        "release": Table(
            fields=_f(
                version=("version", REQ),
                tested=("version", REQ),
                package=("str", REQ),
                python=("spec", REQ),
                cuda=("version", REQ),
                cudnn=("version", REQ),
                sonames=("list:str", REQ),
                windows_gpu=("bool", REQ),
                arch=("list:cc", OPT),
                ptx=("list:cc", OPT),
                and_cuda=("bool", OPT),
            ),
            key=_get("version"),
            sort=_vk("version"),
        ),
    },
    "jax": {
        "release": Table(
            fields={
                **_f(version=("version", REQ), python=("spec", REQ), packaging=("enum:packaging", REQ)),
                "cuda": ("rows", REQ),
            },
            key=_get("version"),
            sort=_vk("version"),
            sub={
                "cuda": Table(
                    fields=_f(
                        major=("int", REQ),
                        cuda=("spec", REQ),
                        build_cuda=("version", OPT),
                        cudnn=("spec", OPT),
                        driver_linux=("version", OPT),
                        plugin=("str", OPT),
                        pjrt=("str", OPT),
                        arch=("list:cc", OPT),
                        ptx=("list:cc", OPT),
                    ),
                    key=_get("major"),
                    sort=_get("major"),
                    sort_what="major",
                )
            },
        ),
        "pin": Table(
            fields=_f(since=("version", REQ), packages=("list:str", REQ), rule=("enum:rule", REQ)),
            key=lambda r: f"{r['since']}/{'+'.join(r['packages'])}",
            sort=_vk("since"),
            strict=False,
            sort_what="since",
        ),
    },
    "precision": {
        "cc": Table(
            fields=_f(
                cc=("cc", REQ), tensor_cores=("bool", REQ), precisions=("list:enum:precision", REQ), sparsity=("bool", OPT)
            ),
            key=_get("cc"),
            sort=_cck("cc"),
            sort_what="compute capability",
        ),
    },
    "link_bandwidth": {
        "pcie": Table(
            fields=_f(
                gen=("int", REQ),
                rate_gt_s=("float", REQ),
                encoding=("str", REQ),
                efficiency=("float", REQ),
                practical_share=("float", OPT),
                practical_share_low=("float", OPT),
                practical_share_high=("float", OPT),
            ),
            key=_get("gen"),
            sort=_get("gen"),
            sort_what="gen",
        ),
        "c2c": Table(
            fields=_f(
                name=("str", REQ),
                systems=("list:str", REQ),
                bidirectional_gb_per_s=("float", REQ),
                practical_gb_per_s=("float", OPT),
                practical_low=("float", OPT),
                practical_high=("float", OPT),
            ),
            key=_get("name"),
        ),
        "threshold": Table(fields=_f(name=("str", REQ), value=("float", REQ)), key=_get("name")),
    },
    "memory_settings": {
        "framework": Table(
            fields=_f(name=("str", REQ), preallocates=("bool", REQ), default=("str", REQ), default_fraction=("float", OPT)),
            key=_get("name"),
            sort=_get("name"),
            sort_what="name",
        ),
        "control": Table(
            fields=_f(
                framework=("str", REQ),
                name=("str", REQ),
                kind=("enum:kind", REQ),
                default=("str", OPT),
                values=("list:str", OPT),
                effect=("str", REQ),
                since=("version", OPT),
            ),
            key=lambda r: f"{r['framework']}/{r['name']}",
        ),
    },
    "cuda_repos": {
        "repo": Table(
            fields=_f(
                repo=("str", REQ),
                distro=("list:str", REQ),
                release=("str", REQ),
                first=("version", OPT),
                last=("version", OPT),
                first_verified=("bool", OPT),
                last_verified=("bool", OPT),
            ),
            key=_get("repo"),
            sort=_get("repo"),
            sort_what="repo",
        ),
    },
    "libraries": {
        "build": Table(
            fields=_f(
                package=("str", REQ),
                since=("version", REQ),
                until=("version", OPT),
                cuda=("int", REQ),
                cudnn=("int", REQ),
                pin=("version", OPT),
                pin_python=("spec", OPT),
            ),
            key=lambda r: (r["package"], r["since"]),
            sort=lambda r: (r["package"], version_key(r["since"])),
            sort_what="package and since",
        ),
        "arch": Table(
            fields=_f(
                package=("str", REQ),
                since=("version", REQ),
                until=("version", OPT),
                arch=("list:str", REQ),
                ptx=("list:str", OPT),
                pin=("version", OPT),
                pin_python=("spec", OPT),
            ),
            key=lambda r: (r["package"], r["since"]),
            sort=lambda r: (r["package"], version_key(r["since"])),
            sort_what="package and since",
        ),
        "bitsandbytes": Table(
            fields=_f(
                since=("version", REQ),
                until=("version", OPT),
                cuda=("list:str", REQ),
                same_major=("bool", OPT),
                torch=("spec", OPT),
                python=("spec", OPT),
                pin=("version", OPT),
            ),
            key=_get("since"),
            sort=lambda r: version_key(r["since"]),
            sort_what="since",
        ),
    },
}

assert set(SCHEMAS) == set(FILES)

_CC_RE = re.compile(r"\d+\.\d")
_DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}")
_KEY_RE = re.compile(r"[a-z0-9][a-z0-9.\-]*")


# --------------------------------------------------------------------------- row checking


class _Ctx:
    def __init__(self) -> None:
        self.problems: list[str] = []
        self.citations: list[tuple[str, tuple[str, ...]]] = []

    def add(self, where: str, message: str) -> None:
        self.problems.append(f"{where}: {message}")

    def version_ok(self, v: str) -> bool:
        """Whether ``v`` parses with packaging.version.Version (results cached)."""
        ok = _VERSION_OK.get(v)
        if ok is None:
            from packaging.version import InvalidVersion, Version

            try:
                Version(v)
                ok = True
            except InvalidVersion:
                ok = False
            _VERSION_OK[v] = ok
        return ok

    def spec_ok(self, v: str) -> bool:
        """Whether ``v`` parses as packaging's SpecifierSet and in the matrix's numeric subset."""
        ok = _SPEC_OK.get(v)
        if ok is None:
            ok = _specifier_problem(v) is None
            _SPEC_OK[v] = ok
        return ok


def _specifier_problem(v: str) -> str | None:
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        SpecifierSet(v)
    except InvalidSpecifier:
        return f"is not a valid version specifier: {v!r}"
    try:
        parse_spec(v)
    except ValueError as exc:
        return f"uses a specifier form the matrix does not support ({exc}): plain numeric versions only, {v!r}"
    return None


_VERSION_OK: dict[str, bool] = {}
_SPEC_OK: dict[str, bool] = {}
_FAIL = object()


def _fast(ctx: _Ctx, typ: str, value: Any) -> Any:
    """The cleaned value when it is valid, else _FAIL (then _explain_value reports why)."""
    if typ == "str":
        return value if type(value) is str and value.strip() else _FAIL
    if typ == "version":
        return value if type(value) is str and ctx.version_ok(value) else _FAIL
    if typ == "source":
        if type(value) is str and value:
            return (value,)
        if type(value) is list and value and all(type(k) is str and k for k in value):
            return tuple(value)
        return _FAIL
    if typ == "cc":
        return value if type(value) is str and _CC_RE.fullmatch(value) else _FAIL
    if typ.startswith("list:"):
        if type(value) is not list:
            return _FAIL
        inner = typ[5:]
        out = []
        for item in value:
            clean = _fast(ctx, inner, item)
            if clean is _FAIL:
                return _FAIL
            out.append(clean)
        if len(set(map(str, out))) != len(out):
            return _FAIL
        return tuple(out)
    if typ == "spec":
        return value if type(value) is str and ctx.spec_ok(value) else _FAIL
    if typ == "bool":
        return value if type(value) is bool else _FAIL
    if typ == "int":
        return value if type(value) is int else _FAIL
    if typ == "float":
        return float(value) if type(value) in (int, float) else _FAIL
    if typ == "conf":
        return value if value in CONFIDENCE else _FAIL
    if typ.startswith("enum:"):
        return value if value in ENUMS[typ[5:]] else _FAIL
    return _FAIL  # dates and anything unusual take the slow path


def _check_value(ctx: _Ctx, where: str, name: str, typ: str, value: Any) -> tuple[bool, Any]:
    """Check one field; return (ok, cleaned value)."""
    clean = _fast(ctx, typ, value)
    if clean is not _FAIL:
        return True, clean
    return _explain_value(ctx, where, name, typ, value)


def _explain_value(ctx: _Ctx, where: str, name: str, typ: str, value: Any) -> tuple[bool, Any]:
    """Slow path of _check_value: check again and report exactly what is wrong."""

    def bad(msg: str) -> tuple[bool, Any]:
        ctx.add(where, f"'{name}' {msg}")
        return False, None

    if typ.startswith("list:"):
        inner = typ[5:]
        if not isinstance(value, list):
            return bad(f"must be a list, not {type(value).__name__}")
        out = []
        ok = True
        for i, item in enumerate(value):
            good, clean = _explain_value(ctx, where, f"{name}[{i}]", inner, item)
            ok &= good
            out.append(clean)
        if ok and len(set(map(str, out))) != len(out):
            return bad("has duplicate entries")
        return ok, tuple(out)
    if typ == "source":
        keys = [value] if isinstance(value, str) else value
        if not isinstance(keys, list) or not keys or not all(isinstance(k, str) and k for k in keys):
            return bad("must be a source key or a non-empty list of source keys")
        return True, tuple(keys)
    if typ == "str":
        if not isinstance(value, str) or not value.strip():
            return bad("must be a non-empty string")
        return True, value
    if typ == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            return bad(f"must be an integer, not {value!r}")
        return True, value
    if typ == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return bad(f"must be a number, not {value!r}")
        return True, float(value)
    if typ == "bool":
        if not isinstance(value, bool):
            return bad(f"must be true or false, not {value!r}")
        return True, value
    if typ == "version":
        if not isinstance(value, str) or not ctx.version_ok(value):
            return bad(f"is not a valid version: {value!r}")
        return True, value
    if typ == "spec":
        if not isinstance(value, str):
            return bad(f"must be a version specifier string, not {value!r}")
        problem = _specifier_problem(value)
        if problem is not None:
            return bad(problem)
        return True, value
    if typ == "cc":
        if not isinstance(value, str) or not _CC_RE.fullmatch(value):
            return bad(f'must be a compute capability like "8.6", not {value!r}')
        return True, value
    if typ == "conf":
        if value not in CONFIDENCE:
            return bad(f"must be one of {', '.join(CONFIDENCE)}, not {value!r}")
        return True, value
    if typ == "date":
        import datetime

        if isinstance(value, datetime.date):
            value = value.isoformat()
        if not isinstance(value, str) or not _DATE_RE.fullmatch(value):
            return bad(f"must be a date YYYY-MM-DD, not {value!r}")
        try:
            datetime.date.fromisoformat(value)
        except ValueError:
            return bad(f"is not a real date: {value!r}")
        return True, value
    if typ.startswith("enum:"):
        allowed = ENUMS[typ[5:]]
        if value not in allowed:
            return bad(f"must be one of {', '.join(allowed)}, not {value!r}")
        return True, value
    raise AssertionError(f"unknown field type {typ}")  # pragma: no cover


def _check_table(ctx: _Ctx, file: str, prefix: str, table: str, schema: Table, rows: Any) -> list[tuple[str, dict[str, Any]]]:
    """Check every row of one array of tables; return (label, cleaned row) for the rows that passed."""
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        ctx.add(f"{file}.toml:{prefix}{table}", "must be an array of tables ([[...]] or [ {...}, ... ])")
        return []
    good: list[tuple[str, dict[str, Any]]] = []
    seen: dict[str, int] = {}
    prev: tuple[Any, str] | None = None
    for index, row in enumerate(rows):
        try:
            key = str(schema.key(row))
        except Exception:
            key = f"#{index + 1}"
        label = f"{file}.toml:{prefix}{table}[{key}]"
        ok = True
        clean: dict[str, Any] = {}
        for name in row:
            if name not in schema.fields:
                ctx.add(label, f"unknown key '{name}'")
                ok = False
        for name, (typ, required) in schema.fields.items():
            if name not in row:
                if required:
                    ctx.add(label, f"missing required key '{name}'")
                    ok = False
                continue
            if typ == "rows":
                sub = _check_table(ctx, file, f"{prefix}{table}[{key}].", name, schema.sub[name], row[name])
                if not isinstance(row[name], list) or len(sub) != len(row[name]) or not sub:
                    if isinstance(row[name], list) and not row[name]:
                        ctx.add(label, f"'{name}' needs at least one row")
                    ok = False
                clean[name] = sub
                continue
            good_value, value = _check_value(ctx, label, name, typ, row[name])
            ok &= good_value
            clean[name] = value
        if "source" in clean and clean["source"] is not None:
            ctx.citations.append((label, clean["source"]))
        if not ok:
            continue
        if key in seen:
            ctx.add(label, f"duplicate key (row {seen[key] + 1} has the same)")
            continue
        seen[key] = index
        if schema.sort is not None:
            sk = schema.sort(clean)
            if prev is not None and (sk < prev[0] or (schema.strict and sk == prev[0])):
                ctx.add(label, f"rows must be sorted by {schema.sort_what}: {key} comes after {prev[1]}")
            prev = (sk, key)
        good.append((label, clean))
    return good


def _trusted_table(
    ctx: _Ctx, file: str, prefix: str, table: str, schema: Table, rows: list[dict[str, Any]]
) -> list[tuple[str, dict[str, Any]]]:
    """Convert rows without checking them (the bundled data, which the test suite validates).

    Anything unexpected raises (KeyError, TypeError, ...); the caller then validates in full.
    """
    out: list[tuple[str, dict[str, Any]]] = []
    fields = schema.fields
    for row in rows:
        key = str(schema.key(row))
        label = f"{file}.toml:{prefix}{table}[{key}]"
        clean: dict[str, Any] = {}
        for name, value in row.items():
            typ = fields[name][0]
            if typ == "source":
                clean[name] = (value,) if type(value) is str else tuple(value)
            elif typ == "rows":
                clean[name] = _trusted_table(ctx, file, f"{prefix}{table}[{key}].", name, schema.sub[name], value)
            elif typ.startswith("list:"):
                clean[name] = tuple(value)
            elif typ == "float":
                clean[name] = float(value)
            elif typ == "date" and type(value) is not str:
                clean[name] = value.isoformat()
            else:
                clean[name] = value
        if "source" in clean:
            ctx.citations.append((label, clean["source"]))
        out.append((label, clean))
    return out


def _check_file(ctx: _Ctx, file: str, doc: Any) -> dict[str, list[tuple[str, dict[str, Any]]]]:
    schema = SCHEMAS[file]
    out: dict[str, list[tuple[str, dict[str, Any]]]] = {t: [] for t in schema}
    if not isinstance(doc, Mapping):
        ctx.add(f"{file}.toml", "is not a TOML document")
        return out
    if "schema_version" not in doc:
        ctx.add(f"{file}.toml", "missing required key 'schema_version'")
    elif doc["schema_version"] != SCHEMA_VERSION:
        ctx.add(f"{file}.toml", f"schema_version must be {SCHEMA_VERSION}, not {doc['schema_version']!r}")
    for name in doc:
        if name != "schema_version" and name not in schema:
            ctx.add(f"{file}.toml", f"unknown top-level key '{name}' (expected {', '.join(schema)})")
    for table, tschema in schema.items():
        if table not in doc:
            ctx.add(f"{file}.toml", f"missing table '{table}'")
            continue
        out[table] = _check_table(ctx, file, "", table, tschema, doc[table])
    return out


# --------------------------------------------------------------------------- building + cross-file checks


@functools.lru_cache(maxsize=1024)
def _minor(v: str) -> tuple[int, int]:
    p = version_parts(v)
    return (p[0], p[1] if len(p) > 1 else 0)


def _sm(cc: str) -> str:
    return "sm_" + cc.replace(".", "")


def _compute(cc: str) -> str:
    return "compute_" + cc.replace(".", "")


def build(docs: Mapping[str, Mapping[str, Any]], origins: Mapping[str, str], *, trusted: bool = False) -> Matrix:
    """Validate every document and build the Matrix, or raise MatrixError with all problems.

    ``trusted`` (the bundled data, validated by the test suite) skips the per-field checks but keeps
    the cross-file ones; on any surprise it falls back to the full validation, so a broken bundled
    file still ends in a MatrixError listing every problem.
    """
    if trusted:
        try:
            return _build(docs, origins, trusted=True)
        except Exception:
            pass
    return _build(docs, origins, trusted=False)


def _build(docs: Mapping[str, Mapping[str, Any]], origins: Mapping[str, str], *, trusted: bool) -> Matrix:
    ctx = _Ctx()
    rows: dict[str, dict[str, list[tuple[str, dict[str, Any]]]]] = {}
    for file in FILES:
        if file not in docs:
            ctx.add(f"{file}.toml", "missing file")
            rows[file] = {t: [] for t in SCHEMAS[file]}
            continue
        if trusted:
            rows[file] = {t: _trusted_table(ctx, file, "", t, sch, docs[file][t]) for t, sch in SCHEMAS[file].items()}
        else:
            rows[file] = _check_file(ctx, file, docs[file])

    # ---- sources
    sources: dict[str, Source] = {}
    for label, r in rows["sources"]["source"]:
        if not _KEY_RE.fullmatch(r["key"]):
            ctx.add(label, "source keys use lowercase letters, digits, '.' and '-'")
        if not r.get("url") and not r.get("document"):
            ctx.add(label, "needs a 'url' or a 'document' saying where the source is")
        sources[r["key"]] = Source(
            key=r["key"],
            title=r["title"],
            url=r.get("url"),
            document=r.get("document"),
            accessed=r["accessed"],
            note=r.get("note"),
        )
    # Keys declared by rows that failed other checks still count as declared (no cascade of
    # "unknown source" problems from one bad sources.toml row).
    declared = set(sources)
    raw_sources = docs.get("sources", {}).get("source") if isinstance(docs.get("sources"), Mapping) else None
    if isinstance(raw_sources, list):
        declared.update(r["key"] for r in raw_sources if isinstance(r, Mapping) and isinstance(r.get("key"), str))
    cited: set[str] = set()
    for label, keys in ctx.citations:
        if label.startswith("sources.toml:"):
            continue
        for k in keys:
            cited.add(k)
            if k not in declared:
                ctx.add(label, f"cites unknown source '{k}' (declare it in sources.toml)")
    for label, r in rows["sources"]["source"]:
        if r["key"] not in cited:
            ctx.add(label, "declared but never cited")

    def cite(r: Mapping[str, Any]) -> dict[str, Any]:
        keys = r["source"]
        return {
            "source": keys,
            "sources": tuple(sources[k] for k in keys if k in sources),
            "note": r.get("note"),
            "confidence": r.get("confidence", "high"),
        }

    # ---- CUDA releases and drivers
    cuda_releases: list[CudaRelease] = []
    for label, r in rows["cuda_driver"]["release"]:
        if _minor(r["release"]) != _minor(r["cuda"]) or len(version_parts(r["cuda"])) != 2:
            ctx.add(label, f"release {r['release']} does not belong to CUDA minor {r['cuda']} (write cuda as X.Y)")
        cuda_releases.append(
            CudaRelease(
                cuda=r["cuda"],
                release=r["release"],
                label=r["label"],
                linux=r.get("linux"),
                windows=r.get("windows"),
                prerelease=r.get("prerelease", False),
                **cite(r),
            )
        )
    minors = {_minor(r.cuda) for r in cuda_releases}
    majors = {m[0] for m in minors}
    minor_names: dict[int, list[str]] = {}
    for a, b in sorted(minors):
        minor_names.setdefault(a, []).append(f"{a}.{b}")

    def cuda_known(v: str) -> bool:
        return _minor(v) in minors

    minor_compat: list[MinorCompat] = []
    for label, r in rows["cuda_driver"]["minor_compat"]:
        if r["major"] not in majors:
            ctx.add(label, f"no CUDA {r['major']}.x release in cuda_driver.toml")
        if r.get("windows_alt") and r.get("windows") and version_key(r["windows_alt"]) < version_key(r["windows"]):
            ctx.add(label, "windows_alt must not be lower than windows")
        lo, hi = r.get("branch_min"), r.get("branch_max_exclusive")
        if lo is not None and hi is not None and hi <= lo:
            ctx.add(label, "branch_max_exclusive must be above branch_min")
        minor_compat.append(
            MinorCompat(
                major=r["major"],
                linux=r["linux"],
                windows=r.get("windows"),
                windows_alt=r.get("windows_alt"),
                branch_min=lo,
                branch_max_exclusive=hi,
                **cite(r),
            )
        )
    floors = {m.major: m.linux for m in minor_compat}
    branches = [DriverBranch(branch=r["branch"], cuda=r["cuda"], **cite(r)) for _l, r in rows["cuda_driver"]["branch"]]
    ptx_isas = [PtxIsa(ptx=r["ptx"], cuda=r["cuda"], **cite(r)) for _l, r in rows["cuda_driver"]["ptx"]]

    # ---- GPUs and architectures
    arch_rows = rows["gpu_arch"]["arch"]
    cc_rows = rows["gpu_arch"]["cc"]
    arch_names = {r["name"] for _l, r in arch_rows}
    cc_arch = {r["cc"]: r["arch"] for _l, r in cc_rows}
    archs: list[Arch] = []
    listed: dict[str, str] = {}
    for label, r in arch_rows:
        for c in r["cc"]:
            if c in listed:
                ctx.add(label, f"compute capability {c} is also listed under {listed[c]}")
            listed[c] = r["name"]
            if c not in cc_arch:
                ctx.add(label, f"compute capability {c} has no row in the cc table")
            elif cc_arch[c] != r["name"]:
                ctx.add(label, f"compute capability {c} is '{cc_arch[c]}' in the cc table")
        if bool(r.get("last_driver")) != bool(r.get("last_driver_cuda")):
            ctx.add(label, "last_driver and last_driver_cuda go together")
        archs.append(
            Arch(
                name=r["name"],
                ccs=r["cc"],
                last_driver=r.get("last_driver"),
                last_driver_cuda=r.get("last_driver_cuda"),
                **cite(r),
            )
        )
    cc_targets: list[CcTarget] = []
    for label, r in cc_rows:
        if r["arch"] not in arch_names:
            ctx.add(label, f"unknown architecture '{r['arch']}'")
        elif listed.get(r["cc"]) != r["arch"]:
            ctx.add(label, f"architecture '{r['arch']}' does not list {r['cc']}")
        for k in ("first_cuda", "last_cuda", "a_first_cuda", "f_first_cuda"):
            # (a last_cuda before the oldest release the matrix lists: an architecture dropped before it starts, Tesla's
            # compute capability 1.x, which CUDA 7.0 dropped; every listed release is after it, none can target it)
            if k == "last_cuda" and r.get(k) and minors and _minor(r[k]) < min(minors):
                continue
            if r.get(k) and not cuda_known(r[k]):
                ctx.add(label, f"{k} {r[k]} is not a CUDA release in cuda_driver.toml")
        if r.get("first_cuda") and r.get("last_cuda") and _minor(r["first_cuda"]) > _minor(r["last_cuda"]):
            ctx.add(label, "first_cuda is after last_cuda")
        for k in ("a_first_cuda", "f_first_cuda"):
            # (a variant is compiled by no toolkit before its plain CC's first one)
            if r.get(k) and r.get("first_cuda") and _minor(r[k]) < _minor(r["first_cuda"]):
                ctx.add(label, f"{k} is before first_cuda")
        cc_targets.append(
            CcTarget(
                cc=r["cc"],
                arch=r["arch"],
                first_cuda=r.get("first_cuda"),
                last_cuda=r.get("last_cuda"),
                a_first_cuda=r.get("a_first_cuda"),
                f_first_cuda=r.get("f_first_cuda"),
                **cite(r),
            )
        )
    known_cc = set(cc_arch)
    targets = {t.cc: t for t in cc_targets}

    def can_target(cuda: str, cc: str) -> bool:
        t = targets.get(cc)
        if t is None:
            return True  # reported separately as an unknown CC
        m = _minor(cuda)
        if t.first_cuda and m < _minor(t.first_cuda):
            return False
        return not (t.last_cuda and m > _minor(t.last_cuda))

    def check_ccs(label: str, what: str, ccs: tuple[str, ...], cuda: str | None) -> None:
        if trusted:
            return
        for c in ccs:
            if c not in known_cc:
                ctx.add(label, f"{what} compute capability {c} is not in gpu_arch.toml")
            elif cuda is not None and cuda_known(cuda) and not can_target(cuda, c):
                ctx.add(label, f"{what} {_sm(c)} cannot be built with CUDA {cuda} (see gpu_arch.toml cc rows)")

    gpus: list[Gpu] = []
    for label, r in rows["gpu_arch"]["gpu"]:
        check_ccs(label, "gpu", (r["cc"],), None)
        gpus.append(Gpu(name=r["name"], cc=r["cc"], segment=r["segment"], inferred=r.get("inferred", False), **cite(r)))

    # ---- cuDNN
    cudnn_releases: list[CudnnRelease] = []
    prev_through: tuple[str, tuple[int, ...]] | None = None
    for label, r in rows["cudnn"]["release"]:
        through = r.get("through", r["version"])
        if version_key(through) < version_key(r["version"]):
            ctx.add(label, f"through {through} is before version {r['version']}")
        if prev_through is not None and version_key(r["version"]) <= prev_through[1]:
            ctx.add(label, f"overlaps the row ending at {prev_through[0]}")
        prev_through = (through, version_key(through))
        cuda_majors: set[int] = set()
        for spec in r["cuda"]:
            hit = False
            for major, names in minor_names.items():
                if any(spec_contains(spec, n) for n in names):
                    cuda_majors.add(major)
                    hit = True
            if not hit:
                ctx.add(label, f"CUDA specifier {spec!r} matches no CUDA release in cuda_driver.toml")
        if r.get("min_cc"):
            check_ccs(label, "min_cc", (r["min_cc"],), None)
        cudnn_releases.append(
            CudnnRelease(
                version=r["version"],
                through=through,
                cuda=r["cuda"],
                cuda_majors=tuple(sorted(cuda_majors)),
                min_cc=r.get("min_cc"),
                **cite(r),
            )
        )

    def cudnn_row(v: str) -> CudnnRelease | None:
        key = version_key(".".join(str(p) for p in version_parts(v)[:3]))
        for c in cudnn_releases:
            if version_key(c.version) <= key <= version_key(c.through):
                return c
        return None

    def check_cudnn(label: str, cudnn: str, cuda_major: int) -> None:
        if trusted:
            return
        row = cudnn_row(cudnn)
        if row is None:
            ctx.add(label, f"cuDNN {cudnn} is not covered by any cudnn.toml release row")
        elif cuda_major not in row.cuda_majors:
            majors_s = ", ".join(str(m) for m in row.cuda_majors) or "none"
            ctx.add(label, f"cuDNN {cudnn} has no CUDA {cuda_major} build (cudnn.toml row {row.version}: CUDA {majors_s})")

    all_cudnn_majors = {m for c in cudnn_releases for m in c.cuda_majors}
    cudnn_majors = [
        CudnnMajor(
            major=r["major"],
            soname=r["soname"],
            header=r["header"],
            version_multiplier=r["version_multiplier"],
            windows_dll=r.get("windows_dll"),
            sublibraries=r.get("sublibraries", ()),
            **cite(r),
        )
        for _l, r in rows["cudnn"]["major"]
    ]
    for (label, _r), m in zip(rows["cudnn"]["major"], cudnn_majors, strict=True):
        if not m.soname.endswith(f".so.{m.major}"):
            ctx.add(label, f"soname {m.soname} does not end in .so.{m.major}")
    cudnn_pip: list[CudnnPip] = []
    for label, r in rows["cudnn"]["pip"]:
        if r["cuda_major"] not in all_cudnn_majors:
            ctx.add(label, f"no cuDNN release row ships for CUDA {r['cuda_major']}")
        for k in ("first", "last"):
            check_cudnn(label, r[k], r["cuda_major"])
        if version_key(r["first"]) > version_key(r["last"]):
            ctx.add(label, "first is after last")
        cudnn_pip.append(CudnnPip(package=r["package"], cuda_major=r["cuda_major"], first=r["first"], last=r["last"], **cite(r)))

    # ---- PyTorch
    torch_releases: list[TorchRelease] = []
    for label, r in rows["torch"]["release"]:
        variants: dict[str, TorchVariant] = {}
        for vlabel, v in r["variant"]:
            cuda = v["cuda"]
            a, b = _minor(cuda)
            if len(version_parts(cuda)) != 2:
                ctx.add(vlabel, f"cuda {cuda} must be a minor version X.Y")
            if v["tag"] != f"cu{a}{b}":
                ctx.add(vlabel, f"tag {v['tag']} does not match CUDA {cuda} (expected cu{a}{b})")
            if not cuda_known(cuda):
                ctx.add(vlabel, f"CUDA {cuda} is not a CUDA release in cuda_driver.toml")
            if v.get("cudnn"):
                check_cudnn(vlabel, v["cudnn"], a)
            check_ccs(vlabel, "arch", v["arch"], cuda)
            check_ccs(vlabel, "ptx", v.get("ptx", ()), cuda)
            variants[v["tag"]] = TorchVariant(
                tag=v["tag"],
                cuda=cuda,
                cudnn=v.get("cudnn"),
                arch=tuple(_sm(c) for c in v["arch"]),
                ptx=tuple(_compute(c) for c in v.get("ptx", ())),
                status=v.get("status"),
                **cite(v),
            )
        if r["pypi_default"] not in variants:
            ctx.add(label, f"pypi_default {r['pypi_default']} is not one of its variants")
        for py in r.get("python_experimental", ()):
            if not re.fullmatch(r"3\.\d+t?", py):
                ctx.add(label, f"python_experimental entry {py!r} is not like 3.13 or 3.13t")
        torch_releases.append(
            TorchRelease(
                version=r["version"],
                python=r["python"],
                pypi_default=r["pypi_default"],
                variants=variants,
                python_experimental=r.get("python_experimental", ()),
                cudnn_bundled=r.get("cudnn_bundled", False),
                **cite(r),
            )
        )

    # ---- TensorFlow
    tf_releases: list[TfRelease] = []
    for label, r in rows["tensorflow"]["release"]:
        cuda, cudnn = r["cuda"], r["cudnn"]
        a, b = _minor(cuda)
        if _minor(r["tested"]) != _minor(r["version"]):
            ctx.add(label, f"tested {r['tested']} is not a {r['version']} release")
        if not cuda_known(cuda):
            ctx.add(label, f"CUDA {cuda} is not a CUDA release in cuda_driver.toml")
        check_cudnn(label, cudnn, a)
        cudart = "libcudart.so." + (f"{a}.{b}" if a <= 10 else "11.0" if a == 11 else f"{a}")
        names = r["sonames"]
        for so in names:
            if so.startswith("libcudart.so.") and so != cudart:
                ctx.add(label, f"CUDA {cuda} builds load {cudart}, not {so}")
            if so.startswith("libcudnn.so.") and so != f"libcudnn.so.{version_parts(cudnn)[0]}":
                ctx.add(label, f"cuDNN {cudnn} is libcudnn.so.{version_parts(cudnn)[0]}, not {so}")
        if not any(so.startswith("libcudnn.so.") for so in names):
            ctx.add(label, "sonames must name the libcudnn.so.N it loads")
        check_ccs(label, "arch", r.get("arch", ()), cuda)
        check_ccs(label, "ptx", r.get("ptx", ()), cuda)
        tf_releases.append(
            TfRelease(
                version=r["version"],
                tested=r["tested"],
                package=r["package"],
                python=r["python"],
                cuda=cuda,
                cudnn=cudnn,
                sonames=names,
                windows_gpu=r["windows_gpu"],
                arch=tuple(_sm(c) for c in r.get("arch", ())),
                ptx=tuple(_compute(c) for c in r.get("ptx", ())),
                and_cuda=r.get("and_cuda", False),
                **cite(r),
            )
        )
    windows = [t for t in tf_releases if t.windows_gpu]
    if windows and any(version_key(t.version) < version_key(windows[-1].version) and not t.windows_gpu for t in tf_releases):
        ctx.add("tensorflow.toml", "windows_gpu must hold for every release up to the last Windows GPU release")

    # ---- JAX
    jax_pins: list[JaxPin] = []
    for label, r in rows["jax"]["pin"]:
        if len(r["packages"]) < 2:
            ctx.add(label, "a pin needs at least two packages")
        jax_pins.append(JaxPin(since=r["since"], packages=r["packages"], rule=r["rule"], **cite(r)))
    jax_releases: list[JaxRelease] = []
    for _label, r in rows["jax"]["release"]:
        cudas: dict[int, JaxCuda] = {}
        for clabel, c in r["cuda"]:
            major = c["major"]
            floor = spec_floor(c["cuda"])
            if floor is None:
                ctx.add(clabel, f"cuda {c['cuda']!r} needs a lower bound (>=)")
            else:
                if version_parts(floor)[0] != major:
                    ctx.add(clabel, f"cuda {c['cuda']!r} is not a CUDA {major} range")
                if not cuda_known(floor):
                    ctx.add(clabel, f"CUDA {floor} is not a CUDA release in cuda_driver.toml")
            bc = c.get("build_cuda")
            if bc:
                if not cuda_known(bc):
                    ctx.add(clabel, f"build_cuda {bc} is not a CUDA release in cuda_driver.toml")
                if version_parts(bc)[0] != major:
                    ctx.add(clabel, f"build_cuda {bc} is not CUDA {major}")
            if c.get("cudnn"):
                cf = spec_floor(c["cudnn"])
                if cf is None:
                    ctx.add(clabel, f"cudnn {c['cudnn']!r} needs a lower bound (>=)")
                else:
                    check_cudnn(clabel, cf, major)
            for k in ("plugin", "pjrt"):
                if c.get(k) and f"cuda{major}" not in c[k]:
                    ctx.add(clabel, f"{k} {c[k]} is not a CUDA {major} package")
            if c.get("driver_linux") and major in floors and version_key(c["driver_linux"]) < version_key(floors[major]):
                ctx.add(clabel, f"driver_linux {c['driver_linux']} is below the CUDA {major}.x floor {floors[major]}")
            check_ccs(clabel, "arch", c.get("arch", ()), bc)
            check_ccs(clabel, "ptx", c.get("ptx", ()), bc)
            cudas[major] = JaxCuda(
                major=major,
                cuda=c["cuda"],
                build_cuda=bc,
                cudnn=c.get("cudnn"),
                driver_linux=c.get("driver_linux"),
                plugin=c.get("plugin"),
                pjrt=c.get("pjrt"),
                arch=tuple(_sm(x) for x in c.get("arch", ())),
                ptx=tuple(_compute(x) for x in c.get("ptx", ())),
                **cite(c),
            )
        pins = tuple(p for p in jax_pins if version_key(p.since) <= version_key(r["version"]))
        jax_releases.append(
            JaxRelease(version=r["version"], python=r["python"], packaging=r["packaging"], cuda=cudas, pins=pins, **cite(r))
        )

    # ---- precision
    precision_rows: list[Precision] = []
    for label, r in rows["precision"]["cc"]:
        check_ccs(label, "precision", (r["cc"],), None)
        if not r["tensor_cores"] and r["precisions"]:
            ctx.add(label, "lists precisions but tensor_cores = false")
        if r["tensor_cores"] and not r["precisions"]:
            ctx.add(label, "tensor_cores = true needs at least one precision")
        order = [PRECISIONS.index(p) for p in r["precisions"]]
        if order != sorted(order):
            ctx.add(label, f"precisions must follow the order {', '.join(PRECISIONS)}")
        precision_rows.append(
            Precision(
                cc=r["cc"],
                tensor_cores=r["tensor_cores"],
                precisions=r["precisions"],
                sparsity=r.get("sparsity", False),
                **cite(r),
            )
        )

    # ---- links
    pcie: list[PcieGen] = []
    for label, r in rows["link_bandwidth"]["pcie"]:
        if not 0 < r["efficiency"] <= 1:
            ctx.add(label, "efficiency must be in (0, 1]")
        shares = [r.get(k) for k in ("practical_share_low", "practical_share", "practical_share_high")]
        for s in shares:
            if s is not None and not 0 < s <= 1:
                ctx.add(label, "practical shares must be in (0, 1]")
        present = [s for s in shares if s is not None]
        if present != sorted(present):
            ctx.add(label, "need practical_share_low <= practical_share <= practical_share_high")
        pcie.append(
            PcieGen(
                gen=r["gen"],
                rate_gt_s=r["rate_gt_s"],
                encoding=r["encoding"],
                efficiency=r["efficiency"],
                practical_share=r.get("practical_share"),
                practical_share_low=r.get("practical_share_low"),
                practical_share_high=r.get("practical_share_high"),
                **cite(r),
            )
        )
    c2c = [
        C2cLink(
            name=r["name"],
            systems=r["systems"],
            bidirectional_gb_per_s=r["bidirectional_gb_per_s"],
            practical_gb_per_s=r.get("practical_gb_per_s"),
            practical_low=r.get("practical_low"),
            practical_high=r.get("practical_high"),
            **cite(r),
        )
        for _l, r in rows["link_bandwidth"]["c2c"]
    ]
    thresholds = [Threshold(name=r["name"], value=r["value"], **cite(r)) for _l, r in rows["link_bandwidth"]["threshold"]]

    # ---- memory
    controls: dict[str, list[MemoryControl]] = {}
    frameworks = {r["name"] for _l, r in rows["memory_settings"]["framework"]}
    for label, r in rows["memory_settings"]["control"]:
        if r["framework"] not in frameworks:
            ctx.add(label, f"unknown framework '{r['framework']}' (add it to the framework table)")
        controls.setdefault(r["framework"], []).append(
            MemoryControl(
                framework=r["framework"],
                name=r["name"],
                kind=r["kind"],
                effect=r["effect"],
                default=r.get("default"),
                values=r.get("values", ()),
                since=r.get("since"),
                **cite(r),
            )
        )
    memory: list[MemorySettings] = []
    for label, r in rows["memory_settings"]["framework"]:
        frac = r.get("default_fraction")
        if frac is not None and not 0 < frac <= 1:
            ctx.add(label, "default_fraction must be in (0, 1]")
        memory.append(
            MemorySettings(
                framework=r["name"],
                preallocates=r["preallocates"],
                default=r["default"],
                default_fraction=frac,
                controls=tuple(controls.get(r["name"], ())),
                **cite(r),
            )
        )

    # ---- NVIDIA's CUDA repositories
    cuda_repos: list[CudaRepo] = []
    for label, r in rows["cuda_repos"]["repo"]:
        first, last = r.get("first"), r.get("last")
        for name in ("first", "last"):
            v = r.get(name)
            if v is not None and (len(version_parts(v)) != 2 or not cuda_known(v)):
                ctx.add(label, f"{name} must be a CUDA minor (X.Y) in cuda_driver.toml, not {v!r}")
        if first and last and version_key(last) < version_key(first):
            ctx.add(label, "last must not be older than first")
        if r.get("first_verified") and not first:
            ctx.add(label, "first_verified needs first")
        if r.get("last_verified") and not last:
            ctx.add(label, "last_verified needs last")
        if any(d != d.lower() for d in r["distro"]):
            ctx.add(label, "distro entries are os-release IDs (lowercase)")
        cuda_repos.append(
            CudaRepo(
                repo=r["repo"],
                distro=tuple(r["distro"]),
                release=r["release"],
                first=first,
                last=last,
                first_verified=r.get("first_verified", False),
                last_verified=r.get("last_verified", False),
                **cite(r),
            )
        )

    companions: list[CompanionRelease] = []
    for label, r in rows["torch"]["companion"]:
        for t in r["torch"]:
            if not re.fullmatch(r"\d+\.\d+(\.\d+)?", t):
                ctx.add(label, f"torch entry {t!r} is not a release (2.3.1) or a minor (2.3)")
        if r.get("wheels") not in (None, "pytorch-index", "package-index", "release-assets"):
            ctx.add(label, f"wheels {r['wheels']!r} is not pytorch-index, package-index or release-assets")
        for c in r.get("cuda", ()):
            if not re.fullmatch(r"\d+", c):
                ctx.add(label, f"cuda entry {c!r} is not a CUDA major (12)")
        companions.append(
            CompanionRelease(
                package=r["package"],
                version=r["version"],
                torch=tuple(r["torch"]),
                wheels=r.get("wheels"),
                cuda=tuple(r.get("cuda", ())),
                **cite(r),
            )
        )

    torch_pins: list[TorchPins] = []
    by_minor = {_minor(t.version): t for t in torch_releases}
    for label, r in rows["torch"]["nvidia_pins"]:
        rel = by_minor.get(_minor(r["torch"]))
        variant = rel.variants.get(r["variant"]) if rel is not None else None
        if rel is None or variant is None:
            ctx.add(label, f"torch {r['torch']} has no release row with the variant {r['variant']}")
            continue
        if r["variant"] != rel.pypi_default:
            ctx.add(label, f"variant {r['variant']} is not the PyPI build of torch {rel.version} ({rel.pypi_default})")
        wheels: list[tuple[str, str]] = []
        for w in r["wheels"]:
            pin = re.fullmatch(r"(nvidia-[a-z-]+-cu(\d+))==(\d+(?:\.\d+)*)", w)
            if pin is None or int(pin.group(2)) != version_parts(variant.cuda)[0]:
                ctx.add(label, f"wheel {w!r} is not nvidia-<lib>-cu{version_parts(variant.cuda)[0]}==<version>")
                continue
            if pin.group(1).startswith("nvidia-cudnn-") and variant.cudnn and pin.group(3) != variant.cudnn:
                ctx.add(label, f"{w} is not the variant's cuDNN {variant.cudnn}")
            wheels.append((pin.group(1), pin.group(3)))
        torch_pins.append(TorchPins(torch=r["torch"], variant=r["variant"], wheels=tuple(wheels), **cite(r)))

    library_builds: list[LibraryBuild] = []
    for label, r in rows["libraries"]["build"]:
        until, pin = r.get("until"), r.get("pin")
        if r.get("pin_python") is not None and pin is None:
            ctx.add(label, "pin_python needs pin")
        if until is not None and version_key(until) <= version_key(r["since"]):
            ctx.add(label, "until must be newer than since")
        if pin is not None and (
            version_key(pin) < version_key(r["since"]) or (until is not None and version_key(pin) >= version_key(until))
        ):
            ctx.add(label, f"pin {pin} is not a release of this row (since {r['since']}, until {until})")
        library_builds.append(
            LibraryBuild(
                package=r["package"],
                since=r["since"],
                until=until,
                cuda=r["cuda"],
                cudnn=r["cudnn"],
                pin=pin,
                pin_python=r.get("pin_python"),
                **cite(r),
            )
        )

    library_archs: list[LibraryArch] = []
    for label, r in rows["libraries"]["arch"]:
        until, pin = r.get("until"), r.get("pin")
        if until is not None and version_key(until) <= version_key(r["since"]):
            ctx.add(label, "until must be newer than since")
        if r.get("pin_python") is not None and pin is None:
            ctx.add(label, "pin_python needs pin")
        if pin is not None and (
            version_key(pin) < version_key(r["since"]) or (until is not None and version_key(pin) >= version_key(until))
        ):
            ctx.add(label, f"pin {pin} is not a release of this row (since {r['since']}, until {until})")
        library_archs.append(
            LibraryArch(
                package=r["package"],
                since=r["since"],
                until=until,
                arch=tuple(r["arch"]),
                ptx=tuple(r.get("ptx") or ()),
                pin=pin,
                pin_python=r.get("pin_python"),
                **cite(r),
            )
        )

    bnb_releases: list[BnbRelease] = []
    for label, r in rows["libraries"]["bitsandbytes"]:
        until, pin = r.get("until"), r.get("pin")
        if pin is not None and (
            version_key(pin) < version_key(r["since"]) or (until is not None and version_key(pin) >= version_key(until))
        ):
            ctx.add(label, f"pin {pin} is not a release of this row (since {r['since']}, until {until})")
        if any(not re.fullmatch(r"\d+\.\d+", c) for c in r["cuda"]):
            ctx.add(label, "cuda lists CUDA versions as X.Y")
        bnb_releases.append(
            BnbRelease(
                since=r["since"],
                until=until,
                cuda=tuple(r["cuda"]),
                same_major=bool(r.get("same_major", False)),
                torch=r.get("torch"),
                python=r.get("python"),
                pin=pin,
                **cite(r),
            )
        )

    if ctx.problems:
        raise MatrixError(ctx.problems, hint="see compat_matrix/README.md for the schema of each file")
    return Matrix(
        sources=sources,
        cuda_releases=cuda_releases,
        minor_compat=minor_compat,
        driver_branches=branches,
        ptx_isas=ptx_isas,
        archs=archs,
        cc_targets=cc_targets,
        gpus=gpus,
        cudnn_releases=cudnn_releases,
        cudnn_majors=cudnn_majors,
        cudnn_pip=cudnn_pip,
        torch_releases=torch_releases,
        tf_releases=tf_releases,
        jax_releases=jax_releases,
        jax_pins=jax_pins,
        precision_rows=precision_rows,
        pcie=pcie,
        c2c=c2c,
        thresholds=thresholds,
        memory=memory,
        cuda_repos=cuda_repos,
        companions=companions,
        torch_pins=torch_pins,
        library_builds=library_builds,
        library_archs=library_archs,
        bnb_releases=bnb_releases,
        origins=origins,
    )
