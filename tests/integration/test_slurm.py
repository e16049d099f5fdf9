"""A real one-node Slurm cluster on loopback runs `gpudoctor check --format json`; `report merge` reads what comes back.

The test starts munged, slurmctld and slurmd itself (as root, in the foreground, from a throwaway
directory with a minimal slurm.conf: NodeName=localhost, select/linear, proctrack/linuxproc,
task/none, no cgroups, no accounting), submits one job step with
`srun --output=DIR/%N.json gpudoctor check --format json` (docs/cluster.md; %N is the node's short host name), merges DIR and
stops every daemon it started. It then runs the shipped health check (deploy/slurm/gpudoctor-healthcheck) as
slurmd would: the node is drained when gpudoctor fails it and resumed when it passes. Where the scheduler cannot start here (Debian's slurm-wlm and munge
not installed, not root, a daemon that will not come up), it skips and says exactly why, with the
daemon's own log. Everything is time-bound: the whole test takes a few seconds, at most about 50.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

BINARIES = ("munged", "slurmctld", "slurmd", "srun", "sinfo", "scontrol")
START_TIMEOUT_S = 20.0  # each daemon's start
BUDGET_S = 55.0  # everything: start, both jobs, merges; the test stays under a minute


def _find(name: str) -> str | None:
    """A daemon on PATH, or where Debian puts it (/usr/sbin is not on every user's PATH)."""
    return shutil.which(name) or shutil.which(name, path="/usr/sbin:/sbin:/usr/bin:/bin")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tail(path: Path, lines: int = 8) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    except OSError:
        return f"(no log at {path})"
    return " | ".join(text[-lines:]) or f"({path} is empty)"


def _gpudoctor() -> list[str]:
    script = Path(sys.executable).with_name("gpudoctor")
    return [str(script)] if script.exists() else [sys.executable, "-m", "gpudoctor"]


class Cluster:
    """munged + slurmctld + slurmd, each a foreground child process of this test, in one directory."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.procs: list[tuple[str, subprocess.Popen]] = []
        self.conf = root / "slurm.conf"
        self.socket = root / "munge" / "munge.sock"
        # No SLURM_* from outside (a CI job that itself runs under Slurm): srun would join that job.
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
        self.env["SLURM_CONF"] = str(self.conf)
        self.deadline = time.monotonic() + BUDGET_S

    def left(self, cap: float) -> float:
        """Seconds a step may take: `cap`, or less as the test's budget runs out."""
        return max(1.0, min(cap, self.deadline - time.monotonic()))

    def write_config(self) -> None:
        (self.root / "munge").mkdir(mode=0o700)
        for d in ("state", "spool", "log", "reports"):
            (self.root / d).mkdir()
        key = self.root / "munge" / "munge.key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o400)
        cpus = os.cpu_count() or 1
        self.conf.write_text(
            "\n".join(
                [
                    "ClusterName=gpudoctor-test",
                    "SlurmctldHost=localhost(127.0.0.1)",
                    f"SlurmctldPort={_free_port()}",
                    f"SlurmdPort={_free_port()}",
                    "AuthType=auth/munge",
                    f"AuthInfo=socket={self.socket}",
                    "CredType=cred/munge",
                    "SlurmUser=root",
                    "SlurmdUser=root",
                    f"StateSaveLocation={self.root / 'state'}",
                    f"SlurmdSpoolDir={self.root / 'spool'}",
                    f"SlurmctldPidFile={self.root / 'slurmctld.pid'}",
                    f"SlurmdPidFile={self.root / 'slurmd.pid'}",
                    f"SlurmctldLogFile={self.root / 'log' / 'slurmctld.log'}",
                    f"SlurmdLogFile={self.root / 'log' / 'slurmd.log'}",
                    "SchedulerType=sched/builtin",
                    "SelectType=select/linear",
                    "ProctrackType=proctrack/linuxproc",
                    "TaskPlugin=task/none",
                    "JobAcctGatherType=jobacct_gather/none",
                    "AccountingStorageType=accounting_storage/none",
                    "MpiDefault=none",
                    "ReturnToService=2",
                    "SlurmctldTimeout=30",
                    "SlurmdTimeout=30",
                    "InactiveLimit=0",
                    "KillWait=5",
                    f"NodeName=localhost NodeAddr=127.0.0.1 CPUs={cpus} State=UNKNOWN",
                    "PartitionName=debug Nodes=localhost Default=YES MaxTime=5 State=UP",
                    "",
                ]
            ),
            encoding="utf-8",
        )

    def _start(self, name: str, argv: list[str]) -> subprocess.Popen:
        out = open(self.root / "log" / f"{name}.stdout", "wb")  # noqa: SIM115 - closed with the process
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=self.env, start_new_session=True)
        self.procs.append((name, proc))
        return proc

    def _why(self, name: str, proc: subprocess.Popen) -> str:
        """One daemon's state and the end of its own log (its log file, else what it printed)."""
        exited = proc.poll() is not None
        state = f"exited with status {proc.returncode}" if exited else "still running"
        log = self.root / "log" / f"{name}.log"
        if not (log.exists() and log.stat().st_size):
            log = self.root / "log" / f"{name}.stdout"
        return f"{name} {state}; its log ends: {_tail(log, 6 if exited else 3)}"

    def start(self) -> str | None:
        """Bring the cluster up; None when it is up, else exactly why not."""
        munged = self._start(
            "munged",
            [
                _find("munged"),
                "--foreground",
                "--force",
                f"--socket={self.socket}",
                f"--key-file={self.root / 'munge' / 'munge.key'}",
                f"--log-file={self.root / 'log' / 'munged.log'}",
                f"--pid-file={self.root / 'munge' / 'munged.pid'}",
                f"--seed-file={self.root / 'munge' / 'munged.seed'}",
            ],
        )
        if not self._wait(lambda: self.socket.exists(), munged):
            return "munged did not start: " + self._why("munged", munged)
        ctld = self._start("slurmctld", [_find("slurmctld"), "-D", "-i", "-f", str(self.conf)])
        slurmd = self._start("slurmd", [_find("slurmd"), "-D", "-N", "localhost", "-f", str(self.conf)])
        if not self._wait(self._node_idle, ctld, slurmd):
            sinfo = self._sinfo()
            # The daemon that died first, then the other.
            daemons = sorted((("slurmctld", ctld), ("slurmd", slurmd)), key=lambda d: d[1].poll() is None)
            return f"the node did not become idle in time (sinfo: {sinfo!r}): " + "; ".join(self._why(n, p) for n, p in daemons)
        return None

    def _wait(self, ready, *procs: subprocess.Popen) -> bool:
        deadline = time.monotonic() + self.left(START_TIMEOUT_S)
        while time.monotonic() < deadline:
            if ready():
                return True
            if any(p.poll() is not None for p in procs):
                return False
            time.sleep(0.2)
        return False

    def _sinfo(self) -> str:
        try:
            r = subprocess.run(
                [_find("sinfo"), "-h", "-N", "-o", "%N %T"], capture_output=True, text=True, env=self.env, timeout=5
            )
        except subprocess.TimeoutExpired:
            return "sinfo timed out"
        return (r.stdout or r.stderr).strip()

    def _node_idle(self) -> bool:
        return self._sinfo().startswith("localhost idle")

    def srun(self, *argv: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [_find("srun"), "--nodes=1", "--ntasks=1", "--time=1", "--immediate=10", "--job-name=gpudoctor", *argv],
            capture_output=True,
            text=True,
            env=self.env,
            timeout=self.left(25.0),
            cwd=self.root,
        )

    def stop(self) -> None:
        # Only the processes this test started, by their own ids, newest first.
        for _name, proc in reversed(self.procs):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for _name, proc in reversed(self.procs):
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)


@pytest.fixture()
def cluster():
    if not sys.platform.startswith("linux"):
        pytest.skip(f"Slurm test needs Linux, this is {sys.platform}")
    missing = [b for b in BINARIES if _find(b) is None]
    if missing:
        pytest.skip(
            f"cannot start a Slurm cluster: {', '.join(missing)} not on PATH "
            "(install Debian's slurm-wlm and munge: apt-get install -y slurm-wlm munge; `make test` does it as root)"
        )
    if os.geteuid() != 0:
        pytest.skip(f"cannot start a Slurm cluster: slurmd must run as root to launch job steps, and this is uid {os.geteuid()}")
    # A short path: munge's socket path must fit in sockaddr_un (108 bytes).
    root = Path(tempfile.mkdtemp(prefix="gd-slurm-"))
    c = Cluster(root)
    try:
        c.write_config()
        why = c.start()
        if why is not None:
            pytest.skip(f"the Slurm scheduler could not start on this machine: {why}")
        yield c
    finally:
        c.stop()
        shutil.rmtree(root, ignore_errors=True)


def _merge(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*_gpudoctor(), "report", "merge", *args], capture_output=True, text=True, timeout=15)


def test_srun_gpudoctor_check_and_merge(cluster):
    started = time.monotonic()
    reports = cluster.root / "reports"
    # As docs/cluster.md says: one JSON report per node, named by the node's host name (%N).
    job = cluster.srun(f"--output={reports}/%N.json", *_gpudoctor(), "check", "--format", "json", "--probe-timeout", "5")
    # 0 healthy, 1 findings (this machine may have no GPU at all); anything else is a failure of the run.
    assert job.returncode in (0, 1), f"srun exited {job.returncode}: {job.stderr.strip()}"
    # srun's %N is the short host name of the node that ran the task.
    report = reports / f"{socket.gethostname().split('.')[0]}.json"
    assert sorted(reports.iterdir()) == [report]
    doc = json.loads(report.read_text(encoding="utf-8"))
    assert doc["schema"] == "gpudoctor.report/1"
    assert doc["node"] == socket.gethostname()  # a live check names its node by host name
    assert doc["host_mode"] == "live"
    env = doc["facts"]["platform"]["env"]
    assert env.get("SLURM_JOB_ID", "").isdigit(), env  # it really ran as a Slurm job
    assert doc["exit_code"] == job.returncode

    merged = _merge("--format", "json", str(reports))
    assert merged.returncode == doc["exit_code"], merged.stderr
    out = json.loads(merged.stdout)
    assert [(n["node"], n["source"], n["exit_code"]) for n in out["nodes"]] == [
        (socket.gethostname(), str(report), doc["exit_code"])
    ]
    assert out["unreadable"] == [] and out["differences"] == {}
    text = _merge(str(reports)).stdout
    assert text.startswith(f"1 node(s): 1 {doc['status']}\n")

    # Plain srun (no --output): the task's JSON comes back on srun's stdout, and merges from a file too.
    plain = cluster.srun(*_gpudoctor(), "check", "--format", "json", "--node", "from-stdout")
    assert plain.returncode in (0, 1), plain.stderr
    (reports / "stdout.json").write_text(plain.stdout, encoding="utf-8")
    both = json.loads(_merge("--format", "json", str(reports)).stdout)
    assert sorted(n["node"] for n in both["nodes"]) == sorted([socket.gethostname(), "from-stdout"])
    assert time.monotonic() - started < BUDGET_S


HEALTHCHECK = Path(__file__).resolve().parents[2] / "deploy" / "slurm" / "gpudoctor-healthcheck"
MACHINES = Path(__file__).resolve().parents[1] / "machines"


def _healthcheck(cluster: Cluster, machine: str) -> subprocess.CompletedProcess:
    """The shipped HealthCheckProgram, run as slurmd runs it (root, no arguments, SLURMD_NODENAME set),
    judging a recorded machine: gpudoctor's verdict on it decides what happens to this node."""
    env = dict(cluster.env)
    env["SLURMD_NODENAME"] = "localhost"
    env["GPUDOCTOR"] = _gpudoctor()[0] if len(_gpudoctor()) == 1 else ""
    snapshot = MACHINES / machine / "snapshot.json"
    env["GPUDOCTOR_HEALTH_ARGS"] = f"--fail-on error --replay {snapshot}"
    if not env["GPUDOCTOR"]:
        pytest.skip("the health check runs the gpudoctor command; this environment has only python -m gpudoctor")
    return subprocess.run(["/bin/sh", str(HEALTHCHECK)], capture_output=True, text=True, env=env, timeout=cluster.left(30.0))


def _node_state(cluster: Cluster) -> tuple[str, str]:
    r = subprocess.run(
        [_find("sinfo"), "-h", "-N", "-n", "localhost", "-o", "%T|%E"], capture_output=True, text=True, env=cluster.env, timeout=5
    )
    state, _, reason = r.stdout.strip().partition("|")
    return state.rstrip("*"), reason  # "*": slurmctld has not heard from slurmd lately (a loaded machine)


def test_healthcheck_drains_a_failing_node_and_resumes_it(cluster):
    """deploy/slurm/gpudoctor-healthcheck: gpudoctor fails the node (h100nvl-failing-gpu: ECC errors, an
    error-level finding) -> drained with a short reason; passes (h100x8-driver565-torch221-cu121: nothing
    at error level) -> resumed; a node an administrator drained for another reason stays drained."""
    r = _healthcheck(cluster, "h100nvl-failing-gpu")
    assert r.returncode == 0, r.stderr  # always 0: slurmd must not block the node on it
    assert "drained" in r.stderr
    state, reason = _node_state(cluster)
    assert state.startswith("drain"), (state, reason)
    assert reason == "gpudoctor: gpu-ecc-errors (+3 more)"

    r = _healthcheck(cluster, "h100x8-driver565-torch221-cu121")
    assert r.returncode == 0 and "resumed" in r.stderr, r.stderr
    assert _node_state(cluster) == ("idle", "none")

    # An administrator's drain is not gpudoctor's to undo.
    subprocess.run(
        [_find("scontrol"), "update", "NodeName=localhost", "State=DRAIN", "Reason=disk replacement"],
        check=True,
        env=cluster.env,
        timeout=10,
    )
    try:
        r = _healthcheck(cluster, "h100x8-driver565-torch221-cu121")
        assert r.returncode == 0 and "resumed" not in r.stderr
        assert _node_state(cluster) == ("drained", "disk replacement")
    finally:
        subprocess.run([_find("scontrol"), "update", "NodeName=localhost", "State=RESUME"], env=cluster.env, timeout=10)
