"""Rules of checks/ at the edges the second mutation sample found unguarded (docs/testing.md, "Mutation testing").

Each test was written for a mutant that survived `tools/mutate.py --sample 400 --all-of "" --seed 20`, but asserts
what a user sees: the finding, what it names, its evidence and the commands of its fix. Facts are recorded
machines (tests/machines) with one fact changed at a time, in code or in the snapshot itself, or pasted text read
as `gpudoctor check --from` reads it.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from gpudoctor.checks import Context, run_checks
from gpudoctor.checks.frameworks import jax_remediation
from gpudoctor.cmdline import render_all
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.model import Severity
from gpudoctor.planner.remedy import KEEP
from tests.unit.test_jax_agreement import _facts as _jax_facts
from tests.unit.test_rule_edges_checks import edited, facts_of, replace, with_tf, with_torch

MACHINES = Path(__file__).resolve().parents[1] / "machines"
CTX = Context()


def from_text(text: str):
    """Facts of a pasted report, as `gpudoctor check --from report.txt` reads them."""
    from gpudoctor.pasted import Source, read_pasted

    return diagnose(ReplayHost(validate_snapshot(read_pasted([Source("report.txt", text)]), "pasted text"))).facts


def findings(facts, code, ctx=None):
    found, internal = run_checks(facts, ctx=ctx)
    assert not internal  # no check crashed on these facts
    return [f for f in found if f.code == code]


def lines(finding, shell="posix"):
    """Each command as rendered with its note (data) after it; where a note is printed is gpudoctor.cmdline's
    to decide (tests/unit/test_cmdline.py)."""
    return [
        line + (f"  # {c.note}" if c.note else "") for c in finding.remediation.commands for line in render_all([c], shell)[-1:]
    ]


# --- cuDNN ------------------------------------------------------------------------------------------------

JAX_MACHINE = "rtx3060-jax-cudnn-shadowed-by-ld-library-path"
SITE = "/home/user/venv/lib/python3.11/site-packages"
PLUGIN = f"{SITE}/jax_plugins/xla_cuda12/xla_cuda_plugin.so"


def test_a_tensorflow_cudnn_finding_cites_tensorflows_tested_configurations():
    """tests/machines/rtx3060-tf211-cudnn80-too-old: TensorFlow 2.11's need for cuDNN 8.1 comes from its row of
    compat_matrix/tensorflow.toml, which cites TensorFlow's tested build configurations: the finding says where its
    requirement comes from."""
    (f,) = findings(facts_of("rtx3060-tf211-cudnn80-too-old"), "cudnn-too-old")
    assert f.title == "cuDNN 8.0.5 is older than TensorFlow 2.11.0 requires (8.1)"
    assert "tf-tested-configs" in f.sources


def test_an_old_cudnn_wheel_reached_through_the_plugins_run_path_is_too_old():
    """The JAX machine without the old CUDA 12.4 on LD_LIBRARY_PATH, and with nvidia-cudnn-cu12 9.5.1.17 installed
    (older than JAX 0.6.0's 9.8, compat_matrix/jax.toml): the plugin's DT_RUNPATH leads to the wheel's
    libcudnn.so.9, whose version is the wheel's. The loader reached it through the run path, in NVIDIA's wheel
    directory: the evidence says wheel, and the fix installs the wheel JAX needs."""

    def old_wheel_no_ld_path(data):
        del data["env"]["LD_LIBRARY_PATH"]
        data["python"]["distributions"]["nvidia-cudnn-cu12"] = "9.5.1.17"

    (f,) = findings(edited(JAX_MACHINE, old_wheel_no_ld_path), "cudnn-too-old")
    assert f.title == "cuDNN 9.5.1.17 is older than JAX 0.6.0 requires (9.8)"
    assert f.evidence[0].source == "loader:wheel"
    assert lines(f) == ["/home/user/venv/bin/python3 -m pip install 'nvidia-cudnn-cu12>=9.8,<10.0'"]


def test_a_wheel_directory_put_on_ld_library_path_is_said_to_load_through_it():
    """A job script exports LD_LIBRARY_PATH=<site-packages>/nvidia/cudnn/lib (a common workaround) and the wheel is
    9.5.1.17: ld.so searches LD_LIBRARY_PATH before the plugin's run path (ld.so(8)), so that is how the copy loads,
    and the evidence says LD_LIBRARY_PATH, the setting the user made, not the wheel directory's own kind."""

    def wheel_dir_on_ld_path(data):
        data["env"]["LD_LIBRARY_PATH"] = f"{SITE}/nvidia/cudnn/lib"
        data["python"]["distributions"]["nvidia-cudnn-cu12"] = "9.5.1.17"

    (f,) = findings(edited(JAX_MACHINE, wheel_dir_on_ld_path), "cudnn-too-old")
    assert f.title == "cuDNN 9.5.1.17 is older than JAX 0.6.0 requires (9.8)"
    assert f.evidence[0].source == "loader:LD_LIBRARY_PATH"


def test_a_system_cudnn_found_in_a_default_directory_is_said_to_load_from_there():
    """JAX installed with the local-CUDA plugin (no NVIDIA wheels) on Ubuntu 22.04, with Ubuntu's libcudnn9 9.1.0 in
    /usr/lib/x86_64-linux-gnu and no ldconfig cache recorded: ld.so finds it in its default directories (ld.so(8)).
    The evidence names that way in ("default"), not the ldconfig cache, which was never read; the fix installs
    libcudnn9-cuda-12 from NVIDIA's repository with apt (SOURCE_CUDNN9_INSTALL)."""

    def system_cudnn_only(data):
        del data["env"]["LD_LIBRARY_PATH"]
        for path in [p for p in data["files"] if "/site-packages/nvidia/" in p or p.startswith("/usr/local/cuda-12.4/")]:
            del data["files"][path]
        for name in [n for n in data["python"]["distributions"] if n.startswith("nvidia-")]:
            del data["python"]["distributions"][name]
        data["files"]["/usr/lib/x86_64-linux-gnu/libcudnn.so.9"] = {"link": "libcudnn.so.9.1.0"}
        data["files"]["/usr/lib/x86_64-linux-gnu/libcudnn.so.9.1.0"] = {"type": "file", "binary": True}

    (f,) = findings(edited(JAX_MACHINE, system_cudnn_only), "cudnn-too-old")
    assert f.title == "cuDNN 9.1.0 is older than JAX 0.6.0 requires (9.8)"
    assert f.evidence[0].source == "loader:default"
    assert lines(f)[-1] == "sudo apt-get install -y libcudnn9-cuda-12  # NVIDIA's CUDA repository"


def test_a_cudnn_of_unknown_version_is_neither_too_old_nor_of_another_cuda():
    """The old CUDA 12.4 tree on LD_LIBRARY_PATH holds a plain libcudnn.so.9 (no versioned file beside it, no
    header): which 9.x it is cannot be known, so neither cudnn-too-old nor cudnn-cuda-mismatch is said, and no
    check crashes on the missing version."""

    def unversioned(data):
        del data["files"]["/usr/local/cuda-12.4/lib64/libcudnn.so.9.1.0"]
        data["files"]["/usr/local/cuda-12.4/lib64/libcudnn.so.9"] = {"type": "file", "binary": True}

    facts = edited(JAX_MACHINE, unversioned)
    assert findings(facts, "cudnn-too-old") == []
    assert findings(facts, "cudnn-cuda-mismatch") == []


def test_a_tensorflow_whose_cuda_is_not_known_is_not_said_to_use_another_cuda_than_its_cudnn():
    """tests/machines/rtx3060-tf211-cudnn80-too-old, but TensorFlow is a release newer than the matrix (2.99.0) whose
    build information gave cuDNN 8.9 and no CUDA version: cuDNN 8.0.5 is older than 8.9 (cudnn-too-old), but which
    CUDA the build uses is unknown, so no cudnn-cuda-mismatch can be said (it would read "uses CUDA None")."""
    base = with_tf(facts_of("rtx3060-tf211-cudnn80-too-old"), version="2.99.0", cuda=None, cudnn="8.9")
    (f,) = findings(base, "cudnn-too-old")
    assert f.title == "cuDNN 8.0.5 is older than TensorFlow 2.99.0 requires (8.9)"
    assert findings(base, "cudnn-cuda-mismatch") == []


def test_the_unshadow_fix_names_a_library_that_loads_only_from_the_shadowing_directory():
    """The JAX machine, whose plugin also NEEDs libcufft.so.11, found only in /usr/local/cuda-12.4/lib64 (CUDA 12's
    cuFFT is 11.x) through LD_LIBRARY_PATH: taking that directory off LD_LIBRARY_PATH fixes cuDNN but loses cuFFT,
    so the fix says so (keep the directory for what needs it)."""

    def needs_cufft(data):
        data["elf"][PLUGIN]["needed"].insert(0, "libcufft.so.11")
        data["files"]["/usr/local/cuda-12.4/lib64/libcufft.so.11"] = {"type": "file", "binary": True}

    (f,) = findings(edited(JAX_MACHINE, needs_cufft), "cudnn-too-old")
    assert "nothing needs installing" in f.remediation.summary
    assert "libcufft.so.11 then load from nowhere else: keep that directory for what needs it." in f.remediation.summary


def test_the_new_cudnn_goes_ahead_of_ld_library_path_once():
    """tests/machines/rtx3060-tf211-cudnn80-too-old with LD_LIBRARY_PATH also naming /usr/lib/x86_64-linux-gnu
    (where Ubuntu's libcudnn8 goes) after the CUDA 11.8 tree: the fix puts that directory first and keeps the rest."""
    from gpudoctor.probed import Unknown

    # The interpreter unknown: a TensorFlow not known to be pip's (pip's gets NVIDIA's wheel, issue 27 kind 1).
    base = replace(facts_of("rtx3060-tf211-cudnn80-too-old"), frameworks={"python": Unknown("failed", "not probed", "python")})
    env = {**base.platform.env, "LD_LIBRARY_PATH": "/usr/local/cuda-11.8/lib64:/usr/lib/x86_64-linux-gnu"}
    (f,) = findings(replace(base, platform={"env": env}), "cudnn-too-old")
    # Put first, the rest as the shell holds it (its later /usr/lib/x86_64-linux-gnu entry is never reached first).
    assert lines(f)[-2] == (
        'export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu"${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"'
        "  # the new cuDNN ahead of the old copy, the rest kept"
    )
    # and kept for new shells (no environment of its own known: ~/.bashrc), the same line as data
    assert f.remediation.commands[-1].argv == (
        "python3",
        "-c",
        KEEP["bashrc"],
        'export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu"${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"',
    )


def test_cudnn_9_on_suse_is_installed_with_zypper_as_root():
    """The JAX machine on openSUSE Leap without NVIDIA's wheels (jax[cuda12_local]), loading the old cuDNN 9.1 of
    CUDA 12.4 through LD_LIBRARY_PATH: cuDNN 9 comes as libcudnn9-cuda-12 from NVIDIA's CUDA repository
    (SOURCE_CUDNN9_INSTALL), installed by zypper, which writes the system: root."""

    def suse_without_wheels(data):
        for path in [p for p in data["files"] if "/site-packages/nvidia/" in p]:
            del data["files"][path]
        for name in [n for n in data["python"]["distributions"] if n.startswith("nvidia-")]:
            del data["python"]["distributions"][name]
        data["files"]["/etc/os-release"] = (
            'NAME="openSUSE Leap"\nID="opensuse-leap"\nID_LIKE="suse opensuse"\nVERSION_ID="15.6"\n'
        )

    (f,) = findings(edited(JAX_MACHINE, suse_without_wheels), "cudnn-too-old")
    assert lines(f)[0] == "sudo zypper install -y libcudnn9-cuda-12  # NVIDIA's CUDA repository"
    assert f.remediation.requires_root


def test_a_torch_build_that_carries_cudnn_with_none_in_its_listed_lib_directory_misses_it():
    """tests/machines/p100-torch112-static-cudnn-none-installed upgraded to PyTorch 1.13.1+cu116 from PyTorch's index:
    that build pins cuDNN 8.3.2.44 (compat_matrix/torch.toml), older than the first nvidia-cudnn-cu11 wheel
    (8.5.0.96), so the wheel carries libcudnn.so.8 in torch/lib. torch/lib was listed and holds none: missing, and
    the fix reinstalls PyTorch. With torch/lib not listed at all (a pasted report), it is unknown, not missing."""
    base = with_torch(facts_of("p100-torch112-static-cudnn-none-installed"), version="1.13.1+cu116", cuda="11.6")
    assert [d.via for d in base.frameworks.torch.value.lib_dirs] == ["bundled"]
    (f,) = findings(base, "cudnn-missing")
    assert f.title == "PyTorch 1.13.1+cu116 needs libcudnn.so.8 and none can be loaded"
    assert lines(f)[-1].endswith(
        "--force-reinstall --no-deps torch==1.13.1+cu116 --index-url https://download.pytorch.org/whl/cu116"
    )
    assert findings(with_torch(base, lib_dirs=()), "cudnn-missing") == []


# --- driver -----------------------------------------------------------------------------------------------


def test_a_pasted_nvml_unknown_error_is_an_unreachable_driver():
    """Pasted text shows nvidia-smi failing with 'Failed to initialize NVML: Unknown Error' and nothing of the PCI
    bus: the driver answers with an error (it is there), so this is driver-unreachable, not driver-missing."""
    facts = from_text("$ nvidia-smi\nFailed to initialize NVML: Unknown Error\n")
    (f,) = findings(facts, "driver-unreachable")
    assert f.title == "the NVIDIA driver is loaded but NVML and nvidia-smi cannot talk to it"
    assert findings(facts, "driver-missing") == []


def test_an_nvml_timeout_is_said_in_nvmls_own_words_or_as_not_answering():
    """NVML did not answer in time (a wedged driver): the finding quotes NVML's error where there is one, and
    says that NVML did not answer where there is none."""
    base = facts_of("h100x8-driver565-torch221-cu121")
    said = replace(base, driver={"nvml_status": "timeout", "nvml_error": "nvmlInit did not return within 10 s"})
    (f,) = findings(said, "probe-timeout")
    assert f.severity is Severity.ERROR  # a hung driver
    assert "nvmlInit did not return within 10 s" in f.detail
    (g,) = findings(replace(base, driver={"nvml_status": "timeout", "nvml_error": None}), "probe-timeout")
    assert "NVML did not answer" in g.detail


def test_a_deep_check_that_ran_out_of_time_is_said():
    """`check --deep` ran PyTorch in a subprocess that did not finish: its area was not judged, which is said as a
    warning (not a hung driver) naming the deep probe and its error."""
    base = facts_of("h100x8-driver565-torch221-cu121")
    deep = {"torch": {"timeout": True, "error": "the torch subprocess did not finish within 60 s"}}
    (f,) = findings(replace(base, frameworks={"deep": deep}), "probe-timeout")
    assert f.title == "a probe hung past its time limit: deep-torch"
    assert f.severity is Severity.WARNING
    assert "the torch subprocess did not finish within 60 s" in f.detail


# --- frameworks -------------------------------------------------------------------------------------------


def test_a_tensorflow_of_unknown_build_is_not_judged_for_cudnn():
    """tests/machines/rtx3060-tf211-cudnn80-too-old, but TensorFlow's build_info could not be read and the package
    is plain `tensorflow` (not tensorflow-gpu): whether it is a CUDA build is unknown (tensorflow-cpu and macOS /
    Windows >= 2.11 builds have no CUDA), so its cuDNN is not judged: no cudnn-too-old."""
    base = with_tf(facts_of("rtx3060-tf211-cudnn80-too-old"), is_cuda_build=None, distribution="tensorflow")
    assert findings(base, "cudnn-too-old") == []


def test_a_torch_whose_cuda_version_is_not_one_is_not_judged_for_its_cuda_libraries():
    """PyTorch 2.2.1 says its CUDA is "unknown" (a garbled version.py): which libcudart it needs cannot be named,
    so framework-cuda-libs-missing is not said, and no check crashes."""
    base = facts_of("rtx4090-toolkit-paths-disagree")
    assert findings(with_torch(base, cuda="unknown"), "framework-cuda-libs-missing") == []


def test_with_no_build_to_vouch_for_and_no_gpu_seen_the_jax_fix_asks_for_the_target(tmp_path):
    """recovar#64 (https://github.com/ma-gilles/recovar/issues/64; tests/pasted/cases): pip put jax-cuda12-plugin and
    -pjrt 0.9.2 beside jax and jaxlib 0.9.0.1. They must agree on jax's 0.9.0.1, a post-release the matrix has no
    build row for (its requests are X.Y.Z), and no GPU or driver was seen to choose another: no command is guessed,
    and the fix says how to give the target."""
    distributions = {"jax": "0.9.0.1", "jaxlib": "0.9.0.1", "jax-cuda12-plugin": "0.9.2", "jax-cuda12-pjrt": "0.9.2"}
    (f,) = findings(_jax_facts(tmp_path, distributions), "jax-plugin-mismatch")
    assert f.remediation.commands == ()
    assert "no build of JAX 0.9.0.1 like the one installed" in f.remediation.summary
    assert "tell `gpudoctor install jax` the target (--gpu, --driver, --cuda, --cpu)" in f.remediation.summary


def test_when_jaxs_versions_already_agree_the_jax_step_installs_nothing(tmp_path):
    """A pasted error said the plugin does not match, but jax, jaxlib and the CUDA 12 plugin are all 0.4.38 now:
    the JAX step has nothing to install and says what they agree on."""
    distributions = {"jax": "0.4.38", "jaxlib": "0.4.38", "jax-cuda12-plugin": "0.4.38", "jax-cuda12-pjrt": "0.4.38"}
    r = jax_remediation(_jax_facts(tmp_path, distributions), CTX, "Install them at one version.")
    assert r.commands == ()
    assert r.summary.startswith("Install them at one version. They should agree on 0.4.38")
    assert r.summary.endswith("still the CUDA 12 build.")


# --- health -----------------------------------------------------------------------------------------------


def _h100_gpu0(**changes):
    base = facts_of("h100x8-driver565-torch221-cu121")
    gpus = list(base.driver.gpus)
    gpus[0] = dataclasses.replace(gpus[0], **changes)
    return replace(base, driver={"gpus": tuple(gpus)})


def test_a_gpu_parked_in_p5_is_idle_so_its_lower_link_generation_is_not_judged():
    """GPU 0 at Gen3 of its Gen5 link, in P5 with 30% utilisation: P5 and lower are parked clocks (idle, by the
    rule's own definition), and an idle GPU may lower its link generation to save power, which proves nothing
    (check_pcie): no finding. The same GPU in P0 is busy, and the slow link a warning."""
    assert (
        findings(
            _h100_gpu0(throttle_reasons=(), utilization_gpu_percent=30, performance_state="P5", pcie_gen_current=3),
            "pcie-link-degraded",
        )
        == []
    )
    (f,) = findings(
        _h100_gpu0(throttle_reasons=(), utilization_gpu_percent=30, performance_state="P0", pcie_gen_current=3),
        "pcie-link-degraded",
    )
    assert f.severity is Severity.WARNING


def test_memory_held_by_processes_of_unknown_usage_is_judged_on_the_gpus_figure():
    """tests/machines/rtx3060-desktop-other-jobs-hold-memory with NVML giving no usage for the processes (as
    inside a container, or without the right to see them): the GPU's own used-memory figure still says how much is
    held, so the finding stands with that share."""
    base = facts_of("rtx3060-desktop-other-jobs-hold-memory")
    (before,) = findings(base, "gpu-memory-held")
    gpus = tuple(
        dataclasses.replace(g, processes=tuple(dataclasses.replace(p, used_bytes=None) for p in g.processes))
        for g in base.driver.gpus
    )
    (f,) = findings(replace(base, driver={"gpus": gpus}), "gpu-memory-held")
    g = base.driver.gpus[0]
    assert f.title == f"{g.memory_used_bytes / g.memory_total_bytes:.0%} of GPU 0's memory is held by other processes"
    assert before.title.endswith("of GPU 0's memory is held by other processes")


# --- memory -----------------------------------------------------------------------------------------------


def test_tf_preallocates_evidence_shows_the_value_set():
    """tests/machines/rtx4000ada-tf-beside-torch-job with TF_FORCE_GPU_ALLOW_GROWTH=1: TensorFlow accepts exactly
    "true" or "false", so 1 is not growth; the evidence shows the value the user set (and "unset" when unset)."""
    base = facts_of("rtx4000ada-tf-beside-torch-job")
    (unset,) = findings(base, "tf-preallocates")
    assert unset.evidence[0].source == "env:TF_FORCE_GPU_ALLOW_GROWTH" and unset.evidence[0].value == "unset"
    env = {**base.platform.env, "TF_FORCE_GPU_ALLOW_GROWTH": "1"}
    (f,) = findings(replace(base, platform={"env": env}), "tf-preallocates")
    assert f.evidence[0].source == "env:TF_FORCE_GPU_ALLOW_GROWTH" and f.evidence[0].value == "1"


# --- platform / remedy ------------------------------------------------------------------------------------


def test_giving_a_docker_container_the_gpu_needs_root_on_the_host_and_a_kubernetes_pod_does_not():
    """tests/machines/docker-started-without-gpus: restarting Docker with the NVIDIA runtime configured is root's
    (nvidia-ctk runtime configure writes /etc/docker/daemon.json); in Kubernetes the fix is the pod's resource
    limit, written by whoever deploys it."""
    base = facts_of("docker-started-without-gpus")
    (f,) = findings(base, "container-no-gpu")
    assert f.remediation.requires_root
    (k,) = findings(replace(base, platform={"container": "kubernetes"}), "container-no-gpu")
    assert not k.remediation.requires_root


def test_creating_mig_instances_of_an_unknown_gpu_is_roots():
    """tests/machines/a30-mig-enabled-no-instances with a GPU name the matrix has no MIG profiles for: the profile
    is left for the person to pick from -lgip, and creating GPU instances (nvidia-smi mig -cgi) needs root like
    the listing."""
    base = facts_of("a30-mig-enabled-no-instances")
    gpus = tuple(dataclasses.replace(g, name="NVIDIA Future MIG GPU") for g in base.driver.gpus)
    (f,) = findings(replace(base, driver={"gpus": gpus}), "mig-enabled")
    assert (
        "sudo nvidia-smi mig -i 0 -cgi '<profile>' -C  # a profile name from -lgip, repeated with commas for several instances"
        in lines(f)
    )


def test_a_kubernetes_pod_is_restarted_by_deleting_it():
    """tests/machines/docker-nvml-unknown-error-after-daemon-reload, but in a Kubernetes pod: a pod is not restarted
    in place; deleting it makes its controller start a new one (with the GPU devices back)."""
    base = facts_of("docker-nvml-unknown-error-after-daemon-reload")
    (f,) = findings(replace(base, platform={"container": "kubernetes"}), "driver-unreachable")
    assert "kubectl delete pod '<pod>'  # its controller starts a new one" in lines(f)


def test_a_gpu_lost_after_its_bus_id_was_read_does_not_hide_where_another_lost_gpu_sits():
    """tests/machines/h100x2-gpu-fallen-off-bus, but GPU 0 too was lost partway through NVML's reading, after its bus
    id (0000:18:00.0) was read (gpudoctor.host.nvml marks a field's GPU_IS_LOST that way). GPU 1 gave no bus id. Of
    the two NVIDIA GPUs on the PCI bus, 0000:18:00.0 is GPU 0's, so GPU 1 is the one at 0000:2a:00.0."""
    base = facts_of("h100x2-gpu-fallen-off-bus")
    gpus = list(base.driver.gpus)
    assert gpus[0].pci_bus_id == "00000000:18:00.0" and gpus[1].pci_bus_id is None
    gpus[0] = dataclasses.replace(gpus[0], lost=True, lost_error="gpu_is_lost")
    titles = [f.title for f in findings(replace(base, driver={"gpus": tuple(gpus)}), "gpu-lost")]
    assert titles == [
        "GPU 0 (00000000:18:00.0) is lost: the driver cannot reach it",
        "GPU 1 (0000:2a:00.0) is lost: the driver cannot reach it",
    ]


# --- reported (pasted error texts) ------------------------------------------------------------------------


def test_a_pasted_extension_build_refusal_names_both_cuda_versions():
    """torch.utils.cpp_extension's refusal, pasted alone: the finding names the toolkit's CUDA (12.1) and PyTorch's
    (11.8) as the message gives them, and the fix a CUDA 11.x toolkit or a PyTorch build of CUDA 12.x (PyTorch publishes
    builds per CUDA release it chose, cu121, not one for every minor; the check compares majors)."""
    text = (
        "RuntimeError:\nThe detected CUDA version (12.1) mismatches the version that was used to compile\n"
        "PyTorch (11.8). Please make sure to use the same CUDA versions.\n"
    )
    (f,) = findings(from_text(text), "toolkit-torch-major-mismatch")
    assert f.title == "the CUDA toolkit that builds extensions is 12.1, PyTorch was built with CUDA 11.8"
    assert "Build with a CUDA 11.x toolkit" in f.remediation.summary
    assert "install a PyTorch build of CUDA 12.x" in f.remediation.summary


def test_a_pasted_cudnn_of_the_same_release_as_the_build_is_not_too_old():
    """TensorFlow's message with the runtime cuDNN 8.9.6 and a build said to be compiled with 8.9.6.50: the same
    major, minor and patch level (the fourth field is NVIDIA's build number), so not older; a runtime 8.9.4 is."""
    said = "Loaded runtime CuDNN library: {} but source was compiled with: 8.9.6.50.\n"
    assert findings(from_text(said.format("8.9.6")), "cudnn-too-old") == []
    (f,) = findings(from_text(said.format("8.9.4")), "cudnn-too-old")
    assert f.title.startswith("cuDNN 8.9.4 is older than")


# --- toolkit ----------------------------------------------------------------------------------------------

PATHS = "rtx4090-toolkit-paths-disagree"


def test_a_toolkit_named_only_by_the_usr_local_cuda_link_is_the_one_extensions_build_with():
    """tests/machines/rtx4090-toolkit-paths-disagree with no CUDA_HOME, no CUDA on PATH and /usr/local/cuda pointing
    at CUDA 11.8: torch.utils.cpp_extension then falls back to /usr/local/cuda (its _find_cuda_home), so extensions
    build with CUDA 11.8 while PyTorch 2.2.1 is built with CUDA 12.1: a major mismatch."""

    def link_only(data):
        del data["env"]["CUDA_HOME"]
        data["env"]["PATH"] = "/usr/bin:/bin"
        data["files"]["/usr/local/cuda"] = {"link": "/usr/local/cuda-11.8"}

    (f,) = findings(edited(PATHS, link_only), "toolkit-torch-major-mismatch")
    assert f.title == "CUDA extensions would build with CUDA 11.8 (/usr/local/cuda-11.8) but PyTorch was built with CUDA 12.1"


def test_when_usr_local_cuda_already_names_the_toolkit_only_the_shell_is_switched():
    """The same machine with /usr/local/cuda pointing at CUDA 12.5 (the nvcc on PATH) and CUDA_HOME still at 11.8:
    the paths disagree; the toolkit to use is 12.5, which the link already names, so nothing is re-pointed for
    everyone (no sudo switch-cuda); only this shell's CUDA_HOME is. The evidence names each toolkit's version."""

    def link_to_125(data):
        data["files"]["/usr/local/cuda"] = {"link": "/usr/local/cuda-12.5"}

    (f,) = findings(edited(PATHS, link_to_125), "cuda-paths-disagree")
    assert lines(f) == ['eval "$(gpudoctor switch-cuda 12.5 --shell)"  # CUDA_HOME, PATH and LD_LIBRARY_PATH of this shell']
    assert [(e.source, e.value) for e in f.evidence] == [
        ("toolkit:/usr/local/cuda-11.8", "11.8.89 via CUDA_HOME"),
        ("toolkit:/usr/local/cuda-12.5", "12.5.40 via /usr/local/cuda link, nvcc on PATH"),
    ]


def test_a_cuda_newer_than_a_repositorys_last_is_said_to_be_outside_its_range():
    """CentOS 7: NVIDIA's rhel7 repository packages CUDA 11.0 to 12.4 (compat_matrix/cuda_repos.toml, the last
    verified: NVIDIA's container README says images for these systems end with CUDA 12.4.0). CUDA 12.6 is not
    packaged there, and the reason names the range, not "11.0 and newer"."""
    from gpudoctor.checks.toolkit import toolkit_install

    base = facts_of("p100-torch112-static-cudnn-none-installed")
    centos7 = replace(
        base,
        platform={
            "distro": dataclasses.replace(
                base.platform.distro, id="centos", id_like="rhel fedora", version_id="7", pretty_name="CentOS Linux 7 (Core)"
            )
        },
    )
    install = toolkit_install(centos7, CTX.matrix, "12.6")
    assert install.commands == () and install.packaged is False
    assert (
        "CUDA 12.6 is not packaged for CentOS Linux 7 (Core) (NVIDIA's rhel7 repository: it has CUDA 11.0 to 12.4)"
        in install.says
    )


# --- windows ----------------------------------------------------------------------------------------------


def test_a_tensorflow_whose_build_info_says_cuda_still_needs_its_dlls():
    """tests/machines/windows-tf291-venv-no-cuda-dlls with TensorFlow's build_info read and saying it is a CUDA build:
    it loads cudart64_110.dll and cudnn64_8.dll (TensorFlow 2.5-2.10: CUDA 11.2, cuDNN 8.1, tested build
    configurations), and neither is on the DLL search path."""
    base = with_tf(facts_of("windows-tf291-venv-no-cuda-dlls"), is_cuda_build=True)
    (f,) = findings(base, "windows-dll-missing")
    assert f.title == "TensorFlow 2.9.1 cannot find cudart64_110.dll, cudnn64_8.dll on this Windows machine"


def test_switching_a_tcc_gpu_to_wddm_is_an_administrators():
    """tests/machines/windows-p100-tcc-geforce-wddm-wsl: changing a GPU's driver model (nvidia-smi -dm) needs an
    Administrator PowerShell (NVIDIA's nvidia-smi documentation: requires administrator privileges), and the
    command as printed for PowerShell says so."""
    (f,) = findings(facts_of("windows-p100-tcc-geforce-wddm-wsl"), "windows-tcc-mode")
    assert f.remediation.requires_root
    # The driver model changes at the next start (nvidia-smi(1), -dm: "Will take effect after reboot"): the restart
    # follows, as a program both Windows shells run.
    assert lines(f, "powershell") == ["nvidia-smi -g 0 -dm 0  # 0 = WDDM", "shutdown /r /t 0"]
    assert render_all(f.remediation.commands, "powershell") == [
        "# as Administrator, 0 is WDDM",
        "nvidia-smi -g 0 -dm 0",
        "# as Administrator",
        "shutdown /r /t 0",
    ]
