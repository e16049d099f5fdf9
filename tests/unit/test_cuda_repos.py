"""NVIDIA's CUDA repositories (compat_matrix/cuda_repos.toml) and the toolkit installs that depend on them.

Expectations are written by hand from the rows' sources (see the file): a verified bound says the
repository has nothing beyond it; an unverified one says nothing (None), and the doctor then does not
assert availability."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.checks import Context
from gpudoctor.checks.toolkit import check_torch_major, toolkit_fix
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot
from gpudoctor.matrix import check_matrix, load_matrix

M = load_matrix()
REAL = Path(__file__).resolve().parents[1] / "real"


@pytest.mark.parametrize(
    "distro, version_id, cuda, packaged",
    [
        # ubuntu2204 starts at 11.7 (verified) and still receives releases.
        ("ubuntu", "22.04", "11.6", False),
        ("ubuntu", "22.04", "11.7", True),
        ("ubuntu", "22.04", "13.0", True),
        # ubuntu2404: images from 12.5; older not verified.
        ("ubuntu", "24.04", "12.4", None),
        ("ubuntu", "24.04", "12.5", True),
        # ubuntu1804: 11.0 to 12.1 seen, neither end verified.
        ("ubuntu", "18.04", "10.2", None),
        ("ubuntu", "18.04", "11.0", True),
        ("ubuntu", "18.04", "12.1", True),
        ("ubuntu", "18.04", "12.2", None),
        # ubuntu2004: 11.0 to 12.9 seen; 13.0 not verified.
        ("ubuntu", "20.04", "12.9", True),
        ("ubuntu", "20.04", "13.0", None),
        # rhel7 (and CentOS 7): ends at 12.4 (verified); starts at 11.0 as far as the sources show.
        ("centos", "7", "10.2", None),
        ("centos", "7", "11.0", True),
        ("rhel", "7.9", "12.4", True),
        ("rhel", "7.9", "12.5", False),
        # RHEL 9 rebuilds share rhel9: 12.0 on; 11.x not verified.
        ("rocky", "9.3", "11.8", None),
        ("rocky", "9.3", "12.0", True),
        ("almalinux", "9.4", "13.0", True),
        # A known repository without known toolkits.
        ("debian", "12", "12.4", None),
    ],
)
def test_repository_packages(distro, version_id, cuda, packaged):
    repo = M.cuda_repo_for(distro, version_id)
    assert repo is not None
    assert repo.packages(cuda) is packaged


def test_repository_matching_is_by_os_release_id_and_version():
    assert M.cuda_repo_for("ubuntu", "22.04").repo == "ubuntu2204"
    assert M.cuda_repo_for("centos", "7").repo == "rhel7"
    assert M.cuda_repo_for("ol", "8.9").repo == "rhel8"
    assert M.cuda_repo_for("ubuntu", "22.10") is None  # not an LTS NVIDIA packages for
    assert M.cuda_repo_for("ubuntu", "2") is None
    assert M.cuda_repo_for("linuxmint", "21.3") is None
    assert M.cuda_repo_for(None, None) is None


def test_every_row_cites_a_source_and_bounds_exist():
    for r in M.cuda_repos:
        assert r.sources, r.repo
        if r.first_verified:
            assert r.first
        if r.last_verified:
            assert r.last


def test_validation_rejects_bad_bounds(tmp_path):
    text = """schema_version = 1
repo = [
  { repo = "ubuntu2204", distro = ["ubuntu"], release = "22.04", first = "12.4", last = "11.8", last_verified = true, source = "nvidia-cuda-image-tags" },
  { repo = "ubuntu2404", distro = ["Ubuntu"], release = "24.04", first = "99.1", first_verified = true, source = "nvidia-cuda-image-tags" },
  { repo = "ubuntu2604", distro = ["ubuntu"], release = "26.04", first_verified = true, source = "nvidia-cuda-image-tags" },
]
"""
    path = tmp_path / "cuda_repos.toml"
    path.write_text(text, encoding="utf-8")
    found = "\n".join(check_matrix(path))
    assert "cuda_repos.toml:repo[ubuntu2204]: last must not be older than first" in found
    assert "cuda_repos.toml:repo[ubuntu2404]: first must be a CUDA minor (X.Y) in cuda_driver.toml, not '99.1'" in found
    assert "cuda_repos.toml:repo[ubuntu2404]: distro entries are os-release IDs (lowercase)" in found
    assert "cuda_repos.toml:repo[ubuntu2604]: first_verified needs first" in found


def test_embodiedocc2_moves_pytorch_first_because_ubuntu2204_has_no_cuda_113():
    # Ubuntu 22.04, nvcc 12.2, torch 1.12.1+cu113: the toolkit side would be CUDA 11.3, which NVIDIA's
    # ubuntu2204 repository does not package (it starts at 11.7). So no apt command, and PyTorch's side first.
    facts = diagnose(ReplayHost(load_snapshot(str(REAL / "embodiedocc2-nvcc122-torch-cu113" / "snapshot.json")))).facts
    ctx = Context()
    fix = toolkit_fix(facts, ctx)
    assert fix.version == "11.3" and fix.commands == () and not fix.moves
    assert fix.install.packaged is False
    assert (
        "CUDA 11.3 is not packaged for Ubuntu 22.04.5 LTS (NVIDIA's ubuntu2204 repository: it has CUDA 11.7 and newer)"
        in fix.says()
    )
    (finding,) = check_torch_major(facts, ctx)
    rem = finding.remediation
    assert rem.component == "torch" and rem.summary.startswith("Move PyTorch to nvcc's CUDA major (12.2): PyTorch 2.1 (cu121)")
    assert rem.alternative.component == "toolkit" and rem.alternative.commands == ()
