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
    "libraries",
)

#: Data files beside the matrix, read by a module of their own rather than into `Matrix`: `indexes.toml`, what
#: the package indexes hold (gpudoctor.matrix.indexes, written by tools/index_table.py). A directory given to
#: `matrix check` may hold them; they are not matrix candidates.
BESIDE: tuple[str, ...] = ("indexes",)

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
