"""Read the cuDNN version from cudnn_version.h (cuDNN 8+) or cudnn.h (cuDNN 7 and older).

cuDNN 8+ moved CUDNN_MAJOR/MINOR/PATCHLEVEL out of cudnn.h, which then only #includes cudnn_version.h.
"""

from __future__ import annotations

import re

from gpudoctor.errors import ParseError
from gpudoctor.parsers._common import require_text


class CudnnVersionMacrosMissing(ParseError):
    """The header is cuDNN 8+'s cudnn.h, which #includes cudnn_version.h instead of defining the version.

    Not a broken file: read cudnn_version.h from the same include directory instead.
    """


def _macro(text: str, name: str) -> int | None:
    match = re.search(rf"^[ \t]*#[ \t]*define[ \t]+{name}[ \t]+(\d{{1,6}})\b", text, re.MULTILINE)
    return int(match.group(1)) if match else None


def parse_cudnn_header(text: str) -> str:
    """Return "MAJOR.MINOR.PATCHLEVEL", e.g. "8.2.1".

    Raises CudnnVersionMacrosMissing (a ParseError) for a cudnn.h that includes
    cudnn_version.h rather than defining the macros, and ParseError for anything else
    without all three macros.
    """
    require_text(text, "cuDNN header")
    major = _macro(text, "CUDNN_MAJOR")
    minor = _macro(text, "CUDNN_MINOR")
    patch = _macro(text, "CUDNN_PATCHLEVEL")
    if major is not None and minor is not None and patch is not None:
        return f"{major}.{minor}.{patch}"
    if major is None and re.search(r'#[ \t]*include[ \t]*[<"]cudnn_version\.h[>"]', text):
        raise CudnnVersionMacrosMissing(
            "cudnn.h does not define the cuDNN version (cuDNN 8+); it is in cudnn_version.h",
            hint="read cudnn_version.h from the same include directory",
        )
    raise ParseError("no CUDNN_MAJOR / CUDNN_MINOR / CUDNN_PATCHLEVEL defines in the cuDNN header")
