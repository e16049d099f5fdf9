"""Hostile options, files, environment variables and program output for every command.

Same judgement as test_corpus.py: no traceback, no "unexpected error", a documented exit status,
nothing a terminal would obey in the output; JSON output (where asked) parses.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.hostile.corpus import BASES, PAYLOADS, load_base
from tests.hostile.test_corpus import assert_clean_run, run_cli

MACHINE = str(Path(__file__).resolve().parent.parent / "machines" / "gt1030-desktop-memory-held" / "snapshot.json")
P = list(PAYLOADS.items())


# --- options ----------------------------------------------------------------------------------


def _option_cases():
    out = []
    for name, v in P:
        out += [
            (f"explain/{name}", ("explain", v)),
            (f"require/{name}", ("check", "--replay", MACHINE, "--require", v)),
            (f"require-json/{name}", ("check", "--replay", MACHINE, "--require", f"torch>={v}", "--format", "json")),
            (f"ignore/{name}", ("check", "--replay", MACHINE, "--ignore", v)),
            (f"node/{name}", ("check", "--replay", MACHINE, "--node", v, "--format", "junit")),
            (f"python/{name}", ("check", "--replay", MACHINE, "--python", v)),
            (f"install-version/{name}", ("install", "torch", v, "--replay", MACHINE, "--dry-run")),
            (f"install-index/{name}", ("install", "torch", "--replay", MACHINE, "--dry-run", "--index-url", v)),
            (f"install-pip-arg/{name}", ("install", "jax", "--replay", MACHINE, "--dry-run", f"--pip-arg={v}")),
            (f"switch-cuda/{name}", ("switch-cuda", v, "--replay", MACHINE, "--dry-run")),
            (f"switch-cuda-shell/{name}", ("switch-cuda", v, "--shell")),
            (f"memory-plan-name/{name}", ("memory", "plan", "--replay", MACHINE, f"{v}=1GiB:torch")),
            (f"memory-plan-size/{name}", ("memory", "plan", "--replay", MACHINE, f"job={v}")),
            (f"memory-plan-framework/{name}", ("memory", "plan", "--replay", MACHINE, f"job=1GiB:{v}")),
            (f"matrix-dir/{name}", ("matrix", "show", "--matrix", v)),
            (f"replay-path/{name}", ("check", "--replay", v)),
            (f"probe-timeout/{name}", ("check", "--replay", MACHINE, "--probe-timeout", v)),
        ]
    return out


OPTION_CASES = _option_cases()


@pytest.mark.parametrize("argv", [c[1] for c in OPTION_CASES], ids=[c[0] for c in OPTION_CASES])
def test_hostile_option(argv):
    code, out, err = run_cli(*argv)
    assert_clean_run(code, out, err, " ".join(a[:40] for a in argv))
    if "--format" in argv and argv[argv.index("--format") + 1] == "json" and code != 2:
        json.loads(out)


# --- files other commands read -------------------------------------------------------------------


def _report(node: str, title: str) -> dict:
    return {
        "schema": "gpudoctor.report/1",
        "tool_version": "0.1.0",
        "host_mode": "live",
        "status": "error",
        "exit_code": 1,
        "node": node,
        "findings": [
            {
                "code": "driver-missing",
                "severity": "error",
                "area": "driver",
                "title": title,
                "detail": title,
                "evidence": [{"source": title, "value": title}],
                "remediation": None,
                "sources": [],
            }
        ],
        "facts": {"driver": {"version": title}},
        "timings_s": {},
        "internal_errors": [],
    }


@pytest.mark.parametrize("name", list(PAYLOADS))
def test_report_merge_with_hostile_reports(name, tmp_path):
    payload = PAYLOADS[name]
    (tmp_path / "a.json").write_text(json.dumps(_report("node-a" + payload, "t" + payload)), encoding="utf-8")
    (tmp_path / "b.json").write_text(json.dumps(_report("node-b", "fine")), encoding="utf-8")
    (tmp_path / "c.json").write_text("{ not json" + payload, encoding="utf-8")
    for fmt in ("text", "json"):
        code, out, err = run_cli("report", "merge", str(tmp_path), "--format", fmt)
        assert_clean_run(code, out, err, f"report merge {name} {fmt}")
        assert code in (1, 3), "an unreadable report is reported, not ignored"
        if fmt == "json":
            json.loads(out)


UNUSABLE = {
    "fifo": None,
    "directory": None,
    "empty": "",
    "binary": "\x00\x01\x02\xff",
    "nan": '{"format": "gpudoctor-snapshot/1", "nvml": NaN}',
    "huge-number": '{"format": "gpudoctor-snapshot/1", "nvml": {"status": "ok", "devices": [{"memory_total": 1e999}]}}',
    "escape-in-error": '{"format": "\\u001b]0;owned\\u0007"}',
}


@pytest.mark.parametrize("kind", list(UNUSABLE))
@pytest.mark.parametrize("command", ["check", "memory", "install", "bench", "merge", "matrix"])
def test_unusable_input_files(kind, command, tmp_path):
    path = tmp_path / "input.json"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    else:
        path.write_text(UNUSABLE[kind], encoding="utf-8", errors="surrogateescape")
    argv = {
        "check": ("check", "--replay", str(path), "--format", "json"),
        "memory": ("memory", "--replay", str(path), "--format", "json"),
        "install": ("install", "torch", "--replay", str(path), "--dry-run", "--format", "json"),
        "bench": ("bench", "bandwidth", "--results", str(path), "--format", "json"),
        "merge": ("report", "merge", str(path), "--format", "json"),
        "matrix": ("matrix", "check", str(path)),
    }[command]
    code, out, err = run_cli(*argv)
    assert_clean_run(code, out, err, f"{command} {kind}")
    assert code != 0, f"{command} accepted an unusable {kind} file"
    if "--format" in argv and code != 2:
        doc = json.loads(out)
        assert doc.get("error") or doc.get("unreadable") or doc.get("status"), doc


# --- environment variables and program output on the live machine --------------------------------

ENV_NAMES = (
    "CUDA_HOME",
    "CUDA_PATH",
    "CUDA_VISIBLE_DEVICES",
    "LD_LIBRARY_PATH",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "TF_FORCE_GPU_ALLOW_GROWTH",
    "XLA_PYTHON_CLIENT_MEM_FRACTION",
    "NVIDIA_VISIBLE_DEVICES",
)


@pytest.mark.parametrize("var", ENV_NAMES)
def test_hostile_environment_variables(var):
    for name in ("dollar-paren", "osc52-clipboard", "newline", "gh-commands", "bidi"):
        code, out, err = run_cli("check", "--format", "json", "--probe-timeout", "5", env={var: "/x" + PAYLOADS[name]})
        assert_clean_run(code, out, err, f"{var}={name}")
        json.loads(out)


def _shim(bin_dir: Path, name: str, body: str) -> None:
    p = bin_dir / name
    p.write_text("#!/bin/sh\n" + body, encoding="utf-8")
    p.chmod(p.stat().st_mode | stat.S_IXUSR)


@pytest.mark.parametrize("name", ["osc-title", "osc52-clipboard", "gh-commands", "xml-break", "rich-markup", "nul", "long"])
def test_hostile_program_output(name, tmp_path):
    """nvidia-smi, nvcc and lspci shims on PATH whose output carries the payload."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    payload = PAYLOADS[name].replace("'", "")
    xml = (
        '<?xml version="1.0" ?><nvidia_smi_log><driver_version>535.86.05'
        + payload.replace("<", "").replace("&", "")
        + "</driver_version><cuda_version>12.2</cuda_version><attached_gpus>1</attached_gpus>"
        '<gpu id="00000000:01:00.0"><product_name>GPU'
        + payload.replace("<", "").replace("&", "")
        + "</product_name></gpu></nvidia_smi_log>"
    )
    _shim(bin_dir, "nvidia-smi", f"printf '%s\\n' '{xml}'\n")
    _shim(bin_dir, "nvcc", f"printf '%s\\n' 'Cuda compilation tools, release 12.2{payload}, V12.2.140'\n")
    _shim(bin_dir, "lspci", f"printf '%s\\n' '01:00.0 VGA compatible controller [0300]: NVIDIA {payload} [10de:2684]'\n")
    env = {"PATH": f"{bin_dir}:{os.environ.get('PATH', '/usr/bin:/bin')}"}
    for fmt in ("text", "json"):
        code, out, err = run_cli("check", "--format", fmt, "--probe-timeout", "5", env=env)
        assert_clean_run(code, out, err, f"program output {name} {fmt}")


# --- fuzzed snapshots (hypothesis) ----------------------------------------------------------------

_json_leaf = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=30))
_json = st.recursive(
    _json_leaf,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=12), inner, max_size=4)),
    max_leaves=20,
)
_KEYS = ("files", "commands", "env", "python", "nvml", "platform", "dirs")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
# Keyword strategies: positional ones would fill the rightmost parameters, the fixture among them.
@given(sections=st.dictionaries(st.sampled_from(_KEYS), _json, max_size=4), slug=st.sampled_from(BASES[:4]))
def test_fuzzed_snapshot_sections(tmp_path_factory, sections, slug):
    snap = {**load_base(slug), **sections}
    path = tmp_path_factory.mktemp("fuzz") / "snapshot.json"
    path.write_text(json.dumps(snap), encoding="utf-8", errors="surrogatepass")
    code, out, err = run_cli("check", "--replay", str(path), "--format", "json")
    assert_clean_run(code, out, err, f"fuzz {slug} {sorted(sections)}")
    json.loads(out)


@pytest.mark.parametrize(
    "argv",
    [
        ("snapshot", "-o", "/nonexistent-gpudoctor-dir/x.json"),
        ("snapshot", "-o", "/"),
        ("bench", "bandwidth", "--plot", "/nonexistent-gpudoctor-dir/x.svg"),
    ],
)
def test_an_output_file_that_cannot_be_written_is_a_usage_error_before_any_work(argv):
    code, out, err = run_cli(*argv)
    assert code == 2, (code, out, err)
    assert_clean_run(code, out, err, " ".join(argv))
    assert err.startswith("gpudoctor: error: ") and len(err.strip().splitlines()) == 2  # the error and its hint


@pytest.mark.parametrize("value", ["0", "-1", "nan"])
def test_a_probe_time_limit_that_would_call_every_probe_hung_is_refused(value):
    # 0 or less would time every probe out at once and print false "probe hung" findings.
    code, out, err = run_cli("check", "--probe-timeout", value)
    assert code == 2 and "--probe-timeout" in err, (code, out, err)
