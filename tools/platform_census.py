"""Platform census of the open blind sets: python tools/platform_census.py RUNS [--verdicts]

RUNS is a folder of `check --from input.txt --format json` outputs, one `<set>/<case>.json` per case of the open
sets (tools/blind_sets.OPEN). For each case the platform the case's expect.toml states (its free-text `platform`
field, read by the word rules below) is set beside what gpudoctor read (facts.platform: system, wsl, distro; the
plan's shell; whether the system was assumed, pasted.read_from) and the plan's package-manager commands. It prints
the mismatches by kind (issues 27/28: a plan for the wrong platform or place). The word rules read a reviewer's
prose, so a row is a lead to read, not a verdict; `--verdicts` adds the reviewers' reasons that name a platform,
shell or place.
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import sys
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools.blind_sets import OPEN  # noqa: E402

_WSL = re.compile(r"\bWSL\s*2?\b|Windows Subsystem", re.I)
_WINDOWS = re.compile(r"\bWindows\b|\bwin(?:10|11)\b", re.I)
_MAC = re.compile(r"\bmacOS\b|\bMac\s?OS\b|\bDarwin\b|\bApple (?:M\d|silicon)", re.I)
_LINUX = re.compile(
    r"\bLinux\b|Ubuntu|Debian|CentOS|RHEL|Red Hat|Rocky|Alma|Fedora|Arch\b|Manjaro|SUSE|Amazon Linux|Pop!_OS|Mint|"
    r"Jetson|Colab|Kaggle|Kubernetes|\bk8s\b|GKE|EKS|Slurm|HPC|cluster|docker|container|\bpod\b",
    re.I,
)
_UNKNOWN = re.compile(r"^\s*(?:unknown|unstated|not stated|OS not stated)|\bOS (?:is )?not stated\b|\bnot said\b", re.I)
_CONTAINER = re.compile(
    r"\bdocker\b|\bcontainer\b|\bpodman\b|\bApptainer\b|\bSingularity\b|\bKubernetes\b|\bpod\b|\bimage\b", re.I
)
_FAMILY = (
    (
        "dnf",
        re.compile(r"CentOS|RHEL|Red Hat|Rocky|AlmaLinux|\bAlma\b|Fedora|Amazon Linux|Oracle Linux|openEuler|TencentOS", re.I),
    ),
    ("pacman", re.compile(r"\bArch\b|Manjaro|EndeavourOS", re.I)),
    ("zypper", re.compile(r"SUSE|openSUSE", re.I)),
    ("apt", re.compile(r"Ubuntu|Debian|Pop!_OS|Linux Mint|Kali", re.I)),
)
_APT = ("apt", "apt-get")
_WORDS = re.compile(
    r"\b(?:WSL|Windows|PowerShell|cmd\.exe|bash|shell|host|inside the container|in the container|"
    r"container|distribution|apt|yum|dnf|pacman|CentOS|RHEL|Arch|cluster|login node|sudo|root)\b"
)


def expected(text: str) -> dict[str, object]:
    """What a case's expect.toml `platform` prose says: os (windows, wsl, mac, linux, unknown), container, family."""
    lead = re.split(r"[,(;]", text, maxsplit=1)[0]
    if _WSL.search(text):
        os_ = "wsl"
    elif _UNKNOWN.search(text) and not _WINDOWS.search(lead) and not _LINUX.search(lead):
        os_ = "unknown"
    elif _WINDOWS.search(text) and not _LINUX.search(lead):
        os_ = "windows"
    elif _MAC.search(text):
        os_ = "mac"
    elif _LINUX.search(text):
        os_ = "linux"
    else:
        os_ = "unknown"
    family = next((f for f, r in _FAMILY if r.search(text)), None)
    return {"os": os_, "container": bool(_CONTAINER.search(text)), "family": family}


def read(doc: dict) -> dict[str, object]:
    """What gpudoctor read: os, assumed, distro id, shell, whether the plan runs apt, and its container cues."""
    p = doc["facts"]["platform"]
    system, wsl = p.get("system"), bool(p.get("wsl"))
    os_ = "wsl" if wsl else {"Windows": "windows", "Darwin": "mac"}.get(system, "linux")
    rows = (doc.get("pasted") or {}).get("read_from") or []
    assumed = any(r.get("fact") == "platform.system" and r.get("assumed") for r in rows)
    plan = doc.get("plan") or {}
    argvs = [c["argv"] for s in plan.get("steps", []) for c in s.get("commands", []) if c.get("argv")]
    apt = any(a[0] in _APT or (a[0] == "sudo" and len(a) > 1 and a[1] in _APT) for a in argvs)
    cues = {c.get("cue") for c in doc["facts"].get("pasted", {}).get("cues", [])}
    return {
        "os": os_,
        "assumed": assumed,
        "distro": p.get("distro", {}).get("id"),
        "shell": plan.get("shell"),
        "commands": len(argvs),
        "apt": apt,
        "container_cues": sorted(c for c in cues if c and re.search(r"container|image|docker|pod|compose", c)),
    }


def kinds(exp: dict, got: dict) -> list[str]:
    """The mismatch kinds of one case."""
    out = []
    e, g = exp["os"], got["os"]
    if {e, g} == {"windows", "wsl"}:
        out.append(f"windows<->wsl: expected {e}, read {g}")
    elif e == "windows" and g in ("linux", "mac"):
        out.append("windows read as linux (assumed)" if got["assumed"] else "windows read as linux (stated)")
    elif e in ("linux", "wsl", "mac") and g == "windows":
        out.append(f"{e} read as windows")
    elif e == "wsl" and g == "linux":
        out.append("wsl read as plain linux" + (" (assumed)" if got["assumed"] else ""))
    elif e == "linux" and g == "wsl":
        out.append("linux read as wsl")
    windows_shell = got["shell"] in ("windows", "cmd", "powershell")
    if got["commands"] and e == "windows" and got["shell"] == "posix":
        out.append("shell: posix plan for a windows user")
    if got["commands"] and e in ("linux", "wsl") and windows_shell:
        out.append("shell: windows plan for a posix user")
    if exp["family"] in ("dnf", "pacman", "zypper") and got["apt"]:
        out.append(f"distribution: apt in the plan, expected {exp['family']}")
    if exp["family"] and got["distro"] and not _same_family(exp["family"], str(got["distro"])):
        out.append(f"distribution: read id {got['distro']!r}, expected {exp['family']} family")
    if exp["container"] and not got["container_cues"]:
        out.append("container: expected names one, no container cue read")
    return out


_IDS = {
    "apt": ("ubuntu", "debian", "pop", "linuxmint", "kali"),
    "dnf": ("centos", "rhel", "rocky", "almalinux", "fedora", "amzn", "ol", "openeuler", "tencentos"),
    "pacman": ("arch", "manjaro", "endeavouros"),
    "zypper": ("opensuse", "sles", "suse"),
}


def _same_family(family: str, distro: str) -> bool:
    return any(distro.startswith(i) for i in _IDS[family]) or distro in ("linux",)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", type=Path)
    ap.add_argument("--verdicts", action="store_true")
    ap.add_argument("--rows", action="store_true", help="print every mismatching case")
    args = ap.parse_args()
    counts: collections.Counter[str] = collections.Counter()
    rows = []
    seen = 0
    for name in OPEN:
        for case in sorted((ROOT / "tests/blind" / name / "cases").glob("*/expect.toml")):
            out = args.runs / name / f"{case.parent.name}.json"
            if not out.is_file():
                continue
            exp_doc = tomllib.loads(case.read_text(encoding="utf-8"))
            try:
                got = read(json.loads(out.read_text(encoding="utf-8")))
            except (ValueError, KeyError):
                continue
            seen += 1
            exp = expected(str(exp_doc.get("platform", "")))
            for k in kinds(exp, got):
                counts[k.split(":")[0] if k.startswith(("distribution", "container", "windows<->wsl")) else k] += 1
                rows.append((name, case.parent.name, k, str(exp_doc.get("platform", ""))[:110]))
    print(f"cases read: {seen}")
    for k, n in counts.most_common():
        print(f"{n:4d}  {k}")
    if args.rows:
        for r in rows:
            print(" | ".join(r))
    if args.verdicts:
        for name in OPEN:
            for v in sorted((ROOT / "tests/blind" / name).glob("verdicts*.toml")):
                doc = tomllib.loads(v.read_text(encoding="utf-8"))
                for _stage, cases in doc.items():
                    if not isinstance(cases, dict):
                        continue
                    for slug, verdict in cases.items():
                        if not isinstance(verdict, dict) or verdict.get("verdict") in ("right", "fine", None):
                            continue
                        reason = str(verdict.get("reason", ""))
                        if re.search(
                            r"\b(?:WSL|PowerShell|cmd\.exe|native Windows|wrong (?:platform|shell|OS)|on the host|inside the container|"
                            r"wrong machine|apt(?:-get)? on|yum|dnf|pacman|no root|without root|login node|bash (?:on|for) Windows)\b",
                            reason,
                        ):
                            print(f"{name} {v.name} {slug[:60]} [{verdict.get('verdict')}]: {reason[:400]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
