"""Which frameworks a paste shows at work, from its log paths (gpudoctor.checks.reported.frameworks_named): XLA's own
paths are JAX's, except TensorFlow's copy of XLA inside its tree (tensorflow/compiler/xla), which is TensorFlow's log."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.checks.reported import frameworks_named
from tests.pasted.test_catalogue import _run

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "tests/pasted/catalogue_examples"


def _named(path: Path) -> set[str]:
    _, report, _, _ = _run(path.read_text(encoding="utf-8"))
    return frameworks_named(report.facts)


def test_tensorflows_own_xla_log_lines_are_tensorflows_not_jaxs():
    """tests/blind/plans10 case 1021 (its thread is named only there: pip tensorflow[and-cuda]==2.14.0 in a Docker
    image, its log from tensorflow/compiler/xla/stream_executor) and tensorflow/tensorflow#60790 (catalogue_examples:
    TensorFlow's libdevice lines from tensorflow/compiler/xla/service/gpu): no JAX, so no JAX command is asked."""
    case = ROOT / (
        "tests/blind/plans10/cases/1021-tf62194-docker-gdal-ubuntu-pip-tf2140-and-cuda-no-nvrtc-cudnn-cnn-infer-fails/input.txt"
    )
    assert "jax" not in _named(case)
    assert "jax" not in _named(EXAMPLES / "tensorflow-60790-libdevice-not-found.txt")
    _, _, _, asks = _run(case.read_text(encoding="utf-8"))
    assert not [a for a in asks if "import jax" in a]


def test_jaxlib_built_from_tensorflows_tree_is_still_jax():
    """jax-ml/jax#7239 (catalogue_examples): jaxlib's log paths under external/org_tensorflow/tensorflow/compiler/xla."""
    assert "jax" in _named(EXAMPLES / "jax-7239-couldnt-invoke-ptxas.txt")
