"""Run every probe against a host, concurrently, each within its time limit, and gather `Facts`.

A probe that raises becomes an Unknown outcome (kind `crash`), one that
outlives the overall deadline an Unknown (kind `timeout`); either way the
doctor goes on and says which probe it could not finish. Probes run in
daemon threads so that one stuck in the kernel cannot keep the process alive.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from functools import partial

from gpudoctor.host import Host
from gpudoctor.probed import Found, Unknown
from gpudoctor.record import Record, record_class

# typing's constant without typing: a bare check imports this module (bench/README.md, h161)
TYPE_CHECKING = False
if TYPE_CHECKING:  # imported in run_probes, once the user's interpreter has been started (below)
    from typing import Any

    from gpudoctor.facts import Facts, FrameworkFacts, PlatformFacts


@record_class(frozen=True, eq=False, repr=False)
class ProbeOptions(Record):
    """How the probes run: their time limits, the Python to probe, --deep and --pid."""

    probe_timeout_s: float = 5.0  # each command, NVML, and the Python interpreter
    deadline_s: float = 20.0  # the whole probe phase
    python: str | None = None  # --python
    deep: bool = False
    deep_timeout_s: float = 60.0
    pid: int | None = None  # check --pid: also read which CUDA libraries this process mapped


class _Task:
    def __init__(self, name: str, fn: Callable[[], Any], since: float | None = None) -> None:
        self.name = name
        self.fn = fn
        self.since = since  # when the probe began, where its first step ran before its thread (the python probe)
        self.value: Any = None
        self.error: str | None = None
        self.trace: str | None = None
        self.duration_s = 0.0
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, name=f"probe-{name}", daemon=True)

    def _run(self) -> None:
        start = time.monotonic() if self.since is None else self.since
        try:
            self.value = self.fn()
        except Exception as exc:  # noqa: BLE001 - a crashing probe is a finding, never a traceback
            import traceback  # (only for a probe that crashed: it imports textwrap too)

            self.error = f"{type(exc).__name__}: {exc}"
            self.trace = traceback.format_exc()
        finally:
            self.duration_s = time.monotonic() - start
            self.done.set()


class _Runner:
    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self.tasks: dict[str, _Task] = {}
        self.failures: dict[str, Unknown] = {}
        self.traces: dict[str, str] = {}

    def start(self, name: str, fn: Callable[[], Any], since: float | None = None) -> None:
        task = _Task(name, fn, since)
        self.tasks[name] = task
        task.thread.start()

    def get(self, name: str, fallback: Callable[[Unknown], Any]) -> Any:
        task = self.tasks[name]
        if not task.done.wait(max(0.0, self.deadline - time.monotonic())):
            why = Unknown("timeout", f"the {name} probe did not finish before the deadline", f"probe:{name}")
            self.failures[name] = why
            return fallback(why)
        if task.error is not None:
            why = Unknown("crash", task.error, f"probe:{name}")
            self.failures[name] = why
            if task.trace:
                self.traces[name] = task.trace
            return fallback(why)
        return task.value

    def timings(self) -> dict[str, float]:
        return {name: round(t.duration_s, 4) for name, t in self.tasks.items() if t.done.is_set()}


def _raise(exc: Exception) -> Any:
    raise exc


def _deep_error(framework: str, why: Unknown) -> dict[str, Any]:
    """What --deep reports for a framework whose introspection did not answer."""
    return {"framework": framework, "error": why.message}


def run_probes(
    host: Host,
    options: ProbeOptions = ProbeOptions(),  # noqa: B008 - a frozen record (ruff knows only @dataclass as frozen)
    meanwhile: Callable[[], Any] | None = None,
) -> Facts:
    """The facts of `host`. `meanwhile` runs in this thread as soon as the user's interpreter has been started
    (gpudoctor.doctor: importing the checks)."""
    from gpudoctor.probes import python

    t = options.probe_timeout_s
    began = time.monotonic()
    runner = _Runner(began + options.deadline_s)
    # The user's interpreter is the slowest probe (a subprocess, often behind a pyenv or conda shim, whose
    # start-up is most of a check's wall time when nothing else runs beside it): start it first, before the
    # other probes, the checks and the facts' types are imported (building those classes is a good part of a
    # check's CPU time), so that its start-up runs on another core meanwhile. It is chosen and started here,
    # in this thread, and only waited for in its own: started from a thread, its first step (the shim's and
    # the environment's files read, the program started) shared the interpreter lock with the imports below
    # and began its start-up about 20 ms of CPU later (bench/README.md).
    try:
        answer = python.start_python(host, options.python, t)
    except Exception as exc:  # noqa: BLE001 - raised again in the probe's thread, where a crash becomes an Unknown
        answer = partial(_raise, exc)
    runner.start("python", answer, since=began)
    if meanwhile is not None:
        meanwhile()
    from gpudoctor.facts import CudaLink, Distro, Facts, FrameworkFacts, KernelFacts, PlatformFacts, ToolkitFacts
    from gpudoctor.probes import cudnn, driver, extensions, kernel, loading, platform, toolkits, windows

    runner.start("platform", lambda: platform.probe_platform(host))
    runner.start("kernel", lambda: kernel.probe_kernel(host, t))
    runner.start("nvml", lambda: host.nvml(t))
    runner.start("nvidia-smi", lambda: driver.run_smi(host, t))
    runner.start("toolkits", lambda: toolkits.probe_toolkits(host, t))
    runner.start("ldconfig", lambda: python.probe_ldconfig(host, t))
    runner.start("ld-library-path", lambda: python.probe_ld_library_path(host))

    plat = runner.get("platform", lambda why: PlatformFacts("Linux", "", "", Distro(), None, None, None, dict(host.env())))
    kern = runner.get("kernel", lambda why: KernelFacts(why, why, None, None, (), why))
    nvml_state = runner.get("nvml", lambda why: {"status": "timeout" if why.timed_out else "crash", "error": why.message})
    smi = runner.get("nvidia-smi", lambda why: {"status": "timeout" if why.timed_out else "failed", "error": why.message})
    tks = runner.get(
        "toolkits", lambda why: ToolkitFacts((), CudaLink("/usr/local/cuda", "missing", None, None), None, None, None, ())
    )
    ldconfig = runner.get("ldconfig", lambda why: why)
    ld_path = runner.get("ld-library-path", lambda why: ())
    py, chosen_by = runner.get("python", lambda why: (why, "unknown"))

    env_found = py.value if isinstance(py, Found) else None
    cache = ldconfig.value if isinstance(ldconfig, Found) else None
    runner.start("frameworks", lambda: python.probe_frameworks(host, py, chosen_by))
    smi_result = smi.get("result") if isinstance(smi, dict) else None
    runner.start("windows", lambda: windows.probe_windows(host, t, env_found, smi_result))
    runner.start(
        "cudnn",
        lambda: cudnn.probe_cudnn(
            host, tks, ld_path, cache, env_found.distributions if env_found else {}, plat.env.get("CONDA_PREFIX")
        ),
    )
    frameworks = runner.get("frameworks", lambda why: FrameworkFacts(py, chosen_by, why, why, why, {}))
    if options.deep and env_found is not None:
        from gpudoctor.probes import deep  # --deep only, as probes.process is --pid only

        wanted = [
            name
            for name, outcome in (("torch", frameworks.torch), ("tensorflow", frameworks.tensorflow), ("jax", frameworks.jax))
            if isinstance(outcome, Found)
        ]
        # A framework import can legitimately take long (CUDA context creation): its own deadline.
        runner.deadline = max(runner.deadline, time.monotonic() + options.deep_timeout_s + 5)
        for name in wanted:
            # Bound now: the thread runs after the loop has moved on.
            runner.start(f"deep-{name}", partial(deep.introspect, host, env_found.executable, name, options.deep_timeout_s))
        for name in wanted:
            frameworks.deep[name] = runner.get(f"deep-{name}", partial(_deep_error, name))
    runner.start("loading", lambda: loading.probe_loading(host, plat, frameworks, tks, ld_path, cache))
    runner.start("extensions", lambda: extensions.probe_extensions(host, frameworks, libstdcxx_dirs(plat, frameworks)))
    installs = runner.get("cudnn", lambda why: ())
    libraries = runner.get("loading", lambda why: None)
    if options.pid is not None:
        from gpudoctor.probes import process

        runner.start("process", lambda: process.probe_process(host, options.pid or 0, libraries))
    companions = runner.get("extensions", lambda why: None)
    mapped = runner.get("process", partial(_process_error, options.pid)) if options.pid is not None else None
    win = runner.get("windows", lambda why: None)
    return Facts(
        platform=plat,
        kernel=kern,
        driver=driver.merge_driver(nvml_state, smi),
        toolkits=tks,
        cudnn=installs,
        frameworks=frameworks,
        ldconfig=ldconfig,
        ld_library_path=ld_path,
        timings_s=runner.timings(),
        failures=runner.failures,
        windows=win,
        loading=libraries,
        pasted=_partial(host),
        extensions=companions,
        process=mapped,
    )


def libstdcxx_dirs(plat: PlatformFacts, frameworks: FrameworkFacts) -> tuple[str, ...]:
    """Where the loader finds libstdc++.so.6 for the probed interpreter: a conda environment's lib/ (its
    python's run path), then the system's default directories."""
    from gpudoctor.loader import default_dirs

    distro = f"{plat.distro.id or ''} {plat.distro.id_like or ''}"
    own = (frameworks.env_lib.path,) if frameworks.env_lib is not None else ()
    return own + default_dirs(plat.machine, "debian" in distro or "ubuntu" in distro)


def _process_error(pid: int | None, why: Unknown):  # -> gpudoctor.extension_facts.ProcessFacts
    from gpudoctor.extension_facts import ProcessFacts

    return ProcessFacts(pid or 0, error=why.message)


def _partial(host: Host):  # -> gpudoctor.facts.Partial
    """What a partial snapshot showed besides files and commands (docs/pasted.md); empty for a whole machine."""
    from gpudoctor.facts import Partial

    section = host.pasted()
    if not section.get("partial"):
        return Partial()
    from gpudoctor.parsers.error_texts import ErrorEvidence  # only a partial snapshot has error texts

    errors = []
    for e in section.get("errors") or ():
        if isinstance(e, dict) and isinstance(e.get("kind"), str):
            raw = e.get("values")
            values: dict = raw if isinstance(raw, dict) else {}
            pairs = tuple(sorted((str(k), str(v)) for k, v in values.items()))
            errors.append(ErrorEvidence(e["kind"], str(e.get("line", "")), pairs, str(e.get("at") or "")))
    missing = tuple(str(m) for m in section.get("missing") or () if isinstance(m, str))
    named = tuple(str(m) for m in section.get("frameworks") or () if isinstance(m, str))
    whole = tuple(str(m) for m in section.get("whole") or () if isinstance(m, str))
    cues = tuple({str(k): str(v) for k, v in c.items()} for c in section.get("cues") or () if isinstance(c, dict))
    cluster = section.get("cluster") if isinstance(section.get("cluster"), str) else None
    raw_side = section.get("windows_side")
    side: dict[str, Any] = raw_side if isinstance(raw_side, dict) else {}
    return Partial(True, tuple(errors), missing, named, whole, cues, cluster, side)
