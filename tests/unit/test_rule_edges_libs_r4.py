"""The library rules (checks/frameworks.py, checks/cudnn.py, checks/toolkit.py, loader.py) at edges a fourth
mutation round found unguarded (tools/mutate.py; docs/testing.md, "Mutation testing").

Each test asserts what a user sees (a finding, what it names, the commands of its fix) or what the one
function that decides it answers, on recorded machines (tests/machines) with one fact changed at a time.
Where a rule reads the loader's own order (facts.loading, gpudoctor.loader.resolve_for), the ELF record is
written here by hand as gpudoctor.probes.loading would record it.
"""

from __future__ import annotations

import dataclasses

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.checks.cudnn import Need, _loaded_via, loaded_cudnn
from gpudoctor.checks.toolkit import switch_request
from gpudoctor.cmdline import Cmd
from gpudoctor.facts import (
    CudnnInstall,
    ElfObject,
    FrameworkLoading,
    LibDir,
    LibraryResolution,
    LoadingFacts,
    Toolkit,
    TorchFacts,
)
from gpudoctor.planner.remedy import KEEP
from gpudoctor.probed import Found
from tests.unit.test_jax_agreement import _facts as jax_venv_facts
from tests.unit.test_rule_edges_checks import facts_of, findings, replace

CUDA118 = "/usr/local/cuda-11.8/lib64"
TF_SO = "/venv/lib/python3.10/site-packages/tensorflow/libtensorflow_framework.so.2"


def on_driver(version, cuda):
    """The driver fields `replace` changes for a driver of this version reporting this CUDA, as both NVML and
    nvidia-smi would say it."""
    return {"smi_driver_version": version, "nvml_driver_version": version, "smi_cuda_version": cuda, "nvml_cuda_version": cuda}


def outside_pip(facts):
    """The machine with its interpreter unknown: a TensorFlow not known to be pip's takes the system's cuDNN package
    (pip's takes NVIDIA's wheel: tests/unit/test_prescription_kinds.py, issue 27 kind 1)."""
    from gpudoctor.probed import Unknown

    return replace(facts, frameworks={"python": Unknown("failed", "not probed", "python")})


def with_loading(facts, framework, loads, objects=()):
    """facts.loading with one framework's record: each (soname, path, via) the loader resolved."""
    record = FrameworkLoading(
        framework,
        tuple(objects) or (ElfObject(TF_SO),),
        tuple(LibraryResolution(s, p, v, needed_by=TF_SO, how="dlopen") for s, p, v in loads),
    )
    return dataclasses.replace(facts, loading=LoadingFacts(None, (), (), (), (record,)))


@pytest.fixture(scope="module")
def tf_ok():
    """TensorFlow 2.11.0 (CUDA 11.2 build) with CUDA 11.8 and cuDNN 8.6 on LD_LIBRARY_PATH: every soname found."""
    return facts_of("rtx3060-tf211-on-cuda118-cudnn86")


@pytest.fixture(scope="module")
def tf_cuda12_only():
    """TensorFlow 2.11.0 on a machine with CUDA 12.4 and cuDNN 9.1 only: its CUDA 11 sonames and libcudnn.so.8 missing."""
    return facts_of("rtx3060-tf211-cuda12-only")


TF211_SONAMES = (
    "libcudart.so.11.0",
    "libcublas.so.11",
    "libcublasLt.so.11",
    "libcufft.so.10",
    "libcurand.so.10",
    "libcusolver.so.11",
    "libcusparse.so.11",
    "libcudnn.so.8",
)  # compat_matrix/tensorflow.toml's row for 2.11


# --- framework-cuda-libs-missing: the loader's own record decides over the fixed order -------------------


def test_the_elf_record_finding_no_copy_wins_over_the_fixed_order(tf_ok):
    """With TensorFlow's libraries read, the loader's answer is the one that counts: a soname it resolved to
    no file is missing although a directory of the fixed order (LD_LIBRARY_PATH here) lists it (the record
    saw what the fixed order cannot: a run path, nodeflib, a preload), and only that soname is named."""
    assert findings(tf_ok, "framework-cuda-libs-missing") == []
    loads = [(s, None if s == "libcudart.so.11.0" else f"{CUDA118}/{s}", "LD_LIBRARY_PATH") for s in TF211_SONAMES]
    (f,) = findings(with_loading(tf_ok, "tensorflow", loads), "framework-cuda-libs-missing")
    assert f.title == "TensorFlow 2.11.0 cannot load its CUDA 11 libraries: libcudart.so.11.0"


def test_the_elf_record_finding_every_copy_wins_over_the_fixed_order(tf_cuda12_only):
    """And the other way round: the sonames the fixed order cannot find, the record found through a run path
    (a directory no LD_LIBRARY_PATH entry names): nothing is missing."""
    assert findings(tf_cuda12_only, "framework-cuda-libs-missing") != []
    loads = [(s, f"/opt/cuda11/lib/{s}", "RUNPATH of libtensorflow_framework.so.2") for s in TF211_SONAMES]
    facts = with_loading(tf_cuda12_only, "tensorflow", loads)
    assert findings(facts, "framework-cuda-libs-missing") == []
    assert findings(facts, "cudnn-missing") == []


def test_a_soname_the_record_does_not_list_is_missing_for_tensorflow(tf_ok):
    """TensorFlow dlopen()s by name, and every soname offered anywhere was resolved: one absent from its
    record is nowhere the loader can see (elf_resolution's answer), whatever the fixed order says."""
    loads = [(s, f"{CUDA118}/{s}", "LD_LIBRARY_PATH") for s in TF211_SONAMES if s != "libcufft.so.10"]
    (f,) = findings(with_loading(tf_ok, "tensorflow", loads), "framework-cuda-libs-missing")
    assert f.title == "TensorFlow 2.11.0 cannot load its CUDA 11 libraries: libcufft.so.10"


# --- cudnn-missing: what it says about the other copies -------------------------------------------------


def test_cudnn_missing_names_only_copies_of_other_majors(tf_cuda12_only):
    """The "other majors are installed" note lists the cuDNN installs of another major (9.1.0 here): a copy of the
    needed major that the loader cannot reach (a directory on no search path) is not another major, and an
    install whose major is unknown is not named either."""
    facts = dataclasses.replace(
        tf_cuda12_only,
        cudnn=(
            *tf_cuda12_only.cudnn,
            CudnnInstall("8.0.5", 8, "library", "/opt/elsewhere/libcudnn.so.8.0.5"),
            CudnnInstall(None, None, "header", "/opt/elsewhere/include/cudnn.h"),
        ),
    )
    (f,) = findings(facts, "cudnn-missing")
    assert f.title == "TensorFlow 2.11.0 needs libcudnn.so.8 and none can be loaded"
    assert "(other majors are installed: 9.1.0; a different major cannot stand in)" in f.detail


def test_cudnn_missing_without_other_majors_says_none(tf_cuda12_only):
    facts = dataclasses.replace(tf_cuda12_only, cudnn=(CudnnInstall("8.0.5", 8, "library", "/opt/elsewhere/libcudnn.so.8.0.5"),))
    (f,) = findings(facts, "cudnn-missing")
    assert "other majors" not in f.detail


# --- which copy of cuDNN loads, and by which way ---------------------------------------------------------

WHEEL_CUDNN = "/venv/lib/python3.10/site-packages/nvidia/cudnn/lib"


def tf_need(own=()):
    return Need("TensorFlow 2.11.0", 11, 8, "8.1", tuple(own), (), None, key="tensorflow")


def test_a_wheel_directory_another_framework_saw_is_searched(tf_cuda12_only):
    """cuDNN in NVIDIA's wheel directory that PyTorch's probe found (site-packages/nvidia/cudnn/lib) is a
    directory of the environment, searched for TensorFlow too (cudnn._wheel_dirs): the copy there loads,
    by way of the wheel."""
    torch = TorchFacts("2.0.1+cu118", "11.8", None, "/venv/torch", (LibDir(WHEEL_CUDNN, "wheel", ("libcudnn.so.8",)),))
    frameworks = dataclasses.replace(tf_cuda12_only.frameworks, torch=Found(torch, "python"))
    facts = dataclasses.replace(tf_cuda12_only, frameworks=frameworks)
    loaded = loaded_cudnn(facts, tf_need())
    assert loaded is not None
    assert (loaded.path, loaded.via) == (f"{WHEEL_CUDNN}/libcudnn.so.8", "wheel")
    # Not among any framework's directories: nothing loads.
    assert loaded_cudnn(tf_cuda12_only, tf_need()) is None


def test_the_way_in_is_the_wheel_or_bundled_directory_only_when_the_copy_is_in_it():
    """_loaded_via: a copy in the framework's own wheel or bundled directory is said as such; a copy
    elsewhere keeps the loader's way (ldconfig, a run path), however many own directories there are;
    LD_LIBRARY_PATH and LD_PRELOAD are said as they are, even for a wheel directory put on LD_LIBRARY_PATH."""
    own = (
        LibDir(WHEEL_CUDNN, "wheel", ("libcudnn.so.8",)),
        LibDir("/venv/torch/lib", "bundled", ("libcudnn.so.8",)),
        LibDir(CUDA118, "toolkit", ("libcudnn.so.8",)),
    )
    so = "libcudnn.so.8"
    assert _loaded_via(own, LibraryResolution(so, "/usr/lib/x86_64-linux-gnu/" + so, "ldconfig")) == "ldconfig"
    assert _loaded_via(own, LibraryResolution(so, f"{CUDA118}/{so}", "RUNPATH of libtf.so")) == "RUNPATH of libtf.so"
    assert _loaded_via(own, LibraryResolution(so, f"{WHEEL_CUDNN}/{so}", "RUNPATH of libtf.so")) == "wheel"
    assert _loaded_via(own, LibraryResolution(so, f"/venv/torch/lib/{so}", "RPATH of libtorch.so")) == "bundled"
    assert _loaded_via(own, LibraryResolution(so, f"{WHEEL_CUDNN}/{so}", "LD_LIBRARY_PATH")) == "LD_LIBRARY_PATH"
    assert _loaded_via(own, LibraryResolution(so, f"{WHEEL_CUDNN}/{so}", "LD_PRELOAD")) == "LD_PRELOAD"
    assert _loaded_via(own, LibraryResolution(so, None, None)) == "ldconfig"


# --- toolkit: what switch-cuda is given -------------------------------------------------------------------


def tk(root, version):
    return Toolkit(root, version, "version.json", (root,), f"{root}/bin/nvcc", True)


def test_switch_request_is_the_full_version_only_when_a_newer_one_of_its_minor_is_installed(tf_ok):
    """switch-cuda X.Y picks the newest X.Y.z installed, so X.Y names the target unless another toolkit of
    the same major.minor is strictly newer; an equal version elsewhere, an older one or another minor does not
    make the full version necessary."""
    target = tk("/usr/local/cuda-12.4", "12.4.1")

    def request(*others):
        facts = replace(tf_ok, toolkits={"toolkits": (target, *others)})
        return switch_request(facts, target)

    assert request() == "12.4"
    assert request(tk("/opt/cuda-12.4", "12.4.1")) == "12.4"
    assert request(tk("/opt/cuda-12.4", "12.4.0")) == "12.4"
    assert request(tk("/usr/local/cuda-12.5", "12.5.1")) == "12.4"
    assert request(tk("/opt/cuda-12.4", "12.4.2")) == "12.4.1"
    assert request(tk("/opt/cuda-12.4", None)) == "12.4"


# --- cuDNN for a PyTorch that carries its own -------------------------------------------------------------

P100 = "p100-torch112-static-cudnn-none-installed"


def with_torch_load(facts, soname, how):
    """PyTorch's loading record with one more resolution: `soname` asked for `how` (needed, dlopen), found nowhere."""
    fl = facts.loading.of("torch")
    extra = LibraryResolution(soname, None, None, needed_by=fl.objects[0].path, how=how)
    record = dataclasses.replace(fl, loads=(*fl.loads, extra))
    return dataclasses.replace(facts, loading=dataclasses.replace(facts.loading, frameworks=(record,)))


def test_a_bundled_torch_needs_cudnn_only_when_its_own_libraries_name_it_among_their_dt_needed():
    """PyTorch 1.12's pip wheel carries cuDNN (compat_matrix/torch.toml: cudnn_bundled), so nothing is asked
    of the system; its libraries, read, overrule that only where a DT_NEEDED names libcudnn.so.N: then the
    copy must be loadable. A libcudnn the record saw only dlopen()ed by name is not such a need."""
    facts = facts_of(P100)
    assert findings(facts, "cudnn-missing") == []
    needed = findings(with_torch_load(facts, "libcudnn.so.8", "needed"), "cudnn-missing")
    assert [f.title for f in needed] == ["PyTorch 1.12.1+cu113 needs libcudnn.so.8 and none can be loaded"]
    assert findings(with_torch_load(facts, "libcudnn.so.8", "dlopen"), "cudnn-missing") == []


def test_a_bundled_cudnn_directory_is_the_copy_that_loads():
    """Without ELF records, a framework directory marked bundled that holds cuDNN (torch/lib) is what loads:
    its copy, by way of the bundle, version unknown (hashed names carry none)."""
    facts = facts_of("rtx3060-tf211-cuda12-only")
    own = (LibDir("/venv/torch/lib", "bundled", ("libcudnn.so.8",)),)
    need = Need("PyTorch 1.12.1", 11, 8, "8.3.2", own, (), None, "torch", "1.12.1")
    loaded = loaded_cudnn(facts, need)
    assert loaded is not None
    assert (loaded.path, loaded.version, loaded.cuda_major, loaded.via) == ("/venv/torch/lib/libcudnn", None, 11, "bundled")


# --- cudnn-too-old: only an LD_LIBRARY_PATH winner is unshadowed -------------------------------------------

JAX_SHADOWED = "rtx3060-jax-cudnn-shadowed-by-ld-library-path"


def test_an_old_copy_that_wins_by_ld_library_path_is_taken_off_it():
    (f,) = findings(facts_of(JAX_SHADOWED), "cudnn-too-old")
    assert f.remediation.summary.startswith("Stop /usr/local/cuda-12.4/lib64/libcudnn.so.9 winning")
    assert [type(c).__name__ for c in f.remediation.commands] == ["SetEnv"]


def test_an_old_copy_that_wins_by_an_rpath_is_not_fixed_through_ld_library_path():
    """The same two copies, the old one winning by an RPATH (searched before LD_LIBRARY_PATH, ld.so(8)): no
    LD_LIBRARY_PATH change moves it, so the fix is not "take it off LD_LIBRARY_PATH" but a new enough cuDNN."""
    facts = facts_of(JAX_SHADOWED)
    fl = facts.loading.of("jax")
    via = "RPATH of xla_cuda_plugin.so"
    loads = tuple(
        dataclasses.replace(r, via=via, copies=(dataclasses.replace(r.copies[0], via=via), *r.copies[1:]))
        if r.soname == "libcudnn.so.9"
        else r
        for r in fl.loads
    )
    record = dataclasses.replace(fl, loads=loads)
    facts = dataclasses.replace(facts, loading=dataclasses.replace(facts.loading, frameworks=(record,)))
    (f,) = findings(facts, "cudnn-too-old")
    assert f.evidence[0].source == f"loader:{via}"
    assert not f.remediation.summary.startswith("Stop")
    assert not any(type(c).__name__ == "SetEnv" for c in f.remediation.commands)


# --- the system cuDNN fix, per distribution family ------------------------------------------------------

TOO_OLD_TF = "rtx3060-tf211-cudnn80-too-old"


# The new directory put first, the rest of LD_LIBRARY_PATH kept as the shell holds it (cmdline.PrependPath).
def _kept(*lines: str) -> list[str]:
    """The lines that keep these settings for new shells (planner.remedy.kept): no environment of its own is known
    here, so ~/.bashrc, written by the interpreter the plan uses, each line as one argument."""
    from gpudoctor.cmdline import render

    note = "# keeps it in the .bashrc of your home folder, which each new bash reads"
    return [note, render(Cmd(("python3", "-c", KEEP["bashrc"], *lines)), "posix")]


SETENV_RHEL = [
    "# the new cuDNN ahead of the old copy, the rest kept",
    'export LD_LIBRARY_PATH=/usr/lib64"${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"',
    *_kept('export LD_LIBRARY_PATH=/usr/lib64"${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"'),
]


@pytest.mark.parametrize(
    ("distro", "lines"),
    [
        (
            ("ubuntu", "debian"),
            [
                "wget https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64/cuda-keyring_1.1-1_all.deb",
                "# adds NVIDIA’s CUDA repository and its signing key",
                "sudo dpkg -i cuda-keyring_1.1-1_all.deb",
                "sudo apt-get update",
                "# NVIDIA’s CUDA repository: the newest cuDNN 8 built for CUDA 11",
                "sudo apt-get install -y 'libcudnn8=8.*-1+cuda11.*'",
                "# keeps upgrades from replacing it with a build for another CUDA",
                "sudo apt-mark hold libcudnn8",
                "# the new cuDNN ahead of the old copy, the rest kept",
                'export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu"${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"',
                *_kept('export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu"${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"'),
            ],
        ),
        (
            ("rocky", "rhel centos fedora"),
            [
                "# the builds: choose one whose version ends in cuda11.x",
                "dnf --showduplicates list libcudnn8",
                "# NVIDIA’s CUDA repository",
                "sudo dnf install -y '<libcudnn8-for-cuda11>'",
                *SETENV_RHEL,
            ],
        ),
        (
            ("opensuse-leap", "suse opensuse"),
            [
                "# the builds: choose one whose version ends in cuda11.x",
                "zypper search -s libcudnn8",
                "# NVIDIA’s CUDA repository",
                "sudo zypper install -y '<libcudnn8-for-cuda11>'",
                *SETENV_RHEL,
            ],
        ),
        (("arch", None), []),
    ],
)
def test_the_cudnn8_fix_installs_where_the_family_puts_it_and_puts_that_ahead_on_ld_library_path(distro, lines):
    """cuDNN 8.0.5 loads through LD_LIBRARY_PATH (/usr/local/cuda-11.8/lib64) where TensorFlow 2.11 needs >= 8.1.
    The fix installs NVIDIA's cuDNN 8 for CUDA 11 with the family's package manager (apt globs the version,
    SOURCE_CUDNN8_INSTALL; dnf and zypper list the builds to choose from), then puts the directory that
    package installs into (Debian's multiarch /usr/lib/x86_64-linux-gnu; /usr/lib64 on RHEL and SUSE) ahead
    of the old copy. Arch has no such package: nothing to run, and the summary says so."""
    from gpudoctor.cmdline import render_all

    facts = outside_pip(facts_of(TOO_OLD_TF))
    d = dataclasses.replace(facts.platform.distro, id=distro[0], id_like=distro[1])
    facts = replace(facts, platform={"distro": d})
    (f,) = findings(facts, "cudnn-too-old")
    assert render_all(f.remediation.commands, "posix") == lines
    assert f.remediation.requires_root is bool(lines)
    if not lines:
        assert "No pinned package is known for this system" in f.remediation.summary


def test_without_a_cuda_major_no_cudnn_package_is_named():
    """cuDNN packages are built per CUDA major: with the framework's CUDA unknown there is no package to pin
    (never `libcudnn9-cuda-None`), nor without a cuDNN major."""
    from gpudoctor.checks.cudnn import cudnn_commands

    facts = facts_of(TOO_OLD_TF)
    for cuda, cudnn in ((None, 9), (None, 8), (12, 0)):
        need = Need("TensorFlow 2.99.0", cuda, cudnn, "9.3", (), (), None, key="tensorflow")
        commands, _ = cudnn_commands(facts, need, None)
        assert commands == ()
    commands, _ = cudnn_commands(facts, Need("TensorFlow 2.17.0", 12, 9, "9.3", (), (), None), None)
    assert [c.argv for c in commands if isinstance(c, Cmd)] == [
        ("apt-get", "update"),
        ("apt-get", "install", "-y", "libcudnn9-cuda-12"),
    ]
    assert all(isinstance(c, Cmd) for c in commands)


def test_tensorflow_without_its_build_cuda_takes_the_matrix_row_cuda(tf_cuda12_only):
    """A TensorFlow whose build_info gives no CUDA version (tf_cuda): the matrix's row for its release (2.11:
    CUDA 11.2) says which CUDA major the cuDNN must be built for: NVIDIA's CUDA 11 cuDNN wheel for this pip TensorFlow
    (issue 27, kind 1: a pip framework's libraries come from wheels, never a root system package)."""
    tf = tf_cuda12_only.frameworks.tensorflow
    facts = replace(
        tf_cuda12_only, frameworks={"tensorflow": dataclasses.replace(tf, value=dataclasses.replace(tf.value, cuda=None))}
    )
    (f,) = findings(facts, "cudnn-missing")
    (install, keep) = [c.argv for c in f.remediation.commands if isinstance(c, Cmd)]
    assert install[:4] == ("/usr/bin/python3", "-m", "pip", "install") and "nvidia-cudnn-cu11>=8.1,<9" in install
    assert keep[:3] == ("/usr/bin/python3", "-c", KEEP["bashrc"])  # the wheel's directory kept for new shells


# --- framework-cpu-build: only where there is a GPU to miss --------------------------------------------------


def test_a_cpu_build_on_a_machine_without_any_gpu_is_no_finding():
    """A CPU-only PyTorch is an error only where an NVIDIA GPU is there to use: on a machine with no GPU on the
    PCI bus and none from the driver (a CI container), the build is the right one."""
    laptop = facts_of("rtx3060-laptop-torch-cpu-build")
    assert [f.title for f in findings(laptop, "framework-cpu-build")] == [
        "PyTorch 2.13.0+cpu is a CPU-only build, so it cannot use the NVIDIA GPU"
    ]
    no_gpu = dataclasses.replace(facts_of("ci-docker-cuda13-no-gpu"), frameworks=laptop.frameworks)
    assert findings(no_gpu, "framework-cpu-build") == []


# --- jax-plugin-mismatch: the reason the agreed version is given ------------------------------------------


def jax_only(tmp_path, distributions):
    """A Linux venv with these distributions and nothing else recorded (tests/unit/test_jax_agreement.py): the
    agreement route of jax_remediation, which chooses no CUDA build."""
    return jax_venv_facts(tmp_path, distributions)


def test_the_agreed_version_is_jaxs_own_unless_jax_is_older_than_the_matrix(tmp_path):
    """JEP 9419: jaxlib follows jax, so they agree on jax's version (0.4.20, a release row of the matrix) and the
    summary says that is why. Only where jax itself is older than every release the matrix knows (0.4.6; rows
    from 0.4.20) does jax move up to jaxlib's version, and the summary says that instead. The moves named are
    the JAX packages whose version changes: not the one already at it, not other distributions (numpy)."""
    lead = "Install jax, jaxlib and the CUDA plugin at one version, in one command."
    (f,) = findings(jax_only(tmp_path, {"jax": "0.4.20", "jaxlib": "0.4.31", "numpy": "1.26.4"}), "jax-plugin-mismatch")
    assert f.remediation.summary == (
        f"{lead} They should agree on 0.4.20, jax's version: projects pin jax, and jaxlib is the half that follows it "
        "(JEP 9419: jax >= jaxlib): jaxlib 0.4.31 -> 0.4.20; still the CPU build. jax[cpu]==0.4.20 pins jaxlib to "
        "0.4.20. Agreeing chooses no build, so it needs no GPU facts."
    )
    (f,) = findings(jax_only(tmp_path, {"jax": "0.4.6", "jaxlib": "0.4.14", "numpy": "1.26.4"}), "jax-plugin-mismatch")
    assert f.remediation.summary == (
        f"{lead} They should agree on 0.4.14, jaxlib's version: jax 0.4.6 is older than every JAX release in the "
        "compatibility matrix (0.4.20 and newer), so no jaxlib of it can be vouched for; jax is pure Python and moves "
        "up: jax 0.4.6 -> 0.4.14; still the CPU build. Agreeing chooses no build, so it needs no GPU facts."
    )


# --- the toolkit decision: why the target was chosen ----------------------------------------------------

PATHS = "rtx4090-toolkit-paths-disagree"


def toolkit_summaries(facts):
    found, internal = run_checks(facts)
    assert not internal
    return {f.code: f.remediation.summary for f in found if f.remediation and f.remediation.component == "toolkit"}


def test_the_target_is_said_to_be_the_active_toolkit_only_when_it_is():
    """toolkit_target keeps the active toolkit (nvcc on PATH: 12.5 here) when it qualifies, and the fix says
    "the active one"; where the active toolkit does not qualify (11.8 on PATH, PyTorch is a CUDA 12 build) the
    newest that does is chosen, and the fix says "the newest such"."""
    facts = facts_of(PATHS)
    said = toolkit_summaries(facts)["cuda-paths-disagree"]
    assert said.endswith(
        "Use CUDA 12.5 (/usr/local/cuda-12.5): of PyTorch's CUDA major (12), run by this driver, able to build for "
        "every GPU here; the active one."
    )
    tk118, tk125 = facts.toolkits.toolkits
    swapped = (
        dataclasses.replace(tk118, found_via=("/usr/local/cuda-11.8", "nvcc on PATH")),
        dataclasses.replace(tk125, found_via=("/usr/local/cuda-12.5", "CUDA_HOME")),
    )
    facts = replace(facts, toolkits={"toolkits": swapped, "nvcc_on_path": tk118.nvcc, "nvcc_on_path_version": tk118.version})
    said = toolkit_summaries(facts)["cuda-paths-disagree"]
    assert said.endswith(
        "Use CUDA 12.5 (/usr/local/cuda-12.5): of PyTorch's CUDA major (12), run by this driver, able to build for "
        "every GPU here; the newest such."
    )


# --- framework-cuda-libs-missing: the system's CUDA runtime libraries for TensorFlow --------------------------

RUNFILE = "https://developer.nvidia.com/cuda-toolkit-archive"


def test_cuda_11_runtime_libraries_are_the_newest_11_minor_from_nvidias_repository(tf_cuda12_only):
    """From CUDA 11 the sonames carry the major only (libcudart.so.11.0 for every 11.x): the newest 11 minor
    (11.8) serves a TensorFlow built with 11.2, and NVIDIA's ubuntu2204 repository packages it
    (cuda-libraries-11-8, after the cuda-keyring set-up step)."""
    from gpudoctor.checks import Context
    from gpudoctor.checks.frameworks import system_cuda_libraries
    from gpudoctor.cmdline import render_all

    r = system_cuda_libraries(tf_cuda12_only, Context(), "11.2")
    assert (
        r.summary
        == "Install the CUDA 11.8 runtime libraries where TensorFlow finds them (the ldconfig cache or LD_LIBRARY_PATH)."
    )
    assert render_all(r.commands, "posix")[-2:] == [
        "# NVIDIA\u2019s ubuntu2204 repository",
        "sudo apt-get install -y cuda-libraries-11-8",
    ]
    assert r.requires_root is True
    assert r.component == "toolkit"


def test_before_cuda_11_the_minor_is_kept_and_a_release_without_it_says_what_instead(tf_cuda12_only):
    """Before CUDA 11 each minor has its own soname (libcudart.so.10.1): 10.1 stays 10.1. NVIDIA's ubuntu2204
    repository starts at 11.7 (compat_matrix/cuda_repos.toml), so there is no command: the summary names the
    package, the conda route and why not here, and the runfile instead; nothing needs root."""
    from gpudoctor.checks import Context
    from gpudoctor.checks.frameworks import system_cuda_libraries

    r = system_cuda_libraries(tf_cuda12_only, Context(), "10.1")
    assert r.commands == ()
    assert r.requires_root is False
    assert r.summary.startswith(
        "Install the CUDA 10.1 runtime libraries where TensorFlow finds them (the ldconfig cache or LD_LIBRARY_PATH): "
        "NVIDIA's CUDA repository's cuda-libraries-10-1, or a conda environment with cudatoolkit=10.1. "
        "CUDA 10.1 is not packaged for Ubuntu 22.04.4 LTS (NVIDIA's ubuntu2204 repository: it has CUDA 11.7 and newer). "
        f"Instead: NVIDIA's CUDA 10.1 runfile from the CUDA Toolkit Archive ({RUNFILE})"
    )
    # Where no package manager recipe exists at all (Arch), the sentence ends with the two routes.
    arch = replace(
        tf_cuda12_only, platform={"distro": dataclasses.replace(tf_cuda12_only.platform.distro, id="arch", id_like=None)}
    )
    r = system_cuda_libraries(arch, Context(), "11.2")
    assert r.summary == (
        "Install the CUDA 11.8 runtime libraries where TensorFlow finds them (the ldconfig cache or LD_LIBRARY_PATH): "
        "NVIDIA's CUDA repository's cuda-libraries-11-8, or a conda environment with cudatoolkit=11.8."
    )


def test_in_a_conda_environment_cuda_11_libraries_come_from_conda_forge_and_cuda_12_from_nvidia(tf_cuda12_only):
    """conda-forge's cudatoolkit package goes up to CUDA 11 (CUDA 12 is split into cuda-* packages): a conda
    environment gets cudatoolkit=11.8 into its own prefix, no root; CUDA 12 goes NVIDIA's repository's way."""
    from gpudoctor.checks import Context
    from gpudoctor.checks.frameworks import system_cuda_libraries

    py = tf_cuda12_only.frameworks.python
    env = dataclasses.replace(py.value, kind="conda", prefix="/opt/conda/envs/tf")
    facts = replace(tf_cuda12_only, frameworks={"python": dataclasses.replace(py, value=env)})
    r = system_cuda_libraries(facts, Context(), "11.2")
    assert [c.argv for c in r.commands] == [
        ("conda", "install", "-y", "-p", "/opt/conda/envs/tf", "-c", "conda-forge", "cudatoolkit=11.8")
    ]
    assert r.requires_root is False
    r = system_cuda_libraries(facts, Context(), "12.3")
    assert r.commands[-1].argv[:3] == ("apt-get", "install", "-y")
    assert r.commands[-1].argv[3].startswith("cuda-libraries-12-")


# --- nvidia-wheels-conflict without a framework to say which major stays ------------------------------------


def test_wheels_of_two_majors_and_no_framework_to_keep_one_get_advice_and_no_command():
    """cu11 and cu12 cuDNN wheels side by side, and no CUDA framework installed: nothing says which major to
    keep, so no uninstall is printed (the wrong one would delete files the right one needs), only the advice."""
    from gpudoctor.probed import Absent

    facts = facts_of("rtx4090-nvidia-wheels-cu11-and-cu12")
    (f,) = findings(facts, "nvidia-wheels-conflict")
    assert f.remediation.commands != ()
    facts = replace(facts, frameworks={"torch": Absent("not installed", "python")})
    (f,) = findings(facts, "nvidia-wheels-conflict")
    assert f.remediation.commands == ()
    assert f.remediation.component == "environment"
    assert f.remediation.summary.startswith("No CUDA framework here says which CUDA major to keep")


# --- cudnn-too-old without ELF records: the wheel's directory goes ahead of LD_LIBRARY_PATH's copy --------------


def test_without_elf_records_the_new_wheels_directory_is_put_ahead_of_the_old_copy():
    """JAX's CUDA 12 plugin needs cuDNN >= 9.8; without its libraries read (a snapshot without ELF records)
    the fixed order has LD_LIBRARY_PATH's cuDNN 9.1 win. The fix installs the wheel the plugin's release names,
    and puts the wheel's own directory (site-packages/nvidia/cudnn/lib) ahead of the old copy on LD_LIBRARY_PATH,
    keeping the rest of it."""
    from gpudoctor.cmdline import PrependPath

    facts = dataclasses.replace(facts_of(JAX_SHADOWED), loading=None)
    (f,) = findings(facts, "cudnn-too-old")
    (prepend,) = [c for c in f.remediation.commands if isinstance(c, PrependPath)]
    assert (prepend.name, prepend.parts) == (
        "LD_LIBRARY_PATH",
        ("/home/user/venv/lib/python3.11/site-packages/nvidia/cudnn/lib",),
    )
    assert "so the new copy's directory goes ahead of it" in f.remediation.summary


def test_the_jax_step_names_the_installed_jax_not_jaxlib_when_its_version_does_not_fit():
    """jax 0.4.38 with jaxlib 0.4.36 and its CUDA 12 plugin, on a driver of CUDA 11.4 (470.82.01): they agree on
    jax's version, which has no build this driver runs, and the fix says so of JAX 0.4.38 (the version projects
    pin), never of the jaxlib beside it, before naming a CUDA 11 build that runs."""
    facts = facts_of("rtx4090-jax-plugin-mismatch")
    driver = on_driver("470.82.01", "11.4")
    (f,) = findings(replace(facts, driver=driver), "jax-plugin-mismatch")
    assert "No build of JAX 0.4.38 fits this machine;" in f.remediation.summary
    assert "0.4.36" not in f.remediation.summary
    assert "(cuda11)" in f.remediation.summary


# --- the toolkit fix: this shell's step only where the shell names another toolkit ----------------------------


def link_dangling_lines(facts):
    from gpudoctor.cmdline import render_all

    (f,) = findings(facts, "cuda-link-dangling")
    return [line for line in render_all(f.remediation.commands, "posix") if not line.startswith("# ")]  # the commands


def test_the_shell_step_is_left_out_only_when_this_shell_already_names_the_target():
    """/usr/local/cuda dangles (-> cuda-10.2) and 12.5 is the target. The link is re-pointed either way; this
    shell's `eval "$(gpudoctor switch-cuda 12.5 --shell)"` is needed unless nvcc on PATH is the target's and no
    other toolkit is named by PATH, CUDA_HOME, CUDA_PATH or LD_LIBRARY_PATH."""
    facts = facts_of(PATHS)
    link = "sudo gpudoctor switch-cuda 12.5"
    shell = 'eval "$(gpudoctor switch-cuda 12.5 --shell)"'
    # CUDA_HOME names 11.8: the shell disagrees.
    assert link_dangling_lines(facts) == [link, shell]
    tk118, tk125 = facts.toolkits.toolkits
    only_dir = dataclasses.replace(tk118, found_via=("/usr/local/cuda-11.8",))
    # Nothing in the shell names 11.8 any more, and nvcc on PATH is 12.5's: the shell agrees.
    assert link_dangling_lines(replace(facts, toolkits={"toolkits": (only_dir, tk125)})) == [link]
    # 11.8 named by LD_LIBRARY_PATH alone is enough to disagree.
    by_ld = dataclasses.replace(tk118, found_via=("/usr/local/cuda-11.8", "LD_LIBRARY_PATH"))
    assert link_dangling_lines(replace(facts, toolkits={"toolkits": (by_ld, tk125)})) == [link, shell]
    # No nvcc on PATH at all (12.5 found by its directory only): the shell names no toolkit, so it is set.
    dir125 = dataclasses.replace(tk125, found_via=("/usr/local/cuda-12.5",))
    assert link_dangling_lines(replace(facts, toolkits={"toolkits": (only_dir, dir125)})) == [link, shell]


def test_when_no_cuda_version_fits_the_toolkit_side_says_so_and_pytorch_moves_first():
    """PyTorch 2.2.1+cu121 and nvcc 11.8 on a driver of CUDA 11.4 (470.82.01): no CUDA 12 toolkit runs on that
    driver, so toolkit_fix has no version (no command) and says what must change first; the extension-build
    finding then offers PyTorch's move to nvcc's major first, and the toolkit side as its alternative."""
    facts = facts_of("rtx4090-nvcc118-torch-cu121")
    driver = on_driver("470.82.01", "11.4")
    facts = replace(facts, driver=driver)
    nothing = (
        "No CUDA version fits PyTorch's CUDA major, this driver and every GPU here: change the PyTorch build or the driver first."
    )
    (newer,) = findings(facts, "toolkit-newer-than-driver")
    assert newer.remediation.summary == f"Upgrade the driver to >= 520.61.05 to use CUDA 11.8, or: {nothing}"
    assert newer.remediation.commands == ()
    (mismatch,) = findings(facts, "toolkit-torch-major-mismatch")
    assert mismatch.remediation.component == "torch"
    assert mismatch.remediation.summary == (
        "Move PyTorch to nvcc's CUDA major (11.8): PyTorch 2.2 (cu118), the same release, built for CUDA 11.8: "
        "reinstall torch 2.2.1+cu121 (same version) as 2.2.1+cu118. Then remove the CUDA 12 wheels the old build brought (they would stay beside the new build's, in the same "
        "nvidia/ directory) and force-reinstall the new build, which puts back the files both majors share."
    )
    pip = ("/usr/bin/python3", "-m", "pip")
    new = ("torch==2.2.1+cu118", "--index-url", "https://download.pytorch.org/whl/cu118")
    assert [c.argv for c in mismatch.remediation.commands] == [
        (*pip, "install", *new),
        (*pip, "uninstall", "-y", "nvidia-cublas-cu12", "nvidia-cuda-runtime-cu12", "nvidia-cudnn-cu12"),
        (*pip, "install", "--force-reinstall", *new),
    ]
    alternative = mismatch.remediation.alternative
    assert alternative is not None
    assert (alternative.summary, alternative.commands) == (f"Build extensions with a CUDA 12.x toolkit. {nothing}", ())


# --- the loader's default directories -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("machine", "debian", "dirs"),
    [
        ("x86_64", True, ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib", "/usr/lib")),
        ("AMD64", True, ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib", "/usr/lib")),
        ("aarch64", True, ("/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/lib", "/usr/lib")),
        ("x86_64", False, ("/lib64", "/usr/lib64")),
        ("arm64", False, ("/lib64", "/usr/lib64")),
        ("ppc64le", False, ("/lib64", "/usr/lib64")),
        ("s390x", False, ("/lib64", "/usr/lib64")),
        ("i686", False, ("/lib", "/usr/lib")),  # 32-bit: glibc's plain pair
        ("", True, ("/lib", "/usr/lib")),
    ],
)
def test_default_dirs(machine, debian, dirs):
    """glibc's compiled-in directories (ld.so(8)): Debian's multiarch /lib/<triplet>, /usr/lib/<triplet> before
    /lib, /usr/lib; other 64-bit distributions /lib64, /usr/lib64; anything else /lib, /usr/lib."""
    from gpudoctor.loader import default_dirs

    assert default_dirs(machine, debian) == dirs


# --- framework-driver-too-old: the build's own CUDA, and the driver step ----------------------------------------


def test_tensorflows_own_build_cuda_decides_over_the_matrix_row_and_the_driver_step_needs_root(tf_ok):
    """build_info's CUDA (11.8 here, a TensorFlow 2.11 built against it) is what the driver must run, not the
    matrix row's tested 11.2. Driver 450.51.05 reports CUDA 11.0, below CUDA 11's minor-version floor
    (450.80.02, cuda-compat-guide), so it cannot; with no build to reinstall, the driver upgrade comes first,
    and it needs root."""
    tf = tf_ok.frameworks.tensorflow
    facts = replace(tf_ok, frameworks={"tensorflow": dataclasses.replace(tf, value=dataclasses.replace(tf.value, cuda="11.8"))})
    driver = on_driver("450.51.05", "11.0")
    (f,) = findings(replace(facts, driver=driver), "framework-driver-too-old")
    assert f.title == "TensorFlow 2.11.0 needs CUDA 11.8, which driver 450.51.05 cannot run"
    assert "a CUDA 11.8 runtime needs driver >= 450.80.02" in f.detail
    assert f.remediation.component == "driver"
    assert f.remediation.summary.startswith("Upgrade the NVIDIA driver to >= 450.80.02, then reboot")
    assert f.remediation.requires_root is True
    assert [c.argv for c in f.remediation.commands][-1] == ("reboot",)


# --- cudnn-too-old, unshadowed: what else loads from the directory taken off LD_LIBRARY_PATH ----------------------


def with_cublas_record(facts, *copies):
    """The JAX machine's record with libcublas.so.12 loaded (DT_NEEDED) from the shadowing LD_LIBRARY_PATH
    directory, and these other copies behind it."""
    from gpudoctor.facts import LibraryCopy

    fl = facts.loading.of("jax")
    first = LibraryCopy("/usr/local/cuda-12.4/lib64/libcublas.so.12", "LD_LIBRARY_PATH", "12.4.5.8")
    loads = tuple(
        dataclasses.replace(r, path=first.path, via=first.via, how="needed", copies=(first, *copies))
        if r.soname == "libcublas.so.12"
        else r
        for r in fl.loads
    )
    record = dataclasses.replace(fl, loads=loads)
    return dataclasses.replace(facts, loading=dataclasses.replace(facts.loading, frameworks=(record,)))


def test_unshadowing_names_the_libraries_that_load_from_nowhere_else():
    """Taking /usr/local/cuda-12.4/lib64 off LD_LIBRARY_PATH also takes away what else the framework loads from
    there: a library with no other copy is named (keep the directory for what needs it); one with a copy in
    another searched directory (its wheel) is not; a copy the loader would not search does not count."""
    from gpudoctor.facts import LibraryCopy

    facts = facts_of(JAX_SHADOWED)
    wheel = LibraryCopy(
        "/home/user/venv/lib/python3.11/site-packages/nvidia/cublas/lib/libcublas.so.12", "RUNPATH of xla_cuda_plugin.so"
    )
    unsearched = dataclasses.replace(wheel, via="not searched (RUNPATH of another object)")
    note = "libcublas.so.12 then load from nowhere else: keep that directory for what needs it."
    (f,) = findings(with_cublas_record(facts), "cudnn-too-old")
    assert f.remediation.summary.endswith(note)
    (f,) = findings(with_cublas_record(facts, unsearched), "cudnn-too-old")
    assert f.remediation.summary.endswith(note)
    (f,) = findings(with_cublas_record(facts, wheel), "cudnn-too-old")
    assert f.remediation.summary.startswith("Stop /usr/local/cuda-12.4/lib64/libcudnn.so.9 winning")
    assert "nowhere else" not in f.remediation.summary


@pytest.mark.parametrize(
    ("version", "cuda", "said"),
    [
        ("535.104.05", "12.2", "of PyTorch's CUDA major (12), run by this driver, able to build for every GPU here"),
        (None, "12.2", "of PyTorch's CUDA major (12), run by this driver, able to build for every GPU here"),
        ("535.104.05", None, "of PyTorch's CUDA major (12), run by this driver, able to build for every GPU here"),
        (None, None, "of PyTorch's CUDA major (12), able to build for every GPU here"),
    ],
)
def test_the_driver_rule_is_named_whenever_either_the_drivers_version_or_its_cuda_was_seen(version, cuda, said):
    """_why names only the rules that could be checked: "run by this driver" where the driver is known by its
    version or only by the CUDA it reports (driver_runs judges either), and not where neither was seen."""
    facts = facts_of(PATHS)
    driver = on_driver(version, cuda)
    summary = toolkit_summaries(replace(facts, driver=driver))["cuda-paths-disagree"]
    # With the driver's CUDA alone (12.2), 12.5 cannot be shown to run (minor version compatibility needs the
    # driver's version): the fix installs PyTorch's 12.1, saying the same rules.
    assert said in summary
    assert ("run by this driver" in summary) is ("run by this driver" in said)


# --- toolkit-newer-than-driver: severity by whether it runs and whether it is the active toolkit ------------------


def newer_than_driver(driver=None):
    """rtx4090-toolkit-paths-disagree (driver 535.86.05, CUDA 12.2; 12.5 active through nvcc on PATH, 11.8 by
    CUDA_HOME) with a CUDA 12.6 toolkit beside them that nothing names: {title: (severity, detail)}."""
    facts = facts_of(PATHS)
    extra = Toolkit("/opt/cuda-12.6", "12.6.77", "version.json", ("/opt/cuda-12.6",), "/opt/cuda-12.6/bin/nvcc", True)
    facts = replace(facts, toolkits={"toolkits": (*facts.toolkits.toolkits, extra)})
    if driver:
        v, c = driver
        facts = replace(facts, driver=on_driver(v, c))
    return {f.title: (f.severity, f.detail) for f in findings(facts, "toolkit-newer-than-driver")}


def test_a_newer_toolkit_that_runs_through_minor_version_compatibility_warns_if_active_and_informs_if_not():
    """Driver 535.86.05 (CUDA 12.2) is above CUDA 12's minor-version floor 525.60.13 (cuda-compat-guide): 12.5 and
    12.6 run through minor version compatibility. The active toolkit's limits are a warning; an idle one's a note."""
    from gpudoctor.model import Severity

    got = newer_than_driver()
    assert set(got) == {
        "CUDA toolkit 12.5.40 at /usr/local/cuda-12.5 is newer than the driver supports (CUDA 12.2)",
        "CUDA toolkit 12.6.77 at /opt/cuda-12.6 is newer than the driver supports (CUDA 12.2) (not the active toolkit)",
    }
    active = got["CUDA toolkit 12.5.40 at /usr/local/cuda-12.5 is newer than the driver supports (CUDA 12.2)"]
    assert active[0] == Severity.WARNING
    assert "run on it only through minor version compatibility (driver >= 525.60.13)" in active[1]
    idle = got["CUDA toolkit 12.6.77 at /opt/cuda-12.6 is newer than the driver supports (CUDA 12.2) (not the active toolkit)"]
    assert idle[0] == Severity.INFO


def test_a_newer_toolkit_the_driver_cannot_run_is_an_error_if_active_and_a_warning_if_not():
    """Driver 470.82.01 (CUDA 11.4) is below CUDA 12's floor: 12.5 (active) cannot run, an error naming its full-support
    driver (555.42.02); 12.6 (idle) a warning (560.28.03); 11.8 runs through CUDA 11's floor (450.80.02): a note."""
    from gpudoctor.model import Severity

    got = newer_than_driver(("470.82.01", "11.4"))
    active = got["CUDA toolkit 12.5.40 at /usr/local/cuda-12.5 is newer than the driver supports (CUDA 11.4)"]
    assert active[0] == Severity.ERROR
    assert "The driver 470.82.01 supports CUDA up to 11.4; CUDA 12.5 needs driver >= 555.42.02." in active[1]
    idle = got["CUDA toolkit 12.6.77 at /opt/cuda-12.6 is newer than the driver supports (CUDA 11.4) (not the active toolkit)"]
    assert idle[0] == Severity.WARNING
    assert "CUDA 12.6 needs driver >= 560.28.03" in idle[1]
    old = got[
        "CUDA toolkit 11.8.89 at /usr/local/cuda-11.8 is newer than the driver supports (CUDA 11.4) (not the active toolkit)"
    ]
    assert old[0] == Severity.INFO
    assert "(driver >= 450.80.02)" in old[1]
    assert len(got) == 3


# --- how a CUDA toolkit gets installed: per family, architecture and NVIDIA's repository ---------------------------


@pytest.mark.parametrize(
    ("version", "argv"),
    [
        ("12.4", ("conda", "install", "-c", "conda-forge", "cuda-toolkit", "cuda-version=12.4")),
        ("12.0", ("conda", "install", "-c", "conda-forge", "cuda-toolkit", "cuda-version=12.0")),
        ("11.8", ("conda", "install", "-c", "nvidia/label/cuda-11.8.0", "cuda-toolkit")),
        ("11.3", ("conda", "install", "-c", "nvidia/label/cuda-11.3.0", "cuda-toolkit")),
        ("11.2", None),
        ("10.2", None),
    ],
)
def test_conda_install_of_a_toolkit(version, argv):
    """conda-forge's cuda-toolkit pinned by cuda-version from CUDA 12; NVIDIA's channel labels for 11.x, which
    start at 11.3 (nvidia/label/cuda-11.3.0); nothing before."""
    from gpudoctor.checks.toolkit import conda_install

    got = conda_install(version)
    assert (got.argv if got is not None else None) == argv


def on(facts, distro, machine="x86_64"):
    d = dataclasses.replace(facts.platform.distro, id=distro[0], version_id=distro[1], id_like=distro[2], pretty_name=distro[3])
    return replace(facts, platform={"distro": d, "machine": machine})


UBUNTU = ("ubuntu", "22.04", "debian", "Ubuntu 22.04.4 LTS")


def test_toolkit_install_per_family_and_architecture(tf_cuda12_only):
    """NVIDIA's meta package cuda-toolkit-X-Y (SOURCE_CUDA_INSTALL) with the family's package manager: dnf on
    Rocky 9 (rhel9 packages 12.4: no caveat), zypper on openSUSE (not known: a caveat naming the release). On
    Debian-family x86_64 the cuda-keyring step comes first; on aarch64 the x86_64 rows assert nothing, so no
    keyring URL is made up and the summary says to check the repository."""
    from gpudoctor.checks import Context
    from gpudoctor.checks.toolkit import toolkit_install
    from gpudoctor.cmdline import render_all

    m = Context().matrix
    r = toolkit_install(on(tf_cuda12_only, ("rocky", "9.3", "rhel centos fedora", "Rocky Linux 9.3 (Blue Onyx)")), m, "12.4")
    assert (render_all(r.commands, "posix"), r.packaged, r.says) == (
        ["# NVIDIA’s rhel9 repository", "sudo dnf install -y cuda-toolkit-12-4"],
        True,
        "",
    )
    r = toolkit_install(on(tf_cuda12_only, ("opensuse-leap", "15.5", "suse opensuse", None)), m, "12.4")
    assert render_all(r.commands, "posix") == ["# NVIDIA’s opensuse15 repository", "sudo zypper install -y cuda-toolkit-12-4"]
    assert r.says == "Check that NVIDIA's repository for opensuse-leap 15.5 has cuda-toolkit-12-4."
    r = toolkit_install(on(tf_cuda12_only, UBUNTU, "aarch64"), m, "12.4")
    assert render_all(r.commands, "posix") == [
        "sudo apt-get update",
        "# NVIDIA’s CUDA repository",
        "sudo apt-get install -y cuda-toolkit-12-4",
    ]
    assert (r.packaged, r.says) == (None, "Check that NVIDIA's repository for Ubuntu 22.04.4 LTS has cuda-toolkit-12-4.")
    r = toolkit_install(on(tf_cuda12_only, UBUNTU), m, "12.4")
    assert render_all(r.commands, "posix")[:3] == [
        "wget https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64/cuda-keyring_1.1-1_all.deb",
        "# adds NVIDIA’s CUDA repository and its signing key",
        "sudo dpkg -i cuda-keyring_1.1-1_all.deb",
    ]
    assert (r.packaged, r.says) == (True, "")


def test_a_toolkit_the_repository_lacks_gets_the_runfile_and_conda_instead(tf_cuda12_only):
    """ubuntu2204 starts at CUDA 11.7 (compat_matrix/cuda_repos.toml): 11.3 is not packaged, so no command, and
    the summary says what the repository has and gives the runfile and the conda label instead."""
    from gpudoctor.checks import Context
    from gpudoctor.checks.toolkit import toolkit_install

    r = toolkit_install(on(tf_cuda12_only, UBUNTU), Context().matrix, "11.3")
    assert (r.commands, r.packaged) == ((), False)
    assert r.says.startswith(
        "CUDA 11.3 is not packaged for Ubuntu 22.04.4 LTS (NVIDIA's ubuntu2204 repository: it has CUDA 11.7 and newer). "
        "Instead: NVIDIA's CUDA 11.3 runfile"
    )
    assert r.says.endswith("; or inside a conda environment: `conda install -c nvidia/label/cuda-11.3.0 cuda-toolkit`.")


# --- replacing a cuDNN wheel of the wrong CUDA major --------------------------------------------------------------


@pytest.mark.parametrize(
    ("have", "install"),
    [
        ("8.9.2.26", ("install", "--force-reinstall", "--no-deps", "nvidia-cudnn-cu12==8.9.2.26")),
        ("8.9.7.29", ("install", "--force-reinstall", "--no-deps", "nvidia-cudnn-cu12==8.9.7.29")),
        ("8.9.1.23", ("install", "--force-reinstall", "nvidia-cudnn-cu12==8.9.2.26")),
        (None, ("install", "nvidia-cudnn-cu12==8.9.2.26")),
    ],
)
def test_the_right_major_wheel_is_reinstalled_as_it_is_only_when_it_is_new_enough(have, install):
    """The cu11 wheel loads where PyTorch 2.2.1+cu121 needs the cu12 one (>= 8.9.2.26). Uninstalling cu11 deletes
    files the cu12 wheel shares, so the cu12 wheel is put back in full: as it is (--no-deps, its own version) when
    it is new enough, as the framework's pin when it is older, and a plain install when it is not there."""
    from gpudoctor.checks.cudnn import Loaded, cudnn_commands

    facts = facts_of("rtx4090-torch-cu121-with-cudnn-cu11-wheel")
    wheels = {k: v for k, v in facts.frameworks.nvidia_wheels.items() if k != "nvidia-cudnn-cu12"}
    if have:
        wheels["nvidia-cudnn-cu12"] = have
    facts = replace(facts, frameworks={"nvidia_wheels": wheels})
    need = Need("PyTorch 2.2.1+cu121", 12, 8, "8.9.2.26", (), (), "nvidia-cudnn-cu12==8.9.2.26")
    loaded = Loaded("/usr/lib/python3/dist-packages/nvidia/cudnn/lib/libcudnn.so.8", "8.5.0.96", 11, "wheel")
    commands, _ = cudnn_commands(facts, need, loaded)
    assert all(isinstance(c, Cmd) for c in commands)
    assert [c.words[3:] for c in commands if isinstance(c, Cmd)] == [("uninstall", "-y", "nvidia-cudnn-cu11"), install]


# --- a jaxlib built for a local CUDA (before the plugins) -------------------------------------------------------

T4 = "t4-jax-beside-tf-notebook"
SYS_CUDNN = "/usr/lib/x86_64-linux-gnu/libcudnn.so.8"


def test_a_local_cuda_jaxlib_needs_the_cudnn_its_tag_names():
    """jaxlib 0.4.13+cuda11.cudnn86 predates the CUDA plugins and the matrix's JAX rows: its tag says CUDA 11 and
    cuDNN >= 8.6 (JAX's README of the time), loaded from the system (the ldconfig cache here). 8.5 is too old,
    8.6 is enough, and without any libcudnn.so.8 it is missing."""
    base = facts_of(T4)
    assert findings(base, "cudnn-too-old") == []  # the system copy's version is not known (libcudnn.so.8 only)
    old = dataclasses.replace(base, cudnn=(CudnnInstall("8.5.0", 8, "library", SYS_CUDNN),))
    (f,) = findings(old, "cudnn-too-old")
    assert f.title == "cuDNN 8.5.0 is older than jaxlib 0.4.13+cuda11.cudnn86 requires (8.6)"
    assert f.sources == ("jax-readme-local-cuda",)
    ok = dataclasses.replace(base, cudnn=(CudnnInstall("8.6.0", 8, "library", SYS_CUDNN),))
    assert findings(ok, "cudnn-too-old") == []
    cache = {k: v for k, v in base.ldconfig.value.items() if k != "libcudnn.so.8"}
    gone = dataclasses.replace(base, ldconfig=Found(cache, base.ldconfig.source), cudnn=())
    (f,) = findings(gone, "cudnn-missing")
    assert f.title == "jaxlib 0.4.13+cuda11.cudnn86 needs libcudnn.so.8 and none can be loaded"
    assert "Install cuDNN 8.x for CUDA 11 where jaxlib 0.4.13+cuda11.cudnn86 finds it" in f.remediation.summary


# --- what the framework findings say around the edges --------------------------------------------------------------


def test_tensorflows_missing_libraries_name_the_runtime_of_another_major_that_is_there(tf_cuda12_only):
    """TensorFlow 2.11 wants libcudart.so.11.0; the only runtime the loader can see is CUDA 12's libcudart.so.12,
    and the finding says so (a different major cannot stand in). Where no libcudart is anywhere, nothing is said."""
    (f,) = findings(tf_cuda12_only, "framework-cuda-libs-missing")
    assert "provide them (only libcudart.so.12 is installed). It logs" in f.detail
    (f,) = findings(facts_of("rtx3060-conda-tf211-cuda-libs-not-on-path"), "framework-cuda-libs-missing")
    assert "(only" not in f.detail
    assert "or the ldconfig cache provide them. It logs 'Could not load dynamic library'" in f.detail


def test_a_cpu_build_on_partial_evidence_without_a_gpu_is_said_and_its_release_builds_wait_on_nvidia_smi():
    """On pasted text that never showed a GPU, an absent GPU is unknown, not absent: the CPU build is still said.
    With neither GPU nor driver seen, the CUDA build is not guessed: nvidia-smi, the read that decides it, comes first,
    then the installed release's newest CUDA build (for a header that reaches its CUDA) and, as the alternative never
    run with it, the release's oldest CUDA build (checks.frameworks.builds_by_driver). The release is kept."""
    from gpudoctor.facts import Partial

    laptop = facts_of("rtx3060-laptop-torch-cpu-build")
    pasted = dataclasses.replace(facts_of("ci-docker-cuda13-no-gpu"), frameworks=laptop.frameworks, pasted=Partial(partial=True))
    (f,) = findings(pasted, "framework-cpu-build")
    assert [c.argv for c in f.remediation.commands] == [
        ("nvidia-smi",),
        (
            "/usr/bin/python3",
            "-m",
            "pip",
            "install",
            "torch==2.13.0+cu130",
            "--index-url",
            "https://download.pytorch.org/whl/cu130",
        ),
    ]
    assert [c.argv for c in f.remediation.alternative.commands] == [
        (
            "/usr/bin/python3",
            "-m",
            "pip",
            "install",
            "torch==2.13.0+cu126",
            "--index-url",
            "https://download.pytorch.org/whl/cu126",
        ),
    ]
    # a release the matrix does not know: nothing to branch on, the read that decides it is all the step says
    torch = dataclasses.replace(laptop.frameworks.torch.value, version="1.0.0+cpu")
    frameworks = dataclasses.replace(laptop.frameworks, torch=dataclasses.replace(laptop.frameworks.torch, value=torch))
    (f,) = findings(dataclasses.replace(pasted, frameworks=frameworks), "framework-cpu-build")
    assert f.remediation.commands == ()
    assert f.remediation.alternative is None


def test_the_driver_step_on_a_distribution_without_a_recipe_names_the_branch_and_no_bare_reboot():
    """framework-driver-too-old's driver step (the alternative to PyTorch 2.2's cu118 build): CUDA 12's minor-version
    floor, 525.60.13. Ubuntu has a recipe (ubuntu-drivers); a distribution gpudoctor has none for gets the branch
    to install (>= 525) and the reboot, still as root."""
    facts = facts_of("rtx4090-nvcc118-torch-cu121")
    driver = on_driver("470.82.01", "11.4")
    facts = replace(facts, driver=driver)
    (f,) = findings(facts, "framework-driver-too-old")
    # The installed release has a build this driver runs (cu118): it is kept, and the upgrades the planner
    # knows of are not repeated ("Instead: ..." is for a plan that moves away from the installed release).
    assert f.remediation.summary == (
        "Install a build this driver runs, or upgrade the driver (below). PyTorch 2.2 (cu118) fits this machine: "
        "reinstall torch 2.2.1+cu121 (same version) as 2.2.1+cu118. Then remove the CUDA 12 wheels the old build brought (they would stay beside the new build's, in the same "
        "nvidia/ directory) and force-reinstall the new build, which puts back the files both majors share."
    )
    step = f.remediation.alternative
    assert step.summary == (
        "Upgrade the NVIDIA driver to >= 525.60.13, then reboot (the branch the distribution recommends; check that it "
        "is at least that)."
    )
    assert [c.argv for c in step.commands] == [("apt-get", "update"), ("ubuntu-drivers", "install"), ("reboot",)]
    gentoo = dataclasses.replace(facts.platform.distro, id="gentoo", id_like=None, pretty_name="Gentoo Linux", version_id=None)
    (f,) = findings(replace(facts, platform={"distro": gentoo}), "framework-driver-too-old")
    step = f.remediation.alternative
    assert step.summary == (
        "Upgrade the NVIDIA driver to >= 525.60.13: no recipe is known for this system, so install a branch >= 525 "
        "from its vendor or from NVIDIA (nvidia.com/Download), then restart the machine."
    )
    assert [c.argv for c in step.commands] == []  # issue 27, kind 7: no reboot without the install it activates
    assert step.requires_root is True


# --- nvidia-wheels-conflict: the framework's own build put back from its own index -------------------------------

INDEX = "https://download.pytorch.org/whl/"


@pytest.mark.parametrize(
    ("version", "cuda", "lines"),
    [
        # An untagged CUDA build (2.2.1 reporting CUDA 12.1): the matrix's variant of that release names the index.
        (
            "2.2.1",
            "12.1",
            ["uninstall -y nvidia-cudnn-cu11", f"install --force-reinstall torch==2.2.1 --index-url {INDEX}cu121"],
        ),
        # A tag the release has no variant for: no index is guessed.
        ("2.2.1+cu999", "12.1", ["uninstall -y nvidia-cudnn-cu11", "install --force-reinstall torch==2.2.1+cu999"]),
        # A release the matrix does not know: its own tag is all there is, and it is a CUDA tag.
        (
            "1.99.0+cu121",
            "12.1",
            ["uninstall -y nvidia-cudnn-cu11", f"install --force-reinstall torch==1.99.0+cu121 --index-url {INDEX}cu121"],
        ),
        # A CUDA 11 build keeps the cu11 wheels: the cu12 ones go.
        (
            "2.2.1+cu118",
            "11.8",
            ["uninstall -y nvidia-cudnn-cu12", f"install --force-reinstall torch==2.2.1+cu118 --index-url {INDEX}cu118"],
        ),
    ],
)
def test_the_wheel_conflict_keeps_the_installed_torchs_major_and_reinstalls_it_from_its_index(version, cuda, lines):
    """nvidia-cudnn-cu11 and -cu12 together. PyTorch decides which major stays (its CUDA's), and its exact build is
    force-reinstalled (the uninstall deletes files both majors share) from PyTorch's index for its variant."""
    facts = facts_of("rtx4090-nvidia-wheels-cu11-and-cu12")
    t = facts.frameworks.torch
    facts = replace(
        facts, frameworks={"torch": dataclasses.replace(t, value=dataclasses.replace(t.value, version=version, cuda=cuda))}
    )
    (f,) = findings(facts, "nvidia-wheels-conflict")
    assert f.remediation.component == "torch"
    assert [" ".join(c.words[3:]) for c in f.remediation.commands] == lines


# --- loader helpers ---------------------------------------------------------------------------------------------


def test_a_run_path_is_read_to_at_most_64_entries():
    """A hostile DT_RUNPATH cannot make the probe list thousands of directories: the first MAX_RUN_PATH_DIRS
    (64) entries are read, in order, duplicates once."""
    from gpudoctor.loader import MAX_RUN_PATH_DIRS, expand

    assert MAX_RUN_PATH_DIRS == 64
    entries = ":".join(f"/d{i}" for i in range(70))
    assert expand(entries, "/o") == tuple(f"/d{i}" for i in range(64))
    assert expand("/a:/b:/a:$ORIGIN:${ORIGIN}/", "/o") == ("/a", "/b", "/o")


def test_available_sonames_gathers_a_prefix_from_every_directory_and_the_cache():
    from gpudoctor.loader import available_sonames

    llp = (LibDir("/llp", "LD_LIBRARY_PATH", ("libcudnn.so.8", "libcudart.so.12")),)
    own = (LibDir("/w", "wheel", ("libcudnn.so.9",)), LibDir("/b", "bundled", ("libcudnn_ops.so.9",)))
    cache = {"libcudnn.so.7": ("/usr/lib/libcudnn.so.7",), "libcublas.so.12": ("/usr/lib/libcublas.so.12",)}
    assert available_sonames("libcudnn.so.", llp, own, ldconfig=cache) == {"libcudnn.so.7", "libcudnn.so.8", "libcudnn.so.9"}
    assert available_sonames("libcudnn.so.", llp) == {"libcudnn.so.8"}
    assert available_sonames("libcudnn.so.", ldconfig=None) == set()


# --- which toolkit is active, and which one builds PyTorch extensions -------------------------------------------


def toolkits_named(facts, *, link=None, **vias):
    """Toolkits 11.8, 12.1, 12.4, 12.6 under /usr/local, each found through the ways given (root -> vias), and
    /usr/local/cuda resolving to `link`."""
    from gpudoctor.facts import CudaLink

    tks = tuple(
        Toolkit(
            f"/usr/local/cuda-{v}",
            f"{v}.0",
            "version.json",
            (f"/usr/local/cuda-{v}", *vias.get(f"v{v.replace('.', '')}", ())),
            None,
            True,
        )
        for v in ("11.8", "12.1", "12.4", "12.6")
    )
    cuda_link = CudaLink("/usr/local/cuda", "link" if link else "missing", link, link)
    return replace(facts, toolkits={"toolkits": tks, "link": cuda_link})


def test_the_active_toolkit_is_nvcc_on_path_then_the_link_then_cuda_home():
    """A build uses the nvcc on PATH; without one, /usr/local/cuda; without that, CUDA_HOME or CUDA_PATH."""
    from gpudoctor.checks.toolkit import active_toolkit

    def active(**kw):
        tk = active_toolkit(toolkits_named(facts_of(PATHS), **kw))
        return tk.root if tk else None

    assert active(link="/usr/local/cuda-12.1", v118=("CUDA_HOME",), v124=("nvcc on PATH",)) == "/usr/local/cuda-12.4"
    assert active(link="/usr/local/cuda-12.1", v118=("CUDA_HOME",)) == "/usr/local/cuda-12.1"
    assert active(v118=("CUDA_HOME",), v126=("LD_LIBRARY_PATH",)) == "/usr/local/cuda-11.8"
    assert active(v126=("CUDA_PATH",)) == "/usr/local/cuda-12.6"
    assert active(link="/opt/elsewhere", v126=("LD_LIBRARY_PATH",)) is None


def test_pytorch_extensions_build_with_cuda_home_then_cuda_path_then_nvcc_then_the_link():
    """torch.utils.cpp_extension looks for CUDA_HOME (or CUDA_PATH) first, then nvcc on PATH, then /usr/local/cuda:
    the toolkit toolkit-torch-major-mismatch judges."""
    from gpudoctor.checks.toolkit import extension_toolkit

    def ext(**kw):
        tk = extension_toolkit(toolkits_named(facts_of(PATHS), **kw))
        return tk.root if tk else None

    every = {"link": "/usr/local/cuda-12.1", "v124": ("nvcc on PATH",), "v126": ("CUDA_PATH",), "v118": ("CUDA_HOME",)}
    assert ext(**every) == "/usr/local/cuda-11.8"
    assert ext(**{**every, "v118": ()}) == "/usr/local/cuda-12.6"
    assert ext(**{**every, "v118": (), "v126": ()}) == "/usr/local/cuda-12.4"
    assert ext(link="/usr/local/cuda-12.1") == "/usr/local/cuda-12.1"
    assert ext() is None


def test_a_toolkit_known_only_by_nvcc_version_stands_in_for_its_install():
    """nvcc --version on PATH with no install folder found (a pasted output, a wrapper): a stand-in toolkit rooted
    two levels above the nvcc (/opt/cuda/bin/nvcc -> /opt/cuda), or "the nvcc on PATH" when its path is not known;
    none when a placed toolkit is that nvcc's, when the root is a known toolkit, or when nvcc gave no version."""
    from gpudoctor.checks.toolkit import nvcc_only_toolkit

    base = facts_of(PATHS)

    def only(toolkits=(), nvcc="/opt/cuda/bin/nvcc", version="12.5.40"):
        tk = nvcc_only_toolkit(
            replace(base, toolkits={"toolkits": toolkits, "nvcc_on_path": nvcc, "nvcc_on_path_version": version})
        )
        return (tk.root, tk.version, tk.found_via) if tk else None

    assert only() == ("/opt/cuda", "12.5.40", ("nvcc on PATH",))
    # A stand-in, not an install gpudoctor has seen whole: never "complete" (no toolkit_target, no switch to it).
    stand_in = nvcc_only_toolkit(
        replace(base, toolkits={"toolkits": (), "nvcc_on_path": "/opt/cuda/bin/nvcc", "nvcc_on_path_version": "12.5.40"})
    )
    assert stand_in is not None and stand_in.complete is False
    assert only(nvcc=None) == ("the nvcc on PATH", "12.5.40", ("nvcc on PATH",))
    assert only(nvcc="nvcc") == ("the nvcc on PATH", "12.5.40", ("nvcc on PATH",))
    assert only(version=None) is None
    assert only(toolkits=(tk("/opt/cuda", "12.5.40"),)) is None
    placed = Toolkit("/usr/local/cuda-12.5", "12.5.40", "nvcc", ("nvcc on PATH",), "/usr/local/cuda-12.5/bin/nvcc", True)
    assert only(toolkits=(placed,)) is None


def test_paths_disagree_only_when_two_toolkits_are_named_by_the_environment_or_the_link():
    """cuda-paths-disagree: nvcc on PATH, CUDA_HOME, CUDA_PATH, LD_LIBRARY_PATH and the /usr/local/cuda link name
    toolkits; two different roots among them disagree. Every way naming one root agrees, and a toolkit merely
    installed (found by its folder) names nothing."""
    base = facts_of(PATHS)

    def titles(**kw):
        return [f.detail.split(". ")[0] for f in findings(toolkits_named(base, **kw), "cuda-paths-disagree")]

    assert titles(v124=("nvcc on PATH", "CUDA_HOME", "LD_LIBRARY_PATH", "/usr/local/cuda link")) == []
    assert titles(v124=("nvcc on PATH",)) == []
    assert titles(v124=("nvcc on PATH",), v126=("LD_LIBRARY_PATH",)) == [
        "nvcc on PATH -> /usr/local/cuda-12.4; LD_LIBRARY_PATH -> /usr/local/cuda-12.6"
    ]
    assert titles(v118=("/usr/local/cuda link",), v121=("CUDA_PATH",)) == [
        "/usr/local/cuda link -> /usr/local/cuda-11.8; CUDA_PATH -> /usr/local/cuda-12.1"
    ]


# --- framework-arch-unsupported: the build's own arch list, when --deep read it ------------------------------------


@pytest.mark.parametrize(
    ("arch_list", "fires"),
    [
        (["sm_80", "sm_90", "sm_120"], False),  # a cubin for 12.0 itself
        (["sm_80", "compute_90"], False),  # PTX of a lower capability the driver JIT-compiles for 12.0
        (["sm_80", "compute_120"], False),  # PTX of 12.0
        (["sm_80", "sm_90"], True),  # cubins of other majors only, no PTX
        (["sm_80", "sm_121"], True),  # a cubin of a higher minor does not run on 12.0
        (["sm_80", "compute_121"], True),  # nor PTX of a higher capability
    ],
)
def test_the_arch_list_pytorch_reports_decides_over_the_matrix(arch_list, fires):
    """An RTX 5070 (compute capability 12.0) with PyTorch 2.2.1+cu121, whose wheel in the matrix carries sm_50 to
    sm_90: torch.cuda.get_arch_list() read with --deep is the build's own list and is judged instead (a cubin of the
    same major and an equal or lower minor, or PTX of an equal or lower capability)."""
    facts = facts_of("rtx5070-torch-cu121-no-sm120")
    (f,) = findings(facts, "framework-arch-unsupported")
    assert f.evidence[0].source == "compat_matrix:torch"
    deep = replace(facts, frameworks={"deep": {"torch": {"arch_list": arch_list}}})
    got = findings(deep, "framework-arch-unsupported")
    assert bool(got) is fires
    if fires:
        assert got[0].evidence[0].source == "deep:torch.cuda.get_arch_list()"
        assert got[0].evidence[0].value == ", ".join(arch_list)
        assert got[0].sources == ()


# --- what cuDNN TensorFlow needs -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("version", "cudnn", "need"),
    [
        # build_info's "8" says the major only: the matrix's row (2.11: cuDNN 8.1) gives the minimum.
        ("2.11.0", "8", (8, "8.1", None)),
        # build_info with a minor is the build's own, and decides.
        ("2.11.0", "8.6", (8, "8.6", None)),
        ("2.11.0", None, (8, "8.1", None)),
        # A release the matrix does not know: the build's "8" is all there is.
        ("2.99.0", "8", (8, "8", None)),
        ("2.99.0", None, None),
        # From 2.14 the cuDNN wheel comes with tensorflow[and-cuda] of the installed version.
        ("2.15.0", "8", (8, "8.9", "tensorflow[and-cuda]==2.15.0")),
    ],
)
def test_tensorflows_cudnn_need(tf_cuda12_only, version, cudnn, need):
    from gpudoctor.checks import Context
    from gpudoctor.checks.cudnn import needs

    tf = tf_cuda12_only.frameworks.tensorflow
    value = dataclasses.replace(tf.value, version=version, cudnn=cudnn)
    facts = replace(tf_cuda12_only, frameworks={"tensorflow": dataclasses.replace(tf, value=value)})
    got = [(n.cudnn_major, n.minimum, n.wheel_spec) for n in needs(facts, Context()) if n.key == "tensorflow"]
    assert got == ([need] if need else [])


def test_a_build_that_carries_cudnn_is_reinstalled_and_not_judged_where_its_folder_was_not_listed():
    """PyTorch 1.12.1+cu113's wheel predates NVIDIA's cuDNN wheels: when its own libraries ask for libcudnn.so.8 and
    none loads, only a reinstall of the build puts it back (the torch step, not a system cuDNN). Where its lib/
    folder was not listed (a pasted snapshot), a cuDNN it carries there is unknown, not missing: nothing is said."""
    facts = with_torch_load(facts_of(P100), "libcudnn.so.8", "needed")
    (f,) = findings(facts, "cudnn-missing")
    assert f.remediation.component == "torch"
    assert f.remediation.summary.startswith(
        "Install cuDNN 8.x for CUDA 11 where PyTorch 1.12.1+cu113 finds it: its build carries cuDNN, so reinstall it."
    )
    assert any(str(a).startswith("torch==1.12.1+") for c in f.remediation.commands for a in c.argv)
    t = facts.frameworks.torch
    unlisted = replace(facts, frameworks={"torch": dataclasses.replace(t, value=dataclasses.replace(t.value, lib_dirs=()))})
    assert findings(unlisted, "cudnn-missing") == []


# --- framework-windows-native-gpu -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("version", "distribution", "fires"),
    [
        ("2.15.0", "tensorflow", True),
        ("2.11.0", "tensorflow", True),  # the first release without native-Windows GPU support
        ("2.10.1", "tensorflow", False),  # the last one with it
        ("2.99.0", "tensorflow", True),  # newer than the matrix: no GPU on native Windows either
        ("1.15.0", "tensorflow-gpu", False),  # old releases had it
        ("2.15.0", "tensorflow-cpu", False),  # asked for the CPU: nothing to say
    ],
)
def test_native_windows_tensorflow_has_a_gpu_up_to_2_10(version, distribution, fires):
    """TensorFlow 2.10 was the last release with GPU support on native Windows
    (https://www.tensorflow.org/install/pip#windows-native); a release the matrix does not know is judged by its
    version against that bound. On Linux the same TensorFlow is no such finding."""
    facts = facts_of("windows-rtx3080-tensorflow215")
    tf = facts.frameworks.tensorflow
    value = dataclasses.replace(tf.value, version=version, distribution=distribution)
    facts = replace(facts, frameworks={"tensorflow": dataclasses.replace(tf, value=value)})
    got = findings(facts, "framework-windows-native-gpu")
    assert [f.title for f in got] == ([f"TensorFlow {version} has no GPU support on native Windows"] if fires else [])
    linux = replace(facts, platform={"system": "Linux"})
    assert findings(linux, "framework-windows-native-gpu") == []


@pytest.mark.parametrize(
    ("version", "cuda", "missing"),
    [
        ("2.2.1+cu121", "12.1", "libcudart.so.12, libcublas.so.12"),  # from CUDA 12 the soname is the major alone
        ("2.0.1+cu118", "11.8", "libcudart.so.11.0, libcublas.so.11"),  # CUDA 11's runtime keeps 11.0
        ("1.13.1+cu117", "11.7", "libcudart.so.11.0, libcublas.so.11"),  # 1.13: the first with NVIDIA's wheels
        ("1.13.0", "11.7", "libcudart.so.11.0, libcublas.so.11"),
        ("1.12.1+cu116", "11.6", None),  # before 1.13 the CUDA libraries are linked into the wheel
    ],
)
def test_pytorch_without_its_libraries_misses_its_cuda_majors_sonames(version, cuda, missing):
    """A PyTorch CUDA build installed with --no-deps (no NVIDIA wheels, nothing in torch/lib or on the loader's
    path): from 1.13 it loads libcudart and libcublas of its CUDA major by soname, and they are missing."""
    base = facts_of("h100x8-driver565-torch221-cu121")
    t = base.frameworks.torch
    value = dataclasses.replace(t.value, version=version, cuda=cuda, lib_dirs=())
    facts = replace(base, frameworks={"nvidia_wheels": {}, "torch": dataclasses.replace(t, value=value)})
    got = [f.title for f in findings(facts, "framework-cuda-libs-missing")]
    assert got == ([f"PyTorch {version} cannot find its CUDA libraries: {missing}"] if missing else [])


def test_pytorchs_own_libraries_say_which_sonames_it_needs():
    """With libtorch_cuda.so read, its DT_NEEDED list is what PyTorch loads: a needed soname found nowhere is
    missing; libcudnn is the cuDNN check's (cudnn-missing), and one only dlopen()ed later (NVRTC) is not a load
    failure at import. Without libtorch_cuda.so among the objects read, the matrix's list (libcudart, libcublas)
    says which sonames count, and the record still says where each loads from."""
    base = facts_of("h100x8-driver565-torch221-cu121")
    t = base.frameworks.torch
    facts = replace(
        base, frameworks={"nvidia_wheels": {}, "torch": dataclasses.replace(t, value=dataclasses.replace(t.value, lib_dirs=()))}
    )
    lib = "/venv/lib/python3.10/site-packages/torch/lib"

    def with_record(main):
        loads = (
            LibraryResolution("libcudart.so.12", None, None, needed_by=f"{lib}/{main}"),
            LibraryResolution("libcublas.so.12", "/opt/cuda/lib/libcublas.so.12", "RUNPATH of x", needed_by=f"{lib}/{main}"),
            LibraryResolution("libcudnn.so.8", None, None, needed_by=f"{lib}/{main}"),
            LibraryResolution("libcufft.so.11", None, None, needed_by=f"{lib}/{main}"),
            LibraryResolution("libnvrtc.so.12", None, None, needed_by=f"{lib}/{main}", how="dlopen"),
        )
        record = FrameworkLoading("torch", (ElfObject(f"{lib}/{main}"),), loads)
        return dataclasses.replace(facts, loading=LoadingFacts(None, (), (), (), (record,)))

    (f,) = findings(with_record("libtorch_cuda.so"), "framework-cuda-libs-missing")
    assert f.title == "PyTorch 2.2.1+cu121 cannot find its CUDA libraries: libcudart.so.12, libcufft.so.11"
    (f,) = findings(with_record("libtorch_global_deps.so"), "framework-cuda-libs-missing")
    assert f.title == "PyTorch 2.2.1+cu121 cannot find its CUDA libraries: libcudart.so.12"


@pytest.mark.parametrize(("cc", "fires"), [("3.0", True), ("3.5", False), ("8.6", False), ("9.0", False)])
def test_tensorflow_without_its_build_info_arch_list_is_judged_by_the_matrix_row(tf_ok, cc, fires):
    """TensorFlow 2.11's wheels carry sm_35 to sm_80 cubins and compute_80 PTX (the matrix's row): a Kepler GK104
    (compute capability 3.0) has neither a cubin of its own nor PTX at or below it; 3.5 has its cubin, 8.6 runs the
    sm_80 cubin, 9.0 JIT-compiles compute_80. Without build_info's list the row is the evidence."""
    gpu = dataclasses.replace(tf_ok.driver.gpus[0], name="NVIDIA GeForce GTX 680", compute_capability=cc)
    tf = tf_ok.frameworks.tensorflow
    facts = replace(
        tf_ok,
        driver={"gpus": (gpu,)},
        frameworks={"tensorflow": dataclasses.replace(tf, value=dataclasses.replace(tf.value, compute_capabilities=()))},
    )
    got = findings(facts, "framework-arch-unsupported")
    if not fires:
        assert got == []
        return
    (f,) = got
    assert f.title == "TensorFlow 2.11.0 has no kernels for GPU 0 (NVIDIA GeForce GTX 680, compute capability 3.0)"
    assert f.evidence[0].source == "compat_matrix:tensorflow"
    assert f.evidence[0].value == "sm_35, sm_50, sm_60, sm_70, sm_75, sm_80, compute_80"


@pytest.mark.parametrize(
    ("version", "cuda", "title", "evidence"),
    [
        (
            "470.82.01",
            "11.4",
            "JAX 0.4.38 (CUDA 12 plugin) needs CUDA 12.1, which driver 470.82.01 cannot run",
            "driver 470.82.01",
        ),
        (
            None,
            "11.4",
            "JAX 0.4.38 (CUDA 12 plugin) needs CUDA 12.1, which the driver (CUDA 11.4) cannot run",
            "driver's CUDA version 11.4; driver version not reported",
        ),
        ("525.60.13", "12.0", None, None),  # CUDA 12's minor-version floor: 12.1 runs on it
    ],
)
def test_jaxs_cuda_plugin_needs_the_cuda_its_release_was_built_for(version, cuda, title, evidence):
    """JAX 0.4.38's CUDA 12 plugin needs CUDA >= 12.1 (compat_matrix/jax.toml): a driver of CUDA 11.4 cannot run it,
    whether its version or only its CUDA was seen (the finding says which); 525.60.13 runs it through minor version
    compatibility."""
    facts = facts_of("rtx4090-jax-plugin-mismatch")
    driver = on_driver(version, cuda)
    got = findings(replace(facts, driver=driver), "framework-driver-too-old")
    if title is None:
        assert got == []
        return
    (f,) = got
    assert f.title == title
    assert "a CUDA 12.1 runtime needs driver >= 525.60.13" in f.detail
    assert [e.value for e in f.evidence] == ["JAX 0.4.38 (CUDA 12 plugin): CUDA 12.1", evidence]
    assert ("(its version number was not reported)" in f.detail) is (version is None)


def test_native_windows_tensorflow_moves_back_to_2_10_in_this_environment_when_its_python_fits():
    """With Python 3.10 (TensorFlow 2.10 supports >=3.7,<3.11) the move is in this environment: 2.10's one Windows
    build, and CUDA 11.2 with cuDNN 8.1 beside it: NVIDIA's installers for a plain Python, conda-forge's packages
    into a conda environment's own prefix. From 2.16 the move also goes back to Keras 2, and says so."""
    from gpudoctor.cmdline import render_all

    facts = facts_of("windows-rtx3080-tensorflow215")
    py = facts.frameworks.python
    tail = (
        " Or keep TensorFlow 2.15.0 and use the GPU from WSL 2, where TensorFlow's Linux GPU builds run (`wsl --install`, "
        "then install tensorflow[and-cuda] inside it); or keep running on the CPU."
    )

    def fix(kind, prefix, tf_version="2.15.0"):
        env = dataclasses.replace(py.value, version="3.10.11", kind=kind, prefix=prefix)
        tf = facts.frameworks.tensorflow
        changed = replace(
            facts,
            frameworks={
                "python": dataclasses.replace(py, value=env),
                "tensorflow": dataclasses.replace(tf, value=dataclasses.replace(tf.value, version=tf_version)),
            },
        )
        (f,) = findings(changed, "framework-windows-native-gpu")
        return f.remediation.summary, render_all(f.remediation.commands, "powershell")

    # Without conda, WSL 2 comes first (TensorFlow's install page); the move back to 2.10 is the stated alternative.
    summary, lines = fix("venv", py.value.prefix)
    assert summary == (
        "TensorFlow 2.10 was the last release with GPU support on native Windows; from 2.11 TensorFlow's install page "
        "(https://www.tensorflow.org/install/pip#windows-native) runs the GPU build in WSL 2. Install WSL 2 (an "
        "administrator PowerShell; restart Windows when it asks), then in its Ubuntu shell install TensorFlow with its "
        "CUDA libraries in a virtual environment: sudo apt-get update; sudo apt-get install -y python3-venv; python3 -m venv ~/tf; "
        "~/tf/bin/python -m pip install 'tensorflow[and-cuda]'. Or stay on native Windows with TensorFlow 2.10 "
        '(tensorflow 2.15.0 -> 2.10.*): python -m pip install "tensorflow==2.10.*" needs CUDA 11.2 and cuDNN 8.1: with Miniconda '
        "installed (docs.conda.io), `conda install -c conda-forge cudatoolkit=11.2 cudnn=8.1.0` in that environment, or "
        "NVIDIA's installers with their bin folders on PATH; or keep running on the CPU."
    )
    assert lines == ["# as Administrator, restart Windows when it asks", "wsl --install"]
    summary, lines = fix("conda", "C:/Users/me/miniconda3/envs/tf")
    assert summary == (
        "TensorFlow 2.10 is the last release with GPU support on native Windows: downgrade tensorflow 2.15.0 -> 2.10.*; "
        "it loads CUDA 11.2 and cuDNN 8.1, installed from conda-forge into this environment." + tail
    )
    assert lines[0] == "conda install -y -p C:/Users/me/miniconda3/envs/tf -c conda-forge cudatoolkit=11.2 cudnn=8.1"
    assert lines[-1].endswith("-m pip install 'tensorflow==2.10.*' 'numpy<2'")
    summary, _ = fix("venv", py.value.prefix, "2.16.1")
    assert "tensorflow 2.16.1 -> 2.10.*" in summary
    assert "back to Keras 2: code written for Keras 3 needs changes" in summary


@pytest.mark.parametrize(
    ("system", "version", "distribution", "cuda_build", "said"),
    [
        ("Linux", "2.15.0", "tensorflow-cpu", None, "cpu"),
        ("Linux", "2.15.0", "tensorflow", False, "cpu"),
        ("Linux", "2.15.0", "tensorflow", None, None),  # build unknown: no claim
        ("Windows", "2.10.1", "tensorflow-cpu", None, "cpu"),  # 2.10 had a Windows GPU build to use instead
        ("Windows", "2.10.1", "tensorflow", False, "cpu"),
        ("Windows", "2.15.0", "tensorflow", False, "windows"),  # no Windows GPU build exists: that is the cause
        ("Windows", "2.15.0", "tensorflow-cpu", None, None),  # and with the CPU package asked for, nothing to say
    ],
)
def test_a_cpu_tensorflow_is_said_once_by_the_rule_that_names_the_real_cause(system, version, distribution, cuda_build, said):
    """framework-cpu-build for a TensorFlow built without CUDA, except on native Windows past 2.10, where no GPU
    build exists and framework-windows-native-gpu says so (one finding, not two)."""
    facts = facts_of("windows-rtx3080-tensorflow215")
    tf = facts.frameworks.tensorflow
    value = dataclasses.replace(tf.value, version=version, distribution=distribution, is_cuda_build=cuda_build)
    facts = replace(facts, platform={"system": system}, frameworks={"tensorflow": dataclasses.replace(tf, value=value)})
    found, internal = run_checks(facts)
    assert not internal
    got = [f.title for f in found if f.code in ("framework-cpu-build", "framework-windows-native-gpu")]
    expected = {
        "cpu": [f"{distribution} {version} is built without CUDA, so it cannot use the NVIDIA GPU"],
        "windows": [f"TensorFlow {version} has no GPU support on native Windows"],
        None: [],
    }[said]
    assert got == expected


def test_the_wheel_conflict_names_each_library_with_both_majors_and_nothing_else():
    """nvidia-wheels-conflict is about one library's wheels of two CUDA majors (nvidia-cudnn-cu11 beside -cu12):
    the detail and the evidence name those; libraries of one major (cublas-cu12) are not named, and without a
    second major of any library there is no finding. A distribution whose name only begins like a cuDNN wheel's
    (nvidia-cudnn-cu11-extra) is no such wheel, and no check stumbles on it (the cuDNN check took the text after
    "cu" for a number and failed with an internal error; findings() asserts there is none)."""
    facts = facts_of("rtx4090-nvidia-wheels-cu11-and-cu12")
    (f,) = findings(facts, "nvidia-wheels-conflict")
    assert f.detail.startswith("nvidia-cudnn: cu11 8.5.0.96, cu12 8.9.2.26. They install into the same nvidia/")
    assert [(e.source, e.value) for e in f.evidence] == [("dist:nvidia-cudnn", "cu11==8.5.0.96, cu12==8.9.2.26")]
    more = dict(facts.frameworks.nvidia_wheels, **{"nvidia-cublas-cu11": "11.11.3.6"})
    (f,) = findings(replace(facts, frameworks={"nvidia_wheels": more}), "nvidia-wheels-conflict")
    assert f.detail.startswith(
        "nvidia-cublas: cu11 11.11.3.6, cu12 12.1.3.1; nvidia-cudnn: cu11 8.5.0.96, cu12 8.9.2.26. They install"
    )
    one = {k: v for k, v in facts.frameworks.nvidia_wheels.items() if k != "nvidia-cudnn-cu11"}
    one["nvidia-cudnn-cu11-extra"] = "1.0"  # not a cuNN wheel name: not counted
    assert findings(replace(facts, frameworks={"nvidia_wheels": one}), "nvidia-wheels-conflict") == []


def test_on_windows_the_linux_library_rules_say_nothing(tf_cuda12_only):
    """cuDNN and CUDA libraries load by soname through ld.so on Linux only: on Windows (DLL search, the Windows
    checks' business) neither cudnn-missing nor framework-cuda-libs-missing is judged from Linux sonames."""
    assert findings(tf_cuda12_only, "cudnn-missing") != []
    windows = replace(tf_cuda12_only, platform={"system": "Windows"})
    assert findings(windows, "cudnn-missing") == []
    assert findings(windows, "framework-cuda-libs-missing") == []


def test_a_dangling_link_is_said_only_where_its_target_is_known_to_be_absent():
    """/usr/local/cuda -> /usr/local/cuda-10.2, which does not exist: on a whole machine that is known. On pasted
    text (partial evidence) that showed the link but not its target, the target is unknown: nothing is said,
    unless the text showed the target missing. A link that resolves, or a real directory, is never dangling."""
    from gpudoctor.facts import CudaLink, Partial

    facts = facts_of(PATHS)
    (f,) = findings(facts, "cuda-link-dangling")
    assert f.title == "/usr/local/cuda points to /usr/local/cuda-10.2, which does not exist"
    assert f.evidence[0].value == "-> /usr/local/cuda-10.2 (missing)"
    pasted = dataclasses.replace(facts, pasted=Partial(partial=True))
    assert findings(pasted, "cuda-link-dangling") == []
    shown = dataclasses.replace(facts, pasted=Partial(partial=True, missing=("/usr/local/cuda-10.2",)))
    assert len(findings(shown, "cuda-link-dangling")) == 1
    resolved = CudaLink("/usr/local/cuda", "link", "/usr/local/cuda-12.5", "/usr/local/cuda-12.5")
    assert findings(replace(facts, toolkits={"link": resolved}), "cuda-link-dangling") == []
    directory = CudaLink("/usr/local/cuda", "dir", None, None)
    assert findings(replace(facts, toolkits={"link": directory}), "cuda-link-dangling") == []


@pytest.mark.parametrize(
    ("version", "cuda", "alternative"),
    [
        # CUDA 10.2's driver runs PyTorch 1.12's cu102 build at most: a move back a major version is a bigger
        # change than the driver, so the driver comes first and that build is the alternative.
        ("440.33.01", "10.2", "downgrade torch 2.2.1+cu121 -> 1.12.* (cu102); a major version: PyTorch 2.x -> 1.x."),
        # CUDA 10.1's driver runs no build of the matrix for this GPU and Python: the driver alone.
        ("418.87.01", "10.1", None),
    ],
)
def test_the_driver_comes_first_where_the_build_that_fits_is_a_major_version_back_or_none_fits(version, cuda, alternative):
    """PyTorch 2.2.1+cu121 on a Tesla P100: CUDA 12.1 needs a driver >= 525.60.13 (CUDA 12's minor-version floor)."""
    facts = facts_of("p100-driver510-torch-cu121")
    driver = on_driver(version, cuda)
    (f,) = findings(replace(facts, driver=driver), "framework-driver-too-old")
    assert f.remediation.component == "driver"
    assert f.remediation.summary.startswith("Upgrade the NVIDIA driver to >= 525.60.13, then reboot")
    alt = f.remediation.alternative
    if alternative is None:
        assert alt is None
        return
    assert alt.component == "torch"
    assert alt.summary.startswith(
        "Install a build this driver runs, or upgrade the driver (below). No build of PyTorch 2.2.1 fits this machine; "
        "PyTorch 1.12 (cu102) is the newest that does: " + alternative
    )
    assert alt.commands != ()


def test_without_pytorch_there_is_no_pytorch_side_to_move():
    from gpudoctor.checks import Context
    from gpudoctor.checks.toolkit import torch_side
    from gpudoctor.probed import Absent

    facts = facts_of("rtx4090-nvcc118-torch-cu121")
    assert torch_side(facts, Context(), "11.8") is not None
    assert torch_side(replace(facts, frameworks={"torch": Absent("not installed", "python")}), Context(), "11.8") is None


def test_with_no_driver_seen_the_pytorch_side_names_the_driver_its_build_needs():
    """Neither driver nor GPU seen: nvcc's CUDA (11.8) decides PyTorch's build, and the alternative says which driver
    that build needs: CUDA 11's minor-version floor 450.80.02, 520.61.05 for full 11.8 support (cuda-compat-guide,
    the CUDA 11.8 release notes). The toolkit side names only the rule it could check (PyTorch's major)."""
    facts = facts_of("rtx4090-nvcc118-torch-cu121")
    none = on_driver(None, None)
    (f,) = findings(replace(facts, driver={**none, "gpus": ()}), "toolkit-torch-major-mismatch")
    assert f.remediation.summary == (
        "Build extensions with a CUDA 12.x toolkit. Install CUDA 12.1, then use it: no installed toolkit is of PyTorch's "
        "CUDA major (12)."
    )
    assert f.remediation.alternative.summary == (
        "Move PyTorch to nvcc's CUDA major (11.8): PyTorch 2.2 (cu118), the same release, built for CUDA 11.8: reinstall "
        "torch 2.2.1+cu121 (same version) as 2.2.1+cu118. No NVIDIA driver was seen here, so it was not checked against "
        "one: it needs a driver >= 450.80.02 (>= 520.61.05 for full CUDA 11.8 support). Then remove the CUDA 12 wheels the old build brought (they would stay beside the new build's, in the same "
        "nvidia/ directory) and force-reinstall the new build, which puts back the files both majors share."
    )


# --- version words of the framework fixes ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("version", "image", "nightly_of"),
    [
        ("2.1.0a0+32f93b1", True, None),  # NGC / source builds: a pre-release with a git hash
        ("1.14.0a0+410ce96", True, None),
        ("2.3.0rc1", True, None),
        ("2.2.0b2", True, None),
        ("2.7.0.dev20250310+cu124", False, "2.7.0"),  # a nightly: its stable release replaces it
        ("2.2.1+cu121", False, None),
        ("2.2.1", False, None),
        ("2.0.0.post1", False, None),
        ("", False, None),
    ],
)
def test_pre_releases_are_image_builds_and_nightlies_lead_to_their_release(version, image, nightly_of):
    """A pre-release (a0, b, rc) is a build from source or a container image, which a package index build would
    replace; a nightly (.devYYYYMMDD) is not one: the planner asks for its stable release instead."""
    from gpudoctor.checks.frameworks import dev_base, image_build

    assert image_build(version) is image
    assert (dev_base(version) if version else None) == nightly_of


def test_what_the_planner_is_asked_for_and_the_windows_move_word():
    """_request: the installed version, then its release (a nightly: its release's version); JAX by its exact
    version only. _move_word: the Windows TensorFlow move said as an upgrade, a downgrade or a reinstall."""
    from gpudoctor.checks.frameworks import _move_word, _request

    assert _request("torch", "2.7.0.dev20250310+cu124") == ("2.7.0", "2.7")
    assert _request("torch", "2.2.1+cu121") == ("2.2.1", "2.2")
    assert _request("torch", "2.2") == ("2.2",)
    assert _request("jax", "0.4.38") == ("0.4.38",)
    assert (_move_word("2.15.0", "2.10"), _move_word("2.9.1", "2.10"), _move_word("2.10.1", "2.10")) == (
        "downgrade",
        "upgrade",
        "reinstall",
    )


@pytest.mark.parametrize(
    ("installed", "said", "sources"),
    [
        ({"jax": "banana", "jaxlib": "0.4.31"}, None, None),  # not a version: nothing to judge it by, and no crash
        ({"jax": "0.4.31"}, None, None),  # one package alone agrees with itself
        (
            {"jaxlib": "0.4.31", "jax-cuda12-plugin": "0.4.30"},
            "equal numeric: jaxlib 0.4.31, jax-cuda12-plugin 0.4.30",
            ("jax-plugin-support",),
        ),
        (
            {"jax": "0.4.31", "jaxlib": "0.4.31", "jax-cuda12-plugin": "0.4.31", "jax-cuda12-pjrt": "0.4.30"},
            "equal: jax-cuda12-plugin 0.4.31, jax-cuda12-pjrt 0.4.30",
            ("pypi-jax-plugins",),
        ),
    ],
)
def test_jax_pins_are_judged_on_the_packages_installed(tmp_path, installed, said, sources):
    """Each pin of the matrix (jaxlib and the plugin equal from 0.4.30; the plugin and its pjrt equal) is judged on
    the packages of it that are installed (two at least), and the finding names the pin, the versions and its source."""
    got = findings(jax_only(tmp_path, installed), "jax-plugin-mismatch")
    if said is None:
        assert got == []
        return
    (f,) = got
    assert f.detail.startswith(f"{said}. JAX refuses to start")
    assert f.sources == sources


@pytest.mark.parametrize(
    ("cuda_major", "cudnn", "wheel"),
    [
        (12, "8.9.2.26", "nvidia-cudnn-cu12==8.9.2.26"),  # PyTorch 2.1-2.3's cu121 pin
        (11, "8.5.0.96", "nvidia-cudnn-cu11==8.5.0.96"),  # the first cu11 wheel: the bound itself
        (11, "8.3.2.44", None),  # older than any cu11 wheel: 1.11's builds bundled it
        (12, "8.9.2", None),  # not a wheel's four-part version
        (None, "8.9.2.26", None),  # no CUDA major, no series
        (13, "9.13.0.50", "nvidia-cudnn-cu13==9.13.0.50"),
    ],
)
def test_pytorchs_cudnn_wheel_is_its_pin_where_pypi_has_that_series_and_version(cuda_major, cudnn, wheel):
    """nvidia-cudnn-cuNN wheels exist from 8.5.0.96 (cu11), 8.8.0.121 (cu12), 9.12.0.46 (cu13) on
    (compat_matrix, cudnn_pip): PyTorch's pin is a wheel to install only within its CUDA major's series."""
    from gpudoctor.checks import Context
    from gpudoctor.checks.cudnn import _torch_wheel

    assert _torch_wheel(Context(), cuda_major, cudnn) == wheel


def test_the_cpu_build_fix_keeps_its_release_or_says_why_not_and_what_a_driver_would_open():
    """PyTorch 2.13.0+cpu on an RTX 3060 Laptop GPU. With driver 515.65.01 (CUDA 11.7) no CUDA build of 2.13 runs
    (its oldest CUDA is 12.6, floor 525.60.13): the newest release with a build that does is named, then what a
    newer driver would open. With no driver version seen, 2.13 is kept: its build asking least of the driver,
    and the driver that build needs."""
    facts = facts_of("rtx3060-laptop-torch-cpu-build")
    (f,) = findings(facts, "framework-cpu-build")
    assert f.remediation.summary.startswith(
        "Install PyTorch's CUDA build from its own index. No build of PyTorch 2.13.0 fits this machine; PyTorch 2.7 "
        "(cu118) is the newest that does: downgrade torch 2.13.0+cpu -> 2.7.* (cu118). Instead: a driver >= "
    )
    none = on_driver(None, None)
    (f,) = findings(replace(facts, driver=none), "framework-cpu-build")
    assert f.remediation.summary == (
        "Install PyTorch's CUDA build from its own index. PyTorch 2.13 (cu126) fits this machine: reinstall torch "
        "2.13.0+cpu (same version) as 2.13.0+cu126. No NVIDIA driver was seen here: of the builds with kernels for this "
        "GPU, PyTorch 2.13 (cu126) needs the lowest driver: driver >= 525.60.13 (>= 560.28.03 for full CUDA "
        "12.6 support); run nvidia-smi and give its CUDA version (--cuda) for the newest build that driver runs."
    )


@pytest.mark.parametrize(
    ("machine", "setenv"),
    [
        ("aarch64", 'export LD_LIBRARY_PATH=/usr/lib/aarch64-linux-gnu"${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"'),
        ("ppc64le", None),  # no multiarch directory known: nothing is put on LD_LIBRARY_PATH on a guess
    ],
)
def test_the_debian_cudnn_directory_follows_the_architecture(machine, setenv):
    """Debian's cuDNN package installs into /usr/lib/<multiarch triplet>: that directory goes ahead of the old copy
    on LD_LIBRARY_PATH; where the triplet is not known, the summary does not promise it either."""
    from gpudoctor.cmdline import render, render_all

    facts = replace(outside_pip(facts_of(TOO_OLD_TF)), platform={"machine": machine})
    (f,) = findings(facts, "cudnn-too-old")
    # The command lines, each note being a line of its own before its command.
    lines = [line for line in render_all(f.remediation.commands, "posix") if not line.startswith("# ")]
    assert lines[:2] == ["sudo apt-get update", "sudo apt-get install -y 'libcudnn8=8.*-1+cuda11.*'"]
    assert lines[3:] == ([setenv, render(Cmd(("python3", "-c", KEEP["bashrc"], setenv)), "posix")] if setenv else [])
    assert ("the new copy's directory goes ahead of it" in f.remediation.summary) is bool(setenv)


def test_jax_without_a_plugin_is_a_cpu_build_only_where_the_whole_package_list_was_seen():
    """JAX's GPU support is the jax-cudaNN-plugin package: without one, jax runs on the CPU. That absence is known
    on a whole machine, and on pasted text only where it showed the whole package list (`pip list`); a jaxlib
    built for a local CUDA (+cuda12) is a GPU build without a plugin."""
    from gpudoctor.facts import Partial

    facts = facts_of("rtx4090-jax-cpu-only")
    title = "JAX 0.4.38 has no CUDA plugin installed, so it runs on the CPU"
    assert [f.title for f in findings(facts, "framework-cpu-build")] == [title]
    assert findings(dataclasses.replace(facts, pasted=Partial(partial=True)), "framework-cpu-build") == []
    whole = dataclasses.replace(facts, pasted=Partial(partial=True, whole=("distributions",)))
    assert [f.title for f in findings(whole, "framework-cpu-build")] == [title]
    j = facts.frameworks.jax
    local = replace(
        facts, frameworks={"jax": dataclasses.replace(j, value=dataclasses.replace(j.value, jaxlib="0.4.38+cuda12.cudnn89"))}
    )
    assert findings(local, "framework-cpu-build") == []


def test_a_toolkit_to_install_that_the_repository_lacks_leaves_no_command_and_needs_no_root():
    """Quadro P2000 with CUDA 13.0 installed (no Pascal kernels) on a driver of CUDA 11.3 (465.19.01): the toolkit
    to install is the driver's 11.3, which NVIDIA's ubuntu2204 repository does not package (11.7 on). No switch is
    printed for a toolkit that is not there: no command at all, no root, and the summary says what to do."""
    facts = facts_of("quadro-p2000-driver525-cuda13-toolkit")
    driver = on_driver("465.19.01", "11.3")
    (f,) = findings(replace(facts, driver=driver), "toolkit-arch-unsupported")
    assert (f.remediation.commands, f.remediation.requires_root) == ((), False)
    assert (
        "Install CUDA 11.3, then use it: no installed toolkit is run by this driver, able to build for every GPU here. "
        "CUDA 11.3 is not packaged for Ubuntu 22.04.4 LTS (NVIDIA's ubuntu2204 repository: it has CUDA 11.7 and newer)."
    ) in f.remediation.summary


# --- resolve_for: the loader's own order, the rest of its edges --------------------------------------------------


def test_resolve_for_preloads_copies_and_defaults():
    """LD_PRELOAD objects match by DT_SONAME, or, unread, by file name; a preload of another library does not
    match. The same file reached two ways is one copy (the first way). With no cache entry the default
    directories are searched in their order. Every answer names the object that needs the soname."""
    from gpudoctor.loader import LoaderEnv, resolve_for

    so = "libcudnn.so.8"
    obj = ElfObject("/opt/fw/lib/libfw.so", (so,), runpath="/llp")

    def env(**kw):
        listed = kw.pop("listed", ())
        return LoaderEnv(kw.pop("llp", ()), kw.pop("cache", None), {d: frozenset({so}) for d in listed}, **kw)

    unread = ElfObject("/pre/" + so)  # headers unread: taken at its file name
    other = ElfObject("/pre/libcublas.so.12", soname="libcublas.so.12")
    r = resolve_for(so, obj, (), env(preload=(other, unread)))
    assert (r.path, r.via, r.needed_by) == ("/pre/" + so, "LD_PRELOAD", "/opt/fw/lib/libfw.so")
    r = resolve_for(so, obj, (), env(preload=(other,)))
    assert (r.path, r.via, r.needed_by) == (None, None, "/opt/fw/lib/libfw.so")
    # /llp is both on LD_LIBRARY_PATH and the object's RUNPATH: one copy, found the first way.
    r = resolve_for(so, obj, (), env(llp=("/llp",), listed=("/llp",)))
    assert [(c.path, c.via) for c in r.copies] == [("/llp/" + so, "LD_LIBRARY_PATH")]
    assert r.shadowed == ()
    # No cache entry: the default directories, in order; the later one is shadowed.
    plain = ElfObject("/opt/fw/lib/libfw.so", (so,))
    r = resolve_for(so, plain, (), env(cache={}, listed=("/usr/lib", "/lib"), default_dirs=("/lib", "/usr/lib")))
    assert (r.path, r.via, r.shadowed) == ("/lib/" + so, "default", ("/usr/lib/" + so,))


def test_jax_with_nvidia_wheels_gets_the_cudnn_wheel_and_without_them_the_jax_step():
    """JAX 0.6.0's CUDA 12 plugin with NVIDIA's wheels beside it (cuBLAS, the runtime) and no libcudnn.so.9 anywhere:
    the cuDNN wheel in the range the release needs is installed (nvidia-cudnn-cu12>=9.8,<10.0), the cuDNN step.
    Only a plugin with no NVIDIA wheel at all gets cuDNN from the JAX step (jax[cuda12] brings the wheels;
    tests/unit/test_jax_agreement.py)."""
    facts = facts_of(JAX_SHADOWED)
    fl = facts.loading.of("jax")
    loads = tuple(
        dataclasses.replace(r, path=None, via=None, copies=(), shadowed=(), version=None) if r.soname == "libcudnn.so.9" else r
        for r in fl.loads
    )
    facts = dataclasses.replace(
        facts, loading=dataclasses.replace(facts.loading, frameworks=(dataclasses.replace(fl, loads=loads),))
    )
    (f,) = findings(facts, "cudnn-missing")
    assert f.remediation.component == "cudnn"
    assert f.remediation.summary == (
        "Install cuDNN 9.x for CUDA 12 where JAX 0.6.0 finds it: NVIDIA's pip wheel (nvidia-cudnn-cu12>=9.8,<10.0) in "
        "the probed Python environment."
    )
    assert [c.words[3:] for c in f.remediation.commands if isinstance(c, Cmd)] == [("install", "nvidia-cudnn-cu12>=9.8,<10.0")]


@pytest.mark.parametrize(
    ("distro", "argvs"),
    [
        (("ubuntu", "debian"), [("apt-get", "update"), ("apt-get", "install", "-y", "libcudnn9-cuda-12")]),
        (("rocky", "rhel centos fedora"), [("dnf", "install", "-y", "libcudnn9-cuda-12")]),
        (("opensuse-leap", "suse opensuse"), [("zypper", "install", "-y", "libcudnn9-cuda-12")]),
        (("arch", None), []),
    ],
)
def test_cudnn9_is_one_package_per_cuda_major(distro, argvs):
    """cuDNN 9 ships one package per CUDA major, libcudnn9-cuda-12 (SOURCE_CUDNN9_INSTALL), for apt, dnf and zypper
    alike, as root; no recipe elsewhere."""
    from gpudoctor.checks.cudnn import cudnn_commands

    facts = facts_of(TOO_OLD_TF)
    facts = replace(facts, platform={"distro": dataclasses.replace(facts.platform.distro, id=distro[0], id_like=distro[1])})
    commands, where = cudnn_commands(facts, Need("TensorFlow 2.17.0", 12, 9, "9.3", (), (), None), None)
    assert [c.argv for c in commands if isinstance(c, Cmd)] == argvs
    assert all(isinstance(c, Cmd) and c.root for c in commands)
    assert where == "NVIDIA's CUDA repository, the build for CUDA 12"


def test_native_windows_tensorflow_2_10_needs_no_driver_to_be_named():
    """TensorFlow 2.10 has one Windows build: with no GPU or driver seen the planner will not choose a CUDA build,
    and the move is still a plain install of 2.10 in this environment."""
    from gpudoctor.cmdline import render_all

    facts = facts_of("windows-rtx3080-tensorflow215")
    py = facts.frameworks.python
    none = on_driver(None, None)
    facts = replace(
        facts,
        driver={**none, "gpus": ()},
        frameworks={"python": dataclasses.replace(py, value=dataclasses.replace(py.value, version="3.10.11"))},
    )
    (f,) = findings(facts, "framework-windows-native-gpu")
    # Without conda, WSL 2 is the plan's command; the 2.10 move stays a plain install, with no driver named.
    assert render_all(f.remediation.commands, "powershell") == [
        "# as Administrator, restart Windows when it asks",
        "wsl --install",
    ]
    assert (
        'Or stay on native Windows with TensorFlow 2.10 (tensorflow 2.15.0 -> 2.10.*): python -m pip install "tensorflow==2.10.*"'
        in (f.remediation.summary)
    )
    assert "driver" not in f.remediation.summary


def test_extension_builds_are_judged_by_the_nvcc_on_path_when_no_install_folder_is_known():
    """toolkit-torch-major-mismatch with only `nvcc --version` to go by (no toolkit folder found): the title names
    no folder and the evidence is nvcc's own answer; an nvcc of PyTorch's own major is no finding."""
    facts = facts_of("rtx4090-nvcc118-torch-cu121")
    (f,) = findings(facts, "toolkit-torch-major-mismatch")
    assert f.title == "CUDA extensions would build with CUDA 11.8 (/usr/local/cuda-11.8) but PyTorch was built with CUDA 12.1"
    bare = replace(facts, toolkits={"toolkits": (), "nvcc_on_path": None, "nvcc_on_path_version": "11.8.89"})
    (f,) = findings(bare, "toolkit-torch-major-mismatch")
    assert f.title == "CUDA extensions would build with CUDA 11.8 but PyTorch was built with CUDA 12.1"
    assert (f.evidence[0].source, f.evidence[0].value) == ("cmd:nvcc --version", "11.8.89 via PATH")
    same = replace(facts, toolkits={"toolkits": (), "nvcc_on_path": None, "nvcc_on_path_version": "12.4.131"})
    assert findings(same, "toolkit-torch-major-mismatch") == []


@pytest.mark.parametrize(
    ("plugin", "moves"),
    [("0.4.38", ""), ("0.4.36", " (jax-cuda12-pjrt 0.4.36 -> 0.4.38, jax-cuda12-plugin 0.4.36 -> 0.4.38)")],
)
def test_the_jax_step_for_cudnn_names_the_plugin_moves_it_makes(tmp_path, plugin, moves):
    """JAX 0.4.38's CUDA 12 plugin with no NVIDIA wheel and no GPU seen: cuDNN comes with jax[cuda12]==0.4.38 (one
    JAX step). The summary names the packages that move to 0.4.38, and nothing when none does."""
    dists = {"jax": "0.4.38", "jaxlib": "0.4.38", "jax-cuda12-plugin": plugin, "jax-cuda12-pjrt": plugin}
    (f,) = findings(jax_only(tmp_path, dists), "cudnn-missing")
    assert f.remediation.summary == (
        "Install cuDNN 9.x for CUDA 12 where JAX 0.4.38 finds it: JAX's CUDA plugin loads it from NVIDIA's pip wheels, "
        f"which jax[cuda12] brings. JAX 0.4.38{moves}, still the CUDA 12 build. jax[cuda12]==0.4.38 pins jaxlib and the "
        "plugin to 0.4.38 and brings NVIDIA's CUDA and cuDNN wheels. Agreeing chooses no build, so it needs no GPU facts."
    )


def test_a_loaders_rpath_beside_its_own_runpath_is_ignored_for_what_it_loads():
    """glibc reads no DT_RPATH of an object that has a DT_RUNPATH (elf/get-dynamic-info.h): the executable's RPATH
    is searched for a library with neither, unless the executable also has a RUNPATH."""
    from gpudoctor.loader import LoaderEnv, resolve_for

    so = "libcudnn.so.8"
    env = LoaderEnv((), None, {"/exe-rp": frozenset({so})})
    obj = ElfObject("/opt/fw/lib/libfw.so", (so,))
    assert resolve_for(so, obj, (ElfObject("/usr/bin/python3", rpath="/exe-rp"),), env).via == "RPATH of python3"
    both = ElfObject("/usr/bin/python3", rpath="/exe-rp", runpath="/exe-run")
    assert resolve_for(so, obj, (both,), env).path is None


@pytest.mark.parametrize(
    ("changes", "fires"),
    [
        ({}, True),
        ({"hip": "5.7.31921"}, False),  # a ROCm build: another GPU's build, not a CPU-only one
        ({"build_known": False}, False),  # neither torch/version.py nor a local tag: the build is unknown
        ({"cuda": "12.1"}, False),
    ],
)
def test_a_pytorch_cpu_build_is_one_known_to_carry_neither_cuda_nor_hip(changes, fires):
    facts = facts_of("rtx3060-laptop-torch-cpu-build")
    t = facts.frameworks.torch
    facts = replace(facts, frameworks={"torch": dataclasses.replace(t, value=dataclasses.replace(t.value, **changes))})
    got = [f.title for f in findings(facts, "framework-cpu-build")]
    assert got == (["PyTorch 2.13.0+cpu is a CPU-only build, so it cannot use the NVIDIA GPU"] if fires else [])


def test_in_a_container_the_driver_step_is_the_hosts():
    """A container runs on the host's driver (its kernel module): the upgrade is the host's, with the host's
    package manager, as root there; no command is printed for the container to run."""
    facts = facts_of("p100-driver510-torch-cu121")
    driver = on_driver("418.87.01", "10.1")
    (f,) = findings(replace(facts, driver=driver, platform={"container": "docker"}), "framework-driver-too-old")
    assert f.remediation.summary == (
        "Upgrade the host's NVIDIA driver to >= 525.60.13: a container runs on the host's driver (its kernel module), "
        "so the upgrade happens on the host, with the host's package manager; then restart the container."
    )
    assert (f.remediation.commands, f.remediation.requires_root, f.remediation.where) == ((), True, "the host")


def test_the_new_cudnn_wheel_directory_is_known_even_before_the_wheel_is_installed():
    """Without ELF records and without the cuDNN wheel's directory among JAX's (the wheel not installed yet), the
    directory the wheel will install into (site-packages/nvidia/cudnn/lib) still goes ahead of the old copy."""
    from gpudoctor.cmdline import PrependPath

    facts = dataclasses.replace(facts_of(JAX_SHADOWED), loading=None)
    j = facts.frameworks.jax
    dirs = tuple(d for d in j.value.lib_dirs if not d.path.endswith("/nvidia/cudnn/lib"))
    facts = replace(facts, frameworks={"jax": dataclasses.replace(j, value=dataclasses.replace(j.value, lib_dirs=dirs))})
    (f,) = findings(facts, "cudnn-too-old")
    (prepend,) = [c for c in f.remediation.commands if isinstance(c, PrependPath)]
    assert (prepend.name, prepend.parts) == (
        "LD_LIBRARY_PATH",
        ("/home/user/venv/lib/python3.11/site-packages/nvidia/cudnn/lib",),
    )


def test_a_nightly_of_a_release_the_matrix_lists_is_judged_as_that_release():
    """PyTorch 2.6.0.dev20241112+cu124 on an RTX 5070 (compute capability 12.0): the matrix lists 2.6's cu124 build
    (sm_50 to sm_90), which has no kernels for it. Its variant is known, so it is judged by it directly, and the
    finding carries no "judged by the newest release at or below" note (that is for nightlies of unlisted releases)."""
    facts = facts_of("rtx5070-torch-cu121-no-sm120")
    t = facts.frameworks.torch
    value = dataclasses.replace(t.value, version="2.6.0.dev20241112+cu124", cuda="12.4")
    (f,) = findings(replace(facts, frameworks={"torch": dataclasses.replace(t, value=value)}), "framework-arch-unsupported")
    assert f.title == (
        "PyTorch 2.6.0.dev20241112+cu124 has no kernels for GPU 0 (NVIDIA GeForce RTX 5070, compute capability 12.0)"
    )
    assert f.evidence[0].source == "compat_matrix:torch"
    assert f.detail.endswith("(or TensorFlow ignores the GPU).")
    assert "nightly" not in f.detail


def test_with_the_active_toolkit_ruled_out_the_newest_that_qualifies_is_the_target():
    """nvcc on PATH is 11.8's, which PyTorch's CUDA 12 build rules out; 12.1, 12.4 and 12.6 all qualify (driver
    535.86.05 runs 12.4 and 12.6 through minor version compatibility). The target is the newest, 12.6, whatever the
    order the toolkits were found in."""
    facts = toolkits_named(facts_of(PATHS), v118=("nvcc on PATH",))
    (f,) = findings(facts, "toolkit-torch-major-mismatch")
    assert f.remediation.summary == (
        "Build extensions with a CUDA 12.x toolkit. Use CUDA 12.6 (/usr/local/cuda-12.6): of PyTorch's CUDA major (12), "
        "run by this driver, able to build for every GPU here; the newest such."
    )
    reordered = replace(facts, toolkits={"toolkits": tuple(reversed(facts.toolkits.toolkits))})
    (f,) = findings(reordered, "toolkit-torch-major-mismatch")
    assert "Use CUDA 12.6 (/usr/local/cuda-12.6)" in f.remediation.summary


def test_on_windows_the_driver_alternative_is_nvidias_windows_driver_as_administrator():
    """Forge's PyTorch 2.1 cu121 on a driver of CUDA 11.4 (Windows): the cu118 build first, and NVIDIA's Windows
    driver (>= 527.41, CUDA 12.1's Windows floor) as the alternative, as an Administrator; no restart command alone
    (issue 27, kind 7: the installer asks for the restart it needs)."""
    (f,) = findings(facts_of("windows-forge-torch21-cu121-driver-cuda114"), "framework-driver-too-old")
    alt = f.remediation.alternative
    assert (alt.component, alt.requires_root) == ("driver", True)
    assert alt.summary == (
        "Upgrade the NVIDIA driver to >= 527.41: NVIDIA's Windows driver for this GPU (nvidia.com/Download, or the NVIDIA "
        "App), as an Administrator, then restart Windows if the installer asks."
    )
    assert [c.argv for c in alt.commands if isinstance(c, Cmd)] == []


def test_a_pre_release_pytorch_is_not_replaced_from_the_package_index():
    """PyTorch 2.1.0a0+32f93b1 (an NGC image's build) missing its CUDA libraries: reinstalling from the package index
    would replace it and what was built against it, so the fix says to mend the image, and prints no command."""
    base = facts_of("h100x8-driver565-torch221-cu121")
    t = base.frameworks.torch
    value = dataclasses.replace(t.value, version="2.1.0a0+32f93b1", lib_dirs=())
    facts = replace(base, frameworks={"nvidia_wheels": {}, "torch": dataclasses.replace(t, value=value)})
    (f,) = findings(facts, "framework-cuda-libs-missing")
    assert f.remediation.commands == ()
    assert f.remediation.summary == (
        "Reinstall PyTorch with its dependencies (a --no-deps install leaves them out). PyTorch 2.1.0a0+32f93b1 is a "
        "pre-release, built from source or shipped in a container image (such as NVIDIA's NGC images): a build from the "
        "package index would replace it and what was built against it. Fix the image's environment instead, or use an "
        "image built for this machine."
    )


def test_a_driver_known_only_by_its_cuda_runs_every_toolkit_up_to_that_cuda():
    """Driver version unknown, its CUDA 12.2 reported: a toolkit up to 12.2 runs fully (12.1 qualifies); one newer
    (12.4, 12.6) would need minor version compatibility, which cannot be shown without the driver's version."""
    facts = toolkits_named(facts_of(PATHS), v118=("nvcc on PATH",))
    driver = on_driver(None, "12.2")
    (f,) = findings(replace(facts, driver=driver), "toolkit-torch-major-mismatch")
    assert "Use CUDA 12.1 (/usr/local/cuda-12.1): of PyTorch's CUDA major (12), run by this driver" in f.remediation.summary


def test_nvmls_compute_capability_decides_over_the_name():
    """A GPU whose name the matrix does not know (a new or renamed board) but whose compute capability NVML
    reports (3.0) is judged by that capability: TensorFlow 2.11 has no kernels for it."""
    facts = facts_of("rtx3060-tf211-on-cuda118-cudnn86")
    gpu = dataclasses.replace(facts.driver.gpus[0], name="NVIDIA Graphics Device", compute_capability="3.0")
    (f,) = findings(replace(facts, driver={"gpus": (gpu,)}), "framework-arch-unsupported")
    assert f.title == "TensorFlow 2.11.0 has no kernels for GPU 0 (NVIDIA Graphics Device, compute capability 3.0)"
