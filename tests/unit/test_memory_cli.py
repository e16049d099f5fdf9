"""`gpudoctor memory` and `gpudoctor memory plan` through typer, on recorded machines; and the --watch loop."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from gpudoctor.memory import render
from gpudoctor.memory.view import MemoryView
from tests.conftest import real_app

# memory's options, its rich views and the --watch loop (rich's Live): run under the oldest and newest typer and
# rich too (tests/packaging/test_dependency_range.py).
pytestmark = pytest.mark.typer_rich

MACHINES = Path(__file__).resolve().parents[1] / "machines"


def snap(slug: str) -> str:
    return str(MACHINES / slug / "snapshot.json")


def cli():
    return real_app()


def invoke(*args: str):
    return CliRunner().invoke(cli(), ["memory", *args])


def invoke_wide(*args: str):
    """On a terminal 200 columns wide: every line of the view unwrapped (80 and 120: tests/unit/test_memory_width.py)."""
    return CliRunner().invoke(cli(), ["memory", *args], env={"COLUMNS": "200"})


def test_help_names_the_options():
    r = invoke("--help")
    assert r.exit_code == 0
    for option in ("--watch", "--interval", "--count", "--replay", "--format", "--pid", "--python", "plan"):
        assert option in r.stdout
    r = invoke("plan", "--help")
    assert r.exit_code == 0
    for option in ("--gpu", "--isolate", "--replay", "--format", "NAME=SIZE[:FRAMEWORK]"):
        assert option in r.stdout


def test_view_of_the_workstation():
    r = invoke_wide("--replay", snap("rtx4000ada-tf-beside-torch-job"))
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines() == [
        "GPU 0  NVIDIA RTX 4000 SFF Ada Generation  3.45 GiB used of 20.00 GiB, 16.10 GiB free  [nvidia-smi]",
        "      PID  USER       TYPE     MEMORY  FRAMEWORK  COMMAND",
        "     3190  alice      G       451 MiB  -          /usr/share/code/code --type=gpu-process",
        "     1842  alice      G       410 MiB  -          cosmic-comp",
        "    34626  -          C+G     183 MiB  -          /usr/lib/chromium/chromium",
        "           (not recorded in the snapshot)",
        "     4937  alice      C       160 MiB  torch      python train.py --epochs 90",
        "  2.28 GiB used by no listed process (processes of other containers, or the driver's own)",
    ]


def test_view_of_a_gpu_split_by_mig():
    r = invoke_wide("--replay", snap("h100-mig-four-instances"))
    assert r.exit_code == 0
    assert r.stdout.splitlines()[:3] == [
        "GPU 0  NVIDIA H100 80GB HBM3  59 MiB used of 79.65 GiB, 79.59 GiB free  [nvidia-smi]  MIG on, 4 instance(s)",
        "  MIG 0 GI 2/CI 0  26 MiB used of 39.50 GiB, 39.47 GiB free  60 SMs",
        "  MIG 1 GI 3/CI 0  17 MiB used of 19.62 GiB, 19.61 GiB free  32 SMs",
    ]


def test_a_gpu_held_by_others_exits_1():
    r = invoke_wide("--replay", snap("gt1030-desktop-memory-held"))
    assert r.exit_code == 1
    assert (
        r.stdout.splitlines()[-1]
        == "  ! 43% of GPU 0 is held: a new job may run out of memory (gpudoctor explain gpu-memory-held)"
    )


def test_view_json():
    r = invoke("--replay", snap("t4-jax-beside-tf-notebook"), "--format", "json")
    assert r.exit_code == 0
    doc = json.loads(r.stdout)
    assert (doc["schema"], doc["exit_code"], doc["host_mode"]) == ("gpudoctor.memory/1", 0, "replay")
    (gpu,) = doc["gpus"]
    assert (gpu["name"], gpu["total_bytes"], gpu["free_bytes"]) == ("Tesla T4", 15360 * 2**20, 13939 * 2**20)
    assert [(p["pid"], p["user"], p["framework"]) for p in gpu["processes"]] == [
        (5762, "jovyan", "tensorflow"),
        (675, None, None),
    ]


def test_no_gpu_is_one_sentence_and_exit_3(tmp_path):
    path = tmp_path / "empty.json"
    path.write_text(json.dumps({"format": "gpudoctor-snapshot/1"}))
    r = invoke("--replay", str(path))
    assert r.exit_code == 3 and r.stdout == ""
    assert r.stderr.splitlines() == [
        "gpudoctor: error: No NVIDIA GPU could be read (NVML: library_not_found; nvidia-smi is not installed).",
        "hint: gpudoctor check says why",
    ]
    r = invoke("plan", "x=1GiB", "--replay", str(path), "--format", "json")
    assert r.exit_code == 3
    doc = json.loads(r.stdout)
    assert (
        doc["schema"] == "gpudoctor.memory-plan/1"
        and doc["exit_code"] == 3
        and doc["error"]["message"].startswith("No NVIDIA GPU")
    )


def test_a_missing_snapshot_is_exit_2_without_traceback(tmp_path):
    r = invoke("--replay", str(tmp_path / "nope.json"))
    assert r.exit_code == 2  # a wrong argument (docs/exit-codes.md)
    assert r.stderr.splitlines()[0] == f"gpudoctor: error: no such snapshot file: {tmp_path / 'nope.json'}"
    assert "Traceback" not in r.output


def test_watch_draws_the_terminal_view_only():
    r = invoke("--watch", "--format", "json", "--replay", snap("h100-mig-four-instances"))
    assert r.exit_code == 2
    assert json.loads(r.stdout)["error"]["message"] == "--watch draws the terminal view; for JSON run without --watch"


def test_watch_with_a_count_ends_by_itself():
    r = invoke("--watch", "--count", "2", "--interval", "0", "--replay", snap("h100-load-tf-jax-configured"))
    assert r.exit_code == 0
    assert "GPU memory at " in r.stdout and "./gpu_burn -m 20% 600" in r.stdout


# --- the refresh loop, with an injected clock and sleep -----------------------------------------------------------


def _console() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=True, width=120, color_system=None), out


def test_watch_redraws_then_stops_after_the_count():
    reads, sleeps = [], []
    views = [MemoryView((), problem=f"frame {i}") for i in range(3)]

    def read():
        reads.append(1)
        return views[len(reads) - 1]

    console, out = _console()
    shown = render.watch(read, console, 1.5, iterations=3, sleep=sleeps.append, clock=lambda: "12:00:00")
    assert (shown, len(reads), sleeps) == (3, 3, [1.5, 1.5])  # no sleep after the last redraw
    text = out.getvalue()
    assert "frame 0" in text and "frame 2" in text and "GPU memory at 12:00:00 (Ctrl-C to stop)" in text


def test_ctrl_c_ends_the_watch_cleanly():
    calls = []

    def read():
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return MemoryView((), problem="ok")

    def sleep(_s):
        pass

    console, out = _console()
    assert render.watch(read, console, 2.0, sleep=sleep, clock=lambda: "t") == 2
    assert "ok" in out.getvalue()


def test_ctrl_c_during_the_sleep_ends_it_too():
    def sleep(_s):
        raise KeyboardInterrupt

    console, _ = _console()
    assert render.watch(lambda: MemoryView((), problem="x"), console, 2.0, sleep=sleep, clock=lambda: "t") == 1


# --- plan ---------------------------------------------------------------------------------------------------------


def test_plan_that_fits_prints_env_files_and_code():
    r = invoke("plan", "--gpu", "0", "bert=5GiB:torch", "resnet=7GiB:tensorflow", "--replay", snap("h100-load-tf-jax-configured"))
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines[:9] == [
        "Plan: 2 job(s) on GPU 0 (NVIDIA H100 80GB HBM3)",
        "  60.29 GiB free of 79.65 GiB now; 3 process(es) hold 19.33 GiB",
        "",
        "  JOB            FRAMEWORK         BUDGET  + OVERHEAD     = NEEDS",
        "  bert           PyTorch         5.00 GiB     512 MiB    5.50 GiB",
        "  resnet         TensorFlow      7.00 GiB    1.50 GiB    8.50 GiB",
        "  total                                                 14.00 GiB",
        "",
        "Fits: 14.00 GiB needed, 60.29 GiB free (46.29 GiB to spare).",
    ]
    assert "--- bert.env ---" in lines and "--- resnet: first lines of the program (TensorFlow) ---" in lines
    assert "torch.cuda.set_per_process_memory_fraction(0.062, device=0)" in lines


def test_plan_that_does_not_fit_exits_1_and_says_what_would():
    r = invoke("plan", "a=10GiB:torch", "b=4GiB:jax", "--replay", snap("t4-jax-beside-tf-notebook"))
    assert r.exit_code == 1
    assert "Does not fit: 15.50 GiB needed, 13.61 GiB free: 1.89 GiB short." in r.stdout
    assert "  - budgets cut to 86% fit: a=8859MiB b=3543MiB" in r.stdout


def test_plan_with_isolation_prints_the_mig_commands():
    r = invoke(
        "plan", "--isolate", "a=8GiB:torch", "b=16GiB:jax", "c=30GiB:other", "--replay", snap("h100-load-tf-jax-configured")
    )
    assert r.exit_code == 0, r.output
    assert "  sudo nvidia-smi mig -i 0 -cgi 1g.10gb,1g.20gb,3g.40gb -C" in r.stdout.splitlines()
    assert "  5 of 7 compute slices, 7 of 8 memory slices: fits" in r.stdout.splitlines()


def test_plan_json():
    r = invoke("plan", "x=2GiB:jax", "--format", "json", "--replay", snap("h100-mig-four-instances"))
    assert r.exit_code == 0
    doc = json.loads(r.stdout)
    assert (doc["schema"], doc["mode"], doc["fits"], doc["ok"]) == ("gpudoctor.memory-plan/1", "mig-instances", True, True)
    (job,) = doc["jobs"]
    assert job["mig_instance"] == {"device": 2, "gpu_instance_id": 9, "compute_instance_id": 0, "uuid": None}
    assert [e["name"] for e in job["env"]] == [
        "CUDA_VISIBLE_DEVICES",
        "XLA_PYTHON_CLIENT_MEM_FRACTION",
        "XLA_PYTHON_CLIENT_PREALLOCATE",
    ]
    assert doc["overheads"]["jax"]["measured_here"] is False


@pytest.mark.parametrize(
    "args, message",
    [
        (("bert",), "gpudoctor: error: cannot read the job 'bert'"),
        (("bert=5GiB", "--gpu", "4"), "gpudoctor: error: there is no GPU 4 on this machine (GPUs: 0)"),
    ],
)
def test_plan_usage_errors_are_one_sentence_and_exit_2(args, message):
    r = invoke("plan", *args, "--replay", snap("h100-load-tf-jax-configured"))
    assert r.exit_code == 2
    assert r.stderr.splitlines()[0] == message
    assert "Traceback" not in r.output


def test_a_budget_nothing_can_hold_fails_the_plan_and_says_so():
    r = invoke("plan", "server=4GiB:other", "--replay", snap("t4-jax-beside-tf-notebook"))
    assert r.exit_code == 1
    lines = r.stdout.splitlines()
    assert "The memory fits, but not every budget can be held as asked: see Isolation below." in lines
    assert "Isolation: no software setting caps server; GPU 0 (Tesla T4) has no MIG: give each such job its own GPU." in lines


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--pid", "4937", "--watch"), "gpudoctor: error: --pid reads the process once; run it without --watch"),
        (
            ("--python", "/usr/bin/python3"),
            "gpudoctor: error: --python says whose loader model --pid compares with: give --pid too",
        ),
    ],
)
def test_pid_usage_errors_are_one_sentence_and_exit_2(args, message):
    r = invoke(*args, "--replay", snap("rtx4000ada-tf-beside-torch-job"))
    assert r.exit_code == 2
    assert r.stderr.splitlines()[0] == message
