"""One loader and the shared checks of the blind plan sets (tests/blind/plans2, plans3, plans4).

A set is a folder whose cases/<NNN-slug>/ hold the reporter's paste (input.txt) and an expectation
written from the thread before gpudoctor ran (expect.toml). Each set's test module states its own
thresholds (how many cases, of which evidence, in which collector's range) and calls these checks;
the checks themselves (what a complete case is, where a URL may be named, which pins a plan claims a
dry run for) are the same for every set and live only here."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the tomli backport (a dependency with a marker)
    import tomli as tomllib

TESTS = Path(__file__).resolve().parent.parent
SLUG = re.compile(r"^\d{3,4}-[a-z0-9][a-z0-9-]*$")  # four digits from the tenth set (1001-1059)
# name==version in a command; a local version (+cu118) lives on the PyTorch or JAX index, which the dry
# runs cannot reach, so those are checked against shared/reference and said so in pins_checked.
PIN = re.compile(r"([A-Za-z0-9][A-Za-z0-9_.-]*)(?:\[[^\]]*\])?==([0-9][0-9A-Za-z.*]*)(?![0-9A-Za-z.+])")
TEXT_FIELDS = ("url", "title", "kind", "platform", "diagnosis", "fixed_by")
EVIDENCE = {"fine", "ask", "broken"}
# Where a case ran, read from its `platform` sentence (each set's README asks collectors to name it there).
WINDOWS_OR_WSL = re.compile(r"\b(Windows|WSL)\b")
CONTAINER_OR_CLUSTER = re.compile(
    r"\b(Docker|Kubernetes|container|Podman|Singularity|Apptainer|Slurm|HPC|cluster)\b", re.IGNORECASE
)
# Files under tests/ whose text may name a thread (expectations, pastes, records, tests).
_TEXT_SUFFIXES = {".toml", ".txt", ".md", ".py", ".json", ".yaml", ".yml"}

Case = dict[str, Any]


def cases(folder: Path) -> dict[str, Case]:
    """Every case of a set, by slug: its expect.toml parsed."""
    return {p.parent.name: tomllib.loads(p.read_text(encoding="utf-8")) for p in sorted((folder / "cases").glob("*/expect.toml"))}


def plan_commands(plan: Mapping[str, Any]) -> list[str]:
    """The plan's steps and every alternative's steps, flattened (an alternative is a line or a list)."""
    out = list(plan["steps"])
    for alt in plan.get("alternatives", []):
        out.extend([alt] if isinstance(alt, str) else alt)
    return out


def incomplete_cases(folder: Path, *, evidence: bool) -> list[str]:
    """Slugs whose folder or expectation is not a whole case; [] when every case is complete.

    A whole case has a slug name, a non-empty paste, written_before_run, every text field, a GitHub
    issue URL, a plan with non-empty steps, well-formed alternatives, wrong_if and pins_checked, and,
    where the set records it (evidence=True), one of the known kinds of evidence."""
    found = cases(folder)
    bad = sorted({d.name for d in (folder / "cases").iterdir() if d.is_dir()} ^ set(found))
    for slug, e in found.items():
        plan = e.get("plan", {})
        paste = folder / "cases" / slug / "input.txt"
        whole = (
            SLUG.match(slug) is not None
            and paste.is_file()
            and bool(paste.read_text(encoding="utf-8").strip())
            and e.get("written_before_run") is True
            and all(isinstance(e.get(f), str) and e[f].strip() for f in TEXT_FIELDS)
            and e["url"].startswith("https://github.com/")
            and "/issues/" in e["url"]
            and (not evidence or e.get("evidence") in EVIDENCE)
            and bool(plan.get("steps"))
            and all(isinstance(s, str) and s.strip() for s in plan["steps"])
            and all(isinstance(a, str) or (a and all(isinstance(s, str) for s in a)) for a in plan.get("alternatives", []))
            and bool(plan.get("wrong_if"))
            and bool(plan.get("pins_checked"))
        )
        if not whole:
            bad.append(slug)
    return bad


def plans_not_following_evidence(found: Mapping[str, Case]) -> list[str]:
    """Slugs whose plan contradicts its evidence: exactly the controls (fine) start with 'none'."""
    return [slug for slug, e in found.items() if (e["evidence"] == "fine") != e["plan"]["steps"][0].startswith("none")]


def evidence_counts(found: Mapping[str, Case]) -> dict[str, int]:
    counts = dict.fromkeys(sorted(EVIDENCE), 0)
    for e in found.values():
        counts[e["evidence"]] += 1
    return counts


def platform_counts(found: Mapping[str, Case]) -> dict[str, int]:
    """How many cases ran on Windows or WSL 2, and how many in containers or clusters (from `platform`)."""
    return {
        "windows_or_wsl": sum(bool(WINDOWS_OR_WSL.search(e["platform"])) for e in found.values()),
        "container_or_cluster": sum(bool(CONTAINER_OR_CLUSTER.search(e["platform"])) for e in found.values()),
    }


def short_ranges(found: Iterable[str], ranges: Mapping[str, tuple[int, int, int]]) -> dict[str, int]:
    """Collectors whose number range holds fewer cases than they committed to: name -> cases found."""
    numbers = [int(slug.partition("-")[0]) for slug in found]
    held = {name: sum(low <= n <= high for n in numbers) for name, (low, high, _) in ranges.items()}
    return {name: n for name, n in held.items() if n < ranges[name][2]}


def _spellings(url: str) -> set[str]:
    # jax-ml/jax was google/jax: a thread may be named under either spelling
    return {
        url,
        url.replace("github.com/jax-ml/jax/", "github.com/google/jax/"),
        url.replace("github.com/google/jax/", "github.com/jax-ml/jax/"),
    }


def sources_named_elsewhere(folder: Path) -> dict[str, list[str]]:
    """Case URLs (either jax spelling) that a file under tests/ outside this set names: slug -> URLs.

    Duplicate URLs inside the set are reported too, under the key 'duplicate'."""
    urls = {slug: e["url"] for slug, e in cases(folder).items()}
    # A reporter's paste (another blind case's input.txt, verbatim) may cite a thread as the reporter's own reading
    # (plans22/2234 quotes plans3/240's faster-whisper thread): that is not the project naming it.
    elsewhere = "\n".join(
        p.read_text(encoding="utf-8", errors="replace")
        for p in TESTS.rglob("*")
        if p.is_file()
        and folder not in p.parents
        and p.suffix in _TEXT_SUFFIXES
        and not (p.name == "input.txt" and p.parent.parent.name == "cases" and "blind" in p.parts)
    )
    # A URL named, not a longer one it begins (issues/132 is not issues/1323).
    out = {slug: sorted(s for s in _spellings(u) if re.search(re.escape(s) + r"(?![\w])", elsewhere)) for slug, u in urls.items()}
    out = {slug: named for slug, named in out.items() if named}
    repeated = sorted({u for u in urls.values() if list(urls.values()).count(u) > 1})
    if repeated:
        out["duplicate"] = repeated
    return out


_THREAD = re.compile(r"https://github\.com/(?P<repo>[\w.-]+/[\w.-]+)/(?:issues|pull|discussions)/(?P<n>\d+)")
_PROJECT_TEXT = ("src", "docs", "compat_matrix", "README.md")


def sources_seen_by_the_project(folder: Path, tree: Path) -> dict[str, list[str]]:
    """Case threads the project's own code and documents at `tree` (a checkout: src/, docs/, compat_matrix/, the
    README) already cite, in any spelling a source line uses ("owner/repo issue N", "owner/repo#N", the URL): slug ->
    the files. A set measures reports the project has never seen; tests/ is checked by sources_named_elsewhere, but a
    rule's source comment or a findings page may name a thread too (plans10 1002: its thread was the source of the
    paging-file rule before the set was collected). Run on the tree of the set's baseline commit
    (`python -m tests.blind.setcheck SET-FOLDER TREE`): what later rounds cite is their business."""
    wanted: dict[str, re.Pattern[str]] = {}
    for slug, e in cases(folder).items():
        for url in _spellings(e["url"]):
            if (m := _THREAD.match(url)) is None:
                continue
            repo, n = re.escape(m.group("repo")), m.group("n")
            form = rf"{repo}(?:/issues/|/pull/|/discussions/|#|\s+(?:issue|pull request|PR)\s*#?){n}(?!\d)"
            wanted[slug] = re.compile(form if slug not in wanted else f"{wanted[slug].pattern}|{form}", re.IGNORECASE)
    seen: dict[str, list[str]] = {}
    for top in _PROJECT_TEXT:
        base = tree / top
        files = [base] if base.is_file() else sorted(p for p in base.rglob("*") if p.is_file()) if base.is_dir() else []
        for p in files:
            if p.suffix not in _TEXT_SUFFIXES:
                continue
            text = p.read_text(encoding="utf-8", errors="replace")
            for slug, pattern in wanted.items():
                if pattern.search(text):
                    seen.setdefault(slug, []).append(str(p.relative_to(tree)))
    return seen


def pins_missing_from_record(folder: Path) -> tuple[int, list[tuple[str, str]]]:
    """(plans that claim a dry run, [(slug, name==version)] such a plan names but no pins*.txt records)."""
    record = "\n".join(p.read_text(encoding="utf-8") for p in sorted(folder.glob("pins*.txt")))
    claimed = 0
    missing: list[tuple[str, str]] = []
    for slug, e in cases(folder).items():
        if not any("dry run" in line for line in e["plan"]["pins_checked"]):
            continue
        claimed += 1
        for step in plan_commands(e["plan"]):
            missing += [(slug, f"{name}=={ver}") for name, ver in PIN.findall(step) if f"{name}=={ver}" not in record]
    return claimed, missing


class WholeSet:
    """The checks of a blind set from the third on, as a base class: a set's test file subclasses it (its name
    starting with Test, so pytest collects it) and says only its own folder, collectors' ranges and thresholds.
    A set is whole before anyone runs gpudoctor on it: every case has its paste and an expectation written from
    the thread (written_before_run) and a known kind of evidence, plans the way its evidence says, comes from a
    thread no other file under tests/ names, and every pin its plan claims a dry run for is in the set's record.
    The thresholds are the whole set's (both collectors together): while one collector's half alone is merged,
    the counts that need the other half fail and say which count is short."""

    here: Path
    #: Each collector's range of case numbers and the least number of cases it committed to.
    ranges: Mapping[str, tuple[int, int, int]]
    least_cases = 40
    least_evidence: Mapping[str, int] = {"fine": 8, "ask": 8, "broken": 8}
    least_windows_or_wsl = 8
    least_container_or_cluster = 6

    def test_every_case_has_its_paste_and_an_expectation_written_before_the_run(self) -> None:
        assert cases(self.here)
        assert incomplete_cases(self.here, evidence=True) == []

    def test_the_plan_follows_the_kind_of_evidence(self) -> None:
        """fine: nothing to change (a control, its plan starts with 'none'); ask: the commands that collect
        what decides; broken: a fix. Only controls start their plan with 'none'."""
        assert plans_not_following_evidence(cases(self.here)) == []

    def test_sources_are_distinct_and_named_nowhere_else_under_tests(self) -> None:
        assert sources_named_elsewhere(self.here) == {}

    def test_every_pin_a_plan_claims_a_dry_run_for_is_in_the_pin_record(self) -> None:
        claimed, missing = pins_missing_from_record(self.here)
        assert claimed
        assert missing == []

    def test_each_collector_filled_its_range(self) -> None:
        assert short_ranges(cases(self.here), self.ranges) == {}

    def test_the_set_has_enough_cases_of_each_kind_of_evidence(self) -> None:
        found = cases(self.here)
        counts = evidence_counts(found)
        assert len(found) >= self.least_cases, len(found)
        assert {kind: n for kind, n in counts.items() if n < self.least_evidence.get(kind, 0)} == {}, counts

    def test_the_set_has_enough_windows_and_container_cases(self) -> None:
        counts = platform_counts(cases(self.here))
        assert counts["windows_or_wsl"] >= self.least_windows_or_wsl, counts
        assert counts["container_or_cluster"] >= self.least_container_or_cluster, counts


if __name__ == "__main__":
    import sys

    for slug, where in sorted(sources_seen_by_the_project(Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()).items()):
        print(slug, "cited by", ", ".join(where))
