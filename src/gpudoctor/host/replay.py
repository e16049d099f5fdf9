"""Recording a live machine into a snapshot, and replaying a snapshot as a machine.

`RecordingHost` answers from a live host and writes each answer, failures
included, into a snapshot. `ReplayHost` answers only from a snapshot;
whatever the snapshot does not hold is absent on that machine, which is what
lets support engineers write snapshots by hand from pasted outputs.
"""

from __future__ import annotations

import posixpath
import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from gpudoctor.host import CommandResult, Host, HostError, PathInfo, PythonEnv, command_key, winpath
from gpudoctor.host.snapshot import empty_snapshot

if TYPE_CHECKING:
    from gpudoctor.elf import ElfDynamic
    from gpudoctor.elfsyms import ElfSymbols


class RecordingHost(Host):
    mode = "recording"

    def __init__(self, live: Host) -> None:
        self.live = live
        self.snapshot: dict[str, Any] = empty_snapshot()
        self._lock = threading.Lock()

    def _put_file(self, path: str, entry: Any, overwrite: bool = True) -> None:
        with self._lock:
            if overwrite or path not in self.snapshot["files"]:
                self.snapshot["files"][path] = entry

    def read_text(self, path: str, max_bytes: int = 4 * 1024 * 1024) -> str:
        try:
            text = self.live.read_text(path, max_bytes)
        except HostError as exc:
            if exc.code == "EBINARY":
                self._put_file(path, {"type": "file", "binary": True})
            elif exc.code == "EISDIR":
                with self._lock:
                    self.snapshot["dirs"].setdefault(path, [])
            elif not exc.missing:
                self._put_file(path, {"error": exc.code})
            raise
        self._put_file(path, text)
        return text

    def stat(self, path: str) -> PathInfo:
        info = self.live.stat(path)
        if info.kind == "link":
            self._put_file(path, {"link": info.target})
        elif info.kind in ("file", "char", "other"):
            entry: dict[str, Any] = {"type": info.kind}
            if info.readable is not None:
                entry["readable"] = info.readable
                entry["writable"] = bool(info.writable)
            self._put_file(path, entry, overwrite=False)
        elif info.kind == "dir":
            with self._lock:
                self.snapshot["dirs"].setdefault(path, [])
        elif info.kind == "error":
            self._put_file(path, {"error": info.error or "EIO"}, overwrite=False)
        return info

    def list_dir(self, path: str) -> list[str]:
        try:
            names = self.live.list_dir(path)
        except HostError as exc:
            if not exc.missing:
                with self._lock:
                    self.snapshot["dirs"][path] = {"error": exc.code}
            raise
        with self._lock:
            self.snapshot["dirs"][path] = list(names)
        return names

    def run(self, argv: list[str] | tuple[str, ...], timeout_s: float, key: str | None = None) -> CommandResult:
        result = self.live.run(argv, timeout_s)
        if not result.missing:
            entry: dict[str, Any]
            if result.timed_out:
                entry = {"timeout": True, "timeout_s": timeout_s}
            elif result.overflow:
                entry = {"overflow": True, "stderr": result.stderr}
            else:
                entry = {"rc": result.rc, "stdout": result.stdout, "stderr": result.stderr}
            with self._lock:
                self.snapshot["commands"][key or command_key(argv)] = entry
        return result

    def env(self) -> Mapping[str, str]:
        env = self.live.env()
        with self._lock:
            self.snapshot["env"] = dict(env)
        return env

    def platform(self) -> dict[str, str]:
        plat = self.live.platform()
        with self._lock:
            self.snapshot["platform"] = dict(plat)
        return plat

    def nvml(self, timeout_s: float) -> dict[str, Any]:
        state = self.live.nvml(timeout_s)
        with self._lock:
            self.snapshot["nvml"] = state
        return state

    def python_env(self, executable: str | None, timeout_s: float) -> PythonEnv | None:
        try:
            env = self.live.python_env(executable, timeout_s)
        except HostError as exc:
            with self._lock:
                self.snapshot["python"] = {"error": exc.code, "detail": exc.detail, "executable": exc.path}
            raise
        if env is not None:
            with self._lock:
                self.snapshot["python"] = env.to_json()
        return env

    def elf(self, path: str) -> ElfDynamic:
        try:
            dynamic = self.live.elf(path)
        except HostError as exc:
            if not exc.missing:
                with self._lock:
                    self.snapshot.setdefault("elf", {})[path] = {"error": exc.code}
            raise
        with self._lock:
            records = self.snapshot.setdefault("elf", {})
            record = dynamic.to_json()
            if isinstance(records.get(path), dict) and "symbols" in records[path]:
                record["symbols"] = records[path]["symbols"]  # read first by gpudoctor.probes.extensions
            records[path] = record
        return dynamic

    def elf_symbols(self, path: str, keep: Callable[[str], bool] | None = None) -> ElfSymbols:
        try:
            symbols = self.live.elf_symbols(path, keep)
        except HostError as exc:
            if not exc.missing:
                with self._lock:
                    self.snapshot.setdefault("elf", {}).setdefault(path, {})["symbols"] = {"error": exc.code}
            raise
        with self._lock:
            self.snapshot.setdefault("elf", {}).setdefault(path, {})["symbols"] = symbols.to_json()
        return symbols


class ReplayHost(Host):
    """A machine made of a snapshot. Paths are looked up as recorded, then through recorded links."""

    mode = "replay"

    def __init__(self, snapshot: dict[str, Any]) -> None:
        self.snapshot = snapshot
        # Windows paths (C:\\... or C:/...) are kept in one canonical spelling, found case-insensitively.
        self._ci: dict[str, str] = {}
        self.files: dict[str, Any] = self._canon_keys(snapshot.get("files") or {})
        self.dirs: dict[str, Any] = self._canon_keys(snapshot.get("dirs") or {})
        if snapshot.get("partial"):
            # Partial evidence: an installed distribution implies its files (docs/pasted.md).
            self.files = {**self._canon_keys(_implied(snapshot, self.files)), **self.files}
        self.commands: dict[str, Any] = snapshot.get("commands") or {}
        self._children: dict[str, set[str]] = {}
        self._index(list(self.files) + list(self.dirs))
        # A file written by hand under a linked directory (/usr/local/cuda/x
        # with /usr/local/cuda a link) is also the file at the link's target.
        aliases = {}
        for path, entry in self.files.items():
            if winpath.is_windows_path(path):
                continue
            parent = posixpath.dirname(path)
            real_parent = self.realpath(parent)
            if real_parent is not None and real_parent != parent:
                real = posixpath.join(real_parent, posixpath.basename(path))
                if real not in self.files:
                    aliases[real] = entry
        if aliases:
            self.files = {**self.files, **aliases}
            self._index(list(aliases))

    def _win(self, path: str) -> str:
        """A Windows path in the spelling first recorded for it (case-insensitive), else canonical."""
        canonical = winpath.canon(path)
        return self._ci.setdefault(canonical.casefold(), canonical)

    def _canon_keys(self, entries: dict[str, Any]) -> dict[str, Any]:
        if not any(winpath.is_windows_path(p) for p in entries):
            return entries
        return {(self._win(p) if winpath.is_windows_path(p) else p): v for p, v in entries.items()}

    def _index(self, paths: list[str]) -> None:
        # Every ancestor of a recorded path is a directory on that machine.
        for path in paths:
            if winpath.is_windows_path(path):
                child = self._win(path)
                while not winpath.is_root(child):
                    parent = self._win(winpath.parent(child))
                    self._children.setdefault(parent, set()).add(winpath.basename(child))
                    child = parent
                continue
            child = path.rstrip("/") or "/"
            parent = posixpath.dirname(child)
            while child != "/":
                self._children.setdefault(parent, set()).add(posixpath.basename(child))
                child, parent = parent, posixpath.dirname(parent)

    def _entry(self, path: str) -> tuple[str, Any]:
        """The recorded entry for `path`, resolving links in its parent directories."""
        if winpath.is_windows_path(path):
            # No links on the Windows side: junctions and symlinks there are not recorded as such.
            path = self._win(path)
            return path, self.files.get(path)
        path = posixpath.normpath(path)
        if path in self.files or path in self.dirs or path in self._children:
            return path, self.files.get(path)
        parent = posixpath.dirname(path)
        if parent != path:
            real_parent = self.realpath(parent)
            if real_parent is not None and real_parent != parent:
                real = posixpath.join(real_parent, posixpath.basename(path))
                return real, self.files.get(real)
        return path, None

    def _is_dir(self, path: str) -> bool:
        entry = self.dirs.get(path)
        return path in self._children or isinstance(entry, (list, dict))

    def read_text(self, path: str, max_bytes: int = 4 * 1024 * 1024) -> str:
        real, entry = self._entry(path)
        if isinstance(entry, dict) and "link" in entry:
            target = self.realpath(real)
            if target is None or target == real:
                raise HostError("ENOENT", path, "dangling link")
            return self.read_text(target, max_bytes)
        if isinstance(entry, str):
            if len(entry.encode("utf-8", "replace")) > max_bytes:
                raise HostError("ETOOBIG", path)
            return entry
        if isinstance(entry, dict) and "error" in entry:
            raise HostError(str(entry["error"]), path, "as recorded")
        if isinstance(entry, dict) and entry.get("binary"):
            raise HostError("EBINARY", path, "not a text file")
        if isinstance(entry, dict):
            raise HostError("ENODATA", path, "recorded without its content")
        if self._is_dir(real):
            raise HostError("EISDIR", path)
        raise HostError("ENOENT", path)

    def stat(self, path: str) -> PathInfo:
        real, entry = self._entry(path)
        if isinstance(entry, str):
            return PathInfo(path, "file", readable=True, writable=False)
        if isinstance(entry, dict):
            if "link" in entry:
                return PathInfo(path, "link", target=str(entry["link"]))
            if "error" in entry:
                return PathInfo(path, "file", readable=False, writable=False)
            return PathInfo(
                path,
                str(entry.get("type", "file")),
                readable=bool(entry.get("readable", True)),
                writable=bool(entry.get("writable", True)),
            )
        if self._is_dir(real):
            listing = self.dirs.get(real)
            readable = not (isinstance(listing, dict) and "error" in listing)
            return PathInfo(path, "dir", readable=readable, writable=False)
        return PathInfo(path, "missing")

    def list_dir(self, path: str) -> list[str]:
        real = self._win(path) if winpath.is_windows_path(path) else (self.realpath(path) or path)
        if not self._is_dir(real):
            if self.files.get(real) is not None:
                raise HostError("ENOTDIR", path)
            raise HostError("ENOENT", path)
        listing = self.dirs.get(real)
        if isinstance(listing, dict) and "error" in listing:
            raise HostError(str(listing["error"]), path, "as recorded")
        names = set(listing or ()) | self._children.get(real, set())
        return sorted(names)

    def run(self, argv: list[str] | tuple[str, ...], timeout_s: float, key: str | None = None) -> CommandResult:
        argv = tuple(argv)
        entry = self.commands.get(key or command_key(argv))
        if entry is None:
            return CommandResult(argv, None, missing=True)
        if entry.get("overflow"):
            return CommandResult(argv, None, "", str(entry.get("stderr", "output exceeded the cap")), overflow=True)
        if entry.get("timeout"):
            return CommandResult(argv, None, str(entry.get("stdout", "")), str(entry.get("stderr", "")), timed_out=True)
        rc = entry.get("rc")
        return CommandResult(
            argv, int(rc) if isinstance(rc, int) else 1, str(entry.get("stdout", "")), str(entry.get("stderr", ""))
        )

    def env(self) -> Mapping[str, str]:
        return self.snapshot.get("env") or {}

    def platform(self) -> dict[str, str]:
        plat = {"system": "Linux", "release": "", "machine": "x86_64"}
        plat.update(self.snapshot.get("platform") or {})
        return plat

    def pasted(self) -> dict[str, Any]:
        section = self.snapshot.get("pasted")
        out = dict(section) if isinstance(section, dict) else {}
        out["partial"] = bool(self.snapshot.get("partial"))
        return out

    def nvml(self, timeout_s: float) -> dict[str, Any]:
        state = self.snapshot.get("nvml")
        if state is None:
            return {"status": "library_not_found", "error": "NVML was not recorded in this snapshot"}
        return state

    def python_env(self, executable: str | None, timeout_s: float) -> PythonEnv | None:
        data = self.snapshot.get("python")
        if data is None:
            return None
        if "error" in data:
            raise HostError(str(data["error"]), str(data.get("executable", "python")), str(data.get("detail", "")))
        return PythonEnv.from_json(data, how="snapshot")

    def elf(self, path: str) -> ElfDynamic:
        """The recorded ELF record of `path` (or of the file a recorded link leads to)."""
        from gpudoctor.elf import ElfDynamic

        records = self.snapshot.get("elf") or {}
        entry = records.get(path)
        if entry is None:
            real = self.realpath(path)
            entry = records.get(real) if real is not None else None
        if isinstance(entry, dict) and "error" in entry:
            raise HostError(str(entry["error"]), path, "as recorded")
        if isinstance(entry, dict):
            return ElfDynamic.from_json(entry)
        if self.exists(path):
            raise HostError("ENODATA", path, "recorded without its ELF record")
        raise HostError("ENOENT", path)

    def elf_symbols(self, path: str, keep: Callable[[str], bool] | None = None) -> ElfSymbols:
        from gpudoctor.elfsyms import ElfSymbols

        records = self.snapshot.get("elf") or {}
        entry = records.get(path)
        if entry is None:
            real = self.realpath(path)
            entry = records.get(real) if real is not None else None
        symbols = entry.get("symbols") if isinstance(entry, dict) else None
        if isinstance(symbols, dict) and "error" in symbols:
            raise HostError(str(symbols["error"]), path, "as recorded")
        if isinstance(symbols, dict):
            found = ElfSymbols.from_json(symbols)
            return (
                found
                if keep is None
                else ElfSymbols(found.undefined, frozenset(filter(keep, found.defined)), found.needs, found.versions)
            )
        if self.exists(path):
            raise HostError("ENODATA", path, "recorded without its symbol table")
        raise HostError("ENOENT", path)


def _implied(snapshot: dict[str, Any], files: dict[str, Any]) -> dict[str, Any]:
    """The library files NVIDIA's wheels in a partial snapshot's Python environment imply (gpudoctor.host.implied)."""
    from gpudoctor.host.implied import implied_files

    python = snapshot.get("python")
    if not isinstance(python, dict) or "error" in python:
        return {}
    dists = {str(k).lower().replace("_", "-"): str(v) for k, v in (python.get("distributions") or {}).items()}
    sites = [str(p) for p in python.get("site_packages") or []]
    locations = {str(k).lower().replace("_", "-"): str(v) for k, v in (python.get("locations") or {}).items()}
    raw = snapshot.get("pasted")
    section: dict[str, Any] = raw if isinstance(raw, dict) else {}
    shown_missing = {str(m).split(".so", 1)[0] for m in section.get("missing") or ()}
    out: dict[str, Any] = {}
    for name, version in dists.items():
        site = locations.get(name) or (sites[0] if sites else "")
        for path, entry in implied_files({name: version}, site, files).items():
            if path.rsplit("/", 1)[-1].split(".so", 1)[0] not in shown_missing:  # unless the text showed it missing
                out[path] = entry
    return out
