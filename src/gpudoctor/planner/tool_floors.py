"""The release a printed command's tool must be at for the option it uses, and what the report shows of that release.

A plan is printed for a machine of its own era: `nvidia-ctk runtime configure` does not exist on a node whose NVIDIA
runtime came with nvidia-docker2 before the NVIDIA Container Toolkit 1.11, `docker run --gpus` not on a Docker before
19.03 (issue 27, kinds 3 and 8). FLOORS is that table, each row with its source; `shown` reads the release from the
report (each fact with the line it was read from). The consequence model (gpudoctor.planner.needs) fails a command whose
tool is shown older than its floor, or whose release is unknown with no earlier command asking it; the planner
(gpudoctor.planner.deciders.with_release_asks) puts the asking command before such a command.

Where the release is not shown, the plan asks it before the command, and this is why per product (rather than the form
that works on every release):

- the NVIDIA Container Toolkit: ask (`nvidia-ctk --version`). Its answer both proves the program exists (a node set up
  with nvidia-docker2 before 1.10 has no nvidia-ctk at all) and names the release; the form that works on every
  release, editing /etc/docker/daemon.json by hand, has no command that keeps the file's other keys, so it stays the
  step's prose.
- pip: ask (`<the command's interpreter> -m pip --version`). pip is upgraded apart from its interpreter (a
  distribution's python3-pip, a conda environment's own), so the Python's release does not bound pip's; upgrading pip
  first would change an environment the plan does not otherwise touch (a conda or system pip).
- Docker: ask (`docker --version`). `--gpus` has no older form that works everywhere: `--runtime=nvidia` needs a
  runtime named nvidia in daemon.json (nvidia-docker2's, or `nvidia-ctk runtime configure`'s), which a Docker set up
  for `--gpus` alone need not have.
"""

from __future__ import annotations

from gpudoctor.cmdline import Cmd, Line
from gpudoctor.lazypattern import LazyPattern
from gpudoctor.record import Record, record_class
from gpudoctor.versions import version_key

# typing's constant without typing (a bare check imports this module: bench/README.md, h161)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@record_class(frozen=True, eq=False, repr=False)
class Product(Record):
    """A tool whose release decides what its commands accept: the packages that install it (a plan that installs
    one brings the newest release), the evidence kinds that show its release (`version` value) or prove a floor (a
    message only a release at or past it prints), and the command whose output shows it."""

    name: str
    packages: tuple[str, ...]
    version_kinds: tuple[str, ...]
    proves: tuple[tuple[str, str], ...]  # (evidence kind, the release its message proves at least)
    ask: tuple[str, ...]  # printed before a command that needs a floor where no release is shown (the docstring: why)


TOOLKIT = Product(
    "NVIDIA Container Toolkit",
    ("nvidia-container-toolkit",),
    ("container-toolkit-version",),  # gpudoctor/parsers/catalogue.toml nvidia-ctk-version: `nvidia-ctk --version`
    (),
    ("nvidia-ctk", "--version"),
)
PIP = Product(
    "pip",
    ("pip",),
    (),  # its release is the environment's package list's (`pip list`, a probed environment): `shown` reads it there
    (),
    ("python", "-m", "pip", "--version"),  # with the command's own interpreter (`ask_of`)
)
DOCKER = Product(
    "Docker",
    ("docker-ce", "docker.io", "moby-engine"),
    ("docker-version",),  # catalogue.toml docker-version: `docker --version`
    # moby's "could not select device driver ... with capabilities: [[gpu]]" answers a device request, which the API
    # has from version 1.40 (Docker 19.03) on: a daemon that prints it took --gpus.
    (("docker-gpu-driver-missing", "19.03.0"),),
    ("docker", "--version"),
)


@record_class(frozen=True, eq=False, repr=False)
class Floor(Record):
    """A command of `program` whose words include all of `words` needs `product` at `minimum` or newer (`source`)."""

    program: str
    words: tuple[str, ...]
    product: Product
    minimum: str
    source: str


# Most specific first: the first row whose words a command holds decides it.
FLOORS = (
    Floor("nvidia-ctk", ("runtime", "configure", "--runtime=containerd"), TOOLKIT, "1.14.0",
          "NVIDIA/nvidia-container-toolkit CHANGELOG.md @d34b3046, v1.14.0-rc.1: 'Add support for updating containerd "
          "configs to the nvidia-ctk runtime configure command'"),
    Floor("nvidia-ctk", ("runtime", "configure"), TOOLKIT, "1.11.0",
          "NVIDIA/nvidia-container-toolkit CHANGELOG.md @d34b3046, v1.11.0-rc.1: 'Add nvidia-ctk runtime configure "
          "command' (commit 9f0060f6, with --set-as-default)"),
    Floor("nvidia-ctk", ("system", "create-dev-char-symlinks"), TOOLKIT, "1.12.0",
          "NVIDIA/nvidia-container-toolkit commit 8188400c 'Move create-dev-char-symlinks subcommand from hook to "
          "system', first tagged v1.12.0"),
    Floor("nvidia-ctk", ("cdi", "list"), TOOLKIT, "1.14.0",
          "NVIDIA/nvidia-container-toolkit CHANGELOG.md @d34b3046, v1.14.0-rc.1: 'Add nvidia-ctk cdi list command'"),
    Floor("nvidia-ctk", ("cdi", "generate"), TOOLKIT, "1.12.0",
          "NVIDIA/nvidia-container-toolkit CHANGELOG.md @d34b3046, v1.12.0-rc.2: 'Use nvidia-ctk cdi generate to "
          "generate CDI specifications'"),
    Floor("pip", ("install", "--config-settings"), PIP, "22.1",
          "pypa/pip commit 01690b842 'Add new --config-settings option to install and wheel commands', first tagged "
          "22.1 (NEWS.rst 22.1: 'Add a user interface for supplying config settings to build backends')"),
    Floor("pip", ("install", "--no-build-isolation"), PIP, "10.0.0",
          "pypa/pip commit c08d4cc80 'Add --no-build-isolation for disabling build isolation', first tagged 10.0.0b1"),
    Floor("docker", ("run", "--gpus"), DOCKER, "19.03.0",
          "docker/cli cli/command/container/opts.go: flags.SetAnnotation(\"gpus\", \"version\", []string{\"1.40\"}); "
          "API 1.40 is Docker Engine 19.03"),
)  # fmt: skip
PRODUCTS = tuple(dict.fromkeys(f.product for f in FLOORS))


# The pip any Python from 3.8 on runs with is 10.0 or newer: pip 10.0.0 was released on 2018-04-14 (pypa/pip NEWS),
# Python 3.8.0 on 2019-10-14 and its ensurepip bundles pip 19.2.3; the oldest python3-pip a distribution ships beside a
# Python 3.8 or newer is Ubuntu 20.04's 20.0.2. So `--no-build-isolation` (10.0) needs no ask on such a Python; an older
# Python (Ubuntu 18.04's Python 3.6 ships pip 9.0.1) still does.
_PIP_FLOOR_OF_PYTHON = ("3.8", "10.0.0", "every pip that runs on Python 3.8 or newer is 10.0 or newer")


@record_class(frozen=True, eq=False, repr=False)
class Shown(Record):
    """A product's release as the report shows it: at least `version` (exactly, where `exact`), read from `line`."""

    version: str
    line: str
    exact: bool = True


def program_of(line: Cmd) -> str:
    """The tool a command runs: pip for `INTERPRETER -m pip`, else its program's base name."""
    argv = [str(a) for a in line.argv]
    if argv[1:3] == ["-m", "pip"]:
        return "pip"
    prog = argv[0].replace("\\", "/").rsplit("/", 1)[-1]
    return "pip" if prog in ("pip", "pip3", "pip.exe", "pip3.exe") else prog


def floor_of(line: Line | None) -> Floor | None:
    """The floor a printed command needs, or None."""
    if not isinstance(line, Cmd) or not line.argv or not isinstance(line.argv[0], str):
        return None
    prog = program_of(line)
    # an option as written and by its name alone (`--gpus=all` is `--gpus`; `--runtime=containerd` stays itself too)
    words = {w for a in line.argv[1:] for w in (str(a), str(a).split("=", 1)[0])}
    return next((f for f in FLOORS if f.program == prog and all(w in words for w in f.words)), None)


def ask_of(floor: Floor, line: Cmd) -> tuple[str, ...]:
    """The command whose output shows the release `line` needs: pip's through the command's own interpreter."""
    if floor.product is PIP:
        argv = [str(a) for a in line.argv]
        return (argv[0], "-m", "pip", "--version") if argv[1:3] == ["-m", "pip"] else (argv[0], "--version")
    return floor.product.ask


def shown(facts: Any, product: Product) -> Shown | None:
    """What the report shows of `product`'s release: the newest it names, else the floor a message proves; None."""
    if product is PIP:
        from gpudoctor.planner.plan_state import python_env

        env = python_env(facts)
        v = env.distributions.get("pip") if env is not None else None
        if v:
            return Shown(v, f"pip {v}, in the environment's package list")
        py = env.version if env is not None else None
        if py and version_key(py) >= version_key(_PIP_FLOOR_OF_PYTHON[0]):
            # A lower bound, not the release: asking `pip --version` before `--no-build-isolation` on a Python 3.10 is a
            # line nobody needs (issue 27, kind 10), while `--config-settings` (22.1) stays asked where it is not known.
            return Shown(_PIP_FLOOR_OF_PYTHON[1], f"Python {py}: {_PIP_FLOOR_OF_PYTHON[2]}", exact=False)
        return None
    pasted = getattr(facts, "pasted", None)
    if pasted is None:
        return None
    named = [Shown(v, e.line) for kind in product.version_kinds for e in pasted.reported(kind) if (v := e.get("version"))]
    if named:
        return max(named, key=lambda s: version_key(s.version))
    proved = [Shown(least, e.line, exact=False) for kind, least in product.proves for e in pasted.reported(kind)]
    return max(proved, key=lambda s: version_key(s.version)) if proved else None


def installs(line: Line, product: Product) -> bool:
    """Whether `line` installs or upgrades `product` (the newest release its source serves): a package named after
    the package manager's install verb."""
    if not isinstance(line, Cmd):
        return False
    words = [str(a) for a in line.argv]
    at = next((i for i, w in enumerate(words) if w in ("install", "upgrade", "-S")), None)
    return at is not None and any(w.split("=")[0] in product.packages for w in words[at + 1 :] if not w.startswith("-"))


# --- what a Python probe needs: its module importable, and the call it makes in the release installed ----------------
#
# A printed command that imports a module (`python -c "import jax; ..."`, `python -m torch.utils.collect_env`) cannot
# run where the paste shows that module's own import failing (facts.IMPORT_FAILED, facts.IMPORT_CRASHED: it ends in the
# same error), nor where the release shown predates the call it makes (issue 27, kind 3). CALLS is the second table,
# each floor with its source; `unrunnable` is the one answer, which the consequence model (gpudoctor.planner.needs)
# counts and the asks (gpudoctor.pasted.ask) replace by what runs on any release without importing the module: pip's
# view of the distributions installed under its name (pip reads their metadata, never the package's code).


@record_class(frozen=True, eq=False, repr=False)
class Call(Record):
    """A probe that imports `module` and holds `text` (in its `-c` program, or as its `-m` module) needs `module` at
    `minimum` or newer (`source`); `dated_by` is the cue that proves the release shown older without naming it."""

    module: str
    text: str
    minimum: str
    source: str
    dated_by: str = ""
    since: str = ""  # no build of the module made, and no run of it logged, before this day has the call (ISO date)


CALLS = (
    Call("jax", "print_environment_info", "0.3.18",
         "jax-ml/jax commit 0fb462ef added jax.print_environment_info(); first tagged jax-v0.3.18 @e0344328",
         "a JAX older than jax.print_environment_info()",
         "2022-09-26"),  # jax-ml/jax CHANGELOG.md: "## jax 0.3.18 (Sep 26, 2022)"
    Call("tensorflow", "tf.config", "1.14",
         "tensorflow/tensorflow tensorflow/python/framework/config.py, first released with 1.14 (facts.TF_BEFORE_CONFIG)",
         "a TensorFlow older than tf.config"),
    Call("torch", "torch.utils.collect_env", "0.4.1",
         "pytorch/pytorch PR #6635 'Add environment collection script' (torch/utils/collect_env.py), merged 2018-04-17; "
         "0.4.1 is the first release cut from master after it (whether 0.4.0, released 2018-04-24 from its own branch, "
         "carries it is not checked)", "",
         "2018-04-16"),  # the day PR #6635 was opened: the file did not exist before it
)  # fmt: skip

# `import a, b as c` and `from a.b import c` in a `-c` program: the top-level names it imports
_IMPORTS = LazyPattern(
    r"(?:^|[;\n])\s*(?:import\s+([\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*)|from\s+([\w.]+)\s+import\b)"
)


def imported(line: Cmd) -> tuple[set[str], str]:
    """(the top-level modules a Python probe imports, the program or module it runs); (set(), "") for another command."""
    argv = [str(a) for a in line.argv]
    if "-m" in argv[:-1]:
        module = argv[argv.index("-m") + 1]
        return {module.split(".")[0]}, module
    if "-c" not in argv[:-1]:
        return set(), ""
    code = argv[argv.index("-c") + 1]
    names: set[str] = set()
    for m in _IMPORTS.finditer(code):
        for n in (m.group(1) or m.group(2)).split(","):
            names.add(n.strip().split()[0].split(".")[0] if n.strip() else "")
    names.discard("")
    return names, code


def _release_of(facts: Any, module: str) -> str | None:
    """The release of `module` the report shows: the framework's probed or pasted version, else the environment's
    package list."""
    frameworks = getattr(facts, "frameworks", None)
    fw = getattr(frameworks, module, None) if module in ("torch", "tensorflow", "jax") else None
    value = getattr(fw, "value", None)
    if value is not None and getattr(value, "version", None):
        return str(value.version)
    from gpudoctor.planner.plan_state import python_env

    env = python_env(facts)
    return (env.distributions.get(module) or None) if env is not None else None


# A glog or absl line's own date (TensorFlow's and XLA's "2020-10-05 16:30:40.039587: W ..."): the day the program ran,
# so no release of any module it ran with was made after it. A conda build's folder of the module's own package
# ("/opt/conda/conda-bld/pytorch_1502009910772/work/...": conda-build names it by the build's start in milliseconds since
# the epoch): the day that package's release was built (another package's build dates only itself).
_LOGGED = LazyPattern(r"^\s*(20\d\d-[01]\d-[0-3]\d)[ T][0-2]\d:[0-5]\d:[0-5]\d")
_CONDA_BUILT = LazyPattern(r"conda-bld[\\/]([\w.-]{1,80})_(1[0-9]{9})[0-9]{3}[\\/]")
# The conda packages a module comes in, where their names differ from the module's
_CONDA_NAMES = {
    "torch": ("pytorch",),
    "tensorflow": ("tensorflow", "tensorflow-base", "tensorflow-gpu"),
    "jax": ("jax", "jaxlib"),
}


def _dated(pasted: Any, module: str) -> str | None:
    """The latest day the paste's failure lines show `module` run on or built on (ISO), or None."""
    import datetime

    days = []
    for e in getattr(pasted, "errors", ()) or ():
        line = e.line or ""
        if m := _LOGGED.match(line):
            days.append(m.group(1))
        if (m := _CONDA_BUILT.search(line)) and m.group(1) in _CONDA_NAMES.get(module, (module,)):
            days.append(datetime.datetime.fromtimestamp(int(m.group(2)), datetime.timezone.utc).date().isoformat())
    return max(days, default=None)


# nvidia-smi's --query-gpu fields no driver of a branch up to this one has ("Field "compute_cap" is not a valid field to
# query"): absent from the --help-query-gpu of R470's 470.182.03 (huggingface/candle#733) and 470.82.01
# (NVIDIA/TensorRT-LLM#735); a driver adds fields and drops none, so every older branch lacks it too.
SMI_FIELDS = (("compute_cap", 470, "huggingface/candle#733 (470.182.03), NVIDIA/TensorRT-LLM#735 (470.82.01)"),)


def _smi_unrunnable(line: Cmd, facts: Any) -> str | None:
    """Why an `nvidia-smi --query-gpu=...` cannot answer here: a field newer than the driver shown, or than the last
    driver branch of the GPU shown (gpudoctor.planner.remedy.last_branch: a Kepler's is R470), or None."""
    fields = _smi_fields(line)
    lacking = [(f, upto, src) for f, upto, src in SMI_FIELDS if f in fields]
    if not lacking:
        return None
    field, upto, src = lacking[0]
    driver = getattr(getattr(facts, "driver", None), "version", None) or ""
    if driver[:3].isdigit() and int(driver.split(".")[0]) <= upto:
        return f"no driver up to R{upto} has the {field} field ({src}); the report shows driver {driver}"
    from types import SimpleNamespace

    from gpudoctor.matrix import load_matrix
    from gpudoctor.planner.remedy import last_branch

    last = last_branch(facts, SimpleNamespace(matrix=load_matrix())) if getattr(facts, "driver", None) else None
    if last and int(last) <= upto:
        return f"no driver up to R{upto} has the {field} field ({src}); the GPU shown is driven by R{last} at the newest"
    return None


def _smi_fields(line: Cmd) -> list[str]:
    if not line.argv or line.argv[0] != "nvidia-smi":
        return []
    query = next((str(w).split("=", 1)[1] for w in line.argv if str(w).startswith("--query-gpu=")), "")
    return [f.strip() for f in query.split(",") if f.strip()]


def unrunnable(line: Any, facts: Any) -> str | None:
    """Why the Python probe `line` cannot run on the machine the report shows (a module it imports fails to import
    there, or the call it makes is newer than the release shown), or None."""
    if not isinstance(line, Cmd) or not line.argv:
        return None
    modules, code = imported(line)
    if not modules:
        return _smi_unrunnable(line, facts)
    from gpudoctor.facts import IMPORT_CRASHED, IMPORT_FAILED

    pasted = getattr(facts, "pasted", None)
    cues = list(getattr(pasted, "cues", ()) or ())
    failed = {c.get("means") for c in cues if c.get("cue") in (IMPORT_FAILED, IMPORT_CRASHED)}
    if "jaxlib" in failed:
        # jax imports jaxlib as it is imported (jax/_src/lib/__init__.py, `import jaxlib`, jax-v0.3.18 @e0344328)
        failed.add("jax")
    if gone := sorted(modules & failed):
        return f"the report shows `import {gone[0]}` failing: a command that imports it ends in the same error"
    for call in CALLS:
        if call.module not in modules or call.text not in code:
            continue
        said = next((c.get("means") for c in cues if call.dated_by and c.get("cue") == call.dated_by), None)
        if said:
            return f"{call.text} needs {call.module} {call.minimum} or newer ({call.source}); the report dates it older ({said})"
        if call.since and (day := _dated(pasted, call.module)) and day < call.since:
            return f"{call.text} needs {call.module} {call.minimum} or newer ({call.source}); the report's program was built or logged on {day}, before it existed"
        shown = _release_of(facts, call.module)
        if shown and version_key(shown) < version_key(call.minimum):
            return f"{call.text} needs {call.module} {call.minimum} or newer ({call.source}); the report shows {shown}"
    return None


def instead(line: Cmd) -> Cmd | None:
    """The form of a command `unrunnable` refuses that runs, where it is not a Python probe (whose place pip's view of
    its module takes, gpudoctor.pasted.ask): an nvidia-smi query without the fields the driver lacks (the capability of
    a GPU named is the matrix's), or the GPUs' list where none is left."""
    fields = _smi_fields(line)
    if not fields:
        return None
    kept = [f for f in fields if f not in {f for f, _, _ in SMI_FIELDS}]
    if not kept:
        return Cmd(("nvidia-smi", "-L"), note=line.note)
    argv = tuple(f"--query-gpu={','.join(kept)}" if str(w).startswith("--query-gpu=") else w for w in line.argv)
    return Cmd(argv, pipe=line.pipe, note=line.note)


def runnable(line: Cmd, facts: Any) -> Cmd:
    """`line` where it runs on the machine the report shows, else its older form (`instead`): applied by the planner to
    every plan step's command (gpudoctor.planner.deciders.released), which the asker's filter (gpudoctor.pasted.ask)
    never sees."""
    if _smi_unrunnable(line, facts) is None:
        return line
    return instead(line) or line


def probed_module(line: Cmd) -> str:
    """The module a probe `unrunnable` refuses was asking about: the one a call of CALLS is made on, else the first it
    imports."""
    modules, code = imported(line)
    return next((c.module for c in CALLS if c.module in modules and c.text in code), None) or min(modules, default="")
