"""The path the driver library resolved to, shown under a CUDA toolkit's stubs folder (gpudoctor.parsers.library_lines
since h239, catalogue.toml's libcuda-resolved-to-toolkit-stub before; checks.catalogued.framework_builds.check_stub_libcuda, branch h230): the
stub answers as the driver, and its folder comes off LD_LIBRARY_PATH; error 34 alone, or a stubs file in a listing,
is not that."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.cmdline import SetFrom
from tests.pasted.test_windows_loader_codes import _case, _run

EXAMPLES = Path(__file__).resolve().parent / "catalogue_examples"


def _stub_said(snapshot) -> list[dict]:
    return [e for e in snapshot["pasted"]["errors"] if e["kind"] == "cuda-stub-library"]


def test_a_stub_path_the_driver_resolved_to_takes_stubs_off_the_loader_path():
    # tests/blind/plans16/cases/1602-* (numba's libs.test(): "Mapped libcuda.so paths:" then the CUDA 11.8 stub) and
    # numba/numba#8985 (https://github.com/numba/numba/issues/8985): ctypes opened the CUDA 12.1 toolkit's stub
    for text, path in (
        (_case("plans16", "1602-"), "/usr/local/cuda-11.8/targets/x86_64-linux/lib/stubs/libcuda.so"),
        (
            (EXAMPLES / "numba-8985-ctypes-libcuda-resolves-to-toolkit-stubs.txt").read_text(),
            "/scratch/yhao24/opt/cuda-12.1/lib64/stubs/libcuda.so",
        ),
    ):
        snapshot, codes, _ = _run(text)
        assert path in set(_stub_said(snapshot)[0]["values"].values())
        finding = codes["framework-cuda-libs-missing"]
        assert "pasted-error-unexplained" not in codes
        steps = finding.remediation.commands
        assert [s.name for s in steps if isinstance(s, SetFrom)] == ["LD_LIBRARY_PATH"]
        assert ("grep", "-rn", "stubs", "/etc/ld.so.conf", "/etc/ld.so.conf.d") in [
            tuple(s.words) for s in steps if hasattr(s, "words")
        ]
        assert not finding.remediation.requires_root


def test_a_stubs_file_in_a_listing_or_error_34_alone_is_not_the_stub_loaded():
    # the quiet twins: find lists the stub on every machine with a toolkit; tensorflow/tensorflow#57764
    # (tests/pasted/catalogue_examples/tensorflow-57764-pod-cuinit-34-kernel-driver-not-running.txt) answers 34 in a pod
    # started without the GPU, where LD_LIBRARY_PATH is not the fix
    listing = (
        "$ find / -name 'libcuda.so*' 2>/dev/null\n/usr/local/cuda-11.8/targets/x86_64-linux/lib/stubs/libcuda.so\n"
        "/usr/lib/x86_64-linux-gnu/libcuda.so.1\n$ python -c 'import torch; print(torch.cuda.is_available())'\nFalse\n"
    )
    snapshot, codes, _ = _run(listing)
    assert not _stub_said(snapshot)
    pod = (EXAMPLES / "tensorflow-57764-pod-cuinit-34-kernel-driver-not-running.txt").read_text()
    snapshot, codes, _ = _run(pod)
    assert _stub_said(snapshot)
    assert not any("stub libcuda is loaded in place" in f.title for f in codes.values())
