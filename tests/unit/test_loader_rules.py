"""gpudoctor.loader's rules that a compiled test cannot reach on any machine (the ldconfig cache, default
directories, preloads, -z nodeflib), stated from ld.so(8) and glibc's elf/dl-load.c, on pure inputs."""

from __future__ import annotations

from gpudoctor.facts import ElfObject
from gpudoctor.loader import LoaderEnv, default_dirs, expand, resolve_for, search_order, split_path_list

LIB = ElfObject("/site/torch/lib/libtorch_cuda.so", ("libcudnn.so.9",), rpath="$ORIGIN/../../nvidia/cudnn/lib")


def _env(**kw) -> LoaderEnv:
    base = dict(
        ld_library_path=("/old",),
        ldconfig={"libcudnn.so.9": ("/usr/lib/x86_64-linux-gnu/libcudnn.so.9",)},
        listings={
            "/old": frozenset({"libcudnn.so.9"}),
            "/site/nvidia/cudnn/lib": frozenset({"libcudnn.so.9"}),
            "/usr/lib/x86_64-linux-gnu": frozenset({"libcudnn.so.9"}),
        },
        default_dirs=default_dirs("x86_64", True),
    )
    base.update(kw)
    return LoaderEnv(**base)  # type: ignore[arg-type]


def test_every_copy_in_the_loaders_order():
    res = resolve_for("libcudnn.so.9", LIB, (), _env())
    assert [(c.path, c.via) for c in res.copies] == [
        ("/site/nvidia/cudnn/lib/libcudnn.so.9", "RPATH of libtorch_cuda.so"),
        ("/old/libcudnn.so.9", "LD_LIBRARY_PATH"),
        ("/usr/lib/x86_64-linux-gnu/libcudnn.so.9", "ldconfig"),
    ]  # the default directory's copy is the cache's: listed once
    assert res.shadowed == ("/old/libcudnn.so.9", "/usr/lib/x86_64-linux-gnu/libcudnn.so.9")


def test_a_preload_wins_by_soname_or_name():
    pre = ElfObject("/opt/x/libcudnn-custom.so", soname="libcudnn.so.9")
    assert resolve_for("libcudnn.so.9", LIB, (), _env(preload=(pre,))).via == "LD_PRELOAD"


def test_runpath_hides_rpath_of_the_same_object_and_of_its_loaders():
    both = ElfObject(LIB.path, LIB.needed, rpath="/a", runpath="/b")
    exe = ElfObject("/usr/bin/python3", rpath="/c")
    assert search_order(both, (exe,), _env()) == [("/old", "LD_LIBRARY_PATH"), ("/b", "RUNPATH of libtorch_cuda.so")]
    plain = ElfObject(LIB.path, LIB.needed)
    assert search_order(plain, (exe,), _env())[0] == ("/c", "RPATH of python3")


def test_nodeflib_skips_the_cache_and_the_default_directories():
    lib = ElfObject(LIB.path, LIB.needed, nodeflib=True)
    assert resolve_for("libcudnn.so.9", lib, (), _env(ld_library_path=())).path is None


def test_default_directories_after_the_cache():
    res = resolve_for("libcudnn.so.9", ElfObject(LIB.path, LIB.needed), (), _env(ld_library_path=(), ldconfig={}))
    assert (res.path, res.via) == ("/usr/lib/x86_64-linux-gnu/libcudnn.so.9", "default")
    assert default_dirs("x86_64", False) == ("/lib64", "/usr/lib64")


def test_path_lists_as_glibc_splits_them():
    assert expand("$ORIGIN/../lib:${ORIGIN}:relative::$LIB/x:/abs/", "/o/bin") == ("/o/lib", "/o/bin", "/abs")
    assert split_path_list("/a:/b;/c relative") == ("/a", "/b", "/c")


def test_origin_in_a_loaders_rpath_is_that_loaders_directory():
    # ld.so(8): $ORIGIN expands to the directory of the object whose run path holds it (glibc's l_origin),
    # so the executable's "$ORIGIN/../lib" is beside the executable, not beside the library that needs the soname.
    lib = ElfObject("/site/torch/lib/libtorch_cuda.so", ("libcudnn.so.9",))
    exe = ElfObject("/opt/app/bin/python3", rpath="$ORIGIN/../lib")
    assert search_order(lib, (exe,), _env(ld_library_path=())) == [("/opt/app/lib", "RPATH of python3")]
    env = _env(ld_library_path=(), ldconfig={}, listings={"/opt/app/lib": frozenset({"libcudnn.so.9"})})
    assert resolve_for("libcudnn.so.9", lib, (exe,), env).path == "/opt/app/lib/libcudnn.so.9"
