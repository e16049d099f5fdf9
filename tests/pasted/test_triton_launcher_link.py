"""The linker's "cannot find -lcuda" under the frames of inductor's worker or Triton (catalogue.toml's
triton-launcher-ld-cannot-find-lcuda, branch h230): the same cause as Triton's "libcuda.so cannot found!", judged by
gpudoctor.checks.catalogued.builds.check_triton_libcuda; the same line in a program's own build is not read so."""

from __future__ import annotations

from pathlib import Path

from tests.pasted.test_windows_loader_codes import _case, _run

EXAMPLES = Path(__file__).resolve().parent / "catalogue_examples"


def _triton_said(snapshot) -> list[dict]:
    return [e for e in snapshot["pasted"]["errors"] if e["kind"] == "triton-libcuda-missing"]


def test_ld_cannot_find_lcuda_under_inductor_frames_is_tritons_launcher_link():
    # tests/blind/plans16/cases/1609-* (torch.compile on PyTorch 2.0, inductor's codecache worker) and
    # pytorch/pytorch#94582 (https://github.com/pytorch/pytorch/issues/94582): the same, on a V100
    for text in (_case("plans16", "1609-"), (EXAMPLES / "pytorch-94582-torch-compile-ld-cannot-find-lcuda.txt").read_text()):
        snapshot, codes, _ = _run(text)
        assert _triton_said(snapshot)
        finding = codes["framework-cuda-libs-missing"]
        assert finding.title.startswith("Triton cannot link its launcher")
        argvs = [tuple(c.words) for c in finding.remediation.commands if hasattr(c, "words")]
        assert ("ldconfig",) in argvs and ("ldconfig", "-p") in argvs
        assert "pasted-error-unexplained" not in codes


def test_ld_cannot_find_lcuda_in_a_programs_own_build_is_not_tritons():
    # the quiet twin: a CMake build of a CUDA program linking -lcuda, no inductor or Triton frame after it
    text = (
        "$ cmake --build build\n[100%] Linking CXX executable app\n/usr/bin/ld: cannot find -lcuda\n"
        "collect2: error: ld returned 1 exit status\nmake[2]: *** [CMakeFiles/app.dir/build.make:97: app] Error 1\n"
    )
    snapshot, codes, _ = _run(text)
    assert not _triton_said(snapshot)
    assert "library-missing" in {e["kind"] for e in snapshot["pasted"]["errors"]}
