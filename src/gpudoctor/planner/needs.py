"""What each step kind needs first, at its point of the plan: the tool is on this machine; the person can do it
(inside a container or on the host, a cluster job or root); the package source is added and refreshed by an
earlier step (an apt-get install, whatever its package, after an update); what is downloaded first is; a removal
names its folder from anywhere; the release is served for this Python (the matrix)."""

from __future__ import annotations

import re
from typing import Any

from gpudoctor.cmdline import Cmd
from gpudoctor.planner import tool_floors, where
from gpudoctor.planner.actions import Action, Requirement
from gpudoctor.planner.cluster import administers, cluster_node
from gpudoctor.planner.plan_state import (
    State,
    Unresolved,
    has_conda,
    is_windows,
    python_env,
    python_version,
    toolkit_of,
    torch_target,
)
from gpudoctor.planner.remedy import family, ubuntu_archive
from gpudoctor.versions import version_key

# Programs of one family of systems: a Linux program is not there on Windows, nor the reverse.
# (gpudoctor.pasted.ask filters a Windows reporter's asks by the same set.)
LINUX_ONLY = frozenset({"apt-get", "apt", "apt-mark", "dpkg", "dnf", "yum", "zypper", "modprobe", "rmmod", "nvidia-modprobe",
               "update-initramfs", "dracut", "grubby", "reboot", "ubuntu-drivers", "usermod", "dmesg", "ldconfig",
               "systemctl", "mokutil", "lspci", "modinfo", "tee", "wget", "dkms", "journalctl", "rpm", "uname",
               "lsmod"})  # fmt: skip
_WINDOWS_ONLY = {"Restart-Computer", "reg", "pnputil", "wsl"}
# The distribution family each package tool belongs to, as gpudoctor.planner.remedy.family names it (the one answer
# to "which family is this distribution", read from os-release's ID and ID_LIKE); ubuntu-drivers is that of Ubuntu's
# archive (gpudoctor.planner.remedy.ubuntu_archive: Ubuntu and its derivatives).
TOOL_FAMILY = {
    "apt-get": "debian",
    "apt": "debian",
    "apt-mark": "debian",
    "dpkg": "debian",
    "update-initramfs": "debian",
    "dnf": "rhel",
    "yum": "rhel",
    "grubby": "rhel",
    "zypper": "suse",
}

# Packages only NVIDIA's CUDA repository serves by these names (its naming scheme: cuda-toolkit-X-Y,
# cuda-libraries-X-Y, libcudnnN=...+cudaX.Y, libnccl2, nvidia-open, cuda-drivers), per NVIDIA's CUDA
# installation guide for Linux (docs.nvidia.com/cuda/cuda-installation-guide-linux, "Network Repo
# Installation"); the distributions' own archives name theirs otherwise (nvidia-cuda-toolkit, nvidia-driver-NNN).
_NVIDIA_REPO = re.compile(r"(cuda-(toolkit|libraries|runtime|drivers|compat)\b|libcudnn\d|cudnn\d?-cuda|libnccl|nvidia-open\b)")

# Packages served by a repository of NVIDIA's own other than CUDA's, by the source name the plan's step adds
# (NVIDIA Container Toolkit install guide: its repository, then the package; gpudoctor.planner.remedy).
_SOURCE_OF = {"nvidia-container-toolkit": "nvidia-container-toolkit"}

# The tools that manage an environment, and what gpudoctor.planner.where.tool answers where the report shows each run.
_TOOL_SHOWN = {
    "uv": ("uv project", "uv venv"),
    "poetry": ("poetry",),
    "pipenv": ("pipenv",),
    "%pip": ("notebook",),
}

# What a POSIX plan writes that a Windows prompt does not have: no sudo (an elevated prompt instead), and no python3
# from python.org's installer, which installs python.exe and the py launcher (docs.python.org/3/using/windows.html,
# "The full installer" and "Python install manager"); a python3 there is the Store's alias, another interpreter.
_NOT_ON_WINDOWS = "is not a Windows program: the step runs on Windows"

# Kinds that act on the kernel or the machine as a whole: the host's, not a container's.
_HOST_ONLY = {"driver-install", "module-load", "module-config", "boot-image", "reboot", "gpu-reset", "gpu-config"}
_ROOT_KINDS = _HOST_ONLY | {"pkg-install", "pkg-remove", "pkg-update", "pkg-hold", "repo-add", "link-switch",
                            "runtime-config", "service-restart", "user-group", "loader-cache", "registry"}  # fmt: skip


def needs(s: State, a: Action) -> None:
    """Flag each need of `a` that is not met at this point of the plan."""
    f = s.facts
    on_host = s.where in ("the host", "Windows")
    prog = a.tool.rsplit("/", 1)[-1]
    if a.kind == "inspect" and isinstance(a.line, Cmd):
        s.asked.add(tuple(str(w) for w in a.line.argv))
        if a.line.argv[-1:] == ("--version",):
            return  # asked to decide a release: it prints it, or its failure says the program is not there
    _release(s, a)
    if a.kind != "inspect":
        s.acted = True
    elif isinstance(a.line, Cmd) and not s.acted and (why := tool_floors.unrunnable(a.line, s.facts)):
        # A Python probe whose module the paste shows failing to import, or whose call is newer than the release shown
        # (gpudoctor.planner.tool_floors.CALLS), before any command changes the machine: a check after a fix is the
        # plan asking whether the import works now
        s.flag("unmet-precondition", a, why)
        return
    if isinstance(a.line, Cmd):
        s.upgraded.update(p.name for p in tool_floors.PRODUCTS if tool_floors.installs(a.line, p))
    windows_step = s.where == "Windows" or is_windows(f) and not on_host
    if windows_step and isinstance(a.line, Cmd) and (a.line.argv[:1] == ("sudo",) or prog == "python3"):
        s.flag("unmet-precondition", a, f"{'sudo' if a.line.argv[:1] == ('sudo',) else prog} {_NOT_ON_WINDOWS}")
        return
    if a.kind == "inspect" and prog in ("nvidia-smi", "gpudoctor", "python", "python3", "cat", "ls", "timeout", "which", "conda"):
        return  # asked to decide: it runs, or its failure is the answer (nvidia-smi, conda --version)
    if s.where == "Windows":
        if prog in LINUX_ONLY:
            s.flag("unmet-precondition", a, f"{prog} is a Linux program; the step runs on Windows")
        return
    if is_windows(f) and not on_host and prog in LINUX_ONLY:
        s.flag("unmet-precondition", a, f"{prog} does not exist on Windows")
        return
    if not is_windows(f) and prog in _WINDOWS_ONLY and s.where != "Windows":
        s.flag("unmet-precondition", a, f"{prog} is a Windows program; this machine runs {f.platform.system}")
        return
    fam = TOOL_FAMILY.get(prog)
    if (fam is not None or prog == "ubuntu-drivers") and not on_host:
        d = f.platform.distro
        if not (d.id or d.id_like):
            if f.pasted.partial:
                s.flag("unmodelled", a, f"whether {prog} exists: the report does not show the distribution")
        elif (family(f) != fam) if fam else not ubuntu_archive(f):
            s.flag("unmet-precondition", a, f"{prog} is not on {d.id or 'this distribution'}")
    if prog == "apptainer" and _container_tools_run(f) == {"singularity"}:
        # Apptainer keeps a `singularity` link to itself; Singularity (SingularityCE, Singularity 3.x) has no
        # `apptainer` (apptainer/apptainer CHANGELOG.md @cb71bcf1, v1.0.0: "a singularity command symlink alias has
        # been created pointing to the apptainer command").
        s.flag("unmet-precondition", a, "the report runs singularity: Singularity has no apptainer command")
    # lspci's presence is not a precondition here: snapshots do not record it (KernelFacts.lspci reads False there).
    if prog == "conda":
        has = has_conda(f)
        if has is False:
            s.flag("unmet-precondition", a, "conda is not on this machine: no conda environment or CONDA_EXE was seen")
            s.deciders.append((s.step, Cmd(("conda", "--version"))))
        elif has is None:
            s.flag("unmodelled", a, "whether conda exists: the report does not show")
        if a.kind == "conda-run" and a.name and a.name not in s.envs and not _conda_env_exists(f, a.name):
            s.flag("unmet-precondition", a, f"no conda environment {a.name} exists, and no earlier step creates it")
    # Who can do it.
    if not on_host and a.kind in _HOST_ONLY:
        if container := where.container_of(f):  # probed, or said in the paste
            s.flag("unmet-precondition", a, f"inside a {container} container: this acts on the host's kernel")
        elif f.platform.wsl and a.kind in ("driver-install", "module-load", "module-config", "boot-image"):
            s.flag("unmet-precondition", a, "WSL uses the Windows driver: a Linux driver or module does not apply")
    if not on_host and cluster_node(f) and not administers(f) and (a.root or a.kind in _ROOT_KINDS):
        s.flag("unmet-precondition", a, "a cluster job has no root on its node: this is the administrator's")
    if a.kind in ("pip-install", "pip-uninstall", "pip-download") and a.tool not in ("pip", "pip3", *_TOOL_SHOWN):
        env = python_env(f)
        if env is None or not _is_path(env.executable):
            if not _is_path(a.tool) and not _stands_for_the_environment(f, a.tool):
                s.flag(
                    "unmodelled", a, f"whether {a.tool} is the environment's interpreter: the report does not show which it is"
                )
        elif a.tool != env.executable:
            s.flag("unmet-precondition", a, f"runs {a.tool}, not the environment's interpreter {env.executable}")
    if a.kind in ("pip-install", "pip-uninstall", "pip-download", "inspect") and a.tool in _TOOL_SHOWN:
        # The tool that manages the environment is there where the report shows it run (gpudoctor.planner.where.tool).
        if where.tool(f) not in _TOOL_SHOWN[a.tool]:
            if a.tool == "%pip":
                s.flag("unmet-precondition", a, "%pip is a notebook's: the report shows no notebook")
            else:
                s.flag("unmodelled", a, f"whether {a.tool} is there and manages the environment: the report does not show it run")
    elif a.kind in ("pip-install", "pip-uninstall", "pip-download") and a.tool in ("pip", "pip3"):
        # Not recorded: which environment the pip on PATH belongs to.
        s.flag("unmodelled", a, f"whether {a.tool} is there and serves the environment: not recorded")
    # What must come first.
    if a.kind == "repo-add":
        missing = [p for p in a.packages if p not in s.downloaded]
        if missing:
            s.flag("unmet-precondition", a, f"{', '.join(missing)} is not downloaded by an earlier command")
    if a.kind == "pkg-install":
        if prog in ("apt-get", "apt") and a.packages and "apt-get" not in s.refreshed:
            # APT installs what its package index (/var/lib/apt/lists) names, and the machine's copy was not recorded:
            # a fresh distribution or container image carries none ("Unable to locate package"), an old one names
            # files the mirror no longer has ("Unable to fetch some archives, maybe run apt-get update"). apt-get(8):
            # "update is used to resynchronize the package index files from their sources"; Docker's Dockerfile best
            # practices ("apt-get"): "Always combine RUN apt-get update with apt-get install".
            s.flag("unmet-precondition", a, f"{prog} install with no package-index update (apt-get update) before it")
        for p in a.packages:
            if _NVIDIA_REPO.match(p):
                if "nvidia-cuda" not in s.sources:
                    # Whether a configured source serves it is what the package manager's own query says.
                    query = ("apt-cache", "policy", p.split("=")[0]) if prog in ("apt-get", "apt") else (prog, "info", p)
                    s.deciders.append((s.step, Cmd(query)))
                    s.flag(
                        "unmet-precondition",
                        a,
                        f"{p} comes from NVIDIA's CUDA repository: no earlier step adds it, and the machine's package "
                        "sources were not recorded",
                    )
                elif "nvidia-cuda" not in s.fresh:
                    s.flag("unmet-precondition", a, f"{p}: no package-index update after NVIDIA's repository was added")
                break
        for p in a.packages:
            source = _SOURCE_OF.get(p.split("=")[0])
            if source and source not in s.sources:
                s.flag("unmet-precondition", a, f"{p} comes from NVIDIA's {source} repository: no earlier step adds it")
            elif source and prog in ("apt-get", "apt") and source not in s.fresh:
                s.flag("unmet-precondition", a, f"{p}: no package-index update after its repository was added")
    if a.kind == "pkg-hold":
        for p in a.packages:
            if p not in s.installed and not any(x.split("=")[0] == p for x in s.installed):
                s.flag("unmet-precondition", a, f"{p} is held but no earlier step installs it")
    if a.kind == "pip-install" and "--no-index" in a.flags:
        staged = s.staged.get(a.dest or "", {})
        missing = [r.name for r in a.requirements if r.name not in staged]
        if missing:
            s.flag("unmet-precondition", a, f"{', '.join(missing)}: not downloaded into {a.dest} by an earlier command")
    if a.kind in ("pip-install", "pip-download", "conda-run") and not (a.kind == "pip-install" and "--no-index" in a.flags):
        for r in a.requirements:
            why = _not_served(s, r, a)
            if why:
                s.flag("unmet-precondition", a, why)
    if prog == "docker" and not a.root and isinstance(a.line, Cmd) and where.image_root(f):
        # The paste runs its image under sudo: this user is outside the docker group, and the daemon's socket is
        # root's (Docker's Linux post-installation steps, "Manage Docker as a non-root user": "By default it's the root
        # user that owns the Unix socket, and other users can only access it using sudo"). Without sudo the command
        # is refused, or reaches another daemon (a rootless or snap one) that holds other containers and runtimes.
        s.flag("unmet-precondition", a, "the report runs docker under sudo: without it this user cannot reach the daemon")
    if prog == "rm" and isinstance(a.line, Cmd) and (rel := _relative_removal(a.line)):
        # What a relative path names is decided by the directory the shell is in, which no step of a plan sets: from
        # anywhere else the removal finds nothing (rm -f is silent) or another folder of that name.
        s.flag("unmet-precondition", a, f"removes {rel}, a path relative to whatever directory the shell is in")
    if a.kind == "link-switch" and a.name not in s.toolkits and not toolkit_of(f, a.name):
        s.flag("unmet-precondition", a, f"no CUDA {a.name} toolkit is installed, and no earlier step installs it")


def _release(s: State, a: Action) -> None:
    """The release the command's tool must be at for what it uses (gpudoctor.planner.tool_floors): shown older, or not
    shown with neither an earlier step installing the tool nor an earlier command asking its release, is unmet."""
    fl = tool_floors.floor_of(a.line) if a.line is not None else None
    if fl is None:
        return
    product, got = fl.product, tool_floors.shown(s.facts, fl.product)
    if got is not None and version_key(got.version) >= version_key(fl.minimum):
        return
    if got is not None and got.exact:
        s.flag("unmet-precondition", a, f"needs {product.name} {fl.minimum} or newer ({fl.source}); the report shows "
               f"{got.version} ({got.line!r})")  # fmt: skip
        return
    ask = tool_floors.ask_of(fl, a.line) if isinstance(a.line, Cmd) else product.ask
    if {p.split("=")[0] for p in s.installed} & set(product.packages) or ask in s.asked or product.name in s.upgraded:
        return  # an earlier step installs the newest release, or an earlier command asks which one is there
    s.flag("unmet-precondition", a, f"needs {product.name} {fl.minimum} or newer ({fl.source}): the report shows no "
           f"release, and no earlier command asks ({' '.join(ask)})")  # fmt: skip
    s.deciders.append((s.step, Cmd(ask)))


def _container_tools_run(facts: Any) -> set[str]:
    """The container runtimes the report shows run (the pasted reader's workload evidence names each one)."""
    return {str(e.get("runtime")) for e in facts.pasted.errors if e.get("runtime")} if facts.pasted.partial else set()


def _relative_removal(cmd: Cmd) -> str | None:
    """The first operand of a recursive `rm` that is relative to the working directory, or None: an absolute path, one
    under the home directory (~/, $HOME) or a variable the shell expands is the same folder from anywhere."""
    words = cmd.words[1:]
    flags = [w for w in words if w.startswith("-") and w != "--"]
    if not any(w in ("--recursive",) or not w.startswith("--") and ("r" in w or "R" in w) for w in flags):
        return None
    operands = [w for w in words if not w.startswith("-")]
    return next((w for w in operands if not w.startswith(("/", "~/", "$"))), None)


# The system interpreter's own site directories (CPython's `site` module: the prefix's lib/pythonX.Y/site-packages,
# Debian's dist-packages under /usr/lib/python3 and /usr/local/lib/pythonX.Y, the user's ~/.local/lib/pythonX.Y).
_SYSTEM_SITE = re.compile(
    r"^(?:/usr(?:/local)?/lib(?:64)?|~/\.local/lib|/home/[^/]+/\.local/lib|/root/\.local/lib)/python[\d.]*/"
)


def _stands_for_the_environment(facts: Any, program: str) -> bool:
    """Whether a bare `python3` (`python` on Windows) of a printed command is the interpreter of the environment a paste
    shows: where the paste shows no interpreter by its path and no other environment (no conda or venv, no prefix, its
    site directories, if any, the system interpreter's), the one the person runs by that name is the only one it shows,
    the one its failing program ran. Another environment shown leaves it open: that name runs it only where it is
    activated."""
    if not facts.pasted.partial or program not in ("python3", "python"):
        return False
    if (program == "python") != is_windows(facts):
        return False  # the platform's usual name for Python 3 (PEP 394: python3 on POSIX; python on Windows)
    env = python_env(facts)
    if env is None:
        return True
    if env.kind != "system" or env.prefix:
        return False
    sites = [p.replace("\\", "/") for p in env.site_packages]
    return all(_SYSTEM_SITE.match(p) or p.startswith("C:/Python/") for p in sites)


def _is_path(program: str) -> bool:
    return "/" in program or "\\" in program


def _conda_env_exists(facts: Any, name: str) -> bool:
    env = python_env(facts)
    return env is not None and env.kind == "conda" and env.prefix.rstrip("/\\").endswith(name)


def _not_served(s: State, r: Requirement, a: Action) -> str | None:
    """Why the index would not serve `r` for this machine's Python (per the matrix), or None."""
    py = python_version(s.facts, s, a)
    m = s.matrix
    if r.name == "torch" and r.version:
        t = torch_target(s, r, a)
        if isinstance(t, Unresolved):
            return t.reason if t.unserved else None
        rel = t[0]
        if py and not rel.supports_python(py):
            return f"torch {rel.version} has no wheel for Python {py} (its range: {rel.python})"
    if r.name in ("tensorflow", "tensorflow-gpu") and r.version:
        rel = m.tensorflow_release(r.version.rstrip(".*"))
        if rel is not None and py and not rel.supports_python(py):
            return f"tensorflow {rel.version} has no wheel for Python {py} (its range: {rel.python})"
        if rel is not None and "and-cuda" in r.extras and not rel.and_cuda:
            return f"tensorflow {rel.version} has no [and-cuda] extra (the matrix: it brings no CUDA wheels)"
    if r.name in ("jax", "jaxlib") and r.version:
        rel = m.jax_release(r.version.rstrip(".*"))
        if rel is not None and py and not rel.supports_python(py):
            return f"{r.name} {r.version} has no wheel for Python {py} (its range: {rel.python})"
    return None
