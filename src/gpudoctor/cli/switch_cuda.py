"""`gpudoctor switch-cuda`: list the toolkits, re-point /usr/local/cuda, or print code that switches one shell.

Wiring only: the decisions live in gpudoctor.switch_cuda (docs/switch-cuda.md).
"""

from __future__ import annotations

import os
import sys

import typer

from gpudoctor.cli.common import complete_toolkit_versions, positive_seconds
from gpudoctor.model import ExitCode

HELP = (
    "Switch between installed CUDA toolkits: system-wide (re-points /usr/local/cuda, atomically; needs root) "
    'or for this shell only: eval "$(gpudoctor switch-cuda 11.8 --shell)" (fish: gpudoctor switch-cuda 11.8 --shell fish | source; '
    "PowerShell: gpudoctor switch-cuda 11.8 --shell powershell | Invoke-Expression). On Windows, system-wide means "
    "the machine's CUDA_PATH and Path (Administrator), and --shell prints PowerShell (default) or cmd code "
    "(cmd: for /f \"delims=\" %i in ('gpudoctor switch-cuda 11.8 --shell cmd') do %i).\n\n"
    "VERSION as you would say it: 11.8 (newest 11.8.x), 12 (newest 12.x), 12.4.1 (exactly), or a toolkit directory.\n\n"
    "Exit status: 0 switched and checked, already active, --dry-run, --list or --shell; 1 declined at the prompt; "
    "2 usage error, or no terminal to ask on and no --yes; 3 refused (the message says why and what to do instead) or failed."
)


def _parse_words(words: list[str], shell: bool) -> tuple[str, str | None]:
    """VERSION, and with --shell an optional shell name on either side of it."""
    from gpudoctor.errors import UsageError
    from gpudoctor.switch_cuda import SHELL_NAMES, parse_request

    shells = [w for w in words if w in SHELL_NAMES] if shell else []
    versions = [w for w in words if w not in shells]
    if len(versions) != 1 or len(shells) > 1:
        raise typer.BadParameter(
            f"give one VERSION (with --shell, also at most one of: {', '.join(SHELL_NAMES)})", param_hint="VERSION"
        )
    from gpudoctor.host.winpath import is_windows_path

    if not versions[0].startswith("/") and not is_windows_path(versions[0]):
        try:
            parse_request(versions[0])
        except UsageError as exc:
            raise typer.BadParameter(f"{exc.message}; {exc.hint}", param_hint="VERSION") from None
    return versions[0], shells[0] if shells else None


def _rerun_argv(requested: str, root: str, argv0: str | None = None) -> list[str]:
    """This switch as root would run it: by absolute path, since sudo's PATH rarely holds a virtualenv's bin/."""
    argv0 = (sys.argv[0] if sys.argv else "") if argv0 is None else argv0
    program = [os.path.abspath(argv0)] if os.path.basename(argv0) == "gpudoctor" else [sys.executable, "-m", "gpudoctor"]
    return [*program, "switch-cuda", requested, *(["--root", root] if root != "/" else [])]


def _switch_system(plan, host, *, yes: bool, dry_run: bool, timeout_s: float) -> None:
    from gpudoctor import switch_cuda as sc

    tk = plan.target
    if plan.method == "none":
        typer.echo(f"{sc.LINK} already points to {tk.root} (CUDA {tk.version}); nothing to do")
        raise typer.Exit(ExitCode.OK)
    how = f" through update-alternatives ({plan.link.target})" if plan.method == "alternatives" else ""
    typer.echo(f"{sc.LINK}: {plan.previous or 'nothing'} -> {tk.root} (CUDA {tk.version}){how}")
    typer.echo("the same by hand: " + " && ".join(plan.commands()))
    if dry_run:
        typer.echo("dry run: nothing changed")
        raise typer.Exit(ExitCode.OK)
    _confirm_switch(yes)
    sc.apply_switch(plan, host.root)
    tks = sc.verify_switch(plan, host, timeout_s)
    typer.echo(f"done: {sc.LINK} -> {tk.root}, CUDA {tk.version} (checked)")
    typer.echo("to undo: " + " ; ".join(plan.undo()))
    stale = sc.stale_environment(tks, tk)
    if stale:
        lines = "\n".join(f"  {s}" for s in stale)
        typer.echo(
            f"note: this environment still names another toolkit:\n{lines}\n"
            f"switch this shell too: {sc.eval_hint(plan.requested)}",
            err=True,
        )


def _switch_windows(facts, requested: str | None, shell: bool, shell_name: str | None, *, yes: bool, dry_run: bool) -> None:
    """Native Windows: CUDA_PATH and PATH, for this shell (PowerShell, cmd) or machine-wide (Administrator)."""
    from gpudoctor import cmdline
    from gpudoctor import switch_cuda_windows as sw
    from gpudoctor.errors import GpudoctorError, UnsafeOperation, UsageError

    if requested is None:
        sys.stdout.write(sw.render_list(facts))
        raise typer.Exit(ExitCode.OK)
    plan = sw.plan_windows_switch(facts, requested)
    if plan.refusal or plan.target is None:
        error = GpudoctorError if plan.target is None else UnsafeOperation
        raise error(plan.refusal or f"CUDA {requested} is not installed", "\n".join(plan.manual) or None)
    tk = plan.target
    if shell:
        name = "powershell" if shell_name in (None, "posix") else shell_name
        if name not in sw.WINDOWS_SHELLS:
            raise UsageError(f"--shell {name} is not a Windows shell", "name powershell or cmd")
        try:
            sys.stdout.write(sw.render_shell(plan.env, name))
        except cmdline.Unrenderable as exc:
            raise UsageError(f"this environment cannot be written as {name} code: {exc}") from None
        typer.echo(f"gpudoctor: this shell: CUDA {tk.version} from {tk.root}", err=True)
        raise typer.Exit(ExitCode.OK)
    env = sw.RegistryEnvironment()
    change = sw.plan_machine(env, tk)
    previous = sw.toolkit_version_at(facts, change.cuda_path[0])
    typer.echo(f"machine CUDA_PATH: {change.cuda_path[0] or 'unset'} -> {change.cuda_path[1]}")
    typer.echo(f"machine Path: toolkit folders removed, {tk.version}'s bin and libnvvp first ({change.path[1][:120]}...)")
    if dry_run:
        typer.echo("dry run: nothing changed")
        raise typer.Exit(ExitCode.OK)
    if not sw.is_admin():
        raise UnsafeOperation(
            "changing the machine environment needs Administrator rights",
            "run it in an Administrator PowerShell, or switch this shell only: "
            + cmdline.render(cmdline.EvalShell(("gpudoctor", "switch-cuda", requested)), "powershell"),
        )
    _confirm_switch(yes)
    sw.apply_machine(env, change)
    typer.echo(f"done: machine CUDA_PATH -> {change.cuda_path[1]} (CUDA {tk.version}); open a new terminal to use it")
    # The commands alone on the line (a note line joined in would comment out what follows it).
    undo = " ; ".join(cmdline.render(c, "powershell") for c in sw.undo_lines(change, previous))
    typer.echo(f"to undo (as Administrator): {undo}")
    raise typer.Exit(ExitCode.OK)


def register(app: typer.Typer) -> None:
    @app.command("switch-cuda", help=HELP)
    def switch_cuda(
        words: list[str] | None = typer.Argument(
            None,
            metavar="VERSION [SHELL]",
            autocompletion=complete_toolkit_versions,
            help="11.8, 12, 12.4.1 or a toolkit directory; with --shell, optionally posix (also sh, bash, zsh), fish, powershell or cmd (Windows).",
        ),
        list_toolkits: bool = typer.Option(
            False, "--list", help="List every toolkit, its full version, and which is active through what."
        ),
        shell: bool = typer.Option(
            False,
            "--shell",
            help="Print code that switches this shell only, in the syntax named after it: posix (the default; bash, zsh, sh), fish or powershell; on Windows powershell (the default) or cmd. No root needed.",
        ),
        yes: bool = typer.Option(False, "--yes", "-y", help="Switch without asking."),
        dry_run: bool = typer.Option(False, "--dry-run", help="Print the plan; change nothing."),
        probe_timeout: float = typer.Option(
            5.0, "--probe-timeout", metavar="SECONDS", callback=positive_seconds, help="Time limit of each probe."
        ),
        root: str = typer.Option("/", "--root", hidden=True, help="Treat DIR as / (tests and chroots)."),
    ) -> None:
        from gpudoctor import switch_cuda as sc
        from gpudoctor.checks import Context
        from gpudoctor.cmdline import Unrenderable
        from gpudoctor.errors import GpudoctorError, UnsafeOperation, UsageError
        from gpudoctor.host.live import LiveHost
        from gpudoctor.probes import ProbeOptions, run_probes

        requested, shell_name = "", None

        if list_toolkits and (words or shell or dry_run):
            raise typer.BadParameter("--list takes no VERSION, --shell or --dry-run", param_hint="--list")
        if not list_toolkits:
            requested, shell_name = _parse_words(words or [], shell)
            if shell and dry_run:
                raise typer.BadParameter("--shell changes nothing, so there is nothing to dry-run", param_hint="--dry-run")
            # POSIX unless named: $SHELL is the login shell, not necessarily the one that evaluates the code.
            shell_name = shell_name or ("posix" if shell else None)
        host = LiveHost(root=root)
        facts = run_probes(host, ProbeOptions(probe_timeout_s=probe_timeout, deadline_s=max(10.0, probe_timeout * 4)))
        if facts.windows is not None:
            _switch_windows(facts, None if list_toolkits else requested, shell, shell_name, yes=yes, dry_run=dry_run)
        if list_toolkits:
            sys.stdout.write(sc.render_list(facts))
            raise typer.Exit(ExitCode.OK)
        if shell_name == "cmd":
            raise UsageError("--shell cmd is for Windows", "name posix, fish or powershell")

        if requested.startswith("/"):
            requested = host.realpath(requested) or requested
        link = facts.toolkits.link
        plan = sc.plan_switch(
            facts,
            requested,
            sc.SHELL if shell else sc.SYSTEM,
            is_root=sc.may_change_link(host, link),
            rerun_argv=_rerun_argv(requested, root),
            alternatives=None if shell else sc.query_alternatives(host.root, link),
            lib_dirs=sc.library_dirs(host, facts.toolkits.toolkits) if shell else None,
        )
        if not plan.refusal and not shell and plan.target is not None:
            plan = sc.refuse_untrusted_target(plan, host)
        if plan.refusal:
            # Nothing to switch to is the user's request failing (exit 3, as docs/switch-cuda.md says: the
            # arguments were well-formed); the rest are refusals to do something unsafe.
            error = GpudoctorError if plan.target is None else UnsafeOperation
            raise error(plan.refusal, "\n".join(plan.manual) or None)
        # Without a refusal a plan names its target (plan_switch refuses when there is none).
        assert plan.target is not None
        for note in plan.notes:
            typer.echo(f"note: {note}", err=True)
        try:
            warnings = [f.title for f in sc.switch_warnings(facts, plan.target, Context())]
        except Exception as exc:  # noqa: BLE001 - the warnings advise; a crashing check must not block a switch
            warnings = [f"could not judge CUDA {plan.target.version} against the driver and GPU ({type(exc).__name__}: {exc})"]
        for warning in warnings:
            typer.echo(f"warning: {warning}", err=True)
        if shell:
            assert shell_name is not None  # "posix" unless named, above
            try:
                code = sc.render_shell(plan.env, shell_name)
            except Unrenderable as exc:
                raise UsageError(f"this environment cannot be written as {shell_name} code: {exc}") from None
            sys.stdout.write(code)
            typer.echo(f"gpudoctor: this shell: CUDA {plan.target.version} from {plan.target.root}", err=True)
            raise typer.Exit(ExitCode.OK)
        _switch_system(plan, host, yes=yes, dry_run=dry_run, timeout_s=probe_timeout)


def _confirm_switch(yes: bool) -> None:
    """Go on only with --yes or a "yes" typed on a terminal; both switch paths (link, Windows) ask alike."""
    if yes:
        return
    if not sys.stdin.isatty():
        typer.echo(
            "gpudoctor: error: not switching without asking, and there is no terminal to ask on\n"
            "hint: rerun with --yes to switch, or with --dry-run to see the plan only",
            err=True,
        )
        raise typer.Exit(ExitCode.USAGE)
    if not typer.confirm("Switch?", default=False):
        typer.echo("nothing changed", err=True)
        raise typer.Exit(1)  # declined: documented as its own status
