"""Where the reporter's commands run: the shell they type them into and the interpreter of every Python step.

Decided once, from what the paste showed (its cues, gpudoctor.pasted.cues, and the snapshot it became), and used by
everything printed for it: the plan's steps (gpudoctor.pipeline renders them for `shell`) and the asks
(gpudoctor.pasted.ask). Commands stay data (gpudoctor.cmdline renders them for the shell).

- Shell: a PowerShell prompt (`PS C:\\...>`) makes `powershell`; a cmd.exe prompt (`C:\\...>`) `cmd`; any other
  Windows paste `windows`, one line that cmd.exe and PowerShell both run alike (the webuis' launchers are .bat
  files: their users' shell is often cmd.exe, where a single-quoted `python -c '...'` is not one argument); WSL and
  the rest a POSIX shell. A machine gpudoctor probed itself keeps its platform's shell (cmdline.shell_for_os).
- Interpreter: the snapshot's (gpudoctor.planner.remedy.python_exe: the python.exe an app runs, a venv's or conda
  environment's bin/python the traceback shows, else the platform's usual name). A question about a program that
  ran in an image the paste starts with `docker run --gpus` is asked of that image: the host's interpreter does not
  hold the packages that failed.
- Packages of a conda environment (the paste says one holds the program, or shows a conda prefix or a conda-forge
  build) are listed by `conda list`, which shows conda's builds and pip's packages alike; `pip list` shows neither
  a conda package's CUDA build nor a conda-forge binary such as llama.cpp.
"""

from __future__ import annotations

from gpudoctor.cmdline import Cmd, shell_for_os
from gpudoctor.facts import CONDA_ENV_SAID, CONDA_FORGE_BUILD, IMAGE_RUN, OS_NOT_NAMED, Facts
from gpudoctor.probed import Found

_PS_PROMPT = "PowerShell prompt"
_CMD_PROMPT = "cmd.exe prompt"


def shell(facts: Facts) -> str:
    """The cmdline target the printed commands are written for."""
    system = facts.platform.system
    cues = {c.get("cue") for c in facts.pasted.cues}
    if facts.pasted.partial and OS_NOT_NAMED in cues:
        return "any"  # Linux was assumed: a Windows user pastes the same lines (cmdline's `any`)
    if not facts.pasted.partial or not (system or "").lower().startswith("win"):
        return shell_for_os(system)
    if _PS_PROMPT in cues and _CMD_PROMPT not in cues:
        return "powershell"
    if _CMD_PROMPT in cues and _PS_PROMPT not in cues:
        return "cmd"
    return "windows"


def image(facts: Facts) -> dict[str, str] | None:
    """The image the paste runs its GPU program from (`means`: the image, `container`: its name where given)."""
    if not facts.pasted.partial:
        return None
    return next((c for c in facts.pasted.cues if c.get("cue") == IMAGE_RUN), None)


def python_step(facts: Facts, *args: str) -> Cmd:
    """A read-only Python command in the interpreter the paste's program runs: in its image where it ran in one and
    the paste showed no interpreter of its own, else the snapshot's interpreter."""
    from gpudoctor.planner.remedy import python_exe

    py = python_exe(facts)
    img = image(facts)
    if img is not None and py in _USUAL:
        return Cmd(("docker", "run", "--rm", "--gpus", "all", "--entrypoint", "python3", img["means"], *args))
    return Cmd((py, *args))


# The platform's usual interpreter names: what python_exe answers where the paste showed none.
_USUAL = ("python", "python3")


def conda(facts: Facts) -> bool:
    """Whether the program's packages are a conda environment's."""
    py = facts.frameworks.python
    if isinstance(py, Found) and py.value.kind == "conda":
        return True
    return any(c.get("cue") in (CONDA_ENV_SAID, CONDA_FORGE_BUILD) for c in facts.pasted.cues)


def conda_forge_packages(facts: Facts) -> list[str]:
    """conda-forge packages whose build paths the paste shows (their build string names the CUDA they were built for)."""
    return list(dict.fromkeys(c.get("means") or "" for c in facts.pasted.cues if c.get("cue") == CONDA_FORGE_BUILD))
