"""`gpudoctor completion SHELL`: print the shell's tab-completion script (docs/completion.md).

The script calls `gpudoctor` back with `_GPUDOCTOR_COMPLETE=complete_<shell>` set; `main()` then lets
typer answer with the candidates instead of running a command (`enable_protocol`). The script text
and the protocol both come from the installed typer, so the two always match each other.
"""

from __future__ import annotations

import enum

import typer

# The variable typer's completion protocol uses: `_<PROG NAME>_COMPLETE`, derived from prog_name="gpudoctor".
COMPLETE_VAR = "_GPUDOCTOR_COMPLETE"


class Shell(str, enum.Enum):
    bash = "bash"
    zsh = "zsh"
    fish = "fish"
    powershell = "powershell"


def enable_protocol() -> None:
    """Register typer's per-shell completion classes, which answer in the format its scripts read.

    Without this, click's own classes answer (typer's app has add_completion=False, so nothing else
    registers them), and their output format is not the one typer's scripts parse.
    """
    from typer._completion_classes import completion_init

    completion_init()


def script(shell: Shell) -> str:
    from typer._completion_shared import get_completion_script

    return get_completion_script(prog_name="gpudoctor", complete_var=COMPLETE_VAR, shell=shell.value) + "\n"


def register(app: typer.Typer) -> None:
    @app.command(
        "completion",
        help=(
            "Print the tab-completion script for SHELL (bash, zsh, fish or powershell).\n\n"
            'Load it in the current shell: bash: eval "$(gpudoctor completion bash)"; '
            'zsh: eval "$(gpudoctor completion zsh)" (after compinit); '
            "fish: gpudoctor completion fish | source; "
            "PowerShell: gpudoctor completion powershell | Out-String | Invoke-Expression. "
            "To keep it, put that line in the shell's start-up file (docs/completion.md)."
        ),
    )
    def completion(shell: Shell = typer.Argument(..., help="bash, zsh, fish or powershell.")) -> None:
        import sys

        sys.stdout.write(script(shell))
