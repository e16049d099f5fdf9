"""Nothing lost: a failing install leaves the framework that was there importable.

Real pip in a throwaway virtual environment, a PEP 503 index on 127.0.0.1 that can be switched to
misbehave (port closed, HTTP 500 for everything, garbage instead of the wheel), and stand-in wheels
named torch built here (they exist only inside that venv). The plan's steps are the ones
gpudoctor.planner.commands builds; `run_plan` runs them, and, when a step fails after the
environment changed, puts the previous build back and re-reads the environment.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import io
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from gpudoctor.cmdline import Cmd
from gpudoctor.host.live import LiveHost
from gpudoctor.install.apply import env_reader, failure_message, restore_previous, run_plan, run_step
from gpudoctor.matrix import load_matrix
from gpudoctor.planner import commands, pick_torch
from gpudoctor.planner.model import Build, Machine, Plan, TargetEnv
from tests.integration.test_install_e2e import build_index, build_wheel


def _torch(version: str) -> dict[str, str]:
    return {"torch/__init__.py": f"__version__ = {version!r}\n"}


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("nothing-lost")
    wheels = tmp / "wheels"
    wheels.mkdir()
    built = [
        build_wheel(wheels, "torch", "2.0.0+cu118", _torch("2.0.0+cu118")),
        build_wheel(wheels, "torch", "2.0.0+cu121", _torch("2.0.0+cu121")),
        # A distribution the new build does not replace by itself (as tensorflow-cpu for tensorflow).
        build_wheel(wheels, "oldcompanion", "1.0", {"oldcompanion/__init__.py": "__version__ = '1.0'\n"}),
    ]
    build_index(tmp / "index", built)
    venv = tmp / "venv"
    try:
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120, capture_output=True)
    except (subprocess.SubprocessError, OSError) as exc:
        pytest.skip(f"cannot create a virtual environment with pip here: {exc}")
    return tmp, wheels, venv / "bin" / "python"


@pytest.fixture(autouse=True)
def quiet_pip(monkeypatch, lab):
    tmp = lab[0]
    # The loopback index only: no config file (an extra index there would reach the internet), no
    # version check, no cache (each test must fetch), and no retries (a closed port fails at once).
    for name, value in {
        "PIP_CONFIG_FILE": "/dev/null",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "PIP_NO_CACHE_DIR": "1",
        "PIP_RETRIES": "0",
        "PIP_TIMEOUT": "10",
        "HOME": str(tmp),
    }.items():
        monkeypatch.setenv(name, value)


class Index(http.server.SimpleHTTPRequestHandler):
    mode = "ok"

    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.mode == "500":
            self.send_error(500, "index broken")
            return
        if self.mode == "garbage" and self.path.startswith("/packages/"):
            body = b"\x00garbage, not a wheel\n" * 64
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        if self.mode == "garbage-page":
            body = b'<html><body>\x1b]0;pwned\x07 <a href="javascript:1">nothing</a>' + b"\xff" * 100
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(body)
            return
        super().do_GET()


@contextlib.contextmanager
def serve(directory: Path, mode: str):
    handler = type("Handler", (Index,), {"mode": mode})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(directory)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/simple/"
    finally:
        server.shutdown()
        server.server_close()


def closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/simple/"  # nothing listens there once the socket is closed


def installed(python: Path) -> dict[str, str]:
    return env_reader(LiveHost(), str(python), 60)()


def torch_imports_as(python: Path) -> str:
    out = subprocess.run(
        [str(python), "-c", "import torch; print(torch.__version__)"], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def start_from(python: Path, wheels: Path, *names: str) -> None:
    """Whatever ran before: exactly these wheels installed."""
    subprocess.run([str(python), "-m", "pip", "uninstall", "-y", "-q", "torch", "oldcompanion"], capture_output=True, timeout=120)
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-index", *(str(wheels / n) for n in names)],
        check=True,
        capture_output=True,
        timeout=120,
    )


def plan_for(python: Path, index: str, replace: tuple[str, ...], before: dict[str, str]) -> Plan:
    env = TargetEnv(str(python), "3", "venv", has_pip=True)
    machine = Machine("linux", "x86_64", None, None, (), env, installed=before)
    # The build switch within the release pinned exactly (pick_torch.settle), or pip keeps the installed 2.0.0+cu118.
    build = pick_torch.settle(
        load_matrix(), machine, Build("torch", "2.0", "cu121", "12.1", ("torch==2.0.*",), index_url=index, pin="2.0.*")
    )
    steps = commands.replace_steps("pip", env, build.specs, replace, label="PyTorch 2.0 (cu121)", index_url=index)
    back = tuple(f"{n}=={v}" for n, v in before.items())
    undo = Cmd(commands.args_argv("pip", env, (*back, "--index-url", index)))
    return Plan("torch", None, machine, None, steps=steps, undo=(undo,))


OLD = "torch-2.0.0+cu118-py3-none-any.whl"


@pytest.mark.parametrize("mode", ["offline", "500", "garbage", "garbage-page"])
def test_a_failing_index_changes_nothing_and_the_old_build_stays_importable(lab, mode):
    tmp, wheels, python = lab
    start_from(python, wheels, OLD)
    out = io.StringIO()
    with contextlib.nullcontext(closed_port_url()) if mode == "offline" else serve(tmp / "index", mode) as index:
        plan = plan_for(python, index, ("torch",), {"torch": "2.0.0+cu118"})
        outcome = run_plan(plan, out, env_reader(LiveHost(), str(python), 60))
    # The one install command failed before it changed anything (read again: the old build is there), so
    # nothing is put back and nothing else ran.
    assert [r.argv[3] for r in outcome.ran] == ["install"], out.getvalue()
    assert not outcome.ok and outcome.ran[0].rc != 0
    assert not outcome.changed and outcome.restore is None
    assert failure_message(plan, outcome).endswith("nothing in the environment was changed")
    assert torch_imports_as(python) == "2.0.0+cu118"


def test_a_good_index_replaces_the_build_in_one_step_even_with_the_same_release(lab):
    tmp, wheels, python = lab
    start_from(python, wheels, OLD)
    out = io.StringIO()
    with serve(tmp / "index", "ok") as index:
        plan = plan_for(python, index, ("torch",), {"torch": "2.0.0+cu118"})
        outcome = run_plan(plan, out, env_reader(LiveHost(), str(python), 60))
    assert outcome.ok, out.getvalue()
    # No uninstall step: one install, pinned to the exact build (an installed 2.0.0+cu118 satisfies
    # torch==2.0.*, so without the pin pip would keep it).
    (only,) = outcome.ran
    assert only.argv[3:] == ("install", "torch==2.0.0+cu121", "--index-url", index)
    assert "uninstall" not in [r.argv[3] for r in outcome.ran]
    assert torch_imports_as(python) == "2.0.0+cu121"


def test_a_step_failing_after_a_removal_puts_the_previous_build_back_and_checks_it(lab):
    tmp, wheels, python = lab
    start_from(python, wheels, OLD, "oldcompanion-1.0-py3-none-any.whl")
    before = {"torch": "2.0.0+cu118", "oldcompanion": "1.0"}
    out = io.StringIO()

    crashed = []

    def install_crashes(argv, out):
        # The install after the removal dies (a full disk, a kill); every other step (the way back too) is real pip.
        if argv[3] == "install" and "--dry-run" not in argv and not crashed:
            crashed.append(argv)
            return 1
        return run_step(argv, out)

    with serve(tmp / "index", "ok") as index:
        plan = plan_for(python, index, ("torch", "oldcompanion"), before)
        assert [type(s).__name__ for s in plan.steps] == ["Download", "Remove", "Replace"]
        outcome = run_plan(plan, out, env_reader(LiveHost(), str(python), 60), runner=install_crashes)
    assert outcome.changed and not outcome.ok
    r = outcome.restore
    assert r is not None and r.rc == 0 and r.back, out.getvalue()
    assert {n: installed(python).get(n) for n in before} == before
    assert torch_imports_as(python) == "2.0.0+cu118"
    assert "the previous build is back" in out.getvalue()
    assert failure_message(plan, outcome).endswith("the previous build was put back and is installed again")


def test_when_putting_back_fails_too_it_says_so_with_the_command(lab):
    tmp, wheels, python = lab
    # oldcompanion was removed and the index is gone: the way back cannot fetch it.
    start_from(python, wheels, OLD)
    before = {"torch": "2.0.0+cu118", "oldcompanion": "1.0"}
    out = io.StringIO()
    plan = plan_for(python, closed_port_url(), ("torch", "oldcompanion"), before)
    r = restore_previous(plan, out, env_reader(LiveHost(), str(python), 60))
    assert r.rc != 0 and not r.back and r.missing == {"oldcompanion": None}
    assert "the previous build is NOT back (oldcompanion missing); to put it back by hand:" in out.getvalue()
    assert torch_imports_as(python) == "2.0.0+cu118"
