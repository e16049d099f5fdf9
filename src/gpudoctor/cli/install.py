"""`gpudoctor install` and `gpudoctor fix`: wiring only. The choice lives in gpudoctor.planner.plan,
the running in gpudoctor.install.apply, the fixes in gpudoctor.install.fix (docs/install.md)."""

from __future__ import annotations

import enum
import json
import sys

import typer

from gpudoctor.cli.common import positive_seconds
from gpudoctor.model import ExitCode

INSTALL_HELP = (
    "Install the PyTorch, TensorFlow or JAX build that fits this machine: the newest (or the VERSION asked) whose "
    "CUDA the driver runs and that has kernels for every GPU, for this Python and OS. Prints the plan with its "
    "reasons and the exact commands; runs them only after confirmation (--yes for scripts), then probes again, "
    "importing the framework, and says whether the GPU is usable.\n\n"
    "Exit status: 0 installed and the GPU is usable, or the plan printed (--dry-run, --replay); 1 no build fits, "
    "declined at the prompt, or installed but the GPU is not usable (the findings say why); 2 usage error, or no "
    "terminal to ask on and no --yes; 3 a command failed, or gpudoctor itself did."
)
FIX_HELP = (
    "Offer the safe automatic fixes of the current findings, one by one: reinstall a framework build that does not "
    "fit, switch the CUDA toolkit (/usr/local/cuda), set an allocator variable in a file you name (--env-file). "
    "Each is confirmed (--yes for all), run, and verified.\n\n"
    "Exit status: 0 every fix offered was applied and verified (or there was none); 1 one was declined, needs you "
    "(the reason is printed), or did not verify; 2 usage error, or no terminal to ask on and no --yes; 3 a fix failed."
)


class Framework(str, enum.Enum):
    torch = "torch"
    tensorflow = "tensorflow"
    jax = "jax"


class Installer(str, enum.Enum):
    pip = "pip"
    uv = "uv"


class Format(str, enum.Enum):
    text = "text"
    json = "json"


# Libraries that run on a framework: install names the framework instead.
_ON_TOP = {"keras": "tensorflow", "flax": "jax", "jaxlib": "jax", "torchvision": "torch", "lightning": "torch"}


def _framework(value: str | Framework) -> Framework:
    """FRAMEWORK as every command reads it (gpudoctor.model.FRAMEWORK_ALIASES): case-insensitive, with
    pytorch and tf; anything else a usage error with the closest name."""
    from gpudoctor.cli.common import did_you_mean
    from gpudoctor.model import FRAMEWORK_ALIASES

    if isinstance(value, Framework):
        return value
    name = FRAMEWORK_ALIASES.get(value.strip().lower())
    if name is not None:
        return Framework(name)
    on = _ON_TOP.get(value.strip().lower())
    if on is not None:
        raise typer.BadParameter(f"{value!r} is not a framework; it runs on {on}: gpudoctor install {on}")
    close = did_you_mean(value, list(FRAMEWORK_ALIASES))
    raise typer.BadParameter(f"{value!r} is not one of 'torch', 'tensorflow', 'jax'" + (f"; {close}" if close else ""))


def _probe_options(probe_timeout: float, python: str | None):
    from gpudoctor.probes import ProbeOptions

    return ProbeOptions(probe_timeout_s=probe_timeout, deadline_s=max(10.0, probe_timeout * 4), python=python)


def _terminal() -> bool:
    return sys.stdin.isatty()


def confirm(question: str, yes: bool) -> bool:
    """True to go ahead. Without --yes a terminal must be there to ask on (exit 2 otherwise)."""
    if yes:
        return True
    if not _terminal():
        typer.echo(
            "gpudoctor: error: not running anything without asking, and there is no terminal to ask on\n"
            "hint: rerun with --yes to go ahead, or with --dry-run to see the plan only",
            err=True,
        )
        raise typer.Exit(ExitCode.USAGE)
    return typer.confirm(question, default=False)


def _emit_json(doc: dict, code: int) -> None:
    from gpudoctor.planner.render import SCHEMA

    doc["schema"] = SCHEMA
    doc["exit_code"] = int(code)
    sys.stdout.write(json.dumps(doc, indent=2, sort_keys=True) + "\n")


def _refuse_without_target(exc, as_json: bool) -> None:
    """No GPU or no driver seen and no --gpu/--driver/--cuda/--cpu: a usage error (exit 2), never a guessed build."""
    if as_json:
        # One status for every error document, as docs/exit-codes.md says; exit_code 2 says it is a usage error.
        _emit_json({"status": "doctor-error", "error": exc.to_json(), "plan": None}, ExitCode.USAGE)
    else:
        typer.echo(f"gpudoctor: error: {exc.message}\nsay what the build is for:", err=True)
        from gpudoctor.planner.plan import TARGET_OPTIONS

        for option, meaning in TARGET_OPTIONS:
            typer.echo(f"  {option:<18} {meaning}", err=True)
    raise typer.Exit(ExitCode.USAGE)


def _ask_index(plan, host, offline: bool, replay: bool):
    """The plan with the package index's word on its wheel (install.online); offline and replays ask nothing."""
    from dataclasses import replace

    from gpudoctor.install import online

    if not plan.fits or not plan.steps:
        return plan
    if offline or replay:
        return replace(
            plan, online=online.confirm(plan, None, why_not="--offline" if offline else "a replayed machine is planned offline")
        )
    args = [a for s in plan.steps for a in s.argv]
    step_index = args[args.index("--index-url") + 1] if "--index-url" in args[:-1] else None
    index, why_not = online.index_for(plan, step_index, host)
    return replace(plan, online=online.confirm(plan, index, why_not=why_not))


def _install(
    framework,
    version,
    python,
    replay,
    yes,
    dry_run,
    reinstall,
    use,
    index_url,
    pip_args,
    output_format,
    probe_timeout,
    matrix,
    target=None,
    offline=False,
) -> None:
    from gpudoctor.checks import Context
    from gpudoctor.cli.common import make_host
    from gpudoctor.errors import GpudoctorError, UsageError
    from gpudoctor.install.apply import env_reader, failure_message, render_verification, run_plan, verify
    from gpudoctor.install.environment import read_env
    from gpudoctor.planner.model import Target
    from gpudoctor.planner.plan import Options, TargetNeeded, plan_install
    from gpudoctor.planner.render import render_plan
    from gpudoctor.probes import run_probes
    from gpudoctor.textfit import plain_width

    if replay and yes:
        raise typer.BadParameter("--replay plans for a recorded machine and never installs; drop --yes", param_hint="--yes")
    as_json = output_format is Format.json
    try:
        if python and not replay:
            from gpudoctor.cli.common import check_python

            check_python(python)
        from gpudoctor.cli.common import check_matrix_path

        check_matrix_path(matrix)
        host = make_host(replay)
        facts = run_probes(host, _probe_options(probe_timeout, python))
    except GpudoctorError as exc:
        if not as_json:
            raise
        # --format json: one document even when the machine (a snapshot) cannot be read.
        from gpudoctor.sanitize import clean_line

        code = ExitCode.USAGE if isinstance(exc, UsageError) else ExitCode.ERROR
        _emit_json(
            {
                "status": "doctor-error",
                "error": {"message": clean_line(exc.message), "hint": exc.hint and clean_line(exc.hint)},
                "plan": None,
            },
            code,
        )
        # The same lines on stderr as in text mode: a person reading a CI log sees why.
        sys.stderr.write(f"gpudoctor: error: {clean_line(exc.message)}\n")
        if exc.hint:
            sys.stderr.write(f"hint: {clean_line(exc.hint)}\n")
        raise typer.Exit(int(code)) from None
    env = read_env(host, facts)
    if python and env.python is None:
        why = getattr(facts.frameworks.python, "reason", None) or getattr(facts.frameworks.python, "message", "")
        raise GpudoctorError(f"cannot use --python {python}: {why}", "give the interpreter of the environment to install into")
    if use is Installer.uv and env.uv is None:
        from dataclasses import replace

        uv = host.which("uv")
        if uv is None and not replay:
            raise typer.BadParameter("uv is not on PATH", param_hint="--use")
        env = replace(env, uv=uv or "uv")
    ctx = Context(matrix)
    options = Options(
        reinstall=reinstall,
        installer=use.value if use else None,
        index_url=index_url,
        extra_args=tuple(pip_args),
        target=target or Target(),
    )
    try:
        plan = plan_install(facts, ctx, framework.value, version, env=env, options=options)
    except TargetNeeded as exc:
        _refuse_without_target(exc, as_json)
    except UsageError as exc:
        where = (
            exc.message.split(" ", 1)[0] if exc.message.startswith("--") else "VERSION"
        )  # --gpu/--driver/--cuda, else the version
        raise typer.BadParameter(exc.message + (f" ({exc.hint})" if exc.hint else ""), param_hint=where) from None
    plan = _ask_index(plan, host, offline, bool(replay))
    missing = plan.online is not None and plan.online.status == "missing"
    doc = {"plan": plan.to_json(), "replay": bool(replay), "ran": [], "verification": None}
    if not as_json:
        from gpudoctor.sanitize import clean

        # The plan quotes what it was given (--index-url, --pip-arg, paths): no character a terminal acts on gets through.
        sys.stdout.write(clean(render_plan(plan, replay=bool(replay), width=plain_width())))
    if missing and not (replay or dry_run):
        # The index says the wheel is not there: pip would fail after the plan started; run nothing.
        typer.echo("gpudoctor: not running the plan: the package index has no such wheel (--offline skips asking it)", err=True)
        if as_json:
            _emit_json(doc, ExitCode.FINDINGS)
        raise typer.Exit(int(ExitCode.FINDINGS))
    if replay or dry_run or not plan.fits or not plan.steps:
        code = ExitCode.OK if plan.fits else ExitCode.FINDINGS
        if as_json:
            _emit_json(doc, code)
        elif dry_run and plan.steps:
            typer.echo("dry run: nothing was run")
        raise typer.Exit(int(code))
    if not env.python:
        raise GpudoctorError("no Python environment to install into was found", "name its interpreter: --python PATH")
    if not confirm(f"Run {'this command' if len(plan.steps) == 1 else f'these {len(plan.steps)} commands'}?", yes):
        typer.echo("nothing was run", err=True)
        raise typer.Exit(1)
    out = sys.stderr if as_json else sys.stdout  # JSON keeps stdout for the one document
    outcome = run_plan(plan, out, env_reader(host, env.python, probe_timeout))
    doc["ran"] = [{"argv": list(r.argv), "rc": r.rc} for r in outcome.ran]
    if not outcome.ok:
        out.write(f"gpudoctor: {failure_message(plan, outcome)}\n")
        if outcome.restore is not None:
            doc["restored"] = {"argv": list(outcome.restore.argv or ()), "rc": outcome.restore.rc, "back": outcome.restore.back}
        if as_json:
            _emit_json(doc, ExitCode.ERROR)
        raise typer.Exit(ExitCode.ERROR)
    out.write("checking: probing again and importing the framework in a subprocess ...\n")
    v = verify(plan, host, _probe_options(probe_timeout, env.python), ctx)
    doc["verification"] = v.to_json()
    code = ExitCode.OK if (v.usable and v.matches) else ExitCode.FINDINGS
    if as_json:
        _emit_json(doc, code)
    else:
        sys.stdout.write(render_verification(plan, v))
    raise typer.Exit(int(code))


def register(app: typer.Typer) -> None:
    @app.command("install", help=INSTALL_HELP)
    def install(
        framework: str = typer.Argument(
            ...,
            metavar="FRAMEWORK",
            callback=_framework,
            autocompletion=lambda: [f.value for f in Framework],
            help="torch (or pytorch), tensorflow (or tf) or jax.",
        ),
        version: str | None = typer.Argument(
            None,
            metavar="[VERSION]",
            help="2.5, 2.5.1 or 2.5.1+cu124 (torch); 2.15 (tensorflow); 0.4.38 or 0.6 (jax). Default: the newest that fits.",
        ),
        python: str | None = typer.Option(
            None,
            "--python",
            metavar="PATH",
            help="The interpreter of the environment to install into (default: the active virtualenv or conda env, else python3 on PATH).",
        ),
        replay: str | None = typer.Option(
            None, "--replay", metavar="FILE", help="Plan for a recorded snapshot instead of this machine; never installs."
        ),
        yes: bool = typer.Option(False, "--yes", "-y", help="Run the plan without asking."),
        dry_run: bool = typer.Option(False, "--dry-run", help="Print the plan; run nothing."),
        reinstall: bool = typer.Option(False, "--reinstall", help="Install even when the chosen build is installed already."),
        use: Installer | None = typer.Option(
            None, "--use", help="The installer to run: pip, or uv (default: uv where it manages an environment without pip)."
        ),
        index_url: str | None = typer.Option(
            None,
            "--index-url",
            metavar="URL",
            help="Install from this package index (a mirror); for PyTorch, {variant} in it becomes the CUDA variant (cu126).",
        ),
        pip_args: list[str] = typer.Option(
            [],
            "--pip-arg",
            metavar="ARG",
            help="An extra argument for the install command (repeatable), e.g. --pip-arg=--no-deps.",
        ),
        output_format: Format = typer.Option(
            Format.text, "--format", "-f", help="text, or json (one document on stdout; the commands' output goes to stderr)."
        ),
        probe_timeout: float = typer.Option(
            5.0, "--probe-timeout", metavar="SECONDS", callback=positive_seconds, help="Time limit of each probe."
        ),
        matrix: str | None = typer.Option(
            None, "--matrix", metavar="DIR", help="Use this compatibility matrix instead of the bundled one."
        ),
        gpu: str | None = typer.Option(
            None,
            "--gpu",
            metavar="NAME|CC",
            help='The GPU the build is for, where none is seen here (or another): a name ("RTX 4090") or a compute capability (8.9).',
        ),
        driver: str | None = typer.Option(
            None,
            "--driver",
            metavar="VERSION",
            help="The NVIDIA driver the build will run on, where none is seen here (550.54.14).",
        ),
        cuda: str | None = typer.Option(
            None,
            "--cuda",
            metavar="VERSION",
            help="The CUDA version that driver runs (nvidia-smi's header, 12.4), where its version is not known.",
        ),
        cpu: bool = typer.Option(False, "--cpu", help="Install a CPU-only build."),
        offline: bool = typer.Option(False, "--offline", help="Do not ask the package index whether the chosen wheel exists."),
    ) -> None:
        from gpudoctor.planner.model import Target

        _install(
            _framework(framework),
            version,
            python,
            replay,
            yes,
            dry_run,
            reinstall,
            use,
            index_url,
            pip_args,
            output_format,
            probe_timeout,
            matrix,
            target=Target(gpu=gpu, driver=driver, cuda=cuda, cpu=cpu),
            offline=offline,
        )

    @app.command("fix", help=FIX_HELP)
    def fix(
        python: str | None = typer.Option(
            None, "--python", metavar="PATH", help="The interpreter of the environment to check and fix."
        ),
        env_file: str | None = typer.Option(
            None,
            "--env-file",
            metavar="FILE",
            help="Where an allocator variable may be written (your shell's rc file, or a .env file).",
        ),
        replay: str | None = typer.Option(
            None, "--replay", metavar="FILE", help="List the fixes for a recorded snapshot; never changes anything."
        ),
        yes: bool = typer.Option(False, "--yes", "-y", help="Apply every fix without asking."),
        dry_run: bool = typer.Option(False, "--dry-run", help="List the fixes; change nothing."),
        probe_timeout: float = typer.Option(
            5.0, "--probe-timeout", metavar="SECONDS", callback=positive_seconds, help="Time limit of each probe."
        ),
        matrix: str | None = typer.Option(
            None, "--matrix", metavar="DIR", help="Use this compatibility matrix instead of the bundled one."
        ),
        index_url: str | None = typer.Option(
            None,
            "--index-url",
            metavar="URL",
            help="Reinstall from this package index (a mirror), also in the undo line; for PyTorch, {variant} in it becomes the CUDA variant (cu126).",
        ),
        gpu: str | None = typer.Option(
            None,
            "--gpu",
            metavar="NAME|CC",
            help='The GPU a reinstalled build is for, where none is seen here: a name ("RTX 4090") or a compute capability (8.9).',
        ),
        driver: str | None = typer.Option(
            None,
            "--driver",
            metavar="VERSION",
            help="The NVIDIA driver a reinstalled build will run on, where none is seen here (550.54.14).",
        ),
        cuda: str | None = typer.Option(
            None,
            "--cuda",
            metavar="VERSION",
            help="The CUDA version that driver runs (nvidia-smi's header, 12.4), where its version is not known.",
        ),
        cpu: bool = typer.Option(False, "--cpu", help="Reinstall CPU-only builds."),
    ) -> None:
        from gpudoctor.cli.fix_run import run_fix
        from gpudoctor.planner.model import Target

        if replay and yes:
            raise typer.BadParameter(
                "--replay lists fixes for a recorded machine and never changes it; drop --yes", param_hint="--yes"
            )
        from gpudoctor.cli.common import check_matrix_path, check_python

        if python and not replay:
            check_python(python)
        check_matrix_path(matrix)
        if env_file and not replay and not dry_run:
            from gpudoctor.userfile import check_writable

            check_writable(env_file)  # a directory or a link loop is said now, not after the reinstall ran
        code = run_fix(
            _probe_options(probe_timeout, python),
            env_file=env_file,
            replay=replay,
            dry_run=dry_run,
            matrix=matrix,
            ask=lambda question: confirm(question, yes),
            index_url=index_url,
            target=Target(gpu=gpu, driver=driver, cuda=cuda, cpu=cpu),
        )
        raise typer.Exit(code)
