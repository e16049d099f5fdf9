"""Loader precedence, pure: every pair of search places, each copy present in both, the earlier one wins.

glibc's order (ld.so(8), https://man7.org/linux/man-pages/man8/ld.so.8.html; elf/dl-load.c): LD_PRELOAD,
DT_RPATH of the needing object and its loaders (only without a DT_RUNPATH), LD_LIBRARY_PATH, DT_RUNPATH of the
needing object, the ldconfig cache, the default directories (neither with -z nodeflib). Where no ELF record
was read, gpudoctor's fixed order: LD_LIBRARY_PATH, the framework's own directories, the ldconfig cache.
tests/unit/test_loader_ldso.py checks resolve_for against ld.so itself (with a C compiler); these need none.
"""

from __future__ import annotations

import pytest

from gpudoctor.facts import ElfObject, LibDir
from gpudoctor.loader import LoaderEnv, expand, resolve_for, resolve_library, split_path_list

SO = "libcudnn.so.8"
LIB = "/opt/fw/lib/libfw.so"
EXE = "/usr/bin/python3"


def env(*, llp=(), cache=None, listed=(), defaults=(), preload=()):
    return LoaderEnv(tuple(llp), cache, {d: frozenset({SO}) for d in listed}, tuple(defaults), tuple(preload))


# --- the fixed order (no ELF record) ----------------------------------------------------------------------


def test_fixed_order_ld_library_path_before_own_dirs_before_ldconfig():
    llp = (LibDir("/llp", "LD_LIBRARY_PATH", (SO,)),)
    own = (LibDir("/fw/lib", "bundled", (SO,)), LibDir("/site/nvidia/cudnn/lib", "wheel", (SO,)))
    cache = {SO: ("/usr/lib/x86_64-linux-gnu/" + SO,)}
    r = resolve_library(SO, llp, own, cache)
    assert (r.path, r.via) == ("/llp/" + SO, "LD_LIBRARY_PATH")
    assert r.shadowed == ("/fw/lib/" + SO, "/site/nvidia/cudnn/lib/" + SO, "/usr/lib/x86_64-linux-gnu/" + SO)
    r = resolve_library(SO, (), own, cache)
    assert (r.path, r.via) == ("/fw/lib/" + SO, "bundled")
    r = resolve_library(SO, (), own[1:], cache)
    assert (r.path, r.via) == ("/site/nvidia/cudnn/lib/" + SO, "wheel")
    r = resolve_library(SO, (), (), cache)
    assert (r.path, r.via, r.shadowed) == ("/usr/lib/x86_64-linux-gnu/" + SO, "ldconfig", ())


def test_fixed_order_skips_directories_without_the_soname_and_finds_nothing_without_one():
    empty = (LibDir("/llp", "LD_LIBRARY_PATH", ("libcudart.so.12",)),)
    own = (LibDir("/fw/lib", "bundled", (SO,)),)
    assert resolve_library(SO, empty, own, None).path == "/fw/lib/" + SO
    r = resolve_library(SO, empty, (), {})
    assert (r.path, r.via) == (None, None)


def test_the_same_file_twice_is_not_a_shadowed_copy():
    llp = (LibDir("/usr/lib/x86_64-linux-gnu", "LD_LIBRARY_PATH", (SO,)),)
    r = resolve_library(SO, llp, (), {SO: ("/usr/lib/x86_64-linux-gnu/" + SO,)})
    assert r.shadowed == ()


# --- the loader's own order (ELF records) -----------------------------------------------------------------


def test_rpath_before_ld_library_path():
    obj = ElfObject(LIB, (SO,), rpath="/rp")
    r = resolve_for(SO, obj, (), env(llp=["/llp"], listed=["/rp", "/llp"]))
    assert (r.path, r.via) == ("/rp/" + SO, "RPATH of libfw.so")
    assert r.shadowed == ("/llp/" + SO,)


def test_ld_library_path_before_runpath():
    obj = ElfObject(LIB, (SO,), runpath="/rp")
    r = resolve_for(SO, obj, (), env(llp=["/llp"], listed=["/rp", "/llp"]))
    assert (r.path, r.via) == ("/llp/" + SO, "LD_LIBRARY_PATH")
    assert r.shadowed == ("/rp/" + SO,)


def test_runpath_before_ldconfig_before_default_dirs():
    obj = ElfObject(LIB, (SO,), runpath="$ORIGIN/../cudnn")
    cache = {SO: ("/cache/" + SO,)}
    e = env(cache=cache, listed=["/opt/fw/cudnn", "/usr/lib"], defaults=["/usr/lib"])
    r = resolve_for(SO, obj, (), e)
    assert (r.path, r.via) == ("/opt/fw/cudnn/" + SO, "RUNPATH of libfw.so")
    assert [c.via for c in r.copies] == ["RUNPATH of libfw.so", "ldconfig", "default"]
    r = resolve_for(SO, ElfObject(LIB, (SO,)), (), e)
    assert (r.path, r.via) == ("/cache/" + SO, "ldconfig")
    r = resolve_for(SO, ElfObject(LIB, (SO,)), (), env(listed=["/usr/lib"], defaults=["/usr/lib"]))
    assert (r.path, r.via) == ("/usr/lib/" + SO, "default")


def test_a_runpath_hides_every_rpath_and_is_not_inherited():
    exe = ElfObject(EXE, rpath="/exe-rp")
    with_runpath = ElfObject(LIB, (SO,), runpath="/nowhere")
    assert resolve_for(SO, with_runpath, (exe,), env(listed=["/exe-rp"])).path is None
    without = ElfObject(LIB, (SO,))
    assert resolve_for(SO, without, (exe,), env(listed=["/exe-rp"])).via == "RPATH of python3"
    # The loader's RUNPATH is not searched for what the object it loaded needs.
    loader_runpath = ElfObject(EXE, runpath="/exe-run")
    assert resolve_for(SO, without, (loader_runpath,), env(listed=["/exe-run"])).path is None


def test_the_needing_objects_rpath_before_its_loaders():
    exe = ElfObject(EXE, rpath="/exe-rp")
    obj = ElfObject(LIB, (SO,), rpath="/rp")
    r = resolve_for(SO, obj, (exe,), env(listed=["/rp", "/exe-rp"]))
    assert [c.via for c in r.copies] == ["RPATH of libfw.so", "RPATH of python3"]


def test_an_rpath_beside_a_runpath_in_one_object_is_ignored():
    obj = ElfObject(LIB, (SO,), rpath="/rp", runpath="/run")
    r = resolve_for(SO, obj, (), env(llp=["/llp"], listed=["/rp", "/run", "/llp"]))
    assert [c.via for c in r.copies] == ["LD_LIBRARY_PATH", "RUNPATH of libfw.so"]


def test_preload_comes_first_and_nodeflib_drops_the_defaults_and_their_cache_entries():
    obj = ElfObject(LIB, (SO,), rpath="/rp")
    pre = ElfObject("/preloaded/libcudnn-custom.so", soname=SO)
    r = resolve_for(SO, obj, (), env(listed=["/rp"], preload=[pre]))
    assert (r.path, r.via) == ("/preloaded/libcudnn-custom.so", "LD_PRELOAD")
    # glibc (elf/dl-load.c) drops only the cache entries inside the default directories for a -z nodefaultlib
    # object; one elsewhere still loads (checked against the real ld.so: tests/spec/test_loader.py).
    nodeflib = ElfObject(LIB, (SO,), nodeflib=True)
    e = env(cache={SO: ("/cache/" + SO,)}, listed=["/usr/lib"], defaults=["/usr/lib"])
    assert resolve_for(SO, nodeflib, (), e).path == "/cache/" + SO
    in_defaults = env(cache={SO: ("/usr/lib/" + SO,)}, listed=["/usr/lib"], defaults=["/usr/lib"])
    assert resolve_for(SO, nodeflib, (), in_defaults).path is None
    assert resolve_for(SO, ElfObject(LIB, (SO,)), (), e).path == "/cache/" + SO


@pytest.mark.parametrize(
    ("entries", "expanded"),
    [
        ("$ORIGIN/../lib", ("/opt/fw/lib",)),
        ("${ORIGIN}/x:/abs", ("/opt/fw/sub/x", "/abs")),
        ("relative:/a::/a/", ("/a",)),  # relative and empty entries dropped, duplicates once
        ("/usr/$LIB/x", ()),  # $LIB is not modelled: skipped, never guessed
    ],
)
def test_run_path_expansion(entries, expanded):
    assert expand(entries, "/opt/fw/sub") == expanded


def test_ld_library_path_splits_as_glibc_does():
    assert split_path_list("/a:/b;/c relative:") == ("/a", "/b", "/c")
    assert split_path_list(None) == ()
