"""The catalogue of the stack's messages (catalogue.toml): each message, what it implies, what to ask, and its source.

Data, not code: a message the stack prints is added to catalogue.toml with its source and a real example, and
`match` turns its occurrences in pasted text into ErrorEvidence of the kind it names (the kinds the checks
read, gpudoctor.parsers.error_texts, or those gpudoctor.checks.catalogued judges). docs/pasted.md shows the
coverage per source.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from gpudoctor.parsers.anchors import Lines, Need, required
from gpudoctor.parsers.error_texts import ErrorEvidence

# Text read for messages: a paste's first 4 MiB (bounded like every input; messages sit in the first pages).
MAX_CHARS = 4 * 1024 * 1024
MAX_LINE = 20_000


@dataclass(frozen=True)
class Message:
    id: str
    pattern: re.Pattern[str]
    joined: bool
    evidence: str
    means: str
    ask: tuple[tuple[str, ...], ...]  # argv each; "|" starts the pipe stage
    decides: str
    source: dict[str, str]
    example: str
    unless: tuple[str, ...] = ()  # evidence kinds that, shown beside it, already decide what its asks would
    # What each ask decides, in the order of `ask` (where several share `decides`, each says its own part of it: a
    # reader told the same sentence twice cannot tell the two answers apart); empty where `decides` is one ask's.
    each: tuple[str, ...] = ()
    # Values the message implies without printing them (its source's condition: flash-attn's "Ampere or newer" is
    # compute capability 8.0), given to its evidence beside the pattern's groups.
    values: tuple[tuple[str, str], ...] = ()
    # What the failure is about, where that is not the program's build: "device", the GPU's own state (its compute mode,
    # the processes holding it) or which GPUs the process is given (a device index it does not have): no framework's
    # build, package list or interpreter decides anything of it (gpudoctor.pasted.ask leaves those asks out where every
    # failure shown is such a message's, the message's own asks kept).
    subject: str = ""


@functools.cache
def _load() -> dict:
    import sys

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # tomli, a dependency on Python 3.10 only
        import tomli as tomllib

    return tomllib.loads((Path(__file__).with_name("catalogue.toml")).read_text(encoding="utf-8"))


@functools.cache
def messages() -> tuple[Message, ...]:
    """The catalogue, loaded once (a malformed entry is a bug in the package: it raises)."""
    data = _load()
    out = []
    for raw in data["message"]:
        out.append(
            Message(
                id=raw["id"],
                pattern=re.compile(raw["pattern"], re.IGNORECASE),
                joined=bool(raw.get("joined", False)),
                evidence=raw["evidence"],
                means=raw["means"],
                ask=tuple(tuple(argv) for argv in raw.get("ask", ())),
                decides=raw.get("decides", ""),
                source=dict(raw["source"]),
                example=raw["example"],
                unless=tuple(raw.get("unless", ())),
                values=tuple(sorted((str(k), str(v)) for k, v in raw.get("values", {}).items())),
                each=tuple(raw.get("each", ())),
                subject=str(raw.get("subject", "")),
            )
        )
        if out[-1].each and len(out[-1].each) != len(out[-1].ask):
            raise ValueError(f"catalogue.toml: {raw['id']}: `each` has {len(out[-1].each)} texts for {len(out[-1].ask)} asks")
    return tuple(out)


def decides_each(message: Message) -> tuple[str, ...]:
    """What each of the message's asks decides, in order: its own text, else the message's shared one."""
    return message.each or (message.decides,) * len(message.ask)


@dataclass(frozen=True)
class Component:
    """A component a paste names (catalogue.toml's [[component]]) and the outputs that decide what it leaves open."""

    id: str
    pattern: re.Pattern[str]
    ask: tuple[tuple[str, ...], ...]  # anywhere; argv each, "|" starts the pipe stage
    ask_windows: tuple[tuple[str, ...], ...]
    ask_linux: tuple[tuple[str, ...], ...]
    ask_container: tuple[tuple[str, ...], ...]  # where the paste shows it started from an image
    # where the paste shows no service manager running (facts.NO_SERVICE_MANAGER): its server started by hand, in
    # place of ask_linux's journal of a unit that never ran
    ask_unmanaged: tuple[tuple[str, ...], ...]
    when: tuple[tuple[str, tuple[tuple[str, ...], ...], str], ...]  # (error kind shown, the asks it adds, what they decide)
    framework: str  # the framework whose shown build answers the asks ("" for none)
    decides: str
    source: dict[str, str]
    min_cc: str = ""  # the lowest compute capability any release of it runs on (its source says so)
    unless: tuple[str, ...] = ()  # evidence kinds that, shown, already decide what its asks would (as a message's)
    # What each ask of a list decides ("each" for "ask", "each_windows" for "ask_windows" ...), as a message's `each`
    each: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # Asked only where the paste shows a failure somebody hit: a component named in every healthy report of its kind
    # (an orchestrator's, the GPU Operator's pods) whose reads decide a failure, not that the report is fine.
    failing: bool = False

    def decides_each(self, asks: str) -> tuple[str, ...]:
        """What each ask of the list `asks` ("ask", "ask_windows" ...) decides, in order: its own, else the shared."""
        own = dict(self.each).get(asks, ())
        return own or (self.decides,) * len(getattr(self, asks))


@functools.cache
def components() -> tuple[Component, ...]:
    data = _load()
    asks = ("ask", "ask_windows", "ask_linux", "ask_container", "ask_unmanaged")
    return tuple(
        Component(
            id=raw["id"],
            pattern=re.compile(raw["pattern"], re.IGNORECASE | re.ASCII),
            **{k: tuple(tuple(argv) for argv in raw.get(k, ())) for k in asks},
            when=tuple((w["kind"], tuple(tuple(argv) for argv in w["ask"]), w["decides"]) for w in raw.get("when", ())),
            framework=raw.get("framework", ""),
            decides=raw["decides"],
            source=dict(raw["source"]),
            min_cc=raw.get("min_cc", ""),
            unless=tuple(raw.get("unless", ())),
            each=_each(raw, asks),
            failing=bool(raw.get("failing", False)),
        )
        for raw in data.get("component", ())
    )


def _each(raw: dict, asks: tuple[str, ...]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """A component's own texts per ask list (each_windows for ask_windows ...), checked against the list's length."""
    out = []
    for k in asks:
        texts = tuple(raw.get(k.replace("ask", "each", 1), ()))
        if texts and len(texts) != len(raw.get(k, ())):
            raise ValueError(f"catalogue.toml: {raw['id']}: {k.replace('ask', 'each', 1)} does not match {k}")
        if texts:
            out.append((k, texts))
    return tuple(out)


def by_id(entry: str) -> Message | None:
    return next((m for m in messages() if m.id == entry), None)


@functools.cache
def _needs() -> tuple[Need, ...]:
    """Each message's required texts (gpudoctor.parsers.anchors), in messages() order: found at the first match, not at import."""
    return tuple(required(m.pattern.pattern, m.pattern.flags) for m in messages())


def match(text: str) -> list[ErrorEvidence]:
    """Each catalogued message found in `text`, once per message, as ErrorEvidence carrying its catalogue id.

    Lines are searched one by one (each cut at MAX_LINE), the first line that matches giving the evidence; a
    message is searched only on the lines that hold one of its required texts (anchors.Lines), which cannot
    change which line matches first. A `joined` message is also searched in the text with its line breaks turned
    into spaces, since terminals and forums wrap long messages. Never raises on content.
    """
    if not isinstance(text, str):
        return []
    text = text[:MAX_CHARS]
    lines = [line[:MAX_LINE] for line in text.splitlines()]
    index = Lines(lines)
    joined: str | None = None
    joined_index: Lines | None = None
    out: list[ErrorEvidence] = []
    for message, need in zip(messages(), _needs(), strict=True):
        found = None
        for i in index.holding(need):
            if found := message.pattern.search(lines[i]):
                where = lines[i]
                break
        # A joined message's optional part may sit on the lines after its first (Triton's "Possible files are located
        # at [...]" under "libcuda.so cannot found!"): the wrapped text is read where the line left a group empty.
        if message.joined and (found is None or None in found.groupdict().values()):
            if joined is None:
                joined = re.sub(r"\s*\n\s*", " ", text)
                joined_index = Lines([joined])
            # (a required text holds no line break, so the joined text holds it where a match could start)
            more = message.pattern.search(joined) if joined_index is not None and joined_index.holding(need) else None
            if more is not None and (found is None or sum(map(bool, more.groups())) > sum(map(bool, found.groups()))):
                found = more
                where = joined[found.start() : found.end()]  # the message from its start: provenance finds the line it starts on
        if found is not None:
            values = {k: v.strip() for k, v in found.groupdict().items() if v}
            for k, v in message.values:
                values.setdefault(k, v)  # (a group the message printed wins)
            values["entry"] = message.id
            out.append(ErrorEvidence(message.evidence, where.strip()[:300], tuple(sorted(values.items()))))
    return out


def coverage_table() -> str:
    """docs/pasted.md's coverage table: per source repository, its files (with commit) and the messages read."""
    by_repo: dict[str, list[Message]] = {}
    for m in messages():
        by_repo.setdefault(m.source["repo"], []).append(m)
    rows = ["| Source | Files (commit) | Messages (catalogue ids) |", "|---|---|---|"]
    for repo in sorted(by_repo, key=str.lower):
        ms = by_repo[repo]
        files = sorted({f"`{m.source['path']}`" + (f" @{m.source['commit'][:8]}" if m.source.get("commit") else "") for m in ms})
        rows.append(f"| {repo} | {', '.join(files)} | {', '.join('`' + m.id + '`' for m in ms)} |")
    return "\n".join(rows)
