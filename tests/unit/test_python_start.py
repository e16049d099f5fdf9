"""The python probe in two steps (gpudoctor.probes.python.start_python): the user's interpreter is started by the
first, in the caller's thread (run_probes' main thread, before it imports the rest), and the second waits for
its answer, which is the answer the one-step probe gives."""

from __future__ import annotations

import os
import sys
import threading

from gpudoctor.host import live
from gpudoctor.host.live import LiveHost
from gpudoctor.probed import Absent, Found
from gpudoctor.probes.python import probe_python, start_python


def _wrapper(tmp_path) -> str:
    """An interpreter no file layout settles (a script that execs this one), so the probe must start it."""
    path = tmp_path / "bin" / "python3"
    path.parent.mkdir()
    path.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    path.chmod(0o755)
    return str(path)


def test_the_interpreter_is_started_by_the_first_step_and_answers_in_the_second(tmp_path):
    python = _wrapper(tmp_path)
    seen_from: list[str] = []
    original = live.subprocess.Popen

    class Spy(original):  # type: ignore[misc,valid-type]
        def __init__(self, args, *a, **k):
            seen_from.append(threading.current_thread().name)
            super().__init__(args, *a, **k)

    live.subprocess.Popen = Spy  # type: ignore[misc]
    try:
        answer = start_python(LiveHost(), python, 30.0)
        started = [p for p in live._RUNNING if p.args[0] == python]
        assert len(started) == 1 and seen_from == [threading.current_thread().name]
        probed, chosen_by = answer()
    finally:
        live.subprocess.Popen = original  # type: ignore[misc]
    assert not [p for p in live._RUNNING if p.args[0] == python]  # reaped by the second step
    assert chosen_by == "--python" and isinstance(probed, Found) and probed.value.how == "subprocess"
    assert (probed, chosen_by) == probe_python(LiveHost(), python, 30.0)


def test_a_missing_interpreter_is_absent_in_either_step(tmp_path):
    missing = os.path.join(tmp_path, "bin", "python3")
    probed, chosen_by = start_python(LiveHost(), missing, 30.0)()
    assert isinstance(probed, Absent) and chosen_by == "--python"
    assert (probed, chosen_by) == probe_python(LiveHost(), missing, 30.0)


def test_an_interpreter_started_early_is_the_one_the_probe_takes_once(tmp_path):
    # gpudoctor.cli.check starts it before the probes are imported (LiveHost.start_python_env_early): the probe's
    # first step then starts nothing, and its answer is the one-step probe's; a later probe starts its own.
    python = _wrapper(tmp_path)
    host = LiveHost()
    host.start_python_env_early(python, 30.0)
    started = [p for p in live._RUNNING if p.args[0] == python]
    assert len(started) == 1
    answer = start_python(host, python, 30.0)
    assert [p for p in live._RUNNING if p.args[0] == python] == started  # (none more)
    probed, chosen_by = answer()
    assert (probed, chosen_by) == probe_python(LiveHost(), python, 30.0)
    assert isinstance(probed, Found) and probed.value.how == "subprocess"
    again = start_python(host, python, 30.0)  # taken already: this one starts the interpreter again
    assert len([p for p in live._RUNNING if p.args[0] == python]) == 1
    assert again() == (probed, chosen_by)


def test_an_early_start_for_other_arguments_is_not_taken_and_its_error_is_the_probes(tmp_path):
    python, missing = _wrapper(tmp_path), os.path.join(tmp_path, "bin", "python3.99")
    host = LiveHost()
    host.start_python_env_early(python, 30.0)
    assert start_python(host, python, 29.0)() == probe_python(LiveHost(), python, 29.0)  # another time limit
    kept = host.python_env_started(python, 30.0)  # (still there for its own arguments)
    assert len([p for p in live._RUNNING if p.args[0] == python]) == 1
    assert kept() == probe_python(LiveHost(), python, 30.0)[0].value
    host.start_python_env_early(missing, 30.0)  # raised here: kept, and raised again where the probe asks
    probed, chosen_by = start_python(host, missing, 30.0)()
    assert isinstance(probed, Absent) and (probed, chosen_by) == probe_python(LiveHost(), missing, 30.0)
