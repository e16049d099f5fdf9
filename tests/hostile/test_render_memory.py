"""`gpudoctor memory` and `memory plan` with hostile machine data: a GPU name, UUID, user, process name
or command line can neither act on the terminal, nor forge a line of the view, nor add a variable to
an env file."""

from __future__ import annotations

import dataclasses
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from gpudoctor.cmdline import Unrenderable
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot
from gpudoctor.memory import render
from gpudoctor.memory.gather import read_memory
from gpudoctor.memory.plan import make_plan, parse_jobs
from gpudoctor.memory.settings import EnvLine, env_file
from gpudoctor.sanitize import clean_line, has_unsafe
from tests.hostile.strings import HOSTILE

MACHINES = Path(__file__).resolve().parents[1] / "machines"
HELD = "gt1030-desktop-memory-held"  # one GPU, ten processes holding memory
MIG = "h100-mig-four-instances"


def view(slug: str):
    return read_memory(ReplayHost(load_snapshot(str(MACHINES / slug / "snapshot.json"))), 1.0)


def poisoned(v, h: str):
    """Every machine-read text field of the view set to `h`."""
    gpus = []
    for g in v.gpus:
        holders = tuple(dataclasses.replace(x, name=h, user=h, command=f"python {h}", problem=h) for x in g.holders)
        instances = tuple(dataclasses.replace(m, uuid=h) for m in g.instances)
        gpus.append(dataclasses.replace(g, name=h, uuid=h, holders=holders, instances=instances))
    return dataclasses.replace(v, gpus=tuple(gpus))


def assert_lines_are_safe(lines: list[str]) -> None:
    for line in lines:
        assert "\n" not in line and not has_unsafe(line), repr(line)


@pytest.mark.parametrize("slug", [HELD, MIG])
@pytest.mark.parametrize("h", HOSTILE)
def test_view_lines_show_the_data_and_forge_no_line(slug, h):
    v = view(slug)
    lines = render.view_lines(poisoned(v, h))
    assert len(lines) == len(render.view_lines(v))  # no line added by the data
    assert_lines_are_safe(lines)
    assert lines[0].startswith(f"GPU 0  {clean_line(h)}  ")


@pytest.mark.parametrize("h", HOSTILE)
def test_watch_draws_no_escape_sequence_of_the_data(h):
    from rich.console import Console

    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=300, color_system="standard")
    render.watch(lambda: poisoned(view(HELD), h), console, 0.0, iterations=2, sleep=lambda s: None, clock=lambda: "12:00:00")
    text = out.getvalue()
    # Rich draws its own cursor moves (CSI); no OSC, BEL, C1 control or bidi override may come from the data.
    for bad in ("\x1b]", "\x07", "\x9b", "\u202e", "\x00", "\x1b[2K\x1b[1Aclear"):
        if bad in h:
            assert bad not in text, (bad, text[-400:])
    assert clean_line(h)[:20] in text


_BAD_UUIDS = [
    "GPU-1\nLD_PRELOAD=/tmp/x.so",
    "GPU-1\rLD_PRELOAD=/tmp/x.so",
    "GPU-1$(touch /tmp/x)",
    "GPU-1`touch /tmp/x`",
    'GPU-1"quoted"',
    "GPU-1'quoted'",
    "GPU-1\\",
    "GPU-1\x1b]52;c;ZXZpbA==\x07",
    "GPU-1\x00",
]


@pytest.mark.parametrize("uuid", _BAD_UUIDS)
def test_a_uuid_an_env_file_cannot_hold_gives_no_env_file(uuid):
    v = view(HELD)
    v = dataclasses.replace(v, gpus=(dataclasses.replace(v.gpus[0], uuid=uuid),))
    plan = make_plan(v, 0, parse_jobs(["a=100MiB:torch", "b=100MiB:jax"]))
    lines = render.plan_lines(plan)
    assert_lines_are_safe(lines)
    assert not any(line.startswith(("LD_PRELOAD", "CUDA_VISIBLE_DEVICES")) for line in lines)
    for job in ("a", "b"):
        at = lines.index(f"--- {job}.env ---")
        assert lines[at + 1].startswith("(no env file: CUDA_VISIBLE_DEVICES: an env file cannot hold "), lines[at + 1]
    with pytest.raises(Unrenderable):
        env_file(plan.jobs[0].settings.env)
    # JSON keeps the value as data.
    assert render.plan_document(plan, 0)["jobs"][0]["env"][0]["value"] == uuid


def test_a_real_uuid_gives_the_env_file():
    v = view(HELD)
    plan = make_plan(v, 0, parse_jobs(["a=100MiB:torch"]))
    lines = render.plan_lines(plan)
    at = lines.index("--- a.env ---")
    assert lines[at + 1 : at + 5] == [
        "# this job sees only this GPU (as device 0)",
        "CUDA_VISIBLE_DEVICES=GPU-857c6374-f681-cf3a-f99f-9063a87b8ac0",
        "# torch >= 2.10 only; older releases stop on it: use the code",
        "# PYTORCH_CUDA_ALLOC_CONF=per_process_memory_fraction:0.05",
    ]


def test_env_line_refuses_rather_than_writing_two_lines():
    with pytest.raises(Unrenderable, match="an env file cannot hold"):
        EnvLine("CUDA_VISIBLE_DEVICES", "GPU-1\nLD_PRELOAD=/tmp/x.so").lines()
    assert EnvLine("X", "1", active=False).lines() == ("# X=1",)


@pytest.mark.parametrize("h", HOSTILE)
def test_plan_lines_with_hostile_names(h):
    v = poisoned(view("h100-load-tf-jax-configured"), h)
    plan = make_plan(v, 0, parse_jobs(["a=80GiB:torch", "b=1GiB:other"]), isolate=True)
    assert_lines_are_safe(render.plan_lines(plan))


def test_the_cli_refuses_an_env_file_for_a_uuid_from_nvidia_smi(tmp_path):
    # nvidia-smi -q -x carries the UUID as XML text; &#10; is a newline once parsed.
    snap = json.loads((MACHINES / HELD / "snapshot.json").read_text(encoding="utf-8"))
    out = snap["commands"]["nvidia-smi -q -x"]
    out["stdout"] = out["stdout"].replace("GPU-857c6374-f681-cf3a-f99f-9063a87b8ac0", "GPU-857c&#10;LD_PRELOAD=/tmp/x.so")
    path = tmp_path / "snapshot.json"
    path.write_text(json.dumps(snap), encoding="utf-8")
    r = subprocess.run(
        [sys.executable, "-m", "gpudoctor", "memory", "plan", "a=100MiB:torch", "--replay", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert not any(line.startswith("LD_PRELOAD") for line in lines)
    assert (
        "(no env file: CUDA_VISIBLE_DEVICES: an env file cannot hold 'GPU-857c\\nLD_PRELOAD=/tmp/x.so'; "
        "nvidia-smi -L shows the real UUIDs)"
    ) in lines
