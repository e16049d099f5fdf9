"""Argument lists for pip and uv in the target environment. Built here, run only by `apply`, never
through a shell; gpudoctor.cmdline renders them for showing.

One command, the one a person would type: `PY -m pip install SPECS [--index-url URL]`. Nothing is
lost on the way (docs/install.md, "Nothing lost"), because pip itself works that way: its resolver
fetches and prepares every distribution before the first is installed, and `install_given_reqs`
uninstalls each old version only as the new one goes in, and puts it back when that install fails
("if install did not succeed, rollback previous uninstall",
https://github.com/pypa/pip/blob/main/src/pip/_internal/req/__init__.py). An index that cannot be
reached, or a requirement that cannot be resolved, stops pip before it changes anything.

A build switch of the same version (2.5.1+cu121 -> cu124) is the caller's to pin exactly
(`torch==2.5.1+cu124`, gpudoctor.planner.pick_torch): the installed build no longer satisfies the
requirement, so pip replaces it and re-resolves only what the new build needs. Not
`--force-reinstall`: pip's resolver then ignores every installed version and takes the newest of each
dependency from the index (numpy 1 -> 2 among them: `_get_installed_candidate` in
pip/_internal/resolution/resolvelib/factory.py returns nothing under force_reinstall).

Other distributions that must go first (tensorflow-cpu before tensorflow, which share one package
directory; a JAX plugin of another CUDA major) are uninstalled only after `pip install --dry-run`
(pip >= 22.2) resolved and fetched the new build; if anything after that fails, `apply` reinstalls
what was there before and re-probes. uv: `uv pip install --dry-run` first in that case too, then one
`uv pip install --reinstall-package NAME ...`; uv downloads and builds every distribution before it
removes anything (https://docs.astral.sh/uv/reference/cli/#uv-pip-install).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpudoctor.lazypattern import LazyPattern
from gpudoctor.planner.model import Step, TargetEnv

_NAME = LazyPattern(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")  # compiled on first use: a bare check imports this module


@dataclass(frozen=True)
class Download(Step):
    """Resolve and fetch everything (`install --dry-run`); the environment is not touched."""


@dataclass(frozen=True)
class Replace(Step):
    """The install itself: pip (or uv) replaces the old build in this one command."""


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
    return env.python or env.placeholder


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
    """The steps that install `specs` in place of the installed `replace` distributions, nothing lost on the way:
    one install command, preceded by a dry run and the removals only when something must go first."""
    spec_names = {n for s in specs if (n := requirement_name(s)) is not None}
    others = tuple(n for n in replace if canonical(n) not in spec_names)
    where = _index(index_url, find_links)
    from_where = f" from {index_url}" if index_url else ""
    steps: list[Step] = []
    if installer == "uv":
        head: tuple[str, ...] = (env.uv or "uv", "pip", "install", "--python", _python(env))
    else:
        head = (_python(env), "-m", "pip", "install")
    if others:
        steps.append(
            Download(
                (*head, "--dry-run", *specs, *where, *extra),
                f"resolve and fetch {label}{from_where} first: nothing changes if that fails",
            )
        )
        steps.append(
            Remove(
                uninstall_argv(installer, env, others), f"remove {', '.join(others)}, which {label} does not replace by itself"
            )
        )
    if installer == "uv":
        # uv keeps an installed version that satisfies a requirement; --reinstall-package makes it take the index's build.
        pins = tuple(n for n in replace if canonical(n) in spec_names)
        names = dict.fromkeys((*pins, *(sorted(spec_names) if reinstall else ())))
        again = tuple(a for n in names for a in ("--reinstall-package", n))
        steps.append(
            Replace(
                (*head, *specs, *again, *where, *extra),
                f"install {label}: uv fetches everything before it replaces anything",
            )
        )
        return tuple(steps)
    if not reinstall or others:
        # Over the same build with nothing removed, pip keeps what is installed: the plain install would do nothing.
        # After a removal it brings back what the removed distributions were (an extra's jaxlib).
        steps.append(
            Replace(
                (*head, *specs, *where, *extra),
                f"install {label}; pip fetches everything first, replaces the old build in this one step "
                "and puts it back if the install fails",
            )
        )
    if reinstall:
        # The same version over itself (its files broken in place): --no-deps, so that no dependency moves.
        steps.append(
            Replace(
                (*head, "--force-reinstall", "--no-deps", *specs, *where, *extra),
                f"install {label} again over the same version (--reinstall)",
            )
        )
    return tuple(steps)
