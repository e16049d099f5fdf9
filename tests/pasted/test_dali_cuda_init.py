"""DALI's "CUDA runtime API error cudaErrorInitializationError (3)" (catalogue.toml's dali-cuda-runtime-init-error,
branch h230): undecided, asked with the driver where the program runs and the DALI variant installed."""

from __future__ import annotations

from pathlib import Path

from tests.pasted.test_windows_loader_codes import _case, _run

EXAMPLES = Path(__file__).resolve().parent / "catalogue_examples"


def test_dali_init_error_asks_for_the_driver_and_the_dali_variant():
    # tests/blind/plans16/cases/1610-* (an ImageNet script's pipe.build() in a conda Python) and NVIDIA/DALI#3178
    # (https://github.com/NVIDIA/DALI/issues/3178): a video reader pipeline's build
    for text in (_case("plans16", "1610-"), (EXAMPLES / "dali-3178-video-pipeline-build-cuda-init-error-3.txt").read_text()):
        snapshot, codes, asks = _run(text)
        assert "dali-cuda-init-failed" in {e["kind"] for e in snapshot["pasted"]["errors"]}
        assert set(codes) == {"pasted-error-unexplained"}  # (no cause named before the answers)
        assert ("nvidia-smi",) in asks
        assert any(a[1:4] == ("-m", "pip", "list") for a in asks)


def test_another_librarys_initialization_error_is_not_dalis():
    # the quiet twin: PyTorch's own wording of the same status names no DALI package to ask about
    text = "RuntimeError: CUDA error: initialization error\nCUDA kernel errors might be asynchronously reported\n"
    snapshot, _, asks = _run(text)
    assert "dali-cuda-init-failed" not in {e["kind"] for e in snapshot["pasted"]["errors"]}
    assert not any("dali" in " ".join(a) for a in asks)
