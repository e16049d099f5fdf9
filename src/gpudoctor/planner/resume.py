"""Where a plan ends: the reporter's own failing command, run again where it failed, so the fix is seen to take.

A plan that names the right cause and stops at the fix leaves the reporter to find the way back (issue 27, kind 9 of
the blind sets' verdicts: "the plan ends with a reboot and has no command to rerun the install, though it is known").
Where the paste shows the command that failed (facts.REPORTER_COMMAND, read by gpudoctor.pasted.failing), the plan's
last step runs it again:

- only after a step that changes something (planner.actions reads each command back): a plan that only reads and
  prints decides nothing yet, and the command would fail as before;
- as data: its words split by the quoting layer (gpudoctor.cmdline.split_plain) and quoted again for the plan's shell;
  a line with shell syntax not parsed there (a pipe, a redirection, a variable) is said in prose, never printed;
- in the same interpreter: a bare `pip`/`python` the paste ran in an environment whose interpreter it shows becomes
  that interpreter's (gpudoctor.planner.where: the environment's own tool where one manages it), without the sudo
  typed before it (the environment is its owner's); elsewhere `sudo` stays the command's need of root; a command typed
  at a container's prompt is run there again; after a fix that restarts the machine, the conda environment the
  reporter's prompt showed is entered again first (where.reentry: a new prompt starts outside it);
- once: a plan whose own commands already run it again adds nothing, and that includes the command corrected: the
  same program with the reporter's words in their order and options added (singularity run --nv ..., where the fix is
  the missing option), since the command as typed would fail as before.

Where the paste shows no command of the reporter's, the last step checks what failed (issue 27: reviewers struck a
torch.cuda.is_available() that "tested nothing that failed"): the query of the fact the plan changes (nvidia-smi after
a driver's step, a framework's GPU check after a step on that framework's build or one that installs or imports it), or
a framework's check where the failing lines name that framework; where they show another program failing (NCCL under
accelerate, ONNX Runtime's provider, Triton), that program run again, said in prose with the error it printed. The
framework's check stands alone only where nothing failing was shown.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from gpudoctor.cmdline import Cmd, Placeholder, Unrenderable, render, split_plain
from gpudoctor.facts import REPORTER_COMMAND
from gpudoctor.lazypattern import LazyPattern
from gpudoctor.model import Finding, Severity

# typing's constant without typing: a bare check imports this module (bench/README.md, h161)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from gpudoctor.planner.prescribe import Step

NOTE = "your own command again, where it failed: the fix took if it no longer fails"
# The interpreters a shell finds on PATH by name: the environment's own replaces them where the paste shows it.
_BARE = ("python", "python3", "py", "pip", "pip3")


def shown_command(facts: Any) -> tuple[str, ...] | None:
    """The words of the reporter's failing command where the paste shows it and it is plain (split_plain), else None:
    what the plan's last step runs again, so a check need not ask for it (`<packages>` of an install said again)."""
    shown = next((c for c in facts.pasted.cues if c.get("cue") == REPORTER_COMMAND), None)
    if shown is None or not facts.pasted.partial:
        return None
    typed = shown.get("shell") if shown.get("shell") in ("powershell", "cmd") else shell_of(facts)
    return split_plain(shown.get("means") or "", typed)


def pip_install(argv: Sequence[str]) -> bool:
    """Whether `argv` is a pip install (`pip install`, `python -m pip install`, sudo before either)."""
    words = list(argv[1:] if tuple(argv[:1]) == ("sudo",) else argv)
    at = next((i for i in range(1, min(len(words), 4)) if words[i : i + 2] == ["-m", "pip"]), None)
    if at is not None:  # an interpreter, its own options (py -3.7-64), then -m pip
        words = words[at + 1 :]
    return len(words) > 2 and words[0] in ("pip", "pip3") and words[1] == "install"


def resume_step(facts: Any, findings: Sequence[Finding], target: str) -> Step | None:
    """The plan's last step: the reporter's failing command again (the module's rules), or None where the paste shows
    none, nothing in the plan changes anything, or the plan runs it already."""
    from gpudoctor.planner.prescribe import Step

    if not facts.pasted.partial:
        return None  # (a live machine: no paste, no command of the reporter's; planner.actions stays unimported)
    shown = next((c for c in facts.pasted.cues if c.get("cue") == REPORTER_COMMAND), None)
    acting = [f for f in findings if f.severity >= Severity.WARNING and _acts(f)]
    if not acting:
        return None
    if shown is None:
        return _check_step(facts, acting)
    text = shown.get("means") or ""
    inside = shown.get("shell") == "container"
    argv = shown_command(facts)
    severity = max(f.severity for f in acting)
    where = " inside the container" if inside else ""
    if argv is None:
        prose = f"Then run your own command again{where}, as the report shows it ({text}): the fix took if it no longer fails."
        return Step("resume", (prose,), (), (), severity)
    cmd = _in_interpreter(facts, argv)
    if inside:
        cmd = Cmd(cmd.argv, root=cmd.root, note=f"inside the container; {NOTE}")
    try:
        render(cmd, target)
    except Unrenderable:
        return None  # a word the plan's shell cannot hold: said nowhere rather than printed wrong
    if any(_same_run(cmd, c) for f in findings if f.remediation for c in f.remediation.commands):
        return None
    cmds = _reentered(facts, acting, cmd)
    return Step("resume", (f"Then run your own command again{where}.",), cmds, (), severity, cmd.root)


def _reentered(facts: Any, acting: Sequence[Finding], cmd: Cmd) -> tuple[Cmd, ...]:
    """`cmd`, after the command that enters the paste's environment again where a fix restarts the machine before it
    (where.reentry): the reporter's prompt had it active, a new one has not. As it is inside a container (its own
    shell) and where it names its interpreter by a path."""
    from gpudoctor.planner.actions import classify
    from gpudoctor.planner.where import reentry

    if "inside the container" in cmd.note or re.search(r"[\\/]", cmd.words[0]):
        return (cmd,)
    restarts = any(
        isinstance(c, Cmd) and classify(c).kind == "reboot" for f in acting if f.remediation for c in f.remediation.commands
    )
    enter = reentry(facts) if restarts else None
    return (enter, cmd) if enter is not None else (cmd,)


# The one line that shows a fix of each component took, in the program's interpreter (where.python_step): PyTorch's
# torch.cuda.is_available() (pytorch.org/docs, torch.cuda), TensorFlow's tf.config.list_physical_devices() (every
# device, its GPUs among them; no quote inside, which cmd.exe could not hold: tensorflow.org/api_docs, tf.config),
# JAX's jax.devices() (jax.readthedocs.io, jax.devices: the backend's devices, CPU ones where no GPU backend loads);
# a driver's, nvidia-smi's table (nvidia-smi(1)). The first component of the plan's that has one decides: the
# framework is what the program runs.
_CHECKS = (
    ("torch", ("-c", "import torch; print(torch.__version__, torch.cuda.is_available())")),
    ("tensorflow", ("-c", "import tensorflow as tf; print(tf.__version__, tf.config.list_physical_devices())")),
    ("jax", ("-c", "import jax; print(jax.__version__, jax.devices())")),
    ("driver", ("nvidia-smi",)),
)
CHECK_NOTE = "the fix took if this shows the GPU"


# The components a framework loads through: their fix took where the framework sees the GPU.
_UNDER_THE_FRAMEWORK = frozenset({"toolkit", "cudnn", "environment"})


def _frameworks(facts: Any) -> list[str]:
    """The frameworks the paste shows installed or at work (torch, tensorflow, jax)."""
    from gpudoctor.probed import Found

    seen = set(getattr(facts.pasted, "frameworks", ()) or ())
    return [n for n in ("torch", "tensorflow", "jax") if n in seen or isinstance(getattr(facts.frameworks, n, None), Found)]


def _check_step(facts: Any, acting: Sequence[Finding]) -> Step | None:
    """Where the paste shows no command of the reporter's: the one line that shows the fix took (_CHECKS), what failed
    run again in prose (_said_step) where that line would test something the paste never showed failing, or None where
    no component of the plan has one, a step of it runs on another machine, or the plan runs it already."""
    from gpudoctor.planner.prescribe import Step, component_of
    from gpudoctor.planner.where import python_step

    # A build's fix (a toolkit to compile an extension with) took when the build runs through, which the paste's own
    # command shows where it has one: the framework's GPU check says nothing of it.
    acting = [f for f in acting if not f.about_build]
    if not acting:
        return None
    components = {component_of(f) for f in acting}
    failing = _failing_lines(acting)
    refused = False  # the framework's check stood for what failed before (issue 27), and does not here
    if components & _UNDER_THE_FRAMEWORK and len(_frameworks(facts)) == 1:
        # a toolkit, cuDNN or a variable fixed for the one framework the paste shows at work: that framework's check,
        # where the paste shows nothing failing or shows that framework failing (an NCCL variable for accelerate's
        # guard, or a library ONNX Runtime loads, is not seen to take by torch's is_available(): plans15/1542, 13/1301)
        (name,) = _frameworks(facts)
        if not failing or any(_FRAMEWORK_NAMED[name].search(t) for t in (*failing, *_fix_words(acting))):
            components.add(name)  # (or the fix installs or reads that framework: TensorFlow's [and-cuda] libraries)
        else:
            refused = True
    if any(f.remediation is not None and f.remediation.where for f in acting):
        return None  # (a step on the host or in Windows: where the check runs is another question)
    if any(_ends_checked(f) for f in acting):
        return None  # (the fix's own last command reads back what it changed: a second check says less)
    if any(_makes_env(f) for f in acting):
        return None  # (the check would run in the interpreter the fix leaves behind)
    if facts.platform.system.lower() == "darwin":
        return None  # (no CUDA on a Mac: "the fix took if this shows the GPU" could never hold)
    for component, args in _CHECKS:
        if component not in components:
            continue
        cmd = Cmd(args) if args == ("nvidia-smi",) else python_step(facts, *args)
        if any(isinstance(a, Placeholder) for a in cmd.argv):
            return None  # (an image only the reporter can name: a check with a blank in it is no check)
        cmd = Cmd(cmd.argv, root=cmd.root, note=CHECK_NOTE)
        if any(_same_run(cmd, c) for f in acting if f.remediation for c in f.remediation.commands):
            return None
        severity = max(f.severity for f in acting)
        cmds = _reentered(facts, acting, cmd) if args != ("nvidia-smi",) else (cmd,)
        return Step("resume", ("Then check that the fix took.",), cmds, (), severity)
    if refused:
        return _said_step(facts, acting)
    return None


# Each framework's module named in a failing line (its traceback's frames, its own log's source paths, its import).
_FRAMEWORK_NAMED = {
    "torch": LazyPattern(r"\btorch\b|\bpytorch\b", re.I),
    "tensorflow": LazyPattern(r"\btensorflow\b", re.I),
    "jax": LazyPattern(r"\bjax(?:lib)?\b", re.I),
}
# How much of the failing line the prose quotes: enough to recognise it, short enough for one line of the plan.
_QUOTED_CHARS = 120


def _failing_lines(acting: Sequence[Finding]) -> list[str]:
    """The failing lines the paste shows for the plan's findings (their `pasted` evidence), in the findings' order."""
    return [e.value for f in acting for e in f.evidence if e.source == "pasted" and e.value.strip()]


def _fix_words(acting: Sequence[Finding]) -> list[str]:
    """The words of the findings' fixes (the packages they install, the modules their read-backs import)."""
    return [str(w) for f in acting if f.remediation for c in f.remediation.commands if isinstance(c, Cmd) for w in c.argv]


def _said_step(facts: Any, acting: Sequence[Finding]) -> Step:
    """Where the paste shows what failed but not the command that ran it, and no check of the plan's reruns it: run
    again what failed, where it failed, said in prose with the error it printed where the findings' evidence holds one
    the catalogue read as a failure (not a reporter's own words, `-said`: their sentence is no line to watch for). A
    pasted line is data: quoted in prose, never a command."""
    from gpudoctor.planner.prescribe import Step

    errors = {e.line for e in facts.pasted.errors if not e.kind.endswith("-said")}
    line = next((t for t in _failing_lines(acting) if t in errors), None)
    prose = "Then run again what failed, where it failed (the same program, from the same shell, job or cell): the fix took "
    if line is None:
        prose += "if it no longer fails as the report shows."
    else:
        text = " ".join(line.split())
        if len(text) > _QUOTED_CHARS:
            text = text[: _QUOTED_CHARS - 3] + "..."
        prose += f"if it no longer prints: {text}"
    return Step("resume", (prose,), (), (), max(f.severity for f in acting))


def _ends_checked(f: Finding) -> bool:
    """Whether `f`'s fix ends with a read-only command after one that changes something: the fix verifies itself
    (faiss's `get_num_gpus()` after the GPU package), so the plan needs no second check of another library."""
    from gpudoctor.planner.actions import classify
    from gpudoctor.planner.remedy import KEEP, KEEP_VALUES

    lines = list(f.remediation.commands if f.remediation else ())
    last = lines[-1] if lines else None
    if len(lines) < 2 or not isinstance(last, Cmd) or classify(last).kind != "inspect" or "-c" not in last.words[1:2]:
        return False  # (only an interpreter's `-c` read-back: `mokutil --sb-state` after a modprobe checks nothing)
    if last.words[2:3] and last.words[2] in (*KEEP.values(), *KEEP_VALUES.values()):
        return False  # (the line that keeps a setting for new shells writes a file: it reads nothing back)
    # (a variable set or a directory put on a path changes what the read-back loads, as a command that installs does)
    return any(not isinstance(c, Cmd) or classify(c).kind != "inspect" for c in lines[:-1])


# A fix that makes a new environment moves the program's interpreter: a check in the old one would show the old state.
_NEW_ENV = (("uv", "venv"), ("conda", "create"), ("-m", "venv"), ("virtualenv",))


def _makes_env(f: Finding) -> bool:
    cmds = [c for c in (f.remediation.commands if f.remediation else ()) if isinstance(c, Cmd)]
    return any(any(tuple(c.words[i : i + len(k)]) == k for i in range(len(c.words))) for c in cmds for k in _NEW_ENV)


def _same_run(cmd: Cmd, other: Any) -> bool:
    """Whether the plan's `other` already runs `cmd` again: the same words, or the same pip install of the same
    packages by any interpreter (a plan that moves the install to another Python runs it there, and the reporter's
    own interpreter would fail as before)."""
    if not isinstance(other, Cmd):
        return False
    if other.words == cmd.words or _corrected(cmd.words, other.words):
        return True
    if compose_v1(cmd.words) and tuple(other.words[:2]) == ("docker", "compose"):
        return True  # the plan runs the file with Compose v2: the old docker-compose would refuse it as before
    return pip_install(cmd.words) and pip_install(other.words) and _packages(cmd.words) <= _packages(other.words)


def _corrected(words: Sequence[str], other: Sequence[str]) -> bool:
    """Whether `other` is `words` with options added: the same program, every word of `words` in its order, and only
    words starting with "-" besides (the fix is an option the command lacked, as singularity's --nv)."""
    if len(other) <= len(words) or not words or other[0] != words[0]:
        return False
    at = 0
    for word in other:
        if at < len(words) and word == words[at]:
            at += 1
        elif not word.startswith("-"):
            return False
    return at == len(words)


def compose_v1(words: Sequence[str]) -> bool:
    """Whether `words` run docker-compose 1.x's own program (`docker-compose ...`, sudo before it)."""
    words = list(words[1:] if tuple(words[:1]) == ("sudo",) else words)
    return bool(words) and words[0].rsplit("/", 1)[-1] == "docker-compose"


def _packages(words: Sequence[str]) -> set[str]:
    at = list(words).index("install")
    return {w for w in words[at + 1 :] if not w.startswith("-")}


def _in_interpreter(facts: Any, argv: tuple[str, ...]) -> Cmd:
    """`argv` (sudo taken off as the command's need of root) in the environment's interpreter where the paste shows it
    and the command names a bare one; as typed otherwise."""
    from gpudoctor.planner.where import package_step, python_exe

    root = argv[0] == "sudo" and len(argv) > 1
    if root:
        argv = argv[1:]
    py = python_exe(facts)
    if py not in ("python", "python3") and argv[0] in _BARE:
        # (the environment's own interpreter is its owner's: a `sudo pip` typed into the system's Python is not a need
        # of root there, and sudo would leave root's files in a user's environment)
        if argv[0] in ("pip", "pip3") and len(argv) > 1:
            return Cmd(package_step(facts, *argv[1:]).argv, note=NOTE)
        if argv[0] not in ("pip", "pip3") and len(argv) > 3 and argv[1:3] == ("-m", "pip"):
            return Cmd(package_step(facts, *argv[3:]).argv, note=NOTE)
        if argv[0] in ("python", "python3"):  # (py's own options pick another Python: kept as typed)
            return Cmd((py, *argv[1:]), note=NOTE)
    return Cmd(argv, root=root, note=NOTE)


def shell_of(facts: Any) -> str:
    from gpudoctor.planner.where import shell

    return shell(facts)


def _acts(f: Finding) -> bool:
    """Whether `f`'s fix holds a command that changes something (planner.actions: anything but `inspect`)."""
    from gpudoctor.planner.actions import classify

    r = f.remediation
    return r is not None and any(not isinstance(c, Cmd) or classify(c).kind != "inspect" for c in r.commands)
