"""What cuDNN a framework needs (gpudoctor.checks.cudnn: `needs`, `_torch_wheel`), one documented sentence each, the
expectations by hand from the docstrings and compat_matrix rows (cudnn.toml `pip`: nvidia-cudnn-cu11 from 8.5.0.96,
-cu12 from 8.8.0.121, -cu13 from 9.12.0.46; sources.toml jax-readme-local-cuda: +cuda11.cudnn86 is cuDNN >= 8.6)."""

from __future__ import annotations

import pytest

from gpudoctor.checks.base import Context
from gpudoctor.checks.cudnn import _torch_wheel, needs
from gpudoctor.facts import JaxFacts
from gpudoctor.probed import Found
from tests.spec.machine import facts_of, replace

CTX = Context()


# "nvidia-cudnn-cuNN==the version PyTorch's build pins, when PyPI has that series and version"
@pytest.mark.parametrize(
    ("cuda_major", "cudnn", "spec"),
    [
        (12, "8.9.2.26", "nvidia-cudnn-cu12==8.9.2.26"),
        (12, "8.8.0.121", "nvidia-cudnn-cu12==8.8.0.121"),  # the series' first version
        (12, "8.7.0.84", None),  # before the cu12 series
        (11, "8.5.0.96", "nvidia-cudnn-cu11==8.5.0.96"),
        (11, "8.4.1.50", None),
        (13, "9.12.0.46", "nvidia-cudnn-cu13==9.12.0.46"),
        (13, "9.10.2.21", None),
        (12, "8.9.2", None),  # not a wheel's four-part version
        (None, "8.9.2.26", None),
    ],
)
def test_the_torch_wheel_pin(cuda_major, cudnn, spec):
    assert _torch_wheel(CTX, cuda_major, cudnn) == spec


@pytest.mark.parametrize(
    ("jaxlib", "cuda_major", "cudnn_major", "minimum"),
    [("0.4.6+cuda11.cudnn86", 11, 8, "8.6"), ("0.4.6+cuda11.cudnn82", 11, 8, "8.2"), ("0.4.13+cuda12.cudnn89", 12, 8, "8.9")],
)
def test_a_local_cuda_jaxlib_needs_the_cudnn_of_its_tag(jaxlib, cuda_major, cudnn_major, minimum):
    """needs: "A jaxlib from before the plugins, built for a local CUDA (0.4.6+cuda11.cudnn86): it loads the system's
    cuDNN of that major, at least the version in its tag"."""
    facts = facts_of("h100x8-driver565-torch221-cu121")
    jax = JaxFacts(jaxlib.split("+")[0], jaxlib, {}, "/site-packages/jax")
    facts = replace(facts, frameworks={"torch": facts.frameworks.tensorflow, "jax": Found(jax, "dist:jax")})
    (need,) = [n for n in needs(facts, CTX) if n.key == "jax"]
    assert (need.cuda_major, need.cudnn_major, need.minimum, need.wheel_spec) == (cuda_major, cudnn_major, minimum, None)
