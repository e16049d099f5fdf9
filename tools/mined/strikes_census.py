"""The strike census (issue 27, h225): every partly and wrong verdict of the latest run of the open blind sets, sorted
into generic strike categories by the reason's own words. `PYTHONPATH=. python tools/mined/strikes_census.py` writes
tools/mined/strikes-3-15.toml (one row per verdict: case, set, verdict, categories, the words that show each) and prints
the counts per category that tools/mined/strikes-3-15.md tabulates.

A category is a rule a plan could break anywhere (an apt-get install with no index refresh before it), not a
message; a reason may show several. The patterns were written by reading the reasons of sets 10-15: a reason no
pattern reads is `unclassified`, counted, never dropped. Owners: the builder of issue 27's round that pursues it
(h222 clean bills, h223 verification and the reporter's medium, h224 asks, h225 the plan's own steps); `not generic`
(a cause no rule names) and the reviewers' own kinds 5 and false-finding are counted only.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

from tools.blind_sets import OPEN

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the tomli backport (a dependency with a marker)
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
# Each set's latest run: the verdict table its reviewers wrote last (the name changed as the sets went on).
LATEST = {3: "after", 4: "after", 5: "after", 6: "after", 7: "after", 8: "after-session"}

# category -> (who pursues it, the reason's words that show it)
CATEGORIES: dict[str, tuple[str, str | None]] = {
    "clean-bill-on-failing-paste": ("h222", r"No problems found|clean bill"),
    "missing-cause": (
        "not generic",
        r"names no cause|no cause is named|not recognised|misses that|ignores (the|that)|does not recognise|leaves it NOT "
        r"DECIDED|NOT DECIDED and|should diagnose|points at [^.]*(yet|but)|should name|misses the real cause",
    ),
    "verification-tests-nothing-that-failed": ("h223", r"verification|final check|tested nothing|the fix took"),
    "notebook-cell-syntax": ("h223", r"Colab cell|'!'|notebook form|'!export'"),
    "ask-cannot-run-or-apply": (
        "h224",
        r"cannot succeed|can't succeed|does not exist in|strike|struck|irrelevant|noise|padding|pointless|beside the "
        r"point|do(es)? not apply|does not decide|adds nothing|is the wrong tool|cannot run|unnecessary|will not show it",
    ),
    "ask-service-log-where-no-service": (
        "h224",
        r"journalctl -u \w+[^.]*(Docker|container|pod|no systemd|Singularity|"
        r"does not exist there|finds nothing|shows nothing)",
    ),
    "ask-lacks-where-to-run": (
        "h224",
        r"where to run|which container|does not say where|not say to run|inside the pod'? asks|should say to run|on the "
        r"GPU node'|given as kubectl exec|not scoped to the pod",
    ),
    "prose-where-a-command-is-possible": (
        "h225",
        r"prose|only a comment|is only a comment|no command|no fix command|no install command|bare sentence|only "
        r"read-only|gives no fix|withholds the install|no uninstall/install command|only (prints|printed command)|stops "
        r"(after|at the diagnosis|there)|only described|no step to|no step for|no plan:|plans only|only an ask|only a[n]? "
        r"'?(unexplained|cannot)|no fix is printed|a plan is possible|allows a command",
    ),
    "interpreter-not-the-reporters": (
        "h225",
        r"bare `?'?python|python3 instead|whatever python|not pin the interpreter|env's python|PyCharm's interpreter|"
        r"before it knows the interpreter|runs in the base env|does not exist on a setup-python|Spyder's interpreter|may "
        r"not reach the WinPython|targets no Python|into the system python3|another interpreter|wrong interpreter|outside "
        r"the uv project|system 'python3",
    ),
    "host-vs-container-side": (
        "h225",
        r"on the host, not|the host's python3|host nvcc|on the host shell|never says it is the host|container's workdir|"
        r"host CUDA toolkit plays no part|lives in the container|a host 'python3|into the running container|'on the "
        r"host', which is Windows",
    ),
    "windows-vs-wsl-or-linux-side": (
        "h225",
        r"runs on Windows, where|assumes? (plain )?Linux|Linux command that on Windows|no Linux driver or CUDA toolkit "
        r"goes inside WSL|cmd does not know|fails in cmd|native Windows Ollama for WSL2|treats it as native Windows|"
        r"takes the platform as Windows|'Platform: Linux'|joins with ':'|under no PowerShell label",
    ),
    "step-for-the-wrong-person": (
        "h225",
        r"renter|impossible (for|in a hosted)|admins |a cluster user cannot|hosted notebook|drain",
    ),
    "reboot-where-less-suffices": (
        "h225",
        r"reboots? at once|immediate reboot|a new shell is enough|is enough:|Anaconda Prompt' is enough",
    ),
    "reboot-without-the-change-it-needs": ("h225", r"reboots into a machine with no|a reboot does not fix"),
    "apt-install-without-update": ("h225", r"without 'sudo apt-get update'|apt-get update first"),
    "relative-path-depends-on-cwd": ("h225", r"relative (rm|path)|depends on the current directory"),
    "companion-not-moved": (
        "h225",
        r"moves? (torch|ctranslate2|it) alone|moved alone|companion|pin both together|pair faster-whisper|moved too|"
        r"without faster-whisper|also needs cuDNN|leaves the CPU onnxruntime|torchvision/torchaudio left",
    ),
    "release-or-pin-not-real-or-unfit": (
        "h225",
        r"does not exist in (this|the 20)|arrived in|pip 2[23]\.1|no longer compiles|flags the 2019 pip lacks|rather than "
        r"the 11\.1|names no target|unpinned --upgrade|no wheel for",
    ),
    "placeholder-where-the-value-is-known": (
        "h225",
        r"placeholder|<image>|without the reporter's mounts|no -n <namespace>|<packages>",
    ),
    "inline-command-breaks-when-pasted": (
        "h225",
        r"unquoted|break if pasted|break as pipes|fails as typed|does not strip single quotes|'\"'\"'",
    ),
    "costly-or-generic-step-before-the-cheap-fix": (
        "h225",
        r"cheap(est)? fix|generic extra work|leads? with|comes third|ahead of the fix|before the pip step",
    ),
    "prerequisite-step-missing": (
        "h225",
        r"headers install|no pip-upgrade|install command before the reboot|no 'sudo apt-get install -y gcc|must be "
        r"upgraded before|would fail without",
    ),
    "tool-of-another-distribution-or-packager": (
        "h225",
        r"akmods|pacman|NixOS|Debian-style|Rocky/RHEL|wrong tool on|conda list llama|conda-installed torch|in this conda "
        r"env the fix",
    ),
    "sudo-dropped": ("h225", r"without sudo"),
    "wrong-choice-when-facts-missing": ("kind 5", None),
    "false-finding": ("kind false-finding", None),
}
_KIND = {"wrong-choice-when-facts-missing": "5", "false-finding": "false-finding"}
_CARRIED = re.compile(r"^(\(carried[^)]*\) )+")
# An address in a reason (a wheel index, a thread) is not what shows a category: left out of the words kept.
_URL = re.compile(r"https?://\S+")


def strikes() -> list[dict]:
    """Every partly or wrong verdict of each open set's latest run, with its categories and the words that show them."""
    rows = []
    for name in OPEN:
        n = int(name.removeprefix("plans"))
        table = LATEST.get(n, "after_session" if n >= 9 else "after")
        verdicts: dict[str, dict] = {}
        for path in sorted((ROOT / "tests" / "blind" / name).glob("verdicts*.toml")):
            verdicts.update(tomllib.loads(path.read_text(encoding="utf-8")).get(table, {}))
        for case, v in sorted(verdicts.items()):
            if v["verdict"] not in ("partly", "wrong"):
                continue
            reason = _CARRIED.sub("", v["reason"])
            kinds = [str(k) for k in v.get("kinds", [])]
            shown: dict[str, str] = {}
            for cat, (_owner, rx) in CATEGORIES.items():
                if rx is None:
                    if _KIND[cat] in kinds:
                        shown[cat] = f"kinds: {_KIND[cat]}"
                elif m := re.search(rx, reason, re.I):
                    shown[cat] = _URL.sub("<address>", reason[max(0, m.start() - 50) : m.end() + 50])
            if "missed" in kinds and "missing-cause" not in shown:
                shown["missing-cause"] = "kinds: missed"
            rows.append(
                {
                    "case": case,
                    "set": n,
                    "verdict": v["verdict"],
                    "kinds": kinds,
                    "shown": shown or {"unclassified": _URL.sub("<address>", reason[:160])},
                }
            )
    return rows


def _toml_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'


def write(rows: list[dict], path: Path) -> None:
    out = [
        "# The strike census (h225, issue 27): every partly and wrong verdict of the latest run of the open blind sets",
        "# 3-15, with the generic categories its reason shows. Written by tools/mined/strikes_census.py; the counts are in",
        "# tools/mined/strikes-3-15.md.",
        "",
    ]
    for r in rows:
        out += [
            "[[strike]]",
            f"case = {_toml_str(r['case'])}",
            f"set = {r['set']}",
            f"verdict = {_toml_str(r['verdict'])}",
            f"kinds = [{', '.join(_toml_str(k) for k in r['kinds'])}]",
            f"categories = [{', '.join(_toml_str(c) for c in r['shown'])}]",
            "[strike.words]",
        ]
        out += [f"{c} = {_toml_str(w)}" for c, w in r["shown"].items()]
        out.append("")
    path.write_text("\n".join(out), encoding="utf-8")


def main() -> None:
    rows = strikes()
    write(rows, ROOT / "tools" / "mined" / "strikes-3-15.toml")
    total, recent = Counter(), Counter()
    for r in rows:
        for c in r["shown"]:
            total[c] += 1
            recent[c] += r["set"] >= 10
    print(f"{len(rows)} partly or wrong verdicts ({sum(r['set'] >= 10 for r in rows)} in sets 10-15)")
    print("| category | pursued by | sets 3-15 | sets 10-15 |\n| --- | --- | ---: | ---: |")
    for c, n in total.most_common():
        print(f"| {c} | {CATEGORIES.get(c, ('-',))[0]} | {n} | {recent[c]} |")


if __name__ == "__main__":
    main()
