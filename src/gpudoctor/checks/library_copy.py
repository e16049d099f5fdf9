"""A library the loader could not open, where nothing shown says where a copy is or which package should bring it: the
fix is the look for a copy and, where it finds one, that copy's directory first on LD_LIBRARY_PATH (kept for the
environment), the install only where the look finds none.

Before this, such a finding's plan stopped at read-only asks (ldconfig, LD_LIBRARY_PATH, find), and the reviewers of
the blind sets asked for the step the answers decide, written so that it decides itself:
- PaddlePaddle/PaddleClas#3049 (tests/blind/plans21/cases/2171-*): libcudart.so.11.0 in the conda environment's own
  lib, which a pip-installed paddle does not put on the loader path; the reporter's fix was that folder on
  LD_LIBRARY_PATH. (Its paste shows no CUDA at all, so it now gets the reads, a_copy_may_fix: the same text is
  Lee-zix/RE-GCN#11's, plans22/2271, where a CUDA 10 build of some package asks and a copy is no fix.)
- tensorflow/tensorflow#56413 (tests/pasted/cases/tensorflow-56413-*): conda's cudatoolkit put libcudart.so.11.0 in
  the environment's lib, not on the loader path; TF's install guide of that release sets LD_LIBRARY_PATH to it.
- opendatalab/PDF-Extract-Kit#77 (plans21/cases/2134-*): Paddle's "Cannot load cudnn shared library" with cuDNN 8.9.2
  installed where the loader does not search; the maintainer's answer, its folder on LD_LIBRARY_PATH (the plan had
  put a guessed /usr/local/cuda/lib64 there).
- jhj0517/Whisper-WebUI#114 (plans18/cases/1843-*): faster-whisper's cuDNN 8 present in the venv's torch/lib, a
  folder the loader is not told of; the fix, that folder on LD_LIBRARY_PATH.
The loader's order (ld.so(8), https://man7.org/linux/man-pages/man8/ld.so.8.html): LD_LIBRARY_PATH, then the cache
/etc/ld.so.cache, then the default paths; a library opened by dlopen with its soname follows it.

The look searches the program's own environment first (the prefix of the interpreter the text shows: its lib and its
pip nvidia-* wheels are the copies meant for it), then the machine, skipping /proc, /sys and WSL's Windows drives
(/mnt/c: a walk of the Windows disk takes minutes and holds no Linux library); it does not stop at a file system's
edge (a /home or /raid on its own disk holds the environments). The export takes nothing where no copy is found (the
`&&` of cmdline's computed setting).
"""

from __future__ import annotations

import re

from gpudoctor.cmdline import Cmd, Output, PrependPath
from gpudoctor.facts import Facts
from gpudoctor.model import Remediation

# The CUDA major in the soname of a CUDA library that numbers its sonames by the toolkit's (libcudart.so.11.0,
# libcublasLt.so.10, libnvJitLink.so.12; cuFFT, cuRAND and cuSOLVER count their own versions, cuDNN its own).
_CUDA_MAJOR_SONAME = re.compile(r"^lib(?:cudart|nvrtc|cublas|cublasLt|cusparse|nvJitLink)\.so\.(?P<major>\d+)(?:\.\d+)?$")

# The directory of the first file named $1 under each of the other arguments in turn; nothing, and a failure, where
# there is none. find's own status is not read: it is 1 after any unreadable directory. conda's package cache (a
# base installation's pkgs/) is skipped: its copies are what conda unpacks, not what any environment loads.
_FIRST_COPY_DIR = (
    'n=$1; shift; for r in "$@"; do f=$(find "$r" \\( -path /proc -o -path /sys -o -path "/mnt/?" -o -path "*/pkgs" \\) '
    '-prune -o -name "$n" -print -quit 2>/dev/null); [ -n "$f" ] && { dirname "$f"; exit 0; }; done; exit 1'
)

_PRUNED = ("(", "-path", "/proc", "-o", "-path", "/sys", "-o", "-path", "/mnt/?", ")", "-prune", "-o")


def environment_prefix(facts: Facts) -> str | None:
    """The prefix of the interpreter the text shows the program running in (a conda environment's or a venv's folder):
    its bin/python's parent's parent, or None where only a bare `python3` is known."""
    from gpudoctor.planner.where import python_exe

    exe = python_exe(facts)
    if not exe.startswith("/") or "/bin/" not in exe:
        return None
    prefix = exe.rsplit("/bin/", 1)[0]
    return prefix if prefix not in ("", "/usr", "/usr/local") else None


def look_and_export(facts: Facts, stem: str, name: str) -> tuple[Cmd, PrependPath]:
    """The look that lists every copy of `stem`.so*, and the export of the directory of the first file `name` matches
    (a soname, or a pattern such as libcudnn.so*), the program's environment searched first."""
    from gpudoctor.planner.remedy import library_dir

    prefix = environment_prefix(facts)
    roots = (prefix, "/") if prefix else ("/",)
    return (
        Cmd(("find", "/", *_PRUNED, "-name", f"{stem}.so*", "-print"), note="the copies there are"),
        library_dir(
            facts,
            (Output(("sh", "-c", _FIRST_COPY_DIR, "sh", name, *roots)),),
            note="the first copy's directory" + (", the program's own environment searched first" if prefix else ""),
        ),
    )


# A distribution built for one CUDA major, by its name: cupy-cuda11x, cupy-cuda112, nvidia-cublas-cu12; and a
# package list's own "cuda" row (Paddle's run_check and issue forms list it beside the packages).
_WHEEL_CUDA = re.compile(r"(?:-cuda|-cu)(?P<major>1\d)(?:\d|x)?$")


def wheel_cuda_majors(facts: Facts) -> set[int]:
    from gpudoctor.probed import Found

    py = facts.frameworks.python
    dists = py.value.distributions if isinstance(py, Found) else {}
    majors = {int(m.group("major")) for name in dists if (m := _WHEEL_CUDA.search(name))}
    cuda = (dists.get("cuda") or "").split(".")[0]
    return majors | ({int(cuda)} if cuda.isdigit() else set())


def a_copy_may_fix(facts: Facts, soname: str) -> bool:
    """Whether a copy of `soname` found on the machine and put first on the path can be the fix: always for a library
    that does not number its soname by CUDA's major; for one that does, only where the text shows that major (the
    machine's CUDA, a framework's, a CUDA-tagged distribution's: PaddleClas#3049, tensorflow#56413).

    Where the text shows another major, the library asks for a CUDA that is gone (mxnet linked to CUDA 7.5 after CUDA
    8, an mmcv built for 10.1 beside torch cu121, a cuDNN for CUDA 10.2 asking libcublasLt.so.10 beside Paddle for
    11.8): the build for the CUDA there is the fix (tests/blind plans3/227, plans18/1869, plans21/2132 and 2143). Where
    it shows no CUDA at all, which package asks for that major is unknown (a CUDA 10 build of DGL, or an old torch,
    beside a newer stack; Lee-zix/RE-GCN#11, tests/blind/plans22/cases/2271-*): a copy found anywhere may be the wrong
    one's, and the reads (the framework's CUDA build, the copies there are) decide first."""
    from gpudoctor.checks.libraries import cuda_majors_known

    m = _CUDA_MAJOR_SONAME.match(soname)
    return m is None or int(m.group("major")) in cuda_majors_known(facts) | wheel_cuda_majors(facts)


def found_copy_dir(facts: Facts, missing: list[str], install: str, component: str) -> Remediation | None:
    """The look for a copy of the first library of `missing` and the export of its directory; `install` says what to
    install where the look finds none. None in a container (its copies are the image's, which the host's look does not
    see) and where no library is named."""
    from gpudoctor.planner import where as places
    from gpudoctor.planner.remedy import container_said, keep_path, kept

    inside = facts.platform.container or places.image(facts) or places.program_image(facts) or container_said(facts)
    if not missing or inside or not all(a_copy_may_fix(facts, m) for m in missing):
        return None
    first = sorted(missing)[0]
    prefix = environment_prefix(facts)
    where = f"in the program's environment ({prefix}) first, then on the machine" if prefix else "on the machine"
    return Remediation(
        f"Nothing shown says where {first} is. Look for a copy {where}: where there is one, put its directory "
        "first on LD_LIBRARY_PATH, exported, in the shell that starts the program, and run the program again (the "
        f"line sets nothing where no copy is found). Only where the look finds none is it absent: then {install}."
        + keep_path(facts),
        kept(facts, look_and_export(facts, first.split(".so", 1)[0], first)),
        component=component,
    )
