"""gpudoctor in a real container: deploy/docker/Dockerfile built and run by a real Docker daemon.

Nothing comes from a registry. The base image is made here from this machine's own files: the Python
interpreter running the tests (with its standard library and the shared libraries `ldd` names), a
/bin/sh, and gpudoctor's dependencies copied from this environment (setuptools >= 77 for the build comes
from the package index through pip; without it the test skips). That root filesystem is imported with
`docker import`, and the Dockerfile is built on it offline (PIP_OPTIONS="--no-index
--no-build-isolation"). Both images are tagged by a hash of their content and kept in the daemon's data
directory (GPUDOCTOR_TEST_CACHE, default /var/cache/gpudoctor-tests), so a second run reuses them.

Then, in a real container (live probes, no replay):
- started without GPUs, on a host whose PCI bus shows an NVIDIA GPU (a sysfs directory of one GPU
  bind-mounted over /sys/bus/pci/devices, as Docker shows the host's bus): `container-no-gpu`, with the
  fix on the host (`docker run --gpus all`);
- with device nodes passed in (`--device`, character devices 195:0 and 195:255 made here with mknod):
  gpudoctor sees /dev/nvidia0 and /dev/nvidiactl inside, so container-no-gpu is gone and what is left is
  the missing driver library;
- `--format prometheus` from inside the container parses.

It needs root and a Docker daemon: a running one, or `dockerd` (Debian's docker.io, which `make test`
installs as root) that the test starts itself on a private socket and stops afterwards (one test run at a
time: a lock in the cache directory). It skips with the
reason otherwise; GPUDOCTOR_CONTAINER_TEST=0 skips it on purpose. The first run builds both images (about a
minute on a loaded 2-core machine); later runs take seconds.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import time
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

from tests.fleet_formats import parse_exposition

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "deploy" / "docker" / "Dockerfile"
CONTEXT = ("pyproject.toml", "README.md", "LICENSE", "src", "compat_matrix", "docs")
CACHE = Path(os.environ.get("GPUDOCTOR_TEST_CACHE", "/var/cache/gpudoctor-tests"))
PY = f"python{sys.version_info.major}.{sys.version_info.minor}"
SITE = f"/usr/local/lib/{PY}/site-packages"


def _run(argv: list[str], env: dict[str, str], timeout: float, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=timeout, **kw)


class Docker:
    """The docker CLI pointed at a daemon: the running one, or one this test started."""

    def __init__(self) -> None:
        self.cli = shutil.which("docker") or ""
        self.env = dict(os.environ, DOCKER_BUILDKIT="0")  # the classic builder: no buildx plugin needed
        self.proc: subprocess.Popen | None = None
        self.tmp = Path(tempfile.mkdtemp(prefix="gd-docker-"))

    def __call__(self, *args: str, timeout: float = 120, **kw) -> subprocess.CompletedProcess:
        return _run([self.cli, *args], self.env, timeout, **kw)

    def up(self) -> bool:
        try:
            return self("info", "--format", "{{.ServerVersion}}", timeout=20).returncode == 0
        except subprocess.TimeoutExpired:
            return False

    def start(self) -> str | None:
        """A daemon to talk to; None when there is one, else why not."""
        if not self.cli:
            return "no docker CLI on PATH (install Debian's docker.io: apt-get install -y docker.io; `make test` does it as root)"
        if (os.environ.get("DOCKER_HOST") or Path("/var/run/docker.sock").exists()) and self.up():
            return None
        dockerd = shutil.which("dockerd") or shutil.which("dockerd", path="/usr/sbin:/usr/bin")
        if not dockerd:
            return "no Docker daemon running and no dockerd to start (install Debian's docker.io; `make test` does it as root)"
        sock = self.tmp / "docker.sock"
        (CACHE / "docker").mkdir(parents=True, exist_ok=True)
        log = open(self.tmp / "dockerd.log", "wb")  # noqa: SIM115 - closed with the daemon
        self.proc = subprocess.Popen(
            [
                dockerd,
                f"--data-root={CACHE / 'docker'}",  # kept: the images survive to the next run
                f"--exec-root={self.tmp / 'exec'}",
                f"--pidfile={self.tmp / 'dockerd.pid'}",
                f"--host=unix://{sock}",
                "--bridge=none",  # the containers need no network
                "--iptables=false",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.env["DOCKER_HOST"] = f"unix://{sock}"
        deadline = time.monotonic() + 40
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                break
            if sock.exists() and self.up():
                return None
            time.sleep(0.5)
        tail = (self.tmp / "dockerd.log").read_text(errors="replace").strip().splitlines()[-4:]
        return f"dockerd did not start: {' | '.join(tail)}"

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)  # only the daemon this test started, by its own id
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def has_image(self, tag: str) -> bool:
        return self("image", "inspect", tag, timeout=30).returncode == 0


# --------------------------------------------------------------------------- the base image


def _ldd(path: str) -> set[str]:
    """The shared libraries an ELF file loads (the loader included), as `ldd` resolves them here."""
    try:
        out = subprocess.run(["ldd", path], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.TimeoutExpired):
        return set()
    libs = set()
    for line in out.splitlines():
        parts = line.split()
        if "=>" in parts and len(parts) > parts.index("=>") + 1 and parts[parts.index("=>") + 1].startswith("/"):
            libs.add(parts[parts.index("=>") + 1])
        elif parts and parts[0].startswith("/"):
            libs.add(parts[0])
    return libs


def _setuptools_wheel() -> Path | None:
    """A setuptools >= 77 wheel (what pyproject.toml's build needs), from the package index through pip."""
    wheels = CACHE / "wheels"
    found = sorted(wheels.glob("setuptools-*.whl"))
    if not found:
        wheels.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--quiet",
                "--no-deps",
                "--only-binary",
                ":all:",
                "-d",
                str(wheels),
                "setuptools>=77",
            ],
            capture_output=True,
            timeout=120,
        )
        found = sorted(wheels.glob("setuptools-*.whl"))
    return found[-1] if found else None


def _dependencies() -> list[metadata.Distribution]:
    """gpudoctor's runtime dependencies (and pip), as installed in this environment."""
    from packaging.requirements import Requirement

    out: list[metadata.Distribution] = []
    seen: set[str] = set()
    todo = ["pip", *(metadata.requires("gpudoctor-cli") or [])]
    while todo:
        req = Requirement(todo.pop())
        if req.marker and not req.marker.evaluate({"extra": ""}):
            continue
        name = req.name.lower().replace("_", "-")
        if name in seen:
            continue
        seen.add(name)
        dist = metadata.distribution(req.name)
        out.append(dist)
        todo += dist.requires or []
    return out


def build_rootfs(root: Path, setuptools: Path) -> None:
    """This interpreter at /usr/local (its standard library, extension modules and the libraries they
    load), /bin/sh and /bin/rm for the Dockerfile's RUN, and the dependencies in site-packages."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    exe = Path(os.path.realpath(sys.executable))
    elves = {str(exe)}
    dest_lib = root / "usr" / "local" / "lib" / PY
    skip = {"test", "site-packages", "dist-packages", "__pycache__", "idlelib", "tkinter", "turtledemo", "ensurepip"}
    for path in stdlib.rglob("*"):
        rel = path.relative_to(stdlib)
        if any(part in skip for part in rel.parts) or not path.is_file():
            continue
        target = dest_lib / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
        if path.suffix == ".so":
            elves.add(str(path))
    bin_dir = root / "usr" / "local" / "bin"
    bin_dir.mkdir(parents=True)
    shutil.copy2(exe, bin_dir / PY)
    for alias in ("python3", "python"):
        (bin_dir / alias).symlink_to(PY)
    for tool, name in ((os.path.realpath("/bin/sh"), "sh"), (shutil.which("rm") or "/bin/rm", "rm")):
        (root / "bin").mkdir(exist_ok=True)
        shutil.copy2(tool, root / "bin" / name)
        elves.add(tool)
    site = root / SITE.lstrip("/")
    site.mkdir(parents=True)
    for dist in _dependencies():
        for f in dist.files or []:
            if str(f).startswith("..") or "__pycache__" in f.parts:
                continue
            src = Path(dist.locate_file(f))
            if src.is_file():
                (site / f).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, site / f)
                if src.suffix == ".so":
                    elves.add(str(src))
    with zipfile.ZipFile(setuptools) as z:
        z.extractall(site)
    libs: set[str] = set()
    for elf in elves:
        libs |= _ldd(elf)
    for lib in libs:
        target = root / lib.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(os.path.realpath(lib), target)
    tmp = root / "tmp"
    tmp.mkdir()
    tmp.chmod(0o1777)


def _tree_hash(paths: list[Path], extra: str = "") -> str:
    h = hashlib.sha256(extra.encode())
    for base in paths:
        files = [base] if base.is_file() else sorted(p for p in base.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
        for p in files:
            h.update(str(p.relative_to(base.parent)).encode() + b"\0" + p.read_bytes())
    return h.hexdigest()[:16]


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def image():
    if not sys.platform.startswith("linux"):
        pytest.skip(f"the container test needs Linux, this is {sys.platform}")
    if os.environ.get("GPUDOCTOR_CONTAINER_TEST") == "0":
        pytest.skip("GPUDOCTOR_CONTAINER_TEST=0")
    if os.geteuid() != 0:
        pytest.skip(f"the container test needs root (to run a Docker daemon and make device nodes); this is uid {os.geteuid()}")
    # One run at a time owns the cache (two dockerd on one data root would corrupt it): another test run on
    # this machine holding it is waited for, a while, then this one skips.
    import fcntl

    CACHE.mkdir(parents=True, exist_ok=True)
    lock = open(CACHE / "lock", "w")  # noqa: SIM115 - held for the whole module, closed below
    deadline = time.monotonic() + 180
    while True:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if time.monotonic() > deadline:
                lock.close()
                pytest.skip(f"another test run holds the Docker cache {CACHE} (its lock) for over 3 minutes")
            time.sleep(2)
    docker = Docker()
    try:
        why = docker.start()
        if why is not None:
            pytest.skip(f"no Docker daemon: {why}")
        setuptools = _setuptools_wheel()
        if setuptools is None:
            pytest.skip("no setuptools >= 77 wheel for the offline build (pip download setuptools>=77 failed)")
        base_id = _tree_hash(
            [Path(sysconfig.get_paths()["stdlib"]) / "os.py", setuptools],
            extra=sys.version + repr(sorted(f"{d.metadata['Name']}=={d.version}" for d in _dependencies())),
        )
        base = f"gpudoctor-test-base:{base_id}"
        if not docker.has_image(base):
            with tempfile.TemporaryDirectory(prefix="gd-rootfs-") as tmp:
                rootfs = Path(tmp) / "rootfs"
                rootfs.mkdir()
                build_rootfs(rootfs, setuptools)
                tarball = Path(tmp) / "rootfs.tar"
                with tarfile.open(tarball, "w") as tar:
                    tar.add(rootfs, arcname=".")
                r = docker("import", str(tarball), base, timeout=300)
                assert r.returncode == 0, r.stderr
        tag = f"gpudoctor-test:{_tree_hash([ROOT / c for c in CONTEXT] + [DOCKERFILE], extra=base)}"
        if not docker.has_image(tag):
            r = docker(
                "build",
                "-f",
                str(DOCKERFILE),
                "--build-arg",
                f"BASE={base}",
                "--build-arg",
                "PIP_OPTIONS=--no-index --no-build-isolation",
                "-t",
                tag,
                str(ROOT),
                timeout=400,
            )
            assert r.returncode == 0, f"docker build failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
        yield docker, tag
    finally:
        docker.stop()
        lock.close()  # releases the lock


@pytest.fixture()
def host_with_a_gpu(tmp_path) -> Path:
    """A /sys/bus/pci/devices showing one NVIDIA GPU (an RTX 4090 at 0000:01:00.0), as a host with one shows it."""
    dev = tmp_path / "pci" / "0000:01:00.0"
    dev.mkdir(parents=True)
    for name, value in (("vendor", "0x10de"), ("device", "0x2684"), ("class", "0x030000")):
        (dev / name).write_text(value + "\n", encoding="ascii")
    return tmp_path / "pci"


def _check(docker: Docker, tag: str, *args: str, docker_args: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    return docker(
        "run", "--rm", "--network", "none", "-e", "NVIDIA_VISIBLE_DEVICES=all", *docker_args, tag, "check", *args, timeout=120
    )


def test_container_started_without_gpus(image, host_with_a_gpu):
    docker, tag = image
    r = _check(docker, tag, "--format", "json", "--node", "ctr", docker_args=("-v", f"{host_with_a_gpu}:/sys/bus/pci/devices:ro"))
    assert r.returncode == 1, r.stderr
    doc = json.loads(r.stdout)
    assert doc["host_mode"] == "live" and doc["node"] == "ctr"
    assert doc["facts"]["platform"]["container"] == "docker"
    codes = [f["code"] for f in doc["findings"]]
    assert "container-no-gpu" in codes, codes
    finding = doc["findings"][codes.index("container-no-gpu")]
    fix = finding["remediation"]
    assert fix["where"] == "the host"
    # The restart with --gpus: a command where the image is known; from inside a container it is not, so the command is
    # said in the summary and the listing that decides the image (`docker images`) is printed (planner.deciders)
    assert any("--gpus" in line for line in [*fix["commands"], fix["summary"]]), fix
    assert "<" not in " ".join(fix["commands"]), fix
    evidence = {e["source"]: e["value"] for e in finding["evidence"]}
    assert evidence.get("dir:/sys/bus/pci/devices") == "1 NVIDIA GPU(s) on the host's PCI bus", evidence
    # The default command (`check`, text) says the same to a person.
    text = docker("run", "--rm", "--network", "none", "-v", f"{host_with_a_gpu}:/sys/bus/pci/devices:ro", tag, timeout=120)
    assert text.returncode == 1 and "container-no-gpu" in text.stdout, text.stdout + text.stderr


def test_container_with_device_nodes_passed_in(image, host_with_a_gpu, tmp_path):
    docker, tag = image
    nodes = tmp_path / "dev"
    nodes.mkdir()
    for name, minor in (("nvidia0", 0), ("nvidiactl", 255)):
        os.mknod(nodes / name, 0o666 | stat.S_IFCHR, os.makedev(195, minor))
    r = _check(
        docker,
        tag,
        "--format",
        "json",
        docker_args=(
            "-v",
            f"{host_with_a_gpu}:/sys/bus/pci/devices:ro",
            "--device",
            f"{nodes / 'nvidia0'}:/dev/nvidia0",
            "--device",
            f"{nodes / 'nvidiactl'}:/dev/nvidiactl",
        ),
    )
    assert r.returncode == 1, r.stderr
    doc = json.loads(r.stdout)
    seen = {n["path"]: n["kind"] for n in doc["facts"]["kernel"]["device_nodes"]}
    assert seen.get("/dev/nvidia0") == "char" and seen.get("/dev/nvidiactl") == "char", seen
    codes = [f["code"] for f in doc["findings"]]
    assert "container-no-gpu" not in codes, codes  # the GPU's nodes are in: the runtime did pass something
    # But no driver library came with them (no NVIDIA container toolkit): NVML and nvidia-smi are missing,
    # so the driver cannot be talked to from here.
    assert doc["facts"]["driver"]["nvml_status"] == "library_not_found"
    assert codes == ["driver-unreachable"], codes


def test_prometheus_from_inside_the_container(image, host_with_a_gpu):
    docker, tag = image
    r = _check(docker, tag, "--format", "prometheus", docker_args=("-v", f"{host_with_a_gpu}:/sys/bus/pci/devices:ro"))
    assert r.returncode == 1, r.stderr
    fams = parse_exposition(r.stdout)
    assert [s.labels["code"] for s in fams["gpudoctor_finding"] if s.labels["code"] == "container-no-gpu"] == ["container-no-gpu"]
    assert fams["gpudoctor_check_info"][0].labels["host_mode"] == "live"
