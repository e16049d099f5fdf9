"""switch_cuda.parse_request: "11.8" -> (11, 8); "Also takes "cuda-11.8" and "v12"", in any case, with or without the
dash; anything else is a usage error."""

from __future__ import annotations

import pytest

from gpudoctor.errors import UsageError
from gpudoctor.switch_cuda import parse_request


def test_every_spelling_of_a_request():
    spellings = ("11.8", "cuda-11.8", "CUDA-11.8", "cuda11.8", "Cuda11.8", "v11.8", "V11.8", " 11.8 ")
    assert {s: tuple(parse_request(s)) for s in spellings} == dict.fromkeys(spellings, (11, 8))
    assert tuple(parse_request("12")) == (12,) and tuple(parse_request("12.4.1")) == (12, 4, 1)
    for bad in ("eleven", "12.4.1.1", "cuda_11.8", "11.8-cudnn"):
        with pytest.raises(UsageError):
            parse_request(bad)
