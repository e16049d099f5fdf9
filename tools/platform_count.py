"""Count the printed commands whose platform, shell, distribution, interpreter or place contradicts the paste's (issue
27, kind 8), over every recorded case.

    python tools/platform_count.py [--list] [--only TEXT]

Each case tools/precondition_count.py reads (recorded machines, pasted cases, the blind pasted set, blind plan sets 3
to 10; never plans11, a blind set) is checked as `check` checks them; each command it prints (the plan's steps,
their alternatives and the asks) is judged against the facts the paste became and the paste's own text, by rules of
its own (its own tables and patterns), apart from the modules that decide (gpudoctor.planner.where,
gpudoctor.pasted.ask, gpudoctor.cmdline, gpudoctor.planner.needs and remedy). The rules, each from the reviewers'
kind-8 reasons of sets 3 to 10 (tests/blind/plans*/verdicts-*.toml):

- windows: a Linux program (or sudo, python3, a Unix `find`) printed for Windows;
- linux: a Windows program (or a .exe) printed for Linux outside WSL;
- wsl-side: a Linux program printed under "in Windows PowerShell" (a WSL report's other side);
- shell: a PowerShell cmdlet printed for cmd.exe, or for "cmd.exe or PowerShell" (Restart-Computer where
  `shutdown /r /t 0` runs in both);
- family: one distribution family's package tool printed for another's (the family the facts or the paste's text
  name: Rocky, RHEL, CentOS, Fedora, an .el8 kernel; Ubuntu, Debian), or dkms on Fedora (akmods); where no family is
  shown, such a tool asked with no `cat /etc/os-release` asked before it;
- interpreter: a bare python or python3 (or pip) where the paste shows the program's own interpreter (an
  environment's site-packages path outside the system's, an embedded or portable Python, a venv's Scripts folder, a
  web UI's webui-user.bat launcher on Windows, which runs its venv) or the machine probed one;
- place: a Python interpreter or pip, or a read of the program's own environment (ldconfig, ldd, printenv), run on the
  host's shell (no container runtime before it, no note saying where) where the paste shows the program in a
  container, an image, a pod or a Singularity/Apptainer image (a Dockerfile, docker run/exec/compose, kubectl, podman,
  singularity exec); a loader read beside NVIDIA's container hook failing (nvidia-container-cli, nvidia-docker 1's
  wrapper, Apptainer's --nv: they run on the host) is the host's;
- service: `journalctl -u NAME` where the paste shows NAME run in a container or by hand (`./NAME`, `NAME serve` at a
  prompt): it has no systemd unit there.

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
# Linux's own programs (the kernel's, the distributions' package tools, systemd's): none runs on Windows.
_LINUX = {"apt-get", "apt", "apt-mark", "dpkg", "dnf", "yum", "zypper", "rpm", "modprobe", "rmmod", "lsmod", "modinfo",
          "update-initramfs", "dracut", "grubby", "reboot", "ubuntu-drivers", "usermod", "dmesg", "ldconfig", "ldd",
          "systemctl", "journalctl", "mokutil", "lspci", "tee", "wget", "dkms", "uname", "nvidia-modprobe"}  # fmt: skip
_WINDOWS = {"reg", "pnputil", "wsl", "where.exe", "powershell", "Restart-Computer"}
_FAMILY_TOOL = {"apt-get": "debian", "apt": "debian", "apt-mark": "debian", "dpkg": "debian", "update-initramfs": "debian",
                "ubuntu-drivers": "debian", "dnf": "rhel", "yum": "rhel", "rpm": "rhel", "grubby": "rhel", "zypper": "suse"}  # fmt: skip
_RHEL_IDS = {"rhel", "centos", "fedora", "rocky", "almalinux", "ol", "amzn", "opencloudos", "tencentos"}
_DEBIAN_IDS = {"debian", "ubuntu", "linuxmint", "pop", "raspbian", "kali"}
_PYTHONS = {"python", "python3", "python.exe", "pip", "pip3"}
# What reads the program's own environment: its loader's cache, its variables, what a library of it links. Run on the
# host's shell, they read the host's, not the container's or the image's.
_PROGRAM_SIDE = {"ldconfig", "ldd", "printenv"}

# The paste's own words of a distribution family (a name, an Enterprise Linux kernel's .elN release, the package tools
# the reporter ran), the reporter's text, not a decider's reading of it.
_RHEL_SAID = re.compile(r"\b(?:Rocky ?Linux|Rocky \d|RHEL ?\d|Red ?Hat Enterprise|CentOS|AlmaLinux|Fedora)\b|\.el[789]\b"
                        r"|^\s*(?:\$|#)\s*(?:sudo )?(?:dnf|yum) ", re.IGNORECASE | re.MULTILINE)  # fmt: skip
_DEBIAN_SAID = re.compile(r"\b(?:Ubuntu|Debian)\b|^\s*(?:\$|#)\s*(?:sudo )?apt(?:-get)? ", re.IGNORECASE | re.MULTILINE)
_FEDORA_SAID = re.compile(r"\bFedora\b|\.fc\d\d\b", re.IGNORECASE)
# The program run in a container, image or pod: a Dockerfile's FROM and RUN, a run or exec of a container runtime, a
# compose file's service with an image, a pod, a Singularity or Apptainer image run.
_DOCKERFILE = re.compile(r"^\s*FROM\s+[\w./:@${}-]+(?:\s+AS\s+\w+)?\s*$[\s\S]{0,4000}?^\s*RUN\s", re.MULTILINE | re.IGNORECASE)
_CONTAINER_SAID = re.compile(r"\b(?:docker|podman)(?:\s+container)?\s+(?:run|exec)\b|\bdocker[- ]compose\s+(?:up|run|exec)\b"
                             r"|^\s*-?\s*image:\s*[\w.-]+(?:/[\w.-]+)*:[\w.-]+\s*$"
                             r"|\bkubectl\b|\b(?:singularity|apptainer)\s+(?:exec|run|shell)\b", re.IGNORECASE | re.MULTILINE)  # fmt: skip
# An environment's own interpreter shown: a site-packages under a prefix other than the system's (Linux: not /usr,
# /usr/local, ~/.local; Windows: a venv's, conda's, an embedded build's), or a portable build's python.exe.
_ENV_SITE = re.compile(r"(?:^|[\s\"'(])(?:~|/(?!usr/(?:local/)?lib/))[^\s\"':]*/lib/python\d(?:\.\d+)?/site-packages/"
                       r"|[A-Za-z]:[\\/]+[^\s\"']*?[\\/]+(?:venv|\.venv|env|envs[\\/]+[^\\/\s]+|python_embedd?ed|system[\\/]+python)"
                       r"[\\/]+(?:Lib[\\/]+site-packages|Scripts[\\/]+python\.exe|python\.exe)"
                       r"|python_embedd?ed[\\/]+python\.exe", re.IGNORECASE)  # fmt: skip
_USER_SITE = re.compile(r"/\.local/lib/python")
# The AUTOMATIC1111 family's launcher run on Windows: webui.bat runs the venv it makes beside itself, unless the
# release package's run.bat runs the web UI with its own system\python.
_WEBUI_LAUNCHER = re.compile(r"(?<![\w-])(?:webui-user|webui)\.bat\b", re.IGNORECASE)
_RUN_BAT = re.compile(r"(?<![\w-])run\.bat\b", re.IGNORECASE)


def _by_hand(text: str, name: str) -> bool:
    """Whether the paste shows `name` started by hand at a prompt (`./name...`, `$ name serve`): no systemd unit runs it."""
    n = re.escape(name)
    return re.search(rf"(?:^|[\s(`'\"])\./{n}[\w.-]*|^\s*(?:\$|#|>)\s*(?:\S+/)?{n}\s+serve\b", text, re.MULTILINE) is not None


def _printed(path: Path) -> tuple[object, str, list[tuple[object, bool]], str]:
    """(facts, the plan's shell target, [(command, is an ask)], the paste's text or "") of what `check` prints for the
    recording at path."""
    from gpudoctor.host.replay import ReplayHost
    from gpudoctor.host.snapshot import load_snapshot, validate_snapshot
    from gpudoctor.pasted import Source, read_pasted
    from gpudoctor.pipeline import CheckRequest, check

    text = ""
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
    return done.report.facts, target, out, text


def _family(facts, text: str) -> str:  # noqa: ANN001 (gpudoctor's own types)
    """The distribution family the facts' os-release or the paste's words show: debian, rhel, or unknown."""
    d = facts.platform.distro
    ids = {w for w in f"{d.id or ''} {d.id_like or ''}".lower().split()}
    if ids & _RHEL_IDS:
        return "rhel"
    if ids & _DEBIAN_IDS:
        return "debian"
    rhel, debian = bool(_RHEL_SAID.search(text)), bool(_DEBIAN_SAID.search(text))
    return "rhel" if rhel and not debian else "debian" if debian and not rhel else "unknown"


# A path the reporter wrote over ($USER, <env>, /path/to/): no interpreter to name, so the usual name is the best there is.
_WRITTEN_OVER = re.compile(r"[$<>]|/path/to/|\.\.\.", re.IGNORECASE)


def _own_interpreter(facts, text: str) -> bool:  # noqa: ANN001
    """Whether the paste (or the probed machine) shows the program's own interpreter, not the platform's usual name."""
    if text:
        if (facts.platform.system or "").lower().startswith("win") and _WEBUI_LAUNCHER.search(text) and not _RUN_BAT.search(text):
            return True
        return any(not _USER_SITE.search(m.group(0)) and not _WRITTEN_OVER.search(m.group(0)) for m in _ENV_SITE.finditer(text))
    py = getattr(facts.frameworks.python, "value", None)
    exe = getattr(py, "executable", None) or ""
    return bool(exe) and exe not in ("python", "python3", "/usr/bin/python", "/usr/bin/python3") and not _USER_SITE.search(exe)


def judge(facts, target: str, cmd, ask: bool, text: str = "") -> str | None:  # noqa: ANN001 (gpudoctor's own types)
    """The rule a printed command breaks, or None."""
    from gpudoctor.cmdline import Cmd

    if not isinstance(cmd, Cmd) or not cmd.argv:
        return None
    argv = [str(w) for w in cmd.argv]
    prog = argv[0].rsplit("/", 1)[-1]
    note = (cmd.note or "").lower()
    if "windows powershell" in note and (prog in _LINUX or prog in _UNIX - {"python3"}):
        return "wsl-side"
    if prog in _WRAPPERS or any(w in note for w in ("container", "inside", "in the image", "in wsl", "the pod")):
        return None
    if prog == "sudo" and len(argv) > 1:
        prog = argv[1].rsplit("/", 1)[-1]
    system = (facts.platform.system or "").lower()
    windows = system.startswith("win") and not facts.platform.wsl
    if windows and "windows powershell" not in note:
        unix_find = prog == "find" and any(w.startswith("-") for w in argv[1:])
        if prog in _LINUX or prog in _UNIX or argv[0] == "sudo" or unix_find:
            return "windows"
    if system == "linux" and not facts.platform.wsl and (prog in _WINDOWS or prog.lower().endswith(".exe")):
        return "linux"
    if target in ("cmd", "windows") and _CMDLET.match(argv[0]):
        return "shell"
    on_host = "host" in note or "node" in note
    if system == "linux":
        fam = _family(facts, text)
        tool = _FAMILY_TOOL.get(prog)
        if fam != "unknown" and tool is not None and tool != fam:
            return "family"
        fedora = "fedora" in f"{facts.platform.distro.id}".lower() or bool(text and _FEDORA_SAID.search(text))
        if prog == "dkms" and fedora:
            return "family"
        if fam == "unknown" and facts.pasted.partial and (tool is not None or prog == "dkms") and ask:
            return "family-unasked"
    # (NVIDIA's container hook, nvidia-container-cli, nvidia-docker 1's wrapper, which logs as "nvidia-docker | ", and
    # Apptainer's --nv, "Could not find any nv files on this host", run on the host and read its loader: the host's)
    hook = prog in ("ldconfig", "ldd") and any(w in text for w in ("nvidia-container-cli", "nvidia-docker |", "nv files on"))
    program = argv[0] in _PYTHONS or (argv[0] in _PROGRAM_SIDE and not hook)
    if program and text and not on_host and (_DOCKERFILE.search(text) or _CONTAINER_SAID.search(text)):
        return "place"
    if argv[0] in _PYTHONS and _own_interpreter(facts, text):
        return "interpreter"
    if prog == "journalctl" and "-u" in argv and text:
        unit = argv[argv.index("-u") + 1] if argv.index("-u") + 1 < len(argv) else ""
        if unit and (_CONTAINER_SAID.search(text) or _DOCKERFILE.search(text) or _by_hand(text, unit)):
            return "service"
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
            facts, target, cmds, text = _printed(path)
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
            why = judge(facts, target, cmd, ask, text)
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
