"""Which installer manages the target environment, read through the Host (so a snapshot answers too).

A uv-made environment has `uv = <version>` in its pyvenv.cfg and usually no pip at all; it is
uv-managed only where uv itself is on PATH to run.
"""

from __future__ import annotations

import posixpath
import re

from gpudoctor.facts import Facts
from gpudoctor.host import Host, HostError
from gpudoctor.planner.machine import env_from_facts
from gpudoctor.planner.model import TargetEnv

_UV_LINE = re.compile(r"^\s*uv\s*=", re.MULTILINE)


def made_by_uv(host: Host, prefix: str | None) -> bool:
    if not prefix:
        return False
    try:
        return bool(_UV_LINE.search(host.read_text(posixpath.join(prefix, "pyvenv.cfg"), 64 * 1024)))
    except HostError:
        return False


def read_env(host: Host, facts: Facts) -> TargetEnv:
    env = env_from_facts(facts)
    if env.python and made_by_uv(host, env.prefix):
        uv = host.which("uv")
        if uv:
            return env_from_facts(facts, uv=uv)
    return env
