"""The live host's bounds: command output capped (the program killed past the cap), files read only
when they are regular files, and at most one NVML worker however long NVML hangs."""

from __future__ import annotations

import os
import sys
import threading
import time

import pytest

from gpudoctor import bounded
from gpudoctor.host import HostError
from gpudoctor.host.live import LiveHost
from gpudoctor.host.replay import RecordingHost, ReplayHost
from gpudoctor.probed import Absent, Unknown
from gpudoctor.probes.common import probe_command


def test_a_flood_is_stopped_at_the_cap_and_said(monkeypatch):
    monkeypatch.setattr("gpudoctor.host.live.MAX_COMMAND_OUTPUT", 1024 * 1024)
    result = LiveHost().run([sys.executable, "-c", "import sys\nwhile True: sys.stdout.write('y' * 65536)"], timeout_s=30)
    assert result.overflow and not result.ok and not result.timed_out
    assert result.stdout == "" and result.stderr.startswith("output exceeded 1 MiB")


def test_stdout_and_stderr_count_together(monkeypatch):
    monkeypatch.setattr("gpudoctor.host.live.MAX_COMMAND_OUTPUT", 100_000)
    code = "import sys\nsys.stdout.write('o' * 60000); sys.stdout.flush(); sys.stderr.write('e' * 60000)"
    assert LiveHost().run([sys.executable, "-c", code], timeout_s=30).overflow
    code = "import sys\nsys.stdout.write('o' * 40000); sys.stdout.flush(); sys.stderr.write('e' * 40000)"
    result = LiveHost().run([sys.executable, "-c", code], timeout_s=30)
    assert result.ok and len(result.stdout) == 40000 and len(result.stderr) == 40000


def test_a_silent_hang_still_times_out():
    start = time.monotonic()
    result = LiveHost().run([sys.executable, "-c", "import time; time.sleep(60)"], timeout_s=0.5)
    assert result.timed_out and result.rc is None
    assert time.monotonic() - start < 30


def test_probe_command_reports_the_overflow_as_a_failed_probe(monkeypatch):
    monkeypatch.setattr("gpudoctor.host.live.MAX_COMMAND_OUTPUT", 1000)
    outcome = probe_command(
        LiveHost(), [[sys.executable, "-c", "print('x' * 5000)"]], 30, lambda text: text, Absent("none", "test")
    )
    assert isinstance(outcome, Unknown) and outcome.kind == "failed"
    assert "output exceeded 1000 bytes" in outcome.message


def test_an_overflow_is_recorded_and_replayed(monkeypatch):
    monkeypatch.setattr("gpudoctor.host.live.MAX_COMMAND_OUTPUT", 1000)
    recording = RecordingHost(LiveHost())
    argv = [sys.executable, "-c", "print('x' * 5000)"]
    recording.run(argv, 30)
    replayed = ReplayHost(recording.snapshot).run(argv, 30)
    assert replayed.overflow and not replayed.ok and "output exceeded" in replayed.stderr


def test_read_text_refuses_a_fifo_at_once(tmp_path):
    os.mkfifo(tmp_path / "version.py")
    host = LiveHost(root=str(tmp_path))
    with pytest.raises(HostError) as err:
        host.read_text("/version.py")  # would block forever without O_NONBLOCK
    assert err.value.code == "ENOTREG"
    (tmp_path / "d").mkdir()
    with pytest.raises(HostError) as err:
        host.read_text("/d")
    assert err.value.code == "EISDIR"


def test_read_text_refuses_a_device():
    with pytest.raises(HostError) as err:
        LiveHost().read_text("/dev/zero")
    assert err.value.code == "ENOTREG"


def test_at_most_one_nvml_worker_while_nvml_hangs(monkeypatch):
    release = threading.Event()
    calls = []

    def hanging_nvml():
        calls.append(1)
        release.wait(30)
        return {"status": "ok", "devices": []}

    monkeypatch.setattr("gpudoctor.host.nvml.read_nvml_state", hanging_nvml)
    host = LiveHost()

    def workers() -> int:
        return sum(1 for t in threading.enumerate() if t.name == "gpudoctor-nvml" and t.is_alive())

    before = workers()
    for _ in range(20):  # twenty redraws of `memory --watch`
        assert host.nvml(0.01)["status"] == "timeout"
    assert workers() - before == 1 and len(calls) == 1
    release.set()
    assert host.nvml(5)["status"] == "ok"  # the pending answer, once NVML answers
    assert host.nvml(5)["status"] == "ok" and len(calls) == 2  # then a fresh read


def test_bounded_json_rejects_nan_infinity_and_depth():
    for text in ("NaN", "[Infinity]", '{"a": -Infinity}', "[1e999]"):
        with pytest.raises(bounded.InputError):
            bounded.parse_json_text(text, "x")
    assert bounded.parse_json_text("[" * 64 + "]" * 64, "x") is not None
    with pytest.raises(bounded.InputError, match="64 levels"):
        bounded.parse_json_text("[" * 65 + "]" * 65, "x")
    with pytest.raises(bounded.InputError, match="64 levels"):
        bounded.parse_json_text("[" * 200_000, "x")
    with pytest.raises(bounded.InputError, match="extra data"):
        bounded.parse_json_text("{} {}", "x")
    assert bounded.parse_json_documents('{"a": 1} {"b": 2}', "x") == [{"a": 1}, {"b": 2}]
