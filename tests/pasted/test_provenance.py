"""Every fact cites its line (issue 28): each fact of the partial snapshot built from every pasted case the
project keeps cites a line of that text that states it, or is marked assumed (never read).

A fact no line states would be a fact gpudoctor made up. KNOWN_GAPS names, by case and fact, those the reader
still writes without a line: the list can only shrink (a listed gap that no longer happens fails too).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.pasted import load_sources, read_pasted
from gpudoctor.pasted.blocks import normalise
from gpudoctor.pasted.provenance import unsourced
from tools.blind_sets import BLIND

ROOT = Path(__file__).resolve().parents[2]
# The blind set being collected now (RULES for this session: never read before its judgement): held out of the walk
# (tools/blind_sets.py names it, one answer for every tool and test).
COLLECTING = frozenset({BLIND})
CASES = sorted(
    [
        *ROOT.glob("tests/pasted/cases/*/report.txt"),
        # Every blind set, present and future (tests/blind/<set>/cases/<case>/input.txt), but the one being collected:
        # its reports stay unread by the reader's tests until it is judged, so no rule is fitted to them.
        *(p for p in ROOT.glob("tests/blind/*/cases/*/input.txt") if p.parts[-4] not in COLLECTING),
    ]
)

# (case directory, fact) written from no pasted line. Empty: every fact of every case cites its line.
KNOWN_GAPS: frozenset[tuple[str, str]] = frozenset()


def _read_from(path: Path) -> list[dict]:
    return read_pasted(load_sources([str(path)]))["pasted"]["read_from"]


def test_the_cases_are_there() -> None:
    assert {case for case, _ in KNOWN_GAPS} <= {p.parent.name for p in CASES}  # a listed gap names a case
    # The sets of real pasted reports: a glob that found none would make the walk below vacuous.
    for where in (
        "tests/pasted/cases",
        "tests/blind/pasted/cases",
        "tests/blind/plans/cases",
        "tests/blind/plans2/cases",
        *(f"tests/blind/plans{n}/cases" for n in range(3, 9)),
    ):
        assert any(str(p).startswith(str(ROOT / where)) for p in CASES), where


@pytest.mark.parametrize("path", CASES, ids=lambda p: f"{p.parts[-4]}/{p.parent.name}")
def test_every_fact_cites_its_line(path: Path) -> None:
    entries = _read_from(path)
    assert entries, "a pasted report gives at least its platform"
    lines = normalise(path.read_text(encoding="utf-8-sig", errors="replace"))
    gaps = {(path.parent.name, fact) for fact in unsourced(entries)}
    # Equal both ways: a new gap fails, and so does a listed one that no longer happens (the list only shrinks).
    assert gaps == {gap for gap in KNOWN_GAPS if gap[0] == path.parent.name}
    for entry in entries:
        if entry["assumed"]:
            assert entry["lines"] == [], entry  # assumed is never read
            continue
        for cited in entry["lines"]:
            # The cited line is the line of the text at that number (1-based), as read.
            assert cited["source"] == str(path)
            assert cited["text"] == lines[cited["line"] - 1].strip()[:300]


def test_assumed_facts_are_the_defaults() -> None:
    # Linux when no OS was named is assumed, not read; an OS the text names cites its line.
    from gpudoctor.pasted.read import Source

    silent = read_pasted(
        [Source("r.txt", "RuntimeError: CUDA error: no kernel image is available for execution on the device\n")]
    )
    system = next(e for e in silent["pasted"]["read_from"] if e["fact"] == "platform.system")
    assert (system["value"], system["assumed"], system["lines"]) == ("Linux", True, [])
    named = read_pasted(
        [
            Source(
                "r.txt",
                "OS: Microsoft Windows 10 Pro\nPython platform: Windows-10-10.0.19045-SP0\nPyTorch version: 2.1.0+cu121\n",
            )
        ]
    )
    facts = {e["fact"]: e for e in named["pasted"]["read_from"]}
    assert facts["platform.system"]["assumed"] is False
    assert facts["platform.system"]["lines"][0]["line"] in (1, 2)
    assert facts["python.distributions.torch"]["lines"] == [
        {"source": "r.txt", "line": 3, "text": "PyTorch version: 2.1.0+cu121"}
    ]


def test_a_fact_no_line_states_is_found() -> None:
    # The walk would see a made-up fact: a value written into the snapshot that the text never printed.
    from gpudoctor.pasted.build import build_snapshot
    from gpudoctor.pasted.provenance import cite
    from gpudoctor.pasted.read import Source, read_sources

    g = read_sources([Source("r.txt", "PyTorch version: 2.1.0+cu121\n")])
    snap = build_snapshot(g)
    snap["nvml"] = {"status": "ok", "driver_version": "535.104.05", "devices": []}
    assert "nvml.driver_version" in unsourced(cite(snap, g))


@pytest.mark.parametrize(
    ("text", "fact", "line"),
    [
        # Windows' backslashes: the path is kept with "/" (C:/Users/me/venv/Lib/site-packages), the frame spells it "\\".
        (
            "pip puts packages in site-packages\n"
            '  File "C:\\Users\\me\\venv\\Lib\\site-packages\\torch\\__init__.py", line 3, in <module>\n'
            "OSError: [WinError 126] The specified module could not be found\n",
            "python.site_packages.0",
            2,
        ),
        # Its own separators: the line that spells the whole path, not an earlier one naming its last component.
        (
            "pip puts packages in site-packages\n"
            '  File "/home/me/venv/lib/python3.10/site-packages/torch/__init__.py", line 3, in <module>\n'
            "ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory\n",
            "python.site_packages.0",
            2,
        ),
    ],
    ids=["backslashes", "own-separators"],
)
def test_a_path_cites_the_line_that_spells_it_whole_in_either_separator(text: str, fact: str, line: int) -> None:
    """provenance._path: "A path as the text spells it: with its own separators, with Windows' backslashes, or its last
    component": the whole path in either spelling is cited before a line that only names its last component."""
    from gpudoctor.pasted.read import Source

    entries = {e["fact"]: e for e in read_pasted([Source("r.txt", text)])["pasted"]["read_from"]}
    assert entries[fact]["assumed"] is False
    assert [c["line"] for c in entries[fact]["lines"]] == [line]


def test_a_path_spelled_only_by_its_last_component_cites_that_line() -> None:
    """provenance._path: "... or its last component": where neither spelling of the whole path is in the text."""
    from gpudoctor.pasted.build import build_snapshot
    from gpudoctor.pasted.provenance import cite
    from gpudoctor.pasted.read import Source, read_sources

    g = read_sources([Source("r.txt", "PyTorch version: 2.1.0+cu121\nthe prefix is myenv here\n")])
    snap = build_snapshot(g)
    snap.setdefault("python", {})["prefix"] = "/opt/conda/envs/myenv"
    entries = {e["fact"]: e for e in cite(snap, g)}
    assert [c["line"] for c in entries["python.prefix"]["lines"]] == [2]
    snap["python"]["prefix"] = "C:/Users/me/envs/myenv"
    g = read_sources([Source("r.txt", "the prefix is myenv here\nprefix C:\\Users\\me\\envs\\myenv\n")])
    entries = {e["fact"]: e for e in cite(snap, g)}
    assert [c["line"] for c in entries["python.prefix"]["lines"]] == [2]


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ("$ sbatch --gres=gpu:1 train.sh", "slurm"),
        ("qsub -l gpu=1 -l h_rt=120:00:00 run.sh", "pbs"),
        ("bsub -gpu num=1 python train.py", "lsf"),
    ],
)
def test_the_cluster_cites_the_line_of_its_own_scheduler(line: str, kind: str) -> None:
    """Every scheduler the cues know cites the line that named it (PBS's qsub and LSF's bsub, not only Slurm's)."""
    from gpudoctor.pasted.read import Source

    text = f"RuntimeError: No CUDA GPUs are available\n{line}\n"
    entries = {e["fact"]: e for e in read_pasted([Source("r.txt", text)])["pasted"]["read_from"]}
    assert entries["pasted.cluster"]["value"] == kind
    assert [c["line"] for c in entries["pasted.cluster"]["lines"]] == [2]


@pytest.mark.parametrize("path", CASES, ids=lambda p: f"{p.parts[-4]}/{p.parent.name}")
def test_every_cue_cites_the_line_that_says_it(path: Path) -> None:
    """A cue (where it ran, the platform, the interpreter, a GPU named) cites a line of the text as it stands, not one
    put together from what was read ("pytorch 1.4.0 py3.7_cpu_0" for a conda row spaced as conda prints it). A message
    a terminal wrapped is read with its lines joined: its start is on the line cited."""
    from gpudoctor.pasted.read import read_sources

    g = read_sources(load_sources([str(path)]))
    lines = [line for _, text in g.texts for line in text]
    for cue in g.cues:
        said = cue.get("line", "")
        if not said:
            continue  # (a cue of what the text lacks, "no OS named", has no line)
        assert any(said[:40] in line for line in lines), cue
