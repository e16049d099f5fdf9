"""The hostile corpus: recorded machines with attacker-chosen text in every field a probe reads.

Each case is a whole snapshot in which one anchor (a GPU name, a framework version, a toolkit path,
the Python executable, a PCI bus id, a UUID, an environment value, the driver version) is replaced
by a payload: shell injection aimed at a marker file, terminal escape sequences (title, clipboard,
line clearing, bidirectional override), rich markup, GitHub workflow commands, XML breakers, format
strings, a very long value. Deterministic: the same cases every run, generated from the machines in
tests/machines/.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MACHINES = Path(__file__).resolve().parent.parent / "machines"
MARKER = "PWNED"  # every injection tries to create this file in the current directory

PAYLOADS: dict[str, str] = {
    "semicolon": f";touch {MARKER};echo ",
    "dollar-paren": f"$(touch {MARKER})",
    "backtick": f"`touch {MARKER}`",
    "single-quote-break": f"'$(touch {MARKER})'",
    "double-quote-break": f'"$(touch {MARKER})"',
    "newline": f"\ntouch {MARKER}\n",
    "pipe-comment": f"| touch {MARKER} #",
    "and-and": f" && touch {MARKER}",
    "fish-paren": f"(touch {MARKER})",
    # fish reads \\' and \\\\ as escapes inside single quotes: a quoting that put them there would end the word.
    "backslash-quote": f"\\';touch {MARKER};#",
    "backslash-quote-2": f"x\\'';touch {MARKER};#",
    "backslash-dquote": f'\\\\"$(touch {MARKER})\\"',
    "zsh-note": f"; before $(touch {MARKER}) it's",
    "osc-title": "\x1b]0;owned\x07",
    "osc52-clipboard": "\x1b]52;c;dG91Y2ggUFdORUQ=\x07",
    "clear-line": "\x1b[2K\rfake ok",
    "c1-csi": "\x9b2J",
    "bidi": "\u202egnp.exe",
    "rich-markup": "[bold red]FORGED[/] [link=file:///etc/passwd]x[/link]",
    "gh-commands": "\n::add-mask::secret\n::stop-commands::tok\n::error::forged",
    "gh-encoded": "%0A::warning::forged%0D",
    "xml-break": "]]></failure><x a='&amp;'>",
    "format-string": "{0}{1!r}%s%d%n",
    "nul": "a\x00b",
    "long": "A" * 20000,
}

_UUID = re.compile(r"GPU-[0-9a-fA-F]{8}-[0-9a-fA-F-]{27}")
_BUS = re.compile(r"\b[0-9A-Fa-f]{8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7]\b")
_TOOLKIT = re.compile(r"/usr/local/cuda-\d+\.\d+")
_PRODUCT = re.compile(r"<product_name>([^<]+)</product_name>")
_DRIVER = re.compile(r"<driver_version>([^<]+)</driver_version>")


@dataclass(frozen=True)
class Case:
    name: str  # machine/anchor-kind/payload
    machine: str
    snapshot: dict[str, Any] | None
    raw: str | None = None  # the file's text, where it cannot be written from a dict (deep nesting)

    def text(self) -> str:
        if self.raw is not None:
            return self.raw
        # NaN and Infinity are written as JSON's non-standard tokens on purpose: a hostile file may hold them.
        return json.dumps(self.snapshot)


def _replace(obj: Any, old: str, new: str) -> Any:
    """`old` replaced by `new` in every string and key, recursively."""
    if isinstance(obj, str):
        return obj.replace(old, new)
    if isinstance(obj, list):
        return [_replace(x, old, new) for x in obj]
    if isinstance(obj, dict):
        return {_replace(k, old, new): _replace(v, old, new) for k, v in obj.items()}
    return obj


def anchors(snapshot: dict[str, Any]) -> dict[str, str]:
    """The machine-read strings of this snapshot worth attacking, by kind."""
    text = json.dumps(snapshot)
    found: dict[str, str] = {}
    py = snapshot.get("python") or {}
    if isinstance(py.get("executable"), str):
        found["python-executable"] = py["executable"]
    sites = py.get("site_packages") or []
    if sites and isinstance(sites[0], str):
        found["site-packages"] = sites[0]
    for name in ("torch", "tensorflow", "jax", "jaxlib"):
        v = (py.get("distributions") or {}).get(name)
        if isinstance(v, str):
            found[f"{name}-version"] = v
            break
    for kind, rx in (("toolkit-path", _TOOLKIT), ("gpu-uuid", _UUID), ("pci-bus-id", _BUS)):
        m = rx.search(text)
        if m:
            found[kind] = m.group(0)
    m = _PRODUCT.search(text)
    if m:
        found["gpu-name"] = m.group(1)
    m = _DRIVER.search(text)
    if m:
        found["driver-version"] = m.group(1)
    env = snapshot.get("env") or {}
    for name in ("CUDA_HOME", "CUDA_VISIBLE_DEVICES", "LD_LIBRARY_PATH", "VIRTUAL_ENV"):
        if isinstance(env.get(name), str) and env[name]:
            found[f"env-{name}"] = env[name]
            break
    return found


# Machines with many findings and fixes between them: every component's remediation is reached.
BASES = (
    "rtx4090-toolkit-paths-disagree",
    "rtx4090-nvidia-wheels-cu11-and-cu12",
    "p100-driver510-torch-cu121",
    "a30-mig-enabled-no-instances",
    "rtx3060-tf211-cuda12-only",
    "rtx3060-tf211-cudnn80-too-old",  # its site-packages path in a directory put first on LD_LIBRARY_PATH
    "t4-jax-beside-tf-notebook",
    "driver-library-mismatch-after-upgrade",
    "rtx2070x2-cuda-visible-devices-wrong",
    "windows-rtx3080-tensorflow215",
    "rtx3080-nouveau",
    "h100x8-driver565-torch221-cu121",
    "gt1030-desktop-memory-held",
    "docker-started-without-gpus",
)


def load_base(slug: str) -> dict[str, Any]:
    return json.loads((MACHINES / slug / "snapshot.json").read_text(encoding="utf-8"))


def _hide_interpreter(snapshot: dict[str, Any]) -> dict[str, Any]:
    """Point the recorded interpreter somewhere that does not exist here, so that a printed
    `python -m pip ...` line run by the shell tests can never reach a real pip."""
    exe = (snapshot.get("python") or {}).get("executable")
    if isinstance(exe, str) and exe.startswith("/"):
        return _replace(snapshot, exe, "/nonexistent-gpudoctor-hostile" + exe)
    return snapshot


PER_ANCHOR = 6  # payloads tried per (machine, anchor); rotated so that every payload meets every anchor kind


def cases() -> list[Case]:
    out = []
    names = list(PAYLOADS)
    turn = 0
    for slug in BASES:
        base = _hide_interpreter(load_base(slug))
        for kind, anchor in sorted(anchors(base).items()):
            chosen = [names[(turn + i) % len(names)] for i in range(PER_ANCHOR)]
            turn += PER_ANCHOR
            for pname in chosen:
                payload = PAYLOADS[pname]
                # The anchor kept, the payload appended: parsers still find the field, the payload rides along.
                out.append(Case(f"{slug}/{kind}/{pname}", slug, _replace(base, anchor, anchor + payload)))
    return out


SHELL_PAYLOADS = (
    "semicolon",
    "dollar-paren",
    "backtick",
    "single-quote-break",
    "double-quote-break",
    "newline",
    "pipe-comment",
    "and-and",
    "fish-paren",
    "backslash-quote",
    "backslash-quote-2",
    "backslash-dquote",
    "zsh-note",
)

# GitHub makes links, mentions and references of these (also behind backslash escapes).
MARKDOWN_PAYLOADS = (
    "_www.evil.example",
    " x@evil.example ",
    " \\@admin @admin ",
    " \\#1 #12 owner/repo#3 ",
    " https://evil.example/a ",
    "[l](https://evil.example)<img src=x>",
    "`` ` ```",
)


def markdown_cases() -> list[Case]:
    """Each markdown payload on each anchor of a few machines (GPU name, versions, paths, env values)."""
    out = []
    for slug in BASES[:6]:
        base = _hide_interpreter(load_base(slug))
        for kind, anchor in sorted(anchors(base).items()):
            for i, payload in enumerate(MARKDOWN_PAYLOADS):
                out.append(Case(f"{slug}/{kind}/markdown-{i}", slug, _replace(base, anchor, anchor + payload)))
    return out


def shell_cases() -> list[Case]:
    """Every shell payload on every anchor that the base machine's own plan prints.

    cases() rotates payloads over anchors, so few injections land on a field a command is built from;
    these land on exactly those fields (a framework version in a pip line, a toolkit path, a bus id),
    which is where pasting a printed fix would run code if quoting failed."""
    from gpudoctor.doctor import diagnose  # local: building the corpus for other tests needs no doctor
    from gpudoctor.host.replay import ReplayHost
    from gpudoctor.host.snapshot import validate_snapshot
    from gpudoctor.planner.prescribe import build

    out = []
    for slug in BASES:
        base = _hide_interpreter(load_base(slug))
        report = diagnose(ReplayHost(validate_snapshot(base)))
        printed = "\n".join(
            line for target in ("posix", "fish") for step in build(report.findings, target).steps for line in step.lines(target)
        )
        found = dict(anchors(base))
        dists = (base.get("python") or {}).get("distributions") or {}
        found.update({f"{name}-version": v for name, v in dists.items() if isinstance(v, str)})
        found.update({f"toolkit-path-{i}": m for i, m in enumerate(sorted(set(_TOOLKIT.findall(json.dumps(base)))))})
        for kind, anchor in sorted(found.items()):
            if anchor not in printed:
                continue
            for pname in SHELL_PAYLOADS:
                out.append(Case(f"{slug}/{kind}/{pname}/shell", slug, _replace(base, anchor, anchor + PAYLOADS[pname])))
    return out


def type_fuzz_cases() -> list[Case]:
    """Wrong types, NaN, huge numbers and deep nesting where the snapshot format expects strings or objects."""
    bad_values: dict[str, Any] = {
        "null": None,
        "number": 12345,
        "float-nan": float("nan"),
        "float-inf": float("inf"),
        "list": ["x", 1],
        "object": {"x": 1},
        "bool": True,
        "huge": 10**400,
    }
    out = []
    for slug in BASES[:3]:
        base = _hide_interpreter(load_base(slug))
        for key in ("files", "commands", "env", "python", "nvml", "platform", "format"):
            for vname, value in bad_values.items():
                snap = dict(base)
                snap[key] = value
                out.append(Case(f"{slug}/type:{key}/{vname}", slug, snap))
        py = base.get("python")
        if isinstance(py, dict):
            for field in ("executable", "version", "site_packages", "distributions"):
                for vname, value in bad_values.items():
                    snap = dict(base)
                    snap["python"] = {**py, field: value}
                    out.append(Case(f"{slug}/type:python.{field}/{vname}", slug, snap))
    depth = 5000
    out.append(
        Case(
            "deep-nesting",
            BASES[0],
            None,
            '{"format": "gpudoctor-snapshot/1", "files": ' + '{"a": ' * depth + '"x"' + "}" * depth + "}",
        )
    )
    out.append(
        Case(
            "deep-list-nesting", BASES[0], None, '{"format": "gpudoctor-snapshot/1", "env": ' + "[" * 100000 + "]" * 100000 + "}"
        )
    )
    out.append(Case("not-json", BASES[0], None, "\x1b]0;owned\x07 not json"))
    out.append(Case("empty", BASES[0], None, ""))
    out.append(Case("json-array", BASES[0], None, "[1, 2]"))
    out.append(Case("wrong-format", BASES[0], None, '{"format": "\u001b]0;x\u0007"}'))
    return out
