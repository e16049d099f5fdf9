"""Argument lists for pip and uv in the target environment. Built here, run only by `apply`, never
through a shell; shlex.join is for showing them."""

from __future__ import annotations

from gpudoctor.install.model import TargetEnv

# What the commands name when no environment was seen (a snapshot without Python): shown, never run.
PLACEHOLDER_PYTHON = "python3"


def _python(env: TargetEnv) -> str:
    return env.python or PLACEHOLDER_PYTHON


def install_argv(installer: str, env: TargetEnv, specs: tuple[str, ...], *, index_url: str | None = None,
                 find_links: str | None = None, extra: tuple[str, ...] = ()) -> tuple[str, ...]:
    where = ("--index-url", index_url) if index_url else ()
    links = ("--find-links", find_links) if find_links else ()
    if installer == "uv":
        return (env.uv or "uv", "pip", "install", "--python", _python(env), *specs, *where, *links, *extra)
    return (_python(env), "-m", "pip", "install", *specs, *where, *links, *extra)


def uninstall_argv(installer: str, env: TargetEnv, names: tuple[str, ...]) -> tuple[str, ...]:
    if installer == "uv":
        return (env.uv or "uv", "pip", "uninstall", "--python", _python(env), *names)  # uv never prompts
    return (_python(env), "-m", "pip", "uninstall", "-y", *names)


def args_argv(installer: str, env: TargetEnv, args: tuple[str, ...]) -> tuple[str, ...]:
    """`install` with ready-made arguments (requirements and options mixed), for the undo line."""
    if installer == "uv":
        return (env.uv or "uv", "pip", "install", "--python", _python(env), *args)
    return (_python(env), "-m", "pip", "install", *args)
