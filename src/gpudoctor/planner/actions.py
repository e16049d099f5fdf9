"""What one printed command does, as data: its kind, the tool it needs, the packages and index it names.

The plan's commands are argument vectors (gpudoctor.cmdline); this reads each one back into an `Action`
by its program and arguments alone, never by the prose around it, so the consequence model
(gpudoctor.planner.consequences) can apply it to the recorded machine and ask what it needs first.

Kinds (`Action.kind`):
  pip-install, pip-uninstall, pip-download   a Python package manager run by an interpreter (`python -m pip`,
                                             `uv pip`), with its requirements, index and flags; the same through the
                                             tool that manages the environment (gpudoctor.planner.where.package_step:
                                             `uv add`/`uv remove`, `poetry add`/`remove`/`run python -m pip`, `pipenv
                                             install`/`uninstall`/`run python -m pip`, a notebook's `%pip`): `tool`
                                             is that tool
  conda-create, conda-run, conda-env-vars,   conda itself (a new environment, a command in one, its variables,
  conda-install, conda-remove                packages into or out of an environment: -n NAME or -p PREFIX)
  pkg-update, pkg-install, pkg-remove,       the distribution's package manager (apt-get, dnf, apt-mark hold)
  pkg-hold, repo-add
  driver-install                             a driver chosen by the distribution (ubuntu-drivers install)
  module-load, module-config, boot-image     modprobe/nvidia-modprobe; a modprobe.d file; initramfs, dracut, grubby,
                                             a machine owner key queued for the next boot (mokutil --import)
  reboot                                     reboot, Restart-Computer
  remove-files                               rm of files or folders by their paths (`packages` holds the paths)
  env-set, env-unset, shell-env              a variable of this shell; gpudoctor's own --shell output (eval)
  env-prepend                                a directory put first on LD_LIBRARY_PATH or PATH (and any `also`), the rest kept
  link-switch                                gpudoctor switch-cuda: /usr/local/cuda re-pointed
  container-run, container-restart,          docker run --gpus, docker restart, nvidia-ctk (the host's runtime),
  runtime-config, service-restart            systemctl restart
  user-group, gpu-reset, gpu-config,         usermod -aG; nvidia-smi --gpu-reset; nvidia-smi mig/-dm;
  registry, wsl                              Windows' registry (reg delete); wsl --update/--set-version
  inspect                                    reads and prints only (nvidia-smi -L, dmesg, ls, cat, gpudoctor memory;
                                             srun/bsub running one of those in a job; docker images/ps/info, or a
                                             throwaway container running one of those: docker run --rm IMAGE ldd)
  other                                      a program this module has no model of
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gpudoctor.cmdline import Cmd, EvalShell, Line, PrependPath, SetEnv, SetFrom


@dataclass(frozen=True)
class Requirement:
    """One requirement of a pip command: `torch==2.2.1+cu118`, `jax[cuda12]==0.4.38`, `tensorflow==2.10.*`."""

    name: str  # canonical (PEP 503)
    extras: tuple[str, ...] = ()
    op: str = ""  # "==", "@" (a direct reference: `spec` is its URL) or "" (a bare name); other specifiers are kept in `spec`
    version: str = ""  # "2.2.1+cu118", "2.7.*"
    spec: str = ""  # the whole specifier as written

    @property
    def wildcard(self) -> bool:
        return self.version.endswith(".*")


@dataclass(frozen=True)
class Action:
    """What one plan command does, parsed from its line: its kind, program, packages, requirements and flags."""

    kind: str
    tool: str  # the program that must exist (its base name, or the interpreter's path for pip)
    root: bool = False
    line: Line | None = None
    requirements: tuple[Requirement, ...] = ()
    packages: tuple[str, ...] = ()  # distribution packages (apt/dnf), as written
    index: str | None = None  # --index-url
    flags: frozenset[str] = frozenset()  # --no-deps, --force-reinstall, --no-index, --no-binary:<pkg>, ...
    dest: str | None = None  # pip download --dest / install --find-links
    name: str = ""  # a variable's name; conda's environment; the toolkit of switch-cuda
    value: str | None = None  # a variable's value; None unsets it


def canon(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


_REQ = re.compile(r"([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[([^\]]*)\])?\s*((?:==|>=|<=|~=|!=|<|>)\s*[^;\s]*)?\Z")
_DIRECT = re.compile(r"([A-Za-z0-9][A-Za-z0-9._-]*)\s*@\s*(\S+)\Z")
_PIP_VALUE_OPTS = {
    "--index-url",
    "-i",
    "--extra-index-url",
    "--find-links",
    "-f",
    "--dest",
    "-d",
    "--python",
    "-r",
    "-c",
    "--no-binary",
    "--only-binary",
    "--platform",
    "--python-version",
    "--target",
    "-t",
    "--index",  # uv add's (the index the project's pyproject.toml keeps)
    "--reinstall-package",
    "--upgrade-package",
}

# Programs that read and print, and change nothing a later step or the diagnosis depends on.
_INSPECT = {
    "nvidia-smi",
    "dmesg",
    "ls",
    "cat",
    "modinfo",
    "lspci",
    "mokutil",
    "timeout",
    "nvidia-bug-report.sh",
    "pnputil",
    "wget",  # downloads a file into the working directory; repo-add consumes it
    "nvcc",
    "which",
    "python",
    "python3",
    "python.exe",  # Windows' interpreter by its path (a venv's Scripts\python.exe), as python is on POSIX
    "printenv",
    "uname",
    "lsmod",
    "nvidia-smi.exe",
    "scontrol",
    "dir",  # cmd.exe's and PowerShell's listing of a folder
    "where.exe",  # Windows' search of PATH or (/R) a folder tree for a file: prints the paths it finds
    "ldd",  # prints the libraries a program loads, or with --version the C library's release (ldd(1))
}
# docker's verbs that list and print only (docs.docker.com/reference/cli/docker/: `docker images` lists images, `docker
# ps` containers, `docker info` system-wide information, `docker inspect` an object's configuration, `docker logs` a
# container's output, `docker version` the client's and daemon's releases).
_DOCKER_READS = frozenset({"images", "ps", "info", "inspect", "logs", "version"})
# docker run's options that take a separate value (`-v SRC:DST`, `--name N`): skipped to find the image and its program.
_DOCKER_RUN_VALUED = frozenset({"-v", "--volume", "-e", "--env", "--name", "-w", "--workdir", "--entrypoint", "-p",
                                "--publish", "--gpus", "--runtime", "-u", "--user", "--network", "--mount", "--shm-size"})  # fmt: skip
# wsl's options that print only (Microsoft's "Basic commands for WSL", learn.microsoft.com/windows/wsl/basic-commands:
# `wsl -l -v` / `--list --verbose` lists the distributions and their WSL version, `--status` general information,
# `--version` the versions of WSL and its parts).
_WSL_READS = frozenset({("-l",), ("--list",), ("--status",), ("--version",)})
_GPUDOCTOR_INSPECT = {"memory", "check", "snapshot", "bench", "explain", "matrix"}
# find's actions that change something or run a program (GNU findutils' manual, "Actions"); without them it prints.
_FIND_ACTS = frozenset({"-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls"})


def _base(program: str) -> str:
    return re.split(r"[\\/]", program)[-1]


# Where package sources and their keys live: apt's lists and keyrings, dnf/yum's .repo files.
_SOURCE_DIRS = ("/etc/apt/sources.list.d/", "/usr/share/keyrings/", "/etc/apt/keyrings/", "/etc/yum.repos.d/")


def _source_name(path: str) -> str:
    """A source's name from its file: nvidia-container-toolkit.list, -keyring.gpg and .repo all name one."""
    stem = re.split(r"[\\/]", path)[-1].split(".")[0]
    return stem.removesuffix("-keyring")


def _source_written(cmd: Cmd) -> str | None:
    """The package source a command writes (a list, a .repo file or a key under _SOURCE_DIRS), or None."""
    for w in (*cmd.words, *(str(p) for p in cmd.pipe)):
        if w.startswith(_SOURCE_DIRS):
            return _source_name(w)
    return None


def _pip(words: tuple[str, ...], start: int, tool: str, cmd: Cmd) -> Action:
    verb = words[start]
    kind = {"install": "pip-install", "uninstall": "pip-uninstall", "download": "pip-download"}.get(verb, "other")
    if verb in ("list", "show", "freeze", "check"):
        kind = "inspect"  # reads the environment's distributions and prints them
    reqs: list[Requirement] = []
    flags: set[str] = set()
    index = dest = None
    i = start + 1
    while i < len(words):
        w = words[i]
        if w.startswith("-"):
            opt, eq, inline = w.partition("=")
            value = inline if eq else (words[i + 1] if opt in _PIP_VALUE_OPTS and i + 1 < len(words) else None)
            if opt in _PIP_VALUE_OPTS and not eq:
                i += 1
            if opt in ("--index-url", "-i", "--index"):
                index = value
            elif opt in ("--find-links", "-f", "--dest", "-d"):
                dest = value
            elif opt == "--no-binary":
                flags.add(f"--no-binary:{canon(value or '')}")
            else:
                flags.add(opt)
            i += 1
            continue
        direct = _DIRECT.match(w)
        if direct:  # PEP 508's `name @ url`: that distribution, built from the source the URL names
            reqs.append(Requirement(canon(direct.group(1)), (), "@", "", direct.group(2)))
            i += 1
            continue
        m = _REQ.match(w)
        if m:
            spec = (m.group(3) or "").replace(" ", "")
            op = "==" if spec.startswith("==") else ""
            extras = tuple(canon(e) for e in (m.group(2) or "").split(",") if e.strip())
            reqs.append(Requirement(canon(m.group(1)), extras, op, spec[2:] if op else "", spec))
        i += 1
    return Action(kind, tool, cmd.root, cmd, tuple(reqs), (), index, frozenset(flags), dest)


def classify(line: Line) -> Action:
    """The action a printed command performs, read from its argument vector."""
    if isinstance(line, SetEnv):
        return Action("env-unset" if line.value is None else "env-set", "", False, line, name=line.name, value=line.value)
    if isinstance(line, SetFrom):
        # Set, to a value a program prints when it runs: its text (the program as `$(...)`) is what the model sets.
        return Action("env-set", "", False, line, name=line.name, value=line.value)
    if isinstance(line, PrependPath):
        # The value is the directory where it is literal; a program's output is followed by effects (Output.site_dir).
        return Action("env-prepend", "", False, line, name=line.name, value=line.literal)
    if isinstance(line, EvalShell):
        w = line.argv
        if len(w) >= 3 and w[1] == "switch-cuda":
            return Action("shell-env", "gpudoctor", False, line, name=w[2])
        return Action("other", "gpudoctor", False, line)
    cmd = line
    words = cmd.words
    prog = _base(words[0])
    rest = words[1:]
    # A command run in the program's container from the host (gpudoctor.planner.where.exec_prefix): what it does there.
    inner = _in_container(prog, rest)
    if inner:
        return classify(Cmd(inner, root=cmd.root, pipe=cmd.pipe, note=cmd.note))
    if rest in (("--version",), ("-m", "pip", "--version")) and not cmd.pipe:
        return Action("inspect", prog, False, cmd)  # a program's release, asked: it prints it, or is not there
    # python -m pip ..., uv pip ...
    if len(words) >= 4 and words[1] == "-m" and words[2] == "pip":
        return _pip(words, 3, words[0], cmd)
    if prog == "uv" and len(words) >= 3 and words[1] == "pip":
        return _pip(words, 2, "uv", cmd)
    if prog in ("pip", "pip3", "%pip") and rest:
        return _pip(words, 1, prog, cmd)
    # The project tools' own verbs, read as pip's (gpudoctor.planner.where.package_step writes them from pip's).
    if prog in ("uv", "poetry", "pipenv") and rest:
        verb = _TOOL_VERBS.get((prog, rest[0]))
        if verb is not None:
            return _pip(("", verb, *rest[1:]), 1, prog, cmd)
        if rest[:3] == ("run", "python", "-m") and rest[3:4] == ("pip",) and len(rest) > 4:
            return _pip(words, 5, prog, cmd)
        if rest[:2] == ("run", "python") or rest[:3] == ("run", "--no-sync", "python"):
            return Action("inspect", prog, cmd.root, cmd)  # the environment's interpreter, asked (python -c)
    if prog == "conda" and rest[:1] in (("--version",), ("info",), ("list",)):
        # What decides whether conda is there, and what an environment holds (conda list only reads).
        return Action("inspect", "conda", False, cmd)
    if prog == "conda" and rest:
        named = rest.index("-n") if "-n" in rest[:-1] else None  # conda's -n NAME: the environment
        name = rest[named + 1] if named is not None else ""
        if rest[0] == "install":
            pkgs = tuple(a for a in rest[1:] if "=" in a and not a.startswith("-"))
            prefix = rest[rest.index("-p") + 1] if "-p" in rest[:-1] else ""
            return Action("conda-install", "conda", False, cmd, packages=pkgs, name=name, dest=prefix or None)
        if rest[0] == "create":
            pkgs = tuple(a for a in rest[1:] if "=" in a and not a.startswith("-"))
            return Action("conda-create", "conda", False, cmd, packages=pkgs, name=name)
        if rest[0] == "run":
            inner = rest[named + 2 :] if named is not None else rest[1:]
            if len(inner) >= 3 and inner[1] == "-m" and inner[2] == "pip":
                act = _pip(tuple(inner), 3, "conda", cmd)
                return Action("conda-run", "conda", False, cmd, act.requirements, (), act.index, act.flags, None, name)
            return Action("conda-run", "conda", False, cmd, name=name)
        if rest[0] in ("remove", "uninstall"):
            # conda remove NAME...: the packages leave the environment (cpuonly, the metapackage that pins CPU builds)
            pkgs = tuple(
                a
                for a in rest[1:]
                if not a.startswith("-") and a not in (name, rest[rest.index("-p") + 1] if "-p" in rest[:-1] else "")
            )
            return Action("conda-remove", "conda", False, cmd, packages=pkgs, name=name)
        if rest[:3] == ("env", "config", "vars"):
            assigns = [a for a in rest if "=" in a and not a.startswith("-")]
            name, _, value = assigns[0].partition("=") if assigns else ("", "", "")
            return Action("conda-env-vars", "conda", False, cmd, name=name, value=value)
        return Action("other", "conda", False, cmd)
    if prog in ("apt-get", "apt", "dnf", "yum", "zypper"):
        verb = next((a for a in rest if not a.startswith("-")), "")
        pkgs = tuple(a for a in rest[rest.index(verb) + 1 :] if not a.startswith("-")) if verb else ()
        if verb in ("update", "makecache"):
            return Action("pkg-update", prog, cmd.root, cmd)
        if verb == "install":
            return Action(
                "pkg-install", prog, cmd.root, cmd, packages=pkgs, flags=frozenset(a for a in rest if a.startswith("-"))
            )
        if verb in ("remove", "purge", "erase"):
            return Action("pkg-remove", prog, cmd.root, cmd, packages=pkgs)
        if verb in ("ar", "addrepo"):  # zypper ar URL: a repository, named by its .repo file
            return Action("repo-add", prog, cmd.root, cmd, name=_source_name(pkgs[-1]) if pkgs else "")
        if verb == "module":  # dnf module enable: a stream of a configured repository
            return Action("pkg-update", prog, cmd.root, cmd, packages=pkgs)
        return Action("other", prog, cmd.root, cmd)
    if prog == "apt-mark":
        return Action("pkg-hold", prog, cmd.root, cmd, packages=tuple(a for a in rest[1:] if not a.startswith("-")))
    if prog == "dpkg":
        if "-i" in rest or "--install" in rest:
            return Action("repo-add", prog, cmd.root, cmd, packages=tuple(a for a in rest if a.endswith(".deb")))
        if "--configure" in rest:
            return Action("pkg-install", prog, cmd.root, cmd)
        return Action("inspect", prog, cmd.root, cmd)
    if prog == "ubuntu-drivers" and rest[:1] == ("install",):
        return Action("driver-install", prog, cmd.root, cmd)
    if prog in ("modprobe", "nvidia-modprobe", "rmmod"):
        return Action("module-load", prog, cmd.root, cmd)
    if prog in ("update-initramfs", "dracut", "grubby"):
        return Action("boot-image", prog, cmd.root, cmd)
    if prog in ("mokutil", "update-secureboot-policy") and ("--import" in rest or "--enroll-key" in rest):
        # a key queued for the MOK manager at the next boot (mokutil(1) --import; Ubuntu's shim-signed): what the
        # kernel then accepts, not a reading
        return Action("boot-image", prog, cmd.root, cmd)
    if prog in ("curl", "sed") and (source := _source_written(cmd)):
        # A package source (or its signing key) written into the package manager's configuration.
        return Action("repo-add", prog, True, cmd, name=source)
    if prog in ("printf", "echo") and cmd.pipe and "tee" in [str(p) for p in cmd.pipe]:
        target = str(cmd.pipe[-1])
        root = cmd.root or "sudo" in [str(p) for p in cmd.pipe]  # tee into a file of ones own (a Dockerfile) is no root
        return Action("module-config" if "/modprobe.d/" in target else "other", "tee", root, cmd, name=target)
    if prog in ("reboot", "Restart-Computer", "shutdown"):
        return Action("reboot", prog, cmd.root, cmd)
    if prog == "gpudoctor" and len(words) >= 2:
        if words[1] == "switch-cuda" and len(words) >= 3:
            return Action("link-switch", "gpudoctor", cmd.root, cmd, name=words[2])
        if words[1] in _GPUDOCTOR_INSPECT:
            return Action("inspect", "gpudoctor", cmd.root, cmd)
        return Action("other", "gpudoctor", cmd.root, cmd)
    if prog == "docker" and rest:
        if rest[0] in _DOCKER_READS:
            return Action("inspect", "docker", cmd.root, cmd)
        if rest[0] == "run" and "--rm" in rest and _base(_run_program(rest[1:])) in _INSPECT:
            # A throwaway container (--rm) running a program that only reads (ldd --version in a newer image): it prints
            # what that image holds and changes nothing here but the image cache.
            return Action("inspect", "docker", cmd.root, cmd)
        if rest[0] == "run":
            return Action("container-run", "docker", cmd.root, cmd, flags=frozenset(a for a in rest if a.startswith("--gpus")))
        if rest[0] == "restart":
            return Action("container-restart", "docker", cmd.root, cmd)
        return Action("other", "docker", cmd.root, cmd)
    if prog == "rm":
        # Files removed by their paths (a stale build, a module built in a source tree): what the pasted text printed
        # from them is gone with them (gpudoctor.planner.effects).
        return Action("remove-files", "rm", cmd.root, cmd, packages=tuple(w for w in rest if not w.startswith("-")))
    if prog == "nvidia-ctk":
        return Action("runtime-config", prog, cmd.root, cmd)
    if prog == "systemctl" and rest[:1] == ("restart",):
        return Action("service-restart", prog, cmd.root, cmd, name=rest[1] if len(rest) > 1 else "")
    if prog == "usermod":
        return Action("user-group", prog, cmd.root, cmd)
    if prog == "ldconfig":
        return Action("inspect" if "-p" in rest else "loader-cache", prog, cmd.root, cmd)
    if prog == "nvidia-smi" and rest:
        if "--gpu-reset" in rest or "-r" in rest:
            return Action("gpu-reset", prog, cmd.root, cmd)
        if rest[0] == "mig" and ("-cgi" in rest or "-dgi" in rest) or "-dm" in rest or "-mig" in rest:
            return Action("gpu-config", prog, cmd.root, cmd)
        return Action("inspect", prog, cmd.root, cmd)
    if prog == "reg" and rest[:1] == ("query",):
        return Action("inspect", prog, cmd.root, cmd)  # reg query prints a key's values (Microsoft's reg query reference)
    if prog == "reg" and rest[:1] == ("delete",):
        name = rest[rest.index("/v") + 1] if "/v" in rest[:-1] else ""
        return Action("registry", prog, cmd.root, cmd, name=name)
    if prog == "wsl" and rest[:1] in _WSL_READS:
        return Action("inspect", prog, cmd.root, cmd)
    if prog == "wsl":
        return Action("wsl", prog, cmd.root, cmd)
    # `env` alone prints the environment (with arguments it runs a program in a changed one); `find` only lists, unless
    # an action of its own deletes, runs or writes (GNU findutils' manual, "Actions": -delete, -exec, -ok, -fprint ...)
    if (
        prog in _INSPECT
        or prog == "find"
        and not any(w in _FIND_ACTS for w in rest)
        or prog == "dkms"
        and rest[:1] == ("status",)
        or prog == "snap"
        and rest[:1] == ("list",)
        or (prog, rest) == ("env", ())
        or prog == "id"
        or prog == "fuser"
        and not any(w in ("-k", "--kill") for w in rest)
        or prog == "command"
        and rest[:1] in (("-v",), ("-V",))
        or prog == "module"
        and rest[:1] in (("list",), ("avail",), ("show",), ("spider",))
    ):
        return Action("inspect", prog, cmd.root, cmd)
    if prog in ("srun", "bsub") and _job_program(rest) in _INSPECT:
        # A scheduler's job that runs a program that only reads (srun --gres=gpu:1 --pty nvidia-smi): it inspects,
        # on a node the scheduler picks, and changes nothing here.
        return Action("inspect", prog, cmd.root, cmd)
    return Action("other", prog, cmd.root, cmd)


# The project tools' verbs that install into or remove from the environment they manage, and pip's verb for each.
_TOOL_VERBS = {
    ("uv", "add"): "install",
    ("uv", "remove"): "uninstall",
    ("poetry", "add"): "install",
    ("poetry", "remove"): "uninstall",
    ("pipenv", "install"): "install",
    ("pipenv", "uninstall"): "uninstall",
}


def _in_container(prog: str, rest: tuple[str, ...]) -> tuple[str, ...]:
    """The command `docker|podman exec [-it] NAME CMD...` or `kubectl exec [-n NS] POD -- CMD...` runs; empty for others."""
    if prog in ("docker", "podman") and rest[:1] == ("exec",):
        # (the flags before the name, as printed here, take no value: -it)
        at = next((i for i, w in enumerate(rest[1:], 1) if not w.startswith("-")), len(rest))
        return rest[at + 1 :]
    if prog == "kubectl" and rest[:1] == ("exec",) and "--" in rest:
        return rest[rest.index("--") + 1 :]
    return ()


def _run_program(words: tuple[str, ...]) -> str:
    """The program `docker run [OPTIONS] IMAGE PROGRAM ...` runs: the word after the image; "" when none is named."""
    i = 0
    operands = []
    while i < len(words):
        w = words[i]
        if w.startswith("-"):
            i += 2 if w in _DOCKER_RUN_VALUED else 1
            continue
        operands.append(w)
        if len(operands) == 2:
            return w
        i += 1
    return ""


# The options of srun and bsub that take a separate value (`-p gpu`, `-gpu num=1`): skipped to find the program.
_JOB_VALUE_OPTS = {"-p", "--partition", "-A", "--account", "-t", "--time", "-n", "-N", "-c", "-G", "--gpus", "-gpu",
                   "-q", "-W", "-R", "-J", "-o", "-e", "--mem"}  # fmt: skip


def _job_program(words: tuple[str, ...]) -> str:
    """The program a scheduler's submit line runs: its first word that is not an option or an option's value."""
    i = 0
    while i < len(words):
        w = words[i]
        if not w.startswith("-"):
            return _base(w)
        i += 2 if w in _JOB_VALUE_OPTS else 1
    return ""


@dataclass(frozen=True)
class StepActions:
    """The actions of one printed step, in order."""

    index: int  # 1-based, as the plan prints it
    component: str
    codes: tuple[str, ...]
    where: str
    actions: tuple[Action, ...] = field(default=())
