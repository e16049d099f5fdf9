"""Triton's launcher compiled without the interpreter's C headers (issue 27, Python headers; catalogue.toml
triton-python-h-missing): the interpreter's own python3.X-dev, in a new image FROM the one a compose service runs (a
package added to a running container is lost with it), or on the host from a Debian-family distribution.

Real reports, whole: tests/blind/plans10/cases/1009-sglang1117-docker-sglang-v0213-cu121-image-h100-triton-python-h-missing
(a compose service, Python 3.10.14) and tests/pasted/catalogue_examples/rl-swarm-226-triton-python-h-missing.txt
(rl-swarm#226 in the catalogue: a host venv on /usr/lib/python3.10); the quiet twins: the same compiler line from an
embedded Windows Python (its include folder, not a package) and with no interpreter version shown."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.cmdline import Cmd
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted

_TESTS = Path(__file__).resolve().parents[1]
_RL_SWARM = _TESTS / "pasted/catalogue_examples/rl-swarm-226-triton-python-h-missing.txt"
_LINE = "/tmp/tmps1rkq3y3/main.c:5:10: fatal error: Python.h: No such file or directory\n"


def _codes(text: str):
    report = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("t", text)]), "t")))
    assert not report.internal_errors, report.internal_errors
    return {f.code: f for f in report.findings}


def _words(finding) -> list[tuple[str, ...]]:
    return [c.words + (("|", *map(str, c.pipe)) if c.pipe else ()) for c in finding.remediation.commands if isinstance(c, Cmd)]


def test_a_compose_service_gets_a_new_image_with_its_pythons_headers():
    case = _TESTS / "blind/plans10/cases/1009-sglang1117-docker-sglang-v0213-cu121-image-h100-triton-python-h-missing"
    f = _codes((case / "input.txt").read_text("utf-8"))["framework-cuda-libs-missing"]
    assert f.remediation.component == "container"
    words = _words(f)
    assert words[0][:4] == ("docker", "compose", "exec", "sglang")
    assert words[1] == ("echo", "FROM lmsysorg/sglang:v0.2.13-cu121", "|", "tee", "Dockerfile.pydev")
    assert "python3.10-dev" in words[2][1] and words[2][-2:] == ("-a", "Dockerfile.pydev")
    assert words[3] == ("cat", "Dockerfile.pydev", "|", "docker", "build", "-t", "lmsysorg/sglang:v0.2.13-cu121-pydev", "-")
    assert words[4] == ("docker", "compose", "up", "-d", "sglang")


def test_a_host_venv_checks_the_headers_and_names_the_package():
    f = _codes(_RL_SWARM.read_text("utf-8"))["framework-cuda-libs-missing"]
    assert f.remediation.component == "environment"
    (check,) = _words(f)  # no distribution shown: no package manager's command
    assert check[:2] == ("/root/rl-swarm/.venv/bin/python", "-c")
    assert "python3.10-dev" in f.remediation.summary


def test_a_debian_family_host_installs_python3_x_dev():
    f = _codes("OS: Ubuntu 22.04.4 LTS (x86_64)\n" + _RL_SWARM.read_text("utf-8"))["framework-cuda-libs-missing"]
    install = [c for c in f.remediation.commands if isinstance(c, Cmd) and c.root]
    # apt's package index refreshed first (planner.remedy.apt_install: no install without its update, h225)
    assert [c.words for c in install] == [("apt-get", "update"), ("apt-get", "install", "-y", "python3.10-dev")]


def test_an_embedded_windows_python_is_left_to_the_ask():
    text = (
        "Python 3.11.9 on Windows 11\n"
        "C:\\Users\\me\\AppData\\Local\\Temp\\tmpab12\\main.c:5: error: include file 'Python.h' not found\n"
    )
    assert "framework-cuda-libs-missing" not in _codes(text)


def test_no_interpreter_version_shown_is_left_to_the_ask():
    assert "framework-cuda-libs-missing" not in _codes(_LINE)
