"""docs/findings/container-no-gpu.md: a compose file pasted whose services request no GPU, beside the reporter's words
that the program does not use it (issues 27/28). Variants written here from the class, not from one thread: other
programs, other wordings, several services, an env file's GPU variable; the quiet twins are a service that requests
the GPU and a compose report about something else."""

from __future__ import annotations

from gpudoctor.cmdline import Cmd
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from tests.spec.registry import FIRES, QUIET, states


def _report(text: str):
    report = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("t", text)]), "t")))
    assert not report.internal_errors, report.internal_errors
    return report


def _codes(text: str) -> dict:
    return {f.code: f for f in _report(text).findings}


def _argv(remediation) -> list[tuple[str, ...]]:
    return [tuple(str(w) for w in c.argv) for c in remediation.commands if isinstance(c, Cmd)]


_WEBUI = """My stable diffusion container only uses the CPU, generation takes minutes.

docker-compose.yml:
```
services:
  webui:
    image: myorg/sd-webui:latest
    ports:
      - "7860:7860"
    volumes:
      - ./models:/app/models
```
"""

_TWO_SERVICES = """PyTorch in the app container cannot find the GPU (torch.cuda.is_available() is False in my script).
```yaml
services:
  db:
    image: postgres:16
  app:
    build: .
    depends_on:
      - db
    env_file:
      - .env
```
.env:
```
GPUS=all
POSTGRES_PASSWORD=example
```
"""

_REQUESTED = """My stable diffusion container only uses the CPU, generation takes minutes.
```
services:
  webui:
    image: myorg/sd-webui:latest
    deploy:
      resources:
        reservations:
          devices:
            - driver: nvidia
              count: 1
              capabilities: [gpu]
```
"""

_ELSEWHERE = """The web UI does not start: port 7860 is already in use.
```
services:
  webui:
    image: myorg/sd-webui:latest
    ports:
      - "7860:7860"
```
"""


@states("container-no-gpu", FIRES)
def test_a_compose_service_without_a_gpu_request_beside_words_that_the_gpu_is_unused_is_recreated_with_one():
    f = _codes(_WEBUI)["container-no-gpu"]
    assert f.severity.name == "ERROR" and f.remediation.where == "the host"
    assert _argv(f.remediation) == [
        ("docker", "compose", "up", "-d", "--force-recreate", "webui"),
        ("docker", "compose", "exec", "webui", "nvidia-smi"),
    ]
    # two services, neither requesting: which one failed is not said, so the service is left to fill in; the env file's
    # GPUS variable is read (and requests nothing)
    report = _report(_TWO_SERVICES)
    f = {x.code: x for x in report.findings}["container-no-gpu"]
    assert _argv(f.remediation)[0] == ("docker", "compose", "up", "-d", "--force-recreate", "<service>")
    said = {e.kind: e for e in report.facts.pasted.errors}
    assert said["gpus-variable-said"].get("name") == "GPUS"
    # other wordings of the same symptom
    for words in ("Ollama falls back to the CPU every time.", "The container doesn't detect my NVIDIA GPU at all."):
        text = _WEBUI.replace("My stable diffusion container only uses the CPU, generation takes minutes.", words)
        assert "container-no-gpu" in _codes(text), words


@states("container-no-gpu", QUIET)
def test_a_compose_service_that_requests_the_gpu_or_a_compose_report_about_something_else_is_not_given_the_request():
    # the service requests the GPU: the request is not what is missing
    assert "container-no-gpu" not in _codes(_REQUESTED)
    # a compose file in a report that is not about the GPU: nothing to judge, and no variable is read
    report = _report(_ELSEWHERE)
    assert "container-no-gpu" not in {f.code for f in report.findings}
    assert not {"gpu-unused-said", "gpus-variable-said"} & {e.kind for e in report.facts.pasted.errors}
