"""What a bare `gpudoctor check` does not import (issue 31, item 10: a check reads files and metadata, and imports
nothing it does not use). Each of these was imported by every check once; bench/check_imports.py measures
what imports cost, and no test here times anything."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

# platform: the live host's uname is os.uname() on POSIX (host/live.py); socket: the host name likewise
# (cli/check.py); neither is imported on Linux. typer, click, rich and pydantic: tests/cli/test_fast_path.py.
NEVER_ON_LINUX = ("platform", "socket")
# Imported only for the option that needs them: --deep, --pid; and the options' enums, for the full command line only
# (a bare check builds no options: gpudoctor.cli.fast).
NEVER_BARE = ("gpudoctor.probes.deep", "gpudoctor.probes.process", "gpudoctor.cli.choices")
# The checks of pasted text (tagged "pasted", gpudoctor.checks.all_checks): a whole machine's facts give them nothing.
PASTED_TEXT_ONLY = (
    "gpudoctor.checks.catalogued",
    "gpudoctor.checks.installers",
    "gpudoctor.checks.reported",
    "gpudoctor.checks.stated",
    "gpudoctor.checks.workloads",
)
# Record classes only some findings or texts build (each dataclass costs a bare check about 4.7 M instructions,
# bench/README.md): the planner's machine-as-a-plan-goes and its actions (an unreachable driver on Windows, conda),
# the companions' facts (companions installed, --pid, a pasted undefined symbol), the catalogue's messages (a paste),
# the plan's model and its pip and uv commands (a plan, a fix offer, a target the person names).
NEVER_IN_AN_EMPTY_VENV = (
    "gpudoctor.planner.model",  # the plan's eleven dataclasses (planner.where reads a requirement's name only when
    "gpudoctor.planner.commands",  # it rewrites a package step)
    "gpudoctor.planner.plan_state",
    "gpudoctor.planner.actions",
    "gpudoctor.extension_facts",
    "gpudoctor.parsers.catalogue",
)


def _imported_after(script: str, **env_vars: str) -> list[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUDOCTOR_")} | env_vars
    code = (
        "import sys\n" + script + "\nprint(' '.join(sorted(sys.modules)), file=sys.stderr)\n"
    )  # the modules, on stderr's last line
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    return done.stderr.strip().splitlines()[-1].split()


def test_a_bare_check_imports_neither_platform_nor_socket():
    modules = _imported_after(
        "from gpudoctor.cli import main\ntry:\n    main(['check'])\nexcept SystemExit as exc:\n    assert exc.code in (0, 1), exc.code"
    )
    assert "gpudoctor.facts" in modules and "gpudoctor.host.live" in modules  # the check did run, on the live machine
    assert [m for m in NEVER_ON_LINUX if m in modules] == []
    assert [m for m in NEVER_BARE if m in modules] == []
    assert "gpudoctor.checks.toolkit" in modules  # the machine's checks were imported
    assert [m for m in PASTED_TEXT_ONLY if m in modules] == []


# What importing inspect imports: dataclasses imports inspect, which a check never reads (35 M instructions before the
# user's interpreter is started, valgrind --tool=callgrind, h175); gpudoctor.cli.fast defers it (gpudoctor.lazymodule).
INSPECTS_IMPORTS = ("ast", "dis", "tokenize")


@pytest.mark.parametrize("args", [["check"], ["check", "--format", "json"]])
def test_a_check_answered_without_typer_runs_no_inspect(args):
    modules = _imported_after(
        f"from gpudoctor.cli import main\ntry:\n    main({args!r})\nexcept SystemExit as exc:\n"
        "    assert exc.code in (0, 1), exc.code"
    )
    assert "gpudoctor.facts" in modules and "dataclasses" in modules  # the check ran, and dataclasses named inspect
    assert [m for m in INSPECTS_IMPORTS if m in modules] == []


def test_a_bare_check_imports_no_pathlib():
    # pathlib brings urllib.parse and ipaddress (15 M instructions of a bare check installed from a wheel: bench/README.md).
    # This environment's editable install imports it at start (its finder), so the child forgets it first: what the
    # check imports again is its own.
    modules = _imported_after(
        "for name in ('pathlib', 'urllib.parse', 'ipaddress'):\n    sys.modules.pop(name, None)\n"
        "from gpudoctor.cli import main\ntry:\n    main(['check'])\nexcept SystemExit as exc:\n    assert exc.code in (0, 1), exc.code"
    )
    # The check ran and printed. (gpudoctor.matrix.load imported pathlib for every check once; a bare check of a machine
    # whose facts ask the matrix nothing no longer imports the matrix at all.)
    assert "gpudoctor.checks.toolkit" in modules and "gpudoctor.render.terminal" in modules
    assert [m for m in ("pathlib", "urllib.parse", "ipaddress") if m in modules] == []


def test_a_bare_check_imports_no_typing():
    # typing was 13 M instructions of a bare check (bench/README.md, h161): its modules take TYPE_CHECKING, Any, IO
    # and cast for type checkers only, and probed.Found is generic for them only. The child forgets typing first,
    # should anything at start have imported it: what the check imports again is its own.
    modules = _imported_after(
        "sys.modules.pop('typing', None)\n"
        "from gpudoctor.cli import main\ntry:\n    main(['check'])\nexcept SystemExit as exc:\n    assert exc.code in (0, 1), exc.code"
    )
    assert "gpudoctor.checks.toolkit" in modules and "gpudoctor.render.terminal" in modules  # the check ran, and printed
    assert "typing" not in modules


# Module-level patterns that a check of a Linux machine compiles only where their text turns up (gpudoctor.lazypattern):
# Windows' DLL and toolkit folder names, the soname of a TensorRT runtime a pasted loader error names.
LAZY_ON_LINUX = (
    ("gpudoctor.probes.windows", "_DLL"),
    ("gpudoctor.probes.windows", "_TOOLKIT_FOLDER"),
    ("gpudoctor.checks.libraries", "_TENSORRT_SONAME"),
)


def test_a_bare_check_on_linux_compiles_no_windows_or_pasted_tensorrt_pattern():
    compiled = "\n".join(
        f"print('{module}.{name}', sys.modules['{module}'].{name}._compiled is not None, file=sys.stderr)"
        for module, name in LAZY_ON_LINUX
    )
    code = (
        "import sys\nfrom gpudoctor.cli import main\ntry:\n    main(['check'])\nexcept SystemExit as exc:\n"
        "    assert exc.code in (0, 1), exc.code\n" + compiled
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUDOCTOR_")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.strip().splitlines()[-len(LAZY_ON_LINUX) :]
    assert lines == [f"{module}.{name} False" for module, name in LAZY_ON_LINUX]


# Compiled at import: one bytes pattern (LazyPattern is for text). Every other module-level pattern of the modules a
# check imports is a LazyPattern: 56 of the 67 compiled at import were never used by a bare check here, 24.6 M
# instructions of its 365 M (bench/README.md); a check compiles those it uses where it first uses them. (The
# environment's CUDA_PATH_Vx_y names were compiled at import too, before the user's interpreter was started: now only
# where a name begins with their literal, gpudoctor.host.ENV_PATTERNS, h242.)
COMPILED_AT_IMPORT = {
    "gpudoctor.bounded._STRING_IN_SHAPE",
}


def test_the_modules_a_bare_check_imports_compile_no_other_pattern_at_import():
    code = (
        "import re, sys\nfrom gpudoctor.cli import main\ntry:\n    main(['check'])\nexcept SystemExit as exc:\n"
        "    assert exc.code in (0, 1), exc.code\n"
        "held = lambda v: any(isinstance(x, re.Pattern) for x in (v if isinstance(v, tuple) else (v,)))\n"
        "names = [f'{n}.{a}' for n, m in list(sys.modules.items()) if n.startswith('gpudoctor') "
        "for a, v in vars(m).items() if held(v)]\n"
        "print(' '.join(sorted(names)), file=sys.stderr)"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUDOCTOR_")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    assert set(done.stderr.strip().splitlines()[-1].split()) == COMPILED_AT_IMPORT


def test_a_check_of_an_empty_venv_builds_no_record_class_only_other_findings_use(tmp_path):
    # A venv with no framework and no companion (VIRTUAL_ENV, read from its files): what the user's packages would
    # bring in (companions' facts) stays out, so the list holds on any machine without a GPU driver's finding.
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    modules = _imported_after(
        "from gpudoctor.cli import main\ntry:\n    main(['check'])\nexcept SystemExit as exc:\n    assert exc.code in (0, 1), exc.code",
        VIRTUAL_ENV=str(venv),
    )
    assert "gpudoctor.checks.extensions" in modules and "gpudoctor.checks.libraries" in modules  # their checks ran
    assert [m for m in NEVER_IN_AN_EMPTY_VENV if m in modules] == []
    from gpudoctor.trust import library_for_root, running_as_root

    if running_as_root() and library_for_root("libnvidia-ml.so.1") is None:
        # As root NVML's library is loaded only from a root-owned system directory (host/nvml.py): none here, so
        # NVML is answered without ctypes.
        assert "ctypes" not in modules


# Imported by a live check only after it has started the user's interpreter (gpudoctor.cli.check): that start-up is
# the other leg of the check, and these were 23 M instructions before it (bench/README.md, h151).
AFTER_THE_START = ("gpudoctor.model", "gpudoctor.pipeline", "gpudoctor.probes", "gpudoctor.planner", "typing")


@pytest.mark.parametrize(
    ("args", "also_after"),
    [
        # (--format F is checked against the table of formats first: gpudoctor.cli.fast)
        (["check", "--format", "json"], ()),
        # The format's row and its record class: read when the result is rendered (h161).
        (["check"], ("gpudoctor.render.formats",)),
    ],
)
def test_a_check_starts_the_users_interpreter_before_it_imports_its_request_the_probes_and_typing(tmp_path, args, also_after):
    # A python3 on PATH that only its start can answer for (a script, in no layout whose files tell its packages).
    python3 = tmp_path / "python3"
    python3.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    python3.chmod(0o755)
    spy = (
        "import subprocess\nat_start = []\nstart = subprocess.Popen._execute_child\n"
        "def spied(self, args, *rest):\n"
        f"    if args[0] == {str(python3)!r} and not at_start:\n"
        "        at_start.append(' '.join(sorted(sys.modules)))\n"
        "    return start(self, args, *rest)\n"
        "subprocess.Popen._execute_child = spied\n"
    )
    modules = _imported_after(  # (the modules at its start, on stderr's last line: the script ends there)
        spy + f"from gpudoctor.cli import main\ntry:\n    main({args!r})\nexcept SystemExit as exc:\n"
        "    assert exc.code in (0, 1), exc.code\nassert at_start, 'the interpreter was not started'\n"
        "print(at_start[0], file=sys.stderr)\nsys.exit(0)",
        PATH=f"{tmp_path}{os.pathsep}{os.environ.get('PATH', '')}",
        VIRTUAL_ENV="",  # (neither names the environment: python3 on PATH is the one)
        CONDA_PREFIX="",
    )
    assert "gpudoctor.host.live" in modules and "gpudoctor.host.pyask" in modules
    assert [m for m in AFTER_THE_START + also_after if m in modules] == []


def test_the_proc_driver_version_parser_imports_packaging_only_for_an_aarch64_module():
    x86 = (
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 01:44:30 UTC 2024\n"
        "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n"
    )
    jetson = "NVRM version: NVIDIA UNIX aarch64 Kernel Module  35.3.1  Tue Mar 14 09:13:59 PDT 2023\n"
    parse = "from gpudoctor.parsers.proc_driver_version import parse_proc_driver_version as p\n"
    modules = _imported_after(parse + f"assert p({x86!r}).flavor == 'proprietary'")
    assert "packaging.version" not in modules
    modules = _imported_after(parse + f"assert p({jetson!r}).flavor == 'jetson'")
    assert "packaging.version" in modules  # the L4T release read as a version, as before


@pytest.mark.parametrize("args", [["check"], ["check", "--format", "json"]])
def test_a_simple_check_reads_neither_locale_nor_signal(args):
    # subprocess imports both; a check asks no encoding of locale (its runner reads bytes) and stops no program, so
    # their placeholders (gpudoctor.lazymodule, cli.fast) are never read: 6 M instructions before the user's interpreter
    # is started (bench/README.md, h226).
    code = (
        f"import sys\nfrom gpudoctor.cli import main\ntry:\n    main({args!r})\nexcept SystemExit as exc:\n"
        "    assert exc.code in (0, 1), exc.code\n"
        "print(type(sys.modules['locale']).__name__, type(sys.modules['signal']).__name__, file=sys.stderr)"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUDOCTOR_")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "_Deferred _Deferred"


def test_a_check_imports_its_plan_and_renderer_while_the_probes_wait():
    # What a check imports once the probes have answered (the planner's modules every check builds its plan with, the
    # text renderer and its console) is imported in the checks' import thread, once the checks' modules are: on a live
    # machine that overlaps the user's interpreter's start-up, not the critical path after its answer (bench/README.md,
    # h242). Here on a recorded machine (replayed: nothing runs), with the renderer's import the command line passes.
    code = (
        "import json, sys, threading\n"
        "from gpudoctor.host.replay import ReplayHost\n"
        "from gpudoctor.host.snapshot import validate_snapshot\n"
        "from gpudoctor.pipeline import CheckRequest, check\n"
        "from gpudoctor.cli.check import _import_renderer\n"
        "done, seen = threading.Event(), {}\n"
        "def ahead():\n"
        "    _import_renderer('text')\n"
        "    seen['thread'] = threading.current_thread() is not threading.main_thread()\n"
        "    seen['modules'] = sorted(m for m in sys.modules if m.startswith(('gpudoctor.planner.', 'gpudoctor.render.')))\n"
        "    done.set()\n"
        "snapshot = json.load(open('tests/machines/rtx4090-torch212-vllm-healthy/snapshot.json', encoding='utf-8'))\n"
        "result = check(ReplayHost(validate_snapshot(snapshot)), CheckRequest(), ahead=ahead)\n"
        "assert done.wait(60)\n"
        "print(json.dumps(seen), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    import json

    seen = json.loads(done.stderr.strip().splitlines()[-1])
    assert seen["thread"] is True  # not the main thread, where Ctrl-C lands (gpudoctor.doctor._import_checks)
    for module in (
        "gpudoctor.planner.deciders",
        "gpudoctor.planner.offers",
        "gpudoctor.planner.prescribe",
        "gpudoctor.planner.resume",
        "gpudoctor.planner.where",
        "gpudoctor.render.formats",
        "gpudoctor.render.terminal",
        "gpudoctor.render.textconsole",
    ):
        assert module in seen["modules"], module


def test_a_live_host_keeps_each_toolkits_cuda_path_and_no_near_miss():
    # Windows' CUDA installer sets CUDA_PATH_V<major>_<minor> per toolkit (tests/unit/test_windows_checks.py reads them);
    # the pattern is compiled only for a name with its literal prefix (gpudoctor.host.ENV_PATTERNS), and the names it
    # does not match stay out: a third number, a letter, a name that only holds the prefix.
    from gpudoctor.host.live import LiveHost

    environ = {
        "CUDA_PATH": "C:\\CUDA\\v12.4",
        "CUDA_PATH_V12_4": "C:\\CUDA\\v12.4",
        "CUDA_PATH_V11_8": "C:\\CUDA\\v11.8",
        "CUDA_PATH_V12_4_1": "x",
        "CUDA_PATH_V12_X": "x",
        "MY_CUDA_PATH_V12_4": "x",
        "HOME": "/root",
    }
    kept = LiveHost(environ=environ).env()
    assert {k for k in kept if k.startswith(("CUDA_PATH", "MY_"))} == {"CUDA_PATH", "CUDA_PATH_V12_4", "CUDA_PATH_V11_8"}
