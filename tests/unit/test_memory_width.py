"""`gpudoctor memory` fits the terminal as `check` does, and `--watch` into a pipe writes every frame.

Every recorded machine's memory view at 80 and 120 columns: no line is wider, nothing is lost but the
end of long command lines (cut with an ellipsis, as before; JSON keeps them whole), and at a width
where every line fits the view is exactly the unwrapped one.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot
from gpudoctor.memory import render
from gpudoctor.memory.gather import read_memory
from gpudoctor.memory.view import MemoryView

MACHINES = Path(__file__).resolve().parents[1] / "machines"
SNAPSHOTS = sorted(p for p in MACHINES.glob("*/snapshot.json"))


def view_of(path: Path) -> MemoryView:
    return read_memory(ReplayHost(load_snapshot(str(path))), 5.0)


def words(lines: list[str]) -> list[str]:
    return " ".join(lines).split()


@pytest.mark.parametrize("path", SNAPSHOTS, ids=lambda p: p.parent.name)
@pytest.mark.parametrize("width", [80, 120])
def test_no_line_of_the_view_is_wider_than_the_terminal(path, width):
    view = view_of(path)
    wide = render.view_lines(view, now="12:00:00")
    lines = render.view_lines(view, now="12:00:00", width=width)
    assert all(len(line) <= width for line in lines), [line for line in lines if len(line) > width]
    if all(len(line) <= width for line in wide):
        assert lines == wide  # nothing to wrap: the very same view
    # Wrapping moves words, it drops none: the prose reads the same (command lines aside, which are cut).
    table_rows = [line for line in wide if line[:9].strip().isdigit()]
    prose = [line for line in wide if line not in table_rows]
    wrapped = [line for line in lines if not line[:9].strip().isdigit()]
    assert words(wrapped) == words(prose)


def test_a_long_command_line_is_cut_to_the_width_left_by_the_table():
    path = MACHINES / "rtx4000ada-tf-beside-torch-job" / "snapshot.json"
    lines = render.view_lines(view_of(path), width=80)
    code = next(line for line in lines if line.rstrip().endswith("--type=gpu-process"))
    assert len(code) <= 80 and "…/code --type=gpu-process" in code  # the directory cut, the program's name kept
    assert render.view_lines(view_of(path), width=120)[2].endswith("/usr/share/code/code --type=gpu-process")


@pytest.mark.parametrize(
    ("command", "width", "shown"),
    [
        # Issue 31: the directory alone ("/root/src/llama.cpp/build/bin…") named no program.
        ("/root/src/llama.cpp/build/bin/llama-server -m /m/q.gguf --port 8080", 40, "…/llama-server -m /m/q.gguf --port 8080"),
        (
            "/root/src/llama.cpp/build/bin/llama-server -m /models/qwen-32b.gguf --port 8080",
            40,
            "…/llama-server …wen-32b.gguf --port 8080",
        ),
        ("/root/src/llama.cpp/build/bin/llama-server", 16, "…/llama-server"),
        ("python3 train.py --epochs 10", 16, "python3 …ochs 10"),
        ("python3 train.py", 30, "python3 train.py"),
    ],
)
def test_a_cut_command_keeps_the_programs_name_and_its_end(command, width, shown):
    assert render._cut_command(command, width) == shown
    assert len(shown) <= width


def test_the_cli_wraps_to_the_terminal_width():
    from typer.testing import CliRunner

    from tests.conftest import real_app

    path = str(MACHINES / "gt1030-desktop-memory-held" / "snapshot.json")
    for columns in (80, 120):
        r = CliRunner().invoke(real_app(), ["memory", "--replay", path], env={"COLUMNS": str(columns)})
        assert r.exit_code == 1
        assert r.stdout.splitlines() and all(len(line) <= columns for line in r.stdout.splitlines())
        assert "gpudoctor explain gpu-memory-held" in " ".join(r.stdout.split())


class Pipe(io.StringIO):
    """A pipe as rich sees one (no terminal), that records what had reached it at each flush."""

    def __init__(self) -> None:
        super().__init__()
        self.flushed: list[str] = []

    def isatty(self) -> bool:
        return False

    def flush(self) -> None:
        self.flushed.append(self.getvalue())


def test_watch_into_a_pipe_writes_every_frame_as_it_is_read():
    pipe = Pipe()
    console = Console(file=pipe, width=80, color_system=None)
    frames = iter(MemoryView((), problem=f"frame {i}") for i in range(3))
    clock = iter(["12:00:00", "12:00:02", "12:00:04"])
    flushed_before_read: list[int] = []

    def read() -> MemoryView:
        flushed_before_read.append(pipe.flushed[-1].count("GPU memory at") if pipe.flushed else 0)
        return next(frames)

    shown = render.watch(read, console, 2.0, iterations=3, sleep=lambda s: None, clock=lambda: next(clock))
    assert shown == 3
    assert pipe.getvalue() == (
        "GPU memory at 12:00:00 (Ctrl-C to stop)\nframe 0\n\n"
        "GPU memory at 12:00:02 (Ctrl-C to stop)\nframe 1\n\n"
        "GPU memory at 12:00:04 (Ctrl-C to stop)\nframe 2\n"
    )
    # Each frame reached the pipe before the next was read, not all of them at the end.
    assert flushed_before_read == [0, 1, 2]


def test_memory_watch_piped_writes_each_frame():
    """The real command with its stdout a pipe (no terminal): three frames, each whole."""
    path = str(MACHINES / "h100-load-tf-jax-configured" / "snapshot.json")
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "COLUMNS")}
    done = subprocess.run(
        [sys.executable, "-m", "gpudoctor", "memory", "--watch", "--count", "3", "--interval", "0", "--replay", path],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    frames = done.stdout.split("\n\n")
    assert len(frames) == 3
    for frame in frames:
        assert frame.startswith("GPU memory at ") and "./gpu_burn -m 20% 600" in frame
