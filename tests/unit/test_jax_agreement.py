"""jax-plugin-mismatch: which version jax, jaxlib and the plugin should agree on, and the commands
that make them agree without GPU facts. Expectations written by hand from JAX's rules (JEP 9419:
jax >= jaxlib since jax 0.3.0; the plugin equals jaxlib from 0.4.30) and the matrix's first JAX
release row (0.4.20)."""

from __future__ import annotations

import json

import pytest

from gpudoctor.checks import Context
from gpudoctor.checks.cudnn import check_cudnn
from gpudoctor.checks.frameworks import check_jax_versions
from gpudoctor.cmdline import Cmd
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot
from gpudoctor.planner import pick_jax
from gpudoctor.planner.model import Machine, TargetEnv

CTX = Context()
M = CTX.matrix


def _machine(**installed: str) -> Machine:
    env = TargetEnv("/venv/bin/python", "3.11.7", "venv", prefix="/venv", has_pip=True)
    return Machine("linux", "x86_64", None, None, (), env, {k.replace("_", "-"): v for k, v in installed.items()})


def _facts(tmp_path, distributions: dict[str, str]):
    """A Linux venv with these distributions and nothing else recorded: no GPU, no driver."""
    snap = {
        "format": "gpudoctor-snapshot/1",
        "env": {"VIRTUAL_ENV": "/venv"},
        "python": {
            "distributions": distributions,
            "executable": "/venv/bin/python",
            "kind": "venv",
            "prefix": "/venv",
            "site_packages": ["/venv/lib/python3.11/site-packages"],
            "version": "3.11.7",
        },
    }
    path = tmp_path / "snapshot.json"
    path.write_text(json.dumps(snap), encoding="utf-8")
    return diagnose(ReplayHost(load_snapshot(str(path)))).facts


# --- the pin: jaxlib not newer than jax, in force from jax 0.3.0 (older than the matrix's rows too) ---


@pytest.mark.parametrize(
    ("jax", "jaxlib", "fires"),
    [
        ("0.4.6", "0.4.14", True),  # jax#17638: older than the first release row, judged all the same
        ("0.4.14", "0.4.14", False),  # equal versions agree
        ("0.4.6", "0.4.5", False),  # an older jaxlib is not this rule's business
        ("0.3.0", "0.3.2", True),  # the first jax the rule holds for
        ("0.2.28", "0.3.0", False),  # before jax 0.3.0 the rule was not in force
        ("0.4.20", "0.4.31", True),  # octo#125
    ],
)
def test_jaxlib_newer_than_jax_fires_from_jax_0_3_0(tmp_path, jax, jaxlib, fires):
    found = list(check_jax_versions(_facts(tmp_path, {"jax": jax, "jaxlib": jaxlib}), CTX))
    assert bool(found) is fires


# --- which version they should agree on ---


@pytest.mark.parametrize(
    ("installed", "agreed"),
    [
        ({"jax": "0.4.20", "jaxlib": "0.4.31"}, "0.4.20"),  # jax in the matrix: jaxlib follows jax
        ({"jax": "0.4.20", "jaxlib": "0.4.23"}, "0.4.20"),  # the first release row is in the matrix
        ({"jax": "0.4.19", "jaxlib": "0.4.20"}, "0.4.20"),  # just below the first row: jax moves up to jaxlib
        ({"jax": "0.4.6", "jaxlib": "0.4.14"}, "0.4.14"),  # jax#17638
        ({"jax": "0.4.6", "jaxlib": "0.4.5"}, "0.4.6"),  # jaxlib older: jax's own version
        ({"jax": "0.4.38", "jaxlib": "0.4.38", "jax-cuda12-plugin": "0.5.0"}, "0.4.38"),  # DESC#1534: the plugin follows
        ({"jaxlib": "0.4.31"}, "0.4.31"),
        ({"jax": "0.7.2.post1", "jaxlib": "0.7.2"}, "0.7.2"),  # compared by the numeric prefix
    ],
)
def test_agreed_version(installed, agreed):
    assert pick_jax.agreed_version(M, installed) == agreed


# --- the requirements that make them agree, the installed variant kept ---


def test_only_jax_moves_alone():
    assert pick_jax.agreement(M, _machine(jax="0.4.6", jaxlib="0.4.14"), "0.4.14") == (("jax==0.4.14",), None, ())


def test_a_cpu_jaxlib_moves_with_jax_cpu_extra():
    assert pick_jax.agreement(M, _machine(jax="0.4.20", jaxlib="0.4.31"), "0.4.20") == (("jax[cpu]==0.4.20",), None, ())


def test_a_plugin_moves_with_the_cuda_extra_of_its_major():
    m = _machine(jax="0.4.38", jaxlib="0.4.38", jax_cuda12_plugin="0.5.0", jax_cuda12_pjrt="0.5.0")
    assert pick_jax.agreement(M, m, "0.4.38") == (("jax[cuda12]==0.4.38",), None, ())


def test_a_cuda_jaxlib_of_the_monolithic_era_stays_one():
    m = _machine(jax="0.4.20", jaxlib="0.4.23+cuda12.cudnn89")
    assert pick_jax.agreement(M, m, "0.4.20") == (("jax[cuda12_pip]==0.4.20",), pick_jax.FIND_LINKS, ())


def test_nothing_to_do_when_they_agree_unless_the_wheels_must_come():
    m = _machine(jax="0.4.38", jaxlib="0.4.38", jax_cuda12_plugin="0.4.38", jax_cuda12_pjrt="0.4.38")
    assert pick_jax.agreement(M, m, "0.4.38") == ((), None, ())
    assert pick_jax.agreement(M, m, "0.4.38", wheels=True) == (("jax[cuda12]==0.4.38",), None, ())


def test_no_vouched_build_when_jaxlib_must_move_to_a_version_older_than_the_matrix():
    assert pick_jax.agreement(M, _machine(jax="0.4.14", jaxlib="0.4.16"), "0.4.14") is None


def test_a_plugin_major_the_version_does_not_have_is_not_guessed():
    m = _machine(jax="0.4.38", jaxlib="0.4.38", jax_cuda13_plugin="0.7.2")  # no CUDA 13 plugin before 0.7.2
    assert pick_jax.agreement(M, m, "0.4.38") is None


# --- the remediations, no GPU recorded ---


def _words(remediation) -> list[tuple[str, ...]]:
    return [c.words for c in remediation.commands if isinstance(c, Cmd)]


def test_octo_gets_jaxlib_of_the_pinned_jax_without_gpu_facts(tmp_path):
    (f,) = check_jax_versions(_facts(tmp_path, {"jax": "0.4.20", "jaxlib": "0.4.31"}), CTX)
    assert f.remediation.component == "jax"
    assert _words(f.remediation)[-1] == (
        "/venv/bin/python",
        "-m",
        "pip",
        "install",
        "jax[cpu]==0.4.20",
    )
    assert "jaxlib 0.4.31 -> 0.4.20" in f.remediation.summary


def test_old_jax_moves_up_in_one_pip_install(tmp_path):
    (f,) = check_jax_versions(_facts(tmp_path, {"jax": "0.4.6", "jaxlib": "0.4.14"}), CTX)
    assert _words(f.remediation) == [("/venv/bin/python", "-m", "pip", "install", "jax==0.4.14")]


def test_a_jax_plugin_without_nvidia_wheels_gets_cudnn_from_the_jax_step(tmp_path):
    facts = _facts(tmp_path, {"jax": "0.4.38", "jaxlib": "0.4.38", "jax-cuda12-plugin": "0.4.38", "jax-cuda12-pjrt": "0.4.38"})
    (f,) = [f for f in check_cudnn(facts, CTX) if f.code == "cudnn-missing"]
    assert f.remediation.component == "jax"
    assert _words(f.remediation)[-1][-1] == "jax[cuda12]==0.4.38"
    assert not any("apt-get" in w for w in _words(f.remediation))
