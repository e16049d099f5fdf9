"""render_matrix_text: the plain-text tables behind `gpudoctor matrix show`."""

from __future__ import annotations

import pytest

from gpudoctor.errors import UsageError
from gpudoctor.matrix import SECTIONS, load_matrix, render_matrix_text


def lines_with(text: str, *words: str) -> list[str]:
    return [line for line in text.splitlines() if all(w in line.split() for w in words)]


def test_whole_matrix_renders_every_section() -> None:
    text = render_matrix_text(load_matrix())
    for name in SECTIONS:
        assert f"== {name} ==" in text


def test_torch_1_12_cuda_11_6_cudnn_8_3_2_row() -> None:
    for text in (render_matrix_text(load_matrix(), "torch"), render_matrix_text(load_matrix())):
        rows = lines_with(text, "1.12", "cu116", "11.6")
        assert len(rows) == 1 and "8.3.2" in rows[0], rows


def test_tensorflow_2_10_cuda_11_2_cudnn_8_1_row() -> None:
    for text in (render_matrix_text(load_matrix(), "tensorflow"), render_matrix_text(load_matrix())):
        rows = lines_with(text, "2.10", "11.2", "8.1")
        assert len(rows) == 1 and "libcudart.so.11.0" in rows[0] and "libcudnn.so.8" in rows[0], rows


def test_sections_cite_sources_and_show_key_facts() -> None:
    m = load_matrix()
    cuda = render_matrix_text(m, "cuda")
    assert lines_with(cuda, "12.2", "535.104.05", "537.13")
    assert lines_with(cuda, "R565", "12.7")
    gpu = render_matrix_text(m, "gpu_arch")  # file stems work as section names
    assert lines_with(gpu, "9.0", "Hopper", "11.8")
    assert "GeForce RTX 5090" in gpu
    assert "nvidia-cc-page" in gpu
    assert lines_with(render_matrix_text(m, "link"), "Gen4", "31.51")
    assert "XLA_PYTHON_CLIENT_MEM_FRACTION" in render_matrix_text(m, "memory")
    assert "jax-cuda13-plugin" in render_matrix_text(m, "jax")
    assert "https://docs.jax.dev/en/latest/changelog.html" in render_matrix_text(m, "sources")


def test_unknown_section_is_a_usage_error() -> None:
    with pytest.raises(UsageError) as exc:
        render_matrix_text(load_matrix(), "drivers-and-stuff")
    assert "torch" in (exc.value.hint or "")
