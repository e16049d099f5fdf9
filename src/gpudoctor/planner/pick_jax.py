"""JAX builds: per matrix row (which applies from its version up to the next row) and CUDA major.

From 0.4.30 GPU support is a plugin pair from PyPI (`jax[cudaNN]`); before, a CUDA jaxlib from
JAX's own release page (`jax[cudaNN_pip]` with --find-links) was the way for majors without a
plugin. Linux only (compat_matrix/jax.toml).
"""

from __future__ import annotations

import re
from typing import Any, cast

from gpudoctor.matrix import spec_contains, version_key, version_parts
from gpudoctor.planner.judge import judge_driver, judge_kernels, judge_python
from gpudoctor.planner.model import Build, Candidate, Judgement, Machine

FIND_LINKS = "https://storage.googleapis.com/jax-releases/jax_cuda_releases.html"
_REQUEST = re.compile(r"^\d+\.\d+(\.\d+)?$")
_PLUGIN = re.compile(r"^jax-cuda(\d+)-(plugin|pjrt)$")


def _rows(matrix):
    return sorted(matrix.jax_releases, key=lambda r: version_key(r.version))


def _ranges(matrix, requested: str | None) -> list[tuple[Any, str]]:
    """[(row, pin)] newest first: the rows a request covers and the version range each installs."""
    from gpudoctor.errors import UsageError

    rows = _rows(matrix)
    bounds = {r.version: (rows[i + 1].version if i + 1 < len(rows) else None) for i, r in enumerate(rows)}
    if not requested:
        return [(r, f">={r.version},<{bounds[r.version]}" if bounds[r.version] else f">={r.version}") for r in reversed(rows)]
    req = requested.strip()
    if not _REQUEST.match(req):
        raise UsageError(f"not a JAX version: {requested!r}", "give one as pip would: 0.4.38, or a series: 0.6")
    parts = version_parts(req)
    first = rows[0].version
    if version_key(req) < version_key(first) and not (len(parts) == 2 and version_key(f"{req}.99") >= version_key(first)):
        raise UsageError(
            f"JAX {req} is older than the compatibility matrix ({first} and newer)",
            "gpudoctor only installs builds it can vouch for",
        )
    if len(parts) == 3:
        return [(matrix.jax_release(req), f"=={req}")]
    # A series ("0.6"): the row in force at its start, and the rows starting inside it.
    lo, hi = f"{parts[0]}.{parts[1]}.0", f"{parts[0]}.{parts[1] + 1}.0"
    start = matrix.jax_release(lo)
    inside = [r for r in rows if version_key(lo) < version_key(r.version) < version_key(hi)]
    out = []
    for r in ([start] if start else []) + inside:
        low = max(r.version, lo, key=version_key)
        nxt = bounds[r.version]
        high = hi if nxt is None or version_key(nxt) > version_key(hi) else nxt
        out.append((r, f">={low},<{high}"))
    return list(reversed(out))


def groups(matrix, requested: str | None):
    out = []
    for row, pin in _ranges(matrix, requested):
        builds = []
        for m in sorted(row.cuda, reverse=True):
            jc = row.cuda[m]
            extra, links = (f"cuda{m}", None) if jc.plugin else (f"cuda{m}_pip", FIND_LINKS)
            builds.append(
                Build(
                    "jax",
                    row.version,
                    f"cuda{m}",
                    jc.build_cuda or jc.cuda_min or f"{m}.0",
                    (f"jax[{extra}]{pin}",),
                    find_links=links,
                    sources=tuple(dict.fromkeys(row.source + jc.source)),
                    pin=pin,
                )
            )
        out.append((row, builds))
    return out


def kernels(matrix, row, m: int) -> tuple[tuple[str, ...], tuple[str, ...], str | None]:
    """(cubins, PTX, the older row they were taken from): a row without a list inherits the last one given."""
    jc = row.cuda[m]
    if jc.arch or jc.ptx:
        return jc.arch, jc.ptx, None
    for older in reversed([r for r in _rows(matrix) if version_key(r.version) < version_key(row.version)]):
        o = older.cuda.get(m)
        if o is not None and (o.arch or o.ptx):
            return o.arch, o.ptx, older.version
    return (), (), None


def kernels_of(matrix, row, build: Build) -> tuple[tuple[str, ...], tuple[str, ...]]:
    return kernels(matrix, row, int(build.variant.removeprefix("cuda")))[:2]


def install_specs(matrix, machine: Machine, build: Build) -> tuple[str, ...]:
    return build.specs


def evidence(machine: Machine, facts=None) -> tuple[str, str] | None:
    return None  # no companion names a build of this framework


def settle(matrix, machine: Machine, build: Build) -> Build:
    # jax's own extra pins jaxlib and the plugin to its version: the range never keeps a stale plugin.
    return build


def judge(matrix, machine: Machine, facts, row, build: Build, *, ignore_driver: bool = False) -> Candidate:
    m = int(build.variant.removeprefix("cuda"))
    js: list[Judgement] = []
    if machine.os != "linux":
        js.append(Judgement("os", False, f"JAX publishes CUDA builds for Linux only (not {machine.os}; WSL2 is Linux)"))
    js.append(judge_python(machine, row.python, (), f"JAX {row.version}+"))
    assert build.cuda is not None  # groups gives every JAX CUDA build its CUDA
    drv, full = judge_driver(matrix, machine, build.cuda)
    js.append(drv)
    arch, ptx, inherited = kernels(matrix, row, m)
    if inherited:
        js.append(
            Judgement(
                "gpu",
                True,
                f"the matrix lists no architectures for JAX {row.version} (CUDA {m}); those of {inherited} are assumed",
                note=True,
            )
        )
    js += judge_kernels(machine, arch, ptx, True if ignore_driver else full, build.cuda)
    return Candidate(build, tuple(js))


def rank(c: Candidate) -> tuple:
    """Within a row: full driver support first, then the newest CUDA major."""
    mvc = any(j.topic == "driver" and j.note and j.needs for j in c.judgements)
    return (not mvc, int(c.build.variant.removeprefix("cuda")))


def manual(machine: Machine, row, candidate: Candidate) -> tuple[str, ...]:
    return ()


def _pin(build: Build) -> str:
    # Every JAX build carries its version range: groups and cpu_build set one.
    return cast(str, build.pin)


def _plugin_cuda(name: str) -> str:
    """The CUDA major in a plugin's name; `name` is one _plugins kept, so _PLUGIN matches it."""
    return cast(re.Match[str], _PLUGIN.match(name)).group(1)


def _plugins(machine: Machine) -> dict[str, str]:
    return {n: v for n, v in machine.installed.items() if _PLUGIN.match(n)}


def installed_matches(machine: Machine, jax_facts, build: Build) -> bool:
    jax = machine.installed.get("jax")
    jaxlib = machine.installed.get("jaxlib", "")
    if not jax:
        return False
    pin = _pin(build)
    if not (jax == pin[2:] if pin.startswith("==") else spec_contains(pin, jax)):
        return False
    m = build.variant.removeprefix("cuda")
    plugins = _plugins(machine)
    if any(_plugin_cuda(n) != m for n in plugins):
        return False
    if build.find_links:
        return f"+cuda{m}" in jaxlib
    plugin = plugins.get(f"jax-cuda{m}-plugin")
    return bool(plugin) and version_parts(plugin)[:3] == version_parts(jaxlib or "0")[:3] == version_parts(jax)[:3]


def uninstall_names(machine: Machine, build: Build, reinstall: bool) -> tuple[str, ...]:
    m = build.variant.removeprefix("cuda")
    names = [n for n in _plugins(machine) if _plugin_cuda(n) != m or reinstall]
    jaxlib = machine.installed.get("jaxlib", "")
    # A CUDA jaxlib (+cudaNN local tag) from JAX's release page would shadow the plugin route's plain jaxlib.
    if jaxlib and (reinstall or ("+cuda" in jaxlib and not build.find_links)):
        names.append("jaxlib")
    if reinstall and "jax" in machine.installed:
        names.insert(0, "jax")
    return tuple(names)


def undo_args(machine: Machine) -> tuple[str, ...]:
    names = [n for n in ("jax", "jaxlib") if n in machine.installed] + sorted(_plugins(machine))
    return tuple(f"{n}=={machine.installed[n]}" for n in names)


def conda_equivalent(machine: Machine, build: Build) -> tuple[str, ...]:
    prefix = machine.env.prefix or "PREFIX"
    pin = _pin(build)
    if pin.startswith("=="):
        v = pin[2:]
        return ("conda", "install", "-p", prefix, "-c", "conda-forge", f"jaxlib={v}=*cuda*", f"jax={v}")
    return (
        "conda",
        "install",
        "-p",
        prefix,
        "-c",
        "conda-forge",
        f"jaxlib[version='{pin}',build=*cuda*]",
        f"jax[version='{pin}']",
    )


# --- CPU-only builds (--cpu): plain `jax` brings the CPU jaxlib (https://docs.jax.dev/en/latest/installation.html).


def cpu_build(machine: Machine, row, build: Build) -> Build:
    return Build("jax", row.version, "cpu", None, (f"jax{build.pin}",), sources=row.source, pin=build.pin)


def cpu_judge(machine: Machine, row, build: Build) -> Candidate:
    return Candidate(build, (judge_python(machine, row.python, (), f"JAX {row.version}+"),))


def cpu_installed(machine: Machine, jax_facts, build: Build) -> bool:
    jax = machine.installed.get("jax")
    if not jax or _plugins(machine) or "+cuda" in machine.installed.get("jaxlib", ""):
        return False
    pin = _pin(build)
    return jax == pin[2:] if pin.startswith("==") else spec_contains(pin, jax)


# --- agreement (jax-plugin-mismatch): the installed packages brought to one version ----------------
#
# JAX's rule (JEP 9419, jax/_src/lib check_jaxlib_version; compat_matrix/jax.toml `pin`): jax >= jaxlib
# >= jax's minimum jaxlib, and a CUDA plugin of jaxlib's exact version. Making installed packages agree
# chooses no build: the variant installed (CUDA plugin, CUDA jaxlib, CPU) is kept, so no GPU or driver
# facts are needed, unlike the planner's build choice.


def _numeric(version: str) -> str:
    return ".".join(str(p) for p in version_parts(version))


def cuda_variant(installed: dict[str, str]) -> int | None:
    """The CUDA major of the installed JAX GPU support: a plugin package, else a jaxlib+cudaNN build; None: CPU."""
    for name in sorted(installed):
        m = _PLUGIN.match(name)
        if m:
            return int(m.group(1))
    local = re.search(r"\+cuda(\d+)", installed.get("jaxlib", ""))
    return int(local.group(1)) if local else None


def agreed_version(matrix, installed: dict[str, str]) -> str | None:
    """The version jax, jaxlib and the CUDA plugin should agree on.

    jax's own: projects pin jax (octo's requirements.txt: jax==0.4.20), and jaxlib is the half that
    follows jax (JEP 9419: jax may be released alone, and jax >= jaxlib >= jax's minimum jaxlib). Except when jaxlib is newer than a jax older than the compatibility matrix (its first release row):
    no jaxlib of that jax is one gpudoctor can vouch for, so jax moves up to jaxlib's version (jax is
    pure Python, the jaxlib build stays), as JAX's maintainer advised for jax 0.4.6 beside jaxlib
    0.4.14 (https://github.com/jax-ml/jax/issues/17638)."""
    jax, jaxlib = installed.get("jax"), installed.get("jaxlib")
    try:
        if jax and jaxlib and version_key(jaxlib) > version_key(jax) and matrix.jax_release(jax) is None:
            return _numeric(jaxlib)
        return _numeric(jax) if jax else (_numeric(jaxlib) if jaxlib else None)
    except ValueError:
        return None  # a version that is not one: nothing to agree on


def agreement(
    matrix, machine: Machine, version: str, *, wheels: bool = False
) -> tuple[tuple[str, ...], str | None, tuple[str, ...]] | None:
    """(requirements, find-links, distributions to remove first) that bring the installed jax, jaxlib and
    plugins to `version`, keeping the installed variant; () requirements when they agree already. None
    when the matrix has no build of `version` in that variant to vouch for. `wheels`: the CUDA plugin's
    NVIDIA wheels (cuDNN among them) must come too, even when every version agrees.

    - Only jax differs: `jax==V` (pure Python; the installed jaxlib already is V).
    - jaxlib or a plugin differs: jax's own extra of V for the installed variant, which pins them
      (PyPI METADATA: jax 0.4.20 `cpu` requires jaxlib==0.4.20; jax 0.4.38 `cuda12` requires
      jaxlib==0.4.38 and jax-cuda12-plugin[with_cuda]>=0.4.38,<=0.4.38): `jax[cpu]==V`, or the
      matrix's CUDA build of V (`jax[cuda12]==V`, or `jax[cuda12_pip]==V` with JAX's release page)."""
    key = version_key(version)
    try:
        differs = {
            n
            for n in ("jax", "jaxlib", *_plugins(machine))
            if n in machine.installed and version_key(machine.installed[n]) != key
        }
    except ValueError:
        return None  # an installed version that is not one
    if not (differs - {"jax"}) and not wheels:
        return ((f"jax=={version}",) if differs else ()), None, ()
    if matrix.jax_release(version) is None or not _REQUEST.match(version):
        return None
    m = cuda_variant(machine.installed)
    if m is None:
        return (f"jax[cpu]=={version}",), None, ()
    build = next((b for _, builds in groups(matrix, version) for b in builds if b.variant == f"cuda{m}"), None)
    if build is None:
        return None
    return build.specs, build.find_links, uninstall_names(machine, build, False)


def companion_moves(matrix, machine: Machine, build: Build, installer: str) -> tuple[tuple[str, ...], tuple]:
    """Nothing installed beside JAX is built against one of its releases: nothing moves with it."""
    return (), ()
