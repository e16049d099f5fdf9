"""The head lists (tests/pasted/head/*.toml that record figures: PyTorch's side, the libraries beyond the frameworks,
the applications, containers/clusters/Windows/WSL): every message is sourced, reported in at least three public
threads, has a real paste, and gets from that paste alone the figure the list records (`after`, judged by
tests/pasted/head/figures.py against the expectation written from the threads)."""

from __future__ import annotations

import re

import pytest

from tests.pasted.head.figures import FIGURES, HERE, entries, judge

# Each list and the least number of messages it holds (what its helper committed to: README.md there).
LISTS = {"pytorch.toml": 40, "libraries.toml": 20, "applications.toml": 13, "platforms.toml": 10}
MESSAGES = [(name, m) for name in LISTS for m in entries(HERE / name)]


def _id(item) -> str:
    return f"{item[0].removesuffix('.toml')}:{item[1]['id']}"


@pytest.mark.parametrize("name", LISTS)
def test_the_list_is_the_head(name):
    ids = [m["id"] for m in entries(HERE / name)]
    assert len(ids) >= LISTS[name] and len(set(ids)) == len(ids)


@pytest.mark.parametrize("item", MESSAGES, ids=_id)
def test_message_is_sourced_and_reported(item):
    _, message = item
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


@pytest.mark.parametrize("item", MESSAGES, ids=_id)
def test_figure_is_what_the_list_records(item):
    assert judge(item[1]).figure == item[1]["after"]
