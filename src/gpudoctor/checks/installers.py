"""Findings for the installers' own messages (pip, uv; catalogue.toml's installer family), on pasted reports.

What the package index did not give this interpreter (`python-no-wheel`) is judged only where the paste decides it:
the installer names the Python or platform itself (uv's ABI and platform tags), or the paste shows the interpreter's
Python beside a release or wheel built for others (the matrix's Python range of each torch release). Elsewhere the
catalogue's ask (the interpreter's version, machine and width) decides. A distribution's own Python refusing pip
(PEP 668) is `python-externally-managed`: always decided by the message itself. pip's own check after an install
("X 1.0 requires Y<2, but you have Y 2.1 which is incompatible") states a requirement of one package against what is
installed: `requirement-unmet`, met by installing the release the line pins, nothing wider.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable

from gpudoctor.checks.base import Check, ev
from gpudoctor.cmdline import Cmd, Placeholder
from gpudoctor.facts import Facts
from gpudoctor.lazypattern import LazyPattern
from gpudoctor.model import Finding, Remediation, Severity
from gpudoctor.planner.context import Context
from gpudoctor.planner.remedy import apt_install, reboot
from gpudoctor.planner.resume import pip_install, shown_command
from gpudoctor.planner.where import python_exe
from gpudoctor.probed import Found
from gpudoctor.versions import parse_spec, spec_contains, vkey

# The Python minors a torch release's range is read against (the matrix's releases span 3.6 to 3.15).
_MINORS = tuple(f"3.{n}" for n in range(6, 16))
# A wheel's file name (PEP 427): name-version(-build)?-python-abi-platform.whl; the Python tag of a CPython build.
_WHEEL = LazyPattern(
    r"^(?P<name>[\w.]+)-(?P<version>[\w.+!]+)(?:-\d[\w.]*)?-(?P<py>[\w.]+)-(?P<abi>[\w.]+)-(?P<plat>[\w.]+)\.whl$"
)
_CP = LazyPattern(r"^cp(?P<major>\d)(?P<minor>\d{1,2})$")
# python.org's Windows installer folder of a 32-bit Python (C:\\...\\Python37-32): the folder and its minor version.
_PY32_FOLDER = LazyPattern(r"(?P<root>^.*?[\\/]Python3(?P<minor>\d{1,2})-32)(?:[\\/]|$)")
_PIN = LazyPattern(r"^(?P<name>[A-Za-z0-9][\w.-]*)==(?P<version>[\w.!]+?)(?:\+(?P<tag>[\w.]+))?$")
# The package managers whose Python ships venv apart (Debian's python3-venv; the message names apt).
_VENV_PACKAGE = {"apt": "python3-venv"}


def _said(facts: Facts, kind: str) -> list:
    return facts.pasted.reported(kind) if facts.pasted.partial else []


def _cp_python(tag: str) -> str | None:
    """The CPython version a wheel's Python or ABI tag names (cp311 -> 3.11), or None."""
    m = _CP.match(tag)
    return f"{m.group('major')}.{m.group('minor')}" if m else None


def _shown_python(facts: Facts) -> str | None:
    """The interpreter's Python (major.minor) where the paste showed it (a site-packages path, collect_env, a form)."""
    env = facts.frameworks.python
    version = env.value.version if isinstance(env, Found) else ""
    m = re.match(r"^(\d+)\.(\d+)", version or "")
    return f"{m.group(1)}.{m.group(2)}" if m else None


def _torch_pythons(ctx: Context, version: str) -> tuple[str, list[str]] | None:
    """(the release's Python range, the minors in it) for a torch release the matrix knows, else None."""
    rel = ctx.matrix.torch_release(version)
    if rel is None:
        return None
    return rel.python, [p for p in _MINORS if spec_contains(rel.python, p)]


def _other_torch(ctx: Context, python: str, minors: list[str]) -> str:
    """The sentence on the other way out: the torch releases the matrix knows with wheels for this Python."""
    fit = [r.version for r in ctx.matrix.torch_releases if spec_contains(r.python, python)]
    if not fit:
        return f" No torch release the matrix knows has wheels for Python {python}."
    if vkey(python) > vkey(minors[-1]):  # the Python is newer than the release's: a later torch
        return (
            f" Or keep Python {python} and move to torch {fit[0]} or newer, the first release with its wheels (its "
            "companions moved with it, each at the release built for it)."
        )
    return (
        f" Or keep Python {python} and move to torch {fit[-1]} or older, the last release with its wheels (its "
        "companions moved with it, each at the release built for it)."
    )


def _hinted_pythons(facts: Facts, name: str) -> list[str]:
    """The CPython versions uv's hint says the release `name` has wheels for (its ABI tags), oldest first."""
    for h in _said(facts, "installer-wheel-tags-said"):
        if (h.get("package") or "").lower() == name.lower():
            found = {p for t in re.findall(r"`(\w+)`", h.get("tags") or "") if (p := _cp_python(t.rstrip("m")))}
            return sorted(found, key=vkey)
    return []


def _uv_abi(facts: Facts, ctx: Context, e) -> Finding | None:
    python = _cp_python(e.get("abi") or "")
    if python is None:
        return None
    pin = _PIN.match(e.get("requirement") or "")
    what = f"{pin.group('name')} {pin.group('version')}" if pin else "the requested release"
    pythons = _torch_pythons(ctx, pin.group("version")) if pin and pin.group("name") == "torch" else None
    hinted = _hinted_pythons(facts, pin.group("name")) if pin else []
    if pin and pythons is not None and pythons[1] and python not in pythons[1]:
        rng, minors = pythons
        rem = Remediation(
            f"Create the project's environment with Python {minors[-1]}, the newest one torch {pin.group('version')} has "
            f"wheels for ({rng}), then run the same `uv pip install` in it (uv installs into ./.venv)."
            + _other_torch(ctx, python, minors),
            (Cmd(("uv", "venv", "--python", minors[-1]), note="uv fetches that Python if it is not installed"),),
            component="torch",
        )
    elif hinted and python not in hinted:
        # Not a release the matrix knows: uv's own hint says which Pythons it has wheels for.
        rem = Remediation(
            f"Create the project's environment with Python {hinted[-1]}, the newest one {what} has wheels for (uv's "
            f"hint: {', '.join(hinted)}), then run the same `uv pip install` in it (uv installs into ./.venv); or pin a "
            f"release of it built for Python {python}.",
            (Cmd(("uv", "venv", "--python", hinted[-1]), note="uv fetches that Python if it is not installed"),),
            component="platform",
        )
    else:
        rem = Remediation(
            f"Run it with a Python {what} has wheels for (uv's hint under the message lists their tags; "
            f"`uv venv --python X.Y` creates such an environment), or pin a release of it built for Python {python}.",
            component="platform",
        )
    return Finding(
        "python-no-wheel",
        Severity.ERROR,
        "frameworks",
        f"{what} has no wheel for Python {python}",
        f"uv said so: the index publishes {what} for other Python versions only (the ABI tag it looked for is "
        f"{e.get('abi')}), so no install of it can succeed with this interpreter, whatever the GPU, driver or CUDA.",
        (ev("pasted", e.line),),
        rem,
    )


def _uv_platform(e) -> Finding | None:
    platform = e.get("platform")
    if not platform:
        return None
    pin = _PIN.match(e.get("requirement") or "")
    what = f"{pin.group('name')} {pin.group('version')}" if pin else "the requested release"
    return Finding(
        "python-no-wheel",
        Severity.ERROR,
        "frameworks",
        f"{what} has no wheel for this platform ({platform})",
        f"uv said so: the index publishes {what} for other platforms only (uv's hint under the message lists them) "
        "and no source distribution, so it cannot be installed on this machine with any Python.",
        (ev("pasted", e.line),),
        Remediation(
            f"Install it on a platform it publishes wheels for (uv's hint lists them), or pin a release of it that has "
            f"a wheel for {platform}.",
            component="platform",
        ),
    )


def _pip_wheel(facts: Facts, ctx: Context, e) -> Finding | None:
    """pip's "X.whl is not a supported wheel on this platform" where the paste shows the interpreter's Python."""
    from gpudoctor.checks.extensions import TORCH_INDEX
    from gpudoctor.planner.remedy import pip

    wheel = _WHEEL.match(e.get("wheel") or "")
    python = _shown_python(facts)
    built = _cp_python(wheel.group("py")) if wheel else None
    if wheel is not None and (python is None or built is None or built == python):
        return _pip_wheel_platform(facts, ctx, e, wheel)
    if wheel is None or python is None or built is None or built == python:
        return None  # the interpreter is not shown (the ask decides), or its Python is the wheel's: the platform differs
    name, version = wheel.group("name").replace("_", "-").lower(), wheel.group("version")
    base, _, tag = version.partition("+")
    commands: tuple[Cmd, ...] = ()
    rel = ctx.matrix.torch_release(base) if name == "torch" else None
    if rel is not None and rel.supports_python(python) and (tag in rel.variants or tag == "cpu"):
        # The same build for this Python, chosen by pip from the index that holds the variant.
        commands = (pip(facts, "install", f"torch=={base}", "--index-url", f"{TORCH_INDEX}/{tag}"),)
    return Finding(
        "python-no-wheel",
        Severity.ERROR,
        "frameworks",
        f"the wheel {e.get('wheel')} is built for Python {built}, and this interpreter is Python {python}",
        f"pip refused it: a wheel's cp{built.replace('.', '')} tag binds it to CPython {built}. The file is the wrong "
        f"one for this interpreter (Python {python}), not a fault of the GPU, driver or CUDA.",
        (ev("pasted", e.line), ev("pasted", f"Python {python}")),
        Remediation(
            (
                f"Let pip choose the {name} {version} wheel built for Python {python} from the index that holds it."
                if commands
                else f"Install the {name} {version} wheel built for Python {python} (the file with the "
                f"cp{python.replace('.', '')} tag), or run it with Python {built}."
            ),
            commands,
            component="torch" if name == "torch" else "platform",
        ),
    )


# A wheel's platform tag (PEP 425; manylinux per PEP 600) by the operating system it binds the file to, and the name
# Python's platform.system() gives that system. Linux is never judged here: a paste's platform defaults to Linux when
# the text names none (an assumption, not a fact), so only a Mac or Windows the text named contradicts a Linux wheel.
_PLATFORM_OF_TAG = (("linux_", "Linux"), ("manylinux", "Linux"), ("macosx_", "Darwin"), ("win_", "Windows"), ("win32", "Windows"))
_SYSTEM_NAME = {"Linux": "Linux", "Darwin": "macOS", "Windows": "Windows"}


def _pip_wheel_platform(facts: Facts, ctx: Context, e, wheel) -> Finding | None:
    """pip's "X.whl is not a supported wheel" where the file's platform tag is another OS than the one the paste names
    (a Linux wheel's URL in requirements run on a Mac): the file is the wrong one; the release by name lets pip choose."""
    from gpudoctor.planner.remedy import pip

    plat = wheel.group("plat")
    built_for = next((system for prefix, system in _PLATFORM_OF_TAG if plat.startswith(prefix)), None)
    here = facts.platform.system
    if built_for is None or here not in ("Darwin", "Windows") or built_for == here:
        return None
    name, version = wheel.group("name").replace("_", "-").lower(), wheel.group("version")
    base, _, tag = version.partition("+")
    cuda_build = tag.startswith("cu")
    commands: tuple[Cmd, ...] = ()
    if not cuda_build or here == "Windows":
        commands = (pip(facts, "install", f"{name}=={base}"),)
    return Finding(
        "python-no-wheel",
        Severity.ERROR,
        "frameworks",
        f"the wheel {e.get('wheel')} is built for {_SYSTEM_NAME[built_for]}, and this machine is {_SYSTEM_NAME[here]}",
        f"pip refused it: its platform tag {plat} binds the file to {_SYSTEM_NAME[built_for]}, so no Python on "
        f"{_SYSTEM_NAME[here]} can install it. The file named (a URL in a requirements file, a download) is the wrong one "
        "for this machine, not a fault of the GPU, driver or CUDA.",
        (ev("pasted", e.line),),
        Remediation(
            (
                f"Install {name} {base} by name, so that pip chooses the file built for {_SYSTEM_NAME[here]} and this "
                "Python from the index (replace the wheel's URL in the requirements with the pin)."
                if commands
                else f"{name} {version} is a CUDA build, and there is none for {_SYSTEM_NAME[here]}: install {name} "
                f"{base} by name (pip chooses the file built for it) and run the GPU work on Linux or Windows."
            ),
            commands,
            component="torch" if name == "torch" else "platform",
        ),
    )


def _pip_32bit(facts: Facts, e) -> Finding | None:
    """pip found no torch for a PyPy interpreter the paste shows (its version banner), or a 32-bit Python (collect_env's "(32-bit runtime)", python.org's
    PythonNN-32 folder): PyTorch publishes 64-bit wheels only ("we don't provide windows 32-bit binaries",
    pytorch/pytorch#40511, a maintainer)."""
    name = re.match(r"[A-Za-z0-9][\w.-]*", e.get("requirement") or "")
    if name is None or name.group(0).lower() != "torch":
        return None
    python = _shown_python(facts)
    if pypy := _said(facts, "python-pypy-said"):
        cpython = f"CPython {python}" if python else "CPython"
        return Finding(
            "python-no-wheel",
            Severity.ERROR,
            "frameworks",
            f"torch has no wheel for PyPy (the interpreter is PyPy {pypy[0].get('pypy')})",
            "pip found no torch to install: the interpreter that ran it is PyPy, and PyTorch publishes wheels for "
            "CPython's ABI (cpXY) only, so no index holds a torch for it.",
            (ev("pasted", e.line), ev("pasted", pypy[0].line)),
            Remediation(
                f"Create the environment with {cpython} (python.org's, the distribution's python3, or conda's) and run the "
                "same pip install with that interpreter.",
                component="torch",
            ),
        )
    env = facts.frameworks.python
    paths = [env.value.executable, *env.value.site_packages] if isinstance(env, Found) else []
    at = next(((p, m) for p in paths if (m := _PY32_FOLDER.search(p or ""))), None)
    folder = at[1] if at else None
    said = _said(facts, "python-32bit-said")
    if folder is None and not said:
        return None
    python = python or (f"3.{folder.group('minor')}" if folder else None)
    return Finding(
        "python-no-wheel",
        Severity.ERROR,
        "frameworks",
        f"torch has no wheel for a 32-bit Python{f' {python}' if python else ''}",
        "pip found no torch to install: the interpreter that ran it is a 32-bit Python, and PyTorch publishes 64-bit "
        "wheels only, so no index holds a torch for it, whatever the release or the CUDA asked for.",
        (ev("pasted", e.line), ev("pasted", said[0].line if said else at[0] if at else "")),
        Remediation(
            f"Install the 64-bit (x86-64) Python{f' {python}' if python else ''} from python.org's Windows installers, "
            "create the environment with it, and run the same pip install with that interpreter.",
            _wide_python_steps(facts, python, folder.group("root").replace("/", "\\") if folder else None),
            component="torch",
        ),
    )


def _wide_python_steps(facts: Facts, python: str | None, root: str | None) -> tuple[Cmd, ...]:
    """On Windows: the width of the interpreter that ran pip, then the reporter's pip install (its plain words) run by
    the launcher's 64-bit Python of the same version. `py -3.7-64` picks the 64-bit 3.7 and exits with an error where
    none is installed (cpython PC/launcher-usage.txt at bad86a6: "add '-64' to omit 32-bit runtimes"; the -X.Y-64 form
    since Python 3.7, bpo-30291); `struct.calcsize('P')` is the pointer's size in bytes."""
    from gpudoctor.planner.plan_state import is_windows

    if root is None and not is_windows(facts):
        return ()  # a 32-bit Python elsewhere (an armv7 board): the launcher is Windows' own
    launcher = ("py", f"-{python}-64" if python else "-3-64")
    said = [w for w in facts.pasted.reported("pip-install-said") if w.get("args")]
    again = (
        (
            Cmd(
                (*launcher, "-m", "pip", "install", *(said[-1].get("args") or "").split()),
                note="your pip install, run by the 64-bit Python",
            ),
            Cmd((*launcher, "-c", "import torch; print(torch.__version__)")),
        )
        if said
        else ()  # the command is not shown: the summary says to run it again
    )
    return (
        *(
            (
                Cmd(
                    (f"{root}\\python.exe", "-c", "import struct, sys; print(struct.calcsize('P') * 8, sys.version)"),
                    note="the interpreter that ran pip: it prints 32",
                ),
            )
            if root
            else ()
        ),
        Cmd(
            (*launcher, "-c", "import struct; print(struct.calcsize('P') * 8)"),
            note="after installing the 64-bit Python: it prints 64",
        ),
        *again,
    )


def _pip_release(facts: Facts, ctx: Context, e) -> Finding | None:
    """pip's "Could not find a version ... torch==X" where the paste shows a Python torch X has no wheels for."""
    if (wide := _pip_32bit(facts, e)) is not None:
        return wide
    pin = _PIN.match(e.get("requirement") or "")
    python = _shown_python(facts)
    if python is not None and (tf := _pip_tensorflow(facts, ctx, e, python)) is not None:
        return tf
    if pin is None or python is None or pin.group("name").lower() != "torch":
        return None
    pythons = _torch_pythons(ctx, pin.group("version"))
    if pythons is None or python in pythons[1] or not pythons[1]:
        return None  # the release has wheels for this Python: the platform or the index decides (the ask says which)
    rng, minors = pythons
    return Finding(
        "python-no-wheel",
        Severity.ERROR,
        "frameworks",
        f"torch {pin.group('version')} has no wheel for Python {python}",
        f"pip found no release to install: torch {pin.group('version')} was built for Python {rng} only, and the "
        f"interpreter that ran pip is Python {python}. No index holds it for this Python.",
        (ev("pasted", e.line), ev("pasted", f"Python {python}")),
        Remediation(
            f"Run the install with a Python in {rng} (a virtual environment of Python {minors[-1]}, say)."
            + _other_torch(ctx, python, minors),
            component="torch",
        ),
    )


# TensorFlow's pip distributions: the name a requirement may use, each published per Python (tensorflow.toml's ranges).
_TF_NAMES = frozenset({"tensorflow", "tensorflow-gpu", "tensorflow-cpu"})
_TF_REQUIREMENT = LazyPattern(r"^(?P<name>[A-Za-z][\w.-]*?)(?:==(?P<version>\d+(?:\.\d+){1,2}))?$")


def _pip_tensorflow(facts: Facts, ctx: Context, e, python: str) -> Finding | None:
    """pip found no TensorFlow for a Python the paste shows, and no release the matrix knows (the pinned one, or any
    where no version is pinned) was built for it. A name or index pip could not serve is another cause: the matrix's
    ranges say nothing of it, so only a Python outside every range asked decides (tensorflow.toml's `python`)."""
    from gpudoctor.planner.plan_state import is_windows

    # (the requirement as the pattern took it, less the quoting a Markdown paste closes it with: tensorflow==2.3.0`)
    req = _TF_REQUIREMENT.match((e.get("requirement") or "").rstrip("`'\".,)"))
    if req is None or req.group("name").lower() not in _TF_NAMES:
        return None
    version = req.group("version")
    asked = [r for r in ([ctx.matrix.tensorflow_release(version)] if version else ctx.matrix.tf_releases) if r]
    if not asked or any(spec_contains(r.python, python) for r in asked):
        return None
    rel = asked[-1]
    minors = [p for p in _MINORS if spec_contains(rel.python, p)]
    if not minors:
        return None
    fit = [r.version for r in ctx.matrix.tf_releases if spec_contains(r.python, python)]
    what = f"tensorflow {version}" if version else "tensorflow"
    newer = vkey(python) > vkey(minors[-1])
    other = (
        f" Or keep Python {python} and install tensorflow {fit[0] if newer else fit[-1]} or "
        f"{'newer' if newer else 'older'}, the {'first' if newer else 'last'} release with its wheels."
        if fit and version
        else ""
    )
    target = minors[-1]
    # A Python beside the one installed, never in its place: the py launcher's -X.Y on Windows (it says so and exits
    # where that Python is not installed: cpython PC/launcher-usage.txt), uv elsewhere (it fetches the Python).
    # The environment only: the install runs in it, with its own interpreter, which the summary names (a command run
    # by the old Python would meet the same refusal).
    cmds = (
        (Cmd(("py", f"-{target}", "-m", "venv", ".venv"), note=f"a Python {target} environment beside the one you have"),)
        if is_windows(facts)
        else (Cmd(("uv", "venv", "--python", target), note="uv fetches that Python if it is not installed"),)
    )
    return Finding(
        "python-no-wheel",
        Severity.ERROR,
        "frameworks",
        f"{what} has no wheel for Python {python}",
        f"pip found no release to install: {what} was built for Python {rel.python} only"
        f"{'' if version else f' (tensorflow {rel.version}, the newest release the matrix knows)'}, and the interpreter "
        f"that ran pip is Python {python}. No index holds it for this Python.",
        (ev("pasted", e.line), ev("pasted", f"Python {python}")),
        Remediation(
            f"Create an environment of Python {target}, the newest one {what if version else f'tensorflow {rel.version}'} "
            f"has wheels for, beside the Python you have, and run the same install in it (`uv pip install` installs "
            "into ./.venv; on Windows, .venv\\Scripts\\python.exe -m pip install)." + other,
            cmds,
            component="tensorflow",
        ),
    )


def check_no_wheel(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """An installer found no build of the requested release for this interpreter, and the paste says why."""
    for e in _said(facts, "installer-no-release") + _said(facts, "installer-wheel-unsupported"):
        entry = e.get("entry")
        if entry == "uv-no-wheels-python-abi":
            found = _uv_abi(facts, ctx, e)
        elif entry == "uv-no-wheels-platform":  # not uv sync's lock message: a lock may lack what the index holds
            found = _uv_platform(e)
        elif entry == "pip-unsupported-wheel":
            found = _pip_wheel(facts, ctx, e)
        elif entry in ("pip-no-version-satisfies", "pip-no-matching-distribution"):
            found = _pip_release(facts, ctx, e)
        else:
            found = None
        if found is not None:
            yield found
            return  # one cause, one finding


# The channels beside which the pytorch channel's own builds are all conda can choose from: NVIDIA's channel adds CUDA
# libraries, never a pytorch. conda-forge (or another channel) publishes pytorch builds of its own, whose CUDA pairs
# differ (pytorch.github.io _get_started/previous-versions.md at 04862e3 lists 1.9.0 with cudatoolkit=11.3 through
# "-c pytorch -c conda-forge"), so a request naming one is not judged here.
_PYTORCH_CHANNELS = frozenset({"pytorch", "nvidia", "defaults"})
# The last pytorch minor whose conda CUDA builds follow a `cudatoolkit` package: from 1.13 on the pytorch channel pairs
# its builds with `pytorch-cuda` instead (pytorch/test-infra PR 1351: "For CUDA version 11.6 and forward we will be
# using pytorch-cuda package"; previous-versions.md's 1.13 lines use pytorch-cuda=11.6/11.7 -c nvidia).
_LAST_CUDATOOLKIT_TORCH = (1, 12)
_CONDA_VALUE_FLAGS = frozenset({"-c", "--channel", "-n", "--name", "-p", "--prefix", "--file"})
_CONDA_SPEC = LazyPattern(r"^(?:(?P<channel>[\w.-]+)::)?(?P<name>[A-Za-z0-9][\w.-]*)={1,2}(?P<version>\d+(?:\.\d+){1,2})$")


def _conda_request(args: list[str]) -> tuple[set[str], dict[str, str]] | None:
    """(the channels a conda install names, {package: version} of its plain `name=version` specs); None where a spec
    has a build string, a wildcard or an operator (the request is not a plain pair to judge)."""
    channels: set[str] = set()
    specs: dict[str, str] = {}
    flag = ""
    for w in args:
        if flag:
            if flag in ("-c", "--channel"):
                channels.add(w.rstrip("/").rsplit("/", 1)[-1])
            flag = ""
        elif w in _CONDA_VALUE_FLAGS:
            flag = w
        elif w.startswith("--channel="):
            channels.add(w.split("=", 1)[1].rstrip("/").rsplit("/", 1)[-1])
        elif w.startswith("-"):
            continue
        elif m := _CONDA_SPEC.match(w):
            if m.group("channel"):
                channels.add(m.group("channel"))
            specs[m.group("name").lower()] = m.group("version")
        elif "=" in w or "<" in w or ">" in w:
            return None
        else:
            specs.setdefault(w.lower(), "")
    return channels, specs


def check_conda_cpu_pair(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """A conda install asking the pytorch channel for a pytorch release beside a cudatoolkit it never built that release
    for: no CUDA build fits the request, so conda's solver keeps the cudatoolkit and takes the release's CPU build (build
    string pyX.Y_cpu_0, with cpuonly), and torch.cuda.is_available() is False whatever the driver."""
    for e in _said(facts, "conda-install-said"):
        words = (e.get("args") or "").split()
        request = _conda_request(words)
        if request is None:
            continue
        channels, specs = request
        torch, toolkit = specs.get("pytorch", ""), specs.get("cudatoolkit", "")
        if "pytorch" not in channels or not channels <= _PYTORCH_CHANNELS or not torch or not toolkit or "cpuonly" in specs:
            continue
        rel = ctx.matrix.torch_release(torch)
        if rel is None or vkey(rel.version)[:2] > _LAST_CUDATOOLKIT_TORCH or not rel.variants:
            continue
        wanted = ".".join(toolkit.split(".")[:2])
        built = sorted({v.cuda for v in rel.variants.values()}, key=vkey)
        if wanted in built:
            continue
        below = [c for c in built if vkey(c) <= vkey(wanted)]
        cuda = below[-1] if below else built[0]
        first = next((r for r in ctx.matrix.torch_releases if any(v.cuda == wanted for v in r.variants.values())), None)
        yield Finding(
            "framework-cpu-build",
            Severity.ERROR,
            "frameworks",
            f"conda was asked for pytorch {torch} with cudatoolkit {toolkit}, a pair the pytorch channel never built",
            f"PyTorch {rel.version} was built for CUDA {', '.join(built)} only (and for the CPU). No CUDA build of "
            f"pytorch {torch} fits cudatoolkit {toolkit}, so conda's solver keeps cudatoolkit {toolkit} and installs the "
            "CPU build (its build string ends in _cpu_0, with the cpuonly package): PyTorch cannot use the GPU, whatever "
            "the driver.",
            (ev("pasted", e.line),),
            Remediation(
                f"In the same environment, ask for a pair the channel built: pytorch {torch} with cudatoolkit {cuda}"
                + (
                    f" (or, to keep CUDA {wanted}, pytorch {first.version}, the first release built for it)"
                    if first is not None and vkey(first.version) > vkey(rel.version)
                    else ""
                )
                + ". `conda list` shows the builds first; where it lists cpuonly, `conda remove cpuonly` before the "
                "install (it holds the CPU build in place).",
                (
                    # conda list's positional argument lists "only packages matching this regular expression" (conda's
                    # command reference, `conda list [regex]`): one line per package, with its build string
                    Cmd(
                        ("conda", "list", "^(pytorch|torchvision|torchaudio|cudatoolkit|cpuonly)$"),
                        note="the builds installed: a _cpu_ build string or cpuonly confirms it",
                    ),
                    Cmd(
                        ("conda", "install", *_conda_pair_args(ctx, words, torch, cuda)),
                        note="your command, with a CUDA the release was built for",
                    ),
                    Cmd(
                        ("python", "-c", "import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available())")
                    ),
                ),
                component="torch",
            ),
        )
        return


def _conda_pair_args(ctx: Context, words: list[str], torch: str, cuda: str) -> list[str]:
    """The reporter's conda install with cudatoolkit at `cuda` and torchvision/torchaudio, where named without a
    version, at the releases built for this torch (the matrix's companions). CUDA 11's cudatoolkit of these releases
    comes from conda-forge beside the pytorch channel (previous-versions.md at 04862e3: 1.8.0's CUDA 11.1 line is
    "-c pytorch -c conda-forge"), added where the command lacks it."""
    out: list[str] = []
    for w in words:
        name = w.split("=", 1)[0].lower()
        if name == "cudatoolkit" and "=" in w:
            out.append(f"cudatoolkit={cuda}")
        elif w.lower() in ("torchvision", "torchaudio") and (c := ctx.matrix.companion_for(w.lower(), torch)) is not None:
            out.append(f"{w}={c.version}")
        else:
            out.append(w)
    if vkey(cuda) >= (11,) and "conda-forge" not in out:
        out += ["-c", "conda-forge"]
    return out


def check_externally_managed(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """pip refused the distribution's own Python (PEP 668): the packages go into a virtual environment."""
    said = _said(facts, "installer-externally-managed")
    if not said:
        return
    e = said[0]
    uv = e.get("entry") == "uv-externally-managed"
    setup = _VENV_PACKAGE.get(e.get("manager") or "")
    if uv:
        # uv's own way, as its message says: a project .venv, which `uv pip install` then selects (no --system, no sudo).
        commands: tuple[Cmd, ...] = (
            Cmd(("uv", "venv")),
            Cmd(("uv", "pip", "install", Placeholder("packages")), note="what you installed, without --system"),
        )
    else:
        commands = (
            *(apt_install(setup, note="Debian and Ubuntu ship venv apart from Python") if setup else ()),
            Cmd(("python3", "-m", "venv", ".venv")),
            Cmd((".venv/bin/python", "-m", "pip", "install", Placeholder("packages")), note="what you installed, as before"),
        )
    yield Finding(
        "python-externally-managed",
        Severity.ERROR,
        "frameworks",
        f"{'uv' if uv else 'pip'} refused to install into an externally managed Python (PEP 668)",
        "The operating system's package manager owns this Python and marks it EXTERNALLY-MANAGED, so pip installs "
        "nothing into it. The packages belong in a virtual environment; --break-system-packages would mix pip's files "
        "into the distribution's own and can break system tools.",
        (ev("pasted", e.line),),
        Remediation(
            "Create a virtual environment in the project folder and install the packages into it (run the "
            "program with .venv/bin/python, or after `source .venv/bin/activate`).",
            commands,
            requires_root=bool(setup),
            component="platform",
        ),
    )


def check_pip_too_old(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """pip rejected an option it learnt later (catalogue.toml: pip-no-such-option-config-settings): the message decides
    that the pip which ran predates it, whatever the build behind it needs. pip upgrades itself in the interpreter that
    runs the install (`-m pip`, so another environment's pip first on PATH is not the one upgraded), and the same
    command then runs through that interpreter; nothing of the GPU stack changes."""
    from gpudoctor.planner.remedy import pip

    said = _said(facts, "installer-pip-too-old")
    if not said:
        return
    e = said[0]
    option = e.get("option") or "--config-settings"
    upgrade = pip(facts, "install", "--upgrade", "pip")
    check = pip(facts, "--version")
    yield Finding(
        "pip-too-old",
        Severity.ERROR,
        "frameworks",
        f"pip is too old for {option}: the install stopped before it began",
        f"pip answered 'no such option: {option}', as the text shows: pip install learnt --config-settings in 22.1 and "
        "passes several --config-settings of one key (the form build commands use to hand several --build-option "
        "flags to setup.py) from 23.1. Nothing was built or installed; the GPU, the driver and the CUDA toolkit are not "
        "involved. The pip that ran can also be another environment's, first on PATH: running pip as the interpreter's "
        "module (-m pip) takes that interpreter's own.",
        (ev("pasted", e.line),),
        Remediation(
            "Upgrade pip in the interpreter that runs the install (23.1 or newer), then run the same install command "
            "again through that interpreter (python -m pip install ...).",
            (upgrade, dataclasses.replace(check, note="23.1 or newer")),
            component="platform",
        ),
    )


def _stem(name: str) -> str:
    """A package's or program's first word (deepspeed, huggingface of huggingface_hub and huggingface-cli)."""
    return re.split(r"[-_.]", name.lower(), maxsplit=1)[0]


def check_user_scripts_off_path(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """pip's user-scheme fallback (catalogue.toml: pip-defaulting-to-user-install) beside a shell that finds no program
    named for a package that install brought (shell-command-not-found-bash, -zsh): pip put the package's console script in
    the user scheme's scripts folder (`python -m site --user-base`/bin: ~/.local/bin on Linux, ~/Library/Python/X.Y/bin
    for macOS's framework Python), which a login shell has on PATH only where the profile adds it. The module imports
    (the user site-packages is on that interpreter's sys.path); only the launcher is not found. The program is matched to
    an installed package by its first word (deepspeed: deepspeed; huggingface-cli: huggingface_hub): a program of
    another package (a system tool) is another cause, and stays the catalogue's. POSIX shells only: the two messages
    are bash's and zsh's."""
    from gpudoctor.cmdline import Output, PrependPath

    if not _said(facts, "pip-user-install-said"):
        return
    missing = _said(facts, "shell-command-not-found")
    if not missing or (facts.platform.system or "").lower().startswith("win"):
        return
    env = facts.frameworks.python
    names = set(env.value.distributions) if isinstance(env, Found) else set()
    for e in _said(facts, "pip-install-said"):
        names.update(re.findall(r"(?<![\w.-])([A-Za-z][\w.-]{1,80})", e.get("args") or ""))
    stems = {_stem(n) for n in names if len(_stem(n)) >= 4}
    hit = next((m for m in missing if _stem(m.get("program") or "") in stems), None)
    if hit is None:
        return
    program = hit.get("program") or ""
    py = python_exe(facts)
    yield Finding(
        "python-scripts-off-path",
        Severity.ERROR,
        "frameworks",
        f"{program} was installed into the user's scripts folder, which is not on PATH",
        "pip said 'Defaulting to user installation because normal site-packages is not writeable': it installed into "
        "the user scheme, the package into the user's site-packages (which this Python still imports) and its "
        f"command-line program {program} into the user scheme's bin folder (~/.local/bin on Linux, "
        "~/Library/Python/X.Y/bin on macOS). The shell looks for programs only in the PATH directories, and this one is "
        f"not among them, so '{program}' is not found although the package is installed. The GPU stack is not involved.",
        (ev("pasted", hit.line), *(ev("pasted", e.line) for e in _said(facts, "pip-user-install-said")[:1])),
        Remediation(
            "Put the user scheme's bin folder first on PATH in this shell, and add the same line to the shell's startup "
            f"file (~/.bashrc, ~/.zshrc) to keep it; {program} is then found. An environment of your own (a venv or "
            "conda environment you can write) avoids the user scheme altogether.",
            (
                PrependPath(
                    "PATH",
                    (Output((py, "-m", "site", "--user-base")), "/bin"),
                    note="the user scheme's scripts folder, as the interpreter pip ran in reports it",
                ),
                Cmd(("command", "-v", program), note=f"where the shell now finds {program}"),
            ),
            component="platform",
        ),
    )


# A requirement as pip prints it (str() of packaging's Requirement): a name, its extras, its specifiers (old metadata
# keeps them in parentheses), a marker after "; " (pip printed the conflict, so the marker holds here).
_REQUIREMENT = LazyPattern(r"^(?P<name>[A-Za-z0-9][\w.-]*)(?:\[[^\]]*\])?\s*\(?(?P<spec>[^;()]*)\)?\s*(?:;.*)?$")


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _met(spec: str, have: str) -> bool:
    """Whether `have` satisfies `spec` where both are plain numeric versions (a local tag, +cu121, is not judged)."""
    try:
        parse_spec(spec)
        return bool(have) and re.fullmatch(r"\d+(?:\.\d+)*", have) is not None and spec_contains(spec, have)
    except ValueError:
        return False


def check_requirement_conflict(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """pip's own line after an install: a package requires a release of another than the one installed (or one not
    installed at all). The line decides it; the fix installs the release it names, each package's requirements from
    every such line together in one pip command, so that pip resolves them at once. A torch companion against torch is
    the catalogue's (pip-companion-requires-other-torch, gpudoctor.checks.catalogued.companions: the companion moves
    to the torch installed), and a line whose installed version meets what it states is no conflict."""
    conflicts = _said(facts, "pip-requirement-conflict")
    if not conflicts:
        return  # (before the imports: a bare check on a machine reads no catalogue)
    from gpudoctor.parsers.catalogue import by_id
    from gpudoctor.planner.remedy import pip

    companion = by_id("pip-companion-requires-other-torch")
    wanted: dict[str, tuple[str, list[str], list[str], list]] = {}  # package -> (name, clauses, requirers, evidence)
    for e in conflicts:
        if companion is not None and companion.pattern.search(e.line):
            continue
        m = _REQUIREMENT.match(e.get("requirement") or "")
        if m is None:
            continue
        name, spec = m.group("name"), m.group("spec").replace(" ", "")
        if spec and _met(spec, e.get("have") or ""):
            continue  # (the requirement stated is met by the version shown: nothing to do)
        key = _canonical(name)
        _, clauses, requirers, lines = wanted.setdefault(key, (name, [], [], []))
        clauses += [c for c in spec.split(",") if c and c not in clauses]
        requirers.append(f"{e.get('requirer')} {e.get('version')}")
        lines.append(e)
    if not wanted:
        return
    specs = tuple(f"{name}{','.join(clauses)}" for name, clauses, _, _ in wanted.values())
    said = [e for *_, lines in wanted.values() for e in lines]
    first = said[0]
    have = f"{first.get('package')} {first.get('have')} is installed" if first.get("have") else "it is not installed"
    more = f" (and {len(said) - 1} more such line{'s' if len(said) > 2 else ''})" if len(said) > 1 else ""
    yield Finding(
        "requirement-unmet",
        Severity.WARNING,
        "frameworks",
        f"pip: {first.get('requirer')} {first.get('version')} requires {first.get('requirement')}; {have}{more}",
        "pip said so after the install: "
        + "; ".join(
            f"{', '.join(requirers)} require{'s' if len(requirers) == 1 else ''} {spec}"
            for spec, (_, _, requirers, _) in zip(specs, wanted.values(), strict=True)
        )
        + ". pip installed what was asked and left these requirements unmet, so the packages that state them may fail "
        "on import or at run time (a compiled module against another release of its dependency, an API that moved).",
        tuple(ev("pasted", e.line) for e in said[:4]),
        Remediation(
            "Install the releases these requirements name, with the Python that ran pip, in one command so that pip "
            "resolves them together (where another installed package pins the old release, pip names it the same way, "
            "and it moves too or the requirement that cannot be met is the one to change).",
            (pip(facts, "install", *specs),),
            component="environment",
        ),
    )


# Windows' MAX_PATH: 260 characters (python/cpython Doc/using/windows.rst @4a292b274e4c300dc9597999373467230dfb3593,
# "Removing the MAX_PATH limitation": "Windows historically has limited path lengths to 260 characters ... set
# ``LongPathsEnabled`` to ``1`` in the registry key ``HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Control\\FileSystem``
# ... After changing the above option and rebooting, no further configuration is required."). pip hints at it past the
# same length (src/pip/_internal/commands/install.py @5ab7c124: `len(error.filename) > 260`).
_MAX_PATH = 260
_LONG_PATHS_KEY = "HKLM\\SYSTEM\\CurrentControlSet\\Control\\FileSystem"


def check_windows_long_path(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """pip could not create a file past Windows' 260-character limit: nothing is wrong with Python or the package,
    the file's full path (the environment's folder, then the wheel's own nested folders) is longer than Windows opens
    while long paths are not enabled. pip's own hint says so; without it, the path pip printed is counted (Python's
    repr doubles each backslash). A short path not found is another matter, and no finding. A path the text cuts off
    (no whole one shown) cannot be counted: the finding is then a warning whose plan reads the registry first."""
    said = _said(facts, "installer-path-not-found")
    hinted = next((e for e in said if e.get("entry") == "pip-windows-long-path-hint"), None)
    path = next((e.get("path").replace("\\\\", "\\") for e in said if e.get("path")), "")
    cut = next((e for e in said if e.get("cut")), None) if not path and hinted is None else None
    if hinted is None and cut is None and len(path) <= _MAX_PATH:
        return
    shown = [e for e in said if e.get("path") or e is hinted or e is cut]
    length = f"{len(path)} characters" if len(path) > _MAX_PATH else "longer than 260 characters"
    py = python_exe(facts)
    # The install the paste shows failing is run again as the plan's last step (gpudoctor.planner.resume); where the
    # paste shows none, the step says what to fill in.
    typed = shown_command(facts)
    install: tuple[Cmd, ...]
    if typed is not None and pip_install(typed):
        again, install = "run your install again (the plan's last step)", ()
    else:
        again = "run the same install again with the same Python"
        install = (Cmd((py, "-m", "pip", "install", Placeholder("packages")), note="the same install as before"),)
    yield Finding(
        "windows-long-paths-disabled",
        Severity.WARNING if cut is not None else Severity.ERROR,
        "frameworks",
        "pip could not create a file on Windows (its path is cut in the text): Windows' long paths are likely not enabled"
        if cut is not None
        else f"pip could not create a file whose path is {length}: Windows' long paths are not enabled",
        (
            "The text stops inside the path, so its length is not shown; a file pip cannot create while it unpacks a "
            "wheel on Windows is, far more often than not, one the wheel nests deep in its own folders under an "
            "environment in a deep folder, past Windows' MAX_PATH of 260 characters. The registry value read first "
            "decides it: absent or 0 means long paths are off. "
            if cut is not None
            else "The install stopped at a file the wheel nests deep in its own folders, under an environment that is "
            "itself in a deep folder: its full path is past Windows' MAX_PATH of 260 characters, which Windows "
            "refuses unless long paths are enabled, and pip reports it as [Errno 2] No such file or directory. "
        )
        + "Python and the package are fine; no CUDA, cuDNN or Python change is needed.",
        tuple(ev("pasted", e.line) for e in shown),
        Remediation(
            f"Enable Win32 long paths (as Administrator), restart Windows, and {again}. Without administrator rights, "
            "create the environment at a short path instead (E:\\venvs\\name, say) and install into it.",
            (
                Cmd(("reg", "query", _LONG_PATHS_KEY, "/v", "LongPathsEnabled"), note="absent or 0x0: not enabled"),
                Cmd(
                    ("reg", "add", _LONG_PATHS_KEY, "/v", "LongPathsEnabled", "/t", "REG_DWORD", "/d", "1", "/f"),
                    root=True,
                    note="paths past 260 characters",
                ),
                *reboot(facts),  # the one restart per platform (planner.remedy): Windows reads it after a restart
                *install,
            ),
            requires_root=True,
            component="platform",
        ),
    )


CHECKS = (
    Check("installer-no-wheel", "frameworks", ("python-no-wheel",), check_no_wheel, ("pasted",)),
    Check("installer-conda-cpu-pair", "frameworks", ("framework-cpu-build",), check_conda_cpu_pair, ("pasted",)),
    Check("windows-long-path", "frameworks", ("windows-long-paths-disabled",), check_windows_long_path, ("pasted",)),
    Check("installer-externally-managed", "frameworks", ("python-externally-managed",), check_externally_managed, ("pasted",)),
    Check("installer-pip-too-old", "frameworks", ("pip-too-old",), check_pip_too_old, ("pasted",)),
    Check("installer-requirement-conflict", "frameworks", ("requirement-unmet",), check_requirement_conflict, ("pasted",)),
    Check("installer-user-scripts", "frameworks", ("python-scripts-off-path",), check_user_scripts_off_path, ("pasted",)),
)
