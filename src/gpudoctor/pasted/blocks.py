"""Find the blocks in pasted text: each kind is recognised by itself, in any order and any mix.

A bug report mixes prose, Markdown fences, shell prompts and the outputs people were asked for. Each
recogniser below looks at one line and, when its kind starts there, says where that block ends; lines
no recogniser claims are prose (error texts in them are still read, gpudoctor.parsers.error_texts).
Nothing here judges a machine: it only cuts the text into `Block`s for gpudoctor.pasted.read.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

# The kinds, in the order they are tried, and what each is: docs/pasted.md says what each gives.
KINDS: dict[str, str] = {
    "collect_env": "python -m torch.utils.collect_env",
    "nvidia_smi": "nvidia-smi (the table)",
    "nvidia_smi_q": "nvidia-smi -q",
    "nvidia_smi_l": "nvidia-smi -L",
    "nvcc": "nvcc --version",
    "proc_driver": "/proc/driver/nvidia/version",
    "pip_list": "pip list",
    "pip_freeze": "pip freeze",
    "pip_show": "pip show",
    "uv_changes": "uv's install summary (Installed N packages, then + name==version rows)",
    "conda_list": "conda list",
    "tf_build_info": "tf.sysconfig.get_build_info()",
    "jax_env": "jax.print_environment_info()",
    "ls_cuda": "ls -l /usr/local/cuda*",
    "dmesg": "dmesg (NVRM and nouveau lines)",
    "lspci": "lspci (-n, -nn or plain)",
    "lshw": "lshw -C display (a device's description, product, vendor and configuration lines)",
    "traceback": "a Python traceback",
    "log": "a TensorFlow, JAX or glog log",
    "issue_form": "an issue template's environment fields",
    "env_rows": "collect_env's package rows without their header ([pip3] name version, [conda] name version build)",
    "ldconfig": "ldconfig -p (whole, or filtered through grep)",
    "repl": "a Python REPL session (>>> or In [n]:) with its answers, or answers written as comments",
    "prompt": "a shell command line with its prompt ($, #, PS C:\\...>, C:\\...>)",
}

MAX_LINES = 200_000  # more than any paste; the rest is not read (bounded like every input)


@dataclass(frozen=True)
class Block:
    """Lines [start, end) of one source (0-based) that hold one kind of output."""

    kind: str
    start: int
    end: int
    lines: tuple[str, ...]

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


# Markdown and e-mail decoration a paste carries in front of each line: quotes, list bullets are kept. A
# Python prompt (">>> torch.cuda.is_available()") is not a quote: the REPL's answers follow it.
_QUOTE = re.compile(r"^(?!\s*>>>(?:\s|$))(?:\s*>)+\s?")
_FENCE = re.compile(r"^\s*(?:```+|~~~+)")
_FENCE_END = re.compile(r"(?:```+|~~~+)\s*$")


# A line whose every second character is a space ("C : \\ U s e r s"): wide (UTF-16) console output copied as bytes,
# its NULs shown as spaces (its own spaces are lost with them). Twelve pairs at least, and a word in what is left, so
# that rulers and table borders ("- - - -", "| | |") stay as they are.
_SPACED = re.compile(r"(?:\S ){12,}\S?")
_WORD = re.compile(r"[A-Za-z]{4}")


def unspace(text: str) -> str:
    """`text` with its letter-spaced lines read back (one character in two); the other lines, and the line count, as
    they are. Linear."""
    if not _SPACED.search(text):  # (a run of fewer than twelve pairs fails within 24 characters: linear)
        return text
    out = []
    for line in text.split("\n"):
        body = line.rstrip()
        if len(body) >= 24 and _SPACED.fullmatch(body) and _WORD.search(body[::2]):
            out.append(body[::2])
        else:
            out.append(line)
    return "\n".join(out)


def normalise(text: str) -> list[str]:
    """Lines without carriage returns, quote markers and Markdown fences (fences become blank lines)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")[:MAX_LINES]
    out = []
    for line in lines:
        if not line or line.isspace():
            out.append("")  # a blank line (floods of them are common): nothing to strip
            continue
        line = (_QUOTE.sub("", line) if ">" in line else line).rstrip()
        if ("`" in line or "~" in line) and (m := _FENCE.match(line)):
            # A fence opens or closes a block; text on its line ("```NVIDIA GeForce RTX 5090 with ...") is
            # output, a single word after it is the block's language.
            rest = line[m.end() :].strip()
            line = "" if re.fullmatch(r"[\w+.-]*", rest) else rest
        line = _FENCE_END.sub("", line).rstrip() if "`" in line or "~" in line else line
        # Full-width colons (an IME's "GPU 0： ...") read as the ASCII colon every format uses.
        line = line.replace("\t", "    ").replace("\uff1a", ": ")
        # Typographic apostrophes read as the ASCII one every tool prints: a forum's or an IME's "couldn‘t communicate"
        # (tests/blind/plans18/cases/1866-*) or "won’t find" (tests/pasted) is the message it quotes.
        line = line.replace("\u2018", "'").replace("\u2019", "'") if "\u2018" in line or "\u2019" in line else line
        # The loader's message retyped with a slip (h269): a comma for the dot before "so" ("libcudart,so.11.0",
        # tonyyxliu/CUHKSZ-CSC4005#69) or no space after its colon ("shared libraries:libcudart.so.9.0",
        # KlausT/ccminer#149), read as the loader prints it.
        if "," in line or "libraries:" in line:
            line = _LOADER_SLIP_SPACE.sub("shared libraries: ", _SONAME_COMMA.sub(r"\g<stem>.so", line))
        out.append(line)
    return out


# (only before a version or the loader's colon: "libraries,so I tried" stays as it is)
_SONAME_COMMA = re.compile(r"\b(?P<stem>lib[\w+-]{1,80}),so(?=\.\d|:)")
_LOADER_SLIP_SPACE = re.compile(r"shared libraries:(?=[^\s:])")


# --- recognisers: (lines, i) -> end index (exclusive) when the kind starts at line i, else None -------------

_SMI_HEADER = re.compile(r"NVIDIA-SMI\s+\d+\.\d+")
_SMI_LINE = re.compile(r"^\s*[|+=]")
_TIMESTAMP = re.compile(r"^\s*(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)\s+\w{3}\s+\d+\s+\d+:\d+:\d+\s+\d{4}\s*$")


def _nvidia_smi(lines: list[str], i: int) -> int | None:
    if not _SMI_HEADER.search(lines[i]) or "Driver Version" not in lines[i]:
        return None
    j = i + 1
    while j < len(lines):
        if _SMI_LINE.match(lines[j]):
            j += 1
            continue
        # The processes table follows after a blank line.
        k = j
        while k < len(lines) and not lines[k].strip() and k - j < 3:
            k += 1
        if k < len(lines) and k > j and _SMI_LINE.match(lines[k]):
            j = k
            continue
        break
    return j


def _smi_start(lines: list[str], i: int) -> int:
    """The table's first line: its top border and the timestamp above it belong to it."""
    start = i
    if start > 0 and lines[start - 1].strip().startswith("+-"):
        start -= 1
    if start > 0 and _TIMESTAMP.match(lines[start - 1]):
        start -= 1
    return start


_SMIQ_START = re.compile(r"^\s*=+\s*NVSMI LOG\s*=+\s*$")
_SMIQ_FIELD = re.compile(r"^\s*\S[^:]{0,60}?\s+:\s*\S|^\s*\S[^:]{0,60}?\s+:\s*$")
_SMIQ_GPU = re.compile(r"^\s*GPU [0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d\s*$")


def _nvidia_smi_q(lines: list[str], i: int) -> int | None:
    start_ok = _SMIQ_START.match(lines[i]) or (
        re.match(r"^\s*Driver Version\s+:\s*\d", lines[i])
        and any(re.match(r"^\s*(CUDA Version|Attached GPUs)\s+:", x) for x in lines[i + 1 : i + 4])
    )
    if not start_ok:
        return None
    j, blanks = i + 1, 0
    while j < len(lines):
        line = lines[j]
        if not line.strip():
            blanks += 1
            if blanks > 1:
                break
        elif _SMIQ_FIELD.match(line) or _SMIQ_GPU.match(line) or line.startswith("    "):
            blanks = 0
        else:
            break
        j += 1
    return j


_NVCC = re.compile(r"nvcc: NVIDIA \(R\) Cuda compiler driver|Cuda compilation tools, release \d+\.\d+")


# "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-...)"; a MIG device line below its GPU. A paste flattened by a
# forum can hold several GPUs on one line.
SMI_L_GPU = re.compile(r"\bGPU (?P<index>\d{1,3}): (?P<name>[^()\n]{1,120}?) \(UUID: (?P<uuid>GPU-[0-9A-Fa-f-]{8,64})\)")
_SMI_L_MIG = re.compile(r"^\s+MIG [^:]{1,60}Device\s+\d+: \(UUID: MIG-")


def _nvidia_smi_l(lines: list[str], i: int) -> int | None:
    if not re.match(r"^\s*GPU \d", lines[i]) or not SMI_L_GPU.search(lines[i]):
        return None
    j = i + 1
    while j < len(lines) and (re.match(r"^\s*GPU \d", lines[j]) and SMI_L_GPU.search(lines[j]) or _SMI_L_MIG.match(lines[j])):
        j += 1
    return j


def _nvcc(lines: list[str], i: int) -> int | None:
    if not _NVCC.search(lines[i]):
        return None
    j = i + 1
    while j < len(lines) and j < i + 5 and re.search(r"Copyright|Built on|Cuda compilation tools|^\s*Build cuda", lines[j]):
        j += 1
    return j


def _proc_driver(lines: list[str], i: int) -> int | None:
    if not re.search(r"NVRM version:\s+NVIDIA", lines[i]):
        return None
    j = i + 1
    if j < len(lines) and re.search(r"GCC version:", lines[j]):
        j += 1
    return j


_CE_START = re.compile(r"^\s*(?:Collecting environment information|PyTorch version\s*:?\s*\d)")
_CE_KEY = re.compile(r"^\s*[A-Za-z][A-Za-z0-9 ./()_\-,'/]{0,70}:(?:\s|$)")
# vLLM's collect_env (vllm-project/vllm, vllm/collect_env.py @030ea52e, env_info_fmt) rules its sections with a line of
# "=" under and over each title ("       PyTorch Info") and pads its keys to one column ("PyTorch version              : ").
_CE_OTHER = re.compile(
    r"^\s*(?:\[(?:pip3?|conda)\]\s|GPU \d+:|/|[A-Za-z]:\\|Versions of relevant libraries|Probably one of the following|"
    r"Collecting environment information|\w[\w-]*==|={10,}\s*$)"
)


def _collect_env(lines: list[str], i: int) -> int | None:
    if not _CE_START.match(lines[i]):
        return None
    if lines[i].lstrip().startswith("PyTorch version") and not any(
        re.match(r"^\s*(Is debug build|CUDA used to build PyTorch|OS|Os|Is CUDA available)\s*:", x) for x in lines[i + 1 : i + 8]
    ):
        return None
    j, blanks, last = i + 1, 0, i + 1
    while j < len(lines):
        line = lines[j]
        if not line.strip():
            blanks += 1
            if blanks > 2:
                break
        elif _CE_KEY.match(line) or _CE_OTHER.match(line) or line.startswith(("  ", "\t")):
            blanks = 0
            last = j + 1
        else:
            break
        j += 1
    return last


_PIP_HEADER = re.compile(r"^\s*Package\s+Version(?:\s+\w.*)?$")
_PIP_RULE = re.compile(r"^\s*-{3,}\s+-{3,}")
# A version with a dot (2.1.0+cu121, 1.26.4): "MIG 2g.12gb Device 0" or "drwxr-xr-x 15" is not a row.
_PIP_ROW = re.compile(r"^\s*[A-Za-z0-9][\w.\-]*\s+v?\d+\.\d[\w.+!\-]*(?:\s+\S.*)?$")
_FREEZE_ROW = re.compile(r"^\s*[A-Za-z0-9][\w.\-]*(?:\[[^\]]*\])?\s*(?:===?\s*\S+|@\s+\S+)\s*$")
_CONDA_HEADER = re.compile(r"^\s*#\s*(?:packages in environment at|Name\s+Version\s+Build)")
_CONDA_ROW = re.compile(r"^\s*[A-Za-z0-9_][\w.\-]*\s+\d[\w.+!\-]*\s+\S+(?:\s+\[\w+\])?(?:\s+\S+)?\s*$")
# Package names that make even one row of a list worth reading.
_WANTED = re.compile(
    r"^\s*(?:torch|pytorch|tensorflow[\w-]*|tf-nightly|jax|jaxlib|jax-cuda\d+-\w+|nvidia-[\w-]+|cudatoolkit|cudnn|"
    r"cuda-[\w-]+|pytorch-cuda|cpuonly|torchvision|torchaudio|tensorrt|onnxruntime-gpu|paddlepaddle-gpu)\s"
)


def _rows(lines: list[str], j: int, row: re.Pattern[str]) -> int:
    while j < len(lines) and (row.match(lines[j]) or (not lines[j].strip() and j + 1 < len(lines) and row.match(lines[j + 1]))):
        j += 1
    return j


def _pip_list(lines: list[str], i: int) -> int | None:
    if _PIP_HEADER.match(lines[i]) and i + 1 < len(lines) and _PIP_RULE.match(lines[i + 1]):
        return _rows(lines, i + 2, _PIP_ROW)
    if _PIP_ROW.match(lines[i]) and not _CONDA_LIKE.match(lines[i]):
        end = _rows(lines, i, _PIP_ROW)
        rows = [x for x in lines[i:end] if x.strip()]
        if len(rows) >= 3 or any(_WANTED.match(x + " ") for x in rows):
            return end
    return None


# A header-less conda row: a build string in the third column (py310_cu121, pypi_0, h2b6a5b3_0, cuda112...).
_CONDA_LIKE = re.compile(
    r"^\s*[A-Za-z0-9_][\w.\-]*\s+\d[\w.+!\-]*\s+(?:pypi_\d+|py\S*|h[0-9a-f]{6,}\S*|cuda\S*|cpu\S*|\S*_\d+\S*|\d+)"
    r"(?:\s+\[\w+\])?(?:\s+(?:pypi|conda-forge|pytorch|nvidia|defaults|anaconda|main|[\w-]+))?\s*$"
)


def _conda_list(lines: list[str], i: int) -> int | None:
    if _CONDA_HEADER.match(lines[i]):
        j = i + 1
        while j < len(lines) and (_CONDA_HEADER.match(lines[j]) or lines[j].strip() in ("#", "")):
            if not lines[j].strip() and not (
                j + 1 < len(lines) and (_CONDA_ROW.match(lines[j + 1]) or lines[j + 1].startswith("#"))
            ):
                break
            j += 1
        return _rows(lines, j, _CONDA_ROW)
    if _CONDA_LIKE.match(lines[i]):
        end = _rows(lines, i, _CONDA_ROW)
        rows = [x for x in lines[i:end] if x.strip()]
        if len(rows) >= 2 or any(_WANTED.match(x) for x in rows):
            return end
    return None


def _pip_freeze(lines: list[str], i: int) -> int | None:
    if not _FREEZE_ROW.match(lines[i]):
        return None
    end = _rows(lines, i, _FREEZE_ROW)
    rows = [x for x in lines[i:end] if x.strip()]
    if len(rows) >= 2 or any(_WANTED.match(x.replace("=", " ", 1)) for x in rows):
        return end
    return None


def _pip_show(lines: list[str], i: int) -> int | None:
    if not (re.match(r"^\s*Name:\s*\S+\s*$", lines[i]) and i + 1 < len(lines) and re.match(r"^\s*Version:\s*\S+", lines[i + 1])):
        return None
    j = i + 2
    while j < len(lines) and re.match(
        r"^\s*(Summary|Home-page|Author|Author-email|License|Location|Requires|Required-by|Editable project location):", lines[j]
    ):
        j += 1
    return j


# uv's summary of what an install changed (astral-sh/uv, crates/uv/src/commands/pip/loggers.rs at 26a9dd4b: `Installed
# {count} package{s} in {elapsed}`, or Uninstalled / Would install, then one row per distribution, sorted by name:
# " + name==version" installed, " - name==version" removed, " ~ name==version" reinstalled). The header is required:
# a bulleted "- torch==2.1.0" in prose is not uv's.
_UV_HEADER = re.compile(
    r"^\s*(?:(?:Installed|Uninstalled|Would install|Would uninstall)\s+\d+\s+packages?\b|Audited\s+\d+\s+packages?\b)"
)
_UV_ROW = re.compile(r"^\s?[+\-~] (?P<name>[A-Za-z0-9][\w.\-]*)(?:\[[^\]\n]{0,200}\])?(?:==(?P<version>[\w.+!\-]+)| @ \S+)\s*$")


def _uv_changes(lines: list[str], i: int) -> int | None:
    if not _UV_HEADER.match(lines[i]):
        return None
    j = i + 1
    while j < len(lines) and j < i + 4 and not _UV_ROW.match(lines[j]) and _UV_HEADER.match(lines[j]):
        j += 1  # "Uninstalled 1 package in 5ms" then "Installed 2 packages in 30ms"
    end = j
    while end < len(lines) and _UV_ROW.match(lines[end]):
        end += 1
    return end if end > j else None


_TF_INFO = re.compile(
    r"(?:OrderedDict\(\[\s*\(|\{\s*)'(?:cpu_compiler|cuda_compute_capabilities|cuda_version|is_cuda_build|msvcp_dll_names)'"
)


def _tf_build_info(lines: list[str], i: int) -> int | None:
    if not _TF_INFO.search(lines[i]):
        return None
    depth, j = 0, i
    while j < len(lines) and j < i + 40:
        depth += lines[j].count("(") + lines[j].count("[") + lines[j].count("{")
        depth -= lines[j].count(")") + lines[j].count("]") + lines[j].count("}")
        j += 1
        if depth <= 0:
            break
    return j


_JAX_KEY = re.compile(
    r"^\s*(?:jax|jaxlib|numpy|python|device info|process_count|platform|jax\.devices|cuda|cudnn|XLA_PYTHON_CLIENT_\w+|"
    r"JAX_\w+|\w+\.\w+\s*\(|\$ nvidia-smi)\b"
)


def _jax_env(lines: list[str], i: int) -> int | None:
    if not (re.match(r"^\s*jax:\s+\d", lines[i]) and i + 1 < len(lines) and re.match(r"^\s*jaxlib:\s+\d", lines[i + 1])):
        return None
    j = i + 2
    while j < len(lines) and (_JAX_KEY.match(lines[j]) and not lines[j].lstrip().startswith("$ nvidia-smi")):
        j += 1
    return j


_LS_ROW = re.compile(
    r"^\s*[-ldcbps][rwxsStT-]{9}[.+@]?\s+\d+\s+\S+\s+\S+\s+[\d,]+\s+(?:\w{3}\s+\d{1,2}|\d{1,2}\s+\w{3}|\d{4}-\d\d-\d\d)\s+[\d:]{4,5}\s+\S"
)
_LS_HEADING = re.compile(r"^\s*(/\S*?):\s*$")
_LS_TOTAL = re.compile(r"^\s*total \d+\s*$")


def _ls(lines: list[str], i: int) -> int | None:
    if not (
        _LS_ROW.match(lines[i])
        or (_LS_HEADING.match(lines[i]) and i + 1 < len(lines) and (_LS_ROW.match(lines[i + 1]) or _LS_TOTAL.match(lines[i + 1])))
    ):
        return None
    j = i
    while j < len(lines) and (
        _LS_ROW.match(lines[j]) or _LS_HEADING.match(lines[j]) or _LS_TOTAL.match(lines[j]) or not lines[j].strip()
    ):
        if not lines[j].strip() and not (j + 1 < len(lines) and (_LS_ROW.match(lines[j + 1]) or _LS_HEADING.match(lines[j + 1]))):
            break
        j += 1
    return j


_LSPCI = re.compile(r"^\s*(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7] [^:]{1,80}: \S")


def _lspci(lines: list[str], i: int) -> int | None:
    if not _LSPCI.match(lines[i]):
        return None
    j = i + 1
    while j < len(lines) and (_LSPCI.match(lines[j]) or lines[j].startswith(("\t", "        ")) and lines[j].strip()):
        j += 1
    return j


# lshw -C display: a device opens with "*-display" (or, pasted without it, its "description:" line naming a display
# class) and goes on with indented "key: value" lines; "configuration:" carries "driver=<the kernel driver bound>".
_LSHW_START = re.compile(r"^\s*(?:\*-display\b|description: (?:VGA compatible|3D|Display) controller\s*$)")
_LSHW_LINE = re.compile(r"^\s*(?:\*-[\w:]+\s*(?:UNCLAIMED)?\s*$|[a-z][a-z ]{1,20}: \S)")


def _lshw(lines: list[str], i: int) -> int | None:
    if not _LSHW_START.match(lines[i]):
        return None
    j = i + 1
    while j < len(lines) and _LSHW_LINE.match(lines[j]):
        j += 1
    return j


_DMESG = re.compile(r"NVRM:|\bnouveau [0-9a-f]{4}:|\bnvidia(?:-modeset|-uvm|-drm|_uvm)?: |\bnvidia \d{4}:[0-9a-f]{2}:")


def _dmesg_line(line: str) -> bool:
    # The words first (a substring test is far cheaper than the pattern on a long line of other text).
    return ("NVRM:" in line or "nouveau" in line or "nvidia" in line) and _DMESG.search(line) is not None


def _dmesg(lines: list[str], i: int) -> int | None:
    if not _dmesg_line(lines[i]):
        return None
    j = i + 1
    while j < len(lines) and _dmesg_line(lines[j]):
        j += 1
    return j


def _traceback(lines: list[str], i: int) -> int | None:
    if not lines[i].lstrip().startswith("Traceback (most recent call last)"):
        return None
    j = i + 1
    while j < len(lines) and j < i + 2000:
        line = lines[j]
        if line.startswith((" ", "\t")) or not line.strip():
            j += 1
            continue
        if re.match(r"^[\w.]+(?:Error|Exception|Exit|Interrupt|Warning)\b|^[\w.]+:", line):
            j += 1
            # A message may continue over the following lines up to a blank line.
            while j < len(lines) and lines[j].strip() and not _LOG.match(lines[j]) and j < i + 2000:
                if lines[j].lstrip().startswith("Traceback ("):
                    break
                j += 1
            return j
        if re.match(r"^(During handling|The above exception)", line):
            j += 1
            continue
        return j
    return j


_LOG = re.compile(
    r"^\s*(?:\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?:?\s+[IWEFC]\s|[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+\s+\S+:\d+\]|"
    r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:[.,]\d+)?:? (?:I|W|E|F|INFO|WARNING|ERROR) )"
)


def _log(lines: list[str], i: int) -> int | None:
    if not _LOG.match(lines[i]):
        return None
    j = i + 1
    while j < len(lines) and (_LOG.match(lines[j]) or (lines[j].startswith((" ", "\t")) and lines[j].strip())):
        j += 1
    return j


_FORM = re.compile(
    r"^\s*(?:[-*]\s*)?(?:\*\*)?(?P<key>(?:OS|Operating systems?|Platform|TensorFlow|Tensorflow|PyTorch|Pytorch|Torch|Python|CUDA|"
    r"cuDNN|GPU|Nvidia driver|NVIDIA driver|Driver|JAX|jaxlib|TensorRT)\b[^:\n]{0,80}?)(?:\*\*)?\s*:\s*(?:\*\*)?\s*(?P<value>\S.{0,200})$"
    # An issue form copied without its markup loses the colon: "TensorFlow version 2.17.0",
    # "OS platform and distribution Windows 11".
    r"|^\s*(?P<key2>(?:TensorFlow|PyTorch|Python|JAX) version|OS platform and distribution)\s+(?P<value2>\S.{0,200})$"
    # A list typed by hand glues the name to its version, one a line ("CUDA9.2", "python3.6.2", "torch1.3.0", "cudnn7.0"):
    # the whole line is the field, so nothing else on it can be read as one.
    r"|^\s*(?:[-*]\s*)?(?P<key3>CUDA|cuDNN|Python|PyTorch|Torch)(?P<value3>\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)\s*$",
    re.IGNORECASE,
)


# The interpreter's own banner ("Python 3.12.9 (main, Feb 12 2025, 14:50:50) [Clang 19.1.6 ] on linux"): its first
# colon is the build time's, so read as a field it gave the compiler's version as Python's.
_BANNER = re.compile(r"^\s*Python (?P<version>\d+\.\d+\.\d+\w*\+?) \([^()\n]{0,120}\)\s*\[")


def form_field(line: str) -> tuple[str, str] | None:
    """(key, value) of an environment field of an issue template, with or without its colon."""
    if banner := _BANNER.match(line):
        return ("Python", banner.group("version"))
    m = _FORM.match(line)
    if m is None:
        return None
    for key, value in (("key", "value"), ("key2", "value2"), ("key3", "value3")):
        if m.group(key):
            return (m.group(key), m.group(value))
    return None


# GitHub's issue forms render each field as a heading with the answer below it ("### TensorFlow version", "", "2.14.0").
_HEADING = re.compile(r"^\s*#{2,4}\s+(?P<key>\S.{0,80}?)\s*$")


def heading_pairs(lines: list[str] | tuple[str, ...]) -> list[tuple[str, str]]:
    """(heading, the first line under it) for each heading of an issue form in `lines`."""
    out = []
    for i, line in enumerate(lines):
        m = _HEADING.match(line)
        if not m:
            continue
        for nxt in lines[i + 1 : i + 4]:
            if nxt.strip():
                if not _HEADING.match(nxt):
                    out.append((m.group("key"), nxt.strip()))
                break
    return out


def _issue_form(lines: list[str], i: int) -> int | None:
    if _HEADING.match(lines[i]):
        # A run of headings, each with at most one line of answer; one of them an environment field.
        j, after_heading, fields = i, False, 0
        while j < len(lines):
            line = lines[j]
            if m := _HEADING.match(line):
                after_heading = True
                fields += bool(_FORM.match(m.group("key") + ": x"))
            elif line.strip():
                if not after_heading:
                    break
                after_heading = False
            j += 1
        return j if fields else None
    if not _FORM.match(lines[i]):
        return None
    j = i + 1
    while j < len(lines) and (
        _FORM.match(lines[j]) or (not lines[j].strip() and j + 1 < len(lines) and _FORM.match(lines[j + 1]))
    ):
        j += 1
    return j


_ENV_ROW = re.compile(r"^\s*\[(?:pip3?|conda)\]\s+\S")


def _env_rows(lines: list[str], i: int) -> int | None:
    """collect_env's `[pip3] torch==2.1.0` / `[conda] pytorch 2.1.0 py3.10_cuda12.1_cudnn8.9.2_0 pytorch` rows, pasted
    without the lines above them (a reply that quotes only the package part)."""
    if not _ENV_ROW.match(lines[i]):
        return None
    return _rows(lines, i, _ENV_ROW)


_LDC_HEADER = re.compile(r"^\s*\d+ libs found in cache\b")
_LDC_ROW = re.compile(r"^\s*[\w+.-]{1,200}\.so[\w.]{0,40}\s+\([^()\n]{0,80}\)\s+=>\s+/\S+\s*$")


def _ldconfig(lines: list[str], i: int) -> int | None:
    if not (_LDC_HEADER.match(lines[i]) or _LDC_ROW.match(lines[i])):
        return None
    return _rows(lines, i + 1, _LDC_ROW)


# A Python prompt with an expression whose answer follows on the next line, or sits in a comment after it.
_REPL = re.compile(r"^\s*(?:>>>|In \[\d+\]:)\s*\S")
_REPL_MORE = re.compile(r"^\s*(?:>>>|\.\.\.|In \[\d+\]:|Out\[\d+\]:)")
_ANSWERED = re.compile(
    r"^\s*(?:print\()?(?:torch|tf|tensorflow|jax|jaxlib)\.(?:__version__|version\.cuda|version\.cudnn|"
    r"cuda\.is_available\(\)|test\.is_built_with_cuda\(\)|backends\.cudnn\.version\(\)|devices\(\))\)?\s*#\s*\S"
)


def _repl(lines: list[str], i: int) -> int | None:
    if not (_REPL.match(lines[i]) or _ANSWERED.match(lines[i])):
        return None
    j = i + 1
    while j < len(lines) and j < i + 400 and lines[j].strip():
        # Prompts and their answers up to a blank line; output another recogniser claims (a traceback, a build
        # info dict, a table) is its own block.
        if not _REPL_MORE.match(lines[j]) and any(
            kind != "repl" and recognise(lines, j) is not None for kind, recognise in RECOGNISERS
        ):
            break
        j += 1
    return j


_PROMPT = re.compile(
    r"^\s*(?:\((?:container|host|[\w.-]{1,60})\)\s*)?(?:[\w.-]{1,40}@[\w.-]{1,64}:[^\s$#]{0,200}\s?[$#]|~?[\w/.~-]{0,200}\$|"
    r"PS [A-Za-z]:\\[^>\n]{0,300}>|[A-Za-z]:\\[^<>|\n\"]{0,300}>)\s*\S"
)


def _prompt(lines: list[str], i: int) -> int | None:
    """One command line with its prompt: the output below it is read by its own recogniser."""
    return i + 1 if _PROMPT.match(lines[i]) else None


RECOGNISERS: tuple[tuple[str, Callable[[list[str], int], int | None]], ...] = (
    ("collect_env", _collect_env),
    ("nvidia_smi", _nvidia_smi),
    ("nvidia_smi_q", _nvidia_smi_q),
    ("nvidia_smi_l", _nvidia_smi_l),
    ("nvcc", _nvcc),
    ("proc_driver", _proc_driver),
    ("tf_build_info", _tf_build_info),
    ("jax_env", _jax_env),
    ("ls_cuda", _ls),
    ("conda_list", _conda_list),
    ("pip_list", _pip_list),
    ("pip_freeze", _pip_freeze),
    ("pip_show", _pip_show),
    ("uv_changes", _uv_changes),
    ("lspci", _lspci),
    ("lshw", _lshw),
    ("dmesg", _dmesg),
    ("traceback", _traceback),
    ("log", _log),
    ("issue_form", _issue_form),
    ("env_rows", _env_rows),
    ("ldconfig", _ldconfig),
    ("repl", _repl),
    ("prompt", _prompt),
)


def find_blocks(text: str) -> list[Block]:
    """The recognised blocks of `text`, in order; lines between them are not returned."""
    lines = normalise(text)
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        if not lines[i].strip():
            i += 1
            continue
        for kind, recognise in RECOGNISERS:
            end = recognise(lines, i)
            if end is not None and end > i:
                start = _smi_start(lines, i) if kind == "nvidia_smi" else i
                if blocks and start < blocks[-1].end:
                    start = blocks[-1].end
                blocks.append(Block(kind, start, end, tuple(lines[start:end])))
                i = end
                break
        else:
            i += 1
    return blocks


# --- source code is not output -------------------------------------------------------------------------------
# A script the reporter pasted (Python, a shell script, a Dockerfile's RUN line, C++) holds the messages it would
# print when something fails: "return 'nvidia-smi not found...'" in an except clause, 'echo "CUDA not found"' in an
# if, 'raise RuntimeError("...")'. They are the program's text, not what the machine printed; only output lines are
# evidence. A line is a statement when it starts with a keyword or call that prints, returns, raises or tests (after
# a REPL or shell-continuation prompt), or assigns a string literal; its string literals are blanked (same length,
# so positions hold) and the code around them kept: ">>> print(torch.cuda.is_available())" still reads with its answer.
_CODE_STATEMENT = re.compile(
    r"^\s*(?:(?:>>>|\.\.\.|In \[\d+\]:)\s+)?(?:RUN\s+)?"
    r"(?:return\b|raise\b|yield\b|assert\b|throw\b|(?:if|elif|while|except)\b(?=[^\n]*(?::\s*(?:#.*)?$|:\s*(?:print|return|raise)\b|;\s*then\b))"
    r"|echo\s|printf\b|print\s*\(|f?printf\s*\(|puts\s*\(|std::c(?:err|out)\b|Write-(?:Host|Output|Error)\b"
    r"|(?:logger|logging|log|LOG|sys|st)\.\w+\s*\("
    # an assignment of a literal: spaced as Python writes it, or the whole line (a shell's MSG="..."); a log's
    # key=value pairs (logfmt: msg="..." library=...) are output
    r"|[A-Za-z_][\w.\[\]'\"]*(?:\s+\+?=\s+|\+?=(?=[rbfuRBFU]{0,2}(?:\"[^\"]*\"|'[^']*')\s*;?\s*$))[rbfuRBFU]{0,2}[\"'])"
)
_LITERAL = re.compile(r"\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'")


def _blank(m: re.Match[str]) -> str:
    s = m.group(0)
    return s[0] + " " * (len(s) - 2) + s[-1]


# Python prints a source line itself under a traceback's frame ('File "x.py", line 3, in f') and under a warning
# ("x.py:3: UserWarning: ..."): that line is output, the statement that ran. (warnings.warn(...) alone is what
# reports quote of a warning's display, so it is not read as code either.)
_ECHOED_BY = re.compile(r'^\s*File "[^"\n]{1,400}", line \d+|:\d+: \w{0,40}Warning: ')


def output_only(lines: list[str]) -> list[str]:
    """`lines` with the string literals of source-code statements blanked: what a program would print is not what
    it printed. Output lines, source lines Python echoed, and the code outside literals stay; the line count holds.
    Linear."""
    out = []
    for i, line in enumerate(lines):
        code = ('"' in line or "'" in line) and _CODE_STATEMENT.match(line)
        echoed = code and i > 0 and _ECHOED_BY.search(lines[i - 1][:2_000])
        out.append(_LITERAL.sub(_blank, line) if code and not echoed else line)
    return out
