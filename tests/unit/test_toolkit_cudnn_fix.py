"""The toolkit and cuDNN fixes: one target for every toolkit finding, pinned cuDNN packages, complete steps.

Judged on recorded machines (tests/machines) and on variations of them, as a person pasting the
printed commands would meet them.
"""

from __future__ import annotations

import fnmatch
import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from gpudoctor.checks import Context, run_checks
from gpudoctor.checks.cudnn import Loaded, Need, cudnn_commands
from gpudoctor.checks.toolkit import switch_request, toolkit_fix, toolkit_target
from gpudoctor.cmdline import Cmd, EvalShell, Placeholder, PrependPath, render_all
from gpudoctor.doctor import diagnose
from gpudoctor.facts import Distro
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot
from gpudoctor.planner import prescribe
from gpudoctor.planner.remedy import KEEP
from gpudoctor.probes import run_probes
from tests.conftest import replay_host
from tests.machines import snapshot_file, snapshot_text

ROOT = Path(__file__).resolve().parents[2]
MACHINES = ROOT / "tests" / "machines"
CTX = Context()
TOOLKIT_CODES = (
    "cuda-link-dangling",
    "toolkit-newer-than-driver",
    "cuda-paths-disagree",
    "toolkit-torch-major-mismatch",
    "toolkit-arch-unsupported",
)
CUDNN_CODES = ("cudnn-missing", "cudnn-too-old", "cudnn-cuda-mismatch")


def facts_of(slug: str, change=None):
    snap = json.loads(snapshot_text(MACHINES / slug))
    if change:
        change(snap)
    return run_probes(replay_host(snap))


def findings_of(facts):
    findings, internal = run_checks(facts, ctx=CTX)
    assert not internal
    return findings


def with_distro(facts, distro_id: str, like: str):
    return replace(
        facts, platform=replace(facts.platform, distro=Distro(id=distro_id, id_like=like, version_id=None, pretty_name=None))
    )


# --- the toolkit: one decision ------------------------------------------------------------------


def test_every_toolkit_finding_on_the_paths_machine_names_the_same_toolkit():
    # The machine: four findings used to give four moves (link to 11.8, 12.5 --shell, 11.8, "12").
    facts = facts_of("rtx4090-toolkit-paths-disagree")
    findings = [f for f in findings_of(facts) if f.code in TOOLKIT_CODES]
    assert {f.code for f in findings} == {
        "cuda-link-dangling",
        "cuda-paths-disagree",
        "toolkit-newer-than-driver",
        "toolkit-torch-major-mismatch",
    }
    expected = (
        Cmd(("gpudoctor", "switch-cuda", "12.5"), root=True, note="re-points /usr/local/cuda for everyone"),
        EvalShell(("gpudoctor", "switch-cuda", "12.5"), note="CUDA_HOME, PATH and LD_LIBRARY_PATH of this shell"),
    )
    for f in findings:
        assert f.remediation.commands == expected, f.code
        assert f.remediation.component == "toolkit" and f.remediation.requires_root
    # torch is cu121: 12.5 has its major and runs on driver 535 (CUDA 12.2) through minor version
    # compatibility; 11.8 would leave extensions with a CUDA 11 nvcc.
    assert toolkit_target(facts, CTX).root == "/usr/local/cuda-12.5"
    plan = prescribe.build(findings)
    assert [s.component for s in plan.steps] == ["toolkit"] and plan.problems == ()


def test_the_active_toolkit_is_kept_only_when_it_qualifies():
    facts = facts_of("rtx4090-toolkit-paths-disagree")
    tks = facts.toolkits
    # Make 11.8 the active one (its nvcc on PATH): torch cu121 rules it out, so the newest that qualifies, 12.5.
    swapped = tuple(
        replace(
            t,
            found_via=tuple(v for v in t.found_via if v != "nvcc on PATH")
            + (("nvcc on PATH",) if t.root.endswith("11.8") else ()),
        )
        for t in tks.toolkits
    )
    active_118 = replace(facts, toolkits=replace(tks, toolkits=swapped))
    assert toolkit_target(active_118, CTX).root == "/usr/local/cuda-12.5"
    # Without torch, the active 11.8 qualifies and is kept (the least change).
    from gpudoctor.probed import Absent

    no_torch = replace(active_118, frameworks=replace(active_118.frameworks, torch=Absent("no torch", "dist:torch")))
    assert toolkit_target(no_torch, CTX).root == "/usr/local/cuda-11.8"


def test_a_driver_that_cannot_run_the_only_toolkit_gets_an_install_of_its_own_cuda():
    # Quadro P2000, driver 525 (CUDA 12.0), only CUDA 13.0 installed (newer than the driver, no sm_61).
    facts = facts_of("quadro-p2000-driver525-cuda13-toolkit")
    assert toolkit_target(facts, CTX) is None
    fix = toolkit_fix(facts, CTX)
    assert fix.installs and fix.version == "12.0"
    # Ubuntu 22.04: NVIDIA's ubuntu2204 repository has 12.0 (cuda_repos.toml); its cuda-keyring sets it up.
    assert fix.commands == (
        Cmd(("wget", "https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64/cuda-keyring_1.1-1_all.deb")),
        Cmd(("dpkg", "-i", "cuda-keyring_1.1-1_all.deb"), root=True, note="adds NVIDIA's CUDA repository and its signing key"),
        Cmd(("apt-get", "update"), root=True),
        Cmd(("apt-get", "install", "-y", "cuda-toolkit-12-0"), root=True, note="NVIDIA's ubuntu2204 repository"),
        Cmd(("gpudoctor", "switch-cuda", "12.0"), root=True, note="re-points /usr/local/cuda for everyone"),
        EvalShell(("gpudoctor", "switch-cuda", "12.0"), note="CUDA_HOME, PATH and LD_LIBRARY_PATH of this shell"),
    )
    codes = {f.code: f for f in findings_of(facts) if f.code in TOOLKIT_CODES}
    assert set(codes) == {"toolkit-newer-than-driver", "toolkit-arch-unsupported"}
    assert len({f.remediation.commands for f in codes.values()}) == 1


def test_torch_major_mismatch_installs_torchs_own_cuda_with_the_distributions_package_manager():
    # Only CUDA 11.8 installed and torch cu121: install CUDA 12.1, named exactly (never "12").
    facts = facts_of("rtx4090-nvcc118-torch-cu121")
    assert toolkit_fix(facts, CTX).version == "12.1"
    rhel = toolkit_fix(with_distro(facts, "rocky", "rhel centos fedora"), CTX)
    assert rhel.commands[0] == Cmd(("dnf", "install", "-y", "cuda-toolkit-12-1"), root=True, note="NVIDIA's CUDA repository")
    suse = toolkit_fix(with_distro(facts, "opensuse-leap", "suse opensuse"), CTX)
    assert suse.commands[0].argv == ("zypper", "install", "-y", "cuda-toolkit-12-1")
    # No pinned package for Arch: no command that would install another version; the summary says what.
    arch = toolkit_fix(with_distro(facts, "arch", ""), CTX)
    assert arch.commands == () and "Install CUDA 12.1" in arch.says()


def test_switch_request_names_the_exact_toolkit_when_two_share_a_minor():
    facts = facts_of("rtx4090-toolkit-paths-disagree")
    tk = next(t for t in facts.toolkits.toolkits if t.root.endswith("12.5"))
    older = replace(tk, root="/usr/local/cuda-12.5.0", version="12.5.0", found_via=())
    two = replace(facts, toolkits=replace(facts.toolkits, toolkits=facts.toolkits.toolkits + (older,)))
    assert switch_request(two, tk) == "12.5"  # 12.5.40 is the newest 12.5: "12.5" picks it
    assert switch_request(two, older) == "12.5.0"  # "12.5" would pick 12.5.40


# --- cuDNN: pinned to the CUDA major in use ------------------------------------------------------


# TensorFlow 2.11's cuDNN need (compat_matrix/tensorflow.toml: cuDNN 8.1, CUDA 11) for a TensorFlow that is not
# pip's (one pip installed gets NVIDIA's wheels instead: tests/unit/test_prescription_kinds.py, issue 27 kind 1).
TF211_SYSTEM = Need("TensorFlow 2.11.0", 11, 8, "8.1", (), (), None, key="tensorflow")


def test_tf211_without_cudnn8_gets_the_cuda11_build_pinned_by_apt_glob():
    facts = facts_of("rtx3060-tf211-cuda12-only")
    (f,) = [f for f in findings_of(facts) if f.code == "cudnn-missing"]
    assert [c.words[:3] for c in f.remediation.commands if isinstance(c, Cmd)] == [
        ("/usr/bin/python3", "-m", "pip"),
        ("/usr/bin/python3", "-c", KEEP["bashrc"]),
    ]  # pip's TensorFlow: the wheel, no system package; its directory kept for new shells
    commands, _ = cudnn_commands(facts, TF211_SYSTEM, None)
    assert render_all(commands) == [
        "sudo apt-get update",
        "# NVIDIA’s CUDA repository: the newest cuDNN 8 built for CUDA 11",
        "sudo apt-get install -y 'libcudnn8=8.*-1+cuda11.*'",
        "# keeps upgrades from replacing it with a build for another CUDA",
        "sudo apt-mark hold libcudnn8",
    ]


@pytest.mark.parametrize(
    "version, matches",
    [
        ("8.9.7.29-1+cuda11.8", True),  # NVIDIA's repository: the last cuDNN 8, CUDA 11.8 build
        ("8.1.1.33-1+cuda11.2", True),
        ("8.9.7.29-1+cuda12.2", False),  # the CUDA 12 build of the same release
        ("8.0.5.39-1+cuda10.2", False),
    ],
)
def test_the_apt_version_glob_selects_only_builds_for_the_cuda_major(version, matches):
    # apt matches `pkg=VERSION` with fnmatch(3) (apt-pkg/versionmatch.cc); '*', '.', '+' and '-' mean
    # the same to Python's fnmatchcase for these strings.
    assert fnmatch.fnmatchcase(version, "8.*-1+cuda11.*") is matches


def test_other_families_list_the_builds_and_leave_the_choice_as_a_placeholder():
    facts = with_distro(facts_of("rtx3060-tf211-cuda12-only"), "rocky", "rhel centos fedora")
    (listing, install), _ = cudnn_commands(facts, TF211_SYSTEM, None)
    assert listing == Cmd(
        ("dnf", "--showduplicates", "list", "libcudnn8"), note="the builds: choose one whose version ends in cuda11.x"
    )
    assert install.argv == ("dnf", "install", "-y", Placeholder("libcudnn8-for-cuda11")) and install.root


def test_cudnn9_is_one_package_per_cuda_major():
    need = Need("JAX 0.4.38", 12, 9, "9.1", (), (), None)
    facts = facts_of("rtx3060-tf211-cuda12-only")
    commands, _ = cudnn_commands(facts, need, None)
    assert commands[-1] == Cmd(("apt-get", "install", "-y", "libcudnn9-cuda-12"), root=True, note="NVIDIA's CUDA repository")


def test_a_too_old_copy_on_ld_library_path_is_shadowed_by_the_new_one():
    facts = facts_of("rtx3060-tf211-cudnn80-too-old")
    (f,) = [f for f in findings_of(facts) if f.code == "cudnn-too-old"]
    # pip's TensorFlow: NVIDIA's wheel, its directory ahead of the old copy (issue 27, kind 1)
    assert f.remediation.commands[-2] == PrependPath(
        "LD_LIBRARY_PATH", ("/usr/lib/python3/dist-packages/nvidia/cudnn/lib",), note="NVIDIA's wheels first, the rest kept"
    )
    keep = 'export LD_LIBRARY_PATH=/usr/lib/python3/dist-packages/nvidia/cudnn/lib"${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"'
    assert f.remediation.commands[-1].argv == ("/usr/bin/python3", "-c", KEEP["bashrc"], keep)
    old = Loaded("/usr/local/cuda-11.8/lib64/libcudnn.so.8", "8.0.5", None, "LD_LIBRARY_PATH")
    commands, _ = cudnn_commands(facts, TF211_SYSTEM, old)  # a TensorFlow on the system's cuDNN
    assert commands[-2] == PrependPath(
        "LD_LIBRARY_PATH", ("/usr/lib/x86_64-linux-gnu",), note="the new cuDNN ahead of the old copy, the rest kept"
    )  # the CUDA 11.8 libraries TF needs stay on the path
    keep = 'export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu"${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"'
    assert commands[-1].argv == ("/usr/bin/python3", "-c", KEEP["bashrc"], keep)


def test_a_wheel_of_the_wrong_major_is_replaced_in_the_same_step():
    facts = facts_of("rtx4090-torch-cu121-with-cudnn-cu11-wheel")
    findings = [f for f in findings_of(facts) if f.code in CUDNN_CODES]
    assert {f.code for f in findings} == {"cudnn-cuda-mismatch", "cudnn-too-old"}
    step = prescribe.build(findings).step("cudnn")
    assert [c.words for c in step.commands] == [
        ("/usr/bin/python3", "-m", "pip", "uninstall", "-y", "nvidia-cudnn-cu11"),
        ("/usr/bin/python3", "-m", "pip", "install", "nvidia-cudnn-cu12==8.9.2.26"),  # torch 2.2.1 cu121's own pin
    ]


def test_removing_the_wrong_wheel_reinstalls_the_right_one_whose_files_it_shares():
    facts = facts_of("rtx4090-torch-cu121-with-cudnn-cu11-wheel")
    wheels = dict(facts.frameworks.nvidia_wheels, **{"nvidia-cudnn-cu12": "8.9.2.26"})
    both = replace(facts, frameworks=replace(facts.frameworks, nvidia_wheels=wheels))
    need = Need("PyTorch 2.2.1+cu121", 12, 8, "8.9.2.26", (), (), "nvidia-cudnn-cu12==8.9.2.26")
    loaded = Loaded("/usr/lib/python3/dist-packages/nvidia/cudnn/lib/libcudnn.so.8", "8.5.0.96", 11, "wheel")
    commands, _ = cudnn_commands(both, need, loaded)
    assert [c.words[3:] for c in commands] == [
        ("uninstall", "-y", "nvidia-cudnn-cu11"),
        ("install", "--force-reinstall", "--no-deps", "nvidia-cudnn-cu12==8.9.2.26"),
    ]


# --- over every recorded machine -------------------------------------------------------------------

SLUGS = sorted(p.parent.name for p in MACHINES.glob("*/expected.toml"))


@pytest.mark.parametrize("slug", SLUGS)
def test_toolkit_and_cudnn_steps_hold_together(slug):
    report = diagnose(ReplayHost(load_snapshot(str(snapshot_file(MACHINES / slug)))))
    mine = [f for f in report.findings if f.code in TOOLKIT_CODES + CUDNN_CODES]
    plan = prescribe.build(mine)
    assert plan.problems == ()
    for f in mine:
        r = f.remediation
        if f.code == "toolkit-torch-major-mismatch" and r.component == "torch":
            r = r.alternative  # PyTorch's side first only where the toolkit has no move: the toolkit side is the alternative
        # A cuDNN that is present but off a conda environment's loader path is fixed by the environment's own
        # variable, one step with the CUDA libraries' (checks.frameworks.env_lib_remediation).
        assert (
            r.component == ("toolkit" if f.code in TOOLKIT_CODES else "cudnn")
            or (
                f.code in CUDNN_CODES
                and r.component == "environment"
                and r.commands[0].words[:4] == ("conda", "env", "config", "vars")
            )
            # pip's TensorFlow before [and-cuda]: its cuDNN wheel with its CUDA libraries' wheels, one step
            or (f.code in CUDNN_CODES and r.component == "toolkit" and r.commands[0].words[2:4] == ("pip", "install"))
        )
        for c in f.remediation.commands:
            words = c.argv if isinstance(c, EvalShell) else c.words if isinstance(c, Cmd) else ()
            if words[:2] == ("gpudoctor", "switch-cuda"):
                assert re.fullmatch(r"\d+\.\d+(\.\d+)*", words[2]), (
                    f"{slug}: switch-cuda names an exact version, not {words[2]!r}"
                )
            assert (
                "libcudnn8" not in words
                or any("=" in str(w) or isinstance(w, Placeholder) for w in words)
                or words[:2] in (("apt-mark", "hold"), ("dnf", "--showduplicates"), ("zypper", "search"))
            ), f"{slug}: an unpinned cuDNN install"


def test_a_torch_build_that_carries_cudnn_is_not_called_missing_when_its_lib_dir_was_not_listed():
    # tests/real/a100-torch1101-cu102-no-sm80: torch 1.10.1 (cu102, cuDNN 7.6.5 in torch/lib, no
    # nvidia-cudnn wheel of that era); the pasted report lists no torch/lib, so nothing says it is missing.
    report = diagnose(ReplayHost(load_snapshot(str(ROOT / "tests" / "real" / "a100-torch1101-cu102-no-sm80" / "snapshot.json"))))
    assert "cudnn-missing" not in {f.code for f in report.findings}
