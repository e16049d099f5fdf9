"""cuDNN's own "Could not locate <sub-library>.dll. Please make sure it is in your library path!" on Windows.

cuDNN 8 and 9 split into a main DLL (cudnn64_8.dll, cudnn64_9.dll) that loads its sub-libraries by name on first use
(cudnn_ops_infer64_8.dll, cudnn_cnn_infer64_8.dll; cuDNN 9: cudnn_ops64_9.dll, cudnn_graph64_9.dll ...), and prints
this line where one will not come up: so the main DLL of that major was loaded, from cuDNN's folder or from a program's
package that carries it alone (CTranslate2's Windows wheels copy cudnn64_8.dll into the package and none of its
sub-libraries: OpenNMT/CTranslate2 python/tools/prepare_build_environment_windows.sh @c95fd4e4, v3.24.0). Which cuDNN
major and CUDA major that program needs is its release's (CTranslate2 3.x: CUDA 11 and cuDNN 8; 4.0 to 4.4: CUDA 12 and
cuDNN 8; 4.5 on: cuDNN 9; OpenNMT/CTranslate2 CHANGELOG.md, faster-whisper's README: compat_matrix/libraries.toml).

"Not on PATH" is one reading among several, and the threads show each (tests/blind/plans22 2231 to 2234, 2251;
plans17 1708): a cuDNN of another major beside the program (torch 2.4's cuDNN 9 in torch\\lib where CTranslate2 4.4
loads cuDNN 8: whisperX#899; SYSTRAN/faster-whisper#1236 the other way round), the sub-library found on PATH but built
for another CUDA major (cuDNN 8.2 for CUDA 11.4 under a CUDA 12 build: reriiasu/speech-to-text#12), NVIDIA's pip
wheel installed, whose DLLs sit in site-packages\\nvidia\\cudnn\\bin where Windows does not look (its lib\\x64 holds
import libraries only), or a PATH entry the process does not see. So the text's own facts decide the finding: another
major's files shown decide the pair to install; otherwise the reads that tell them apart come first, never a PATH
edit asserted before them.
"""

from __future__ import annotations

from gpudoctor.checks.base import Context, ev
from gpudoctor.cmdline import Cmd
from gpudoctor.facts import Facts
from gpudoctor.lazypattern import LazyPattern
from gpudoctor.model import Finding, Remediation, Severity

# cuDNN's line for a sub-library (a name after "cudnn_": never the main cudnn64_N.dll, which no cuDNN DLL looks for)
LOCATES = LazyPattern(
    r"Could not locate (?P<dll>cudnn_\w+64_(?P<major>\d{1,2})\.dll)\. Please make sure it is in your library path"
)
# What the sub-libraries of each major link besides cuDNN's own DLLs: cuBLAS of the CUDA major the cuDNN was built for
# (cuDNN 8 exists for CUDA 11 and 12; cuDNN 9's Windows builds the programs here load are CUDA 12's).
_CUBLAS = {8: ("cublas64_11.dll", "cublas64_12.dll"), 9: ("cublas64_12.dll", "cublasLt64_12.dll")}
# The Python distributions that load cuDNN on Windows (CTranslate2 under faster-whisper and whisperX; PyTorch, Paddle,
# TensorFlow up to 2.10, ONNX Runtime's CUDA provider): findstr matches each as a part of a name (paddlepaddle-gpu)
_LOADERS = ("ctranslate2", "whisper", "torch", "paddle", "tensorflow", "onnxruntime")
_RELEASES = "CTranslate2 3.x: CUDA 11 and cuDNN 8; 4.0 to 4.4: CUDA 12 and cuDNN 8; 4.5 on: CUDA 12 and cuDNN 9"


def _said(facts: Facts, kind: str) -> list:
    return facts.pasted.reported(kind) if facts.pasted.partial else []


def _ct2_at_work(facts: Facts) -> bool:
    """CTranslate2 (or faster-whisper, whisperX, whisper-ctranslate2, which install it) named by the text."""
    from gpudoctor.checks.libraries import _ct2

    said, version = _ct2(facts)
    if said or version:
        return True
    words = [e.get("args") or "" for e in _said(facts, "pip-install-said")]
    words += [e.get("library") or "" for e in _said(facts, "library-said")]
    return any("whisper" in w.lower() or "ctranslate2" in w.lower() for w in words)


def not_located(facts: Facts, ctx: Context, dll: str, line: str) -> Finding:
    from gpudoctor.checks.libraries import _build, _python
    from gpudoctor.planner.remedy import python_exe

    major = int(LOCATES.search(line).group("major")) if LOCATES.search(line) else 8
    exe = "python" if python_exe(facts) == "python3" else python_exe(facts)
    files = _said(facts, "cudnn-file-said")
    others = sorted({int(e.get("major")) for e in files if e.get("ext") == "dll" and int(e.get("major") or 0) != major})
    shown = next((e for e in files if (e.get("file") or "").lower() == dll.lower() and e.get("dir")), None)
    wheel = bool(_said(facts, "cudnn-wheel-said"))
    where = Cmd(
        ("where.exe", dll, f"cudnn64_{major}.dll", *_CUBLAS.get(major, ())),
        note=f"every copy PATH holds, in the order Windows loads them: {dll} missing, or a cudnn64_{major}.dll first in "
        "a folder without its sub-libraries, or the cuBLAS of its CUDA major missing",
    )
    listing = Cmd(
        (exe, "-m", "pip", "list"),
        # (findstr takes space-separated words as alternatives: the libraries that load cuDNN on Windows, whose
        # release names its major, and the frameworks the text shows at work)
        pipe=("findstr", "/i", " ".join(dict.fromkeys((*_LOADERS, *facts.pasted.frameworks, "nvidia-cudnn", "nvidia-cublas")))),
        note="the release of the program's library, which names the cuDNN and CUDA majors it loads, and the cuDNN "
        "and cuBLAS wheels of this interpreter",
    )
    reads = [where, listing]
    if wheel:
        reads.append(
            Cmd(
                (
                    exe,
                    "-c",
                    "import os, nvidia.cudnn as m; d = os.path.join(m.__path__[0], 'bin'); print(d); "
                    "print(*sorted(os.listdir(d)), sep=chr(10))",
                ),
                note="the cuDNN wheel's DLL folder and the major of the DLLs in it, which Windows searches only where "
                "PATH or os.add_dll_directory names it",
            )
        )
    evidence = (ev("pasted", line),)
    said = (
        f"cuDNN said 'Could not locate {dll}': cuDNN {major}'s main DLL (cudnn64_{major}.dll) was loaded, from "
        "cuDNN's folder or from a program's package that carries it alone (CTranslate2's Windows wheels do), and "
        "could not bring up this sub-library of its own."
    )
    if others and _ct2_at_work(facts):
        other = others[-1]
        build = _build(ctx, "ctranslate2", cuda=12, cudnn=other)
        pin = build.pin_for(_python(facts)) if build else None
        if pin:
            check = "import ctranslate2; print(ctranslate2.__version__, ctranslate2.get_cuda_device_count())"
            return Finding(
                "windows-dll-missing",
                Severity.ERROR,
                "cudnn",
                f"CTranslate2 loads cuDNN {major}, and the cuDNN beside it is {other}",
                f"{said} The text shows cuDNN {other}'s DLLs where the program looks (a framework's own folder, such as "
                f"torch\\lib, whose release brings that major), so no cuDNN {major} sub-library is there: the "
                f"CTranslate2 at work is a cuDNN {major} build ({_RELEASES}). One major for both is the fix. No "
                "PATH edit brings a DLL that is not installed, and the driver is not the cause.",
                evidence,
                Remediation(
                    f"Install ctranslate2=={pin}, its CUDA 12 build of cuDNN {other}, with the Python that runs the "
                    "program (pip check afterwards: a package that pins ctranslate2 below it says so); or keep it and "
                    f"bring a cuDNN {major} into that environment instead (a framework release that bundles cuDNN "
                    f"{major}, moved with its companions, or NVIDIA's cuDNN {major} with its bin folder on PATH).",
                    (
                        Cmd((exe, "-m", "pip", "show", "ctranslate2"), note="the release at work"),
                        Cmd((exe, "-m", "pip", "install", f"ctranslate2=={pin}")),
                        Cmd((exe, "-m", "pip", "check")),
                        Cmd((exe, "-c", check), note="the release installed, and at least 1 GPU its CUDA sees"),
                    ),
                    component="cudnn",
                ),
            )
    if shown is not None:
        title = f"{dll} is on the machine (in {shown.get('dir')}), and cuDNN {major}'s loader could not bring it up"
        why = (
            f"{said} The text shows the file itself in {shown.get('dir')}, so it is not simply missing: a copy found "
            "but not loadable is one of another build than the main DLL that asks for it (cuDNN's DLLs come as one "
            "release, for one CUDA major: a cuDNN for CUDA 11 under a program built for CUDA 12, such as "
            "CTranslate2 4.0 to 4.4, or the reverse), or one whose cuBLAS of that CUDA major is not on PATH."
        )
        route = (
            "Read the release of the program's library and which copies PATH holds; then install the cuDNN of the "
            "major and CUDA the release names (with CTranslate2 4.0 to 4.4: cuDNN 8.9 for CUDA 12 and CUDA 12's cuBLAS, "
            "NVIDIA's nvidia-cudnn-cu12==8.9.7.29 and nvidia-cublas-cu12 wheels with their bin folders on PATH; with "
            "3.x: cuDNN 8 for CUDA 11 and CUDA 11's cuBLAS), or the library's release built for the cuDNN and CUDA "
            "the machine has (ctranslate2==3.24.0 for CUDA 11), and keep the copies of the other build off PATH."
        )
    else:
        title = f"cuDNN {major} could not locate its {dll}: which copy, which major and which folder is not shown"
        why = (
            f"{said} That happens where no {dll} is installed, where the cuDNN installed is of another major than "
            f"the program's release loads ({_RELEASES}), where NVIDIA's pip wheel of cuDNN is installed (its DLLs sit "
            "in site-packages\\nvidia\\cudnn\\bin, which Windows searches only where PATH or os.add_dll_directory "
            "names it), or where the process does not see the PATH entry that holds it (an installer's per-CUDA "
            "subfolder, bin\\12.x, or a PATH changed after the terminal started). The text does not decide which."
        )
        route = (
            "Read which copies PATH holds, the release of the program's library and the cuDNN wheels of its Python "
            "first; then install the cuDNN of the major and CUDA that release names, or put the folder that holds "
            f"{dll} (the wheel's nvidia\\cudnn\\bin, or the installer's bin\\12.x) first on PATH in the shell that "
            "starts the program. Not before the reads: a PATH edit brings no DLL of another major."
        )
    return Finding(
        "windows-dll-missing",
        Severity.ERROR,
        "cudnn",
        title,
        why,
        evidence,
        Remediation(route, tuple(reads), component="cudnn"),
    )
