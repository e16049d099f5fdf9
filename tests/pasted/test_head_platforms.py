"""The head of the side of containers, clusters, Windows and WSL (tests/pasted/head/platforms.toml): every message is
sourced, reported in at least three public threads, has a real paste, and gets from that paste alone the figure the
list records (`after`, judged by tests/pasted/head/figures.py against the expectation written from the threads)."""

from __future__ import annotations

import re

import pytest

from tests.pasted.head.figures import FIGURES, HERE, entries, judge

LIST = HERE / "platforms.toml"
MESSAGES = entries(LIST)


def test_the_list_is_the_head():
    # each id once; the side's most-reported messages the session could source and find three threads for
    ids = [m["id"] for m in MESSAGES]
    assert len(ids) >= 10 and len(set(ids)) == len(ids)


@pytest.mark.parametrize("message", MESSAGES, ids=lambda m: m["id"])
def test_message_is_sourced_and_reported(message):
    source = message["source"]
    assert source["repo"].count("/") == 1 and source["path"] and source["quote"], source
    assert source["checked"] in ("mirror", "index", "thread"), source
    if source["checked"] != "thread":
        assert re.fullmatch(r"[0-9a-f]{40}", source["commit"]), source
    threads = message["threads"]
    assert len(set(threads)) == len(threads) >= 3
    assert all(re.fullmatch(r"https://github\.com/[\w.-]+/[\w.-]+/(issues|pull)/\d+", t) for t in threads)
    for i in message["inputs"]:
        assert i["from"] in threads and (HERE / i["file"]).is_file()
    assert message["first"] in FIGURES and message["after"] in FIGURES


@pytest.mark.parametrize("message", MESSAGES, ids=lambda m: m["id"])
def test_figure_is_what_the_list_records(message):
    assert judge(message).figure == message["after"]
