"""The binary floor, on pasted reports: glibc's loader refusing a compiled object that needs a newer C library
(`GLIBC_2.28`) or C++ runtime (`GLIBCXX_3.4.30`, `CXXABI_1.3.13`) than the copy it found defines.

The message itself proves the copy found lacks the version, so it decides the finding; the same question on a live
machine is `checks.extensions.check_runtime` (read from the ELF tables), and both answer with its code,
`extension-glibc-too-old`. What installs is the plan: for the C++ runtime, conda-forge's libstdc++ in the program's
conda environment (the system's library is never swapped); for glibc, a userland at least as new (an image of a newer
release), since glibc cannot be replaced under a running system.
"""

from __future__ import annotations

from collections.abc import Iterable

from gpudoctor.checks.base import ev
from gpudoctor.checks.catalogued._common import _said
from gpudoctor.cmdline import Cmd
from gpudoctor.facts import Facts, Found
from gpudoctor.lazypattern import LazyPattern
from gpudoctor.model import Finding, Remediation, Severity
from gpudoctor.planner.context import Context
from gpudoctor.versions import vkey

# The glibc release each distribution release ships (its glibc source package), keyed by os-release's ID and
# VERSION_ID major: Ubuntu 18.04 bionic 2.27, 20.04 focal 2.31, 22.04 jammy 2.35, 24.04 noble 2.39 (Launchpad's glibc
# package in each series); Debian 10 buster 2.28, 11 bullseye 2.31, 12 bookworm 2.36 (the glibc package in each
# release); CentOS/RHEL 7 glibc-2.17, 8 glibc-2.28, 9 glibc-2.34 (the el7/el8/el9 glibc packages).
_DISTRO_GLIBC = {
    ("ubuntu", "18.04"): "2.27",
    ("ubuntu", "20.04"): "2.31",
    ("ubuntu", "22.04"): "2.35",
    ("ubuntu", "24.04"): "2.39",
    ("debian", "10"): "2.28",
    ("debian", "11"): "2.31",
    ("debian", "12"): "2.36",
    ("centos", "7"): "2.17",
    ("rhel", "7"): "2.17",
    ("centos", "8"): "2.28",
    ("rhel", "8"): "2.28",
    ("rocky", "8"): "2.28",
    ("rhel", "9"): "2.34",
    ("rocky", "9"): "2.34",
}
# The Ubuntu images offered as a newer userland, oldest first, with their glibc (the rows above).
_UBUNTU_IMAGES = (("20.04", "2.31"), ("22.04", "2.35"), ("24.04", "2.39"))
# A conda environment's prefix in the path of the object that needs the runtime (…/envs/NAME/lib/python3.8/…, or the
# base environment: …/anaconda3/lib/…, /opt/conda/lib/…).
_CONDA_PREFIX = LazyPattern(
    r"^(?P<prefix>/\S*?/(?:envs/[^/\s]+|(?:ana|mini)conda3|miniforge3|mambaforge|conda))/(?:bin/\.\./)?lib(?:/|$)"
)

# The same prefixes as the interpreter's path (…/envs/NAME/bin/python3.8).
_CONDA_PYTHON = LazyPattern(
    r"^(?P<prefix>/\S*?/(?:envs/[^/\s]+|(?:ana|mini)conda3|miniforge3|mambaforge|conda))/bin/python[\d.]*$"
)


def _machine_glibc(facts: Facts) -> tuple[str, str] | None:
    """(the machine's glibc release, the line that shows it) where the paste shows it: collect_env's Libc version, else
    the distribution release it names."""
    for e in _said(facts, "glibc-release-said"):  # glibc's own release, as collect_env printed it
        if e.get("glibc"):
            return e.get("glibc"), e.line
    d = facts.platform.distro
    ids = [d.id or "", *(d.id_like or "").split()]
    major = (d.version_id or "").split(".")[0]
    for name in ids:
        glibc = _DISTRO_GLIBC.get((name, d.version_id or "")) or _DISTRO_GLIBC.get((name, major))
        if glibc:
            return glibc, f"{d.pretty_name or name + ' ' + (d.version_id or '')} ships glibc {glibc}"
    return None


def check_runtime_floor(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """The loader's "version `GLIBC_2.28' not found (required by X)": X needs a newer runtime than the one found."""
    for e in _said(facts, "loader-runtime-floor"):
        family, need, lib = e.get("family") or "", e.get("version") or "", e.get("lib") or ""
        requirer = e.get("requirer") or ""
        machine = _machine_glibc(facts) if family == "GLIBC" else None
        if machine is not None and vkey(machine[0]) >= vkey(need):
            continue  # the system's glibc has it: another libc was loaded (an image's, a bundled one); the ask decides
        yield _finding(e, family, need, lib, requirer, machine, _interpreter_prefix(facts))
        return  # one cause, one finding


def _interpreter_prefix(facts: Facts) -> str | None:
    """The conda environment of the interpreter the paste shows running the program (…/envs/NAME/bin/python), where the
    loader's line does not name the object that needs the runtime: the module it refused was that interpreter's."""
    py = facts.frameworks.python
    exe = py.value.executable if isinstance(py, Found) else None
    found = _CONDA_PYTHON.match(exe or "")
    return found.group("prefix") if found else None


def _finding(
    e, family: str, need: str, lib: str, requirer: str, machine: tuple[str, str] | None, interpreter: str | None
) -> Finding:
    what = requirer or "a compiled module"
    evidence = [ev("pasted", e.line)]
    if machine is not None:
        evidence.append(ev("pasted", machine[1]))
    found = _CONDA_PREFIX.match(requirer or lib)
    prefix = found.group("prefix") if found else None if requirer else interpreter
    if family == "GLIBC":
        image = next((rel for rel, g in _UBUNTU_IMAGES if vkey(g) >= vkey(need)), None)
        remedy = Remediation(
            f"Run it in a userland whose glibc is {need} or newer: an image of a newer release (Ubuntu {image}'s glibc "
            f"is {dict(_UBUNTU_IMAGES)[image]}), with the same packages installed in it; or install a release of the "
            f"package built for this glibc{f' ({machine[0]})' if machine else ''}, or build it here. glibc itself is "
            "never replaced under a running system."
            if image
            else f"Run it in a userland whose glibc is {need} or newer, or install a release of the package built for "
            "this glibc, or build it here.",
            (
                (
                    Cmd(
                        ("docker", "run", "--rm", f"ubuntu:{image}", "ldd", "--version"),
                        note=f"the newer userland: its glibc is {dict(_UBUNTU_IMAGES)[image]}",
                    ),
                )
                if image
                else ()
            ),
            component="platform",
        )
    else:
        cmds = (
            (
                Cmd(
                    ("conda", "install", "-p", prefix, "-c", "conda-forge", "libstdcxx-ng"),
                    note="conda-forge's C++ runtime in that environment; the system's libstdc++ stays as it is",
                ),
            )
            if prefix
            else ()
        )
        remedy = Remediation(
            f"Give the program a C++ runtime that defines {family}_{need}: conda-forge's libstdc++ (libstdcxx-ng) "
            "in its conda environment"
            + (f" ({prefix})" if prefix else "")
            + ", or an image of a newer release; never replace the system's libstdc++.so.6.",
            cmds,
            component="platform",
        )
    have = f"; the machine's glibc is {machine[0]}" if machine else ""
    return Finding(
        "extension-glibc-too-old",
        Severity.ERROR,
        "frameworks",
        f"{what.rsplit('/', 1)[-1]} needs {family}_{need}, which {lib} does not define{have}",
        f"The loader refused {what}: it was built on a newer system and needs the symbol version {family}_{need}, "
        f"and the {lib.rsplit('/', 1)[-1]} it found ({lib}) defines only older ones. No GPU, driver or CUDA setting "
        "changes this; a runtime at least that new does.",
        tuple(evidence),
        remedy,
    )
