"""`gpudoctor fix`: the current findings' fixes that have a safe automatic form, each one a plan.

Three kinds, and nothing else:
- reinstall a framework build (an install plan: the installed release when a build of it fits,
  else the newest that does);
- switch the system CUDA toolkit (/usr/local/cuda) through gpudoctor.switch_cuda, where the link
  is what makes the wrong toolkit active and an installed toolkit fits the driver and GPUs;
- set an allocator variable in a file the user names (stop JAX or TensorFlow from grabbing memory
  of a GPU that other processes hold).
`propose` is pure; `apply_env` is the only writer here (the others go through `apply`/switch_cuda).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gpudoctor.checks import Context
from gpudoctor.cmdline import SetEnv, Unrenderable
from gpudoctor.errors import UnsafeOperation
from gpudoctor.facts import Facts, Toolkit
from gpudoctor.model import Finding, Severity
from gpudoctor.planner.model import TITLES, Target, TargetEnv
from gpudoctor.planner.offers import finding_applies
from gpudoctor.planner.plan import Options, TargetNeeded
from gpudoctor.probed import value_or_none

# Preallocating frameworks and the variable (with the value) that makes them allocate on demand
# (compat_matrix/memory_settings.toml): the fix for a GPU whose memory others hold.
PREALLOCATION_OFF = {"jax": ("XLA_PYTHON_CLIENT_PREALLOCATE", "false"), "tensorflow": ("TF_FORCE_GPU_ALLOW_GROWTH", "true")}
LINK = "/usr/local/cuda"


@dataclass(frozen=True)
class Fix:
    kind: str  # reinstall, switch-cuda, env
    title: str
    codes: tuple[str, ...]  # the findings it answers
    payload: Any  # Plan, SwitchPlan, or EnvSetting
    blocked: str | None = None  # why it cannot run automatically
    manual: tuple[str, ...] = ()  # what to do instead


@dataclass(frozen=True)
class EnvSetting:
    name: str
    value: str
    path: str | None  # the file the user named (--env-file); None: not named
    why: str

    @property
    def target(self) -> str:
        """How the file is read: fish (config.fish), envfile (.env), powershell (a .ps1 profile), else posix (.bashrc, .zshrc, .profile)."""
        return file_target(self.path)

    def line(self) -> str:
        """The assignment in the file's language, through gpudoctor.cmdline (raises cmdline.Unrenderable)."""
        from gpudoctor.cmdline import SetEnv, render, render_envfile

        if self.target == "envfile":
            return render_envfile([(self.name, self.value)]).rstrip("\n")
        return render(SetEnv(self.name, self.value), self.target)


def file_target(path: str | None) -> str:
    base = os.path.basename(path or "")
    if base.endswith(".fish"):
        return "fish"
    if base == ".env" or base.endswith(".env"):
        return "envfile"
    if base.endswith(".ps1"):
        return "powershell"
    return "posix"


def offered(facts: Facts, findings: Sequence[Finding], ctx: Context) -> dict[str, str]:
    """finding code -> the kind of fix `gpudoctor fix` offers for it on this machine: what the plan labels
    "gpudoctor fix can apply this". A reinstall that cannot be chosen (no build fits, no target) is not
    offered; a switch that needs root or an env fix that needs --env-file is (fix says what it needs)."""
    from gpudoctor.planner.machine import env_from_facts

    out: dict[str, str] = {}
    for fix in propose(facts, findings, ctx, env=env_from_facts(facts)):
        if fix.kind == "reinstall" and fix.blocked:
            continue
        for code in fix.codes:
            out.setdefault(code, fix.kind)
    return out


def _current_version(facts: Facts, framework: str) -> str | None:
    """The installed version (2.2.1+cu121): the plan keeps its release where a build of it fits."""
    value = value_or_none(getattr(facts.frameworks, framework))
    if value is None:
        return None
    return value.jax if framework == "jax" else value.version


def _reinstall(
    facts: Facts,
    ctx: Context,
    env: TargetEnv,
    framework: str,
    codes: tuple[str, ...],
    index_url: str | None = None,
    target: Target | None = None,
) -> Fix:
    """The framework step of the plan (checks.frameworks.framework_plan: the same choice the plan prints),
    for the environment fix installs into."""
    from gpudoctor.checks.frameworks import framework_plan

    options = Options(index_url=index_url, target=target or Target())
    try:
        plan, _ = framework_plan(facts, ctx, framework, _current_version(facts, framework), env=env, options=options, refuse=True)
    except TargetNeeded as exc:  # no GPU or driver seen and none named: choosing a CUDA build would be a guess
        return Fix(
            "reinstall",
            f"reinstall {TITLES[framework]}",
            codes,
            None,
            blocked=exc.message,
            manual=(f"rerun gpudoctor fix and {exc.hint}",),
        )
    if plan.fits and plan.steps and not plan.manual:
        return Fix("reinstall", f"reinstall {plan.chosen.build.label}", codes, plan)
    why = f"no {TITLES[framework]} build fits this machine without manual steps"
    return Fix("reinstall", f"reinstall {TITLES[framework]}", codes, plan, blocked=why, manual=tuple(plan.manual or plan.upgrade))


def _link_decides(facts: Facts, code: str) -> bool:
    """Whether re-pointing /usr/local/cuda changes what the finding is about (not an nvcc elsewhere on PATH, not CUDA_HOME)."""
    if code == "cuda-link-dangling":
        return True
    nvcc = facts.toolkits.nvcc_on_path
    through_link = nvcc is None or nvcc.startswith(LINK + "/")
    if code == "toolkit-torch-major-mismatch":
        env = facts.platform.env
        return through_link and not (env.get("CUDA_HOME") or env.get("CUDA_PATH"))
    return through_link


def switch_target(facts: Facts, ctx: Context, codes: Sequence[str]) -> Toolkit | None:
    """The toolkit the toolkit findings name (gpudoctor.checks.toolkit.toolkit_target: one decision)."""
    from gpudoctor.checks.toolkit import toolkit_target

    return toolkit_target(facts, ctx)


def _switch(facts: Facts, ctx: Context, codes: tuple[str, ...], is_root: bool, alternatives) -> Fix | None:
    from gpudoctor import switch_cuda as sc

    codes = tuple(c for c in codes if _link_decides(facts, c))
    if not codes:
        return None
    target = switch_target(facts, ctx, codes)
    if target is None or facts.toolkits.link.resolved == target.root:
        return None
    plan = sc.plan_switch(
        facts,
        target.root,
        sc.SYSTEM,
        is_root=is_root,
        rerun_argv=("gpudoctor", "switch-cuda", target.root),
        alternatives=alternatives,
    )
    title = f"switch {LINK} to CUDA {target.version} ({target.root})"
    if plan.refusal:
        return Fix("switch-cuda", title, codes, plan, blocked=plan.refusal, manual=plan.manual)
    return Fix("switch-cuda", title, codes, plan)


def _env_settings(facts: Facts, findings: Sequence[Finding], ctx: Context, env_file: str | None) -> list[tuple[EnvSetting, str]]:
    have = facts.platform.env
    out: dict[str, tuple[EnvSetting, str]] = {}
    controls: set[str] | None = None  # the matrix is loaded only when a finding sets a variable (~30 ms at every check otherwise)
    for f in findings:
        if f.code == "gpu-memory-held":
            for fw, (name, value) in PREALLOCATION_OFF.items():
                if value_or_none(getattr(facts.frameworks, fw)) is not None and name not in have:
                    why = f"{TITLES[fw]} preallocates GPU memory that other processes hold: allocate on demand instead"
                    out.setdefault(name, (EnvSetting(name, value, env_file, why), f.code))
        # Any finding that asks for an allocator variable the matrix knows: its first assignment
        # (the later ones are alternatives, such as a memory fraction instead of no preallocation).
        for cmd in f.remediation.commands if f.remediation else ():
            if isinstance(cmd, SetEnv) and cmd.value is not None:
                if controls is None:
                    controls = {c.name for m in ctx.matrix.memory for c in m.controls if c.kind == "env"}
                if cmd.name not in controls:
                    continue
                if cmd.name not in have:
                    out.setdefault(cmd.name, (EnvSetting(cmd.name, cmd.value, env_file, f.title), f.code))
                break
    return list(out.values())


def propose(
    facts: Facts,
    findings: Sequence[Finding],
    ctx: Context,
    *,
    env: TargetEnv,
    env_file: str | None = None,
    is_root: bool = False,
    alternatives=None,
    index_url: str | None = None,
    target: Target | None = None,
) -> list[Fix]:
    """`index_url`: the user's package index (a mirror; {variant} as for install), used by reinstalls and their undo lines.
    `target`: what the person said the build is for (--gpu/--driver/--cuda/--cpu), where the probes could not see it."""
    fixes: list[Fix] = []
    serious = [f for f in findings if f.severity >= Severity.WARNING]
    by_framework: dict[str, list[str]] = {}
    for f in serious:
        # The framework the plan's step reinstalls: a finding whose step is elsewhere (a system cuDNN, a
        # loader path) is not a reinstall, whatever its code.
        r = f.remediation
        fw = r.component if r is not None and finding_applies(f) == "reinstall" else None
        if fw and f.code not in by_framework.setdefault(fw, []):
            by_framework[fw].append(f.code)
    for fw, codes in by_framework.items():
        fixes.append(_reinstall(facts, ctx, env, fw, tuple(codes), index_url, target))
    switch_codes = tuple(dict.fromkeys(f.code for f in serious if finding_applies(f) == "switch-cuda"))
    if switch_codes:
        fix = _switch(facts, ctx, switch_codes, is_root, alternatives)
        if fix:
            fixes.append(fix)
    for setting, code in _env_settings(facts, findings, ctx, env_file):
        title = f"set {setting.name}={setting.value}" + (f" in {setting.path}" if setting.path else "")
        try:
            line = setting.line()
        except Unrenderable as exc:
            fixes.append(Fix("env", title, (code,), setting, blocked=f"the value cannot be written there: {exc}"))
            continue
        if setting.path is None:
            fixes.append(
                Fix(
                    "env",
                    title,
                    (code,),
                    setting,
                    blocked="no file named to write it to",
                    manual=(f"rerun with --env-file FILE (your shell's rc file, or a .env file), or add: {line}",),
                )
            )
        else:
            fixes.append(Fix("env", title, (code,), setting))
    return fixes


# --- the env file ------------------------------------------------------------------------


def _assigns(line: str, name: str) -> bool:
    """Whether a line of the file sets `name`, in any of the languages gpudoctor writes (and `set -x`, `$env:`)."""
    n = re.escape(name)
    return re.match(rf"^\s*(export\s+|set\s+(-[a-zA-Z]+\s+)*|\$env:)?{n}(\s*=|\s)", line) is not None


def apply_env(setting: EnvSetting) -> str:
    """Add the setting to the named file; refuse to change a line the user wrote. Returns what happened.

    The file is changed through gpudoctor.userfile: through a symbolic link to its target, owner and
    mode kept, the old content kept as FILE.gpudoctor-bak, atomically (a temporary file renamed over it).
    """
    from gpudoctor import userfile

    assert setting.path
    path = os.path.expanduser(setting.path)
    text = userfile.read_text(path)
    wanted = setting.line()
    for line in text.splitlines():
        if _assigns(line, setting.name):
            if line.strip() == wanted:
                return f"{path} already has: {wanted}"
            raise UnsafeOperation(
                f"{path} already sets {setting.name} ({line.strip()}); left as it is", f"change it by hand to: {wanted}"
            )
    sep = "" if not text or text.endswith("\n") else "\n"
    # The comment says why in one line: no control character of a finding's title may end it early.
    why = " ".join(re.sub(r"[\x00-\x1f\x7f-\x9f]", " ", setting.why).split())
    comment = f"# {why} (gpudoctor fix)\n"  # docker's --env-file and systemd skip # lines too
    backup = userfile.write_preserving(path, f"{text}{sep}{comment}{wanted}\n")
    kept = f" (the previous content is in {backup})" if backup else ""
    return f"added to {path}: {wanted}{kept}"


def verify_env(setting: EnvSetting) -> bool:
    from gpudoctor import userfile

    return setting.line() in (line.strip() for line in userfile.read_text(os.path.expanduser(setting.path or "")).splitlines())


def fix_offers(report: Any, ctx: Context | None = None) -> dict[str, str]:
    """finding code -> the kind of fix `gpudoctor fix` offers for it (`offered`), judged with the matrix the
    report's findings were judged with (and, given, the Context that judged them: the choices its checks
    made are not made again). Without a finding that could be offered a fix, nothing more is loaded."""
    from gpudoctor.planner.offers import could_offer

    if not could_offer(report.findings):
        return {}
    return offered(report.facts, report.findings, ctx or Context(report.matrix_path))
