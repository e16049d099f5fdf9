"""nvcc refusing an architecture that every CUDA release since its first still compiles for, with no toolkit shown
(gpudoctor.checks.catalogued.compilers._nvcc_older_than_arch, branch h230): the nvcc that ran is older than that
first release, a certain finding; where the text states a CUDA release, or the nvcc's own, the other judgements hold."""

from __future__ import annotations

from pathlib import Path

from tests.pasted.test_windows_loader_codes import _case, _run

TESTS = Path(__file__).resolve().parents[1]


def _argvs(finding) -> list[tuple[str, ...]]:
    return [tuple(c.words) for c in finding.remediation.commands if hasattr(c, "words")]


def test_a_refused_architecture_with_no_toolkit_shown_is_an_nvcc_older_than_its_first_cuda():
    # tests/blind/plans16/cases/1655-* (llama.cpp's CMake build for an RTX 5070: compute_120, CUDA 12.8 and newer) and
    # CMU-Perceptual-Computing-Lab/openpose#2053 (https://github.com/CMU-Perceptual-Computing-Lab/openpose/issues/2053):
    # compute_86, CUDA 11.1 and newer; gpu_arch.toml gives each its first release and no last. (1655's issue form
    # answers "Operating systems: Windows": its nvcc is looked up with `where`, h235.)
    for text, first, lookup in (
        (_case("plans16", "1655-"), "12.8", ("where", "nvcc")),
        (
            (TESTS / "pasted" / "catalogue_examples" / "openpose-2053-nvcc-cuda110-compute86.txt").read_text(),
            "11.1",
            ("which", "-a", "nvcc"),
        ),
    ):
        _, codes, _ = _run(text)
        finding = codes["toolkit-arch-unsupported"]
        assert "pasted-error-unexplained" not in codes
        assert first in finding.title
        assert ("nvcc", "--version") in _argvs(finding)
        assert lookup in _argvs(finding)


def test_a_dropped_architecture_is_not_judged_without_the_nvcc():
    # the quiet twin, on the same message: compute_30 (dropped by CUDA 11: an nvcc too new refuses it as one too old
    # would). (A lettered variant is judged by its own first release since h241: tests/pasted/test_arch_refusals.py;
    # a stated CUDA release that compiles the architecture is two toolkits there too.)
    _, codes, _ = _run("$ cmake --build build\nnvcc fatal   : Unsupported gpu architecture 'compute_30'\n")
    assert "toolkit-arch-unsupported" not in codes
