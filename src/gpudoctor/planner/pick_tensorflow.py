"""TensorFlow builds: one per release. From 2.14 `tensorflow[and-cuda]` brings the CUDA libraries as
NVIDIA pip wheels; before, TensorFlow dlopen()s them from the system by soname, so they must be
there (compat_matrix/tensorflow.toml). Native Windows has GPU builds up to 2.10 only.
"""

from __future__ import annotations

import re

from gpudoctor.matrix import version_key, version_parts
from gpudoctor.planner.judge import judge_driver, judge_kernels, judge_python
from gpudoctor.planner.model import Build, Candidate, Judgement, Machine
from gpudoctor.versions import major, major_minor

# Exact releases whose [and-cuda] extra cannot resolve, and the re-release that does: 2.15.0's extra pins
# tensorrt==8.6.1.post1, which the package index does not serve; 2.15.0.post1's resolves (pip's resolver,
# `pip install --dry-run --report`, tests/install_pins/pins-checked.txt).
AND_CUDA_REPLACED = {"2.15.0": "2.15.0.post1"}
TF_DISTRIBUTIONS = ("tensorflow", "tensorflow-gpu", "tensorflow-cpu", "tensorflow-intel", "tf-nightly")
_REQUEST = re.compile(r"^(\d+\.\d+)(\.\d+)?$")


def parse_request(matrix, requested: str) -> tuple[str, str | None]:
    from gpudoctor.errors import UsageError

    m = _REQUEST.match(requested.strip())
    if not m:
        raise UsageError(f"not a TensorFlow version: {requested!r}", "give one as pip would: 2.15 or 2.15.1")
    row = matrix.tensorflow_release(m.group(1))
    if row is None:
        known = f"{matrix.tf_releases[0].version} to {matrix.tf_releases[-1].version}"
        raise UsageError(
            f"TensorFlow {m.group(1)} is not in the compatibility matrix (it knows {known})",
            "gpudoctor only installs builds it can vouch for",
        )
    return row.version, (m.group(1) + m.group(2) if m.group(2) else None)


def groups(matrix, requested: str | None):
    exact = None
    rows = sorted(matrix.tf_releases, key=lambda r: version_key(r.version), reverse=True)
    if requested:
        release, exact = parse_request(matrix, requested)
        rows = [r for r in rows if r.version == release]
    out = []
    for row in rows:
        pin = exact or f"{row.version}.*"
        if row.and_cuda and exact in AND_CUDA_REPLACED:
            pin = AND_CUDA_REPLACED[exact]
        package = "tensorflow[and-cuda]" if row.and_cuda else row.package
        variant = "and-cuda" if row.and_cuda else "system CUDA"
        out.append(
            (row, [Build("tensorflow", row.version, variant, row.cuda, (f"{package}=={pin}",), sources=row.source, pin=pin)])
        )
    return out


def missing_libraries(facts, row) -> list[str]:
    from gpudoctor.loader import missing_sonames

    return missing_sonames(facts, row.sonames, ())


def judge(matrix, machine: Machine, facts, row, build: Build, *, ignore_driver: bool = False) -> Candidate:
    js: list[Judgement] = []
    if machine.os == "macos":
        js.append(Judgement("os", False, "TensorFlow publishes no CUDA builds for macOS"))
    elif machine.os == "windows" and not row.windows_gpu:
        js.append(Judgement("os", False, "no GPU support on native Windows after TensorFlow 2.10 (use WSL2, or 2.10)"))
    js.append(judge_python(machine, row.python, (), f"TensorFlow {row.version}"))
    drv, full = judge_driver(matrix, machine, row.cuda)
    js.append(drv)
    js += judge_kernels(machine, row.arch, row.ptx, True if ignore_driver else full, row.cuda)
    if row.and_cuda:
        js.append(
            Judgement(
                "libraries", True, f"tensorflow[and-cuda] brings the CUDA {major(row.cuda)} and cuDNN libraries as pip wheels"
            )
        )
    elif machine.os == "windows":
        js.append(
            Judgement(
                "libraries",
                True,
                f"loads CUDA {row.cuda} and cuDNN {row.cudnn} installed on the system (not checked on Windows)",
                note=True,
            )
        )
    else:
        missing = missing_libraries(facts, row)
        if missing:
            js.append(
                Judgement(
                    "libraries",
                    True,
                    f"has no [and-cuda] extra: it loads CUDA {major(row.cuda)} libraries from the system, and these are missing: {', '.join(missing)}",
                    note=True,
                )
            )
        else:
            js.append(
                Judgement("libraries", True, f"finds the CUDA {major(row.cuda)} and cuDNN libraries it loads on this system")
            )
    return Candidate(build, tuple(js))


def rank(c: Candidate) -> tuple:
    return ()  # one build per release


def kernels_of(matrix, row, build: Build) -> tuple[tuple[str, ...], tuple[str, ...]]:
    return row.arch, row.ptx


# TensorFlow supports NumPy 2 from 2.18 ("TensorFlow now supports and is compiled with NumPy 2.0 by default",
# https://github.com/tensorflow/tensorflow/releases/tag/v2.18.0); an older release imported beside numpy 2 fails
# ("A module that was compiled using NumPy 1.x cannot be run in NumPy 2"), and some (2.10: numpy>=1.20) do not
# bound it themselves: the install says numpy<2 (tests/install_pins/pins-checked.txt has the resolver's word).
NUMPY2_FROM = (2, 18)


def install_specs(matrix, machine: Machine, build: Build) -> tuple[str, ...]:
    if version_key(build.release)[:2] < NUMPY2_FROM:
        return (*build.specs, "numpy<2")
    return build.specs


def evidence(machine: Machine, facts=None) -> tuple[str, str] | None:
    return None  # no companion names a build of this framework


def settle(matrix, machine: Machine, build: Build) -> Build:
    return build


def manual(machine: Machine, row, candidate: Candidate) -> tuple[str, ...]:
    if row.and_cuda or not any(j.topic == "libraries" and j.note for j in candidate.judgements):
        return ()
    mm = major_minor(row.cuda)
    if machine.os == "windows":
        return (
            f"Install CUDA {mm} and cuDNN {row.cudnn} for TensorFlow {row.version}, e.g.: conda install -c conda-forge cudatoolkit={mm} cudnn={row.cudnn}",
        )
    minor = (version_parts(row.cuda) + (0,))[1]
    return (
        f"Install CUDA {mm} runtime libraries and cuDNN {row.cudnn} where TensorFlow {row.version} finds them "
        "(the ldconfig cache or LD_LIBRARY_PATH):",
        # The note on a line of its own, never on the command line (interactive zsh runs a `#` there, issue 30).
        "  # NVIDIA\u2019s CUDA repository",
        f"  sudo apt-get install -y cuda-libraries-{major(row.cuda)}-{minor}",
        f"  or, in a conda environment: conda install -c conda-forge cudatoolkit={mm} cudnn={row.cudnn}",
    )


def _installed(machine: Machine) -> list[tuple[str, str]]:
    return [(d, machine.installed[d]) for d in TF_DISTRIBUTIONS if d in machine.installed]


def target_package(build: Build) -> str:
    return build.specs[0].split("[", 1)[0].split("=", 1)[0]


def installed_matches(machine: Machine, tf_facts, build: Build) -> bool:
    if tf_facts is None or tf_facts.is_cuda_build is False or tf_facts.distribution != target_package(build):
        return False
    if build.pin and not build.pin.endswith(".*") and tf_facts.version != build.pin:
        return False
    if version_parts(tf_facts.version)[:2] != version_parts(build.release)[:2]:
        return False
    # [and-cuda] installed means NVIDIA's cuDNN wheel of that CUDA major is there too.
    return build.variant != "and-cuda" or f"nvidia-cudnn-cu{major(build.cuda)}" in machine.installed


def uninstall_names(machine: Machine, build: Build, reinstall: bool) -> tuple[str, ...]:
    # tensorflow-cpu / -gpu / -intel install the same `tensorflow` package directory: never two at once.
    target = target_package(build)
    return tuple(d for d, _ in _installed(machine) if d != target or reinstall)


def undo_args(machine: Machine) -> tuple[str, ...]:
    return tuple(f"{d}=={v}" for d, v in _installed(machine))


def conda_equivalent(machine: Machine, build: Build) -> tuple[str, ...]:
    # conda-forge's GPU builds carry build strings cudaNNN...
    return ("conda", "install", "-p", machine.env.prefix or "PREFIX", "-c", "conda-forge", f"tensorflow={build.release}=cuda*")


# --- CPU-only builds (--cpu): the plain `tensorflow` package runs on the CPU where no GPU is usable
# (https://www.tensorflow.org/install/pip).


def cpu_build(machine: Machine, row, build: Build) -> Build:
    return Build("tensorflow", row.version, "cpu", None, (f"tensorflow=={build.pin}",), sources=row.source, pin=build.pin)


def cpu_judge(machine: Machine, row, build: Build) -> Candidate:
    return Candidate(build, (judge_python(machine, row.python, (), f"TensorFlow {row.version}"),))


def cpu_installed(machine: Machine, tf_facts, build: Build) -> bool:
    if tf_facts is None or tf_facts.distribution not in ("tensorflow", "tensorflow-cpu"):
        return False
    if build.pin and not build.pin.endswith(".*") and tf_facts.version != build.pin:
        return False
    return version_parts(tf_facts.version)[:2] == version_parts(build.release)[:2]


def companion_moves(matrix, machine: Machine, build: Build, installer: str) -> tuple[tuple[str, ...], tuple]:
    """Nothing installed beside TensorFlow is built against one of its releases: nothing moves with it."""
    return (), ()
