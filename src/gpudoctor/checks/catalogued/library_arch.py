"""A library's "no kernel image" on a GPU below the arch floor of its prebuilt binaries (compat_matrix/libraries.toml
arch: ctranslate2, xgboost, vLLM): the last release with kernels for the GPU, or the CPU where none has.

Its own module, apart from gpu_floors: gpudoctor.checks.reported asks it whether a library explains the message before
blaming torch's build, and gpu_floors imports reported.
"""

from __future__ import annotations

from collections.abc import Iterable

from gpudoctor.checks.base import ev
from gpudoctor.checks.catalogued._common import _said
from gpudoctor.facts import Facts
from gpudoctor.model import Finding, Remediation, Severity
from gpudoctor.planner.context import Context
from gpudoctor.versions import vkey

# typing's constant without typing: a bare check imports this module (bench/README.md, h161)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from gpudoctor.facts import Gpu
    from gpudoctor.matrix.records import LibraryArch


def check_library_below_arch_floor(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """A "no kernel image is available" from a library whose prebuilt binaries (compat_matrix/libraries.toml arch) carry
    no code for a GPU the text shows, below the floor of the release at work (xgboost 1.5.0 and later on a Kepler K80,
    ctranslate2 4.x on a Maxwell GTX 950): the last release that still has kernels for it is pinned in the reporter's
    interpreter, or, where none has, the CPU. The release is the one installed or named; with none shown, the newest
    row's (what an unpinned install gets). A GPU the release supports, or no GPU shown, is left to the asks."""
    failed = _said(facts, "no-kernel-image")
    if not failed or not ctx.matrix.library_archs:
        return
    from gpudoctor.planner.context import gpu_cc

    ccs = [(g, c) for g in facts.driver.gpus if (c := gpu_cc(g, ctx))]
    if not ccs:
        return
    for package, version in _libraries_at_work(facts, ctx):
        rows = ctx.matrix.library_archs_of(package)
        row = ctx.matrix.library_arch(package, version) if version else rows[-1]
        if row is None:
            continue
        below = [(g, c) for g, c in ccs if row.below_floor(c)]
        if not below or len(below) < len(ccs):
            continue  # a GPU the release runs on may be the one that failed
        g, cc = below[0]
        # the newest earlier release that still runs on it (a later one never gets its floor back)
        runs = [r for r in rows if not r.below_floor(cc) and vkey(r.since) < vkey(row.since)]
        yield _below_arch_floor(facts, ctx, (package, version), row, runs[-1] if runs else None, (g, cc), failed[0].line)
        return


def _libraries_at_work(facts: Facts, ctx: Context) -> list[tuple[str, str | None]]:
    """The libraries of the matrix's arch rows the text shows at work, with the release installed (pip's list) or named
    (a catalogue entry of the library's, "ctranslate2-version"), None where none is shown: the library's own catalogue
    entries (ids "<package>-...") and its [[component]] name it."""
    from gpudoctor.facts import COMPONENT_NAMED
    from gpudoctor.probed import Found

    packages = dict.fromkeys(r.package for r in ctx.matrix.library_archs)
    py = facts.frameworks.python
    installed = py.value.distributions if isinstance(py, Found) else {}
    components = {c.get("means") for c in facts.pasted.cues if c.get("cue") == COMPONENT_NAMED}
    said = _said(facts, "library-said")
    out: list[tuple[str, str | None]] = []
    for package in packages:
        mine = [e for e in said if (e.get("entry") or "").startswith(package + "-")]
        if package not in installed and package not in components and not mine:
            continue
        version = installed.get(package) or next((e.get("version") for e in mine if e.get("version")), None)
        out.append((package, version))
    return out


def _below_arch_floor(
    facts: Facts,
    ctx: Context,
    at_work: tuple[str, str | None],
    row: LibraryArch,
    runs: LibraryArch | None,
    on: tuple[Gpu, str],
    line: str,
) -> Finding:
    from gpudoctor.checks.libraries import _faster_whisper_cuda11, _python
    from gpudoctor.planner.remedy import pip

    (package, version), (g, cc) = at_work, on
    gpu = g.name

    release = f"{package} {version}" if version else f"{package} {row.since} and later"
    floor = min(row.arch, key=vkey)
    title = f"{release} has no GPU code for the {gpu} (compute capability {cc}; its builds start at {floor})"
    detail = (
        f"The text shows 'no kernel image is available for execution on the device' from {package} on the {gpu} "
        f"(compute capability {cc}). The prebuilt {package} "
        + (f"{version} carries" if version else f"releases from {row.since} carry")
        + f" kernels for compute capability {floor} and newer only ({row.cite() or ', '.join(row.source)}), so no driver, "
        "CUDA or cuDNN change gives it code for this GPU."
    )
    pin = runs.pin_for(_python(facts)) if runs else None
    if runs is None or pin is None:
        fix = Remediation(
            f"No prebuilt {package} release runs on compute capability {cc}: run it on the CPU (its device option), build "
            f"it from source for compute capability {cc} where the CUDA it builds with still targets it, or use a GPU of "
            f"compute capability {floor} or newer.",
            (),
            component="gpu",
        )
    else:
        specs = [f"{package}=={pin}"]
        companion = _faster_whisper_cuda11(facts, ctx) if package == "ctranslate2" else None
        if companion:
            specs.append(f"faster-whisper=={companion}")
        detail += (
            f" {package} {pin} is the last release whose wheels still carry code for it (compute capability "
            f"{min(runs.arch, key=vkey)} and newer)."
        )
        fix = Remediation(
            f"In the same environment, install {package} {pin}, the last release with kernels for compute capability {cc}"
            + (" (with the faster-whisper release that accepts it)" if companion else "")
            + f"; or else run it on the CPU, or on a GPU of compute capability {floor} or newer.",
            (pip(facts, "install", *specs),),
            component="environment",
        )
    return Finding(
        "framework-arch-unsupported",
        Severity.ERROR,
        "frameworks",
        title,
        detail,
        (ev("pasted", line), ev(g.source, f"{gpu}: {cc}")),
        fix,
    )
