"""Every pin exists (issue 27): each framework install that a plan prints for a recorded machine (tests/machines,
tests/real, tests/install_machines) resolves, in the table of what the package indexes hold
(compat_matrix/indexes.toml, gpudoctor.matrix.indexes), for that machine's Python and platform. Offline: the
table was built from the real indexes by tools/index_table.py; `make verify-indexes` re-asks them.

Known failures (a pin the table says the index does not serve) and the installs the table cannot answer are
named below, each with why: the first list is the to-do of the planner, the second the table's gaps; the other
unknowns (no Python recorded, companions, JAX's release page) are counted by kind. All are exact, so a new
failure or gap fails the test until it is fixed or named here."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from gpudoctor.cmdline import Cmd, shell_for_os
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot
from gpudoctor.matrix.indexes import PLATFORMS, holds, platform_key, table
from gpudoctor.planner.prescribe import build
from gpudoctor.probed import Found

TESTS = Path(__file__).resolve().parent
SNAPSHOTS = sorted(
    [
        *TESTS.glob("machines/*/snapshot.json"),
        *TESTS.glob("real/*/snapshot.json"),
        *TESTS.glob("install_machines/*/snapshot.json"),
    ],
    key=lambda p: (p.parent.parent.name, p.parent.name),
)
FRAMEWORKS = {"torch": "torch", "tensorflow": "tensorflow", "tensorflow-gpu": "tensorflow", "jax": "jax"}
_VALUED = {"--index-url", "-i", "--extra-index-url", "--find-links", "-f", "--dest", "-d", "-c", "--constraint", "-r"}
_VALUED |= {"--requirement", "--python", "--target", "-t", "--platform", "--python-version", "--prefix", "--root"}

# (case, printed spec): why the index does not serve it. The planner's to-do (issue 27, "Every pin exists").
_TF214 = "2.14's [and-cuda] extra pins tensorrt==8.5.3.1, which has no wheel for Python 3.11 (the machine's)"
KNOWN_FAILURES: dict[tuple[str, str], str] = {
    ("gke-driver470-torch210-cu121", "tensorflow[and-cuda]==2.14.*"): _TF214,
    ("rtx3060-laptop-torch-cpu-build", "tensorflow[and-cuda]==2.14.*"): _TF214,
    ("t4-jax-beside-tf-notebook", "tensorflow[and-cuda]==2.14.*"): _TF214,
    # `gpudoctor install`'s undo line puts back the installed 1.7.1 from the package index, which (as the table
    # saw it) serves torch 1.7.1 for Python 3.7-3.9 only: this machine runs 3.6.
    ("rtx3070-torch171-cu102-no-sm86", "torch==1.7.1"): "no torch 1.7.1 wheel for Python 3.6 on the package index",
}

# (case, printed spec): why the table cannot answer (no row, or its source cannot say). Never passed in silence.
_WIN_TORCH = "torch from the PyTorch index on Windows after 2.3: not in the listings the table was written from"
_JAX_SDIST = "jax before 0.4.16 was published as an sdist only: the table lists wheels"
KNOWN_UNKNOWN: dict[tuple[str, str], str] = {
    ("h100-load-tf-jax-configured", "jax==0.4.13"): _JAX_SDIST,
    ("t4-jax-beside-tf-notebook", "jax==0.4.13"): _JAX_SDIST,
    ("jaxlib0414-jax046", "jax==0.4.14"): _JAX_SDIST,
    ("windows-forge-torch21-cu121-driver-cuda114", "torch==2.7.1+cu118"): _WIN_TORCH,
    ("windows-gtx1050ti-torch201-cu117", "torch==2.8.0+cu126"): _WIN_TORCH,
    ("windows-rtx3060-laptop-torch1121-conda-cpu", "torch==2.7.1+cu118"): _WIN_TORCH,
    ("windows-rtx3080-tensorflow215", "torch==2.14.*"): _WIN_TORCH,
    ("windows-rtx4080-laptop-torch222-cpu", "torch==2.14.*"): _WIN_TORCH,
    ("oobabooga-torch200-cpu-windows-rtx4090", "torch==2.14.*"): _WIN_TORCH,
    ("paintsundo-windows-pypi-torch-cpu-rtx3090", "torch==2.7.*"): _WIN_TORCH,
    ("tf217-windows-native-rtx4050-laptop", "torch==2.14.*"): _WIN_TORCH,
    # Undo lines that put back what is installed: builds older than the matrix or from no public index.
    ("windows-titan-rtx-x2-torch150-cu101", "torch==1.5.0+cu101"): "torch 1.5 is older than the matrix (1.7)",
    ("rtx5090x2-torch27-nightly-cu124-driver570", "torch==2.7.0.dev20250310+cu124"): "a nightly: on the nightly index only",
    # An NGC container's own build (2.1.0a0+32f93b1) is on no index: this undo line cannot succeed (planner's to-do).
    ("yuan2-ngc-container-torch-cu121-driver-cuda110", "torch==2.1.0a0+32f93b1"): "an NGC container's build, on no index",
}

# The other unknowns, counted by kind (verdicts says what each kind is).
# "companion" 48 (was 34): torch moves carry torchvision/torchaudio pinned to their release for the new torch wherever the
# package list was not seen whole (gpudoctor.planner.pick_torch.carried), 14 more printed companion pins.
UNKNOWN_COUNTS: dict[str, int] = {"no-python": 51, "companion": 48, "release-page": 9, "table": 14}


def pip_installs(words: tuple[str, ...]) -> tuple[list[str], dict[str, str | bool]] | None:
    """(requirement specs, options) of a `pip install` / `pip download` / `uv pip install` argv, else None."""
    try:
        at = next(i for i, w in enumerate(words) if w == "pip" or w.endswith(("/pip", "\\pip", "pip.exe")))
    except StopIteration:
        return None
    rest = words[at + 1 :]
    if not rest or rest[0] not in ("install", "download"):
        return None
    specs: list[str] = []
    opts: dict[str, str | bool] = {}
    i = 1
    while i < len(rest):
        w = rest[i]
        if w in _VALUED and i + 1 < len(rest):
            opts[w] = rest[i + 1]
            i += 2
            continue
        if w.startswith("-"):
            key, eq, value = w.partition("=")
            opts[key] = value if eq else True
        else:
            specs.append(w)
        i += 1
    return specs, opts


def _name(spec: str) -> str:
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    return canonicalize_name(Requirement(spec).name)


def _install_argvs(host, report) -> list[tuple[str, ...]]:
    """The pip lines `gpudoctor install FRAMEWORK` prints for the machine (its steps, their equivalents, the undo
    line), for each framework it can plan."""
    from gpudoctor.checks import Context
    from gpudoctor.errors import UsageError
    from gpudoctor.install.environment import read_env
    from gpudoctor.planner.plan import plan_install

    out: list[tuple[str, ...]] = []
    env = read_env(host, report.facts)
    for framework in ("torch", "tensorflow", "jax"):
        try:
            plan = plan_install(report.facts, Context(), framework, env=env)
        except UsageError:
            continue  # no GPU or driver seen: `install` asks what the build is for and prints no step
        out += [s.argv for s in plan.steps]
        out += [argv for _, argvs in plan.equivalents for argv in argvs]
        out += [c.words for c in plan.undo]
    return out


@cache
def printed(path: Path) -> tuple[str, str | None, tuple[tuple[str, str, str | None, bool, str | None], ...]]:
    """(case, table platform, ((spec, framework, variant, from JAX's release page, Python X.Y), ...)) of every
    framework install the machine is told to run: the plan `check` prints (steps and alternatives) and what
    `gpudoctor install` prints for each framework."""
    host = ReplayHost(load_snapshot(str(path)))
    report = diagnose(host)
    plan = build(report.findings, shell_for_os(report.facts.platform.system))
    env = report.facts.frameworks.python
    python = env.value.version if isinstance(env, Found) and env.value.version else None
    platform = platform_key(report.facts.platform.system, report.facts.platform.machine)
    lines = [c for s in plan.steps for c in (*s.commands, *(c for a in s.alternatives for c in a.remediation.commands))]
    argvs = [line.words for line in lines if isinstance(line, Cmd)] + _install_argvs(host, report)
    machine_python = ".".join(python.split(".")[:2]) if python else None
    made: dict[str, str] = {}  # conda environments the plan creates -> their Python ("conda create -n tf210 python=3.10")
    out = []
    for words in argvs:
        if words[:2] == ("conda", "create") and "-n" in words:
            pins = [w.split("=", 1)[1] for w in words if w.startswith("python=")]
            if pins:
                made[words[words.index("-n") + 1]] = pins[0]
        parsed = pip_installs(words)
        if parsed is None:
            continue
        # `conda run -n NAME python -m pip ...` runs in that environment: its Python when the plan made it.
        inside = words[words.index("-n") + 1] if words[:2] == ("conda", "run") and "-n" in words else None
        py = made.get(inside, machine_python) if inside else machine_python
        specs, opts = parsed
        if opts.get("--no-index"):
            continue  # installs what the `pip download` step before it fetched: that step is the one checked
        if opts.get("--dry-run"):
            continue  # uv's resolve-first step: the install after it carries the same specs
        index = opts.get("--index-url") or opts.get("-i")
        variant = str(index).rstrip("/").rsplit("/", 1)[-1] if isinstance(index, str) else None
        release_page = isinstance(opts.get("--find-links") or opts.get("-f"), str)
        for spec in specs:
            framework = FRAMEWORKS.get(_name(spec))
            if framework is None and _name(spec) in ("torchvision", "torchaudio"):
                framework = "torch-companion"
            if framework:
                out.append((spec, framework, variant, release_page, py))
    return path.parent.name, platform, tuple(dict.fromkeys(out))


def verdicts(path: Path) -> list[tuple[str, str, str, str]]:
    """(spec, answer, why, kind) for each printed framework install of the machine; `kind` sorts the unknowns:
    "no-python" (the machine records no Python: the plan names a placeholder interpreter), "companion"
    (torchvision/torchaudio: the table has no rows for them), "release-page" (JAX's CUDA jaxlib page), else
    "table" (the table has no row, or its source cannot say)."""
    case, platform, installs = printed(path)
    out = []
    for spec, framework, variant, release_page, python in installs:
        if framework == "torch-companion":
            out.append((spec, "unknown", "torchvision/torchaudio: the table has no rows for the companions", "companion"))
        elif release_page:
            out.append(
                (spec, "unknown", "its CUDA jaxlib comes from JAX's release page, which the table could not read", "release-page")
            )
        elif python is None:
            out.append((spec, "unknown", "the machine records no Python", "no-python"))
        else:
            h = holds(framework, spec, variant, python, platform)
            out.append((spec, h.answer, h.why or h.source, "table"))
    return out


def _all() -> list[tuple[str, str, str, str, str]]:
    return [(p.parent.name, *v) for p in SNAPSHOTS for v in verdicts(p)]


@pytest.mark.parametrize("path", SNAPSHOTS, ids=[f"{p.parent.parent.name}/{p.parent.name}" for p in SNAPSHOTS])
def test_every_printed_install_resolves_in_the_index_table(path):
    case = path.parent.name
    wrong = []
    for spec, answer, why, kind in verdicts(path):
        if answer == "no" and (case, spec) not in KNOWN_FAILURES:
            wrong.append(f"{spec} is not on the index for this machine: {why}")
        elif answer == "unknown" and kind == "table" and (case, spec) not in KNOWN_UNKNOWN:
            wrong.append(f"the index table cannot say whether {spec} installs: {why}")
        elif answer == "yes" and (case, spec) in KNOWN_FAILURES:
            wrong.append(f"{spec} resolves now: take it off KNOWN_FAILURES")
        elif answer == "yes" and (case, spec) in KNOWN_UNKNOWN:
            wrong.append(f"{spec} is answered now: take it off KNOWN_UNKNOWN")
    assert not wrong, f"{case}: " + "\n".join(wrong)


def test_the_unknowns_are_counted():
    # Installs the table cannot answer, by kind (see verdicts): exact, so a change shows here.
    counts: dict[str, int] = {}
    for _, _, answer, _, kind in _all():
        if answer == "unknown":
            counts[kind] = counts.get(kind, 0) + 1
    assert counts == UNKNOWN_COUNTS


def test_the_named_lists_name_printed_installs():
    printed_now = {(case, spec) for case, spec, *_ in _all()}
    stale = sorted((set(KNOWN_FAILURES) | set(KNOWN_UNKNOWN)) - printed_now)
    assert not stale, f"no longer printed, take them off the lists: {stale}"


def test_the_plans_print_framework_installs_to_check():
    # The test above must have something to check: most recorded machines whose plan reinstalls a framework.
    assert len([v for v in _all() if v[2] == "yes"]) >= 100


# --- the lookup itself, on rows of the table (what tools/index_table.py found on the indexes) ---------------


def test_tensorflow_and_cuda_2_15_0_pins_a_tensorrt_the_index_does_not_serve():
    h = holds("tensorflow", "tensorflow[and-cuda]==2.15.0", None, "3.10", "linux_x86_64")
    assert (h.answer, h.source) == ("no", "pip")
    assert "tensorrt" in h.why
    assert holds("tensorflow", "tensorflow[and-cuda]==2.15.0.post1", None, "3.10", "linux_x86_64").answer == "yes"
    # The series pin the planner prints: pip backtracks to a release of the series whose extra resolves.
    assert holds("tensorflow", "tensorflow[and-cuda]==2.15.*", None, "3.10", "linux_x86_64").answer == "yes"
    # The plain package has its 2.15.0 wheel.
    assert holds("tensorflow", "tensorflow==2.15.0", None, "3.10", "linux_x86_64").answer == "yes"


def test_python_and_platform_decide():
    assert holds("tensorflow", "tensorflow==2.10.*", None, "3.12", "linux_x86_64").answer == "no"  # cp37-cp310 only
    assert holds("tensorflow", "tensorflow==2.10.*", None, "3.10", "windows_amd64").answer == "yes"
    assert holds("jax", "jax[cuda12]==0.4.38", None, "3.12", "linux_x86_64").answer == "yes"
    assert holds("jax", "jax[cuda12]==0.4.38", None, "3.12", "windows_amd64").answer == "no"  # no Windows plugin


def test_a_python_version_with_its_patch_is_read_as_its_minor():
    # holds(): "the framework build for Python X.Y": a machine's "3.11.4" asks what "3.11" asks.
    for python in ("3.11.4", "3.10.12", "3.12.0"):
        assert holds("jax", "jax[cuda12]==0.4.38", None, python, "linux_x86_64").answer == "yes", python
    assert holds("tensorflow", "tensorflow==2.10.*", None, "3.10.12", "linux_x86_64").answer == "yes"
    assert holds("tensorflow", "tensorflow==2.10.*", None, "3.12.1", "linux_x86_64").answer == "no"  # cp37-cp310 only


def test_torch_rows_come_from_listings_with_their_variant():
    h = holds("torch", "torch==2.2.1+cu118", None, "3.10", "linux_x86_64")
    assert (h.answer, h.source) == ("yes", "pytorch-listing")
    # The variant comes from the index when the pin has no local tag; a variant the release never had: no row.
    assert holds("torch", "torch==2.2.*", "cu121", "3.11", "linux_x86_64").answer == "yes"
    assert holds("torch", "torch==2.2.*", "cu124", "3.11", "linux_x86_64").answer == "unknown"
    assert holds("torch", "torch==2.2.*", "cu121", "3.12", "linux_x86_64").answer == "no"  # 3.12 experimental in 2.2
    assert holds("torch", "torch==1.12.1+cu102", None, "3.9", "windows_amd64").answer == "unknown"


def test_what_the_table_cannot_say_is_unknown():
    assert holds("tensorflow", "tensorflow==2.15.*", None, None, "linux_x86_64").answer == "unknown"
    assert holds("tensorflow", "tensorflow==2.15.*", None, "3.10", None).answer == "unknown"
    assert holds("tensorflow", "tensorflow==9.9.*", None, "3.10", "linux_x86_64").answer == "unknown"
    assert holds("tensorflow", "not a spec ==", None, "3.10", "linux_x86_64").answer == "unknown"


def test_every_row_names_its_source_and_date():
    t = table()
    assert set(t.pythons) >= {"3.8", "3.12"}
    for row in t.rows:
        assert row["source"] in t.sources, row
        assert len(row["checked"]) == 10 and row["checked"].startswith("20"), row
        for p in PLATFORMS:
            assert row[p] == "unknown" or set(row[p]) <= set(t.pythons), row


# --- the pasted cases: the plan `check --from` prints for each pasted report --------------------------------------

PASTED = sorted(p.parent.name for p in (TESTS / "pasted" / "cases").glob("*/case.toml"))

# What the table cannot answer for a pasted report's printed installs, by kind: "no-python" (the text shows no
# Python: the plan names the bare interpreter, python3), "no-platform" (nor a platform the table covers: macOS),
# "table" (no row: jax 0.3.20 was an sdist only; the table holds no jax[cuda12] 0.4.32 row). Exact, so a change shows.
# Counted after h279 (issue 27): 15 printed framework installs over the pasted cases, 6 yes, 0 no, 9 unknown; one
# more no-python with h280's pasted pointnet-82 (tensorflow-gpu==1.3.0 for TensorFlow 1.x's cuDNN 6: no Python shown).
# Two more no-python with h308: comfyui-4297 and sdnext-4232 (a CPU-only torch, its version and the driver not shown)
# now print the install of torch 2.11.0+cu126 with its companions, where they printed only reads (issue 27, kind 9);
# and nas-without-training-2, whose step for a CPU-only torch (only where its check shows one) prints that install too.
PASTED_UNKNOWN_COUNTS: dict[str, int] = {"no-python": 11, "table": 2}
# (case, printed spec): why the index does not serve it. None today.
PASTED_KNOWN_FAILURES: dict[tuple[str, str], str] = {}


@cache
def pasted_verdicts(slug: str) -> tuple[tuple[str, str, str, str], ...]:
    """(spec, answer, why, kind) for each framework install the plan of a pasted case prints (steps and alternatives,
    the pipeline's plan with the report's asks), for the Python and platform the text shows."""
    from gpudoctor.host.snapshot import validate_snapshot
    from gpudoctor.pasted import Source, read_pasted
    from gpudoctor.pipeline import CheckRequest, check

    text = (TESTS / "pasted" / "cases" / slug / "report.txt").read_bytes().decode("utf-8-sig", errors="replace")
    checked = check(ReplayHost(validate_snapshot(read_pasted([Source("report.txt", text)]), slug)), CheckRequest())
    facts = checked.report.facts
    env = facts.frameworks.python
    python = env.value.version if isinstance(env, Found) and env.value.version else None
    platform = platform_key(facts.platform.system or "", facts.platform.machine or "")
    steps = checked.plan.steps
    lines = [c for s in steps for c in (*s.commands, *(c for a in s.alternatives for c in a.remediation.commands))]
    out = []
    for words in [line.words for line in lines if isinstance(line, Cmd)]:
        parsed = pip_installs(words)
        if parsed is None:
            continue
        specs, opts = parsed
        index = opts.get("--index-url") or opts.get("-i")
        variant = str(index).rstrip("/").rsplit("/", 1)[-1] if isinstance(index, str) else None
        for spec in specs:
            framework = FRAMEWORKS.get(_name(spec)) if not spec.startswith(("/", ".")) else None
            if framework is None:
                continue
            if python is None:
                out.append((spec, "unknown", "the text shows no Python", "no-python"))
            elif platform is None:
                out.append((spec, "unknown", "the text shows no platform the table covers", "no-platform"))
            else:
                h = holds(framework, spec, variant, python, platform)
                out.append((spec, h.answer, h.why or h.source, "table"))
    return tuple(dict.fromkeys(out))


@pytest.mark.slow
@pytest.mark.parametrize("slug", PASTED)
def test_every_install_printed_for_a_pasted_report_resolves_in_the_index_table(slug):
    wrong = [
        f"{spec} is not on the index for the Python and platform the text shows: {why}"
        for spec, answer, why, _ in pasted_verdicts(slug)
        if answer == "no" and (slug, spec) not in PASTED_KNOWN_FAILURES
    ]
    wrong += [f"{spec} resolves now: take it off PASTED_KNOWN_FAILURES" for spec, answer, *_ in pasted_verdicts(slug)
              if answer == "yes" and (slug, spec) in PASTED_KNOWN_FAILURES]  # fmt: skip
    assert not wrong, f"{slug}: " + "\n".join(wrong)


@pytest.mark.slow
def test_the_unknowns_of_the_pasted_reports_are_counted_and_some_installs_are_answered():
    verdicts = [v for slug in PASTED for v in pasted_verdicts(slug)]
    counts: dict[str, int] = {}
    for _, answer, _, kind in verdicts:
        if answer == "unknown":
            counts[kind] = counts.get(kind, 0) + 1
    assert counts == PASTED_UNKNOWN_COUNTS
    assert len([v for v in verdicts if v[1] == "yes"]) >= 6  # the test must have something to check
