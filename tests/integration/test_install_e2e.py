"""`gpudoctor install` end to end: a fresh virtual environment, a PEP 503 index served on loopback with
stand-in wheels built here, the real CLI in a subprocess, then the re-probe.

The stand-in torch wheel carries PyTorch's real torch/version.py for 2.2.1+cu121
(tests/fixtures/torch-version) and just enough of a package for the --deep import to answer
(torch.cuda.is_available() is False: no CUDA code). Nothing reaches the internet: pip gets only the
loopback index, no dependencies (--no-deps), no config file and no self version check.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import hashlib
import http.server
import json
import subprocess
import sys
import threading
import zipfile
from pathlib import Path

import pytest

from tests.conftest import fixture_text

# The CLI as the console script runs it, with `install` registered here too (harmless once
# gpudoctor.cli registers it itself: the command is then defined twice, identically).
HARNESS = (
    "import sys\n"
    "from gpudoctor.cli import app, main\n"
    "from gpudoctor.cli.install import register\n"
    "register(app)\n"
    "main(sys.argv[1:])\n"
)

STANDIN = {
    "torch/__init__.py": '"""Stand-in for the torch wheel in gpudoctor\'s install test: real version metadata, no CUDA code."""\n'
    "from torch import backends, cuda, version\n__version__ = version.__version__\n",
    "torch/cuda/__init__.py": "def is_available():\n    return False\n\n\ndef device_count():\n    return 0\n\n\ndef get_arch_list():\n    return []\n",
    "torch/backends/__init__.py": "from torch.backends import cudnn\n",
    "torch/backends/cudnn/__init__.py": "def is_available():\n    return False\n\n\ndef version():\n    return None\n",
}


def build_wheel(directory: Path, name: str, version: str, files: dict[str, str]) -> Path:
    """A minimal, valid wheel (PEP 427): the files, METADATA, WHEEL and a RECORD with their hashes."""
    dist_info = f"{name}-{version}.dist-info"
    contents = dict(files)
    contents[f"{dist_info}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\nSummary: gpudoctor test stand-in\n"
    )
    contents[f"{dist_info}/WHEEL"] = "Wheel-Version: 1.0\nGenerator: gpudoctor-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    record = []
    for path, text in contents.items():
        data = text.encode()
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(data)}")
    record.append(f"{dist_info}/RECORD,,")
    contents[f"{dist_info}/RECORD"] = "\n".join(record) + "\n"
    wheel = directory / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as zf:
        for path, text in contents.items():
            zf.writestr(path, text)
    return wheel


def build_index(root: Path, wheels: list[Path]) -> None:
    """A PEP 503 simple index: /simple/ lists projects, /simple/<project>/ links each file with its sha256."""
    (root / "packages").mkdir(parents=True)
    projects: dict[str, list[str]] = {}
    for wheel in wheels:
        target = root / "packages" / wheel.name
        target.write_bytes(wheel.read_bytes())
        sha = hashlib.sha256(target.read_bytes()).hexdigest()
        href = wheel.name.replace("+", "%2B")  # as download.pytorch.org writes local versions
        projects.setdefault(wheel.name.split("-", 1)[0], []).append(
            f'<a href="../../packages/{href}#sha256={sha}">{wheel.name}</a>'
        )
    simple = root / "simple"
    simple.mkdir()
    (simple / "index.html").write_text("<html><body>" + "".join(f'<a href="{p}/">{p}</a>' for p in projects) + "</body></html>")
    for project, links in projects.items():
        (simple / project).mkdir()
        (simple / project / "index.html").write_text("<html><body>" + "<br>".join(links) + "</body></html>")


@contextlib.contextmanager
def serve(directory: Path):
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):  # pip's requests are not test output
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(directory)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/simple/"
    finally:
        server.shutdown()
        server.server_close()


def gpudoctor(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", HARNESS, *args], capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL, env=env
    )


@pytest.fixture(scope="module")
def venv_and_index(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("install-e2e")
    wheels = tmp / "wheels"
    wheels.mkdir()
    files = {**STANDIN, "torch/version.py": fixture_text("torch-version/version.py_torch-2.2.1+cu121.py")}
    cpu = {**STANDIN, "torch/version.py": fixture_text("torch-version/version.py_torch-2.13.0+cpu.py")}
    built = [
        build_wheel(wheels, "torch", "2.2.1+cu121", files),
        # A decoy: the index also has a newer CPU build, which the plan's exact pin must not take.
        build_wheel(wheels, "torch", "2.13.0+cpu", cpu),
    ]
    build_index(tmp / "index", built)
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    return tmp, venv / "bin" / "python"


def _env(tmp: Path) -> dict[str, str]:
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp),
        "LC_ALL": "C.UTF-8",
        # pip sees the loopback index only: no user or site config (an extra-index-url there would reach
        # the internet), no self version check against PyPI, no shared cache.
        "PIP_CONFIG_FILE": "/dev/null",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "PIP_NO_CACHE_DIR": "1",
    }


def test_install_into_a_fresh_venv_from_a_loopback_index_then_verify_by_probing_again(venv_and_index):
    tmp, python = venv_and_index
    with serve(tmp / "index") as index:
        result = gpudoctor(
            "install",
            "torch",
            "2.2.1",
            "--python",
            str(python),
            "--index-url",
            index,
            "--pip-arg=--no-deps",
            "--cuda",
            "12.1",
            "--yes",
            "--format",
            "json",
            env=_env(tmp),
        )
    doc = json.loads(result.stdout)
    # The plan: PyTorch 2.2's PyPI default variant, pinned exactly, from the index given, into that venv.
    chosen = doc["plan"]["chosen"]
    assert (chosen["release"], chosen["variant"], chosen["specs"]) == ("2.2", "cu121", ["torch==2.2.1+cu121"])
    # Before anything ran, the index the install names was asked for the wheel (its HTML Simple API page).
    assert doc["plan"]["online"]["status"] == "confirmed" and doc["plan"]["online"]["files"] == [
        "torch-2.2.1+cu121-py3-none-any.whl"
    ]
    # The one command a person would type: pip fetches before it replaces anything (gpudoctor.planner.commands).
    (install,) = doc["ran"]
    assert install == {
        "argv": [str(python), "-m", "pip", "install", "torch==2.2.1+cu121", "--index-url", index, "--no-deps"],
        "rc": 0,
    }
    # pip's own output was streamed (to stderr: stdout holds the one JSON document).
    assert "Successfully installed torch-2.2.1+cu121" in result.stderr
    # The re-probe found the planned build; the --deep import ran it and found no usable GPU (a stand-in
    # has no CUDA code), so the exit status says findings.
    v = doc["verification"]
    assert v["installed"] == "2.2.1+cu121" and v["matches_plan"] is True
    assert v["gpu_usable"] is False and v["summary"].startswith("torch.cuda.is_available() is False")
    assert result.returncode == doc["exit_code"] == 1, result.stderr

    # The same facts through the probes themselves, pointed at that interpreter.
    from gpudoctor.host.live import LiveHost
    from gpudoctor.probed import Found
    from gpudoctor.probes import ProbeOptions, run_probes

    facts = run_probes(LiveHost(), ProbeOptions(python=str(python)))
    torch = facts.frameworks.torch
    assert isinstance(torch, Found) and (torch.value.version, torch.value.cuda) == ("2.2.1+cu121", "12.1")
    assert facts.frameworks.python.value.distributions["torch"] == "2.2.1+cu121"


def test_a_failing_install_stops_says_so_and_prints_the_way_back(venv_and_index):
    tmp, python = venv_and_index
    with serve(tmp / "index") as index:
        # Whatever ran before: the cu121 stand-in is what is installed.
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", "torch==2.2.1+cu121", "--index-url", index, "--no-deps"],
            check=True,
            timeout=120,
            env=_env(tmp),
            capture_output=True,
        )
        result = gpudoctor(
            "install",
            "torch",
            "2.3.1",
            "--python",
            str(python),
            "--index-url",
            index,
            "--pip-arg=--no-deps",
            "--yes",
            "--cuda",
            "12.1",
            "--offline",
            env=_env(tmp),
        )
    assert result.returncode == 3, result.stdout + result.stderr
    # pip found no 2.3.1: it failed before it changed anything (read again), and the old build is still there.
    assert "uninstall" not in result.stdout and f" -m pip install torch==2.3.1+cu121 --index-url {index}" in result.stdout
    assert "the command failed (exit status 1); nothing in the environment was changed" in result.stdout
    shown = subprocess.run([str(python), "-m", "pip", "show", "torch"], capture_output=True, text=True, timeout=60)
    assert "Version: 2.2.1+cu121" in shown.stdout
    # The way back printed with the plan uses the index given (--index-url), not PyTorch's own.
    assert (
        f"to go back to what is installed now:\n  {python} -m pip install torch==2.2.1+cu121 --index-url {index}\n"
        in result.stdout
    )
    assert "checking:" not in result.stdout


def test_a_correct_cpu_install_verifies_as_planned_and_exits_0(venv_and_index):
    """Issue 31, item 1: a CPU-only build has no CUDA; the re-probe judges it as the plan did (cpu_installed)."""
    tmp, python = venv_and_index
    with serve(tmp / "index") as index:
        result = gpudoctor(
            "install",
            "torch",
            "2.13",
            "--cpu",
            "--reinstall",
            "--python",
            str(python),
            "--index-url",
            index,
            "--pip-arg=--no-deps",
            "--yes",
            "--format",
            "json",
            env=_env(tmp),
        )
    doc = json.loads(result.stdout)
    assert doc["plan"]["chosen"]["specs"][0].startswith("torch==2.13"), doc["plan"]["chosen"]
    v = doc["verification"]
    assert (v["installed"], v["matches_plan"], v["gpu_usable"]) == ("2.13.0+cpu", True, None)
    assert result.returncode == doc["exit_code"] == 0, result.stderr
