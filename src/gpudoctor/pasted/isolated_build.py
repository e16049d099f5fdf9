"""The torch an extension's build compiled against, where it is not the installed one.

torch.utils.cpp_extension compares the nvcc it found with torch.version.cuda of the torch the build imports ("The
detected CUDA version (X) mismatches the version that was used to compile PyTorch (Y)", pytorch/pytorch
torch/utils/cpp_extension.py @26e79290). pip builds a package in an isolated environment of its own by default,
into which it installs the package's declared build requirements (a `torch==2.1.2` there comes from the default
index, whose build is that release's default CUDA variant), never the torch installed beside it (pip's documentation,
"Build System Interface": build isolation; --no-build-isolation turns it off). So where the installed torch's own
tag (+cu118) names another CUDA major than the message's PyTorch (12.1), the message is about the isolated torch:
the installed torch is not the one to move, and the toolkit is not either when it is of the installed torch's CUDA.

Read here, after the error texts and the installed torch's version are read (gpudoctor.pasted.read):
- the installed torch's tag where a listing, a REPL or the reporter's own "(re)installed pytorch 2.0.1+cu118" shows it;
- the message's PyTorch CUDA; where their majors differ, the cue ISOLATED_BUILD_TORCH, and the installed torch keeps
  its own CUDA (the message's is not written over it).
"""

from __future__ import annotations

import re

from gpudoctor.facts import ISOLATED_BUILD_TORCH
from gpudoctor.pasted.gathered import Gathered

# The reporter stating the torch build they installed, in the past or as done before the build ("I pre-install
# pytorch=2.0.1+cu11.8", "reinstall pytorch with 2.0.1+cu118", "installed torch==2.1.2+cu118"): the tag is required,
# since only a tagged version states the build; a bare "install" is advice or a plan, not what was done.
_STATED = re.compile(
    r"\b(?:pre-?install(?:ed)?|re-?install(?:ed)?|installed)[ \t]+(?:py)?torch[ \t]*(?:={1,2}|[ \t]with[ \t]|[ \t]v?)[ \t]*"
    r"(?P<version>\d+\.\d+\.\d+)\+cu(?P<major>\d{2})\.?(?P<minor>\d)(?![\w.])",
    re.IGNORECASE,
)
_TAG = re.compile(r"\+cu(\d{2,3})(\d)$")


def _stated_torch(g: Gathered) -> tuple[str, str] | None:
    for _name, lines in g.texts:
        for line in lines[:200_000]:
            if m := _STATED.search(line[:2_000]):
                return f"{m.group('version')}+cu{m.group('major')}{m.group('minor')}", f"{m.group('major')}.{m.group('minor')}"
    return None


def read_isolated_build(g: Gathered) -> None:
    """The cue ISOLATED_BUILD_TORCH where the message's PyTorch is of another CUDA major than the installed torch's tag
    (the module's docstring)."""
    said = [e for e in g.errors if e.kind == "cuda-version-detected-mismatch" and e.get("torch")]
    if not said:
        return
    version = g.torch_version or g.distributions.get("torch") or ""
    tag = _TAG.search(version)
    own = f"{tag.group(1)}.{tag.group(2)}" if tag else None
    stated = None
    if own is None and not version and (stated := _stated_torch(g)) is not None:
        version, own = stated
    if own is None:
        return
    e = said[0]
    theirs = e.get("torch") or ""
    if own.split(".")[0] == theirs.split(".")[0]:
        return
    if stated is not None:
        g.torch_version = g.distributions["torch"] = version
        if "torch" not in g.frameworks:
            g.frameworks.append("torch")
        g.notes.append(f"torch {version}: the build the reporter says they installed")
    if g.torch_cuda in (None, theirs):
        g.torch_cuda = own  # the installed torch's own CUDA, not the isolated build's
    g.notes.append(
        f"PyTorch (CUDA {theirs}) in cpp_extension's message is not the installed torch {version}: another torch built it"
    )
    if len(g.cues) < 64:
        g.cues.append({"cue": ISOLATED_BUILD_TORCH, "means": f"{own}|{theirs}", "line": e.line[:300]})
