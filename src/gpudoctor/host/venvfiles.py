"""A virtual environment read from its files: what `pyenv.describe()` would answer, without starting Python.

Starting the probed interpreter is the slowest part of a `check` (its start-up, its site-packages'
.pth files). For a virtual environment its files say the same: pyvenv.cfg names the version, the
directory layout is fixed by `site.venv()` and `site.getsitepackages()`, and the distributions are
the *.dist-info / *.egg-info names `describe()` lists anyway. This module reproduces that start-up
path and answers only where it can prove the interpreter would answer the same; everywhere else it
says why not, and the caller starts the interpreter as before:

- `include-system-site-packages = true` (the base's site directories and the user's), a pyvenv.cfg
  beside the interpreter, a `._pth` file, PYTHON* variables that move sys.path (PYTHONPATH,
  PYTHONHOME, PYTHONPLATLIBDIR...);
- an interpreter changed after pyvenv.cfg was written (its version may no longer be pyvenv.cfg's),
  one that is not an ELF program named python*, a base whose library is not `lib/pythonX.Y`
  (a lib64 build adds a second site directory);
- a .pth line that runs code other than the few known not to touch sys.path, a sitecustomize other
  than Debian's apport hook, a .pth file that is hidden or not plain ASCII.

A base interpreter (no virtual environment) is read the same way only in a layout its files settle:
pyenv's versions/X.Y.Z, uv's and python.org's builds, conda's base; `read_base` lists the conditions
(a distribution's own /usr/bin/python3, with its patched site.py, is always asked).

`tests/unit/test_venvfiles.py` builds real virtual environments and base layouts and compares both answers.
"""

from __future__ import annotations

import functools
import os
import re
import sys
from collections.abc import Callable, Mapping

from gpudoctor.host.pyenv import collect_distributions
from gpudoctor.lazypattern import LazyPattern

# typing's constant without typing: a live check imports this module before it starts the user's interpreter
# (bench/README.md, h151)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SITE_SUFFIXES = ("site-packages", "dist-packages")

# read_venv's answer for an interpreter that is no virtual environment (read_base may then read it).
NO_PYVENV_CFG = "not a virtual environment (no pyvenv.cfg)"

# Variables the interpreter reads at start that do not change sys.path or what describe() prints.
_HARMLESS_PYTHON_VARS = frozenset(
    {
        "PYTHONDONTWRITEBYTECODE",
        "PYTHONUNBUFFERED",
        "PYTHONIOENCODING",
        "PYTHONNOUSERSITE",  # user site is off in a venv without system site-packages anyway
        "PYTHONUSERBASE",
        "PYTHONHASHSEED",
        "PYTHONUTF8",
        "PYTHONFAULTHANDLER",
        "PYTHONBREAKPOINT",
        "PYTHONPYCACHEPREFIX",
        "PYTHONSTARTUP",  # interactive sessions only; the probe runs -c
        "PYTHONCOERCECLOCALE",
    }
)


# What each of the known lines below begins with: a line that begins otherwise matches none of them, and is refused
# without compiling them (2.1 M instructions, before the interpreter such a .pth makes a check start: bench/README.md).
_KNOWN_PTH_HEADS = ("import os; var = 'SETUPTOOLS_USE_DISTUTILS'", "import _virtualenv", "import __editable___")


# .pth lines that run code and are known to leave sys.path alone (each adds an import hook only); compiled at
# the first such line (most checks read no venv's files, and the first pattern is a long one).
@functools.cache
def _known_pth_code() -> tuple[re.Pattern[str], ...]:
    return (
        # setuptools' distutils-precedence.pth, as its setup.py writes it (install_with_pth._pth_contents, pypa/setuptools
        # setup.py @29031718): `_distutils_hack.add_shim()` only puts DistutilsMetaFinder first on sys.meta_path, whose
        # find_spec answers `distutils`, `pip` and CPython's test modules (_distutils_hack/__init__.py @82265cad);
        # describe() imports none of them. Older releases defaulted to 'stdlib' and are not listed: asked.
        re.compile(
            r"import os; var = 'SETUPTOOLS_USE_DISTUTILS'; enabled = os\.environ\.get\(var, 'local'\) == 'local'; "
            r"enabled and __import__\('_distutils_hack'\)\.add_shim\(\); ?"
        ),
        # virtualenv's _virtualenv.pth
        re.compile(r"import _virtualenv"),
        # setuptools' editable installs (PEP 660): a meta path finder, and a placeholder that is no directory
        re.compile(r"import (__editable___\w+_finder); \1\.install\(\)"),
    )


# Debian's and Ubuntu's /usr/lib/pythonX.Y/sitecustomize.py: installs an exception hook, nothing else.
_APPORT_SITECUSTOMIZE = (
    "# install the apport exception handler if available\n"
    "try:\n"
    "    import apport_python_hook\n"
    "except ImportError:\n"
    "    pass\n"
    "else:\n"
    "    apport_python_hook.install()"
)

_VERSION = LazyPattern(r"^(\d+)\.(\d+)\.(\d+)")
_PYTHON_NAME = LazyPattern(r"^python(\d+(?:\.(\d+))?)?$")


# Variables that are harmless in a venv but move a base interpreter's user site (handled or refused there).
_USER_SITE_VARS = frozenset({"PYTHONNOUSERSITE", "PYTHONUSERBASE"})

# Directory names that carry the full version of a base install: pyenv's versions/X.Y.Z, uv's cpython-X.Y.Z-...,
# and conda's conda-meta/python-X.Y.Z-<build>.json record.
_FULL_VERSION = LazyPattern(r"\d+\.\d+\.\d+")
_UV_DIR = LazyPattern(r"^cpython-(\d+\.\d+\.\d+)-")
_CONDA_PYTHON = LazyPattern(r"^python-(\d+\.\d+\.\d+)-[^-]+\.json$")
_PY_VERSION = LazyPattern(r'^#define\s+PY_VERSION\s+"(\d+\.\d+\.\d+)', re.M)


class NotFromFiles(Exception):
    """The files cannot prove what the interpreter would say; the message says why."""


def read_venv(
    executable: str, read_text: Callable[[str], str], environ: Mapping[str, str] | None = None
) -> tuple[dict[str, Any] | None, str]:
    """(what `describe()` run by `executable` would return, "") or (None, why the interpreter must be asked).

    `read_text` reads a file bounded (the live host's `read_text`); `environ` is the environment the
    interpreter would start with (default: ours, which is what the host passes on).
    """
    try:
        return _read(executable, read_text, os.environ if environ is None else environ), ""
    except NotFromFiles as exc:
        return None, str(exc)
    except (OSError, UnicodeError, ValueError) as exc:
        return None, f"unreadable: {exc}"


def _read(executable: str, read_text: Callable[[str], str], environ: Mapping[str, str]) -> dict[str, Any]:
    if not os.path.isabs(executable) or os.path.normpath(executable) != executable:
        raise NotFromFiles("not a normalised absolute path")
    moved = sorted(k for k in environ if k.startswith("PYTHON") and environ[k] and k not in _HARMLESS_PYTHON_VARS)
    if moved:
        raise NotFromFiles(f"{', '.join(moved)} set")
    bin_dir = os.path.dirname(executable)
    prefix = os.path.dirname(bin_dir)
    cfg_path = os.path.join(prefix, "pyvenv.cfg")
    if not os.path.isfile(executable):
        raise NotFromFiles("no such file")
    if os.path.exists(os.path.join(bin_dir, "pyvenv.cfg")):
        raise NotFromFiles("pyvenv.cfg beside the interpreter")
    if not os.path.isfile(cfg_path):
        raise NotFromFiles(NO_PYVENV_CFG)
    cfg = _parse_cfg(read_text(cfg_path))
    if cfg.get("include-system-site-packages", "true").lower() != "false":
        raise NotFromFiles("includes the system site-packages")
    home = cfg.get("home")
    match = _VERSION.match(cfg.get("version") or cfg.get("version_info") or "")
    if not home or not match:
        raise NotFromFiles("pyvenv.cfg names no home or version")
    major, minor = match.group(1), match.group(2)
    xy = f"{major}.{minor}"

    # The program that runs: unchanged since pyvenv.cfg was written, a Python of that version.
    real = os.path.realpath(executable)
    if os.stat(real).st_ctime_ns >= os.stat(cfg_path).st_mtime_ns:
        raise NotFromFiles(f"{real} changed after pyvenv.cfg was written")
    name = _PYTHON_NAME.match(os.path.basename(real))
    if name is None or (name.group(2) is not None and name.group(1) != xy):
        raise NotFromFiles(f"{real} is not named python or python{xy}")
    with open(real, "rb") as fh:
        if fh.read(4) != b"\x7fELF":
            raise NotFromFiles(f"{real} is not an ELF program")
    if os.path.realpath(os.path.dirname(real)) != os.path.realpath(home):
        raise NotFromFiles("pyvenv.cfg's home is not where the interpreter is")
    for folder in {bin_dir, os.path.dirname(real)}:
        for pth in (f"python{major}{minor}._pth", os.path.splitext(os.path.basename(real))[0] + "._pth"):
            if os.path.exists(os.path.join(folder, pth)):
                raise NotFromFiles(f"{os.path.join(folder, pth)} fixes sys.path")

    # The base's standard library: lib/pythonX.Y (site.getsitepackages then looks in lib only).
    base_prefix = os.path.dirname(home)
    stdlib = os.path.join(base_prefix, "lib", f"python{xy}")
    if not os.path.isfile(os.path.join(stdlib, "os.py")) or os.path.isdir(os.path.join(base_prefix, "lib64", f"python{xy}")):
        raise NotFromFiles(f"the standard library is not (only) at {stdlib}")
    if os.path.exists(os.path.join(base_prefix, "lib", f"python{major}{minor}.zip")):
        raise NotFromFiles("a zipped standard library")

    site = os.path.join(prefix, "lib", f"python{xy}", "site-packages")
    path = [site] if os.path.isdir(site) else []
    if path:
        path += _pth_paths(site, read_text)
    for folder in [stdlib, os.path.join(stdlib, "lib-dynload"), *path]:
        _no_sitecustomize(folder, read_text)
    site_dirs: list[str] = []
    for entry in path:
        if entry.endswith(SITE_SUFFIXES) and entry not in site_dirs and os.path.isdir(entry):
            site_dirs.append(entry)
    dists, locations = collect_distributions(site_dirs, os.listdir)
    return {
        "executable": executable,
        "version": f"{major}.{minor}.{match.group(3)}",
        "prefix": prefix,
        "kind": "conda" if os.path.isdir(os.path.join(prefix, "conda-meta")) else "venv",
        "site_packages": site_dirs,
        "distributions": dists,
        "locations": locations,
    }


def read_base(
    executable: str, read_text: Callable[[str], str], environ: Mapping[str, str] | None = None
) -> tuple[dict[str, Any] | None, str]:
    """As `read_venv`, for a base interpreter (no virtual environment) in a layout its files settle.

    Trusted only where all of this holds, else (None, why) and the interpreter is asked:
    - Linux; a Python 3 ELF program named python, python3 or python3.Y in `<prefix>/bin` (the program's own
      symbolic links followed, the directories above it kept as written, as getpath does), its
      standard library (os.py) only at `<prefix>/lib/python3.Y` with lib-dynload beside it (no lib64
      copy, no zipped library, no build tree's pybuilddir.txt, no pyvenv.cfg, no ._pth file);
    - a prefix other than / and /usr, whose site.py does not name dist-packages: a distribution's own
      interpreter (Debian's dist-packages, Fedora's extra /usr/local directories) is patched, and asked;
    - the full version from `include/python3.Y/patchlevel.h` (PY_VERSION), which must agree with the
      layout's own name where it has one (pyenv's versions/X.Y.Z, uv's cpython-X.Y.Z-..., conda's
      conda-meta/python-X.Y.Z-*.json); with neither, the interpreter is asked;
    - no PYTHON* variable that moves sys.path (PYTHONUSERBASE included; PYTHONNOUSERSITE turns the
      user site off, as it does at start), HOME an absolute path, this process' real and effective
      ids equal (else site turns the user site off);
    - the user site (~/.local/lib/python3.Y/site-packages, first, where it is a directory) and the
      prefix's site-packages, with their .pth files, read as `read_venv` reads a venv's (only the known
      start-up lines run code); no sitecustomize or usercustomize module on the path.
    """
    try:
        return _read_base(executable, read_text, os.environ if environ is None else environ), ""
    except NotFromFiles as exc:
        return None, str(exc)
    except (OSError, UnicodeError, ValueError) as exc:
        return None, f"unreadable: {exc}"


def _read_base(executable: str, read_text: Callable[[str], str], environ: Mapping[str, str]) -> dict[str, Any]:
    if not sys.platform.startswith("linux"):
        raise NotFromFiles("not Linux (another user site and layout)")
    if not os.path.isabs(executable) or os.path.normpath(executable) != executable:
        raise NotFromFiles("not a normalised absolute path")
    moved = sorted(
        k for k in environ if k.startswith("PYTHON") and environ[k] and (k not in _HARMLESS_PYTHON_VARS or k == "PYTHONUSERBASE")
    )
    if moved:
        raise NotFromFiles(f"{', '.join(moved)} set")
    if not os.path.isfile(executable):
        raise NotFromFiles("no such file")
    # getpath looks for pyvenv.cfg beside the program as started and one directory up.
    given_bin = os.path.dirname(executable)
    for folder in (given_bin, os.path.dirname(given_bin)):
        if os.path.exists(os.path.join(folder, "pyvenv.cfg")):
            raise NotFromFiles(f"{os.path.join(folder, 'pyvenv.cfg')}: a virtual environment")
    real = _follow_links(executable)
    bin_dir = os.path.dirname(real)
    prefix = os.path.dirname(bin_dir)
    if os.path.basename(bin_dir) != "bin" or os.path.realpath(prefix) in ("/", "/usr"):
        raise NotFromFiles(f"{real} is not in a prefix's bin/ outside /usr")
    name = _PYTHON_NAME.match(os.path.basename(real))
    if name is None:
        raise NotFromFiles(f"{real} is not named python, python3 or python3.Y")
    with open(real, "rb") as fh:
        if fh.read(4) != b"\x7fELF":
            raise NotFromFiles(f"{real} is not an ELF program")
    if os.path.exists(os.path.join(bin_dir, "pybuilddir.txt")):
        raise NotFromFiles("a build tree (pybuilddir.txt)")
    lib = os.path.join(prefix, "lib")
    stdlibs = sorted(n for n in os.listdir(lib) if n.startswith("python3.") and os.path.isfile(os.path.join(lib, n, "os.py")))
    if len(stdlibs) != 1 or not stdlibs[0][len("python3.") :].isdigit():
        raise NotFromFiles(f"not one standard library under {lib}")
    xy = stdlibs[0][len("python") :]
    major, minor = xy.split(".")
    if name.group(1) not in (None, major, xy):
        raise NotFromFiles(f"{real} is not named python, python{major} or python{xy}")
    stdlib = os.path.join(lib, f"python{xy}")
    dynload = os.path.join(stdlib, "lib-dynload")
    if not os.path.isdir(dynload) or os.path.isdir(os.path.join(prefix, "lib64", f"python{xy}")):
        raise NotFromFiles(f"the standard library is not (only) at {stdlib} with its lib-dynload")
    if os.path.exists(os.path.join(lib, f"python{major}{minor}.zip")):
        raise NotFromFiles("a zipped standard library")
    for folder in {given_bin, bin_dir}:
        for pth in (f"python{major}{minor}._pth", os.path.splitext(os.path.basename(real))[0] + "._pth"):
            if os.path.exists(os.path.join(folder, pth)):
                raise NotFromFiles(f"{os.path.join(folder, pth)} fixes sys.path")
    if "dist-packages" in read_text(os.path.join(stdlib, "site.py")):
        raise NotFromFiles("a distribution's patched site.py (dist-packages)")
    version = _base_version(prefix, xy, read_text)

    # site.main(): the user site first (where enabled and a directory), then the prefix's site-packages.
    path: list[str] = []
    if not environ.get("PYTHONNOUSERSITE"):
        home = environ.get("HOME", "")
        if not os.path.isabs(home):
            raise NotFromFiles("HOME is not an absolute path (the user site is not known)")
        if os.getuid() != os.geteuid() or os.getgid() != os.getegid():
            raise NotFromFiles("real and effective ids differ")
        user_site = os.path.join(home, ".local", "lib", f"python{xy}", "site-packages")
        if os.path.isdir(user_site):
            path += [user_site, *_pth_paths(user_site, read_text)]
    site = os.path.join(stdlib, "site-packages")
    if os.path.isdir(site):
        path += [site, *_pth_paths(site, read_text)]
    for folder in [stdlib, dynload, *path]:
        _no_sitecustomize(folder, read_text, prefixes=("sitecustomize", "usercustomize"))
    site_dirs: list[str] = []
    for entry in path:
        if entry.endswith(SITE_SUFFIXES) and entry not in site_dirs and os.path.isdir(entry):
            site_dirs.append(entry)
    dists, locations = collect_distributions(site_dirs, os.listdir)
    return {
        "executable": executable,
        "version": version,
        "prefix": prefix,
        "kind": "conda" if os.path.isdir(os.path.join(prefix, "conda-meta")) else "system",
        "site_packages": site_dirs,
        "distributions": dists,
        "locations": locations,
    }


def _follow_links(executable: str) -> str:
    """The program as getpath finds its prefix from it: the file's own symbolic links followed (a relative one
    from the link's directory), the directories above it left as written (sys.prefix keeps a linked directory)."""
    path = executable
    for _ in range(40):
        if not os.path.islink(path):
            return path
        target = os.readlink(path)
        if not os.path.isabs(target) and "/" in target:
            raise NotFromFiles(f"{path} links to {target} (a relative path through directories)")
        path = target if os.path.isabs(target) else os.path.join(os.path.dirname(path), target)
        if os.path.normpath(path) != path:
            raise NotFromFiles(f"{path} is not a normalised path")
    raise NotFromFiles(f"{executable}: too many symbolic links")


def _base_version(prefix: str, xy: str, read_text: Callable[[str], str]) -> str:
    """X.Y.Z of a base install: its patchlevel.h, checked against the layout's name where it has one."""
    named: set[str] = set()
    if os.path.basename(os.path.dirname(prefix)) == "versions" and _FULL_VERSION.fullmatch(os.path.basename(prefix)):
        named.add(os.path.basename(prefix))  # pyenv's versions/X.Y.Z (not its 3.12-dev, miniconda3-latest...)
    uv = _UV_DIR.match(os.path.basename(prefix))
    if uv:
        named.add(uv.group(1))
    meta = os.path.join(prefix, "conda-meta")
    if os.path.isdir(meta):
        named |= {m.group(1) for m in map(_CONDA_PYTHON.match, os.listdir(meta)) if m}
    header = os.path.join(prefix, "include", f"python{xy}", "patchlevel.h")
    found = _PY_VERSION.search(read_text(header)) if os.path.isfile(header) else None
    if found:
        named.add(found.group(1))
    if len(named) != 1:
        raise NotFromFiles(f"the layout names {len(named)} versions ({', '.join(sorted(named)) or 'none'})")
    version = named.pop()
    if not version.startswith(xy + "."):
        raise NotFromFiles(f"the layout's version {version} is not that of lib/python{xy}")
    return version


def _parse_cfg(text: str) -> dict[str, str]:
    """pyvenv.cfg as site.venv() reads it: key = value, keys lower-cased, the last one wins."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        if "=" in line:
            key, _, value = line.partition("=")
            out[key.strip().lower()] = value.strip()
    return out


def _pth_paths(site: str, read_text: Callable[[str], str]) -> list[str]:
    """The directories site.addpackage() appends to sys.path from `site`'s .pth files, in its order."""
    out: list[str] = []
    known = {site}
    for name in sorted(os.listdir(site)):
        if not name.endswith(".pth"):
            continue
        if name.startswith(".") or not name.isascii():
            raise NotFromFiles(f"{name}: a hidden or non-ASCII .pth file")
        text = read_text(os.path.join(site, name))
        if not text.isascii():
            raise NotFromFiles(f"{name}: not plain ASCII")
        # Lines as a text file iterates them (universal newlines), not str.splitlines (which also splits at \f).
        for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
            if line.startswith("#") or not line.strip():
                continue
            if line.startswith(("import ", "import\t")):
                if not line.startswith(_KNOWN_PTH_HEADS) or not any(p.fullmatch(line.rstrip()) for p in _known_pth_code()):
                    raise NotFromFiles(f"{name} runs code at start")
                continue
            entry = os.path.abspath(os.path.join(site, line.rstrip()))
            if entry not in known and os.path.exists(entry):
                known.add(entry)
                out.append(entry)
    return out


def _no_sitecustomize(folder: str, read_text: Callable[[str], str], prefixes: tuple[str, ...] = ("sitecustomize",)) -> None:
    """A sitecustomize (a base's usercustomize) module in `folder` runs at start and may change sys.path:
    only Debian's apport hook passes."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        if name.startswith(prefixes):
            full = os.path.join(folder, name)
            if name == "sitecustomize.py" and os.path.isfile(full) and read_text(full).strip() == _APPORT_SITECUSTOMIZE:
                continue
            raise NotFromFiles(f"{full} runs at start")
