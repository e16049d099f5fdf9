"""The questions a partial diagnosis leaves open, each as the exact command to ask the reporter for.

Judged from the facts the doctor built (so a hand-written snapshot marked partial gets them too) and
from what the pasted text named: a framework whose build was not shown, a driver never shown, a library
the loader could not find. Commands are data (gpudoctor.cmdline) like every command gpudoctor prints.
"""

from __future__ import annotations

import dataclasses
import ntpath
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gpudoctor.cmdline import Cmd, Placeholder, render
from gpudoctor.facts import (
    COMPONENT_NAMED,
    COMPOSE_STARTED,
    EXTENSION_NAMED,
    GPU_GRAPH_SAID,
    IMPORT_CRASHED,
    IMPORT_FAILED,
    JAX_BEFORE_ENV_INFO,
    JETSON_SAID,
    NO_PYTHON,
    NO_SERVICE_MANAGER,
    STARTED_BY_HAND,
    TF_BEFORE_CONFIG,
    WSL2_RELEASE_PLACED,
    Facts,
)
from gpudoctor.parsers.library_lines import LINK
from gpudoctor.pasted import load_asks
from gpudoctor.planner import where
from gpudoctor.planner.needs import LINUX_ONLY, TOOL_FAMILY
from gpudoctor.probed import Found
from gpudoctor.versions import at_least


@dataclass(frozen=True)
class Ask:
    command: Cmd
    why: str
    # The codes of the findings whose fix this answer decides (a finding with no command to print until it is known):
    # the link, as data, between a finding left without a plan step and the question that completes it.
    codes: tuple[str, ...] = ()
    # The evidence kinds the ask was made for (a catalogue component's `when` asks): a finding judged from a line of
    # that kind, with no command of its own, is decided by it (_linked_to_open_findings). Not printed.
    made_for: tuple[str, ...] = ()
    # The fact its answer states (a key of _STATED; "" none the pasted reader could have found), by default read from the
    # command's shape (fact_of): an ask whose fact the paste already states is not asked (_unstated). Not printed.
    fact: str | None = None
    # What it was made for: a catalogued message's or a symptom family's id (the failure it decides), a component's
    # ("component:" and its id, named in the paste); "" for the general questions. Ranks it where asks are capped.
    subject: str = ""

    def to_json(self, target: str = "posix") -> dict:
        out = {"command": render(self.command, target), "argv": list(self.command.words), "why": self.why}
        if self.command.note:  # where it is typed, where that is not the reporter's own shell
            out["note"] = self.command.note
        if self.codes:
            out["codes"] = list(self.codes)
        return out


_DRIVER_CODES = frozenset({"driver-library-mismatch", "driver-missing", "driver-unreachable", "driver-nouveau", "wsl1-no-cuda"})
# The GPU Operator's driver container stopped before it built the module (catalogue.toml): no driver on the node yet.
_DRIVER_NOT_BUILT = ("driver-container-kernel-headers-unavailable", "driver-container-kernel-unresolved")
_FRAMEWORK_CODES = ("framework-", "cudnn-", "jax-", "tf-", "toolkit-torch-", "nvidia-wheels-")
# Error texts whose cause lies in how a framework or program was built or installed: which one is asked.
_BUILD_EVIDENCE = frozenset({"no-kernel-image", "library-missing", "cudnn-version-mismatch", "cuda-driver-insufficient"})


# A compiled extension built for another torch: the versions of both decide the fix, the driver does not.
_EXTENSION_CODES = frozenset({"extension-symbol-missing", "companion-torch-mismatch"})


# Commands that read the NVIDIA driver: on a machine whose only GPU is another vendor's they cannot succeed.
# A discrete GPU's name (a graphics card or a data-centre board): no Jetson's integrated GPU is named so.
_DISCRETE = re.compile(r"\b(?:GeForce|GTX|RTX|Quadro|Tesla|TITAN)\b", re.IGNORECASE)
_READS_DRIVER = frozenset({"nvidia-smi", "nvidia-smi.exe", "/proc/driver/nvidia/version", "nvidia"})


# Evidence of a TensorFlow import that stopped in its own preload check (tensorflow/python/platform/self_check.py)
_TF_IMPORT_STOPPED = frozenset({"tf-msvcp-dll-missing"})


def _tf_dlls_unshown(facts: Facts) -> tuple[str, ...]:
    from gpudoctor.checks.base import Context
    from gpudoctor.checks.windows import tensorflow_dlls_unshown

    return tensorflow_dlls_unshown(facts, Context())


def _dso_loader_dlls(facts: Facts) -> tuple[str, ...]:
    """The DLLs TensorFlow's loader (and jaxlib's, built from it) warned it could not load on native Windows ("W
    ...dso_loader.cc:64] Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found"): a
    warning it goes on from on the CPU, so no finding judges it (checks.reported's _TF_WARNING), and the text cannot
    say whether the DLL is anywhere on PATH; where.exe searches PATH for each, as the loader did."""
    from gpudoctor.checks.reported import _TF_WARNING

    return tuple(
        dict.fromkeys(
            soname
            for e in facts.pasted.errors
            if e.kind == "library-missing"
            and _TF_WARNING.search(e.line)
            and (soname := e.get("soname") or "").lower().endswith(".dll")
        )
    )[:6]


def _runtime_from_wheels(facts: Facts) -> bool:
    """Whether the CUDA runtime that failed is a Python package's: the text shows the program run from an environment's
    site-packages, whose CUDA wheels (torch, ctranslate2, onnxruntime, ...) bring their own runtime. The toolkit on
    PATH then bears on building extensions only, not on which runtime the driver refused."""
    py = facts.frameworks.python
    return isinstance(py, Found) and bool(py.value.site_packages)


# A GPU name that is a brand or family word and nothing else: no model number, no compute capability beside it.
_FAMILY_ONLY = re.compile(r"(?:NVIDIA[ \t]*)?(?:GeForce(?:[ \t]+(?:GTX|RTX|GT))?|Quadro|Tesla|TITAN|RTX|GTX)?[ \t.]*", re.I)


def _name_cut(facts: Facts) -> bool:
    """Whether a GPU shown has a name cut to its family (and no compute capability shown)."""
    return any(g.name and not g.compute_capability and _FAMILY_ONLY.fullmatch(g.name.strip()) for g in facts.driver.gpus)


# Windows' display adapters and their drivers, which PowerShell lists in any language: whether an NVIDIA GPU and its
# driver are there at all, beside Intel's or AMD's graphics.
_ADAPTERS = Ask(
    Cmd(
        ("powershell", "-NoProfile", "-Command", "Get-CimInstance Win32_VideoController | Format-List Name,DriverVersion,Status")
    ),
    "whether an NVIDIA display driver is installed and which (DriverVersion 31.0.15.5222 is NVIDIA 552.22; "
    "Microsoft Basic Display Adapter: none)",
)


def ask_for(facts: Facts, findings: list) -> list[Ask]:
    """What to request from the reporter; empty for a whole machine (nothing there is unshown)."""
    from gpudoctor.checks.driver import no_gpu_said, smi_in_gpu_less_container, stated_mismatch
    from gpudoctor.checks.reported import UNEXPLAINED, frameworks_named, other_vendor_gpu_only

    if not facts.pasted.partial:
        return []
    from gpudoctor.model import Severity

    # A GPU no build supports (below every PyTorch build, below Triton's minimum) is the only error: its fix is the CPU
    # or another GPU, and nothing the reporter's machine prints would change that.
    hardware = [
        f for f in findings if f.code == "framework-arch-unsupported" and f.remediation and f.remediation.component == "gpu"
    ]
    if hardware and all(f in hardware or f.severity < Severity.ERROR for f in findings):
        return []
    # A workload seeing GPUs it never requested, and nothing else: the stack works, so the driver and the framework
    # explain nothing; the finding's own steps read what decides it.
    if {f.code for f in findings} == {"container-gpus-unrequested"}:
        return []
    # Only the program's own faults shown (a device-side assert, a tensor left on the CPU, CUDA in a forked child: the
    # catalogue's "program-fault"; NCCL asked for on Windows: checks.reported.program_fault), nothing failing in the environment: the driver's and the framework's outputs would
    # decide nothing; what the program should do is in the message's meaning. Lines that describe rather than fail (a
    # torchrun command, a library's version: checks.reported's descriptive kinds) do not make it more than that.
    from gpudoctor.checks.reported import program_fault, recognised_failure

    errors = [e for e in facts.pasted.errors if e.kind == "program-fault" or recognised_failure(e)]
    if errors and all(program_fault(e, facts) for e in errors) and all(f.severity < Severity.WARNING for f in findings):
        return []
    from gpudoctor.planner.remedy import python_exe

    out: list[Ask] = []
    py = python_exe(facts)  # the interpreter the plan's own pip commands use (the pasted evidence decides it)
    windows = (facts.platform.system or "").lower().startswith("win")
    d = facts.driver
    mac = facts.platform.system == "Darwin"
    codes = {f.code for f in findings}
    extension = _extension_asks(facts, findings)
    # An extension built for another torch and no other error shown: the driver and torch's CUDA build decide nothing.
    only_extension = bool(codes & _EXTENSION_CODES) and all(e.kind == "undefined-symbol" for e in facts.pasted.errors)
    # Where the driver itself is the finding (mismatch, missing, unreachable, nouveau), nvidia-smi has nothing to add.
    driver_broken = bool(codes & _DRIVER_CODES) or d.smi_status == "failed"
    wsl_failing = facts.platform.wsl == 2 and any(e.kind in _NVML_FAILURES for e in facts.pasted.errors)
    if wsl_failing:
        out += _wsl_asks()
        if facts.pasted.reported("windows10-said") and not facts.pasted.reported("windows-build"):
            # Windows 10 gives WSL 2 the GPU only from build 19044 (21H2) on, and before that only in Insider builds
            # 20145 and later (NVIDIA's CUDA on WSL User Guide): its build decides whether any GPU reaches WSL.
            out.append(
                Ask(
                    Cmd(("cmd.exe", "/c", "ver"), note="from WSL (or ver in a Windows terminal)"),
                    "the Windows 10 build: GPU access in WSL 2 needs 19044 (21H2) or later, or an Insider build from 20145",
                )
            )
    elif facts.platform.wsl == 2 and "nvidia-smi" in facts.pasted.missing and no_gpu_said(facts) is None:
        # In WSL 2 nvidia-smi is the Windows driver's, in /usr/lib/wsl/lib beside libcuda (not on every shell's PATH):
        # that folder says whether the Windows side gives the GPU at all, nvidia-smi.exe on Windows which driver it is.
        out.append(
            Ask(
                Cmd(("ls", "-l", "/usr/lib/wsl/lib")),
                "whether the Windows driver put nvidia-smi and libcuda.so there (WSL 2's nvidia-smi is "
                "/usr/lib/wsl/lib/nvidia-smi, which not every shell has on PATH)",
            )
        )
        out.append(_wsl_asks()[0])
    elif windows and "nvidia-smi" in facts.pasted.missing and no_gpu_said(facts) is None and other_vendor_gpu_only(facts) is None:
        # On Windows nvidia-smi comes with NVIDIA's display driver (System32 for DCH drivers): the display adapters and
        # their drivers, which PowerShell lists in any language, say whether one is installed at all.
        out.append(_ADAPTERS)
    elif (
        not mac
        and facts.platform.wsl != 1
        and "nvidia-smi" not in facts.pasted.missing
        and not driver_broken
        and not only_extension
        and other_vendor_gpu_only(facts) is None  # no NVIDIA GPU here: nvidia-smi cannot answer
        and no_gpu_said(facts) is None
        # the GPU Operator's driver container failing before it builds the module: the node has no driver for
        # nvidia-smi to answer from until that container succeeds (its own asks decide; plans16 1603, h231)
        and not any(facts.pasted.reported(kind) for kind in _DRIVER_NOT_BUILT)
        # (or judged unable to build it for the node's kernel: its compiler older than the kernel's, h288)
        and "driver-container-kernel-unsupported" not in codes
    ):
        if not d.version and _name_cut(facts):
            # The GPU's name stops at its family ("NVIDIA GeForce GTX": a line cut in the paste): its model, and with
            # it the compute capability every build's kernels are judged by, is what is missing, beside the driver.
            out.append(
                Ask(
                    Cmd(("nvidia-smi", "--query-gpu=name,compute_cap,driver_version", "--format=csv")),
                    "the GPU's full name and compute capability (the paste cut its name), and the driver's version",
                )
            )
        elif (
            not d.version
            and d.gpus
            and (facts.pasted.reported("driver-branch-said") or d.cuda_version)
            and not codes & _DRIVER_CODES
        ):
            pass  # the driver's branch or its CUDA, and the GPU, are stated: nvidia-smi would repeat them
        elif not d.version:
            branch = next((e.get("branch") for e in facts.pasted.reported("driver-branch-said")), None)
            # (a branch the text states, "driver 535", is not asked for again: its full version is)
            said = f"the driver's full version (the text names its branch, {branch})" if branch else "the driver's version"
            why = f"{said}, the newest CUDA it supports, and the GPUs it sees"
            floor = next(
                (e for e in facts.pasted.reported("requirement-stated") if (e.get("component") or "").startswith("driver")),
                None,
            )
            if floor is not None:
                # a program's stated driver floor (checks.stated) is judged against what this shows
                cuda = " supporting CUDA" if floor.get("component") == "driver-cuda" else ""
                why += f"; the program states it needs a driver{cuda} {floor.get('need')} or newer, which this decides"
            if any(c.get("cue") == GPU_GRAPH_SAID for c in facts.pasted.cues):
                # the GPU's load was read in Task Manager, whose default graphs do not show CUDA's compute: nvidia-smi
                # while the program works says whether it uses the GPU (facts.GPU_GRAPH_SAID)
                why += (
                    "; typed while the program works, its GPU-Util and processes say whether the GPU computes (Task "
                    "Manager's GPU graphs show the 3D, Copy and Video engines, not CUDA, unless Cuda or Compute_0 is "
                    "chosen in a graph's engine list)"
                )
            out.append(Ask(Cmd(("nvidia-smi",)), why))
            if windows and facts.pasted.reported("cuda-driver-insufficient") and not d.gpus:
                # CUDA's "driver version is insufficient" with no NVIDIA GPU shown: Windows says so without any NVIDIA
                # driver too (checks.reported's _no_driver_shown_on_windows); the adapters name the machine's GPUs
                out.append(_ADAPTERS)
            if facts.platform.wsl == 2:
                # In WSL 2 the driver is Windows': libcuda.so.1 and nvidia-smi come from it through /usr/lib/wsl/lib,
                # never from a Linux package, so that folder says whether the Windows side gives CUDA at all.
                out.append(_wsl_asks()[1])
                out += _wsl_version_ask(facts, codes)
        elif d.version and not d.gpus:
            out.append(Ask(Cmd(("nvidia-smi", "-L")), "which GPUs the driver sees (their model decides the builds that run)"))
    if (
        "driver-library-mismatch" in codes
        and not isinstance(facts.kernel.proc_driver, Found)
        and stated_mismatch(facts)[0] is None  # the mismatch message itself names the module's version
    ):
        out.append(
            Ask(
                Cmd(("cat", "/proc/driver/nvidia/version")),
                "the version of the kernel module that is loaded, to compare with the libraries' version",
            )
        )

    named = frameworks_named(facts)
    torch, tf, jax = facts.frameworks.torch, facts.frameworks.tensorflow, facts.frameworks.jax
    torch_unknown = not isinstance(torch, Found) or not torch.value.build_known
    out += extension
    torch_asked = "torch" in named and torch_unknown and not only_extension and not _torch_bystander(facts)
    if torch_asked and _torch_unimportable(facts):
        # `-m torch.utils.collect_env` imports torch first, which is what failed: pip reads the install without it
        out.append(
            Ask(
                where.python_step(facts, "-m", "pip", "list"),
                "the torch release and build installed (torch cannot be imported, so collect_env cannot run), and its companions",
            )
        )
    elif torch_asked:
        out.append(
            Ask(
                where.python_step(facts, "-m", "torch.utils.collect_env"),
                "the PyTorch version and the CUDA it was built for, with the GPUs and the driver, in one paste",
            )
        )
    tf_version = tf.value.version if isinstance(tf, Found) else None
    if tf_version is None and (dated := next((c for c in facts.pasted.cues if c.get("cue") == TF_BEFORE_CONFIG), None)):
        tf_version = dated["means"].split()[-1]  # the release the text names (facts.TF_BEFORE_CONFIG)
    # TensorFlow's Windows preload check stopped the import before any of its own DLLs (catalogue.toml:
    # tf-msvcp-dll-not-on-path): no TensorFlow command answers, and which CUDA DLLs it loads is not the question yet.
    tf_stopped = any(e.kind in _TF_IMPORT_STOPPED for e in facts.pasted.errors)
    if (
        not tf_stopped
        and "tensorflow" in named
        and not (isinstance(tf, Found) and tf.value.is_cuda_build is not None)
        and _before_tf_config(tf_version)
    ):
        out.append(
            Ask(
                # TensorFlow before 1.14 has no tf.config (tensorflow/python/framework/config.py, tensorflow/tensorflow,
                # first written in 2019 and released with 1.14): the call below would end in AttributeError. Its own
                # 1.x question is tf.test.is_gpu_available() (tensorflow/python/framework/test_util.py, exported as
                # test.is_gpu_available in every 1.x release), and is_built_with_cuda() is there too.
                where.python_step(
                    facts,
                    "-c",
                    "import tensorflow as tf; print(tf.__version__); print(tf.test.is_built_with_cuda()); "
                    "print(tf.test.is_gpu_available())",
                ),
                f"whether this TensorFlow {tf_version} is a CUDA build and whether it reaches a GPU",
            )
        )
    elif not tf_stopped and "tensorflow" in named and not (isinstance(tf, Found) and tf.value.is_cuda_build is not None):
        out.append(
            Ask(
                # tf.sysconfig.get_build_info() exists from TensorFlow 2.3 on; tf.test.is_built_with_cuda() in every
                # release: one command that answers on any version (an empty dict before 2.3). The attribute's name is
                # an argument, not a quoted string in the code, so no shell (Windows PowerShell 5.1 strips inner
                # double quotes from a native command's arguments) changes the program. Last, the GPUs it lists
                # (tf.config.experimental.list_physical_devices, from 1.14 and in every 2.x: tensorflow.org's r1.15 and
                # r2.x API pages): whether it sees the GPU at all, with its library-loading lines on stderr.
                where.python_step(
                    facts,
                    "-c",
                    "import sys, tensorflow as tf; print(tf.__version__); print(tf.test.is_built_with_cuda()); "
                    "print(getattr(tf.sysconfig, sys.argv[1], dict)()); "
                    "print(tf.config.experimental.list_physical_devices(sys.argv[2]))",
                    "get_build_info",
                    "GPU",
                ),
                "the TensorFlow version, whether it is a CUDA build, (from 2.3) the CUDA and cuDNN it was built for, and "
                "the GPUs it lists",
            )
        )
    if windows and not tf_stopped and (dlls := _tf_dlls_unshown(facts)):
        out.append(
            Ask(
                Cmd(("where.exe", *dlls)),
                "which folders on PATH hold the CUDA and cuDNN DLLs that TensorFlow loads, and which are missing",
            )
        )
    elif windows and (dlls := _dso_loader_dlls(facts)):
        out.append(
            Ask(
                Cmd(("where.exe", *dlls)),
                "whether any folder on PATH holds the DLLs the loader did not find (none: that CUDA release's toolkit "
                "is not installed, or its bin is not on PATH in the shell that ran Python)",
            )
        )
    jax_dated = any(c.get("cue") == JAX_BEFORE_ENV_INFO for c in facts.pasted.cues)
    if "jax" in named and not isinstance(jax, Found) and not jax_dated:
        out.append(
            Ask(
                where.python_step(facts, "-c", "import jax; jax.print_environment_info()"),
                "the jax, jaxlib and CUDA plugin versions, the devices JAX sees, and nvidia-smi",
            )
        )
    elif "jax" in named and not isinstance(jax, Found):
        # A JAX older than print_environment_info (facts.JAX_BEFORE_ENV_INFO) ends that call in AttributeError: pip
        # reads its jax and jaxlib (a CUDA build's jaxlib carries +cudaNNN) on any release, without importing them.
        out.append(
            Ask(
                dataclasses.replace(where.python_step(facts, "-m", "pip", "list"), pipe=("grep", "-i", "jax")),
                "the jax and jaxlib installed (a CUDA jaxlib carries +cudaNNN; this release predates "
                "jax.print_environment_info())",
            )
        )
    framework_question = (
        bool(named)
        or _python_component_named(facts)
        or any(c.startswith(_FRAMEWORK_CODES) for c in codes)
        or any(e.kind in _BUILD_EVIDENCE for e in facts.pasted.errors)
    )
    out += _component_asks(facts, only_extension, windows)
    out += _failing_component_asks(facts, windows, "pasted-error-unexplained" in codes)
    if not isinstance(facts.frameworks.python, Found) and framework_question:
        if where.conda(facts):
            # conda list shows conda's builds (the CUDA each was built for) and what pip installed in the environment.
            listing = Cmd(("conda", "list"))
            what = "which frameworks, CUDA libraries and NVIDIA wheels the conda environment holds, with their builds"
        else:
            listing = where.python_step(facts, "-m", "pip", "list")
            what = "which frameworks and NVIDIA library wheels (nvidia-*) are installed, and their versions"
        out.append(Ask(listing, what))
    for package in where.conda_forge_packages(facts):
        out.append(
            Ask(
                Cmd(("conda", "list", package)),
                f"the conda-forge {package} installed and its build string: the CUDA it was built for",
            )
        )
    libs = [m for m in facts.pasted.missing if m.startswith("lib") and ".so" in m]
    if "container-no-gpu" in codes:
        # a container started without GPU access has no driver library to find: that finding explains libcuda's and
        # libnvidia-ml's absence, and the image's own cache (asked without --gpus) would only show it again
        libs = [m for m in libs if not m.startswith(("libcuda.so", "libnvidia-ml.so"))]
    copies: list[Ask] = []
    if libs and facts.platform.system == "Linux":
        stem = libs[0].split(".so", 1)[0]
        # (a name only the linker looked for, by -lNAME at a build, is searched in LIBRARY_PATH and -L folders, not in
        # LD_LIBRARY_PATH: parsers.library_lines)
        linked = {e.get("soname") for e in facts.pasted.errors if e.kind == "library-missing" and e.get("side") == LINK}
        loaded = {e.get("soname") for e in facts.pasted.errors if e.kind == "library-missing" and e.get("side") != LINK}
        failed = "linked" if libs[0] in linked and libs[0] not in loaded else "loaded"
        if not isinstance(facts.ldconfig, Found):  # a whole ldconfig -p pasted already answers it
            out.append(
                Ask(
                    Cmd(("ldconfig", "-p"), pipe=("grep", stem)),
                    f"which copies of {stem} the loader's cache knows (the text shows {libs[0]} could not be {failed})",
                )
            )
        if failed == "linked":
            out.append(
                Ask(
                    Cmd(("printenv", "LIBRARY_PATH")),
                    f"the folders the linker searches beside its -L options: the one holding {libs[0]} must be among them",
                )
            )
        else:
            out.append(
                Ask(
                    Cmd(("printenv", "LD_LIBRARY_PATH")),
                    f"the directories searched before the cache: a copy of {stem} there wins, or one missing from it is not found",
                )
            )
        if not libs[0].startswith("libcuda.so"):
            # which copies exist at all, beside which the loader reaches (libcuda's own ask below; WSL's, after it):
            # asked last, so that over the cap it gives way before the interpreter's and the loader's own questions
            copies = _load_asks(load_asks.linux_library_asks(facts, libs[0]))
        if libs[0] == "libcuda.so" and facts.platform.wsl != 2:
            # The unversioned name (cuDNN 8's sub-libraries dlopen it so): the driver's own file is libcuda.so.1, and
            # the plain link is left to a development package by some packagings, or lost in a manual install. Every
            # copy on the machine says which: the link missing beside libcuda.so.1, or only the toolkit's stub
            # (lib64/stubs, for linking: its every call fails at run time). (WSL 2's is Windows', asked below.)
            out.append(
                Ask(
                    Cmd(("find", "/", "-xdev", "-name", "libcuda.so*")),
                    "every libcuda file and link on the machine: whether the unversioned libcuda.so exists beside the "
                    "driver's libcuda.so.1, or only the CUDA toolkit's stub (lib64/stubs), which must not run programs",
                )
            )
    out += _missing_dll_asks(facts, findings, windows)
    if windows:
        out += _windows_load_asks(facts)
    # An image's NVIDIA_REQUIRE_CUDA refused by the host's driver, or its CUDA's forward-compatibility library refused by
    # the GPU (error 804 in a container), is the driver's and the image's: no toolkit builds there.
    image_only = bool(
        facts.pasted.reported("container-requires-cuda")
        or (
            facts.pasted.reported("cuda-compat-not-supported")
            and (where.container_of(facts) is not None or where.image(facts) is not None)
        )
    ) and not any(
        e.kind in ("cuda-driver-insufficient", "driver-too-old-found", "cuda-version-detected-mismatch")
        for e in facts.pasted.errors
    )
    # A program running from pip wheels brought its own CUDA runtime: the toolkit matters only for building extensions.
    toolkit_asked = "toolkit-torch-major-mismatch" in codes or (
        "toolkit-newer-than-driver" in codes and not image_only and not _runtime_from_wheels(facts)
    )
    if facts.toolkits.nvcc_on_path_version is None and toolkit_asked:
        out.append(Ask(Cmd(("nvcc", "--version")), "the CUDA toolkit on PATH, which builds extensions"))
    if facts.platform.wsl == 2 and any(m.startswith("libcuda.so") for m in facts.pasted.missing):
        # In WSL 2 libcuda comes from Windows, under /usr/lib/wsl/lib, which programs that dlopen the unversioned
        # libcuda.so find only through the loader's cache or LD_LIBRARY_PATH.
        out.append(Ask(Cmd(("ls", "-l", "/usr/lib/wsl/lib")), "whether WSL's libcuda.so (from the Windows driver) is there"))
        out.append(Ask(Cmd(("printenv", "LD_LIBRARY_PATH")), "whether /usr/lib/wsl/lib is on the loader's path"))
    img = where.image(facts)
    if facts.platform.wsl == 2 and img is not None and any(e.kind == "nvml" for e in facts.pasted.errors):
        # WSL 2's driver reaches a container through /usr/lib/wsl/lib; a libcuda the image (or the distribution's Linux
        # driver package) brings is found first and sees no device.
        out.append(
            Ask(
                Cmd(
                    ("docker", "run", "--rm", "--gpus", "all", "--entrypoint", "ldconfig", img["means"], "-p"),
                    pipe=("grep", "libcuda"),
                ),
                "which libcuda.so.1 the container resolves (WSL's is under /usr/lib/wsl/lib)",
                subject=_WSL,
            )
        )
    if facts.pasted.cluster == "slurm" and not _refused_at_submission(facts):
        out.append(
            Ask(
                Cmd(("scontrol", "show", "job", Placeholder("job-id"))),
                "the job's allocation (its GRES: whether GPUs were requested and granted)",
            )
        )
        out.append(
            Ask(
                Cmd(("env",), pipe=("grep", "-E", "VISIBLE_DEVICES|GPU_DEVICE_ORDINAL")),
                # Slurm's gres/gpu sets CUDA_VISIBLE_DEVICES and GPU_DEVICE_ORDINAL (src/plugins/gres/gpu/gres_gpu.c
                # @6d5de718); a runtime built for AMD GPUs too also reads ROCR_VISIBLE_DEVICES and HIP_VISIBLE_DEVICES
                "inside the job: the GPUs Slurm gave it, by every variable that selects GPUs",
            )
        )
    out += _distribution_asks(facts, findings)
    out += _toolkit_arch_asks(facts, findings)
    out += _build_tree_asks(facts, windows)
    interpreter = _interpreter_asks(facts, findings)
    # the console script's interpreter asked first: every python and pip step after it is to run in what it names
    out = [*interpreter, *out] if any(a.subject == _INTERPRETER for a in interpreter) else [*out, *interpreter]
    out += _app_image_asks(facts)
    out += _container_devices_asks(facts)
    out += _node_capacity_asks(facts)
    out += _distributed_cut_asks(facts)
    out += _module_file_asks(facts) if windows else []
    out += _catalogue_asks(facts)
    out += _wsl_slowdown_asks(facts)
    out += _pip_typed_asks(facts, windows)
    out += _logged_container_asks(facts)
    out += _family_asks(facts, codes)
    out += _owner_listing_asks(facts, out, py, windows)
    out += copies
    from gpudoctor.checks.driver import no_gpu_said
    from gpudoctor.checks.reported import other_vendor_gpu_only

    if other_vendor_gpu_only(facts) is not None or no_gpu_said(facts) is not None:  # no NVIDIA GPU: nothing reads a driver
        out = [a for a in out if not any(w in _READS_DRIVER for w in (*a.command.argv, *a.command.pipe))]
    if any(c.get("cue") == NO_PYTHON for c in facts.pasted.cues):  # a C# or C++ program: no interpreter to run
        out = [a for a in out if not _runs_python(a.command, py)]
    # another platform's programs, or another distribution family's package tools, are not asked
    out = [a for a in out if not _linux_only(a.command)] if windows else _on_this_distribution(facts, out)
    if "container-no-gpu" in codes and smi_in_gpu_less_container(facts):
        # nvidia-smi failing in a container started without the GPU: the container has no /dev/nvidia*, whatever the
        # host's module does; the kernel-module reads of the message's catalogue entry decide nothing there
        out = [a for a in out if a.subject != "nvidia-smi-cannot-communicate"]
    jetson = next((c for c in facts.pasted.cues if c.get("cue") == JETSON_SAID), None)
    if jetson and any(_DISCRETE.search(g.name or "") for g in facts.driver.gpus):
        # a discrete GPU named beside a Jetson: the Jetson is another machine the text mentions (where it worked), and
        # the failing one is a PC whose driver nvidia-smi shows
        jetson = None
    if jetson:
        # A Jetson's integrated GPU: JetPack 5 and older ship no nvidia-smi, and JetPack 6's shows no driver version
        # (henrygd/beszel#286, OE4T/linux-tegra-5.10#17); the L4T release names the JetPack, hence the builds that run.
        out = [a for a in out if a.command.argv[:1] != ("nvidia-smi",)]
        if "not shown" in jetson.get("means", ""):
            out.insert(
                0,
                Ask(
                    Cmd(("cat", "/etc/nv_tegra_release")),
                    "the Jetson's L4T release: it names the JetPack, and the builds made for it",
                ),
            )
    out = _runnable(facts, out, windows)
    out = _without_cpu_crashed(findings, out)
    out += _import_crash_asks(facts, windows)
    if _torch_unimportable(facts):  # (a component's collect_env too: it imports torch first)
        out = [a for a in out if "torch.utils.collect_env" not in a.command.argv]
    if named:
        # A catalogued message's probe names one framework, but the message may be another's: "Could not create cudnn
        # handle" is XLA's stream executor's line under JAX as under TensorFlow. A probe that imports a framework the
        # report does not show at work ends in ModuleNotFoundError and decides nothing.
        kept = [a for a in out if (fw := _framework_imported(a.command)) is None or fw in named]
        if len(kept) < len(out) and "jax" in named:
            # The cuDNN and CUDA of a JAX job are its CUDA plugin's wheels (jax-ml/jax, jax_plugins/cuda/
            # plugin_setup.py @9866372d: the with_cuda extra pulls nvidia-cudnn-cu12, nvidia-cublas-cu12 ...), unless
            # LD_LIBRARY_PATH (a module's or the system's copy) is searched first: both decide which cuDNN it loads.
            kept.append(
                Ask(
                    dataclasses.replace(where.python_step(facts, "-m", "pip", "list"), pipe=("grep", "-iE", "jax|nvidia-")),
                    "the jaxlib, its CUDA plugin and the NVIDIA library wheels (nvidia-cudnn-cu12 ...) the job's "
                    "interpreter holds: the cuDNN and cuBLAS that JAX loads unless LD_LIBRARY_PATH names others",
                )
            )
            kept.append(
                Ask(
                    Cmd(("printenv", "LD_LIBRARY_PATH")),
                    "the directories searched before JAX's own wheels: a cuDNN there (a module's, the system's) is loaded",
                )
            )
        out = kept
    if shadowed := _shadowed_package_asks(facts, windows):
        # A module named like the package imported in its place (catalogue.toml: python-parent-not-a-package) is decided
        # by where that name resolves from the launch directory; where it is every failure shown, the driver's and the
        # frameworks' questions decide nothing of it.
        only = all(
            e.kind in ("python-package-shadowed", "python-extension-no-init")
            for e in facts.pasted.errors
            if _is_failure(e, facts)
        )
        out = shadowed + ([a for a in out if a in _catalogue_asks(facts)] if only else out)
    out += _variant_asks(facts)
    if _nccl_hang_only(facts):
        # A job over NCCL that waits, and no failure beside it: its ranks reached NCCL on their GPUs (the driver and the
        # framework's build answered them), so neither decides where it stops; the family's asks do
        # (gpudoctor.checks.symptoms: nccl-hang).
        out = [a for a in out if not _reads_stack(a.command)]
    if _device_failures_only(facts):
        # The GPU's own state refused the program (catalogue.toml's subject "device": error 46 under a compute mode or
        # another process): which GPU it was given and who holds it decide; the framework's build, its package list and
        # its interpreter's view decide nothing of it (reviewers: collect_env asked on "busy or unavailable").
        # (a message's own probe stays: what the process's torch sees of the GPUs is the device's side, asked there)
        own = _catalogue_asks(facts)
        out = [a for a in out if not _reads_build(a.command) or a in own]
    if "nccl-ib-not-in-container" in codes:
        # NCCL found no InfiniBand device inside the ranks' container (gpudoctor.checks.catalogued.clusters): the ranks
        # reached NCCL on their GPUs, so the driver, the framework's build, the job's GPUs and /dev/shm decide nothing of
        # it (reviewers of plans22 2202/2208: those asks were off the point); the finding's steps read the devices.
        own = _catalogue_asks(facts)
        out = [a for a in out if a in own]
    if _operator_managed(facts, named):
        # A node whose driver, container toolkit and device plugin are the GPU Operator's pods, and no Python program of
        # the reporter's shown: the shell's packages, its CUDA toolkit and its GPU-selecting variables decide nothing of
        # a pod's failure there (reviewers of plans7/625, plans22/2252, plans23/2318: "pip list and nvcc --version on an
        # OpenShift node", "python3 -m pip list on the host ... cannot decide anything about pods"); the operator's own
        # reads (catalogue.toml's gpu-operator component) and the failures' catalogued asks do.
        own = _catalogue_asks(facts)
        out = [a for a in out if a in own or not _reads_node_shell(a.command)]
    if "driver-container-kernel-unsupported" in codes:
        # the operator's driver container judged unable to build for the node's kernel (its compiler older than the
        # kernel's, h288): that finding's fix decides, and the operator's pods would only show the same failure
        out = [a for a in out if a.subject != "component:gpu-operator"]
    if _installer_failures_only(facts):
        # A failed install is decided by the interpreter, or conda's view of the machine, that its catalogue entries ask
        # (catalogue.toml's installer family): the driver's and the frameworks' questions decide nothing of it.
        # Where the paste decided it (gpudoctor.checks.installers), nothing is left to ask.
        decided = codes & {"python-no-wheel", "python-externally-managed", "pip-too-old"}
        entries = [] if decided else _catalogue_asks(facts) + _pip_typed_asks(facts, windows)
        out = [a for a in out if a in entries]
    out = [_in_venv(facts, py, a) for a in out]
    out = _in_kernel(facts, py, out)
    # An ask run in the container by name (docker exec NAME ...) makes the same ask on the host's shell a wrong answer.
    inside = {(a.command.argv[3:], a.command.pipe) for a in out if a.command.argv[:2] == ("docker", "exec")}
    out = [a for a in out if (a.command.argv, a.command.pipe) not in inside]
    if UNEXPLAINED in codes:
        # A failure nothing shown explains has no fix to print until these are answered: each answer decides it (the
        # finding says so, gpudoctor.checks.reported.check_reported_unexplained).
        out = [dataclasses.replace(a, codes=(*a.codes, UNEXPLAINED)) for a in out]
    out = _linked_to_open_findings(facts, findings, out)
    # A read of the program's own environment (its variables, its loader) asked where the program runs, as a step is
    out = [dataclasses.replace(a, command=where.in_job(facts, where.placed(facts, a.command))) for a in out]
    return _capped(facts, _other_side_last(_unique(_placed_beside(facts, _unstated(facts, _decided(facts, out))))))


# The most questions one report asks: a reporter answers a handful, and a long list buries the ones that decide (the
# blind sets' reviewers, issues 27/28). Sets 3-13 print at most 9; the cap trims only such a tail.
MAX_ASKS = 8


def _capped(facts: Facts, asks: list[Ask]) -> list[Ask]:
    """At most MAX_ASKS asks, in their order; over it, the ones least about the failure go first: a general question
    before a named component's, before one made for a failure the paste shows (its catalogued message, its symptom
    family), the last of each rank first."""
    if len(asks) <= MAX_ASKS:
        return asks
    from gpudoctor.checks.reported import pasted_failures
    from gpudoctor.checks.symptoms import family_of
    from gpudoctor.parsers.catalogue import by_id, messages

    failing: set[str] = set()
    for e in pasted_failures(facts):
        message = by_id(e.get("entry") or "") or next((m for m in messages() if m.pattern.search(e.line)), None)
        family = family_of(e, facts)
        failing |= {x.id for x in (message, family) if x is not None}

    if facts.platform.wsl == 2:
        failing.add(_WSL)  # (WSL's own questions: where the driver's libraries come from in it)

    def rank(a: Ask) -> int:
        return 2 if a.subject in failing else 1 if a.subject else 0

    order = sorted(range(len(asks)), key=lambda i: (rank(asks[i]), -i))  # (the lowest rank, the last of it, first)
    dropped = set(order[: len(asks) - MAX_ASKS])
    return [a for i, a in enumerate(asks) if i not in dropped]


# The facts an ask's answer states that the pasted reader finds too, each with the test of whether the paste stated it:
# what nvidia-smi prints of the driver and its GPUs (its table, or `-L`'s list), nvcc's release, a tool's release (one
# answer: gpudoctor.planner.tool_floors.shown), the loaded kernel module's line, the loader's cache, a whole package list.
_STATED: dict[str, Any] = {
    "driver-and-gpus": lambda f: bool(f.driver.version) and bool(f.driver.gpus),
    "gpus": lambda f: bool(f.driver.gpus) and all(g.name for g in f.driver.gpus),
    "nvcc": lambda f: f.toolkits.nvcc_on_path_version is not None,
    "kernel-module": lambda f: isinstance(f.kernel.proc_driver, Found),
    "loader-cache": lambda f: isinstance(f.ldconfig, Found),
    "packages": lambda f: "distributions" in f.pasted.whole,
}
# The programs that run their command in another place than the shell the paste was typed in (a container, a pod, a
# job's step, the Windows side of WSL): their answer is that place's, which the paste's lines need not be.
_ELSEWHERE = frozenset({"docker", "podman", "kubectl", "singularity", "apptainer", "srun", "wsl", "cmd.exe", "powershell"})


def fact_of(cmd: Cmd) -> str:
    """The fact a command's answer states (a key of _STATED, `env:NAME`, `release:PRODUCT`, or `gpu-query` for
    nvidia-smi's --query-gpu fields), where it is typed in the paste's own place; "" for any other command, and for one
    whose note says it is typed elsewhere (inside the job, on the host) or that runs it elsewhere."""
    words = [str(w) for w in cmd.argv]
    if cmd.note or not words or words[0] in _ELSEWHERE:
        return ""
    from gpudoctor.planner import tool_floors

    prog, rest = words[0].replace("\\", "/").rsplit("/", 1)[-1], words[1:]
    if prog == "nvidia-smi" and not cmd.pipe:
        if not rest:
            return "driver-and-gpus"
        if rest == ["-L"]:
            return "gpus"
        return "gpu-query" if rest[0].startswith("--query-gpu=") else ""
    if prog == "nvcc" and rest in (["--version"], ["-V"]):
        return "nvcc"
    for product in tool_floors.PRODUCTS:
        if words == list(product.ask) and product is not tool_floors.PIP:  # (pip's is asked with the command's Python)
            return f"release:{product.name}"
    if words == ["cat", "/proc/driver/nvidia/version"]:
        return "kernel-module"
    if words[:2] == ["ldconfig", "-p"] and len(words) == 2:
        return "loader-cache"
    if prog == "printenv" and len(rest) == 1:
        return f"env:{rest[0]}"
    if prog.startswith("python") and rest[:3] in (["-m", "pip", "list"], ["-m", "pip", "freeze"]) and len(rest) == 3:
        return "packages"
    return ""


def stated(facts: Facts, ask: Ask) -> bool:
    """Whether the paste already states the fact the ask's answer would (Ask.fact, else fact_of its command)."""
    from gpudoctor.planner import tool_floors

    fact = fact_of(ask.command) if ask.fact is None else ask.fact
    if not fact:
        return False
    if fact == "gpu-query":
        return _gpu_query_answered(facts, ask.command.argv)
    if fact.startswith("env:"):
        return fact[4:] in facts.platform.env
    if fact.startswith("listed:"):
        python = facts.frameworks.python
        held = python.value.distributions if isinstance(python, Found) and "distributions" in facts.pasted.whole else {}
        return any(w in name.lower() for name in held for w in fact[7:].split("|"))
    if fact.startswith("release:"):
        product = next((p for p in tool_floors.PRODUCTS if p.name == fact[8:]), None)
        shown = tool_floors.shown(facts, product) if product is not None else None
        return shown is not None and shown.exact
    test = _STATED.get(fact)
    return bool(test is not None and test(facts))


def _unstated(facts: Facts, asks: list[Ask]) -> list[Ask]:
    """The asks whose fact the paste does not state already (issues 27/28: "asks the paste already answers", an
    nvidia-smi under its own pasted table, `docker --version` under its banner): each is decided once, by the reader."""
    return [a for a in asks if not stated(facts, a)]


def _runnable(facts: Facts, asks: list[Ask], windows: bool) -> list[Ask]:
    """The one filter of what an ask needs to run (gpudoctor.planner.tool_floors.unrunnable, which the consequence model
    counts too). A probe that imports a module the paste shows failing to import (it ends in that same error), or calls
    what is newer than the release it shows, is replaced, never dropped, by pip's view of the distributions installed
    under that module's name in the same interpreter (pip reads their metadata without importing them; findstr where
    there is no grep), once per module and after the others (a whole pip list answers it too); a tool's command by its
    form that runs on the release shown (tool_floors.instead), in its place."""
    from gpudoctor.planner.tool_floors import instead, probed_module, unrunnable

    out: list[Ask] = []
    modules: dict[str, str] = {}  # the module a probe was refused for -> why
    for a in asks:
        why = unrunnable(a.command, facts)
        if why is None:
            out.append(a)
        elif (runs := instead(a.command)) is not None:  # (a tool's own older form: the query without the newer field)
            out.append(Ask(runs, f"{a.why} ({why})", a.codes))
        else:
            modules.setdefault(probed_module(a.command), why)
    listing = where.python_step(facts, "-m", "pip", "list")
    if not modules or any(a.command == listing for a in out):
        return out
    # (the listing of the failing package's owner asked already, _owner_listing_asks: filtered by the module's name too)
    owner = next((i for i, a in enumerate(out) if a.fact is not None and a.fact.startswith("listed:")), None)
    if owner is not None:
        row = out[owner]
        words = load_asks.listed_words([*(row.fact or "")[7:].split("|"), *modules], [])
        pipe = load_asks.listing_filter(words, windows)
        out[owner] = dataclasses.replace(
            row, command=dataclasses.replace(row.command, pipe=pipe), fact="listed:" + "|".join(words)
        )
        return out
    for module, why in sorted(modules.items()):
        if any(other != module and other in module for other in modules):
            continue  # (jax's filter lists jaxlib too)
        fails = "its import fails, so it cannot report itself" if "failing" in why else f"the probe cannot run: {why}"
        out.append(
            Ask(
                # cmd.exe and PowerShell have no grep: findstr filters alike in both
                dataclasses.replace(listing, pipe=("findstr", "/i", module) if windows else ("grep", "-i", module)),
                f"every distribution installed under {module}'s name ({fails})",
            )
        )
    return out


_OTHER_SIDE = "in Windows PowerShell, not in WSL"

# A virtual environment's own interpreter (venv, virtualenv, uv's and Poetry's .venv, pipenv's and Poetry's cache):
# conda neither made nor manages it. A conda environment's (…/envs/NAME/bin/python, …/anaconda3/bin/python) is not one.
_VENV_PYTHON = re.compile(
    r"[\\/](?:\.?venv|\.?env|virtualenvs[\\/][^\\/]{1,100}|[\w.-]{1,100}-env)[\\/](?:bin|Scripts)[\\/]python[\w.]*$", re.I
)

# (a conda environment named like one, …/anaconda3/envs/my-env/bin/python, is conda's)
_CONDA_PYTHON = re.compile(r"[\\/]envs[\\/]|conda|miniforge|mambaforge", re.I)


_USER_SITE = re.compile(r"/\.local/lib/python\d[\d.]*/site-packages\b")


def _pip_installed(facts: Facts) -> bool:
    """Whether the paste shows the packages installed by pip into a Python conda does not manage: a `pip install` typed
    (rapidsai/cuml#404: `# pip install cuml-cuda100` in a Docker image), or pip's user site in a traceback
    (rapidsai/cuml#5214: ~/.local/lib/python3.8/site-packages). Never where a `conda install` shows: conda lists pip's
    installs in its own environments too."""
    if facts.pasted.reported("conda-install-said"):
        return False
    if facts.pasted.reported("pip-install-said"):
        return True
    # (pip's user site, where `pip install --user` or a Python whose own site-packages are not writable puts them: conda
    # installs into an environment's prefix, never there; PEP 370)
    found = facts.frameworks.python
    return isinstance(found, Found) and any(_USER_SITE.search(p) for p in found.value.site_packages or ())


def _in_venv(facts: Facts, py: str, ask: Ask) -> Ask:
    """A `conda list` ask where the paste shows the program run by a virtual environment's interpreter, or its packages
    installed by pip (_pip_installed), and nothing of conda: conda would list another environment (or not be installed at
    all), so the environment's own pip lists the same packages, filtered alike (a catalogue entry written for conda's
    usual install, RAPIDS', asks conda first)."""
    words = ask.command.argv
    if words[:2] != ("conda", "list") or _CONDA_PYTHON.search(py) or where.conda(facts):
        return ask
    venv = _VENV_PYTHON.search(py) is not None
    if not venv and not _pip_installed(facts):
        return ask
    package = [w for w in words[2:] if isinstance(w, str) and not w.startswith("-")]
    pipe = ask.command.pipe or (("grep", "-i", package[0]) if package else ())
    return Ask(
        Cmd((py, "-m", "pip", "list"), pipe=pipe),
        f"{ask.why}; from the virtual environment's own pip, which conda does not manage"
        if venv
        else f"{ask.why}; from pip, which installed them here (nothing shows conda)",
        ask.codes,
    )


# Where a probe of the program's Python is typed when the program ran in a notebook the paste names and no cell line of
# it was shown (its commands are then written for a shell, gpudoctor.planner.where.shell): the kernel's interpreter is
# the one that ran the failing code, and a terminal's python3 (or a cell's `!python3`, a shell's PATH) may be another
# (Jupyter's kernel spec names its own interpreter: jupyter/jupyter_client, kernelspec's argv). The code after -c, typed
# as a cell, runs in the kernel itself and prints sys.executable where it asks it.
_IN_KERNEL = "in a cell of the same notebook, the code after -c typed as Python: it runs in the kernel itself"


def _in_kernel(facts: Facts, py: str, asks: list[Ask]) -> list[Ask]:
    """The Python probes (`python3 -c CODE`, no arguments after it) placed in the notebook's kernel where the paste says the program ran in a
    notebook (facts.NOTEBOOK_SAID) and the plan's lines are a shell's, not a cell's."""
    from gpudoctor.facts import NOTEBOOK_SAID

    if not any(c.get("cue") == NOTEBOOK_SAID for c in facts.pasted.cues) or where.shell(facts) == "cell":
        return asks
    return [
        dataclasses.replace(a, command=dataclasses.replace(a.command, note=_IN_KERNEL))
        if len(a.command.argv) == 3
        and a.command.argv[:2] == (py, "-c")
        and "sys.argv" not in str(a.command.argv[2])  # (code that reads its arguments is no cell's)
        and not a.command.note
        and not a.command.pipe
        else a
        for a in asks
    ]


_IN_WSL = "in WSL"


def _wsl_slowdown_asks(facts: Facts) -> list[Ask]:
    """The reporter says the work runs much slower under WSL 2 than on the same machine's Windows (failure_lines'
    slow-said): beside the framework's own asks (whether its GPU provider or device is in use at all), where the data is
    read from. The Windows drives are mounted under /mnt over 9P, far slower for many small files than WSL's own ext4
    (Microsoft's WSL documentation, "Comparing WSL versions": "cross-OS file system access" is slower in WSL 2; store
    files in the Linux file system for speed), which no GPU answer shows."""
    if not facts.platform.wsl or not any(e.get("form") == "slow-said" for e in facts.pasted.errors):
        return []
    return [
        Ask(
            Cmd(("df", "-h", "."), note="in WSL, in the folder the program reads its data from"),
            "whether the data is on a Windows drive (/mnt/c, mounted over 9P: slow for many small files) or on WSL's own ext4",
        )
    ]


def _placed_beside(facts: Facts, asks: list[Ask]) -> list[Ask]:
    """Each ask with no place of its own given the place it runs, where the paste shows more than one: beside a container
    or a pod, the host's or the container's (gpudoctor.planner.where.side_note); in WSL 2, whose Windows is always the
    other place, a program both sides have (nvidia-smi, an interpreter, pip) is WSL's, and beside a container every
    question of the host (WSL 2 is the containers' host: its driver is Windows' through /usr/lib/wsl/lib) is WSL's."""
    wsl = facts.platform.wsl == 2
    contained = wsl and (where.container_of(facts) is not None or where.image(facts) is not None)
    out = []
    for a in asks:
        note = where.side_note(facts, a.command)
        program = str(a.command.argv[0]) if a.command.argv else ""
        own = not a.command.note and program not in _ELSEWHERE and not program.lower().endswith(".exe")
        if wsl and own and (note == "on the host" or (not note and (contained or program.startswith(_BOTH_SIDES)))):
            note = _IN_WSL
        out.append(dataclasses.replace(a, command=dataclasses.replace(a.command, note=note)) if note else a)
    return out


# The programs a Windows shell and WSL both have, whose answer differs between them.
_BOTH_SIDES = ("nvidia-smi", "python", "pip")


def _other_side_last(asks: list[Ask]) -> list[Ask]:
    """A WSL report's asks with the Windows side's last: the views print a command's note on the line above it, where
    it reads as a heading over the lines below; a WSL command (ls, dpkg, journalctl) printed under "in Windows
    PowerShell" would be run in PowerShell, where it does not exist or reads another machine."""
    return [a for a in asks if a.command.note != _OTHER_SIDE] + [a for a in asks if a.command.note == _OTHER_SIDE]


# The CUDA toolkit's own DLLs (cudart64_110.dll, cublas64_11.dll, cublasLt64_12.dll, cufft64_11.dll, nvrtc64_120_0.dll
# ...): NVIDIA's Windows installer puts them in <root>\v<major.minor>\bin, one folder per toolkit installed.
_TOOLKIT_DLL = re.compile(r"(?:cudart|cublas|cublaslt|cufft|curand|cusolver|cusparse|nvrtc|nvjpeg|npp\w*)64_\w+\.dll", re.I)
_TOOLKIT_ROOT = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA"
# cuBLAS's DLLs by CUDA major (cublas64_11.dll, cublasLt64_10.dll): the ones cuDNN loads too.
_CUBLAS_DLL = re.compile(r"cublas(?:lt)?64_\d{2}\.dll", re.I)


def _missing_dll_asks(facts: Facts, findings: list, windows: bool) -> list[Ask]:
    """The DLLs a Windows load failure names (the loader's own error): which folders on PATH hold each, and of the CUDA
    toolkit's, which installed toolkit holds it. The three answers decide the fix apart: none anywhere (install the
    toolkit, or NVIDIA's wheel, of that CUDA major), in a toolkit whose bin folder PATH lacks (put it on PATH), or
    another copy found first (Windows loads the first: its folder comes out of PATH). where.exe searches the current
    folder and PATH in the order the loader does, and with /R a folder's tree (where's reference, Microsoft's Windows
    Commands documentation). The twin of the Linux asks above (ldconfig -p and LD_LIBRARY_PATH). Only beside a finding
    to decide: a DLL a program only warns of and runs without (TensorFlow's dso_loader on a machine with no GPU) is not
    a failure."""
    from gpudoctor.checks.windows import cublas_asked_by_cudnn, cudnn_asks_cublas_where, package_own_dlls
    from gpudoctor.model import Severity

    # (not a package's own DLL, loaded from its folder by its full path: a dependency of it is what is missing)
    own = package_own_dlls(facts)
    dlls = [m for m in facts.pasted.missing if m.lower().endswith(".dll") and m.lower() not in own][:3]
    if not windows or not dlls or all(f.severity < Severity.WARNING for f in findings):
        return []
    # (a cuBLAS DLL cuDNN 8 itself could not find names the cuDNN's CUDA, not the program's: which cuDNN is found
    # first decides, and no toolkit of that major is one to install before it is read; checks.windows cites the line)
    if cudnn := [d for d in dlls if d.lower() in cublas_asked_by_cudnn(facts)]:
        return [
            Ask(
                cudnn_asks_cublas_where(cudnn[0], note=False),
                f"which cuDNN Windows finds first, and the CUDA major of each {cudnn[0].split('64_', 1)[0]} copy: cuDNN "
                f"asked for {cudnn[0]}, so the cuDNN loaded is a build for that CUDA, which the program may not be",
            )
        ]
    named = ", ".join(dlls)
    out = [
        Ask(
            Cmd(("where.exe", *dlls)),
            f"which folders on PATH hold {named}, in the order Windows loads them (the text "
            "shows it could not be loaded): none, or another CUDA major's copy first, decides the fix",
        )
    ]
    toolkit = [d for d in dlls if _TOOLKIT_DLL.fullmatch(d)]
    if toolkit:
        out.append(
            Ask(
                Cmd(("where.exe", "/R", _TOOLKIT_ROOT, *toolkit)),
                f"which installed CUDA toolkit holds {', '.join(toolkit)}: one there whose bin folder PATH lacks is put on "
                "PATH; none there is a toolkit (or NVIDIA's wheel) of that CUDA major to install",
            )
        )
    return out


def _load_asks(rows: list) -> list[Ask]:
    """A load failure's asks (gpudoctor.pasted.load_asks' rows) as general questions: over the cap they give way to the
    asks of a catalogued message or a named component, which read the same failure more narrowly."""
    return [Ask(r.command, r.decides) for r in rows]


def _windows_load_asks(facts: Facts) -> list[Ask]:
    """The DLL a Windows program failed to load, by its failure class's table (gpudoctor.pasted.load_asks): a DLL the
    text shows failing, not one TensorFlow's loader only warned of and ran on without (checks.reported's _TF_WARNING)."""
    from gpudoctor.checks.reported import _TF_WARNING
    from gpudoctor.checks.windows import package_own_dlls

    warned = {
        (e.get("soname") or "").lower() for e in facts.pasted.errors if e.kind == "library-missing" and _TF_WARNING.search(e.line)
    }
    dlls = [m for m in facts.pasted.missing if m.lower().endswith(".dll") and m.lower() not in warned]
    from gpudoctor.checks.reported import frameworks_named

    python_named = bool(frameworks_named(facts)) or _python_component_named(facts)
    return _load_asks(load_asks.windows_dll_asks(facts, dlls, package_own_dlls(facts), python_named))


def _distribution_asks(facts: Facts, findings: list) -> list[Ask]:
    """The distribution, where a driver fix is left undecided on Linux for want of it: NVIDIA's driver comes as the
    distribution's own packages or from NVIDIA's repository for that release (gpudoctor.planner.remedy's routes by
    os-release ID), so /etc/os-release (os-release(5): ID, VERSION_ID) decides the command. Inside a container, the
    host's file is the one that counts (the driver is the host's); WSL 2 and Windows take the Windows driver."""
    from gpudoctor.planner.deciders import undecided

    system = (facts.platform.system or "").lower()
    if system.startswith("win") or system == "darwin" or facts.platform.wsl or facts.platform.distro.id:
        return []
    driver = [f for f in findings if undecided(f) and f.remediation.component == "driver"]
    if not driver:
        return []
    host = facts.platform.container or any(f.remediation.where == "the host" for f in driver)
    return [
        Ask(
            Cmd(("cat", "/etc/os-release"), note="on the host" if host else ""),
            "the distribution and its release (ID, VERSION_ID): they decide the driver's packages and repository",
        )
    ]


# A compiled program run from the build tree CMake made (`./build/examples/openpose/openpose.bin`,
# `.\buildnewn\x64\Release\OpenPoseDemo.exe`, `cmake-build-release/app`): the folder whose name starts "build" (or
# CLion's cmake-build-*) among the path's leading folders, typed after a shell's prompt, whose folder (PowerShell's
# `PS C:\x>`, cmd.exe's `C:\x>`, bash's `user@host:/x#`) the relative path starts from.
_BUILD_TREE_RUN = re.compile(
    r"(?:(?:PS\s)?(?P<win>[A-Za-z]:\\[^>\r\n]{0,300})>|[\w.-]{1,64}@[\w.-]{1,64}:(?P<posix>[~/][^\s$#]{0,300})[$#]|[$#>]|^)"
    r"\s*(?P<tree>(?:\.{1,2}[\\/])?(?:[\w.-]{1,80}[\\/]){0,3}?(?:cmake-)?build[\w.-]{0,40})[\\/][\w.\\/-]{1,200}"
)
# What CMake cached of the CUDA build in that tree: FindCUDA's toolkit root and nvcc (CUDA_TOOLKIT_ROOT_DIR,
# CUDA_NVCC_EXECUTABLE: cmake.org/cmake/help/latest/module/FindCUDA.html), CMake's own CUDA language (CMAKE_CUDA_COMPILER,
# CMAKE_CUDA_ARCHITECTURES: cmake.org/cmake/help/latest/variable/CMAKE_CUDA_ARCHITECTURES.html), and Caffe's and
# OpenPose's architecture choice (CUDA_ARCH, CUDA_ARCH_BIN, CUDA_ARCH_PTX: CMU-Perceptual-Computing-Lab/openpose,
# cmake/Cuda.cmake @43b3b6ca, "Copied from Caffe"). "CUDA_ARCH" matches CMAKE_CUDA_ARCHITECTURES too.
_CMAKE_CUDA_ENTRIES = "CUDA_ARCH|CUDA_TOOLKIT_ROOT_DIR|CUDA_NVCC_EXECUTABLE|CMAKE_CUDA_COMPILER"
_CI_WORKSPACE = re.compile(r"/home/runner/work/[\w.-]+/|(?<![\w\\])[A-Za-z]:\\a\\[\w.-]+\\")


def _build_cache(facts: Facts) -> str | None:
    """The CMakeCache.txt of the build tree the paste shows a compiled program run from at a prompt (_BUILD_TREE_RUN),
    from the prompt's folder where the path is relative to it; None where no program ran from a build tree."""
    from gpudoctor.facts import REPORTER_COMMAND

    lines = [c.get("line") or "" for c in facts.pasted.cues if "prompt" in (c.get("cue") or "").lower()]
    lines += [c.get("means") or "" for c in facts.pasted.cues if c.get("cue") == REPORTER_COMMAND]
    m = next((m for line in lines if (m := _BUILD_TREE_RUN.search(line))), None)
    if m is None:
        return None
    tree = m.group("tree")
    if m.group("win") or "\\" in tree:
        folder = m.group("win")
        return ntpath.normpath(ntpath.join(folder, tree, "CMakeCache.txt") if folder else ntpath.join(tree, "CMakeCache.txt"))
    folder = m.group("posix")
    return posixpath.normpath(posixpath.join(folder or "", tree, "CMakeCache.txt"))


def _build_tree_asks(facts: Facts, windows: bool) -> list[Ask]:
    """A compiled program (facts.NO_PYTHON) the paste shows run from its own build tree failing with no kernel image for
    the GPU: which architectures that build compiled for and with which toolkit decide it (the reviewers of plans18 and
    plans20, CMU-Perceptual-Computing-Lab/openpose#2312, openpose-docker#3): CMake's cache in that tree, and the nvcc on
    PATH, which a rebuild uses (a CUDA older than the GPU's architecture cannot compile for it). Not for a prebuilt
    program (no build tree shown): its release notes, not a cache, say what it was built for. In a container the tree
    is the container's (where the prompt ran)."""
    if not any(c.get("cue") == NO_PYTHON for c in facts.pasted.cues):
        return []
    if not any(e.kind == "no-kernel-image" for e in facts.pasted.errors):
        return []
    inside = bool(facts.platform.container or where.container_of(facts) or where.image(facts) or where.program_image(facts))
    nvcc = Ask(Cmd(("nvcc", "--version")), "the CUDA toolkit on PATH, which a rebuild of the program compiles with")
    if (cache := _build_cache(facts)) is None:
        # No build tree shown, but the program's own compiled source is (a .cu file, Caffe's CUDA_CHECK): the toolkit
        # on PATH decides whether a rebuild can compile for the GPU at all (a CUDA older than its architecture cannot:
        # plans20/2062's RTX 3090 needs 11.1). Not for a prebuilt application named (koboldcpp, llama-box: its
        # release, not a toolkit, decides), nor in a container, whose toolkit is the image's.
        from gpudoctor.pasted.cues import COMPILED_SOURCE

        shown = [
            c.get("line") or "" for c in facts.pasted.cues if c.get("cue") == NO_PYTHON and c.get("means") == COMPILED_SOURCE
        ]
        # (a source path in a hosted CI runner's workspace, GitHub Actions' /home/runner/work/<repo>/<repo> or
        # D:\a\<repo>\<repo> (GITHUB_WORKSPACE, docs.github.com "Variables reference"), is a binary the project's CI
        # built and released, not one built here: koboldcpp's exe in plans20/2031, llama-box in plans20/2049)
        released = any(_CI_WORKSPACE.search(line) for line in [*shown, *(e.line or "" for e in facts.pasted.errors)])
        return [nvcc] if shown and not inside and not released else []
    if not (windows or cache[1:2] == ":"):
        read = Cmd(("grep", "-E", _CMAKE_CUDA_ENTRIES, cache), note="inside the container" if inside else "")
    elif where.shell(facts) == "cmd":
        # (findstr takes space-separated words as alternatives: findstr's documentation, Microsoft's Windows Commands)
        read = Cmd(("findstr", _CMAKE_CUDA_ENTRIES.replace("|", " "), cache))
    else:
        read = Cmd(("Select-String", "-Path", cache, "-Pattern", _CMAKE_CUDA_ENTRIES))
    return [
        Ask(
            read,
            "the GPU architectures the program's build compiled for and the CUDA toolkit it used, as CMake cached them: "
            "the GPU's own architecture missing decides a rebuild for it, a toolkit older than the GPU a newer one",
        ),
        nvcc,
    ]


def _toolkit_arch_asks(facts: Facts, findings: list) -> list[Ask]:
    """An nvcc too old for the GPU, with no command to print because the text shows no torch: the build's torch and its
    CUDA decide it. Of nvcc's CUDA major, the same nvcc builds for the major's first architecture with PTX
    (TORCH_CUDA_ARCH_LIST, gpudoctor.checks.toolkit's same-major build); of another, the toolkit to install is
    torch's major. One read of the interpreter that builds (checks.extensions' build toolchain) answers both."""
    from gpudoctor.checks.extensions import build_toolchain

    unfixed = [f for f in findings if f.code == "toolkit-arch-unsupported" and not (f.remediation and f.remediation.commands)]
    torch = facts.frameworks.torch
    if not unfixed or (isinstance(torch, Found) and torch.value.cuda):
        return []  # (a torch shown without its CUDA build, "torch 1.3.0" in an issue form, decides nothing yet)
    return [
        Ask(
            build_toolchain(facts),
            "the torch the extension builds against, its CUDA and the toolkit it finds: with nvcc's CUDA major, this nvcc "
            "builds for the GPU with TORCH_CUDA_ARCH_LIST set to the major's first architecture and +PTX; with another, "
            "the toolkit to install is torch's",
            ("toolkit-arch-unsupported",),
        )
    ]


def _shebang_ask(script: dict[str, str]) -> Ask:
    """The question that names the interpreter a console script runs (gpudoctor.planner.where.shebang)."""
    return Ask(
        where.shebang(script),
        f"which Python {script['means']} runs (its first line, #!, names it): the python and pip steps must use that "
        "interpreter, not the python3 first on PATH",
        subject=_INTERPRETER,
    )


def _interpreter_asks(facts: Facts, findings: list) -> list[Ask]:
    """Which interpreter runs the program, where a fix installs with pip through the platform's usual name because the
    paste showed none (gpudoctor.planner.remedy.python_exe): `python3` on PATH may be another Python than the failing
    program's (a venv, conda, an app's bundled one), and pip installs into the Python that runs it. sys.executable,
    printed in the shell that ran the program, names it; a Python program's own interpreter would print its path."""
    from gpudoctor.model import Severity
    from gpudoctor.planner.remedy import python_exe

    py = python_exe(facts)
    if py not in ("python", "python3") or where.image(facts) is not None:
        return []  # (an image's program is asked in the image: its interpreter is that image's)
    if (script := where.console_script(facts)) is not None and any(f.severity >= Severity.WARNING for f in findings):
        # Started through a console script: its #! line names the interpreter (sys.executable asked of python3 on PATH
        # would name PATH's, which the script need not run).
        return [_shebang_ask(script)]
    pips = [
        c
        for f in findings
        if f.severity >= Severity.WARNING and f.remediation is not None
        for c in f.remediation.commands
        if isinstance(c, Cmd) and c.argv[:3] in ((py, "-m", "pip"),)
    ]
    if not pips:
        return []
    return [
        Ask(
            where.python_step(facts, "-c", "import sys; print(sys.executable)"),
            "which Python runs the program (in the shell or environment that ran it): the pip steps must use that one",
        )
    ]


# `env NAME=VALUE... <command>`: the person's own command run with more in its environment.
_WITH_ENV = re.compile(r"[A-Z_][A-Z0-9_]*=\S*")


def _decided(facts: Facts, asks: list[Ask]) -> list[Ask]:
    """The asks with no placeholder left to fill (gpudoctor.planner.deciders): a value the facts decide is written in;
    one they do not is asked for by the command that lists its values, the ask it was for named in its reason. A
    rerun of the person's own command with more in its environment (`env NCCL_DEBUG=INFO <failing-command>`) becomes
    the export of those variables in a POSIX shell, where the same command is run next; elsewhere it is left out."""
    from gpudoctor.planner.deciders import fill, inside, known_values, listing, placeholders, shown

    values = known_values(facts)
    out: list[Ask] = []
    for a in asks:
        cmd = inside(fill(a.command, values))
        assert isinstance(cmd, Cmd)
        names = placeholders(cmd)
        if not names:
            out.append(dataclasses.replace(a, command=cmd))
            continue
        words = cmd.words
        if (
            words[0] == "env"
            and len(names) == 1
            and all(_WITH_ENV.fullmatch(w) for w in words[1:-1])
            and words[-1] == f"<{names[0]}>"
        ):
            if not (facts.platform.system or "").lower().startswith("win"):  # (NCCL and its kin are Linux's)
                rerun = Cmd(("export", *words[1:-1]), note="then run the failing command again in this shell")
                out.append(Ask(rerun, a.why, a.codes))
            continue
        for n in names:
            lister = listing(n, cmd, values)
            # (an ask that lists them already, filtered to the program's own: `kubectl get pods -A -o wide | grep ...`)
            if lister is None or any(b.command.argv[: len(lister.argv)] == lister.argv for b in asks):
                continue
            into = f"`{shown(cmd)}`, which shows {a.why}"
            # A second command that needs the same value is named beside the first, never left out: one listing
            # answers both.
            at = next((i for i, b in enumerate(out) if b.command == lister), None)
            if at is None:
                out.append(Ask(lister, f"the <{n}> to fill into {into}", a.codes, subject=a.subject))
            else:
                kept = out[at]
                codes = tuple(dict.fromkeys((*kept.codes, *a.codes)))
                out[at] = dataclasses.replace(kept, why=f"{kept.why}; and into {into}", codes=codes)
    return out


# What another library or framework prints of its own failure: TensorRT's builder and loader (IBuilder, nvinfer, and
# the logger's own "[TRT]" tag of the Python API's lines), ONNX Runtime's provider bridge, CuPy, TensorFlow, JAX/XLA,
# Paddle, CTranslate2, llama.cpp's ggml.
_OTHER_AT_WORK = re.compile(
    r"tensorrt|nvinfer|\[TRT\]|\bIBuilder\b|onnxruntime|\bcupy|tensorflow|\bjax|\bxla\b|paddle|ctranslate2|\bggml",
    re.IGNORECASE,
)


def _torch_bystander(facts: Facts) -> bool:
    """Whether PyTorch is only installed beside the failure: every failing line the paste shows is another library's
    (TensorRT, ONNX Runtime, CuPy, ...) and none names torch. collect_env then answers nothing the failure asks; the
    failing library's own asks (catalogue components) do."""
    from gpudoctor.checks.reported import _failure  # (which error kinds are failures: decided once, there)

    failing = [e.line for e in facts.pasted.errors if _failure(e, facts)]
    if not failing:
        return False
    return all("torch" not in line.lower() for line in failing) and any(_OTHER_AT_WORK.search(line) for line in failing)


# The evidence kinds of the installers' messages (catalogue.toml's installer family): what an install could not do.
_INSTALLER_KINDS = frozenset(
    {
        "installer-no-release",
        "installer-wheel-unsupported",
        "installer-conflict",
        "installer-externally-managed",
        "installer-pip-too-old",
        "installer-no-space",
        "installer-path-not-found",
        "conda-cuda-virtual",
    }
)


def _is_failure(e: Any, facts: Facts) -> bool:
    from gpudoctor.checks.reported import _failure

    return bool(_failure(e, facts))


# Where a name resolves, without running it: importlib.util.find_spec on a top-level name imports nothing (Python's
# importlib.util docs), and `-c` puts the current directory first on sys.path, as the program's own start does.
_ORIGIN = "import importlib.util, sys; print(importlib.util.find_spec(sys.argv[1]).origin)"
_FIND_MODULE = "import imp, sys; print(imp.find_module(sys.argv[1]))"


def _shadowed_package_asks(facts: Facts, windows: bool) -> list[Ask]:
    """The package name Python found as a plain module (catalogue.toml: python-parent-not-a-package): which file that
    name resolves to from the directory the program starts in, and whether a file or folder of that name is there. The
    name is an argument (sys.argv[1]) and a path, never code."""
    asks: list[Ask] = []
    for package in dict.fromkeys(e.get("package") for e in facts.pasted.reported("python-package-shadowed")):
        if not package:
            continue
        origin = dataclasses.replace(
            where.python_step(facts, "-c", _ORIGIN, package), note="in the directory the program is started from"
        )
        asks.append(
            Ask(
                origin,
                f"which file Python imports as {package} there: the installed package's is "
                f".../site-packages/{package}/__init__.py, any other is what shadows it",
            )
        )
        if not windows:
            asks.append(
                Ask(
                    Cmd(("ls", "-ld", f"{package}.py", package), note="in the directory the program is started from"),
                    f"whether a {package}.py or a {package} folder sits where Python searches first",
                )
            )
    # A shared library imported as the compiled module of its name (catalogue.toml: python-extension-no-init-function):
    # the file the name resolves to decides it. Python 2 (its "init<name>") has no importlib.util: imp.find_module
    # answers there (it names the file and its kind; Python 2's import looks for NAME.so and NAMEmodule.so).
    for e in facts.pasted.reported("python-extension-no-init"):
        package = e.get("package")
        if not package or any(package in a.why for a in asks):
            continue
        py2 = e.get("prefix") == "init"
        probe = _FIND_MODULE if py2 else _ORIGIN
        step = where.python_step(facts, "-c", probe, package)
        if py2 and step.argv[:1] == ("python3",):  # (the usual name, none the paste showed: Python 2's is `python`)
            step = dataclasses.replace(step, argv=("python", *step.argv[1:]))
        origin = dataclasses.replace(step, note="in the directory the program is started from")
        asks.append(
            Ask(
                origin,
                f"which file Python imports as {package} there: a shared library that is not the module (a C library "
                "named like it) is what shadows it",
            )
        )
        if not windows:
            files = (f"{package}.py", f"{package}.so", *((f"{package}module.so",) if py2 else ()))
            asks.append(
                Ask(
                    Cmd(("ls", "-ld", *files), note="in the directory the program is started from"),
                    f"whether a {package}.so sits beside (or instead of) the {package}.py Python should import",
                )
            )
    return asks


def _variant_asks(facts: Facts) -> list[Ask]:
    """A library's GPU package shown installed (faiss-gpu, onnxruntime-gpu: checks.libraries' VARIANT_FAMILIES) where no
    whole package list shows whether its CPU sibling is there too: the sibling writes the same import package and hides
    the GPU build without an error (facebookresearch/faiss#2892, microsoft/onnxruntime#7748), so pip's view of the
    family's distributions in that interpreter decides it. Read-only, asked once per family."""
    from gpudoctor.checks.libraries import VARIANT_FAMILIES

    py = facts.frameworks.python
    if "distributions" in facts.pasted.whole or not isinstance(py, Found):
        return []
    asks: list[Ask] = []
    for family, names in VARIANT_FAMILIES.items():
        installed = [n for n in names if n in py.value.distributions]
        if not installed or not all(n.endswith(("-gpu", "-cu11", "-cu12")) for n in installed):
            continue  # none shown, or a CPU one shown: the checks judge what was shown
        asks.append(
            Ask(
                _catalogue_cmd(facts, ("{python}", "-m", "pip", "show", *names)),
                f"which {family} packages the interpreter holds (pip names those it does not find): a CPU one beside "
                f"{installed[0]} overwrites its files and leaves the CPU build",
            )
        )
    return asks


def _nccl_hang_only(facts: Facts) -> bool:
    """Whether every failure the paste shows is a job over NCCL that hangs (gpudoctor.checks.symptoms.NCCL_HANG)."""
    from gpudoctor.checks.reported import pasted_failures
    from gpudoctor.checks.symptoms import NCCL_HANG, family_of

    failures = pasted_failures(facts)
    return bool(failures) and all(family_of(e, facts) is NCCL_HANG for e in failures)


def _reads_stack(cmd: Cmd) -> bool:
    """An ask for the driver and the GPUs (nvidia-smi, its -L) or the framework's build and its packages (collect_env,
    pip's or conda's list)."""
    words = [w for w in cmd.argv if isinstance(w, str)]
    if words[:1] == ["nvidia-smi"]:
        return words[1:] in ([], ["-L"])
    return "torch.utils.collect_env" in words or (("pip" in words or words[:1] == ["conda"]) and "list" in words)


def _device_failures_only(facts: Facts) -> bool:
    """Whether every failure the paste shows is a catalogued message about the GPU's own state (its `subject`)."""
    from gpudoctor.checks.reported import pasted_failures
    from gpudoctor.parsers.catalogue import by_id, messages

    failures = pasted_failures(facts)
    found = [by_id(e.get("entry") or "") or next((m for m in messages() if m.pattern.search(e.line)), None) for e in failures]
    return bool(failures) and all(m is not None and m.subject == "device" for m in found)


def _reads_build(cmd: Cmd) -> bool:
    """An ask for the framework's build or the packages installed (collect_env, pip's or conda's list or show, a Python
    probe), wherever it runs (through docker, singularity, a tool's run)."""
    words = [str(w) for w in (*cmd.argv, *cmd.pipe)]
    return (
        "torch.utils.collect_env" in words
        or any(w.startswith(("import ", "from ")) or "; import " in w or "import " in w[:40] for w in words)
        or ("pip" in words and bool({"list", "show", "freeze"} & set(words)))
        or ("conda" in words and "list" in words)
    )


def _operator_managed(facts: Facts, named: set[str]) -> bool:
    """Whether the paste names NVIDIA's GPU Operator (catalogue.toml's gpu-operator component) and no Python program of
    the reporter's (no framework named, no interpreter shown)."""
    operator = any(c.get("cue") == COMPONENT_NAMED and c.get("means") == "gpu-operator" for c in facts.pasted.cues)
    return operator and not named and not isinstance(facts.frameworks.python, Found) and not _python_component_named(facts)


def _reads_node_shell(cmd: Cmd) -> bool:
    """An ask for the typing shell's own Python packages, CUDA toolkit or GPU-selecting variable: what a pod on an
    operator-managed node does not run with."""
    words = [str(w) for w in cmd.argv]
    return _reads_build(cmd) or words[:1] == ["nvcc"] or words == ["printenv", "CUDA_VISIBLE_DEVICES"]


def _installer_failures_only(facts: Facts) -> bool:
    """Whether every failure the paste shows is an installer's (and there is one)."""
    from gpudoctor.checks.reported import _failure

    failures = [e for e in facts.pasted.errors if _failure(e, facts)]
    return bool(failures) and all(e.kind in _INSTALLER_KINDS for e in failures)


def _python_component_named(facts: Facts) -> bool:
    """Whether the paste names a component asked about through the interpreter (its packages then decide too)."""
    from gpudoctor.parsers.catalogue import components

    named = {c.get("means") for c in facts.pasted.cues if c.get("cue") == COMPONENT_NAMED}
    return any(c.id in named and any(argv[:1] == ("{python}",) for argv in c.ask) for c in components())


def _runs_python(cmd: Cmd, py: str) -> bool:
    """Whether `cmd` runs the interpreter: itself, in the paste's image, or through the tool that manages its environment
    (gpudoctor.planner.where.python_step)."""
    return (
        cmd.argv[:1] == (py,)
        or (cmd.argv[:1] == ("docker",) and "--entrypoint" in cmd.argv)
        or cmd.argv[:1] in (("uv",), ("poetry",), ("pipenv",), ("%pip",))
    )


def _component_asks(facts: Facts, only_extension: bool, windows: bool) -> list[Ask]:
    """The deciding outputs of each component the paste names (catalogue.toml's [[component]]), in the interpreter,
    shell and platform the paste's program runs in."""
    from gpudoctor.checks.reported import pasted_failures
    from gpudoctor.parsers.catalogue import components
    from gpudoctor.planner.remedy import container_said

    named = {c.get("means") for c in facts.pasted.cues if c.get("cue") == COMPONENT_NAMED}
    logged = _logged_services(facts)
    image = where.image(facts)
    linux = (facts.platform.system or "Linux") == "Linux"
    said = facts.platform.wsl != 2  # (as _container_devices_asks reads it)
    no_device = any(e.kind in _NO_DEVICE_INSIDE or (said and e.get("code") == "cuda-no-device") for e in facts.pasted.errors)
    out: list[Ask] = []
    for comp in components():
        if comp.id not in named or any(facts.pasted.reported(kind) for kind in comp.unless):
            continue
        if comp.failing and not pasted_failures(facts):
            continue  # (named in a healthy report of its kind: its reads decide a failure, none shown)
        if logged and not any(comp.pattern.search(x) for x in (*logged, *(e.line for e in facts.pasted.errors))):
            continue  # named beside the container that failed (its log shown), not the one at fault
        if comp.framework == "torch":
            torch = facts.frameworks.torch
            if only_extension or (isinstance(torch, Found) and torch.value.build_known) or _torch_bystander(facts):
                continue
        decides = f"{comp.decides} ({comp.id})"

        def each(asks: str, comp=comp) -> list[tuple[tuple[str, ...], str]]:
            return [(a, f"{why} ({comp.id})") for a, why in zip(getattr(comp, asks), comp.decides_each(asks), strict=True)]

        argvs = each("ask")
        when = [
            (argv, f"{why} ({comp.id})", kind) for kind, more, why in comp.when if facts.pasted.reported(kind) for argv in more
        ]
        argvs += [(argv, why) for argv, why, _ in when]
        made_for = {tuple(argv): kind for argv, _, kind in when}
        # A service's systemd unit exists only where it runs on the host itself: in a container (an image run, or the
        # text saying so; a pod's too) its log is the container's, in a batch job the job's own output.
        contained = image is not None or container_said(facts) in ("docker", "podman", "kubernetes")
        # (nor where the paste shows it started by hand, `./ollama-linux-amd64`: no service manager runs it)
        by_hand = any(c.get("cue") == STARTED_BY_HAND and comp.pattern.search(c.get("means") or "") for c in facts.pasted.cues)
        # (nor where `docker compose up` started it: its log is Compose's, whatever container name Compose gave it)
        composed = not contained and any(c.get("cue") == COMPOSE_STARTED for c in facts.pasted.cues)
        # (nor where the text says no service manager runs here: the unit was written, never started; the server is
        # started by hand, which its own form of the ask does)
        unmanaged = any(c.get("cue") == NO_SERVICE_MANAGER for c in facts.pasted.cues)
        hosted = not contained and facts.pasted.cluster is None and not by_hand and not composed and not unmanaged
        argvs += each("ask_windows") if windows else each("ask_linux") if linux and hosted else []
        if contained and linux and not windows and not no_device:
            # a Linux ask that reads the program's own environment (its loader's cache) is the container's too, asked
            # inside it (where.placed): the libraries the program loads are the image's, not the host's (plans21/2142,
            # plans19/1921). Not where the container reached no GPU at all: what it was given decides first
            # (_container_devices_asks), and its libraries' versions nothing yet (plans5/445).
            argvs += [(a, w) for a, w in each("ask_linux") if where.reads_program(a)]
        if unmanaged and linux and not windows and not contained and not by_hand:
            argvs += each("ask_unmanaged")
        if composed and linux and any(a[:2] == ("docker", "logs") for a in comp.ask_container):
            argvs.append((("docker", "compose", "logs"), decides))
        if contained:
            # the container's own form of an ask replaces the plain one (asked on the host, it reads the host)
            scoped = {tuple(a[3:]) for a in comp.ask_container if a[:3] == ("docker", "exec", "{container}")}
            argvs = [(a, w) for a, w in argvs if tuple(a) not in scoped]
            argvs += each("ask_container")
        pod = container_said(facts) == "kubernetes"
        for argv, why in argvs:
            container: str | Placeholder = (
                (image.get("container") if image else None)
                or next(iter(logged), None)
                or _exec_named(facts)
                or Placeholder("container")
            )
            cmd = _catalogue_cmd(facts, list(where.in_container(facts, tuple(argv), container)))
            if contained and tuple(argv) in comp.ask_container and argv[:1] != ("docker",) and not cmd.note:
                # a container's host-side ask (the driver's packages, the runtime's config) is typed where the
                # runtime runs: a pod's node, not the pod (the driver's libraries are mounted into it, not installed)
                cmd = dataclasses.replace(cmd, note="on the node that runs the pod" if pod else "on the host")
            made = (made_for[tuple(argv)],) if tuple(argv) in made_for else ()
            out.append(Ask(cmd, why, made_for=made, subject=f"component:{comp.id}"))
        if pod and argvs:
            from gpudoctor.checks.symptoms import POD_LIMITS

            # a pod gets the driver's libraries only through the NVIDIA runtime: its runtime class and GPU request
            # decide whether any reach it (gpudoctor.checks.symptoms, the pod's asks)
            ask = Ask(Cmd(POD_LIMITS.argv), f"{POD_LIMITS.decides} ({comp.id})", subject=f"component:{comp.id}")
            if all(a.command.argv != ask.command.argv for a in out):
                out.append(ask)
    return out


# A conda environment's or a virtual environment's prefix in a path the loader printed ("/home/u/anaconda3/envs/FXM/lib/
# python3.7/lib-dynload/../../libcublas.so.11"): its lib directory is where pip's and conda's CUDA libraries lie.
_ENV_PREFIX = re.compile(r"(?P<prefix>/[^\s:'\"`]{1,300}?/(?:envs/[\w.+-]{1,100}|\.?venv|[\w.+-]{1,100}env))/lib(?:64)?/")


def _failing_component_asks(facts: Facts, windows: bool, undecided: bool = False) -> list[Ask]:
    """The asks that follow the component a failure line names where no catalogue entry knows the line
    (gpudoctor.parsers.failure_lines): for a library, which copies exist and which one the loader takes; for a DLL,
    which folders hold it; for a Python module, its release in the interpreter that failed; for the docker daemon, its
    own view; for a pod, its events and resources. A reporter's sentence (`undecided`: no check found the cause) by
    what it is about: the library it names, the install. What the paste already shows is not asked."""
    from gpudoctor.checks.windows import cudnn_asks_cublas_where
    from gpudoctor.planner.remedy import python_exe

    out: list[Ask] = []
    python = facts.frameworks.python
    shown = python.value.distributions if isinstance(python, Found) else {}
    for cut in facts.pasted.reported("traceback-cut")[:1]:
        if (script := cut.get("script")) and where.image(facts) is None:
            # the paste ends before the error: the script its traceback starts in, run again where it ran, prints it
            out.append(
                Ask(
                    # a console script's launcher (<env>\Scripts\NAME.exe) is the program itself, run as it is
                    Cmd((script,)) if script.lower().endswith(".exe") else where.python_step(facts, script),
                    "the failing command's whole output, to its last line: the paste ends before the error",
                )
            )
        elif (module := cut.get("module")) and where.image(facts) is None:
            # the paste ends before the error of an import typed at Python's prompt: the same import, run again by
            # the same interpreter, prints it (gpudoctor.pasted.read._imported_package)
            out.append(
                Ask(
                    where.python_step(facts, "-c", f"import {module}"),
                    f"the error the import of {module} ends with, to its last line: the paste ends before it",
                )
            )
    for e in facts.pasted.reported("gpu-stack-failure")[:3]:
        component, kind = e.get("component") or "", e.get("component_kind")
        if kind == "library" and not windows:
            stem = component.split(".so", 1)[0]
            if not isinstance(facts.ldconfig, Found):  # a whole ldconfig -p pasted already answers it
                out.append(
                    Ask(
                        Cmd(("ldconfig", "-p"), pipe=("grep", "-F", stem)),
                        f"which copies of {stem} the loader's cache knows, so which one it takes ({component} failed)",
                    )
                )
            if "LD_LIBRARY_PATH" not in facts.platform.env:
                out.append(
                    Ask(
                        Cmd(("printenv", "LD_LIBRARY_PATH")),
                        f"the directories searched before the cache: a copy of {stem} there wins over the cache's",
                    )
                )
            requirer = e.get("requirer") or ""
            if requirer.startswith("/"):
                out.append(
                    Ask(
                        Cmd(("ldd", requirer)),
                        f"which copy of each library {requirer.rsplit('/', 1)[-1]} needs the loader resolves, and which it "
                        "cannot find",
                    )
                )
            if (env := _ENV_PREFIX.search(e.line)) is not None:
                lib = env.group("prefix") + "/lib"
                out.append(
                    Ask(
                        Cmd(("find", lib, "-name", f"{stem}.so*")),
                        f"the copies of {stem} the environment itself holds (conda's and pip's CUDA libraries lie there)",
                    )
                )
            elif not stem.startswith("libcuda"):
                out += _load_asks(load_asks.linux_library_asks(facts, stem))
        elif kind == "dll" and windows:
            out.append(Ask(Cmd(("where.exe", component)), f"which folders on PATH hold {component}: Windows loads the first"))
            folder = e.get("folder") or ""
            if re.fullmatch(r"[A-Za-z]:", folder[:2]):
                out.append(
                    Ask(
                        Cmd(("where.exe", "/R", folder, component)),
                        f"whether {component} is in {folder}: there, a DLL it links is what Windows did not find",
                    )
                )
        elif kind == "module" and component and component not in shown:
            out.append(
                Ask(
                    where.python_step(facts, "-m", "pip", "show", component),
                    f"the {component} release installed in the interpreter that failed, and what it requires",
                )
            )
            if (
                e.get("form") == "traceback-end"
                and e.get("exception") in ("ModuleNotFoundError", "ImportError")
                and python_exe(facts) in ("python", "python3")
            ):
                # a module missing from one interpreter is often installed in another: which one ran decides where it
                # goes (asked where the paste shows no interpreter's path: `python` on PATH may be another Python)
                script = where.console_script(facts)
                out.append(
                    _shebang_ask(script)
                    if script is not None
                    else Ask(
                        where.python_step(facts, "-c", "import sys; print(sys.executable)"),
                        f"which Python ran the program that could not import {component}, in the shell that ran it",
                    )
                )
        elif kind == "build" and undecided:
            # a build's own assertion ends its output: the first error lines above it say what the build lacked
            out.append(
                Ask(
                    where.python_step(facts, "-m", "pip", "--version"),
                    f"which pip and interpreter ran the build of {component} (the build's whole output, from its first "
                    "error line, with it)",
                )
            )
        elif kind == "configure" and not windows:
            out += _configure_asks(component, e.get("folder") or "")
        elif kind == "header" and not windows:
            # the header the compiler could not open: where a copy lies says whether it is missing or off the include path
            out.append(
                Ask(Cmd(("find", "/usr", "/opt", "-name", component.rsplit("/", 1)[-1])), f"where copies of {component} lie")
            )
        elif kind in ("killed", "memory") and not windows:
            # the kernel names what its OOM killer killed, and how much memory and swap the machine has says whether a
            # build's parallel jobs (or the program) can fit
            out.append(
                Ask(
                    Cmd(("dmesg",), root=True, pipe=("grep", "-iE", "out of memory|killed process")),
                    "whether the kernel's OOM killer killed the process, and what it held",
                )
            )
            if kind == "killed":  # (a top or free line shown already says what memory the machine has)
                out.append(Ask(Cmd(("free", "-h")), "the machine's memory and swap, beside what the killed process needed"))
        elif kind == "crash" and not windows:
            # the kernel logs each segmentation fault with the library it happened in ("segfault at ... in libX.so")
            out.append(
                Ask(
                    Cmd(("dmesg",), root=True, pipe=("grep", "-i", "segfault")),
                    "the library the segmentation fault happened in, as the kernel logged it",
                )
            )
        elif kind == "said" and undecided and e.get("subject") == "library" and (lib := e.get("library")):
            # the reporter's sentence names the library that failed: where its copies are decides which one loads
            if _CUBLAS_DLL.fullmatch(lib):
                # a cuBLAS DLL is loaded by the program or by the cuDNN found first, built for the CUDA its major names
                # (a CUDA 11.2 program told to miss CUDA 10's cublasLt64_10.dll: KataGo#751): the cuDNN copies decide too
                out.append(
                    Ask(
                        cudnn_asks_cublas_where(lib, note=False),
                        f"which cuDNN Windows finds first, and the CUDA major of each copy of {lib}: Windows loads the first",
                    )
                )
            elif lib.lower().endswith(".dll"):
                out.append(Ask(Cmd(("where.exe", lib)), f"which folders on PATH hold {lib}: Windows loads the first"))
            elif not windows:
                stem = lib.split(".so", 1)[0]
                out.append(
                    Ask(Cmd(("ldconfig", "-p"), pipe=("grep", "-F", stem)), f"which copies of {stem} the loader's cache knows")
                )
        elif kind == "said" and undecided and e.get("subject") == "install":
            # an install told as failing: which interpreter and pip ran it decide where it went and what it could pick
            out.append(
                Ask(
                    where.python_step(facts, "-m", "pip", "--version"),
                    "which pip and which interpreter ran the install (the install's whole output, to its last line, with it)",
                )
            )
        elif kind == "daemon":
            out.append(
                Ask(Cmd(("docker", "info")), "the daemon's runtimes and its default runtime (whether nvidia is registered)")
            )
            out.append(
                Ask(Cmd(("docker", "context", "ls")), "which daemon the docker command talks to (a user's and root's can differ)")
            )
        elif kind == "pod":
            pod: str | Placeholder = component if component != "pod" else Placeholder("pod")
            out.append(
                Ask(
                    Cmd(("kubectl", "describe", "pod", pod)),
                    "the pod's events, its containers' resources (whether nvidia.com/gpu is requested) and its runtime class",
                )
            )
    return out


# The library a configure looks for, by the stack's word its failing lines name (failure_lines._stack_word), and the
# header beside it: what the configure's own search needs to find (a package's Find module reads both).
_CONFIGURE_FILES = {
    "cudnn": ("libcudnn", "cudnn*.h"),
    "cuda": ("libcudart", "cuda_runtime.h"),
    "nccl": ("libnccl", "nccl.h"),
    "tensorrt": ("libnvinfer", "NvInfer.h"),
    "cublas": ("libcublas", "cublas*.h"),
}


def _configure_asks(component: str, folder: str) -> list[Ask]:
    """A CMake configure that stopped: the paths its cache holds (where it searched: CMakeCache.txt in the build folder
    its "See also" line names), and where the library and header it could not find lie on the machine."""
    out: list[Ask] = []
    cache: str | Placeholder = f"{folder}/CMakeCache.txt" if folder else Placeholder("build-folder")
    out.append(
        Ask(
            Cmd(("grep", "-iE", "cuda|cudnn|nccl|tensorrt", cache)),
            "which CUDA root and library paths the configure cached, so where it searched",
        )
    )
    if (files := _CONFIGURE_FILES.get(component)) is not None:
        lib, header = files
        out.append(Ask(Cmd(("ldconfig", "-p"), pipe=("grep", "-F", lib)), f"which copies of {lib} the machine has"))
        out.append(Ask(Cmd(("find", "/usr", "/opt", "-name", header)), f"where the {component} header the configure needs lies"))
    return out


def _exec_named(facts: Facts) -> str | None:
    """The container the paste names as the program's (gpudoctor.planner.where.container_name)."""
    return where.container_name(facts)


def _logged_services(facts: Facts) -> list[str]:
    """The containers whose docker compose log the paste shows (gpudoctor.pasted.workloads), by name."""
    from gpudoctor.pasted.workloads import LOGGED_SERVICE

    return [c.get("means") or "" for c in facts.pasted.cues if c.get("cue") == LOGGED_SERVICE and c.get("means")]


def _app_image_asks(facts: Facts) -> list[Ask]:
    """A GPU application (gpudoctor/planner/apps.toml) named in a container, its GPU part failing, and its image not
    shown: which image and tag the container runs decides it, since the application ships its GPU libraries only in its
    GPU tags (checks.catalogued.containers.check_app_image_variant then judges the answer)."""
    from gpudoctor.facts import APP_IMAGE
    from gpudoctor.planner.apps import app

    cue = next((c for c in facts.pasted.cues if c.get("cue") == APP_IMAGE and not c.get("means")), None)
    if cue is None or (entry := app(cue.get("app") or "")) is None:
        return []
    named = _exec_named(facts) or next(iter(_logged_services(facts)), None)
    # (the container the paste names, else every running one with its image: no name to fill in)
    reads = ("inspect", named, "--format", "{{.Config.Image}}") if named else ("ps", "--format", "{{.Names}} {{.Image}}")
    return [
        Ask(
            Cmd(("docker", *reads)),
            f"which image and tag the container runs: {entry.name} carries its NVIDIA GPU libraries only in its GPU "
            "tags, and a container of another tag sees the GPU but cannot use it",
        )
    ]


def _logged_container_asks(facts: Facts) -> list[Ask]:
    """A failure logged by a container (its docker compose log prefix): whether that container sees a GPU, and what
    it was created with (a GPU request, the runtime), by its own name rather than another's."""
    failing = [n for n in _logged_services(facts) if any(e.line.startswith(n + " ") for e in facts.pasted.errors)]
    if not failing:
        return []
    name = failing[0]
    return [
        Ask(
            Cmd(("docker", "exec", name, "nvidia-smi", "-L")),
            f"whether {name} itself sees a GPU (by the name its log shows; docker compose ps lists the containers)",
        ),
        Ask(
            Cmd(("docker", "inspect", name, "--format", "{{json .HostConfig.DeviceRequests}} {{.HostConfig.Runtime}}")),
            f"whether {name} was created with a GPU request (--gpus, or the compose file's devices reservation) or the "
            "NVIDIA runtime",
        ),
    ]


# What a program in a container prints where the driver's libraries reached it but no device did (catalogue.toml).
_NO_DEVICE_INSIDE = frozenset({"cuda-no-device-driver-loaded"})


def _node_capacity_asks(facts: Facts) -> list[Ask]:
    """A node whose Capacity lists no nvidia.com/gpu while its GPU works: the NVIDIA device plugin advertises the GPUs,
    and only from a pod the node's runtime starts with the driver's libraries (the NVIDIA runtime as the default, or a
    RuntimeClass the plugin names: NVIDIA/k8s-device-plugin README, "Prerequisites"). Whether that pod runs on the
    node, what its log says, and which runtime the node runs with which default decide; read-only."""
    if not facts.pasted.reported("node-gpu-capacity-missing"):
        return []
    return [
        Ask(
            Cmd(("kubectl", "get", "pods", "-A", "-o", "wide"), pipe=("grep", "-i", "nvidia")),
            "whether the device plugin has a pod on this node (its NODE column), running or failing; then `kubectl logs "
            "-n NAMESPACE POD` of that pod says what it found: its NVML failure ('could not load NVML library') or the "
            "GPUs it registered",
        ),
        Ask(
            Cmd(("kubectl", "get", "nodes", "-o", "wide")),
            "the node's container runtime (the CONTAINER-RUNTIME column: containerd, cri-o or docker)",
        ),
        Ask(Cmd(("kubectl", "get", "runtimeclass")), "whether a runtime class nvidia exists for the plugin to name"),
        Ask(
            Cmd(("containerd", "config", "dump"), pipe=("grep", "-n", "-E", "default_runtime_name|nvidia")),
            "on the node: whether containerd has an nvidia runtime and runs it by default (docker info's Default Runtime "
            "on a Docker node; nvidia-ctk --version says whether the NVIDIA Container Toolkit is there)",
        ),
    ]


def _container_devices_asks(facts: Facts) -> list[Ask]:
    """A program in a docker container found the driver's library but no device: what the container was created with
    (a GPU request, the runtime, devices passed by hand) decides, read on the host, then its device nodes inside."""
    from gpudoctor.planner.remedy import container_said

    # (the CUDA runtime's "no CUDA-capable device is detected", catalogue.toml's cuda-no-device, says the same of a
    # program in a container: libcuda answered, cuInit found no device; not under WSL 2, whose GPU is /dev/dxg and whose
    # own asks decide it)
    said = facts.platform.wsl != 2
    failed = next(
        (e for e in facts.pasted.errors if e.kind in _NO_DEVICE_INSIDE or (said and e.get("code") == "cuda-no-device")), None
    )
    if failed is None:
        return []
    from gpudoctor.parsers.catalogue import by_id, messages

    # (made for the failure: _capped keeps them before the general questions)
    message = by_id(failed.get("entry") or "") or next((m for m in messages() if m.pattern.search(failed.line)), None)
    subject = message.id if message is not None else ""
    image = where.image(facts)
    if image is None and container_said(facts) not in ("docker", "podman"):
        return []
    name: str | Placeholder = (
        (image.get("container") if image else None) or _exec_named(facts) or next(iter(_logged_services(facts)), None)
    ) or Placeholder("container")
    return [
        Ask(
            Cmd(
                (
                    "docker",
                    "inspect",
                    name,
                    "--format",
                    "{{.HostConfig.Runtime}} {{json .HostConfig.DeviceRequests}} {{json .HostConfig.Devices}}",
                )
            ),
            "on the host: how the container was given the GPU, if at all (runc null null: no GPU request)",
            subject=subject,
        ),
        Ask(
            Cmd(("docker", "exec", name, "nvidia-smi", "-L")),
            "inside: the GPU listed, or 'Failed to initialize NVML: Unknown Error' (device access lost, as after a "
            "systemctl daemon-reload on a cgroup v2 host: the container is recreated)",
            subject=subject,
        ),
        Ask(
            Cmd(("docker", "exec", name, "ls", "-l", "/dev"), pipe=("grep", "nvidia")),
            "inside: whether nvidia0, nvidiactl and nvidia-uvm were passed in",
            subject=subject,
        ),
    ]


def _distributed_cut_asks(facts: Facts) -> list[Ask]:
    """A distributed run over NCCL whose failure the paste cut off: NCCL's own log and the shared memory its transport
    between GPUs needs (a container's /dev/shm is 64 MB unless it was given more) decide, and in a docker container
    the options it was created with."""
    from gpudoctor.planner.remedy import container_said

    said = facts.pasted.reported
    if not said("distributed-run-said") or not said("traceback-cut"):
        return []
    out = [
        Ask(Cmd(("df", "-h", "/dev/shm")), "where the ranks run: its size (64M is a container's default, too small for NCCL)"),
        Ask(
            Cmd(("env", "NCCL_DEBUG=INFO", Placeholder("failing-command"))),
            "the whole error, with NCCL's 'NCCL WARN' line naming the call that failed (shm_open or a segment in /dev/shm "
            "points at shared memory)",
        ),
    ]
    if where.image(facts) is not None or container_said(facts) in ("docker", "podman"):
        out.append(
            Ask(
                Cmd(
                    ("docker", "inspect", Placeholder("container"), "--format", "{{.HostConfig.ShmSize}} {{.HostConfig.IpcMode}}")
                ),
                "on the host: the container's /dev/shm size and IPC mode (67108864 and private: docker's 64 MB default)",
            )
        )
    return out


# Programs and paths only a Linux shell has: PowerShell on Windows has no ldconfig, printenv, /proc or grep, so an
# ask built of them cannot be answered there (PowerShell's own commands are spelled by the asks that need them).
# The Linux programs of the planner's own list (gpudoctor.planner.needs), and the shell tools an ask pipes through,
# which a Windows shell does not have either (PowerShell's `ls` and `cat` are aliases, but of a Linux path).
# (ldd and xargs: glibc's and findutils' programs, which Windows has not; an ask piping into them is Linux's)
_LINUX_ONLY = LINUX_ONLY | {"printenv", "grep", "cat", "ls", "which", "env", "ldd", "xargs"}


def _linux_only(cmd: Cmd) -> bool:
    programs = [w for w in (cmd.argv[:1] + cmd.pipe[:1]) if isinstance(w, str)]
    paths = [w for w in (*cmd.argv, *cmd.pipe) if isinstance(w, str)]
    return (
        any(p in _LINUX_ONLY for p in programs)
        or any(w.startswith(("/proc/", "/sys/", "/usr/", "/dev/", "/etc/")) for w in paths)
        or _unix_find(cmd.argv)
        or _unix_find(cmd.pipe)
    )


def _unix_find(argv: Sequence[str | Placeholder]) -> bool:
    """`find` with a `-` option (-path, -name) is the Unix program: Windows' FIND.EXE takes only /switches and a quoted
    string, so there the same line searches a file named "/" for a text and fails."""
    return argv[:1] == ("find",) and any(isinstance(w, str) and w.startswith("-") for w in argv[1:])


def _on_this_distribution(facts: Facts, asks: list[Ask]) -> list[Ask]:
    """Each package-query ask in the family of the distribution the paste shows (gpudoctor.planner.remedy.family, the
    one answer to it): dpkg on Debian and Ubuntu, rpm on Fedora, RHEL and its rebuilds, one family's tool dropped on
    another's. Where the text names no distribution, /etc/os-release is asked first, before the asks that name one
    family's tool, so that the answer says which of them runs there (os-release(5): ID, ID_LIKE)."""
    from gpudoctor.planner.remedy import family

    def tool_family(a: Ask) -> str | None:
        words = [w for w in (a.command.argv, a.command.pipe) if w]
        # "sudo dpkg", "docker exec c dpkg": the program is the first word that names a packaging tool
        return next((TOOL_FAMILY[w] for argv in words for w in argv if isinstance(w, str) and w in TOOL_FAMILY), None)

    fam = family(facts)
    if fam != "unknown":
        return [a for a in asks if tool_family(a) in (None, fam)]
    at = next((i for i, a in enumerate(asks) if tool_family(a) is not None), None)
    if at is None or any(a.command.argv == ("cat", "/etc/os-release") for a in asks):
        return asks
    first = asks[at].command
    ask = Ask(
        Cmd(("cat", "/etc/os-release"), note=first.note if first.argv[:1] != ("docker",) else ""),
        "the distribution (ID, ID_LIKE): which package tool the asks that follow run there "
        "(dpkg on Debian and Ubuntu, rpm on Fedora, RHEL, Rocky and AlmaLinux)",
        subject=asks[at].subject,  # (made for what the package query after it is made for)
    )
    return [*asks[:at], ask, *asks[at:]]


def _extension_asks(facts: Facts, findings: list) -> list[Ask]:
    """An extension found built for another torch with no fix to print: torch's version or the extension's was not
    shown. `pip show` of both, in the interpreter that failed, decides it: the extension's release built for that torch,
    or a rebuild against it with --no-build-isolation. Plain pip, so it reads the same on every platform."""
    from gpudoctor.checks.extensions import object_owner

    unfixed = tuple(dict.fromkeys(f.code for f in findings if f.code in _EXTENSION_CODES and f.remediation is None))
    if unfixed:
        owners = [
            object_owner(obj := e.get("object") or "") or _site_package(obj)
            for e in facts.pasted.errors
            if e.kind == "undefined-symbol"
        ]
    elif not any(f.code in _EXTENSION_CODES for f in findings):
        # Named in prose only ("xformers has not been installed properly"): asked where torch's version or its own
        # was not shown.
        python = facts.frameworks.python
        shown = python.value.distributions if isinstance(python, Found) else {}
        torch = facts.frameworks.torch
        owners = [
            c.get("means")
            for c in facts.pasted.cues
            if c.get("cue") == EXTENSION_NAMED and not (isinstance(torch, Found) and c.get("means") in shown)
        ]
        if not owners:
            return []
    else:
        return []
    named = [o for o in dict.fromkeys(owners) if o]
    which = f"torch and {', '.join(named)}" if named else "torch"
    return [
        Ask(
            where.python_step(facts, "-m", "pip", "show", "torch", *named),
            f"the versions of {which} in the interpreter that failed: they decide the release built for that torch, "
            "or the rebuild against it (--no-build-isolation)",
            unfixed,
        )
    ]


# A Python package's native part that failed to load, by the evidence kinds that say so (catalogue.toml, the loader's
# lines), and the package each one names where its message does.
_LOAD_FAILED = {
    "library-missing": None,
    "gpu-stack-failure": None,  # (a library's or a DLL's only: component_kind)
    "extension-dll-load-failed": None,
    "companion-load-failed": None,
    "gpu-library-unloadable": None,
    "windows-dll-bad-image": None,
    "windows-dll-procedure-missing": None,
    "windows-dll-init-failed": None,
    "toolkit-library-not-found": None,
    "onnxruntime-cuda-provider-failed": "onnxruntime",
    "onnxruntime-cuda-provider-not-created": "onnxruntime",
    "onnxruntime-provider-load-failed": "onnxruntime",
    "onnxruntime-tensorrt-provider-failed": "onnxruntime",
    "tf-dnn-library-missing": "tensorflow",
    "tf-cudart-not-loaded": "tensorflow",
    "jax-library-load-failed": "jax",
    "tensorrt-library-missing": "tensorrt",
    "bitsandbytes-binary-missing": "bitsandbytes",
    "bitsandbytes-linux-cuda-setup": "bitsandbytes",
    "bitsandbytes-setup-failed": "bitsandbytes",
}
# A .NET program's own lines: an exception of a NuGet package's namespace (Microsoft.ML.OnnxRuntime.OnnxRuntimeException),
# or the package said to come from NuGet.
_DOTNET = re.compile(r"\bMicrosoft\.ML\.\w+|\bnuget\b|\.csproj\b", re.I)
# The lines of `pip list` torch's collect_env keeps: those holding one of its DEFAULT_PIP_PATTERNS (pytorch/pytorch,
# torch/utils/collect_env.py, get_pip_packages; the set below is its releases' common part, newer ones add more): a
# filter word holding one of them (torchvision, onnxruntime) is listed by a collect_env asked already, no other.
_COLLECT_ENV_LISTS = ("torch", "numpy", "mypy", "flake8", "triton", "optree", "onnx")
# The driver's own libraries: the driver's install decides them, never a Python environment's packages.
_DRIVER_LIB = re.compile(r"(?:lib)?(?:cuda\.so|nvidia-|nvcuda|nvml|nvcuvid)", re.I)
# A package's folder under site-packages in a loader's line (Linux or Windows separators).
_SITE_DIR = re.compile(r"(?:site|dist)-packages[\\/](?P<pkg>[A-Za-z_]\w{0,60})[\\/]", re.I)


def _owner_listing_asks(facts: Facts, asked: list[Ask], py: str, windows: bool) -> list[Ask]:
    """A Python package whose native part failed to load (a library or DLL the loader could not load, a provider
    library that could not), asked in the environment's own package listing: which distributions hold the package and
    the library, of which release and CUDA build (the blind sets' reviewers, plans18-20: "the environment's own package
    listing", pip's where pip installed, conda's only where conda did; rapidsai/cudf#18613, microsoft/onnxruntime#21825).
    The listing is that of the installer the paste shows (gpudoctor.pasted.load_asks.package_listing). Not where another
    ask lists the packages already, nor for the driver's own libraries, nor for a program that is no Python one."""
    from gpudoctor.checks.reported import _TF_WARNING, frameworks_named

    errors = [
        e
        for e in facts.pasted.errors
        if e.kind in _LOAD_FAILED
        and (e.kind != "gpu-stack-failure" or e.get("component_kind") in ("library", "dll"))
        and e.get("side") != LINK  # (a name only a build's linker looked for is no installed package's)
        and not (e.kind == "library-missing" and _TF_WARNING.search(e.line))  # (a warning TensorFlow runs on past)
        and load_asks.about_copies(e.line)  # (Windows' error 1455, the paging file, is no question of what is installed)
    ]
    if not errors:
        return []
    named = [lib for e in errors if (lib := e.get("soname") or (e.get("component") if e.kind == "gpu-stack-failure" else None))]
    libraries = [lib for lib in named if not _DRIVER_LIB.match(lib)]
    if named and not libraries:
        return []  # (only the driver's own libraries failed: no environment's package holds them)
    packages = [p for e in errors if (p := _LOAD_FAILED[e.kind])]
    packages += [c.get("means") or "" for c in facts.pasted.cues if c.get("cue") == IMPORT_FAILED]
    packages += [m.group("pkg") for e in errors if (m := _SITE_DIR.search(e.line))]
    packages = [p for p in dict.fromkeys(packages) if p]
    if not packages and not libraries:
        return []
    said = [e.line for e in facts.pasted.errors] + [c.get("line") or "" for c in facts.pasted.cues]
    compiled = any(c.get("cue") == NO_PYTHON for c in facts.pasted.cues)
    if compiled and any(_DOTNET.search(line) for line in said) and (words := load_asks.listed_words(packages, [])):
        # A .NET program's packages are NuGet's: the project's own listing (`dotnet list package`, the .NET SDK's
        # reference: learn.microsoft.com/dotnet/core/tools/dotnet-list-package) names the release, which fixes the CUDA
        # and cuDNN majors its provider needs (microsoft/onnxruntime#20597); not where the paste states it.
        if any(
            e.kind == "library-said" and any(w in (e.get("package") or "").lower() for w in words) for e in facts.pasted.errors
        ):
            return []
        return [
            Ask(
                Cmd(("dotnet", "list", "package"), pipe=load_asks.listing_filter(words, windows), note="in the project's folder"),
                f"the NuGet packages the project references matching {', '.join(words)}, with the versions resolved: the "
                "release of the package whose native library failed to load",
            )
        ]
    if not load_asks.python_failed(facts, bool(packages) or bool(frameworks_named(facts))):
        return []
    if not (filters := load_asks.listed_words(packages, libraries)):
        return []
    # (pip's list however it is run: by the interpreter, in an image, by uv; conda's; collect_env's, for what it lists)
    listed = any(
        ("pip" in argv and "list" in argv)
        or ("pip" in argv and "show" in argv and any(p.replace("_", "-") in argv for p in packages))
        or argv[:2] == ("conda", "list")
        or ("torch.utils.collect_env" in argv and all(any(p in w for p in _COLLECT_ENV_LISTS) for w in filters))
        for a in asked
        if (argv := tuple(str(w) for w in a.command.argv))
    )
    if listed:
        return []
    conda = (where.conda(facts) or bool(_CONDA_PYTHON.search(py))) and not _VENV_PYTHON.search(py)
    row = load_asks.package_listing(facts, py, filters[:6], conda, windows)
    # answered by a pasted listing only where it holds one of the packages asked for: a listing without the package
    # whose import failed is another interpreter's (rapidsai/cudf#18613: the system pip's, beside a venv's traceback)
    return [Ask(row.command, row.decides, fact="listed:" + "|".join(filters[:6]))]


# The package folder an object sits in under site-packages (site-packages/torch_tensorrt/lib/libtorchtrt.so):
# the import name, which pip show takes as the distribution's (pip normalises _ to -). Not torch's own, nor NVIDIA's.
_SITE_PACKAGE = re.compile(r"(?:site|dist)-packages/(?P<pkg>[A-Za-z_]\w{0,80})/")


def _site_package(obj: str) -> str | None:
    m = _SITE_PACKAGE.search(obj.replace("\\", "/"))
    if m is None or m.group("pkg") in ("torch", "nvidia", "torchvision", "torchaudio"):
        return None
    return m.group("pkg").replace("_", "-")


_IMPORTS_FRAMEWORK = re.compile(r"\bimport (?:[\w.]+(?: as \w+)?,\s*)*(torch|tensorflow|jax)\b|^(torch)\.")


def _framework_imported(cmd: Cmd) -> str | None:
    """The framework (torch, tensorflow, jax) a Python probe imports: its `-c` program's import or its `-m` module."""
    argv = [str(w) for w in cmd.argv]
    for flag in ("-c", "-m"):
        if flag in argv[:-1] and (m := _IMPORTS_FRAMEWORK.search(argv[argv.index(flag) + 1])):
            return m.group(1) or m.group(2)
    return None


def _before_tf_config(version: str | None) -> bool:
    """Whether a TensorFlow release shown is older than the first with tf.config (1.14: tool_floors.CALLS, its floor)."""
    from gpudoctor.planner.tool_floors import CALLS

    first = next(c.minimum for c in CALLS if c.text == "tf.config")
    return version is not None and at_least(version, first) is False


# Error kinds that are NVML (or nvidia-smi) failing to reach the GPU.
_NVML_FAILURES = frozenset({"nvml", "nvml-init-failed", "wsl-gpu-blocked", "wsl-no-gpu-adapters"})


def _family_asks(facts: Facts, codes: set[str]) -> list[Ask]:
    """What decides between the causes of a symptom the paste shows and cannot explain (gpudoctor.checks.symptoms):
    only where no check found its cause (the finding is pasted-error-unexplained), each ask in the form of the place
    the program runs (a container's by its runtime, a pod's by kubectl), none the paste already answers."""
    from gpudoctor.checks.reported import UNEXPLAINED, frameworks_named, pasted_failures
    from gpudoctor.checks.symptoms import closed_keys, family_of, fits, place, run_with_gpus

    if UNEXPLAINED not in codes:
        return []
    families = list({f.id: f for e in pasted_failures(facts) if (f := family_of(e, facts)) is not None}.values())
    if not families:
        return []
    at = place(facts)
    image = where.image(facts)
    fw = facts.frameworks
    builds_read = bool(frameworks_named(facts)) or any(isinstance(x, Found) for x in (fw.torch, fw.tensorflow, fw.jax))
    name: str | Placeholder = (
        (image.get("container") if image else None) or _exec_named(facts) or next(iter(_logged_services(facts)), None)
    ) or Placeholder("container")
    out: list[Ask] = []
    for family in families:
        closed = closed_keys(family, facts)
        for ask in family.asks.get(at, ()):
            if (ask.argv == ("nvidia-smi",) and facts.driver.version) or (ask.run_line_answers and run_with_gpus(facts)):
                continue  # shown already
            if ask.cause in closed:
                continue  # the cause it decides is one the paste rules out: its answer would decide nothing
            if not fits(ask, facts):
                continue  # another number of nodes, or another scheduler, than the pasted job's
            if ask.cause == "build" and builds_read:
                continue  # a framework the paste names or shows is asked of by its own command (collect_env, ...)
            words = where.in_container(facts, ask.argv, name) if ask.argv[:1] == ("docker",) else ask.argv
            if words[:2] == ("podman", "run") and "nvidia.com/gpu=all" in words and not _cdi_listed(facts):
                # podman's GPU is a CDI device: a spec that lists none (never generated, or stale after a driver
                # upgrade) fails every such run (NVIDIA Container Toolkit CDI support: `nvidia-ctk cdi list`)
                out.append(
                    Ask(Cmd(("nvidia-ctk", "cdi", "list"), note="on the host"), f"{_CDI_LISTED} ({family.id})", subject=family.id)
                )
            cmd = _catalogue_cmd(facts, words)
            if ask.note and words[0] != "kubectl":  # (kubectl runs wherever it is set up: no host to name)
                cmd = dataclasses.replace(cmd, note=ask.note)
            out.append(Ask(cmd, f"{ask.decides} ({family.id})", subject=family.id))
    return out


def _cdi_listed(facts: Facts) -> bool:
    from gpudoctor.facts import CDI_LISTED

    return any(c.get("cue") == CDI_LISTED for c in facts.pasted.cues)


_CDI_LISTED = "the CDI devices the host's spec names (nvidia.com/gpu=all among them), which podman's --device resolves"


# The failures that say no driver answered the process at all (the catalogue's evidence kinds): under WSL 1 each is
# what a program prints, where a driver that answers with another error is no question of the WSL version.
_NO_DRIVER_REACHED = _NVML_FAILURES | {"torch-no-driver", "cuda-no-gpus", "cuinit-failed", "tf-driver-module-absent"}


def _wsl_version_ask(facts: Facts, codes: set[str]) -> list[Ask]:
    """Where WSL 2 is only the reporter's word (no kernel release shown) and no driver answers, with no check having
    found why: a distribution still on WSL 1 has no GPU at all (NVIDIA's CUDA on WSL User Guide: GPU access needs WSL
    2), and `wsl -l -v`'s VERSION column says which it runs under (Microsoft's "Basic commands for WSL"); its answer is
    judged by wsl1-no-cuda."""
    if (
        facts.platform.release != WSL2_RELEASE_PLACED
        or "pasted-error-unexplained" not in codes
        or not any(e.kind in _NO_DRIVER_REACHED for e in facts.pasted.errors)
    ):
        return []
    return [
        Ask(
            Cmd(("wsl", "-l", "-v"), note=_OTHER_SIDE),
            "the WSL version each distribution runs under (VERSION 1 has no GPU; the text says WSL 2 but shows no kernel)",
        )
    ]


_WSL = "wsl"
# The subject of the question that names a console script's interpreter (_shebang_ask): ranked with the failure's own
# questions by nothing, but asked first (ask_for).
_INTERPRETER = "interpreter"


def _wsl_asks() -> list[Ask]:
    """NVML failing inside WSL 2: the cause is on the Windows side or in what the distribution installed (their subject,
    _WSL, is the failure where the paste shows WSL 2: _capped)."""
    return [
        Ask(
            Cmd(("nvidia-smi.exe",), note=_OTHER_SIDE),
            "the Windows driver's version and each GPU's driver model (WSL 2 sees only WDDM GPUs, not TCC ones)",
            subject=_WSL,
        ),
        Ask(
            Cmd(("ls", "-l", "/usr/lib/wsl/lib")),
            "whether WSL's driver libraries from Windows are there (libcuda.so, libnvidia-ml.so.1)",
            subject=_WSL,
        ),
        Ask(
            Cmd(("dpkg", "-l"), pipe=("grep", "nvidia")),
            "whether a Linux NVIDIA driver was installed in the distribution (it shadows WSL's)",
            subject=_WSL,
        ),
        Ask(Cmd(("uname", "-r")), "the WSL kernel (a custom kernel without GPU support has no /dev/dxg)", subject=_WSL),
    ]


# Slurm's refusals of a job's request (the catalogue's GRES, node configuration and TRES entries) said where the job was
# submitted ("Batch job submission failed", srun's "Unable to allocate resources"): no job exists to show or run in.
_SLURM_REFUSED = frozenset({"slurm-gres-invalid", "slurm-node-config-unavailable", "slurm-tres-invalid"})
_AT_SUBMISSION = ("submission failed", "unable to allocate resources")


# The command's own option parser refusing pyxis's --container-* options (catalogue.toml: pyxis-options-unrecognized):
# srun or sbatch stopped before it asked Slurm for anything, so there is no job whose allocation to read.
_REFUSED_BEFORE_SUBMISSION = frozenset({"pyxis-not-loaded"})


def _refused_at_submission(facts: Facts) -> bool:
    return any(
        e.kind in _REFUSED_BEFORE_SUBMISSION or (e.kind in _SLURM_REFUSED and any(w in e.line.lower() for w in _AT_SUBMISSION))
        for e in facts.pasted.errors
    )


# Windows refusing a DLL of torch's own folder while torch imports (torch/__init__.py loads each DLL of torch\\lib), or its
# warning that the Visual C++ runtime did not load: `import torch` itself fails there.
_TORCH_LIB_DLL = re.compile(r"[\\/]torch[\\/]+lib[\\/]+[\w.+-]+\.dll", re.IGNORECASE)


def _torch_unimportable(facts: Facts) -> bool:
    # Windows' error 1455 (ERROR_COMMITMENT_LIMIT) on the line is the commit limit, not a DLL torch lacks: the DLL loads
    # where there is commit to spare (the main process; spawned workers are what run out), so collect_env can run.
    return any(
        e.kind == "vc-runtime-missing"
        or (e.line and "WinError 1455" not in e.line and "Error loading" in e.line and _TORCH_LIB_DLL.search(e.line))
        for e in facts.pasted.errors
    )


def _without_cpu_crashed(findings: list, asks: list[Ask]) -> list[Ask]:
    """Without the probes that import a framework whose import died on an instruction the CPU lacks
    (framework-cpu-unsupported: SIGILL at its first AVX instruction, in every interpreter): each would die the same way
    and answer nothing (blind set 15's reviewers struck `import tensorflow` asked again after "illegal instruction").
    Where that is the only error, without the driver's questions too: no GPU, driver or CUDA setting changes it."""
    from gpudoctor.model import Severity

    crashed = {f.remediation.component for f in findings if f.code == "framework-cpu-unsupported" and f.remediation}
    if not crashed:
        return asks
    out = [a for a in asks if _framework_imported(a.command) not in crashed]
    if all(f.code == "framework-cpu-unsupported" for f in findings if f.severity >= Severity.ERROR):
        out = [a for a in out if not any(w in _READS_DRIVER for w in (*a.command.argv, *a.command.pipe))]
    return out


def _import_crash_asks(facts: Facts, windows: bool) -> list[Ask]:
    """The interpreter died importing a package (facts.IMPORT_CRASHED): no Python probe of it answers, and what decides
    it is where the crash is (the native library in the backtrace) and what its extension modules resolve. The
    package's name is an argument (importlib.import_module(sys.argv[1])), never part of the program."""
    asks: list[Ask] = []
    for package in sorted({c["means"] for c in facts.pasted.cues if c.get("cue") == IMPORT_CRASHED}):
        crash = where.python_step(facts, "-c", "import importlib, sys; importlib.import_module(sys.argv[1])", package)
        if not windows:
            asks.append(
                Ask(
                    Cmd(("gdb", "-batch", "-ex", "run", "-ex", "bt", "--args", *crash.argv)),
                    f"the native backtrace of the crash in import {package}: the library whose code faulted",
                )
            )
        traced = dataclasses.replace(crash, argv=(crash.argv[0], "-X", "faulthandler", *crash.argv[1:]))
        asks.append(Ask(traced, f"the Python stack at the crash: which of {package}'s modules was being imported"))
        # find_spec locates a top-level package without running its __init__ (Python's importlib.util docs)
        where_it_is = "import importlib.util, sys; print(importlib.util.find_spec(sys.argv[1]).submodule_search_locations[0])"
        asks.append(
            Ask(
                where.python_step(facts, "-c", where_it_is, package),
                f"the folder {package} is installed in, without importing it: ldd on its extension modules (*.so) "
                "there shows which system libraries they resolve",
            )
        )
    return asks


def _module_file_asks(facts: Facts) -> list[Ask]:
    """ctypes' "Could not find module '<path>'" names the file it tried (catalogue.toml's windows-ctypes-module-not-found):
    where.exe, searching its folder for it (the path as an argument, never as code), tells a file that is not there (the
    install or build did not produce it) from one whose own dependencies Windows did not find."""
    explained = {e.line for e in facts.pasted.errors if e.kind != "windows-module-not-found"}
    for e in facts.pasted.reported("windows-module-not-found"):
        if e.line in explained:
            continue  # another message read from the same line says what it is (bitsandbytes' pre-0.43 setup)
        folder, _, name = (e.get("path") or "").replace("/", "\\").rpartition("\\")
        if folder and name and re.fullmatch(r"[A-Za-z]:", folder[:2]):
            why = f"whether {name} is in {folder}: there, a DLL it links is what Windows did not find; absent, the install or build did not produce it"
            return [Ask(Cmd(("where.exe", "/R", folder, name)), why)]
    return []


def _linked_to_open_findings(facts: Facts, findings: list, out: list[Ask]) -> list[Ask]:
    """`out`, each ask made for the kind of line a finding was judged from (Ask.made_for) naming that finding where the
    finding has no command of its own: the ask's `decides` is what the finding's fix waits on (a no-kernel-image
    line's arch-list ask for framework-arch-unsupported with neither the GPU nor the build known), so the plan does
    not stop at the finding but asks for exactly what decides it; the link is data (Ask.codes), as for an unexplained
    failure's asks."""
    from gpudoctor.model import Severity

    for f in findings:
        if f.severity < Severity.WARNING or (f.remediation is not None and f.remediation.commands):
            continue
        lines = {e.value for e in f.evidence if e.source == "pasted"}
        kinds = {e.kind for e in facts.pasted.errors if e.line in lines}
        out = [
            dataclasses.replace(a, codes=(*a.codes, f.code)) if kinds & set(a.made_for) and f.code not in a.codes else a
            for a in out
        ]
    return out


def _catalogue_asks(facts: Facts) -> list[Ask]:
    """The asks of the catalogued messages the text shows (gpudoctor/parsers/catalogue.toml)."""
    from gpudoctor.parsers.catalogue import by_id, decides_each, messages

    out: list[Ask] = []
    for e in facts.pasted.errors:
        message = by_id(e.get("entry") or "") or next((m for m in messages() if m.pattern.search(e.line)), None)
        if message is None or (message.unless and any(x.kind in message.unless for x in facts.pasted.errors)):
            continue  # (another message shown beside it already decides what its asks would)
        windows = (facts.platform.system or "").lower().startswith("win")
        for argv, decides in zip(message.ask, decides_each(message), strict=True):
            words = tuple(argv)
            cmd = _catalogue_cmd(facts, words)
            if (not windows and str(words[0]).endswith(".exe")) or (windows and _linux_only(cmd)):
                continue  # a Windows program asked on Linux, a Linux one on Windows: a message's asks name each
            if facts.platform.wsl and words[0] in ("lsmod", "dkms", "modinfo"):
                continue  # WSL 2 loads no nvidia module: the Windows driver serves the GPU (its asks are WSL's own)
            if facts.platform.system == "Darwin" and words[0] == "nvidia-smi":
                continue  # a Mac has no NVIDIA driver to answer (CUDA 10.2 was the last for macOS): as the asks above
            if "nvidia-fabricmanager" in words and _no_nvswitch(facts):
                continue  # the fabric manager readies NVSwitch systems (HGX/DGX) only: none holds these GPUs
            if (
                (words == ("nvidia-smi",) and facts.driver.version)
                or (words in (("nvcc", "--version"), ("which", "nvcc")) and facts.toolkits.nvcc_on_path_version)
                or (words == ("printenv", "CUDA_HOME") and "CUDA_HOME" in facts.platform.env)
                or _gpu_query_answered(facts, words)
            ):
                continue  # shown already
            out.append(Ask(cmd, f"{decides} ({message.id})", subject=message.id))
    return out


# GPUs that no NVSwitch system (HGX, DGX) holds: GeForce, TITAN, Quadro and the RTX workstation line. NVIDIA's Fabric
# Manager user guide: fabric manager "configures the NVSwitch memory fabrics" of NVSwitch-based systems (DGX/HGX A100,
# H100 and their successors), https://docs.nvidia.com/datacenter/tesla/fabric-manager-user-guide/index.html, "Overview".
_NO_NVSWITCH_GPU = re.compile(r"GeForce|TITAN|Quadro|\bRTX\b", re.IGNORECASE)


def _no_nvswitch(facts: Facts) -> bool:
    """Whether every GPU shown (one at least) is of a line no NVSwitch system holds."""
    names = [g.name for g in facts.driver.gpus]
    return bool(names) and all(n and _NO_NVSWITCH_GPU.search(n) for n in names)


def _pip_typed_asks(facts: Facts, windows: bool) -> list[Ask]:
    """pip found no release for its interpreter, and the text shows pip typed bare (gpudoctor.facts.PIP_TYPED): the
    pip on PATH may be another Python's than the `python` the other asks run, so it is asked which it is (its --version
    line ends "from <site-packages> (python X.Y)": pypa/pip src/pip/_internal/utils/misc.py @6d309205,
    get_pip_version); on Windows, every Python the launcher knows with its path (`py -0p`, "List with paths":
    python/cpython PC/launcher-usage.txt @4aab9955), a 32-bit one as -32."""
    from gpudoctor.facts import PIP_TYPED

    cue = next((c for c in facts.pasted.cues if c.get("cue") == PIP_TYPED), None)
    if cue is None:
        return []
    out = [
        Ask(
            Cmd((cue.get("means") or "pip", "--version")),
            "which Python the pip that found nothing belongs to (its path and version)",
        )
    ]
    if windows:
        out.append(Ask(Cmd(("py", "-0p")), "every Python installed, with its path and width (a 32-bit one shows as -32)"))
    return out


def _gpu_query_answered(facts: Facts, words: Sequence[str | Placeholder]) -> bool:
    """An `nvidia-smi --query-gpu=...` ask whose every field the paste already shows: the GPUs' names and compute
    capabilities (a named model has its capability in the matrix), the driver's version."""
    if not words or words[0] != "nvidia-smi":
        return False
    fields = next((str(w).split("=", 1)[1] for w in words if str(w).startswith("--query-gpu=")), None)
    if fields is None or any(not isinstance(w, str) or not w.startswith(("--query-gpu=", "--format=")) for w in words[1:]):
        return False
    gpus = facts.driver.gpus
    known = {
        "name": bool(gpus) and all(g.name for g in gpus),
        "compute_cap": bool(gpus) and all(g.compute_capability for g in gpus),
        "driver_version": bool(facts.driver.version),
    }
    return all(known.get(f.strip(), False) for f in fields.split(","))


_FILL_IN = re.compile(r"\{(?!python\})[a-z][a-z-]{0,30}\}")


def _catalogue_cmd(facts: Facts, words: Sequence[str | Placeholder]) -> Cmd:
    """A catalogue ask's argv as a command: "|" starts its pipe stage, and "{python}" is the interpreter the paste's
    program runs (gpudoctor.planner.where), whatever stage follows: the pipe is split off first, so an interpreter's
    `pip list | grep` stays a pipe and never becomes a quoted '|' argument of pip."""
    # "{pod}": what the reporter fills in (never "{python}", which is the interpreter)
    words = tuple(Placeholder(w[1:-1]) if isinstance(w, str) and _FILL_IN.fullmatch(w) else w for w in words)
    pipe: tuple[str | Placeholder, ...] = ()
    if "|" in words:
        at = list(words).index("|")
        words, pipe = tuple(words[:at]), tuple(words[at + 1 :])
    if "{python}" in words:
        at = list(words).index("{python}")
        inner = where.python_step(facts, *(str(w) for w in words[at + 1 :]))
        return dataclasses.replace(
            inner, argv=_env_where_run(words[:at], inner.argv, len(words) - at - 1), pipe=pipe or inner.pipe
        )
    return Cmd(tuple(words), pipe=pipe)


# What runs a command in a container or an image from the host: a variable set before it on the host's command line
# (`env NCCL_DEBUG=INFO docker exec ...`) is the host client's, never the program's inside (docker exec and run pass
# the container only what -e names: Docker CLI reference, "docker container exec" and "docker container run", --env).
_CONTAINER_RUNNERS = frozenset({"docker", "podman", "kubectl", "singularity", "apptainer"})


def _env_where_run(before: tuple, argv: tuple, args: int) -> tuple:
    """A catalogue ask's words before its interpreter (`env VAR=value`) joined to the interpreter's command `argv`
    (whose last `args` words follow the interpreter): in front of it on the host; where `argv` runs the interpreter in
    a container (`docker exec NAME python3 ...`), just before the interpreter, inside; for an image run (`docker run
    ... --entrypoint python3 IMAGE ...`), as its -e options."""
    if not before or str(argv[0]) not in _CONTAINER_RUNNERS:
        return (*before, *argv)
    variables = [str(w) for w in before[1:]]
    if argv[1:2] == ("run",):
        if str(before[0]) == "env" and variables and all("=" in v for v in variables):
            return (argv[0], "run", *(w for v in variables for w in ("-e", v)), *argv[2:])
        return (*before, *argv)
    interpreter = len(argv) - args - 1
    return (*argv[:interpreter], *before, *argv[interpreter:]) if interpreter > 0 else (*before, *argv)


def not_in_plan(asks: Sequence[Ask], plan: Any) -> list[Ask]:
    """The asks a plan's steps do not already print as their commands (gpudoctor.planner.deciders makes an undecided
    error's step out of them): the views print each command once, in the step that needs its answer. The JSON keeps
    both lists, each whole: a step's commands and the report's questions are two fields a reader looks up apart. The
    plan's last step that runs the reporter's command again, or checks the fix took (gpudoctor.planner.resume), is run
    after the fix: an ask of the same command wants its answer before, and stays."""
    if plan is None:
        return list(asks)
    printed = {
        (c.argv, c.pipe)
        for s in plan.steps
        if s.component != "resume"
        for c in (*s.commands, *(c for a in s.alternatives for c in a.remediation.commands))
        if isinstance(c, Cmd)
    }
    # (the same program in the same place is one command, whatever note each gives it)
    return [a for a in asks if (a.command.argv, a.command.pipe) not in printed]


def _unique(asks: list[Ask]) -> list[Ask]:
    # The first of two asks for one command stays, with the codes both decide.
    out: dict[tuple, Ask] = {}
    for a in asks:
        key = (a.command.argv, a.command.pipe)
        kept = out.get(key)
        if kept is None:
            out[key] = a
        elif set(a.codes) - set(kept.codes):
            out[key] = dataclasses.replace(kept, codes=tuple(dict.fromkeys((*kept.codes, *a.codes))))
    return _without_covered_where(_without_filtered_twice(list(out.values())))


_FILTERS = frozenset({"grep", "findstr"})


def _without_filtered_twice(asks: list[Ask]) -> list[Ask]:
    """Without an ask whose output is filtered (`pip list | grep jax`, `conda list llama.cpp`) where the same command is
    asked whole, in the same place: the whole listing prints every line the filter keeps (reviewers: "pip list twice"). The whole one keeps the
    codes both decide."""
    whole = {a.command.argv: i for i, a in enumerate(asks) if not a.command.pipe}
    out = list(asks)
    dropped: set[int] = set()
    for i, a in enumerate(asks):
        argv, piped = a.command.argv, bool(a.command.pipe) and str(a.command.pipe[0]) in _FILTERS
        if not piped and argv[-3:-1] == ("conda", "list") and not str(argv[-1]).startswith("-"):
            # `conda list NAME`: its one argument is a filter of the same listing (conda's docs: conda list [regex])
            argv, piped = argv[:-1], not a.command.pipe
        at = whole.get(argv)
        if at is None or at == i or not piped or asks[at].command.note != a.command.note:
            continue
        dropped.add(i)
        kept = out[at]
        codes = tuple(dict.fromkeys((*kept.codes, *a.codes)))
        out[at] = dataclasses.replace(kept, why=f"{kept.why}; among them, {a.why}", codes=codes)
    return [a for i, a in enumerate(out) if i not in dropped]


def _without_covered_where(asks: list[Ask]) -> list[Ask]:
    """Without a `where.exe NAME...` whose every name another `where.exe` ask's patterns already match (a component's
    `where.exe cudnn*.dll cublas*.dll` answers `where.exe cudnn_cnn_infer64_8.dll`: where.exe prints each match's
    folder, in PATH's order, for a pattern as for a name). Both search PATH alone: a `/R` (a folder's tree) is another
    question and covers nothing here, nor is it covered."""
    import fnmatch

    def names(a: Ask) -> tuple[str, ...] | None:
        argv = tuple(str(x) for x in a.command.argv)
        if argv[:1] != ("where.exe",) or a.command.pipe or any(x.startswith("/") for x in argv[1:]):
            return None
        return tuple(x.lower() for x in argv[1:])

    searched = [(a, names(a)) for a in asks]
    patterns = [(a, theirs) for a, theirs in searched if theirs]
    out = []
    for a, own in searched:
        covered = bool(own) and any(
            other is not a
            and set(theirs) != set(own or ())
            and all(any(fnmatch.fnmatchcase(n, p) for p in theirs) for n in own or ())
            for other, theirs in patterns
        )
        if not covered:
            out.append(a)
    return out
