"""Argument lists for pip and uv in the target environment. Built here, run only by `apply`, never
through a shell; gpudoctor.cmdline renders them for showing.

Nothing lost (docs/install.md, "What can go wrong"): a framework is never removed before its
replacement is on this machine. The steps are

- pip: `pip download` every requirement (the same index options) into a new temporary directory,
  then `pip install --no-index --find-links DIR`, which reads only those files. pip uninstalls the
  old version itself inside that one command and puts it back when the new one fails to install
  (install_given_reqs in pip/_internal/req/__init__.py: "if install did not succeed, rollback
  previous uninstall", https://github.com/pypa/pip/blob/main/src/pip/_internal/req/__init__.py).
  The builds to switch are pinned, at run time, to the exact version downloaded (2.5.1+cu124), so
  an installed 2.5.1+cu121 no longer satisfies the requirement and is replaced.
- uv: `uv pip install --dry-run` resolves against the index first (nothing changes if it cannot),
  then one `uv pip install --reinstall-package NAME ...`; uv downloads and builds every
  distribution before it removes anything (https://docs.astral.sh/uv/reference/cli/#uv-pip-install).

Other distributions that must go (tensorflow-cpu before tensorflow, a JAX plugin of another CUDA
major) are uninstalled only after the resolve/download succeeded, right before the install; if
anything after that fails, `apply` reinstalls what was there before and re-probes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpudoctor.planner.model import Step, TargetEnv

# What the commands name when no environment was seen (a snapshot without Python): shown, never run.
PLACEHOLDER_PYTHON = "python3"
# Stands for the new temporary directory `apply` creates for the downloads (shown as is in the plan).
DOWNLOAD_DIR = "<download-dir>"
_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


@dataclass(frozen=True)
class Download(Step):
    """Resolve and fetch everything first; the environment is not touched."""


@dataclass(frozen=True)
class Replace(Step):
    """Install from what `Download` fetched. `pins`: distributions `apply` pins to the exact version downloaded."""

    pins: tuple[str, ...] = ()


@dataclass(frozen=True)
class Remove(Step):
    """Uninstall distributions that the new build does not replace by itself (run after the download)."""


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_name(spec: str) -> str | None:
    """ "torch==2.5.*" -> "torch"; "tensorflow[and-cuda]==2.17.*" -> "tensorflow"."""
    m = _NAME.match(spec)
    return canonical(m.group(1)) if m else None


def _python(env: TargetEnv) -> str:
    return env.python or PLACEHOLDER_PYTHON


def _index(index_url: str | None, find_links: str | None) -> tuple[str, ...]:
    return (*(("--index-url", index_url) if index_url else ()), *(("--find-links", find_links) if find_links else ()))


def install_argv(
    installer: str,
    env: TargetEnv,
    specs: tuple[str, ...],
    *,
    index_url: str | None = None,
    find_links: str | None = None,
    extra: tuple[str, ...] = (),
) -> tuple[str, ...]:
    where = _index(index_url, find_links)
    if installer == "uv":
        return (env.uv or "uv", "pip", "install", "--python", _python(env), *specs, *where, *extra)
    return (_python(env), "-m", "pip", "install", *specs, *where, *extra)


def uninstall_argv(installer: str, env: TargetEnv, names: tuple[str, ...]) -> tuple[str, ...]:
    if installer == "uv":
        return (env.uv or "uv", "pip", "uninstall", "--python", _python(env), *names)  # uv never prompts
    return (_python(env), "-m", "pip", "uninstall", "-y", *names)


def args_argv(installer: str, env: TargetEnv, args: tuple[str, ...]) -> tuple[str, ...]:
    """`install` with ready-made arguments (requirements and options mixed), for the undo line."""
    if installer == "uv":
        return (env.uv or "uv", "pip", "install", "--python", _python(env), *args)
    return (_python(env), "-m", "pip", "install", *args)


def replace_steps(
    installer: str,
    env: TargetEnv,
    specs: tuple[str, ...],
    replace: tuple[str, ...],
    *,
    label: str,
    index_url: str | None = None,
    find_links: str | None = None,
    extra: tuple[str, ...] = (),
    reinstall: bool = False,
) -> tuple[Step, ...]:
    """The steps that install `specs` in place of the installed `replace` distributions, nothing lost on the way."""
    spec_names = {n for s in specs if (n := requirement_name(s)) is not None}
    pins = tuple(n for n in replace if canonical(n) in spec_names)
    others = tuple(n for n in replace if canonical(n) not in spec_names)
    where = _index(index_url, find_links)
    from_where = f" from {index_url}" if index_url else ""
    steps: list[Step] = []
    if installer == "uv":
        py: tuple[str, ...] = ("--python", _python(env))
        uv = env.uv or "uv"
        steps.append(
            Download(
                (uv, "pip", "install", *py, "--dry-run", *specs, *where, *extra),
                f"resolve {label}{from_where} first: nothing changes if the index cannot be reached",
            )
        )
        if others:
            steps.append(
                Remove(
                    uninstall_argv(installer, env, others),
                    f"remove {', '.join(others)}, which {label} does not replace by itself",
                )
            )
        names = dict.fromkeys((*pins, *(sorted(spec_names) if reinstall else ())))
        again = tuple(a for n in names for a in ("--reinstall-package", n))
        steps.append(
            Replace(
                (uv, "pip", "install", *py, *specs, *again, *where, *extra),
                f"install {label}: uv fetches everything before it replaces anything",
            )
        )
        return tuple(steps)
    py = (_python(env), "-m", "pip")
    steps.append(
        Download(
            (*py, "download", "--dest", DOWNLOAD_DIR, *specs, *where, *extra),
            f"download {label} and what it needs{from_where}: nothing changes if that fails",
        )
    )
    if others:
        steps.append(
            Remove(
                uninstall_argv(installer, env, others), f"remove {', '.join(others)}, which {label} does not replace by itself"
            )
        )
    local = ("--no-index", "--find-links", DOWNLOAD_DIR)
    steps.append(
        Replace(
            (*py, "install", *local, *specs, *extra),
            f"install {label} from the downloaded files; pip replaces the old build in this one step "
            "and puts it back if the install fails",
            pins=pins,
        )
    )
    if reinstall:
        steps.append(
            Replace(
                (*py, "install", *local, "--force-reinstall", "--no-deps", *specs, *extra),
                f"install {label} again over the same version (--reinstall)",
                pins=pins,
            )
        )
    return tuple(steps)
