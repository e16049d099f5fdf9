"""nvcc refusing the host gcc in a Python package's build (issue 27, compilers): setuptools ran nvcc ("error: command
'.../nvcc' failed with exit code 1"), so the compilers are named by CC and CXX for the rerun of the same install, which
torch.utils.cpp_extension hands to nvcc as -ccbin; a build nvcc ran from ninja or make alone gets no CC/CXX lines.

Real reports, whole: https://github.com/csuhan/s2anet/issues/135 (setup.py develop, gcc 9 over CUDA 10.1's limit 7) and
tests/blind/plans10/cases/1032-detectron2-4361-pip-git-build-apt-nvcc-usr-lib-cuda-gcc11-too-new (pip install from git,
limit 10); the quiet twin: tests/pasted/catalogue_examples/ninja-2595-nvcc-host-gcc-later-than-11.txt (ninja's build)."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.cmdline import Cmd, SetEnv
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted

_TESTS = Path(__file__).resolve().parents[1]
_EXAMPLES = _TESTS / "pasted" / "catalogue_examples"


def _remediation(text: str):
    report = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("t", text)]), "t")))
    assert not report.internal_errors, report.internal_errors
    return {f.code: f for f in report.findings}["host-compiler-unsupported"].remediation


def _env(rem) -> dict[str, str]:
    return {c.name: c.value for c in rem.commands if isinstance(c, SetEnv)}


def test_setup_py_build_names_gcc7_by_cc_and_cxx():
    rem = _remediation((_EXAMPLES / "s2anet-135-setup-py-nvcc101-gcc9-later-than-7.txt").read_text("utf-8"))
    assert _env(rem) == {"CC": "gcc-7", "CXX": "g++-7"}
    listing = [c for c in rem.commands if isinstance(c, Cmd)][0]
    assert listing.argv == ("ls", "/usr/bin") and listing.pipe[:2] == ("grep", "-E")
    assert "CC=gcc-7" in rem.summary and "CUDAHOSTCXX" not in rem.summary


def test_pip_install_from_git_names_gcc10():
    case = _TESTS / "blind/plans10/cases/1032-detectron2-4361-pip-git-build-apt-nvcc-usr-lib-cuda-gcc11-too-new/input.txt"
    rem = _remediation(case.read_text("utf-8"))
    assert _env(rem) == {"CC": "gcc-10", "CXX": "g++-10"}


def test_a_debian_family_host_gets_the_distribution_packages():
    # (PyTorch's collect_env line naming the distribution, as issue templates carry it)
    text = "OS: Ubuntu 20.04.4 LTS (x86_64)\n" + (_EXAMPLES / "s2anet-135-setup-py-nvcc101-gcc9-later-than-7.txt").read_text(
        "utf-8"
    )
    cmds = [c for c in _remediation(text).commands if isinstance(c, Cmd)]
    assert any(c.argv == ("apt-get", "install", "-y", "gcc-7", "g++-7") and c.root for c in cmds)


def test_a_ninja_build_gets_no_cc_cxx_lines():
    rem = _remediation((_EXAMPLES / "ninja-2595-nvcc-host-gcc-later-than-11.txt").read_text("utf-8"))
    assert _env(rem) == {}
    assert "CUDAHOSTCXX" in rem.summary
