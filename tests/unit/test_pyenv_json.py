"""The probed interpreter writes its answer with gpudoctor.host.pyenv.to_json, not json (whose import costs a
distribution's python3 as much again as its start-up): what the check reads from that text must be what it read
from json.dumps' text, on a real interpreter's answer and on every kind of string a path or a name can hold."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpudoctor.host import pyenv


def _answer(call: str) -> str:
    """What a real interpreter prints given the probe's source (gpudoctor.host.pyask.start_via) and `call`."""
    with open(pyenv.__file__, encoding="utf-8") as fh:
        source = fh.read()
    done = subprocess.run([sys.executable, "-c", source + call], capture_output=True, timeout=60, check=True)
    return done.stdout.decode("ascii")  # ASCII whatever the pipe's encoding


def test_a_real_interpreter_answers_what_json_dumps_would_have_said():
    answer = json.loads(_answer(pyenv.SCRIPT_CALL))
    assert answer == json.loads(_answer("\nimport json\nprint(json.dumps(describe()))\n"))  # (the call before)
    assert answer["executable"] == sys.executable and answer["distributions"]


# Names and paths: printable ASCII, the characters JSON must escape, control characters, DEL, other planes and
# the lone low surrogates that os.listdir gives for a file name that is not UTF-8 (surrogateescape).
TEXT = st.text(
    alphabet=st.one_of(
        st.characters(min_codepoint=0, max_codepoint=0x7F),
        st.characters(blacklist_categories=()),
        st.sampled_from(["\udc80", "\udcff", '"', "\\", "\u2028", "\U0001f600"]),
    )
)


@given(TEXT, st.lists(TEXT, max_size=3), st.dictionaries(TEXT, TEXT, max_size=3))
def test_any_text_reads_back_as_json_dumps_text_does(text, items, mapping):
    value = {"executable": text, "site_packages": items, "distributions": mapping, text: tuple(items)}
    written = pyenv.to_json(value)
    assert written.isascii()
    assert json.loads(written) == json.loads(json.dumps(value))


def test_a_value_describe_never_gives_is_refused_not_written_otherwise():
    # (json.dumps would write 1 and None; describe() answers only text, so anything else is a mistake here)
    for value in ({1: "a"}, {"a": 1}, [None], 1.5):
        with pytest.raises(TypeError):
            pyenv.to_json(value)
