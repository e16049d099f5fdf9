"""Every block kind survives fuzzing and truncation: any text gives a snapshot, never a traceback.

Real captures of each kind (tests/fixtures, and the blocks the real reports in cases/ hold) are cut at
every line and at random characters, shuffled into each other, and mixed with arbitrary text; each
result must still read, validate as a snapshot and be diagnosed without an internal error.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.parsers.error_texts import extract_evidence
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.ask import ask_for
from gpudoctor.pasted.blocks import KINDS, find_blocks

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
CASES = Path(__file__).resolve().parent / "cases"
BLIND = ROOT / "blind"
MACHINES = ROOT / "machines"
# Kinds added for issue 28, whose real samples come from the blind sets' inputs and the catalogue's examples too
# (package rows without their header, REPL sessions, command lines with prompts, uv's install summary).
NEWER_KINDS = ("env_rows", "ldconfig", "repl", "prompt", "uv_changes")


def _tf_printed(path: Path) -> str:
    """What tf.sysconfig.get_build_info() prints for a build_info.py: the repr of its dict (OrderedDict([...]))."""
    text = path.read_text(encoding="utf-8")
    start = text.find("OrderedDict(") if "OrderedDict(" in text else text.find("build_info = {") + len("build_info = ")
    return text[start:].strip()


def _samples() -> dict[str, list[str]]:
    """Real text of each block kind: fixture captures, and every block found in the gathered reports."""
    out: dict[str, list[str]] = {k: [] for k in KINDS}
    files = sorted(FIXTURES.glob("nvidia-smi-text/*.txt")) + sorted(FIXTURES.glob("nvcc/*.txt"))
    files += sorted(FIXTURES.glob("proc-driver-version/*.txt")) + sorted(FIXTURES.glob("errors/*.txt"))
    files += sorted(CASES.glob("*/report.txt"))
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        for block in find_blocks(text):
            out[block.kind].append(block.text)
    for path in sorted(BLIND.glob("*/cases/*/input.txt")) + sorted(CASES.parent.glob("catalogue_examples/*.txt")):
        for block in find_blocks(path.read_text(encoding="utf-8", errors="replace")):
            if block.kind in NEWER_KINDS:
                out[block.kind].append(block.text)
    # `ldconfig -p` as recorded on real machines (tests/machines/*/snapshot.json), its first lines as a paste holds them.
    for path in sorted(MACHINES.glob("*/snapshot.json")):
        stdout = (json.loads(path.read_text(encoding="utf-8")).get("commands", {}).get("ldconfig -p") or {}).get("stdout")
        if isinstance(stdout, str) and "=>" in stdout:
            for block in find_blocks("\n".join(stdout.splitlines()[:80])):
                out[block.kind].append(block.text)
    for path in sorted(FIXTURES.glob("tf-build-info/*.py")):
        if "build_info = " in path.read_text(encoding="utf-8"):
            out["tf_build_info"].append(_tf_printed(path))
    return out


SAMPLES = _samples()
ALL = [text for texts in SAMPLES.values() for text in texts]
REPORTS = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(CASES.glob("*/report.txt"))]
SETTINGS = settings(
    max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


def survives(text: str, diagnose_too: bool = False) -> dict:
    snapshot = validate_snapshot(read_pasted([Source("fuzz", text)]), "fuzz")
    if diagnose_too:
        report = diagnose(ReplayHost(snapshot))
        assert not report.internal_errors, report.internal_errors
        ask_for(report.facts, report.findings)
    return snapshot


def test_every_kind_has_a_real_sample():
    # The package lists have no real capture in the fixtures yet (the gathered reports may hold some):
    # test_generated_package_lists below fuzzes them with generated rows of every layout.
    generated = ("pip_list", "pip_freeze", "pip_show")
    missing = [k for k, texts in SAMPLES.items() if not texts and k not in generated]
    assert not missing, f"no real capture of {missing}: add one to tests/fixtures"


@pytest.mark.parametrize("kind", sorted(k for k in KINDS if SAMPLES[k]))
def test_each_kind_is_recognised_by_itself(kind):
    for text in SAMPLES[kind]:
        assert kind in {b.kind for b in find_blocks(text)}, text[:200]


@pytest.mark.parametrize("kind", sorted(k for k in KINDS if SAMPLES[k]))
def test_truncated_at_every_line(kind):
    for text in SAMPLES[kind][:6]:
        lines = text.split("\n")
        for n in range(len(lines) + 1):
            survives("\n".join(lines[:n]))


@pytest.mark.parametrize("kind", sorted(k for k in KINDS if SAMPLES[k]))
@SETTINGS
@given(data=st.data())
def test_cut_anywhere(kind, data):
    text = data.draw(st.sampled_from(SAMPLES[kind]))
    cut = data.draw(st.integers(0, len(text)))
    tail = data.draw(st.integers(0, len(text)))
    survives(text[:cut])
    survives(text[tail:])


@SETTINGS
@given(parts=st.lists(st.sampled_from(ALL), min_size=1, max_size=5), junk=st.text(max_size=200))
def test_any_mix_of_real_blocks_diagnoses(parts, junk):
    survives(("\n" + junk + "\n").join(parts), diagnose_too=True)


@SETTINGS
@given(text=st.text(max_size=2000))
def test_arbitrary_text(text):
    survives(text, diagnose_too=True)
    extract_evidence(text)


line_alphabet = st.characters(blacklist_categories=("Cs",))


@SETTINGS
@given(
    rows=st.lists(
        st.tuples(
            st.from_regex(r"[A-Za-z][A-Za-z0-9_.\-]{0,20}", fullmatch=True),
            st.from_regex(r"\d{1,3}(\.\d{1,4}){1,3}(\+cu\d{3}|\+cpu)?", fullmatch=True),
        ),
        min_size=3,
        max_size=30,
    ),
    form=st.sampled_from(["freeze", "list", "conda", "show"]),
)
def test_generated_package_lists(rows, form):
    if form == "freeze":
        text = "\n".join(f"{n}=={v}" for n, v in rows)
    elif form == "list":
        text = "Package    Version\n---------- -------\n" + "\n".join(f"{n} {v}" for n, v in rows)
    elif form == "show":
        text = "\n".join(f"Name: {n}\nVersion: {v}\nLocation: /usr/lib/python3/dist-packages" for n, v in rows)
    else:
        text = "# Name  Version  Build  Channel\n" + "\n".join(f"{n} {v} py310_0 conda-forge" for n, v in rows)
    snapshot = survives(text, diagnose_too=True)
    assert snapshot.get("python", {}).get("distributions"), text[:300]


@SETTINGS
@given(data=st.data())
def test_lines_of_real_reports_shuffled(data):
    if not REPORTS:
        pytest.skip("no reports gathered yet")
    text = data.draw(st.sampled_from(REPORTS))
    lines = text.split("\n")
    picked = data.draw(st.lists(st.sampled_from(lines), max_size=60))
    noise = data.draw(st.lists(st.text(alphabet=line_alphabet, max_size=80), max_size=5))
    survives("\n".join(picked + noise), diagnose_too=True)


def test_huge_and_hostile_inputs_are_bounded():
    # A single enormous line, many lines, control characters and NUL: read, never a traceback.
    survives("x" * 2_000_000)
    survives("PyTorch version: 1.0\n" * 50_000)
    survives("\x00\x1b[31mNVRM: API mismatch\x07\r\n" * 1000, diagnose_too=True)
    survives("| NVIDIA-SMI 535.1  Driver Version: 535.1  CUDA Version: 12.2 |\n" + "|" * 100_000)


@pytest.mark.parametrize(
    "line",
    [
        "[pip3] nvidia-nccl-cu11==2.14.3",
        "\tlibcudnn.so.8 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcudnn.so.8",
        ">>> torch.__version__",
        "torch.cuda.is_available()  # False",
        "(container) $ CUDA_VISIBLE_DEVICES=0 nvidia-smi -L",
        "PS C:\\Users\\me> C:\\p\\python_embeded\\python.exe -m pip list",
        "Failed to initialize NVML: GPU access blocked by the operating system",
    ],
    ids=["env_rows", "ldconfig", "repl", "repl-comment", "prompt-container", "prompt-powershell", "wsl-nvml"],
)
def test_new_kinds_are_bounded_and_linear(line):
    # Many lines of one new kind read without a traceback, and four times the lines cost about four times the work:
    # compared as a ratio with generous slack (never a time limit), so a quadratic reader fails and a slow machine does not.
    import time

    def cost(n: int) -> float:
        # This process's CPU time, the better of two runs: what other processes on a busy machine (a second pytest
        # worker, another job) do to the wall clock does not enter the ratio.
        text = "\n".join([line] * n)
        best = float("inf")
        for _ in range(2):
            start = time.process_time()
            survives(text)
            best = min(best, time.process_time() - start)
        return best

    cost(200)  # warm the lazily compiled patterns
    small, large = cost(1_000), cost(4_000)
    assert large < 16 * max(small, 1e-3), (small, large)
