"""`gpudoctor switch-cuda`: choose a toolkit (pure), re-point /usr/local/cuda (atomic, locked), verify.

`plan_switch` and everything it calls read only `Facts`. `apply_switch` is the one place gpudoctor
changes a machine; it maps every path through the host root, so tests run it on a temporary root
holding real toolkit trees and real links. The shell scope changes nothing: it prints code to `eval`.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import re
import secrets
import shutil
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

from gpudoctor import cmdline
from gpudoctor.checks import Context
from gpudoctor.checks.toolkit import (
    active_toolkit,
    check_arch,
    check_newer_than_driver,
    conda_install,
    runfile_hint,
    toolkit_install,
)
from gpudoctor.cmdline import Cmd, EvalShell
from gpudoctor.errors import GpudoctorError, UnsafeOperation, UsageError
from gpudoctor.facts import CudaLink, Facts, Toolkit, ToolkitFacts
from gpudoctor.host import Host, HostError
from gpudoctor.host.live import run_bounded
from gpudoctor.model import Finding
from gpudoctor.versions import vkey

LINK = "/usr/local/cuda"
SYSTEM, SHELL = "system", "shell"
# --shell's targets (gpudoctor.cmdline renders each), and the names people also give them.
SHELLS = ("posix", "fish", "powershell")
SHELL_NAMES = {
    "posix": "posix",
    "sh": "posix",
    "bash": "posix",
    "zsh": "posix",
    "dash": "posix",
    "ksh": "posix",
    "fish": "fish",
    "powershell": "powershell",
    "pwsh": "powershell",
    "cmd": "cmd",  # Windows only (gpudoctor.switch_cuda_windows)
}
# Temporary links carry this prefix so that a later switch removes leftovers of a killed one, and
# nothing else. The lock file stays: removing a lock file others may have open breaks the lock.
TEMP_PREFIX = ".cuda.gpudoctor-tmp-"
LOCK_NAME = ".cuda.gpudoctor.lock"
# Test hook, read only by `_replace_link`: sleep this many seconds between creating the temporary
# link and renaming it, so a test can kill a switch at its most delicate moment.
PAUSE_ENV = "GPUDOCTOR_TEST_PAUSE_BEFORE_RENAME"

_REQUEST = re.compile(r"(?:cuda-?|v)?(\d+(?:\.\d+){0,2})", re.IGNORECASE)
# PATH entries under these belong to some toolkit even when it was not probed (a removed one).
_CUDA_DIR = re.compile(r"^/(?:usr/local|opt)/cuda[^/]*(?:/|$)")


@dataclass(frozen=True)
class SwitchPlan:
    """What a switch will do, or why it will not (`refusal`, with `manual`: what to do instead).

    `method` is `rename` (re-point the link), `alternatives` (`update-alternatives --set`), `none`
    (the link already names the target), or `shell` (print `env` for one shell).
    """

    scope: str
    requested: str
    link: CudaLink
    previous: str | None  # what the link names now: the root to go back to
    target: Toolkit | None = None
    method: str | None = None
    alternatives_name: str | None = None
    env: tuple[tuple[str, str], ...] = ()
    refusal: str | None = None
    manual: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def command_lines(self) -> tuple[Cmd, ...]:
        """The same change as commands (data): what --dry-run shows and a careful admin can run, in order."""
        assert self.target is not None
        if self.method == "alternatives":
            return (Cmd(("update-alternatives", "--set", self.alternatives_name or "cuda", self.target.root)),)
        if self.method == "rename":
            return _relink(self.target.root)
        return ()

    def undo_lines(self) -> tuple[Cmd, ...]:
        """How to go back, as commands run in order, each only if the one before succeeded."""
        if self.method == "alternatives" and self.previous:
            return (Cmd(("update-alternatives", "--set", self.alternatives_name or "cuda", self.previous)),)
        if self.previous and self.link.resolved is None:
            # It dangled: no toolkit to switch back to, only the same dangling link.
            return _relink(self.previous)
        if self.previous:
            return (Cmd(("gpudoctor", "switch-cuda", self.previous)),)
        return (Cmd(("rm", LINK)),)

    def commands(self) -> tuple[str, ...]:
        """command_lines rendered for a POSIX shell (gpudoctor.cmdline quotes every path)."""
        return tuple(cmdline.render(c) for c in self.command_lines())

    def undo(self) -> tuple[str, ...]:
        """undo_lines as one POSIX line: `&&` between them, so a step runs only after the one before it worked."""
        return (" && ".join(cmdline.render(c) for c in self.undo_lines()),)


def _relink(target: str) -> tuple[Cmd, Cmd]:
    # mv -T is rename(2): atomic. `ln -sfn` is not (it unlinks, then creates).
    return (Cmd(("ln", "-sn", target, f"{LINK}.new")), Cmd(("mv", "-T", f"{LINK}.new", LINK)))


def eval_hint(requested: str) -> str:
    """The line that switches this shell only (`eval "$(gpudoctor switch-cuda X --shell)"`), quoted by gpudoctor.cmdline."""
    return cmdline.render(EvalShell(("gpudoctor", "switch-cuda", requested)))


# --- choosing the toolkit ------------------------------------------------------------


def parse_request(requested: str) -> tuple[int, ...]:
    """ "11.8" -> (11, 8). Also takes "cuda-11.8" and "v12". Raises UsageError."""
    match = _REQUEST.fullmatch(requested.strip())
    if not match:
        raise UsageError(
            f"not a CUDA version: {requested!r}", "give one as people write it: 12, 11.8, 12.4.1, or a toolkit directory"
        )
    return vkey(match.group(1))


def matching_toolkits(toolkits: Sequence[Toolkit], requested: str) -> list[Toolkit]:
    """The toolkits `requested` names, best first.

    "11.8" matches 11.8.x, "12" every 12.x, "12.4.1" only 12.4.1; a path names that root. Complete
    toolkits come first (so "12" never picks a broken 12.8 over a working 12.4), then the newest,
    then those in /usr/local.
    """
    if requested.startswith("/"):
        root = posixpath.normpath(requested)
        return [t for t in toolkits if t.root == root]
    want = parse_request(requested)
    found = [t for t in toolkits if t.version and vkey(t.version)[: len(want)] == want]
    return sorted(
        found,
        key=lambda t: (not t.complete, tuple(-n for n in vkey(t.version)), not t.root.startswith("/usr/local/"), t.root),
    )


def plan_switch(
    facts: Facts,
    requested: str,
    scope: str,
    *,
    is_root: bool = False,
    rerun_argv: Sequence[str] = (),
    alternatives: Sequence[str] | None = None,
    lib_dirs: Mapping[str, str] | None = None,
) -> SwitchPlan:
    """Decide what switching to `requested` means on this machine. Pure.

    `is_root`: whether this process may change the link (root, or it can write where the switch
    writes). `rerun_argv`: this command, for the `sudo` line. `alternatives`: the roots registered
    as the link's `update-alternatives` choices (None when unknown). `lib_dirs`: each toolkit's
    library directory (default ROOT/lib64).
    """
    tks = facts.toolkits
    link = tks.link
    plan = SwitchPlan(scope, requested, link, previous=link.resolved or link.target)
    matches = matching_toolkits(tks.toolkits, requested)
    if not matches:
        installed = ", ".join(f"{t.version or '?'} ({t.root})" for t in tks.toolkits) or "none"
        return replace(
            plan,
            refusal=f"CUDA {requested} is not installed (installed: {installed})",
            manual=() if requested.startswith("/") else install_lines(facts, requested),
        )
    target = matches[0]
    plan = replace(plan, target=target)
    skipped = [t for t in matches[1:] if not t.complete]
    if skipped and target.complete:
        plan = replace(plan, notes=tuple(f"skipped the incomplete toolkit at {t.root} ({t.version})" for t in skipped))
    if not target.complete:
        missing = "; ".join(p for p in target.problems if p.startswith("missing")) or "incomplete"
        return replace(
            plan,
            refusal=f"the CUDA {target.version} toolkit at {target.root} is incomplete ({missing})",
            manual=("Reinstall it, or choose another: gpudoctor switch-cuda --list",),
        )
    if scope == SHELL:
        lib_dir = (lib_dirs or {}).get(target.root) or posixpath.join(target.root, "lib64")
        env = shell_environment(facts.platform.env, target, lib_dir, tks.toolkits)
        return replace(plan, method="shell", env=env)

    if link.kind not in ("link", "missing"):
        what = "a real directory" if link.kind == "dir" else f"not a symbolic link ({link.kind})"
        here = tks.by_root(LINK)
        aside = f"{LINK}-{here.version}" if here and here.version else f"{LINK}.orig"
        return replace(
            plan,
            refusal=f"{LINK} is {what}; gpudoctor never deletes or moves what it did not create",
            manual=(
                "For this shell only (no root, nothing moved):",
                "  " + eval_hint(requested),
                "Or move it aside yourself, then link (atomically):",
                "  " + cmdline.render(Cmd(("mv", "-T", LINK, aside), root=True)),
                "  " + cmdline.render(Cmd(("ln", "-sn", target.root, LINK), root=True)),
            ),
        )
    if link.resolved == target.root:
        return replace(plan, method="none")
    if link.managed_by_alternatives and link.target:
        name = posixpath.basename(link.target)
        plan = replace(plan, method="alternatives", alternatives_name=name)
        if alternatives is not None and target.root not in alternatives:
            return replace(
                plan,
                refusal=f"{LINK} is managed by update-alternatives ({link.target}), and {target.root} is not one of its choices",
                manual=(
                    "Register it, then choose it (priority: any number; --set makes the choice manual):",
                    "  " + cmdline.render(Cmd(("update-alternatives", "--install", LINK, name, target.root, "10"), root=True)),
                    "  " + cmdline.render(Cmd(("update-alternatives", "--set", name, target.root), root=True)),
                ),
            )
    else:
        plan = replace(plan, method="rename")
    if not is_root:
        return replace(
            plan,
            refusal=f"changing {LINK} needs root",
            manual=(
                "Run it as root:",
                "  " + cmdline.render(Cmd(tuple(rerun_argv or ("gpudoctor", "switch-cuda", requested)), root=True)),
                "Or, for this shell only (no root):",
                "  " + eval_hint(requested),
            ),
        )
    return plan


def install_lines(facts: Facts, requested: str, matrix=None) -> tuple[str, ...]:
    """How to install CUDA `requested`: the doctor's own decision (checks.toolkit.toolkit_install: NVIDIA's
    package where NVIDIA's repository for this distribution release has it, else what to do instead),
    then conda, and a note on pip. `matrix`: the compatibility matrix (default: the bundled one)."""
    from gpudoctor.matrix import load_matrix

    want = parse_request(requested)
    if len(want) < 2:
        # A major alone names no package: NVIDIA's are per minor.
        return (
            f"Name the minor version to install (e.g. gpudoctor switch-cuda {want[0]}.<minor>): NVIDIA's packages are "
            f"cuda-toolkit-{want[0]}-<minor>, and {want[0]}.x toolkits differ in the GPUs and drivers they support.",
        )
    dotted = f"{want[0]}.{want[1]}"
    inst = toolkit_install(facts, matrix or load_matrix(), dotted)
    if inst.commands:
        lines = ["Install it:", *("  " + line for line in cmdline.render_all(inst.commands))]
        lines += [inst.says] if inst.says else []
    elif inst.says:
        lines = [inst.says]
    else:  # no NVIDIA package on this system
        lines = [f"Install it with {runfile_hint(dotted)}."]
    conda = conda_install(dotted)
    if conda is not None and inst.packaged is not False:  # the not-packaged summary already names conda
        lines += ["Or into a conda environment:", *("  " + line for line in cmdline.render_all([conda]))]
    lines.append(
        "(pip's nvidia-cuda-nvcc and nvidia-cuda-runtime wheels put nvcc and the runtime inside a Python "
        "environment; they make a toolkit for switch-cuda only once assembled into one directory, such as /usr/local/cuda-X.Y.)"
    )
    return tuple(lines)


# --- the shell scope -------------------------------------------------------------------


def _dedicated(tk: Toolkit) -> bool:
    """Whether every PATH entry under this root is the toolkit's own.

    True for NVIDIA's installs and pip-assembled trees. Not for /usr (a distribution's
    nvidia-cuda-toolkit) nor a conda prefix, whose bin/ holds everything else as well.
    """
    if "CONDA_PREFIX" in tk.found_via or tk.version_source == "conda-meta":
        return False
    if tk.root in ("/", "/usr", "/usr/local", "/opt"):
        return False
    return tk.version_source in ("version.json", "version.txt") or posixpath.basename(tk.root).startswith("cuda")


def shell_environment(
    env: Mapping[str, str], target: Toolkit, lib_dir: str, toolkits: Sequence[Toolkit]
) -> tuple[tuple[str, str], ...]:
    """CUDA_HOME, PATH and LD_LIBRARY_PATH for `target`: other toolkits' entries removed, the rest kept in order."""
    roots = [t.root for t in toolkits if _dedicated(t)] + ([target.root] if _dedicated(target) else [])

    def another_toolkits(entry: str) -> bool:
        if not entry:
            return False  # an empty entry means the current directory: the user's choice, kept
        norm = posixpath.normpath(entry)
        return bool(_CUDA_DIR.match(norm)) or any(norm == r or norm.startswith(r + "/") for r in roots)

    def rebuild(value: str, first: str) -> str:
        # An empty LD_LIBRARY_PATH must not become ":" (an empty entry means the current directory).
        kept = [e for e in value.split(":") if not another_toolkits(e) and e != first] if value else []
        return ":".join([first, *kept])

    out = [("CUDA_HOME", target.root)]
    out += [(name, target.root) for name in ("CUDA_PATH", "CUDA_ROOT") if env.get(name)]
    out.append(("PATH", rebuild(env.get("PATH", ""), posixpath.join(target.root, "bin"))))
    out.append(("LD_LIBRARY_PATH", rebuild(env.get("LD_LIBRARY_PATH", ""), lib_dir)))
    return tuple(out)


def shell_target(shell: str) -> str:
    """--shell's argument (posix, bash, zsh, sh, fish, powershell, ...) as a gpudoctor.cmdline target. Raises UsageError."""
    target = SHELL_NAMES.get(shell)
    if target is None:
        raise UsageError(f"unsupported shell {shell!r}", f"name one of: {', '.join(SHELL_NAMES)}")
    return target


def render_shell(env: Sequence[tuple[str, str]], shell: str = "posix") -> str:
    """Code that sets `env` in `shell`, through gpudoctor.cmdline. No comments: interactive zsh does not skip them in eval.

    Raises UsageError for an unknown shell, cmdline.Unrenderable for a value the shell cannot hold.
    """
    target = shell_target(shell)
    if target != "fish":
        return cmdline.render_export_script(env, target)
    # fish keeps PATH-like variables as lists (and joins them with ':' when exporting): one quoted word per entry.
    lines = []
    for name, value in env:
        cmdline.SetEnv(name, value)  # refuses what is not a variable name
        parts = value.split(":") if name.endswith("PATH") else [value]
        lines.append(f"set -gx {name} " + " ".join(cmdline.quote_fish(p) if p else "''" for p in parts))
    return "".join(line + "\n" for line in lines)


# --- what the facts say, for people --------------------------------------------------------


def render_list(facts: Facts) -> str:
    """`--list`: every toolkit with its full version; `*` marks the active one and says through what."""
    tks = facts.toolkits
    active = active_toolkit(facts)
    rows = []
    for tk in tks.toolkits:
        via = []
        if tks.link.resolved == tk.root and tks.link.kind == "link":
            via.append(f"{LINK} (update-alternatives)" if tks.link.managed_by_alternatives else LINK)
        elif tks.link.kind == "dir" and tk.root == LINK:
            via.append(f"{LINK} (a real directory)")
        via += [name for name in ("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT", "CONDA_PREFIX") if name in tk.found_via]
        if "nvcc on PATH" in tk.found_via:
            via.append(f"nvcc on PATH ({tks.nvcc_on_path})")
        if tk.root in tks.ld_library_path_toolkits:
            via.append("LD_LIBRARY_PATH")
        state = "" if tk.complete else "incomplete: " + "; ".join(tk.problems)
        rows.append(("*" if tk is active else " ", tk.version or "?", tk.root, ", ".join(via), state))
    lines = ["CUDA toolkits (* active: the one nvcc on PATH runs, else /usr/local/cuda, else CUDA_HOME)"]
    if not rows:
        lines.append("  none found")
    width_v = max((len(r[1]) for r in rows), default=0)
    width_r = max((len(r[2]) for r in rows), default=0)
    for mark, version, root, vias, state in rows:
        extra = "  ".join(x for x in (f"via {vias}" if vias else "", state) if x)
        lines.append(f"{mark} {version.ljust(width_v)}  {root.ljust(width_r)}  {extra}".rstrip())
    lines.append(_describe_link(tks.link))
    return "\n".join(lines) + "\n"


def _describe_link(link: CudaLink) -> str:
    if link.kind == "link":
        chain = f"{LINK} -> {link.target}"
        if link.resolved is None:
            return chain + " (dangling: it names nothing)"
        return chain + (f" -> {link.resolved}" if link.resolved != link.target else "")
    if link.kind == "dir":
        return f"{LINK} is a real directory (not a link: switch-cuda can only use --shell here)"
    return f"{LINK} does not exist" if link.kind == "missing" else f"{LINK} is not a link ({link.kind})"


def switch_warnings(facts: Facts, target: Toolkit, ctx: Context) -> list[Finding]:
    """The diagnosis findings that switching to `target` would raise: newer than the driver, or cannot build for this GPU.

    Runs the doctor's own checks on a copy of the facts in which `target` is the only toolkit and
    the active one.
    """
    as_active = replace(target, found_via=("nvcc on PATH",))
    toolkits = replace(
        facts.toolkits,
        toolkits=(as_active,),
        link=replace(facts.toolkits.link, resolved=target.root),
        nvcc_on_path=target.nvcc,
        nvcc_on_path_version=target.version,
    )
    as_if = replace(facts, toolkits=toolkits)
    return [*check_newer_than_driver(as_if, ctx), *check_arch(as_if, ctx)]


def stale_environment(tks: ToolkitFacts, target: Toolkit) -> list[str]:
    """What in this process's environment still names another toolkit after a system switch."""
    notes = []
    for tk in tks.toolkits:
        if tk.root == target.root:
            continue
        for via, label in (
            ("nvcc on PATH", f"nvcc on PATH ({tks.nvcc_on_path})"),
            ("CUDA_HOME", "CUDA_HOME"),
            ("LD_LIBRARY_PATH", "LD_LIBRARY_PATH"),
        ):
            if via in tk.found_via:
                notes.append(f"{label} still names CUDA {tk.version or '?'} at {tk.root}")
    return notes


# --- reading the host for the plan -----------------------------------------------------------


def library_dirs(host: Host, toolkits: Sequence[Toolkit]) -> dict[str, str]:
    """Each toolkit's directory holding libcudart: lib64, lib, or targets/*/lib."""
    found = {}
    for tk in toolkits:
        candidates = [posixpath.join(tk.root, d) for d in ("lib64", "lib")]
        try:
            targets = posixpath.join(tk.root, "targets")
            candidates += [posixpath.join(targets, t, "lib") for t in host.list_dir(targets)]
        except HostError:
            pass
        for directory in candidates:
            try:
                if any(n.startswith("libcudart.so") for n in host.list_dir(directory)):
                    found[tk.root] = directory
                    break
            except HostError:
                continue
    return found


def may_change_link(host: Host, link: CudaLink) -> bool:
    """Whether this process can write where a switch writes (root can, unless the file system is read-only)."""
    places = [posixpath.dirname(LINK)] + (["/etc/alternatives"] if link.managed_by_alternatives else [])
    return all(host.resolve_stat(p).writable for p in places)  # /usr/local may itself be a link


# --- root trusts no one else's toolkit ---------------------------------------------------------

# What of a toolkit is checked before root makes it everyone's /usr/local/cuda: the directory and
# the places builds and programs take code from (checking every file of a 4 GB tree is not worth it;
# a toolkit whose top is root's own was installed by root).
TOOLKIT_PARTS = ("", "bin", "bin/nvcc", "lib64", "lib", "include", "targets")


def untrusted_toolkit(real_root: str, stat_fn=os.lstat, resolve=os.path.realpath) -> str | None:
    """Why a non-root user could change the toolkit at `real_root` (a path on disk); None when only root can. Pure given stat_fn."""
    from gpudoctor.trust import untrusted_reason

    for part in TOOLKIT_PARTS:
        path = os.path.join(real_root, part) if part else real_root
        if part:
            try:
                stat_fn(path)
            except FileNotFoundError:
                continue
            except OSError:
                pass  # untrusted_reason says it cannot be inspected
        why = untrusted_reason(path, stat_fn, resolve)
        if why:
            return why
    return None


def refuse_untrusted_target(plan: SwitchPlan, host: Host) -> SwitchPlan:
    """As root, refuse a target toolkit that users other than root can change (the plan with the refusal and the way out)."""
    from gpudoctor.trust import running_as_root

    if plan.target is None or plan.refusal or not running_as_root():
        return plan
    why = untrusted_toolkit(_real(getattr(host, "root", "/"), plan.target.root))
    if why is None:
        return plan
    root = plan.target.root
    return replace(
        plan,
        refusal=(
            f"the CUDA {plan.target.version} toolkit at {root} can be changed by users other than root ({why}); "
            f"as {LINK} it would run their code in everyone's builds and in root's"
        ),
        manual=(
            "Make it root's own, then rerun:",
            "  " + cmdline.render(Cmd(("chown", "-R", "root:root", root), root=True)),
            "  " + cmdline.render(Cmd(("chmod", "-R", "go-w", root), root=True)),
            "Or, for this shell only (no root):",
            "  " + eval_hint(plan.requested),
        ),
    )


# --- changing the machine ---------------------------------------------------------------------


def _real(root: str, path: str) -> str:
    return path if root == "/" else os.path.join(root, path.lstrip("/"))


def _seen(root: str, real: str) -> str:
    """A path on disk as the host shows it (the inverse of `_real`)."""
    return real[len(root) :] if root != "/" and real.startswith(root + "/") else real


def _alternatives_argv(root: str, *args: str) -> list[str]:
    binary = shutil.which("update-alternatives", path=os.environ.get("PATH", "") + ":/usr/sbin:/usr/bin:/sbin")
    binary = binary or shutil.which("alternatives", path="/usr/sbin:/usr/bin:/sbin")
    if binary is None:
        raise UnsafeOperation(f"{LINK} is managed by update-alternatives, which is not installed here")
    if root == "/":
        return [binary, *args]
    # A temporary root: every database path inside it (Debian's layout, else Red Hat's).
    admindir = _real(root, "/var/lib/dpkg/alternatives")
    flags = ["--altdir", _real(root, "/etc/alternatives")]
    if os.path.isdir(admindir):
        flags += ["--admindir", admindir, "--log", _real(root, "/var/log/alternatives.log")]
    else:
        flags += ["--admindir", _real(root, "/var/lib/alternatives")]
    return [binary, *flags, *args]


def query_alternatives(root: str, link: CudaLink) -> tuple[str, ...] | None:
    """The roots registered as choices of the link's alternative; None when not managed or unknown."""
    if not (link.managed_by_alternatives and link.target):
        return None
    try:
        argv = _alternatives_argv(root, "--query", posixpath.basename(link.target))
    except UnsafeOperation:
        return None
    result = run_bounded(argv, 30)
    if result.rc != 0:
        return None  # Red Hat's alternatives has no --query: `--set` itself will say
    return tuple(
        _seen(root, line.split(":", 1)[1].strip()) for line in result.stdout.splitlines() if line.startswith("Alternative:")
    )


@contextlib.contextmanager
def _locked(path: str, timeout_s: float) -> Iterator[None]:
    """An exclusive flock on `path`, so two switches never interleave."""
    import fcntl  # POSIX only, and only this Linux path needs it: imported here so gpudoctor imports on Windows

    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise UnsafeOperation(
                        f"another switch-cuda is changing {LINK} (it holds {path})", "wait for it to finish, then rerun"
                    ) from None
                time.sleep(0.05)
        yield
    finally:
        os.close(fd)  # closing releases the lock, also when the process is killed


def _remove_stale_temp_links(directory: str) -> None:
    """Remove what a killed switch left: only symlinks with our prefix; we hold the lock, so none is in use."""
    for name in os.listdir(directory):
        path = os.path.join(directory, name)
        if name.startswith(TEMP_PREFIX) and os.path.islink(path):
            os.unlink(path)


def _current(link_real: str, root: str) -> tuple[str, str | None]:
    """(kind, target as the host shows it) of the link on disk right now."""
    try:
        return "link", _seen(root, os.readlink(link_real))
    except FileNotFoundError:
        return "missing", None
    except OSError:
        return "not-a-link", None


def _replace_link(link_real: str, target_real: str) -> None:
    """Point `link_real` at `target_real` by renaming a new link over it: at every instant there is the old link or the new one."""
    directory = os.path.dirname(link_real)
    temp = os.path.join(directory, f"{TEMP_PREFIX}{os.getpid()}-{secrets.token_hex(4)}")
    os.symlink(target_real, temp)
    try:
        pause = os.environ.get(PAUSE_ENV)
        if pause:
            time.sleep(float(pause))
        os.replace(temp, link_real)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    # Make the rename durable before we report success.
    dir_fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def apply_switch(plan: SwitchPlan, root: str = "/", *, lock_timeout_s: float = 10.0) -> None:
    """Carry out a `rename` or `alternatives` plan on the machine under `root` (LiveHost.root).

    Raises UnsafeOperation when the link changed since the plan was made (it is then untouched),
    GpudoctorError when update-alternatives fails.
    """
    if plan.refusal or plan.target is None or plan.method not in ("rename", "alternatives"):
        raise ValueError(f"not an applicable plan: method={plan.method}, refusal={plan.refusal}")
    from gpudoctor.trust import running_as_root

    if running_as_root():
        why = untrusted_toolkit(_real(root, plan.target.root))
        if why:
            raise UnsafeOperation(f"not pointing {LINK} at {plan.target.root}: users other than root can change it ({why})")
    link_real = _real(root, LINK)
    directory = os.path.dirname(link_real)
    with _locked(os.path.join(directory, LOCK_NAME), lock_timeout_s):
        _remove_stale_temp_links(directory)
        now = _current(link_real, root)
        if now != (plan.link.kind, plan.link.target):
            raise UnsafeOperation(
                f"{LINK} changed since the plan was made (now {now[1] or now[0]}, was {plan.link.target or plan.link.kind}); nothing changed",
                "rerun the command to plan again",
            )
        if plan.method == "rename":
            _replace_link(link_real, _real(root, plan.target.root))
            return
        argv = _alternatives_argv(root, "--set", plan.alternatives_name or "cuda", _real(root, plan.target.root))
        result = run_bounded(argv, 60)
        if result.rc != 0:
            said = (result.stderr or result.stdout).strip() or (
                "no answer in 60 s" if result.timed_out else f"exit status {result.rc}"
            )
            raise GpudoctorError(
                f"update-alternatives --set failed: {said}",
                "see `" + cmdline.render(Cmd(("update-alternatives", "--display", plan.alternatives_name or "cuda"))) + "`",
            )


def verify_switch(plan: SwitchPlan, host: Host, timeout_s: float) -> ToolkitFacts:
    """Re-probe the toolkits; raise GpudoctorError unless the link now resolves to the target, at its version."""
    from gpudoctor.probes.toolkits import probe_toolkits

    assert plan.target is not None
    tks = probe_toolkits(host, timeout_s)
    now = tks.by_root(tks.link.resolved)
    if tks.link.resolved != plan.target.root or now is None or now.version != plan.target.version:
        found = f"{tks.link.resolved} (CUDA {now.version if now else '?'})"
        raise GpudoctorError(
            f"after the switch {LINK} resolves to {found}, not {plan.target.root} (CUDA {plan.target.version})",
            "to go back: " + " ; ".join(plan.undo()),
        )
    return tks
