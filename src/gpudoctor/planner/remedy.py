"""Remediation commands written for the probed machine: the distribution's package manager, pip in the
probed environment. Every command is data (gpudoctor.cmdline); machine data only ever fills one argument.

Pure: built from facts only. The doctor prints these; it never runs them.

Package names, per family (NVIDIA Driver Installation Guide, "Kernel Modules", SOURCE_DRIVER_GUIDE):
- Ubuntu: its own archive's `nvidia-driver-<branch>` (`-open` for the open kernel modules), or
  `ubuntu-drivers install`, which picks the branch recommended for the GPU.
- Debian: NVIDIA's CUDA repository's `cuda-drivers-<branch>`, or Debian's own `nvidia-driver` (non-free).
- RHEL and its rebuilds (NVIDIA's CUDA repository): `dnf module enable nvidia-driver:<branch>-open`
  (or `:open-dkms` for the newest) then `dnf install nvidia-open`; the proprietary modules, which
  pre-Turing GPUs need, are the `<branch>-dkms` stream.
- Arch: `nvidia-open` (Turing and newer).
Open kernel modules run on Turing (compute capability 7.5) and newer only.
"""

from __future__ import annotations

import re
from dataclasses import replace

from gpudoctor.cmdline import Cmd, Line, Output, Placeholder, PrependPath, SetFrom, Unrenderable, render
from gpudoctor.facts import CLUSTER_SAID, NOTEBOOK_SAID, Facts
from gpudoctor.lazypattern import LazyPattern
from gpudoctor.model import Remediation
from gpudoctor.planner.where import conda, package_step, shell

# (their home is gpudoctor.planner.where, which decides where a command runs; importers of remedy keep them)
from gpudoctor.planner.where import container_of as container_of
from gpudoctor.planner.where import container_said as container_said
from gpudoctor.planner.where import python_exe as python_exe
from gpudoctor.planner.where import where_run as where_run
from gpudoctor.probed import Found
from gpudoctor.versions import vkey

SOURCE_DRIVER_GUIDE = "https://docs.nvidia.com/datacenter/tesla/driver-installation-guide/kernel-modules.html"


# The words of /etc/os-release's ID and ID_LIKE that name each family (os-release(5): ID_LIKE lists the distributions
# this one derives from). Whole words, never substrings: "tencentos" holds "centos" and is RHEL's only through its
# ID_LIKE ("rhel fedora centos", TencentOS Server 3's os-release as canonical/cloud-init quotes it,
# tests/unittests/test_util.py OS_RELEASE_TENCENTOS_3); a paste that shows only the name keeps its ID alone, so the
# RHEL rebuilds that name themselves so are listed (their ID_LIKE, from the same file: OpenCloudOS "rhel fedora",
# CloudLinux, EuroLinux, MIRACLE LINUX, Virtuozzo "rhel ...").
_FAMILY_WORDS = {
    "debian": frozenset({"debian", "ubuntu"}),
    "rhel": frozenset(
        {
            "rhel",
            "fedora",
            "centos",
            "rocky",
            "almalinux",
            "amzn",
            "ol",
            "tencentos",
            "opencloudos",
            "cloudlinux",
            "eurolinux",
            "miraclelinux",
            "virtuozzo",
        }
    ),  # fmt: skip
    "suse": frozenset({"suse", "sles", "opensuse", "opensuse-leap", "opensuse-tumbleweed"}),
    "arch": frozenset({"arch"}),
}


def family(facts: Facts) -> str:
    """debian, rhel, suse, arch or unknown, from /etc/os-release's ID and ID_LIKE (whole words)."""
    d = facts.platform.distro
    ids = set(f"{d.id or ''} {d.id_like or ''}".lower().split())
    return next((fam for fam, words in _FAMILY_WORDS.items() if ids & words), "unknown")


# The distributions built on Ubuntu's archive: its driver packages (nvidia-driver-<branch>, nvidia-utils-<branch>,
# libnvidia-compute-<branch>) and its tools (ubuntu-drivers, update-secureboot-policy) are theirs too. Linux Mint's
# Driver Manager is a front end to ubuntu-drivers (linuxmint/mintdrivers debian/control @6149fd20: Depends
# ubuntu-drivers-common), and a derivative says its base in os-release's ID_LIKE (os-release(5); Linux Mint and
# Pop!_OS write ID_LIKE="ubuntu debian"). A paste that names Linux Mint keeps ID linuxmint with its family, debian, as
# ID_LIKE (gpudoctor.pasted.distro_traces), so the ID is listed too: without it Mint would take Debian's packages.
_UBUNTU_ARCHIVE_IDS = frozenset({"ubuntu", "linuxmint"})


def ubuntu_archive(facts: Facts) -> bool:
    """Whether the distribution installs from Ubuntu's archive: Ubuntu, or a derivative of it (its ID, or "ubuntu" among
    its ID_LIKE words)."""
    d = facts.platform.distro
    return (d.id or "").lower() in _UBUNTU_ARCHIVE_IDS or "ubuntu" in (d.id_like or "").lower().split()


# A hosted notebook service, named on a line that says the paste ran in a notebook: Colab (its /content working folder),
# Kaggle (its /kaggle/working and /kaggle/input folders). Their VMs run the platform's NVIDIA driver, which a notebook
# cannot replace (googlecolab/colabtools#1773, the Colab team: "Installing arbitrary software builds isn't expected to
# work. The torch bundled with colab VMs shows cuda_is_available() returns true"; a Jupyter on one's own machine is not one).
_HOSTED = LazyPattern(r"\b(?P<colab>colab(?:oratory)?)\b|(?<![\w.])/content/|(?P<kaggle>\bkaggle\b)", re.IGNORECASE)


def hosted_notebook(facts: Facts) -> str:
    """The service, "Colab" or "Kaggle", where the paste ran in a hosted notebook whose driver is the platform's; else ""."""
    if not facts.pasted.partial:
        return ""
    for c in facts.pasted.cues:
        if c.get("cue") == NOTEBOOK_SAID and (m := _HOSTED.search(str(c.get("line", "")))):
            return "Kaggle" if m.group("kaggle") else "Colab"
    return ""


def notebook_said(facts: Facts) -> bool:
    """Whether the pasted commands ran in a notebook (Colab, Jupyter: gpudoctor.pasted.cues), where `!export` lasts one
    line: a variable for the programs it starts is set in the kernel's environment instead."""
    return facts.pasted.partial and any(c.get("cue") == NOTEBOOK_SAID for c in facts.pasted.cues)


# Where a setting is kept by a command, per place: the line is appended by the environment's own interpreter to a file
# beside it (sys.prefix is the environment's root, active or not; where the paste names no interpreter of the conda
# environment, `conda-active`: the active environment's CONDA_PREFIX, failing where none is active): a conda
# environment's etc/conda/activate.d, whose *.sh files `conda activate` sources in a POSIX shell (conda's docs, "Saving
# environment variables", user-guide/tasks/manage-environments; conda/activate.py _get_activate_scripts), or a venv's
# bin/activate, which `source bin/activate` reads; else the user's ~/.bashrc, which an interactive bash reads. The line is the quoting
# layer's POSIX line (data quoted), written as one argument: no shell reads it until that file is sourced.
_KEEP_FILE = {
    "conda": 'd = os.path.join(sys.prefix, "etc", "conda", "activate.d"); os.makedirs(d, exist_ok=True); '
    'f = os.path.join(d, "gpudoctor.sh")',
    "conda-active": 'd = os.path.join(os.environ["CONDA_PREFIX"], "etc", "conda", "activate.d"); os.makedirs(d, exist_ok=True); '
    'f = os.path.join(d, "gpudoctor.sh")',
    "venv": 'f = os.path.join(sys.prefix, "bin", "activate")',
    "bashrc": 'f = os.path.expanduser("~/.bashrc")',
}
KEEP = {
    place: f'import os, sys; {where}; open(f, "a").write("".join(a + chr(10) for a in sys.argv[1:]))'
    for place, where in _KEEP_FILE.items()
}
# Where a setting holds a program's output (`"$(python3 -c '...')"`), its line quoted once more for the keep line would
# be unreadable, and the program would run in every new shell: the value it set is kept instead, read from the
# environment the settings have just changed. Each argument names a variable: `+NAME` a list the settings put
# directories first on, one `+` per directory (those first entries are kept first, in their order, the rest of the
# list as each shell has it), `NAME` a variable set whole. The value is quoted by shlex.quote for the POSIX shell that
# sources the file: it is data there, never code. A variable the environment does not hold is not written: a setting
# computed with `&&` sets nothing where its program found nothing (library_copy's look), and the line must not fail
# with a KeyError then (the reviewer of tests/blind/plans22/cases/2271-*).
KEEP_VALUES = {
    place: f'import os, shlex, sys; {where}; e = os.environ; q = shlex.quote; k = lambda a: len(a) - len(a.lstrip("+")); '
    'open(f, "a").write("".join(("export %s=%s\\"${%s:+:$%s}\\"" % (a[k(a):], q(":".join(e[a[k(a):]].split(":")[: k(a)])), '
    'a[k(a):], a[k(a):]) if k(a) else "export %s=%s" % (a, q(e[a]))) + chr(10) for a in sys.argv[1:] '
    'if a.lstrip("+") in e))'
    for place, where in _KEEP_FILE.items()
}
# (a note's words: letters, digits and .,:/_+@%=- only, cmdline.note_text)
_KEPT_IN = {
    "conda": "the environment's etc/conda/activate.d, which each conda activate runs",
    "venv": "the environment's bin/activate",
    "bashrc": "the .bashrc of your home folder, which each new bash reads",
}


def keep_place(facts: Facts) -> str | None:
    """Where a command keeps a setting for the shells to come (a key of KEEP), or None where the plan says how in
    prose: a notebook (the kernel's environment), Windows' shells and fish (where.shell), a container
    (its image's ENV outlives it, not a file in it), a cluster (the job script)."""
    # (`any`: a paste that names no OS, Linux assumed: its settings are written for a POSIX shell already)
    if notebook_said(facts) or shell(facts) not in ("posix", "any") or container_of(facts):
        return None
    if facts.pasted.cluster or any(c.get("cue") == CLUSTER_SAID for c in facts.pasted.cues):
        return None
    py = facts.frameworks.python
    kind = py.value.kind if isinstance(py, Found) else ""
    if kind in ("conda", "venv"):
        return kind
    return "conda" if conda(facts) else "bashrc"


def kept(facts: Facts, commands: tuple[Line, ...]) -> tuple[Line, ...]:
    """`commands` with one more after the last that puts a directory on a path or sets a variable from a program's
    output: it keeps those settings where keep_place finds a place (keep_path says so). As they are where there is no
    place, or a setting cannot be written for a POSIX shell."""
    place = keep_place(facts)
    found = [
        (i, c) for i, c in enumerate(commands) if isinstance(c, (PrependPath, SetFrom)) and not getattr(c, "notebook", False)
    ]
    if place is None or not found:
        return commands
    settings = [c for _, c in found]
    exe = python_exe(facts)
    key = "conda-active" if place == "conda" and "/" not in exe else place
    if any(_computed(c) for c in settings):
        # one argument per variable, in the order of its last setting: +NAME once per directory put first on it
        counts: dict[str, int] = {}
        for c in settings:
            for name in c.names if isinstance(c, PrependPath) else (c.name,):
                counts[name] = counts.pop(name, 0) + 1 if isinstance(c, PrependPath) else 0
        texts = tuple("+" * n + name for name, n in counts.items())
        program = KEEP_VALUES[key]
    else:
        try:
            texts = tuple(render(c, "posix") for c in settings)
        except Unrenderable:
            return commands
        program = KEEP[key]
    keep = Cmd((exe, "-c", program, *texts), note=f"keeps {'it' if len(texts) == 1 else 'them'} in {_KEPT_IN[place]}")
    last = found[-1][0] + 1
    return (*commands[:last], keep, *commands[last:])


def _computed(line: Line) -> bool:
    """Whether a setting holds a program's output (its value is known once it has run)."""
    return isinstance(line, SetFrom) or any(isinstance(p, Output) for p in getattr(line, "parts", ()))


def keep_path(facts: Facts, windows: bool = False) -> str:
    """What keeps a prepended library directory for the shells, jobs and cells to come: said beside every such step
    (the line kept() adds, where there is a place for it)."""
    place = None if windows else keep_place(facts)
    if place is not None:
        return f" The line after the setting keeps it for new shells, in {_KEPT_IN[place]}."
    if windows:
        return (
            " It lasts for this window: to keep it, add the folder to your user's Path (Settings, 'Edit environment "
            "variables for your account'), or run the line before the program each time."
        )
    if notebook_said(facts):
        return (
            " In a notebook that line is Python, in a cell of its own (shell lines take a leading !): `!export` ends "
            "with its line, and the kernel's environment is what the programs it starts inherit; run it before the "
            "program starts, again after a runtime restart."
        )
    return (
        " To keep it for new shells, add the same line to ~/.bashrc (or, for one environment, to the end of its "
        "bin/activate; in a batch job, to the job script)."
    )


def library_dir(facts: Facts, parts: tuple[str | Output, ...], *, windows: bool = False, note: str = "") -> PrependPath:
    """The step that puts a library's directory first where the loader looks: LD_LIBRARY_PATH (Windows: PATH, where
    DLLs are searched), the rest kept; in a notebook, the kernel's environment, which the programs it starts inherit."""
    name = "PATH" if windows else "LD_LIBRARY_PATH"
    return PrependPath(name, parts, note=note, notebook=notebook_said(facts) and not windows)


def shown_library_dir(facts: Facts, missing: list[str], component: str) -> Remediation | None:
    """Where the text lists on disk the very file the loader could not open (pasted.read: `find / -name`, `ls -l`,
    `locate` printed it), the library is installed and its directory is not where the loader looks: that directory goes
    first on LD_LIBRARY_PATH, exported (a plain `NAME=value` in a shell does not reach the programs it starts), whatever
    else the message leaves open (which build asked for it, which wheel brings it). One directory for every library
    missing, or None: two copies in two places, or a library not shown, leave it to the check's own remedy."""
    shown = facts.pasted.reported("library-file-said") if facts.pasted.partial else []
    dirs: set[str] = set()
    for soname in missing:
        here = {
            (e.get("path") or "").rsplit("/", 1)[0]
            for e in shown
            if (e.get("name") or "") == soname or (e.get("name") or "").startswith(soname + ".")
        }
        if len(here) != 1:
            return None
        dirs |= here
    if len(dirs) != 1 or not missing:
        return None
    (where,) = dirs
    first = sorted(missing)[0]
    return Remediation(
        f"The text shows {first} on disk in {where}: the library is installed, and the loader does not search that "
        "directory. Put it first on LD_LIBRARY_PATH, exported, in the shell or job that starts the program (an "
        "assignment without `export` does not reach the program), then run the program again." + keep_path(facts),
        kept(facts, (Cmd(("ls", "-l", f"{where}/{first}")), library_dir(facts, (where,)))),
        component=component,
    )


def apt_install(*packages: str, note: str = "") -> tuple[Cmd, Cmd]:
    """`apt-get update`, then `apt-get install -y PACKAGES`: the index a machine holds was not recorded (a fresh
    distribution or image has none), and every apt-get install of a plan comes after an update
    (gpudoctor.planner.needs holds each plan to it)."""
    return Cmd(("apt-get", "update"), root=True), Cmd(("apt-get", "install", "-y", *packages), root=True, note=note)


def pip(facts: Facts, *args: str) -> Cmd:
    """`<the probed python> -m pip ARGS`, or the same in the tool that manages the environment (gpudoctor.planner.where
    decides it): each of ARGS is one argument (a spec such as `torch==2.3.1`, unquoted)."""
    return package_step(facts, *args)


def rebuild_args(name: str, spec: str) -> tuple[str, ...]:
    """pip's arguments that build `spec` (a release of `name`) from its source against the torch installed now, and
    nothing else: --no-build-isolation builds against that torch (an isolated build fetches the newest), --no-binary
    refuses the release's wheel, --no-deps leaves torch as it is. --no-cache-dir: pip reuses the wheel it built for
    the same version before, whatever torch that was built against (its cache is keyed by the source), and
    --no-binary has not bypassed that cache since pip 23.1 (pypa/pip#9162, fixed by #11872), so without it the
    "rebuild" reinstalls the old torch's build. One answer for the doctor's fix and the install planner's."""
    return ("--no-build-isolation", "--no-binary", name, "--no-cache-dir", "--force-reinstall", "--no-deps", spec)


def open_modules_fit(facts: Facts, ctx=None) -> bool | None:
    """Whether NVIDIA's open kernel modules can drive every GPU here (Turing, 7.5, and newer); None if unknown.

    The compute capability is NVML's, else (with a check Context) the matrix's entry for the GPU's name."""
    ccs = [g.compute_capability for g in facts.driver.gpus if g.compute_capability]
    if not ccs and ctx is not None:
        from gpudoctor.planner.context import gpu_cc

        ccs = [cc for cc in (gpu_cc(g, ctx) for g in facts.driver.gpus) if cc]
    if not ccs:
        flavor = _loaded_flavor(facts)
        return True if flavor == "open" else None
    return all(vkey(cc) >= (7, 5) for cc in ccs)


# The last driver branch of each GPU generation that NVIDIA retired (NVIDIA's "Unix Graphics Feature Deprecation
# Schedule", forums.developer.nvidia.com/t/unix-graphics-feature-deprecation-schedule/60588: "The release 580 series will
# be the last to support GPUs based on the Maxwell, Pascal, and Volta architectures"; the 470 series the last for
# Kepler, NVIDIA support answer 5202; the 390 series the last for Fermi, the same schedule). Keyed by the compute
# capability below which a generation ends: Fermi is 2.x, Kepler 3.x, Maxwell 5.x, Pascal 6.x, Volta 7.0 and 7.2
# (Turing, 7.5, goes on); a GPU below several takes the oldest. A newer branch does not drive such a GPU, so a driver
# route for it names this branch, never "the newest".
_LAST_BRANCH = (((3, 0), "390"), ((5, 0), "470"), ((7, 5), "580"))


def last_branch(facts: Facts, ctx=None) -> str | None:
    """The newest driver branch that drives every GPU here, where one of them is of a retired generation (its
    compute capability NVML's, else the matrix's for its name); None where every GPU known goes on, or none is known."""
    ccs = [g.compute_capability for g in facts.driver.gpus if g.compute_capability]
    if not ccs and ctx is not None:
        from gpudoctor.planner.context import gpu_cc

        ccs = [cc for cc in (gpu_cc(g, ctx) for g in facts.driver.gpus) if cc]
    ends = [branch for cc in ccs for below, branch in _LAST_BRANCH if vkey(cc)[:2] < below]
    return min(ends, key=int) if ends else None


def _loaded_flavor(facts: Facts) -> str | None:
    proc = facts.kernel.proc_driver
    return proc.value.flavor if isinstance(proc, Found) else None


def driver_install(facts: Facts, branch: str | None = None, ctx=None) -> tuple[Cmd, ...]:
    """Install the NVIDIA driver (a branch such as "550", chosen by code) with this distribution's tools.

    Empty for a distribution without a known recipe: the remediation's summary then says what to do.
    """
    if facts.kernel.run_installer:
        # A .run installation is there: the distribution's packages go on only after it is removed (two
        # installations of one driver break each other), so the removal comes first, in the same step.
        packages = _distribution_driver(facts, branch, ctx)
        return (
            (Cmd(("nvidia-uninstall", "--silent"), root=True, note="removes the .run installation first"), *packages)
            if packages
            else ()
        )
    return _distribution_driver(facts, branch, ctx)


# NVIDIA's repositories for Debian and Ubuntu are set up by the cuda-keyring package (SOURCE_CUDA_INSTALL,
# "Network Repository Installation": wget .../repos/<distro>/<arch>/cuda-keyring_1.1-1_all.deb, dpkg -i it).
CUDA_REPOS_URL = "https://developer.download.nvidia.com/compute/cuda/repos/"
KEYRING_DEB = "cuda-keyring_1.1-1_all.deb"


def cuda_keyring(repo: str) -> list[Cmd]:
    """The two commands that add NVIDIA's CUDA repository `repo` (debian12, ubuntu2204: matrix.cuda_repo_for) to apt."""
    return [
        Cmd(("wget", f"{CUDA_REPOS_URL}{repo}/x86_64/{KEYRING_DEB}")),
        Cmd(("dpkg", "-i", KEYRING_DEB), root=True, note="adds NVIDIA's CUDA repository and its signing key"),
    ]


def _nvidia_repo(facts: Facts, ctx) -> list[Cmd]:
    """NVIDIA's CUDA repository added first, where the matrix knows the one for this release on x86_64 (a package
    only it carries, cuda-drivers-<branch>, is not in Debian's archive: apt would find none)."""
    d = facts.platform.distro
    if ctx is None or (facts.platform.machine or "").lower() not in ("x86_64", "amd64"):
        return []
    repo = ctx.matrix.cuda_repo_for(d.id, d.version_id)
    return cuda_keyring(repo.repo) if repo is not None else []


_WHICH_GPU = Cmd(
    ("lspci", "-nn"),
    pipe=("grep", "-i", "nvidia"),
    note="which GPU: Turing and newer - GTX 16, RTX 20, T4 on - take the open modules, older ones the proprietary",
)


def _before_modules(facts: Facts) -> bool:
    """Whether the RHEL-family release stated is one before dnf's module streams: RHEL, CentOS and the rebuilds that
    number their releases as RHEL does (Rocky, Alma, Oracle Linux; a kernel's .el7 tag, ID unnamed) before 8, Amazon
    Linux 2 (VERSION_ID "2"; Amazon Linux 2023 is Fedora-based, with dnf). Others number their own (Fedora,
    TencentOS Server 3 is RHEL 8's kind): not judged. Unknown releases are not."""
    d = facts.platform.distro
    distro = (d.id or "").lower()
    major = (d.version_id or "").split(".")[0]
    if not major.isdigit():
        return False
    if distro == "amzn":
        return major == "2"
    return distro in ("", "rhel", "centos", "rocky", "almalinux", "ol") and int(major) < 8


def _distribution_driver(facts: Facts, branch: str | None, ctx) -> tuple[Cmd, ...]:
    fam = family(facts)
    distro = (facts.platform.distro.id or "").lower()
    opened = open_modules_fit(facts, ctx)
    last = last_branch(facts, ctx)
    if fam == "debian" and ubuntu_archive(facts):
        if branch and opened is None:
            # The flavour is the GPU's (the open modules from Turing on, only they from Blackwell on): asked, not guessed.
            return (
                _WHICH_GPU,
                Cmd(("apt-get", "update"), root=True),
                Cmd(
                    ("apt-get", "install", "-y", Placeholder("nvidia-driver-package")),
                    root=True,
                    note=f"Ubuntu's archive: nvidia-driver-{branch} before Turing, nvidia-driver-{branch}-open from Turing on",
                ),
            )
        if branch:
            package = f"nvidia-driver-{branch}" + ("-open" if opened else "")
            return (
                Cmd(("apt-get", "update"), root=True),
                Cmd(("apt-get", "install", "-y", package), root=True, note="Ubuntu's archive"),
            )
        return (
            Cmd(("apt-get", "update"), root=True),
            Cmd(("ubuntu-drivers", "install"), root=True, note="the branch Ubuntu recommends for this GPU"),
        )
    if fam == "debian" and not distro:
        # Only the family is known (a paste's apt run, gpudoctor.pasted.distro_traces): Ubuntu's archive and Debian's
        # name the driver's packages differently, so which applies is not decided here.
        return ()
    if fam == "debian":
        if branch:
            return (
                *_nvidia_repo(facts, ctx),
                Cmd(("apt-get", "update"), root=True),
                Cmd(("apt-get", "install", "-y", f"cuda-drivers-{branch}"), root=True, note="NVIDIA's CUDA repository"),
            )
        return (
            Cmd(("apt-get", "update"), root=True),
            Cmd(("apt-get", "install", "-y", "nvidia-driver"), root=True, note="Debian's non-free component"),
        )
    if fam == "rhel" and _before_modules(facts):
        # RHEL and CentOS 7 (and Amazon Linux 2) have yum and no module streams: dnf and AppStream's modules came with
        # RHEL 8 (Red Hat, "Considerations in adopting RHEL 8", ch. 5 "Software management": YUM v4 based on DNF, and
        # "Application Streams" as modules), which NVIDIA's `dnf module` driver streams need. No recipe is written
        # for them here: the plan's prose names the branch instead of a command that does not exist on the machine.
        return ()
    if fam == "rhel":
        if opened is None:
            # The GPU decides the flavour and nothing here names it (no compute capability, no loaded module): the
            # open modules cannot drive a GPU before Turing, the proprietary ones none from Blackwell on. Ask, not guess.
            return (
                _WHICH_GPU,
                Cmd(
                    ("dnf", "module", "install", "-y", Placeholder("nvidia-driver-stream")),
                    root=True,
                    note=f"NVIDIA's CUDA repository: nvidia-driver:{branch or '580'}-dkms before Turing "
                    f"({'' if branch else '580 is the last branch for Maxwell, Pascal and Volta, 470 for Kepler; '}"
                    f"the proprietary modules), nvidia-driver:{branch + '-open' if branch else 'open-dkms'} from Turing on",
                ),
            )
        if opened is False:
            # ("latest" follows the newest branch, which no longer drives a retired generation's GPU)
            stream = f"nvidia-driver:{branch or last or 'latest'}-dkms"
            return (
                Cmd(("dnf", "module", "install", "-y", stream), root=True, note="NVIDIA's CUDA repository; proprietary modules"),
            )
        stream = f"nvidia-driver:{branch}-open" if branch else "nvidia-driver:open-dkms"
        return (
            Cmd(("dnf", "module", "enable", "-y", stream), root=True, note="NVIDIA's CUDA repository"),
            Cmd(("dnf", "install", "-y", "nvidia-open"), root=True),
        )
    if fam == "arch" and opened:
        return (Cmd(("pacman", "-S", "--needed", "nvidia-open"), root=True),)
    return ()


def reboot(facts: Facts | None = None, where: str = "") -> tuple[Cmd, ...]:
    """Restart the machine: `reboot` on Linux; on Windows, which has no `reboot`, `shutdown /r /t 0` (Microsoft's
    shutdown command reference: /r "full shutdown and restart", /t the time-out in seconds): shutdown.exe is a program,
    which cmd.exe and PowerShell both run, where PowerShell's Restart-Computer is a cmdlet cmd.exe does not know (a
    plan for "cmd.exe or PowerShell" would print it as PowerShell's only). A step `where="Windows"` of a WSL report
    restarts the Windows host, not the distribution."""
    if where == "Windows" or facts is not None and (facts.platform.system or "").lower().startswith("win"):
        return (Cmd(("shutdown", "/r", "/t", "0"), root=True),)
    return (Cmd(("reboot",), root=True),)


def driver_install_and_reboot(facts: Facts, branch: str | None = None, ctx=None) -> tuple[Cmd, ...]:
    """The driver install, then the reboot that loads it; nothing where no install command is known.

    A reboot alone never answers "driver too old": it would load the same module again. Where this
    distribution (or platform: Windows, pasted text that names none) has no install recipe, the remediation's
    summary says where the driver comes from, and the reboot follows that install, not a bare command."""
    install = driver_install(facts, branch, ctx)
    return (*install, *reboot(facts)) if install else ()


# Enrolling the key a locally built NVIDIA module is signed with, so that the kernel loads it with Secure Boot on. The
# key is the module builder's, per distribution: Fedora's akmods (RPM Fusion's akmod-nvidia) signs with the key
# kmodgenca creates, imported from /etc/pki/akmods/certs/public_key.der, and akmods --force rebuilds the module signed
# (RPM Fusion, "Howto/Secure Boot", and akmods' README.secureboot); Ubuntu's DKMS signs with shim-signed's machine owner
# key, which update-secureboot-policy --enroll-key imports (Ubuntu's shim-signed); Debian's DKMS (3.0 on) generates
# /var/lib/dkms/mok.pub and signs with it (Debian wiki, SecureBoot, "DKMS and secure boot"). mokutil asks for a one-time
# password, which the MOK manager asks for at the next boot (Enroll MOK).
def enroll_module_key(facts: Facts) -> tuple[Cmd, ...]:
    """The commands that enroll the NVIDIA module's signing key and reboot into the MOK manager; for a paste that names
    no distribution, the read that decides them; () where the distribution's module builder is not known."""
    distro = (facts.platform.distro.id or "").lower()
    if distro == "fedora":
        enroll: tuple[Cmd, ...] = (
            Cmd(("kmodgenca", "-a"), root=True, note="akmods' signing key, created once"),
            Cmd(("mokutil", "--import", "/etc/pki/akmods/certs/public_key.der"), root=True, note="asks for a one-time password"),
            Cmd(("akmods", "--force"), root=True, note="rebuilds the nvidia module, signed with that key"),
        )
    elif ubuntu_archive(facts):
        enroll = (Cmd(("update-secureboot-policy", "--enroll-key"), root=True, note="asks for a one-time password"),)
    elif distro == "debian":
        enroll = (Cmd(("mokutil", "--import", "/var/lib/dkms/mok.pub"), root=True, note="asks for a one-time password"),)
    elif not distro and facts.pasted.partial:
        # a paste that names no distribution: which builder signs the module is what /etc/os-release decides
        return (
            Cmd(
                ("cat", "/etc/os-release"),
                note="the distribution decides whose key signs the module: akmods' on Fedora, DKMS's on Debian and Ubuntu",
            ),
        )
    else:
        return ()
    return (*enroll, *reboot(facts))


def reload_modules() -> tuple[Cmd, ...]:
    """Unload and load the NVIDIA kernel modules: what a reboot does for the driver, without the reboot."""
    return (
        Cmd(
            ("rmmod", "nvidia_uvm", "nvidia_drm", "nvidia_modeset", "nvidia"),
            root=True,
            note="or, without a reboot: stop GPU jobs and the display manager first",
        ),
        Cmd(("modprobe", "nvidia"), root=True),
    )


def userspace_for_module(facts: Facts, module: str | None) -> tuple[Cmd, ...]:
    """Install the driver's user-space libraries of the loaded module's exact version (Ubuntu's archive: the
    branch's nvidia-utils and libnvidia-compute packages, the version as an apt glob): what makes a newer module
    and stale libraries agree without a reboot. Empty where no recipe is known (or the version is unknown)."""
    if not module or not ubuntu_archive(facts):
        return ()
    branch = module.split(".")[0]
    return (
        Cmd(("apt-get", "update"), root=True),
        Cmd(
            ("apt-get", "install", "-y", f"nvidia-utils-{branch}={module}-*", f"libnvidia-compute-{branch}={module}-*"),
            root=True,
            note="the user-space of the loaded module's version",
        ),
    )


def installed_driver_packages(facts: Facts) -> tuple[Cmd, ...]:
    """List the installed NVIDIA driver packages with this distribution's package database."""
    fam = family(facts)
    if fam == "debian":
        return (Cmd(("dpkg", "-l"), pipe=("grep", "-i", "nvidia")),)
    if fam in ("rhel", "suse"):
        return (Cmd(("rpm", "-qa"), pipe=("grep", "-i", "nvidia")),)
    if fam == "arch":
        return (Cmd(("pacman", "-Q"), pipe=("grep", "-i", "nvidia")),)
    return ()


def package_repair(facts: Facts) -> tuple[Cmd, ...]:
    """Finish an interrupted or partial package upgrade with this distribution's package manager."""
    fam = family(facts)
    if fam == "debian":
        return (
            Cmd(("apt-get", "update"), root=True),
            Cmd(("dpkg", "--configure", "-a"), root=True),
            Cmd(("apt-get", "install", "--fix-broken", "-y"), root=True),
        )
    if fam == "rhel":
        return (Cmd(("dnf", "check"), root=True), Cmd(("dnf", "distro-sync", "-y"), root=True))
    if fam == "suse":
        return (Cmd(("zypper", "verify"), root=True),)
    if fam == "arch":
        return (Cmd(("pacman", "-Syu"), root=True),)
    return ()


def restart_container(runtime: str | None) -> Cmd:
    """Restart the container (Kubernetes: delete the pod, its controller starts a new one)."""
    if runtime == "kubernetes":
        return Cmd(("kubectl", "delete", "pod", Placeholder("pod")), note="its controller starts a new one")
    if runtime == "podman":
        return Cmd(("podman", "restart", Placeholder("container")))
    return Cmd(("docker", "restart", Placeholder("container")))


def recreate_container(runtime: str | None) -> tuple[Cmd, ...]:
    """Replace a container by a new one from its image (what a container created before a host driver upgrade needs:
    a restart keeps what was put in it at its creation). Docker and Podman: commit it first where it holds changes;
    Kubernetes: delete the pod, its controller creates a new one."""
    if runtime == "kubernetes":
        return (restart_container(runtime),)
    tool = "podman" if runtime == "podman" else "docker"
    return (
        Cmd(
            (tool, "commit", Placeholder("container"), Placeholder("new-image")),
            note="only if the container holds changes worth keeping",
        ),
        Cmd((tool, "rm", "-f", Placeholder("container"))),
        Cmd(
            (
                tool,
                "run",
                "--gpus" if tool == "docker" else "--device",
                "all" if tool == "docker" else "nvidia.com/gpu=all",
                Placeholder("image"),
            ),
            note="the committed image, or the original one; with your usual options",
        ),
    )


def container_gpu_commands(runtime: str | None) -> tuple[Cmd, ...]:
    """Start a container with the GPU through the NVIDIA container toolkit, per runtime (commands for the host).

    Docker: `--gpus all` after `nvidia-ctk runtime configure`; Podman: CDI (`nvidia-ctk cdi generate`,
    then `--device nvidia.com/gpu=all`); Kubernetes: a `nvidia.com/gpu` resource limit, which the device
    plugin serves (NVIDIA Container Toolkit install guide).
    """
    if runtime == "kubernetes":
        return (
            Cmd(
                ("kubectl", "describe", "node", Placeholder("node")),
                pipe=("grep", "nvidia.com/gpu"),
                note="the node must offer nvidia.com/gpu; the pod asks for it in resources.limits",
            ),
        )
    if runtime == "podman":
        return (
            Cmd(("nvidia-ctk", "cdi", "generate", "--output=/etc/cdi/nvidia.yaml"), root=True),
            Cmd(("podman", "run", "--device", "nvidia.com/gpu=all", Placeholder("image")), note="with your usual options"),
        )
    # `--gpus all` alone is the fix for a container started without it; configuring the daemon is the other branch
    # (docker_runtime_setup), offered beside it: restarting docker stops every container on the host.
    return (Cmd(("docker", "run", "--gpus", "all", Placeholder("image")), note="with your usual options"),)


# NVIDIA's container-toolkit repository, per its install guide (NVIDIA/cloud-native-docs,
# container-toolkit/install-guide.md @01f0197c90e918c65883c6c2cb5d9cc3653ebde7: "With apt: Ubuntu, Debian",
# "With dnf: RHEL/CentOS, Fedora, Amazon Linux", "With zypper: OpenSUSE, SLE"; then "Configuring Docker").
SOURCE_CONTAINER_TOOLKIT_GUIDE = "https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/install-guide.html"
_CTK_REPO = "https://nvidia.github.io/libnvidia-container"
_CTK_KEYRING = "/usr/share/keyrings/nvidia-container-toolkit-keyring.gpg"
_CTK_APT_LIST = "/etc/apt/sources.list.d/nvidia-container-toolkit.list"
_CTK_RPM_REPO = f"{_CTK_REPO}/stable/rpm/nvidia-container-toolkit.repo"


def container_toolkit_shown(facts: Facts) -> bool:
    """Whether the evidence shows the NVIDIA Container Toolkit installed (its CLI answered `nvidia-ctk --version`)."""
    return bool(facts.pasted.reported("container-toolkit-version"))


def container_toolkit_install(facts: Facts) -> tuple[Cmd, ...]:
    """Install the NVIDIA Container Toolkit on the host the way NVIDIA's guide does for its distribution family:
    NVIDIA's repository first (its key and source list; apt then reads it), then the package. A host whose family
    is not known gets the apt route (the guide's first), its note naming the others. Inside a container the
    distribution read is the image's, not the host's: not known."""
    fam = "unknown" if facts.platform.container else family(facts)
    if fam == "rhel":
        return (
            Cmd(
                ("curl", "-s", "-L", _CTK_RPM_REPO),
                pipe=("sudo", "tee", "/etc/yum.repos.d/nvidia-container-toolkit.repo"),
                note="NVIDIA's container-toolkit repository",
            ),
            Cmd(("dnf", "install", "-y", "nvidia-container-toolkit"), root=True),
        )
    if fam == "suse":
        return (
            Cmd(("zypper", "ar", _CTK_RPM_REPO), root=True, note="NVIDIA's container-toolkit repository"),
            Cmd(("zypper", "--gpg-auto-import-keys", "install", "-y", "nvidia-container-toolkit"), root=True),
        )
    if fam == "arch":
        return (Cmd(("pacman", "-S", "--needed", "nvidia-container-toolkit"), root=True, note="Arch's own package"),)
    unknown = (
        (
            Cmd(
                ("cat", "/etc/os-release"),
                note="the host's distribution decides the route: the apt route below is Ubuntu's and Debian's; "
                "RHEL, Fedora and SUSE take dnf or zypper from NVIDIA's install guide",
            ),
            Cmd(("snap", "list", "docker"), note="Docker from snap does not use this toolkit: use Docker's own packages"),
        )
        if fam == "unknown"
        else ()
    )
    return (
        *unknown,
        Cmd(
            ("curl", "-fsSL", f"{_CTK_REPO}/gpgkey"),
            pipe=("sudo", "gpg", "--dearmor", "-o", _CTK_KEYRING),
            note="NVIDIA container-toolkit repository, its signing key",
        ),
        Cmd(("curl", "-fsSL", "-o", _CTK_APT_LIST, f"{_CTK_REPO}/stable/deb/nvidia-container-toolkit.list"), root=True),
        Cmd(("sed", "-i", f"s#deb https://#deb [signed-by={_CTK_KEYRING}] https://#g", _CTK_APT_LIST), root=True),
        Cmd(("apt-get", "update"), root=True),
        Cmd(("apt-get", "install", "-y", "nvidia-container-toolkit"), root=True),
    )


# dockerd registers its "nvidia" GPU device driver when it starts, and only where it finds the toolkit's hook on its PATH
# (moby/moby daemon/nvidia_linux.go @5c487368: init() returns early when exec.LookPath("nvidia-container-runtime-hook")
# fails), which is what 'could not select device driver "" with capabilities: [[gpu]]' answers. The hook found says the
# toolkit is installed (its install is skipped: a restart after configuring registers it); none, that it is not, or was
# removed where --gpus used to work (plans20/2068; plans11/1141: the toolkit installed, docker not restarted).
_HOOK_READ = Cmd(
    ("command", "-v", "nvidia-container-runtime-hook"),
    note="read-only: a path printed means the toolkit is installed: skip its install below, configure and restart docker",
)


def docker_runtime_setup(facts: Facts) -> tuple[Cmd, ...]:
    """The host's commands where `--gpus` fails with 'could not select device driver': install the NVIDIA Container
    Toolkit unless the evidence shows it installed, register its runtime with docker, restart the daemon, start the
    container with the GPU."""
    shown = container_toolkit_shown(facts)
    return (
        *(() if shown else (_HOOK_READ, *container_toolkit_install(facts))),
        Cmd(
            ("nvidia-ctk", "runtime", "configure", "--runtime=docker"),
            root=True,
            note="nvidia-ctk is there, as the text shows: docker is not configured with it" if shown else "",
        ),
        Cmd(("systemctl", "restart", "docker"), root=True, note="stops every running container on this host"),
        *left_behind(run := reporters_docker_run(facts, gpus=True)),
        run or Cmd(("docker", "run", "--gpus", "all", Placeholder("image")), note="with your usual options"),
    )


def left_behind(run: Cmd | None) -> tuple[Cmd, ...]:
    """`docker rm NAME` before the reporter's own `docker run --name NAME` is run again, where it has no --rm: docker
    creates the container before it starts it, and a failure while starting (the device request, a runtime hook:
    moby/moby daemon/start.go @ce27df7b, containerStart builds the spec after the container exists) leaves it behind,
    removed only under --rm (AutoRemove), so the same command again would stop at the name already in use."""
    if run is None or "--rm" in run.words:
        return ()
    words = run.words
    name = next(
        (w.removeprefix("--name=") for w in words if w.startswith("--name=")),
        next((words[i + 1] for i, w in enumerate(words[:-1]) if w == "--name"), None),
    )
    if not name:
        return ()
    return (Cmd(("docker", "rm", name), note="the failed start left a container by that name"),)


def reporters_docker_run(facts: Facts, gpus: bool) -> Cmd | None:
    """The reporter's own `docker run` as the text shows it (its plain words only, gpudoctor.parsers.error_texts),
    with `--gpus all` where `gpus` and it has none, or without `--gpus` where not; None where the text shows none.
    Each word is one argument of the printed command (quoted by gpudoctor.cmdline), never shell text."""
    said = [e for e in facts.pasted.reported("docker-run-said") if e.get("args")] if facts.pasted.partial else []
    if not said:
        return None
    if gpus:
        # the run that lacked the GPU is the one to give it: not a working `nvidia-docker run` (or a --gpus one) the
        # text shows beside it (mattshma/bigdata#108: `docker run -v ...` fails, `nvidia-docker run ... nvidia-smi`
        # works)
        without = {e.line for e in facts.pasted.reported("docker-run-without-gpus")}
        said = [e for e in said if e.line in without] or said
    words = (e_args := said[-1].get("args") or "").split()
    if not e_args:
        return None
    if gpus:
        if not any(w == "--gpus" or w.startswith("--gpus=") for w in words):
            words = ["--gpus", "all", *words]
        # a count of zero (`--gpus 0`, meant as GPU 0) asks for no GPU: docker reads a bare number as a count
        words = [
            "all" if w in ("0", "count=0") and i and words[i - 1] == "--gpus" else "--gpus=all" if w == "--gpus=0" else w
            for i, w in enumerate(words)
        ]
        if (checked := _gone_cuda_image_check(words)) is not None:
            return Cmd(
                ("docker", "run", *checked),
                note="your command, as the text shows it, on the toolkit's sample image: that nvidia/cuda tag is gone",
            )
        return Cmd(("docker", "run", *words), note="your command, as the text shows it")
    out: list[str] = []
    skip = False
    for w in words:
        if skip:
            skip = False
        elif w == "--gpus":
            skip = True
        elif not w.startswith("--gpus="):
            out.append(w)
    return Cmd(("docker", "run", *out), note="your command, as the text shows it, without --gpus")


def reporters_pip_install(facts: Facts) -> Cmd | None:
    """The reporter's own `pip install` as the text shows it (its plain words only, gpudoctor.parsers.error_texts), run
    again with the environment's pip (`pip`: gpudoctor.planner.where decides the interpreter); None where the text shows
    none. Each word is one argument of the printed command (quoted by gpudoctor.cmdline), never shell text."""
    said = [e for e in facts.pasted.reported("pip-install-said") if e.get("args")] if facts.pasted.partial else []
    if not said:
        return None
    return replace(pip(facts, "install", *(said[-1].get("args") or "").split()), note="your command, as the text shows it")


# NVIDIA's CUDA image repository as docker names it, with a tag NVIDIA has taken down: a CUDA 10 or older one, or one
# without the full release (11.0-base, 11.0-base-ubuntu20.04, 12.2-runtime, latest). NVIDIA tags its CUDA images with
# the full release and the OS and deleted the short and the end-of-life tags (NVIDIA/nvidia-docker#1735: 11.0-base is
# gone where 11.6.2-base-ubuntu20.04 runs; the reading of gpudoctor.checks.catalogued.containers.check_image_tag_missing).
_GONE_CUDA_IMAGE = LazyPattern(
    r"(?:(?:docker\.io|nvcr\.io)/)?nvidia/cuda(?::latest|:(?:[1-9]|10)\.\d{1,2}\S*"
    r"|:\d{2}\.\d{1,2}(?:-[a-z0-9.-]{1,60})?)?"
)


def _gone_cuda_image_check(words: list[str]) -> list[str] | None:
    """A `docker run` that checks the GPU (its command is nvidia-smi) on an nvidia/cuda tag NVIDIA has taken down,
    moved to the NVIDIA Container Toolkit's sample workload, `ubuntu` (docs.nvidia.com/datacenter/cloud-native/
    container-toolkit/latest/sample-workload.html: `docker run --rm --runtime=nvidia --gpus all ubuntu nvidia-smi`):
    the toolkit mounts nvidia-smi into any image, and a plain image carries no CUDA requirement the host's driver
    must meet, where a current CUDA tag would need one the driver supports. None where the run is another (its image
    is the program's own) or its tag still exists."""
    at = next((i for i, w in enumerate(words) if _GONE_CUDA_IMAGE.fullmatch(w)), None)
    if at is None or at + 1 >= len(words) or words[at + 1] != "nvidia-smi":
        return None
    return [*words[:at], "ubuntu", *words[at + 1 :]]


def docker_run_without_gpus(facts: Facts, image: str | None = None) -> tuple[Cmd, ...]:
    """Start the container without `--gpus all`: where the machine has no NVIDIA GPU, or the image is a CPU build,
    nothing on the host can give it one and none is needed (the image runs on the CPU). The reporter's own docker run
    where the text shows one in plain words, else a placeholder; none where it shows none (a script started the
    container: its own options decide)."""
    if (own := reporters_docker_run(facts, gpus=False)) is not None:
        return (own,)
    if image is None and not facts.pasted.reported("docker-run-said"):
        return ()  # no docker run shown: the script or compose file that starts it has the option
    return (
        Cmd(
            ("docker", "run", image or Placeholder("image")),
            note="your docker run with its other options, without --gpus all",
        ),
    )


def container_setup_alternative(runtime: str | None, facts: Facts) -> Remediation | None:
    """For docker: the daemon's setup, the alternative to `docker run --gpus all` where `--gpus` itself fails."""
    if runtime in ("kubernetes", "podman"):
        return None
    return Remediation(
        "Only if `docker run --gpus all` fails with 'could not select device driver': install the NVIDIA container "
        "toolkit on the host and register it with docker; restarting docker stops every container on the host.",
        docker_runtime_setup(facts),
        requires_root=True,
        component="container",
        where="the host",
    )


# The read-only check that tells a CPU-only torch from a CUDA one, in the program's own interpreter: a CPU build's
# version ends in "+cpu" (pip's Windows default and the CPU index) and its torch.version.cuda is None (torch/version.py,
# written by pytorch/pytorch tools/generate_torch_version.py @07c6e4a2: "cuda: Optional[str] = repr(args.cuda_version)",
# None where the build was given no CUDA version).
_TORCH_BUILD_CHECK = "import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available())"


def if_cpu_build(facts: Facts, fix: Remediation | None) -> Remediation:
    """The framework step for a symptom whose open causes include a CPU-only torch (the program does not reach the GPU,
    nothing pasted decides why): the one read-only check that decides it, in the program's interpreter, then the
    CUDA build's install (`fix`, from checks.frameworks.plan_remediation: the one decider of a framework build), to run
    only where that check shows the CPU build. Where the build cannot be chosen (`fix` None or without commands: no
    driver and no toolkit seen), nvidia-smi is the value asked in the step instead of an install (issue 27: ask for
    exactly that value, never guess it)."""
    from gpudoctor.planner.where import python_step

    check = replace(
        python_step(facts, "-c", _TORCH_BUILD_CHECK),
        note="read-only, with the Python that runs the program: a version ending in +cpu, or None, is a CPU-only build",
    )
    head = "Only if the check below shows a CPU-only torch (a version ending in +cpu, or None): "
    if fix is None or not fix.commands:
        return Remediation(
            head + "replace it, in that environment, with PyTorch's CUDA build for this driver; nvidia-smi's CUDA "
            "Version (its header) decides which (`gpudoctor install torch --cuda <that version>` names it).",
            (check, Cmd(("nvidia-smi",), note="read-only: the CUDA Version in its header decides the CUDA build")),
            component="torch",
        )
    return Remediation(
        head + fix.summary.strip(),
        (check, *fix.commands),
        requires_root=fix.requires_root,
        component=fix.component or "torch",
        where=fix.where,
        alternative=fix.alternative,  # (another CUDA build of the release, for an older driver: builds_by_driver)
    )
