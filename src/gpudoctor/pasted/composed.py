"""Reading rule: a program that ran in a docker compose service the reporter started.

A paste that shows a compose project brought up (`docker compose up`, `docker-compose up`: pasted.cues' COMPOSE_STARTED)
or a compose file deployed ("When deploying docker-compose-gpu-CN.yml, the error ... occurred") and then the program's
own failure (a CUDA error, a traceback, a library's message) shows a program that ran inside a service's container: its
interpreter, its packages and its loader are the image's, and a question typed in the host's shell reads another
environment (blind set 20's reviewers of plans20/2041 and plans20/2075: the torch asks "run python3 in the WSL distro,
while the app runs inside the docker-compose container"). The rule marks the place with the same cue a pasted compose
spec or a service's log gives (gpudoctor.pasted.workloads), which gpudoctor.planner.where reads for every ask.

Not where docker refused to start the container: its daemon's answer ("Error response from daemon: ...", the
`ERROR: for SERVICE  Cannot start service` of Compose v1) or the NVIDIA runtime hook's (`OCI runtime create failed`,
`nvidia-container-cli: ...`) comes before any program of the image ran, and the questions that decide it are the
host's (the daemon's runtimes, the toolkit, the driver): tests/pasted/cases/dalle-playground-104, plans10/1031,
plans7/639, plans8/834 and plans8/845 keep their host-side asks. Docker's CLI prints every error of the daemon's API
under "Error response from daemon:" (docker/cli, cli/command/container/run.go and the client's error wrapping).
"""

from __future__ import annotations

import re

from gpudoctor.facts import COMPOSE_STARTED
from gpudoctor.pasted.gathered import Gathered

# A compose file deployed, started or brought up by name (Compose's default names: compose.yaml, docker-compose.yml
# and variants of them such as docker-compose-gpu.yml).
_FILE_DEPLOYED = re.compile(
    r"\b(?:deploy(?:ed|ing)?|start(?:ed|ing)?|launch(?:ed|ing)?|run(?:ning)?|ran|bring(?:ing)?\s+up|brought\s+up)\s+"
    r"(?:(?:the|a|my|our|this)\s+)?[`'\"]?(?:docker-)?compose[\w.-]{0,60}\.ya?ml\b",
    re.IGNORECASE,
)
# What docker or the NVIDIA runtime hook answers when the container never started: the questions are the host's.
_NOT_STARTED = re.compile(
    r"Error response from daemon|Cannot start service|OCI runtime (?:create|exec) failed|nvidia-container-cli\s*:"
    r"|could not select device driver|unknown or invalid runtime name",
    re.IGNORECASE,
)
# The cue's own words (gpudoctor.planner.where.container_said reads "run inside a docker container").
CUE = "a docker compose project it started"
_MAX_LINE = 300


def read_compose_ran(g: Gathered, text: str) -> None:
    """Mark the program as one that ran in a compose service, where the paste shows the project started and no answer of
    docker's that the container did not start, unless the text already says where the program ran."""
    if any((c.get("means") or "").startswith(("run inside a ", "run on the host")) for c in g.cues) or len(g.cues) >= 64:
        return
    head = text[:1_000_000]
    started = next((c.get("line") or "" for c in g.cues if c.get("cue") == COMPOSE_STARTED), None)
    if started is None and (m := _FILE_DEPLOYED.search(head)) is not None:
        started = next((x.strip() for x in head.splitlines() if m.group(0) in x), m.group(0))
    if started is None or _NOT_STARTED.search(head):
        return
    g.cues.append(
        {"cue": CUE, "means": "run inside a docker container (a docker compose project it started)", "line": started[:_MAX_LINE]}
    )
