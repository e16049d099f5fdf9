"""Findings for the messages only the catalogue reads (gpudoctor/parsers/catalogue.toml), on pasted reports.

Each check here judges one evidence kind the catalogue makes and emits the code the fact-based check would,
only where no other check (run on the same facts) already says it: one finding per cause, with the line.
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
from collections.abc import Iterable

from gpudoctor.checks.base import Check, ev
from gpudoctor.cmdline import Cmd, Placeholder, SetEnv
from gpudoctor.facts import Facts
from gpudoctor.lazypattern import LazyPattern
from gpudoctor.model import Finding, Remediation, Severity
from gpudoctor.planner.context import Context
from gpudoctor.planner.remedy import container_toolkit_shown, docker_run_without_gpus, docker_runtime_setup, library_dir
from gpudoctor.probed import Found
from gpudoctor.versions import vkey


def _said(facts: Facts, kind: str) -> list:
    return facts.pasted.reported(kind) if facts.pasted.partial else []


def _ggml_without_gpu(said: list, facts: Facts) -> Iterable[Finding]:
    """llama.cpp's system info "BLAS = 0" (or a reporter naming llama-cpp-python with it) where the GPU is wanted: the
    library was built without a GPU backend. pip builds llama-cpp-python from source, with CUDA only where CMAKE_ARGS
    asks for it (its README: CMAKE_ARGS="-DGGML_CUDA=on"; releases before 0.2.81 read -DLLAMA_CUBLAS=on), and reuses a
    cached wheel unless told not to, so an upgrade without the flag brings a CPU build (abetlen/llama-cpp-python README.md
    and CHANGELOG.md @3691546f: 0.2.81 "use LLAMA_CUDA instead of removed LLAMA_CUBLAS")."""
    from gpudoctor.cmdline import SetEnv
    from gpudoctor.planner.remedy import pip

    # (read only where the text wants the GPU: gpudoctor.pasted.read drops a CPU-only run's "BLAS = 0")
    for e in said:
        yield Finding(
            "framework-cpu-build",
            Severity.ERROR,
            "frameworks",
            "the installed llama-cpp-python (llama.cpp) is built without CUDA",
            "llama.cpp's system info says BLAS = 0: the library that loaded has no GPU backend, so every layer runs on "
            "the CPU whatever n_gpu_layers says. pip builds llama-cpp-python from source and enables CUDA only where "
            "CMAKE_ARGS asks for it; an install or upgrade without it (or from pip's cache) brings a CPU build.",
            (ev("pasted", e.line),),
            Remediation(
                "Rebuild llama-cpp-python with CUDA, bypassing pip's cache (the build needs the CUDA toolkit's nvcc; "
                "releases before 0.2.81 read -DLLAMA_CUBLAS=on instead). The model's load log must then say BLAS = 1 "
                "(newer releases list the CUDA backend).",
                (
                    SetEnv("CMAKE_ARGS", "-DGGML_CUDA=on", note="the CMake options the llama-cpp-python build reads"),
                    pip(facts, "install", "--force-reinstall", "--upgrade", "--no-cache-dir", "llama-cpp-python"),
                ),
                component="environment",
            ),
        )


# The CUDA option's name by llama.cpp's build number (git rev-list --count, its build-info): LLAMA_CUBLAS until
# 280345968d ("cuda : rename build flag to LLAMA_CUDA", build 2533), LLAMA_CUDA until f3f65429c4 ("reorganize source
# code + improve CMake", build 3236), where LLAMA_CUBLAS became a FATAL_ERROR and GGML_CUDA the option (CMakeLists.txt).
_CUDA_OPTION = ((2533, "LLAMA_CUBLAS"), (3236, "LLAMA_CUDA"))


def _llama_cpp_cuda_option(build: int | None) -> str:
    return next((name for below, name in _CUDA_OPTION if build is not None and build < below), "GGML_CUDA")


def _llama_cpp_binary_without_gpu(said: list, build: int | None = None) -> Iterable[Finding]:
    """llama.cpp's own programs (main, llama-cli, server) warn "not compiled with GPU offload support" when given -ngl
    in a build without a GPU backend (common/common.cpp: LLAMA_SUPPORTS_GPU_OFFLOAD undefined). The C++ build, not
    llama-cpp-python's: it is rebuilt in its checkout, out of source, with CUDA on (README's CUDA build: cmake -B build
    -DGGML_CUDA=ON; an in-source `cmake .` replaces the checkout's own Makefile, whose make variables it then ignores)."""
    from gpudoctor.cmdline import Cmd

    option = _llama_cpp_cuda_option(build)
    for e in said:
        yield Finding(
            "framework-cpu-build",
            Severity.ERROR,
            "frameworks",
            "the llama.cpp program that ran is built without CUDA",
            "llama.cpp says it was not compiled with GPU offload support: the binary has no GPU backend, so -ngl is "
            "ignored and every layer runs on the CPU. Its build did not enable CUDA (the CMake option was not given, "
            "or a make variable went to a Makefile that CMake generated over the checkout's own).",
            (ev("pasted", e.line),),
            Remediation(
                "In the llama.cpp checkout, configure a separate build directory with CUDA on and build it (needs the "
                "CUDA toolkit's nvcc; "
                + (
                    f"build {build} names the option {option}"
                    if build is not None
                    else "builds before 2533 name the option LLAMA_CUBLAS, before 3236 LLAMA_CUDA"
                )
                + "); run the programs from build/bin, where the warning must be gone and the log lists the CUDA device.",
                (
                    Cmd(("cmake", "-B", "build", f"-D{option}=ON")),
                    Cmd(("cmake", "--build", "build", "--config", "Release")),
                ),
                component="environment",
            ),
        )


def check_docker_gpu_driver(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """docker's `could not select device driver "" with capabilities: [[gpu]]`: --gpus with no NVIDIA runtime."""
    from gpudoctor.checks.reported import other_vendor_gpu_only

    said = _said(facts, "docker-gpu-driver-missing")
    if not said:
        return
    if (without := _without_gpus(facts, said[0].line)) is not None:
        yield without  # --gpus asked where no GPU is wanted or there: drop it
        return
    if other_vendor_gpu_only(facts) is not None:
        return  # (no NVIDIA GPU at all: gpu-none says so, and no runtime can pass one)
    windows = facts.platform.system.lower().startswith("win")
    from gpudoctor.checks.docker_desktop import desktop_answers, desktop_remedy

    if desktop_answers(facts):
        from gpudoctor.planner.remedy import reporters_docker_run

        run = reporters_docker_run(facts, gpus=True) or Cmd(("docker", "run", "--gpus", "all", Placeholder("image")))
        yield Finding(
            "container-no-gpu",
            Severity.ERROR,
            "platform",
            "docker cannot give the container a GPU: the daemon answering in WSL is Docker Desktop's",
            "docker answered `--gpus` with 'could not select device driver \"\" with capabilities: [[gpu]]' inside WSL 2, "
            "where the text shows Docker Desktop's daemon answering (Docker Desktop named, or no docker engine in the "
            "distribution). A toolkit installed in the distribution would not reach that daemon.",
            (ev("pasted", said[0].line),),
            desktop_remedy(facts, run),
        )
        return
    yield Finding(
        "container-no-gpu",
        Severity.ERROR,
        "platform",
        "docker cannot give the container a GPU: no NVIDIA device driver is registered with the daemon",
        "docker answered `--gpus` with 'could not select device driver \"\" with capabilities: [[gpu]]', as the text "
        "shows: the daemon has no GPU device driver, because the NVIDIA Container Toolkit is not installed or not "
        "configured for it"
        + (" (on Windows, Docker Desktop passes the GPU only with its WSL 2 backend)" if windows else "")
        + ". Nothing inside the image can fix it.",
        (ev("pasted", said[0].line),),
        Remediation(
            (
                "On the host: configure docker's runtime with the NVIDIA Container Toolkit the text shows installed, "
                "restart docker."
                if container_toolkit_shown(facts)
                else "On the host: install the NVIDIA Container Toolkit from NVIDIA's repository, configure docker's "
                "runtime with it, restart docker."
            )
            if not windows
            else "Use Docker Desktop's WSL 2 backend with a current NVIDIA Windows driver (it passes the GPU into "
            "Linux containers); the NVIDIA Container Toolkit is for Linux hosts.",
            () if windows else docker_runtime_setup(facts),
            requires_root=not windows,
            component="container",
            where="the host",
        ),
    )


# NVIDIA's CDI guide (docs.nvidia.com, container-toolkit cdi-support): the spec, its listing, and the check it prints.
_CDI_SPEC = "/etc/cdi/nvidia.yaml"


def check_cdi_unresolved(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """CDI's "unresolvable CDI devices nvidia.com/gpu=all" (container-device-interface pkg/cdi/cache.go): podman (4.1 and
    later) or docker with CDI found no spec defining the device. The NVIDIA Container Toolkit writes it (`nvidia-ctk cdi
    generate`, again after each driver change, as it names the driver's files), `nvidia-ctk cdi list` shows what it
    defines, and a container started with the device checks it. Where the text shows the spec defining devices already,
    where it lies or who reads it is open: the catalogue's asks decide."""
    from gpudoctor.checks.reported import other_vendor_gpu_only
    from gpudoctor.planner.remedy import container_toolkit_install

    said = [e for e in _said(facts, "cdi-device-unresolved") if (e.get("devices") or "").startswith("nvidia.com/")]
    if not said or other_vendor_gpu_only(facts) is not None or facts.platform.system.lower().startswith("win"):
        return
    if any(int(e.get("count") or 0) > 0 for e in _said(facts, "cdi-devices-listed")):
        return  # the spec defines devices: not a missing spec
    shown = container_toolkit_shown(facts)
    docker = "Error response from daemon" in said[0].line  # docker's daemon; podman prints its own "Error:"
    # (the install's check of a snap docker is docker's: podman reads the spec whatever installed docker)
    install = tuple(c for c in container_toolkit_install(facts) if docker or c.argv[:2] != ("snap", "list"))
    runs = [e for e in facts.pasted.reported("docker-run-said") if (e.get("args") or "").split()]
    if runs:
        check = Cmd(("docker", "run", *(runs[-1].get("args") or "").split()), note="your command, as the text shows it")
    elif docker:
        check = Cmd(("docker", "run", "--rm", "--device", "nvidia.com/gpu=all", "ubuntu", "nvidia-smi", "-L"))
    else:  # (label=disable: SELinux hosts keep the container from the device files otherwise)
        check = Cmd(
            (
                "podman",
                "run",
                "--rm",
                "--device",
                "nvidia.com/gpu=all",
                "--security-opt=label=disable",
                "ubuntu",
                "nvidia-smi",
                "-L",
            )
        )
    yield Finding(
        "container-no-gpu",
        Severity.ERROR,
        "platform",
        "the container engine cannot resolve the GPU's CDI device: no NVIDIA CDI spec where it reads",
        f"{'docker' if docker else 'podman'} was asked for {said[0].get('devices')} and found no CDI spec (/etc/cdi, "
        "/var/run/cdi) that defines it: the NVIDIA Container Toolkit has not generated one on this host, or it was "
        "removed. The spec names the driver's files of the moment it is generated, so it is generated again after "
        "each driver upgrade.",
        (ev("pasted", said[0].line),),
        Remediation(
            "On the host: "
            + ("" if shown else "install the NVIDIA Container Toolkit from NVIDIA's repository, ")
            + "generate the CDI spec for this driver, check that it lists nvidia.com/gpu=all, and start the container again.",
            (
                *(() if shown else install),
                Cmd(
                    ("nvidia-ctk", "cdi", "generate", f"--output={_CDI_SPEC}"), root=True, note="again after each driver upgrade"
                ),
                Cmd(("nvidia-ctk", "cdi", "list"), note="nvidia.com/gpu=all among the devices"),
                check,
            ),
            requires_root=True,
            component="container",
            where="the host",
        ),
    )


_RUNTIME_NVIDIA = LazyPattern(r"unknown or invalid runtime name: nvidia\b", re.IGNORECASE)


def check_docker_unknown_runtime(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """docker's "unknown or invalid runtime name: nvidia" (moby daemon/runtime_unix.go): `--runtime=nvidia` (or compose's
    `runtime: nvidia`) names a runtime the daemon has not registered. On a Linux host the toolkit registers it in
    daemon.json (`nvidia-ctk runtime configure --runtime=docker`), read when the daemon restarts. Docker Desktop (Windows,
    or answering in WSL) registers none: its GPU comes through --gpus, so no Linux toolkit is prescribed there."""
    from gpudoctor.checks.docker_desktop import desktop_answers
    from gpudoctor.checks.reported import other_vendor_gpu_only

    said = [e for e in _said(facts, "container-unknown-runtime") if _RUNTIME_NVIDIA.search(e.line)]
    if not said or other_vendor_gpu_only(facts) is not None:
        return
    if facts.platform.system.lower().startswith("win") or desktop_answers(facts):
        yield _desktop_runtime_nvidia(facts, said[0])
        return
    steps = docker_runtime_setup(facts)
    if not facts.pasted.reported("docker-run-said") and not said[0].line.lstrip("*> ").startswith("docker:"):
        steps = steps[:-1]  # not a `docker run` (compose, or an API client): its own command starts it again
    yield Finding(
        "container-no-gpu",
        Severity.ERROR,
        "platform",
        "docker has no runtime named nvidia: the NVIDIA Container Toolkit is not registered with this daemon",
        "docker's daemon answered 'unknown or invalid runtime name: nvidia': the runtime the container asks for is not "
        "in its configuration (/etc/docker/daemon.json), because the NVIDIA Container Toolkit is not installed, was not "
        "registered with docker, or the daemon was not restarted after.",
        (ev("pasted", said[0].line),),
        Remediation(
            "On the host: "
            + ("" if container_toolkit_shown(facts) else "install the NVIDIA Container Toolkit from NVIDIA's repository, ")
            + "register its runtime with docker and restart the daemon.",
            steps,
            requires_root=True,
            component="container",
            where="the host",
        ),
    )


# Compose's GPU request (docker/docs, content/manuals/compose/how-tos/gpu-support.md: "deploy: resources: reservations:
# devices: - driver: nvidia count: all capabilities: [gpu]"), which Docker Desktop's WSL 2 backend answers
# (content/manuals/desktop/features/gpu.md: "docker run --rm -it --gpus=all ..."), in YAML's flow style so that it reads
# as one line of prose.
_COMPOSE_GPU_YAML = "deploy: {resources: {reservations: {devices: [{driver: nvidia, count: all, capabilities: [gpu]}]}}}"


def _desktop_runtime_nvidia(facts: Facts, e) -> Finding:
    """Docker Desktop (Windows, or its daemon answering in WSL) registers no runtime named nvidia: a container gets the
    GPU through its WSL 2 backend when it asks with --gpus, or in compose with the device reservation. The fix is the
    request, not a Linux toolkit nor a daemon restart in a distribution."""
    from gpudoctor.cmdline import Cmd, Placeholder

    compose = facts.pasted.reported("compose-up-said") if facts.pasted.partial else []
    probe = Cmd(
        ("docker", "run", "--rm", "--gpus", "all", "ubuntu", "nvidia-smi"),
        note="Docker Desktop hands the GPU to a container asked with --gpus: the Windows driver's GPU is listed",
    )
    if compose or "compose" in e.line:
        service = next((c.get("service") for c in compose if c.get("service")), None) or Placeholder("service")
        fix = Remediation(
            "In the compose file, take the service's 'runtime: nvidia' line out and request the GPU the compose way in "
            f"its place, {_COMPOSE_GPU_YAML} (or gpus: all in current Compose), then recreate the service. "
            "The other way keeps the line: register the runtime in Docker Desktop, Settings > Docker Engine, "
            '"runtimes": {"nvidia": {"path": "/usr/bin/nvidia-container-runtime", "runtimeArgs": []}}, Apply & '
            "restart.",
            (
                probe,
                *(
                    (Cmd(("notepad", "docker-compose.yml"), note="the service's runtime: nvidia line becomes the reservation"),)
                    if facts.platform.system.lower().startswith("win")
                    else ()
                ),
                Cmd(("docker", "compose", "up", "-d", "--force-recreate", service)),
                Cmd(("docker", "compose", "exec", service, "nvidia-smi"), note="inside: the GPU is listed"),
            ),
            component="container",
            where="the host",
        )
    else:
        fix = Remediation(
            "Run the container with --gpus all in place of --runtime=nvidia: Docker Desktop passes the GPU through its "
            "WSL 2 backend to a container that asks that way. Nothing is installed for it, on Windows or in WSL.",
            (probe, Cmd(("docker", "run", "--rm", "--gpus", "all", Placeholder("image")), note="without --runtime=nvidia")),
            component="container",
            where="the host",
        )
    return Finding(
        "container-no-gpu",
        Severity.ERROR,
        "platform",
        "Docker Desktop has no runtime named nvidia: ask for the GPU with --gpus or compose's device reservation",
        "docker's daemon answered 'unknown or invalid runtime name: nvidia': the container asks for a runtime by name "
        "(--runtime=nvidia, or runtime: nvidia in a compose file, the nvidia-docker2 way), and Docker Desktop registers "
        "none by that name. It gives containers the GPU through its WSL 2 backend when they ask with --gpus or compose's "
        "device reservation. The Windows driver and the image are not the cause; no NVIDIA Container Toolkit is "
        "installed for Docker Desktop.",
        (ev("pasted", e.line),),
        fix,
    )


def check_image_driver_files(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """nvidia-container-cli's `mount error: file creation failed: .../libnvidia-ml.so.1: file exists`: the image ships
    a driver library where the runtime mounts the host's (libnvidia-container creates each mount point with
    O_NOFOLLOW, so a file or link already there is EEXIST). The host, its driver and the toolkit work; the image is
    rebuilt without the driver package that put it there."""
    from gpudoctor.cmdline import Cmd, Placeholder

    said = _said(facts, "container-image-driver-files")
    if not said:
        return
    e = said[0]
    path = e.get("path") or ""
    # The runtime names the file under the container's root on the host (overlay2's merged/, a bundle's rootfs/).
    inner = next((path.split(root, 1)[1] for root in ("/merged/", "/rootfs/") if root in path), "")
    inner = "/" + inner if inner else ""
    library = e.get("library") or "a driver library"
    # the image's library directory where the runtime named the file; Debian's and Ubuntu's otherwise
    lib_dir = inner.rsplit("/", 1)[0] if inner.count("/") > 1 else "/usr/lib/x86_64-linux-gnu"
    # the image that failed is not reliably the one a docker run line of the text shows (often a sample that works)
    image, derived = Placeholder("image"), Placeholder("new-image")
    dockerfile = "Dockerfile.nodriver"
    yield Finding(
        "container-no-gpu",
        Severity.ERROR,
        "platform",
        f"the image ships its own {library}, so the NVIDIA runtime cannot give the container the host's driver",
        f"nvidia-container-cli could not create {inner or library} in the container ('file exists'), as the text "
        "shows: the runtime puts the host's driver libraries at those paths, and the image already has a file there "
        "(a driver package installed in it: libnvidia-*, nvidia-driver-*, or one that depends on them such as "
        "nvidia-opencl-dev). The container does not start with the GPU. The host's driver and the toolkit are not "
        "at fault: an image without those files starts.",
        (ev("pasted", e.line),),
        Remediation(
            "Build a new image FROM this one that deletes the driver files it carries (libnvidia-*, libcuda.so*: the "
            "runtime mounts the host's own there; the CUDA toolkit's libraries stay), and run that one. Such files "
            "come from a driver package in the Dockerfile, or from building or committing the image while nvidia was "
            "Docker's default-runtime (daemon.json): take that line out for builds, so they do not come back.",
            (
                Cmd(
                    ("docker", "run", "--rm", "--runtime=runc", "--entrypoint", "ls", image, "-l", lib_dir),
                    pipe=("grep", "-e", "libnvidia", "-e", "libcuda"),
                    note="the driver files inside the image, started without the NVIDIA runtime",
                ),
                Cmd(
                    ("grep", "-i", "default-runtime", "/etc/docker/daemon.json"),
                    note="nvidia here copies the host's driver into what docker build or commit makes",
                ),
                Cmd(("echo", f"FROM {image}"), pipe=("tee", dockerfile), note="a new image without them: its Dockerfile"),
                Cmd(("echo", f"RUN rm -f {lib_dir}/libnvidia-*.so* {lib_dir}/libcuda.so*"), pipe=("tee", "-a", dockerfile)),
                Cmd(("cat", dockerfile), pipe=("docker", "build", "-t", derived, "-")),
                Cmd(("docker", "run", "--rm", "--gpus", "all", derived, "nvidia-smi"), note="the host's driver, mounted"),
            ),
            component="container",
            where="the image",
            alternative=Remediation(
                "Rebuild the image from its Dockerfile without the driver package that installed the files (for "
                "OpenCL, ocl-icd-opencl-dev instead of nvidia-opencl-dev).",
                (
                    *(
                        (
                            Cmd(
                                ("docker", "run", "--rm", "--runtime=runc", "--entrypoint", "dpkg", image, "-S", inner),
                                note="which package of the image installed it (Debian and Ubuntu images): remove it",
                            ),
                        )
                        if inner
                        else ()
                    ),
                    Cmd(
                        ("docker", "build", "--no-cache", "-t", image, "."),
                        note="after the Dockerfile installs no driver package",
                    ),
                ),
                component="container",
                where="the image",
            ),
        ),
    )


# The command that says where an interpreter's headers belong and whether Python.h is there (Triton's own lookup:
# sysconfig's include path, triton-lang/triton python/triton/runtime/build.py @15484adc).
_HEADERS_THERE = (
    "import os, sysconfig; p = sysconfig.get_paths()['include']; print(p, os.path.isfile(os.path.join(p, 'Python.h')))"
)


def check_python_headers(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """Triton compiling its launcher without the interpreter's C headers (catalogue.toml: triton-python-h-missing), on
    Linux where the interpreter's X.Y is shown: a distribution's Python (Debian's and Ubuntu's, deadsnakes' too) ships
    Python.h in its python3.X-dev package. In an image (a compose service or docker run the text shows), a package
    installed in the running container is gone when it is recreated: a new image FROM it installs the headers. On the
    host, the distribution's package. An embedded Windows Python is another fix (its include folder): left to the ask."""
    from gpudoctor.cmdline import Cmd, Placeholder
    from gpudoctor.planner.remedy import family
    from gpudoctor.planner.where import python_exe

    said = _said(facts, "python-headers-missing")
    py = facts.frameworks.python
    version = py.value.version if isinstance(py, Found) and py.value.version else ""
    mm = ".".join(version.split(".")[:2])
    if not said or not re.fullmatch(r"3\.\d{1,2}", mm) or (facts.platform.system or "").lower().startswith("win"):
        return
    package = f"python{mm}-dev"
    python = python_exe(facts)
    why = (
        f"Triton compiles a small C launcher for its kernels with gcc against the running interpreter's headers, as the "
        f"text shows, and Python {version} here has no Python.h: a distribution's Python keeps its headers in a "
        f"separate development package ({package} on Debian and Ubuntu, deadsnakes' builds too). The GPU, the driver "
        "and PyTorch are not at fault."
    )
    workload = next((w for w in _said(facts, "workload-gpus") if w.get("image")), None)
    if workload is not None:
        image, name = workload.get("image") or "", workload.get("name") or ""
        # the new image's name: the image's own with "-pydev" on its tag (a name docker accepts), else to be chosen
        m = re.fullmatch(r"(?P<repo>[a-z0-9][a-z0-9._/-]{0,200})(?::(?P<tag>[\w][\w.-]{0,100}))?", image)
        derived: str | Placeholder = f"{m.group('repo')}:{m.group('tag') or 'latest'}-pydev" if m else Placeholder("new-image")
        dockerfile = "Dockerfile.pydev"
        run = f"RUN apt-get update && apt-get install -y --no-install-recommends {package} && rm -rf /var/lib/apt/lists/*"
        compose = workload.get("runtime") == "compose"
        steps = (
            *(
                (
                    Cmd(
                        ("docker", *(("compose",) if compose else ()), "exec", name, python, "-c", _HEADERS_THERE),
                        note="inside: False",
                    ),
                )
                if name
                else ()
            ),
            Cmd(("echo", f"FROM {image}"), pipe=("tee", dockerfile), note="on the host: a new image with the headers"),
            Cmd(("echo", run), pipe=("tee", "-a", dockerfile), note="for Debian and Ubuntu images; Red Hat's take python3-devel"),
            Cmd(("cat", dockerfile), pipe=("docker", "build", "-t", derived, "-")),
            *(
                (Cmd(("docker", "compose", "up", "-d", name), note="once the service's image: line names the new image"),)
                if compose and name
                else ()
            ),
        )
        rem = Remediation(
            f"Build a new image FROM {image} that installs {package}, the headers of the image's own Python {mm}, and run "
            "the "
            + ("service" if compose else "container")
            + " from it (an apt-get in the running container is lost when it is recreated); a later release of the "
            "image that installs them does the same.",
            steps,
            component="container",
            where="the image",
        )
    else:
        debian = family(facts) == "debian"
        rem = Remediation(
            f"Install the development headers of this Python {mm}: {package} on Debian and Ubuntu (deadsnakes' builds "
            "too), python3-devel on Fedora and Red Hat; then rerun. A conda or uv Python carries its headers: there, "
            "reinstall that interpreter.",
            (
                Cmd((python, "-c", _HEADERS_THERE), note="where the headers belong: False until they are installed"),
                *((Cmd(("apt-get", "install", "-y", package), root=True),) if debian else ()),
            ),
            requires_root=debian,
            component="environment",
        )
    yield Finding(
        "framework-cuda-libs-missing",
        Severity.ERROR,
        "frameworks",
        f"Triton cannot compile its launcher: Python {mm} has no development headers (Python.h)",
        why,
        (ev("pasted", said[0].line),),
        rem,
    )


def check_shared_memory(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """PyTorch's DataLoader worker killed by SIGBUS ("This might be caused by insufficient shared memory (shm)"):
    workers hand batches over in /dev/shm, which docker sizes at 64 MB unless the container is run with --ipc=host
    or --shm-size (PyTorch's README, "Docker Image"). A container's /dev/shm is set when it is created: the fix is
    the container's run options, on the host; nothing inside it (no sysctl, no reinstall) changes it."""
    from gpudoctor.cmdline import Cmd, Placeholder
    from gpudoctor.planner.remedy import container_said, reporters_docker_run

    denied = _said(facts, "shm-not-writable")
    if denied:
        yield _shm_not_writable(denied[0])
    elif nccl := _said(facts, "nccl-shm-create-failed"):
        yield _nccl_shm_too_small(facts, nccl[0])
    said = _said(facts, "shm-too-small")
    if not said:
        return
    e = said[0]
    check = Cmd(("df", "-h", "/dev/shm"), note="its size where the program runs: 64M is docker's default")
    docker = container_said(facts) is not None or bool(facts.pasted.reported("docker-run-said"))
    if docker:
        own = reporters_docker_run(facts, gpus=False)
        words = [str(w) for w in own.argv[2:]] if own is not None else ["--gpus", "all", Placeholder("image")]
        run = Cmd(
            ("docker", "run", "--ipc=host", *words),
            note="or --shm-size=8g instead of --ipc=host; the container is recreated, its /dev/shm is set at creation",
        )
        rem = Remediation(
            "Recreate the container with more shared memory: --ipc=host (the host's /dev/shm) or --shm-size; with "
            "docker compose, ipc: host or shm_size. Fewer DataLoader workers (num_workers=0) is the slower way around.",
            (run, Cmd(("docker", "exec", Placeholder("container"), "df", "-h", "/dev/shm"), note="the new size inside")),
            component="container",
            where="the host",
        )
    else:
        rem = Remediation(
            "Give the workers more shared memory: in a container, recreate it with --ipc=host or --shm-size (docker's "
            "/dev/shm is 64 MB); on a host, /dev/shm is a tmpfs the administrator can enlarge. Fewer DataLoader "
            "workers (num_workers=0) is the slower way around.",
            (check,),
            component="environment",
        )
    yield Finding(
        "shm-too-small",
        Severity.ERROR,
        "platform",
        "PyTorch's DataLoader workers ran out of shared memory (/dev/shm)" + (" in a docker container" if docker else ""),
        "A DataLoader worker was killed by SIGBUS, as the text shows: workers pass each batch through /dev/shm, and a "
        "write past its end is a bus error. Docker gives a container 64 MB of /dev/shm unless it is run with "
        "--ipc=host or --shm-size. Nothing in the driver, CUDA or PyTorch is at fault.",
        (ev("pasted", e.line),),
        rem,
    )


# Packages that read CUDA_VISIBLE_DEVICES as integers and failed on Slurm's NoDevFiles, with the first release that
# handles it: ray (ray-project/ray pull 7014, "fix gpu ids for SLURM", merged 2020-02-03; released in 0.8.2).
_PARSES_NODEVFILES_FROM = {"ray": "0.8.2"}


def check_hook_cgroup_not_permitted(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """nvidia-container-cli's "failed to add device rules: unable to find any existing device filters attached to the
    cgroup: bpf_prog_query(BPF_CGROUP_DEVICE) failed: operation not permitted" (NVIDIA/libnvidia-container
    src/nvcgo/internal/cgroup/v2.go @162f9ba9): on cgroup v2 the hook grants the GPUs by rewriting the container's eBPF
    device program, which the kernel allows only to a process privileged in the initial namespace. Docker inside an
    unprivileged LXC container (Proxmox's usual setup) or rootless docker is not: there the GPUs are already granted
    by the outer container's device rules (lxc.cgroup2.devices.allow), so the hook is told to leave cgroups alone
    (libnvidia-container's no-cgroups, NVIDIA's rootless setup) and the /dev/nvidia* nodes are passed with --device,
    since the hook no longer adds them (NVIDIA/libnvidia-container issue 154, the same message in a Proxmox LXC)."""
    said = _said(facts, "container-hook-cgroup-not-permitted")
    if not said:
        return
    config = "/etc/nvidia-container-runtime/config.toml"
    yield Finding(
        "container-no-gpu",
        Severity.ERROR,
        "platform",
        "the NVIDIA runtime hook may not set the container's device rules (docker inside an LXC container, or rootless)",
        "nvidia-container-cli stopped the container while adding the GPUs to its device cgroup: on cgroup v2 that means "
        "reading and replacing the cgroup's eBPF device program, and the kernel refused (operation not permitted). Docker "
        "that runs inside an unprivileged LXC container, or rootless, is not allowed to; the GPU, the driver and the "
        "image are not at fault. There the outer container's own device rules already grant the GPUs.",
        (ev("pasted", said[0].line),),
        Remediation(
            "On the machine whose docker printed this (inside the LXC container, not its host): set no-cgroups = true "
            "in the NVIDIA Container Toolkit's config.toml, so the hook leaves cgroups to the LXC's rules (the same "
            "setting NVIDIA's rootless setup makes: nvidia-ctk config --set nvidia-container-cli.no-cgroups --in-place), "
            "then pass the GPU device nodes with --device (compose: devices:), which the hook no longer adds.",
            (
                Cmd(("grep", "-n", "no-cgroups", config), note="the runtime still manages cgroups"),
                Cmd(("sed", "-i", "s/^#\\?no-cgroups = .*/no-cgroups = true/", config), root=True),
                Cmd(("ls", "-l", "/dev/nvidia0", "/dev/nvidiactl", "/dev/nvidia-uvm"), note="the nodes the LXC has"),
                Cmd(
                    (
                        "docker",
                        "run",
                        "--rm",
                        "--gpus",
                        "all",
                        "--device",
                        "/dev/nvidia0",
                        "--device",
                        "/dev/nvidiactl",
                        "--device",
                        "/dev/nvidia-uvm",
                        "ubuntu",
                        "nvidia-smi",
                    ),
                    note="a test container lists the GPU; then start the real one with the same --device lines",
                ),
            ),
            requires_root=True,
            component="container",
            where="the machine whose docker printed it (inside the LXC container)",
        ),
    )


def check_image_cuda_compat_refused(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """CUDA error 804 ("forward compatibility was attempted on non supported HW", cudaErrorCompatNotSupportedOnDevice)
    from a program run in a container image, beside the host's driver: the CUDA inside the image is newer than the driver
    supports, so the runtime tried the forward-compatibility libcuda (the cuda-compat package CUDA images carry), which
    runs on data-center GPUs only (cuda-compat-guide). The image's CUDA, not the GPU, decides it: a driver that
    supports that CUDA, or an image built for the CUDA the driver supports. A program outside an image, or a driver
    not shown, stays with the catalogue's asks (a compat directory on LD_LIBRARY_PATH is the other cause there)."""
    from gpudoctor.checks.driver import driver_cuda
    from gpudoctor.checks.reported import other_vendor_gpu_only
    from gpudoctor.planner.where import container_of, image

    said = _said(facts, "cuda-compat-not-supported")
    img = image(facts)  # (an image run with docker run is a container too, where no prompt or words say one)
    contained = img is not None or container_of(facts) is not None
    if not said or not facts.driver.version or not contained or other_vendor_gpu_only(facts) is not None:
        return
    have, _ = driver_cuda(facts, ctx.matrix)
    supports = f"CUDA {have}" if have else "an older CUDA"
    inspect = Cmd(
        (
            "docker",
            "image",
            "inspect",
            img["means"] if img else Placeholder("image"),
            "--format",
            "{{range .Config.Env}}{{println .}}{{end}}",
        ),
        pipe=("grep", "-E", "CUDA_VERSION|NVIDIA_REQUIRE_CUDA"),
        note="on the host: the CUDA the image is built on",
    )
    yield Finding(
        "toolkit-newer-than-driver",
        Severity.ERROR,
        "toolkit",
        f"the image's CUDA is newer than the host's driver {facts.driver.version} supports ({supports})",
        "CUDA's first call in the container failed with error 804 (forward compatibility was attempted on non "
        "supported HW): the container gets the GPU, but the CUDA the image is built on is newer than the host's driver "
        "supports, so the runtime tried NVIDIA's forward-compatibility library, which only data-center GPUs run. The "
        "program then has no GPU (many fall back to the CPU). Reinstalling the container toolkit changes nothing.",
        (ev("pasted", said[0].line),),
        Remediation(
            "On the host: read the image's CUDA, then upgrade the host's NVIDIA driver to a branch that supports it "
            "(its nvidia-smi header then shows that CUDA Version or newer), reboot, and run the image again.",
            # (no install command: the branch the image needs is what the inspect answers, and a distribution's own
            # driver package may be the very release that is too old, as Debian 13's 550 is)
            (inspect,),
            requires_root=True,
            component="driver",
            where="the host",
            alternative=Remediation(
                f"Keep the driver and run an image (or a build of the program) made for {supports} or older: the "
                "project's image tag or Dockerfile for that CUDA (its CUDA version build argument), or a native build "
                "against the host's toolkit.",
                (),
                component="container",
                where="the host",
            ),
        ),
    )


def check_slurm_job_without_gpus(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """CUDA_VISIBLE_DEVICES=NoDevFiles: Slurm's GPU GRES plugin writes it into a job or step allocated no GPU
    (SchedMD/slurm src/plugins/gres/common/gres_common.c), so CUDA sees no device. The job asks for GPUs with
    --gres=gpu:N (or --gpus); a CPU-only run unsets the variable."""
    from gpudoctor.cmdline import Cmd, Placeholder

    said = _said(facts, "slurm-job-without-gpus")
    if not said:
        return
    from gpudoctor.facts import COMPONENT_NAMED
    from gpudoctor.planner.where import python_step

    # A program that failed to parse the value (Python's int('NoDevFiles')) whose release handles it: the upgrade works
    # with or without GPUs, so it is the other way, beside asking Slurm for GPUs (which the job may not want).
    parsed = any("invalid literal for int()" in e.line for e in said)
    fixed = [
        (pkg, at)
        for pkg, at in _PARSES_NODEVFILES_FROM.items()
        if any(c.get("cue") == COMPONENT_NAMED and c.get("means") == pkg for c in facts.pasted.cues)
    ]
    upgrade = (
        Remediation(
            f"{fixed[0][0]} before {fixed[0][1]} reads CUDA_VISIBLE_DEVICES as GPU numbers and fails on Slurm's "
            f"NoDevFiles; {fixed[0][1]} and later handle it (ray-project/ray pull 7014), with GPUs or without: upgrade "
            "it in the job's interpreter.",
            (python_step(facts, "-m", "pip", "install", "--upgrade", f"{fixed[0][0]}>={fixed[0][1]}"),),
            component="environment",
        )
        if parsed and fixed
        else None
    )
    yield Finding(
        "cuda-visible-devices-hides-all",
        Severity.ERROR,
        "gpu",
        "the Slurm job was allocated no GPU (CUDA_VISIBLE_DEVICES=NoDevFiles)",
        "Slurm sets CUDA_VISIBLE_DEVICES to NoDevFiles in a job or step that asked for no GPU (no --gres=gpu:N, no "
        "--gpus): CUDA then sees no device, and a program that reads the variable as GPU indices fails on it. The "
        "driver and the GPUs of the node are not at fault.",
        (ev("pasted", said[0].line),),
        Remediation(
            "Whether the job should use GPUs decides it. If it should, ask Slurm for them: --gres=gpu:N (GPUs per "
            "node) on sbatch or srun, or #SBATCH --gres=gpu:N in the batch script, on a partition whose nodes have GPUs "
            "(sinfo -o '%P %N %G'). A run meant for the CPU unsets CUDA_VISIBLE_DEVICES in the script instead.",
            (
                Cmd(("scontrol", "show", "job", Placeholder("job-id")), note="the job's allocation: no gres, no GPU"),
                Cmd(("srun", "--gres=gpu:1", "nvidia-smi", "-L"), note="a step with a GPU lists it"),
                Cmd(("sbatch", "--gres=gpu:1", Placeholder("job-script")), note="or #SBATCH --gres=gpu:N in the script"),
            ),
            component="gpu",
            alternative=upgrade,
        ),
    )


def check_slurm_devices_unconstrained(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """Slurm's cgroup.conf without ConstrainDevices=yes, beside a job's GPUs: Slurm then writes the node's global GPU
    indices into CUDA_VISIBLE_DEVICES (SchedMD/slurm src/plugins/gres/common/gres_common.c: the local index only where
    the cgroup constrains devices), while a container of the job (pyxis/enroot, a cgroup'd step) holds only the
    allocated /dev/nvidiaN, which CUDA numbers from 0: `CUDA_VISIBLE_DEVICES=2` then names no device there."""
    from gpudoctor.cmdline import Cmd

    said = _said(facts, "slurm-devices-unconstrained")
    if not said:
        return
    yield Finding(
        "cuda-visible-devices-hides-all",
        Severity.ERROR,
        "gpu",
        "Slurm does not constrain the job's devices, so CUDA_VISIBLE_DEVICES holds the node's GPU numbers",
        "The cgroup.conf shown has no ConstrainDevices=yes: Slurm then sets CUDA_VISIBLE_DEVICES to the node-wide "
        "index of the GPU it allocated (2 for the third GPU) instead of the job's own (0). Where the job sees only its "
        "allocated /dev/nvidiaN (a container started by pyxis/enroot), CUDA numbers that one GPU 0, and index 2 names "
        "none, so the program finds no GPU. The driver and the GPUs are not at fault.",
        (ev("pasted", said[0].line),),
        Remediation(
            "Have Slurm constrain devices on the GPU nodes (an administrator's task): ConstrainDevices=yes in "
            "/etc/slurm/cgroup.conf (TaskPlugin must include task/cgroup in slurm.conf), then restart slurmd; jobs then "
            "see their GPUs numbered from 0.",
            (
                Cmd(("grep", "-i", "-e", "TaskPlugin", "-e", "GresTypes", "/etc/slurm/slurm.conf")),
                Cmd(
                    ("echo", "ConstrainDevices=yes"),
                    pipe=("sudo", "tee", "-a", "/etc/slurm/cgroup.conf"),
                    note="on every GPU node",
                ),
                Cmd(("systemctl", "restart", "slurmd"), root=True, note="on every GPU node"),
                Cmd(
                    ("srun", "--gres=gpu:1", "printenv", "CUDA_VISIBLE_DEVICES"),
                    note="0 now, the job's own index",
                ),
            ),
            requires_root=True,
            component="gpu",
        ),
    )


def check_p2p_behind_switch(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """GPUs linked through PCIe switches (nvidia-smi topo -m: PIX, PXB) whose P2P hangs and which work with
    NCCL_P2P_DISABLE=1: PCI Access Control Services (ACS), enabled with the IOMMU (VT-d), redirect peer-to-peer
    traffic to the CPU's root complex, which can hang it (NCCL's troubleshooting guide, "PCI Access Control Services";
    https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html). Turning P2P off only hides it."""
    from gpudoctor.cmdline import Cmd

    said = _said(facts, "p2p-hang-behind-switch")
    if not said:
        return
    gpus = said[0].get("gpus") or "2"
    yield Finding(
        "nccl-transport-disabled",
        Severity.WARNING,
        "frameworks",
        "peer-to-peer between GPUs behind a PCIe switch hangs: ACS or the IOMMU redirects it",
        "The topology shows GPUs linked through PCIe switches (PIX/PXB), their peer-to-peer traffic hangs, and "
        "NCCL_P2P_DISABLE=1 works around it at a large cost in bandwidth. That is the sign of PCI Access Control "
        "Services (ACS), or the IOMMU (VT-d) that enables them, sending peer-to-peer traffic up to the CPU's root "
        "complex (NCCL's troubleshooting guide). The driver and NCCL are not at fault.",
        (ev("pasted", said[0].line),),
        Remediation(
            "Let peer-to-peer go through the switch: disable ACS (and VT-d/IOMMU, or set iommu=pt) in the BIOS or on the "
            "kernel command line, cold-boot, and run without NCCL_P2P_DISABLE. 'setpci' can clear ACS on each bridge "
            "until the next boot (NCCL's guide).",
            (
                Cmd(("sudo", "lspci", "-vvv"), pipe=("grep", "-i", "acsctl"), note="SrcValid+ on a bridge: ACS is on"),
                Cmd(("cat", "/proc/cmdline"), note="intel_iommu=on or amd_iommu=on: the IOMMU is on"),
                Cmd(
                    ("./build/all_reduce_perf", "-b", "8", "-e", "128M", "-f", "2", "-g", gpus),
                    note="in nccl-tests, after the reboot, without NCCL_P2P_DISABLE",
                ),
            ),
            requires_root=True,
            component="platform",
        ),
    )


# A pod's /dev/shm given memory (kubernetes/website, content/en/docs/concepts/storage/volumes.md, emptyDir: "you can
# set the emptyDir.medium field to "Memory" ... Kubernetes mounts a tmpfs"), in YAML's flow style: one line of prose.
_SHM_POD_SPEC = (
    "volumes: [{name: dshm, emptyDir: {medium: Memory, sizeLimit: 8Gi}}] and, in the container that runs the program, "
    "volumeMounts: [{name: dshm, mountPath: /dev/shm}]"
)


def _nccl_shm_too_small(facts: Facts, e) -> Finding:
    """NCCL's "Error while creating shared memory segment /dev/shm/nccl-*" (NVIDIA/nccl src/os/linux.cc): its transport
    between the GPUs of one machine could not size its segment in /dev/shm, which a docker container or a Kubernetes
    pod gets at 64 MB (NCCL's troubleshooting guide, "Shared memory"; NVIDIA/nccl#342). /dev/shm is set where the
    container is created: docker's --ipc=host / --shm-size, a pod's memory-backed emptyDir mounted at /dev/shm."""
    from gpudoctor.cmdline import Cmd, Placeholder
    from gpudoctor.planner.remedy import container_of, reporters_docker_run

    runtime = container_of(facts) or ("docker" if facts.pasted.reported("docker-run-said") else None)
    if runtime == "kubernetes":
        pod = Placeholder("pod")
        rem = Remediation(
            "Give the pod that runs the failing program (the one with the GPUs, not another of the release) a "
            f"memory-backed /dev/shm in its pod template, {_SHM_POD_SPEC} (through the chart's own values where it "
            "has them), then let the pod be recreated. Stale nccl-* files of killed runs in /dev/shm also fill it. "
            "NCCL_SHM_DISABLE=1 only bypasses the shared-memory transport, with slower transfers between the GPUs.",
            (
                Cmd(("kubectl", "get", "pods", "-o", "wide"), note="find the pod that runs the program on the GPUs"),
                Cmd(("kubectl", "exec", pod, "--", "df", "-h", "/dev/shm"), note="64M is the container default"),
                Cmd(("kubectl", "exec", pod, "--", "ls", "-la", "/dev/shm"), note="stale nccl-* segments of killed runs"),
                Cmd(
                    ("kubectl", "edit", Placeholder("workload")),
                    note="the Deployment, Job or training job that makes the pod: the dshm volume in its pod template",
                ),
                Cmd(("kubectl", "exec", pod, "--", "df", "-h", "/dev/shm"), note="in the new pod: the size given"),
            ),
            component="container",
            where="the cluster",
        )
    elif runtime is not None:
        own = reporters_docker_run(facts, gpus=True)
        words = [str(w) for w in own.argv[2:]] if own is not None else ["--gpus", "all", Placeholder("image")]
        rem = Remediation(
            "Recreate the container with more shared memory: --ipc=host (the host's /dev/shm) or --shm-size; with "
            "docker compose, ipc: host or shm_size. NCCL_SHM_DISABLE=1 also works, with slower transfers between GPUs.",
            (
                Cmd(("docker", "run", "--ipc=host", *words), note="or --shm-size=8g; /dev/shm is set at creation"),
                Cmd(("docker", "exec", Placeholder("container"), "df", "-h", "/dev/shm"), note="the new size inside"),
            ),
            component="container",
            where="the host",
        )
    else:
        rem = Remediation(
            "Give /dev/shm room where the program runs: a container is recreated with --ipc=host or --shm-size (a "
            "Kubernetes pod gets an emptyDir of medium Memory at /dev/shm); on a host, /dev/shm is a tmpfs the "
            "administrator can enlarge.",
            (Cmd(("df", "-h", "/dev/shm"), note="its size where the program runs: 64M is a container's default"),),
            component="environment",
        )
    where = {"kubernetes": " in a Kubernetes pod", None: ""}.get(runtime, " in a container")
    return Finding(
        "shm-too-small",
        Severity.ERROR,
        "platform",
        "NCCL cannot create its shared memory in /dev/shm" + where,
        "NCCL said so ('Error while creating shared memory segment /dev/shm/nccl-...'): its transport between the GPUs "
        "of one machine needs segments of several MB each in /dev/shm, and a container's /dev/shm is 64 MB unless it "
        "is given more; PyTorch then reports 'unhandled system error'. The driver, CUDA and NCCL are not at fault.",
        (ev("pasted", e.line),),
        rem,
    )


def _shm_not_writable(e) -> Finding:
    """NCCL's shm_open refused (NVIDIA/nccl src/include/shm.h): /dev/shm lost its world-writable mode, so its
    intra-node transport cannot set up and init fails with "unhandled system error" (pytorch/pytorch#37004; NCCL's
    maintainer in NVIDIA/nccl#328: NCCL only reports the failing call). /dev/shm's standard mode is 1777."""
    from gpudoctor.cmdline import Cmd

    return Finding(
        "shm-too-small",
        Severity.ERROR,
        "platform",
        "NCCL cannot create its shared memory in /dev/shm: permission denied",
        "NCCL said so ('Call to shm_open failed : Permission denied'): its transport between GPUs of one machine "
        "creates segments in /dev/shm, and this user may not write there, so NCCL's initialisation fails (PyTorch "
        "reports 'NCCL error ... unhandled system error'). /dev/shm is normally world-writable with the sticky bit "
        "(drwxrwxrwt, mode 1777); the driver, CUDA and NCCL are not at fault.",
        (ev("pasted", e.line),),
        Remediation(
            "Restore /dev/shm's standard mode (an administrator's task on a shared node); until then NCCL_SHM_DISABLE=1 "
            "lets NCCL use other transports, slower.",
            (
                Cmd(("ls", "-ld", "/dev/shm"), note="expect drwxrwxrwt (1777)"),
                Cmd(("sudo", "chmod", "1777", "/dev/shm")),
            ),
            requires_root=True,
            component="environment",
        ),
    )


def _no_nvidia_gpu(facts: Facts) -> str | None:
    """The pasted line that says this machine has no NVIDIA GPU (a cue of gpudoctor.pasted.cues), or None."""
    return next((c.get("line") or "" for c in facts.pasted.cues if (c.get("means") or "").startswith("no NVIDIA GPU")), None)


def _without_gpus(facts: Facts, refused: str) -> Finding | None:
    """--gpus refused where the facts say no GPU is wanted or there: the machine has no NVIDIA GPU, or the image is a
    CPU build (its tag says so) and nothing shows an NVIDIA GPU. The fix drops `--gpus all`; no toolkit helps."""
    from gpudoctor.checks.driver import gpu_present

    if gpu_present(facts):
        return None
    cpu = _said(facts, "docker-run-cpu-image")
    no_gpu = _no_nvidia_gpu(facts)
    if not cpu and no_gpu is None:
        return None
    image = cpu[0].get("image") if cpu else None
    why = "the text shows no NVIDIA GPU on this machine" if no_gpu is not None else f"the image {image} is a CPU build"
    return Finding(
        "container-no-gpu",
        Severity.ERROR,
        "platform",
        "docker was asked for a GPU the container does not need or the machine does not have",
        f"docker answered `--gpus` with 'could not select device driver \"\" with capabilities: [[gpu]]', and {why}: "
        "the container runs on the CPU without --gpus all. Installing the NVIDIA Container Toolkit would not help.",
        tuple(ev("pasted", line) for line in (refused, *(e.line for e in cpu[:1]), *([no_gpu] if no_gpu else []))),
        Remediation(
            "Start the container without --gpus all (the image runs on the CPU)"
            + (
                "."
                if (run := docker_run_without_gpus(facts, image))
                else ": in the script or compose file that starts it, or with the program's own CPU option."
            ),
            run,
            component="container",
            where="the host",
        ),
    )


def check_tf_gpu_libraries(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """TensorFlow's `Cannot dlopen some GPU libraries ... Skipping registering GPU devices`."""
    from gpudoctor.checks.frameworks import check_cuda_libs
    from gpudoctor.checks.reported import check_reported_libraries

    said = _said(facts, "tf-gpu-libs-missing")
    if not said or facts.platform.system.lower().startswith("win"):
        return  # on Windows the DLL checks name the DLL
    if any(
        f.code in ("framework-cuda-libs-missing", "cudnn-missing")
        for check in (check_cuda_libs, check_reported_libraries)
        for f in check(facts, ctx)
    ):
        return
    named = [m for m in facts.pasted.missing if m.startswith("lib")]
    yield Finding(
        "framework-cuda-libs-missing",
        Severity.ERROR,
        "frameworks",
        "TensorFlow cannot load the CUDA libraries it was built for and registered no GPU"
        + (f" ({', '.join(named[:4])})" if named else ""),
        "TensorFlow said so ('Cannot dlopen some GPU libraries ... Skipping registering GPU devices'): one or more of "
        "its CUDA libraries (cudart, cuBLAS, cuFFT, cuSPARSE, cuSOLVER, cuDNN of the versions it was built for) is not "
        "installed or not where the loader searches. The log lines above it name which"
        + ("" if named else "; they were not pasted (the commands that show them are asked for)")
        + ".",
        (ev("pasted", said[0].line),),
        Remediation(
            "Install the CUDA libraries of TensorFlow's build where it loads them: for pip installs, "
            "`tensorflow[and-cuda]` of the same version installs NVIDIA's wheels; or put their directory on "
            "LD_LIBRARY_PATH.",
            _tf_and_cuda(facts, ctx),
            component="environment",
        ),
    )


def _tf_and_cuda(facts: Facts, ctx: Context) -> tuple[Cmd, ...]:
    """The pip TensorFlow's CUDA libraries as NVIDIA's wheels: from 2.14, on Linux, the [and-cuda] extra of the installed
    release (compat_matrix tensorflow.toml `and_cuda`; 2.15.0's extra does not resolve, 2.15.0.post1's does:
    gpudoctor.planner.pick_tensorflow.AND_CUDA_REPLACED), in the interpreter that runs it. Nothing where the text does
    not show the release, or for a CPU-only distribution, or before 2.14 (those load a system CUDA toolkit)."""
    from gpudoctor.checks.toolkit import os_name
    from gpudoctor.planner.pick_tensorflow import AND_CUDA_REPLACED
    from gpudoctor.planner.remedy import pip

    tf = facts.frameworks.tensorflow
    if not isinstance(tf, Found) or os_name(facts) == "windows" or tf.value.distribution == "tensorflow-cpu":
        return ()
    row = ctx.matrix.tensorflow_release(tf.value.version)
    if row is None or not row.and_cuda:
        return ()
    pin = AND_CUDA_REPLACED.get(tf.value.version, tf.value.version)
    return (pip(facts, "install", f"tensorflow[and-cuda]=={pin}"),)


def check_tf_cudart_missing(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """TensorFlow's `Could not find cuda drivers on your machine, GPU will not be used` (xla/tsl/cuda/cudart_stub.cc):
    the CUDA runtime of the CUDA it was built for did not load. Printed at import on every machine without it, so it is
    judged only where the text shows an NVIDIA GPU, or the reporter states the machine's CUDA (a CUDA-less machine's
    owner does not); there TensorFlow's CUDA libraries are missing."""
    from gpudoctor.checks.frameworks import check_cuda_libs
    from gpudoctor.checks.reported import check_reported_libraries, other_vendor_gpu_only

    said = _said(facts, "tf-cudart-not-loaded")
    # The GPU shown, or a CUDA version the reporter states for this machine (an issue template's CUDA field, "CUDA
    # X.Y installed"): either says the GPU is wanted, where a CPU-only machine prints the same line and is fine.
    cuda_said = any(_said(facts, kind) for kind in ("cuda-version-said", "cuda-toolkit-said"))
    if not said or not (facts.driver.gpus or cuda_said) or other_vendor_gpu_only(facts) is not None:
        return
    if facts.platform.system.lower().startswith("win"):
        return  # on Windows the DLL checks name the DLL
    if any(
        f.code in ("framework-cuda-libs-missing", "cudnn-missing")
        for check in (check_cuda_libs, check_reported_libraries, check_tf_gpu_libraries)
        for f in check(facts, ctx)
    ):
        return
    commands = _tf_and_cuda(facts, ctx)
    tf = facts.frameworks.tensorflow
    row = ctx.matrix.tensorflow_release(tf.value.version) if isinstance(tf, Found) else None
    built = (
        f" (TensorFlow {tf.value.version} is built for CUDA {row.cuda} and cuDNN {row.cudnn})"
        if row and isinstance(tf, Found)
        else ""
    )
    yield Finding(
        "framework-cuda-libs-missing",
        Severity.ERROR,
        "frameworks",
        "TensorFlow cannot load its CUDA runtime and will not use the GPU",
        "TensorFlow said so ('Could not find cuda drivers on your machine, GPU will not be used'): the CUDA runtime "
        f"library of the CUDA it was built for{built} did not load, although "
        + ("the machine has an NVIDIA GPU" if facts.driver.gpus else "the text states CUDA for this machine")
        + ". The "
        "message names the driver but means TensorFlow's CUDA libraries: pip's tensorflow brings them only with its "
        "[and-cuda] extra (from 2.14, on Linux); older releases load a system CUDA toolkit of their own version.",
        (ev("pasted", said[0].line),),
        Remediation(
            (
                "Install TensorFlow's CUDA libraries as NVIDIA's wheels with the [and-cuda] extra of the same release, in "
                "the interpreter that runs it; take other CUDA directories out of LD_LIBRARY_PATH where they were added."
            )
            if commands
            else "Install the CUDA libraries of TensorFlow's build where it loads them: from 2.14 on Linux the "
            "[and-cuda] extra of the same release (pip) brings them; before 2.14, the CUDA toolkit and cuDNN of the "
            "version TensorFlow was built for (tf.sysconfig.get_build_info() names them).",
            commands,
            component="environment",
        ),
        row.source if commands and row else (),
    )


def check_tf_gpu_below_minimum(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """TensorFlow's gpu_device.cc ignores a GPU below the lowest compute capability its build has kernels for
    ("Ignoring visible gpu device (...) with Cuda compute capability 3.5. The minimum required Cuda capability is
    3.7.") and runs on the CPU. The message names both: no driver, CUDA or cuDNN change helps; another GPU does, or a
    TensorFlow built from source for the GPU's capability (TF_CUDA_COMPUTE_CAPABILITIES, which ./configure asks for).
    Where TensorFlow created a GPU device all the same, the GPU ignored was one of several: a warning."""
    said = _said(facts, "tf-gpu-below-minimum")
    if not said:
        return
    e = said[0]
    gpu, cc, minimum = e.get("gpu") or "GPU", e.get("capability") or "", e.get("minimum") or ""
    others = bool(_said(facts, "tf-gpu-device-created"))
    yield Finding(
        "framework-arch-unsupported",
        Severity.WARNING if others else Severity.ERROR,
        "frameworks",
        f"the installed TensorFlow has no kernels for the {gpu} (compute capability {cc}; its build needs {minimum} or newer)",
        f"TensorFlow found the GPU and ignored it, as the text shows: its build carries kernels for compute capability "
        f"{minimum} and newer only"
        + (", so it uses the machine's other GPUs and leaves this one idle." if others else ", so it runs on the CPU.")
        + " No driver, CUDA or cuDNN version changes that.",
        (ev("pasted", e.line),),
        Remediation(
            f"Run on a GPU of compute capability {minimum} or newer, or build TensorFlow from source for compute "
            f"capability {cc} (./configure's TF_CUDA_COMPUTE_CAPABILITIES), where the CUDA it builds with still supports "
            "that GPU. Nothing to install otherwise.",
            (),
            component="gpu",
        ),
    )


# The lowest GPU compute capability an application's CUDA build runs on, by the catalogue entry that reports a GPU
# skipped below it: (the application, its floor, the first release with that floor). Ollama: CudaComputeMin {5, 0}
# (discover/gpu.go @05de33f8, and from 0.1.29, gpu/gpu.go @e87c780f); 0.1.20 skipped everything below 6.0
# (CudaComputeMajorMin = 6, gpu/gpu.go @ab6be852), so a 5.x GPU it skipped runs on a later release.
_APP_GPU_FLOOR = {"ollama-cuda-gpu-too-old": ("Ollama", "5.0", "0.1.29")}


def check_app_gpu_too_old(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """An application that skipped the GPU as too old for its CUDA build and named the GPU's compute capability
    (Ollama's "CUDA GPU is too old. Compute Capability detected: 3.5"): it runs on the CPU. Below the floor of its
    current releases no driver, CUDA or package install changes that; at or above it, the release that printed it had a
    higher floor, and a later release runs on the GPU."""
    for e in _said(facts, "app-gpu-too-old")[:1]:
        app, floor, since = _APP_GPU_FLOOR.get(e.get("entry") or "", ("", "", ""))
        cc = e.get("capability") or ""
        if not app or not cc:
            continue
        if vkey(cc) < vkey(floor):
            title = f"{app} does not run on this GPU (compute capability {cc}; its CUDA build needs {floor} or newer)"
            detail = (
                f"{app} found the GPU and skipped it, as the text shows: its CUDA build runs on compute capability "
                f"{floor} and newer only, so every model runs on the CPU. No driver, CUDA or {app} version changes that."
            )
            fix = Remediation(
                f"Run {app} on a GPU of compute capability {floor} or newer; on this one it runs on the CPU. Nothing to install.",
                (),
                component="gpu",
            )
        else:
            title = f"this {app} release skips the GPU of compute capability {cc}; releases from {since} run on it"
            detail = (
                f"{app} found the GPU and skipped it as too old, as the text shows, so every model runs on the CPU. The "
                f"release that printed it required a higher compute capability than {app} does from {since}, which runs "
                f"on {floor} and newer: the GPU ({cc}) is supported by a later release."
            )
            fix = Remediation(
                f"Upgrade {app} to {since} or later, the way it was installed (its installer, package or container "
                "image), and restart its server.",
                (),
                component="environment",
            )
        yield Finding("framework-arch-unsupported", Severity.ERROR, "frameworks", title, detail, (ev("pasted", e.line),), fix)


def check_jax_no_cuda_platform(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """XLA's `Could not find registered platform with name: "cuda". Available platform names are: Host Interpreter`:
    the jaxlib that loaded registers no CUDA platform."""
    from gpudoctor.checks.frameworks import check_cpu_build
    from gpudoctor.checks.reported import _jax_fix, check_reported_cpu_build

    said = _said(facts, "jax-no-cuda-platform")
    if not said or any(
        f.code == "framework-cpu-build" for check in (check_cpu_build, check_reported_cpu_build) for f in check(facts, ctx)
    ):
        return
    yield Finding(
        "framework-cpu-build",
        Severity.ERROR,
        "frameworks",
        "the jaxlib that loads is a CPU-only build",
        "XLA lists its platforms and CUDA is not among them ('Available platform names are: Host Interpreter'), as "
        "the text shows: the jaxlib imported has no CUDA support (a CPU jaxlib installed over, or before, the CUDA "
        "one), so JAX runs on the CPU whatever the driver.",
        (ev("pasted", said[0].line),),
        _jax_fix(facts, ctx, "Install JAX with its CUDA support (jax[cudaNN]); remove the CPU jaxlib first."),
    )


def check_said_cpu_build(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """A line that shows the framework installed is a CPU build: DGL's "Device API cuda is not enabled. Please install
    the cuda version of dgl", conda list's `_pytorch_select ... cpu_0` (the defaults channel's CPU-only pytorch)."""
    from gpudoctor.checks.frameworks import check_cpu_build, plan_remediation
    from gpudoctor.checks.reported import _torch_version, check_reported_cpu_build

    said = _said(facts, "framework-cpu-build-said")
    for e in [e for e in said if e.get("framework") == "dgl"][:1]:
        yield Finding(
            "framework-cpu-build",
            Severity.ERROR,
            "frameworks",
            "the installed DGL is a CPU-only build",
            "DGL said so ('Device API cuda is not enabled. Please install the cuda version of dgl'): its library was "
            "built without CUDA, so graphs cannot move to the GPU whatever the driver and PyTorch (the package "
            "index's dgl wheels are CPU builds; DGL's CUDA builds come from DGL's own wheel index).",
            (ev("pasted", e.line),),
            Remediation(
                "Install DGL's CUDA build for the installed PyTorch's version and CUDA (DGL's start page names the "
                "wheel index per torch and CUDA); uninstall the CPU dgl first.",
                (),
                component="environment",
            ),
        )
    yield from _ggml_without_gpu([e for e in said if e.get("entry") == "ggml-system-info-blas-0"][:1], facts)
    builds = [e.get("build") for e in _said(facts, "library-said") if e.get("entry") == "llama-cpp-build-number"]
    offload = [e for e in said if e.get("entry") == "llama-cpp-no-gpu-offload"][:1]
    yield from _llama_cpp_binary_without_gpu(offload, int(builds[0]) if builds and (builds[0] or "").isdigit() else None)
    torch = [e for e in said if e.get("framework") == "_pytorch_select"][:1]
    if not torch or any(
        f.code == "framework-cpu-build" for check in (check_cpu_build, check_reported_cpu_build) for f in check(facts, ctx)
    ):
        return
    version = _torch_version(facts)
    yield Finding(
        "framework-cpu-build",
        Severity.ERROR,
        "frameworks",
        (f"PyTorch {version}" if version else "the conda environment's PyTorch") + " is a CPU-only build",
        "conda list shows _pytorch_select with a cpu build: the defaults channel's selector that installs its CPU-only "
        "pytorch, so PyTorch sees no GPU however the driver is set up.",
        (ev("pasted", torch[0].line),),
        plan_remediation(facts, ctx, "torch", version, "Install a CUDA build of PyTorch."),
    )


def check_wsl_tcc(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """A Windows nvidia-smi table in a WSL report with a GPU in TCC mode: WSL 2 passes only WDDM GPUs."""
    from gpudoctor.cmdline import Cmd

    side = facts.pasted.windows_side if facts.pasted.partial else {}
    models = {int(k): str(v) for k, v in (side.get("driver_models") or {}).items()}
    tcc = sorted(i for i, m in models.items() if m == "TCC")
    if not tcc or facts.platform.wsl != 2:
        return
    yield Finding(
        "windows-tcc-mode",
        Severity.INFO,
        "driver",
        f"GPU {', '.join(str(i) for i in tcc)} run{'s' if len(tcc) == 1 else ''} in TCC mode on Windows: invisible to WSL 2",
        "The Windows nvidia-smi table pasted shows the Driver-Model TCC. WSL 2 passes only WDDM GPUs into Linux "
        "(NVIDIA's CUDA on WSL guide), so inside WSL such a GPU does not exist.",
        tuple(ev("pasted", f"GPU {i}: Driver-Model TCC (Windows nvidia-smi)") for i in tcc),
        Remediation(
            "To use the GPU from WSL 2: switch it to WDDM in an Administrator PowerShell, then restart Windows.",
            tuple(Cmd(("nvidia-smi", "-g", str(i), "-dm", "0"), root=True, note="0 = WDDM") for i in tcc),
            requires_root=True,
            component="driver",
            where="Windows",
        ),
    )


# Windows' display watchdog (Timeout Detection and Recovery) and the registry value that sets its limit: TdrDelay, in
# seconds, 2 by default, read at boot (MicrosoftDocs/windows-driver-docs, windows-driver-docs-pr/display/
# tdr-registry-keys.md @0af547090d0a2d8ad2b0d19794cdfe0769e03cb6: "This is effectively the timeout threshold. The
# default value is 2 seconds.").
_TDR_KEY = "HKLM\\SYSTEM\\CurrentControlSet\\Control\\GraphicsDrivers"
_TDR_SECONDS = "60"  # long enough for a model's longest kernels, short enough that a hung GPU still recovers


def check_windows_launch_timeout(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """cudaErrorLaunchTimeout on Windows: a GPU under the WDDM driver model (every GeForce, and a vGPU guest's) is a
    display adapter to Windows, whose watchdog resets it when one kernel runs past TdrDelay; the CUDA stack itself
    worked (it launched the kernel). Raising TdrDelay, then a restart, lets the kernel finish; nothing needs
    reinstalling. A GPU in TCC mode has no watchdog, but the text would then not print this. WSL 2 shares Windows'
    driver and its watchdog, yet its reports are judged elsewhere: only a Windows report is read here."""
    said = _said(facts, "cuda-launch-timeout")
    if not said or facts.platform.wsl or not (facts.platform.system or "").lower().startswith("win"):
        return
    yield Finding(
        "windows-tdr-timeout",
        Severity.ERROR,
        "driver",
        "Windows' display watchdog (TDR) stopped a CUDA kernel that ran longer than its limit",
        "The launch timed out and was terminated: on Windows a GPU under the WDDM driver model is a display adapter, "
        "and Windows resets it when one kernel runs longer than TdrDelay (2 seconds unless the registry says "
        "otherwise). The driver and the program's CUDA libraries work; the kernel was stopped, not refused. "
        "Reinstalling the driver or CUDA changes nothing.",
        (ev("pasted", said[0].line),),
        Remediation(
            "Read the GPU's driver model and the watchdog's limit, raise the limit (as administrator), then restart "
            "Windows, which reads it at boot; run the same program again. An absent TdrDelay is the 2-second default.",
            (
                Cmd(
                    ("nvidia-smi", "--query-gpu=name,driver_model.current,display_active", "--format=csv"),
                    note="WDDM: the watchdog applies",
                ),
                Cmd(("reg", "query", _TDR_KEY, "/v", "TdrDelay")),
                Cmd(
                    ("reg", "add", _TDR_KEY, "/v", "TdrDelay", "/t", "REG_DWORD", "/d", _TDR_SECONDS, "/f"),
                    root=True,
                    note=f"{_TDR_SECONDS} seconds before Windows resets the GPU",
                ),
                Cmd(("Restart-Computer",), root=True),
            ),
            requires_root=True,
            component="driver",
        ),
    )


# The companion each catalogued "built for another torch" message is printed by (catalogue ids).
_COMPANION_OF = {
    "xformers-built-for-another-torch": "xformers",
    "torchaudio-cuda-mismatch": "torchaudio",
    "torchvision-cuda-mismatch": "torchvision",
    "torchaudio-extension-not-loaded": "torchaudio",
    "torchvision-operator-missing": "torchvision",
    "torchvision-custom-ops-not-loaded": "torchvision",
}


def _torch(facts: Facts) -> tuple[str | None, str | None]:
    """(the installed torch's version, its CUDA) as the facts have them."""
    t = facts.frameworks.torch
    return (t.value.version, t.value.cuda) if isinstance(t, Found) else (None, None)


def check_companion_messages(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """A companion's own words that it was built for another torch: xformers' "xFormers was built for: PyTorch X ...
    (you have Y)", torchaudio's and torchvision's "compiled with different CUDA versions"."""
    from gpudoctor.checks.extensions import check_companions, companion_fix
    from gpudoctor.checks.frameworks import check_cpu_build

    said = _said(facts, "companion-built-for") + _said(facts, "companion-cuda-mismatch") + _said(facts, "companion-load-failed")
    if not said or any(f.code == "companion-torch-mismatch" for f in check_companions(facts, ctx)):
        return
    if any(f.code == "framework-cpu-build" for f in check_cpu_build(facts, ctx)):
        return  # "(you have 2.1.0+cpu)": the torch is the fault, a CPU build (framework-cpu-build says so)
    torch, cuda = _torch(facts)
    e = said[0]
    # pip's conflict line names the companion itself (catalogue.toml's pip-companion-requires-other-torch)
    name = _COMPANION_OF.get(e.get("entry") or "") or e.get("companion") or "a companion"
    pip_said = e.get("entry") == "pip-companion-requires-other-torch"
    if pip_said:
        why = f"{name} {e.get('version')} requires torch=={e.get('built')}, and torch {e.get('have')} is installed"
    elif e.kind == "companion-built-for":
        why = f"it says it was built for PyTorch {e.get('built')}, and the torch it imported is {e.get('have')}"
    elif e.get("entry") == "torchvision-custom-ops-not-loaded":
        why = "its compiled operators (torchvision/_C) did not load into the torch it imported, so none of them is registered"
    elif e.get("entry") == "torchvision-operator-missing":
        why = (
            f"torch's dispatcher has no operator torchvision::{e.get('op') or 'nms'}, which torchvision's compiled "
            "extension registers when it loads into the torch it was built for"
        )
    elif e.kind == "companion-load-failed":
        why = (
            "Windows' loader refused its compiled library, a file that is there: a DLL it links (torch's own) is not "
            "the build it was made for"
        )
    else:
        why = f"its extension is built with CUDA {e.get('companion_cuda')}, torch with CUDA {e.get('torch_cuda')}"
    if torch:
        rem = companion_fix(facts, ctx, name, torch, cuda)
    else:
        index = f" (cu{(e.get('torch_cuda') or '').replace('.', '')})" if e.get("torch_cuda") else ""
        rem = Remediation(
            f"Install the {name} release built for the installed torch, from PyTorch's index of torch's CUDA variant"
            f"{index}, with the Python that runs the program (or reinstall torch and {name} together from one index); "
            "the torch version was not shown (the commands that show it are asked for).",
            (),
            component="torch",
        )
    yield Finding(
        "companion-torch-mismatch",
        Severity.ERROR,
        "frameworks",
        f"{name} is built for another torch than the installed {torch or 'one'}",
        f"{'pip' if pip_said else name.capitalize() if name.islower() else name} said so: {why}. Its compiled parts bind to the torch they "
        "were built against, so they do not load (the features that need them are unavailable, or the import fails).",
        (ev("pasted", e.line),),
        rem,
    )


def check_numpy_abi(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """NumPy's own message: a module compiled against NumPy 1.x imported with NumPy 2 (`_ARRAY_API not found`)."""
    from gpudoctor.planner.remedy import pip

    said = _said(facts, "numpy-abi")
    if not said:
        return
    version = next((e.get("numpy") for e in said if e.get("numpy")), None)
    yield Finding(
        "numpy-abi-mismatch",
        Severity.ERROR,
        "frameworks",
        f"a module compiled against NumPy 1.x is imported with NumPy {version or '2'}",
        "NumPy said so ('A module that was compiled using NumPy 1.x cannot be run in NumPy 2' / '_ARRAY_API not "
        "found'): NumPy 2 changed the C ABI, so an extension built against NumPy 1.x (an older torch, TensorFlow, "
        "OpenCV, or another compiled package) cannot use it; its NumPy interop fails or the import does.",
        tuple(ev("pasted", e.line) for e in said[:2]),
        Remediation(
            "Install NumPy 1.x beside it (numpy<2), as NumPy's message advises; or upgrade the module to a release "
            "built against NumPy 2.",
            (pip(facts, "install", "numpy<2"),),
            component="environment",
        ),
    )


# NumPy's C-API feature versions and the first release of each (numpy/numpy numpy/_core/code_generators/cversions.txt
# @1f90bbb5: "# Version 12 (NumPy 1.14)" above 0x0000000c, ...); 0x12 (2.0) on is NumPy 2's C ABI.
_NUMPY_C_API = {
    0xA: "1.10", 0xB: "1.13", 0xC: "1.14", 0xD: "1.16", 0xE: "1.20", 0xF: "1.22", 0x10: "1.23", 0x11: "1.25",
    0x12: "2.0", 0x13: "2.1", 0x14: "2.3", 0x15: "2.4", 0x16: "2.5",
}  # fmt: skip


def check_numpy_too_old(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """NumPy's own message the other way round: a module built against a newer NumPy C-API than the NumPy imported."""
    from gpudoctor.planner.remedy import pip

    said = _said(facts, "numpy-too-old")
    if not said:
        return
    e = said[0]
    built, running = int(e.get("built") or "0", 16), int(e.get("running") or "0", 16)
    needs = _NUMPY_C_API.get(built)
    if needs is None or built <= running:
        return
    # A module built against NumPy 1.x headers cannot run on NumPy 2 (its ABI changed): the upgrade stays below 2.
    spec = f"numpy>={needs}" + (",<2" if built < 0x12 else "")
    had = _NUMPY_C_API.get(running)
    yield Finding(
        "numpy-abi-mismatch",
        Severity.ERROR,
        "frameworks",
        f"a module compiled against NumPy {needs} or newer is imported with an older NumPy"
        + (f" (C-API {e.get('running')}, first in NumPy {had})" if had else ""),
        f"NumPy said so ('module compiled against API version {e.get('built')} but this version of numpy is "
        f"{e.get('running')}'): the module (here the one being imported) was built against NumPy {needs}'s C-API, and "
        "the NumPy this Python imports is older, so the module does not load. Often an old NumPy copy is left beside a "
        "newer one (another site-packages, a user install): the upgrade must reach the one imported.",
        (ev("pasted", e.line),),
        Remediation(
            f"Upgrade the NumPy of the Python that fails to {spec.removeprefix('numpy')} (check with "
            '`python -c "import numpy; print(numpy.__version__, numpy.__file__)"` that this NumPy is the one '
            "imported; uninstall a stale copy first where it is not).",
            (pip(facts, "install", "--upgrade", spec),),
            component="environment",
        ),
    )


def check_bitsandbytes_binary(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """bitsandbytes' "Required library version not found: libbitsandbytes_cudaNNN" (0.44-0.45: "Could not find the
    bitsandbytes CUDA binary"), else its "compiled without GPU support": no binary for torch's CUDA (read from disk:
    gpudoctor.checks.extensions, the same fix)."""
    from gpudoctor.checks.extensions import bnb_install

    said = _said(facts, "bitsandbytes-binary-missing")
    if not said:
        yield from _bitsandbytes_cpu_library(facts, ctx)
        return
    e = said[0]
    cuda = e.get("cuda") or ""
    label = f"{cuda[:-1]}.{cuda[-1]}" if len(cuda) >= 2 else cuda
    torch, torch_cuda = _torch(facts)
    what, commands = bnb_install(facts, ctx, torch, torch_cuda or label or None)
    yield Finding(
        "companion-torch-mismatch",
        Severity.ERROR,
        "frameworks",
        f"the installed bitsandbytes has no binary for CUDA {label}, the CUDA of the torch it loads with",
        f"bitsandbytes said so ('Required library version not found: {e.get('library')}'): its build carries "
        "binaries for other CUDA versions only (an older or unofficial build), so it cannot use the GPU with this torch.",
        (ev("pasted", e.line),),
        Remediation(what[:1].upper() + what[1:] + ".", commands, component="torch"),
    )


def _bitsandbytes_cpu_library(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """bitsandbytes' "compiled without GPU support": it loaded its CPU library, because torch has no CUDA or because
    the release ships no library for torch's CUDA version (bitsandbytes/cextension.py get_native_library @64d382da).
    With a CUDA torch in the paste the release is the fault: one that ships torch's CUDA and accepts that torch
    (gpudoctor.checks.extensions.bnb_install). Without torch, the asks decide (the catalogue's)."""
    from gpudoctor.checks.extensions import bnb_install

    said = _said(facts, "bitsandbytes-cpu-library")
    if not said:
        return
    t = facts.frameworks.torch
    if isinstance(t, Found) and t.value.build_known and not t.value.cuda:
        return  # a CPU torch: torch is the fault, and bitsandbytes follows it
    torch, cuda = _torch(facts)
    first = ctx.matrix.bnb_first_for(cuda) if cuda else None
    if cuda is None or first is None:
        yield Finding(
            "companion-torch-mismatch",
            Severity.WARNING,
            "frameworks",
            "bitsandbytes loaded its CPU library (it says it was compiled without GPU support)",
            "bitsandbytes said so: it found no library for the CUDA of the torch it runs with and loaded its CPU one, so "
            "8-bit optimizers and quantization do not use the GPU. Either that torch has no CUDA, or the bitsandbytes "
            "release ships no library for torch's CUDA version (each release ships a list of them; releases before "
            "0.43 had no official Windows build). Which one the versions decide.",
            (ev("pasted", said[0].line),),
        )
        return
    what, commands = bnb_install(facts, ctx, torch, cuda)
    yield Finding(
        "companion-torch-mismatch",
        Severity.ERROR,
        "frameworks",
        f"bitsandbytes loaded its CPU library: its release ships no library for torch's CUDA {cuda}",
        f"bitsandbytes said it was compiled without GPU support: it loads the library of torch's CUDA version and, "
        f"where its release has none, its CPU library. torch here is a CUDA {cuda} build, and bitsandbytes ships a "
        f"library for CUDA {cuda} from {first.since} on, so the installed bitsandbytes is older (or an unofficial "
        "build). The driver, the toolkit and torch need no change.",
        (ev("pasted", said[0].line),),
        Remediation(what[:1].upper() + what[1:] + " (in the environment the program runs with).", commands, component="torch"),
    )


def check_bitsandbytes_windows(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """A bitsandbytes before 0.43 on native Windows: its CUDA setup searches libcudart.so (Linux's runtime) and fails
    whatever the GPU; 0.43.0 is the first release that supports Windows (bitsandbytes-foundation/bitsandbytes CHANGELOG.md
    @a0ae4608, 0.43.0: "Windows should be officially supported in bitsandbytes"; its package index files include a
    py3-none-win_amd64 wheel from that release on), so the fix is that release or newer in the same environment."""
    from gpudoctor.checks.libraries import fork_installed, fork_replaced
    from gpudoctor.planner.remedy import pip

    said = _said(facts, "bitsandbytes-linux-cuda-setup")
    if not said or not facts.platform.system.lower().startswith("win") or _said(facts, "bitsandbytes-binary-missing"):
        return  # (its "Required library version not found" is check_bitsandbytes_binary's: one finding per cause)
    yield Finding(
        "framework-windows-native-gpu",
        Severity.ERROR,
        "frameworks",
        "the installed bitsandbytes predates Windows support (before 0.43): it looks for Linux's libcudart.so",
        (
            "bitsandbytes' CUDA setup says it found no libcudart.so and searched /usr/local/cuda/lib64, Linux's names and "
            "folders, on a Windows machine (its paths print as WindowsPath)"
            if "libcudart" in said[0].line
            else "Windows could not load bitsandbytes' CUDA library from bitsandbytes\\cuda_setup, the CUDA setup of "
            "releases before 0.43 (an unofficial Windows build of one)"
        )
        + ": releases before 0.43 had no Windows build, so it cannot load its CUDA library whatever the driver, the "
        "toolkit or torch. 0.43.0 brought official Windows wheels; no CUDA toolkit is needed for them (they use torch's "
        "CUDA).",
        (ev("pasted", said[0].line),),
        (
            Remediation(
                f"Uninstall the unofficial {fork.fork} {fork.version} (it installs the same bitsandbytes package) and "
                f"install the official {fork.requirement}, whose Windows wheels carry their CUDA libraries, in the "
                "environment that runs it; then restart the program or kernel (`python -m bitsandbytes` then reports "
                "success; torch must be a CUDA build).",
                fork_replaced(facts, fork),
                component="torch",
            )
            if (fork := fork_installed(facts)) is not None and fork.official == "bitsandbytes"
            else Remediation(
                "Upgrade bitsandbytes to 0.43.0 or newer in the environment that runs it (a notebook's kernel: its own "
                "python), then restart the program or kernel; `python -m bitsandbytes` then reports success.",
                (pip(facts, "install", "--upgrade", "bitsandbytes>=0.43.0"),),
                component="torch",
            )
        ),
    )


# The driver's video libraries are packages of their own. Debian's nvidia-graphics-drivers splits them out as
# libnvcuvid1 ("NVIDIA CUDA Video Decoder runtime library", libnvcuvid.so.1) and libnvidia-encode1 (libnvidia-encode.so.1),
# at the driver's version (debian/control: each Depends on libcuda1 (= ${binary:Version})), and nvidia-driver does not
# pull the decoder in; Ubuntu's are libnvidia-decode-<branch> and libnvidia-encode-<branch>.
_DEBIAN_VIDEO = {"libnvcuvid.so.1": "libnvcuvid1", "libnvidia-encode.so.1": "libnvidia-encode1"}
_DEBIAN_DRIVER = ("nvidia-driver", "nvidia-driver-libs", "libcuda1", "nvidia-smi")
_UBUNTU_DRIVER = LazyPattern(r"nvidia-driver-(?P<branch>\d{3})(?:-server)?(?:-open)?")


def check_video_library_packages(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """NVENC/NVDEC failing where the text lists the host's NVIDIA packages: the driver's video library package that the
    listing lacks, installed at the listed driver's version (the same repository and release as the driver)."""
    wanted = _said(facts, "video-codec-failing-said") + _said(facts, "video-library-missing")
    listed = _said(facts, "distro-package-installed")
    if not wanted or not listed:
        return
    pkgs = {e.get("package"): e.get("version") for e in listed}
    ubuntu = next((m for n in pkgs if (m := _UBUNTU_DRIVER.fullmatch(n or ""))), None)
    if ubuntu is not None:
        version = pkgs[ubuntu.group(0)]
        needs = {
            "libnvcuvid.so.1": f"libnvidia-decode-{ubuntu.group('branch')}",
            "libnvidia-encode.so.1": f"libnvidia-encode-{ubuntu.group('branch')}",
        }
    else:
        version = next((pkgs[n] for n in _DEBIAN_DRIVER if n in pkgs), None)
        needs = dict(_DEBIAN_VIDEO)
    sonames = {e.get("soname") for e in wanted if e.get("soname")}
    missing = [(so, pkg) for so, pkg in needs.items() if pkg not in pkgs and (not sonames or so in sonames)]
    if not version or not missing:
        return
    names = ", ".join(pkg for _, pkg in missing)
    yield Finding(
        "driver-video-library-missing",
        Severity.ERROR,
        "driver",
        f"the host's NVIDIA driver {version} is installed without its video library package ({names})",
        f"The text wants NVIDIA's video encoder or decoder, and the host's package listing shows the driver at {version} "
        f"without {names}: the driver's video libraries ({', '.join(so for so, _ in missing)}) are packages of their own, "
        "which the driver's metapackage does not always pull in. A container gets them only from the host (the NVIDIA "
        "runtime mounts the host's copies for the video capability). A listing filtered by a word ('grep nvidia') may "
        "leave a package out: the loader's cache says which libraries are there.",
        tuple(ev("pasted", e.line) for e in wanted[:1]),
        Remediation(
            f"On the host, check the loader's cache, then install {names} at the driver's version {version} (the same "
            "repository as the driver); then recreate the container that uses it.",
            (
                Cmd(("ldconfig", "-p"), pipe=("grep", "-E", "libnvcuvid|libnvidia-encode"), note="on the host"),
                Cmd(("apt-get", "install", "-y", *(f"{pkg}={version}" for _, pkg in missing)), root=True),
            ),
            component="driver",
        ),
    )


def check_video_capability(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """The driver's video library (libnvcuvid, libnvidia-encode) missing in a container that docker exec (or docker run)
    names, where the text shows no video capability asked: the NVIDIA runtime mounts the host's video libraries only
    for the `video` driver capability, and the default is compute,utility (NVIDIA/nvidia-container-toolkit,
    internal/config/image/capabilities.go: DefaultDriverCapabilities). The capabilities are read when the container is
    created, so the container is recreated with them; setting the variable inside it changes nothing."""
    from gpudoctor.facts import EXEC_NAMED, IMAGE_RUN
    from gpudoctor.planner.where import container_said

    wanted = _said(facts, "video-library-missing")
    if not wanted or _said(facts, "distro-package-installed"):
        return  # (a host package listing beside it: check_video_library_packages names the missing package)
    if _said(facts, "video-capability-said"):
        return  # the container asked for it: the host's driver without the library is what is left (an ask)
    named = next((c.get("means") or "" for c in facts.pasted.cues if c.get("cue") == EXEC_NAMED), "")
    image = next((c.get("means") or "" for c in facts.pasted.cues if c.get("cue") == IMAGE_RUN), "")
    runtime = container_said(facts)
    if not (named or image) or runtime not in (None, "docker", "podman"):
        return
    tool = "podman" if runtime == "podman" else "docker"
    name: str | Placeholder = named or Placeholder("container")
    # the committed image is named after the container where its name is a valid repository name (lower case)
    kept: str | Placeholder = f"{named}:video" if re.fullmatch(r"[a-z0-9][a-z0-9._-]{0,100}", named) else Placeholder("new-image")
    gpus = 'all,"capabilities=compute,utility,video"'
    yield Finding(
        "container-video-capability-missing",
        Severity.ERROR,
        "platform",
        "the container was created without the video driver capability: the driver's video library is not in it",
        "The NVIDIA container runtime mounts the host driver's video libraries (libnvcuvid, libnvidia-encode) only into "
        "a container created with the video driver capability; the default capabilities are compute and utility, so "
        "CUDA and nvidia-smi work while the video decoder or encoder cannot load. The capabilities are read once, when "
        "the container is created: exporting NVIDIA_DRIVER_CAPABILITIES inside it, or in a docker exec shell, changes "
        "nothing. Installing a driver inside the container would put libraries of another version than the host's "
        "module there.",
        tuple(ev("pasted", e.line) for e in wanted[:1]),
        Remediation(
            "Recreate the container with the video capability (keep what was installed in it by committing it to an "
            f"image first): --gpus {gpus}, or -e NVIDIA_DRIVER_CAPABILITIES=compute,utility,video (ENV in the image's "
            "Dockerfile does the same for every container made from it); then check that the library is there.",
            (
                Cmd(
                    (tool, "inspect", name, "--format", "{{json .Config.Env}} {{json .HostConfig.DeviceRequests}}"),
                    note="on the host: the capabilities it was created with",
                ),
                Cmd((tool, "commit", name, kept), note="keeps what was installed in it; skip if the image has it all"),
                Cmd((tool, "rm", "-f", name)),
                Cmd(
                    (
                        tool,
                        "run",
                        "-it",
                        *(("--name", named) if named else ()),
                        "--gpus",
                        gpus,
                        kept if named else image,
                    ),
                    note="on the host, with the volume and port options it had",
                ),
                Cmd(
                    (tool, "exec", name, "ldconfig", "-p"),
                    pipe=("grep", "-E", "libnvcuvid|libnvidia-encode"),
                    note="the host driver's video libraries, mounted",
                ),
            ),
            component="container",
            where="the host",
        ),
    )


# Windows' commit limit read in any language (the two cmdlets' property names are not localized): the paging file's size
# and peak use, and the commit limit (TotalVirtualMemorySize) beside the RAM (TotalVisibleMemorySize), both in kB.
_PAGEFILE_READS = (
    Cmd(
        (
            "powershell",
            "-NoProfile",
            "-Command",
            "Get-CimInstance Win32_PageFileUsage | Format-List Name,AllocatedBaseSize,PeakUsage",
        ),
        note="the paging file: its size and peak use, in MB",
    ),
    Cmd(
        (
            "powershell",
            "-NoProfile",
            "-Command",
            "Get-CimInstance Win32_OperatingSystem | Format-List TotalVisibleMemorySize,TotalVirtualMemorySize,FreeVirtualMemory",
        ),
        note="the RAM and the commit limit, RAM plus paging file, in kB",
    ),
)


def check_windows_commit_limit(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """Windows' ERROR_COMMITMENT_LIMIT (1455) as torch raises it loading a DLL of its own: mapping the DLL would pass the
    system's commit limit, RAM plus the paging file. Not a broken install: each process that imports torch (every
    DataLoader worker is one, started by spawn on Windows) maps its CUDA DLLs again, so many workers exhaust a small or
    fixed paging file (cszn/KAIR issue 127: fewer workers; pytorch/pytorch issue 59904: the paging file's size)."""
    said = _said(facts, "windows-commit-limit")
    if not said or not facts.platform.system.lower().startswith("win"):
        return
    dll = re.search(r"Error loading \\?\"[^\"\n]{0,300}?([\w.+-]{1,80}\.dll)", said[0].line)
    yield Finding(
        "windows-paging-file-too-small",
        Severity.ERROR,
        "platform",
        "Windows ran out of commit (RAM plus the paging file) loading " + (dll.group(1) if dll else "a DLL"),
        "Windows refused to map the DLL because the system's commit limit, the RAM plus the paging file, is used up "
        "(error 1455, 'The paging file is too small for this operation to complete'): the install is intact, and "
        "reinstalling changes nothing. Each process that imports torch maps its CUDA DLLs again, several GB of commit "
        "each: DataLoader workers (started anew on Windows), several programs at once, or a small or fixed paging file.",
        (ev("pasted", said[0].line),),
        Remediation(
            "Read the paging file's size and the commit limit. Then, on Windows, let Windows manage the paging file on a "
            "drive with free space (System Properties > Advanced > Performance Settings > Advanced > Virtual memory > "
            "Change: 'Automatically manage paging file size for all drives', or a larger custom size), which applies "
            "after the next restart; or start fewer processes that load torch: a lower num_workers in the DataLoader "
            "(num_workers=0 loads in the main process).",
            _PAGEFILE_READS,
            component="platform",
            where="Windows",
        ),
    )


def check_triton_windows_cuda(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """triton-windows' "Failed to find CUDA.": Triton compiles its kernels at run time and needs a CUDA 12 toolkit
    (ptxas.exe, cuda.h, cuda.lib) where it looks: CUDA_PATH or CUDA_HOME, NVIDIA's pip wheels, the conda env's Library,
    else C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12* (triton-lang/triton-windows windows_utils.py
    @8c21d8a9, find_cuda). A CUDA 11 toolkit there is not taken; torch's own CUDA libraries do not count."""
    from gpudoctor.cmdline import Cmd

    said = _said(facts, "triton-windows-no-cuda")
    if not said or not facts.platform.system.lower().startswith("win"):
        return
    yield Finding(
        "framework-cuda-libs-missing",
        Severity.ERROR,
        "toolkit",
        "Triton on Windows finds no CUDA 12 toolkit to compile its kernels with",
        "triton-windows said so ('Failed to find CUDA.'): it compiles kernels at run time with a CUDA 12 toolkit's "
        "ptxas.exe, cuda.h and cuda.lib, found through CUDA_PATH (or CUDA_HOME), NVIDIA's pip wheels, the conda "
        "environment or a v12.x folder under C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA; a CUDA 11 toolkit "
        "(a cudatoolkit 11.x in the environment, a CUDA_PATH naming v11.x) is not taken. torch itself runs on its own "
        "CUDA libraries, so torch.cuda.is_available() can be True meanwhile; the driver and torch need no change.",
        (ev("pasted", said[0].line),),
        Remediation(
            "See which toolkit the environment shows Triton (CUDA_PATH and nvcc), then install NVIDIA's CUDA 12.x "
            "toolkit of torch's CUDA major (its Windows installer, the toolkit only; it sets CUDA_PATH to its v12.x "
            "folder), and open a new terminal; or upgrade to a triton-windows release that bundles its own CUDA (the "
            "later wheels look in their own bundle first), of the release line that fits the installed torch.",
            (
                Cmd(("dir", _WINDOWS_TOOLKIT_ROOT.removesuffix("\\v")), note="the toolkits installed: one vX.Y folder each"),
                Cmd(("where", "nvcc"), note="the toolkit first on PATH; CUDA_PATH must name a v12.x folder"),
            ),
            component="toolkit",
        ),
    )


def check_wsl_libcuda(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """In WSL 2 the driver's libcuda comes from Windows, in /usr/lib/wsl/lib; a program that dlopens the unversioned
    libcuda.so (cuDNN 8's sublibraries, bitsandbytes) fails where that directory is not on the loader's path. Where the
    text shows the CUDA toolkit's stub libcuda answering instead (CUDA error 34, CUDA_ERROR_STUB_LIBRARY: a link to
    lib64/stubs/libcuda.so, or the stubs directory on LD_LIBRARY_PATH, made to get past the first error), that link
    or entry goes too: the stub's cuInit always fails."""
    from gpudoctor.cmdline import Cmd

    if not facts.pasted.partial or facts.platform.wsl != 2:
        return
    said = [e for e in _said(facts, "library-missing") if re.fullmatch(r"libcuda\.so(?:\.1)?", e.get("soname") or "")]
    stub = _said(facts, "cuda-stub-library")
    if not (said or stub):
        return
    e = said[0] if said else stub[0]
    wanted = e.get("wanted") if said else None
    soname = e.get("soname") if said else "libcuda.so.1"
    prepend = library_dir(facts, ("/usr/lib/wsl/lib",), note="first on LD_LIBRARY_PATH, the rest kept")
    if stub:
        title = "the CUDA toolkit's stub libcuda is loaded in WSL 2 instead of the driver's (/usr/lib/wsl/lib)"
        detail = (
            "cuInit answered CUDA error 34 (CUDA_ERROR_STUB_LIBRARY) as the text shows: the libcuda loaded is the CUDA "
            "toolkit's link-time stub (lib64/stubs/libcuda.so), whose every call fails, put in place of the driver's "
            "(a libcuda.so.1 link to it, or its stubs directory on LD_LIBRARY_PATH). In WSL 2 the driver is Windows' "
            "and its libcuda lives in /usr/lib/wsl/lib. The CUDA and cuDNN versions are not at fault, and no Linux "
            "driver belongs in WSL."
        )
        summary = (
            "Remove the link made to the stub libcuda and take the stubs directory off LD_LIBRARY_PATH (shell profile, "
            "~/.bashrc), then put /usr/lib/wsl/lib first on the loader's path, the rest kept."
        )
        commands: tuple = (
            Cmd(
                ("find", "/", "-xdev", "-name", "libcuda.so*", "-lname", "*stubs*"),
                note="links to the stub libcuda: remove each one it lists with rm",
            ),
            Cmd(("printenv", "LD_LIBRARY_PATH"), note="a directory ending in stubs must not be on it"),
            Cmd(("ls", "-l", "/usr/lib/wsl/lib/libcuda.so.1"), note="the libcuda of the Windows driver"),
            prepend,
        )
    else:
        title = f"{soname} (the WSL driver's library, in /usr/lib/wsl/lib) is not on the loader's path"
        detail = (
            f"The loader could not open {soname}"
            + (f", which {wanted} needs," if wanted else "")
            + " as the text shows. In WSL 2 the driver is Windows' and its libcuda lives in /usr/lib/wsl/lib; programs "
            "that load the unversioned libcuda.so find it only through the loader's cache or LD_LIBRARY_PATH. Nothing "
            "is missing from the CUDA or cuDNN install, and no Linux driver belongs in WSL."
        )
        summary = (
            "Put /usr/lib/wsl/lib on the loader's path (ahead of any directories already on LD_LIBRARY_PATH), after "
            "checking that WSL's libcuda is there."
        )
        commands = (Cmd(("ls", "-l", "/usr/lib/wsl/lib/libcuda.so")), prepend)
    yield Finding(
        "framework-cuda-libs-missing",
        Severity.ERROR,
        "frameworks",
        title,
        detail,
        tuple(ev("pasted", x.line) for x in (stub[:1] + said[:1])),
        Remediation(summary, commands, component="environment"),
    )


def check_build_toolkit_missing(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """torch.utils.cpp_extension's and DeepSpeed's op builder's "CUDA_HOME ..." (catalogue.toml: cuda-home-unset): a
    CUDA extension's build found no toolkit (CUDA_HOME unset, no nvcc on PATH, no /usr/local/cuda). A pip or conda
    PyTorch brings the CUDA runtime, not nvcc, so PyTorch itself runs on the GPU meanwhile. The fix is a toolkit of
    torch's CUDA version (torch.utils.cpp_extension refuses another major, DeepSpeed another version), named by
    CUDA_HOME; where the text shows torch's CUDA it is installed: into the conda environment that ran (conda's
    cuda-toolkit), else from NVIDIA's repository for this distribution. Otherwise what decides it is asked."""
    from gpudoctor.checks.toolkit import conda_install, toolkit_install
    from gpudoctor.cmdline import PrependPath
    from gpudoctor.versions import major_minor

    said = _said(facts, "cuda-home-unset")
    if not said or facts.toolkits.nvcc_on_path_version or "CUDA_HOME" in facts.platform.env:
        return  # a toolkit shown or named: not this cause (toolkit-torch-major-mismatch judges a toolkit of another major)
    torch = facts.frameworks.torch.value if isinstance(facts.frameworks.torch, Found) else None
    mm = major_minor(torch.cuda) if torch is not None and torch.cuda else None
    py = facts.frameworks.python
    env = py.value if isinstance(py, Found) else None
    rem = None
    if mm is not None:
        # the environment that ran: its interpreter's bin/.. (PythonEnv.prefix may name the conda installation's base)
        exe = (env.executable or "") if env is not None and env.kind == "conda" else ""
        home = posixpath.dirname(posixpath.dirname(exe)) if posixpath.basename(posixpath.dirname(exe)) == "bin" else ""
        conda = conda_install(mm) if home else None
        if conda is not None:
            rem = Remediation(
                f"Install CUDA {mm}'s toolkit (torch's CUDA) into the conda environment that ran, and point CUDA_HOME "
                "at it; then rerun the build.",
                (
                    dataclasses.replace(conda, argv=(*conda.argv[:2], "-p", home, *conda.argv[2:])),
                    SetEnv("CUDA_HOME", home, note="the environment's nvcc is in its bin"),
                ),
                component="toolkit",
            )
        elif (install := toolkit_install(facts, ctx.matrix, mm)).commands:
            root = f"/usr/local/cuda-{mm}"
            rem = Remediation(
                f"Install CUDA {mm}'s toolkit (torch's CUDA; the toolkit only, not the driver) and point CUDA_HOME at "
                "it, with its nvcc first on PATH; then rerun the build." + (f" {install.says}" if install.says else ""),
                (
                    *install.commands,
                    SetEnv("CUDA_HOME", root),
                    PrependPath("PATH", (f"{root}/bin",), note="its nvcc first on PATH, the rest kept"),
                ),
                requires_root=True,
                component="toolkit",
            )
    e = said[0]
    yield Finding(
        "toolkit-missing-for-build",
        Severity.ERROR,
        "toolkit",
        "a CUDA extension's build found no CUDA toolkit (no nvcc, CUDA_HOME unset)"
        + (f": it needs CUDA {mm}'s, torch's" if mm else ""),
        "The build stopped because no CUDA compiler was found, as the text shows: CUDA_HOME is not set, and no nvcc "
        "is on PATH or in /usr/local/cuda. A pip or conda PyTorch carries the CUDA runtime libraries but not nvcc, "
        "so PyTorch runs on the GPU while building its extensions (DeepSpeed's ops, apex, custom ops) needs a toolkit "
        "of torch's CUDA version" + (f" ({mm})" if mm else "") + ". The driver and PyTorch need no change.",
        (ev("pasted", e.line),),
        rem,
    )


def check_shell_nvcc_not_found(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """The shell a build ran nvcc from found none on PATH (catalogue.toml: shell-nvcc-not-found; make's recipes exit with
    127). NVIDIA's installers put the toolkit under /usr/local/cuda (a link to /usr/local/cuda-X.Y) and leave PATH to the
    user (the CUDA installation guide for Linux, post-installation actions), and sudo's secure_path drops the user's
    PATH: the toolkit is most often there, off PATH. Its nvcc is checked, its bin put first on PATH in the shell that
    runs the build, and the build rerun from there; where no toolkit is there, one is installed first."""
    from gpudoctor.cmdline import PrependPath
    from gpudoctor.planner.remedy import keep_path

    said = _said(facts, "shell-nvcc-not-found")
    if not said or (facts.platform.system or "").lower().startswith("win"):
        return
    yield Finding(
        "toolkit-missing-for-build",
        Severity.ERROR,
        "toolkit",
        "the build's shell found no nvcc on its PATH",
        "The shell that ran the build's nvcc could not find it, as the text shows (exit status 127). A CUDA toolkit "
        "installed by NVIDIA's installers lives in /usr/local/cuda, whose bin is not on PATH until you put it there, and "
        "sudo runs commands with its own PATH; a toolkit that works in one terminal can be missing from the shell a build "
        "runs. The driver, cuDNN and the GPU are not involved.",
        (ev("pasted", said[0].line),),
        Remediation(
            "Check that the toolkit's nvcc is in /usr/local/cuda/bin (if not, install the CUDA toolkit first), put that "
            "directory first on PATH in the shell that runs the build, and rerun the build from that shell (without sudo, "
            'or with sudo env PATH="$PATH": sudo resets PATH).' + keep_path(facts),
            (
                Cmd(("ls", "-l", "/usr/local/cuda/bin/nvcc"), note="where NVIDIA's installers put nvcc"),
                PrependPath("PATH", ("/usr/local/cuda/bin",), note="the rest of PATH kept"),
                Cmd(("nvcc", "--version"), note="then rerun the build from this shell"),
            ),
            component="toolkit",
        ),
    )


def check_build_cudnn_headers(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """torch's ATen/cudnn/cudnn-wrapper.h not finding <cudnn.h> while an extension compiles against it (catalogue.toml:
    cpp-extension-cudnn-header-missing). torch.utils.cpp_extension puts CUDA_HOME/include on the include path, and
    cuDNN's include directory only from CUDNN_HOME or CUDNN_PATH (pytorch/pytorch torch/utils/cpp_extension.py
    @26e79290, include_paths): a cuDNN installed elsewhere (an environment module's root, a conda environment, NVIDIA's
    cuDNN wheel) is not seen, and CXXFLAGS set in the shell do not reach the nvcc lines of the build. The fix names
    that root in CUDNN_PATH and CUDNN_HOME in the shell that builds, and rebuilds with pip's --no-build-isolation (a
    build-isolated pip builds against a torch of its own). Quiet where the text shows CUDNN_PATH or CUDNN_HOME set: a
    root named and still no header is another cause (a root without include/, a runtime-only cuDNN)."""
    from gpudoctor.planner.where import python_step

    said = _said(facts, "cudnn-headers-missing")
    if not said or {"CUDNN_PATH", "CUDNN_HOME"} & set(facts.platform.env):
        return
    e = said[0]
    yield Finding(
        "cudnn-headers-missing-for-build",
        Severity.ERROR,
        "cudnn",
        "an extension's build found no cudnn.h: torch's cuDNN headers need cuDNN's include directory",
        "The compiler stopped in torch's ATen/cudnn headers, which include cudnn.h, as the text shows. "
        "torch.utils.cpp_extension adds cuDNN's include directory only from CUDNN_HOME or CUDNN_PATH (besides "
        "CUDA_HOME/include), so a cuDNN installed elsewhere (an environment module's root, a conda environment, "
        "NVIDIA's cuDNN wheel) is not seen, and CXXFLAGS set in the shell do not reach the build's nvcc lines. The "
        "driver, the toolkit and PyTorch need no change.",
        (ev("pasted", e.line),),
        Remediation(
            "Point the build at the cuDNN that is installed: export CUDNN_PATH and CUDNN_HOME to the cuDNN root whose "
            "include/ holds cudnn.h (the root variable an environment module sets, the conda environment's prefix, or "
            "site-packages/nvidia/cudnn of NVIDIA's cuDNN wheel of torch's CUDA major), in the same shell as the "
            "build, with the environment active; then rebuild with `python -m pip install --no-build-isolation` so "
            "the build uses this torch. Keep that cuDNN's lib directory on the loader's path where the extension runs.",
            (
                Cmd(("printenv",), pipe=("grep", "-i", "cudnn"), note="a cuDNN root that a module or an install set"),
                python_step(
                    facts,
                    "-c",
                    "import torch, torch.utils.cpp_extension as c; print(torch.__version__, torch.version.cuda, c.CUDA_HOME, c.CUDNN_HOME)",
                ),
            ),
            component="cudnn",
        ),
    )


def check_triton_libcuda(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """Triton's "libcuda.so cannot found!" (triton/common/build.py, libcuda_dirs @0ad2a436): it links its launcher with
    -lcuda against the directories `ldconfig -p` lists for libcuda, and the linker needs the unversioned libcuda.so
    there. A driver installed without its development link has only libcuda.so.1: the driver works, and a symlink
    beside it (the message names the file) is the fix; no toolkit, driver or package reinstall is."""
    from gpudoctor.cmdline import Cmd

    said = _said(facts, "triton-libcuda-missing")
    if not said:
        return
    e = said[0]
    located = e.get("located") or ""
    lib_dir, _, name = located.rpartition("/")
    check = Cmd(("ldconfig", "-p"), pipe=("grep", "libcuda"), note="the driver's libcuda files the loader's cache lists")
    if lib_dir and name != "libcuda.so":
        summary = (
            f"Create libcuda.so beside the driver's {name} in {lib_dir} and refresh the loader's cache, then clear "
            "Triton's cache (~/.triton/cache) and rerun. (Triton releases that read TRITON_LIBCUDA_PATH also take a "
            "directory of your own holding such a symlink, without root.)"
        )
        commands: tuple = (
            check,
            Cmd(("ln", "-s", located, f"{lib_dir}/libcuda.so"), root=True),
            Cmd(("ldconfig",), root=True),
            # Triton keeps the launcher it failed to build for under ~/.triton/cache (its default TRITON_CACHE_DIR);
            # named from the home directory, since no shell expands a quoted ~.
            Cmd(("rm", "-rf", "./.triton/cache"), note="from the home directory"),
        )
    else:
        summary = (
            "Triton found no libcuda in the loader's cache: refresh the cache (the driver's library directory must be "
            "in /etc/ld.so.conf.d), check that libcuda.so.1 and libcuda.so are listed, then rerun."
        )
        commands = (Cmd(("ldconfig",), root=True), check)
    yield Finding(
        "framework-cuda-libs-missing",
        Severity.ERROR,
        "frameworks",
        "Triton cannot link its launcher: no libcuda.so (the driver's unversioned link) where the loader's cache lists libcuda",
        "Triton said so, as the text shows: it compiles a small launcher with -lcuda against the directories of the "
        "driver's libcuda that `ldconfig -p` lists, and the linker needs the name libcuda.so there"
        + (f"; only {located} is there" if located else "")
        + ". The driver's library itself is installed; its development link is not. No CUDA toolkit, driver or "
        "package reinstall changes that.",
        (ev("pasted", e.line),),
        Remediation(summary, commands, requires_root=True, component="environment"),
    )


def check_component_below_min_arch(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """A component the paste names (catalogue.toml's [[component]]) whose every release needs a compute capability the
    GPUs shown lack (RAPIDS: Pascal, 6.0), beside its "no kernel image is available": its kernels were never built for
    this GPU, so no driver, toolkit or package version changes it; another GPU does."""
    failed = _said(facts, "no-kernel-image")
    if not failed:
        return
    # Imported past the test above: the catalogue's two record classes only for a text that says it.
    from gpudoctor.facts import COMPONENT_NAMED
    from gpudoctor.parsers.catalogue import components
    from gpudoctor.planner.context import gpu_cc
    from gpudoctor.versions import vkey

    named = {c.get("means") for c in facts.pasted.cues if c.get("cue") == COMPONENT_NAMED}
    for comp in components():
        if comp.id not in named or not comp.min_cc:
            continue
        ccs = [(g, cc) for g in facts.driver.gpus if (cc := gpu_cc(g, ctx))]
        if not ccs or any(vkey(cc) >= vkey(comp.min_cc) for _, cc in ccs):
            continue  # (a GPU that it runs on may be the one that failed)
        g, cc = ccs[0]
        yield Finding(
            "framework-arch-unsupported",
            Severity.ERROR,
            "frameworks",
            f"{comp.id} does not run on the {g.name} (compute capability {cc}; it needs {comp.min_cc} or newer)",
            f"The text shows 'no kernel image is available for execution on the device' from {comp.id}, on GPUs of compute "
            f"capability {cc}: its releases are built for {comp.min_cc} and newer only ({comp.source.get('repo', '')} "
            f"{comp.source.get('path', '')}), so no driver, CUDA or package version gives it kernels for this GPU.",
            (ev("pasted", failed[0].line), ev(g.source, f"{g.name}: {cc}")),
            Remediation(
                f"Run it on a GPU of compute capability {comp.min_cc} or newer (another machine or cloud instance); on this "
                "one, use the CPU libraries it mirrors. No install fixes it.",
                (),
                component="gpu",
            ),
        )
        return


# Where NVIDIA's Windows installer puts each toolkit (one vX.Y folder per version); CUDA_PATH names one of them.
_WINDOWS_TOOLKIT_ROOT = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v"


def check_cuda_path_folder(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """`[WinError 3] The system cannot find the path specified: '...\\CUDA\\11.2\\bin'` from os.add_dll_directory: a
    program (llama-cpp-python, CuPy) added CUDA_PATH's bin to the DLL search and that folder is not there, so CUDA_PATH
    names a toolkit that is not installed. The user variable is repointed at the installed toolkit (a user variable of
    the same name overrides the machine's); the machine's own check (checks.windows) says it where the folders were read."""
    from gpudoctor.checks.windows import check_cuda_path
    from gpudoctor.cmdline import Cmd, Placeholder

    said = _said(facts, "cuda-path-folder-missing")
    if not said or any(True for _ in check_cuda_path(facts, ctx)):
        return
    e = said[0]
    folder = (e.get("folder") or "").lstrip("vV")
    stated = [
        x.get("cuda") or ""
        for x in _said(facts, "cuda-toolkit-said") + _said(facts, "cuda-version-said") + _said(facts, "cuda-have-said")
    ]
    toolkit = facts.toolkits.nvcc_on_path_version or ""
    installed = next((v for v in [toolkit, *stated] if v and v.split(".")[:2] != folder.split(".")[:2]), "")
    installed = ".".join(installed.split(".")[:2])
    target = (_WINDOWS_TOOLKIT_ROOT + installed,) if installed else (Placeholder("installed-cuda-toolkit-folder"),)
    yield Finding(
        "windows-cuda-path-missing",
        Severity.ERROR,
        "toolkit",
        f"CUDA_PATH names a CUDA toolkit folder that is not there ({folder or 'see the line'})"
        + (f"; CUDA {installed} is the one installed" if installed else ""),
        "The program added CUDA_PATH's folder to the DLL search (os.add_dll_directory, as llama-cpp-python and CuPy do "
        "on Windows) and Windows answered that the folder does not exist: CUDA_PATH still names a toolkit that was "
        "removed or never installed"
        + (f", while CUDA {installed} is installed" if installed else "")
        + ". Uninstalling a toolkit leaves the variable behind; a user variable of the same name overrides the "
        "machine's.",
        (ev("pasted", e.line),),
        Remediation(
            "Check the value (echo %CUDA_PATH% in cmd, $env:CUDA_PATH in PowerShell) and the folders under "
            "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA, then point your user's CUDA_PATH at the installed "
            "toolkit's folder and open a new terminal (running programs keep the old environment).",
            (
                # (cmd.exe's dir and PowerShell's alias of Get-ChildItem alike: the vX.Y folders installed)
                Cmd(("dir", _WINDOWS_TOOLKIT_ROOT.removesuffix("\\v")), note="the toolkits installed: one vX.Y folder each"),
                Cmd(("setx", "CUDA_PATH", *target), note="your user's variable; a new terminal sees it"),
            ),
            component="toolkit",
        ),
    )


def check_xla_libdevice_root(facts: Facts, ctx: Context) -> Iterable[Finding]:
    r"""XLA's "Can't find libdevice directory ${CUDA_DIR}/nvvm/libdevice" (catalogue.toml: xla-libdevice-not-found) on
    Windows, where the text names an installed toolkit's folder (CUDA_PATH's value, or the folder itself). XLA looks
    for nvvm\libdevice only under --xla_gpu_cuda_data_dir, its build's CUDA location and the working directory
    (openxla/xla xla/service/gpu/llvm_gpu_backend/default/nvptx_libdevice_path.cc @80c095fc); "${CUDA_DIR}" is the
    message's placeholder, no variable it reads, so CUDA_DIR, CUDA_PATH and PATH change nothing. XLA_FLAGS names the
    folder. Its value is quoted for XLA's own parser (a space ends an unquoted value) with forward slashes, since inside
    double quotes that parser takes a backslash as an escape (xla/parse_flags_from_env.cc @16569562)."""
    said = _said(facts, "xla-cuda-data-dir-missing")
    if not said or facts.platform.system != "Windows" or "xla_gpu_cuda_data_dir" in (facts.platform.env.get("XLA_FLAGS") or ""):
        return  # not Windows, or XLA was pointed somewhere: the asks decide (what is in the folder it was given)
    named = [e for e in _said(facts, "cuda-path-value") + _said(facts, "cuda-toolkit-folder-said") if e.get("root")]
    if not named:
        return  # no toolkit shown: whether one is installed is what the catalogue's asks decide
    # The newest toolkit named: its ptxas, which XLA takes from the same folder, knows the newest GPUs.
    e = max(named, key=lambda x: vkey(x.get("cuda") or "0"))
    root = e.get("root").replace("/", "\\").rstrip("\\")
    version = e.get("cuda") or ""
    flag = '--xla_gpu_cuda_data_dir="' + root.replace("\\", "/") + '"'
    yield Finding(
        "toolkit-missing-for-build",
        Severity.ERROR,
        "toolkit",
        f"XLA's JIT found no nvvm\\libdevice: it was not told where CUDA {version}'s toolkit is (XLA_FLAGS)",
        "XLA (TensorFlow's JIT compilation, JAX) compiles GPU kernels itself and needs the toolkit's "
        "nvvm\\libdevice\\libdevice.10.bc (and its ptxas). It looks only in the folder XLA_FLAGS names with "
        "--xla_gpu_cuda_data_dir, the CUDA location of its own build and the working directory; '${CUDA_DIR}' in the "
        "message is a placeholder, not a variable it reads, so CUDA_DIR, CUDA_PATH and PATH entries change nothing. "
        f"The text names CUDA {version}'s toolkit at {root}: XLA_FLAGS pointing there, in the shell that starts the "
        "program, lets the compilation find it. The driver, the toolkit and the framework need no change.",
        tuple(ev("pasted", x.line) for x in (said[0], e)),
        Remediation(
            "Check that the toolkit's nvvm\\libdevice holds libdevice.10.bc, then set XLA_FLAGS in the shell that "
            "starts the program (setx XLA_FLAGS with the same value keeps it for new shells) and run it again there.",
            (
                Cmd(("dir", root + "\\nvvm\\libdevice"), note="libdevice.10.bc must be there"),
                SetEnv("XLA_FLAGS", flag, note="the toolkit's folder, quoted for XLA's own parser"),
            ),
            component="toolkit",
        ),
    )


def check_other_vendor_gpu_only(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """The paste names the machine's only GPU, another vendor's (gpudoctor.pasted.cues): there is no NVIDIA GPU, so
    a CUDA program's failure (driver "insufficient", docker's --gpus refused) is that, and the way is the CPU."""
    from gpudoctor.checks.reported import other_vendor_gpu_only

    line = other_vendor_gpu_only(facts)
    if line is None:
        return
    yield Finding(
        "gpu-none",
        Severity.ERROR,
        "gpu",
        "no NVIDIA GPU on this machine",
        "The only GPU the text names is another vendor's, and nothing in it shows an NVIDIA one. CUDA code cannot run "
        "here: no NVIDIA driver, CUDA toolkit or container runtime can change that.",
        (ev("pasted", line),),
        Remediation(
            "Run on the CPU (the program's CPU device option), or on a machine or cloud instance with an NVIDIA GPU.",
            (),
            component="gpu",
        ),
    )


def check_triton_gpu_too_old(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """PyTorch's GPUTooOldForTriton (torch/_inductor/exc.py): the GPU is below the compute capability Triton, the code
    generator of torch.compile and of Triton kernels, supports. No build of anything has kernels for it: the fix is
    another GPU, or the program without compiled Triton kernels. The other libraries' own minimums (catalogue.toml's
    gpu-below-library-minimum: flash-attn's Ampere check, vLLM's bfloat16) are the same question, answered here too."""
    said = _said(facts, "triton-gpu-too-old")
    if not said:
        yield from _gpu_below_library_minimum(facts, ctx)
        return
    e = said[0]
    gpu, cc, needs = e.get("gpu") or "this GPU", e.get("capability") or "", e.get("needs") or ""
    yield Finding(
        "framework-arch-unsupported",
        Severity.ERROR,
        "frameworks",
        f"Triton (torch.compile's GPU compiler) does not support the {gpu} (compute capability {cc}; it needs {needs} or newer)",
        f"PyTorch said so before compiling anything: Triton generates code only for GPUs of compute capability {needs} and "
        "newer, so torch.compile and every library built on Triton kernels fail on this GPU. No PyTorch, Triton or "
        "driver version changes that.",
        (ev("pasted", e.line),),
        Remediation(
            f"Run on a GPU of compute capability {needs} or newer (a notebook's or cloud's other GPU type), or run the "
            "program without torch.compile and Triton kernels (eager mode), where it offers that. No package install fixes "
            "it.",
            (),
            component="gpu",
        ),
    )


def _gpu_below_library_minimum(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """A library's refusal of the GPU for its compute capability (catalogue.toml's gpu-below-library-minimum, the minimum
    from its entry's values: flash-attn's Ampere check). The GPU decides: every GPU the text shows below the minimum. A
    GPU at or above it (flash-attn builds that predate the RTX 50 series print the same words there,
    flash-attention#1540) or none shown is left to the entry's asks. (vLLM's bfloat16 refusal is no such case: the GPU
    runs vLLM in float16, so the catalogue reads it as the program's choice.)"""
    said = _said(facts, "gpu-below-library-minimum")
    if not said:
        return
    from gpudoctor.planner.context import gpu_cc

    e = said[0]
    needs, library = e.get("needs") or "", e.get("library") or "the library"
    if not needs:
        return
    ccs = [(g, c) for g in facts.driver.gpus if (c := gpu_cc(g, ctx))]
    if not ccs or any(vkey(c) >= vkey(needs) for _, c in ccs):
        return
    g, cc = ccs[0]
    gpu = g.name
    instead = e.get("instead")
    yield Finding(
        "framework-arch-unsupported",
        Severity.ERROR,
        "frameworks",
        f"{library} does not run on the {gpu} (compute capability {cc}; it needs {needs} or newer)",
        f"{library} refused the GPU: it runs only on compute capability {needs} and newer, and the {gpu} is {cc}. No "
        "driver, CUDA or package version changes that.",
        (ev("pasted", e.line), ev(g.source, f"{g.name}: {cc}")),
        Remediation(
            (f"On this GPU, {instead}; or run" if instead else "Run")
            + f" on a GPU of compute capability {needs} or newer (another machine or cloud instance). No install fixes it.",
            (),
            component="gpu",
        ),
    )


def check_ptxas_messages(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """What ptxas said: PTX newer than the driver's JIT loads, or an architecture the ptxas Triton ran does not know."""
    yield from check_ptx_newer_than_driver(facts, ctx)
    yield from check_ptx_toolchain_newer_than_driver(facts, ctx)
    yield from check_triton_ptxas_arch(facts, ctx)


def check_ptx_toolchain_newer_than_driver(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """CUDA error 222 ("the provided PTX was compiled with an unsupported toolchain") beside the driver and the nvcc
    that built the program, both shown: PTX written by a compiler of a newer CUDA than the driver's cannot be JIT-
    compiled by it, minor version compatibility or not (NVIDIA's CUDA Compatibility guide: PTX JIT needs a driver of at
    least the toolkit's version). The driver goes up to the compiler's CUDA, or the program is built with a toolkit no
    newer than the driver's."""
    from gpudoctor.checks.frameworks import _driver_upgrade
    from gpudoctor.checks.toolkit import check_newer_than_driver, os_name

    said = _said(facts, "cuda-unsupported-ptx")
    d, nvcc = facts.driver, facts.toolkits.nvcc_on_path_version
    # (the driver's CUDA as nvidia-smi heads it, else its branch's by the compatibility matrix: a version said alone)
    driver_cuda = (d.cuda_version or ctx.matrix.smi_cuda_for_driver(d.version)) if d.version else None
    if not said or not d.version or not driver_cuda or not nvcc:
        return
    built = ".".join(nvcc.split(".")[:2])
    if vkey(built) <= vkey(driver_cuda):
        return  # a compiler no newer than the driver: something else wrote the PTX (a prebuilt binary's own)
    if any(f.severity >= Severity.ERROR for f in check_newer_than_driver(facts, ctx)):
        return  # the toolkit's own check says it already
    verdict = ctx.matrix.driver_supports_cuda(d.version, built, os_name(facts))
    needed = ctx.matrix.min_driver_for_cuda(built, os_name(facts)) or verdict.needed
    if needed is None:
        return
    upgrade = _driver_upgrade(facts, ctx, needed)
    yield Finding(
        "toolkit-newer-than-driver",
        Severity.ERROR,
        "toolkit",
        f"the program was built by nvcc of CUDA {built}; the driver {d.version} JIT-compiles PTX only up to CUDA {driver_cuda}",
        f"CUDA error 222 said so: the PTX in the program was written by the CUDA {built} compiler, and the driver "
        f"{d.version} (CUDA {driver_cuda}) cannot JIT-compile PTX newer than its own CUDA. Minor version "
        "compatibility lets the runtime start on this driver, but not PTX: the first kernel launched fails.",
        (ev("pasted", said[0].line), ev("pasted", f"nvcc: CUDA {nvcc}"), ev("pasted", f"driver {d.version}")),
        dataclasses.replace(
            upgrade,
            alternative=Remediation(
                f"Keep the driver and rebuild the program with a CUDA toolkit no newer than {driver_cuda} (its nvcc "
                "first on PATH, CUDA_HOME at it), or for the GPU's own compute capability only (real code, no PTX to "
                "JIT-compile: CMAKE_CUDA_ARCHITECTURES=<cc>-real, nvcc -arch=sm_<cc>).",
                (),
                component="toolkit",
            ),
        ),
        verdict.source,
    )


def check_triton_ptxas_arch(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """Triton compiles with the ptxas it ships (triton/backends/nvidia/bin) unless TRITON_PTXAS_PATH names another
    (triton-lang/triton python/triton/knobs.py @689edabd, env_nvidia_tool: the variable TRITON_{binary}_PATH, the default
    beside the package). A GPU newer than that ptxas (`Value 'sm_121a' is not defined for option 'gpu-name'`) is
    compiled for by an installed toolkit's ptxas of a CUDA release that knows it: Triton is pointed at that one."""
    said, triton = _said(facts, "ptxas-arch-unknown"), _said(facts, "triton-ptxas-failed")
    if not said or not triton:
        return  # another program's ptxas (an old toolkit's nvcc): not Triton's copy
    arch = said[0].get("arch") or ""
    roots = sorted((t for t in facts.toolkits.toolkits if t.version), key=lambda t: vkey(t.version or ""))
    ptxas = posixpath.join(roots[-1].root if roots else "/usr/local/cuda", "bin", "ptxas")
    yield Finding(
        "toolkit-arch-unsupported",
        Severity.ERROR,
        "toolkit",
        f"the ptxas Triton ships does not know {arch}, the GPU's architecture",
        f"ptxas said `Value '{arch}' is not defined for option 'gpu-name'` while Triton compiled a kernel: the ptxas in "
        f"Triton's package (triton/backends/nvidia/bin) is of a CUDA release older than the GPU. A toolkit's ptxas of a "
        f"release that knows {arch} compiles it; Triton uses the one TRITON_PTXAS_PATH names.",
        tuple(ev("pasted", e.line) for e in (said[0], triton[0])),
        Remediation(
            f"Point Triton at the installed toolkit's ptxas ({ptxas}) once its --version reports a CUDA release that "
            f"knows {arch} (`ptxas --help` lists the architectures it accepts); nothing is reinstalled.",
            (
                Cmd((ptxas, "--version"), note=f"a release that knows {arch}"),
                SetEnv("TRITON_PTXAS_PATH", ptxas, note="Triton compiles with this ptxas instead of its own"),
            ),
            component="toolkit",
        ),
    )


def check_host_compiler(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """nvcc's host-compiler check (crt/host_config.h, an #error per compiler whose limits each CUDA release moves) refusing
    the build's gcc, clang or MSVC: the message itself names the limit of the nvcc that compiled (CUDA 12.6's copy: gcc up
    to 13, clang below 19, _MSC_VER 1910 to 1949). A host compiler inside the limit, named to nvcc, or a CUDA release that
    accepts this one, fixes it; -allow-unsupported-compiler only skips the check."""
    from gpudoctor.checks.toolkit import active_toolkit, nvcc_only_toolkit

    said = _said(facts, "nvcc-host-compiler-unsupported")
    if not said:
        return
    e = said[0]
    tk = active_toolkit(facts) or nvcc_only_toolkit(facts)
    release = f"CUDA {tk.version}'s nvcc" if tk is not None and tk.version else "the nvcc that compiled"
    skip = (
        " The nvcc flag -allow-unsupported-compiler skips the check instead, at your own risk (the message says the build "
        "may then fail or run incorrectly)."
    )
    if compiler := e.get("compiler"):
        # torch.utils.cpp_extension's own table, checked before nvcc runs (it passes CC to nvcc as -ccbin)
        bound = e.get("bound") or ""
        title = f"PyTorch's extension build refuses {compiler} {e.get('host_version') or ''} for CUDA {e.get('cuda') or ''}" + (
            f": it accepts {bound}" if bound else ""
        )
        fix = (
            "Build with a gcc inside that range: install it beside the system's gcc where it is missing and name it for the "
            "build with CC and CXX (torch.utils.cpp_extension passes CC to nvcc as -ccbin), or use a CUDA toolkit of "
            "PyTorch's CUDA major that accepts this gcc. TORCH_DONT_CHECK_COMPILER_ABI=1 skips PyTorch's check, not nvcc's."
        )
    elif host := e.get("host"):
        title = f"{release} refuses the host compiler {host} (version {e.get('host_version') or '?'})"
        fix = (
            "Build with a host compiler this CUDA release accepts (nvcc -ccbin; CMake projects read CUDAHOSTCXX), or use "
            "a CUDA release that accepts this one."
        )
    elif gcc := e.get("gcc_max"):
        from gpudoctor.facts import SETUPTOOLS_NVCC

        title = f"{release} refuses the host gcc: it accepts gcc {gcc} and older"
        # a Python package's build names its compilers by CC and CXX (torch.utils.cpp_extension: CC to nvcc as -ccbin)
        named = (
            f"CC=gcc-{gcc} CXX=g++-{gcc} for the rerun of the same pip install, which PyTorch's extension build hands to nvcc"
            if any(c.get("cue") == SETUPTOOLS_NVCC for c in facts.pasted.cues)
            else f"nvcc -ccbin g++-{gcc}; CMake projects read CUDAHOSTCXX"
        )
        fix = (
            f"Build with a gcc of version {gcc} or older as nvcc's host compiler ({named}), installing it beside the "
            "system's gcc where it is missing, or use a CUDA release that accepts this gcc (a newer toolkit; for a PyTorch "
            "extension, of PyTorch's CUDA major)." + skip
        )
    elif clang := e.get("clang_below"):
        title = f"{release} refuses the host clang: it accepts clang below {clang}"
        fix = (
            f"Build with a clang older than {clang} (or a gcc this release accepts) as nvcc's host compiler (nvcc -ccbin; "
            "CMake projects read CUDAHOSTCXX), or use a CUDA release that accepts this clang." + skip
        )
    else:
        title = f"{release} refuses the Visual Studio (MSVC) toolset that compiles: it accepts {e.get('supported') or 'others'}"
        fix = (
            "Install an MSVC toolset this CUDA release accepts beside the current one (Visual Studio Installer, Individual "
            "components: an older MSVC v143 build tools version) and build from a prompt set up for it (vcvars64.bat "
            "-vcvars_ver=<that version>), or use a CUDA release that accepts the installed toolset (the toolkit alone; for "
            "a PyTorch extension, of PyTorch's CUDA major)." + skip
        )
    yield Finding(
        "host-compiler-unsupported",
        Severity.ERROR,
        "toolkit",
        title,
        "nvcc checks the host compiler's version before it compiles anything (crt/host_config.h): each CUDA release "
        "accepts a range of gcc, clang and MSVC versions, and this build's compiler is outside it. The GPU, the driver and "
        "the framework are not involved.",
        (ev("pasted", e.line),),
        Remediation(fix, _older_gcc_steps(facts, e.get("gcc_max") or ""), component="toolkit"),
    )


def _older_gcc_steps(facts: Facts, gcc: str) -> tuple:
    """The commands of nvcc's gcc limit where they are known: which gcc-N are installed, the distribution's gcc-N and
    g++-N where it is a Debian one (their package names, as Debian and Ubuntu ship one per major), and for a Python
    package's build (setuptools ran nvcc: SETUPTOOLS_NVCC) CC and CXX set for the rerun of the same install in this
    shell, which torch.utils.cpp_extension hands to nvcc as -ccbin (pytorch/pytorch torch/utils/cpp_extension.py
    @26e79290, unix_cuda_flags: _ccbin = os.getenv("CC") ... cflags.extend(["-ccbin", _ccbin])). () for another host
    compiler, on Windows, or where neither is known (the asks decide it)."""
    from gpudoctor.facts import SETUPTOOLS_NVCC
    from gpudoctor.planner.remedy import family

    debian = family(facts) == "debian"
    python_build = any(c.get("cue") == SETUPTOOLS_NVCC for c in facts.pasted.cues)
    if not gcc.isdigit() or (facts.platform.system or "").lower().startswith("win") or not (debian or python_build):
        return ()  # nothing the asks do not already decide
    steps: list = [Cmd(("ls", "/usr/bin"), pipe=("grep", "-E", "^g(cc|\\+\\+)-[0-9]+$"), note=f"gcc-{gcc} or older there?")]
    if debian:
        steps.append(Cmd(("apt-get", "install", "-y", f"gcc-{gcc}", f"g++-{gcc}"), root=True))
    if python_build:
        steps += [
            SetEnv("CC", f"gcc-{gcc}", note="torch.utils.cpp_extension passes CC to nvcc as -ccbin"),
            SetEnv("CXX", f"g++-{gcc}", note="then rerun the same pip install in this shell, with the same python"),
        ]
    return tuple(steps)


def check_nvcc_arch(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """nvcc refusing the architecture a build asked for ("Unsupported gpu architecture 'compute_86'", "Value 'sm_89' is
    not defined for option 'gpu-architecture'"), judged where the text shows the nvcc's release: each compute capability
    has the CUDA releases that compile for it (compat_matrix gpu_arch.toml cc: first_cuda, last_cuda). An architecture
    newer than the toolkit needs a newer toolkit; one the toolkit dropped is taken out of the build's architecture list."""
    from gpudoctor.checks.reported import check_stated_cuda_arch
    from gpudoctor.checks.toolkit import active_toolkit, check_arch, nvcc_only_toolkit
    from gpudoctor.matrix.terms import normalize_cc

    said = _said(facts, "nvcc-arch-unsupported")
    tk = active_toolkit(facts) or nvcc_only_toolkit(facts)
    if not said or tk is None or not tk.version:
        return
    if any(True for _ in check_arch(facts, ctx)) or any(True for _ in check_stated_cuda_arch(facts, ctx)):
        return  # the GPU is shown: the toolkit's own check names it (one finding per cause)
    arch = said[0].get("arch") or ""
    cc = normalize_cc(arch)
    target = ctx.matrix.cc_target(cc) if cc else None
    cuda = ".".join(tk.version.split(".")[:2])
    if cc is None or target is None or ctx.matrix.cuda_can_target(cuda, cc) is not False:
        return
    sm = cc.replace(".", "")
    if target.first_cuda and vkey(cuda) < vkey(target.first_cuda):
        title = f"nvcc of CUDA {cuda} cannot compile for {arch} (compute capability {cc}: CUDA {target.first_cuda} or newer)"
        why = (
            f"nvcc refused {arch}: the toolkit that compiles is CUDA {cuda}, older than the architecture, which CUDA "
            f"{target.first_cuda} introduced. A toolkit of CUDA {target.first_cuda} or newer compiles for it (for a "
            "PyTorch extension, of the same CUDA major as the installed PyTorch's)."
        )
        fix = (
            f"Install a CUDA {target.first_cuda} or newer toolkit (the toolkit alone, no driver change) and build with its "
            "nvcc (PATH, or CUDA_HOME for a PyTorch extension); `nvcc --list-gpu-arch` then lists "
            f"compute_{sm}."
        )
    elif target.last_cuda and vkey(cuda) > vkey(target.last_cuda):
        title = f"nvcc of CUDA {cuda} no longer compiles for {arch} (compute capability {cc}: up to CUDA {target.last_cuda})"
        why = (
            f"nvcc refused {arch}: CUDA {cuda} dropped that architecture (the last release that compiles for it is "
            f"{target.last_cuda}). The build's architecture list names it (a project's -arch, CMAKE_CUDA_ARCHITECTURES, "
            "TORCH_CUDA_ARCH_LIST), usually a default older than the toolkit."
        )
        fix = (
            f"Take {arch} out of the build's architecture list and build for the GPU's own compute capability "
            "(`nvidia-smi --query-gpu=compute_cap --format=csv`); only a GPU of compute capability "
            f"{cc} itself needs a toolkit of CUDA {target.last_cuda} or older."
        )
    else:
        return
    yield Finding(
        "toolkit-arch-unsupported",
        Severity.ERROR,
        "toolkit",
        title,
        why,
        (ev("pasted", said[0].line), ev("pasted", f"nvcc: CUDA {tk.version}")),
        Remediation(fix, component="toolkit"),
        target.source,
    )


def check_ptx_newer_than_driver(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """The driver's JIT (ptxas in libcuda, or nvJitLink) refusing PTX of a newer ISA than it loads: "Unsupported .version
    8.7; current version is '8.4'". Each PTX ISA belongs to a CUDA release (compat_matrix/cuda_driver.toml ptx, NVIDIA's
    PTX release history): the program compiled with CUDA 12.8's compiler for a driver of CUDA 12.4. Either the driver
    goes up to the compiler's CUDA, or the program compiles with a toolkit no newer than the driver's."""
    from gpudoctor.checks.frameworks import _driver_upgrade
    from gpudoctor.checks.toolkit import os_name
    from gpudoctor.versions import vkey

    said = _said(facts, "ptx-newer-than-driver")
    if not said:
        return
    e = said[0]
    wrote, loads = ctx.matrix.ptx_isa(e.get("ptx") or ""), ctx.matrix.ptx_isa(e.get("loads") or "")
    if wrote is None or loads is None or vkey(wrote.cuda) <= vkey(loads.cuda):
        return
    # The driver that loads the compiler's PTX: its toolkit's driver, else (12.7, no toolkit) the first branch reporting it.
    needed = ctx.matrix.min_driver_for_cuda(wrote.cuda, os_name(facts)) or next(
        (f"R{b.branch}" for b in ctx.matrix.driver_branches if vkey(b.cuda) >= vkey(wrote.cuda)), None
    )
    if needed is None:
        return
    d = facts.driver
    upgrade = _driver_upgrade(facts, ctx, needed)
    yield Finding(
        "toolkit-newer-than-driver",
        Severity.ERROR,
        "toolkit",
        f"the program compiles PTX with CUDA {wrote.cuda} (ISA {wrote.ptx}); the driver's JIT loads PTX up to CUDA "
        f"{loads.cuda} (ISA {loads.ptx})",
        f"ptxas said so: the PTX the program generated is ISA {wrote.ptx}, written by a CUDA {wrote.cuda} compiler (the "
        "toolkit's NVVM or NVRTC the program found), and the driver"
        + (f" {d.version}" if d.version else "")
        + f" JIT-compiles PTX only up to ISA {loads.ptx} (CUDA {loads.cuda}). The toolkit the program compiles with is "
        "newer than the driver: kernels it compiles at run time cannot load.",
        (ev("pasted", e.line),),
        dataclasses.replace(
            upgrade,
            alternative=Remediation(
                f"Compile with a CUDA toolkit no newer than {loads.cuda}, the driver's: point CUDA_HOME (or the "
                f"environment's CUDA packages, e.g. conda's cuda-version={loads.cuda}) at one, so that the program's "
                "compiler writes PTX this driver loads.",
                (),
                component="toolkit",
            ),
        ),
        wrote.source,
    )


def _init_unknown(facts: Facts) -> list:
    """The pasted lines where CUDA's first call failed with cudaErrorUnknown / CUDA_ERROR_UNKNOWN (999): PyTorch's
    "CUDA unknown error", Ollama's "cudart init failure: 999", cuInit's CUDA_ERROR_UNKNOWN."""
    return (
        _said(facts, "cuda-init-unknown")
        + [e for e in _said(facts, "cudart-init-failure") if e.get("code") == "999"]
        + [e for e in _said(facts, "cuinit-failed") if e.get("error") == "CUDA_ERROR_UNKNOWN"]
    )


def check_cuda_init_unknown(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """CUDA's first call answering 999 (unknown) on Linux, where the driver itself answers (nvidia-smi failed is a
    driver fault others name): the driver's unified-memory module, nvidia_uvm, is loaded and unusable, most often
    after suspend/resume (the GPU's memory is not preserved across it unless NVreg_PreserveVideoMemoryAllocations=1
    and NVIDIA's suspend services are on: NVIDIA's driver README, "Configuring Power Management Support"). Reloading
    nvidia_uvm while no CUDA program holds it restores CUDA without a reboot (ollama/ollama docs/gpu.md @074d639b, "Linux
    Suspend Resume"; pytorch/pytorch#88639). Not on WSL 2 or Windows, whose driver is Windows'."""
    from gpudoctor.cmdline import Cmd
    from gpudoctor.facts import SUSPEND_SAID
    from gpudoctor.planner.remedy import container_of, reboot

    said = _init_unknown(facts)
    system = (facts.platform.system or "").lower()
    if not said or facts.platform.wsl or system.startswith("win") or facts.driver.smi_error:
        return
    slept = next((c.get("line") or "" for c in facts.pasted.cues if c.get("cue") == SUSPEND_SAID), None)
    container = container_of(facts)
    prevent = Remediation(
        "To keep it from recurring after suspend: have the driver save the GPU's memory across suspend "
        "(NVreg_PreserveVideoMemoryAllocations=1) with NVIDIA's suspend and resume services enabled, then reboot once.",
        (
            Cmd(
                ("printf", "%s\\n", "options nvidia NVreg_PreserveVideoMemoryAllocations=1"),
                pipe=("sudo", "tee", "/etc/modprobe.d/nvidia-power-management.conf"),
            ),
            Cmd(
                ("systemctl", "enable", "nvidia-suspend.service", "nvidia-hibernate.service", "nvidia-resume.service"), root=True
            ),
            *reboot(facts),
        ),
        requires_root=True,
        component="driver",
    )
    yield Finding(
        "cuda-init-unknown",
        Severity.ERROR,
        "driver",
        "CUDA cannot start: its first call fails with an unknown error (999)"
        + (" after the machine suspended and resumed" if slept else ""),
        "CUDA's first call answered cudaErrorUnknown (999), so every program falls back to the CPU or sees no GPU. The "
        "driver is installed; what fails is its unified-memory module (nvidia_uvm), "
        + (
            "left unusable by the suspend/resume the text describes. "
            if slept
            else "most often left unusable by a suspend/resume, or missing its /dev/nvidia-uvm node. "
        )
        + "It is not the CUDA toolkit or the program's CUDA libraries: reinstalling them changes nothing.",
        tuple(ev("pasted", e.line) for e in said[:2]) + ((ev("pasted", slept),) if slept else ()),
        Remediation(
            "Stop every program that uses the GPU (the service or notebook that failed, containers using it), then "
            "reload nvidia_uvm and start the program again; a reboot does the same.",
            (
                Cmd(("lsmod",), pipe=("grep", "nvidia_uvm"), note="its 'Used by' count must be 0 before it can unload"),
                Cmd(("rmmod", "nvidia_uvm"), root=True),
                Cmd(("modprobe", "nvidia_uvm"), root=True),
            ),
            requires_root=True,
            component="driver",
            where="the host" if container else "",
            alternative=prevent if slept and not container else None,
        ),
    )


# NCCL's failures of a connection between ranks (c10d's wrapper, PyTorch's spellings of the system error, NCCL's own
# WARN of a connect that failed, a remote error): beside them the interfaces NCCL offered decide.
_NCCL_LINK_FAILED = frozenset({"nccl-error", "nccl-system-error", "nccl-connect-failed", "nccl-remote-error"})
# Interfaces another host cannot reach: docker's and libvirt's bridges and a container's veth pair (NCCL's default
# NCCL_SOCKET_IFNAME excludes docker*, lo and virbr*, not veth*), loopback, and link-local addresses (fe80::, 169.254.).
_UNROUTABLE_NAME = LazyPattern(r"(?:docker|veth|virbr|br-|cni|flannel|cali)\w*|lo", re.IGNORECASE)
_INTERFACE = LazyPattern(r"\[\d+\](?P<name>[^:\s]+):(?P<address>\S+?)<\d+>")


def _unroutable(name: str, address: str) -> bool:
    return bool(_UNROUTABLE_NAME.fullmatch(name)) or address.lower().startswith(("fe80:", "169.254.", "127."))


def check_nccl_interface_unroutable(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """NCCL's socket transport offered the other ranks an interface they cannot reach (a container's veth, a docker
    bridge, an IPv6 link-local fe80:: address) beside a real one, and a connection between ranks failed (or the log ends
    before any communicator completed its initialisation): without
    NCCL_SOCKET_IFNAME NCCL uses every interface but docker*, lo and virbr* (NVIDIA/nccl src/misc/socket.cc), spreading
    its connections over them; NCCL_SOCKET_IFNAME naming the real one fixes it (NCCL's environment variables,
    https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html; its maintainer on NVIDIA/nccl#913 and #286)."""
    said = _said(facts, "nccl-interfaces-said")
    failed = [e for e in facts.pasted.errors if e.kind in _NCCL_LINK_FAILED]
    # No failure shown: NCCL's log cut before any communicator completed its initialisation is a run that did not get
    # its ranks connected (NCCL_DEBUG=INFO logs are pasted for runs that hung or failed); one that completed is not,
    # nor one whose channels shown all stay within one machine (P2P, shared memory: no socket between them).
    local = _said(facts, "nccl-channels-local") and not _said(facts, "nccl-channels-net")
    if not said or (not failed and (_said(facts, "nccl-init-complete") or local)):
        return
    interfaces = [(m["name"], m["address"]) for m in _INTERFACE.finditer(said[0].get("interfaces") or "")]
    bad = [f"{n} ({a})" for n, a in interfaces if _unroutable(n, a)]
    good = list(dict.fromkeys(n for n, a in interfaces if not _unroutable(n, a)))
    if not bad or not good:
        return
    shown = ",".join(good)
    yield Finding(
        "nccl-interface-unroutable",
        Severity.WARNING,
        "platform",
        f"NCCL offers the other ranks an interface they cannot reach: {', '.join(bad)}",
        f"NCCL's log shows the interfaces its socket transport offers the other ranks: {', '.join(bad)} beside "
        f"{shown}. A container's veth or a docker bridge, and an IPv6 link-local (fe80::) address, are not reachable "
        "from another host, and NCCL spreads its connections over every interface it offers, so the connections made "
        "on those fail (connection refused, network unreachable, or a hang"
        + ("" if failed else ", as where this log stops before NCCL completed its initialisation")
        + "). The driver, CUDA and NCCL are not at "
        "fault.",
        tuple(ev("pasted", e.line) for e in (said[0], *failed[:1])),
        Remediation(
            f"Set NCCL_SOCKET_IFNAME to the interface the hosts reach each other on ({shown} here) before starting the "
            "ranks, on every host (where the hosts' interface names differ, list each, comma-separated), and rerun.",
            (
                Cmd(("ip", "-brief", "address"), note="on every host: the interface that carries the hosts' addresses"),
                SetEnv(
                    "NCCL_SOCKET_IFNAME",
                    shown,
                    note="on every host, in the shell or job script that starts the ranks",
                ),
            ),
            component="platform",
        ),
    )


# nvidia-smi's words for the restricted compute modes (its table cell, its -q field), NVML's names for them.
_MODE_NAMES = {"E. Process": "Exclusive_Process", "E. Thread": "Exclusive_Thread", "Prohibited": "Prohibited"}


def check_compute_mode_restricted(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """CUDA's error 46 (all CUDA-capable devices are busy or unavailable) beside nvidia-smi showing a GPU in compute mode
    Exclusive_Process or Prohibited (NVML's nvmlComputeMode_t): that mode admits one CUDA context at a time, or none,
    so the error is the mode (and, for Exclusive_Process, the process that holds the GPU), not the program."""
    refused = _said(facts, "cuda-devices-unavailable")
    shown = _said(facts, "gpu-compute-mode-restricted")
    if not refused or not shown:
        return
    said = shown[0]
    mode = _MODE_NAMES.get(said.get("mode") or "", said.get("qmode") or "")
    if not mode:
        return
    held = mode != "Prohibited"
    yield Finding(
        "gpu-compute-mode-restricted",
        Severity.ERROR,
        "gpu",
        f"A GPU is in compute mode {mode}: " + ("one CUDA process at a time" if held else "no CUDA process may use it"),
        "CUDA answered 'all CUDA-capable devices are busy or unavailable' (error 46) and nvidia-smi shows a GPU in "
        f"compute mode {mode}. "
        + (
            "In that mode the GPU admits a single CUDA context: while another process holds it, every other one gets error 46. "
            if held
            else "In that mode the GPU admits no CUDA context at all. "
        )
        + "On a shared server or cluster the administrator sets the mode on purpose; a job then has to get a GPU of "
        "its own (the scheduler's allocation, CUDA_VISIBLE_DEVICES).",
        (ev("pasted", refused[0].line), ev("pasted", said.line)),
        Remediation(
            "See which process holds the GPU and stop it, or run on another GPU; where you administer the machine and "
            "want it shared, set the compute mode back to Default (until the next reboot or driver reload).",
            (
                Cmd(("nvidia-smi", "--query-compute-apps=pid,process_name,used_memory", "--format=csv")),
                Cmd(("nvidia-smi", "-c", "DEFAULT"), root=True, note="every GPU; -i N for one"),
            ),
            requires_root=True,
            component="gpu",
        ),
    )


# The VCTargetsPath folder of a Visual Studio instance by its year (pytorch/pytorch's
# .ci/pytorch/windows/internal/cuda_install.bat @33c040b5 copies the CUDA integration into 2019's v160 and 2022's v170).
_VC_TARGETS = {"2019": "v160", "2022": "v170"}


def check_cuda_vs_integration(facts: Facts, ctx: Context) -> Iterable[Finding]:
    r"""CMake's "No CUDA toolset found." (Modules/CMakeDetermineCompilerId.cmake @f3163189): the Visual Studio generator
    compiles CUDA through the toolkit's MSBuild integration, "CUDA X.Y.props" and ".targets" imported from
    $(VCTargetsPath)\BuildCustomizations. The CUDA installer puts them there only for the Visual Studio instances it
    finds (its Visual Studio Integration component), so a Visual Studio or Build Tools installed after CUDA has none,
    while CMake finds the toolkit itself. The files are in the toolkit's extras\visual_studio_integration\MSBuildExtensions;
    copied into the instance's BuildCustomizations (as PyTorch's own Windows CI does), the build goes through."""
    said = _said(facts, "cuda-vs-toolset-missing")
    if not said:
        return
    found = _said(facts, "cmake-cudatoolkit-found")
    instances = _said(facts, "visual-studio-instance-said")
    root = found[0].get("root").replace("/", "\\") if found and found[0].get("root") else None
    version = found[0].get("version") if found else None
    source = f"{root}\\extras\\visual_studio_integration\\MSBuildExtensions" if root else None
    inst = instances[0] if instances else None
    target = (
        f"{inst.get('instance').replace('/', chr(92))}\\MSBuild\\Microsoft\\VC\\{_VC_TARGETS[inst.get('year')]}\\BuildCustomizations"
        if inst is not None and inst.get("instance") and inst.get("year") in _VC_TARGETS
        else None
    )
    commands: list = []
    if source:
        commands.append(
            Cmd(("dir", source), note=f"CUDA {version}.props, .targets, .xml and Nvda.Build.CudaTasks.v{version}.dll")
        )
    commands.append(
        Cmd(
            (
                "xcopy",
                "/Y",
                f"{source}\\*" if source else Placeholder("msbuildextensions-files"),
                target or Placeholder("buildcustomizations-folder"),
            ),
            root=True,
            note=""
            if target and source
            else "from the toolkit's extras, visual_studio_integration, MSBuildExtensions folder into the Visual Studio "
            "instance's MSBuild, Microsoft, VC, v170 folder for 2022, v160 for 2019, its BuildCustomizations",
        )
    )
    yield Finding(
        "toolkit-missing-for-build",
        Severity.ERROR,
        "toolkit",
        "CMake's Visual Studio generator found no CUDA toolset: the CUDA toolkit's Visual Studio integration is missing"
        + (f" (CUDA {version})" if version else ""),
        "The build stopped at enable_language(CUDA) with 'No CUDA toolset found.'"
        + (f", after CMake had found CUDA {version}'s toolkit" if version else "")
        + ". With a Visual Studio generator CMake compiles CUDA through the toolkit's MSBuild integration (CUDA X.Y.props "
        "and .targets in Visual Studio's BuildCustomizations folder), which the CUDA installer adds only to the Visual "
        "Studio instances present when it ran: a Visual Studio or Build Tools installed later, or an installation "
        "without the Visual Studio Integration component, has none. The driver and the toolkit need no change.",
        tuple(ev("pasted", e.line) for e in (said[:1] + found[:1])),
        Remediation(
            "Copy the toolkit's MSBuild integration into the Visual Studio instance that builds (an Administrator "
            "shell), or rerun the CUDA installer with only its Visual Studio Integration component; then run the build "
            "again in the same shell, with the same options.",
            tuple(commands),
            requires_root=True,
            component="toolkit",
        ),
    )


def _comfyui_start(facts: Facts, root: str | None) -> tuple[Cmd, str]:
    r"""ComfyUI's start with the native allocator, in the interpreter it ran: the portable build's own python_embeded
    (its run_nvidia_gpu.bat: `.\python_embeded\python.exe -s ComfyUI\main.py --windows-standalone-build`, ComfyUI's
    .ci/windows_base_files @0767befd, beside the ComfyUI folder in ComfyUI_windows_portable, its release workflow
    windows_release_package.yml @9898e884), else the one the text shows (main.py by the path the traceback named)."""
    from gpudoctor.planner.where import python_exe

    flag = "--disable-cuda-malloc"
    sep = "\\" if root and "\\" in root else "/"
    main = f"{root}{sep}main.py" if root else "main.py"
    parent, _, name = (root or "").rpartition(sep)
    if name == "ComfyUI" and parent.rpartition(sep)[2].lower().startswith("comfyui_windows_portable"):
        embedded = f"{parent}{sep}python_embeded{sep}python.exe"
        return (
            Cmd(
                (embedded, "-s", main, "--windows-standalone-build", flag),
                note="the portable build's own Python; then add the flag to the python_embeded line of run_nvidia_gpu.bat",
            ),
            f"{parent}{sep}run_nvidia_gpu.bat",
        )
    return Cmd((python_exe(facts), main, flag), note="the same Python as before"), "the command or shortcut that starts it"


def check_allocator_backend(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """CUDA error 801 (operation not supported) in ComfyUI, which runs PyTorch with the stream-ordered allocator
    (backend:cudaMallocAsync) by default for a CUDA torch 2.x (cuda_malloc.py @04bf6ef0; its list of Maxwell-era cards
    it spares is read on Windows from the display adapters only, so a Tesla in TCC mode is never on it). A GPU or
    driver mode without memory pools refuses cudaMallocAsync with 801 at the first allocation (CUDA's programming guide,
    stream-ordered allocator: support is cudaDevAttrMemoryPoolsSupported, per device). Judged where the start-up line
    says cudaMallocAsync, or where a traceback runs through ComfyUI's code and no start-up line says native: the
    allocator is the cause, not the torch build or the driver, and the flag decides it in one run."""
    refused = _said(facts, "cuda-not-supported")
    if not refused:
        return
    said = _said(facts, "torch-allocator-said")
    frames = _said(facts, "comfyui-frame")
    backends = {e.get("backend") for e in said}
    if "native" in backends or not ("cudaMallocAsync" in backends or frames):
        return  # the native allocator failed too (or the program is not ComfyUI): the allocator is not the cause
    shown = [e for e in said if e.get("backend") == "cudaMallocAsync"]
    gpu = shown[0].get("gpu") if shown else None
    start, launcher = _comfyui_start(facts, frames[0].get("root") if frames else None)
    yield Finding(
        "torch-allocator-unsupported",
        Severity.ERROR,
        "frameworks",
        f"PyTorch's cudaMallocAsync allocator is not supported on {gpu or 'this GPU'}: ComfyUI turned it on",
        (
            f"ComfyUI's start-up line shows the allocator backend cudaMallocAsync{f' on the {gpu}' if gpu else ''}"
            if shown
            else "The traceback runs through ComfyUI, which starts PyTorch with the cudaMallocAsync allocator backend by "
            "default (for a CUDA torch 2.x)"
        )
        + ", and CUDA answered 'operation not supported' (error 801). The stream-ordered allocator needs memory pools, "
        "which older GPUs (Maxwell and earlier) and some driver modes (TCC, vGPU) do not offer; ComfyUI spares only the "
        "cards on its own list, named as Windows lists display adapters. The torch build, the CUDA version and the driver "
        "are not the cause: PyTorch's native allocator works on the same GPU.",
        tuple(ev("pasted", e.line) for e in (shown[:1] + refused[:1])),
        Remediation(
            "Start ComfyUI with --disable-cuda-malloc (PyTorch's native allocator), in the same Python as before; its "
            "start-up line then ends ': native'. Put the flag in " + launcher + " so every start uses it.",
            (start,),
            component="torch",
        ),
    )


# The memory Xids (NVIDIA's Xid catalog, https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html, retrieved
# 2026-11-29; names from open-gpu-kernel-modules nverror.h @df1c9a3d): what each says, and whether it is an error (the
# GPU needs the reset now) or a warning (the program that hit it was stopped, or the repair waits for the next reset).
_MEMORY_XIDS = {
    "48": ("an uncorrectable double-bit ECC error (Xid 48)", Severity.ERROR),
    "63": ("a page retired or a row remapped, waiting for a GPU reset (Xid 63)", Severity.WARNING),
    "64": ("a page retirement or row remapping that failed (Xid 64)", Severity.ERROR),
    "92": ("an excessive rate of corrected single-bit errors (Xid 92)", Severity.WARNING),
    "94": ("a contained uncorrectable error (Xid 94): the process that hit it was stopped", Severity.WARNING),
    "95": ("an uncontained uncorrectable error (Xid 95)", Severity.ERROR),
}


def check_gpu_memory_error(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """The GPU's memory failing, in the kernel log's Xid (48, 63, 64, 92, 94, 95) or CUDA's own error
    (CUDA_ERROR_ECC_UNCORRECTABLE): gpu-ecc-errors, as the GPU's counters would say it. The query that decides whether a
    repair is pending or failed comes first; the reset applies a pending one (NVIDIA's catalog: RESET_GPU), and is the
    administrators' on a cluster. nvidia-smi -i takes the bus id the Xid names (NVML's nvmlDeviceGetHandleByPciBusId_v2
    reads domain:bus:device.function in hex); the CUDA error names no GPU, so the query is of every GPU."""
    from gpudoctor.checks.health import check_ecc, lspci_slot
    from gpudoctor.planner.remedy import where_run

    said = _said(facts, "gpu-memory-error")
    if not said or next(iter(check_ecc(facts, ctx)), None) is not None:
        return  # the GPU's own counters, read whole, say it (gpudoctor.checks.health)
    named = [e for e in said if e.get("bus")]
    for e in named[:1] or said[:1]:
        slot = lspci_slot(f"{e.get('bus')}.0") if e.get("bus") else None
        what, severity = _MEMORY_XIDS.get(
            e.get("xid") or "", ("an uncorrectable ECC error (CUDA_ERROR_ECC_UNCORRECTABLE)", Severity.ERROR)
        )
        gpu = f"the GPU at {slot}" if slot else "a GPU"
        at = ("-i", slot) if slot else ()
        commands: list[Cmd] = [
            Cmd(
                ("nvidia-smi", "-q", "-d", "ECC,ROW_REMAPPER,PAGE_RETIREMENT", *at),
                note="a pending remapping or retirement is applied by the reset, a failed one means the GPU is to be replaced",
            )
        ]
        if e.get("xid") != "92":  # corrected errors: nothing waits for a reset, the rate is watched
            commands.append(
                Cmd(
                    ("nvidia-smi", "--gpu-reset", "-i", slot or Placeholder("gpu")),
                    root=True,
                    note="stop every process on this GPU first and drain the node on a cluster, reboot where the reset is refused",
                )
            )
        yield Finding(
            "gpu-ecc-errors",
            severity,
            "health",
            f"{gpu} reports {what}",
            "The GPU's memory failed in hardware: the program that hit it was stopped, and a page retirement or row "
            "remapping (Ampere and later) takes effect only after a GPU reset. No driver or CUDA install changes this. A "
            "failed repair (Xid 64), or errors that come back after the reset, mean the GPU is to be replaced.",
            tuple(ev("pasted", x.line) for x in (e, *(x for x in said if x is not e))[:2]),
            Remediation(
                "Read the GPU's ECC and row-remapper state, then reset the GPU (or reboot) to apply the pending repair; if a "
                "repair failed or errors recur, drain the node and have the GPU replaced (nvidia-bug-report.sh for the vendor).",
                tuple(commands),
                requires_root=True,
                component="health",
                where=where_run(facts),
            ),
        )


CHECKS = (
    Check("catalogued-triton-gpu", "frameworks", ("framework-arch-unsupported",), check_triton_gpu_too_old, ("pasted",)),
    Check("catalogued-other-vendor-gpu", "gpu", ("gpu-none",), check_other_vendor_gpu_only, ("pasted",)),
    Check("catalogued-docker-gpu", "platform", ("container-no-gpu",), check_docker_gpu_driver, ("pasted",)),
    Check("catalogued-image-driver-files", "platform", ("container-no-gpu",), check_image_driver_files, ("pasted",)),
    Check("catalogued-cdi-device", "platform", ("container-no-gpu",), check_cdi_unresolved, ("pasted",)),
    Check("catalogued-docker-runtime", "platform", ("container-no-gpu",), check_docker_unknown_runtime, ("pasted",)),
    Check("catalogued-shared-memory", "platform", ("shm-too-small",), check_shared_memory, ("pasted",)),
    Check("catalogued-hook-cgroup", "platform", ("container-no-gpu",), check_hook_cgroup_not_permitted, ("pasted",)),
    Check(
        "catalogued-image-cuda-compat", "toolkit", ("toolkit-newer-than-driver",), check_image_cuda_compat_refused, ("pasted",)
    ),
    Check("catalogued-slurm-devices", "gpu", ("cuda-visible-devices-hides-all",), check_slurm_devices_unconstrained, ("pasted",)),
    Check("catalogued-p2p-acs", "frameworks", ("nccl-transport-disabled",), check_p2p_behind_switch, ("pasted",)),
    Check("catalogued-nccl-interface", "platform", ("nccl-interface-unroutable",), check_nccl_interface_unroutable, ("pasted",)),
    Check("catalogued-slurm-no-gpus", "gpu", ("cuda-visible-devices-hides-all",), check_slurm_job_without_gpus, ("pasted",)),
    Check("catalogued-tf-libraries", "frameworks", ("framework-cuda-libs-missing",), check_tf_gpu_libraries, ("pasted",)),
    Check("catalogued-tf-cudart", "frameworks", ("framework-cuda-libs-missing",), check_tf_cudart_missing, ("pasted",)),
    Check("catalogued-tf-gpu-minimum", "frameworks", ("framework-arch-unsupported",), check_tf_gpu_below_minimum, ("pasted",)),
    Check("catalogued-app-gpu-too-old", "frameworks", ("framework-arch-unsupported",), check_app_gpu_too_old, ("pasted",)),
    Check("catalogued-jax-platform", "frameworks", ("framework-cpu-build",), check_jax_no_cuda_platform, ("pasted",)),
    Check("catalogued-cpu-build", "frameworks", ("framework-cpu-build",), check_said_cpu_build, ("pasted",)),
    Check("catalogued-wsl-tcc", "driver", ("windows-tcc-mode",), check_wsl_tcc, ("pasted",)),
    Check("catalogued-windows-tdr", "driver", ("windows-tdr-timeout",), check_windows_launch_timeout, ("pasted",)),
    Check("catalogued-companions", "frameworks", ("companion-torch-mismatch",), check_companion_messages, ("pasted",)),
    Check("catalogued-numpy-abi", "frameworks", ("numpy-abi-mismatch",), check_numpy_abi, ("pasted",)),
    Check("catalogued-numpy-too-old", "frameworks", ("numpy-abi-mismatch",), check_numpy_too_old, ("pasted",)),
    Check("catalogued-bitsandbytes", "frameworks", ("companion-torch-mismatch",), check_bitsandbytes_binary, ("pasted",)),
    Check("catalogued-video-packages", "driver", ("driver-video-library-missing",), check_video_library_packages, ("pasted",)),
    Check(
        "catalogued-video-capability",
        "platform",
        ("container-video-capability-missing",),
        check_video_capability,
        ("pasted",),
    ),
    Check("catalogued-triton-libcuda", "frameworks", ("framework-cuda-libs-missing",), check_triton_libcuda, ("pasted",)),
    Check("catalogued-build-toolkit", "toolkit", ("toolkit-missing-for-build",), check_build_toolkit_missing, ("pasted",)),
    Check("catalogued-shell-nvcc", "toolkit", ("toolkit-missing-for-build",), check_shell_nvcc_not_found, ("pasted",)),
    Check("catalogued-python-headers", "frameworks", ("framework-cuda-libs-missing",), check_python_headers, ("pasted",)),
    Check("catalogued-build-cudnn", "cudnn", ("cudnn-headers-missing-for-build",), check_build_cudnn_headers, ("pasted",)),
    Check(
        "catalogued-component-arch", "frameworks", ("framework-arch-unsupported",), check_component_below_min_arch, ("pasted",)
    ),
    Check(
        "catalogued-bitsandbytes-windows",
        "frameworks",
        ("framework-windows-native-gpu",),
        check_bitsandbytes_windows,
        ("pasted",),
    ),
    Check("catalogued-triton-windows", "toolkit", ("framework-cuda-libs-missing",), check_triton_windows_cuda, ("pasted",)),
    Check("catalogued-wsl-libcuda", "frameworks", ("framework-cuda-libs-missing",), check_wsl_libcuda, ("pasted",)),
    Check("catalogued-cuda-path-folder", "toolkit", ("windows-cuda-path-missing",), check_cuda_path_folder, ("pasted",)),
    Check(
        "catalogued-windows-commit-limit",
        "platform",
        ("windows-paging-file-too-small",),
        check_windows_commit_limit,
        ("pasted",),
    ),
    Check(
        "catalogued-ptx-version",
        "toolkit",
        ("toolkit-newer-than-driver", "toolkit-arch-unsupported"),
        check_ptxas_messages,
        ("pasted",),
    ),
    Check("catalogued-cuda-init-unknown", "driver", ("cuda-init-unknown",), check_cuda_init_unknown, ("pasted",)),
    Check("catalogued-compute-mode", "gpu", ("gpu-compute-mode-restricted",), check_compute_mode_restricted, ("pasted",)),
    Check("catalogued-nvcc-arch", "toolkit", ("toolkit-arch-unsupported",), check_nvcc_arch, ("pasted",)),
    Check("catalogued-host-compiler", "toolkit", ("host-compiler-unsupported",), check_host_compiler, ("pasted",)),
    Check("catalogued-gpu-memory", "health", ("gpu-ecc-errors",), check_gpu_memory_error, ("pasted",)),
    Check("catalogued-allocator", "frameworks", ("torch-allocator-unsupported",), check_allocator_backend, ("pasted",)),
    Check("catalogued-cuda-vs-integration", "toolkit", ("toolkit-missing-for-build",), check_cuda_vs_integration, ("pasted",)),
    Check("catalogued-xla-libdevice", "toolkit", ("toolkit-missing-for-build",), check_xla_libdevice_root, ("pasted",)),
)
