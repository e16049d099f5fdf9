"""Which general asks a more specific ask of the same report makes useless (issues 27/28: precision of the asks).

The asks are built by many hands (gpudoctor.pasted.ask): the general questions asked of every report (nvidia-smi,
collect_env, a package listing) and the ones a failure, a component or a symptom family makes (Ask.subject). The blind
sets' reviewers judged a report "partly" right where a deciding ask stood beside general ones whose answer it already
holds, or beside ones in a language the failing program does not run ("six asks where two decide": h264's census,
tools/ask_precision_census.md). This module holds, as a table, which ask answers which other one whole, and drops the
one answered; the other asks are left as they are.

Each row of SUPERSEDED: the ask given way (`general`), the ask that answers it (`by`), whether the two must be asked in
the same place (the same note, and the same way in: the same interpreter, image or container), and why the answer is
held. A row fires only where both are in the report; the one kept takes the dropped one's finding codes, and its
subject where it had none (the failure it was made for still ranks it where the asks are capped).

Beside the table, two rules by the failing program's language and framework: `foreign_python` (an application that is
no Python program, gpudoctor/planner/apps.toml [[native]], whose own asks are printed, a catalogue component's with
Ask.subject "component:<id>", and no failing line of Python's shown: the general Python questions, collect_env, a pip
listing, a framework's probe, read an interpreter the failing program never loads), and `idle_framework` (a framework
named only by the lines it prints at every start, beside another at work: its probe decides nothing). And one by the
place a variable is read (`service_environment`): a GPU-selecting variable of a program that runs as a systemd service
is read from its unit, not from the reporter's shell.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpudoctor.facts import Facts
    from gpudoctor.pasted.ask import Ask


def _words(a: Ask) -> tuple[str, ...]:
    return tuple(str(w) for w in a.command.argv)


def _split(a: Ask) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(the way in, the program asked): the words before the interpreter's last -m or -c (the interpreter, an image's
    `docker run ... --entrypoint python3 IMAGE`, `docker exec NAME python3`), and from it on; for any other program,
    the words before `nvidia-smi` (a container's or a job's wrapper) and from it on."""
    words = _words(a)
    for i in range(len(words) - 1, 0, -1):
        if words[i] in ("-m", "-c"):
            return words[:i], words[i:]
    at = next((i for i, w in enumerate(words) if re.split(r"[\\/]", w)[-1].lower() in ("nvidia-smi", "nvidia-smi.exe")), 0)
    return words[:at], words[at:]


def _smi(a: Ask) -> tuple[str, ...] | None:
    """The nvidia-smi arguments of an ask that runs nvidia-smi unfiltered (None for any other)."""
    rest = _split(a)[1]
    if a.command.pipe or not rest or re.split(r"[\\/]", rest[0])[-1].lower() not in ("nvidia-smi", "nvidia-smi.exe"):
        return None
    return rest[1:]


# What only -L prints of the GPUs: each GPU's and MIG device's UUID (NVIDIA's nvidia-smi documentation, "-L, --list-gpus:
# List each of the NVIDIA GPUs in the system, along with their UUIDs"); the table shows neither.
_ONLY_LISTED = re.compile(r"\bUUIDs?\b|\bMIG\b")


def _gpu_list(a: Ask) -> bool:
    """`nvidia-smi -L` asked for the GPUs the driver sees, their count, index or model, which the table and a query of
    the names show too; not one asked for what only -L prints (catalogue.toml's container-device-unknown: "by index
    and UUID"; a MIG slice), said in its why."""
    return _smi(a) == ("-L",) and not _ONLY_LISTED.search(a.why)


def _smi_table(a: Ask) -> bool:
    return _smi(a) == ()


def _gpu_names_query(a: Ask) -> bool:
    """nvidia-smi --query-gpu=... with the GPU's name among its fields: one line per GPU, as -L prints."""
    args = _smi(a) or ()
    return any(w.startswith("--query-gpu=") and "name" in w.split("=", 1)[1].split(",") for w in args)


def _collect_env(a: Ask) -> bool:
    return _split(a)[1] == ("-m", "torch.utils.collect_env")


# A probe that prints torch's release and the CUDA it was built for (torch.__version__, torch.version.cuda): what
# collect_env reports of torch ("PyTorch version", "CUDA used to build PyTorch", read from those two in get_env_info:
# pytorch/pytorch torch/utils/collect_env.py @00adac86), in the interpreter that runs the program.
_TORCH_BUILD_READ = re.compile(r"\btorch\.__version__.*\btorch\.version\.cuda\b|\btorch\.version\.cuda\b.*\btorch\.__version__")


def _torch_build_probe(a: Ask) -> bool:
    rest = _split(a)[1]
    return rest[:1] == ("-c",) and len(rest) > 1 and bool(_TORCH_BUILD_READ.search(rest[1]))


_LITERAL = re.compile(r"[\w.+-]+")


def _grep(pipe: tuple[str, ...]) -> tuple[set[str], str] | None:
    """(its options, its pattern) of a `grep` filter with one pattern, None for any other filter."""
    if not pipe or pipe[0] != "grep" or len(pipe) < 2:
        return None
    flags = {w for w in pipe[1:-1] if w.startswith("-")}
    if len(flags) != len(pipe) - 2 or not flags <= {"-E", "-F", "-i", "-iE", "-Ei", "-iF"}:
        return None
    return {f"-{c}" for f in flags for c in f[1:]}, pipe[-1]


def _alternatives(flags: set[str], pattern: str) -> list[str] | None:
    """The literal strings a grep pattern matches lines by (an -E alternation of them, or one), None where any part of it
    is more than a literal (an anchor, a class, a repetition): only a literal's lines are known without a regex engine."""
    parts = [pattern] if "-F" in flags else pattern.split("|") if "-E" in flags else [pattern]
    return parts if all(_LITERAL.fullmatch(p) for p in parts) else None


def filter_covers(wide: Ask, narrow: Ask) -> bool:
    """Whether the one command filtered by `wide`'s grep keeps every line `narrow`'s keeps: each line holding the
    narrow literal holds one of the wide ones (`grep -E 'libcudnn|libcublas'` keeps every line `grep libcublasLt`
    keeps); a case-blind narrow filter is covered by a case-blind wide one only."""
    if wide.command.argv != narrow.command.argv or wide.command.pipe == narrow.command.pipe:
        return False
    w, n = _grep(tuple(str(x) for x in wide.command.pipe)), _grep(tuple(str(x) for x in narrow.command.pipe))
    if w is None or n is None or ("-i" in n[0] and "-i" not in w[0]):
        return False
    wide_parts, narrow_parts = _alternatives(*w), _alternatives(*n)
    if wide_parts is None or narrow_parts is None:
        return False
    fold = (lambda x: x.lower()) if "-i" in w[0] else (lambda x: x)
    return all(any(fold(p) in fold(q) for p in wide_parts) for q in narrow_parts)


def _printenv(a: Ask) -> str | None:
    words = _words(a)
    return words[1] if len(words) == 2 and words[0] == "printenv" and not a.command.pipe else None


def env_covers(listing: Ask, one: Ask) -> bool:
    """Whether `env | grep PATTERN` prints the line of the one variable `printenv VAR` asks for (VAR=value)."""
    var = _printenv(one)
    g = _grep(tuple(str(x) for x in listing.command.pipe))
    if var is None or _words(listing) != ("env",) or g is None:
        return False
    try:
        flags = re.IGNORECASE if "-i" in g[0] else 0
        return re.search(re.escape(g[1]) if "-F" in g[0] else g[1], f"{var}=", flags) is not None
    except re.error:
        return False


@dataclass(frozen=True)
class Supersession:
    general: Callable[[Ask], bool]  # the ask given way
    by: Callable[[Ask, Ask], bool]  # (the other ask, the general one): whether the other's answer holds it whole
    same_place: bool
    why: str
    # where the one given way said something of its own (the library the text could not load), its "why" is kept
    # after the other's, as the part of that answer it asked for
    keep_why: bool = False


SUPERSEDED: tuple[Supersession, ...] = (
    Supersession(
        _gpu_list,
        lambda b, a: _smi_table(b),
        True,
        # nvidia-smi's default table has a row per GPU with its name (NVIDIA's nvidia-smi documentation, "SUMMARY
        # OUTPUT"); -L prints the same GPUs one a line (tools/ask_strikes.py's "covered", blind sets' reviewers)
        "the table lists every GPU the driver sees, by name, beside the driver and its CUDA",
    ),
    Supersession(
        _gpu_list,
        lambda b, a: _gpu_names_query(b),
        True,
        "a --query-gpu with the name field prints one line per GPU the driver sees, as -L does",
    ),
    Supersession(
        _collect_env,
        lambda b, a: _torch_build_probe(b),
        True,
        # collect_env's torch lines are the release and the CUDA it was built for; the probe prints those and what
        # the failure asks beside them (the arch list, is_available), in the same interpreter, and runs where
        # collect_env's other probes (pip, conda, nvidia-smi) would fail first
        "the probe prints torch's release and CUDA build, what collect_env would report of torch",
    ),
    Supersession(
        lambda a: _grep(tuple(str(x) for x in a.command.pipe)) is not None,
        filter_covers,
        True,
        "the wider filter of the same listing keeps every line the narrower one keeps",
        keep_why=True,
    ),
    Supersession(
        lambda a: _printenv(a) is not None,
        env_covers,
        True,
        # env prints every variable of the process as NAME=value (POSIX env(1)); the filter keeps the asked one's line
        "the filtered env prints the variable's NAME=value line",
        keep_why=True,
    ),
)


def _place(a: Ask) -> tuple:
    return (a.command.note, _split(a)[0])


def _merged(kept: Ask, dropped: Ask, keep_why: bool) -> Ask:
    codes = tuple(dict.fromkeys((*kept.codes, *dropped.codes)))
    subject = kept.subject or dropped.subject
    said = (keep_why or dropped.subject) and dropped.why not in kept.why
    why = f"{kept.why}; among them, {dropped.why}" if said else kept.why
    return dataclasses.replace(kept, codes=codes, subject=subject, why=why)


def without_superseded(asks: list[Ask]) -> list[Ask]:
    """`asks` without each one another ask's answer holds whole (SUPERSEDED), the one kept taking its codes."""
    out = list(asks)
    dropped: set[int] = set()
    for row in SUPERSEDED:
        for i, a in enumerate(out):
            if i in dropped or not row.general(a):
                continue
            at = next(
                (
                    j
                    for j, b in enumerate(out)
                    if j != i and j not in dropped and row.by(b, a) and (not row.same_place or _place(b) == _place(a))
                ),
                None,
            )
            if at is not None:
                dropped.add(i)
                out[at] = _merged(out[at], a, row.keep_why)
    return [a for i, a in enumerate(out) if i not in dropped]


# What a failing line of a Python program carries: its traceback, a module's file, its packages' folders, an
# interpreter's name, a Python exception's name, a Python framework's or package's name (torch's "Please install
# PyTorch with ...", a ComfyUI node's exception): where one fails, the Python questions may decide.
_PYTHON_LINE = re.compile(
    r"Traceback|File \"[^\"]+\.py\"|\.py\b|site-packages|dist-packages|\bpython\d?(?:\.\d+)?\b"
    r"|\b(?:Import|ModuleNotFound|Runtime|OS|Attribute)Error\b"
    r"|torch|tensorflow|\bkeras\b|\bjax(?:lib)?\b|paddle|onnxruntime|\bcupy\b|\bnumba\b|transformers|diffusers|comfy",
    re.IGNORECASE,
)


def foreign_python(facts: Facts, asks: list[Ask], runs_python: Callable[[Ask], bool]) -> list[Ask]:
    """`asks` without the general Python questions (Ask.subject "", or a named Python component's) where the failing program is a named application
    that is no Python program, its own asks printed, and no line the paste shows failing is Python's: a framework's
    build, an interpreter's packages, decide nothing of a Go or C++ server (the blind sets' reviewers on Ollama's
    reports: "collect_env / pip list are padding", "noise for an Ollama ... question"). Python may be named beside it
    (a torch that sees the GPU, said as the working comparison): that is no failure of the program asked about."""
    from gpudoctor.planner.apps import natives

    ids = {f"component:{n.id}" for n in natives()}
    if not any(a.subject in ids for a in asks) or any(_PYTHON_LINE.search(e.line or "") for e in facts.pasted.errors):
        return asks
    # (kept: the application's own asks, and those made for a failure the paste shows: a catalogued message's, a
    # symptom family's; given way: the general ones and a named Python component's, torch's collect_env)
    # (kept too: an ask a component made for a kind of failing line the paste shows, Ask.made_for)
    return [
        a
        for a in asks
        if not runs_python(a) or a.subject in ids or a.made_for or (a.subject and not a.subject.startswith("component:"))
    ]


# The evidence kinds a framework prints at every start of a program that imports it, no fault among them
# (catalogue.toml's tf-startup-log entries: TensorFlow's and XLA's "Successfully opened dynamic library", "Unable to
# register cuDNN factory", "TF-TRT Warning: Could not find TensorRT"; gpudoctor.checks.reported's descriptive kinds).
STARTUP_ONLY: dict[str, frozenset[str]] = {"tensorflow": frozenset({"tf-startup-log"})}


def idle_framework(facts: Facts, framework: str, named: set[str]) -> bool:
    """Whether `framework` is named only by its start-up lines while another framework is at work (named, or a
    compiled extension of torch's named): it was imported beside the failing program (a Lightning job importing
    TensorFlow through a logger, a web UI whose image carries it), and a probe of its build decides nothing of the
    failure (blind set 17's reviewers on a TensorFlow probe beside a program that runs no TensorFlow)."""
    from gpudoctor.facts import EXTENSION_NAMED
    from gpudoctor.probed import Found

    quiet = STARTUP_ONLY.get(framework)
    installed = getattr(facts.frameworks, framework, None)
    if quiet is None or isinstance(installed, Found) or framework in facts.pasted.frameworks:
        return False
    lines = [e for e in facts.pasted.errors if framework in e.line.lower()]
    if not lines or any(e.kind not in quiet for e in lines):
        return False
    return bool(named - {framework}) or any(c.get("cue") == EXTENSION_NAMED for c in facts.pasted.cues)


# The variables that choose which GPUs a process sees: a shell's own value says nothing of a service's.
_GPU_SELECTING = frozenset({"CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL"})


def service_environment(asks: list[Ask]) -> list[Ask]:
    """`asks` with a GPU-selecting variable asked of the reporter's shell (`printenv VAR`, no place said) asked of the
    service instead, where the failing program runs as a systemd service whose journal is asked (`journalctl -u UNIT`):
    systemd starts a unit with its own environment, set by Environment= lines of the unit (Ollama's FAQ, "Setting
    environment variables on Linux": "If Ollama is run as a systemd service, environment variables should be set using
    systemctl ... add a line Environment under section [Service]": ollama/ollama docs/faq.md @7775059a), which
    `systemctl show UNIT --property=Environment` prints (systemd's systemctl(1), `show` and `-p, --property=`:
    https://www.freedesktop.org/software/systemd/man/latest/systemctl.html). The blind sets' reviewers: "printenv
    CUDA_VISIBLE_DEVICES in the user's shell does not show the service's environment"."""
    units = {str(w[w.index("-u") + 1]) for a in asks if (w := _words(a))[:1] == ("journalctl",) and "-u" in w[:-1]}
    if len(units) != 1:
        return asks
    (unit,) = units
    out: list[Ask] = []
    for a in asks:
        var = _printenv(a)
        if var in _GPU_SELECTING and not a.command.note:
            from gpudoctor.cmdline import Cmd

            a = dataclasses.replace(
                a,
                command=Cmd(("systemctl", "show", unit, "--property=Environment")),
                why=f"the environment systemd starts {unit} with (its Environment= settings): whether it sets {var}, "
                f"which the shell's own value does not show; {a.why}",
            )
        if a not in out:
            out.append(a)
    return out
