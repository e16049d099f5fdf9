"""What a matrix is made of: its data files and the sections `gpudoctor matrix show` draws."""

from __future__ import annotations

#: The data files of a matrix, by stem (``<stem>.toml``), in load order.
FILES: tuple[str, ...] = (
    "sources",
    "cuda_driver",
    "gpu_arch",
    "cudnn",
    "torch",
    "tensorflow",
    "jax",
    "precision",
    "link_bandwidth",
    "memory_settings",
    "cuda_repos",
)

#: Sections ``render_matrix_text`` knows, in display order.
SECTIONS: tuple[str, ...] = (
    "cuda",
    "gpu",
    "cudnn",
    "torch",
    "tensorflow",
    "jax",
    "precision",
    "link",
    "memory",
    "repos",
    "sources",
)
