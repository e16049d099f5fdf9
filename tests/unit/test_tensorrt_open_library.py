"""TensorRT's DynamicLibrary message off Windows, "Unable to open library: NAME due to " + dlerror(), quoted without
dlerror's reason (as issue titles and summaries do): the file after "due to" is the one the loader could not open.
Real lines: DDTRobot/tita_rl#2 and NVIDIA/TensorRT#3061 (titles); NVIDIA/TensorRT#3402 (a path there: a file found
that does not load, no missing soname)."""

from __future__ import annotations

import pytest

from gpudoctor.pasted import Source, read_pasted


def _missing(text: str) -> set[str]:
    snap = read_pasted([Source("t", text)])
    return {e["values"]["soname"] for e in snap["pasted"]["errors"] if e["kind"] == "library-missing"}


@pytest.mark.parametrize(
    ("line", "soname"),
    [
        ("Unable to open library: libnvinfer_plugin.so.8 due to libcudnn.so.8", "libcudnn.so.8"),
        ("Unable to open library: libnvinfer_plugin.so.8 due to libcublas.so.11", "libcublas.so.11"),
        (
            "[E] Uncaught exception detected: Unable to open library: libnvinfer_plugin.so.8 due to libcudnn.so.8”的报错",
            "libcudnn.so.8",
        ),
    ],
)
def test_the_file_after_due_to_is_the_missing_one(line, soname):
    assert _missing(line) == {soname}


def test_a_path_after_due_to_is_a_file_found_not_a_missing_soname():
    line = (
        "[10/25/2023-11:34:04] [E] Uncaught exception detected: Unable to open library: libnvinfer_plugin.so.8 due to "
        "/home/cwang/work/depend/TensorRT-8.6.0.12/targets/x86_64-linux-gnu/lib/libnvinfer_plugin.so.8: file too short"
    )
    assert _missing(line) == set()
