"""gpudoctor.loader's documented rules that need no compiler, stated from its docstrings and ld.so(8), on pure inputs.

The compiled cases (the real ld.so against gpudoctor.loader) are tests/spec/test_loader.py; these state what a machine
running the tests cannot show: the default directories of every layout and machine name the loader's notes give
("Debian's multiarch /lib/<triplet>, /usr/lib/<triplet>, then /lib, /usr/lib; elsewhere /lib64, /usr/lib64 on 64-bit").
"""

from __future__ import annotations

import pytest

from gpudoctor.facts import ElfObject
from gpudoctor.loader import LoaderEnv, default_dirs, resolve_for


@pytest.mark.parametrize("machine", ["x86_64", "amd64", "aarch64", "arm64", "ppc64le", "s390x"])
def test_a_64_bit_machine_outside_debian_searches_lib64_then_usr_lib64(machine):
    assert default_dirs(machine, False) == ("/lib64", "/usr/lib64")


def test_a_32_bit_machine_outside_debian_searches_lib_then_usr_lib():
    assert default_dirs("i686", False) == ("/lib", "/usr/lib")
    assert default_dirs("", False) == ("/lib", "/usr/lib")


@pytest.mark.parametrize(
    ("machine", "triplet"),
    [
        ("x86_64", "x86_64-linux-gnu"),
        ("AMD64", "x86_64-linux-gnu"),
        ("aarch64", "aarch64-linux-gnu"),
        ("ARM64", "aarch64-linux-gnu"),
    ],
)
def test_debian_searches_its_multiarch_directories_first_whatever_the_machine_names_case(machine, triplet):
    # uname's machine as Windows spells it (AMD64) or in capitals names the same triplet.
    assert default_dirs(machine, True) == (f"/lib/{triplet}", f"/usr/lib/{triplet}", "/lib", "/usr/lib")


SO = "libcudnn.so.9"
NEEDER = "/site/torch/lib/libtorch_cuda.so"


def _env(cache, listed=()):
    return LoaderEnv(
        ld_library_path=(),
        ldconfig={SO: tuple(cache)},
        listings={d: frozenset({SO}) for d in listed},
        default_dirs=default_dirs("x86_64", True),
    )


def test_the_cache_answers_with_its_first_entry():
    # ld.so.cache is "an ordered list of candidate shared objects" (ld.so(8), FILES): the first one loads.
    r = resolve_for(SO, ElfObject(NEEDER, (SO,)), (), _env(("/opt/a/" + SO, "/opt/b/" + SO)))
    assert (r.path, r.via) == ("/opt/a/" + SO, "ldconfig")


def test_nodeflib_drops_only_cache_entries_inside_a_default_directory_not_those_sharing_its_prefix():
    # "for an object linked -z nodefaultlib (DF_1_NODEFLIB) only its entries outside the default directories":
    # /usr/lib64 and /lib64 are not Debian's default directories, though /usr/lib and /lib are prefixes of their names.
    nodeflib = ElfObject(NEEDER, (SO,), nodeflib=True)
    for kept in ("/usr/lib64/" + SO, "/lib64/" + SO, "/usr/lib-extra/" + SO):
        assert resolve_for(SO, nodeflib, (), _env((kept,))).path == kept
    for dropped in ("/usr/lib/" + SO, "/lib/x86_64-linux-gnu/" + SO, "/usr/lib/x86_64-linux-gnu/" + SO):
        assert resolve_for(SO, nodeflib, (), _env((dropped,))).path is None


def test_a_soname_absent_from_a_frameworks_record_is_unfound_for_tensorflow_and_jax_and_undecided_for_torch():
    # elf_resolution: "None where they were not read, or (PyTorch) where none of them needs it ... TensorFlow and JAX
    # dlopen() by name: ... one that is not in their entry is nowhere the loader or gpudoctor can see (a resolution
    # without a path)".
    from types import SimpleNamespace

    from gpudoctor.facts import FrameworkLoading, LibraryResolution, LoadingFacts
    from gpudoctor.loader import elf_resolution

    found = LibraryResolution("libcudart.so.12", "/site/nvidia/cuda_runtime/lib/libcudart.so.12", "RPATH of x.so")
    records = tuple(FrameworkLoading(k, (ElfObject(f"/site/{k}/x.so"),), (found,)) for k in ("torch", "tensorflow", "jax"))
    facts = SimpleNamespace(loading=LoadingFacts(None, (), (), (), records))
    for key in ("tensorflow", "jax"):
        assert elf_resolution(facts, key, "libcudart.so.12") == found
        res = elf_resolution(facts, key, SO)
        assert res is not None and (res.soname, res.path) == (SO, None), key
    assert elf_resolution(facts, "torch", SO) is None
    assert elf_resolution(SimpleNamespace(loading=None), "jax", SO) is None


def test_a_framework_missing_a_soname_unless_it_bundles_a_copy_under_a_hashed_name_or_its_own():
    # missing_sonames: a bundled copy counts under the soname's stem and a dash (a wheel's hashed copy,
    # libcudnn-3aa9a0f6.so.8: `stem + "-"`) or under the soname itself; else the fixed order decides, and on a whole
    # machine a copy found nowhere is missing.
    from types import SimpleNamespace

    from gpudoctor.facts import LibDir
    from gpudoctor.loader import missing_sonames
    from gpudoctor.probed import Found

    facts = SimpleNamespace(
        loading=None, ld_library_path=(), ldconfig=Found({}, "ldconfig -p"), pasted=SimpleNamespace(partial=False)
    )
    own = "/site/torch/lib"
    for names in (("libcudnn-3aa9a0f6.so.8",), ("libcudnn.so.8",)):
        assert missing_sonames(facts, ["libcudnn.so.8"], (LibDir(own, "bundled", names),)) == [], names
    assert missing_sonames(facts, ["libcudnn.so.8"], (LibDir(own, "bundled", ("libcudnn_ops-1a2b.so.8",)),)) == [
        "libcudnn.so.8"
    ]  # another library's hashed copy (libcudnn_ops) is not libcudnn's
    assert missing_sonames(facts, ["libcudnn.so.8"], ()) == ["libcudnn.so.8"]
