"""Versions a program prints of the libraries it loaded, read from any line it printed, into typed facts.

A framework logs the cuDNN it opened, not the one it was built with nor the one the environment installed: Paddle's
"device: 0, cuDNN Version: 5.1." (PaddlePaddle/Paddle paddle/phi/backends/gpu/gpu_resources.cc @00816fcb, from
cudnnGetVersion() of the library its dynamic loader opened), TensorFlow's and XLA's "Loaded cuDNN version 8100"
(openxla/xla xla/stream_executor/cuda/cuda_dnn.cc @a51b0f55: `LOG(INFO) << "Loaded cuDNN version " <<
cudnnGetVersion()`), CuPy's show_config row "cuDNN Version : 7605" beside its "cuDNN Build Version". The version is a
fact of the process that ran; where the paste also shows the cuDNN the program was built for or the environment holds
(a form's or `paddle.version.show()`'s "cudnn: 8.2.1", conda's row, NVIDIA's cudnn wheel) and the loaded one is of an
older major, another copy was found first by the loader: the existing decision of a cuDNN older than its build
(`cudnn-version-mismatch`, judged by gpudoctor.checks.reported) is fed, with the line that printed it.

Only the program's own forms are read: a form field the reporter filled ("CUDNN Version: 8.0"), collect_env's row
("cuDNN version: Could not collect"), a version of any other program ("ffmpeg version 6.0") are not a loaded library.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from gpudoctor.lazypattern import LazyPattern
from gpudoctor.parsers.error_texts import ErrorEvidence
from gpudoctor.record import Record, record_class
from gpudoctor.versions import cudnn_from_int

if TYPE_CHECKING:
    from gpudoctor.pasted.gathered import Gathered

# The forms programs print the cuDNN they loaded in: Paddle's device line (major.minor, then a full stop), the
# TensorFlow/XLA line (cudnnGetVersion()'s integer), CuPy's show_config row of the runtime (its build row says
# "cuDNN Build Version" and is not read).
_LOADED = LazyPattern(
    r"\bdevice: \d{1,3}, cuDNN Version: (?P<dotted>\d{1,2}\.\d{1,2})\."
    r"|\bLoaded cuDNN version (?P<number>\d{4,6})\b"
    r"|^[ \t]{0,4}cuDNN Version[ \t]{0,20}:[ \t]{0,4}(?P<cupy>\d{4,6})[ \t]*$",
    0,
)
# What the paste says is held beside it, by its package names (conda's cudnn, NVIDIA's cudnn wheels).
_HELD_PACKAGES = ("cudnn", "nvidia-cudnn-cu12", "nvidia-cudnn-cu11", "nvidia-cudnn")


@record_class(frozen=True, eq=False, repr=False)
class Printed(Record):
    """One version a program printed of a library it loaded: the component ("cudnn"), the version as major.minor[.patch]
    and the line it was read from (stripped, at most 300 characters)."""

    component: str
    version: str
    line: str
    program: str = ""  # the program whose own form it is, where only one prints it (Paddle's device line)


def printed_versions(lines: Iterable[str]) -> list[Printed]:
    """The loaded library versions programs print in `lines`, in order. Never raises; a line without the words is
    not searched."""
    out: list[Printed] = []
    for line in lines:
        if "cuDNN" not in line or len(out) >= 20:
            continue
        m = _LOADED.search(line[:2_000])
        if m is None:
            continue
        program = ""
        if m.group("dotted"):
            version, program = m.group("dotted"), "Paddle"
        else:
            number = int(m.group("number") or m.group("cupy"))
            if number < 1000:
                continue
            version = cudnn_from_int(number)
        out.append(Printed("cudnn", version, line.strip()[:300], program))
    return out


def _major(version: str) -> int | None:
    head = version.split(".")[0]
    return int(head) if head.isdigit() and len(head) <= 2 else None


def held_cudnn(g: Gathered) -> tuple[str, str] | None:
    """The cuDNN the paste says the program was built for or its environment holds: (version, where it was said)."""
    for e in g.errors:
        if e.kind == "cudnn-version-said" and (v := e.get("cudnn")) and _major(v):
            return v, e.line
    for name in _HELD_PACKAGES:
        if (v := g.distributions.get(name)) and _major(v):
            return v, name
    return None


def loaded_older(g: Gathered, lines: Iterable[str]) -> list[ErrorEvidence]:
    """The evidence of a cuDNN loaded of an older major than the one held (held_cudnn), one per paste: the loaded line
    cited, the held version as the one compiled for. A loaded cuDNN of the held major, or none held, decides nothing."""
    if any(e.kind == "cudnn-version-mismatch" for e in g.errors):
        return []  # the program's own warning says it already, with its two versions
    held = held_cudnn(g)
    if held is None:
        return []
    for p in printed_versions(lines):
        loaded, want = _major(p.version), _major(held[0])
        if loaded is not None and want is not None and loaded < want:
            values = (("loaded", p.version), ("compiled", held[0]), ("held", "1"))
            return [ErrorEvidence("cudnn-version-mismatch", p.line, values + ((("program", p.program),) if p.program else ()))]
    return []
