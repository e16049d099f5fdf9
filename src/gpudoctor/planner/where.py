"""Where the reporter's commands run: the shell they type them into and the interpreter of every Python step.

Decided once, from what the paste showed (its cues, gpudoctor.pasted.cues, and the snapshot it became), and used by
everything printed for it: the plan's steps (gpudoctor.pipeline renders them for `shell`) and the asks
(gpudoctor.pasted.ask). Commands stay data (gpudoctor.cmdline renders them for the shell).

- Shell: a shell's own error text (PowerShell's error record, cmd.exe's "is not recognized as an internal or external
  command") names the shell that ran the line; else a PowerShell prompt (`PS C:\\...>`) makes `powershell`; a cmd.exe
  prompt (`C:\\...>`) `cmd`; any other
  Windows paste `windows`, one line that cmd.exe and PowerShell both run alike (the webuis' launchers are .bat
  files: their users' shell is often cmd.exe, where a single-quoted `python -c '...'` is not one argument); WSL and
  the rest a POSIX shell. A machine gpudoctor probed itself keeps its platform's shell (cmdline.shell_for_os).
- Interpreter: the snapshot's (gpudoctor.planner.remedy.python_exe: the python.exe an app runs, a venv's or conda
  environment's bin/python the traceback shows, else the platform's usual name; where that is the usual name and a
  console script started the program, `console_script` and `shebang`: the question that reads its #! line). A question about a program that
  ran in an image the paste starts with `docker run --gpus` is asked of that image: the host's interpreter does not
  hold the packages that failed. An Apptainer/Singularity image the paste names (run, shelled into, or built) is
  asked with `exec --nv`, with the interpreter a traceback shows (a path inside the image, where the program ran).
- Tool: the one that manages the program's environment where the paste shows one run (gpudoctor.pasted.cues,
  PROJECT_TOOL): every package step is written in that tool's own commands (`package_step`), its pins unchanged. A uv
  project: `uv add` / `uv remove` (a uv project's .venv has no pip, and `uv run` locks and syncs the environment back
  to uv.lock before it runs anything: docs/concepts/projects/sync.md, astral-sh/uv @0.8.15), `uv pip` in the project
  for what `uv add` cannot say (--no-deps, a dry run, a listing); a venv uv made: `uv pip --python <its python>`
  (`--force-reinstall` is uv's alias of `--reinstall`, astral-sh/uv#1045; uv never prompts, so no `-y`); poetry:
  `poetry add` / `poetry remove`, else `poetry run python -m pip`; pipenv: `pipenv install` / `pipenv uninstall`,
  else `pipenv run python -m pip`; a notebook (Colab, a cell's `!pip`) off Windows: `%pip`, which installs into the
  kernel's own interpreter (IPython's %pip magic), not the first pip on a shell's PATH (Colab has no other shell). A
  plain venv keeps its interpreter's pip.
- Packages of a conda environment (the paste says one holds the program, or shows a conda prefix or a conda-forge
  build) are listed by `conda list`, which shows conda's builds and pip's packages alike; `pip list` shows neither
  a conda package's CUDA build nor a conda-forge binary such as llama.cpp.
"""

from __future__ import annotations

import dataclasses
import re

from gpudoctor.cmdline import Cmd, Placeholder, shell_for_os
from gpudoctor.facts import (
    CONDA_ENV_SAID,
    CONDA_FORGE_BUILD,
    CONSOLE_SCRIPT,
    CONTAINER_NAMED,
    ENV_PROMPT,
    EXEC_NAMED,
    IMAGE_RUN,
    KUBECTL_POD,
    LOGGED_SERVICE,
    OS_NOT_NAMED,
    PROGRAM_IMAGE,
    PROJECT_TOOL,
    Facts,
)
from gpudoctor.planner.cluster import ADMINISTRATORS, cluster_node
from gpudoctor.probed import Found

_PS_PROMPT = "PowerShell prompt"
_CMD_PROMPT = "cmd.exe prompt"
# A shell's own error text (gpudoctor.pasted.cues.CMD_OWN_ERROR, PS_OWN_ERROR): that shell ran the reporter's line,
# which a prompt's look only suggests (PowerShell's prompt can be customised to look like cmd.exe's).
_CMD_ERROR = "cmd.exe's own error"
_PS_ERROR = "PowerShell's own error"


def shell(facts: Facts) -> str:
    """The cmdline target the printed commands are written for."""
    system = facts.platform.system
    cues = {c.get("cue") for c in facts.pasted.cues}
    if tool(facts) == "notebook" and not _windows(facts):
        # Colab, or cells that install (`!pip`, `%pip`): every line a cell's (`!cmd`, `%pip`, Python), as the
        # reporter types them (Colab has no other shell); on Windows a cell's `!` line is cmd.exe's, not written here
        return "cell"
    if facts.pasted.partial and OS_NOT_NAMED in cues:
        return "any"  # Linux was assumed: a Windows user pastes the same lines (cmdline's `any`)
    if not facts.pasted.partial or not (system or "").lower().startswith("win"):
        return shell_for_os(system)
    if _PS_ERROR in cues and _CMD_ERROR not in cues:
        return "powershell"
    if _CMD_ERROR in cues and _PS_ERROR not in cues and _PS_PROMPT not in cues:
        return "cmd"
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


def program_image(facts: Facts) -> dict[str, str] | None:
    """The image the paste's program runs in where no `docker run --gpus` names it (facts.PROGRAM_IMAGE): a docker run
    without GPUs, a Dockerfile's image (`means` ""), an Apptainer/Singularity image (`runtime`, and the `python` its
    command ran); None where the paste shows none."""
    if not facts.pasted.partial:
        return None
    return next((c for c in facts.pasted.cues if c.get("cue") == PROGRAM_IMAGE), None)


# The runtimes whose images are files run with `exec` (Apptainer, and Singularity before its rename).
_SIF = ("singularity", "apptainer")


def _image_to_wrap(facts: Facts) -> dict[str, str] | None:
    """The image a program's questions are wrapped in (program_image), except an Apptainer/Singularity image whose file
    the paste does not name: a plan's step with <sif-file> in it would turn every step after it into prose, so those
    questions are asked as the paste shows them, and side_note says where."""
    built = program_image(facts)
    if built is not None and built.get("runtime") in _SIF and not built.get("means"):
        return None
    return built


def _image_name(built: dict[str, str]) -> str | Placeholder:
    """The image a PROGRAM_IMAGE cue names, else <image>: a Dockerfile's, the one the reporter built from it (an
    Apptainer image with no file named is asked as it is: python_step, placed)."""
    return built.get("means") or Placeholder("image")


def image_root(facts: Facts) -> bool:
    """Whether the paste shows its image run under sudo (the cue's `root`): a question asked of that image runs under
    it too, since a user outside the docker group cannot reach the daemon's socket (docs.docker.com, linux-postinstall:
    "Manage Docker as a non-root user"). Where the paste shows it run without sudo as well, the cue carries none."""
    return any(c.get("root") == "sudo" for c in (image(facts), program_image(facts)) if c is not None)


def python_exe(facts: Facts) -> str:
    """The probed interpreter's path (one argument, never quoted here: cmdline quotes it)."""
    env = facts.frameworks.python
    if isinstance(env, Found) and env.value.executable:
        return env.value.executable
    return "python" if _windows(facts) else "python3"


def python_step(facts: Facts, *args: str) -> Cmd:
    """A read-only Python command in the interpreter the paste's program runs: in its image where it ran in one and
    the paste showed no interpreter of its own; pip's through the environment's tool (package_step); through the
    project's tool where one manages it (`uv run --no-sync`: asked of the environment as it is, not synced first);
    else the snapshot's interpreter."""
    py = python_exe(facts)
    img = image(facts)
    if img is not None and py in _USUAL:
        return Cmd(
            ("docker", "run", "--rm", "--gpus", "all", "--entrypoint", "python3", img["means"], *args), root=image_root(facts)
        )
    if (built := _image_to_wrap(facts)) is not None and not exec_prefix(facts):
        if built.get("runtime") in _SIF:
            # the image's own interpreter, with the host's driver bound in (--nv), as the program would need it; an
            # interpreter a traceback shows is a path inside the image (the program ran there), so it runs there too
            own = py if py not in _USUAL else built.get("python") or "python3"
            return Cmd((built["runtime"], "exec", "--nv", built["means"], own, *args), root=image_root(facts))
        if py in _USUAL:
            # (a Dockerfile's image is the one the reporter built from it: its name is theirs to fill in)
            name: str | Placeholder = _image_name(built)
            gpus = ("--gpus", "all") if built.get("gpus") else ()
            return Cmd(("docker", "run", "--rm", *gpus, "--entrypoint", "python3", name, *args), root=image_root(facts))
    if args[:2] == ("-m", "pip") and len(args) > 2:
        return package_step(facts, *args[2:])
    t = tool(facts)
    if py in _USUAL and t in _RUNNERS:
        return Cmd((*_RUNNERS[t], *args))
    return Cmd((*exec_prefix(facts), py, *args))


# What reads the program's own environment rather than the machine's: its variables, its loader's cache, what a library
# of it links. Inside a container or an image they are the container's, and the host's answer says nothing of them.
_PROGRAM_SIDE = frozenset({"printenv", "ldconfig", "ldd"})
# The folder of the cuda-compat package (the forward-compatibility libcuda CUDA images carry): what the program's loader
# may pick up, so a listing of it is the image's, never the host's (h231: an `ls` of it asked on the host says nothing).
_PROGRAM_FOLDERS = ("/usr/local/cuda/compat",)
# The shared memory a container is given (its own /dev/shm tmpfs, 64 MB unless run with --shm-size or ipc: host: Docker
# CLI reference, "docker container run", --shm-size; a pod's, an emptyDir of medium Memory): its size is read inside,
# and the host's says nothing of it (blind set 20's plans20/2075: the container's /dev/shm decides NCCL's transport).
_PROGRAM_MOUNTS = ("/dev/shm",)


def reads_program(argv: tuple | list) -> bool:
    """Whether a command reads the program's own environment (_PROGRAM_SIDE: its variables, its loader), which inside a
    container is the container's."""
    return bool(argv) and str(argv[0]) in _PROGRAM_SIDE


# The loader reads of NVIDIA's container runtime hook, which runs on the host (nvidia-container-cli reads the host's
# ldconfig cache to find the driver's libraries it mounts; nvidia-docker 1's wrapper the host's driver volume;
# Apptainer's --nv the host's cache, by its etc/nvliblist.conf): there the host's loader is the one asked.
_HOST_LOADER = frozenset({"ldconfig", "ldd"})
# (nvidia-docker 1's wrapper logs as "nvidia-docker | ..."; Apptainer's --nv says "Could not find any nv files on this
# host" when the host's ldconfig cache lists none of the driver's libraries)
_HOOKS = ("nvidia-container-cli", "nvidia-docker |", "nv files on this host")


def placed(facts: Facts, cmd: Cmd) -> Cmd:
    """A question about the program's own environment (_PROGRAM_SIDE) asked where the paste's program runs: in its
    container (exec_prefix), the image it ran (IMAGE_RUN, PROGRAM_IMAGE: that image run with the program as its
    entrypoint); as it is on the host, where the paste shows none, where its note already says where, and for a loader
    read where the failure is the container runtime's hook (it runs on the host)."""
    program = str(cmd.argv[0])
    listing = program == "ls" and any(str(a).startswith(_PROGRAM_FOLDERS) for a in cmd.argv[1:])
    listing = listing or (program == "df" and any(str(a).startswith(_PROGRAM_MOUNTS) for a in cmd.argv[1:]))
    if cmd.note or (program not in _PROGRAM_SIDE and not listing):
        return cmd
    if program in _HOST_LOADER and any(w in e.line for e in facts.pasted.errors for w in _HOOKS):
        return cmd
    rest = cmd.argv[1:]
    root = image_root(facts)
    if (img := image(facts)) is not None:
        return Cmd(
            ("docker", "run", "--rm", "--gpus", "all", "--entrypoint", program, img["means"], *rest), pipe=cmd.pipe, root=root
        )
    if prefix := exec_prefix(facts):
        return Cmd((*prefix, *cmd.argv), pipe=cmd.pipe)
    if (built := _image_to_wrap(facts)) is not None:
        name: str | Placeholder = _image_name(built)
        if built.get("runtime") in _SIF:
            return Cmd((built["runtime"], "exec", "--nv", name, *cmd.argv), pipe=cmd.pipe, root=root)
        gpus = ("--gpus", "all") if built.get("gpus") else ()
        return Cmd(("docker", "run", "--rm", *gpus, "--entrypoint", program, name, *rest), pipe=cmd.pipe, root=root)
    return cmd


# What answers for the machine rather than the program: the driver, its kernel module and the container runtime, all
# the host's (the NVIDIA Container Toolkit mounts the host's driver into a container; a pod's node holds it likewise).
_HOST_SIDE = frozenset(
    {"nvidia-smi", "lsmod", "modinfo", "dmesg", "dkms", "lspci", "uname", "systemctl", "journalctl", "nvidia-ctk"}
)
# What a program in a container reads of its own: its interpreter and packages, its toolkit (_PROGRAM_SIDE beside).
_INSIDE_SIDE = _PROGRAM_SIDE | {"env", "nvcc", "conda"}


def side_note(facts: Facts, cmd: Cmd) -> str:
    """Where a command with no place of its own is typed, where the paste shows the program in a container or a pod
    beside the host it runs on (blind set 15's reviewers: an `nvidia-smi -L` that "does not say where to run it"): the
    driver's and the kernel's reads on the host (a pod's node), the program's own environment inside the container (the
    pod); "" where the paste shows one place, where the command says where (its note, or docker, kubectl and their kin
    run it there), and for what reads alike in both. With no container, a bare python or pip's prompt where the paste
    shows its environment by the prompt's name alone (prompt_env_note), after the command's own note where it has one."""
    runtime = container_of(facts) or ("docker" if image(facts) is not None or program_image(facts) is not None else None)
    words = [w for w in cmd.argv if isinstance(w, str)]
    if not words:
        return ""
    if runtime is None or facts.platform.container:
        env = prompt_env_note(facts, cmd)
        return _after_own_note(cmd.note, env) if env and env not in cmd.note else ""
    if cmd.note:
        return ""
    program = re.split(r"[\\/]", words[0])[-1]
    pod = runtime == "kubernetes"
    if program in _HOST_SIDE or any(w.startswith("/proc/driver/") for w in words):
        return "on the node that runs the pod" if pod else "on the host"
    if program in _INSIDE_SIDE or program.startswith(("python", "pip")):
        return "inside the pod" if pod else "inside the container"
    return ""


def prompt_env_note(facts: Facts, cmd: Cmd) -> str:
    """Which prompt a bare python or pip is typed at, where the paste shows the program's environment only by the name
    its prompt carries (facts.ENV_PROMPT: `(tf_daily) C:\\x>`, `(venv) user@host:~$`) and no interpreter by its path:
    that environment's, which a new prompt does not have active (a conda environment is entered by its name; a venv by
    its activation script, whose path the paste does not give). "" for any other command, and where the paste shows
    the interpreter, or no such prompt."""
    if not facts.pasted.partial or python_exe(facts) not in _USUAL or tool(facts) != "pip":
        return ""
    if container_of(facts) or image(facts) is not None or program_image(facts) is not None:
        return ""  # (a container's or an image's interpreter: side_note and python_step say where)
    env = next((c for c in facts.pasted.cues if c.get("cue") == ENV_PROMPT and c.get("means")), None)
    program = re.split(r"[\\/]", str(cmd.argv[0]))[-1].lower().removesuffix(".exe")
    if env is None or program not in ("python", "python3", "pip", "pip3"):
        return ""
    name = env["means"]
    if env.get("kind") == "conda":
        return f"in the {name} environment, where the program ran: conda activate {name} first in a new prompt"
    return f"in the {name} environment, where the program ran: activate it first in a new prompt"


def _after_own_note(own: str, added: str) -> str:
    """A command's note with `added` after it: a note of its own ("the fix took if this shows the GPU") keeps its words
    first."""
    return f"{own}, {added}" if own else added


def noted_at_prompt(facts: Facts, lines: tuple) -> tuple:
    """`lines` (a step's commands), each bare python or pip noted with the prompt it is typed at (prompt_env_note), up
    to a command that enters an environment (`conda activate NAME`: what follows runs there)."""
    out = []
    entered = False
    for line in lines:
        if isinstance(line, Cmd) and "activate" in line.words[:2]:
            entered = True
        elif isinstance(line, Cmd) and not entered and (note := prompt_env_note(facts, line)) and note not in line.note:
            line = dataclasses.replace(line, note=_after_own_note(line.note, note))
        out.append(line)
    return tuple(out)


def with_prompt_env(findings: list, facts: Facts) -> list:
    """`findings`, the commands of each remediation (and of its alternative) noted_at_prompt. A finding whose commands
    gain no note is kept as the same object: a --require outcome names its finding by identity (render.junit)."""
    out = []
    for f in findings:
        r = f.remediation
        if r is not None and r.commands:
            alt = r.alternative
            if alt is not None and alt.commands:
                noted = noted_at_prompt(facts, alt.commands)
                alt = alt if noted == alt.commands else dataclasses.replace(alt, commands=noted)
            commands = noted_at_prompt(facts, r.commands)
            if commands != r.commands or alt is not r.alternative:
                f = dataclasses.replace(f, remediation=dataclasses.replace(r, commands=commands, alternative=alt))
        out.append(f)
    return out


# Where a cluster job's program runs: its variables (the GPUs the scheduler gave it, the modules its script loaded), its
# loader and its interpreter's view of the GPUs are the job's on a compute node; a login node's shell answers for
# another machine and another environment (SchedMD's gres.html: CUDA_VISIBLE_DEVICES is set for the job's GPUs).
IN_JOB = "inside the job, in its batch script before the failing command"
# (nvidia-smi too: the GPUs and their driver are the compute node's; a login node may have none)
_JOB_SIDE = _PROGRAM_SIDE | {"env", "nvidia-smi"}


def in_job(facts: Facts, cmd: Cmd) -> Cmd:
    """A read of the program's own environment asked inside the cluster job the paste shows the program run in (its
    variables, its loader, its interpreter asked about the GPUs): typed on the login node it reads another. As it is
    where the paste shows no job, where the ask says where already, where it runs in a container (placed's form, asked
    first), and for what the login node answers as well (the packages installed: pip's list reads the same shared files)."""
    if cmd.note or not facts.pasted.cluster:  # (a machine probed inside a job is there already)
        return cmd
    words = [w for w in cmd.argv if isinstance(w, str)]
    while len(words) > 1 and (words[0] in ("env", "sudo") or re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*", words[0])):
        words = words[1:]  # (env VAR=value python3 ...: the program is what follows)
    program = re.split(r"[\\/]", words[0])[-1] if words else ""
    python = program.startswith("python") and "pip" not in words[1:3]
    if program in _JOB_SIDE or python:
        return dataclasses.replace(cmd, note=IN_JOB)
    return cmd


def exec_prefix(facts: Facts) -> tuple[str | Placeholder, ...]:
    """What runs a command in the container the paste's program ran in, from the host: `docker exec NAME` (podman's
    alike), `kubectl exec POD --`; empty where the paste shows no container, where its prompts show the reporter typing
    inside one (a `(container) $` prompt, a container id or a pod as the host name: they are there already), and for
    a machine gpudoctor probed (it runs where it is). A container said in the text and typed at from the host: the
    interpreter it names (/opt/conda/bin/python, an app's venv) exists only inside, and the host's answers nothing."""
    runtime = container_said(facts)
    if runtime is None or facts.platform.container:
        return ()
    cues = facts.pasted.cues
    if any((c.get("means") or "").startswith("run inside a ") and "prompt" in (c.get("cue") or "") for c in cues):
        return ()  # (a prompt typed at inside the container; a spec or a log pasted is read on the host)
    if runtime == "kubernetes":
        ns, _, name = next((c.get("means") or "" for c in cues if c.get("cue") == KUBECTL_POD), "").rpartition("/")
        return ("kubectl", "exec", *(("-n", ns) if ns else ()), name or Placeholder("pod"), "--")
    named = next((c.get("means") for c in cues if c.get("cue") == EXEC_NAMED and c.get("means")), None)
    if named is None and runtime == "docker" and (service := compose_service(facts)) is not None:
        # a compose service (its spec or its log pasted) is entered by its service's name, whatever its container's
        return ("docker", "compose", "exec", service)
    return (runtime, "exec", named or container_name(facts) or Placeholder("container"))


def container_name(facts: Facts) -> str | None:
    """The name of the container the paste's program runs in, where the paste shows it: a `docker exec NAME` line's
    (EXEC_NAMED), the `--name` of the `docker run` that started it (the image cue's `container`), a compose file's one
    `container_name:` (CONTAINER_NAMED); None where it shows none: the plan's <container> stays, and the ask that
    lists the containers decides it. The one answer every `<container>` of a plan is filled from."""
    if not facts.pasted.partial:
        return None
    cues = facts.pasted.cues
    for named in (
        next((c.get("means") for c in cues if c.get("cue") == EXEC_NAMED and c.get("means")), None),
        *((i or {}).get("container") for i in (image(facts), program_image(facts))),
        next((c.get("means") for c in cues if c.get("cue") == CONTAINER_NAMED and c.get("means")), None),
    ):
        if named:
            return named
    return None


def compose_service(facts: Facts) -> str | None:
    """The one docker compose service the paste shows the program in: its spec's service (gpudoctor.pasted.workloads'
    workload evidence), else the one service whose log it shows; None where it shows none, or several."""
    specs = {
        e.get("name")
        for e in facts.pasted.errors
        if e.kind in ("workload-gpus", "workload-without-gpu") and e.get("runtime") == "compose" and e.get("name")
    }
    logged = {c.get("means") for c in facts.pasted.cues if c.get("cue") == LOGGED_SERVICE and c.get("means")}
    names = specs or logged
    return next(iter(names)) if len(names) == 1 else None


# How each project tool runs its environment's interpreter without activating it.
_RUNNERS = {
    "uv project": ("uv", "run", "--no-sync", "python"),
    "poetry": ("poetry", "run", "python"),
    "pipenv": ("pipenv", "run", "python"),
}


def _windows(facts: Facts) -> bool:
    return (facts.platform.system or "").lower().startswith("win")


def tool(facts: Facts) -> str:
    """The tool that manages the program's environment (one of facts.PROJECT_TOOLS), or "pip": the interpreter's own."""
    if not facts.pasted.partial:
        return "pip"
    return next((c.get("means") or "pip" for c in facts.pasted.cues if c.get("cue") == PROJECT_TOOL), "pip")


# pip's options that take the next word as their value, and which of them `uv add` takes as they are (its CLI reference).
_PIP_VALUED = frozenset({"--index-url", "-i", "--extra-index-url", "--find-links", "-f"})
_UV_ADD_KEEPS = frozenset({"--upgrade", "-U", "--no-build-isolation", "--find-links", "-f"})


def _split(args: tuple[str, ...]) -> tuple[list[str], list[tuple[str, str | None]]]:
    """pip's arguments after its verb: the requirements, and the options with their values."""
    specs: list[str] = []
    opts: list[tuple[str, str | None]] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a.startswith("-"):
            value = args[i + 1] if a in _PIP_VALUED and i + 1 < len(args) else None
            opts.append((a, value))
            i += 2 if value is not None else 1
        else:
            specs.append(a)
            i += 1
    return specs, opts


def _names(specs: list[str]) -> list[str]:
    # Imported here: planner.commands brings the plan's model (eleven dataclasses, about 20 M instructions), and every
    # check imports this module (through planner.remedy) while only a package step's rewrite reads a requirement.
    from gpudoctor.planner.commands import requirement_name

    return [n for s in specs if (n := requirement_name(s)) is not None]


def _uv_add(specs: list[str], opts: list[tuple[str, str | None]]) -> tuple[str, ...] | None:
    """`uv add` for pip's install, where every option has its uv add spelling; None where one has none."""
    out: list[str] = []
    for opt, value in opts:
        if opt in _UV_ADD_KEEPS:
            out += [opt, *((value,) if value is not None else ())]
        elif opt in ("--index-url", "-i", "--extra-index-url") and value is not None:
            out += ["--index", value]  # the project's pyproject.toml keeps it, so `uv sync` resolves from it again
        elif opt == "--force-reinstall":
            out += [w for n in _names(specs) for w in ("--reinstall-package", n)]
        else:
            return None
    return ("uv", "add", *specs, *out) if specs else None


def package_step(facts: Facts, *args: str) -> Cmd:
    """pip's command (ARGS: pip's verb and arguments, each pin as written) in the tool that manages the environment."""
    t = tool(facts)
    py = python_exe(facts)
    verb, rest = (args[0], args[1:]) if args else ("", ())
    specs, opts = _split(rest)
    plain = not opts or all(o in ("-y", "--yes") for o, _ in opts)
    if t == "notebook" and not _windows(facts):
        # (on Windows a notebook's `%pip` line goes to cmd.exe, which the plan's quoting is not written for: the
        # interpreter's own pip there, as in its terminal)
        return Cmd(("%pip", *args))
    if t == "uv project":
        if verb == "uninstall" and plain and specs:
            return Cmd(("uv", "remove", *specs))
        if verb == "install" and (added := _uv_add(specs, opts)) is not None:
            return Cmd(added)
    if t in ("uv project", "uv venv"):
        where = ("--python", py) if py not in _USUAL else ()  # else the .venv of the working directory (uv's search)
        kept = tuple(a for a in rest if a not in ("-y", "--yes"))  # uv never asks before it uninstalls
        return Cmd(("uv", "pip", verb, *where, *kept))
    if t == "poetry":
        if verb == "uninstall" and plain and specs:
            return Cmd(("poetry", "remove", *specs))
        if verb == "install" and specs and all(o in ("--upgrade", "-U") for o, _ in opts):
            upgrade = bool(opts)
            return Cmd(("poetry", "add", *(f"{s}@latest" if upgrade and s == requirement_bare(s) else s for s in specs)))
        return Cmd(("poetry", "run", "python", "-m", "pip", *args))
    if t == "pipenv":
        if verb == "uninstall" and plain and specs:
            return Cmd(("pipenv", "uninstall", *specs))
        if verb == "install" and specs and not opts:
            return Cmd(("pipenv", "install", *specs))
        return Cmd(("pipenv", "run", "python", "-m", "pip", *args))
    return Cmd((*exec_prefix(facts), py, "-m", "pip", *args))


def requirement_bare(spec: str) -> str | None:
    """The spec where it is a bare distribution name (no version, extras or URL), else None."""
    return spec if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", spec) else None


# The platform's usual interpreter names: what python_exe answers where the paste showed none.
_USUAL = ("python", "python3")


def console_script(facts: Facts) -> dict[str, str] | None:
    """The console script the paste's program was started through (facts.CONSOLE_SCRIPT), where its first line is what
    names the interpreter: a POSIX paste with no interpreter of its own read, the program on this machine (an image's
    or a container's interpreter is asked there), its environment no project tool's nor a notebook's."""
    if not facts.pasted.partial or _windows(facts) or python_exe(facts) not in _USUAL:
        return None
    if image(facts) is not None or program_image(facts) is not None or exec_prefix(facts):
        return None
    if tool(facts) in _RUNNERS or tool(facts) == "notebook":
        return None  # (a notebook's kernel is the interpreter its %pip installs into; a project tool's runner names it)
    return next((c for c in facts.pasted.cues if c.get("cue") == CONSOLE_SCRIPT), None)


def shebang(script: dict[str, str]) -> Cmd:
    """The read of a console script's first line (#!, the interpreter its installer wrote): the file a traceback showed,
    else the one PATH finds under the name the reporter typed (`command -v`, a POSIX shell's and fish's own lookup;
    xargs hands the path to head, with no command substitution to quote)."""
    if script.get("path"):
        return Cmd(("head", "-1", script["path"]))
    return Cmd(("command", "-v", script["means"]), pipe=("xargs", "head", "-1"))


def conda(facts: Facts) -> bool:
    """Whether the program's packages are a conda environment's."""
    py = facts.frameworks.python
    if isinstance(py, Found) and py.value.kind == "conda":
        return True
    return any(c.get("cue") in (CONDA_ENV_SAID, CONDA_FORGE_BUILD) for c in facts.pasted.cues)


REENTER = "after the restart, in a new prompt: the environment your command ran in (a new prompt starts outside it)"


def reentry(facts: Facts) -> Cmd | None:
    """What enters again the conda environment the paste's prompt showed active (facts.ENV_PROMPT), for a step after a
    restart: a new prompt starts outside it (in base), and a bare python or pip there is another environment's. None
    where the prompt showed none, where the paste shows the interpreter by its path (a step runs it by that path), and
    for a venv known by its name alone (activated by a path the paste does not give)."""
    if not facts.pasted.partial or python_exe(facts) not in _USUAL:
        return None
    env = next((c for c in facts.pasted.cues if c.get("cue") == ENV_PROMPT), None)
    if env is None or env.get("kind") != "conda" or not env.get("means"):
        return None
    return Cmd(("conda", "activate", env["means"]), note=REENTER)


def conda_forge_packages(facts: Facts) -> list[str]:
    """conda-forge packages whose build paths the paste shows (their build string names the CUDA they were built for)."""
    return list(dict.fromkeys(c.get("means") or "" for c in facts.pasted.cues if c.get("cue") == CONDA_FORGE_BUILD))


def in_tool(facts: Facts, line):  # -> gpudoctor.cmdline.Line
    """A plan step's `<python> -m pip ...` (gpudoctor.planner.commands builds them for an interpreter) in the tool that
    manages the environment; any other line as it is."""
    if not isinstance(line, Cmd) or line.pipe or tool(facts) == "pip":
        return line
    words = line.words
    if len(words) > 3 and words[1:3] == ("-m", "pip") and words[0] in (python_exe(facts), *_USUAL):
        step = package_step(facts, *words[3:])
        return Cmd(step.argv, root=line.root, note=line.note, as_user=line.as_user)
    return line


def where_run(facts: Facts) -> str:
    """Where a driver fix runs: the host, when the program runs in a container, probed or said in the paste (its kernel
    module is the host's: a pod's is its node's); the node's administrator's, when this is a cluster job (the person who
    reads the plan cannot apply it)."""
    if container_of(facts):
        return "the host"
    return ADMINISTRATORS if cluster_node(facts) else ""


def container_said(facts: Facts) -> str | None:
    """The container a pasted report's failing commands ran in (docker, podman or kubernetes), by its cues: a
    `(container) $` prompt, a prompt on a container id, or the text saying so (gpudoctor.pasted.cues); None where the
    text says none. A live machine's container is facts.platform.container."""
    if not facts.pasted.partial:
        return None
    for c in facts.pasted.cues:
        means = c.get("means") or ""
        if means.startswith("run inside a "):
            word = means.removeprefix("run inside a ").split(" ", 1)[0]
            return word if word in ("docker", "podman", "kubernetes") else "docker"
    return None


def container_of(facts: Facts) -> str | None:
    """Where this runs in a container: the machine's own (probed), else the one the pasted text names."""
    return facts.platform.container or container_said(facts)


def in_container(facts: Facts, argv: tuple[str, ...], container: str | Placeholder) -> tuple[str | Placeholder, ...]:
    """A question written for a docker container (`docker logs {container}`, `docker exec {container} PROGRAM ...`,
    `docker inspect {container} ...`) in the form of the runtime the paste names: a pod's (`kubectl logs POD`, `kubectl
    exec POD -- PROGRAM ...`, `kubectl describe pod POD`: a pod has no systemd unit and no docker on its node to ask),
    podman's (the same verbs), else docker's; `container` fills {container}."""
    if container_said(facts) == "kubernetes" and argv[:1] == ("docker",) and len(argv) >= 3:
        ns, _, name = next((c.get("means") or "" for c in facts.pasted.cues if c.get("cue") == KUBECTL_POD), "").rpartition("/")
        pod: str | Placeholder = name or Placeholder("pod")
        where = ("-n", ns) if ns else ()
        if argv[1] == "logs":
            return ("kubectl", "logs", *where, pod)
        if argv[1] == "exec":
            return ("kubectl", "exec", *where, pod, "--", *argv[3:])
        if argv[1] == "inspect":
            return ("kubectl", "describe", "pod", *where, pod)
    words = tuple(container if w == "{container}" else w for w in argv)
    if container_said(facts) == "podman" and words[:1] == ("docker",):
        return ("podman", *_podman_words(words[1:]))
    return words


def _podman_words(words: tuple[str | Placeholder, ...]) -> tuple[str | Placeholder, ...]:
    """A docker question's words after `docker`, in podman's form where podman's differs: the GPU request is the CDI
    device nvidia.com/gpu=all (podman has no NVIDIA runtime hook to take --gpus to; NVIDIA Container Toolkit install
    guide, "Configuring Podman": CDI, `podman run --device nvidia.com/gpu=all`), and the GPU request a container was
    created with is read from its creating command line (podman's inspect fills no DeviceRequests or Runtime of
    Docker's; its Config.CreateCommand is "the full command plus arguments" it was created with: containers/podman
    libpod/define/container_inspect.go @011b357f)."""
    if words[:1] == ("run",) and "--gpus" in words:
        i = words.index("--gpus")
        return (*words[:i], "--device", "nvidia.com/gpu=all", *words[i + 2 :])
    if words[:1] == ("inspect",) and any("HostConfig.DeviceRequests" in str(w) for w in words):
        return (
            *(w for w in words if not str(w).startswith("{{") and w != "--format"),
            "--format",
            "{{json .Config.CreateCommand}}",
        )
    return words
