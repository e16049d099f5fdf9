"""gpudoctor.lazymodule: a deferred standard-library module is the real one from its first read, in every thread.

Each case runs in a child interpreter that has not imported the module (this process has: pytest reads inspect)."""

from __future__ import annotations

import subprocess
import sys


def _run(script: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_a_deferred_module_is_not_run_until_read_and_then_reads_as_the_module():
    out = _run(
        "import sys\n"
        "assert 'inspect' not in sys.modules\n"
        "from gpudoctor.lazymodule import defer\n"
        "defer('inspect')\n"
        "import dataclasses, inspect\n"  # dataclasses imports it at its top
        "held = inspect\n"
        "print('ast' in sys.modules, 'dis' in sys.modules)\n"  # what importing inspect imports: not yet
        "@dataclasses.dataclass\n"
        "class Undocumented:\n"  # dataclasses reads inspect.signature for its docstring
        "    x: int\n"
        "print(Undocumented.__doc__)\n"
        "real = sys.modules['inspect']\n"
        "print(real is not held, held.signature is real.signature, held.Parameter is real.Parameter)\n"
        "print(real.__spec__.name, 'ast' in sys.modules)\n"
        "try:\n    held.no_such_name\nexcept AttributeError:\n    print('AttributeError')\n"
    )
    assert out == ["False", "False", "Undocumented(x:", "int)", "True", "True", "True", "inspect", "True", "AttributeError"]


def test_threads_reading_it_at_once_all_read_the_whole_module():
    # Each thread reads a name defined near the module's end: with a placeholder that let a second thread in while the
    # first ran the module (importlib.util.LazyLoader before CPython 3.12.3), some read it half made.
    out = _run(
        "import sys, threading\n"
        "from gpudoctor.lazymodule import defer\n"
        "defer('inspect')\n"
        "import inspect\n"
        "start = threading.Barrier(8)\n"
        "read = []\n"
        "def reader():\n"
        "    start.wait()\n"
        "    read.append(inspect.BoundArguments is sys.modules['inspect'].BoundArguments)\n"
        "threads = [threading.Thread(target=reader) for _ in range(8)]\n"
        "[t.start() for t in threads]\n[t.join() for t in threads]\n"
        "print(len(read), all(read))\n"
    )
    assert out == ["8", "True"]


def test_a_module_already_imported_is_left_as_it_is():
    out = _run(
        "import sys, inspect\n"
        "from gpudoctor.lazymodule import defer\n"
        "defer('inspect')\n"
        "print(sys.modules['inspect'] is inspect)\n"
    )
    assert out == ["True"]


def test_an_import_that_fails_leaves_the_placeholder_to_try_again():
    out = _run(
        "import sys\n"
        "from gpudoctor.lazymodule import defer\n"
        "defer('gpudoctor_no_such_module')\n"
        "import gpudoctor_no_such_module as held\n"
        "for _ in range(2):\n"
        "    try:\n        held.anything\n    except ModuleNotFoundError:\n        print('ModuleNotFoundError')\n"
        "print(sys.modules['gpudoctor_no_such_module'] is held)\n"
    )
    assert out == ["ModuleNotFoundError", "ModuleNotFoundError", "True"]
