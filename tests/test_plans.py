"""The plan lint, over every recorded machine and every real report: what gpudoctor tells a person to
run must parse as the argv it was built from, name versions that exist for that Python and OS in the
matrix, target the probed interpreter, and hold together (gpudoctor.planner.prescribe.lint)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from gpudoctor.checks import Context
from gpudoctor.cmdline import Cmd, EvalShell, PrependPath, SetEnv, render, shell_for_os
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot
from gpudoctor.model import Severity
from gpudoctor.planner.prescribe import build, lint
from gpudoctor.probed import Found

TESTS = Path(__file__).resolve().parent
SNAPSHOTS = sorted(
    [*TESTS.glob("machines/*/snapshot.json"), *TESTS.glob("real/*/snapshot.json")],
    key=lambda p: (p.parent.parent.name, p.parent.name),
)
IDS = [f"{p.parent.parent.name}/{p.parent.name}" for p in SNAPSHOTS]
_CTX = Context()
_PIN = re.compile(r"([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[([^\]]*)\])?==([^,;\s]+)\Z")


def _diagnose(path: Path):
    report = diagnose(ReplayHost(load_snapshot(str(path))))
    return report, build(report.findings, shell_for_os(report.facts.platform.system))


def _release_exists(name: str, version: str, python: str | None, system: str) -> str | None:
    """Why `name==version` cannot be installed there, or None when the matrix says it can (or does not know the package)."""
    m = _CTX.matrix
    name = name.lower()
    if name == "torch":
        rel = m.torch_release(version)
        if rel is None:
            return f"the matrix has no PyTorch {version}"
        if python and not rel.supports_python(python):
            return f"PyTorch {version} has no wheel for Python {python} ({rel.python})"
    elif name in ("tensorflow", "tensorflow-gpu", "tensorflow-cpu"):
        rel = m.tensorflow_release(version)
        if rel is None:
            return f"the matrix has no TensorFlow {version}"
        if python and not rel.supports_python(python):
            return f"TensorFlow {version} has no wheel for Python {python} ({rel.python})"
    elif name == "jax":
        rel = m.jax_release(version)
        if rel is None:
            return f"the matrix has no JAX {version}"
        if python and not rel.supports_python(python):
            return f"JAX {version} has no wheel for Python {python} ({rel.python})"
    return None


def _jax_of_installed_jaxlib(facts, name: str, version: str) -> bool:
    """`jax==V` where V is the installed jaxlib's version: that jax exists whether the matrix lists it or not."""
    j = facts.frameworks.jax
    return name.lower() == "jax" and isinstance(j, Found) and bool(j.value.jaxlib) and j.value.jaxlib.split("+", 1)[0] == version


@pytest.mark.parametrize("path", SNAPSHOTS, ids=IDS)
def test_plan_holds_together(path):
    report, plan = _diagnose(path)
    assert not plan.problems, plan.problems
    assert lint(plan) == []
    facts = report.facts
    env = facts.frameworks.python
    exe = env.value.executable if isinstance(env, Found) else None
    py = ".".join(env.value.version.split(".")[:2]) if isinstance(env, Found) and env.value.version else None
    for step in plan.steps:
        for line in step.commands:
            assert isinstance(line, (Cmd, SetEnv, PrependPath, EvalShell))
            text = render(line, plan.target)  # renders for the machine's shell, or raises
            if isinstance(line, Cmd) and plan.target == "posix":
                words = shlex.split(text, comments=True)
                if line.pipe:
                    words = words[: words.index("|")]
                assert words == (["sudo"] if line.root else []) + list(line.words), text
            if isinstance(line, Cmd) and "pip" in line.words[:3]:
                if exe and line.words[0] not in ("uv", "conda"):
                    assert line.words[0] == exe, f"{text}: pip must run in the probed interpreter {exe}"
                for word in line.words:
                    m = _PIN.match(word)
                    if m and _jax_of_installed_jaxlib(facts, m.group(1), m.group(3)):
                        continue  # JEP 9419: every jaxlib release comes with a jax release of its version
                    if m:
                        why = _release_exists(m.group(1), m.group(3), py, facts.platform.system)
                        assert why is None, f"{text}: {why}"


@pytest.mark.parametrize("path", SNAPSHOTS, ids=IDS)
def test_every_fix_is_in_the_plan_once(path):
    report, plan = _diagnose(path)
    answered = [c for s in plan.steps for c in s.codes]
    with_fix = {f.code for f in report.findings if f.remediation is not None}
    assert with_fix <= set(answered)
    seen = [(f.code, f.title) for f in report.findings]
    assert len(seen) == len(set(seen)), "a finding appears twice"
    for step in plan.steps:
        assert len(step.commands) == len(set(step.commands)), f"{step.component}: a command appears twice"


def test_lint_catches_contradictions():
    from gpudoctor.model import Finding, Remediation

    def finding(code, component, *cmds):
        return Finding(code, Severity.WARNING, "toolkit", code, "", remediation=Remediation("x", cmds, component=component))

    plan = build(
        [
            finding("a", "toolkit", Cmd(("gpudoctor", "switch-cuda", "11.8"), root=True)),
            finding("b", "toolkit", EvalShell(("gpudoctor", "switch-cuda", "12.5"))),
        ]
    )
    assert any("different CUDA toolkits" in p for p in plan.problems)
    plan = build([finding("c", "torch", Cmd(("python3", "-m", "pip", "uninstall", "-y", "nvidia-cudnn-cu11")))])
    assert any("installs nothing" in p for p in plan.problems)
    plan = build(
        [
            finding("d", "torch", Cmd(("python3", "-m", "pip", "install", "torch==2.1.2"))),
            finding("e", "cudnn", Cmd(("python3", "-m", "pip", "install", "torch==2.3.1"))),
        ]
    )
    assert any("pinned" in p for p in plan.problems)
    ok = build(
        [
            finding(
                "f",
                "torch",
                Cmd(("python3", "-m", "pip", "uninstall", "-y", "nvidia-cudnn-cu11")),
                Cmd(("python3", "-m", "pip", "install", "torch==2.1.2")),
            )
        ]
    )
    assert ok.problems == ()


@pytest.mark.parametrize("path", SNAPSHOTS, ids=IDS)
def test_the_steps_labelled_for_fix_are_what_fix_offers(path):
    # "gpudoctor fix can apply this" comes from what `fix` offers (gpudoctor.install.fix.offered), and fix
    # offers only what the plan's own step for that finding says: a framework reinstall where the plan
    # reinstalls that framework, a switch where the plan switches the toolkit.
    from gpudoctor.install.environment import read_env
    from gpudoctor.install.fix import fix_offers, offered, propose
    from gpudoctor.planner.offers import could_offer

    host = ReplayHost(load_snapshot(str(path)))
    report = diagnose(host)
    plan = build(report.findings, shell_for_os(report.facts.platform.system))
    kinds = fix_offers(report)
    # check labels its plan without loading the installer when could_offer says nothing can be offered:
    # that shortcut must never hide an offer the installer would make.
    assert kinds == offered(report.facts, report.findings, _CTX)
    assert could_offer(report.findings) or not kinds
    by_code = {f.code: f for f in report.findings}
    for fix in propose(report.facts, report.findings, _CTX, env=read_env(host, report.facts)):
        for code in fix.codes:
            component = by_code[code].remediation.component
            if fix.kind == "reinstall":
                assert component == fix.payload.framework if fix.payload else component in ("torch", "tensorflow", "jax"), (
                    code,
                    component,
                )
            elif fix.kind == "switch-cuda":
                assert component == "toolkit", (code, component)
    for step in plan.steps:  # a step elsewhere (the host, the image) is never labelled for fix
        assert not (step.where and step.fix_kind(kinds)), step
