"""What a check prepares while its probes wait (issue 31, item 10): the plan's modules, the format's renderer and the
patterns the text view compiles at their first use were imported and compiled after the user's interpreter had
answered, on the check's critical path, while the process sat idle waiting for that answer (bench/README.md, h214).
gpudoctor.doctor runs them in the thread that imports the checks; these tests hold the plumbing, never a time."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot
from gpudoctor.pipeline import CheckRequest, check
from gpudoctor.render.formats import FORMATS

TESTS = Path(__file__).resolve().parents[1]


def _fresh(code: str) -> list[str]:
    """The last line `code` prints on stderr, run in a fresh interpreter (nothing imported or compiled before it)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUDOCTOR_")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    return done.stderr.strip().splitlines()[-1].split()


def test_the_text_format_prepares_its_console_and_the_patterns_it_compiles_at_first_use():
    got = _fresh(
        "import sys\nfrom gpudoctor.render.formats import FORMATS\nFORMATS['text'].ahead()\n"
        "from gpudoctor import sanitize\nfrom gpudoctor.render import textconsole as t\n"
        "patterns = [sanitize._UNSAFE, sanitize._UNSAFE_NO_NL, t._TAG, t._ESCAPE, t._WORD]\n"
        "print('gpudoctor.render.terminal' in sys.modules, *(p._compiled is not None for p in patterns), file=sys.stderr)"
    )
    assert got == ["True"] * 6


def test_every_format_can_be_prepared_before_its_result_exists():
    # (a renderer without an `ahead` is imported only: render/formats.py)
    for fmt in FORMATS.values():
        fmt.ahead()
        assert fmt.module in sys.modules, fmt.name


def test_a_check_runs_its_callers_ahead_in_the_thread_that_imports_the_checks():
    ran: list[str] = []
    done = threading.Event()

    def ahead() -> None:
        ran.append(threading.current_thread().name)
        done.set()

    host = ReplayHost(load_snapshot(str(TESTS / "machines" / "a100-mig-two-instances" / "snapshot.json")))
    result = check(host, CheckRequest(), ahead)
    assert result.report.findings is not None
    assert done.wait(60)
    assert ran == [ran[0]] and ran[0] != threading.main_thread().name  # once, and not in the check's own thread
