"""A pyenv shim resolved from pyenv's files: the interpreter `pyenv exec` would start, without bash and pyenv.

A pyenv shim (`~/.pyenv/shims/python3`) is a bash script that runs `pyenv exec`, which reads the selected
version and execs `$PYENV_ROOT/versions/<version>/bin/<command>`: about a tenth of a second before Python
even starts, at every `gpudoctor check` that probes `python3` on PATH. The same choice is made here from
the same files, and the interpreter is then started (or read, gpudoctor.host.venvfiles) directly. Only
the plain cases are resolved; everything else returns why not, and the shim is run as before:

- the shim must be one of pyenv's own shim texts (pyenv-rehash's prototype, before and after 2.4), naming
  its PYENV_ROOT;
- the version comes from PYENV_VERSION, else the nearest `.python-version` from the working directory
  up, else `$PYENV_ROOT/version` (pyenv-version-name, pyenv-version-file, pyenv-version-file-read); one
  version, an existing `versions/<name>` directory: not `system`, not several versions, not a prefix
  pyenv would complete (`3.11` -> the newest 3.11.x);
- `versions/<name>/bin/<command>` is an executable file: pyenv's `which` hooks act only when it is not,
  so the known ones (pyenv-virtualenv's, pip-rehash for pip commands) change nothing; any other `which`
  or `exec` hook might, and is a reason to run the shim; so are PYENV_DEBUG, PYENV_HOOK_PATH and
  PYENV_DIR.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping

from gpudoctor.host import HostError
from gpudoctor.lazypattern import LazyPattern

# pyenv-rehash's prototype shim, with @ROOT@ and @PYENV@ for `$PYENV_ROOT` and `$(command -v pyenv)`; pyenv 2.4
# added the four SHIM_PATH lines before the exec.
_SHIM_HEAD = '#!/usr/bin/env bash\nset -e\n[ -n "$PYENV_DEBUG" ] && set -x\n\nprogram="${0##*/}"\n\nexport PYENV_ROOT="@ROOT@"\n'
_SHIM_EXEC = 'exec "@PYENV@" exec "$program" "$@"\n'
_SHIM_PATH_LINES = 'SHIM_PATH=${0%/*}\nif [[ $SHIM_PATH != "@ROOT@/shims" ]]; then\n  export _PYENV_SHIM_PATH="$SHIM_PATH"\nfi\n'
_SHIM_BEFORE_2_4 = _SHIM_HEAD + _SHIM_EXEC
_SHIM_SINCE_2_4 = _SHIM_HEAD + _SHIM_PATH_LINES + _SHIM_EXEC
_ROOT_LINE = LazyPattern(r'^export PYENV_ROOT="(/[^"$`\\\n]*)"$', re.MULTILINE)
_EXEC_LINE = LazyPattern(r'^exec "(/[^"$`\\\n]*)" exec "\$program" "\$@"$', re.MULTILINE)
# Hooks pyenv and pyenv-virtualenv ship for `which` and `exec`: each acts only on a command that is not an
# executable file in the version's bin (or, pip-rehash, on pip itself), which resolve() requires.
_KNOWN_HOOKS = {
    "which": frozenset({"conda.bash", "python-config.bash", "system-site-packages.bash"}),
    "exec": frozenset({"pip-rehash.bash"}),
}
_COMMAND = LazyPattern(r"^python(\d+(\.\d+)?)?$")
_MAX_SHIM = 4096


class NotResolved(Exception):
    """The files do not settle which interpreter the shim would start; the message says why."""


def resolve(
    shim: str, environ: Mapping[str, str], cwd: str, read_text: Callable[[str], str] | None = None
) -> tuple[str | None, str]:
    """(the interpreter `shim` would exec, "") or (None, why the shim must be run)."""
    try:
        return _resolve(shim, environ, cwd, read_text or _read), ""
    except NotResolved as exc:
        return None, str(exc)
    except (OSError, UnicodeError, ValueError, HostError) as exc:  # HostError: the live host's bounded read
        return None, f"unreadable: {exc}"


def logical_cwd(environ: Mapping[str, str]) -> str:
    """The working directory as the shim's bash sees it: $PWD where it names the current directory (a path
    through a symlink climbs other parents than the resolved one), else the resolved one."""
    cwd = os.getcwd()
    pwd = environ.get("PWD", "")
    try:
        if pwd.startswith("/") and os.path.samefile(pwd, cwd):
            return os.path.normpath(pwd)
    except OSError:
        pass
    return cwd


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as fh:
        return fh.read(_MAX_SHIM + 1)


def _resolve(shim: str, environ: Mapping[str, str], cwd: str, read_text: Callable[[str], str]) -> str:
    command = os.path.basename(shim)
    if not _COMMAND.match(command):
        raise NotResolved(f"{command} is not a python command")
    if not os.path.isfile(shim) or os.path.getsize(shim) > _MAX_SHIM:
        raise NotResolved("not a shim-sized file")
    text = read_text(shim)
    root_m, exec_m = _ROOT_LINE.search(text), _EXEC_LINE.search(text)
    if not root_m or not exec_m:
        raise NotResolved("not a pyenv shim")
    root, pyenv = root_m.group(1), exec_m.group(1)
    if text not in (t.replace("@ROOT@", root).replace("@PYENV@", pyenv) for t in (_SHIM_BEFORE_2_4, _SHIM_SINCE_2_4)):
        raise NotResolved("a shim text pyenv does not write")
    for name in ("PYENV_DEBUG", "PYENV_HOOK_PATH", "PYENV_DIR"):
        if environ.get(name):
            raise NotResolved(f"{name} set")
    _known_hooks_only(root, os.path.dirname(os.path.dirname(pyenv)))
    version = _version_name(root, environ, cwd, read_text)
    if version == "system" or ":" in version:
        raise NotResolved(f"version {version!r}: not one installed version")
    if version.startswith("/") or ".." in version.split("/"):
        # pyenv joins "$PYENV_ROOT/versions/$version" as text; os.path.join would let "/x" escape versions/.
        raise NotResolved(f"version {version!r}: not a name under versions/")
    if not os.path.isdir(os.path.join(root, "versions", version)):
        raise NotResolved(f"no {root}/versions/{version} (pyenv may complete a prefix)")
    program = os.path.join(root, "versions", version, "bin", command)
    if not (os.path.isfile(program) and os.access(program, os.X_OK)):
        raise NotResolved(f"{program} is not an executable file")
    return program


def _version_name(root: str, environ: Mapping[str, str], cwd: str, read_text: Callable[[str], str]) -> str:
    """pyenv-version-name's choice: PYENV_VERSION, else the version file's versions joined by ':'."""
    if environ.get("PYENV_VERSION"):
        return environ["PYENV_VERSION"]
    directory = cwd
    while True:  # pyenv-version-file: the nearest .python-version, up to /
        candidate = os.path.join(directory, ".python-version")
        if os.path.isfile(candidate):
            return _version_file(candidate, read_text)
        if directory in ("/", ""):
            break
        directory = os.path.dirname(directory)
    global_file = os.path.join(root, "version")
    if os.path.isfile(global_file):
        return _version_file(global_file, read_text)
    return "system"


def _version_file(path: str, read_text: Callable[[str], str]) -> str:
    """pyenv-version-file-read: the first word of each line, comments and empty lines skipped, joined by ':'."""
    words = []
    for line in read_text(path)[:_MAX_SHIM].replace("\r", " ").split("\n"):
        word = line.split()[0] if line.split() else ""
        if not word or word.startswith("#"):
            continue
        if word == ".." or word.startswith("../") or word.endswith("/..") or "/../" in word:
            continue  # pyenv ignores a version that climbs out of versions/
        words.append(word)
    if not words:
        raise NotResolved(f"{path} names no version")
    return ":".join(words)


def _known_hooks_only(root: str, pyenv_home: str) -> None:
    """Every `which` and `exec` hook pyenv would source is one of the known ones (pyenv-hooks' directories)."""
    dirs = [os.path.join(root, "pyenv.d"), os.path.join(pyenv_home, "pyenv.d")]
    dirs += ["/usr/local/etc/pyenv.d", "/etc/pyenv.d", "/usr/lib/pyenv/hooks"]
    plugins = os.path.join(root, "plugins")
    if os.path.isdir(plugins):
        dirs += [os.path.join(plugins, p, "etc", "pyenv.d") for p in sorted(os.listdir(plugins))]
    for base in dirs:
        for kind, known in _KNOWN_HOOKS.items():
            folder = os.path.join(base, kind)
            if not os.path.isdir(folder):
                continue
            for name in os.listdir(folder):
                if name.endswith(".bash") and name not in known:
                    raise NotResolved(f"a {kind} hook: {os.path.join(folder, name)}")
