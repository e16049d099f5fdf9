"""gpudoctor.memory.view's documented rules (docs/memory.md's table of columns; the module's comments): process
types, the framework evidence, the memory no process explains. Expectations written by hand from the sentences."""

from __future__ import annotations

from gpudoctor.memory.view import GpuMemory, Holder, frameworks_in_maps, frameworks_in_text, is_compute


def test_a_cuda_context_is_c_or_c_plus_g_and_an_unknown_type_counts():
    """is_compute: "A CUDA context: nvidia-smi's C or C+G (M/M+C under MPS). An unknown type counts, to be safe." """
    types = ("C", "C+G", "M+C", "c", "c+g", None, "G", "M", "")
    assert [is_compute(t) for t in types] == [True, True, True, True, True, True, False, False, False]
    assert Holder(1, "x", None, 1).compute and not Holder(2, "Xorg", "G", 1).compute


def test_each_library_docs_memory_md_names_is_evidence_of_its_framework():
    """docs/memory.md, FRAMEWORK: `libtorch_cuda` PyTorch, `libtensorflow_framework.so` or
    `_pywrap_tensorflow_internal.so` TensorFlow, `xla_extension`, `jaxlib/_jax.` or `xla_cuda_plugin.so` JAX,
    `cupy_backends/cuda/` CuPy."""
    maps = {
        "/v/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so": ("torch",),
        "/v/site-packages/tensorflow/libtensorflow_framework.so.2": ("tensorflow",),
        "/v/site-packages/tensorflow/python/_pywrap_tensorflow_internal.so": ("tensorflow",),
        "/v/site-packages/jaxlib/xla_extension.so": ("jax",),
        "/v/site-packages/jaxlib/_jax.cpython-311-x86_64-linux-gnu.so": ("jax",),
        "/v/site-packages/jax_plugins/xla_cuda12/xla_cuda_plugin.so": ("jax",),
        "/v/site-packages/cupy_backends/cuda/api/runtime.cpython-311-x86_64-linux-gnu.so": ("cupy",),
        "/usr/lib/x86_64-linux-gnu/libcuda.so.1": (),
    }
    assert {line: frameworks_in_maps(line)[0] for line in maps} == maps
    both = "/a/torch/lib/libtorch_cuda.so\n/b/jaxlib/xla_extension.so\n"
    assert frameworks_in_maps(both) == (("torch", "jax"), "libtorch_cuda, xla_extension")


def test_each_command_line_word_docs_memory_md_names_and_only_whole_words():
    """docs/memory.md: "whole words in the command line (`torch`, `torchrun`, `tensorflow`, `keras`, `jax`, `flax`,
    `cupy`, `cupyx`)"; view.py: "torch_utils.py" is no evidence, and "tensorboard" is not TensorFlow."""
    words = {
        "python -m torch.distributed.run train.py": ("torch",),
        "torchrun --nproc 8 train.py": ("torch",),
        "python -c import tensorflow": ("tensorflow",),
        "python keras train.py": ("tensorflow",),
        "python -m jax run": ("jax",),
        "python flax train.py": ("jax",),
        "python -c import cupyx": ("cupy",),
        "python torch_utils.py": (),
        "tensorboard --logdir runs": (),
        "python my-torch.py": (),
        "python run-jax-x": (),
        "python cupy-bench": (),
        "python keras-tuner": (),
    }
    assert {text: frameworks_in_text(text) for text in words} == words


def test_memory_no_process_explains_is_never_negative():
    """GpuMemory.unaccounted_bytes: "Used memory no listed process explains" - at least 0 (NVML and nvidia-smi sample
    at different moments); None when the GPU reports no used figure."""
    mib = 1024**2
    holders = (Holder(1, "a", "C", 700 * mib), Holder(2, "b", "C", None))
    gpu = GpuMemory(0, "g", None, 8192 * mib, 600 * mib, 7592 * mib, "nvml", holders=holders)
    assert (gpu.held_bytes, gpu.unaccounted_bytes) == (700 * mib, 0)
    assert GpuMemory(0, "g", None, 8192 * mib, 1000 * mib, 0, "nvml", holders=holders).unaccounted_bytes == 300 * mib
    assert GpuMemory(0, "g", None, None, None, None, "nvml", holders=holders).unaccounted_bytes is None
