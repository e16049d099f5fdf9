"""The user, command line and framework of the processes holding GPU memory, read through the Host seam.

Sources, per process:
- /proc/PID/status: `Name:` (to confirm the PID is the one the driver means) and `Uid:` (the real uid);
- /etc/passwd: the login name of that uid (read once);
- /proc/PID/cmdline: the command line. The kernel separates arguments with NUL bytes, which the live
  host refuses to read as text (a snapshot written by hand may hold them); then one
  `ps -ww -o pid=,args= -p PID,...` call, through the same seam, gives every command line at once;
- /proc/PID/maps, at most MAPS_LIMIT bytes: which framework's GPU runtime the process has mapped.

Inside a container without the host's PID namespace, NVML reports host PIDs: /proc/PID is then
missing, or another process. Such a PID gets a `problem` and no borrowed details.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from gpudoctor.host import Host, HostError
from gpudoctor.memory.view import ProcInfo, frameworks_in_maps, frameworks_in_text

# A CUDA PyTorch process maps about 3,000 regions (~350 KB of text); 8 MiB bounds an odd one.
MAPS_LIMIT = 8 * 1024 * 1024
CMDLINE_LIMIT = 64 * 1024
STATUS_LIMIT = 64 * 1024


def read_passwd(host: Host) -> dict[int, str]:
    try:
        text = host.read_text("/etc/passwd", 4 * 1024 * 1024)
    except HostError:
        return {}
    users: dict[int, str] = {}
    for line in text.splitlines():
        parts = line.split(":")
        if len(parts) >= 3 and parts[2].isdigit():
            users.setdefault(int(parts[2]), parts[0])
    return users


def _status(text: str) -> tuple[str | None, int | None]:
    name = uid = None
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key == "Name":
            name = value.strip()
        elif key == "Uid" and value.split() and value.split()[0].isdigit():
            uid = int(value.split()[0])
    return name, uid


def _program(name: str | None) -> str | None:
    """The program's file name from a path or a whole command line ("/usr/bin/python3 -m x" -> "python3")."""
    if not name or not name.split():
        return None
    return name.split()[0].rsplit("/", 1)[-1]


def _matches(candidate: str | None, driver_name: str | None) -> bool:
    program = _program(driver_name)
    if not candidate or not program:
        return True  # nothing to compare: believe the PID
    # /proc's comm is cut at 15 characters; an interpreter may be named python3.11 or python.
    return program.startswith(candidate[:15]) or candidate.startswith(program[:15])


def _cmdline(text: str) -> str:
    return " ".join(part for part in text.split("\x00") if part)


def read_processes(host: Host, names: Mapping[int, str | None], timeout_s: float = 5.0) -> dict[int, ProcInfo]:
    """ProcInfo for each PID in `names` (PID -> the name NVML or nvidia-smi gave it)."""
    if not names:
        return {}
    passwd = read_passwd(host)
    found: dict[int, ProcInfo] = {}
    comms: dict[int, str | None] = {}
    need_ps: list[int] = []
    for pid in sorted(names):
        try:
            comm, uid = _status(host.read_text(f"/proc/{pid}/status", STATUS_LIMIT))
        except HostError as exc:
            if exc.missing and host.mode == "replay":
                why = "not recorded in the snapshot"
            elif exc.missing:
                why = "not in this PID namespace (another container or the host), or it has exited"
            else:
                why = f"/proc/{pid}/status unreadable ({exc.code})"
            found[pid] = ProcInfo(pid, problem=why)
            continue
        comms[pid] = comm
        user = None if uid is None else passwd.get(uid, f"uid {uid}")
        cmdline = None
        try:
            cmdline = _cmdline(host.read_text(f"/proc/{pid}/cmdline", CMDLINE_LIMIT)) or None
        except HostError as exc:
            if exc.code == "EBINARY":
                need_ps.append(pid)
        frameworks, how = _maps(host, pid)
        found[pid] = ProcInfo(pid, user, uid, cmdline, frameworks, how)
    if need_ps:
        for pid, args in _ps_args(host, need_ps, timeout_s).items():
            found[pid] = _with_cmdline(found[pid], args)
    for pid, comm in comms.items():
        info = found[pid]
        # A renamed main thread (PyTorch names it pt_main_thread) changes comm but not argv[0]: the
        # PID is foreign only when neither fits the driver's name.
        if not _matches(comm, names[pid]) and not _matches(_program(info.cmdline), names[pid]):
            found[pid] = ProcInfo(pid, problem=f"PID {pid} here is {comm!r}: the driver's PID is from another PID namespace")
        elif not info.frameworks and frameworks_in_text(info.cmdline):
            found[pid] = ProcInfo(pid, info.user, info.uid, info.cmdline, frameworks_in_text(info.cmdline), "command line")
    return found


def _with_cmdline(info: ProcInfo, args: str) -> ProcInfo:
    return ProcInfo(info.pid, info.user, info.uid, args, info.frameworks, info.framework_how, info.problem)


def _maps(host: Host, pid: int) -> tuple[tuple[str, ...], str | None]:
    try:
        maps = host.read_text(f"/proc/{pid}/maps", MAPS_LIMIT)
    except HostError:
        return (), None  # another user's process (EACCES), or too large: the command line may still tell
    frameworks, marker = frameworks_in_maps(maps)
    return frameworks, (f"maps: {marker}" if marker else None)


def _ps_args(host: Host, pids: Iterable[int], timeout_s: float) -> dict[int, str]:
    result = host.run(["ps", "-ww", "-o", "pid=,args=", "-p", ",".join(str(p) for p in pids)], timeout_s)
    if result.stdout.strip() == "" or result.timed_out or result.missing:
        return {}
    out: dict[int, str] = {}
    for line in result.stdout.splitlines():
        pid, _, args = line.strip().partition(" ")
        if pid.isdigit() and args.strip():
            out[int(pid)] = args.strip()
    return out
