"""Where a paste was run and on what: the prompts, paths and pairings that set platform, setting and interpreter.

A prompt says where its command ran: `(container) $` / `(host) #` (a report that shows both sides), `PS C:\\...>`
and `C:\\...>` (Windows), `user@host:~$` (a POSIX shell; a twelve-hex-digit host name is a container's id). A
Windows path to python.exe names the interpreter a plan must use (`...\\python_embeded\\python.exe`, a portable
install's own Python). WSL shows itself by its driver pairing (the Linux `NVIDIA-SMI x` beside the Windows
`Driver Version: y`) and by /usr/lib/wsl/lib. A cluster job by its scheduler (srun, sbatch, SLURM_*; qsub, #PBS; bsub, #BSUB), a cluster by its words (HPC,
`module load`, a login node); a notebook by its name, `!pip` lines and /content. Each cue is
recorded with the line it came from (pasted.cues); none is inferred from anything else.
"""

from __future__ import annotations

import ntpath
import posixpath
import re
import shlex
from typing import TYPE_CHECKING, Any

from gpudoctor.facts import (
    ADMIN_SAID,
    APP_IMAGE,
    APP_NAMED,
    CLUSTER_SAID,
    COMPONENT_NAMED,
    COMPOSE_STARTED,
    CONDA_ENV_SAID,
    CONDA_FORGE_BUILD,
    CONTAINER_SAID,
    CUDA13_WINDOWS_TOOLKIT,
    DKMS_SAID,
    ENV_PROMPT,
    EXTENSION_NAMED,
    GPU_GRAPH_SAID,
    HOST_RAM_SAID,
    IMAGE_RUN,
    IMPORT_CRASHED,
    IMPORT_FAILED,
    JAX_BEFORE_ENV_INFO,
    JETSON_SAID,
    KERNEL_OUTSIDE_DISTRO,
    KILLED_SAID,
    MODULE_KEY_REFUSED,
    NO_GPU_SAID,
    NO_NVIDIA_GPU,
    NO_PYTHON,
    NO_SERVICE_MANAGER,
    NOTEBOOK_SAID,
    OLLAMA_CONTEXT_OVERLOAD,
    OTHER_GPU_BESIDE,
    PROGRAM_IMAGE,
    PROJECT_TOOL,
    SETUPTOOLS_NVCC,
    SMI_OTHER_RELEASE,
    STANDALONE_APP,
    STARTED_BY_HAND,
    SUSPEND_SAID,
    TF_BEFORE_CONFIG,
)
from gpudoctor.lazypattern import LazyPattern
from gpudoctor.parsers.anchors import Lines
from gpudoctor.parsers.error_texts import classify_error_text
from gpudoctor.parsers.failure_lines import GPU_GRAPH, TASK_MANAGER_WORDS
from gpudoctor.parsers.ollama_ps import context_overload
from gpudoctor.pasted.platform_form import read_form_platform

if TYPE_CHECKING:
    from gpudoctor.pasted.gathered import Gathered

MAX_LINES = 200_000
MAX_LINE = 2_000

_SIDE = re.compile(r"^\s*\((?P<side>container|host)\)\s*[$#]\s*(?P<cmd>.*)$", re.IGNORECASE)
# PowerShell's prompt, with an activated environment's name before it as venv's Activate.ps1 writes it ("(venv) PS
# C:\\app>"): the folder it stands in is `cwd`.
_PS = re.compile(r"^\s*(?:\((?P<env>[\w.-]{1,60})\)\s*)?PS (?P<cwd>[A-Za-z]:\\[^>\n]{0,300})>\s*(?P<cmd>.*)$")
_CMD_EXE = re.compile(r"^\s*(?:\((?P<env>[\w.-]{1,60})\)\s*)?(?P<cwd>[A-Za-z]:\\[^<>|\n\"]{0,300})>\s*(?P<cmd>\S.*)$")
# An environment's activation script run by a relative or absolute Windows path ("venv\\Scripts\\activate",
# ".\\.venv\\Scripts\\Activate.ps1", "C:\\app\\env\\Scripts\\activate.bat"): venv puts python.exe beside it in Scripts
# (CPython Lib/venv/__init__.py, `binname = 'Scripts'` on Windows), and that python runs what the shell runs next.
_ACTIVATE = re.compile(
    r"^\s*(?:&\s*)?(?P<env>(?:[A-Za-z]:\\|\.\\)?(?:[^\\\s\"'<>|*?:]{1,120}\\){0,10}[^\\\s\"'<>|*?:]{1,120})"
    r"\\Scripts\\activate(?:\.bat|\.ps1)?(?![\w.])",
    re.IGNORECASE,
)
# An environment activated at a POSIX prompt by a path relative to the prompt's folder (`. bin/activate` in
# `~/.venvs/x$`, `source venv/bin/activate`): venv's activate script sits in <prefix>/bin beside that python (CPython
# Lib/venv/__init__.py, `binname = 'bin'` off Windows), and the prompt gives the folder the path is relative to.
_POSIX_ACTIVATE = re.compile(r"^(?:source|\.)\s+(?:\./)?(?P<env>(?:[^\s;&|'\"$/~][^\s;&|'\"$]{0,300}?/)?)bin/activate\s*$")
# Launchers that activate the venv in the folder they are run from before they start their program, by the application
# they belong to (named anywhere in the text) and the launcher as typed at a prompt: kohya_ss's gui.sh (`source
# "$SCRIPT_DIR/venv/bin/activate"`, after `cd "$SCRIPT_DIR"`; bmaltais/kohya_ss gui.sh @01a6f464), gui.bat (`call
# .\venv\Scripts\activate.bat`, @1de512ca) and gui.ps1 (`& .\venv\Scripts\activate`, @13d82d35). A shell's own
# python is another interpreter: the program's packages are the venv's.
_VENV_LAUNCHERS = (
    (
        re.compile(r"\bkohya", re.IGNORECASE),
        re.compile(r"^(?:(?:ba)?sh\s+)?(?:\./)?gui\.sh(?:\s|$)"),
        re.compile(r"^(?:&\s*)?(?:\.\\)?gui\.(?:bat|ps1)(?:\s|$)", re.IGNORECASE),
    ),
)
_POSIX = re.compile(
    r"^\s*(?:\((?P<env>[\w.-]{1,60})\)\s*)?(?:(?P<user>[\w.-]{1,40})@(?P<host>[\w.-]{1,64}):)?(?P<cwd>~?[\w/.~-]{0,200})\s?[$#]\s+(?P<cmd>\S.*)$"
)
# A command run inside a container from the host's shell: `docker exec NAME CMD`, `podman exec`, `kubectl exec POD --
# CMD`. What it prints up to the next prompt is the container's state, as under a `(container) $` prompt.
_EXEC_INTO = re.compile(r"^(?:sudo\s+)?(?:(?:docker|podman)\s+exec|kubectl\s+(?:-n\s+\S+\s+)?exec)\s+\S")
_WIN_PYTHON = re.compile(r"(?P<path>[A-Za-z]:\\(?:[^\\\n\"'<>|*?]{1,120}\\){0,20}python(?:w)?\.exe)\b", re.IGNORECASE)
_REL_PYTHON = re.compile(r"^\s*(?P<path>(?:\.\\)?(?:[^\\\s\"'<>|*?:]{1,120}\\){1,10}python\.exe)\b", re.IGNORECASE)
# A python.exe named by a relative Windows path anywhere in a line ("python_embeded\\python.exe -m pip install",
# "venv\\Scripts\\python.exe"): a portable install's or a venv's own interpreter, as the reporter ran it.
_REL_PYTHON_ANY = re.compile(r"(?<![\\\w:/.-])(?P<path>(?:\.\\)?(?:[\w.-]{1,120}\\){1,10}python\.exe)\b", re.IGNORECASE)
# A Windows path with a drive letter ("C:\\Users\\...", "k:\\ComfyUI\\...") or a file only Windows runs or loads
# (cublas64_12.dll, _C.pyd, webui-user.bat, python.exe, a cmd.exe script such as start.cmd named as a file: not an
# attribute in code such as `args.cmd)` or `cfg.cmd.split`): Windows, unless Linux is named too (WSL reads both).
# (CMake and Python's pathlib write Windows' own folders with forward slashes: "C:/Program Files/NVIDIA GPU Computing
# Toolkit/CUDA/v11.8/include" in FindCUDAToolkit's line, a CMake error's "C:/Program Files/CMake/share/...")
_WIN_PATH = re.compile(r"(?<![\w/])[A-Za-z]:\\[\w$.-]|(?<![\w/])[A-Za-z]:/(?:Program Files|Users|Windows)/")
# A wheel for Windows that pip fetched ("Downloading torch-1.7.1-cp38-cp38-win_amd64.whl"): pip picks the running
# platform's.
_WIN_FILE = re.compile(
    r"\b[\w.-]{1,120}\.(?:dll|pyd|bat|exe)\b|-win_amd64\.whl\b|(?<![\w.])[\w-]{1,120}\.cmd(?=[\s`'\"]|$)", re.IGNORECASE
)
# A Python source file named with Windows' separator and its line ("ComfyUI\\comfy\\ldm\\modules\\attention.py:407:
# UserWarning", a traceback frame cut to "...\\text-generation-webui\\modules\\models.py\", line 88"): Python writes a
# source file by its own path, with os.sep, in a warning's location (python/cpython Lib/warnings.py @03891e44,
# _formatwarnmsg_impl: f"{msg.filename}:{msg.lineno}: {category}: {msg.message}") and a traceback's frame
# ('File "{}", line {}'), so the program ran on Windows. A file named alone
# or with forward slashes says nothing; a doubled backslash is an escaped string's, not a path's.
_WIN_SOURCE = LazyPattern(r"(?<![\\\w:/.-])(?:[\w.-]{1,120}\\){1,20}[\w.-]{1,120}\.py(?:\", line \d|:\d{1,6}:)")
# A program in a compiled language ("C#", "C++", ".NET", a .cs/.cpp source, a CUDA .cu source such as the samples'
# bandwidthTest.cu) and any sign of Python.
# (and C++ source the report quotes: the standard library's namespace, "std::vector<const char *> keys", and C++11's
# null pointer, "OrtCUDAProviderOptionsV2 *cuda_options = nullptr;", plans17/1707; "catch (const std::exception& e)",
# microsoft/onnxruntime#22491: the program is a compiled one, read only where nothing of Python is in the text)
# (and glog's failed CHECK on a CUDA call, "Check failed: error == cudaSuccess (48 vs. 0)", glog's CHECK_EQ printing
# the expression and both values: Caffe's CUDA_CHECK, `cudaError_t error = condition; CHECK_EQ(error, cudaSuccess)`,
# BVLC/caffe include/caffe/util/device_alternate.hpp @1beb9ac4, which OpenPose and the other Caffe forks keep: a C++
# program's own CUDA call, tests/blind/plans20/cases/2062-* and plans18/1840-*, 1841-*)
# What the NO_PYTHON cue means where the program's own compiled source shows (not a prebuilt application's name, nor a
# frozen executable): the program was built from source, by the reporter or the project (pasted.ask's build asks).
COMPILED_SOURCE = "no Python to ask about (the program is a compiled one)"
_COMPILED_SAID = re.compile(
    r"(?<!\w)(?:C#|C\+\+|\.NET\b|[\w-]{1,80}\.(?:cs|cpp|cc|cxx|cu)\b)|\bstd::[a-z_]\w{0,40}\b|\bnullptr\b"
    r"|\bCheck failed: error == cudaSuccess \(\d{1,4} vs\. 0\)",
    re.IGNORECASE,
)
_PYTHON_SAID = re.compile(
    r"python|\.py\b|\bpip\d?\b|\b(?:ana|mini)?conda\b|Traceback|site-packages|\bimport\s+\w|torch|tensorflow|\bjax"
    # XLA's log lines as JAX's and TensorFlow's wheels print them (their sources under external/xla, external/local_xla)
    r"|\bexternal/(?:local_)?xla/|XlaRuntimeError"
    # setuptools' lookup of the C++ compiler a Python package's build needs (catalogue.toml's setuptools-msvc-14-required):
    # its "Visual C++" is a Python build's, not a compiled program's
    r"|Microsoft Visual C\+\+ 14\.0 (?:or greater )?is required",
    re.IGNORECASE,
)
# A Python traceback's frame in a file on a drive letter ('File "C:\\Users\\...\\x.py", line 3'): Python ran on Windows.
_WIN_FRAME = re.compile(r'^\s*File "[A-Za-z]:\\[^"\n]{1,400}", line \d+')
_SMI_PAIR = re.compile(r"NVIDIA-SMI\s+(?P<smi>\d+\.\d+(?:\.\d+)?)\s+Driver Version:\s*(?P<driver>\d+\.\d+(?:\.\d+)?)")
# NVIDIA's Windows drivers are numbered <branch>.<two digits> (551.61, 572.16), a branch after the Linux release of
# the same driver that WSL's nvidia-smi names (550.54.10 beside 551.61, 470.57.02 beside the 510.06 preview). A
# Linux driver beside an nvidia-smi of another release (440.59 beside 550.100, 390.48 beside 390.59) is no WSL.
_WINDOWS_DRIVER = re.compile(r"\d{3}\.\d{2}")


def windows_driver_beside(smi: str, driver: str) -> bool:
    """Whether an nvidia-smi header's `Driver Version` is a Windows driver seen from WSL beside its Linux nvidia-smi.

    A Windows driver is numbered <branch>.<two digits> (560.94), and WSL's Linux nvidia-smi, of a release with WSL
    support, has three numbers (560.35.02, beside 560.94 of the same branch, or 545.29.04 beside 546.17). Linux
    drivers of old branches had two numbers too (390.48, 390.59): two such of one branch are a Linux pair."""
    if not _WINDOWS_DRIVER.fullmatch(driver):
        return False
    return smi.count(".") == 2 or int(driver.split(".")[0]) > int(smi.split(".")[0])


# A Windows CUDA toolkit folder of release 13 or later ("C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v13.0", with
# Python's doubled backslashes or CMake's forward slashes too): CUDA 13 moved the toolkit's DLLs into bin\\x64.
_CUDA13_WINDOWS = re.compile(
    r"(?P<root>[A-Za-z]:[\\/]{1,2}Program Files[\\/]{1,2}NVIDIA GPU Computing Toolkit[\\/]{1,2}CUDA[\\/]{1,2}v1[3-9]\.\d{1,2})"
    r"(?![\w.])"
)
_PATHLIB_WINDOWS = re.compile(r"\bWindowsPath\('[^'\n]{0,200}'\)")
# nvcc looking for its Windows host compiler (catalogue.toml's nvcc-cannot-find-cl): only nvcc on Windows wants cl.exe,
# whatever Linux-looking words its command line holds ("-arch sm_61" reads as Arch Linux).
_NVCC_CL = re.compile(r"nvcc fatal\s*:\s*Cannot find compiler 'cl\.exe' in PATH")
_WSL_LIB = re.compile(r"/usr/lib/wsl/lib\b")
# ollama's debug log of where it will look for the driver's libraries: the patterns it searches on every Linux host,
# WSL's among them ("gpu library search" globs="[... /usr/lib/wsl/lib/libcuda.so* /usr/lib/wsl/drivers/*/libcuda.so*
# ...]"; before 0.1.33 "gpu management search paths: [...]"), ollama/ollama gpu/gpu_linux.go @e77ea68e (the libcuda
# and libcudart globs) and gpu.go's slog.Debug("gpu library search", "globs", ...). A pattern searched is no WSL said;
# what it found ("discovered GPU libraries" paths=[...]) is (a /usr/lib/wsl/drivers/... path there is WSL's driver).
# (No pattern spans the line: a paste can be one 16 MiB line, where a leading [^\n]* from every position would be
# quadratic; the lines that hold the message are dropped whole, by without_ollama_search.)
OLLAMA_SEARCH_PATTERNS = re.compile(r'msg="?gpu (?:library search"? globs=|management search paths:)')


def without_ollama_search(text: str) -> str:
    """The text less the lines of ollama's search patterns (OLLAMA_SEARCH_PATTERNS)."""
    return "\n".join(ln for ln in text.split("\n") if not OLLAMA_SEARCH_PATTERNS.search(ln))


_SLURM = re.compile(
    r"^\s*(?:\S+\s*[$#]\s*|[$#]\s*)?(?:srun|sbatch|salloc)\s|#SBATCH\b|\bSLURM_(?:JOB_ID|JOBID|STEP_GPUS|JOB_GPUS)\b"
)
# The other schedulers (PBS/Torque, LSF) by their submit commands, script directives and job variables; a cluster said
# in words ("on our HPC", "HPC3", "login node", Environment Modules' `module load`), its scheduler not shown.
_SLURM_SAID = re.compile(r"\bslurm\b", re.IGNORECASE)  # "submitted via slurm", slurm-1234.out
_PBS = re.compile(r"^\s*(?:\S+\s*[$#]\s*|[$#]\s*)?qsub\s|#PBS\b|\bPBS_(?:JOBID|NODEFILE)\b")
_LSF = re.compile(r"^\s*(?:\S+\s*[$#]\s*|[$#]\s*)?bsub\s|#BSUB\b|\bLSB_(?:JOBID|HOSTS)\b")
_CLUSTER_SAID = re.compile(
    r"\bHPC\d*\b|\b(?:HPC|computing|university|institute|research)\s+cluster\b"
    r"|\b(?:login|compute|head)\s+nodes?\b|^\s*(?:\S+\s*[$#]\s*)?(?:ml|module)\s+(?:load|avail|list|spider)\b",
    re.IGNORECASE,
)
# The reporter speaking as the cluster's administrator: the scheduler's or the runtime's configuration called "our",
# or said in so many words.
_ADMIN_SAID = re.compile(
    r"\bour\s+(?:slurm|cgroup|gres|slurmdbd)\.conf\b|\bI(?:'m|\s+am)\s+(?:the|an?)\s+(?:cluster\s+|system\s+|sys)?admin(?:istrator)?\b",
    re.IGNORECASE,
)
# A notebook (Colab, Jupyter, Kaggle's): the text names it, runs shell lines with `!` (or pip with `%pip`, also as an
# item of a numbered or bulleted list), or shows Colab's or Kaggle's own paths (/content; /kaggle/working and
# /kaggle/input, where Kaggle mounts a notebook's output and data: Kaggle/docker-python's Dockerfile and its issues).
# Kaggle as where it ran ("on Kaggle", "in Kaggle", "Kaggle notebook"), not as a link, a project or a dataset's home
# ("a kaggle project", "On a Kaggle GPU the same code runs": a machine compared with, not the one that failed).
_LIST_ITEM = r"(?:(?:\d{1,2}[.)]|[-*+>])[^\S\n]+)?"
_KAGGLE_SAID = (
    r"\b(?:on|in)\s{1,4}Kaggle\b(?![.\w]|\s{1,4}(?:datasets?|competitions?|api)\b)|\bKaggle(?:'s)?\s{1,4}(?:notebook|kernel)s?\b"
)
_NOTEBOOK = re.compile(
    r"\b(?:google\s+)?colab(?:oratory)?\b|\bjupyter\b|\bipykernel\b"
    r"|^\s*" + _LIST_ITEM + r"(?:!\s*(?:pip|python|nvidia-smi|apt|sudo)\b|%\s*pip3?\s+(?:install|uninstall)\b)"
    r"|(?<![\w.])/content/|(?<![\w.])/kaggle/(?:working|input)\b|" + _KAGGLE_SAID,
    re.IGNORECASE,
)
# A GPU of another vendor named as the machine's graphics ("Intel(R) Iris(R) Xe Graphics", "Mesa Intel(R) Xe Graphics
# (TGL GT2)", "an integrated Intel GPU (iris xe graphics)", "AMD Radeon RX 6600"); with no NVIDIA product, driver table
# or path anywhere in the text, it is the machine's only GPU (a laptop's NVIDIA GPU beside it is named too).
_OTHER_GPU = re.compile(
    r"\bIntel\s*(?:\(R\)|\u00ae)?\s*(?:(?:Iris\s*(?:\(R\)|\u00ae)?\s*(?:Xe|Plus|Pro)?|U?HD|Xe|Arc)\s*(?:\(TM\)|\u2122)?\s*Graphics"
    r"|Arc\s+A\d{3}M?\b|GPU\s*\(\s*(?:iris|u?hd|xe)\b)"
    r"|\bAMD\s+Radeon\b|\bRadeon\s*(?:\(TM\)|\u2122)?\s+(?:RX|Pro|Graphics|Vega)\b"
    # AMD's Radeon RX cards by model alone ("RX 6800", "RX 7900 XTX", "RX 580"); NVIDIA's are RTX/GTX, never RX.
    r"|(?<![\w-])RX\s?(?:[5-9]\d{3}|[45][6-9]0)(?:\s?XTX?|\s?GRE|M|S)?\b",
    re.IGNORECASE,
)
# The data-center cards by their short names (A100, H20, L4, P40, T4, K80); the Volta one is only ever V100: a bare
# "V1" is a board's revision in a vendor's product name ("MSI AMD Radeon RX 6750 XT MECH 2X 12GB GDDR6 V1", in
# tests/blind/plans16/cases/1643-*; "RX 580 ARMOR 8G OC V1"), which names no NVIDIA GPU.
_NVIDIA_NAMED = re.compile(
    r"nvidia|geforce|quadro|tesla|titan|jetson|\b(?:RTX|GTX|MX)\s*\d|\b(?:[AHLPTK]\d{1,3}|V100S?)\b"
    r"|(?-i:Driver Version:|CUDA Version:)",
    re.IGNORECASE,
)
# An NVIDIA GPU named by its product line (the word NVIDIA alone, "I have not NVIDIA pc", names none).
_NVIDIA_MODEL = re.compile(r"\b(?:geforce|quadro|tesla|titan|jetson)\b|\b(?:RTX|GTX|MX)\s*\d", re.IGNORECASE)
# xformers and flash-attn by name, as words (not a path component or flash_attn_2_cuda, an object the error texts read).
# A setting of that name given a value is no package: llama.cpp's context log prints "flash_attn = 0" (later "= auto",
# "= enabled"; ggml-org/llama.cpp src/llama-context.cpp @4c7103b9: LLAMA_LOG_INFO("%s: flash_attn    = %s\n", ...)),
# its own attention kernels, whatever Python packages are installed ("flash_attn==2.5.8" stays a pin).
_EXTENSION = re.compile(
    r"(?<![\w/\\.-])(?P<name>xformers|flash[-_]attn)(?![\w/\\-])"
    r"(?!\s*=\s*(?:\d|auto|enabled|disabled|true|false|on|off)\b)",
    re.IGNORECASE,
)
_WINDOWS_SAID = re.compile(r"\bWindows\s*(?:10|11|Server\s*20\d\d)\b", re.IGNORECASE)
# What a Python or a package manager on Windows prints of its own platform, read where the text names no Linux: a
# wheel file name with its Windows platform tag ("torch-2.6.0+cu126-cp312-cp312-win_amd64", with or without .whl: pip
# takes the running platform's), a conda package of a Windows subdirectory ("pytorch/win-64::pytorch-1.10.0-...", the
# solver's plan for the running platform) and Python's own banner for an MSVC build ("[MSC v.1915 64 bit (AMD64)]").
_WINDOWS_TAG = re.compile(
    r"\b[A-Za-z][\w.]{0,80}-\d[\w.+!]{0,40}-(?:cp|py|pp)\d{1,3}\w{0,3}-\w{1,12}-win(?:_amd64|_arm64|32)\b"
    r"|(?<![\w-])win-(?:64|32|arm64)(?:::|/)[\w.-]"
    r"|\[MSC v\.\d{3,4} (?:64|32) bit"
    # pip's hint after an OSError, printed only where it runs on Windows (src/pip/_internal/commands/install.py
    # @5ab7c124db917625e55693773bcc224793d7ceed: `if WINDOWS and error.errno == errno.ENOENT ...`)
    r"|\bdoes not have Windows Long Path support enabled\b"
    # onnxruntime's refusal when its CUDA provider did not load and CUDA_PATH is set (onnxruntime_pybind_state.cc
    # @06c980b3ea02ef3f7e8ae5b03c7271986210c25c: "CUDA_PATH is set but CUDA wasn't able to be loaded ... make sure
    # they're in the PATH"): CUDA_PATH is the variable NVIDIA's Windows installer sets (its Linux guide sets PATH and
    # LD_LIBRARY_PATH only), so where no Linux is named the program ran on Windows (plans17/1749, onnxruntime#21527)
    r"|\bCUDA_PATH is set but CUDA wasn'?t able to be loaded\b"
    # a release archive built for Windows that the reporter downloaded or ran ("sherpa-onnx-v1.10.1-win-x64-cuda.tar.bz2",
    # "llama-b6123-bin-win-cuda-12.4-x64.zip"): projects name their Windows builds so, beside -linux- and -macos- ones
    r"|(?<![A-Za-z0-9])[\w.+-]{0,100}[-_]win(?:64|32)?(?:[-_][\w.+]{1,40}){0,4}\.(?:zip|7z|tar\.(?:bz2|gz|xz)|exe|msi)\b"
)
# Weaker words, read only where the text names no Linux ("works on Windows, fails on my Ubuntu server"): "win10",
# "Win 11", a sentence that starts "On Windows" / "I'm using Windows"; macOS by name. Chinese, Japanese and Korean
# prose writes the Latin word inside its own script, without the spaces English puts round it ("我是在本地windows运行",
# "我选择的版本是windows，"), where \b finds no word edge: the word touching a CJK character or its punctuation.
_CJK = "\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uff00-\uffef"
_WINDOWS_PROSE = re.compile(
    r"\bWin\s?1[01]\b|(?:^|[.!?;]\s+|\bI(?:'m| am)\s+|\bwe(?:'re| are)\s+)(?:on|using|running)\s+Windows\b"
    # the same sentence with "running on" ("I am running on Windows, with CUDA toolkit 13 installed": pytorch#167042,
    # plans21/2123; "I'm running on Windows 11 with a RTX 3070": plans4/337), said of the reporter's own machine
    r"|\bI(?:'m| am)\s+running\s+on\s+Windows\b|\bwe(?:'re| are)\s+running\s+on\s+Windows\b"
    # the machine itself called a Windows one ("on one of our virtualized Windows machine", "on a windows machine")
    r"|\bWindows\s+(?:machine|PC|laptop|computer|desktop|workstation|VM|virtual\s+machine)s?\b"
    # a program set up with its Windows installer ("My ollama is use windows installer setup"): it runs on Windows
    r"|\bWindows\s+installer\b"
    # Windows 10's and 11's release names ("a 64-bit Windows version `1703`", "Windows 10 21H2"): Microsoft numbers its
    # feature updates by year and month, then half-year (winver's "Version 1703", "Version 22H2"); no Linux is named so
    r"|\bWindows(?:\s+1[01])?\s+(?:version\s+|build\s+)?`?(?:1[5-9]0[1-9]|20[01][1-9]|2\dH[12])\b"
    rf"|(?<=[{_CJK}])\s?Windows(?![A-Za-z0-9_-])|(?<![A-Za-z0-9_.-])Windows(?=\s?[{_CJK}])",
    re.IGNORECASE | re.MULTILINE,
)
# What only a Windows user types or installs, read where the text names no Linux: cmd.exe's `set NAME=value` on a line
# of its own (a POSIX shell's `set` takes options, not an assignment; export does that), and Visual Studio (the
# compiler a Windows CUDA build needs; not Visual Studio Code, which runs everywhere). Not a sentence that starts with
# "Set": a value followed by "and ..." or "for ..." is prose, as torch's dynamo prints on every platform ('Set
# TORCH_LOGS="+dynamo" and TORCHDYNAMO_VERBOSE=1 for more information'; 'Set TORCHDYNAMO_VERBOSE=1 for the internal
# stack trace', in tests/blind/plans2/cases/158-unsloth2816-kaggle-p100-triton-too-old, a Kaggle (Linux) notebook).
_WINDOWS_TOOLS = re.compile(
    r"^[ \t]*set\s+\"?[A-Za-z_]\w{0,60}=(?!=)(?!\S*[ \t]+(?:and|for)[ \t])|\bVisual Studio(?!\s+Code\b)(?:\s+(?:Community|Professional|Build Tools|20\d\d))"
    # PowerShell's assignment to an environment variable ($env:CMAKE_ARGS = "..."), the shell Windows opens by default
    r"|\$env:[A-Za-z_]\w{0,60}\s*="
    # TechPowerUp's GPU-Z, where a reporter reads the card's memory and load ("i am using gpu z to monitor vram"): a
    # Windows program (TechPowerUp's GPU-Z page lists Windows XP to 11 as its systems; it has no Linux or macOS build)
    r"|\bgpu[- ]?z\b"
    # Anaconda Prompt, the Start menu's shell of an Anaconda install on Windows (Anaconda's "Getting started with
    # conda": on macOS and Linux conda runs in the ordinary terminal)
    r"|\banaconda\s+prompt\b"
    # cmd.exe's answer to a command it cannot find, the shell's own text (Windows' command interpreter; a POSIX shell
    # says "command not found", PowerShell "is not recognized as the name of a cmdlet"): typed in cmd, so on Windows
    r"|'[^'\n]{1,100}' is not recognized as an internal or external command"
    # Windows' own python.exe alias (WindowsApps) and setuptools' Windows-only compiler lookup (catalogue.toml's
    # windows-store-python-alias and setuptools-msvc-14-required): printed on Windows only
    r"|Python was not found; run without arguments to install from the Microsoft Store"
    r"|Microsoft Visual C\+\+ 14\.0 (?:or greater )?is required"
    # Python's own ImportError for an extension module whose DLL (or a DLL it needs) Windows' loader refused: CPython's
    # Python/dynload_win.c is its only source ("DLL load failed: %s", from 3.8 "DLL load failed while importing %s: %s");
    # Linux's loader says "cannot open shared object file". And cmd.exe named as the shell ("from cmd prompt").
    r"|\bDLL load failed\b|\bcmd(?:\.exe)?\s+prompt\b"
    # Windows' own Task Manager, where a reporter reads the GPU's load ("in the task manager, the increased load on the
    # CPU"); Linux desktops call theirs System Monitor. Its words, typos included, are failure_lines' one pattern.
    "|" + TASK_MANAGER_WORDS,
    re.IGNORECASE | re.MULTILINE,
)
# cmd.exe's own answer to a command it cannot find, in the languages the threads show it (English, Chinese, French:
# tests/pasted/catalogue_examples/*-cmd-*), and what only cmd.exe does to a line: pass single quotes on to the program
# (pip's repr of the requirement it got, "'torch==2.1'" in double quotes; not a requirements file's line). The shell
# that ran the reporter's line is cmd.exe, so the plan is written for it (gpudoctor.planner.where.shell) where no
# PowerShell prompt says otherwise. (PowerShell words the first "is not recognized as the name of a cmdlet".)
CMD_OWN_ERROR = "cmd.exe's own error"
_CMD_REFUSED = re.compile(
    r"'[^'\n]{1,100}' (?:is not recognized as an internal or external command|不是内部或外部命令"
    r"|n.est pas reconnu en tant que commande interne)"
    r"|Invalid requirement: \"'[^'\"\n]{1,200}'\"(?!\s{0,4}\(from )"
)
# PowerShell's own error record (its category line, the same in every language) or sentences only PowerShell prints:
# the shell that ran the reporter's line is PowerShell, whatever its prompt looked like (a custom prompt without "PS").
PS_OWN_ERROR = "PowerShell's own error"
_PS_REFUSED = re.compile(
    r"^\s*\+ CategoryInfo\s*:|cannot be loaded because running scripts is disabled on this system"
    r"|is not recognized as (?:the|a) name of a cmdlet|项识别为 cmdlet",
    re.MULTILINE,
)
# The program is Windows' own although WSL is named beside it ("Windows 11 + WSL2 ... downloaded the version for
# Windows", "the native Windows app, not WSL"): it runs on Windows, where WSL's Linux commands do not exist.
_NATIVE_WINDOWS = re.compile(
    r"\b(?:version|build|installer|release|app)\s+for\s+Windows\b|\bWindows\s+(?:version|build|installer|app)\s+of\b"
    r"|\bnative(?:ly)?\s+(?:on\s+|in\s+)?Windows\b|\b(?:not|without)\s+(?:in\s+|through\s+|using\s+|via\s+)?WSL\b",
    re.IGNORECASE,
)
# PyInstaller's bootloader when the frozen program's script raised: "[8080] Failed to execute script '__main__' due to
# unhandled exception!" (pyinstaller/pyinstaller, bootloader/src/pyi_launch.c: FATALERROR("Failed to execute script
# '%s' due to unhandled exception!\n", ...)). The program carries its own Python: pip in a shell reaches none of it.
_FROZEN = re.compile(r"Failed to execute script '[^'\n]{1,200}' due to unhandled exception")
# A Mac named as the machine ("on my Mac laptop (CPU)", "train on my mac", "MacBook Pro 2021 with M1 Pro Chip"), not a
# MAC address.
MACOS_SAID = re.compile(
    r"\bmacOS\b|\bMac OS(?: X)?\b|\bMacBook\b|\b(?:my|a|the|this|our)\s+Mac\b(?!\s*(?:address|addr)\b)"
    # the system's name from 10.8 to 10.11 ("OS X Yosemite 10.10.5": torch/cutorch#318, plans22/2261; "the
    # instructions for OSX": pytorch/pytorch#1096), Apple's own spelling before macOS 10.12
    r"|\bOS ?X\b(?![-_.]?\d)"
    # a Mac by its processor ("most intel MAC uses AMD GPU", "on an M1 Mac", "Apple Silicon Macs")
    r"|\b(?:Intel|M[1-4](?:\s+(?:Pro|Max|Ultra))?|Apple\s+Silicon)\s+Macs?\b(?!\s*(?:address|addr)\b)"
    # inside Chinese, Japanese or Korean prose, as Windows is read there ("平台：intel芯片的macos")
    rf"|(?<=[{_CJK}])\s?mac\s?OS(?![A-Za-z0-9_-])",
    re.IGNORECASE,
)
# Arch Linux is named "Arch" with its capital; the compilers' "-arch sm_61" / "arch=compute_86" options are not it.
_LINUX_SAID = re.compile(
    r"\b(?:Linux|Ubuntu|Debian|CentOS|Fedora|RHEL|Rocky|SUSE|WSL2?|Colab|Kaggle|docker|Manjaro)\b"
    r"|(?<![-=\w])(?-i:Arch)\b(?![-=])|(?<![\w.])/(?:usr|home|opt)/",
    re.IGNORECASE,
)
# Linux by name, not only by a path: a Windows program's own search list or defaults print POSIX folders too (a cargo
# build script's `cargo:info=["/usr", "/usr/local/cuda", "/opt/cuda", ..., "C:/Program Files/NVIDIA GPU Computing
# Toolkit"]`, bitsandbytes' `WindowsPath('/usr/local/cuda/lib64')`). Where only such paths stand for Linux, a
# drive-letter path with Windows' own backslash (`F:\Projects\...`) still says where the program ran.
_LINUX_NAMED = re.compile(
    r"\b(?:Linux|Ubuntu|Debian|CentOS|Fedora|RHEL|Rocky|SUSE|WSL2?|Colab|Kaggle|docker|Manjaro)\b"
    r"|(?<![-=\w])(?-i:Arch)\b(?![-=])",
    re.IGNORECASE,
)
_WIN_DRIVE = re.compile(r"(?<![\w/])[A-Za-z]:\\[\w$.-]")
# A container named as where commands ran: "in the container", "inside a docker", "connecting the existing
# containers", "inside all the running containers" (NVIDIA/nvidia-docker#1671), "docker exec", a Kubernetes or containerd cgroup path (cri-containerd-<id>, kubepods). A container that
# is only built, pulled or listed is not where anything ran, so the verbs that put a command inside one are required.
_CONTAINER_SAID = re.compile(
    r"\b(?:in|inside|into|within|connecting(?:\s+to)?|exec(?:ed)?\s+into)\s+"
    r"(?:(?:the|a|an|all|my|our|this|that|these|those|existing|old|running|same|its|each|every|own|one|two|both|separate)\s+){0,3}"
    r"(?:nvidia-)?(?:docker\s+)?(?:containers?|docker|pods?)\b(?!\s*(?:image|file|hub|registry|desktop)s?\b)"
    r"|\b(?:docker|kubectl)\s+exec\b|\bcri-containerd-[0-9a-f]{12}|\bkubepods\b"
    # "When I enter the container cli and input nvidia-smi" (plans21/2111): what is typed after entering a container
    # runs in it, as "进入docker内部" says in Chinese (xinnan-tech/xiaozhi-esp32-server#1166, tests/pasted)
    r"|\benter(?:ed|ing)?\s+(?:into\s+)?(?:the|a|my|this|that|our)\s+(?:docker\s+|running\s+)?containers?\b"
    r"(?!\s*(?:toolkit|runtime|image|file|registry|hub|engine|name|id)s?\b)"
    # "run the model via docker image": what runs through docker runs in its container
    r"|\bvia\s+(?:a\s+|the\s+)?(?:docker|podman)\b"
    # "I deployed ollama with docker", "running the server using docker": a program deployed or run with docker runs in
    # its container (Docker Desktop, an image, a file or the hub named after it is something else); podman's the same
    # way ("When I run with podman on ubuntu it cannot find my gpus", ollama/ollama#10014)
    r"|\b(?:deploy(?:ed|ing)?|run(?:ning)?|ran|start(?:ed|ing)?|launch(?:ed|ing)?)\s+(?:[\w.-]+\s+){0,3}?"
    r"(?:with|using|through)\s+(?:a\s+|the\s+)?(?:docker|podman)\b"
    r"(?!\s*(?:desktop|images?|hub|files?|registry|compose)\b)"
    # "I am using UBI9 nvidia CUDA 12.6 x86 container", "we run an l4t-pytorch container": a container the reporter says
    # they use or run is where the program runs (a container's toolkit, runtime, image or file is something else; an
    # error's advice, "or use an earlier cuda container", names no one's)
    r"|\b(?:I|I'm|we|we're)\s+(?:am\s+|are\s+)?(?:\w+\s+)?(?:using|use|run(?:ning)?)\s+(?:(?:a|an|the|my|our|this)\s+)?(?:[\w.:-]+\s+){0,5}?containers?\b"
    r"(?!\s*(?:toolkit|runtime|image|file|registry|hub|engine|cli|library|device)s?\b)"
    # "I am using a docker image generated from dustynv/jetson-inference:r32.7.1": the program runs in a container of
    # the image the reporter says they use (an image they only build, pull or push says nothing of where it runs)
    r"|\b(?:I|I'm|we|we're)\s+(?:am\s+|are\s+)?(?:using|use|run(?:ning)?)\s+(?:a|an|the|my|our|this)\s+docker\s+images?\b"
    # the same in Chinese: "docker容器内" (inside the docker container), "进入容器后" (after entering the container), and
    # "在docker中" / "官方docker里" (in docker, in the official docker: plans21/2142, plans19/1921), not "docker中文"
    # (Docker in Chinese: a document's language)
    r"|(?:docker\s*)?\u5bb9\u5668(?:\u5185|\u4e2d|\u91cc)|\u8fdb\u5165(?:docker\s*)?\u5bb9\u5668"
    r"|docker\s*(?:\u4e2d|\u91cc|\u5185)(?!\u6587)"
    # the scheduler's event for a pod it placed ("Successfully assigned ix-app/app-664bdc6cff-g5d9b to node1":
    # kubernetes/kubernetes pkg/scheduler/schedule_one.go @4a37f009, "Successfully assigned %v/%v to %v"): a pod's events
    r"|\bSuccessfully assigned [a-z0-9][a-z0-9.-]{0,62}/[a-z0-9][a-z0-9.-]{0,252} to \S"
    # a workload on a Kubernetes cluster runs in a pod's container ("running the image within my k8s cluster")
    r"|\b(?:in|within|on|into)\s+(?:(?:my|our|the|a|an)\s+)?(?:[\w-]+\s+){0,2}?(?:k8s|kubernetes|GKE|EKS|AKS)(?:\s+cluster)?\b"
    # a pod the reporter's program runs in, told by what the pod does ("when the pod starts, it is not able to find the
    # GPUs", ollama/ollama#6383; "running a pod gives this error"): a Kubernetes pod is its containers
    r"|\b(?:the|my|our|this)[ \t]+pods?[ \t]+(?:starts?|started|runs?|ran|running|crash(?:es|ed)?|fails?|failed|cannot|can'?t|"
    r"could[ \t]*n[o']t|does[ \t]*n[o']t|did[ \t]*n[o']t|sees?|saw|gets?|got|logs?)\b|\brun(?:s|ning)?[ \t]+(?:a|the|my)[ \t]+pod\b"
    # Kubeflow's training jobs (its training operator's TFJob, PyTorchJob, MPIJob) run their workers in pods
    r"|\bkubeflow\b|\b(?-i:TFJob|PyTorchJob|MPIJob)s?\b"
    # a program deployed with a Helm chart runs in a pod: Helm installs charts only into Kubernetes ("i use the helm
    # charts to deploy", ollama/ollama#12797; "by using below in helm chart", la-cc/anything-llm-helm-chart#8)
    r"|\b(?:use|using|used|with|via|in|through)\s+(?:(?:the|a|an|my|our|its|their|this)\s+)?(?:[\w.-]+\s+)?helm\s+charts?\b"
    # an issue form's runtime or deployment answered with docker ("- **Runtime**: Docker with nvidia-container-runtime"),
    # and Docker Swarm, whose services are containers
    r"|\b(?:runtime|deployment)\b\**\s*:\s*\**\s*docker\b(?!\s*desktop\b)|\bdocker\s+swarm\b"
    # RAPIDS' issue forms' "Environment location: [Bare-metal, Docker, Cloud(specify cloud provider)]" answered with a
    # docker ("- Environment location: custom docker": rapidsai/cuml .github/ISSUE_TEMPLATE/bug_report.md @ecbee8b9)
    r"|\benvironment[ \t]+location\b\**[ \t]*:[ \t]*\**[ \t]*(?:[\w-]+[ \t]+){0,2}docker\b(?![ \t]*desktop\b)"
    # "I use jellyfin on docker on my server", "install faster_whisper on python buster docker", "run Megatron multi-node
    # on Docker", "I prefer to work from docker": what runs on a docker runs in its container (its desktop, hub, images,
    # files, registry, engine or daemon, and "the docker side" of a comparison, are something else; the words between
    # stay in one sentence and name one place: "on your system. Docker container" is two sentences, "on linux and
    # docker" two places)
    r"|\bon[ \t]+(?:(?:a|an|the|my|our)[ \t]+)?(?:(?!(?:and|or|not|nor|vs)\b)[\w:-]+(?:\.[\w:-]+)*[ \t]+){0,3}?docker\b"
    r"(?![ \t-]*(?:desktop|hub|images?|files?|registry|compose|engine|version|daemon|side|host|cli|swarm|group|service)\b)"
    r"|\bwork(?:s|ed|ing)?[ \t]+(?:from|in|inside)[ \t]+(?:a[ \t]+|the[ \t]+)?docker\b(?![ \t-]*(?:desktop|hub|images?|files?)\b)"
    # "I am using the base image of nvidia/cuda:11.6.2-cudnn8-runtime-ubuntu20.04", "docker image, based on
    # `nvidia/cuda:7.0-cudnn4-devel-ubuntu14.04`", "I build from `nvidia/cuda:8.0-...`": one image named with its tag is
    # what the program's own image is built from (a list of base images tried is not one)
    r"|\b(?:base\s+image\s+(?:of\s+|is\s+)?|based\s+on\s+|buil[dt]\s+from\s+)\W{0,3}"
    r"[a-z0-9][\w.-]{0,60}(?:/[\w.-]{1,60}){0,2}:[\w.-]{1,80}",
    re.IGNORECASE,
)
# The reporter saying the machine has no GPU: an issue form's GPU field answered No/None ("- GPU model and memory: No",
# TensorFlow's template), or a sentence of their own ("I don't have gpu", "I do not have an NVIDIA GPU", "my machine has
# no GPU"). "N/A" is not read: a field left unanswered says nothing.
_GPU_WORD = re.compile(r"\bGPUs?\b", re.IGNORECASE)
_NO_GPU_SAID = re.compile(
    r"^[ \t]*(?:[-*][ \t]*)?(?:\*\*)?GPU(?: model)?(?: and memory)?(?:\*\*)?[ \t]*:[ \t]*(?:\*\*)?(?:no|none|no gpu)\.?[ \t]*$"
    # (the field answered "CPU only", "CPU install only", "only CPU": a TensorFlow issue form's "GPU model and memory")
    r"|^[ \t]*(?:[-*][ \t]*)?(?:\*\*)?GPU(?: model)?(?: and memory)?(?:\*\*)?[ \t]*:[ \t]*(?:\*\*)?[ \t]*"
    r"(?:CPU[ \t-]+(?:install[ \t-]+)?only|only[ \t]+CPU)\b"
    # ("my CPU-only server": the machine itself, not a CPU-only build of a framework on it; not "a CPU-only machine",
    # which torch's own deserialize error says of any reader: "If you are running on a CPU-only machine, ...")
    r"|\b(?:my|this|our) CPU[ \t-]only (?:server|machine|computer|laptop|PC|VM|system|host|node)\b"
    r"|\bI (?:do not|don'?t) have (?:an? |any )?(?:NVIDIA |CUDA[- ]capable |dedicated )?(?:GPU|graphics card)s?\b"
    r"(?![ \t]+(?:issues?|problems?|errors?|support|acceleration|access|usage|memory|drivers?|working)\b)"
    # (also "I have no NVIDIA GPU", as an issue's title asks "What when I have no nvidia GPU?")
    r"|\bI have no (?:NVIDIA |CUDA[- ]capable |dedicated )?(?:GPU|graphics card)s?\b"
    r"(?![ \t]+(?:issues?|problems?|errors?|support|acceleration|access|usage|memory|drivers?|working)\b)"
    r"|\b(?:my|this|the) (?:machine|computer|laptop|pc|system) (?:has|have) no (?:NVIDIA |dedicated )?(?:GPU|graphics card)\b",
    re.IGNORECASE | re.MULTILINE,
)
# The machine slept and woke before CUDA failed ("after sleep", "resumed from suspend", "standby", "hibernation"):
# the driver's unified-memory state (nvidia_uvm) is what suspend/resume leaves broken.
# An NVIDIA Jetson named: the board, its Linux for Tegra (L4T) release, JetPack, or the file that holds the release.
_JETSON_SAID = re.compile(r"\bJetson\b|\bL4T\b|\bJetPack\b|/etc/nv_tegra_release", re.IGNORECASE)
# setuptools' report of a compiler that failed (spawn.py: "command %r failed with exit code %s", with "error: " before
# it), when the compiler is nvcc: a Python package's CUDA extension build.
_SETUPTOOLS_NVCC = re.compile(
    r"\berror: command '(?P<nvcc>[^'\n]{0,300}?[/\\]nvcc(?:\.exe)?)' failed with exit (?:code|status) \d+"
)
# The L4T release as /etc/nv_tegra_release prints it ("# R35 (release), REVISION: 4.1"), as written ("L4T R35.4.1"), or
# as the tag of NVIDIA's L4T image the text shows run on it (nvcr.io/nvidia/l4t-pytorch:r35.1.0-pth1.12-py3): an L4T
# image runs on the L4T release it is built for (NVIDIA's l4t-base: "the container's L4T release must match the host's").
_L4T_RELEASE = re.compile(
    r"#\s*R(\d{2}) \(release\), REVISION: (\d+\.\d+)|\bR(\d{2}\.\d+(?:\.\d+)?)\b|\bL4T\s+(\d{2}\.\d+(?:\.\d+)?)\b"
    r"|\bl4t-[a-z][\w-]{0,30}:r(\d{2}\.\d+(?:\.\d+)?)\b"
)
# A traceback's frame in a package's top-level __init__.py while it is imported, and the error a failed import ends in.
_INIT_FRAME = re.compile(
    r'File "[^"]{0,300}[\\/](?:site|dist)-packages[\\/](?P<pkg>[A-Za-z_]\w{0,60})[\\/]__init__\.py", line \d+, in <module>'
)
_IMPORT_ERROR_END = re.compile(r"^\s*(?:ImportError|ModuleNotFoundError|OSError)\b")
# The loader refusing a compiled module inside a package's directory, as the import's own ImportError: glibc's
# "version `GLIBC_2.23' not found (required by …/site-packages/jaxlib/xla_extension.so)" (bminor/glibc elf/dl-version.c,
# match_symbol), "…/site-packages/torch/lib/libtorch_cuda.so: undefined symbol: …", "…: cannot open shared object file".
# The package whose directory holds the module is the one whose import failed (a module beside site-packages' packages,
# flash_attn_2_cuda.cpython-….so, names none). Markdown's backtick, or pytest's "E   ", may open the line.
_LOADER_REFUSED = re.compile(
    r"^\s*(?:`|E\s+)?ImportError: .{0,600}?[\\/](?:site|dist)-packages[\\/](?P<pkg>[A-Za-z_]\w{0,60})[\\/][^\s:()]{0,300}\.(?:so|pyd)\b"
)
# `import X` typed at a REPL prompt or run alone with `python -c` (a program that goes on past the import may crash
# later), and within the next lines the interpreter's death by SIGSEGV as the shell (bash: "Segmentation fault (core
# dumped)") or faulthandler ("Fatal Python error: Segmentation fault") reports it.
_IMPORT_TYPED = re.compile(
    r"^\s*(?:>>>|In \[\d+\]:)\s*import (?P<pkg>[A-Za-z_]\w{0,60})(?:\s+as\s+\w{1,60})?\s*$"
    r"|\bpython[\d.]*(?:\.exe)?\s+-c\s+['\"]\s*import (?P<pkg2>[A-Za-z_]\w{0,60})(?:\s+as\s+\w{1,60})?\s*['\"]"
)
# The import said in prose ("trying to import cupy fails with"), its error quoted on the next lines ("> DLL load failed
# while importing cusolver: ...", an ImportError): the reporter's own import of that package, failing.
_IMPORT_SAID = re.compile(
    r"\bimport(?:ing)?[ \t]+[`'\"]?(?P<pkg>[A-Za-z_]\w{0,60})[`'\"]?[ \t]+(?:still[ \t]+)?(?:fails|failed|gives|throws|raises)\b"
)
_IMPORT_ERROR_QUOTED = re.compile(r"^\s*(?:>\s*)?`*\s*(?:(?:ImportError|ModuleNotFoundError|OSError)\b|DLL load failed\b)")
_SEGFAULT = re.compile(r"^\s*(?:Segmentation fault\b|Fatal Python error: Segmentation fault)")
# jax or jaxlib pinned or named with a release (jaxlib==0.1.70+cuda101, "jax 0.2.9"), and the CPU fallback warned from
# the module jax 0.2.25 moved (warnings.warn names the file it ran in): what dates JAX before print_environment_info.
_JAX_RELEASE = re.compile(r"\b(?P<name>jaxlib|jax)\s*(?:==|\s)\s*v?(?P<version>\d+\.\d+\.\d+)\b")
_JAX_OLD_BRIDGE = re.compile(r"[\\/]site-packages[\\/]jax[\\/]lib[\\/]xla_bridge\.py:\d+: UserWarning")
# The first releases with jax.print_environment_info(): jax 0.3.18, which requires jaxlib 0.3.15 (facts.JAX_BEFORE_ENV_INFO).
_ENV_INFO_FROM = {"jax": (0, 3, 18), "jaxlib": (0, 3, 15)}
# tensorflow or tensorflow-gpu named with a release ("tensorflow-gpu1.1.0", "tensorflow==1.12.0", "tensorflow-gpu 1.4",
# a wheel's "tensorflow-1.1.0-cp36"): a 1.x before 1.14, and no later one named in the text ("tensorflow 1.12" beside
# "tensorflow-gpu==2.0.0": the newer may be the one installed), dates TensorFlow before tf.config (facts.TF_BEFORE_CONFIG).
_TF_RELEASE = re.compile(
    r"(?<![\w/.-])tensorflow(?:-gpu)?[ \t]*(?:==|-)?[ \t]*v?(?P<version>(?P<major>[12])\.(?P<minor>\d{1,2})(?:\.\d+)?)(?![\d.])",
    re.IGNORECASE,
)
_TRACEBACK_SPAN = 80  # lines a traceback's frames and its last line are read within
# jax's wrapper of jaxlib (jax/_src/lib/__init__.py, jax-ml/jax @25fb3640): at module level it imports jaxlib and checks
# its version ("jax requires jaxlib to be installed", "jaxlib is version X, but this version of jax requires version >=
# Y", "jaxlib version X is newer than and incompatible with jax version Y"), then loads jaxlib's compiled modules. A
# traceback through it that ends in an error (or that the paste cuts there) is jax's import failing at jaxlib.
_JAXLIB_WRAPPER_FRAME = re.compile(r'File "[^"]{0,300}[\\/]jax[\\/]_src[\\/]lib[\\/]__init__\.py", line \d+')
_JAXLIB_WRAPPER_END = re.compile(r"^\s*(?:ImportError|ModuleNotFoundError|RuntimeError|OSError|ValueError)\b")
# A kernel release its distribution's repositories do not carry (facts.KERNEL_OUTSIDE_DISTRO): ELRepo's (kernel-lt,
# kernel-ml: "5.4.124-1.el7.elrepo.x86_64"), or a 4.x or newer kernel built for el7 on x86_64 ("4.19.12-1.el7"), where
# CentOS 7's own are 3.10.0 (its AltArch aarch64 and ppc64le kernels are 4.x: left out).
_KERNEL_OUTSIDE_DISTRO = re.compile(
    r"(?<![\w.-])(?P<release>\d{1,2}\.\d{1,3}\.\d{1,4}-\d{1,6}(?:\.\d{1,6}){0,3}\.el\d{1,2}(?:_\d{1,2})?\.elrepo(?:\.(?:x86_64|noarch))?"
    r"|(?:[4-9]|[1-9]\d)\.\d{1,3}\.\d{1,4}-\d{1,6}(?:\.\d{1,6}){0,3}\.el7(?:_\d{1,2})?(?:\.x86_64)?)(?![\w.-])"
)
# DKMS named as the nvidia module's builder (facts.DKMS_SAID): a distribution's package of it (Arch's and Debian's
# nvidia-dkms, Ubuntu's nvidia-dkms-535, Fedora's akmods is another builder and not this), or dkms beside nvidia.
_DKMS_SAID = re.compile(
    r"\bnvidia(?:-driver)?(?:-\d{3})?(?:-open)?-dkms\b|\bdkms\b[^\n]{0,60}\bnvidia\b|\bnvidia\b[^\n]{0,60}\bdkms\b",
    re.IGNORECASE,
)
# The kernel refusing an nvidia module for its signature (facts.MODULE_KEY_REFUSED), as modprobe and insmod print it:
# "modprobe: ERROR: could not insert 'nvidia': Key was rejected by service" (nvidia_uvm, nvidia_drm the same).
_MODULE_KEY_REFUSED = LazyPattern(
    r"could not insert '(?P<module>nvidia(?:[_-](?:uvm|drm|modeset|peermem))?)': (?:Key was rejected by service|Required key not available)"
)
_SUSPEND_SAID = re.compile(
    r"\bsuspend(?:ed|ing|s)?\b|\bhibernat(?:e|ed|es|ion|ing)\b|\bstandby\b"
    r"|\bafter\s+(?:[a-z]+\s+){0,2}(?:sleep|sleeping|resume|resuming|waking\s+up|wake\s*up)\b(?!\s*\()"
    r"|\b(?:wak(?:e|es|ing)|woke)\s+(?:up\s+)?from\s+(?:sleep|suspend)",
    re.IGNORECASE,
)
# A program the kernel killed: bash's job report is the signal's description alone ("Killed", glibc's strsignal for
# SIGKILL; "[1]+  Killed  python x.py" for a background job), zsh's "zsh: killed  python x.py", the kernel log's
# "Out of memory: Killed process 1234 (python)". SIGKILL from nobody else is most often the out-of-memory killer.
_KILLED = re.compile(
    r"^\s*(?:\[\d+\]\+?\s+)?Killed(?:\s+\S.{0,300})?\s*$|^\s*(?:zsh|bash|sh): killed\s|\bOut of memory: Kill(?:ed)? process\b"
)
# The host's RAM as reports state it: "32GB RAM", "64 GB of DDR5 RAM", "RAM: 16 GB", "Installed RAM 32.0 GB", or the
# value of Windows' Settings > About "Installed RAM" copied without its label ("32.0 GB", "31.8 GB usable" after it).
_HOST_RAM = re.compile(
    r"(?<![\w.])(?P<a>\d{1,4}(?:\.\d)?)\s*(?:GB|GiB|G)\s+(?:of\s+)?(?:system\s+|host\s+|DDR\d\s+)?RAM\b"
    r"|\bRAM\b\s*[:=]?\s*(?P<b>\d{1,4}(?:\.\d)?)\s*(?:GB|GiB)\b"
    r"|^\s*(?P<c>\d{1,4}\.\d)\s*GB(?:\s*\(\d{1,4}(?:\.\d)?\s*GB usable\))?\s*$",
    re.IGNORECASE,
)
_KUBERNETES_SAID = re.compile(
    # (k8s as a folder of an image's name, nvcr.io/nvidia/k8s/cuda-sample, names NVIDIA's image namespace, not a cluster)
    r"\bkubeflow\b|\bkubepods\b|\bcri-containerd\b|\bkubectl\b|\bkubernetes\b|(?<!/)\bk8s\b(?!/)|\bpods?\b"
    r"|\b(?:GKE|EKS|AKS)\b|\bhelm\s+charts?\b",
    re.IGNORECASE,
)
# A Deployment's pod is named <deployment>-<pod-template-hash>-<5 random characters>, both drawn from the alphabet of
# apimachinery's rand.SafeEncodeString (no vowels, no 0, 1, 3); a pod's host name is its name.
_POD_NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,200}-[bcdfghjklmnpqrstvwxz2456789]{6,10}-[bcdfghjklmnpqrstvwxz2456789]{5}")
# The user the Jupyter Docker Stacks images run the notebook server as (jupyter/docker-stacks
# images/docker-stacks-foundation/Dockerfile @93d83482: ARG NB_USER="jovyan"), which Kubeflow's notebook images and
# JupyterHub on Kubernetes (zero-to-jupyterhub's singleuser image) keep: a prompt of that user is a container's shell.
_JUPYTER_STACKS_USER = "jovyan"
_PODMAN_SAID = re.compile(r"\bpodman\b", re.IGNORECASE)
# Variables the doctor reads, set on a command line the text shows run ("CUDA_VISIBLE_DEVICES=2 python main.py").
# A conda environment said to hold the program ("installed in a conda environment", "conda activate x", "my conda env",
# (ASCII word boundaries, so "conda" beside CJK text is a word; "conda环境" is "conda environment" in Chinese.)
# or its CUDA framework installed by conda: `conda install ... pytorch-cuda=11.8` / `cudatoolkit=10.0`, conda's own builds)
_CONDA_ENV = re.compile(
    r"\bconda\s*(?:\s(?:env(?:ironment)?s?\b|activate\s+[\w.-]{1,60})|[\u73af\u74b0]\u5883)"
    r"|\bconda\s+install\s[^\n]{0,200}?\b(?:pytorch-cuda|cudatoolkit)=",
    re.IGNORECASE | re.ASCII,
)
# A virtual environment activated on a command line the text shows run (`source /home/me/app/env/bin/activate`,
# `source ~/.venvs/app/bin/activate`): its bin/python is the program's interpreter.
# (`~/...`: the home directory's, which the quoting layer keeps bare for the shell to expand)
_VENV_ACTIVATED = re.compile(r"(?:^|[;&|]\s*|\s)(?:source|\.)\s+(?P<prefix>(?:/|~/)[^\s;&|'\"]{1,300}?)/bin/activate\b", re.M)
# conda-forge builds a package in a container with its feedstock mounted at /home/conda/feedstock_root
# (conda-forge/conda-smithy, conda_smithy/templates/run_docker_build.sh.tmpl @01f08ea7); the build directory
# build_artifacts/<package>_<timestamp> stays in the binary's assertion and debug paths.
_FEEDSTOCK = re.compile(r"/home/conda/feedstock_root/build_artifacts/(?P<pkg>[a-z0-9][a-z0-9.-]{0,80}?)_\d{10,}/")
_DOCKER_RUN = re.compile(r"\bdocker\s+run\s")
# sudo (its own options before the command: -E, -H) just before a command on its line, as typed at a prompt or quoted.
_SUDO_BEFORE = re.compile(r"(?:^|[\s`$#>(])sudo(?:[ \t]+-[A-Za-z]{1,4})*[ \t]+$")
# A command at the start of a line, after its prompt (`root@host:~/proj# `, `(venv) $ `, `PS C:\\x> `), after `&&`/`;`, or
# quoted in prose (`"pipenv install x"`, a backticked `uv add x`): what the reporter ran, not a tool merely named ("I
# also tried uv").
_RAN = (
    r"(?:^[^\S\n]*(?:\([\w.-]{1,60}\)[^\S\n]*)?(?:(?:PS[^\S\n]+)?[^\s$#>]{0,200}[$#>][^\S\n]*)?|&&[^\S\n]*|;[^\S\n]*"
    r"|[\"'`])(?:sudo\s+)?"
)
# The tools that manage a program's environment, by the commands only they have (or the lock file only they write):
# uv's project commands (uv add/remove/sync/run/init/lock, uv.lock; docs.astral.sh/uv/concepts/projects/sync: `uv run`
# locks and syncs the project environment first) apart from its pip interface on a plain venv (uv venv, uv pip install);
# poetry's and pipenv's own commands, lock files and (poetry) its cache of virtualenvs; a notebook whose cells install
# (`!pip`, `%pip`) or Colab's (its name, /content; not a link to a notebook on colab.research.google.com, which says
# where a tutorial lives, not where it ran: tests/pasted/cases/trax-302 runs one on its own Ubuntu). A plain venv
# (`python -m venv`, `source .venv/bin/activate`) is none.
_PROJECT_TOOLS = (
    ("uv project", re.compile(_RAN + r"uv\s+(?:add|remove|sync|run|init|lock)\b|\buv\.lock\b", re.M)),
    (
        "poetry",
        re.compile(
            _RAN
            + r"poetry\s+(?:add|remove|install|run|shell|lock|update)\b|\bpoetry\.lock\b|pypoetry[\\/](?:Cache[\\/])?virtualenvs\b",
            re.M,
        ),
    ),
    ("pipenv", re.compile(_RAN + r"pipenv\s+(?:install|uninstall|run|shell|sync|lock)\b|\bPipfile(?:\.lock)?\b", re.M)),
    (
        "notebook",
        re.compile(
            r"^[^\S\n]*" + _LIST_ITEM + r"[!%][^\S\n]*pip3?[^\S\n]+(?:install|uninstall)\b"
            r"|\b(?:google\s+)?colab(?:oratory)?\b(?!\.research\.google)"
            r"|(?<![\w.])/content/|(?<![\w.])/kaggle/(?:working|input)\b|" + _KAGGLE_SAID,
            re.M | re.I,
        ),
    ),
    ("uv venv", re.compile(_RAN + r"uv\s+(?:venv|pip\s+(?:install|uninstall|sync))\b", re.M)),
)
# pip run at a shell's prompt (`$ pip install x`, `root@box:/# pip3 install x`, `(venv) $ python -m pip install x`): the
# reporter installs in a shell, so a notebook the text only names (Colab, Kaggle, a /content path) is another place
# ("able to replicate inside a Kaggle kernel") and not where the plan's commands run; a notebook's own cells
# (`!pip`, `%pip`) still make it one.
_SHELL_PIP = re.compile(
    r"^[^\S\n]*(?:\([\w.-]{1,60}\)[^\S\n]*)?[^\s$#>!%]{0,200}[$#][^\S\n]*(?:sudo[^\S\n]+)?"
    r"(?:pip3?|python3?(?:\.\d{1,2})?[^\S\n]+-m[^\S\n]+pip)[^\S\n]+install\b",
    re.M,
)
_NOTEBOOK_CELL = re.compile(r"^[^\S\n]*" + _LIST_ITEM + r"[!%][^\S\n]*pip3?[^\S\n]+(?:install|uninstall)\b", re.M)
# docker run's options that take a value as the next word (docker's own reference); any other option is a flag or
# carries its value after "=".
_DOCKER_VALUED = frozenset(
    [
        "-v",
        "--volume",
        "-p",
        "--publish",
        "-e",
        "--env",
        "--env-file",
        "--name",
        "-w",
        "--workdir",
        "-u",
        "--user",
        "--entrypoint",
        "--network",
        "--net",
        "--ipc",
        "--runtime",
        "--gpus",
        "--device",
        "--mount",
        "--shm-size",
        "-m",
        "--memory",
        "--memory-swap",
        "--cpus",
        "--cpuset-cpus",
        "--ulimit",
        "-h",
        "--hostname",
        "-l",
        "--label",
        "--add-host",
        "--cap-add",
        "--cap-drop",
        "--security-opt",
        "--restart",
        "--pid",
        "--platform",
        "--log-driver",
        "--log-opt",
        "--tmpfs",
        "--group-add",
        "--dns",
        "--cidfile",
        "--stop-signal",
        "--stop-timeout",
        "--storage-opt",
        "-a",
        "--attach",
        "--volumes-from",
        "--link",
        "--health-cmd",
        "--pull",
    ]
)
_IMAGE = re.compile(r"[a-z0-9][a-z0-9._/:@-]{0,250}\Z")
_ENV_SET = re.compile(
    r"(?:^|\s|export\s+)(?P<name>CUDA_VISIBLE_DEVICES|NVIDIA_VISIBLE_DEVICES)=(?P<value>[\w,.:-]{0,200})(?=\s|$)"
)
# The same variable on a command line the reporter quotes in prose as what they ran, between backticks, a command after
# it ("I noticed the log said ... with my run `CUDA_VISIBLE_DEVICES=0 deepsignal_plant call_mods ...`":
# tests/blind/plans13/cases/1341-*; "Run the following script using command `CUDA_VISIBLE_DEVICES=3 python test.py`":
# tests/blind/plans4/cases/320-*). A variable quoted alone ("I tried `CUDA_VISIBLE_DEVICES=1`") names no run.
_QUOTED_RUN_ENV = LazyPattern(
    r"`(?:export\s+)?(?P<name>CUDA_VISIBLE_DEVICES|NVIDIA_VISIBLE_DEVICES)=(?P<value>[\w,.:-]{1,200})\s+[A-Za-z./~][^`\n]{0,600}`"
)

# The same variable set by the program's own first lines (`os.environ["CUDA_VISIBLE_DEVICES"] = "5"`, tests/blind/
# plans15/cases/1534-*; InternLM/InternLM-XComposer#361): CUDA reads it when the process first initialises CUDA, so a
# script that sets it before then runs with it as if its shell had (CUDA C++ Programming Guide, "CUDA Environment
# Variables"). A value the command line gives wins (setdefault, in the order the text shows them).
_PY_ENV_SET = LazyPattern(
    r"""os\.environ\[\s*["'](?P<name>CUDA_VISIBLE_DEVICES)["']\s*\]\s*=\s*["'](?P<value>[\w,.:-]{1,200})["']"""
)

# The loader's search path as a shell printed it: `echo $LD_LIBRARY_PATH` (or printenv) at a prompt or alone on a line,
# its answer the next line that is a colon-separated list of absolute paths (empty entries kept: the loader reads an
# empty one as the current directory). Data only: the plan may print it back, quoted, never run it.
_PRINTS_LD_PATH = re.compile(r'(?:^|[\s$#>])(?:echo\s+"?\$\{?LD_LIBRARY_PATH\}?"?|printenv\s+LD_LIBRARY_PATH)\s*$')
_PATH_LIST = re.compile(r"/[^\s:]{0,300}(?::(?:/[^\s:]{0,300})?){0,40}")


def _ld_library_path_printed(g: Gathered, lines: list[str]) -> None:
    for number, line in enumerate(lines):
        if "LD_LIBRARY_PATH" not in line or not _PRINTS_LD_PATH.search(line[:MAX_LINE]):
            continue
        answer = next((x.strip() for x in lines[number + 1 : number + 3] if x.strip() and not x.startswith("```")), "")
        if _PATH_LIST.fullmatch(answer):
            g.env.setdefault("LD_LIBRARY_PATH", answer)
            _cue(g, "LD_LIBRARY_PATH printed", "the loader's search path in the shell that ran the program", line)
            return


def _ends_in_import_error(lines: list[str]) -> bool:
    """Whether the traceback these lines continue ends in an import's error (ImportError, ModuleNotFoundError, or
    OSError: a library it loads) before a prompt or another traceback starts."""
    for later in lines[:_TRACEBACK_SPAN]:
        if later.startswith("Traceback (most recent call last)") or later.lstrip().startswith(">>>"):
            return False
        if _IMPORT_ERROR_END.match(later[:MAX_LINE]):
            return True
    return False


def _import_failed(g: Gathered, lines: list[str]) -> None:
    """The packages whose own import a traceback shows failing: a frame of site-packages/<pkg>/__init__.py at module
    level, then the traceback's ImportError (or OSError: a library it loads) before another traceback starts."""
    for number, line in enumerate(lines):
        if "__init__.py" not in line or (m := _INIT_FRAME.search(line[:MAX_LINE])) is None:
            continue
        for later in lines[number + 1 : number + _TRACEBACK_SPAN]:
            if later.startswith("Traceback (most recent call last)"):
                break
            if _IMPORT_ERROR_END.match(later[:MAX_LINE]):
                _cue(g, IMPORT_FAILED, m.group("pkg"), line[:MAX_LINE])
                break
    for line in lines:
        if "ImportError" in line and (m := _LOADER_REFUSED.match(line[:MAX_LINE])):
            _cue(g, IMPORT_FAILED, m.group("pkg"), line[:MAX_LINE])
    for number, line in enumerate(lines):
        if "_src" not in line or not _JAXLIB_WRAPPER_FRAME.search(line[:MAX_LINE]):
            continue
        rest = [x for x in lines[number + 1 : number + _TRACEBACK_SPAN] if x.strip() and not x.lstrip().startswith("`")]
        ends = next((x for x in rest if _JAXLIB_WRAPPER_END.match(x[:MAX_LINE]) or x.startswith("Traceback")), None)
        # (the paste cut within the frame: at most its source line and the caret line follow)
        cut = len(rest) <= 2 and not any(x.lstrip().startswith("File ") for x in rest)
        if (ends is not None and not ends.startswith("Traceback")) or cut:
            _cue(g, IMPORT_FAILED, "jaxlib", line[:MAX_LINE])
            break
    for number, line in enumerate(lines):
        # (a REPL line set in Markdown emphasis or code, "*>>> import cupy*", is the same line typed)
        if "import" not in line or (m := _IMPORT_TYPED.search(line[:MAX_LINE].strip().strip("*`"))) is None:
            continue
        after = [x for x in lines[number + 1 : number + 4] if x.strip()]
        package = m.group("pkg") or m.group("pkg2")
        known = any(c["cue"] == IMPORT_FAILED and c["means"] == package for c in g.cues)  # (its frames said so already)
        if not known and after and after[0].startswith("Traceback (most recent call last)"):
            # The traceback right after the typed import is that import's own: a package whose frames a mail client or
            # a forum wrapped (`File` alone on its line, the path on the next) is still the one that failed.
            start = next(k for k in range(number + 1, len(lines)) if lines[k].strip())
            if _ends_in_import_error(lines[start + 1 :]):
                _cue(g, IMPORT_FAILED, package, line[:MAX_LINE])
        if after and _SEGFAULT.match(after[0][:MAX_LINE]):
            _cue(g, IMPORT_FAILED, package, line[:MAX_LINE])
            _cue(g, IMPORT_CRASHED, package, after[0][:MAX_LINE])


def _import_said_failing(g: Gathered, lines: list[str]) -> None:
    """A package whose import the reporter says fails, its error quoted within the next lines (facts.IMPORT_FAILED)."""
    for number, line in enumerate(lines):
        if "mport" not in line or (m := _IMPORT_SAID.search(line[:MAX_LINE])) is None:
            continue
        after = [x for x in lines[number + 1 : number + 6] if x.strip()][:3]
        package = m.group("pkg")
        if any(_IMPORT_ERROR_QUOTED.match(x[:MAX_LINE]) for x in after) and not any(
            c["cue"] == IMPORT_FAILED and c["means"] == package for c in g.cues
        ):
            _cue(g, IMPORT_FAILED, package, line[:MAX_LINE])


def _jax_dated(g: Gathered, lines: list[str]) -> None:
    """Where the text dates JAX before jax.print_environment_info() (facts.JAX_BEFORE_ENV_INFO)."""
    for line in lines:
        if "jax" not in line:
            continue
        if _JAX_OLD_BRIDGE.search(line[:MAX_LINE]):
            _cue(g, JAX_BEFORE_ENV_INFO, "the CPU fallback warned from jax/lib/xla_bridge.py", line[:MAX_LINE])
            return
        for m in _JAX_RELEASE.finditer(line[:MAX_LINE]):
            release = tuple(int(x) for x in m.group("version").split("."))
            if release < _ENV_INFO_FROM[m.group("name")]:
                _cue(g, JAX_BEFORE_ENV_INFO, f"{m.group('name')} {m.group('version')}", line[:MAX_LINE])
                return


def _tf_dated(g: Gathered, lines: list[str]) -> None:
    """Where the text names a TensorFlow before tf.config and none after it (facts.TF_BEFORE_CONFIG)."""
    named = [(m, line) for line in lines if "ensorflow" in line[:MAX_LINE].lower() for m in _TF_RELEASE.finditer(line[:MAX_LINE])]
    if named and all(m.group("major") == "1" and int(m.group("minor")) < 14 for m, _ in named):
        m, line = named[0]
        _cue(g, TF_BEFORE_CONFIG, f"tensorflow {m.group('version')}", line[:MAX_LINE])


def _image_cue(
    g: Gathered,
    image: str,
    line: str,
    gpus: str,
    runtime: str = "docker",
    python: str = "python3",
    root: bool = False,
    name: str = "",
) -> None:
    entry = {"cue": PROGRAM_IMAGE, "means": image, "line": line.strip()[:300], "gpus": gpus}
    if name:
        entry["container"] = name  # (the run's --name: the container a plan stops, starts or enters, as IMAGE_RUN's)
    if runtime != "docker":
        entry |= {"runtime": runtime, "python": python}
    if root:
        entry["root"] = "sudo"  # (the reporter ran the image under sudo: so must a question asked of it)
    if entry not in g.cues and len(g.cues) < 64:
        g.cues.append(entry)


# A container the text runs the program in: docker (its exec, compose, a run), podman, a Portainer stack, Kubernetes.
_CONTAINER_WORDS = re.compile(r"\b(?:docker|podman|portainer|compose|kubectl|container)\b", re.IGNORECASE)


def _applications(g: Gathered, text: str) -> None:
    """The catalogued GPU application whose own text the paste is (its launcher, banner or issue form); the image of one
    the text names (docker run, a compose file's image:, prose), with the line that shows the application's GPU part
    asked for (gpudoctor.planner.apps)."""
    from gpudoctor.planner.apps import app, app_without_image, application_named, image_named, standalone_named

    if (named_app := application_named(text)) is not None:
        _cue(g, APP_NAMED, named_app[0].id, named_app[1])
    if (frozen := standalone_named(text)) is not None:
        _cue(g, STANDALONE_APP, frozen[0].id, frozen[1])
        # (its Python is inside the executable: nothing to run pip or an interpreter with)
        _cue(g, NO_PYTHON, f"no Python to install into ({frozen[0].name} is a standalone executable)", frozen[1])
    if (named := image_named(text)) is None or (entry := app(named.app)) is None:
        # (the application named in a container, its GPU part failing, and no image: the image is asked, `means` "")
        if _CONTAINER_WORDS.search(text) and (bare := app_without_image(text)) is not None and len(g.cues) < 64:
            g.cues.append({"cue": APP_IMAGE, "means": "", "app": bare[0].id, "tag": "", "line": bare[1], "wants": bare[1]})
        return
    wants = next((x.strip()[:300] for x in text.splitlines() if entry.wants.search(x[:MAX_LINE])), "")
    entry_cue = {"cue": APP_IMAGE, "means": named.ref, "app": named.app, "tag": named.tag, "line": named.line}
    if len(g.cues) < 64:
        g.cues.append(entry_cue | {"wants": wants})


def _native_named(text: str) -> Any:
    """The catalogued application that is no Python program the text names (gpudoctor.planner.apps.native_named)."""
    from gpudoctor.planner.apps import native_named

    return native_named(text)


def _cue(g: Gathered, cue: str, means: str, line: str) -> None:
    entry = {"cue": cue, "means": means, "line": line.strip()[:300]}
    if entry not in g.cues and len(g.cues) < 64:
        g.cues.append(entry)


def prompt_command(line: str) -> tuple[str, str] | None:
    """The shell and the command of a line typed at a prompt (`(container) $ `, `PS C:\\x> `, `C:\\x> `, `user@host:~$ `):
    ("container" or "host", "powershell", "cmd", "posix"; the command as typed), or None where the line is no prompt's."""
    if m := _SIDE.match(line):
        return m.group("side").lower(), m.group("cmd")
    if m := _PS.match(line):
        return "powershell", m.group("cmd")
    if (m := _CMD_EXE.match(line)) and not _WIN_PYTHON.match(line.strip()):
        return "cmd", m.group("cmd")
    if m := _POSIX.match(line):
        return "posix", m.group("cmd")
    return None


# An environment activated or made by conda under its name (`conda activate NAME`, its older `source activate NAME`,
# Windows conda's `activate NAME` at a line's start or after a prompt, `conda create -n NAME`, `--name NAME`): a venv
# is activated by its script's path, never by a bare name. (Anchored at a line's start, a `>` or a word before it:
# linear in a flood of lines.)
_CONDA_NAMED = (
    r"(?:\b(?:conda|source)[ \t]+|(?:^|>)[ \t]*)activate[ \t]+{0}(?![\w.-])"
    r"|\bconda[ \t]+create[ \t][^\n]{{0,200}}?(?:-n|--name)[ \t]+{0}(?![\w.-])"
)


def prompt_env(line: str) -> str | None:
    """The environment a prompt shows active: the name conda's and venv's activation scripts write before it ("(tf_daily)
    C:\\x>", "(venv) PS C:\\x>", "(base) user@host:~$"), or None where the line is no prompt's or names none. A
    `(container) $` prompt names a side, not an environment."""
    if _SIDE.match(line):
        return None
    for pattern in (_PS, _CMD_EXE, _POSIX):
        if m := pattern.match(line):
            return m.group("env")
    return None


def read_cues(g: Gathered, text: str) -> None:
    """Read the cues of `text` (quote markers already taken off) into `g`. Never raises on content; linear."""
    lines = text.splitlines()[:MAX_LINES]
    from gpudoctor.pasted.container_age import read_container_age

    read_container_age(g, text)
    if g.wsl_prompt:
        _cue(g, "a prompt only WSL's shell shows", "WSL", g.wsl_prompt)
    # (a prompt of WSL's shell ran the reporter's commands: a sentence about Windows beside it does not move them)
    if g.wsl_said and not g.wsl and not g.wsl_prompt and (m := _NATIVE_WINDOWS.search(text[:1_000_000])):
        g.wsl_said = False  # WSL named in passing: the program the report is about is Windows' own
        _windows(g, "a Windows program, WSL only named beside it", m.group(0))
    side: str | None = None  # the side ((container) or (host)) of the last prompt seen
    inside = False  # the last prompt's command ran inside a container (docker exec, kubectl exec)
    # Each pattern is tried only on the lines that hold a text it requires (parsers.anchors): a whole log pasted is
    # tens of thousands of lines, most of which hold none.
    scan = Lines([raw[:MAX_LINE] for raw in lines])
    active: tuple[str, str] | None = None  # the last environment a prompt showed active, and that prompt's line
    for number, line in enumerate(scan.lines):
        cmd = None
        if m := scan.match(_SIDE, number):
            side = m.group("side").lower()
            cmd = m.group("cmd")
            _cue(g, f"({side}) prompt", "run inside a container" if side == "container" else "run on the host", line)
        elif m := scan.match(_PS, number):
            cmd = m.group("cmd")
            _windows(g, "PowerShell prompt", line)
            _prompt_interpreter(g, m.group("cwd"), cmd, line, text)
        elif (m := scan.match(_CMD_EXE, number)) and not _WIN_PYTHON.match(line.strip()):
            cmd = m.group("cmd")
            _windows(g, "cmd.exe prompt", line)
            _prompt_interpreter(g, m.group("cwd"), cmd, line, text)
        elif m := scan.match(_POSIX, number):
            cmd = m.group("cmd")
            host = m.group("host") or ""
            _prompt_venv(g, m.group("cwd"), cmd, line, text)
            if re.fullmatch(r"[0-9a-f]{12}", host):
                _cue(g, "prompt on a 12-hex host name", "run inside a container (its id is the host name)", line)
            elif _POD_NAME.fullmatch(host):
                _cue(g, "prompt on a Deployment pod's name", "run inside a kubernetes container (the pod's name)", line)
            elif m.group("user") == _JUPYTER_STACKS_USER:
                _cue(g, "prompt of Jupyter's container user", "run inside a container (a Jupyter Docker Stacks image)", line)
        elif (side == "container" or inside) and classify_error_text(line) is not None and g.smi_failure_line < 0:
            # What failed under the container's prompt (or a docker exec's) is the state of where the program runs: it
            # wins over the host's output shown beside it.
            g.smi_failure_line = number
        if cmd is not None:  # a prompt: its command decides where the lines up to the next one ran
            inside = _EXEC_INTO.match(cmd.strip()) is not None
            if (shown := prompt_env(line)) is not None:
                active = (shown, line) if shown.lower() != "base" else None
        if cmd is not None:
            for env in _ENV_SET.finditer(cmd):
                g.env.setdefault(env.group("name"), env.group("value"))
                _cue(g, f"{env.group('name')} on the command line", "set for the program that ran", line)
        elif m := re.match(r"^\s*export\s+(CUDA_VISIBLE_DEVICES|NVIDIA_VISIBLE_DEVICES)=([\w,.:-]{0,200})\s*$", line):
            g.env.setdefault(m.group(1), m.group(2))
            _cue(g, f"export {m.group(1)}", "set in the shell that ran the program", line)
        elif m := scan.search(_QUOTED_RUN_ENV, number):
            g.env.setdefault(m.group("name"), m.group("value"))
            _cue(g, f"{m.group('name')} on a quoted command line", "set for the program the reporter ran", line)
        elif m := scan.search(_PY_ENV_SET, number):
            g.env.setdefault(m.group("name"), m.group("value"))
            _cue(g, f"{m.group('name')} set in the program's os.environ", "set by the program before CUDA starts", line)
        if m := scan.search(_WIN_PYTHON, number):
            path = m.group("path")
            if g.interpreter is None:
                g.interpreter = path
                _cue(g, "a Windows python.exe path", "the interpreter the plan must use", line)
            _windows(g, "a Windows path", line)
        elif g.system is None and scan.match(_WIN_FRAME, number):  # once: a traceback has many frames
            _windows(g, "a traceback frame in a Windows file", line)
        if (m := scan.search(_SMI_PAIR, number)) and m.group("smi") != m.group("driver"):
            if windows_driver_beside(m.group("smi"), m.group("driver")):
                # On Linux and on Windows nvidia-smi is the driver's own (same version); in WSL the Linux nvidia-smi
                # reports the Windows driver, a different release.
                g.wsl = True
                g.wsl_said = True
                _cue(g, "NVIDIA-SMI and Driver Version differ", "WSL 2 (the Windows driver seen from Linux)", line)
            else:
                # A Linux driver of another release: an nvidia-smi binary left from (or copied from) another driver.
                _cue(g, SMI_OTHER_RELEASE, f"nvidia-smi {m.group('smi')} beside kernel driver {m.group('driver')}", line)
        if (m := scan.search(_HOST_RAM, number)) and 2 <= (
            gb := round(float(m.group("a") or m.group("b") or m.group("c")))
        ) <= 4096:
            _cue(g, HOST_RAM_SAID, f"{gb} GB", line)
        if scan.search(_KILLED, number):
            _cue(g, KILLED_SAID, "the kernel killed the program (SIGKILL): most often out of memory", line)
        if scan.search(_WSL_LIB, number) and not OLLAMA_SEARCH_PATTERNS.search(line):
            g.wsl_said = True
            _cue(g, "/usr/lib/wsl/lib", "WSL 2", line)
        if scan.search(_SLURM, number) or scan.search(_SLURM_SAID, number):
            g.cluster = g.cluster or "slurm"
            _cue(g, "Slurm", "a job on a Slurm cluster", line)
        elif scan.search(_PBS, number):
            g.cluster = g.cluster or "pbs"
            _cue(g, "PBS", "a job on a PBS cluster", line)
        elif scan.search(_LSF, number):
            g.cluster = g.cluster or "lsf"
            _cue(g, "LSF", "a job on an LSF cluster", line)
        elif scan.search(_CLUSTER_SAID, number):
            _cue(g, CLUSTER_SAID, "a cluster's node: no root, the driver is the administrators'", line)
        if scan.search(_ADMIN_SAID, number):
            _cue(g, ADMIN_SAID, "the reporter can change the cluster's configuration", line)
        if scan.search(_NOTEBOOK, number):
            _cue(g, NOTEBOOK_SAID, "run in a notebook: `!export` does not last past its line", line)
        if m := scan.search(_SETUPTOOLS_NVCC, number):
            _cue(g, SETUPTOOLS_NVCC, m.group("nvcc"), line)
    if active is not None and len(g.cues) < 64:
        name, shown_at = active
        conda = re.search(_CONDA_NAMED.format(re.escape(name)), text[:1_000_000], re.IGNORECASE | re.MULTILINE)
        g.cues.append({"cue": ENV_PROMPT, "means": name, "kind": "conda" if conda else "", "line": shown_at.strip()[:300]})
    if m := _CONTAINER_SAID.search(text[:1_000_000]):
        head = text[:1_000_000]
        runtime = "kubernetes" if _KUBERNETES_SAID.search(head) else "podman" if _PODMAN_SAID.search(head) else "docker"
        line = next((x for x in lines if _CONTAINER_SAID.search(x[:MAX_LINE])), m.group(0))
        _cue(g, CONTAINER_SAID, f"run inside a {runtime} container (the text says so)", line[:MAX_LINE])
    _import_failed(g, lines)
    _import_said_failing(g, lines)
    _jax_dated(g, lines)
    _tf_dated(g, lines)
    _ld_library_path_printed(g, lines)
    if m := _JETSON_SAID.search(text[:1_000_000]):
        line = next((x for x in lines if _JETSON_SAID.search(x[:MAX_LINE])), m.group(0))
        said = next((x[:MAX_LINE] for x in lines if _L4T_RELEASE.search(x[:MAX_LINE])), "")
        if (release := _L4T_RELEASE.search(said)) is None:
            _cue(g, JETSON_SAID, "an NVIDIA Jetson, its L4T release not shown", line[:MAX_LINE])
        else:
            l4t = release.group(3) or release.group(4) or release.group(5) or f"{release.group(1)}.{release.group(2)}"
            _cue(g, JETSON_SAID, f"an NVIDIA Jetson, L4T R{l4t}", said)
    if m := _DKMS_SAID.search(text[:1_000_000]):
        line = next((x for x in lines if _DKMS_SAID.search(x[:MAX_LINE])), m.group(0))
        _cue(g, DKMS_SAID, m.group(0), line[:MAX_LINE])
    if "could not insert" in text and (m := _MODULE_KEY_REFUSED.search(text[:1_000_000])):
        line = next((x for x in lines if _MODULE_KEY_REFUSED.search(x[:MAX_LINE])), m.group(0))
        _cue(g, MODULE_KEY_REFUSED, m.group("module"), line[:MAX_LINE])
    if m := _KERNEL_OUTSIDE_DISTRO.search(text[:1_000_000]):
        line = next((x for x in lines if _KERNEL_OUTSIDE_DISTRO.search(x[:MAX_LINE])), m.group(0))
        _cue(g, KERNEL_OUTSIDE_DISTRO, m.group("release"), line[:MAX_LINE])
    _applications(g, text[:1_000_000])
    if m := _SUSPEND_SAID.search(text[:1_000_000]):
        line = next((x for x in lines if _SUSPEND_SAID.search(x[:MAX_LINE])), m.group(0))
        _cue(g, SUSPEND_SAID, "the machine slept and woke (suspend/resume) before it failed", line[:MAX_LINE])
    if m := _OTHER_GPU.search(text[:1_000_000]):
        line = next((x for x in lines if _OTHER_GPU.search(x[:MAX_LINE])), m.group(0))
        if not _NVIDIA_NAMED.search(text[:1_000_000]):
            _cue(g, NO_NVIDIA_GPU, "no NVIDIA GPU on this machine (its only GPU named is another vendor's)", line[:MAX_LINE])
        elif _NVIDIA_MODEL.search(text[:1_000_000]):
            # A laptop's integrated Intel or AMD graphics beside its NVIDIA GPU: named as what it is, no CUDA device
            # (the NVIDIA GPU is the one the frameworks see).
            name = " ".join(m.group(0).split())
            _cue(g, OTHER_GPU_BESIDE, f"{name}: another vendor's GPU, not an NVIDIA (CUDA) device", line[:MAX_LINE])
    if "CPU" in text and (over := context_overload(text[:1_000_000])) is not None:
        ctx = f", context {over.context}" if over.context else ""
        means = f"{over.name}: {over.loaded_gb:g} GB loaded ({over.processor}{ctx}), its weights {over.weights}"
        _cue(g, OLLAMA_CONTEXT_OVERLOAD, means, over.line)
    if m := _NO_GPU_SAID.search(text[:1_000_000]):
        # (a GPU the text shows beside it wins: the checks ask gpudoctor.checks.driver.gpu_present first)
        line = next((x for x in lines if _NO_GPU_SAID.search(x[:MAX_LINE])), m.group(0))
        _cue(g, NO_GPU_SAID, "no GPU on this machine (the reporter says so)", line[:MAX_LINE])
    if GPU_GRAPH.search(text[:1_000_000]) and (
        seen := next((x for x in lines if GPU_GRAPH.search(x[:MAX_LINE]) and _GPU_WORD.search(x[:MAX_LINE])), None)
    ):
        # the GPU's load read in Task Manager, whose default graphs do not show CUDA's compute (facts.GPU_GRAPH_SAID)
        _cue(
            g, GPU_GRAPH_SAID, "Task Manager's GPU graphs: the 3D, Copy and Video engines unless Cuda is chosen", seen[:MAX_LINE]
        )
    if (m := _COMPILED_SAID.search(text[:1_000_000])) and not _PYTHON_SAID.search(text[:1_000_000]):
        line = next((x for x in lines if _COMPILED_SAID.search(x[:MAX_LINE])), m.group(0))
        _cue(g, NO_PYTHON, COMPILED_SOURCE, line[:MAX_LINE])
    elif m := _FROZEN.search(text[:1_000_000]):
        _cue(g, NO_PYTHON, "no Python to install into (a frozen program: its Python is inside the executable)", m.group(0))
    elif (native := _native_named(text[:1_000_000])) is not None and not _PYTHON_SAID.search(text[:1_000_000]):
        # (an application that is no Python program, apps.toml [[native]], and nothing of Python beside it)
        _cue(g, NO_PYTHON, f"no Python to ask about ({native[0].name}: {native[0].written_in})", native[1])
    if g.system is None and not g.wsl and not g.wsl_said and not _LINUX_SAID.search(text[:1_000_000]):
        _windows_files(g, lines)
    elif g.system is None and not g.wsl and not g.wsl_said and not _LINUX_NAMED.search(text[:1_000_000]):
        _windows_drive(g, lines)
    named: set[str] = set()
    for m in _EXTENSION.finditer(text[:1_000_000]):
        name = m.group("name").lower().replace("_", "-")
        if name not in named:
            named.add(name)
            line = next((x for x in lines if m.group(0) in x[:MAX_LINE]), m.group(0))
            _cue(g, EXTENSION_NAMED, name, line[:MAX_LINE])
    _settings(g, text[:1_000_000], lines)
    if "GPU Computing Toolkit" in text and (m := _CUDA13_WINDOWS.search(text[:1_000_000])):
        folder = re.sub(r"[\\/]{1,2}", r"\\", m.group("root"))
        line = next((x for x in lines if m.group("root") in x[:MAX_LINE]), m.group(0))
        _cue(g, CUDA13_WINDOWS_TOOLKIT, folder, line[:MAX_LINE])
    if g.system is None and not g.wsl and not g.wsl_said and (m := _WINDOWS_SAID.search(text[:1_000_000])):
        _windows(g, "Windows named", m.group(0))
    if ("' " in text or "不是内部" in text or "Invalid requirement" in text) and (m := _CMD_REFUSED.search(text[:1_000_000])):
        _windows(g, CMD_OWN_ERROR, m.group(0))
    if ("CategoryInfo" in text or "cannot be loaded" in text or "cmdlet" in text) and (m := _PS_REFUSED.search(text[:1_000_000])):
        _windows(g, PS_OWN_ERROR, m.group(0).strip())
    if g.system is None and not g.wsl and not g.wsl_said and "WindowsPath(" in text and (m := _PATHLIB_WINDOWS.search(text)):
        # pathlib's repr of a path on Windows (PosixPath elsewhere), whatever Linux-looking path it holds
        # ("WindowsPath('/usr/local/cuda/lib64')" in an old bitsandbytes' CUDA setup): Python ran on Windows.
        _windows(g, "pathlib's WindowsPath", m.group(0))
    if g.system is None and not g.wsl and not g.wsl_said and "cl.exe" in text and (m := _NVCC_CL.search(text[:1_000_000])):
        _windows(g, "nvcc looking for cl.exe", m.group(0))
    if g.system is None and not g.wsl and not g.wsl_said and not _LINUX_SAID.search(text[:1_000_000]):
        if m := _WINDOWS_TAG.search(text[:1_000_000]):
            _windows(g, "a Windows platform tag (a wheel's, a conda package's, Python's banner)", m.group(0))
        elif m := _WINDOWS_PROSE.search(text[:1_000_000]):
            _windows(g, "Windows named in prose", m.group(0))
        elif m := _WINDOWS_TOOLS.search(text[:1_000_000]):
            _windows(g, "a tool only Windows has", m.group(0))
        elif m := _windows_only_driver(text[:1_000_000]):
            _windows(g, "a Windows driver's version in nvidia-smi's header", m.group(0))
        elif m := MACOS_SAID.search(text[:1_000_000]):
            g.system = "Darwin"
            _cue(g, "macOS named", "macOS", m.group(0))
    # (last: every reading above is the program's own text or the reporter's sentence about the machine)
    if (form := read_form_platform(g, lines, bool(_LINUX_NAMED.search(text[:1_000_000])))) is not None:
        _cue(g, "an issue form's question about the platform, answered", form[0], form[1])


def _prompt_interpreter(g: Gathered, cwd: str, cmd: str, line: str, text: str) -> None:
    """A Windows prompt's command that names the interpreter by a path relative to the prompt's folder: a python.exe
    run (".\\python_embeded\\python.exe ...", ".\\.venv\\Scripts\\python.exe ..."), an environment's activation
    script ("venv\\Scripts\\activate") or a launcher that activates the venv in its folder (_VENV_LAUNCHERS): that
    python.exe by its full path (the prompt gives the folder)."""
    if g.interpreter is not None:
        return
    if rel := _REL_PYTHON.match(cmd):
        path, cue = rel.group("path"), "python.exe run from the prompt's directory"
    elif act := _ACTIVATE.match(cmd):
        path, cue = act.group("env") + "\\Scripts\\python.exe", "an environment activated at the prompt"
    elif any(w.match(cmd.strip()) and named.search(text) for named, _, w in _VENV_LAUNCHERS):
        path, cue = "venv\\Scripts\\python.exe", "a launcher that activates the venv in its folder"
    else:
        return
    # (ntpath: Windows' own joining and "..\\" folding, whatever system reads the paste)
    g.interpreter = path if re.match(r"^[A-Za-z]:\\", path) else ntpath.normpath(ntpath.join(cwd, path))
    _cue(g, cue, "the interpreter the plan must use", line)


def _prompt_venv(g: Gathered, cwd: str, cmd: str, line: str, text: str) -> None:
    """A POSIX prompt's command that names the interpreter by a path relative to the prompt's folder (an absolute or
    home-relative one is _VENV_ACTIVATED's): an environment's activation script (`. bin/activate`, `source
    venv/bin/activate`) or a launcher that activates the venv in its folder (_VENV_LAUNCHERS): <folder>/bin/python.
    Only where the prompt shows its folder from the root or the home directory (`user@host:~/x$`, `root@c:/app#`)."""
    if g.interpreter is not None or g.system == "Windows" or not (cwd.startswith(("/", "~/")) or cwd == "~"):
        return
    if act := _POSIX_ACTIVATE.match(cmd.strip()):
        env, cue = act.group("env").rstrip("/"), "an environment activated at the prompt"
    elif any(posix.match(cmd.strip()) and named.search(text) for named, posix, _ in _VENV_LAUNCHERS):
        env, cue = "venv", "a launcher that activates the venv in its folder"
    else:
        return
    if ".." in env.split("/"):
        return  # (a path that climbs out of the prompt's folder: not one to write down)
    home = cwd == "~" or cwd.startswith("~/")
    prefix = posixpath.normpath(posixpath.join(cwd[1:] or "/" if home else cwd, env or "."))
    if home:
        # (`~/...` kept as the paste wrote it: the quoting layer leaves `~/` bare for the shell to expand)
        prefix = "~" + prefix
    if prefix in ("/", "~/"):
        return
    g.interpreter = prefix + "/bin/python"
    _cue(g, cue, "the interpreter the plan must use", line)


# nvidia-smi's header where nvidia-smi and the driver are one release numbered as only Windows numbers them: NVIDIA's
# Windows drivers are <branch>.<two digits> of majors a Linux driver never had (475.14, 517.48, 531.68, 553.09: the
# R470 branch is 471-475 on Windows and 470 on Linux). The Linux (Unix) driver archive's majors since R400 are these
# branches; a two-number version of another major is a Windows driver (WSL's header names a Linux nvidia-smi beside it,
# read above as WSL; a text naming Linux or WSL never reaches this).
_LINUX_DRIVER_MAJORS = frozenset(
    {410, 415, 418, 430, 435, 440, 450, 455, 460, 465, 470, 495, 510, 515, 520, 525, 530, 535, 545, 550, 555, 560}
    | {565, 570, 575, 580, 590}
)
_SMI_SAME = re.compile(r"NVIDIA-SMI\s+(?P<smi>\d{3}\.\d{2})\s+Driver Version:\s*(?P<driver>\d{3}\.\d{2})(?![\d.])")


def _windows_only_driver(text: str) -> re.Match[str] | None:
    """nvidia-smi's header of one Windows-only driver release (475.14 beside 475.14), or None."""
    if "NVIDIA-SMI" not in text:
        return None
    for m in _SMI_SAME.finditer(text):
        major = int(m.group("driver").split(".")[0])
        if m.group("smi") == m.group("driver") and major >= 400 and major not in _LINUX_DRIVER_MAJORS:
            return m
    return None


def _windows(g: Gathered, cue: str, line: str) -> None:
    if g.wsl or g.wsl_said:
        return  # a WSL report shows Windows' side too; the program runs in Linux
    g.system = g.system or "Windows"
    _cue(g, cue, "Windows", line)


def _windows_files(g: Gathered, lines: list[str]) -> None:
    """A drive-letter path, a relative python.exe path, a .dll/.pyd/.bat/.exe name or a Python source's location with
    backslashes: Windows (the caller has seen no Linux named); a relative python.exe is the interpreter the reporter
    ran, shown as they ran it."""
    for raw in lines:
        line = raw[:MAX_LINE]
        if (m := _REL_PYTHON_ANY.search(line)) and g.interpreter is None:
            g.interpreter = m.group("path")
            _cue(g, "a Windows python.exe path", "the interpreter the plan must use", line)
        if g.system is None and (m := _WIN_PATH.search(line) or _WIN_FILE.search(line)):
            _windows(g, "a Windows path" if m.re is _WIN_PATH else "a Windows file name", line)
        elif g.system is None and "\\" in line and _WIN_SOURCE.search(line):
            _windows(g, "a Python source file's location written with Windows' separator", line)


def _windows_drive(g: Gathered, lines: list[str]) -> None:
    """A drive-letter path written with a backslash, where the only Linux in the text is a POSIX path (no Linux by
    name): the program ran on Windows and printed POSIX folders among its candidates."""
    for raw in lines:
        if _WIN_DRIVE.search(line := raw[:MAX_LINE]):
            _windows(g, "a Windows path beside POSIX search paths", line)
            return


# An issue form's field answered with nothing: "N/A", "NA", "None", "No", "-", "not installed" (the template's question
# about a framework the reporter does not use), or a field the form itself marks optional left blank (TensorRT's issue
# template: "**PyTorch Version (if applicable)**: " with nothing after it, as tests/blind/plans7/cases/612-* shows).
# transformers' `transformers-cli env` prints a framework it cannot import as "not installed" followed by its
# availability's placeholder in parentheses: "- Tensorflow version (GPU?): not installed (NA)" (huggingface/transformers,
# src/transformers/commands/env.py @026b0db8: tf_version = "not installed", tf_cuda_available = "NA",
# f"{tf_version} ({tf_cuda_available})"; the same for Flax's backend): still no framework of the reporter's.
_UNANSWERED = re.compile(
    r"^[ \t]*(?:[-*][ \t]*)?[^\n:]{1,80}:[ \t]*(?:\*\*)?[ \t]*(?:N/?A|none|no|-{1,3}|not (?:installed|used|applicable))"
    r"(?:[ \t]\((?:N/?A|none)\))?\.?[ \t]*(?:\*\*)?[ \t]*$"
    r"|^[ \t]*(?:[-*][ \t]*)?[^\n:]{1,80}\(if applicable\)(?:\*\*)?:[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)


def without_unanswered(text: str) -> str:
    """`text` without the form fields answered with nothing (_UNANSWERED): what names a component the reporter uses."""
    return _UNANSWERED.sub("", text) if _UNANSWERED.search(text) else text


def _settings(g: Gathered, head: str, lines: list[str]) -> None:
    """Where the program ran, beyond the platform: the components named, the image a GPU container was run from,
    a conda environment, a conda-forge build (gpudoctor.planner.where decides the commands from them)."""
    from gpudoctor.parsers.catalogue import components

    def line_of(pattern: re.Pattern[str], fallback: str) -> str:
        return next((x[:MAX_LINE] for x in lines if pattern.search(x[:MAX_LINE])), fallback)

    # (a form's field left unanswered, "PyTorch Version (if applicable): N/A", names nothing the reporter uses)
    answered = without_unanswered(head)
    for c in components():
        if m := c.pattern.search(answered):
            _cue(g, COMPONENT_NAMED, c.id, line_of(c.pattern, m.group(0)))
    venv = _VENV_ACTIVATED.search(head) if "/bin/activate" in head else None
    if (m := _CONDA_ENV.search(head)) and not (venv and venv.start() > m.start()):
        # (a venv activated after conda, as app launchers do: `conda activate base ; source <app>/env/bin/activate`,
        # holds the program's packages, not conda's environment)
        # (the line that holds the words found, by plain text first: the pattern runs on every line only where they
        # span two)
        said = next((x[:MAX_LINE] for x in lines if m.group(0) in x[:MAX_LINE]), None) or line_of(_CONDA_ENV, m.group(0))
        _cue(g, CONDA_ENV_SAID, "the program's packages are a conda environment's", said)
    if venv and g.interpreter is None and g.system != "Windows":
        g.interpreter = venv.group("prefix") + "/bin/python"
        _cue(g, "a virtual environment activated", "the interpreter the plan must use", line_of(_VENV_ACTIVATED, venv.group(0)))
    named_only = _SHELL_PIP.search(head) is not None and _NOTEBOOK_CELL.search(head) is None
    for tool, pattern in _PROJECT_TOOLS:  # the first that the text shows run (a uv project's `uv pip` is still uv's)
        if tool == "notebook" and named_only:
            continue
        if m := pattern.search(head):
            _cue(g, PROJECT_TOOL, tool, line_of(pattern, m.group(0)))
            break
    if m := _FEEDSTOCK.search(head):
        _cue(g, CONDA_FORGE_BUILD, m.group("pkg"), line_of(_FEEDSTOCK, m.group(0)))
    if (m := _BY_HAND.search(head)) is not None:
        _cue(g, STARTED_BY_HAND, m.group("path") or m.group("served") or "", m.group(0))
    if (m := _NO_SYSTEMD.search(head)) is not None:
        _cue(g, NO_SERVICE_MANAGER, "", line_of(_NO_SYSTEMD, m.group(0)))
    if (m := _COMPOSE_UP.search(head)) is not None:
        _cue(g, COMPOSE_STARTED, "", line_of(_COMPOSE_UP, m.group(0)))
    runs = _image_runs(head)
    images = [(image, name, line, sudo) for image, name, line, gpus, sudo in runs if gpus]
    if len({image for image, _, _, _ in images}) == 1:  # one image run with GPUs: the program that failed is its
        image, name, line, _ = images[0]
        entry = {"cue": IMAGE_RUN, "means": image, "line": line.strip()[:300]}
        if name:
            entry["container"] = name
        if all(sudo for i, _, _, sudo in images if i == image):
            entry["root"] = "sudo"  # (typed under sudo each time: the reporter's user cannot reach docker's socket)
        if entry not in g.cues and len(g.cues) < 64:
            g.cues.append(entry)
    elif not runs and (built := _DOCKERFILE.search(head)) is not None:
        # A Dockerfile that installs the program (FROM, then RUN): it runs in the image built from it, whose name the
        # paste does not give, and its Python questions are that image's.
        _image_cue(g, "", line_of(_DOCKERFILE_FROM, built.group(0).split("\n", 1)[0]), "all")
    elif len({run[0] for run in runs}) == 1 and not runs[0][0].startswith("nvidia/cuda"):
        # run without --gpus (the fault, often): still its image. (NVIDIA's CUDA base images hold no framework: one run
        # to try the GPU says nothing of where the program runs.)
        image, name, line, _, _ = runs[0]
        _image_cue(g, image, line, "", root=all(run[4] for run in runs), name=name if len(runs) == 1 else "")
    elif (sif := _SIF_RUN.search(head)) is not None:
        # An Apptainer/Singularity image the program runs in (its .sif, or the registry URI it was pulled from)
        prog = sif.group("prog") or ""
        python = prog.rsplit("/", 1)[-1] if _PYTHON_WORD.fullmatch(prog.rsplit("/", 1)[-1]) else "python3"
        root = sif.group("sudo") is not None
        _image_cue(g, sif.group("image"), sif.group(0), "nv", runtime=sif.group("tool"), python=python, root=root)
    elif (sif := _SIF_BUILD.search(head)) is not None:
        # No run shown, but the image the reporter built to run it in (from a docker image, a definition file): that
        # image's Python is the program's; its build needed root, a run of it does not (Apptainer runs images as the
        # user), so no sudo is carried.
        _image_cue(g, sif.group("image"), sif.group(0), "nv", runtime=sif.group("tool"))
    elif (sif := _SIF_SAID.search(head)) is not None:
        # An Apptainer/Singularity container said to hold the program, its image file not shown: its questions are
        # still the image's (gpudoctor.planner.where notes them inside it; with no file to name, none is wrapped)
        _image_cue(g, "", line_of(_SIF_SAID, sif.group(0)), "nv", runtime=(sif.group("tool") or sif.group("tool2")).lower())


# A program started by hand: run by its path in the current folder (`./ollama-linux-amd64`), or a server's `serve`
# typed at a prompt (`$ ollama serve`).
_BY_HAND = re.compile(
    r"(?:^|[\s(`'\"])\./(?P<path>[A-Za-z][\w.-]{1,80})|^[ \t]*[$#>][ \t]*(?:\S{1,200}/)?(?P<served>[A-Za-z][\w.-]{1,80})[ \t]+serve\b",
    re.MULTILINE,
)
# No service manager where the paste ran: the warning of Ollama's install script where `systemctl is-system-running`
# answers neither running nor degraded (ollama/ollama scripts/install.sh @3fa8daae: warning "systemd is not running"),
# and systemctl's own refusal where PID 1 is not systemd (a container, WSL without systemd).
_NO_SYSTEMD = re.compile(
    r"^[ \t]*WARNING:[ \t]*systemd is not running\b|System has not been booted with systemd as init system", re.MULTILINE
)
# `singularity exec|run|shell [options] IMAGE [program]` (Apptainer's too): the image a .sif or .simg file (.img, Singularity
# 2's), or the registry URI it is pulled from (apptainer's "exec", "run" and "shell" take the image as their first
# argument; what is typed in the shell runs in the image).
_SIF_RUN = re.compile(
    r"^[ \t]*(?:[$#][ \t]+)?(?P<sudo>sudo[ \t]+)?(?P<tool>singularity|apptainer)[ \t]+(?:exec|run|shell)\b[^\n]{0,400}?[ \t]"
    r"(?P<image>[^\s'\"]{1,300}\.(?:sif|simg|img)|(?:docker|library|oras)://[^\s'\"]{1,300})(?:[ \t]+(?P<prog>[^\s'\"]{1,200}))?",
    re.MULTILINE,
)
# The reporter saying the program runs in an Apptainer/Singularity container ("created a singularity container from
# that", "run cellbender in a singularity container", "on a machine with an H100 using singularity"): its image's.
_SIF_SAID = re.compile(
    r"\b(?P<tool>singularity|apptainer)[ \t]+(?:containers?|images?)\b(?![ \t]*(?:version|build|runtime)\b)"
    r"|\b(?:using|with|under|via|in)[ \t]+(?P<tool2>singularity|apptainer)\b(?![ \t]*(?:version|build|runtime)\b)",
    re.IGNORECASE,
)
# `singularity build [flags] IMAGE SOURCE` (Apptainer's too: "build IMAGE_PATH BUILD_SPEC", its CLI reference): the image
# file the reporter made to run the program in, typed at a prompt or quoted in backticks; flags with a value not read.
_SIF_BUILD = re.compile(
    r"^[ \t>`]*(?:[$#][ \t]+)?(?:sudo[ \t]+)?(?P<tool>singularity|apptainer)[ \t]+build(?:[ \t]+-{1,2}[a-z][\w-]*)*[ \t]+"
    r"(?P<image>[^\s'\"`-][^\s'\"`]{0,299})[ \t]+(?:docker|docker-archive|library|oras|shub):(?://)?\w",
    re.MULTILINE,
)
_PYTHON_WORD = re.compile(r"python(?:\d(?:\.\d{1,2})?)?")
# Compose starting a project's services (`docker compose up`, v1's `docker-compose up`, with a file named by -f).
_COMPOSE_UP = re.compile(r"\bdocker[- ]compose(?:[ \t]+-f[ \t]+\S{1,200})?[ \t]+up\b")
# A Dockerfile's base image and, below it, a RUN that installs: the program is built into an image (Dockerfile
# reference: FROM, RUN).
_DOCKERFILE_FROM = re.compile(r"^\s*FROM\s+[\w./:@${}-]+(?:\s+AS\s+[\w.-]+)?\s*$", re.IGNORECASE)
_DOCKERFILE = re.compile(
    r"^[ \t]*FROM[ \t]+[\w./:@${}-]+(?:[ \t]+AS[ \t]+[\w.-]+)?[ \t]*$(?:\n.{0,400}){0,60}?\n[ \t]*RUN[ \t]",
    re.IGNORECASE | re.MULTILINE,
)


# The prose around a `docker run` saying that run works: after its closing backtick ("`docker run ... sample` works
# without any issues"), or ending the line before it or its own text before it ("this sample just works fine:").
# Reporters show such a run (often NVIDIA's CUDA sample) to say the runtime is fine: the image that failed is another
# (tests/blind/plans5/cases/420-*, nvidia-container-toolkit#289). A run that "works, but" something in it fails is
# still the program's.
_WORKS_AFTER = re.compile(
    r"\s*(?:just\s+|also\s+|still\s+)?(?:works|worked|runs fine|ran fine|is working|succeeds|succeeded)\b(?![^.;\n]{0,80}\b(?:but|however|except)\b)",
    re.IGNORECASE,
)
_WORKS_BEFORE = re.compile(
    r"\b(?:works|worked|working|runs|ran)(?:\s+(?:fine|well|ok|okay|perfectly|without (?:any )?(?:issues?|problems?)))?[ \t]*:[ \t`]*\Z",
    re.IGNORECASE,
)


def _said_to_work(head: str, start: int, text: str) -> bool:
    """Whether the prose says the `docker run` at `start` (its words `text`, to the end of its line) works."""
    if "`" in text and _WORKS_AFTER.match(text.split("`", 1)[1]):
        return True
    line_start = head.rfind("\n", 0, start) + 1
    lead = head[line_start:start]
    if lead.strip(" \t`>$#"):
        return _WORKS_BEFORE.search(lead) is not None
    prev = head[head.rfind("\n", 0, max(line_start - 1, 0)) + 1 : max(line_start - 1, 0)]
    return _WORKS_BEFORE.search(prev[-300:]) is not None


def _image_runs(head: str) -> list[tuple[str, str, str, bool, bool]]:
    """Each `docker run` the text shows: (image, its --name or "", the command's first line, whether it asks for GPUs
    with --gpus, whether it was typed under sudo). The command is read as words (its backslash-continued lines joined);
    one that does not split as words is skipped, and so is one the prose says works (_said_to_work: not where the
    program failed)."""
    out = []
    for m in _DOCKER_RUN.finditer(head):
        end = m.end()
        while True:  # the command runs to the first line not continued by a backslash
            nl = head.find("\n", end)
            if nl < 0:
                end = len(head)
                break
            if head[:nl].rstrip().endswith("\\") and nl - m.start() < 4_000:
                end = nl + 1
                continue
            end = nl
            break
        if _said_to_work(head, m.start(), head[m.end() : head.find("\n", m.end()) if "\n" in head[m.end() :] else len(head)]):
            continue
        # A command quoted inline in prose ends at its closing backtick.
        text = head[m.end() : end].replace("\\\n", " ").split("`", 1)[0]
        try:
            words = shlex.split(text[:4_000])
        except ValueError:
            # A command cut inside its program's quoted argument (a paste ending mid-line): the options and the image
            # come before any quote, and are plain words there.
            words = text[:4_000].split("'", 1)[0].split('"', 1)[0].split()
        gpus, name, image = False, "", None
        i = 0
        while i < len(words):
            w = words[i]
            if not w.startswith("-"):
                image = w
                break
            opt = w.split("=", 1)[0]
            if opt == "--gpus":
                gpus = True
            if opt == "--name":
                name = w.split("=", 1)[1] if "=" in w else (words[i + 1] if i + 1 < len(words) else "")
            i += 2 if (opt in _DOCKER_VALUED and "=" not in w) else 1
        if image and _IMAGE.match(image) and (not name or re.fullmatch(r"[\w.-]{1,64}", name)):
            first = head[m.start() : head.find("\n", m.start()) if "\n" in head[m.start() :] else len(head)]
            typed = head[head.rfind("\n", 0, m.start()) + 1 : m.start()]
            out.append((image, name, first, gpus, _SUDO_BEFORE.search(typed) is not None))
    return out


# What only the Linux side prints: a shared object's name (libcublas.so.11, the loader's and every framework's load
# errors), a path under a POSIX root (/usr, /home, /sys: a traceback frame, TensorFlow's sysfs NUMA read). A URL's path
# is not one.
_LINUX_RAN = re.compile(
    r"\blib[\w+-]{1,80}\.so(?:\.\d{1,6}){0,4}\b|(?<![\w.:/~-])/(?:usr|home|opt|sys|proc|lib|lib64|etc|root|tmp|var|mnt)/[\w.-]"
)
# What only the Windows side prints or runs: a drive-letter path, a DLL or an extension module, python.exe, its prompts.
_WINDOWS_RAN = re.compile(r"(?<![\w/])[A-Za-z]:\\[\w$.-]|\b[\w.-]{1,120}\.(?:dll|pyd)\b|\bpython(?:w)?\.exe\b", re.I)


def linux_side_in_wsl(g: Gathered) -> None:
    """A report naming WSL and Windows as its OS whose own output ran on Linux is the distribution's (WSL 2).

    An issue form's OS field ("Windows 11", "Ubuntu 24.04 / Windows 11 WSL2", "Platform: Windows") says what the
    machine is; what the failing program printed says where it ran: a shared object (.so) or a POSIX path is the
    Linux side, a DLL, a drive-letter path or a Windows prompt is Windows'. With WSL named, Linux lines and no Windows
    ones make the program WSL's; both shown leave the OS as stated."""
    if g.system != "Windows" or not (g.wsl or g.wsl_said):
        return
    seen: str | None = None
    for _name, lines in g.texts:
        for raw in lines[:MAX_LINES]:
            line = raw[:MAX_LINE]
            # (each of the three needs a drive's ":\\", a .dll/.pyd or an .exe: their plain text first, as a whole
            # log pasted is thousands of lines that hold none)
            low = line.lower()
            if (":\\" in line or ".dll" in low or ".pyd" in low or ".exe" in low) and (
                _WINDOWS_RAN.search(line) or _PS.match(line) or _CMD_EXE.match(line)
            ):
                return
            if seen is None and _LINUX_RAN.search(line):
                seen = line
    if seen is None:
        return
    g.system, g.wsl = "Linux", True
    g.notes.append("WSL 2: Windows is the machine the text names, but its program's output is the Linux side's")
    _cue(g, "Linux output in a WSL report", "Linux", seen)
