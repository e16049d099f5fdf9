"""Edges of `--require` parsing and of the installer's choice that the suite left unguarded (issue 20, round 4).

Each test states the rule it pins and why that is the right answer; expectations are written by hand from the
rule and the matrix rows (compat_matrix/*.toml). Sources:
- sizes: B, KB, MB, GB, TB are powers of 1000, KiB ... TiB powers of 1024 (IEC 80000-13; the module's docstring).
- conda: the `pytorch` channel's pytorch-cuda metapackage stops with PyTorch 2.5 and CUDA 11.6-12.4
  (https://github.com/pytorch/pytorch/issues/138506); conda-forge's builds are named `cuda*`
  (https://conda-forge.org/docs/user/tipsandtricks/#installing-cuda-enabled-packages-like-tensorflow-and-pytorch).
- PyTorch publishes no CUDA builds for macOS (https://pytorch.org/get-started/locally/).
"""

from __future__ import annotations

import dataclasses

import pytest
from packaging.specifiers import SpecifierSet

from gpudoctor.checks import Context
from gpudoctor.checks.requirements import (
    RequirementSyntaxError,
    _driver_branch,
    evaluate,
    parse_requirement,
    parse_requirements,
    visible_gpus,
)
from gpudoctor.cmdline import Cmd
from gpudoctor.doctor import diagnose
from gpudoctor.facts import TensorflowFacts, TorchFacts
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot
from gpudoctor.model import Evidence, Finding, Remediation, Severity
from gpudoctor.planner import pick_jax, pick_tensorflow, pick_torch
from gpudoctor.planner.judge import judge_driver
from gpudoctor.planner.model import Build, Candidate, GpuInfo, Judgement, Machine, Target, TargetEnv
from gpudoctor.planner.plan import Options, _notes, _undo_index, driver_unseen, kernel_history, plan_install, suggest_python
from gpudoctor.probed import Absent
from gpudoctor.versions import vkey
from tests.cli.conftest import machine as cli_machine
from tests.unit.test_install_plan import CTX, probe

MATRIX = Context().matrix
RTX3060 = GpuInfo(0, "NVIDIA GeForce RTX 3060", "8.6", "Ampere")
CONDA = TargetEnv("/opt/conda/envs/ml/bin/python", "3.11.7", kind="conda", prefix="/opt/conda/envs/ml")


def machine(os: str = "linux", arch: str = "x86_64", env: TargetEnv = CONDA, gpus=(RTX3060,)) -> Machine:
    return Machine(os, arch, "570.124.04", "12.8", tuple(gpus), env)


# --- --require sizes -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "sizes"),
    [
        ("gpu-memory>=40GiB", ((">=", 40 * 1024**3),)),
        ("gpu-memory>=40GB", ((">=", 40 * 1000**3),)),
        ("gpu-memory>=1.5KiB", ((">=", 1536),)),
        ("gpu-memory>=7B", ((">=", 7),)),
        ("gpu-memory>=3kb", ((">=", 3000),)),
        ("gpu-memory>=3KB", ((">=", 3000),)),
        ("gpu-memory>=3MB", ((">=", 3 * 1000**2),)),
        ("gpu-memory>=3TB", ((">=", 3 * 1000**4),)),
        ("gpu-memory>=3MiB", ((">=", 3 * 1024**2),)),
        ("gpu-memory>=3TiB", ((">=", 3 * 1024**4),)),
        ("gpu-memory-free<=2 TB", (("<=", 2 * 1000**4),)),
        ("gpu-memory>=4GiB,<16GiB", ((">=", 4 * 1024**3), ("<", 16 * 1024**3))),
        # An empty part between commas is skipped, not an error: "a,,b" is "a,b".
        ("gpu-memory>=4GiB,,!=8GiB", ((">=", 4 * 1024**3), ("!=", 8 * 1024**3))),
    ],
)
def test_a_size_condition_is_read_in_its_own_unit(spec, sizes):
    assert parse_requirement(spec).sizes == sizes


@pytest.mark.parametrize("spec", ["gpu-memory,", "gpu-memory , ,", "gpu-memory-free,"])
def test_a_memory_requirement_of_commas_alone_is_a_syntax_error(spec):
    # Nothing but separators is no size at all: accepting it would leave no bound, and a requirement with no
    # bound is met by every GPU, so a preflight written with a typo would pass silently.
    with pytest.raises(RequirementSyntaxError, match="needs a size"):
        parse_requirement(spec)


@pytest.mark.parametrize(("spec", "why"), [("gpu-memory>=40", "malformed size"), ("gpu-memory>=40GiBs", "unknown size unit")])
def test_a_size_without_a_known_unit_is_a_syntax_error(spec, why):
    with pytest.raises(RequirementSyntaxError, match=why):
        parse_requirement(spec)


# --- PyTorch on macOS and in conda ---------------------------------------------------------------------------


def _torch_build(release: str, tag: str):
    ((rel, builds),) = pick_torch.groups(MATRIX, release)
    return rel, next(b for b in builds if b.variant == tag)


def test_pytorch_on_macos_is_ruled_out_by_the_os_alone():
    # The same build on Linux fits (driver 570 runs CUDA 12.8 fully, sm_86 cubins): on macOS the only failure is
    # the OS, so the build is ruled out for that reason and none other.
    rel, build = _torch_build("2.7", "cu128")
    assert pick_torch.judge(MATRIX, machine(), None, rel, build).failures() == ()
    (failure,) = pick_torch.judge(MATRIX, machine(os="macos"), None, rel, build).failures()
    assert (failure.topic, failure.text) == ("os", "PyTorch publishes no CUDA builds for macOS")


@pytest.mark.parametrize(
    ("release", "tag", "argv"),
    [
        # The pytorch channel: a release up to 2.5 AND a CUDA its pytorch-cuda metapackage had.
        ("2.5", "cu124", ("pytorch=2.5", "pytorch-cuda=12.4", "-c", "pytorch", "-c", "nvidia")),
        ("2.0", "cu117", ("pytorch=2.0", "pytorch-cuda=11.7", "-c", "pytorch", "-c", "nvidia")),
        # 2.6 is past the channel's end even with CUDA 12.4, and 1.12's CUDA 10.2 never had a pytorch-cuda.
        ("2.6", "cu124", ("-c", "conda-forge", "pytorch=2.6=cuda*")),
        ("1.12", "cu102", ("-c", "conda-forge", "pytorch=1.12=cuda*")),
        ("2.7", "cu128", ("-c", "conda-forge", "pytorch=2.7=cuda*")),
    ],
)
def test_the_conda_equivalent_of_a_pytorch_build_uses_the_pytorch_channel_only_while_it_existed(release, tag, argv):
    _, build = _torch_build(release, tag)
    assert pick_torch.conda_equivalent(machine(), build) == ("conda", "install", "-p", "/opt/conda/envs/ml", *argv)


# --- JAX in conda --------------------------------------------------------------------------------------------


def test_the_conda_equivalent_of_an_exact_jax_names_that_version_of_both_packages():
    # `gpudoctor install jax 0.4.38`: pip's pin is ==0.4.38, so conda-forge gets the same version of jax and of a
    # CUDA jaxlib (conda's `name=version=build` match spec).
    ((_, builds),) = pick_jax.groups(MATRIX, "0.4.38")
    build = next(b for b in builds if b.variant == "cuda12")
    assert pick_jax.conda_equivalent(machine(), build) == (
        "conda",
        "install",
        "-p",
        "/opt/conda/envs/ml",
        "-c",
        "conda-forge",
        "jaxlib=0.4.38=*cuda*",
        "jax=0.4.38",
    )
    # Without a prefix the command names a placeholder rather than a guessed environment.
    bare = TargetEnv("/usr/bin/python3", "3.11.7", kind="conda")
    assert pick_jax.conda_equivalent(machine(env=bare), build)[3] == "PREFIX"


def test_the_conda_equivalent_of_a_jax_range_keeps_the_range():
    # The newest row installs a range (>=V): conda gets it as a version match spec, still a CUDA jaxlib.
    row, builds = pick_jax.groups(MATRIX, None)[0]
    build = builds[0]
    assert build.pin == f">={row.version}"
    assert pick_jax.conda_equivalent(machine(), build)[-2:] == (
        f"jaxlib[version='>={row.version}',build=*cuda*]",
        f"jax[version='>={row.version}']",
    )


# --- plan notes ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("arch", "warned"), [("x86_64", False), ("AMD64", False), ("aarch64", True), ("arm64", True)])
def test_only_a_non_x86_machine_is_warned_that_the_matrix_describes_x86_wheels(arch, warned):
    # The matrix's architecture lists come from the x86_64 wheels; Windows spells that AMD64 (any case).
    venv = TargetEnv("/home/u/venv/bin/python", "3.11.7", kind="venv")
    notes = _notes(machine(arch=arch, env=venv), venv)
    expected = f"the matrix describes the x86_64 wheels; on {arch} the index may have no such build (pip then says so)"
    assert [n for n in notes if "x86_64 wheels" in n] == ([expected] if warned else [])


# --- torch:cuda blocked by a framework finding: the fix is that finding's ----------------------------------------


@pytest.fixture(scope="module")
def rtx4090():
    # An RTX 4090 with torch 2.2.1+cu121 (tests/cli/machines/rtx4090-torch-cu121.json): torch:cuda is met as recorded.
    return diagnose(ReplayHost(load_snapshot(cli_machine("rtx4090-torch-cu121")))).facts


def _arch_finding(remediation: Remediation | None) -> Finding:
    return Finding(
        "framework-arch-unsupported",
        Severity.ERROR,
        "frameworks",
        "PyTorch 2.2.1+cu121 has no kernels for GPU 0",
        "detail",
        (),
        remediation,
    )


def test_a_blocking_findings_fix_is_passed_on_whole_where_it_runs_included(rtx4090):
    # The requirement's fix is the first blocking finding's (the check knows what stops torch): its commands,
    # whether they need root, and WHERE they run (a driver fix in a container runs on the host).
    theirs = Remediation(
        "Install a driver for CUDA 12.1.",
        (Cmd(("apt-get", "install", "nvidia-driver-550")),),
        requires_root=True,
        component="driver",
        where="the host",
    )
    (o,) = evaluate(parse_requirements(["torch:cuda"]), rtx4090, [_arch_finding(theirs)])
    fix = o.finding.remediation
    assert (fix.commands, fix.requires_root, fix.component, fix.where) == (theirs.commands, True, "driver", "the host")
    assert fix.summary == "Fix the findings named here first; they say what stops it. Install a driver for CUDA 12.1."


def test_a_blocking_finding_without_commands_leaves_the_planners_fix(rtx4090):
    # A finding that names no command gives nothing to pass on: the planner's torch fix stays, run here (no `where`)
    # and without root (a pip install into the user's environment).
    (o,) = evaluate(parse_requirements(["torch:cuda"]), rtx4090, [_arch_finding(Remediation("Read the docs."))])
    fix = o.finding.remediation
    assert not o.met
    assert fix.summary == "Fix the findings named here first; they say what stops it."
    assert (fix.requires_root, fix.where, fix.component) == (False, "", "torch")
    assert fix.commands and all(c.argv[1:3] == ("-m", "pip") for c in fix.commands if isinstance(c, Cmd))


# --- ranking within a release: full driver support first ------------------------------------------------------


def _candidate(framework: str, variant: str, cuda: str, *judgements: Judgement) -> Candidate:
    build = Build(framework, "1.0", variant, cuda, (f"{framework}==1.0.*",), pin="1.0.*")
    return Candidate(build, (Judgement("python", True, "Python 3.11 is within"), *judgements))


FULL = Judgement("driver", True, "driver 570 runs CUDA 12.8 fully")
COMPAT = Judgement("driver", True, "runs only through minor-version compatibility", note=True, needs="575.51.03")
PTX_NOTE = Judgement("gpu", True, "no cubin: the driver JIT-compiles its PTX", note=True)
NOT_IN_MATRIX = Judgement("driver", False, "CUDA 12.9 is not in the compatibility matrix")


@pytest.mark.parametrize(
    ("judgement", "mvc"),
    [
        (FULL, False),
        (COMPAT, True),  # a driver note that names the driver for full support: minor-version compatibility
        (PTX_NOTE, False),  # a note of another topic is no driver caveat
        (Judgement("driver", True, "no driver seen", note=True), False),  # a driver note naming no driver
        (NOT_IN_MATRIX, False),
    ],
)
def test_only_minor_version_compatibility_lowers_a_jax_build(judgement, mvc):
    # JAX's ranking (pick_jax.rank): full driver support first, then the newest CUDA major.
    judgements = (FULL, judgement) if judgement.topic != "driver" else (judgement,)
    c = _candidate("jax", "cuda13", "13.0", *judgements)
    assert pick_jax.rank(c) == (not mvc, 13)


def test_a_jax_build_the_driver_runs_fully_outranks_a_newer_cuda_by_compatibility():
    full12 = _candidate("jax", "cuda12", "12.8", FULL, PTX_NOTE)
    compat13 = _candidate("jax", "cuda13", "13.0", COMPAT)
    assert max([compat13, full12], key=pick_jax.rank) is full12
    assert max([full12, _candidate("jax", "cuda13", "13.0", FULL)], key=pick_jax.rank).build.variant == "cuda13"


@pytest.mark.parametrize(("judgement", "mvc"), [(FULL, False), (COMPAT, True), (PTX_NOTE, False)])
def test_only_minor_version_compatibility_lowers_a_pytorch_build(judgement, mvc):
    judgements = (FULL, judgement) if judgement.topic != "driver" else (judgement,)
    c = _candidate("torch", "cu128", "12.8", *judgements)
    assert pick_torch.rank(c) == (not mvc, False, True, (12, 8))


# --- "already installed" and the CPU builds ---------------------------------------------------------------


def test_jax_not_installed_is_no_match_as_a_boolean():
    # `already_installed` of `gpudoctor install --json` is a boolean (src/gpudoctor/schemas/install.schema.json).
    ((_, builds),) = pick_jax.groups(MATRIX, "0.4.38")
    assert pick_jax.installed_matches(machine(), None, builds[0]) is False


def _torch(version: str, cuda: str | None = None) -> TorchFacts:
    return TorchFacts(version, cuda, None, "/venv/lib/python3.11/site-packages/torch")


@pytest.mark.parametrize(
    ("installed", "asked", "matches"),
    [
        ("2.7.1+cpu", "2.7.1", True),  # the same version asked: installed (the local tag does not matter)
        ("2.7.1", "2.7.1", True),
        ("2.7.1+cpu", "2.7.0", False),  # another patch of the same release asked: it is not installed
        ("2.7.1+cpu", "2.7", True),  # a release asked: any patch of it is
        ("2.6.0+cpu", "2.7", False),
    ],
)
def test_an_installed_cpu_torch_matches_only_the_version_asked(installed, asked, matches):
    ((rel, builds),) = pick_torch.groups(MATRIX, asked)
    cpu = pick_torch.cpu_build(machine(), rel, builds[0])
    assert pick_torch.cpu_installed(machine(), _torch(installed), cpu) is matches
    # A CUDA build installed is never the CPU build asked for.
    assert pick_torch.cpu_installed(machine(), _torch(installed, "12.6"), cpu) is False


def test_no_cpu_build_for_a_python_no_release_supports_is_a_plan_without_a_choice():
    # --cpu judges only the Python range: Python 2.7 is outside every PyTorch release's, so nothing is chosen,
    # each release is ruled out for it, and there is nothing to run.
    _, facts = probe("p100-driver510-torch-cu121")
    env = TargetEnv("/usr/bin/python2", "2.7.18", kind="system")
    plan = plan_install(facts, CTX, "torch", env=env, options=Options(target=Target(cpu=True)))
    assert plan.chosen is None and plan.instead is None and plan.steps == ()
    assert len(plan.ruled_out) == len(MATRIX.torch_releases)
    assert all(c.build.variant == "cpu" and [j.topic for j in c.failures()] == ["python"] for c in plan.ruled_out)


# --- the way back from a mirror ----------------------------------------------------------------------------


PYTORCH_CU121 = ("torch==2.2.1+cu121", "--index-url", "https://download.pytorch.org/whl/cu121")


@pytest.mark.parametrize(
    ("args", "mirror", "back"),
    [
        # The installed build's index named its variant: the mirror's {variant} becomes it.
        (
            PYTORCH_CU121,
            "https://mirror.example/whl/{variant}",
            ("torch==2.2.1+cu121", "--index-url", "https://mirror.example/whl/cu121"),
        ),
        # Installed from the default index (no local tag): a {variant} mirror has nothing to fill in, so none is named.
        (("torch==2.2.1",), "https://mirror.example/whl/{variant}", ("torch==2.2.1",)),
        # A plain mirror holds every build: the way back uses it, whether or not the build named an index.
        (("torch==2.2.1",), "https://mirror.example/simple", ("torch==2.2.1", "--index-url", "https://mirror.example/simple")),
        (PYTORCH_CU121, "https://mirror.example/simple", ("torch==2.2.1+cu121", "--index-url", "https://mirror.example/simple")),
    ],
)
def test_the_way_back_uses_the_mirror_the_install_used(args, mirror, back):
    assert _undo_index(args, mirror) == back


# --- what an outcome shows as evidence --------------------------------------------------------------------


@pytest.fixture(scope="module")
def t4():
    # A Tesla T4 (7.5) with tensorflow 2.11.0 (CUDA 11.2 build) and jax 0.4.13 + jaxlib 0.4.13+cuda11.cudnn86.
    return diagnose(ReplayHost(load_snapshot(cli_machine("t4-tf-jax")))).facts


def test_a_per_gpu_requirement_shows_each_gpu_as_evidence():
    # Two RTX 2070s (7.5): a --require judged per GPU is evidenced per GPU, each read from NVML.
    facts = diagnose(ReplayHost(load_snapshot(cli_machine("rtx2070x2-cpu-builds")))).facts
    (o,) = evaluate(parse_requirements(["cc>=8.0"]), facts)
    assert o.evidence == (
        Evidence("nvml", "GPU 0 (NVIDIA GeForce RTX 2070): compute capability 7.5"),
        Evidence("nvml", "GPU 1 (NVIDIA GeForce RTX 2070): compute capability 7.5"),
    )
    assert o.finding.evidence == o.evidence


def test_a_framework_builds_evidence_names_what_was_read(t4):
    # The build facts each verdict rests on, where they were read: TensorFlow's build_info.py, JAX's distributions.
    tf, jax = evaluate(parse_requirements(["tensorflow:gpu", "jax:cuda"]), t4)
    assert (tf.met, tf.found) == (True, "tensorflow 2.11.0 (CUDA 11.2)")
    assert tf.evidence == (
        Evidence(
            "file:/srv/env/lib/python3.11/site-packages/tensorflow/python/platform/build_info.py",
            "tensorflow 2.11.0 is_cuda_build=True cuda=11.2",
        ),
    )
    assert (jax.met, jax.found) == (True, "jax 0.4.13 with jaxlib 0.4.13+cuda11.cudnn86")
    assert jax.evidence == (Evidence("dist:jax", "jax 0.4.13 jaxlib 0.4.13+cuda11.cudnn86 plugins none"),)


# --- JAX: what counts as installed --------------------------------------------------------------------------


def _with_installed(**installed: str) -> Machine:
    return Machine("linux", "x86_64", "570.124.04", "12.8", (RTX3060,), CONDA, installed=installed)


def _jax_build(requested: str | None, variant: str = "cuda12"):
    row_builds = pick_jax.groups(MATRIX, requested)[0][1]
    return next(b for b in row_builds if b.variant == variant)


PLUGIN_0438 = {"jax": "0.4.38", "jaxlib": "0.4.38", "jax-cuda12-plugin": "0.4.38", "jax-cuda12-pjrt": "0.4.38"}


@pytest.mark.parametrize(
    ("installed", "matches"),
    [
        (PLUGIN_0438, True),
        # Another version, its own packages agreeing: not the version asked (==0.4.38).
        ({n: "0.4.37" for n in PLUGIN_0438}, False),
        # The right jax with the plugin of another CUDA major: not this build.
        ({"jax": "0.4.38", "jaxlib": "0.4.38", "jax-cuda11-plugin": "0.4.38"}, False),
        # A plugin of another version than jaxlib: JAX refuses to load it.
        ({**PLUGIN_0438, "jax-cuda12-plugin": "0.4.36"}, False),
        ({"jaxlib": "0.4.38"}, False),
    ],
)
def test_an_installed_jax_matches_only_the_exact_version_and_plugin_asked(installed, matches):
    assert pick_jax.installed_matches(_with_installed(**installed), None, _jax_build("0.4.38")) is matches


@pytest.mark.parametrize(
    ("installed", "matches"),
    [
        ({"jax": "0.4.38", "jaxlib": "0.4.38"}, True),  # plain jax and its CPU jaxlib: the CPU build is there
        ({"jax": "0.4.37", "jaxlib": "0.4.37"}, False),  # another version than asked
        ({"jaxlib": "0.4.38"}, False),  # no jax
        (PLUGIN_0438, False),  # a CUDA plugin installed: not a CPU-only JAX
        ({"jax": "0.4.38", "jaxlib": "0.4.38+cuda12.cudnn89"}, False),  # a CUDA jaxlib from the release page
    ],
)
def test_an_installed_cpu_jax_is_plain_jax_of_the_version_asked(installed, matches):
    build = _jax_build("0.4.38")
    row = MATRIX.jax_release("0.4.38")
    cpu = pick_jax.cpu_build(_with_installed(), row, build)
    assert cpu.specs == ("jax==0.4.38",)
    assert pick_jax.cpu_installed(_with_installed(**installed), None, cpu) is matches


# --- TensorFlow on macOS and native Windows -----------------------------------------------------------------


def _tf(release: str):
    ((row, (build,)),) = pick_tensorflow.groups(MATRIX, release)
    return row, build


def test_tensorflow_on_macos_is_ruled_out_for_the_os():
    row, build = _tf("2.15")
    assert [j.topic for j in pick_tensorflow.judge(MATRIX, machine(), None, row, build).failures()] == []
    failures = pick_tensorflow.judge(MATRIX, machine(os="macos"), None, row, build).failures()
    assert [(j.topic, j.text) for j in failures] == [("os", "TensorFlow publishes no CUDA builds for macOS")]


def test_tensorflow_on_native_windows_loads_the_system_cuda_up_to_2_10():
    # 2.10 is the last release with GPU support on native Windows; it loads CUDA 11.2 and cuDNN 8.1 from the system,
    # which gpudoctor does not check there: a note, and a manual step that says what to install.
    win = machine(os="windows", env=TargetEnv("C:\\py\\python.exe", "3.10.11", kind="venv"))
    row, build = _tf("2.10")
    candidate = pick_tensorflow.judge(MATRIX, win, None, row, build)
    (libraries,) = [j for j in candidate.judgements if j.topic == "libraries"]
    assert (libraries.ok, libraries.note) == (True, True)
    assert libraries.text == "loads CUDA 11.2 and cuDNN 8.1 installed on the system (not checked on Windows)"
    assert not [j for j in candidate.judgements if j.topic == "os"]
    assert pick_tensorflow.manual(win, row, candidate) == (
        "Install CUDA 11.2 and cuDNN 8.1 for TensorFlow 2.10, e.g.: conda install -c conda-forge cudatoolkit=11.2 cudnn=8.1",
    )
    # 2.11 has no GPU build for native Windows.
    row, build = _tf("2.11")
    (os_failure,) = [j for j in pick_tensorflow.judge(MATRIX, win, None, row, build).failures() if j.topic == "os"]
    assert os_failure.text == "no GPU support on native Windows after TensorFlow 2.10 (use WSL2, or 2.10)"


def test_tensorflow_before_and_cuda_on_linux_names_the_cuda_packages_to_install():
    # The same 2.10 on Linux with the libraries missing: the manual step is NVIDIA's apt packages of CUDA 11.2.
    row, build = _tf("2.10")
    missing = Candidate(build, (Judgement("libraries", True, "these are missing: libcudnn.so.8", note=True),))
    assert pick_tensorflow.manual(machine(), row, missing) == (
        "Install CUDA 11.2 runtime libraries and cuDNN 8.1 where TensorFlow 2.10 finds them (the ldconfig cache or LD_LIBRARY_PATH):",
        "  # NVIDIA’s CUDA repository",
        "  sudo apt-get install -y cuda-libraries-11-2",
        "  or, in a conda environment: conda install -c conda-forge cudatoolkit=11.2 cudnn=8.1",
    )
    found = Candidate(build, (Judgement("libraries", True, "finds the CUDA 11 and cuDNN libraries it loads"),))
    assert pick_tensorflow.manual(machine(), row, found) == ()


# --- where the driver's versions were read --------------------------------------------------------------


@pytest.fixture(scope="module")
def rtx2070x2():
    # Two RTX 2070s, driver 590.44.01 (CUDA 13.1) read through NVML, torch 2.13.0+cpu and tensorflow-cpu 2.21.0.
    return diagnose(ReplayHost(load_snapshot(cli_machine("rtx2070x2-cpu-builds")))).facts


def _driver(facts, **changes):
    return dataclasses.replace(facts, driver=dataclasses.replace(facts.driver, **changes))


@pytest.mark.parametrize(("spec", "value"), [("cuda>=13.9", "13.1"), ("driver>=999", "590.44.01")])
def test_the_driver_versions_evidence_names_nvml_or_nvidia_smi_as_read(rtx2070x2, spec, value):
    # NVML answered both versions here; where only nvidia-smi did (NVML's field empty), the evidence says so.
    (o,) = evaluate(parse_requirements([spec]), rtx2070x2)
    assert o.evidence == (Evidence("nvml", value),)
    smi_only = _driver(rtx2070x2, nvml_cuda_version=None, nvml_driver_version=None)
    (o,) = evaluate(parse_requirements([spec]), smi_only)
    assert o.evidence == (Evidence("cmd:nvidia-smi", value),)


# --- packages: TensorFlow's other distributions stand in for tensorflow only --------------------------------


def _dists(facts, **dists):
    env = facts.frameworks.python.value
    python = dataclasses.replace(facts.frameworks.python, value=dataclasses.replace(env, distributions=dists))
    return dataclasses.replace(facts, frameworks=dataclasses.replace(facts.frameworks, python=python))


def test_a_tensorflow_distribution_stands_in_for_tensorflow_but_not_for_torch(rtx2070x2):
    # tensorflow-cpu installs the `tensorflow` module (probes/python TF_DISTRIBUTIONS), so `tensorflow>=2.20` is
    # judged on it; it is no PyTorch, so `torch>=1` stays unmet when only TensorFlow is there.
    only_tf = _dists(rtx2070x2, **{"tensorflow-cpu": "2.21.0"})
    tf, torch = evaluate(parse_requirements(["tensorflow>=2.20", "torch>=1"]), only_tf)
    assert (tf.met, tf.found) == (True, "tensorflow-cpu 2.21.0 in /home/user/.venvs/ml/bin/python")
    assert tf.evidence == (Evidence("dist:tensorflow-cpu", "2.21.0"),)
    assert (torch.met, torch.found) == (False, "torch is not installed in /home/user/.venvs/ml/bin/python")
    assert torch.evidence == (Evidence("dist:torch", "not installed"),)


# --- the driver branch a requirement asks for --------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "install"),
    [
        # A lower bound names the branch to install: >=, ==, ~= and > each have one (its major).
        ("driver>=600,<700", "sudo apt-get install -y nvidia-driver-600-open"),
        ("driver==590.1", "sudo apt-get install -y nvidia-driver-590-open"),
        ("driver~=580.65", "sudo apt-get install -y nvidia-driver-580-open"),
        ("driver>595", "sudo apt-get install -y nvidia-driver-595-open"),
        # An upper bound alone names no branch: the distribution's recommended branch is installed instead.
        ("driver<500", "sudo ubuntu-drivers install"),
    ],
)
def test_a_driver_requirement_installs_the_branch_of_its_lower_bound(rtx2070x2, spec, install):
    (o,) = evaluate(parse_requirements([spec]), rtx2070x2)
    assert not o.met
    # The command lines (each note is a line of its own before its command).
    assert [line for line in o.finding.remediation.lines() if not line.startswith("# ")] == [
        "sudo apt-get update",
        install,
        "sudo reboot",
    ]


@pytest.mark.parametrize(
    ("spec", "branch"),
    [
        (">=550", "550"),
        (">=550.54.14", "550"),
        ("==550.*", "550"),
        # Driver majors have had three digits since release 100 (NVIDIA's Unix driver archive): 100 is a branch,
        # while 99 or 12.4 reads like a CUDA version, not a driver branch.
        (">=100", "100"),
        (">=99", None),
        (">=12.4", None),
        ("<=600", None),
        ("!=550.54.14", None),
    ],
)
def test_a_driver_branch_is_a_three_digit_lower_bound(spec, branch):
    assert _driver_branch(SpecifierSet(spec)) == branch


# --- when each GPU's kernels first or last shipped ----------------------------------------------------------


@pytest.mark.parametrize(
    ("pick", "title", "gpu", "lines"),
    [
        # sm_120 (Blackwell consumer) cubins arrived with PyTorch 2.7's cu128 wheels (compat_matrix/torch.toml).
        (
            pick_torch,
            "PyTorch",
            GpuInfo(0, "NVIDIA GeForce RTX 5070", "12.0", "Blackwell"),
            ("NVIDIA GeForce RTX 5070 needs kernels for sm_120, first shipped in PyTorch 2.7 (cu128)",),
        ),
        # Pascal's sm_60 went with the cu126 builds; 2.15 ships only cu132 (sm_75 and newer).
        (
            pick_torch,
            "PyTorch",
            GpuInfo(0, "Tesla P100-PCIE-16GB", "6.0", "Pascal"),
            ("sm_60 kernels were last shipped in PyTorch 2.14 (cu126); newer PyTorch releases dropped Pascal",),
        ),
        # A GPU whose compute capability nobody knows has no history to tell, in any framework.
        (pick_torch, "PyTorch", GpuInfo(0, "NVIDIA Graphics Device", None), ()),
        (pick_tensorflow, "TensorFlow", GpuInfo(0, "NVIDIA Graphics Device", None), ()),
        (pick_jax, "JAX", GpuInfo(0, "NVIDIA Graphics Device", None), ()),
    ],
)
def test_kernel_history_says_when_a_gpus_kernels_first_or_last_shipped(pick, title, gpu, lines):
    assert kernel_history(pick, MATRIX, pick.groups(MATRIX, None), gpu, title) == lines


# --- TensorFlow before [and-cuda]: the system's CUDA libraries, found or missing ------------------------------


@pytest.mark.parametrize(
    ("facts_of", "libraries"),
    [
        # The T4 machine has CUDA 11 and cuDNN 8 where TensorFlow 2.11 loads them from (its own TF runs on them).
        ("t4", ("libraries", True, "finds the CUDA 11 and cuDNN libraries it loads on this system", False)),
        # The RTX 2070 machine has none of them: still no failure (pip cannot bring them), but a note naming each.
        (
            "rtx2070x2",
            (
                "libraries",
                True,
                "has no [and-cuda] extra: it loads CUDA 11 libraries from the system, and these are missing: libcudart.so.11.0, "
                "libcublas.so.11, libcublasLt.so.11, libcufft.so.10, libcurand.so.10, libcusolver.so.11, libcusparse.so.11, "
                "libcudnn.so.8",
                True,
            ),
        ),
    ],
)
def test_tensorflow_2_11_on_linux_says_whether_the_system_has_its_cuda_libraries(request, facts_of, libraries):
    row, build = _tf("2.11")
    candidate = pick_tensorflow.judge(MATRIX, machine(), request.getfixturevalue(facts_of), row, build)
    assert [(j.topic, j.ok, j.text, j.note) for j in candidate.judgements if j.topic == "libraries"] == [libraries]


def _tf_facts(distribution: str, version: str = "2.15.1", cuda_build: bool | None = True) -> TensorflowFacts:
    return TensorflowFacts(version, distribution, cuda_build, "12.2", "8", "/venv/lib/python3.11/site-packages")


@pytest.mark.parametrize(
    ("tf", "matches"),
    [
        (None, False),  # nothing installed
        (_tf_facts("tensorflow-cpu"), False),  # another distribution of the same module
        (_tf_facts("tensorflow", cuda_build=False), False),  # a CPU build of tensorflow
        (_tf_facts("tensorflow", version="2.15.0"), False),  # another patch than the one asked
        (_tf_facts("tensorflow"), True),
    ],
)
def test_an_installed_tensorflow_matches_only_the_gpu_build_asked_as_a_boolean(tf, matches):
    # 2.15.1 with [and-cuda]: it is installed only when the CUDA 12 cuDNN wheel [and-cuda] brings is there too.
    row, build = _tf("2.15.1")
    installed = _with_installed(**{"tensorflow": "2.15.1", "nvidia-cudnn-cu12": "8.9.4.25"})
    assert pick_tensorflow.installed_matches(installed, tf, build) is matches
    assert pick_tensorflow.installed_matches(_with_installed(tensorflow="2.15.1"), tf, build) is False


# --- PyTorch's experimental variants ---------------------------------------------------------------------------


def test_an_experimental_pytorch_variant_fits_with_a_note_saying_so():
    # PyTorch's release compatibility matrix lists 2.7's CUDA 12.8 under "Experimental CUDA" and 12.6 as stable
    # (https://github.com/pytorch/pytorch/blob/main/RELEASE.md#release-compatibility-matrix).
    rel, cu128 = _torch_build("2.7", "cu128")
    _, cu126 = _torch_build("2.7", "cu126")
    assert (cu128.experimental, cu126.experimental) == (True, False)
    (note,) = [j for j in pick_torch.judge(MATRIX, machine(), None, rel, cu128).judgements if j.topic == "build"]
    assert (note.ok, note.note, note.text) == (True, True, "cu128 is marked experimental in PyTorch 2.7's release notes")
    assert not [j for j in pick_torch.judge(MATRIX, machine(), None, rel, cu126).judgements if j.topic == "build"]


def test_kernel_history_of_releases_the_matrix_lists_no_architectures_for_is_silent():
    # Releases whose kernels the matrix does not list tell nothing about a GPU: no "no build has kernels" claim.
    assert kernel_history(pick_torch, MATRIX, [], GpuInfo(0, "Tesla P100-PCIE-16GB", "6.0", "Pascal"), "PyTorch") == ()


# --- the driver judgement, every branch, with and without the driver's version -------------------------------

_ENV = TargetEnv("/usr/bin/python3", "3.11.7")


@pytest.mark.parametrize(
    ("driver", "driver_cuda", "cuda", "ok", "note", "needs", "full", "text"),
    [
        # CUDA 12.8 needs 570.26 for full support, and CUDA 12 minor-version compatibility needs 525.60.13
        # (CUDA Toolkit release notes, table 3; https://docs.nvidia.com/deploy/cuda-compatibility/).
        ("570.124.04", "12.8", "12.8", True, False, None, True, "driver 570.124.04 runs CUDA 12.8 fully (needs >= 570.26)"),
        (
            "570.124.04",
            "12.8",
            "12.9",
            True,
            True,
            "575.51.03",
            False,
            "driver 570.124.04 runs CUDA up to 12.8; CUDA 12.9 runs only through CUDA 12 minor-version compatibility "
            "(>= 525.60.13); full support needs >= 575.51.03",
        ),
        (
            "470.74",
            "11.4",
            "12.8",
            False,
            False,
            "525.60.13",
            False,
            "needs driver >= 525.60.13 for CUDA 12.8 (>= 570.26 for full support); driver 470.74 runs CUDA up to 11.4",
        ),
        (
            "470.74",
            "11.4",
            "99.9",
            False,
            False,
            None,
            False,
            "CUDA 99.9 is not in the compatibility matrix: cannot tell whether this driver runs it",
        ),
        # The driver's version unknown, the CUDA it runs known (nvidia-smi's header or --cuda): the same branches.
        (None, "12.8", "11.8", True, False, None, True, "the driver runs CUDA up to 12.8, so CUDA 11.8 fully"),
        (
            None,
            "12.8",
            "12.9",
            True,
            True,
            "575.51.03",
            False,
            "the driver runs CUDA up to 12.8; CUDA 12.9 runs only through CUDA 12 minor-version compatibility; "
            "full support needs a driver >= 575.51.03",
        ),
        (
            None,
            "11.4",
            "12.8",
            False,
            False,
            "525.60.13",
            False,
            "needs driver >= 525.60.13 for CUDA 12.8 (>= 570.26 for full support); the driver runs CUDA up to 11.4",
        ),
        # CUDA 11.0's own toolkit driver (450.51.05) is BELOW CUDA 11's minor-version floor (450.80.02): the lowest
        # driver that runs it is 450.51.05, and nothing more is needed for full support
        # (https://docs.nvidia.com/cuda/archive/11.0/cuda-toolkit-release-notes/index.html).
        (
            "440.33.01",
            "10.2",
            "11.0",
            False,
            False,
            "450.51.05",
            False,
            "needs driver >= 450.51.05 for CUDA 11.0; driver 440.33.01 runs CUDA up to 10.2",
        ),
        (
            None,
            "10.2",
            "11.0",
            False,
            False,
            "450.51.05",
            False,
            "needs driver >= 450.51.05 for CUDA 11.0; the driver runs CUDA up to 10.2",
        ),
        # CUDA 11.2's own driver (460.27.03) is above the floor: the floor is the lowest, full support named apart.
        (
            "440.33.01",
            "10.2",
            "11.2",
            False,
            False,
            "450.80.02",
            False,
            "needs driver >= 450.80.02 for CUDA 11.2 (>= 460.27.03 for full support); driver 440.33.01 runs CUDA up to 10.2",
        ),
        (
            None,
            "11.4",
            "99.9",
            False,
            False,
            None,
            False,
            "CUDA 99.9 is not in the compatibility matrix: cannot tell whether this driver runs it",
        ),
    ],
)
def test_the_driver_judgement_on_each_branch(driver, driver_cuda, cuda, ok, note, needs, full, text):
    # The second answer, "runs it fully", decides whether PTX can be JIT-compiled (judge_kernels): only a full
    # support says yes; a driver that fails or runs it by compatibility says no.
    m = Machine("linux", "x86_64", driver, driver_cuda, (RTX3060,), _ENV)
    judgement, fully = judge_driver(MATRIX, m, cuda)
    assert (judgement.topic, judgement.ok, judgement.note, judgement.needs, judgement.text) == ("driver", ok, note, needs, text)
    assert fully is full


# --- the matrix a caller gives is the one judged --------------------------------------------------------------


class _TorchUpTo27:
    """The bundled matrix with its PyTorch rows cut after 2.7, as a `--matrix` directory of older data would say."""

    def __init__(self, matrix) -> None:
        self._matrix = matrix

    def __getattr__(self, name: str):
        return getattr(self._matrix, name)

    @property
    def torch_releases(self):
        return [r for r in self._matrix.torch_releases if vkey(r.version) <= (2, 7)]


def test_a_requirements_fix_is_planned_on_the_matrix_given(rtx2070x2):
    # torch 2.13.0+cpu on two RTX 2070s (driver 590, CUDA 13.1): on the bundled matrix the fix is 2.13's cu130 build;
    # on a matrix that knows PyTorch only up to 2.7 it is 2.7 (cu126, the PyPI default): the matrix passed to
    # evaluate() decides, never a reload of the bundled one.
    (bundled,) = evaluate(parse_requirements(["torch:cuda"]), rtx2070x2, matrix=MATRIX)
    assert "torch==2.13.0+cu130" in bundled.finding.remediation.lines()[-1]
    (older,) = evaluate(parse_requirements(["torch:cuda"]), rtx2070x2, matrix=_TorchUpTo27(MATRIX))
    assert older.finding.remediation.lines()[-1].endswith(
        "install 'torch==2.7.*' --index-url https://download.pytorch.org/whl/cu126"
    )
    assert "PyTorch 2.7 (cu126) is the newest that does" in older.finding.remediation.summary


# --- TensorFlow in conda -------------------------------------------------------------------------------------


def test_the_conda_equivalent_of_tensorflow_names_the_environment_or_a_placeholder():
    _, build = _tf("2.15")
    assert pick_tensorflow.conda_equivalent(machine(), build) == (
        "conda",
        "install",
        "-p",
        "/opt/conda/envs/ml",
        "-c",
        "conda-forge",
        "tensorflow=2.15=cuda*",
    )
    bare = TargetEnv("/usr/bin/python3", "3.11.7", kind="conda")
    assert pick_tensorflow.conda_equivalent(machine(env=bare), build)[3] == "PREFIX"


# --- no driver seen: what the chosen build asks of one ----------------------------------------------------


class _NoDriverRows:
    """A matrix that knows no driver for any CUDA (a --matrix directory without cuda.toml's driver rows)."""

    def min_driver_for_cuda(self, cuda, os):
        return None

    def minor_compat_floor(self, major, os):
        return None

    def cc_target(self, cc):
        return None


def test_with_no_driver_seen_the_plan_names_the_driver_the_build_needs():
    # A GPU seen (or named with --gpu), no driver: the plan says which driver the chosen build needs, the lowest
    # that runs it (CUDA 12's minor-version floor 525.60.13) and the one that runs it fully (570.26 for 12.8).
    _, build = _torch_build("2.7", "cu128")
    unseen = Machine("linux", "x86_64", None, None, (RTX3060,), _ENV)
    prefix = (
        "no NVIDIA driver was seen here: of the builds with kernels for this GPU, PyTorch 2.7 (cu128) needs the lowest driver: "
    )
    ask = "; run nvidia-smi and give its CUDA version (--cuda) for the newest build that driver runs"
    assert driver_unseen(MATRIX, unseen, build) == prefix + "driver >= 525.60.13 (>= 570.26 for full CUDA 12.8 support)" + ask
    # Where the matrix knows no driver for that CUDA, the plan still says what to look for.
    assert driver_unseen(_NoDriverRows(), unseen, build) == prefix + "a driver that runs CUDA 12.8" + ask
    # A driver seen, or a CPU build: nothing to say.
    assert driver_unseen(MATRIX, machine(), build) is None
    assert driver_unseen(MATRIX, dataclasses.replace(unseen, cpu=True), build) is None


# --- --cpu with a release that does not fit ---------------------------------------------------------------


def test_a_cpu_release_that_does_not_fit_offers_the_newest_cpu_build_that_does():
    # PyTorch 1.7 supports Python <3.10 only (compat_matrix/torch.toml): on Python 3.11 with --cpu nothing is
    # chosen, and the plan offers instead the newest release's CPU build (from PyTorch's cpu index).
    _, facts = probe("p100-driver510-torch-cu121")
    env = TargetEnv("/usr/bin/python3", "3.11.7", kind="venv")
    plan = plan_install(facts, CTX, "torch", "1.7", env=env, options=Options(target=Target(cpu=True)))
    assert plan.chosen is None and plan.steps == ()
    assert [j.text for j in plan.ruled_out[0].failures()] == ["supports Python >=3.6,<3.10, not 3.11.7"]
    newest = max(MATRIX.torch_releases, key=lambda r: vkey(r.version)).version
    assert plan.instead is not None
    assert (plan.instead.build.variant, plan.instead.build.specs, plan.instead.build.index_url) == (
        "cpu",
        (f"torch=={newest}.*",),
        "https://download.pytorch.org/whl/cpu",
    )


def test_a_jax_build_that_runs_from_ptx_needs_a_driver_that_runs_its_cuda_fully():
    # JAX 0.4.31's CUDA 12 build (CUDA 12.3) has no sm_120 cubin, only compute_90 PTX: on an RTX 5070 the driver
    # must JIT-compile it, which a driver running CUDA 12.3 only through minor-version compatibility cannot
    # (https://docs.nvidia.com/deploy/cuda-compatibility/: "PTX ... JIT ... not supported"). Driver 535 runs up to 12.2.
    rtx5070 = GpuInfo(0, "NVIDIA GeForce RTX 5070", "12.0", "Blackwell")
    row, builds = next((r, b) for r, b in pick_jax.groups(MATRIX, None) if r.version == "0.4.31")
    build = next(b for b in builds if b.variant == "cuda12")
    compat = Machine("linux", "x86_64", "535.104.05", "12.2", (rtx5070,), _ENV)
    (gpu,) = [j for j in pick_jax.judge(MATRIX, compat, None, row, build).judgements if j.topic == "gpu"]
    assert not gpu.ok
    assert "a driver running CUDA 12.3 through minor-version compatibility cannot" in gpu.text
    # A driver that runs CUDA 12.3 fully JIT-compiles it: it fits, with a note on the slow first start.
    # Asked what a driver upgrade would open (ignore_driver), the kernels are judged as under a full driver.
    (gpu,) = [j for j in pick_jax.judge(MATRIX, compat, None, row, build, ignore_driver=True).judgements if j.topic == "gpu"]
    assert (gpu.ok, gpu.note) == (True, True)
    full = Machine("linux", "x86_64", "550.54.14", "12.4", (rtx5070,), _ENV)
    (gpu,) = [j for j in pick_jax.judge(MATRIX, full, None, row, build).judgements if j.topic == "gpu"]
    assert (gpu.ok, gpu.note) == (True, True)


def test_a_stale_plugin_of_another_cuda_major_means_the_build_is_not_installed():
    # jax-cuda11-plugin left beside a complete CUDA 12 set: two plugins would be loaded, so the plan reinstalls.
    stale = {**PLUGIN_0438, "jax-cuda11-plugin": "0.4.38"}
    assert pick_jax.installed_matches(_with_installed(**stale), None, _jax_build("0.4.38")) is False


@pytest.mark.parametrize(
    ("visible", "met", "found"),
    [
        ("0", True, "1 GPU(s) (CUDA_VISIBLE_DEVICES=0 of 2)"),  # one GPU is enough for `gpus` alone
        ("", False, "0 GPU(s) (CUDA_VISIBLE_DEVICES= of 2)"),
        ("0,1", True, "2 GPU(s) (CUDA_VISIBLE_DEVICES=0,1 of 2)"),
    ],
)
def test_gpus_without_a_condition_means_at_least_one(rtx2070x2, visible, met, found):
    env = {**rtx2070x2.platform.env, "CUDA_VISIBLE_DEVICES": visible}
    facts = dataclasses.replace(rtx2070x2, platform=dataclasses.replace(rtx2070x2.platform, env=env))
    (o,) = evaluate(parse_requirements(["gpus"]), facts)
    assert (o.met, o.found) == (met, found)


@pytest.mark.parametrize(
    ("spec", "python"),
    [
        (">=3.9,<3.14", "3.13"),  # the newest below the upper bound
        ("<=3.12", "3.12"),
        (">=3.6,<3.7", "3.6"),  # TensorFlow 1.13-era ranges end at 3.6
        (">=3.11", "3.11"),  # no upper bound: the floor
        (">=3.10.2", "3.10"),
    ],
)
def test_the_python_to_suggest_is_the_newest_a_range_allows(spec, python):
    assert suggest_python(spec) == python


# --- no GPU to run on: why, and where that was read -----------------------------------------------------------


def _gpus_lost(facts):
    return _driver(facts, gpus=tuple(dataclasses.replace(g, lost=True) for g in facts.driver.gpus))


def _visible(facts, value: str):
    env = {**facts.platform.env, "CUDA_VISIBLE_DEVICES": value}
    return dataclasses.replace(facts, platform=dataclasses.replace(facts.platform, env=env))


@pytest.mark.parametrize(
    ("change", "found"),
    [
        # CUDA_VISIBLE_DEVICES hides both GPUs: the count says how many there are.
        (lambda f: _visible(f, ""), "no GPU visible (CUDA_VISIBLE_DEVICES= of 2)"),
        # No GPU listed and neither NVML nor nvidia-smi answers: the driver findings say why.
        (
            lambda f: _driver(f, gpus=(), nvml_status="driver_not_loaded", smi_status="failed"),
            "no GPU: the NVIDIA driver is not reachable (see the driver findings)",
        ),
        # The driver answers and lists none.
        (lambda f: _driver(f, gpus=()), "no GPU"),
    ],
)
@pytest.mark.parametrize("spec", ["gpu", "cc>=7.0", "bf16"])
def test_no_gpu_to_run_on_says_why(rtx2070x2, change, found, spec):
    (o,) = evaluate(parse_requirements([spec]), change(rtx2070x2))
    assert not o.met
    assert o.found == found


def test_lost_gpus_are_no_gpu_to_run_on(rtx2070x2):
    # Both on the bus but lost (gpu-lost): no program can use them, so `gpu` is unmet and `gpus` counts none.
    gpu, gpus = evaluate(parse_requirements(["gpu", "gpus"]), _gpus_lost(rtx2070x2))
    assert (gpu.met, gpu.found) == (False, "no usable GPU: 2 lost (see gpu-lost)")
    assert (gpus.met, gpus.found) == (False, "0 GPU(s), and 2 lost")


@pytest.mark.parametrize(
    ("nvml_status", "visible", "evidence"),
    [
        ("ok", None, (Evidence("nvml", "2 GPU(s)"),)),
        ("library_not_found", None, (Evidence("cmd:nvidia-smi", "2 GPU(s)"),)),
        ("ok", "1", (Evidence("nvml", "2 GPU(s)"), Evidence("env:CUDA_VISIBLE_DEVICES", "1"))),
    ],
)
def test_the_gpu_requirements_evidence_names_where_the_gpus_were_listed(rtx2070x2, nvml_status, visible, evidence):
    facts = _driver(rtx2070x2, nvml_status=nvml_status)
    if visible is not None:
        facts = _visible(facts, visible)
    (o,) = evaluate(parse_requirements(["gpus>=3"]), facts)
    assert o.evidence == evidence


# --- framework builds: not installed, and what was read ---------------------------------------------------------


@pytest.mark.parametrize(
    ("probed", "evidence"),
    [
        (Absent("not installed"), Evidence("dist:torch", "absent")),  # no source: the distribution it looked for
        (Absent("not installed", "dist:torch-nightly"), Evidence("dist:torch-nightly", "absent")),
    ],
)
def test_a_framework_not_found_is_unmet_with_where_it_was_looked_for(rtx2070x2, probed, evidence):
    facts = dataclasses.replace(rtx2070x2, frameworks=dataclasses.replace(rtx2070x2.frameworks, torch=probed))
    (o,) = evaluate(parse_requirements(["torch:cuda"]), facts)
    assert (o.met, o.found, o.evidence) == (False, "PyTorch is not usable: not installed", (evidence,))


def test_a_torch_builds_evidence_is_its_version_and_cuda(rtx4090):
    (o,) = evaluate(parse_requirements(["torch:cuda"]), rtx4090)
    assert (o.met, o.found) == (True, "torch 2.2.1+cu121 (CUDA 12.1)")
    assert [e.value for e in o.evidence] == ["2.2.1+cu121 cuda=12.1"]


# --- plan notes: no GPU, or a CPU build ---------------------------------------------------------------------


def test_a_plan_without_a_gpu_says_its_kernels_were_not_checked_unless_it_is_a_cpu_build():
    venv = TargetEnv("/home/u/venv/bin/python", "3.11.7", kind="venv")
    no_gpu = "no GPU was named or seen, so no build could be checked for its kernels (--gpu NAME|CC checks them)"
    cpu = "a CPU-only build: the framework will not use a GPU"
    assert _notes(machine(env=venv, gpus=()), venv) == (no_gpu,)
    assert _notes(dataclasses.replace(machine(env=venv, gpus=()), cpu=True), venv) == (cpu,)
    assert _notes(machine(env=venv), venv) == ()


@pytest.mark.parametrize(
    ("visible", "indices"),
    [
        # CUDA_VISIBLE_DEVICES takes GPU UUIDs as well as indices (CUDA C Programming Guide, "CUDA Environment
        # Variables"); the order given is the order CUDA numbers them.
        ("GPU-12345678-aaaa-bbbb-cccc-0123456789cd", [1]),
        ("GPU-12345678-aaaa-bbbb-cccc-0123456789cd,0", [1, 0]),
        ("1", [1]),
    ],
)
def test_cuda_visible_devices_chooses_gpus_by_uuid_or_index(rtx2070x2, visible, indices):
    facts = _visible(rtx2070x2, visible)
    gpus, note = visible_gpus(facts)
    assert [g.index for g in gpus] == indices
    assert note == f" (CUDA_VISIBLE_DEVICES={visible} of 2)"
    # Only the chosen GPUs are judged: GPU 1 alone upgraded to 8.6 meets cc>=8.0 only when it alone is chosen.
    upgraded = _driver(
        facts, gpus=tuple(dataclasses.replace(g, compute_capability="8.6") if g.index == 1 else g for g in facts.driver.gpus)
    )
    (o,) = evaluate(parse_requirements(["cc>=8.0"]), upgraded)
    assert o.met is (indices == [1])


def test_tensorflow_gpu_on_a_cpu_distribution_keeps_its_version_in_the_gpu_build(rtx2070x2):
    # tensorflow-cpu 2.21.0 installed: the fix installs the GPU build of the same 2.21.0 (tensorflow[and-cuda]) and
    # removes tensorflow-cpu, which installs the same `tensorflow` package directory (never two at once).
    (o,) = evaluate(parse_requirements(["tensorflow:gpu"]), rtx2070x2)
    assert (o.met, o.found) == (False, "tensorflow-cpu 2.21.0 is a CPU-only build")
    py = "/home/user/.venvs/ml/bin/python -m pip"
    assert o.finding.remediation.lines() == [
        f"{py} install --dry-run 'tensorflow[and-cuda]==2.21.0'",
        f"{py} uninstall -y tensorflow-cpu",
        f"{py} install 'tensorflow[and-cuda]==2.21.0'",
    ]


def test_the_way_back_from_a_jax_install_pins_every_jax_package_installed_now():
    assert pick_jax.undo_args(_with_installed(**PLUGIN_0438, numpy="2.1.0")) == (
        "jax==0.4.38",
        "jaxlib==0.4.38",
        "jax-cuda12-pjrt==0.4.38",
        "jax-cuda12-plugin==0.4.38",
    )
    assert pick_jax.undo_args(_with_installed()) == ()


def test_tensorflow_and_cuda_brings_its_libraries_as_wheels():
    # From 2.14 `tensorflow[and-cuda]` installs NVIDIA's CUDA and cuDNN wheels (https://www.tensorflow.org/install/pip):
    # nothing on the system is needed, so nothing is checked there.
    row, build = _tf("2.15")
    candidate = pick_tensorflow.judge(MATRIX, machine(), None, row, build)
    assert [(j.ok, j.note, j.text) for j in candidate.judgements if j.topic == "libraries"] == [
        (True, False, "tensorflow[and-cuda] brings the CUDA 12 and cuDNN libraries as pip wheels")
    ]
    assert pick_tensorflow.manual(machine(), row, candidate) == ()


@pytest.mark.parametrize(
    ("spec", "summary", "commands"),
    [
        (
            "gpu-memory-free>=20GiB",
            "Free GPU memory for gpu-memory-free>=20GiB: stop the processes that hold it, or run on an idle GPU.",
            ["nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv"],
        ),
        (
            "gpu-memory>=40GiB",
            "Run on GPUs with gpu-memory>=40GiB (the memory the driver reports, a little below the marketed size).",
            [],
        ),
    ],
)
def test_free_memory_is_freed_and_total_memory_needs_other_gpus(rtx2070x2, spec, summary, commands):
    # Free memory is taken by processes (nvidia-smi lists them); total memory is the card's: only another GPU has more.
    (o,) = evaluate(parse_requirements([spec]), rtx2070x2)
    assert not o.met
    assert (o.finding.remediation.summary, o.finding.remediation.lines()) == (summary, commands)
    word = "free" if "free" in spec else "total"
    assert o.found.startswith("GPU 0 (NVIDIA GeForce RTX 2070): ") and f" {word}; GPU 1 " in o.found


def test_a_jax_row_that_lists_cubins_but_no_ptx_keeps_its_own_lists():
    # A row's kernel lists are inherited from an older row only when it lists none at all: cubins without PTX are
    # a build that ships no PTX, not a row the matrix left blank.
    from types import SimpleNamespace

    def row(version, arch, ptx):
        return SimpleNamespace(version=version, cuda={12: SimpleNamespace(arch=arch, ptx=ptx)})

    older = row("0.4.20", ("sm_52", "sm_80"), ("compute_90",))
    cubins_only = row("0.4.26", ("sm_80", "sm_90"), ())
    blank = row("0.4.30", (), ())
    matrix = SimpleNamespace(jax_releases=[older, cubins_only, blank])
    assert pick_jax.kernels(matrix, cubins_only, 12) == (("sm_80", "sm_90"), (), None)
    assert pick_jax.kernels(matrix, blank, 12) == (("sm_80", "sm_90"), (), "0.4.26")
    assert pick_jax.kernels(matrix, older, 12) == (("sm_52", "sm_80"), ("compute_90",), None)


def test_a_plan_into_a_system_interpreter_or_none_says_so():
    # PEP 668: a distribution's Python may refuse pip ("externally-managed-environment"); a venv keeps them apart.
    system = TargetEnv("/usr/bin/python3", "3.11.7", kind="system")
    assert _notes(machine(env=system), system) == (
        "/usr/bin/python3 is a system interpreter: a virtual environment keeps the install apart from the "
        "distribution's packages (pip may refuse here with 'externally-managed-environment')",
    )
    venv = TargetEnv("/home/u/venv/bin/python", "3.11.7", kind="venv")
    assert _notes(machine(env=venv), venv) == ()
    unseen = TargetEnv(None, None)
    (note,) = _notes(machine(env=unseen), unseen)
    assert note.startswith("no Python environment was seen: the commands name ")
