"""The live host: the real machine, or a temporary root standing in for one.

`root` lets mutation tests point every path at a `tmp_path` holding real
directories and links; probes still ask for `/usr/local/cuda`.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import stat as _stat
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence

from gpudoctor.bounded import MAX_COMMAND_OUTPUT, describe_size
from gpudoctor.host import ENV_NAMES, ENV_PATTERNS, CommandResult, Host, HostError, PathInfo, PythonEnv

# typing's constant without typing: a live check imports this module before it starts the user's interpreter, and
# typing is 12.8 M instructions (bench/README.md, h151)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO, Any

    from gpudoctor.elf import ElfDynamic
    from gpudoctor.elfsyms import ElfSymbols


def _known(value: str) -> str:
    """platform.uname()'s reading of one os.uname() field: "unknown" is left blank."""
    return "" if value == "unknown" else value


def _errno_name(exc: OSError) -> str:
    import errno

    return errno.errorcode.get(exc.errno or 0, "EIO")


class LiveHost(Host):
    mode = "live"

    def __init__(self, root: str = "/", environ: Mapping[str, str] | None = None) -> None:
        self.root = os.path.abspath(root)
        source = os.environ if environ is None else environ
        self._env = {k: source[k] for k in ENV_NAMES if k in source}
        self._env.update(
            {k: v for k, v in source.items() if any(k.startswith(prefix) and p.match(k) for prefix, p in ENV_PATTERNS)}
        )
        self._nvml_lock = threading.Lock()
        self._nvml_pending: tuple[threading.Thread, dict[str, Any]] | None = None
        # The environment this host's programs get (child_environ), made once: as root it stats every directory of
        # PATH and LD_LIBRARY_PATH and each of their parents, 2.2 M instructions a time here, and a bare check asked
        # five times (bench/README.md, h161).
        self._child_environ: tuple[dict[str, str], list[str]] | None = None
        # As root: the PATH, LD_LIBRARY_PATH and LD_PRELOAD entries left out of every program's
        # environment (gpudoctor.trust.environ_for_root), said once by the command (cli/common.py).
        self.trust_notes: list[str] = self._environ()[1] if self.root == "/" else []
        # The user's interpreter started ahead of the probes (start_python_env_early): its arguments, and what
        # python_env_started gives for them.
        self._early_python: tuple[tuple[str | None, float], Callable[[], Callable[[], PythonEnv | None]]] | None = None

    def _environ(self) -> tuple[dict[str, str], list[str]]:
        """child_environ() as it was at this host's first program (or its creation): one check's programs get one
        environment."""
        if self._child_environ is None:
            self._child_environ = child_environ()
        return self._child_environ

    def _real(self, path: str) -> str:
        if self.root == "/":
            return path
        return os.path.join(self.root, path.lstrip("/"))

    def _open_regular(self, path: str) -> tuple[int, os.stat_result]:
        """An open descriptor of a regular file at `path` and its stat, or HostError.

        O_NONBLOCK and fstat before any read: a FIFO planted where a probe looks (a torch/version.py,
        a library) opens at once and is refused instead of hanging the probe; a device is never read.
        """
        flags = (
            os.O_RDONLY
            | getattr(os, "O_NONBLOCK", 0)
            | getattr(os, "O_BINARY", 0)
            | getattr(os, "O_NOCTTY", 0)
            | getattr(os, "O_CLOEXEC", 0)
        )
        try:
            fd = os.open(self._real(path), flags)
        except OSError as exc:
            raise HostError(_errno_name(exc), path, exc.strerror or "") from None
        try:
            st = os.fstat(fd)
            if _stat.S_ISDIR(st.st_mode):
                raise HostError("EISDIR", path, "is a directory")
            if not _stat.S_ISREG(st.st_mode):
                raise HostError("ENOTREG", path, "not a regular file")
        except OSError as exc:
            os.close(fd)
            raise HostError(_errno_name(exc), path, exc.strerror or "") from None
        except HostError:
            os.close(fd)
            raise
        return fd, st

    # --- files -------------------------------------------------------------
    def read_text(self, path: str, max_bytes: int = 4 * 1024 * 1024) -> str:
        data = self._read_bounded(path, max_bytes)
        # A NUL byte means this is not a text file, whatever its name says:
        # parsers expect text, and snapshots must stay valid JSON text.
        if b"\x00" in data:
            raise HostError("EBINARY", path, "not a text file")
        return data.decode("utf-8", errors="replace")

    def ld_so_cache(self) -> bytes | None:
        """/etc/ld.so.cache (at most 16 MB), what `ldconfig -p` would print, where `ldconfig -p` would be run
        (an ldconfig on the PATH, or /sbin/ldconfig, that root may run); else None and the caller runs it."""
        if self.root != "/" or os.name == "nt":
            return None
        from gpudoctor.trust import refuse_to_run

        found = _which("ldconfig", self._environ()[0]) or ("/sbin/ldconfig" if os.path.lexists("/sbin/ldconfig") else None)
        if found is None or refuse_to_run(found):
            return None
        try:
            return self._read_bounded("/etc/ld.so.cache", 16 * 1024 * 1024)
        except HostError:
            return None

    def _read_bounded(self, path: str, max_bytes: int) -> bytes:
        fd, _ = self._open_regular(path)
        try:
            chunks, total = [], 0
            while total <= max_bytes:
                chunk = os.read(fd, min(1024 * 1024, max_bytes + 1 - total))
                if not chunk:
                    break
                chunks.append(chunk)
                total += len(chunk)
            data = b"".join(chunks)
        except OSError as exc:
            raise HostError(_errno_name(exc), path, exc.strerror or "") from None
        finally:
            os.close(fd)
        if len(data) > max_bytes:
            raise HostError("ETOOBIG", path, f"larger than {max_bytes} bytes")
        return data

    def elf(self, path: str) -> ElfDynamic:
        from gpudoctor.elf import ElfError, read_dynamic

        # read_dynamic bounds every read it makes.
        fd, st = self._open_regular(path)
        try:
            return read_dynamic(lambda offset, size: os.pread(fd, size, offset), st.st_size)
        except ElfError as exc:
            raise HostError("ENOEXEC", path, str(exc)) from None
        except (OSError, struct.error) as exc:
            raise HostError(_errno_name(exc) if isinstance(exc, OSError) else "ENOEXEC", path, str(exc)) from None
        finally:
            os.close(fd)

    def elf_symbols(self, path: str, keep: Callable[[str], bool] | None = None) -> ElfSymbols:
        from gpudoctor.elf import ElfError
        from gpudoctor.elfsyms import read_symbols

        # read_symbols bounds every read it makes.
        fd, st = self._open_regular(path)
        try:
            return read_symbols(lambda offset, size: os.pread(fd, size, offset), st.st_size, keep)
        except ElfError as exc:
            raise HostError("ENOEXEC", path, str(exc)) from None
        except (OSError, struct.error) as exc:
            raise HostError(_errno_name(exc) if isinstance(exc, OSError) else "ENOEXEC", path, str(exc)) from None
        finally:
            os.close(fd)

    def stat(self, path: str) -> PathInfo:
        real = self._real(path)
        try:
            st = os.lstat(real)
        except OSError as exc:
            if exc.errno in (2, 20):  # ENOENT, ENOTDIR
                return PathInfo(path, "missing")
            return PathInfo(path, "error", error=_errno_name(exc))
        mode = st.st_mode
        if _stat.S_ISLNK(mode):
            try:
                target = os.readlink(real)
            except OSError as exc:
                return PathInfo(path, "error", error=_errno_name(exc))
            if self.root != "/" and target.startswith(self.root + "/"):
                target = target[len(self.root) :]
            return PathInfo(path, "link", target=target)
        if _stat.S_ISDIR(mode):
            kind = "dir"
        elif _stat.S_ISREG(mode):
            kind = "file"
        elif _stat.S_ISCHR(mode):
            kind = "char"
        else:
            kind = "other"
        return PathInfo(path, kind, readable=os.access(real, os.R_OK), writable=os.access(real, os.W_OK))

    def list_dir(self, path: str) -> list[str]:
        try:
            return sorted(os.listdir(self._real(path)))
        except OSError as exc:
            raise HostError(_errno_name(exc), path, exc.strerror or "") from None

    def realpath(self, path: str, _depth: int = 0) -> str | None:
        if self.root != "/":
            return super().realpath(path, _depth)
        # Fast path on the real machine; a dangling link must still read as None.
        real = os.path.realpath(path)
        return real if os.path.lexists(real) else None

    # --- commands ------------------------------------------------------------
    def run(self, argv: list[str] | tuple[str, ...], timeout_s: float, key: str | None = None) -> CommandResult:
        return self.start(argv, timeout_s)()

    def start(self, argv: list[str] | tuple[str, ...], timeout_s: float) -> Callable[[], CommandResult]:
        """`run` in two steps: the program is started now, and the function returned waits for its result
        (gpudoctor.host.pyask.start_via: the user's interpreter, started from the main thread)."""
        argv = tuple(argv)
        # Under a temporary root an absolute program (a toolkit's bin/nvcc) is the root's own copy, and a
        # bare name (nvidia-smi) is found on PATH inside the root, as in a chroot: the machine's programs,
        # never this one's. Not found there is not found (tests/sim/ relies on it).
        if argv and self.root != "/" and "/" not in argv[0]:
            found = self.which(argv[0])
            if found is None:
                return _done(CommandResult(argv, None, missing=True))
            argv_run: tuple[str, ...] = (found, *argv[1:])
        elif os.name == "nt" and argv and argv[0] == "nvidia-smi":
            # DCH drivers may leave nvidia-smi.exe only in the driver store; the key stays `nvidia-smi ...`.
            argv_run = (windows_nvidia_smi() or "nvidia-smi", *argv[1:])
        elif os.name != "nt" and argv and "/" not in argv[0]:
            # Looked up here, on the PATH the program gets: nothing of that name is "missing" without a fork
            # (nvidia-smi on a machine without a driver is asked twice at every check); as root only root's
            # directories are on it, and the program found must be root's own as well.
            found = _which(argv[0], self._environ()[0])
            if found is None:
                return _done(CommandResult(argv, None, missing=True))
            from gpudoctor.trust import refuse_to_run

            why = refuse_to_run(found)
            if why:
                return _done(
                    CommandResult(argv, None, stderr=f"{found} was not run: gpudoctor runs as root and {why}", missing=True)
                )
            argv_run = argv
        else:
            argv_run = argv
        program = (self._real(argv_run[0]), *argv_run[1:]) if argv_run and argv_run[0].startswith("/") else argv_run
        return start_bounded(argv, timeout_s, program=program, environ=self._environ()[0])

    # --- environment -----------------------------------------------------------
    def env(self) -> Mapping[str, str]:
        return self._env

    def platform(self) -> dict[str, str]:
        # On POSIX, platform.uname() is os.uname() (a name it cannot tell becomes ""); importing platform compiles a
        # dozen patterns at every start, so it is imported only where os.uname is missing (Windows).
        uname = getattr(os, "uname", None)
        if uname is not None:
            u = uname()
            return {"system": _known(u.sysname), "release": _known(u.release), "machine": _known(u.machine)}
        import platform

        p = platform.uname()
        return {"system": p.system, "release": p.release, "machine": p.machine}

    def nvml(self, timeout_s: float) -> dict[str, Any]:
        from gpudoctor.host.nvml import read_nvml_state

        # A hung NVML call cannot be interrupted from Python: it runs in a daemon thread and we stop
        # waiting at the deadline. At most one such worker exists per host: while one is still
        # hung, later calls (every redraw of `memory --watch`) wait on it instead of starting another,
        # so a hung driver costs one thread, not one per redraw.
        with self._nvml_lock:
            if self._nvml_pending is None:
                box: dict[str, Any] = {}

                def work() -> None:
                    try:
                        box["state"] = read_nvml_state()
                    except BaseException as exc:  # noqa: BLE001 - anything NVML does is a fact, not a crash
                        box["state"] = {"status": "crash", "error": f"{type(exc).__name__}: {exc}"}

                worker = threading.Thread(target=work, name="gpudoctor-nvml", daemon=True)
                self._nvml_pending = (worker, box)
                worker.start()
            pending = self._nvml_pending
        worker, box = pending
        worker.join(timeout_s)
        with self._nvml_lock:
            if worker.is_alive():
                return {"status": "timeout", "error": f"NVML did not answer within {timeout_s:g} s"}
            if self._nvml_pending is pending:
                self._nvml_pending = None  # answered: the next call reads NVML afresh
        return box["state"]

    def python_env(self, executable: str | None, timeout_s: float) -> PythonEnv | None:
        return self.python_env_started(executable, timeout_s)()

    def python_env_started(self, executable: str | None, timeout_s: float) -> Callable[[], PythonEnv | None]:
        early = self._early_python
        if early is not None and early[0] == (executable, timeout_s):
            self._early_python = None
            return early[1]()  # started already (or its error, raised here as it was there)
        from gpudoctor.host import pyask, pyenv

        if executable is None or _same_file(executable, sys.executable):
            return lambda: PythonEnv.from_json(pyenv.describe(), how="in-process")
        return pyask.start_via(self, executable, timeout_s)

    def start_python_env_early(self, executable: str | None, timeout_s: float) -> None:
        """`python_env_started` now, its answer kept for the next call with the same arguments (the probes').

        A live check starts the user's interpreter before it builds its request and imports the probes, the
        checks' records and the dataclasses they need (gpudoctor.cli.check): that start-up is the other leg of
        the check, and it runs on another core meanwhile. The program is started by the one runner
        (start_bounded), so an interrupted check still ends it. An error is raised again where the probe asks."""
        try:
            started = self.python_env_started(executable, timeout_s)
        except Exception as exc:  # noqa: BLE001 - raised again by python_env_started, where the probe handles it
            error = exc

            def again() -> Callable[[], PythonEnv | None]:
                raise error

            self._early_python = ((executable, timeout_s), again)
        else:
            self._early_python = ((executable, timeout_s), lambda: started)


def windows_nvidia_smi(environ: Mapping[str, str] | None = None) -> str | None:
    """Where nvidia-smi.exe is on a Windows machine: PATH, System32, NVSMI, else the newest driver store copy.

    The driver store (System32\\DriverStore\\FileRepository\\nv*.inf_amd64_*) is written only by Windows'
    driver installation, as an Administrator: a program found there is the driver's own.
    """
    import glob
    import shutil

    env = os.environ if environ is None else environ
    found = shutil.which("nvidia-smi", path=env.get("PATH"))
    if found:
        return found
    system_root = env.get("SystemRoot") or env.get("SYSTEMROOT") or "C:\\Windows"
    program_files = env.get("ProgramFiles") or env.get("PROGRAMFILES") or "C:\\Program Files"
    for candidate in (
        os.path.join(system_root, "System32", "nvidia-smi.exe"),
        os.path.join(program_files, "NVIDIA Corporation", "NVSMI", "nvidia-smi.exe"),
    ):
        if os.path.isfile(candidate):
            return candidate
    store = glob.glob(os.path.join(system_root, "System32", "DriverStore", "FileRepository", "nv*.inf_amd64_*", "nvidia-smi.exe"))
    return max(store, key=os.path.getmtime) if store else None


def _same_file(a: str, b: str) -> bool:
    """Whether two interpreter paths are one environment.

    Compared by their directory, not the resolved file: a virtual
    environment's `python` links to the base interpreter, yet it is another
    environment with other packages.
    """
    return os.path.realpath(os.path.dirname(os.path.abspath(a))) == os.path.realpath(os.path.dirname(os.path.abspath(b)))


def child_environ() -> tuple[dict[str, str], list[str]]:
    """The environment every program gpudoctor runs gets, and what was left out of it: as root, PATH,
    LD_LIBRARY_PATH and LD_PRELOAD hold only what root alone can change (gpudoctor.trust)."""
    from gpudoctor.trust import environ_for_root

    env, notes = environ_for_root(dict(os.environ))
    env["LC_ALL"] = "C"
    return env, notes


def _which(name: str, environ: Mapping[str, str] | None = None) -> str | None:
    """The first entry `name` in a directory of the PATH a child gets (`environ`, default child_environ()), or None."""
    for d in os.get_exec_path(child_environ()[0] if environ is None else environ):
        candidate = os.path.join(d, name)
        if os.path.lexists(candidate):
            return candidate
    return None


def run_bounded(
    argv: Sequence[str], timeout_s: float, *, program: Sequence[str] | None = None, cap: int | None = None
) -> CommandResult:
    """Run `program` (default `argv`) with no stdin, at most `timeout_s` seconds and `cap` bytes of output;
    the result names `argv`. Every program gpudoctor runs goes through here or through the host seam."""
    return start_bounded(argv, timeout_s, program=program, cap=cap)()


def start_bounded(
    argv: Sequence[str],
    timeout_s: float,
    *,
    program: Sequence[str] | None = None,
    cap: int | None = None,
    environ: Mapping[str, str] | None = None,
) -> Callable[[], CommandResult]:
    """`run_bounded` in two steps: `program` is started now, and the function returned reads its output and
    waits for its end (the time limit counted from its start), in whichever thread calls it. `environ`: the
    program's environment as child_environ() made it (a LiveHost's, made once), else made now."""
    argv = tuple(argv)
    program = tuple(program) if program is not None else argv
    cap = MAX_COMMAND_OUTPUT if cap is None else cap  # looked up now: tests lower the module's cap
    start = time.monotonic()
    with _RUNNING_LOCK:
        # Started and recorded under the lock: kill_running() (Ctrl-C) never misses a program started a moment
        # before, and once it has run, nothing new starts.
        if _STOPPED:
            return _done(CommandResult(argv, None, stderr="not started: gpudoctor is stopping"))
        try:
            # A new session, so that a timeout kills the whole process group:
            # nvidia-smi hung in the kernel leaves children otherwise.
            proc = subprocess.Popen(
                program,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                env=child_environ()[0] if environ is None else environ,
            )
        except FileNotFoundError:
            return _done(CommandResult(argv, None, missing=True))
        except OSError as exc:
            return _done(CommandResult(argv, None, stderr=str(exc), missing=exc.errno == 13))
        _RUNNING.add(proc)
    started = time.monotonic()

    def finish() -> CommandResult:
        try:
            out, err, overflow, timed_out = _collect(proc, timeout_s - (time.monotonic() - started), cap)
        except BaseException:
            _kill_group(proc)  # interrupted while it ran (Ctrl-C in this thread): it must not outlive the doctor
            raise
        finally:
            with _RUNNING_LOCK:
                _RUNNING.discard(proc)
        duration = time.monotonic() - start
        if overflow:
            # Killed: a program that floods its output (a broken or hostile shim) is a failed probe
            # that says why, not a doctor that runs out of memory.
            return CommandResult(
                argv,
                None,
                "",
                f"output exceeded {describe_size(cap)}; gpudoctor stopped the program",
                overflow=True,
                duration_s=duration,
            )
        return CommandResult(
            argv,
            None if timed_out else proc.returncode,
            out.decode("utf-8", "replace"),
            err.decode("utf-8", "replace"),
            timed_out=timed_out,
            duration_s=duration,
        )

    return finish


def _done(result: CommandResult) -> Callable[[], CommandResult]:
    """The second step of a program that was never started: its result, already known."""
    return lambda: result


def _collect(proc: subprocess.Popen, timeout_s: float, cap: int) -> tuple[bytes, bytes, bool, bool]:
    """Read stdout and stderr until both close, at most `cap` bytes together and `timeout_s` seconds.

    Returns (stdout, stderr, overflow, timed_out). Past either limit the process group is killed.
    (`communicate()` has a time limit but no size limit: it would buffer a flood until memory ran out.)
    """
    if os.name == "nt":
        return _collect_threads(proc, timeout_s, cap)
    deadline = time.monotonic() + timeout_s
    buffers = {proc.stdout: bytearray(), proc.stderr: bytearray()}
    total = 0
    overflow = timed_out = False
    with selectors.DefaultSelector() as sel:
        for stream in buffers:
            if stream is not None:
                os.set_blocking(stream.fileno(), False)
                sel.register(stream, selectors.EVENT_READ, buffers[stream])  # (its buffer, as the key's data)
        while sel.get_map():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = True
                break
            for key, _ in sel.select(remaining):
                try:
                    chunk = os.read(key.fd, _CHUNK)
                except BlockingIOError:
                    continue
                if not chunk:
                    sel.unregister(key.fileobj)
                    continue
                total += len(chunk)
                if total > cap:
                    overflow = True
                    break
                key.data.extend(chunk)
            if overflow:
                break
    if overflow or timed_out:
        _kill_group(proc)
    for stream in buffers:
        if stream is not None:
            stream.close()
    timed_out = _reap(proc, deadline, overflow or timed_out) or timed_out
    return bytes(buffers[proc.stdout]), bytes(buffers[proc.stderr]), overflow, timed_out


_CHUNK = 64 * 1024


def _collect_threads(proc: subprocess.Popen, timeout_s: float, cap: int) -> tuple[bytes, bytes, bool, bool]:
    """`_collect` where select() cannot wait on pipes (Windows): one reader thread per pipe, the same limits."""
    deadline = time.monotonic() + timeout_s
    buffers: dict[str, bytearray] = {"out": bytearray(), "err": bytearray()}
    lock = threading.Lock()
    state = {"total": 0, "overflow": False}
    full = threading.Event()

    def pump(stream: IO[bytes] | None, name: str) -> None:
        if stream is None:
            return
        while True:
            chunk = stream.read1(_CHUNK) if hasattr(stream, "read1") else stream.read(_CHUNK)
            if not chunk:
                return
            with lock:
                state["total"] += len(chunk)
                if state["total"] > cap:
                    state["overflow"] = True
                    full.set()
                    return
                buffers[name] += chunk

    readers = [
        threading.Thread(target=pump, args=(proc.stdout, "out"), daemon=True),
        threading.Thread(target=pump, args=(proc.stderr, "err"), daemon=True),
    ]
    for reader in readers:
        reader.start()
    timed_out = False
    for reader in readers:
        while reader.is_alive() and not full.is_set():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = True
                break
            reader.join(min(remaining, 0.05))
        if timed_out or full.is_set():
            break
    overflow = bool(state["overflow"])
    if overflow or timed_out:
        _kill_group(proc)
    timed_out = _reap(proc, deadline, overflow or timed_out) or timed_out
    for reader in readers:
        reader.join(1.0)
    with lock:
        return bytes(buffers["out"]), bytes(buffers["err"]), overflow, timed_out


def _reap(proc: subprocess.Popen, deadline: float, stopped: bool) -> bool:
    """Wait for the program to exit: until the deadline, or 5 s for one already killed (`stopped`).
    True when it outlived the deadline and was killed here."""
    try:
        proc.wait(timeout=5.0 if stopped else max(0.5, deadline - time.monotonic()))
        return False
    except subprocess.TimeoutExpired:
        # Both pipes closed but the program still runs (it closed them itself): the time limit holds.
        _kill_group(proc)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=5.0)
        return True


# The programs running now, each in a session of its own (run_bounded): the terminal's Ctrl-C reaches only
# gpudoctor's own process group, so these are killed by kill_running() when gpudoctor stops, from whichever
# thread (the probes run in threads) started them.
_RUNNING: set[subprocess.Popen] = set()
_RUNNING_LOCK = threading.Lock()
_STOPPED = False


def allow_running() -> None:
    """A run begins (gpudoctor.cli.main): programs may start again after an earlier run's kill_running()."""
    global _STOPPED
    with _RUNNING_LOCK:
        _STOPPED = False


def kill_running(stop: bool = False) -> int:
    """Kill the process group of every program gpudoctor started and that still runs; how many were killed.
    `stop` (an interrupt): start none after, since a probe thread may be about to start one."""
    global _STOPPED
    # Bounded: a thread interrupted between taking this lock and entering its block would hold it for ever, and a
    # Ctrl-C must still end the run; the set is then read without it (a copy, cleared below).
    locked = _RUNNING_LOCK.acquire(timeout=2.0)
    try:
        _STOPPED = _STOPPED or stop
        running = list(_RUNNING)
        _RUNNING.clear()
    finally:
        if locked:
            _RUNNING_LOCK.release()
    for proc in running:
        _kill_group(proc)
    for proc in running:
        with contextlib.suppress(subprocess.TimeoutExpired, OSError):
            proc.wait(timeout=2.0)
    return len(running)


def _kill_group(proc: subprocess.Popen) -> None:
    killpg = getattr(os, "killpg", None)  # POSIX only; on Windows the process itself is killed
    if killpg is not None:
        try:
            killpg(proc.pid, signal.SIGKILL)
            return
        except OSError:
            pass
    with contextlib.suppress(OSError):
        proc.kill()
