"""A GPU named in the reporter's words, read as the machine's (blind set 20's misreads): a name wrapped in Markdown's
emphasis keeps its suffix, a Volta or Pascal data-centre part is read without "Tesla", and a GPU the reporter only
means to try is not the machine's. Windows named by its release number is Windows. Short pastes in the shape of the
threads (tests/blind/plans20 cases 2016 and 2048), data asserted: the snapshot's devices and platform."""

from __future__ import annotations

import pytest

from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted


def _snapshot(text: str) -> dict:
    return validate_snapshot(read_pasted([Source("t", text)]), "t")


def _devices(text: str) -> list[tuple[str, str]]:
    nvml = _snapshot(text).get("nvml") or {}
    return [(d["name"], d["compute_capability"]) for d in nvml.get("devices", [])]


@pytest.mark.parametrize(
    ("said", "name"),
    [
        ("I need a CUDA capable GPU (I have a _GeForce GTX 1080 Ti_, no problem here)", "GeForce GTX 1080 Ti"),
        ("My card: *RTX 3060 Ti*.", "RTX 3060 Ti"),
        ("GPU: __RTX 4090__", "RTX 4090"),
    ],
)
def test_a_name_in_markdown_emphasis_is_read_whole(said, name):
    assert [n for n, _ in _devices(said + "\n")] == [name]


def test_an_identifier_holding_a_model_number_is_still_no_gpu():
    # an underscore inside a word is part of an identifier (a file, a variable), not emphasis
    assert _devices("saved to results_rtx_3090_fp16.csv and gtx_1080_runs/\n") == []


@pytest.mark.parametrize(
    ("said", "cc"), [("I only tried with V100... it's the GPU I usually use.", "7.0"), ("on a P100 node", "6.0")]
)
def test_a_volta_or_pascal_data_centre_part_is_read_without_tesla(said, cc):
    assert [c for _, c in _devices(said + "\n")] == [cc]


def test_a_gpu_the_reporter_will_try_later_is_not_the_machines():
    text = (
        "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
        "I only tried with V100... it's the GPU I usually use. I'll try A100 later.\n"
    )
    assert _devices(text) == [("V100", "7.0")]
    for said in ("I'm going to buy an RTX 4090 next month", "we will switch to H100 soon", "planning to upgrade to a 3090"):
        assert _devices(said + "\n") == [], said


@pytest.mark.parametrize("said", ["I have a 64-bit Windows version `1703`.", "on Windows 10 21H2 with the standard driver"])
def test_windows_named_by_its_release_number_is_windows(said):
    assert _snapshot(said + "\n")["platform"]["system"] == "Windows"


def test_a_year_beside_another_word_is_no_windows_release():
    assert _snapshot("Released in 2019 for Linux users; the window 1703 closed.\n")["platform"]["system"] != "Windows"
