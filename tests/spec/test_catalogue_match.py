"""gpudoctor.parsers.catalogue.match, stated from its docstrings and catalogue.toml's header: each message is found
"case-insensitive, matched on each line"; a `joined` message is "also searched in the text with its line breaks
turned into spaces, since terminals and forums wrap long messages", and read there where the line left a group
empty; the values it captures are kept without the spaces around them. Asserted on the evidence's fields.
"""

from __future__ import annotations

from gpudoctor.parsers.catalogue import match


def _found(text: str, entry: str) -> dict[str, str]:
    (ev,) = [e for e in match(text) if e.get("entry") == entry]
    return dict(ev.values)


def test_a_message_is_found_whatever_its_letters_case():
    for text in (
        "Torch not compiled with CUDA enabled",
        "TORCH NOT COMPILED WITH CUDA ENABLED",
        "torch not compiled with cuda enabled",
    ):
        assert [e.get("entry") for e in match(text)] == ["torch-not-compiled-with-cuda"], text


def test_a_joined_message_wrapped_after_its_first_line_is_read_whole_from_the_wrapped_text():
    # Triton's "libcuda.so cannot found!" with the optional "Possible files are located at [...]" on the next lines.
    text = "RuntimeError: libcuda.so cannot found!\nPossible files are located at [\n'/usr/lib/wsl/lib/libcuda.so.1']\n"
    values = _found(text, "triton-libcuda-so-missing")
    assert values["located"] == "/usr/lib/wsl/lib/libcuda.so.1"
    assert "located" not in _found("RuntimeError: libcuda.so cannot found!\n", "triton-libcuda-so-missing")


def test_a_captured_value_is_kept_without_the_spaces_around_it():
    text = 'Could not find registered platform with name: "cuda". Available platform names are: Host Interpreter\n'
    assert _found(text, "xla-no-cuda-platform")["names"] == "Host Interpreter"
