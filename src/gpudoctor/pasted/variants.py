"""Which build variant of a library the paste says is installed, where its CPU and GPU builds are separate
distributions that write one import package: onnxruntime beside onnxruntime-gpu, faiss-cpu beside faiss-gpu.

Listings (pip list, freeze, show, conda list under its header) are read by gpudoctor.pasted.read; this reads the
other ways a report shows the variants, each into `Gathered.distributions` with the version it names, or ""
where it names none:

- a pip install command that names two distributions of one family ("!pip install onnxruntime-gpu onnxruntime
  onnxruntime-tools"): both end up installed unless the lines after it show the install failing;
- a sentence that says two of them are installed ("Both faiss-cpu and faiss-gpu is installed");
- a bare conda list row without its header ("faiss-cpu  1.6.1  py27h6bb024c_0  pytorch");
- pip's "Requirement already satisfied: faiss-gpu in ... (1.7.2)".

The checks judge what was installed (gpudoctor.checks.libraries: two of a family installed together;
gpudoctor.checks.catalogued.framework_builds: the CPU variant alone where the program wants the GPU).
"""

from __future__ import annotations

import re

from gpudoctor.checks.libraries import VARIANT_FAMILIES
from gpudoctor.pasted.gathered import Gathered

# The families (gpudoctor.checks.libraries, whose checks judge them), each a tuple of distributions that write one
# import package.
FAMILIES = VARIANT_FAMILIES
VARIANTS = frozenset(n for family in FAMILIES.values() for n in family)
_NAMES = sorted(VARIANTS, key=len, reverse=True)
_NAME = "|".join(re.escape(n) for n in _NAMES)
_FAMILY_OF = {n: family for family, names in FAMILIES.items() for n in names}

# An install command and the requirements it names, up to an option that ends them: at the start of a line (after a
# shell prompt: "$ ", "(env) C:\\work> ", "PS C:\\> "), in backticks, or a notebook's "!pip" / "%pip" (a sentence that
# advises one is no command that ran)
_INSTALL = re.compile(
    r"(?:^[ \t]*(?:\([\w.-]{1,60}\)[ \t]*)?(?:(?:PS[ \t]+)?[^\s`]{0,200}[$#>][ \t]*)?|[`!%])(?:uv[ \t]+)?pip3?[ \t]+install[ \t]+"
    r"(?P<args>[^\n`]{1,600})",
    re.IGNORECASE,
)
_REQUIREMENT = re.compile(rf"^(?P<name>{_NAME})(?:==(?P<version>\d[\w.+!]{{0,40}}))?$", re.IGNORECASE)
_INSTALL_FAILED = re.compile(r"^[ \t]*(?:ERROR|error)\b|No matching distribution|Could not find a version", re.IGNORECASE)
# "Both faiss-cpu and faiss-gpu is installed", "onnxruntime and onnxruntime-gpu are both installed"
_BOTH_SAID = re.compile(
    rf"(?<![\w-])(?P<a>{_NAME})(?![\w-])[ \t]+and[ \t]+(?P<b>{_NAME})(?![\w-])[ \t]+(?:are|is|were|was|got|get)[ \t]+"
    r"(?:both[ \t]+)?installed\b",
    re.IGNORECASE,
)
# pip's answer for a requirement already there: "Requirement already satisfied: faiss-gpu in /opt/conda/lib/python3.7/
# site-packages (1.7.2)" (pip's req_install / resolver message, the version in parentheses)
_SATISFIED = re.compile(
    rf"Requirement already satisfied:[ \t]*(?P<name>{_NAME})(?![\w-])[^\n(]{{0,300}}\((?P<version>\d[\w.+!]{{0,40}})\)",
    re.IGNORECASE,
)
# A conda list row on its own: name, version, build string (with a digit: "py27h6bb024c_0", "pypi_0", "0", never a
# word of a sentence such as "onnxruntime 1.16.0 is installed"), and the channel where it is not the default one
CONDA_ROW = re.compile(
    rf"^[ \t]*(?P<name>{_NAME})[ \t]+(?P<version>\d[\w.]{{0,40}})[ \t]+(?P<build>(?=[\w.]{{0,80}}\d)[\w.]{{1,80}})(?:[ \t]+(?P<channel>[\w./:-]{{1,80}}))?[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)


def read_variants(g: Gathered, text: str) -> None:
    """What the text says about installed variants of FAMILIES (the module's docstring names the three forms)."""
    text = text[:1_000_000]
    if not any(family in text.lower() for family in FAMILIES):
        return
    _install_commands(g, text)
    for m in _SATISFIED.finditer(text):
        g.distributions.setdefault(m.group("name").lower(), m.group("version"))
    for m in _BOTH_SAID.finditer(text):
        if _FAMILY_OF[m.group("a").lower()] == _FAMILY_OF[m.group("b").lower()] and m.group("a").lower() != m.group("b").lower():
            for name in (m.group("a").lower(), m.group("b").lower()):
                g.distributions.setdefault(name, "")
            g.notes.append(f"{m.group('a')} and {m.group('b')}: installed together (the reporter says so)")
    for m in CONDA_ROW.finditer(text):
        name = m.group("name").lower()
        if name in g.distributions and g.distributions[name]:
            continue  # a listing read it already
        g.distributions[name] = m.group("version")
        g.conda_builds[name] = m.group("build")
        if (m.group("channel") or "pypi") != "pypi":
            g.conda = True


def _install_commands(g: Gathered, text: str) -> None:
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if "install" not in line or (m := _INSTALL.search(line[:2_000])) is None:
            continue
        named: dict[str, str] = {}
        for token in m.group("args").split():
            if token.startswith("-"):
                break  # an option (-r, --index-url ...): what follows is not a requirement of this family
            if r := _REQUIREMENT.match(token.strip("'\"")):
                named[r.group("name").lower()] = r.group("version") or ""
        families = {_FAMILY_OF[n] for n in named}
        if len(named) < 2 or len(families) != 1:
            continue
        if any(_INSTALL_FAILED.search(after[:2_000]) for after in lines[i + 1 : i + 8]):
            continue
        for name, version in named.items():
            g.distributions.setdefault(name, version)
        g.notes.append(f"{', '.join(named)}: installed together by one command (line {i + 1})")
