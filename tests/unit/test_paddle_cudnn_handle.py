"""Paddle's cuDNN wrapper with no handle, "Cannot load cudnn shared library. Cannot invoke method cudnnGetVersion.
[Hint: cudnn_dso_handle should not be null.] (at .../paddle/phi/backends/dynload/cudnn.cc:N)": on a Linux build (a
forward-slash source path) its loader found no libcudnn.so, also where dynamic_loader.cc's own line was not pasted
(PaddlePaddle/Paddle#50195 pastes both; opendatalab/PDF-Extract-Kit#77 the error alone). A Windows build's path
(backslashes) is no libcudnn.so."""

from __future__ import annotations

from gpudoctor.pasted import Source, read_pasted

_ERROR = (
    "RuntimeError: (PreconditionNotMet) Cannot load cudnn shared library. Cannot invoke method cudnnGetVersion.\n"
    "  [Hint: cudnn_dso_handle should not be null.] (at {path}dynload{sep}cudnn.cc:76)\n"
)


def _missing(text: str) -> list[str]:
    snap = read_pasted([Source("t", text)])
    return [e["values"]["soname"] for e in snap["pasted"]["errors"] if e["kind"] == "library-missing"]


def test_the_error_alone_from_a_linux_build_is_libcudnn_so_missing():
    assert _missing(_ERROR.format(path="../paddle/phi/backends/", sep="/")) == ["libcudnn.so"]


def test_with_the_loaders_own_line_it_is_read_once():
    loader = (
        "W0203 07:54:14.771862 13098 dynamic_loader.cc:307] The third-party dynamic library (libcudnn.so) that Paddle "
        "depends on is not configured correctly. (error code is /usr/local/cuda/lib64/libcudnn.so: cannot open shared "
        "object file: No such file or directory)\n"
    )
    assert _missing(loader + _ERROR.format(path="/paddle/paddle/phi/backends/", sep="/")) == ["libcudnn.so"]


def test_a_windows_builds_path_is_no_libcudnn_so():
    assert _missing(_ERROR.format(path="C:\\home\\workspace\\Paddle\\paddle\\phi\\backends\\", sep="\\")) == []
