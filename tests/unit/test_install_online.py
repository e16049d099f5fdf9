"""The package index's word on a chosen wheel (gpudoctor.install.online), against an index served on 127.0.0.1:
PEP 691 JSON, PEP 503 HTML, an HTTP 500, a garbage body, an answer too large, a port that refuses."""

from __future__ import annotations

import http.server
import json
import re
import socket
import sys
import threading
from dataclasses import replace

import pytest
from typer.testing import CliRunner

from gpudoctor.install import online
from tests.unit.test_install_plan import plan_for

# Wheel names as the indexes publish them (PyTorch's cu118 index and PyPI), for the p100 machine's plan:
# PyTorch 2.7 (cu118) for CPython 3.10 on linux x86_64.
TORCH_FILES = [
    "torch-2.7.0+cu118-cp310-cp310-manylinux_2_28_x86_64.whl",
    "torch-2.7.1+cu118-cp310-cp310-manylinux_2_28_x86_64.whl",
    "torch-2.7.1+cu118-cp311-cp311-manylinux_2_28_x86_64.whl",
    "torch-2.7.1+cu118-cp310-cp310-win_amd64.whl",
    "torch-2.6.0+cu118-cp310-cp310-manylinux_2_28_x86_64.whl",
]
ONLY_OTHERS = [f for f in TORCH_FILES if "cp310-cp310-manylinux" not in f]


def _json(files):
    return json.dumps(
        {"meta": {"api-version": "1.0"}, "name": "torch", "files": [{"filename": f, "url": f, "hashes": {}} for f in files]}
    ).encode()


def _html(files):
    links = "".join(f'<a href="../../packages/{f.replace("+", "%2B")}#sha256=00">{f}</a><br/>' for f in files)
    return f"<!DOCTYPE html><html><body>{links}</body></html>".encode()


ROUTES = {
    "/json/torch/": (200, "application/vnd.pypi.simple.v1+json", _json(TORCH_FILES)),
    "/others/torch/": (200, "application/vnd.pypi.simple.v1+json", _json(ONLY_OTHERS)),
    "/html/torch/": (200, "text/html", _html(TORCH_FILES)),
    "/broken/torch/": (500, "text/plain", b"internal error"),
    "/garbage/torch/": (200, "application/vnd.pypi.simple.v1+json", b"\x00{not json at all"),
    "/huge/torch/": (200, "application/vnd.pypi.simple.v1+json", b" " * (online.MAX_BYTES + 10)),
}


@pytest.fixture(scope="module")
def index():
    seen = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - http.server's name
            seen.append((self.path, self.headers.get("Accept", "")))
            status, ctype, body = ROUTES.get(self.path, (404, "text/plain", b"no such project"))
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def plan():
    p = plan_for("p100-driver510-torch-cu121", "torch")
    assert (p.chosen.build.release, p.chosen.build.variant, p.machine.python) == ("2.7", "cu118", "3.10.12")
    return p


def test_json_api_confirms_the_wheel_for_this_python_os_and_arch(index, plan):
    base, seen = index
    o = online.confirm(plan, f"{base}/json/")
    assert o.status == "confirmed"
    assert o.files == (
        "torch-2.7.0+cu118-cp310-cp310-manylinux_2_28_x86_64.whl",
        "torch-2.7.1+cu118-cp310-cp310-manylinux_2_28_x86_64.whl",
    )
    assert o.text.startswith(f"confirmed online: {base}/json/ has 2 torch==2.7.* wheel(s) for Python 3.10.12 on linux x86_64")
    assert seen[-1] == ("/json/torch/", online._ACCEPT)  # the Simple API page, JSON asked for first


def test_html_simple_page_confirms_too(index, plan):
    base, _ = index
    o = online.confirm(plan, f"{base}/html")
    assert o.status == "confirmed" and len(o.files) == 2


def test_an_index_without_a_wheel_for_this_python_says_so(index, plan):
    base, _ = index
    o = online.confirm(plan, f"{base}/others/")
    assert o.status == "missing"
    assert o.text == f"NOT found online: {base}/others/ lists no torch==2.7.* wheel for Python 3.10.12 on linux x86_64"
    gone = online.confirm(plan, f"{base}/nothing/")
    assert gone.status == "missing" and "has no project torch" in gone.text


@pytest.mark.parametrize(
    "path, said",
    [
        ("/broken/", "answered HTTP 500"),
        ("/garbage/", "could not be read"),
        ("/huge/", "larger than 8 MiB"),
    ],
)
def test_errors_are_not_confirmed_never_a_failure(index, plan, path, said):
    base, _ = index
    o = online.confirm(plan, base + path)
    assert o.status == "unconfirmed" and o.text.startswith("not confirmed online (") and said in o.text


def test_a_refused_connection_is_not_confirmed(plan):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again before the request: nothing listens there
    o = online.confirm(plan, f"http://127.0.0.1:{port}/simple/")
    assert o.status == "unconfirmed" and o.text == f"not confirmed online (no answer from http://127.0.0.1:{port}/simple/)"


def test_no_index_configured_is_said(plan):
    o = online.confirm(plan, None, why_not="no index configured")
    assert (o.status, o.text) == ("unconfirmed", "not confirmed online (no index configured)")


def test_credentials_in_an_index_url_are_never_shown():
    assert online.redact("https://user:s3cret@mirror.invalid:8443/simple/") == "https://mirror.invalid:8443/simple/"


class _Host:
    """The two things index discovery asks a host: its environment, and pip's configuration."""

    def __init__(self, env, pip_out="", rc=0):
        self._env, self.ran = env, []
        self._result = (pip_out, rc)

    def env(self):
        return self._env

    def run(self, argv, timeout_s, key=None):
        from gpudoctor.host import CommandResult

        self.ran.append((tuple(argv), timeout_s))
        return CommandResult(tuple(argv), self._result[1], self._result[0], "")


def test_the_index_comes_from_pip_configuration(plan):
    tf = plan_for("rtx3060-tf211-cuda12-only", "tensorflow")
    host = _Host({"PIP_INDEX_URL": "http://127.0.0.1:9/simple/"})
    assert online.index_for(tf, None, host) == ("http://127.0.0.1:9/simple/", "") and host.ran == []
    host = _Host({}, pip_out="https://mirror.invalid/simple\n")
    assert online.index_for(tf, None, host) == ("https://mirror.invalid/simple", "")
    assert host.ran == [(("/usr/bin/python3", "-m", "pip", "config", "get", "global.index-url"), online.PIP_CONFIG_TIMEOUT_S)]
    assert online.index_for(tf, None, _Host({}, rc=1)) == (None, "no index configured")
    # The install command's own index (PyTorch's variant index, or --index-url) comes first.
    assert online.index_for(plan, "http://127.0.0.1:9/whl/cu118", _Host({})) == ("http://127.0.0.1:9/whl/cu118", "")


@pytest.mark.parametrize(
    "filename, machine, ok",
    [
        ("jax_cuda12_plugin-0.6.2-cp310-cp310-manylinux_2_27_x86_64.whl", {}, True),
        ("jax_cuda12_plugin-0.6.2-cp310-cp310-manylinux_2_27_aarch64.whl", {}, False),
        ("x-1.0-cp38-abi3-manylinux_2_17_x86_64.whl", {}, True),  # abi3 from 3.8: runs on 3.10
        ("x-1.0-cp311-abi3-manylinux_2_17_x86_64.whl", {}, False),
        ("x-1.0-cp310-cp310t-manylinux_2_17_x86_64.whl", {}, False),  # free-threaded
        ("x-1.0-py3-none-any.whl", {}, True),
        ("x-1.0-cp310-cp310-win_amd64.whl", {"os": "windows", "arch": "AMD64"}, True),
        ("x-1.0-cp310-cp310-macosx_11_0_universal2.whl", {"os": "macos", "arch": "arm64"}, True),
        ("x-1.0.tar.gz", {}, False),
    ],
)
def test_wheel_tags_against_the_machine(plan, filename, machine, ok):
    m = replace(plan.machine, **machine)
    name = filename.split("-", 1)[0]
    assert bool(online.matching_wheels([filename], name, ">=0", m)) is ok


def test_the_jax_plugin_is_what_is_looked_up():
    jax = plan_for("rtx4090-jax-cpu-only", "jax", "0.4.38")
    assert online.distribution_to_check(jax.chosen.build) == ("jax-cuda12-plugin", "==0.4.38")


def test_install_cli_asks_the_configured_index_and_offline_does_not(index, monkeypatch):
    from tests.conftest import real_app

    base, seen = index
    app = real_app()
    runner = CliRunner()
    # This machine, a CPU build of torch, PIP_INDEX_URL would be asked only where pip's own index is used:
    # PyTorch's cpu index is in the command, so point --index-url at the loopback index instead.
    args = ["install", "torch", "--python", sys.executable, "--cpu", "--dry-run", "--index-url", f"{base}/json/"]
    before = len(seen)
    result = runner.invoke(app, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert len(seen) == before + 1 and seen[-1][0] == "/json/torch/"
    # The newest release for this Python is not among the 2.7 files served: said, with the version range asked.
    assert re.search(
        rf"  index: NOT found online: {re.escape(base)}/json/ lists no torch==\d+\.\d+\.\* wheel for Python ", result.output
    )
    offline = runner.invoke(app, [*args, "--offline"], catch_exceptions=False)
    assert len(seen) == before + 1 and "index: not confirmed online (--offline)" in offline.output
    # Not a dry run, and the index has no such wheel: nothing runs (exit 1).
    refused = runner.invoke(app, [a for a in args if a != "--dry-run"] + ["--yes"], catch_exceptions=False)
    assert refused.exit_code == 1 and "NOT found online" in refused.output
    assert "the package index has no such wheel" in refused.output
