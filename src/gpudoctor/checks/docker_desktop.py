"""Which docker daemon answers a WSL distribution's docker CLI, where `--gpus` fails: Docker Desktop's or the distribution's.

Inside WSL 2 the docker CLI talks either to Docker Desktop's daemon (its WSL integration) or to an engine installed in
the distribution. Where the text names Docker Desktop, or shows the distribution without an engine of its own (no
docker service, no docker unit, no systemd), the daemon that refused the GPU is Docker Desktop's: installing the NVIDIA
Container Toolkit in the distribution and restarting a docker service there changes nothing. Docker Desktop passes GPUs
to Linux containers with its WSL 2 backend from 3.1.0 on (docker/docs,
content/manuals/desktop/previous-versions/3.x-windows.md @87dd807f: "Docker Desktop 3.1.0 ... Add experimental support
for GPU workloads with WSL 2 backend").
"""

from __future__ import annotations

from gpudoctor.cmdline import Cmd
from gpudoctor.facts import Facts
from gpudoctor.model import Remediation
from gpudoctor.versions import vkey

GPU_SINCE = "3.1.0"  # the first Docker Desktop release with GPU support on its WSL 2 backend (source above)


def desktop_version(facts: Facts) -> str | None:
    """Docker Desktop's version where the text shows it."""
    said = facts.pasted.reported("docker-desktop-said") if facts.pasted.partial else []
    return next((e.get("version") for e in said if e.get("version")), None)


def desktop_answers(facts: Facts) -> bool:
    """Inside WSL, the text shows that Docker Desktop's daemon answers the distribution's docker CLI."""
    if not facts.pasted.partial or facts.platform.wsl != 2:
        return False
    said = facts.pasted.reported
    return bool(said("docker-desktop-said") or said("docker-engine-absent"))


def desktop_remedy(facts: Facts, run: Cmd) -> Remediation:
    """Confirm which daemon answers, then Docker Desktop with GPU support (or an engine in the distribution)."""
    version = desktop_version(facts)
    too_old = version is not None and vkey(version) < vkey(GPU_SINCE)
    return Remediation(
        (
            f"The daemon is Docker Desktop's{f' {version}' if version else ''}"
            + (f", older than {GPU_SINCE}, the first release that passes GPUs on its WSL 2 backend" if too_old else "")
            + ": update Docker Desktop on Windows (Settings > General: use the WSL 2 based engine; Resources > WSL "
            "integration on for this distribution) with a current NVIDIA Windows driver, then run the container again "
            "from the distribution. Nothing is installed in the distribution and no docker service is restarted there. "
            "The other way: turn Docker Desktop's integration off for this distribution and install docker's engine "
            "with the NVIDIA Container Toolkit in it (started with 'sudo service docker start' where it has no systemd)."
        ),
        (
            Cmd(
                ("docker", "version", "--format", "{{.Server.Platform.Name}} {{.Server.Version}}"),
                note="inside WSL: the daemon that answers (Docker Desktop names itself here)",
            ),
            Cmd(("docker", "context", "ls"), note="desktop-linux or a default context pointing at Docker Desktop's socket"),
            run,
        ),
        component="container",
    )
