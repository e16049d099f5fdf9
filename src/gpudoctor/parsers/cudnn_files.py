"""What a paste says of the cuDNN files on a Windows machine, beside the loader's failure: the cuDNN DLLs (or import
libraries) it lists, and NVIDIA's pip wheel of cuDNN it names. Text in, values out.

A Windows cuDNN file carries its major in its name (cudnn64_8.dll, cudnn_ops_infer64_8.dll; cuDNN 9:
cudnn_ops64_9.dll, cudnn_graph64_9.dll), so a listing of a folder, a `where` answer or a reporter's words ("I saw
cudnn_ops_infer64_9.dll instead") say which major is there. NVIDIA's cuDNN wheel for Windows (nvidia-cudnn-cu11,
nvidia-cudnn-cu12) installs into site-packages\\nvidia\\cudnn: its DLLs in bin, import libraries (.lib) in lib\\x64.
"""

from __future__ import annotations

import re

# A cuDNN library file of Windows by name: the DLL or its import library, the major before the extension
_FILE = re.compile(r"(?:\b(?P<dir>[A-Za-z]:\\[^\n\"'<>|*?]{0,200}?)\\)?\b(cudnn\w*64_(\d{1,2}))\.(dll|lib)\b", re.IGNORECASE)
# A loader's failure names the file it could not load: that line is a failure, not a file seen
_FAILURE = re.compile(
    r"Could not (?:locate|load)|Please make sure|not found or cannot be loaded|Error loading|cannot open|DLL load failed|"
    r"Invalid handle",
    re.IGNORECASE,
)
# NVIDIA's cuDNN wheel named (pip's distribution, or its folder in a site-packages)
_WHEEL = re.compile(r"\bnvidia-cudnn-cu(\d{2})\b|site-packages[\\/]+nvidia[\\/]+cudnn\b", re.IGNORECASE)


def cudnn_files_said(lines: list[str]) -> list[tuple[str, str, dict[str, str]]]:
    """(kind, line, values) for each cuDNN file and cuDNN wheel the lines name outside a loader's failure line."""
    out: list[tuple[str, str, dict[str, str]]] = []
    for line in lines:
        if "cudnn" not in line.lower():
            continue
        if m := _WHEEL.search(line):
            out.append(("cudnn-wheel-said", line, {"cuda": m.group(1)} if m.group(1) else {}))
        if _FAILURE.search(line):
            continue
        for f in _FILE.finditer(line):
            values = {"file": f.group(2) + "." + f.group(4).lower(), "major": f.group(3), "ext": f.group(4).lower()}
            # (a full path: the folder that holds the file, as a `where` answer or a listing gives it)
            out.append(("cudnn-file-said", line, {**values, "dir": f.group("dir")} if f.group("dir") else values))
    return out
