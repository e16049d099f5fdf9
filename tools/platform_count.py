"""Count the printed commands whose platform, shell, distribution or interpreter contradicts the paste's (issue 27,
kind 8), over every recorded case.

    python tools/platform_count.py [--list] [--only TEXT]

Every case tools/precondition_count.py reads (recorded machines, pasted cases, the blind pasted set, blind plan sets 3
to 10; never plans11, being collected) is checked as `check` checks it; each command
it prints (the plan's steps, their alternatives and the asks) is judged against the facts the paste became, by rules
of its own, apart from the modules that decide (gpudoctor.planner.where, gpudoctor.pasted.ask, gpudoctor.cmdline):

- windows: a Linux program (or sudo, python3, a Unix `find`) printed for Windows;
- linux: a Windows program (or a .exe) printed for Linux outside WSL;
- shell: a PowerShell cmdlet printed for cmd.exe, or for "cmd.exe or PowerShell" without its "in PowerShell" note;
- family: one distribution family's package tool printed for another's; where the family is not shown, such a tool
  (or dkms, which Fedora's akmods replaces) printed with no `cat /etc/os-release` asked before it;
- interpreter: a bare python or python3 where the paste showed the program's own interpreter.

A command run inside a container or pod (docker/podman exec or run, kubectl exec, a note saying so) is the
container's: its program is not judged against the host's platform.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from precondition_count import cases  # noqa: E402 (the cases it reads, set 10 among them)

_WRAPPERS = {"docker", "podman", "kubectl", "singularity", "apptainer", "srun", "wsl", "wsl.exe", "enroot"}
_CMDLET = re.compile(r"[A-Z][a-z]+-[A-Z][A-Za-z]+\Z")
_UNIX = {"sudo", "python3", "printenv", "which", "ls", "grep", "cat", "env", "export"}


def _printed(path: Path) -> tuple[object, str, list[tuple[object, bool]]]:
    """(facts, the plan's shell target, [(command, is an ask)]) of what `check` prints for the recording at path."""
    from gpudoctor.host.replay import ReplayHost
    from gpudoctor.host.snapshot import load_snapshot, validate_snapshot
    from gpudoctor.pasted import Source, read_pasted
    from gpudoctor.pipeline import CheckRequest, check

    if path.suffix == ".json":
        snap = load_snapshot(str(path))
    else:
        text = path.read_bytes().decode("utf-8-sig", errors="replace")
        snap = validate_snapshot(read_pasted([Source(path.name, text)]), path.parent.name)
    done = check(ReplayHost(snap), CheckRequest())
    out: list[tuple[object, bool]] = []
    target = "posix"
    if done.plan is not None:
        target = done.plan.target
        for s in done.plan.steps:
            out += [(c, False) for c in s.commands]
            out += [(c, False) for a in s.alternatives for c in a.remediation.commands]
    out += [(a.command, True) for a in done.asks]
    return done.report.facts, target, out


def judge(facts, target: str, cmd, ask: bool) -> str | None:  # noqa: ANN001 (gpudoctor's own types)
    """The rule a printed command breaks, or None."""
    from gpudoctor.cmdline import Cmd, render_lines
    from gpudoctor.planner import needs
    from gpudoctor.planner.needs import _WINDOWS_ONLY, LINUX_ONLY
    from gpudoctor.planner.remedy import family

    if not isinstance(cmd, Cmd) or not cmd.argv:
        return None
    argv = [str(w) for w in cmd.argv]
    prog = argv[0].rsplit("/", 1)[-1]
    note = (cmd.note or "").lower()
    if prog in _WRAPPERS or any(w in note for w in ("container", "inside", "in the image", "in wsl", "the pod")):
        return None
    if prog == "sudo" and len(argv) > 1:
        prog = argv[1].rsplit("/", 1)[-1]
    system = (facts.platform.system or "").lower()
    windows = system.startswith("win") and not facts.platform.wsl
    if windows and "windows powershell" not in note:
        unix_find = prog == "find" and any(w.startswith("-") for w in argv[1:])
        if prog in LINUX_ONLY or prog in _UNIX or argv[0] == "sudo" or unix_find:
            return "windows"
    if system == "linux" and not facts.platform.wsl and (prog in _WINDOWS_ONLY or prog.lower().endswith(".exe")):
        return "linux"
    if target in ("cmd", "windows") and _CMDLET.match(argv[0]):
        try:
            lines = render_lines(cmd, target)
        except Exception:
            lines = []
        if target == "cmd" or not any("in PowerShell" in ln for ln in lines):
            return "shell"
    if system == "linux":
        fam = family(facts)
        tool = getattr(needs, "TOOL_FAMILY", getattr(needs, "_TOOL_FAMILY", {})).get(prog)  # (the name before h152)
        if fam != "unknown" and tool is not None and tool != fam:
            return "family"
        if fam == "rhel" and prog == "dkms" and "fedora" in f"{facts.platform.distro.id}".lower():
            return "family"
        if fam == "unknown" and facts.pasted.partial and (tool is not None or prog == "dkms") and ask:
            return "family-unasked"
    if argv[0] in ("python", "python3", "python.exe"):
        from gpudoctor.planner.where import python_exe

        shown = python_exe(facts)
        if shown not in ("python", "python3", "/usr/bin/python", "/usr/bin/python3"):
            return "interpreter"
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--list", action="store_true", help="print each contradicting command")
    ap.add_argument("--only", default="", help="only the cases whose name contains this")
    args = ap.parse_args()
    kinds, per_set, failed, printed = Counter[str](), Counter[str](), 0, 0
    for name, path in cases():
        if args.only not in name:
            continue
        try:
            facts, target, cmds = _printed(path)
        except Exception as e:  # a recording the reader refuses is reported, not counted
            failed += 1
            print(f"{name}: not checked: {type(e).__name__}: {e}", file=sys.stderr)
            continue
        os_asked = False
        for cmd, ask in cmds:
            printed += 1
            argv = tuple(str(w) for w in getattr(cmd, "argv", ()))
            if argv == ("cat", "/etc/os-release"):
                os_asked = True
            why = judge(facts, target, cmd, ask)
            if why == "family-unasked" and os_asked:
                why = None
            if why:
                kinds[why] += 1
                per_set[name.split(":", 1)[0]] += 1
                if args.list:
                    print(f"{name}: {why}: {' '.join(argv)}")
    total = sum(kinds.values())
    print(
        f"contradicting commands: {total} of {printed} printed "
        f"({', '.join(f'{k} {n}' for k, n in sorted(kinds.items()))}); "
        f"per set: {', '.join(f'{k} {n}' for k, n in sorted(per_set.items()))}; not checked: {failed}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
