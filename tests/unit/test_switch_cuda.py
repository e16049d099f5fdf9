"""switch-cuda on temporary roots holding real toolkit trees and real links.

The trees are built from the real captures in tests/fixtures: the CUDA 12.8.2 version.json, and
pip-assembled trees (like this machine's /usr/local/cuda-13.0) whose nvcc prints a real
`nvcc --version` capture and whose dist-info names a real wheel. Nothing on the filesystem is mocked.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from gpudoctor import switch_cuda as sc
from gpudoctor.checks import Context
from gpudoctor.errors import UnsafeOperation, UsageError
from gpudoctor.facts import Distro
from gpudoctor.host.live import LiveHost
from gpudoctor.probes import ProbeOptions, run_probes
from gpudoctor.probes.toolkits import probe_toolkits

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
VERSION_JSON = FIXTURES / "cuda-version-files" / "version.json_cuda-12.8.2_windows-driver-572.61.json"
NVCC = FIXTURES / "nvcc"

# name -> how the tree states its version. Versions are the captures' own.
TREES = {
    "cuda-12.8": dict(version_json=True, cudart="libcudart.so.12"),
    "cuda-11.8": dict(
        dist_info="nvidia_cuda_nvcc_cu11-11.8.89.dist-info", nvcc="nvcc-version_cuda-11.8.89.txt", cudart="libcudart.so.11.0"
    ),
    "cuda-12.5": dict(
        dist_info="nvidia_cuda_nvcc_cu12-12.5.40.dist-info", nvcc="nvcc-version_cuda-12.5.40.txt", cudart="libcudart.so.12"
    ),
    "cuda-13.0": dict(
        dist_info="nvidia_cuda_nvcc-13.0.88.dist-info",
        nvcc="nvcc-version_cuda-13.0.88_pip-assembled-toolkit.txt",
        cudart="libcudart.so.13",
        lib64_link=True,
    ),
}
VERSIONS = {"cuda-12.8": "12.8.2", "cuda-11.8": "11.8.89", "cuda-12.5": "12.5.40", "cuda-13.0": "13.0.88"}
UBUNTU = 'NAME="Ubuntu"\nVERSION_ID="22.04"\nID=ubuntu\nID_LIKE=debian\nPRETTY_NAME="Ubuntu 22.04.4 LTS"\n'


def make_toolkit(directory: Path, spec: dict) -> Path:
    """A real toolkit tree: bin/nvcc, include/cuda_runtime.h, libcudart, and its version statement."""
    (directory / "bin").mkdir(parents=True)
    (directory / "include").mkdir()
    (directory / "include" / "cuda_runtime.h").write_text("/* CUDA runtime API (test tree) */\n")
    if spec.get("version_json"):
        shutil.copyfile(VERSION_JSON, directory / "version.json")
    if spec.get("dist_info"):
        (directory / "dist-info" / spec["dist_info"]).mkdir(parents=True)
    nvcc = directory / "bin" / "nvcc"
    if spec.get("nvcc"):
        shutil.copyfile(NVCC / spec["nvcc"], directory / "nvcc-version.txt")
        nvcc.write_text('#!/bin/sh\nexec cat "$(dirname "$0")/../nvcc-version.txt"\n')
    else:
        nvcc.write_text("#!/bin/sh\necho 'test tree: no compiler here' >&2\nexit 1\n")
    nvcc.chmod(0o755)
    libdir = directory / "lib" if spec.get("lib64_link") else directory / "lib64"
    libdir.mkdir()
    (libdir / spec["cudart"]).write_bytes(b"\x7fELF test stand-in")
    if spec.get("lib64_link"):
        (directory / "lib64").symlink_to("lib")  # as pip-assembled trees do
    return directory


def make_machine(tmp_path: Path, trees=("cuda-11.8", "cuda-12.8", "cuda-13.0"), link_to: str | None = "cuda-12.8") -> Path:
    """A temporary root with toolkits in /usr/local and /usr/local/cuda linked (absolute, as installers do)."""
    root = tmp_path / "root"
    local = root / "usr" / "local"
    local.mkdir(parents=True)
    (root / "etc").mkdir()
    (root / "etc" / "os-release").write_text(UBUNTU)
    for name in trees:
        make_toolkit(local / name, TREES[name])
    if link_to:
        (local / "cuda").symlink_to(local / link_to)
    return root


def host_for(root: Path, env: dict | None = None) -> LiveHost:
    return LiveHost(root=str(root), environ=env if env is not None else {"PATH": "/usr/bin:/bin"})


def facts_for(root: Path, env: dict | None = None):
    return run_probes(host_for(root, env), ProbeOptions(probe_timeout_s=5.0, deadline_s=20.0))


def link_of(root: Path) -> str:
    return os.readlink(root / "usr" / "local" / "cuda")


def entries(root: Path) -> set[str]:
    return set(os.listdir(root / "usr" / "local"))


# --- the trees probe as the real ones would ------------------------------------------------


def test_the_test_trees_probe_with_their_captured_versions(tmp_path):
    root = make_machine(tmp_path, trees=tuple(TREES))
    tks = probe_toolkits(host_for(root), 5.0)
    assert {t.root: (t.version, t.version_source, t.complete) for t in tks.toolkits} == {
        "/usr/local/cuda-11.8": ("11.8.89", "dist-info", True),
        "/usr/local/cuda-12.5": ("12.5.40", "dist-info", True),
        "/usr/local/cuda-12.8": ("12.8.2", "version.json", True),
        "/usr/local/cuda-13.0": ("13.0.88", "dist-info", True),
    }
    assert (tks.link.kind, tks.link.target, tks.link.resolved) == ("link", "/usr/local/cuda-12.8", "/usr/local/cuda-12.8")


# --- version matching -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "requested, root",
    [
        ("11.8", "/usr/local/cuda-11.8"),
        ("11", "/usr/local/cuda-11.8"),
        ("11.8.89", "/usr/local/cuda-11.8"),
        ("12", "/usr/local/cuda-12.8"),  # the newest 12.x
        ("12.5", "/usr/local/cuda-12.5"),
        ("12.8.2", "/usr/local/cuda-12.8"),
        ("13", "/usr/local/cuda-13.0"),
        ("13.0", "/usr/local/cuda-13.0"),
        ("cuda-11.8", "/usr/local/cuda-11.8"),
        ("v13", "/usr/local/cuda-13.0"),
        ("/usr/local/cuda-12.5", "/usr/local/cuda-12.5"),
        ("/usr/local/cuda-12.5/", "/usr/local/cuda-12.5"),
        ("12.8.3", None),
        ("12.4", None),
        ("12.8.90", None),  # a component's version (cudart), not the toolkit's
        ("1", None),
        ("10.2", None),
        ("/usr/local/cuda-10.2", None),
    ],
)
def test_version_matching_as_people_type_it(tmp_path, requested, root):
    machine = make_machine(tmp_path, trees=tuple(TREES))
    found = sc.matching_toolkits(probe_toolkits(host_for(machine), 5.0).toolkits, requested)
    assert (found[0].root if found else None) == root


def test_a_major_version_skips_an_incomplete_newer_toolkit_and_says_so(tmp_path):
    root = make_machine(tmp_path, trees=tuple(TREES))
    (root / "usr/local/cuda-12.8/bin/nvcc").unlink()
    plan = sc.plan_switch(facts_for(root), "12", sc.SYSTEM, is_root=True)
    assert plan.refusal is None and plan.target.root == "/usr/local/cuda-12.5"
    assert plan.notes == ("skipped the incomplete toolkit at /usr/local/cuda-12.8 (12.8.2)",)


@pytest.mark.parametrize("bad", ["abc", "12.x", "", "11.8.89.1", "latest"])
def test_a_malformed_version_is_a_usage_error(bad):
    with pytest.raises(UsageError):
        sc.parse_request(bad)


# --- the plan and its refusals ----------------------------------------------------------------


def test_plan_re_points_the_link_by_rename(tmp_path):
    plan = sc.plan_switch(facts_for(make_machine(tmp_path)), "11.8", sc.SYSTEM, is_root=True)
    assert (plan.method, plan.refusal, plan.previous, plan.target.version) == ("rename", None, "/usr/local/cuda-12.8", "11.8.89")
    assert plan.commands() == ("ln -sn /usr/local/cuda-11.8 /usr/local/cuda.new", "mv -T /usr/local/cuda.new /usr/local/cuda")
    assert plan.undo() == ("gpudoctor switch-cuda /usr/local/cuda-12.8",)


def test_switching_to_the_active_toolkit_is_nothing_to_do_even_without_root(tmp_path):
    plan = sc.plan_switch(facts_for(make_machine(tmp_path)), "12.8", sc.SYSTEM, is_root=False)
    assert (plan.method, plan.refusal) == ("none", None)


def test_refuses_without_root_and_prints_the_exact_sudo_command(tmp_path):
    argv = ["/opt/venv/bin/gpudoctor", "switch-cuda", "11.8"]
    plan = sc.plan_switch(facts_for(make_machine(tmp_path)), "11.8", sc.SYSTEM, is_root=False, rerun_argv=argv)
    assert plan.refusal == "changing /usr/local/cuda needs root"
    assert "  sudo /opt/venv/bin/gpudoctor switch-cuda 11.8" in plan.manual
    assert '  eval "$(gpudoctor switch-cuda 11.8 --shell)"' in plan.manual


def test_refuses_when_usr_local_cuda_is_a_real_directory(tmp_path):
    root = make_machine(tmp_path, trees=("cuda-11.8",), link_to=None)
    make_toolkit(root / "usr/local/cuda", TREES["cuda-12.8"])  # a runfile install straight into /usr/local/cuda
    plan = sc.plan_switch(facts_for(root), "11.8", sc.SYSTEM, is_root=True)
    assert plan.refusal == "/usr/local/cuda is a real directory; gpudoctor never deletes or moves what it did not create"
    assert plan.manual == (
        "For this shell only (no root, nothing moved):",
        '  eval "$(gpudoctor switch-cuda 11.8 --shell)"',
        "Or move it aside yourself, then link (atomically):",
        "  sudo mv -T /usr/local/cuda /usr/local/cuda-12.8.2",
        "  sudo ln -sn /usr/local/cuda-11.8 /usr/local/cuda",
    )
    # The shell scope is still fine: nothing is moved.
    assert sc.plan_switch(facts_for(root), "11.8", sc.SHELL).refusal is None


@pytest.mark.parametrize(
    "tree, remove, missing",
    [
        ("cuda-11.8", "bin/nvcc", "missing bin/nvcc"),
        # Without headers only a version file makes a directory a toolkit: the 12.8 tree has one.
        ("cuda-12.8", "include/cuda_runtime.h", "missing include/cuda_runtime.h"),
        ("cuda-11.8", "lib64/libcudart.so.11.0", "missing libcudart.so"),
    ],
)
def test_refuses_an_incomplete_target_in_both_scopes(tmp_path, tree, remove, missing):
    root = make_machine(tmp_path, link_to="cuda-13.0")
    (root / "usr/local" / tree / remove).unlink()
    facts = facts_for(root)
    for scope in (sc.SYSTEM, sc.SHELL):
        plan = sc.plan_switch(facts, VERSIONS[tree], scope, is_root=True)
        assert plan.refusal == f"the CUDA {VERSIONS[tree]} toolkit at /usr/local/{tree} is incomplete ({missing})"
        assert plan.manual == ("Reinstall it, or choose another: gpudoctor switch-cuda --list",)


def _on(facts, distro: Distro, machine: str = "x86_64"):
    """The facts as if probed on `distro` (os-release) and `machine` (uname -m)."""
    return replace(facts, platform=replace(facts.platform, distro=distro, machine=machine))


def test_refuses_a_version_that_is_not_installed_and_says_how_to_install_it(tmp_path):
    facts = facts_for(make_machine(tmp_path))
    # The temporary root's os-release: Ubuntu 22.04; x86_64, whose NVIDIA repository rows the matrix holds.
    plan = sc.plan_switch(_on(facts, facts.platform.distro), "12.4", sc.SYSTEM, is_root=True)
    assert plan.refusal == (
        "CUDA 12.4 is not installed (installed: 11.8.89 (/usr/local/cuda-11.8), 12.8.2 (/usr/local/cuda-12.8), "
        "13.0.88 (/usr/local/cuda-13.0))"
    )
    # The same commands the doctor prints (checks.toolkit.toolkit_install), the repository set-up first.
    assert plan.manual[:9] == (
        "Install it:",
        "  wget https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64/cuda-keyring_1.1-1_all.deb",
        "  # adds NVIDIA\u2019s CUDA repository and its signing key",
        "  sudo dpkg -i cuda-keyring_1.1-1_all.deb",
        "  sudo apt-get update",
        "  # NVIDIA\u2019s ubuntu2204 repository",
        "  sudo apt-get install -y cuda-toolkit-12-4",
        "Or into a conda environment:",
        "  conda install -c conda-forge cuda-toolkit cuda-version=12.4",
    )


UBUNTU_2204 = Distro("ubuntu", "22.04", "Ubuntu 22.04.4 LTS", "debian")


@pytest.mark.parametrize(
    "distro, requested, line",
    [
        # RHEL 9 rebuilds use NVIDIA's rhel9 repository, which has 12.0 and newer.
        (
            Distro("rocky", "9.3", None, "rhel centos fedora"),
            "12.4",
            "  sudo dnf install -y cuda-toolkit-12-4  # NVIDIA's rhel9 repository",
        ),
        # No row for Fedora 39: the command stands, with a caveat.
        (Distro("fedora", "39"), "12.6", "  sudo dnf install -y cuda-toolkit-12-6  # NVIDIA's CUDA repository"),
        (Distro("fedora", "39"), "12.6", "Check that NVIDIA's repository for fedora 39 has cuda-toolkit-12-6."),
        # A known repository whose toolkits are not known: the package, and the caveat.
        (
            Distro("opensuse-leap", "15.5", None, "suse opensuse"),
            "12.4",
            "  sudo zypper install -y cuda-toolkit-12-4  # NVIDIA's opensuse15 repository",
        ),
        (Distro("debian", "12"), "11.8", "  sudo apt-get install -y cuda-toolkit-11-8  # NVIDIA's debian12 repository"),
        (Distro("debian", "12"), "11.8", "Check that NVIDIA's repository for debian 12 has cuda-toolkit-11-8."),
        (Distro("debian", "12"), "11.8", "  conda install -c nvidia/label/cuda-11.8.0 cuda-toolkit"),
        # No NVIDIA package on Arch: the runfile.
        (
            Distro("arch"),
            "12.4",
            "Install it with NVIDIA's CUDA 12.4 runfile from the CUDA Toolkit Archive "
            "(https://developer.nvidia.com/cuda-toolkit-archive), toolkit only: "
            "`sudo sh cuda_12.4.<update>_<driver>_linux.run --toolkit --silent` installs /usr/local/cuda-12.4.",
        ),
        # Ubuntu 22.04's repository starts at 11.7: no package for 11.3, the runfile or conda instead.
        (
            UBUNTU_2204,
            "11.3",
            "CUDA 11.3 is not packaged for Ubuntu 22.04.4 LTS (NVIDIA's ubuntu2204 repository: it has CUDA 11.7 "
            "and newer). Instead: NVIDIA's CUDA 11.3 runfile from the CUDA Toolkit Archive (https://developer.nvidia.com/cuda-toolkit-archive), "
            "toolkit only: `sudo sh cuda_11.3.<update>_<driver>_linux.run --toolkit --silent` installs /usr/local/cuda-11.3; "
            "or inside a conda environment: `conda install -c nvidia/label/cuda-11.3.0 cuda-toolkit`.",
        ),
        (
            UBUNTU_2204,
            "12",
            "Name the minor version to install (e.g. gpudoctor switch-cuda 12.<minor>): NVIDIA's packages are "
            "cuda-toolkit-12-<minor>, and 12.x toolkits differ in the GPUs and drivers they support.",
        ),
    ],
)
def test_install_lines_follow_the_distribution(tmp_path, distro, requested, line):
    facts = _on(facts_for(make_machine(tmp_path)), distro)
    assert line in _paired(sc.install_lines(facts, requested))


def _paired(lines):
    """Each command with its note (printed on a line of its own before it) after it, as `command  # note`."""
    out, note = [], None
    for line in lines:
        if line.strip().startswith("# "):
            note = line.strip()[2:].replace("\u2019", "'")
            continue
        out.append(line + (f"  # {note}" if note else ""))
        note = None
    return out


def test_no_package_line_where_the_repository_lacks_the_version(tmp_path):
    facts = _on(facts_for(make_machine(tmp_path)), UBUNTU_2204)
    assert not any("apt-get" in line for line in sc.install_lines(facts, "11.3"))
    assert any("apt-get install -y cuda-toolkit-11-7" in line for line in sc.install_lines(facts, "11.7"))
    # Another architecture: the x86_64 rows say nothing about it, so no set-up step and a caveat.
    arm = _paired(sc.install_lines(_on(facts, UBUNTU_2204, "aarch64"), "11.3"))
    assert "  sudo apt-get install -y cuda-toolkit-11-3  # NVIDIA's CUDA repository" in arm
    assert not any("cuda-keyring" in line for line in arm)


def test_alternatives_plan_refuses_a_target_that_is_not_one_of_its_choices(tmp_path):
    facts = facts_for(make_machine(tmp_path))
    managed = replace(facts.toolkits.link, target="/etc/alternatives/cuda", managed_by_alternatives=True)
    facts = replace(facts, toolkits=replace(facts.toolkits, link=managed))
    ok = sc.plan_switch(facts, "11.8", sc.SYSTEM, is_root=True, alternatives=("/usr/local/cuda-11.8", "/usr/local/cuda-12.8"))
    assert (ok.method, ok.alternatives_name, ok.refusal) == ("alternatives", "cuda", None)
    assert ok.commands() == ("update-alternatives --set cuda /usr/local/cuda-11.8",)
    assert ok.undo() == ("update-alternatives --set cuda /usr/local/cuda-12.8",)
    no = sc.plan_switch(facts, "13", sc.SYSTEM, is_root=True, alternatives=("/usr/local/cuda-11.8", "/usr/local/cuda-12.8"))
    assert no.refusal.endswith("and /usr/local/cuda-13.0 is not one of its choices")
    assert "  sudo update-alternatives --install /usr/local/cuda cuda /usr/local/cuda-13.0 10" in no.manual


# --- applying: atomic, locked, nothing left behind ------------------------------------------------


def switch(root: Path, requested: str, **kw):
    host = host_for(root)
    plan = sc.plan_switch(
        facts_for(root),
        requested,
        sc.SYSTEM,
        is_root=True,
        alternatives=sc.query_alternatives(host.root, probe_toolkits(host, 5.0).link),
    )
    assert plan.refusal is None, plan.refusal
    sc.apply_switch(plan, host.root, **kw)
    return plan, sc.verify_switch(plan, host, 5.0)


def test_switch_re_points_the_link_and_leaves_nothing_behind(tmp_path):
    root = make_machine(tmp_path)
    before = entries(root)
    plan, after = switch(root, "11.8")
    assert link_of(root) == str(root / "usr/local/cuda-11.8")
    assert (after.link.resolved, after.by_root(after.link.resolved).version) == ("/usr/local/cuda-11.8", "11.8.89")
    assert entries(root) == before | {sc.LOCK_NAME}  # the lock file stays, by design; no temporary link
    switch(root, "13")
    assert link_of(root) == str(root / "usr/local/cuda-13.0")
    assert entries(root) == before | {sc.LOCK_NAME}


def test_switch_creates_a_missing_link_and_undo_removes_it(tmp_path):
    root = make_machine(tmp_path, link_to=None)
    plan, _ = switch(root, "12")
    assert link_of(root) == str(root / "usr/local/cuda-12.8")
    assert plan.undo() == ("rm /usr/local/cuda",)


def test_a_dangling_link_is_re_pointed_and_undo_restores_that_same_link(tmp_path):
    root = make_machine(tmp_path, link_to=None)
    (root / "usr/local/cuda").symlink_to(root / "usr/local/cuda-11.0")  # its toolkit was uninstalled
    plan, _ = switch(root, "12.8")
    assert link_of(root) == str(root / "usr/local/cuda-12.8")
    assert plan.undo() == ("ln -sn /usr/local/cuda-11.0 /usr/local/cuda.new && mv -T /usr/local/cuda.new /usr/local/cuda",)


def test_a_link_changed_after_planning_is_left_alone(tmp_path):
    root = make_machine(tmp_path)
    plan = sc.plan_switch(facts_for(root), "11.8", sc.SYSTEM, is_root=True)
    os.replace(_temp_link(root, root / "usr/local/cuda-13.0"), root / "usr/local/cuda")  # someone else switched
    with pytest.raises(UnsafeOperation, match="changed since the plan was made"):
        sc.apply_switch(plan, str(root))
    assert link_of(root) == str(root / "usr/local/cuda-13.0")


def _temp_link(root: Path, target: Path) -> Path:
    path = root / "usr/local/someone-elses-new-link"
    path.symlink_to(target)
    return path


def test_a_held_lock_stops_a_second_switch(tmp_path):
    root = make_machine(tmp_path)
    plan = sc.plan_switch(facts_for(root), "11.8", sc.SYSTEM, is_root=True)
    with open(root / "usr/local" / sc.LOCK_NAME, "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        with pytest.raises(UnsafeOperation, match="another switch-cuda is changing /usr/local/cuda"):
            sc.apply_switch(plan, str(root), lock_timeout_s=0.3)
        assert link_of(root) == str(root / "usr/local/cuda-12.8")
    sc.apply_switch(plan, str(root))  # released: it goes through
    assert link_of(root) == str(root / "usr/local/cuda-11.8")


def test_leftovers_of_a_killed_switch_are_removed_and_nothing_else(tmp_path):
    root = make_machine(tmp_path)
    local = root / "usr/local"
    (local / f"{sc.TEMP_PREFIX}4242-deadbeef").symlink_to(local / "cuda-13.0")
    (local / ".cuda.notes").write_text("an admin's file")
    (local / "cuda-latest").symlink_to(local / "cuda-13.0")  # someone's own link
    switch(root, "11.8")
    assert {n for n in entries(root) if n.startswith(".")} == {".cuda.notes", sc.LOCK_NAME}
    assert "cuda-latest" in entries(root)


# --- update-alternatives, for real, inside the temporary root -------------------------------------

UA = shutil.which("update-alternatives")


def ua(root: Path, *args: str) -> subprocess.CompletedProcess:
    flags = [
        "--altdir",
        str(root / "etc/alternatives"),
        "--admindir",
        str(root / "var/lib/dpkg/alternatives"),
        "--log",
        str(root / "var/log/alternatives.log"),
    ]
    return subprocess.run([UA, *flags, *args], capture_output=True, text=True, check=True)


def alternatives_machine(tmp_path: Path) -> Path:
    """As NVIDIA's .deb packages leave it: /usr/local/cuda -> /etc/alternatives/cuda -> the highest priority."""
    root = make_machine(tmp_path, link_to=None)
    for d in ("etc/alternatives", "var/lib/dpkg/alternatives", "var/log"):
        (root / d).mkdir(parents=True, exist_ok=True)
    for name, priority in (("cuda-12.8", "128"), ("cuda-11.8", "118")):
        ua(root, "--install", str(root / "usr/local/cuda"), "cuda", str(root / "usr/local" / name), priority)
    return root


@pytest.mark.skipif(
    UA is None or "Debian" not in subprocess.run([UA, "--version"], capture_output=True, text=True).stdout,
    reason="needs Debian's update-alternatives",
)
class TestAlternatives:
    def test_switch_goes_through_update_alternatives(self, tmp_path):
        root = alternatives_machine(tmp_path)
        assert link_of(root) == str(root / "etc/alternatives/cuda")
        assert probe_toolkits(host_for(root), 5.0).link.managed_by_alternatives
        plan, after = switch(root, "11.8")
        assert plan.method == "alternatives"
        assert link_of(root) == str(root / "etc/alternatives/cuda")  # the master link is left to its owner
        assert os.readlink(root / "etc/alternatives/cuda") == str(root / "usr/local/cuda-11.8")
        query = ua(root, "--query", "cuda").stdout
        assert "Status: manual" in query and f"Value: {root}/usr/local/cuda-11.8" in query
        assert after.link.resolved == "/usr/local/cuda-11.8"
        assert not [n for n in entries(root) if n.startswith(sc.TEMP_PREFIX)]

    def test_registered_choices_are_read_from_the_real_database(self, tmp_path):
        root = alternatives_machine(tmp_path)
        link = probe_toolkits(host_for(root), 5.0).link
        assert sorted(sc.query_alternatives(str(root), link)) == ["/usr/local/cuda-11.8", "/usr/local/cuda-12.8"]
        plan = sc.plan_switch(facts_for(root), "13", sc.SYSTEM, is_root=True, alternatives=sc.query_alternatives(str(root), link))
        assert plan.refusal.endswith("/usr/local/cuda-13.0 is not one of its choices")


# --- the shell scope ------------------------------------------------------------------------------

ODD = "/home/u/my tools/bin:/opt/it's/$HOME/bin"
ENV = {
    "PATH": f"/usr/local/cuda-12.8/bin:/home/u/.local/bin:/usr/local/cuda/bin:{ODD}::/opt/cuda-10.2/bin:/usr/bin:/bin",
    "LD_LIBRARY_PATH": "/usr/local/cuda-12.8/lib64:/opt/intel/lib:/usr/local/cuda-13.0/lib",
    "CUDA_HOME": "/usr/local/cuda-12.8",
}
WANT_PATH = f"/usr/local/cuda-11.8/bin:/home/u/.local/bin:{ODD}::/usr/bin:/bin"
WANT_LD = "/usr/local/cuda-11.8/lib64:/opt/intel/lib"


def shell_plan(tmp_path, env=ENV, requested="11.8"):
    root = make_machine(tmp_path)
    host = host_for(root, env)
    facts = run_probes(host, ProbeOptions())
    return sc.plan_switch(facts, requested, sc.SHELL, lib_dirs=sc.library_dirs(host, facts.toolkits.toolkits))


def test_shell_environment_drops_other_toolkits_and_keeps_the_rest_in_order(tmp_path):
    plan = shell_plan(tmp_path)
    assert plan.method == "shell"
    assert dict(plan.env) == {"CUDA_HOME": "/usr/local/cuda-11.8", "PATH": WANT_PATH, "LD_LIBRARY_PATH": WANT_LD}


def test_shell_environment_uses_the_trees_own_library_directory(tmp_path):
    plan = shell_plan(tmp_path, env={"PATH": "/usr/bin"}, requested="13")
    assert dict(plan.env) == {
        "CUDA_HOME": "/usr/local/cuda-13.0",
        "PATH": "/usr/local/cuda-13.0/bin:/usr/bin",
        "LD_LIBRARY_PATH": "/usr/local/cuda-13.0/lib64",
    }


def test_a_distribution_nvcc_in_usr_does_not_make_usr_bin_a_toolkit_entry(tmp_path):
    root = make_machine(tmp_path)
    (root / "usr/bin").mkdir()
    (root / "usr/include").mkdir()
    shutil.copyfile(root / "usr/local/cuda-11.8/bin/nvcc", root / "usr/bin/nvcc")
    (root / "usr/bin/nvcc").chmod(0o755)
    (root / "usr/include/cuda_runtime.h").write_text("/* distribution package */\n")
    host = host_for(root, {"PATH": "/usr/bin:/bin", "CUDA_HOME": "/usr"})
    facts = run_probes(host, ProbeOptions())
    assert "/usr" in [t.root for t in facts.toolkits.toolkits]  # it is seen as a (partial) toolkit...
    plan = sc.plan_switch(facts, "12.8", sc.SHELL, lib_dirs=sc.library_dirs(host, facts.toolkits.toolkits))
    assert dict(plan.env)["PATH"] == "/usr/local/cuda-12.8/bin:/usr/bin:/bin"  # ...but /usr/bin stays


def evaluate(shell: list[str], code: str, show: str) -> str:
    result = subprocess.run(
        [*shell, show], input=None, capture_output=True, text=True, env={"SHELL_CODE": code, "PATH": "/usr/bin:/bin"}, timeout=30
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


POSIX_SHOW = 'eval "$SHELL_CODE"; printf "%s\\n" "$CUDA_HOME" "$PATH" "$LD_LIBRARY_PATH"'


@pytest.mark.parametrize("name, syntax", [("bash", "bash"), ("dash", "sh"), ("zsh", "zsh")])
def test_shell_code_evaluated_by_a_real_shell_sets_exactly_the_planned_values(tmp_path, name, syntax):
    binary = shutil.which(name)
    if binary is None:
        pytest.skip(f"{name} is not installed")
    plan = shell_plan(tmp_path)
    code = sc.render_shell(plan.env, syntax)
    out = evaluate([binary, "-c"], code, POSIX_SHOW)
    assert out == f"/usr/local/cuda-11.8\n{WANT_PATH}\n{WANT_LD}\n"


def test_shell_code_evaluated_by_fish(tmp_path):
    fish = shutil.which("fish")
    if fish is None:
        pytest.skip("fish is not installed")
    plan = shell_plan(tmp_path)
    code = sc.render_shell(plan.env, "fish")
    show = 'echo $SHELL_CODE | source; printf "%s\\n" "$CUDA_HOME" (string join : $PATH) (string join : $LD_LIBRARY_PATH)'
    out = evaluate([fish, "-c"], code, show)
    # fish writes an empty PATH entry (the current directory) as ".": the same entry.
    assert out == f"/usr/local/cuda-11.8\n{WANT_PATH.replace('::', ':.:')}\n{WANT_LD}\n"


def test_fish_code_splits_path_lists_and_quotes_each_entry(tmp_path):
    plan = shell_plan(tmp_path, env={"PATH": "/a b/bin:/it's", "CUDA_PATH": "/usr/local/cuda-12.8"})
    assert sc.render_shell(plan.env, "fish") == (
        "set -gx CUDA_HOME /usr/local/cuda-11.8\n"
        "set -gx CUDA_PATH /usr/local/cuda-11.8\n"
        "set -gx PATH /usr/local/cuda-11.8/bin '/a b/bin' '/it'\"'\"'s'\n"
        "set -gx LD_LIBRARY_PATH /usr/local/cuda-11.8/lib64\n"
    )


def test_unknown_shell_is_a_usage_error():
    with pytest.raises(UsageError):
        sc.render_shell((("CUDA_HOME", "/x"),), "tcsh")


# --- --list ---------------------------------------------------------------------------------------


def test_list_shows_every_toolkit_and_what_makes_one_active(tmp_path):
    root = make_machine(tmp_path)
    (root / "usr/local/cuda-11.8/bin/nvcc").unlink()
    env = {"PATH": "/usr/local/cuda-13.0/bin:/usr/bin", "CUDA_HOME": "/usr/local/cuda-11.8"}
    assert sc.render_list(facts_for(root, env)) == (
        "CUDA toolkits (* active: the one nvcc on PATH runs, else /usr/local/cuda, else CUDA_HOME)\n"
        "  11.8.89  /usr/local/cuda-11.8  via CUDA_HOME  incomplete: missing bin/nvcc\n"
        "  12.8.2   /usr/local/cuda-12.8  via /usr/local/cuda\n"
        "* 13.0.88  /usr/local/cuda-13.0  via nvcc on PATH (/usr/local/cuda-13.0/bin/nvcc)\n"
        "/usr/local/cuda -> /usr/local/cuda-12.8\n"
    )


def test_list_names_a_real_directory_at_usr_local_cuda(tmp_path):
    root = make_machine(tmp_path, trees=("cuda-11.8",), link_to=None)
    make_toolkit(root / "usr/local/cuda", TREES["cuda-12.8"])
    assert sc.render_list(facts_for(root)) == (
        "CUDA toolkits (* active: the one nvcc on PATH runs, else /usr/local/cuda, else CUDA_HOME)\n"
        "* 12.8.2   /usr/local/cuda       via /usr/local/cuda (a real directory)\n"
        "  11.8.89  /usr/local/cuda-11.8\n"
        "/usr/local/cuda is a real directory (not a link: switch-cuda can only use --shell here)\n"
    )


def test_list_without_nvcc_on_path_marks_the_link_target_active(tmp_path):
    text = sc.render_list(facts_for(make_machine(tmp_path)))
    assert "* 12.8.2   /usr/local/cuda-12.8  via /usr/local/cuda\n" in text


def test_list_on_the_live_machine_names_at_most_one_active_toolkit():
    # The live probes, whatever this machine holds (no toolkit, a link, a directory): what the list
    # says must hold on any machine, so nothing here depends on this machine's /usr/local/cuda.
    # Each layout's exact listing is tested above on built roots.
    text = sc.render_list(run_probes(LiveHost(), ProbeOptions()))
    assert text.endswith("\n")
    assert len([line for line in text.splitlines() if line.startswith("* ")]) <= 1


# --- warnings: the doctor's own findings, on the driver and GPU of real captures -------------------


def driver_from(capture: str):
    from gpudoctor.parsers.nvidia_smi_xml import parse_nvidia_smi_xml
    from gpudoctor.probes.driver import gpus_from_smi_xml, merge_driver

    report = parse_nvidia_smi_xml((FIXTURES / "nvidia-smi-xml" / capture).read_text(encoding="utf-8"))
    smi = {"status": "ok", "driver": report.driver_version, "cuda": report.cuda_version, "gpus": gpus_from_smi_xml(report)}
    return merge_driver({"status": "library_not_found"}, smi)


GT_1030 = "geforce-gt-1030_driver-470.74_cuda-11.4_many-processes.xml"
RTX_3060 = "geforce-rtx-3060_driver-570.124.04_cuda-12.8.xml"


@pytest.mark.parametrize(
    "capture, requested, titles",
    [
        (
            GT_1030,
            "13",
            [
                "CUDA toolkit 13.0.88 at /usr/local/cuda-13.0 is newer than the driver supports (CUDA 11.4)",
                "nvcc 13.0 cannot build for GPU 0 (NVIDIA GeForce GT 1030, compute capability 6.1)",
            ],
        ),
        (GT_1030, "11.8", ["CUDA toolkit 11.8.89 at /usr/local/cuda-11.8 is newer than the driver supports (CUDA 11.4)"]),
        (RTX_3060, "12.8", []),
        (RTX_3060, "13", ["CUDA toolkit 13.0.88 at /usr/local/cuda-13.0 is newer than the driver supports (CUDA 12.8)"]),
    ],
)
def test_warnings_reuse_the_diagnosis_findings(tmp_path, capture, requested, titles):
    facts = replace(facts_for(make_machine(tmp_path)), driver=driver_from(capture))
    target = sc.matching_toolkits(facts.toolkits.toolkits, requested)[0]
    assert [f.title for f in sc.switch_warnings(facts, target, Context())] == titles
