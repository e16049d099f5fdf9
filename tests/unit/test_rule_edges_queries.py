"""The matrix queries and `--require` verdicts at the edges the suite left unguarded (tools/mutate.py survivors:
docs/testing.md).

- Version specifiers follow PEP 440 (https://peps.python.org/pep-0440/#version-specifiers): `==` without a
  wildcard pads the shorter release with zeros (2.1 == 2.1.0); `~=` needs at least two release segments
  ("This operator MUST NOT be used with a single segment version number such as ~=1"). The matrix's own
  matcher is checked against packaging's SpecifierSet, the reference implementation.
- A matrix directory (`gpudoctor matrix check DIR`, `--matrix DIR`) replaces a bundled file only with a
  `<stem>.toml` of that name (gpudoctor.matrix.load_matrix).
- `--require` (gpudoctor.checks.requirements): the framework-build requirements and the fix an unmet one carries.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.specifiers import InvalidSpecifier, SpecifierSet

from gpudoctor.checks.requirements import evaluate, parse_requirements
from gpudoctor.matrix import FILES, check_matrix, load_matrix, parse_spec, spec_contains
from tests.unit.test_rule_edges_survivors import report_of

DATA = Path(__file__).resolve().parents[2] / "compat_matrix"


# --- specifiers --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "version", "holds"),
    [
        ("==2.1", "2.1", True),
        ("==2.1", "2.1.0", True),  # zero padding
        ("==2.1", "2.1.1", False),
        ("==2.1", "2.0", False),
        ("==2.1.0", "2.1", True),
        ("===2.1", "2.1", True),
        (">=2.0,==2.1", "2.1", True),  # the second clause decides, whatever the first said
        (">=2.0,==2.1", "2.2", False),
    ],
)
def test_equality_without_a_wildcard(spec, version, holds):
    assert spec_contains(spec, version) is holds
    if not spec.startswith("==="):  # packaging compares === as strings ("2.1" only)
        assert SpecifierSet(spec).contains(version) is holds


@pytest.mark.parametrize("spec", ["~=2", "~=12", ">=1,~=3"])
def test_compatible_release_needs_two_segments(spec):
    with pytest.raises(InvalidSpecifier):
        SpecifierSet(spec)  # the reference refuses it
    with pytest.raises(ValueError, match="~= needs at least two version parts"):
        parse_spec(spec)
    assert parse_spec("~=2.1") == (("~=", "2.1", False),)


# --- the matrix's queries ------------------------------------------------------------------------------------


def test_a_cuda_version_that_cannot_be_read_is_never_judged_runnable():
    # A driver known only by the CUDA it reports: neither side readable means "cannot tell", which is not "runs".
    m = load_matrix()
    for driver_cuda, cuda in (("12.4", "twelve"), ("twelve", "12.4"), ("", "12.4")):
        v = m.driver_cuda_supports_cuda(driver_cuda, cuda)
        assert (v.ok, v.known) == (False, False), (driver_cuda, cuda)
    assert m.driver_cuda_supports_cuda("12.4", "12.1").ok  # a readable pair is judged


@pytest.mark.parametrize("name", [None, 0, 8.6])
def test_a_gpu_name_that_is_not_text_has_no_compute_capability(name):
    # A snapshot's GPU name may be null (NVML could not read it) or a number in a hand-edited file: no name, no match.
    assert load_matrix().compute_capability_for_gpu(name) is None
    assert load_matrix().compute_capability_for_gpu("NVIDIA GeForce RTX 3060") == "8.6"  # a name is matched


def test_a_matrix_directory_takes_only_files_named_stem_toml(tmp_path):
    # An editor's backup beside the candidate (torch.orig, jax.json: five characters after the stem, like
    # ".toml") is not a matrix file: the directory validates with its jax.toml and the bundled others.
    (tmp_path / "jax.toml").write_text((DATA / "jax.toml").read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "torch.orig").write_text("[[release]\nnot toml at all\n", encoding="utf-8")
    (tmp_path / "cuda_driver.json").write_text("{}", encoding="utf-8")
    assert "torch" in FILES and "cuda_driver" in FILES
    assert check_matrix(tmp_path) == []
    m = load_matrix(tmp_path)
    assert (m.origins["jax"], m.origins["torch"], m.origins["cuda_driver"]) == (str(tmp_path / "jax.toml"), "bundled", "bundled")


# --- --require -------------------------------------------------------------------------------------------------


def one(slug: str, spec: str):
    report = report_of(slug)
    (outcome,) = evaluate(parse_requirements([spec]), report.facts, report.findings)
    return outcome


def test_jax_cuda_is_met_by_jax_with_its_cuda_plugin():
    # JAX 0.6.0 with jax-cuda12-plugin/-pjrt 0.6.0 on an RTX 3060 (its cuDNN problem is cudnn-too-old, not a
    # finding that stops JAX from using the GPU).
    outcome = one("rtx3060-jax-cudnn-shadowed-by-ld-library-path", "jax:cuda")
    assert outcome.met and outcome.found == "jax 0.6.0 with jax-cuda12-pjrt 0.6.0"


def test_a_blocked_framework_takes_the_fix_of_what_blocks_it_with_its_root_need():
    # TensorFlow 2.11 cannot load its CUDA 11 libraries and cuDNN 8: the requirement's fix is those findings' one
    # fix, NVIDIA's wheels in its own environment, so it needs no root (as the findings' own fix says; issue 27,
    # kind 1: a pip framework's libraries never come from a root system package).
    outcome = one("rtx3060-tf211-cuda12-only", "tensorflow:gpu")
    fix = outcome.finding.remediation
    assert not outcome.met and fix.component == "toolkit"
    assert fix.requires_root is False
    assert fix.summary.startswith("Fix the findings named here first; they say what stops it. Install TensorFlow 2.11.0's")
    install = fix.commands[0]
    assert install.words[:4] == ("/usr/bin/python3", "-m", "pip", "install") and not install.root
    assert "nvidia-cudnn-cu11>=8.1,<9" in install.words


def test_an_unmet_version_is_fixed_with_the_planners_build_when_it_satisfies_the_spec():
    # Driver 510 (CUDA 11.6): `torch>=2.5` is met by 2.7 cu118, the newest build this driver runs (2.8 dropped
    # CUDA 11.8). A plain `pip install 'torch>=2.5'` would fetch a CUDA 12 wheel the driver cannot run.
    fix = one("p100-driver510-torch-cu121", "torch>=2.5").finding.remediation
    assert fix.lines()[0].endswith("'torch==2.7.*' --index-url https://download.pytorch.org/whl/cu118")
    # No build this driver runs satisfies torch>=2.8: the spec itself, for the person to judge.
    newer = one("p100-driver510-torch-cu121", "torch>=2.8").finding.remediation
    assert newer.lines() == ["/usr/bin/python3 -m pip install 'torch>=2.8'"]


# --- more edges (the sample of the run with function-scoped ids) ---------------------------------------------


@pytest.mark.parametrize(
    ("spec", "version", "holds"),
    [
        ("<=2.1", "2.1", True),
        ("<=2.1", "2.1.1", False),
        (">=2.0,<=2.1", "2.2", False),  # the second clause decides
        (">2.1", "2.1", False),
        (">2.1", "2.1.1", True),
        ("~=2.1", "2.1", True),  # at its own floor
        ("~=2.1", "2.0", False),
        ("~=2.1", "3.0", False),
        ("~=2.1.3", "2.1.3", True),
        ("~=2.1.3", "2.2", False),
    ],
)
def test_ordered_and_compatible_release_clauses(spec, version, holds):
    assert spec_contains(spec, version) is holds
    assert SpecifierSet(spec).contains(version) is holds


def test_the_matrix_module_names_its_record_types():
    # gpudoctor.matrix re-exports the record classes of gpudoctor.matrix.records (loaded when first named).
    import gpudoctor.matrix as matrix
    from gpudoctor.matrix import records as matrix_records

    assert matrix.Verdict is matrix_records.Verdict and matrix.TorchRelease is matrix_records.TorchRelease
    with pytest.raises(AttributeError):
        matrix.NoSuchRecord  # noqa: B018 - the attribute access is the test


def test_a_cuda_the_matrix_does_not_list_is_unknown_to_a_driver_known_by_its_cuda():
    v = load_matrix().driver_cuda_supports_cuda("12.4", "99.0")
    assert (v.ok, v.known) == (False, False)
    assert v.reason == "no driver minimum is known for CUDA 99.0 on linux"


RTX2070X2 = "rtx2070x2-cpu-builds"  # two RTX 2070s (7.5, 8 GiB each), driver 590.44.01 (CUDA 13.1)


def facts_of(slug: str):
    from gpudoctor.doctor import diagnose
    from gpudoctor.host.replay import ReplayHost
    from gpudoctor.host.snapshot import load_snapshot
    from tests.cli.conftest import machine

    return diagnose(ReplayHost(load_snapshot(machine(slug)))).facts


def verdict(facts, spec: str):
    (outcome,) = evaluate(parse_requirements([spec]), facts)
    return outcome


@pytest.mark.parametrize(
    ("spec", "met"),
    [
        ("gpu-memory>=8GB", True),  # 8 GiB = 8,589,934,592 bytes >= 8,000,000,000
        ("gpu-memory>=9GB", False),  # < 9,000,000,000
        ("gpu-memory>=8GiB", True),
        ("gpu-memory>=8.5GiB", False),
    ],
)
def test_decimal_and_binary_size_units(spec, met):
    assert verdict(facts_of(RTX2070X2), spec).met is met


def test_an_unmet_cuda_requirement_shows_the_cuda_read_and_a_driver_fix_as_root():
    outcome = verdict(facts_of(RTX2070X2), "cuda>=99")
    assert outcome.finding.evidence[0].value == "13.1"  # what NVML said: the CUDA version, not NVML's status
    assert outcome.finding.remediation.requires_root is True  # a driver install
    assert verdict(facts_of(RTX2070X2), "driver>=999").finding.remediation.requires_root is True


def test_bf16_names_the_matrix_sources_of_its_precision_table():
    # Compute capability 7.5 has no BF16; the verdict cites the matrix's sources for 7.5's precisions.
    outcome = verdict(facts_of(RTX2070X2), "bf16")
    assert not outcome.met
    table = load_matrix().precision_info("7.5")
    assert table is not None and outcome.finding.sources == tuple(sorted(table.source))


def test_a_distribution_whose_version_cannot_be_read_does_not_meet_a_requirement():
    # A broken install can leave METADATA without a version: the requirement cannot be verified, so it is unmet
    # (a preflight fails closed, gpudoctor.checks.requirements).
    import dataclasses

    from gpudoctor.probed import Found

    facts = facts_of(RTX2070X2)
    env = facts.frameworks.python
    assert isinstance(env, Found)
    dists = {**env.value.distributions, "torch": "unknown"}
    broken = dataclasses.replace(env, value=dataclasses.replace(env.value, distributions=dists))
    facts = dataclasses.replace(facts, frameworks=dataclasses.replace(facts.frameworks, python=broken))
    assert not verdict(facts, "torch").met
    assert not verdict(facts, "torch>=2").met


def test_a_gpu_of_unknown_compute_capability_is_unknown_for_bf16_and_cites_nothing():
    # Neither NVML nor the matrix knows these GPUs' capability: BF16 support is unknown (unmet), and no precision
    # table was consulted, so the finding cites none.
    import dataclasses

    facts = facts_of(RTX2070X2)
    gpus = tuple(dataclasses.replace(g, compute_capability=None, name="NVIDIA Graphics Device") for g in facts.driver.gpus)
    facts = dataclasses.replace(facts, driver=dataclasses.replace(facts.driver, gpus=gpus))
    outcome = verdict(facts, "bf16")
    assert not outcome.met and "compute capability unknown" in outcome.found
    assert outcome.finding.sources == ()


def test_a_verdict_is_as_confident_as_its_least_confident_row():
    # Driver 580.65.06 runs CUDA 13.2 through CUDA 13's minor-version compatibility: the verdict cites the 13.2
    # release row (high) and CUDA 13's floor row, which is medium (compat_matrix/cuda_driver.toml: NVIDIA's table 2
    # only says ">=580"). A fully supported 13.2 (driver 595.45.04) cites high rows only.
    m = load_matrix()
    mvc = m.driver_supports_cuda("580.65.06", "13.2")
    assert (mvc.via, mvc.confidence) == ("minor-version-compat", "medium")
    assert m.driver_supports_cuda("595.45.04", "13.2").confidence == "high"
