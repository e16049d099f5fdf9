"""A JAX or TensorFlow that loads a cuDNN older than the one it was built with ("Loaded runtime CuDNN library: 8.5.0 but
source was compiled with: 8.6.0"), in a pip environment whose CUDA major the text shows: NVIDIA's cuDNN wheel of that
major, at least the compiled release, into the program's Python, and its directory first on LD_LIBRARY_PATH (so a
system or module copy listed there no longer comes first). Pure: facts in, a remedy out.

Before this, such a finding's plan stopped at read-only asks ("What was shown does not decide the command"). The
threads' fixes are this step: google/jax#16038 (tests/blind/plans7/cases/601-*: jaxlib +cuda11.cudnn86 loading a local
cuDNN 8.5; its reviewer: "pip install 'nvidia-cudnn-cu11>=8.6,<9' ... and drop the 8.5 dir from LD_LIBRARY_PATH"),
jax-ml/jax#28623 (tests/pasted/cases/jax-28623-*: cuDNN 9.4 found before the nvidia-cudnn-cu12 9.10 wheel; the error's
own remedy, the newer copy loaded first). The loader's order (ld.so(8)): LD_LIBRARY_PATH before the ldconfig cache.
"""

from __future__ import annotations

from gpudoctor.cmdline import Cmd, Output
from gpudoctor.facts import JAX_CUDA_SAID, Facts
from gpudoctor.model import Remediation
from gpudoctor.versions import vkey

# The cuDNN majors NVIDIA publishes wheels of for each CUDA major, as the range that keeps the major: nvidia-cudnn-cu11
# 8.5.0.96 to 8.9.6.50 and 9.x, nvidia-cudnn-cu12 8.9.x and 9.x (pip install --dry-run --no-deps --report, CPython
# 3.10, manylinux2014_x86_64, 2026-12-01: "nvidia-cudnn-cu11>=8.6.0,<9" resolves 8.9.6.50, "nvidia-cudnn-cu12>=8.9.6,<9"
# 8.9.7.29, "nvidia-cudnn-cu12>=9.8.0,<10" a 9.x; checks.libraries._CUDNN_CU11/_CUDNN_CU12 name the same wheels).
_WHEEL_MAJORS = {11: (8, 9), 12: (8, 9)}
# The newest release of a cuDNN major that a CUDA major's wheel holds, where that series has ended (nvidia-cudnn-cu11's
# last is 9.10.2.21: compat_matrix/cudnn.toml's wheel rows): a compiled release above it has no wheel.
_NEWEST = {(11, 8): (8, 9, 6), (12, 8): (8, 9, 7), (11, 9): (9, 10, 2)}
_LAST_8 = {11: "8.9.6.50", 12: "8.9.7.29"}

_CHECK = {
    "JAX": "import jax; print(jax.__version__, jax.devices())",
    "TensorFlow": "import tensorflow as tf; print(tf.__version__, tf.config.list_physical_devices('GPU'))",
}


# JAX's CUDA wheels by the cuDNN they were built with: the CUDA 11 jaxlib builds are cudnn82 and cudnn86 (jax's
# cuda11_cudnn82 / cuda11_cudnn86 extras), the cuDNN 8.8 and 8.9 ones CUDA 12 builds (jaxlib 0.4.7+cuda12.cudnn88,
# 0.4.13 to 0.4.28+cuda12.cudnn89 on jax's CUDA release index, whose cuda12_pip extra requires
# nvidia-cudnn-cu12>=8.9.2.26,<9.0; lgrcia/prose's poetry.lock as rseng/gpu-search stores it).
_JAX_CUDA_BY_CUDNN: dict[tuple[int, ...], int] = {(8, 8): 12, (8, 9): 12}


def _cuda_major(facts: Facts, who: str, compiled: tuple[int, ...]) -> int | None:
    """The CUDA major of a build that loads NVIDIA's wheels: JAX's packages name it (jaxlib's +cudaNN.cudnnNN tag,
    jax-cudaNN-plugin), or JAX's cuDNN release decides it; else the one CUDA-tagged distribution the environment
    lists (nvidia-cudnn-cu12, cupy-cuda11x). A CUDA the text only states is no such sign: a jaxlib 0.1.65+cuda112 or a
    TensorFlow of that time loads the machine's cuDNN, and its thread's fix was a newer system cuDNN, never a wheel
    (google/jax#6517, tests/blind/plans2/cases/110-*)."""
    from gpudoctor.checks.library_copy import wheel_cuda_majors

    said = {c.get("means") for c in facts.pasted.cues if c.get("cue") == JAX_CUDA_SAID}
    if len(said) == 1 and (m := next(iter(said))) and m.isdigit():
        return int(m)
    if who == "JAX" and (cuda := _JAX_CUDA_BY_CUDNN.get(compiled[:2])):
        return cuda
    shown = wheel_cuda_majors(facts)
    return next(iter(shown)) if len(shown) == 1 else None


def cudnn_wheel_upgrade(facts: Facts, who: str, loaded: str, compiled: str) -> Remediation | None:
    """The decided step for `who` (JAX, TensorFlow) built with cuDNN `compiled` and loading the older `loaded`: the
    cuDNN wheel of the build's CUDA major, `>= compiled` within its major, and its directory first on LD_LIBRARY_PATH.
    None in a conda environment (its own cudnn package is the fix there), on Windows, where the CUDA major is not
    shown, or where no wheel of that release exists."""
    from gpudoctor.planner import where
    from gpudoctor.planner.remedy import keep_path, kept, library_dir, pip, python_exe

    if who not in _CHECK or where.conda(facts) or facts.platform.system.lower().startswith("win"):
        return None
    want = vkey(compiled)[:3]
    cuda = _cuda_major(facts, who, want)
    if cuda not in _WHEEL_MAJORS or not want or want[0] not in _WHEEL_MAJORS[cuda]:
        return None
    if want > _NEWEST.get((cuda, want[0]), want):
        return None
    cudnn = want[0]
    exe = python_exe(facts)
    # cuDNN 8's series has ended for both CUDA majors: its last wheel, which is at least any release a build names,
    # pinned (what the plan installs is then known); a cuDNN 9 build takes the newest 9.x from its release on
    newest = _NEWEST.get((cuda, 8)) if cudnn == 8 else None
    requirement = (
        f"nvidia-cudnn-cu{cuda}=={_LAST_8[cuda]}"
        if newest
        else f"nvidia-cudnn-cu{cuda}>={'.'.join(str(p) for p in want)},<{cudnn + 1}"
    )
    directory = Output(
        (exe, "-c", "import os, nvidia.cudnn.lib as m; print(os.path.dirname(m.__file__))"), site_dir="nvidia/cudnn/lib"
    )
    return Remediation(
        f"{who}'s build is a CUDA {cuda} one and needs cuDNN {compiled} or newer of major {cudnn}; the {loaded} that "
        f"loads comes first on the loader's path. Install NVIDIA's cuDNN wheel for CUDA {cuda} at {compiled} or newer "
        f"with the Python that runs {who} (a no-op where it is already there), put its directory first on "
        "LD_LIBRARY_PATH, exported, so it loads before any other copy, and run the check below. This assumes pip's "
        f"Python is the program's; where ldconfig lists the {loaded} copy in a system directory, it stays there, "
        "behind the wheel's." + keep_path(facts),
        (
            Cmd(
                ("ldconfig", "-p"),
                pipe=("grep", "libcudnn"),
                note=f"read-only: the copies of cuDNN the loader knows, the {loaded} one among them",
            ),
            *kept(
                facts,
                (
                    pip(facts, "install", requirement),
                    library_dir(facts, (directory,), note=f"the wheel's directory first, ahead of cuDNN {loaded}"),
                ),
            ),
            Cmd((exe, "-c", _CHECK[who]), note=f"the fix took if this shows the GPU, without the cuDNN {loaded} error"),
        ),
        component="cudnn",
    )
