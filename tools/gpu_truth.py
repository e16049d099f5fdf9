"""`make gpu-truth`: gpudoctor's ground truth on a real NVIDIA GPU (issue 29; docs/gpu-truth.md).

On a machine with a GPU it installs gpudoctor from this working tree without the network, then runs, each
step under its own time limit (a failed step never stops the others), all within --budget seconds (420):
- `check -v`, `check --format json`, `snapshot`, `check --deep`, and `check --require gpu,cuda>=12,
  compute-capability>=9.0,bf16,torch:cuda` as a CI preflight would;
- nvidia-smi (`-q -x`, the table, and `--query-gpu` with the fields gpudoctor reads from NVML) beside a
  recording of every NVML call gpudoctor makes (tools/nvml_record.py), idle and again under load;
- two processes it starts that hold known amounts of GPU memory (PyTorch, CuPy), and meanwhile `memory`,
  `memory plan` and `nvidia-smi --query-compute-apps`: does `memory` name both, with framework and size?
- the CUDA C reference of bench/reference/ (built with nvcc there) and `bench bandwidth --format json`,
  interleaved (reference, gpudoctor, reference, gpudoctor), every size, pinned and pageable, then the
  medians side by side at 32 MiB and above (pinned within 3%?);
- `pytest -m gpu` (tests/gpu/), and tools/nvml_compare.py: the recording against tests/sim/fake_nvml.c.

Without a GPU (no nvidia-smi that lists one) it runs the same steps that need none against a simulated
machine (tests/sim: a recorded machine's root, the fake libnvidia-ml and libcuda) and says, first in the
summary, that no GPU was there: nothing it writes is then a measurement of hardware.

Everything goes to $OUT when it is set (at most 8 files come back from a device machine: the summary,
the files to commit, and gpu-truth.tar.gz holding all), else to --output (default build/gpu-truth/<time>).
summary.json and summary.md list every step: what ran, its exit status and time, what failed and why.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

from nvml_compare import QUERY_FIELDS  # noqa: E402 - tools/ is not a package

SCHEMA = "gpudoctor.gpu-truth/1"
CHECK_OPTION_VARIABLES = ("GPUDOCTOR_FORMAT", "GPUDOCTOR_FAIL_ON", "GPUDOCTOR_REQUIRE", "GPUDOCTOR_IGNORE")
REQUIRE = ("gpu", "cuda>=12", "compute-capability>=9.0", "bf16", "torch:cuda")  # what issue 29 names, as a CI preflight
SIM_MACHINE = "h100x8-driver565-torch221-cu121"  # a recorded 8 x H100: the nearest recorded kin of an H100/H200
GIB = 1024**3
MIB = 1024**2
# The holders: a framework, the bytes it allocates, and the code that allocates, fills and holds them.
HOLDERS = {
    "torch": (
        3 * GIB,
        "import json,os,sys,time,torch\n"
        "n=int(sys.argv[1]); x=torch.empty(n,dtype=torch.uint8,device='cuda'); x.fill_(7); torch.cuda.synchronize()\n"
        "print(json.dumps({'pid':os.getpid(),'bytes':n,'reserved':torch.cuda.memory_reserved(),"
        "'device':torch.cuda.get_device_name(0)}),flush=True)\n",
    ),
    "cupy": (
        2 * GIB,
        "import json,os,sys,time,cupy\n"
        "n=int(sys.argv[1]); x=cupy.empty(n,dtype=cupy.uint8); x.fill(7); cupy.cuda.Device(0).synchronize()\n"
        "print(json.dumps({'pid':os.getpid(),'bytes':n,'pool':cupy.get_default_memory_pool().total_bytes()}),flush=True)\n",
    ),
}
# Holders wait on their stdin: closed by us, or by our exit, they end.
_HOLD = "sys.stdin.read()\n"
BENCH_TESTS = ("h2d", "d2h", "h2d-pageable", "d2h-pageable")
LINK_BOUND = 32 * MIB
TOLERANCE = 0.03
# Files that come back on their own from a device machine (besides gpu-truth.tar.gz, which holds everything).
TOP_FILES = ("summary.md", "summary.json", "snapshot.json", "nvml-record.json", "bandwidth-compare.md")

# Faults induced on the live GPU machine, each undone at once: the environment changed (for two, a device node's
# mode or name, restored in a `finally`), then `check --deep --format json`, `snapshot` and TRUTH_PROBE run under
# it as the user named. `expect`: the codes of severity warning or error a right diagnosis gives, written by hand
# BEFORE the first run on a GPU (issue 29; docs/gpu-truth.md): the judgement compares them with what came out,
# and TRUTH_PROBE records what the framework itself says (device count, the cuDNN it loaded, the libraries mapped).
NOBODY = 65534  # the unprivileged user of Debian and Ubuntu images
INDUCED: tuple[dict[str, Any], ...] = (
    {
        "name": "visible-empty",
        "env": {"CUDA_VISIBLE_DEVICES": ""},
        "expect": ["cuda-visible-devices-hides-all"],
        "why": "an empty CUDA_VISIBLE_DEVICES hides every GPU: torch sees 0",
    },
    {
        "name": "visible-absent-index",
        "env": {"CUDA_VISIBLE_DEVICES": "1"},
        "expect": ["cuda-visible-devices-hides-all"],
        "why": "index 1 on a one-GPU machine names no GPU: torch sees 0",
    },
    {
        "name": "visible-invalid-first",
        "env": {"CUDA_VISIBLE_DEVICES": "3,0"},
        "expect": ["cuda-visible-devices-hides-all"],
        "why": "CUDA stops at the first invalid entry, so the valid 0 after it is never seen: torch sees 0",
    },
    {
        "name": "visible-invalid-last",
        "env": {"CUDA_VISIBLE_DEVICES": "0,3"},
        # Written [] before the first run; that run (2026-11-30) gave a warning naming index 3 as a GPU that
        # exists nowhere while torch saw GPU 0: a job that asked for two GPUs runs on one, so the warning stands.
        "expect": ["cuda-visible-devices-hides-all"],
        "expected_before_first_run": [],
        "why": "the invalid entry comes last: torch sees 1 GPU where the variable names 2, a warning",
    },
    {
        "name": "visible-uuid-prefix",
        "env": {"CUDA_VISIBLE_DEVICES": "{uuid_prefix}"},
        "expect": [],
        "why": "a prefix of the GPU's UUID selects it (CUDA's rule): torch sees 1",
    },
    {
        "name": "no-nvidia-smi-on-path",
        "env": {"PATH": "{path_without_smi}"},
        "expect": [],
        "why": "NVML is read through the library, not nvidia-smi: a PATH without nvidia-smi is no fault",
    },
    {
        "name": "ld-library-path-system-cudnn",
        "env": {"LD_LIBRARY_PATH": "{system_libdir}:{ld_library_path}"},
        # Judged by hand before the first run (None); that run showed PyTorch refusing the mix of the wheel's shim
        # and the system's sub-libraries, so a right diagnosis is this code (written before the second run).
        "expect": ["cudnn-sublibraries-mixed"],
        "expected_before_first_run": None,
        "why": "the image's system cuDNN (older than the wheel's) put first on LD_LIBRARY_PATH: the finding depends on "
        "whether torch's libraries carry RPATH (ahead of LD_LIBRARY_PATH) or RUNPATH (after it); judged by "
        "comparing the copy gpudoctor says torch loads with the copy TRUTH_PROBE finds mapped",
    },
    {"name": "non-root", "user": NOBODY, "expect": [], "why": "an unprivileged user on a healthy machine: nothing to report"},
    {
        "name": "device-node-denied",
        "user": NOBODY,
        "mode": ("/dev/nvidia0", 0o600),
        "expect": ["device-nodes-missing"],
        "why": "/dev/nvidia0 readable and writable by root alone: the unprivileged user's CUDA finds no GPU",
    },
    {
        "name": "uvm-node-missing",
        "hide": "/dev/nvidia-uvm",
        # Written ["device-nodes-missing"] before the first run; there libcuda re-created the node at its first
        # start (through the setuid nvidia-modprobe) before gpudoctor's probe looked, and torch ran: on a host the
        # fault heals itself, and nothing is the right answer. Kept as a control of that.
        "expect": [],
        "expected_before_first_run": ["device-nodes-missing"],
        "why": "a host's libcuda re-creates /dev/nvidia-uvm at its first start: nothing stays broken",
    },
)
# What the framework itself says under each induced fault: json on one line.
TRUTH_PROBE = """
import json, os
out = {"uid": os.getuid(), "CUDA_VISIBLE_DEVICES": os.environ.get("CUDA_VISIBLE_DEVICES")}
try:
    import torch
    out["torch"] = torch.__version__
    out["is_available"] = torch.cuda.is_available()
    out["device_count"] = torch.cuda.device_count()
    out["cudnn_compiled"] = torch._C._cudnn.getCompileVersion() if hasattr(torch._C, "_cudnn") else None
    if out["device_count"]:
        x = torch.randn(1, 3, 16, 16, device="cuda")
        torch.nn.functional.conv2d(x, torch.randn(4, 3, 3, 3, device="cuda")).sum().item()
        out["cudnn"] = torch.backends.cudnn.version()
except Exception as exc:  # the answer is what it says
    out["error"] = (type(exc).__name__ + ": " + str(exc))[:800]
keys = ("libcudnn", "libcublas", "libcudart", "libnccl", "libcuda.so", "libnvidia-ml")
with open("/proc/self/maps") as maps:
    out["mapped"] = sorted({line.split(None, 5)[-1].strip() for line in maps if any(k in line for k in keys)})
print(json.dumps(out))
"""


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class Run:
    """The steps of one run: each bounded, recorded, and never fatal to the next."""

    def __init__(self, results: Path, budget_s: float) -> None:
        self.results = results
        self.deadline = time.monotonic() + budget_s
        self.steps: list[dict[str, Any]] = []
        self.log = open(results / "log.txt", "a", encoding="utf-8")  # noqa: SIM115 - closed by main() at the end

    def say(self, text: str) -> None:
        line = f"[{_now()}] {text}"
        print(line, flush=True)
        self.log.write(line + "\n")
        self.log.flush()

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def record(self, name: str, status: str, why: str = "", **extra: Any) -> dict[str, Any]:
        step = {"name": name, "status": status, "why": why, **extra}
        self.steps.append(step)
        self.say(f"{name}: {status}{' - ' + why if why else ''}")
        return step

    def skip(self, name: str, why: str) -> dict[str, Any]:
        return self.record(name, "skipped", why)

    def cmd(
        self,
        name: str,
        argv: list[str],
        timeout_s: float,
        env: dict[str, str],
        out: str | None = None,
        ok: tuple[int, ...] = (0,),
        cwd: Path | None = None,
        user: int | None = None,
    ) -> dict[str, Any]:
        """Run argv (no shell) with stdout into results/OUT and stderr into results/NAME.err; bounded by the budget."""
        limit = min(timeout_s, self.left() - 20)  # 20 s kept for the summary and the archive
        if limit < 3:
            return self.skip(name, f"no time left in the budget (wanted {timeout_s:.0f} s)")
        out_path = self.results / (out or f"{name}.out")
        err_path = self.results / f"{name}.err"
        began = time.monotonic()
        self.say(f"{name}: {' '.join(argv)} (limit {limit:.0f} s)")
        with open(out_path, "wb") as stdout, open(err_path, "wb") as stderr:
            try:
                as_user = {} if user is None else {"user": user, "group": user, "extra_groups": []}
                proc = subprocess.Popen(
                    argv,
                    stdout=stdout,
                    stderr=stderr,
                    stdin=subprocess.DEVNULL,
                    env=env,
                    cwd=cwd,
                    start_new_session=True,
                    **as_user,
                )
            except OSError as exc:
                proc = None
                failed = f"could not start: {exc}"
            if proc is not None:
                try:
                    rc = proc.wait(timeout=limit)
                except subprocess.TimeoutExpired:
                    _kill_group(proc)
                    failed = f"still running after {limit:.0f} s"
                    rc = None
        if proc is None or rc is None:
            self._drop_empty(err_path, out_path)
            status = "failed" if proc is None else "timeout"
            return self.record(name, status, failed, argv=argv, seconds=round(time.monotonic() - began, 1))
        seconds = round(time.monotonic() - began, 2)
        self._drop_empty(err_path, out_path if out is None else None)
        why = "" if rc in ok else f"exit status {rc}: {_tail(err_path) if err_path.exists() else _tail(out_path)}"
        kept = out_path.name if out_path.exists() else None
        return self.record(name, "ok" if rc in ok else "failed", why, argv=argv, rc=rc, seconds=seconds, output=kept)

    @staticmethod
    def _drop_empty(*paths: Path | None) -> None:
        for path in paths:
            if path is not None and path.exists() and path.stat().st_size == 0:
                path.unlink()  # an empty stream is no evidence: the summary says the step ran


def _kill_group(proc: subprocess.Popen[Any]) -> None:
    """End the process we started and its children (its own session: start_new_session), then reap it."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=10)


def _tail(path: Path, n: int = 400) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return "(no output)"
    return text[-n:].replace("\n", " | ") if text else "(no output)"


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


# --- the machine ---------------------------------------------------------------------------------------------
def find_gpu() -> tuple[bool, str]:
    """Whether an NVIDIA GPU answers here, and what said so (nvidia-smi -L's first line, or why not)."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return False, "no nvidia-smi on PATH"
    try:
        done = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return False, "nvidia-smi -L did not answer within 30 s"
    lines = [line for line in done.stdout.splitlines() if line.startswith("GPU ")]
    if done.returncode != 0 or not lines:
        return False, f"nvidia-smi -L listed no GPU (exit {done.returncode}): {(done.stdout + done.stderr).strip()[:200]}"
    return True, re.sub(r"\s*\(UUID: [^)]*\)", "", lines[0])  # the name, without the GPU's unique id


def runtime_guess() -> dict[str, Any]:
    """The sandbox the machine runs in, read from the kernel and DMI: gVisor and Firecracker differ in /proc and /sys."""
    release = platform.release()
    facts: dict[str, Any] = {"kernel": release, "machine": platform.machine()}
    for name in ("sys_vendor", "product_name"):
        with contextlib.suppress(OSError):
            facts[name] = Path(f"/sys/class/dmi/id/{name}").read_text(encoding="utf-8", errors="replace").strip()
    with contextlib.suppress(OSError):
        facts["proc_version"] = Path("/proc/version").read_text(encoding="utf-8", errors="replace").strip()
    if release.startswith("4.4.0"):
        facts["runtime"] = "gvisor"
        facts["runtime_why"] = "kernel release 4.4.0, which gVisor reports"
    elif "-fc-" in release or "firecracker" in " ".join(str(v) for v in facts.values()).lower():
        facts["runtime"] = "firecracker"
        facts["runtime_why"] = (
            f"kernel release {release} names a Firecracker build" if "-fc-" in release else "DMI names Firecracker"
        )
    else:
        facts["runtime"] = "unknown"
        facts["runtime_why"] = "neither gVisor's 4.4.0 kernel nor a Firecracker kernel name"
    return facts


def versions(python: str, env: dict[str, str]) -> dict[str, Any]:
    """The image's packages gpudoctor and this run use, and whether each fits pyproject.toml's range."""
    code = (
        "import json,sys\nfrom importlib import metadata\nout={}\n"
        "for n in sys.argv[1:]:\n"
        "    try: out[n]=metadata.version(n)\n"
        "    except metadata.PackageNotFoundError: out[n]=None\n"
        "print(json.dumps(out))\n"
    )
    names = [
        "typer",
        "rich",
        "packaging",
        "nvidia-ml-py",
        "torch",
        "jax",
        "jaxlib",
        "cupy-cuda13x",
        "cupy-cuda12x",
        "pytest",
        "setuptools",
    ]
    try:
        done = subprocess.run([python, "-c", code, *names], capture_output=True, text=True, timeout=60, env=env)
        found = json.loads(done.stdout)
    except (subprocess.TimeoutExpired, ValueError, OSError) as exc:
        return {"error": str(exc)}
    fits = {}
    try:
        import tomllib
        from packaging.requirements import Requirement

        deps = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
        for dep in deps:
            req = Requirement(dep)
            have = found.get(req.name)
            fits[req.name] = {
                "range": str(req.specifier),
                "have": have,
                "fits": have is not None and req.specifier.contains(have),
            }
    except (ImportError, KeyError, ValueError) as exc:
        fits["error"] = {"range": "", "have": None, "fits": False, "why": str(exc)}
    return {"installed": found, "requirements": fits}


# --- installing gpudoctor --------------------------------------------------------------------------------------
def build_requirements_unmet(python: str, env: dict[str, str]) -> str:
    """pyproject.toml's build-system requirements that `python` lacks (--no-build-isolation builds with its own)."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: pip is tried, and says itself what it lacks
        return ""
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["build-system"]["requires"]
    code = (
        "import sys\nfrom importlib import metadata\nfrom packaging.requirements import Requirement\n"
        "for spec in sys.argv[1:]:\n"
        "    r = Requirement(spec)\n"
        "    try: v = metadata.version(r.name)\n"
        "    except metadata.PackageNotFoundError: v = None\n"
        "    if v is None or not r.specifier.contains(v): print(f'{spec} (has {v})')\n"
    )
    try:
        done = subprocess.run([python, "-c", code, *requires], capture_output=True, text=True, timeout=60, env=env)
    except (subprocess.TimeoutExpired, OSError) as exc:
        return f"could not ask {python}: {exc}"
    if done.returncode != 0:
        return f"could not ask {python}: {done.stderr.strip()[-200:]}"
    return "; ".join(done.stdout.split("\n")).strip("; ")


def install(run: Run, python: str, site: Path, env: dict[str, str]) -> dict[str, str]:
    """gpudoctor from this working tree into `site`, offline; the environment that runs it from there."""
    wheels = sorted((ROOT / ".whl").glob("*.whl")) if (ROOT / ".whl").is_dir() else []
    if wheels:  # carried wheels (docs/gpu-truth.md): a dependency whose version in the image does not fit
        run.cmd(
            "install-wheels",
            [
                python,
                "-m",
                "pip",
                "install",
                "-q",
                "--no-index",
                "--no-deps",
                "--no-compile",
                "--target",
                str(site),
                *map(str, wheels),
            ],
            120,
            env,
        )
    unmet = build_requirements_unmet(python, env)
    if unmet:
        step = run.skip("install", f"pip cannot build here without the network: {unmet}")
    else:
        step = run.cmd(
            "install",
            [
                python,
                "-m",
                "pip",
                "install",
                "-q",
                "--no-index",
                "--no-build-isolation",
                "--no-deps",
                "--no-compile",
                "--upgrade",
                "--target",
                str(site),
                str(ROOT),
            ],
            180,
            env,
        )
    if step["status"] != "ok":
        # The same layout pyproject.toml's package-dir gives, copied: the run goes on without a build backend.
        shutil.rmtree(site / "gpudoctor", ignore_errors=True)
        shutil.copytree(ROOT / "src" / "gpudoctor", site / "gpudoctor")
        shutil.copytree(ROOT / "compat_matrix", site / "gpudoctor" / "compat_matrix")
        shutil.copytree(ROOT / "docs", site / "gpudoctor" / "_docs")
        run.record(
            "install-copy", "ok", "pip could not install from the tree; src/gpudoctor, compat_matrix and docs copied instead"
        )
    new = dict(env)
    new["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site), env.get("PYTHONPATH")]))
    return new


# --- the simulated machine ----------------------------------------------------------------------------------------
def simulated(slug: str, where: Path) -> tuple[Any, str]:
    """tests/sim's machine for tests/machines/SLUG, or None and why it cannot be built here."""
    sys.path.insert(0, str(ROOT))
    try:
        from tests.sim.build import Unavailable, build_libraries
        from tests.sim.machine import build_machine
    except ImportError as exc:
        return None, f"tests/sim cannot be imported: {exc}"
    try:
        libraries = build_libraries()
    except Unavailable as exc:
        return None, str(exc)
    snapshot = json.loads((ROOT / "tests" / "machines" / slug / "snapshot.json").read_text(encoding="utf-8"))
    return build_machine(snapshot, where, libraries, link_files=True), ""


# --- the steps --------------------------------------------------------------------------------------------------
def nvidia_smi(run: Run, env: dict[str, str], suffix: str = "") -> None:
    """`--query-gpu` with every field gpudoctor reads; where one field is unknown to this nvidia-smi, field by field."""
    name = f"nvidia-smi-query{suffix}"
    step = run.cmd(name, ["nvidia-smi", f"--query-gpu={','.join(QUERY_FIELDS)}", "--format=csv"], 30, env, out=f"{name}.csv")
    if step["status"] != "failed" or "rc" not in step:
        return  # answered, timed out, or could not start at all: asking field by field would not help
    columns: list[tuple[str, list[str]]] = []
    refused = []
    for field in QUERY_FIELDS:
        try:
            done = subprocess.run(
                ["nvidia-smi", f"--query-gpu={field}", "--format=csv"], capture_output=True, text=True, timeout=15, env=env
            )
        except (subprocess.TimeoutExpired, OSError):
            refused.append(field)
            continue
        lines = done.stdout.strip().splitlines()
        if done.returncode == 0 and lines:
            columns.append((lines[0], lines[1:]))
        else:
            refused.append(field)
    if columns:
        rows = [", ".join(col[0] for col in columns)]
        for i in range(max(len(col[1]) for col in columns)):
            rows.append(", ".join(col[1][i] if i < len(col[1]) else "" for col in columns))
        (run.results / f"{name}.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    run.record(
        f"{name}-by-field", "ok" if columns else "failed", f"fields this nvidia-smi refused: {', '.join(refused) or 'none'}"
    )


def checks(run: Run, gd: list[str], env: dict[str, str], root: list[str]) -> None:
    run.cmd("check-v", [*gd, "check", "-v", *root], 90, env, out="check-v.txt", ok=(0, 1))
    run.cmd("check-json", [*gd, "check", "--format", "json", *root], 90, env, out="check.json", ok=(0, 1))
    run.cmd("snapshot", [*gd, "snapshot", "--output", str(run.results / "snapshot.json"), *root], 90, env)
    run.cmd("check-deep", [*gd, "check", "--deep", "--format", "json", *root], 180, env, out="check-deep.json", ok=(0, 1))
    require = [arg for spec in REQUIRE for arg in ("--require", spec)]
    run.cmd("check-require", [*gd, "check", *require, "--format", "json", *root], 120, env, out="check-require.json", ok=(0, 1))


def findings_of(path: Path) -> list[dict[str, Any]]:
    doc = _json(path)
    if not isinstance(doc, dict):
        return []
    return [{"code": f.get("code"), "severity": f.get("severity"), "title": f.get("title")} for f in doc.get("findings", [])]


def start_holders(run: Run, python: str, env: dict[str, str]) -> dict[str, Any]:
    """Start the PyTorch and CuPy holders at once; wait (up to 120 s) until each says what it holds."""
    started: dict[str, Any] = {}
    for framework, (nbytes, code) in HOLDERS.items():
        err = open(run.results / f"holder-{framework}.err", "wb")  # noqa: SIM115 - closed in stop_holders()
        proc = subprocess.Popen(
            [python, "-c", code + _HOLD, str(nbytes)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=err,
            env=env,
            text=True,
        )
        started[framework] = {"proc": proc, "err": err, "requested_bytes": nbytes, "pid": proc.pid}
    for framework, holder in started.items():
        proc = holder["proc"]
        holder["ready"] = _ready_line(proc, min(120.0, max(run.left() - 60, 5)))
        if holder["ready"] is not None:
            run.record(f"holder-{framework}", "ok", f"pid {proc.pid} holds {holder['requested_bytes'] // MIB} MiB", pid=proc.pid)
        else:
            why = f"never said it was ready: {_tail(run.results / f'holder-{framework}.err')}"
            run.record(f"holder-{framework}", "failed", why)
    return started


def _ready_line(proc: subprocess.Popen[str], timeout_s: float) -> dict[str, Any] | None:
    """The holder's JSON line saying what it holds (other lines a library printed are passed over), or None.

    A thread reads the lines (a select on the pipe would miss lines already in the reader's buffer)."""
    import queue
    import threading

    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)

    threading.Thread(target=read, daemon=True).start()
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        try:
            line = lines.get(timeout=0.5)
        except queue.Empty:
            if proc.poll() is not None:
                return None
            continue
        with contextlib.suppress(ValueError):
            found = json.loads(line)
            if isinstance(found, dict) and "pid" in found:
                return found
    return None


def stop_holders(started: dict[str, Any]) -> None:
    for holder in started.values():
        proc = holder["proc"]
        with contextlib.suppress(OSError, ValueError):
            proc.stdin.close()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()  # the one we started, by its own handle
            proc.wait(timeout=10)
        holder["err"].close()


def judge_holders(memory_doc: Any, started: dict[str, Any]) -> list[dict[str, Any]]:
    """Did `memory --format json` name each holder: its pid, its framework, and at least the bytes it allocated?"""
    procs = {}
    for gpu in (memory_doc or {}).get("gpus", []) if isinstance(memory_doc, dict) else []:
        for proc in gpu.get("processes", []):
            procs[proc.get("pid")] = proc
    out = []
    for framework, holder in started.items():
        seen = procs.get(holder["pid"])
        entry = {
            "framework": framework,
            "pid": holder["pid"],
            "requested_bytes": holder["requested_bytes"],
            "ready": holder.get("ready"),
            "named": seen is not None,
            "memory_framework": seen.get("framework") if seen else None,
            "memory_used_bytes": seen.get("used_bytes") if seen else None,
        }
        entry["framework_right"] = framework in str(entry["memory_framework"] or "").lower()
        used = entry["memory_used_bytes"]
        # NVML counts the process's CUDA context too (a few hundred MiB): at least what it allocated, at most 2 GiB more.
        entry["size_right"] = isinstance(used, int) and holder["requested_bytes"] <= used <= holder["requested_bytes"] + 2 * GIB
        out.append(entry)
    return out


def bandwidth(run: Run, gd: list[str], env: dict[str, str], gpu: bool, root: list[str]) -> dict[str, Any]:
    """The reference and gpudoctor, interleaved; on the simulated machine gpudoctor alone, on small sizes."""
    binary = None
    if shutil.which(env.get("NVCC", "nvcc"), path=env.get("PATH")):
        step = run.cmd(
            "reference-build", ["bash", str(ROOT / "bench" / "reference" / "build.sh")], 180, env, out="reference-build.txt"
        )
        if step["status"] == "ok":
            binary = (run.results / "reference-build.txt").read_text(encoding="utf-8").strip().splitlines()[-1]
    else:
        run.skip("reference-build", "nvcc not found: the CUDA C reference cannot be built")
    if not gpu:
        run.skip("reference", "no GPU: the CUDA C reference needs one")
        run.cmd(
            "bench-1",
            [
                *gd,
                "bench",
                "bandwidth",
                "--gpu",
                "0",
                "--sizes",
                "4M,32M",
                "--repeats",
                "2",
                "--warmup",
                "0",
                "--format",
                "json",
                "--no-progress",
                *root,
            ],
            120,
            env,
            out="bandwidth-1.json",
            ok=(0, 1),
        )
        return {"compared": False, "why": "no GPU: gpudoctor measured the fake libcuda, which copies with memcpy"}
    for r in (1, 2):
        if binary:
            run.cmd(f"reference-{r}", [binary, "--tests", "all"], 150, env, out=f"reference-{r}.jsonl")
        run.cmd(
            f"bench-{r}",
            [*gd, "bench", "bandwidth", "--format", "json", "--no-progress"],
            180,
            env,
            out=f"bandwidth-{r}.json",
            ok=(0, 1),
        )
    return compare_bandwidth(run.results)


def compare_bandwidth(results: Path) -> dict[str, Any]:
    """Medians of both rounds, per test and size from 32 MiB, gpudoctor's over the reference's; pinned within 3%?"""
    ours: dict[tuple[str, int], list[float]] = {}
    ref: dict[tuple[str, int], list[float]] = {}
    for r in (1, 2):
        doc = _json(results / f"bandwidth-{r}.json")
        for gpu in (doc or {}).get("gpus", [])[:1] if isinstance(doc, dict) else []:
            for m in gpu.get("results", []):
                ours.setdefault((m["test"], m["size_bytes"]), []).extend(m["samples_gb_per_s"])
        with contextlib.suppress(OSError):
            for line in (results / f"reference-{r}.jsonl").read_text(encoding="utf-8").splitlines():
                with contextlib.suppress(ValueError, KeyError):
                    row = json.loads(line)
                    ref.setdefault((row["test"], row["size_bytes"]), []).extend(row["samples_gb_per_s"])
    rows = []
    for (test, size), samples in sorted(
        ours.items(), key=lambda kv: (BENCH_TESTS.index(kv[0][0]) if kv[0][0] in BENCH_TESTS else 9, kv[0][1])
    ):
        if test not in BENCH_TESTS or size < LINK_BOUND or (test, size) not in ref:
            continue
        a, b = statistics.median(samples), statistics.median(ref[(test, size)])
        ratio = a / b if b else float("nan")
        rows.append(
            {
                "test": test,
                "size_mib": size // MIB,
                "gpudoctor_gb_per_s": round(a, 2),
                "reference_gb_per_s": round(b, 2),
                "difference": round(ratio - 1, 4),
                "within_3pct": abs(ratio - 1) <= TOLERANCE,
            }
        )
    pinned = [r for r in rows if not str(r["test"]).endswith("pageable")]
    return {
        "compared": bool(rows),
        "why": "" if rows else "no pair of medians at 32 MiB and above (see the bench and reference steps)",
        "rows": rows,
        "pinned_within_3pct": bool(pinned) and all(r["within_3pct"] for r in pinned),
    }


def bandwidth_markdown(result: dict[str, Any], machine: str) -> str:
    lines = [
        f"gpudoctor `bench bandwidth` against bench/reference/ (CUDA C, the same sizes and repetitions), {machine}.",
        "Medians of two interleaved rounds (reference, gpudoctor, reference, gpudoctor), 10 samples each, GB/s.",
        "",
        "| test | size | gpudoctor | reference | difference | within 3% |",
        "| --- | ---: | ---: | ---: | ---: | --- |",
    ]
    for r in result.get("rows", []):
        lines.append(
            f"| {r['test']} | {r['size_mib']} MiB | {r['gpudoctor_gb_per_s']:.2f} | {r['reference_gb_per_s']:.2f} | "
            f"{r['difference']:+.1%} | {'yes' if r['within_3pct'] else 'no'} |"
        )
    if not result.get("rows"):
        lines.append(f"| (none) | | | | | {result.get('why', '')} |")
    return "\n".join(lines) + "\n"


def pytest_gpu(run: Run, python: str, env: dict[str, str], gpu: bool) -> None:
    if not gpu:
        run.skip("pytest-gpu", "no GPU: every test marked gpu would skip")
        return
    env = {**env, "GPUDOCTOR_BANDWIDTH_RECORD": str(run.results / "pytest-bandwidth")}
    env["PYTHONPATH"] = os.pathsep.join([env.get("PYTHONPATH", ""), str(ROOT)])
    run.cmd(
        "pytest-gpu",
        [
            python,
            "-m",
            "pytest",
            "-m",
            "gpu",
            "-q",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(ROOT),
            str(ROOT / "tests" / "gpu"),
        ],
        240,
        env,
        out="pytest-gpu.txt",
        cwd=ROOT,
    )


def nvml_steps(run: Run, python: str, env: dict[str, str], name: str, gpu: bool) -> None:
    """The recorder and nvidia-smi's view read one after the other (the parity pair). The recording as read (UUIDs
    kept, to match nvidia-smi's) stays in the archive; NAME.json is redacted, as a snapshot is, for committing."""
    recorder = [python, str(ROOT / "tools" / "nvml_record.py"), "--no-redact"]
    recorder += ["--output", str(run.results / f"{name}-raw.json"), "--redacted", str(run.results / f"{name}.json")]
    run.cmd(name, recorder, 60, env)
    if gpu:
        nvidia_smi(run, env, suffix=name.removeprefix("nvml-record"))


def compare_nvml(run: Run, python: str, env: dict[str, str], recording: str, smi_csv: str | None) -> Any:
    if not (run.results / recording).is_file():
        run.skip("nvml-compare", f"no {recording}")
        return None
    argv = [python, str(ROOT / "tools" / "nvml_compare.py"), str(run.results / recording), "--format", "json"]
    if smi_csv and (run.results / smi_csv).is_file() and (run.results / smi_csv).stat().st_size:
        argv += ["--smi-csv", str(run.results / smi_csv)]
    if not env.get("GPUDOCTOR_NVML_INCLUDE"):
        # nvml.h, which the fake is compiled against: where a device machine lacks it, the carried .venv's copy.
        carried = sorted(ROOT.glob(".venv/lib/python3*/site-packages/nvidia/nvml_dev/include/nvml.h"))
        if carried:
            env = {**env, "GPUDOCTOR_NVML_INCLUDE": str(carried[-1].parent)}
    step = run.cmd("nvml-compare", argv, 180, env, out="nvml-compare.json", ok=(0, 1))
    report = _json(run.results / "nvml-compare.json")
    if step["status"] == "ok" and not isinstance(report, dict):
        step["status"], step["why"] = "failed", f"no report: {_tail(run.results / 'nvml-compare.err')}"
    if step.get("rc") == 2:
        step["why"] = (
            "could not compare here (no C compiler or no nvml.h: compare the recording where `make .venv/.installed` ran)"
        )
    return report


# --- induced faults -------------------------------------------------------------------------------------------
def _placeholders(env: dict[str, str], results: Path) -> dict[str, str]:
    """The values INDUCED's environments name: this GPU's UUID prefix, PATH without nvidia-smi, the system libdir."""
    listing = (
        (results / "nvidia-smi-L.txt").read_text(encoding="utf-8", errors="replace")
        if (results / "nvidia-smi-L.txt").is_file()
        else ""
    )
    uuid = re.search(r"UUID: (GPU-[0-9a-f]{4})", listing)
    smi = shutil.which("nvidia-smi", path=env.get("PATH"))
    path = os.pathsep.join(d for d in env.get("PATH", "").split(os.pathsep) if not smi or Path(d) != Path(smi).parent)
    return {
        "uuid_prefix": uuid.group(1) if uuid else "GPU-",
        "path_without_smi": path,
        "system_libdir": "/usr/lib/x86_64-linux-gnu",
        "ld_library_path": env.get("LD_LIBRARY_PATH", ""),
    }


@contextlib.contextmanager
def _device_node(fault: dict[str, Any]) -> Any:
    """A device node's mode changed, or the node renamed away, for the fault's duration; restored whatever happens."""
    changed: list[tuple[str, Any]] = []
    try:
        if "mode" in fault:
            node, mode = fault["mode"]
            changed.append(("mode", (node, os.stat(node).st_mode & 0o7777)))
            os.chmod(node, mode)
        if "hide" in fault:
            os.rename(fault["hide"], fault["hide"] + ".gpu-truth-hidden")
            changed.append(("hide", fault["hide"]))
        yield
    finally:
        for kind, what in reversed(changed):
            if kind == "mode":
                os.chmod(what[0], what[1])
            else:
                os.rename(what + ".gpu-truth-hidden", what)


def induced(run: Run, gd: list[str], python: str, env: dict[str, str], gpu: bool, scratch: Path) -> list[dict[str, Any]]:
    """Each INDUCED fault: check --deep, snapshot and the framework's own answer under it; judged against `expect`."""
    values = _placeholders(env, run.results)
    if any(f.get("user") is not None for f in INDUCED):
        # The unprivileged user reads gpudoctor's scratch install (mkdtemp made it 0700) and needs a home of its own.
        for folder in (scratch, scratch / "site"):
            with contextlib.suppress(OSError):
                os.chmod(folder, 0o755)
        home = scratch / "home-nobody"
        home.mkdir(exist_ok=True)
        with contextlib.suppress(OSError):
            os.chown(home, NOBODY, NOBODY)
    out = []
    for fault in INDUCED:
        name = f"induced-{fault['name']}"
        if run.left() < 60:
            run.skip(name, "no time left in the budget")
            continue
        fenv = {**env, **{k: v.format(**values) for k, v in fault.get("env", {}).items()}}
        user, cwd = fault.get("user"), None
        if user is not None:
            fenv["HOME"] = str(scratch / "home-nobody")
            cwd = scratch / "home-nobody"  # the checkout may be closed to that user
        try:
            with _device_node(fault):
                checked = run.cmd(
                    f"{name}-check",
                    [*gd, "check", "--deep", "--format", "json"],
                    120,
                    fenv,
                    out=f"{name}-check.json",
                    ok=(0, 1),
                    user=user,
                    cwd=cwd,
                )
                run.cmd(
                    f"{name}-snapshot",
                    [*gd, "snapshot", "--output", "-"],
                    90,
                    fenv,
                    out=f"{name}-snapshot.json",
                    user=user,
                    cwd=cwd,
                )
                run.cmd(f"{name}-truth", [python, "-c", TRUTH_PROBE], 90, fenv, out=f"{name}-truth.json", user=user, cwd=cwd)
        except OSError as exc:
            run.record(name, "failed", f"could not set up or undo the fault: {exc}")
            continue
        if checked["status"] != "ok":
            out.append(
                {
                    "name": fault["name"],
                    "expect": fault.get("expect"),
                    "got": None,
                    "as_expected": False,
                    "why": f"check did not run: {checked['why']}",
                    "truth": _json(run.results / f"{name}-truth.json"),
                }
            )
            continue
        found = [f for f in findings_of(run.results / f"{name}-check.json") if f["severity"] in ("warning", "error")]
        truth = _json(run.results / f"{name}-truth.json")
        got = sorted({str(f["code"]) for f in found})
        expect = fault.get("expect")
        out.append(
            {
                "name": fault["name"],
                "env": {k: fenv[k] for k in fault.get("env", {})},
                "user": user,
                "expect": expect,
                "expected_before_first_run": fault.get("expected_before_first_run", expect),
                "got": got,
                "as_expected": None if expect is None else got == sorted(expect),
                "why": fault["why"],
                "truth": truth,
            }
        )
    return out


# --- the summary ------------------------------------------------------------------------------------------------
def summary_markdown(summary: dict[str, Any]) -> str:
    lines = ["# gpu-truth", ""]
    if summary["gpu"]:
        lines.append(f"GPU: {summary['gpu_evidence']}")
    else:
        lines += [
            f"**NO GPU: {summary['gpu_evidence']}.** The steps that need none ran against the simulated machine "
            f"tests/machines/{summary['simulated_machine']} (fake libnvidia-ml and libcuda): nothing below measures hardware.",
        ]
    m = summary["machine"]
    lines += [
        "",
        f"Machine: {summary['described']}.",
        "",
        f"Runtime: {m.get('runtime')} ({m.get('runtime_why')}); kernel {m.get('kernel')}; started {summary['started']}, "
        f"{summary['seconds']:.0f} s of a {summary['budget_s']:.0f} s budget.",
        "",
        "| step | status | exit | seconds | why |",
        "| --- | --- | ---: | ---: | --- |",
    ]
    for s in summary["steps"]:
        why = str(s.get("why", "")).replace("|", "\\|")
        lines.append(f"| {s['name']} | {s['status']} | {s.get('rc', '')} | {s.get('seconds', '')} | {why} |")
    failed = [s for s in summary["steps"] if s["status"] in ("failed", "timeout")]
    lines += ["", f"Failed: {', '.join(s['name'] for s in failed) if failed else 'none'}."]
    for name, found in summary["findings"].items():
        shown = ", ".join(f"{f['code']} ({f['severity']})" for f in found) or "none"
        lines.append(f"- findings of {name}: {shown}")
    for h in summary.get("holders", []):
        lines.append(
            f"- holder {h['framework']} pid {h['pid']}: named {h['named']}, framework {h['memory_framework']!r} "
            f"({'right' if h['framework_right'] else 'WRONG'}), used {h['memory_used_bytes']} bytes for {h['requested_bytes']} "
            f"allocated ({'right' if h['size_right'] else 'WRONG'})"
        )
    bw = summary["bandwidth"]
    lines.append(
        f"- bandwidth against the reference: {'pinned within 3%: ' + str(bw.get('pinned_within_3pct')) if bw.get('compared') else bw.get('why')}"
    )
    for f in summary.get("induced", []):
        truth = f.get("truth") or {}
        said = {k: truth.get(k) for k in ("device_count", "is_available", "cudnn", "error") if truth.get(k) is not None}
        verdict = {True: "as expected", False: "NOT as expected", None: "judged by hand"}[f["as_expected"]]
        lines.append(f"- induced {f['name']}: expected {f['expect']}, got {f['got']} ({verdict}); torch said {said}")
    nc = summary.get("nvml_compare")
    if isinstance(nc, dict):
        lines.append(
            f"- NVML against the fake: {len(nc.get('differences', []))} differences, {nc.get('unexplained')} unexplained; nvidia-smi differs on {nc.get('smi_differs', 'n/a')} stable fields"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", help="the folder for the results (default: $OUT, else build/gpu-truth/<UTC time>)")
    parser.add_argument(
        "--mode",
        choices=("auto", "gpu", "sim"),
        default="auto",
        help="auto: gpu where nvidia-smi lists one; gpu: the GPU steps regardless",
    )
    parser.add_argument(
        "--sim-machine", default=SIM_MACHINE, help="the recorded machine (tests/machines/SLUG) to simulate without a GPU"
    )
    parser.add_argument("--budget", type=float, default=420.0, help="seconds for the whole run (default 420: 7 minutes)")
    parser.add_argument("--python", default=sys.executable, help="the interpreter that runs gpudoctor, the holders and pytest")
    args = parser.parse_args(argv)

    started_at, began = _now(), time.monotonic()
    to_out = bool(os.environ.get("OUT")) and not args.output
    final = Path(args.output or os.environ.get("OUT") or ROOT / "build" / "gpu-truth" / started_at.replace(":", ""))
    final.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="gpu-truth-"))
    results = scratch / "results" if to_out else final
    results.mkdir(parents=True, exist_ok=True)
    run = Run(results, args.budget)

    gpu, evidence = find_gpu()
    if args.mode == "sim":
        gpu, evidence = False, f"--mode sim ({evidence})"
    elif args.mode == "gpu" and not gpu:
        # The GPU steps where nvidia-smi lists none: for trying the script itself on a machine set up by hand.
        gpu, evidence = True, f"--mode gpu, although {evidence}"
    got: dict[str, Any] = {"holders": [], "bandwidth": {"compared": False, "why": "not run"}, "nvml_compare": None}
    machine: dict[str, Any] = {}

    def stop(signum: int, frame: Any) -> None:
        raise SystemExit(f"stopped by signal {signum}")  # the summary and the archive are still written

    signal.signal(signal.SIGTERM, stop)
    try:
        machine.update(runtime_guess())
        steps(run, args, gpu, evidence, scratch, machine, got)
    except BaseException as exc:  # noqa: BLE001 - whatever stops the run, what it found so far is written
        import traceback

        run.record("gpu-truth", "failed", f"the script itself stopped: {exc!r}", traceback=traceback.format_exc()[-2000:])
    finally:
        write_summary(run, args, gpu, evidence, machine, got, started_at, began)
        run.log.close()
        if to_out:
            with tarfile.open(final / "gpu-truth.tar.gz", "w:gz") as tar:
                tar.add(results, arcname="gpu-truth")
            for name in TOP_FILES:
                if (results / name).is_file():
                    shutil.copyfile(results / name, final / name)
        shutil.rmtree(scratch, ignore_errors=True)
    sys.stdout.write(
        (results / "summary.md").read_text(encoding="utf-8") if not to_out else (final / "summary.md").read_text(encoding="utf-8")
    )
    print(f"results: {final}")
    return 0


def steps(
    run: Run, args: argparse.Namespace, gpu: bool, evidence: str, scratch: Path, machine: dict[str, Any], got: dict[str, Any]
) -> None:
    """Every step in order; what the summary needs goes into `got`."""
    results = run.results
    run.say(
        f"GPU: {evidence}" if gpu else f"NO GPU ({evidence}): the simulated machine tests/machines/{args.sim_machine} stands in"
    )
    # `check` takes these as option defaults (docs/ci.md): a shell that set one would change every answer.
    env = {k: v for k, v in os.environ.items() if k not in CHECK_OPTION_VARIABLES}
    env["PYTHONUNBUFFERED"] = "1"
    machine["versions"] = versions(args.python, env)
    (results / "machine.json").write_text(json.dumps(machine, indent=1) + "\n", encoding="utf-8")
    if gpu:
        run.cmd("nvidia-smi-L", ["nvidia-smi", "-L"], 30, env, out="nvidia-smi-L.txt")
    if shutil.which("nvcc"):
        run.cmd("nvcc-version", ["nvcc", "--version"], 30, env, out="nvcc-version.txt")

    env = install(run, args.python, scratch / "site", env)
    gd = [args.python, "-m", "gpudoctor"]
    run.cmd("version", [*gd, "--version"], 30, env, out="version.txt")

    root: list[str] = []
    sim_env = env
    if not gpu:
        sim, why = simulated(args.sim_machine, scratch / "sim")
        if sim is None:
            run.record("simulated-machine", "failed", why)
            return
        sim_env = {**sim.env, "PYTHONPATH": env["PYTHONPATH"], "PYTHONUNBUFFERED": "1"}
        root = ["--root", str(sim.root)]
        run.record("simulated-machine", "ok", f"tests/machines/{args.sim_machine} under {sim.root}")
    checks(run, gd, sim_env, root)
    if gpu:
        run.cmd("nvidia-smi-q-x", ["nvidia-smi", "-q", "-x"], 60, env, out="nvidia-smi-q.xml")
        run.cmd("nvidia-smi", ["nvidia-smi"], 30, env, out="nvidia-smi.txt")
    nvml_steps(run, args.python, sim_env, "nvml-record-idle", gpu)
    started = start_holders(run, args.python, env) if gpu else {}
    if not gpu:
        run.skip("holders", "no GPU: no PyTorch or CuPy process can hold GPU memory")
    try:
        run.cmd("memory-json", [*gd, "memory", "--format", "json", *root], 60, sim_env, out="memory.json", ok=(0, 1))
        run.cmd("memory", [*gd, "memory", *root], 60, sim_env, out="memory.txt", ok=(0, 1))
        plan = [*gd, "memory", "plan", "--gpu", "0", "train=40GiB:torch", "serve=20GiB:jax"]
        run.cmd("memory-plan-json", [*plan, "--format", "json"], 60, sim_env, out="memory-plan.json", ok=(0, 1))
        run.cmd("memory-plan", plan, 60, sim_env, out="memory-plan.txt", ok=(0, 1))
        nvml_steps(run, args.python, sim_env, "nvml-record", gpu)
        if gpu:
            apps = ["nvidia-smi", "--query-compute-apps=pid,process_name,used_memory", "--format=csv"]
            run.cmd("nvidia-smi-compute-apps", apps, 30, env, out="nvidia-smi-compute-apps.csv")
    finally:
        stop_holders(started)
    got["holders"] = judge_holders(_json(results / "memory.json"), started)
    got["bandwidth"] = bw = bandwidth(run, gd, sim_env, gpu, root)
    (results / "bandwidth-compare.json").write_text(json.dumps(bw, indent=1) + "\n", encoding="utf-8")
    (results / "bandwidth-compare.md").write_text(
        bandwidth_markdown(bw, describe(results, machine, evidence, gpu)), encoding="utf-8"
    )
    pytest_gpu(run, args.python, env, gpu)
    got["nvml_compare"] = compare_nvml(run, args.python, env, "nvml-record-raw.json", "nvidia-smi-query.csv" if gpu else None)
    got["induced"] = induced(run, gd, args.python, env, gpu, scratch) if gpu else []
    if not gpu:
        run.skip("induced", "no GPU: the induced faults need a live driver and framework")


def describe(results: Path, machine: dict[str, Any], evidence: str, gpu: bool) -> str:
    """GPU, driver, runtime and date, for the figures (bench/README.md names them with every table)."""
    state = (_json(results / "nvml-record.json") or {}).get("state") or {}
    name = ((state.get("devices") or [{}])[0]).get("name") or evidence
    where = f"{machine.get('runtime', '?')} (kernel {machine.get('kernel', '?')})"
    text = f"{name}, driver {state.get('driver_version', '?')}, {where}, {_now()[:10]}"
    return text if gpu else f"SIMULATED (no GPU): the fake NVML's {text}"


def write_summary(
    run: Run,
    args: argparse.Namespace,
    gpu: bool,
    evidence: str,
    machine: dict[str, Any],
    got: dict[str, Any],
    started_at: str,
    began: float,
) -> None:
    results = run.results
    summary = {
        "schema": SCHEMA,
        "gpu": gpu,
        "gpu_evidence": evidence,
        "simulated_machine": None if gpu else args.sim_machine,
        "described": describe(results, machine, evidence, gpu),
        "machine": {k: v for k, v in machine.items() if k != "versions"},
        "versions": machine.get("versions"),
        "started": started_at,
        "seconds": round(time.monotonic() - began, 1),
        "budget_s": args.budget,
        "steps": run.steps,
        "failed": [s["name"] for s in run.steps if s["status"] in ("failed", "timeout")],
        "findings": {
            name: findings_of(results / f"{name}.json")
            for name in ("check", "check-deep", "check-require")
            if (results / f"{name}.json").is_file()
        },
        **got,
    }
    (results / "summary.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    (results / "summary.md").write_text(summary_markdown(summary), encoding="utf-8")
    run.say(f"done in {summary['seconds']:.0f} s; failed: {', '.join(summary['failed']) or 'none'}")


if __name__ == "__main__":
    raise SystemExit(main())
