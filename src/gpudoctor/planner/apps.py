"""The GPU applications' own image variants (apps.toml, the one source of truth): which image of which application a
text names, whether its tag carries the NVIDIA GPU libraries, and the application's tag that does.

Pure: text and names in, values out. The pasted reader asks `image_named` which application image a paste shows; the
containers' checks ask `variant_of` for the tag to offer.
"""

from __future__ import annotations

import functools
import os
import re
import sys

from gpudoctor.record import Record, record_class


@record_class(frozen=True, eq=False, repr=False)
class App(Record):
    """One catalogued application (apps.toml): how a paste names it, its image tags and what each carries."""

    id: str
    name: str
    repositories: tuple[str, ...]
    cpu_tag: re.Pattern[str]
    gpu_tag: str
    jetson_tag: str
    wants: re.Pattern[str]
    named: re.Pattern[str]
    symptom: re.Pattern[str]
    gpu_shown: re.Pattern[str] | None
    source: str


def _read_beside(name: str) -> str:
    # (os.path, not pathlib: a bare check imports no pathlib, tests/unit/test_check_imports.py)
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), name), encoding="utf-8") as fh:
        return fh.read()


@functools.cache
def _load() -> dict:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # tomli, a dependency on Python 3.10 only
        import tomli as tomllib

    return tomllib.loads(_read_beside("apps.toml"))


@functools.cache
def apps() -> tuple[App, ...]:
    """The catalogue, loaded once (a malformed entry is a bug in the package: it raises)."""
    return tuple(
        App(
            id=a["id"],
            name=a["name"],
            repositories=tuple(a["repositories"]),
            cpu_tag=re.compile(a["cpu_tag"]),
            gpu_tag=a["gpu_tag"],
            jetson_tag=a.get("jetson_tag", ""),
            wants=re.compile(a["wants"], re.IGNORECASE),
            named=re.compile(a["named"], re.IGNORECASE),
            symptom=re.compile(a["symptom"], re.IGNORECASE),
            gpu_shown=re.compile(a["gpu_shown"]) if "gpu_shown" in a else None,
            source=a["source"],
        )
        for a in _load()["app"]
    )


@functools.cache
def _image_ref() -> re.Pattern[str]:
    # A catalogued repository with its tag, an optional registry host before it (ghcr.io/, docker.io/): bounded, and
    # never part of a longer name (a fork's `myname/frigate` is not `blakeblackshear/frigate`).
    names = "|".join(re.escape(r) for a in apps() for r in a.repositories)
    # A compose file's tag may be a variable with its default (`${IMMICH_VERSION:-release}`): the default is the tag.
    return re.compile(
        rf"(?<![\w./-])(?P<name>(?:[a-z0-9][\w.-]{{0,60}}\.[a-z]{{2,10}}/)?(?P<repo>{names})):"
        r"(?:\$\{[A-Za-z_][\w]{0,40}:-(?P<default>[\w][\w.-]{0,40})\}|(?P<tag>[\w][\w.-]{0,80}))",
        re.IGNORECASE,
    )


@record_class(frozen=True, eq=False, repr=False)
class AppImage(Record):
    """An image of a catalogued application as a text names it, with its tag."""

    app: str  # its id
    ref: str  # the image as the text wrote it (registry/repository:tag)
    tag: str
    line: str


def image_named(text: str) -> AppImage | None:
    """The first image of a catalogued application the text names with its tag, or None."""
    if not any(r.split("/")[-1] in text.lower() for a in apps() for r in a.repositories):
        return None  # (the common case: no catalogued application named at all)
    for line in text.splitlines():
        if (m := _image_ref().search(line[:2_000])) is None:
            continue
        repo = m.group("repo").lower()
        app = next(a for a in apps() if repo in (r.lower() for r in a.repositories))
        tag = m.group("tag") or m.group("default")
        return AppImage(app=app.id, ref=f"{m.group('name')}:{tag}", tag=tag, line=line.strip()[:300])
    return None


@record_class(frozen=True, eq=False, repr=False)
class CpuMode(Record):
    """A catalogued application's own way to run on the CPU (its launcher's arguments), and how a paste shows it."""

    id: str
    name: str
    recognise: re.Pattern[str]
    unless: re.Pattern[str]
    args: tuple[str, ...]
    windows_file: str
    windows_line: str
    windows_start: tuple[str, ...]
    posix_start: tuple[str, ...]
    source: str


@functools.cache
def cpu_modes() -> tuple[CpuMode, ...]:
    return tuple(
        CpuMode(
            id=m["id"],
            name=m["name"],
            recognise=re.compile(m["recognise"], re.MULTILINE),
            unless=re.compile(m["unless"]),
            args=tuple(m["args"]),
            windows_file=m["windows_file"],
            windows_line=m["windows_line"],
            windows_start=tuple(m["windows_start"]),
            posix_start=tuple(m["posix_start"]),
            source=m["source"],
        )
        for m in _load()["cpu_mode"]
    )


def application_named(text: str) -> tuple[CpuMode, str] | None:
    """The catalogued application whose own text the paste shows (its launcher, its banner, its issue form), with the
    first line that shows it; None where none is, or where a fork that takes other options is named."""
    for mode in cpu_modes():
        if mode.unless.search(text):
            continue
        if (m := mode.recognise.search(text)) is not None:
            start = text.rfind("\n", 0, m.start()) + 1
            end = text.find("\n", m.end())
            return mode, text[start : end if end >= 0 else len(text)].strip()[:300]
    return None


@record_class(frozen=True, eq=False, repr=False)
class Standalone(Record):
    """A catalogued application shipped as a standalone executable (apps.toml [[standalone]]): how a paste shows it, the
    executable its DLLs go beside, and what the project publishes to put there."""

    id: str
    name: str
    recognise: re.Pattern[str]
    exe: str
    libs: str
    source: str


@functools.cache
def standalones() -> tuple[Standalone, ...]:
    return tuple(
        Standalone(
            id=m["id"],
            name=m["name"],
            recognise=re.compile(m["recognise"]),
            exe=m["exe"],
            libs=m["libs"],
            source=m["source"],
        )
        for m in _load().get("standalone", ())
    )


def standalone_named(text: str) -> tuple[Standalone, str] | None:
    """The catalogued standalone application whose own text the paste is (its banner, its executable named), with the
    first line that shows it; None where none is."""
    for entry in standalones():
        for line in text.splitlines():
            if entry.recognise.search(line[:2_000]):
                return entry, line.strip()[:300]
    return None


@record_class(frozen=True, eq=False, repr=False)
class Native(Record):
    """A catalogued application that is no Python program (apps.toml [[native]]): how a paste names it and what it is
    built from."""

    id: str
    name: str
    recognise: re.Pattern[str]
    written_in: str
    source: str


@functools.cache
def natives() -> tuple[Native, ...]:
    return tuple(
        Native(
            id=m["id"],
            name=m["name"],
            recognise=re.compile(m["recognise"], re.IGNORECASE),
            written_in=m["written_in"],
            source=m["source"],
        )
        for m in _load().get("native", ())
    )


def native_named(text: str) -> tuple[Native, str] | None:
    """The first catalogued application the text names that is no Python program, with the line that names it; None
    where it names none."""
    for entry in natives():
        if (m := entry.recognise.search(text)) is not None:
            start, end = text.rfind("\n", 0, m.start()) + 1, text.find("\n", m.end())
            return entry, text[start : end if end >= 0 else len(text)].strip()[:300]
    return None


def standalone(standalone_id: str) -> Standalone | None:
    return next((m for m in standalones() if m.id == standalone_id), None)


def cpu_mode(mode_id: str) -> CpuMode | None:
    return next((m for m in cpu_modes() if m.id == mode_id), None)


def app_without_image(text: str) -> tuple[App, str] | None:
    """The catalogued image application the text names with its GPU part failing or asked for, but whose image it does
    not name: the first such application and the line of the symptom; None where there is none."""
    for entry in apps():
        if not entry.named.search(text) or (m := entry.symptom.search(text)) is None:
            continue
        if entry.gpu_shown is not None and entry.gpu_shown.search(text):
            return None  # (its GPU package is there: the image is not the question)
        start, end = text.rfind("\n", 0, m.start()) + 1, text.find("\n", m.end())
        return entry, text[start : end if end >= 0 else len(text)].strip()[:300]
    return None


def app(app_id: str) -> App | None:
    return next((a for a in apps() if a.id == app_id), None)


def variant_of(image: AppImage, l4t: str | None) -> str | None:
    """The image to run instead where `image`'s tag carries no GPU libraries (the application's GPU tag, its Jetson tag
    where the L4T release `l4t` ("35.4.1") is shown and it has one), or None where the tag is not a CPU one."""
    entry = app(image.app)
    if entry is None or not entry.cpu_tag.fullmatch(image.tag):
        return None
    tag = entry.gpu_tag
    if l4t is not None and entry.jetson_tag:
        jetpack = _load()["jetpack_of_l4t"].get(l4t.split(".", 1)[0])
        if jetpack is None:
            return None  # (an L4T release no JetPack tag of the application is built for: no tag to offer)
        tag = entry.jetson_tag.replace("{jetpack}", str(jetpack))
    # (a release tag keeps its version: 0.12.1 -> 0.12.1-tensorrt; "latest"/"stable" channels keep theirs)
    tag = tag.replace("{tag}", image.tag)
    return image.ref.rsplit(":", 1)[0] + ":" + tag
