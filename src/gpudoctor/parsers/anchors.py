"""The fixed text a pattern cannot match without, and the lines of a text that hold it: a prefilter for line scans.

People paste whole training logs, dmesg, `docker logs` and journalctl (tens of thousands of lines), and the
catalogue's hundreds of patterns were each searched on every line: 30 s for a 2 MB paste (bench/paste_speed.py).
Most patterns require a fixed text ("could not select device driver"), and a line without one of a pattern's
required texts cannot match it: `Lines.holding` names the lines that hold one, in order, found by str.find over the
whole folded text (a C scan per text, not a regular expression per line). Searching only those lines gives the
same first match as searching every line; a pattern with no required text long enough is searched on every line.

Case: the catalogue's patterns are case-insensitive. A required text is kept in lower case and in ASCII only (a
character outside ASCII ends it), and each line is folded (`fold`) so that any character that an ASCII letter
matches under re.IGNORECASE becomes that letter: str.lower does it for all but two, which only `re`'s extra
case table pairs with an ASCII letter (CPython Lib/re/_casefix.py: U+0131 dotless i with i, U+017F long s with
s). tests/unit/parsers/test_anchors.py checks the fold against `re` on every code point.
"""

from __future__ import annotations

import bisect
import functools
import importlib
import re
import sys
from collections.abc import Sequence

from gpudoctor.lazypattern import LazyPattern

# The parser `re` compiles with (its module's name changed in Python 3.11; sre_parse is deprecated there).
_sre_parse = importlib.import_module("re._parser" if sys.version_info >= (3, 11) else "sre_parse")

# A required text shorter than this is held by nearly every line: one character selects nothing. Two do where they are
# rare (":\\" of a Windows path, "ii" of a dpkg row): on a 300 kB log the reader's searches fell from 21,016 to 8,806
# with 2 rather than 3 (tests/pasted/test_big_paste.py counts them); a common pair costs a set of line numbers, no more.
MIN_ANCHOR = 2
_REPEATS = ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")


def fold(line: str) -> str:
    """`line` in lower case, with every character that matches an ASCII letter under re.IGNORECASE made that letter."""
    # (str.replace, not str.translate: a translate table is read per character, in Python's slow path; U+0130, the
    # dotted capital I, matches "i" under re.IGNORECASE but lowers to two characters, "i" and a combining dot)
    return line.lower() if line.isascii() else line.replace("\u0131", "i").replace("\u0130", "i").replace("\u017f", "s").lower()


Need = tuple[str, ...]  # one of these texts is in every match (lower case, ASCII); () for no such set


def _score(need: Need) -> tuple[int, int]:
    # The shortest text decides how many lines hold one; fewer texts to look for break a tie.
    return (min(map(len, need)), -len(need)) if need else (-1, 0)


def _need(items: object) -> Need:
    """The best set of texts one of which every match of the parsed sequence `items` contains."""
    best: Need = ()
    run: list[str] = []

    def consider(need: Need) -> None:
        nonlocal best
        if need and _score(need) > _score(best):
            best = need

    def end_run() -> None:
        if run:
            consider(("".join(run),))
            run.clear()

    for op, av in items:  # type: ignore[attr-defined]
        name = str(op)
        if name == "LITERAL" and av < 128:
            run.append(chr(av).lower())
            continue
        end_run()  # anything else may match text of any case, any length or nothing at all: the run ends
        if name == "SUBPATTERN":
            consider(_need(av[-1]))
        elif name == "ATOMIC_GROUP":
            consider(_need(av))
        elif name in _REPEATS and av[0] >= 1:
            consider(_need(av[2]))
        elif name == "BRANCH":
            alternatives = [_need(branch) for branch in av[1]]
            if all(alternatives):
                consider(tuple(sorted({text for need in alternatives for text in need})))
    end_run()
    return best


@functools.cache
def required(pattern: str, flags: int = 0) -> Need:
    """Texts (lower case, ASCII), one of which is in every line `pattern` matches; () where no such set has only
    texts of MIN_ANCHOR characters or more (the pattern is then searched on every line)."""
    need = _need(_sre_parse.parse(pattern, flags))
    return need if need and min(map(len, need)) >= MIN_ANCHOR else ()


Pattern = re.Pattern[str] | LazyPattern


def _source(pattern: Pattern) -> tuple[str, int]:
    return pattern.source() if isinstance(pattern, LazyPattern) else (pattern.pattern, pattern.flags)


class Lines:
    """Lines of a text, folded and joined once; the lines that hold each required text, found once.

    `search(pattern, number)` and `match(pattern, number)` stand for `pattern.search(lines[number])` (and match) in a
    scan of every line with many patterns: a pattern is tried only on the lines that hold one of its texts.
    """

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = lines
        self._may: dict[Pattern, set[int] | None] = {}  # per pattern, the lines that may match it (None: every line)
        folded = [fold(line) for line in lines]
        self.count = len(folded)
        self._text = "\n".join(folded)  # a folded line holds no "\n": str.lower never makes one
        self._starts: list[int] = []
        at = 0
        for line in folded:
            self._starts.append(at)
            at += len(line) + 1
        self._held: dict[str, list[int]] = {}

    def _holding_text(self, text: str) -> list[int]:
        if (held := self._held.get(text)) is not None:
            return held
        held = []
        at = self._text.find(text)
        while at >= 0:
            i = bisect.bisect_right(self._starts, at) - 1
            held.append(i)
            # The next line: a line is listed once however often it holds the text.
            at = self._text.find(text, self._starts[i + 1]) if i + 1 < self.count else -1
        self._held[text] = held
        return held

    def holding(self, need: Need) -> Sequence[int]:
        """The lines that hold one of `need`'s texts, in order; every line where `need` is ()."""
        if not need:
            return range(self.count)
        if len(need) == 1:
            return self._holding_text(need[0])
        return sorted({i for text in need for i in self._holding_text(text)})

    def _lines_of(self, pattern: Pattern) -> set[int] | None:
        """The lines that may match `pattern` (None: every line), found at its first use."""
        if pattern not in self._may:
            need = required(*_source(pattern))
            self._may[pattern] = set(self.holding(need)) if need else None
        return self._may[pattern]

    def may(self, pattern: Pattern, number: int) -> bool:
        """Whether line `number` holds one of the texts `pattern` requires (always true where it requires none)."""
        held = self._may[pattern] if pattern in self._may else self._lines_of(pattern)
        return held is None or number in held

    # search and match repeat may's two lines: they run once per line and pattern, tens of thousands of times.
    def search(self, pattern: Pattern, number: int) -> re.Match[str] | None:
        held = self._may[pattern] if pattern in self._may else self._lines_of(pattern)
        return pattern.search(self.lines[number]) if held is None or number in held else None

    def match(self, pattern: Pattern, number: int) -> re.Match[str] | None:
        held = self._may[pattern] if pattern in self._may else self._lines_of(pattern)
        return pattern.match(self.lines[number]) if held is None or number in held else None

    def first(self, pattern: Pattern, *, match: bool = False) -> tuple[int, re.Match[str]] | None:
        """The number of the first line `pattern` finds something in (with `match`: matches at its start), and what it
        found; None where no line has it."""
        for number in self.holding(required(*_source(pattern))):
            if m := pattern.match(self.lines[number]) if match else pattern.search(self.lines[number]):
                return number, m
        return None
