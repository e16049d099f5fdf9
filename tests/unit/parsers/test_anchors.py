"""The line-scan prefilter (gpudoctor.parsers.anchors): it never drops a line a pattern matches, and it bounds the work.

Nothing here is timed (a loaded machine would make it flaky): the work is counted, as regular-expression searches.
"""

from __future__ import annotations

import random
import re
import sys

import pytest

from gpudoctor.lazypattern import LazyPattern
from gpudoctor.parsers import catalogue
from gpudoctor.parsers.anchors import Lines, fold, required
from tests.pasted.bigpaste import big_paste, noise, real_reports


@pytest.mark.parametrize(
    ("pattern", "need"),
    [
        ("could not select device driver", ("could not select device driver",)),
        (r"libcuda\.so(?:\.1)?: cannot open", (": cannot open",)),  # the longer of two runs
        (r"(?:cuDNN|NVRTC)\d", ("cudnn", "nvrtc")),  # one of the branches' texts
        (r"CUDA error: (?:out of memory|an? \w+)", ("cuda error: ",)),
        (r"(?:abc|\d+)def", ("def",)),  # a branch without text: the run after it
        (r"(?:foo)?bar\s+\w+", ("bar",)),  # an optional group requires nothing
        (r"\d+\.\d+", ()),  # no text at all
        (r"a\sb\sc", ()),  # runs shorter than MIN_ANCHOR
        (r"[a-z]:\\\w", (":\\",)),  # a run as short as MIN_ANCHOR
        ("Gr\u00f6\u00dfe des Speichers", ("e des speichers",)),  # a character outside ASCII ends a run
    ],
)
def test_required_texts(pattern: str, need: tuple[str, ...]) -> None:
    assert required(pattern, re.IGNORECASE) == need


def test_fold_covers_every_character_an_ascii_letter_matches() -> None:
    """Every code point that an ASCII letter matches under re.IGNORECASE folds to that letter (so a line's fold holds
    every required text the pattern's match holds), checked against `re` itself on all of Unicode."""
    letter = re.compile("[a-z]", re.IGNORECASE)
    for code in range(sys.maxunicode + 1):
        c = chr(code)
        if letter.match(c):
            assert any(re.match(re.escape(a), c, re.IGNORECASE) for a in fold(c) if a.isascii()), hex(code)


def _lines_matching(pattern: re.Pattern[str], lines: list[str]) -> list[int]:
    return [i for i, line in enumerate(lines) if pattern.search(line)]


def _mixture(seed: int) -> list[str]:
    """Catalogue examples and noise, with the characters `re` folds to ASCII letters and line breaks of every kind."""
    rng = random.Random(seed)
    reports = [text for _, text in real_reports()]
    text = "\n".join(noise(rng, 30)) + "\n" + "\n".join(rng.sample(reports, 4))
    odd = ["\u0131", "\u017f", "\u0130", "\u212a", "\u00e9", "\u2028", "\r", "\x0b", "\ufffd", "\U0001f600"]
    chars = list(text)
    for _ in range(200):
        chars.insert(rng.randrange(len(chars)), rng.choice(odd))
    # Swap the case of some letters, or turn some into their look-alikes that IGNORECASE matches.
    swap = {"i": "\u0131", "s": "\u017f", "k": "\u212a", "I": "\u0130"}
    chars = [swap.get(c, c) if rng.random() < 0.02 else (c.swapcase() if rng.random() < 0.1 else c) for c in chars]
    return "".join(chars).splitlines()


@pytest.mark.parametrize("seed", range(6))
def test_prefilter_selects_every_line_the_full_scan_matches(seed: int) -> None:
    """For every catalogue message, the lines that hold one of its required texts include every line it matches."""
    lines = _mixture(seed)
    index = Lines(lines)
    for message in catalogue.messages():
        need = required(message.pattern.pattern, message.pattern.flags)
        held = set(index.holding(need))
        assert set(_lines_matching(message.pattern, lines)) <= held, message.id


def test_every_catalogue_message_requires_a_text() -> None:
    """No message is searched on every line: each requires a text of MIN_ANCHOR characters or more."""
    assert [m.id for m in catalogue.messages() if not required(m.pattern.pattern, m.pattern.flags)] == []


def test_match_gives_what_a_full_scan_gives_on_every_example() -> None:
    """catalogue.match finds, on each real report and on mixtures of them, the line a search of every line finds."""
    texts = [text for _, text in real_reports()] + ["\n".join(_mixture(seed)) for seed in range(4)]
    for text in texts:
        lines = [line[: catalogue.MAX_LINE] for line in text[: catalogue.MAX_CHARS].splitlines()]
        got = {e.get("entry"): e.line for e in catalogue.match(text)}
        for message in catalogue.messages():
            first = next((line for line in lines if message.pattern.search(line)), None)
            if first is not None and not message.joined:
                assert got.get(message.id) == first.strip()[:300], message.id
            elif first is not None:  # a wrapped message's fuller match in the joined text may stand for its line
                assert message.id in got, message.id


class _Counting:
    """A pattern that counts the searches made with it."""

    searches = 0

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self._pattern = pattern
        self.pattern, self.flags = pattern.pattern, pattern.flags

    def search(self, text: str, *args: int) -> re.Match[str] | None:
        _Counting.searches += 1
        return self._pattern.search(text, *args)


def test_a_two_megabyte_paste_costs_a_bounded_number_of_searches(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 2 MB paste of real reports between log noise: the catalogue's searches are a small fraction of a search of
    every message on every line (which was 239 x 27,000 lines: 6.4 million), and match returns (no hang)."""
    messages = tuple(m.__class__(**{**m.__dict__, "pattern": _Counting(m.pattern)}) for m in catalogue.messages())
    monkeypatch.setattr(catalogue, "messages", lambda: messages)
    text = big_paste(2_000_000, seed=3)
    lines = len(text.splitlines())
    _Counting.searches = 0
    found = catalogue.match(text)
    assert found  # the real reports in it are read
    assert _Counting.searches <= len(messages) * lines // 50, (_Counting.searches, lines)


def _line_patterns() -> list[tuple[str, re.Pattern[str] | LazyPattern]]:
    """Every module-level pattern of the modules that scan a paste line by line."""
    from gpudoctor.parsers import error_texts
    from gpudoctor.pasted import cues, workloads

    return [
        (f"{module.__name__}.{name}", value)
        for module in (error_texts, cues, workloads)
        for name, value in sorted(vars(module).items())
        if isinstance(value, LazyPattern) or (isinstance(value, re.Pattern) and isinstance(value.pattern, str))
    ]


def _every_report_line() -> list[str]:
    """The lines of every real report in the tests, then the same with cases swapped and look-alikes put in."""
    lines = [line for _, text in real_reports() for line in text.splitlines()]
    rng = random.Random(11)
    swap = {"i": "\u0131", "s": "\u017f", "k": "\u212a", "I": "\u0130"}
    mangled = [
        "".join(swap.get(c, c) if rng.random() < 0.02 else c.swapcase() if rng.random() < 0.1 else c for c in x) for x in lines
    ]
    return lines + mangled


def test_the_gate_keeps_every_line_each_scanning_pattern_matches() -> None:
    """Lines.may (what search, match and first ask) is true on every line a pattern of the line scans matches, on
    every line of the real reports (and a mangled copy of each)."""
    lines = _every_report_line()
    index = Lines(lines)
    patterns = _line_patterns()
    matched = 0
    for name, pattern in patterns:
        hits = [number for number, line in enumerate(lines) if pattern.search(line)]
        matched += bool(hits)
        assert all(index.may(pattern, number) for number in hits), name
    assert len(patterns) > 100
    assert matched > len(patterns) // 2  # most of them are exercised: the reports are where they come from


def test_first_is_the_first_line_a_scan_of_every_line_finds() -> None:
    lines = _every_report_line()
    index = Lines(lines)
    for name, pattern in _line_patterns():
        for match in (False, True):
            want = next(
                ((i, m.group(0)) for i, x in enumerate(lines) if (m := pattern.match(x) if match else pattern.search(x))), None
            )
            got = index.first(pattern, match=match)
            assert ((got[0], got[1].group(0)) if got else None) == want, name
