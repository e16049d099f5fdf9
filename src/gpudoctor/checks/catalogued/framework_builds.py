"""Catalogued messages of a framework or application that loaded without the GPU pieces it needs: TensorFlow's CUDA
libraries and cudart, JAX without a CUDA platform, a said CPU build (llama.cpp and llama-cpp-python among them), XLA
not told where libdevice is, torch's cudaMallocAsync allocator refused.

The GPU and driver may be sound: what loaded (a CPU build, a framework without its CUDA libraries) or how it runs
(the allocator ComfyUI picks) is what fails, so the fix is the GPU build or the setting, the framework's own way.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from gpudoctor.checks.base import ev
from gpudoctor.checks.catalogued._common import _said
from gpudoctor.cmdline import Cmd, Output, Placeholder, SetEnv, SetFrom
from gpudoctor.facts import Facts
from gpudoctor.model import Finding, Remediation, Severity
from gpudoctor.planner.context import Context
from gpudoctor.probed import Found
from gpudoctor.versions import vkey


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
            (
                "llama.cpp's system info says BLAS = 0: the library that loaded has no GPU backend, so every layer runs "
                "on the CPU whatever n_gpu_layers says."
                if e.get("entry") == "ggml-system-info-blas-0"
                else "The text says llama.cpp's GPU offload option (n_gpu_layers, -ngl) changes nothing: a library "
                "built without a GPU backend accepts it and runs every layer on the CPU."
            )
            + " pip builds llama-cpp-python from source and enables CUDA only where "
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


def check_stub_libcuda(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """The CUDA toolkit's stub libcuda loaded as the driver, outside WSL 2 (check_wsl_libcuda answers there, where the
    driver's copy is Windows'), shown by the path the driver library resolved to under a toolkit's stubs folder
    (numba's libs.test(), a ctypes probe; every call of it answers 34, CUDA_ERROR_STUB_LIBRARY). The stub
    exists only to link against (numba/numba#8985, the maintainer: "it doesn't have any actual implementations"); a
    stubs folder first on LD_LIBRARY_PATH, in the loader's configuration, or a link to the stub, puts it in the
    driver's place (NVIDIA/warp#219). Nothing is reinstalled: the folder comes off the search path, the rest kept."""
    from gpudoctor.planner.where import python_exe

    # Only where the text shows the stub's own path: error 34 alone is also a container or pod started without the
    # GPU, whose only libcuda is an image's stub (catalogue cuinit-unknown-error-34), fixed by starting it with one.
    stub = [e for e in _said(facts, "cuda-stub-library") if e.get("path") or e.get("opened")]
    if not stub or facts.platform.wsl == 2 or (facts.platform.system or "Linux") != "Linux":
        return
    e = stub[0]
    shown = e.get("path") or e.get("opened") or ""
    # The variable again without any folder ending in /stubs, computed by a fixed program (never text from the paste).
    keep = (
        'import os; print(":".join(p for p in os.environ.get("LD_LIBRARY_PATH", "").split(":") '
        'if p and not p.rstrip("/").endswith("/stubs")))'
    )
    yield Finding(
        "framework-cuda-libs-missing",
        Severity.ERROR,
        "frameworks",
        "the CUDA toolkit's stub libcuda is loaded in place of the driver's libcuda.so.1",
        f"The text shows it ({shown}): the libcuda the program loaded is the toolkit's link-time stub from a .../stubs folder, which exists only "
        "to link against and answers every call with an error. A stubs folder on LD_LIBRARY_PATH or in the loader's "
        "configuration (or a link to the stub) comes before the driver's libcuda.so.1. The driver, the toolkit and the "
        "framework are not at fault, and nothing needs reinstalling.",
        (ev("pasted", e.line),),
        Remediation(
            "Take every .../stubs folder off LD_LIBRARY_PATH in this shell, and delete the line that adds it where it "
            "is set (~/.bashrc, a conda environment's activate script); a stubs folder in /etc/ld.so.conf.d comes out "
            "with sudo ldconfig after; then run the program again from this shell.",
            (
                Cmd(("printenv", "LD_LIBRARY_PATH"), note="a folder ending in /stubs must not be on it"),
                Cmd(("grep", "-rn", "stubs", "/etc/ld.so.conf", "/etc/ld.so.conf.d"), note="none may be listed here"),
                SetFrom(
                    "LD_LIBRARY_PATH",
                    (Output((python_exe(facts), "-c", keep)),),
                    note="the same folders, without those ending in /stubs",
                ),
                Cmd(("ldconfig", "-p"), pipe=("grep", "libcuda"), note="libcuda.so.1 of the driver, which now answers"),
            ),
            component="environment",
        ),
    )


def check_numba_driver_variable(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """numba's "driver missing function: cuInit" beside the text setting NUMBA_CUDA_DRIVER (or NUMBAPRO_CUDA_DRIVER,
    its older name) to a file that is not the driver's library: numba opens that file as the driver
    (numba/cuda/cudadrv/driver.py @5afe7c82, find_driver), and cuInit, in every driver library of every age, is
    missing only from a file that is none - the CUDA runtime, as the maintainers answered on numba/numba#3963 and
    #4136. Unset, numba finds libcuda (nvcuda.dll) itself. A variable naming libcuda or nvcuda is left to the asks."""
    said = _said(facts, "driver-library-not-a-driver")
    named = _said(facts, "numba-driver-variable-said")
    if not said or not named:
        return
    e = named[0]
    variable = e.get("variable") or ""
    library = e.get("quoted") or e.get("single") or e.get("library") or ""
    name = library.replace("\\", "/").rsplit("/", 1)[-1].lower()
    if not variable or not name or name.startswith(("libcuda.", "nvcuda.")):
        return
    windows = (facts.platform.system or "").lower().startswith("win")
    steps: list = [SetEnv(variable, None, note="numba then opens the driver library itself")]
    if not windows:
        steps.append(
            Cmd(
                ("grep", "-n", "_CUDA_DRIVER", "~/.bashrc", "~/.profile"),
                note="the line that sets it for later shells: delete it",
            )
        )
    steps.append(Cmd(("numba", "-s"), note="its CUDA section lists the GPUs, with no missing function"))
    yield Finding(
        "framework-cuda-libs-missing",
        Severity.ERROR,
        "frameworks",
        f"{variable} names {name}, which is not the CUDA driver's library: numba opens it as the driver",
        f"numba said the driver has no cuInit, and the text sets {variable} to {library}. numba opens the file that "
        "variable names as the CUDA driver; cuInit is in every driver library, so that file is none (a CUDA runtime "
        "library such as libcudart or cudart64_*.dll is not the driver). Without the variable numba finds the driver's "
        "own library (libcuda.so.1; nvcuda.dll on Windows). The driver and the toolkit are not at fault.",
        (ev("pasted", said[0].line), ev("pasted", e.line)),
        Remediation(
            f"Unset {variable} in this shell and delete it where it is set (a shell profile, the launch script, the "
            "system environment), then run numba again from a new shell.",
            tuple(steps),
            component="environment",
        ),
    )


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
    yield from _boosting_library_without_cuda(said)
    ggml = ("ggml-system-info-blas-0", "llama-cpp-gpu-layers-no-effect-said")
    yield from _ggml_without_gpu([e for e in said if e.get("entry") in ggml][:1], facts)
    yield from _ollama_without_cuda([e for e in said if e.get("entry") == "ollama-runners-without-cuda"][:1], facts)
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


# What each library's own words mean and where its CUDA build comes from (catalogue.toml: xgboost-not-compiled-with-gpu,
# mxnet-compiled-without-cuda, lightgbm-tree-learner-not-enabled; tools/mined/h212.md has the threads). LightGBM's
# wheels: OpenCL learner in Windows wheels from 3.2.0 (microsoft/LightGBM 1fb27443, #3660), Linux from 4.0.0 (38a1f582,
# #5252), python-package/README.rst @bae0b7ba ("supports both GPU ... and CPU versions out of the box"). Which package is installed is the catalogue
# entry's ask: the paste names the fault, not the package, so no install command is printed here.
_CPU_BUILD_SAID = {
    "xgboost": (
        "the installed XGBoost is a CPU-only build",
        "XGBoost said so ('XGBoost version not compiled with GPU support'): its library was built without CUDA, so "
        "training with device='cuda' (or tree_method='gpu_hist') cannot run whatever the driver. macOS builds never have "
        "CUDA; elsewhere a CPU build loaded: pip's xgboost-cpu, conda's py-xgboost cpu variant, a source build without "
        "-DUSE_CUDA=ON, or an older install found before the CUDA one.",
        "Install XGBoost's CUDA build in the interpreter that runs it (pip's xgboost on Linux x86_64 and Windows; conda's "
        "py-xgboost cuda variant; a source build with -DUSE_CUDA=ON on other platforms), after uninstalling every "
        "XGBoost package it holds; on macOS train on the CPU or move to a Linux or Windows machine with an NVIDIA GPU.",
    ),
    "lightgbm": (
        "the installed LightGBM has no GPU learner",
        "LightGBM said so ('GPU Tree Learner was not enabled in this build', or the CUDA learner's): the library that "
        "loaded was built without the learner device='gpu' (OpenCL) or device='cuda' asks for. pip's lightgbm wheels "
        "carry the OpenCL learner on Windows from 3.2.0 and on Linux from 4.0.0, never the CUDA one; other builds "
        "(conda's, older wheels, a source build without -DUSE_GPU=1) carry neither, and a build made with "
        "-DUSE_GPU=1 elsewhere (the command-line program) is not the Python package the interpreter imports.",
        "For device='gpu' on Linux or Windows, install pip's lightgbm 4.0 or newer in the interpreter that runs it, "
        "after uninstalling the build it holds; for device='cuda' (or on another platform), build the package from "
        "source with --config-settings=cmake.define.USE_CUDA=ON (or USE_GPU=ON) as LightGBM's python-package README "
        "says.",
    ),
    "mxnet": (
        "the installed MXNet is a CPU-only build",
        "MXNet said so ('Compile with USE_CUDA=1 to enable GPU usage', 'Please compile with CUDA enabled' before 2017): "
        "its library was built without CUDA, so a GPU "
        "context cannot be created whatever the driver (pip's plain mxnet is the CPU build; the CUDA builds are the "
        "mxnet-cuNNN packages).",
        "Uninstall mxnet and install the mxnet-cuNNN package for a CUDA the driver supports (nvidia-smi's CUDA Version "
        "bounds it); for a source build, set USE_CUDA=1, run make clean and build again.",
    ),
}


def _boosting_library_without_cuda(said: list) -> Iterable[Finding]:
    """XGBoost's and MXNet's own 'not compiled with GPU support' lines: the library that loaded is a CPU build."""
    for name, (title, detail, fix) in _CPU_BUILD_SAID.items():
        for e in [e for e in said if (e.get("framework") or "").lower() == name][:1]:
            yield Finding(
                "framework-cpu-build",
                Severity.ERROR,
                "frameworks",
                title,
                detail,
                (ev("pasted", e.line),),
                Remediation(fix, (), component="environment"),
            )


def _ollama_without_cuda(said: list, facts: Facts) -> Iterable[Finding]:
    """Ollama's runner list without a CUDA runner (catalogue.toml: ollama-runners-without-cuda) where the text shows an
    NVIDIA GPU meant to run it: the build is the fault, not the driver. Ollama's own builds carry CUDA runners: on Linux
    its installer (docs/linux.md @a420a453: "curl -fsSL https://ollama.com/install.sh | sh", which puts the binary in
    /usr/local/bin first, scripts/install.sh @8782dd56), on Windows its setup; a distribution's package may be the CPU
    build (Arch Linux ships ollama and ollama-cuda apart: tests/blind/plans12/cases/1232-*), and a source build has CUDA
    runners only where the toolkit was found when it was built (ollama/ollama#2012, its example)."""
    from gpudoctor.checks.reported import _gpu_meant, other_vendor_gpu_only
    from gpudoctor.planner.remedy import family

    if not said or not _gpu_meant(facts) or other_vendor_gpu_only(facts) is not None:
        return
    e = said[0]
    runners = " ".join((e.get("runners") or "").split())
    windows = (facts.platform.system or "").lower().startswith("win")
    check = Cmd(
        ("journalctl", "-u", "ollama", "-b", "--no-pager"),
        pipe=("grep", "-E", "Dynamic LLM libraries|offloaded"),
        note="the runner list now names a cuda runner; after a model loads, the layers offloaded to the GPU",
    )
    if windows:
        fix = (
            "Install Ollama's own Windows release (its setup from Ollama's download page), which carries the CUDA "
            "runners, in place of this build; a build from source has them only where the CUDA toolkit is found when it "
            "is built (Ollama's docs/development.md). Then start Ollama again and read the runner list in its log."
        )
        commands: tuple[Cmd, ...] = ()
    elif family(facts) == "arch":
        fix = "Install Arch's CUDA build of Ollama (ollama-cuda, in place of the CPU package ollama) and restart its service."
        commands = (
            Cmd(("pacman", "-Q", "ollama", "ollama-cuda"), note="which of the two packages is installed"),
            Cmd(("pacman", "-S", "ollama-cuda"), root=True),
            Cmd(("systemctl", "restart", "ollama"), root=True),
            check,
        )
    else:
        fix = (
            "Install a build of Ollama with CUDA runners and restart its service: Ollama's own Linux build (its install "
            "script) carries them; a distribution's package may be its CPU build (on Arch Linux, install ollama-cuda "
            "with pacman instead of ollama), and a source build needs the CUDA toolkit found when it is built."
        )
        commands = (
            Cmd(
                ("command", "-v", "ollama"),
                note="/usr/bin: a distribution's package; /usr/local/bin: Ollama's installer",
            ),
            Cmd(("curl", "-fsSL", "https://ollama.com/install.sh"), pipe=("sh",), note="Ollama's own Linux build"),
            Cmd(("systemctl", "restart", "ollama"), root=True),
            check,
        )
    yield Finding(
        "framework-cpu-build",
        Severity.ERROR,
        "frameworks",
        "this Ollama has no CUDA runner: it runs every model on the CPU",
        f"Ollama listed the runners it carries, as the text shows ([{runners}]): none is a CUDA runner (its own builds "
        "list cuda_v11 or cuda_v12 there). Whatever its GPU discovery finds, this build cannot run a model on the "
        "NVIDIA GPU; the driver and the GPU are not at fault.",
        (ev("pasted", e.line),),
        Remediation(fix, commands, component="environment"),
    )


def check_faiss_cpu_build(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """faiss's GPU classes missing (catalogue.toml: faiss-no-gpu-classes) where the environment shows faiss-cpu and no
    GPU faiss: the CPU package is the one installed. (faiss-cpu beside faiss-gpu is gpudoctor.checks.libraries' conflict;
    with no listing the message's ask decides.) The GPU package comes from conda: faiss's INSTALL.md
    (facebookresearch/faiss @7fa0cd3d: "The supported way to install Faiss is through conda"; "conda install -c pytorch
    -c nvidia faiss-gpu", the nvidia channel for its CUDA)."""
    from gpudoctor.checks.libraries import faiss_verify

    said = _said(facts, "faiss-without-gpu")
    py = facts.frameworks.python
    if not said or not isinstance(py, Found):
        return
    dists = py.value.distributions
    if "faiss-cpu" not in dists or any(n.startswith("faiss-gpu") for n in dists):
        return
    version = dists["faiss-cpu"]
    conda = py.value.kind == "conda"
    yield Finding(
        "framework-cpu-build",
        Severity.ERROR,
        "frameworks",
        f"the installed faiss is the CPU-only package (faiss-cpu {version})".replace(" )", ")"),
        "faiss has no GPU classes (the text shows the missing attribute) and the environment holds faiss-cpu and no "
        "faiss-gpu: the CPU-only build, which no driver or CUDA change makes use the GPU.",
        (ev("pasted", said[0].line), ev("python", f"installed: faiss-cpu {version}".strip())),
        Remediation(
            "Replace faiss-cpu with faiss-gpu (it holds the CPU indexes too) from faiss's conda channel, in the "
            "environment that runs the program; faiss's GPU package needs Linux x86-64.",
            (
                Cmd(("conda", "remove", "faiss-cpu"), note="in the environment the program runs in"),
                Cmd(("conda", "install", "-c", "pytorch", "-c", "nvidia", "faiss-gpu")),
                faiss_verify(facts),
            )
            if conda
            else (),
            component="environment",
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


# NVIDIA's nvcc wheel per CUDA a framework was built with, where the pin was checked (tests/pasted/pins-checked-h192.txt):
# it holds nvidia/cuda_nvcc/nvvm/libdevice/libdevice.10.bc and nvidia/cuda_nvcc/bin/ptxas (read from the wheel), the
# layout XLA looks for under a CUDA root.
_NVCC_WHEEL = {"11.8": "nvidia-cuda-nvcc-cu11==11.8.89"}


def check_xla_libdevice_wheel(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """XLA's "Can't find libdevice directory" (catalogue.toml: xla-libdevice-not-found) off Windows, where the roots it
    searched are its build's CUDA location, /usr/local/cuda and the working directory (xla-cuda-roots-build-dir: the
    releases before XLA also looked in site-packages, TensorFlow 2.12 and 2.13 among them) and XLA was not pointed
    anywhere: no toolkit is where it looks. The cheapest sufficient fix needs no root and no toolkit: NVIDIA's nvcc wheel
    of the build's CUDA, in the interpreter that runs the program, carries nvvm/libdevice and ptxas in its package folder,
    and XLA_FLAGS=--xla_gpu_cuda_data_dir names that folder (openxla/xla nvptx_libdevice_path.cc @80c095fc: the flag's
    folder is searched first). A build's CUDA with no checked wheel pin is left to the catalogue's asks."""
    said = _said(facts, "xla-cuda-data-dir-missing")
    roots = [e for e in _said(facts, "xla-build-cuda-said") if e.get("cuda")]
    if not said or not roots or facts.platform.system == "Windows":
        return
    if "xla_gpu_cuda_data_dir" in (facts.platform.env.get("XLA_FLAGS") or ""):
        return  # XLA was pointed somewhere: what is in that folder is what the asks decide
    cuda = roots[0].get("cuda") or ""
    pin = _NVCC_WHEEL.get(cuda)
    if pin is None:
        return
    from gpudoctor.planner.remedy import keep_path, kept, pip
    from gpudoctor.planner.where import python_exe

    exe = python_exe(facts)
    # The wheel's folder is known only once it is installed: the variable is set from what the interpreter prints,
    # quoted for XLA's own parser as the Windows rule's (a space ends an unquoted value).
    folder = SetFrom(
        "XLA_FLAGS",
        (
            '--xla_gpu_cuda_data_dir="',
            Output((exe, "-c", "import os, nvidia.cuda_nvcc as m; print(os.path.dirname(m.__file__))")),
            '"',
        ),
        note="the wheel's folder: it holds nvvm/libdevice and bin/ptxas",
    )
    yield Finding(
        "toolkit-missing-for-build",
        Severity.ERROR,
        "toolkit",
        f"XLA's JIT found no nvvm/libdevice: no CUDA {cuda} toolkit where it looks, and it was not told where one is",
        "XLA (TensorFlow's JIT compilation, JAX) compiles GPU kernels itself and needs libdevice.10.bc from a CUDA "
        f"toolkit's nvvm/libdevice (and its ptxas). It searched only its build's CUDA location ({roots[0].get('root')}), "
        "/usr/local/cuda and the working directory, as the text shows, and found none, so the step it compiles (a Keras "
        "optimizer's update, a jit-compiled function) fails. The GPU, the driver and the CUDA runtime libraries work; "
        f"what is missing is the compiler's part of CUDA {cuda}. NVIDIA's nvcc wheel carries it without root or a "
        "toolkit install, in its package folder, which XLA_FLAGS then names.",
        (ev("pasted", said[0].line), ev("pasted", roots[0].line)),
        Remediation(
            f"Install NVIDIA's nvcc wheel of CUDA {cuda} ({pin}) in the interpreter that runs the program, then, in the "
            "shell that starts it, point XLA_FLAGS at the wheel's folder (the second line) and run the program again "
            f"there (a CUDA {cuda} toolkit installed in {roots[0].get('root')} serves too, with no variable)." + keep_path(facts),
            kept(facts, (pip(facts, "install", pin), folder)),
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


# TensorFlow's prebuilt binaries use AVX from 1.6 on (tensorflow/tensorflow RELEASE.md @348c4696, "Release 1.6.0",
# Breaking Changes: "Prebuilt binaries will use AVX instructions. This may break TF on older CPUs."); 1.5.0 is the last
# release built without it, with wheels for CPython 2.7 and 3.4 to 3.6 only (tests/install_pins/pins-checked.txt: the
# dry runs of tensorflow==1.5.0 and tensorflow-gpu==1.5.0 for 2.7 and 3.6 resolve, for 3.7 none exists).
_TF_AVX_FROM = "1.6"
_TF_WITHOUT_AVX = "1.5.0"
_TF_WITHOUT_AVX_PYTHONS = ("2.7", "3.4", "3.5", "3.6")


def check_framework_cpu_instructions(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """The program died on SIGILL (catalogue.toml's shell-illegal-instruction) with a TensorFlow whose prebuilt binaries
    use AVX: the CPU (or the virtual CPU a hypervisor gives) has none. Quiet where the text shows the CPU's flags with
    avx among them (another instruction, another cause), and where no such TensorFlow is shown."""
    from gpudoctor.planner.where import package_step, python_step

    sigill = _said(facts, "cpu-illegal-instruction")
    tf = facts.frameworks.tensorflow
    if not sigill or not isinstance(tf, Found) or vkey(tf.value.version) < vkey(_TF_AVX_FROM):
        return
    flags = [e for e in _said(facts, "cpu-flags-said") if e.get("flags")]
    if any("avx" in (e.get("flags") or "").split() for e in flags):
        return
    version, dist = tf.value.version, tf.value.distribution or "tensorflow"
    env = facts.frameworks.python
    python = ".".join(env.value.version.split(".")[:2]) if isinstance(env, Found) and env.value.version else ""
    evidence = [ev("pasted", sigill[0].line), *(ev("pasted", e.line) for e in flags[:1])]
    # (where the flags are shown without avx the answer is in the text; else the read decides it before the install)
    read = () if flags else (Cmd(("grep", "-c", "-w", "avx", "/proc/cpuinfo"), note="0: no core of this CPU has AVX"),)
    if python in _TF_WITHOUT_AVX_PYTHONS:
        remedy = Remediation(
            f"Install TensorFlow {_TF_WITHOUT_AVX}, the last release whose prebuilt binaries run without AVX, in place "
            f"of {version}; or build TensorFlow {version} from source on this machine (its own CPU's instructions "
            "only), or run it on a CPU with AVX.",
            (
                *read,
                package_step(facts, "uninstall", "-y", dist),
                package_step(facts, "install", f"{dist}=={_TF_WITHOUT_AVX}"),
                python_step(facts, "-c", "import tensorflow as tf; print(tf.__version__)"),
            ),
            component="tensorflow",
        )
    else:
        remedy = Remediation(
            "No prebuilt TensorFlow for "
            + (f"Python {python}" if python else "this Python")
            + f" runs without AVX ({_TF_WITHOUT_AVX}, the last that does, has wheels for Python 2.7 and 3.4 to 3.6 "
            "only): build TensorFlow from source on this machine (its own CPU's instructions only), or run it on a CPU "
            "with AVX.",
            read,
            component="tensorflow",
        )
    yield Finding(
        "framework-cpu-unsupported",
        Severity.ERROR,
        "frameworks",
        f"TensorFlow {version}'s prebuilt binaries use AVX, which this CPU "
        + ("does not have" if flags else "most likely does not have"),
        "The program died on an illegal instruction (SIGILL). TensorFlow's prebuilt binaries are compiled with AVX "
        "from 1.6 on, and a CPU without it (an older Xeon, Celeron or Atom, or a virtual CPU that does not pass AVX "
        "through) stops at the first such instruction, in every interpreter and from pip or conda alike. No GPU, "
        "driver or CUDA setting changes this."
        + (" The CPU's flags shown name no avx." if flags else " The CPU's flags decide it: avx among them or not."),
        tuple(evidence),
        remedy,
    )


# A value of OLLAMA_LLM_LIBRARY that names one of Ollama's CUDA library folders (cuda_v12, cuda_v13, cuda_jetpack6):
# with it Ollama loads that folder, and the GPU stays in use.
_OLLAMA_CUDA_FOLDER = re.compile(r"cuda_(?:v\d{2}|jetpack\d)", re.IGNORECASE)


def check_ollama_library_override(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """OLLAMA_LLM_LIBRARY naming no CUDA library folder of Ollama's (catalogue.toml: ollama-library-skipped-at-request,
    ollama-server-config-llm-library): from v0.12.4 (ollama/ollama bd15eba4, discover/runner.go) the discovery loads
    only the folder named by the value and skips the rest, so "cuda" - which no release names a folder - leaves
    cuda_v12 and cuda_v13 unloaded and every model on the CPU (ollama/ollama#12797, whose maintainer answered "Don't
    set OLLAMA_LLM_LIBRARY"; #12574 the same value on 0.12.5). The skip line decides it; the server config line alone
    only where the text means the NVIDIA GPU to be used. The variable is removed where Ollama's server gets it: the
    pod template (and the chart values that set it), the systemd unit, the Windows user's environment, launchd."""
    from gpudoctor.checks.reported import _gpu_meant
    from gpudoctor.planner.where import container_said

    skipped = [e for e in _said(facts, "ollama-library-override") if "cuda" in (e.get("libdir") or "").lower()]
    configured = _said(facts, "ollama-library-override-set")
    shown = skipped or (configured if _gpu_meant(facts) else [])
    if not shown:
        return
    e = shown[0]
    value = e.get("requested") or ""
    if not value or _OLLAMA_CUDA_FOLDER.fullmatch(value):
        return
    what = (
        f"Ollama's discovery skipped its CUDA library folders because OLLAMA_LLM_LIBRARY is set to {value}"
        if skipped
        else f"Ollama's server started with OLLAMA_LLM_LIBRARY set to {value}"
    )
    runtime = container_said(facts)
    system = (facts.platform.system or "").lower()
    check_line = ("grep", "-iE", "inference compute|skipping available library")
    if runtime == "kubernetes":
        from gpudoctor.checks.workloads import env_in_pod_template, pod_template

        in_ns, pod, workload = pod_template(facts)
        fix = (
            "Remove OLLAMA_LLM_LIBRARY from the Ollama pod's environment: delete it where the chart values or the "
            "manifest set it (so the next helm upgrade or apply does not put it back), or take it out of the pod "
            "template with kubectl set env NAME-; let the rollout recreate the pod and read its log."
        )
        steps: tuple = (
            Cmd(
                ("kubectl", *in_ns, "exec", pod or Placeholder("pod"), "--", "printenv", "OLLAMA_LLM_LIBRARY"),
                note=f"{value}: the value set in the pod",
            ),
            *env_in_pod_template(
                in_ns,
                workload,
                "OLLAMA_LLM_LIBRARY-",
                note="its pod template without it",
                recreated="the pod recreated without it",
            ),
            Cmd(("kubectl", *in_ns, "logs", workload), pipe=check_line, note="the GPU listed under inference compute"),
        )
        component, where = "container", "the cluster"
    elif system.startswith("win"):
        fix = (
            "Delete OLLAMA_LLM_LIBRARY from your user's (or the system's) environment variables, quit Ollama from the "
            "taskbar and start it again; its server log then lists the GPU."
        )
        steps = (
            Cmd(("reg", "query", "HKCU\\Environment", "/v", "OLLAMA_LLM_LIBRARY"), note=f"{value}: your user's variable"),
            Cmd(("reg", "delete", "HKCU\\Environment", "/v", "OLLAMA_LLM_LIBRARY", "/f"), note="then quit and start Ollama"),
        )
        component, where = "environment", None
    elif system == "darwin":
        fix = "Unset OLLAMA_LLM_LIBRARY for launchd and restart the Ollama application."
        steps = (Cmd(("launchctl", "unsetenv", "OLLAMA_LLM_LIBRARY"), note="then restart the Ollama application"),)
        component, where = "environment", None
    else:
        fix = (
            "Remove OLLAMA_LLM_LIBRARY from where Ollama's server gets it - the systemd unit's Environment= line (or "
            "the docker run -e / compose environment of its container, recreated without it) - restart the server "
            "and read its log."
        )
        steps = (
            Cmd(("systemctl", "cat", "ollama"), pipe=("grep", "-n", "OLLAMA_LLM_LIBRARY"), note="the line that sets it"),
            Cmd(
                ("systemctl", "edit", "ollama.service"),
                root=True,
                note=f'delete the line Environment="OLLAMA_LLM_LIBRARY={value}" (in the override, or the unit itself)',
            ),
            Cmd(("systemctl", "daemon-reload"), root=True),
            Cmd(("systemctl", "restart", "ollama"), root=True),
            Cmd(("journalctl", "-u", "ollama", "-b", "--no-pager"), pipe=check_line, note="the GPU listed as inference compute"),
        )
        component, where = "environment", None
    yield Finding(
        "framework-cpu-build",
        Severity.ERROR,
        "frameworks",
        f"OLLAMA_LLM_LIBRARY={value} keeps Ollama off the GPU: no CUDA library folder of Ollama's has that name",
        f"{what}, as the text shows. From v0.12.4 Ollama "
        "loads only the library folder named by that variable and skips every other one; its CUDA libraries are in "
        f"cuda_v12 and cuda_v13, so '{value}' leaves none loaded and every model runs on the CPU (before 0.12.4 an "
        "unknown value was ignored, which is why an upgrade shows it). The GPU, its driver and the container runtime "
        "are not at fault; unset, Ollama finds the GPU itself.",
        (ev("pasted", e.line),),
        Remediation(fix, steps, component=component, where=where or ""),
    )
