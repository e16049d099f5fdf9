"""switch-cuda at the edges the suite left unguarded (tools/mutate.py survivors: docs/testing.md).

On temporary roots holding toolkit trees (tests/unit/test_switch_cuda.py builds them from real captures).
- Root never makes everyone's /usr/local/cuda a toolkit other users can change (src/gpudoctor/trust.py); a user
  pointing their own shell at their own toolkit harms no one else, so that is never refused.
- update-alternatives failing says why: its own words, else its exit status (never a timeout it did not have).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gpudoctor import switch_cuda as sc
from gpudoctor.errors import GpudoctorError
from gpudoctor.probes import ProbeOptions, run_probes
from tests.unit.test_switch_cuda import TREES, facts_for, host_for, make_machine, make_toolkit


def _writable_by_all(root: Path, name: str) -> None:
    # A toolkit another user could have changed (a tree unpacked with a careless umask, chmod 777).
    os.chmod(root / "usr" / "local" / name, 0o777)


def test_a_user_points_their_own_shell_at_a_toolkit_others_can_change(tmp_path, monkeypatch):
    root = make_machine(tmp_path)
    _writable_by_all(root, "cuda-11.8")
    host = host_for(root)
    facts = run_probes(host, ProbeOptions())
    plan = sc.plan_switch(facts, "11.8", sc.SHELL, lib_dirs=sc.library_dirs(host, facts.toolkits.toolkits))
    assert plan.target is not None and plan.refusal is None
    # Not root: the shell is the user's own; nothing of root's or anyone else's runs from it.
    monkeypatch.setattr("gpudoctor.trust.running_as_root", lambda: False)
    assert sc.refuse_untrusted_target(plan, host) == plan
    # Root: the same toolkit would run other users' code as root, so it is refused with the way out.
    monkeypatch.setattr("gpudoctor.trust.running_as_root", lambda: True)
    refused = sc.refuse_untrusted_target(plan, host)
    assert (refused.refusal or "").startswith(
        "the CUDA 11.8.89 toolkit at /usr/local/cuda-11.8 can be changed by users other than root"
    )
    assert refused.manual[0] == "Make it root's own, then rerun:"


def test_a_plan_refused_already_keeps_its_own_refusal(tmp_path, monkeypatch):
    # CUDA 10.2 is not installed: the plan names no target and says how to install it; the trust check, as root,
    # has nothing to add to it.
    monkeypatch.setattr("gpudoctor.trust.running_as_root", lambda: True)
    root = make_machine(tmp_path)
    plan = sc.plan_switch(facts_for(root), "10.2", sc.SYSTEM, is_root=True)
    assert plan.target is None and plan.refusal
    assert sc.refuse_untrusted_target(plan, host_for(root)) == plan


def _alternatives_plan(tmp_path: Path, name: str = "cuda"):
    """/usr/local/cuda -> /etc/alternatives/NAME -> /usr/local/cuda-12.8, as NVIDIA's .deb packages leave it."""
    root = make_machine(tmp_path, link_to=None)
    (root / "etc" / "alternatives").mkdir(parents=True)
    (root / "etc" / "alternatives" / name).symlink_to(root / "usr" / "local" / "cuda-12.8")
    (root / "usr" / "local" / "cuda").symlink_to(root / "etc" / "alternatives" / name)
    plan = sc.plan_switch(
        facts_for(root), "11.8", sc.SYSTEM, is_root=True, alternatives=("/usr/local/cuda-11.8", "/usr/local/cuda-12.8")
    )
    assert (plan.method, plan.refusal) == ("alternatives", None)
    return root, plan


@pytest.mark.parametrize(
    ("script", "said"),
    [
        ("exit 2", "exit status 2"),  # silent: its exit status is all there is to say
        ("echo 'error: no alternatives for cuda' >&2; exit 2", "error: no alternatives for cuda"),
    ],
)
def test_update_alternatives_failing_says_why(tmp_path, monkeypatch, script, said):
    root, plan = _alternatives_plan(tmp_path)
    # A stand-in update-alternatives first on PATH (root's own directory, as gpudoctor requires of what root runs).
    fake = tmp_path / "fakebin"
    fake.mkdir()
    (fake / "update-alternatives").write_text(f"#!/bin/sh\n{script}\n")
    (fake / "update-alternatives").chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake}:{os.environ.get('PATH', '')}")
    with pytest.raises(GpudoctorError) as err:
        sc.apply_switch(plan, str(root))
    assert err.value.message == f"update-alternatives --set failed: {said}"
    # Nothing changed: the alternatives link still names CUDA 12.8.
    assert os.readlink(root / "etc" / "alternatives" / "cuda") == str(root / "usr" / "local" / "cuda-12.8")


def test_an_alternative_of_another_name_is_set_and_undone_by_that_name(tmp_path, monkeypatch):
    # /usr/local/cuda -> /etc/alternatives/cuda-12: the alternative is "cuda-12", so that is the name given to
    # update-alternatives, going and coming back (never a "cuda" group that may not exist).
    root, plan = _alternatives_plan(tmp_path, "cuda-12")
    assert plan.commands() == ("update-alternatives --set cuda-12 /usr/local/cuda-11.8",)
    assert plan.undo() == ("update-alternatives --set cuda-12 /usr/local/cuda-12.8",)
    fake = tmp_path / "fakebin"
    fake.mkdir()
    (fake / "update-alternatives").write_text('#!/bin/sh\necho "called with: $*" >&2\nexit 2\n')
    (fake / "update-alternatives").chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake}:{os.environ.get('PATH', '')}")
    with pytest.raises(GpudoctorError) as err:
        sc.apply_switch(plan, str(root))
    assert f"--set cuda-12 {root}/usr/local/cuda-11.8" in err.value.message


def test_a_toolkit_outside_usr_local_leaves_path_when_the_shell_switches(tmp_path):
    # A CUDA 12.5 tree in the user's home (named cuda-*, so every entry under it is the toolkit's own), on PATH and
    # CUDA_HOME: switching this shell to 11.8 takes its bin/ off PATH; the rest of PATH stays in order.
    root = make_machine(tmp_path)
    make_toolkit(root / "home" / "u" / "sdk" / "cuda-12.5", dict(TREES["cuda-12.5"]))  # type: ignore[call-overload]
    env = {"PATH": "/home/u/sdk/cuda-12.5/bin:/home/u/bin:/usr/bin:/bin", "CUDA_HOME": "/home/u/sdk/cuda-12.5"}
    host = host_for(root, env)
    facts = run_probes(host, ProbeOptions())
    assert "/home/u/sdk/cuda-12.5" in [t.root for t in facts.toolkits.toolkits]
    plan = sc.plan_switch(facts, "11.8", sc.SHELL, lib_dirs=sc.library_dirs(host, facts.toolkits.toolkits))
    assert dict(plan.env)["PATH"] == "/usr/local/cuda-11.8/bin:/home/u/bin:/usr/bin:/bin"


def test_after_a_system_switch_the_environment_that_still_names_the_old_toolkit_is_said(tmp_path):
    # /usr/local/cuda now names 11.8, but this shell's CUDA_HOME still names 12.8: said, so nobody is surprised.
    root = make_machine(tmp_path)
    facts = facts_for(root, {"PATH": "/usr/bin:/bin", "CUDA_HOME": "/usr/local/cuda-12.8"})
    (target,) = [t for t in facts.toolkits.toolkits if t.root == "/usr/local/cuda-11.8"]
    assert sc.stale_environment(facts.toolkits, target) == ["CUDA_HOME still names CUDA 12.8.2 at /usr/local/cuda-12.8"]


@pytest.mark.parametrize("root_user", [True, False])
@pytest.mark.parametrize("alternatives", [False, True])
def test_not_root_is_refused_for_a_plain_link_and_for_update_alternatives_alike(tmp_path, root_user, alternatives):
    """docs/switch-cuda.md's refusals: "You are not root: the process cannot write where the switch writes. It
    prints the exact `sudo` command". A link that update-alternatives manages is no exception: as root it is
    `update-alternatives --set`, as anyone else a refusal with the sudo line and the --shell form."""
    if alternatives:
        root = make_machine(tmp_path, link_to=None)
        (root / "etc" / "alternatives").mkdir(parents=True)
        (root / "etc" / "alternatives" / "cuda").symlink_to(root / "usr" / "local" / "cuda-12.8")
        (root / "usr" / "local" / "cuda").symlink_to(root / "etc" / "alternatives" / "cuda")
    else:
        root = make_machine(tmp_path)
    choices = ("/usr/local/cuda-11.8", "/usr/local/cuda-12.8") if alternatives else None
    argv = ("/opt/venv/bin/gpudoctor", "switch-cuda", "11.8")
    plan = sc.plan_switch(facts_for(root), "11.8", sc.SYSTEM, is_root=root_user, rerun_argv=argv, alternatives=choices)
    assert plan.method == ("alternatives" if alternatives else "rename")
    if root_user:
        assert plan.refusal is None
    else:
        assert plan.refusal == "changing /usr/local/cuda needs root"
        assert plan.manual[:2] == ("Run it as root:", "  sudo /opt/venv/bin/gpudoctor switch-cuda 11.8")
        assert plan.manual[-1] == '  eval "$(gpudoctor switch-cuda 11.8 --shell)"'


class _Stat:
    def __init__(self, mode: int, uid: int = 0, gid: int = 0):
        self.st_mode, self.st_uid, self.st_gid = mode, uid, gid


@pytest.mark.parametrize("part", ["", "bin", "bin/nvcc", "lib64", "lib", "include", "targets"])
def test_root_checks_every_documented_part_of_the_target_toolkit(part):
    """docs/switch-cuda.md: refused when "the toolkit directory, its `bin/`, `bin/nvcc`, `lib64/`, `lib/`,
    `include/` or `targets/`, or a directory above it, is owned by a non-root user or writable by group (other
    than group 0)": each part, writable by group 1000, is named; all root's own, nothing is."""
    import stat

    top = "/usr/local/cuda-12.4"
    weak = f"{top}/{part}" if part else top

    def stat_fn(path: str, bad: str | None = weak) -> _Stat:
        kind = stat.S_IFREG if path.endswith("/nvcc") else stat.S_IFDIR
        return _Stat(kind | (0o775 if path == bad else 0o755), gid=1000)

    assert sc.untrusted_toolkit(top, stat_fn, resolve=lambda p: p) == f"{weak} is writable by group 1000 (mode 0775)"
    assert sc.untrusted_toolkit(top, lambda p: stat_fn(p, None), resolve=lambda p: p) is None
