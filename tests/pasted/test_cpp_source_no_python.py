"""Issue 27 (h245): C++ source quoted in a report says its program is a compiled one: no Python to ask about.

gpudoctor.pasted.cues reads the standard library's namespace ("std::vector", "std::exception") and C++11's nullptr as
C++ source, beside the words it read before (C++, C#, .NET, a .cpp file), where nothing of Python is in the text: the
asks then leave out `python -c "import onnxruntime"`, pip list and pip show, which a C++ program's release zip or NuGet
package never answers (plans17/1707's reviewers). The quiet twin: a Python traceback that prints C++ frames
(torch's c10 errors carry std:: types) keeps its Python asks.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.facts import NO_PYTHON
from tests.pasted.cli_json import check

BLIND = Path(__file__).resolve().parent.parent / "blind"


def _no_python(doc: dict) -> bool:
    return any(c["cue"] == NO_PYTHON for c in doc["facts"]["pasted"]["cues"])


def test_cpp_source_quoted_with_the_providers_error_asks_no_python():
    doc = check(
        BLIND / "plans17/cases/1707-ort14837-windows-cpp-cuda-provider-v2-copied-providers-dll-loadlibrary-126-ask/input.txt"
    )
    assert _no_python(doc)
    asked = [a["argv"] for a in doc["pasted"]["ask_for"]]
    assert not any(a[0] in ("python", "python3") for a in asked)
    assert ["where.exe", "cudnn*.dll", "cublas*.dll", "cudart*.dll"] in asked


@pytest.mark.parametrize(
    ("text", "compiled"),
    [
        # https://github.com/microsoft/onnxruntime/issues/22491 (its C++ code and the error it printed)
        (
            "    catch (const std::exception& e) {\n        std::cout << e.what() << std::endl;\n    }\n"
            'onnxruntime::ProviderLibrary::Get [ONNXRuntimeError] : 1 : FAIL : LoadLibrary failed with error 126 "" '
            'when trying to load "C:\\WINDOWS\\SYSTEM32\\onnxruntime_providers_cuda.dll"\n',
            True,
        ),
        # the twin: torch's C++ frames under a Python program (pytorch/pytorch's c10::Error text), Python asked
        (
            "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
            "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57 (0x7f in /usr/lib/python3/dist-packages/"
            "torch/lib/libc10.so)\n",
            False,
        ),
    ],
)
def test_cpp_source_is_read_as_a_compiled_program_only_without_python(tmp_path, text, compiled):
    paste = tmp_path / "input.txt"
    paste.write_text(text, encoding="utf-8")
    assert _no_python(check(paste)) is compiled
