"""Bad input to every command, through the real entry point (gpudoctor.cli.main, its handler included).

Each row is a command line with one mistake in it. Every one is refused before anything runs: exit 2
(docs/exit-codes.md), no traceback, and stderr in the one house form of a usage error —

    gpudoctor: error: <one line naming the problem>
    hint: <what to do>               (where there is a hint)

— whether click found the mistake (an unknown option, a value not in a choice) or gpudoctor did.
With --format json the command also prints its JSON error document, valid against its schema.
"""

from __future__ import annotations

import json

import pytest

from tests.hostile.test_corpus import run_cli
from tests.schemas import assert_valid

# Usage errors click finds and gpudoctor's own, and -h on every command: typer's and click's surface, run under the
# oldest and newest typer and rich too (tests/packaging/test_dependency_range.py).
pytestmark = pytest.mark.typer_rich

SNAP = "tests/machines/a100-mig-two-instances/snapshot.json"

# (command line, the first stderr line contains, the hint line contains or None: no hint expected)
BAD = [
    # the top level
    (("chek",), "No such command 'chek'. Did you mean 'check'?", "gpudoctor --help lists the options"),
    (("--verbose",), "No such option: --verbose", "gpudoctor --help"),
    # check
    (("check", "--bogus"), "No such option: --bogus", "gpudoctor check --help lists the options"),
    (("check", "--format", "jsn"), "Invalid value for '--format': 'jsn' is not one of 'text', 'json', 'github', 'junit'", None),
    (("check", "--fail-on", "fatal"), "'fatal' is not one of 'error', 'warning', 'info'", None),
    (("check", "--replay", SNAP, "--ignore", "gpu-nonee"), "--ignore gpu-nonee: not a finding code", "did you mean 'gpu-none'?"),
    (
        ("check", "--replay", SNAP, "--ignore", "GPU-NONE", "--ignore", "nope"),
        "--ignore nope: not a finding code",
        "explain --list",
    ),
    (("check", "--python", "/nonexistent/python"), "--python /nonexistent/python: no such file", "name an interpreter"),
    (("check", "--python", "/bin/ls"), "--python /bin/ls: not a Python interpreter", "name an interpreter"),
    (("check", "--python", "/usr"), "--python /usr: is a directory, not an interpreter", "name an interpreter"),
    (("check", "--replay", SNAP, "--probe-timeout", "0"), "0.0 is not a time limit: give at least 0.1 seconds", None),
    (("check", "--replay", "/no/such/snap.json"), "no such snapshot file: /no/such/snap.json", "gpudoctor snapshot -o FILE"),
    (("check", "--replay", SNAP, "--matrix", "/no/such/matrix"), "no such matrix file or directory: /no/such/matrix", None),
    (("check", "--replay", SNAP, "--require", "torch>>2"), "Invalid value for '--require': malformed version condition", None),
    (("check", "--replay"), "Option '--replay' requires an argument", "gpudoctor check --help"),
    (("check", "--from", "/no/such/paste.txt"), "no such text file: /no/such/paste.txt", None),
    (("check", "--from", "-", "--replay", SNAP), "--from and --replay both name what to diagnose: give one of them", None),
    (("check", "--from"), "Option '--from' requires an argument", "gpudoctor check --help"),
    (("check", "--from", "-", "--deep"), "--deep probes this machine; --from reads pasted text", None),
    (("snapshot", "-o", "-", "--from", "/no/such/paste.txt"), "no such text file: /no/such/paste.txt", None),
    # explain
    (("explain", "driver-mising"), "unknown finding code 'driver-mising'", "did you mean 'driver-missing'?"),
    (("explain", "zzzz"), "unknown finding code 'zzzz'", "gpudoctor explain --list lists every code"),
    (("explain",), "explain: missing the finding CODE", "explain --list"),
    (("explain", "--list", "gpu-none"), "explain: give a CODE or --list, not both", None),
    # memory and memory plan
    (("memory", "--format", "yaml"), "Invalid value for '--format' / '-f': 'yaml' is not one of 'text', 'json'", None),
    (("memory", "--count", "0"), "Invalid value for '--count'", "gpudoctor memory --help"),
    (("memory", "--replay", SNAP, "--probe-timeout", "-1"), "-1.0 is not a time limit", None),
    (("memory", "plan", "--replay", SNAP, "a=1GiB:torc"), "unknown framework 'torc' in 'a=1GiB:torc'", "did you mean 'torch'?"),
    (("memory", "plan", "--replay", SNAP, "a=5"), "the size in 'a=5' needs a unit", "such as a=5GiB"),
    (("memory", "plan", "--gpu", "-1", "a=1GiB"), "Invalid value for '--gpu'", "gpudoctor memory plan --help"),
    (
        ("memory", "plan", "--replay", SNAP, "--matrix", "/no/such/m", "a=1GiB"),
        "no such matrix file or directory: /no/such/m",
        None,
    ),
    # install and fix
    (("install", "torc", "--replay", SNAP), "'torc' is not one of 'torch', 'tensorflow', 'jax'; did you mean 'torch'?", None),
    (
        ("install", "keras", "--replay", SNAP),
        "'keras' is not a framework; it runs on tensorflow: gpudoctor install tensorflow",
        None,
    ),
    (("install", "torch", "--python", "/bin/ls"), "--python /bin/ls: not a Python interpreter", "name an interpreter"),
    (("install", "torch", "--use", "conda", "--replay", SNAP), "'conda' is not one of 'pip', 'uv'", "gpudoctor install --help"),
    (("install", "torch", "--replay", SNAP, "--yes"), "--replay plans for a recorded machine and never installs", None),
    (("install", "torch", "--matrix", "/no/such/m", "--replay", SNAP), "no such matrix file or directory: /no/such/m", None),
    (("fix", "--python", "/nonexistent/python"), "--python /nonexistent/python: no such file", "name an interpreter"),
    (("fix", "--replay", SNAP, "--yes"), "--replay lists fixes for a recorded machine and never changes it", None),
    # switch-cuda
    (("switch-cuda", "11.x"), "not a CUDA version: '11.x'", "gpudoctor switch-cuda --help"),
    (("switch-cuda", "--list", "12"), "--list takes no VERSION, --shell or --dry-run", None),
    # bench bandwidth
    (("bench", "bandwidth", "--tests", "h2x"), "--tests: unknown test 'h2x'", "did you mean 'h2d'?"),
    (("bench", "bandwidth", "--gpu", "x"), "--gpu takes 'all' or device numbers such as 0,1; not 'x'", None),
    (("bench", "bandwidth", "--plot", "chart.pdf"), "--plot chart.pdf: the file name must end in .png or .svg", None),
    (("bench", "bandwidth", "--results", "/no/such/r.json"), "no such bandwidth results file: /no/such/r.json", None),
    (("bench", "bandwidth", "--repeats", "0"), "Invalid value for '--repeats'", None),
    # report merge
    (("report", "merge", "/no/such/report.json"), "no such report file or directory: /no/such/report.json", None),
    (("report", "merge", "--fail-on", "fatal", "x.json"), "--fail-on: 'fatal' is not one of 'error', 'warning', 'info'", None),
    (("report", "merge"), "Missing argument 'REPORT.json... | DIR'", "gpudoctor report merge --help"),
    # matrix
    (("matrix", "show", "cudaa"), "unknown matrix section 'cudaa'", "did you mean 'cuda'?"),
    (("matrix", "check", "/no/such/dir"), "no such matrix file or directory: /no/such/dir", None),
    # snapshot
    (
        ("snapshot", "-o", "/no/such/dir/x.json"),
        "--output /no/such/dir/x.json: the folder /no/such/dir does not exist",
        "create it",
    ),
    (("snapshot", "-o", "-", "--python", "/bin/ls"), "--python /bin/ls: not a Python interpreter", "name an interpreter"),
    # completion
    (("completion", "tcsh"), "'tcsh' is not one of 'bash', 'zsh', 'fish', 'powershell'", None),
]


@pytest.mark.parametrize(("argv", "message", "hint"), BAD, ids=[" ".join(row[0]) or "(none)" for row in BAD])
def test_bad_input_exits_2_with_one_line(argv, message, hint):
    code, out, err = run_cli(*argv)
    assert code == 2, f"exit {code}\n{err}"
    assert "Traceback" not in err + out
    lines = err.splitlines()
    assert lines, "nothing on stderr"
    assert lines[0].startswith("gpudoctor: error: "), err
    assert message in lines[0], err
    # At most the message and its hint: never click's "Usage: ..." block, never a list of every value.
    assert len(lines) <= 2, err
    if hint is not None:
        assert len(lines) == 2 and lines[1].startswith("hint: ") and hint in lines[1], err
    assert out == "", f"stdout of a text-mode usage error: {out[:500]}"


# (command line with --format json, the message it names) — the document is the command's own.
BAD_JSON = [
    (("check", "-f", "json", "--bogus"), "No such option: --bogus"),
    (("check", "--format=json", "--replay", SNAP, "--ignore", "gpu-nonee"), "--ignore gpu-nonee: not a finding code"),
    (("check", "-f", "json", "--python", "/bin/ls"), "--python /bin/ls: not a Python interpreter"),
    (("check", "-f", "json", "--replay", SNAP, "--matrix", "/no/such/m"), "no such matrix file or directory"),
    (("memory", "-f", "json", "--count", "0"), "Invalid value for '--count'"),
    (("memory", "plan", "-f", "json", "--replay", SNAP, "a=1GiB:torc"), "unknown framework 'torc'"),
    (("install", "torc", "-f", "json", "--replay", SNAP), "did you mean 'torch'?"),
    (("install", "torch", "-f", "json", "--python", "/nonexistent/python"), "--python /nonexistent/python: no such file"),
    (("bench", "bandwidth", "-f", "json", "--tests", "h2x"), "--tests: unknown test 'h2x'"),
    (("bench", "bandwidth", "-f", "json", "--warmup", "-1"), "Invalid value for '--warmup'"),
    (("report", "merge", "-f", "json", "/no/such/report.json"), "no such report file or directory"),
    (("report", "merge", "-f", "json", "--bogus", "x.json"), "No such option: --bogus"),
]


@pytest.mark.parametrize(("argv", "message"), BAD_JSON, ids=[" ".join(row[0]) for row in BAD_JSON])
def test_bad_input_under_json_prints_the_error_document(argv, message):
    code, out, err = run_cli(*argv)
    assert code == 2, f"exit {code}\n{err}"
    assert err.splitlines()[0].startswith("gpudoctor: error: ") and message in err.splitlines()[0], err
    doc = json.loads(out)
    assert doc["exit_code"] == 2
    assert message in doc["error"]["message"]
    assert_valid(doc, " ".join(argv))


def test_github_format_gets_its_error_annotation():
    code, out, err = run_cli("check", "--format", "github", "--fail-on", "fatal")
    assert code == 2
    assert out.startswith("::error title=gpudoctor-failed::Invalid value for '--fail-on': 'fatal' is not one of")
    assert err.splitlines()[0].startswith("gpudoctor: error: Invalid value for '--fail-on'")


@pytest.mark.parametrize(
    "argv",
    [
        ("-h",),
        ("check", "-h"),
        ("explain", "-h"),
        ("memory", "-h"),
        ("memory", "plan", "-h"),
        ("install", "-h"),
        ("fix", "-h"),
        ("switch-cuda", "-h"),
        ("bench", "-h"),
        ("bench", "bandwidth", "-h"),
        ("report", "merge", "-h"),
        ("matrix", "show", "-h"),
        ("snapshot", "-h"),
        ("completion", "-h"),
    ],
)
def test_dash_h_is_help_everywhere(argv):
    code, out, err = run_cli(*argv)
    assert code == 0, err
    assert out.startswith(f"Usage: gpudoctor {' '.join(argv[:-1])}".rstrip()), out[:200]
    assert "-h, --help" in out


def test_explain_is_case_insensitive_and_lists_codes():
    code, out, _ = run_cli("explain", "DRIVER-MISSING")
    assert code == 0 and out.startswith("# `driver-missing`")
    code, out, _ = run_cli("explain", "--list", env={"COLUMNS": "80"})
    codes = [line.split()[0] for line in out.splitlines()]
    assert code == 0 and "driver-missing" in codes and "gpu-none" in codes and codes == sorted(codes)


def test_explain_list_gives_each_code_its_pages_first_sentence_within_the_width():
    """Issue 31, item 9: `explain --list` with titles, each line within the terminal's width."""
    from gpudoctor.cli.common import all_codes
    from gpudoctor.cli.explain import page_title

    for width in ("80", "120"):
        code, out, _ = run_cli("explain", "--list", env={"COLUMNS": width})
        lines = out.splitlines()
        assert code == 0 and [line.split()[0] for line in lines] == sorted(all_codes())
        for line in lines:
            assert len(line) <= int(width), line
            name, rest = line.split(None, 1)
            title = page_title(name)
            assert title and (rest == title or (rest.endswith("...") and title.startswith(rest[:-3]))), (name, rest)
    assert page_title("driver-missing") == "An NVIDIA GPU is on the PCI bus, but no NVIDIA kernel driver is loaded"


def test_ignore_is_case_insensitive():
    # The A100 snapshot has one info note, mig-enabled: ignored in capitals, it is gone.
    code, out, err = run_cli("check", "--replay", SNAP, "--format", "json", "--ignore", "MIG-ENABLED")
    assert code == 0, err
    assert "mig-enabled" not in [f["code"] for f in json.loads(out)["findings"]]


@pytest.mark.parametrize(("alias", "title"), [("pytorch", "PyTorch"), ("PyTorch", "PyTorch"), ("tf", "TensorFlow")])
def test_install_takes_the_framework_names_memory_plan_takes(alias, title):
    code, out, err = run_cli("install", alias, "--replay", SNAP)
    assert code == 0, err
    assert out.startswith(f"{title} ")
    code, out, err = run_cli("memory", "plan", "--replay", SNAP, f"job=1GiB:{alias}")
    assert code == 0, err
    assert f"job            {title}" in out
