"""The Linux distribution from the traces a paste leaves without naming it: a kernel release, a package manager run.

A paste that names no distribution often shows it: the kernel release carries its distribution's naming (Ubuntu's
`6.5.0-41-generic`, Debian's `6.1.0-18-amd64` or `6.12.90+deb13.1-amd64`, Fedora's `.fc34.x86_64`, RHEL's and its
rebuilds' `.el9_3.x86_64`, Amazon Linux's `.amzn2.x86_64`), the reporter's own commands name the package manager
(apt, dnf or yum, pacman, zypper) or the distribution itself in a sentence ("on fedora with docker 20.10"), a package's version names Ubuntu's archive (`0ubuntu0.20.04.1`), and Debian's
multiarch library directory (/usr/lib/x86_64-linux-gnu) is its family's. Each trace is read with the line it stands on; a trace that names a family and not a distribution gives
the family only (apt is Ubuntu's and Debian's), and one that names no release gives none. Traces that disagree decide
nothing. In a paste that shows a container, the kernel is the host's and a package manager's run may be the image's:
none decides there (gpudoctor.pasted.read calls this only outside containers, WSL and Windows).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_LINE = 2_000

# Ubuntu's kernel release: <upstream>-<ABI>-<flavour>, the flavour one of the archive's (generic, lowlatency, the
# cloud-optimised aws, azure, gcp, gke, oracle, kvm, and nvidia, ibm, raspi): https://ubuntu.com/kernel/variants and
# canonical/kernel-docs docs/reference/ubuntu-kernels.md ("Kernel flavours"; the optimised kernels linux-aws, ...).
_UBUNTU_KERNEL = re.compile(
    r"(?<![\w.])\d+\.\d+\.\d+-\d+-(?:generic|lowlatency|aws|azure|gcp|gke|oracle|kvm|nvidia|ibm|raspi)"
    r"(?:-(?:64k|hwe|edge))?(?![\w.])"
)
# Ubuntu's kernel version string (uname -v, /proc/version): "#163-Ubuntu", and for a kernel backported to an older
# series (the HWE kernels) "#37~22.04.1-Ubuntu", the ~<series> suffix Ubuntu's backports carry, naming the release
# it was built for (https://wiki.ubuntu.com/Kernel/FAQ, "What is the Ubuntu kernel version"; the HWE kernels:
# https://ubuntu.com/kernel/lifecycle).
_UBUNTU_BUILD = re.compile(r"(?<![\w#])#\d+(?:~(?P<release>\d{2}\.\d{2})(?:\.\d+)*)?-Ubuntu\b")
# Debian's kernel release: <upstream>-<ABI>-<flavour>, the flavour its architecture's (amd64, arm64, cloud-amd64,
# rt-amd64), or since trixie <upstream>+deb<release>-<flavour> (Debian Kernel Handbook, "Kernel version and
# packaging": https://kernel-team.pages.debian.net/kernel-handbook/ch-versions.html).
_DEBIAN_KERNEL = re.compile(
    r"(?<![\w.])\d+\.\d+(?:\.\d+)?(?:-\d+|\+deb(?P<release>\d{1,2})[\w.~+]*)-(?:cloud-|rt-)?(?:amd64|arm64)(?![\w.])"
)
# The RPM distribution tag in a kernel's release: Fedora's .fc<release>, RHEL's (and its rebuilds', which share it)
# .el<major>[_<minor>], Amazon Linux's .amzn<release> (Fedora Packaging Guidelines, "Distribution Tag":
# https://docs.fedoraproject.org/en-US/packaging-guidelines/DistTag/).
_RPM_KERNEL = re.compile(
    r"(?<![\w.])\d+\.\d+\.\d+-[\d.]+\.(?:fc(?P<fc>\d{2})|el(?P<el>\d{1,2})(?:_\d+)*|amzn(?P<amzn>2023|2))"
    r"\.(?:x86_64|aarch64|ppc64le)(?![\w.])"
)
# A package built for Ubuntu's archive: "ubuntu" in its Debian revision (<upstream>-<debian>ubuntu<n>, and for an
# update to a released series <n>.<series> or a backport ~<series>: 460.80-0ubuntu0.20.04.2, 9.4.0-1ubuntu1~20.04.2;
# Ubuntu Packaging Guide, "Version numbers": https://canonical-ubuntu-packaging-guide.readthedocs-hosted.com/en/latest/explanation/versions/).
# Debian's own revisions carry +debNuM instead, and a PPA's ~ppa or ~gpu suffix keeps the "ubuntu" before it.
_UBUNTU_PACKAGE = re.compile(r"(?<=[\d.])-\d*ubuntu\d+(?:[.~](?P<release>\d{2}\.\d{2})(?![\d]))?")
# A package manager the reporter ran: the command begins its line (after a shell prompt and sudo), so a Dockerfile's
# RUN line or a sentence about apt is not a run on the machine the paste is about.
_PACKAGE_RUN = re.compile(
    r"^\s*(?:[\w.-]{1,64}@[\w.-]{1,64}:[^$#\s]{0,200}[$#]\s*|[$#]\s+)?(?:sudo\s+)?"
    r"(?P<tool>apt-get|apt|dnf|yum|pacman|zypper)\s+(?:-\S+\s+)*"
    r"(?P<verb>install|remove|purge|update|upgrade|module|in|-S\w*|-Syu)\b"
)
_TOOL_FAMILY = {"apt-get": "debian", "apt": "debian", "dnf": "rhel", "yum": "rhel", "pacman": "arch", "zypper": "suse"}
# The distribution the reporter names in a sentence about the machine: "on fedora with docker 20.10", "running CentOS 7",
# "on my Ubuntu 22.04 PC". The name must follow on/using/running/under (with at most an
# article or "my"), and stand alone: an image's tag ("on ubuntu:20.04", "ubuntu-22.04"), a path or a package name is not
# the machine. Each name is os-release(5)'s ID of that distribution and its family. Derivatives (Pop!_OS, Manjaro) are
# left out: their ID_LIKE names their base ("ubuntu debian"), which one family word cannot carry, and their base's
# driver packages differ from the family's default (Debian's nvidia-driver is no package on Mint). Linux Mint is read:
# the planner takes its ID for one of Ubuntu's archive (gpudoctor.planner.remedy.ubuntu_archive), so it gets Ubuntu's
# driver packages, never Debian's (RPG's thread, tests/pasted/cases/rpg-open-remode-9-driver340-cuda70, "on Linux Mint
# 17.2"; nvtop's, tests/blind/plans20/cases/2064-*, "on my Linux Mint installation"). Its release is Mint's own, which
# no Ubuntu release lookup reads (they ask for ID ubuntu). The release is read where its form is the one VERSION_ID holds (Ubuntu's YY.MM,
# Debian's, Fedora's and the RHEL family's major), else none. A sentence that names two distributions gives two traces
# that disagree, and decide nothing (agreed).
#
# DISTRIBUTIONS is the one list of distribution names read in pasted text, for this sentence reader and an OS field's
# reader (gpudoctor.pasted.read._os, through `names_a_distribution`) alike. A row: the name as written (lower case,
# words apart), its os-release(5) ID, its family, and the word that shows it in a line (the prefilter; "red" or
# "arch" alone would be any word).
DISTRIBUTIONS: tuple[tuple[str, str, str, str], ...] = (
    ("fedora", "fedora", "rhel", "fedora"),
    ("centos", "centos", "rhel", "centos"),
    ("rhel", "rhel", "rhel", "rhel"),
    ("red hat enterprise linux", "rhel", "rhel", "red hat"),
    ("rocky linux", "rocky", "rhel", "rocky"),
    ("almalinux", "almalinux", "rhel", "almalinux"),
    ("opensuse", "opensuse", "suse", "suse"),
    ("opensuse leap", "opensuse-leap", "suse", "suse"),
    ("opensuse tumbleweed", "opensuse-tumbleweed", "suse", "suse"),
    ("ubuntu", "ubuntu", "debian", "ubuntu"),
    ("linux mint", "linuxmint", "debian", "mint"),
    ("debian", "debian", "debian", "debian"),
    ("arch linux", "arch", "arch", "arch linux"),
)
_NAMED_ID = {name: (distro, family) for name, distro, family, _ in DISTRIBUTIONS}
# A plain-text prefilter: the pattern runs only on a line holding one of the words (lower case).
_NAMED_WORDS = tuple(dict.fromkeys(word for *_, word in DISTRIBUTIONS))
_NAMED = re.compile(
    r"\b(?:on|using|running|under)\s+(?:(?:a|an|my|the)\s+)?"
    # the longest name first: "opensuse leap" before "opensuse"
    r"(?P<name>"
    + "|".join(re.escape(name).replace(r"\ ", r"\s+") for name in sorted(_NAMED_ID, key=len, reverse=True))
    + r")(?![\w:/+-]|\.\w)"
    r"(?:\s+(?:(?P<yymm>\d{2}\.\d{2})(?:\.\d+)?|(?P<major>\d{1,2})(?:\.\d+)?)(?![\w/+-]|\.\w))?",
    re.IGNORECASE,
)


def names_a_distribution(text: str) -> bool:
    """Whether `text` holds one of DISTRIBUTIONS' words (any case): an OS field's answer that names a Linux
    distribution."""
    low = text.lower()
    return any(word in low for word in _NAMED_WORDS)


# The distribution an OS field's answer names, wherever in it the name stands (issues 27/28: a field's first word is
# often no distribution's: "Linux Ubuntu 18.04", "WSL2 Ubuntu 22.04", "Host is Ubuntu 20.04.5 LTS", "Description:
# Gentoo Linux", "amazon/Deep Learning AMI (Ubuntu 18.04)", and a name is often glued to its release, "Ubuntu22.04",
# "Red Hat9.2", or written after it, uname -v's "#..~18.04.1-Ubuntu"). A name stands alone against letters (not
# "xubuntu-desktop"'s part) but may touch its release's digits; "Linux" or "GNU/Linux" may stand between
# ("CentOS Linux release 7.9.2009", "Debian GNU/Linux 12"). "Red Hat" alone is the company's short name of its
# Enterprise Linux in an OS field (an answer names an OS there, not a product of the company).
_FIELD_NAMES = {**{name: (distro, family) for name, distro, family, _ in DISTRIBUTIONS}, "red hat": ("rhel", "rhel")}
_FIELD = re.compile(
    r"(?:(?P<before>\d{1,2}(?:\.\d{1,2}){0,2})[~-])?(?<![A-Za-z])(?P<name>"
    + "|".join(re.escape(name).replace(r"\ ", r"\s+") for name in sorted(_FIELD_NAMES, key=len, reverse=True))
    + r")(?![A-Za-z])(?:\s+(?:GNU/)?Linux(?![A-Za-z]))?(?:\s+(?:Server|Workstation|Desktop)\b)?[\s:]*(?:release\s+)?(?P<after>\d{1,2}(?:\.\d{1,2}){0,2}(?!\d))?",
    re.IGNORECASE,
)


def field_distribution(text: str) -> tuple[str, str, str] | None:
    """The distribution an OS field's answer names: its os-release(5) ID, family and VERSION_ID (Ubuntu's YY.MM of a
    point release, the others' release as written; "" where none), or None where it names none of DISTRIBUTIONS, or two."""
    found: dict[str, tuple[str, str, str]] = {}
    for m in _FIELD.finditer(text[:MAX_LINE]):
        distro, fam = _FIELD_NAMES[" ".join(m.group("name").lower().split())]
        release = m.group("after") or m.group("before") or ""
        if distro == "ubuntu":
            release = ".".join(release.split(".")[:2])
        if not found.get(distro, ("", "", ""))[2]:
            found[distro] = (distro, fam, release)  # (a field that names it twice, "Ubuntu : Ubuntu 18.04.6": the release)
    return next(iter(found.values())) if len(found) == 1 else None


# A sentence about another time names no distribution of this host ("It worked on Ubuntu 22.04 LTS last year.": the
# machine that worked, not the one that fails; tests/pasted/test_distribution_line.py's quiet twin).
_ELSEWHEN = re.compile(r"\b(?:worked|was working|used to|last (?:year|month|week)|previously|in the past)\b", re.IGNORECASE)
# Debian's multiarch library directory, <libdir>/<triplet> (Debian's multiarch spec:
# https://wiki.debian.org/Multiarch/Implementation, "Filesystem layout"); RPM distributions use /usr/lib64.
_MULTIARCH = re.compile(r"(?<![\w/])/usr/lib/(?:x86_64|aarch64|powerpc64le)-linux-gnu\b")


@dataclass(frozen=True)
class Trace:
    """One trace: the distribution's ID where it names one (else ""), its family, its release ("" where none), what
    it is, and the line it stands on."""

    distro: str
    family: str
    release: str
    means: str
    line: str


@dataclass(frozen=True)
class Traced:
    """What the traces agree on: the distribution ("" where only the family shows), family, release, and each line."""

    distro: str
    family: str
    release: str
    means: tuple[str, ...]
    lines: tuple[str, ...]


def _line_traces(line: str) -> list[Trace]:
    said = line.strip()[:MAX_LINE]
    out = []
    if _UBUNTU_KERNEL.search(said):
        out.append(Trace("ubuntu", "debian", "", "an Ubuntu kernel release (its flavour)", said))
    if m := _UBUNTU_BUILD.search(said):
        out.append(Trace("ubuntu", "debian", m.group("release") or "", "an Ubuntu kernel build (uname -v)", said))
    if m := _DEBIAN_KERNEL.search(said):
        out.append(Trace("debian", "debian", m.group("release") or "", "a Debian kernel release", said))
    if m := _RPM_KERNEL.search(said):
        if m.group("fc"):
            out.append(Trace("fedora", "rhel", m.group("fc"), "a Fedora kernel release (.fc tag)", said))
        elif m.group("el"):
            out.append(Trace("", "rhel", m.group("el"), "a RHEL-family kernel release (.el tag)", said))
        else:
            out.append(Trace("amzn", "rhel", m.group("amzn"), "an Amazon Linux kernel release (.amzn tag)", said))
    if m := _UBUNTU_PACKAGE.search(said):
        out.append(Trace("ubuntu", "debian", m.group("release") or "", "a package version built for Ubuntu", said))
    if m := _PACKAGE_RUN.match(said):
        out.append(Trace("", _TOOL_FAMILY[m.group("tool")], "", f"{m.group('tool')} run", said))
    named = names_a_distribution(said) and not _ELSEWHEN.search(said)
    for m in _NAMED.finditer(said) if named else ():
        distro, fam = _NAMED_ID[" ".join(m.group("name").lower().split())]
        release = ""
        if distro == "ubuntu":
            release = m.group("yymm") or ""
        elif distro in ("debian", "fedora", "centos", "rhel", "rocky", "almalinux"):
            release = m.group("major") or ""
        out.append(Trace(distro, fam, release, "the distribution the reporter names", said))
    if _MULTIARCH.search(said):
        out.append(Trace("", "debian", "", "Debian's multiarch library directory", said))
    return out


def read_traces(texts: list[tuple[str, list[str]]]) -> list[Trace]:
    """Every trace in the paste's sources, each once, in the order shown."""
    seen: list[Trace] = []
    for _, lines in texts:
        for line in lines[:200_000]:
            for trace in _line_traces(line):
                if not any(
                    (t.distro, t.family, t.release, t.means) == (trace.distro, trace.family, trace.release, trace.means)
                    for t in seen
                ):
                    seen.append(trace)
    return seen


def agreed(traces: list[Trace]) -> Traced | None:
    """The distribution the traces agree on; None where there are none or two disagree (a family, a distribution or a
    release against another): the paste then leaves the distribution unknown."""
    if not traces:
        return None
    families = {t.family for t in traces}
    distros = {t.distro for t in traces if t.distro}
    releases = {t.release for t in traces if t.release}
    if len(families) > 1 or len(distros) > 1 or len(releases) > 1:
        return None
    return Traced(
        next(iter(distros), ""),
        families.pop(),
        next(iter(releases), ""),
        tuple(t.means for t in traces),
        tuple(t.line for t in traces),
    )
