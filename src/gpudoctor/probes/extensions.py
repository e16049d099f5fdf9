"""Torch's companions and compiled extensions, read from disk, never imported.

For each companion installed in the probed environment (COMPANIONS): its wheel's METADATA (the
Requires-Dist pins without an extra) and the ELF of its compiled extensions (gpudoctor.elfsyms): the
torch names it needs (gpudoctor.symbols), the CUDA sonames it NEEDs, the newest GLIBCXX_/GLIBC_
versions it needs. Torch's own libraries are read only when an extension needs torch names, and only
those libraries that should export them (a name still missing then is looked for in the others), so a
machine without companions reads nothing here and one with them reads each table once.

Not read: extensions built at run time (DeepSpeed's JIT ops in ~/.cache/torch_extensions, triton's
kernel cache): they are built against the torch that is there.
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
import time

from gpudoctor import symbols
from gpudoctor.facts import FrameworkFacts, TorchFacts
from gpudoctor.host import Host, HostError, PythonEnv, canonical_name
from gpudoctor.lazypattern import LazyPattern
from gpudoctor.probed import Found
from gpudoctor.probes.common import CUDA_LIB

# typing's constant without typing: a bare check imports this module (bench/README.md, h161)
TYPE_CHECKING = False
if TYPE_CHECKING:  # built only where there are companions (an import would build its five classes on every check)
    from gpudoctor.extension_facts import ExtensionFacts, ExtensionObject

# distribution -> its compiled extensions, relative to site-packages; `*` matches within one path part.
COMPANIONS: dict[str, tuple[str, ...]] = {
    "torchvision": ("torchvision/_C.so",),
    "torchaudio": ("torchaudio/lib/libtorchaudio.so", "torchaudio/lib/_torchaudio.so"),
    "flash-attn": ("flash_attn_2_cuda*.so",),
    "xformers": ("xformers/_C.so",),
    "vllm": ("vllm/_C*.so", "vllm/_moe_C*.so"),
    "apex": ("amp_C*.so", "apex_C*.so", "fused_layer_norm_cuda*.so"),
    # Prebuilt ops (DS_BUILD_OPS=1) are deepspeed.ops.<group>.<name>_op (op_builder's absolute_name).
    "deepspeed": ("deepspeed/ops/*/*_op*.so",),
    "bitsandbytes": ("bitsandbytes/libbitsandbytes_cuda*.so",),
    "triton": ("triton/_C/libtriton.so",),
}
# Torch's libraries that export the names extensions bind to (torch/lib).
TORCH_LIBS = ("libc10.so", "libc10_cuda.so", "libtorch_cpu.so", "libtorch_cuda.so", "libtorch_python.so", "libtorch.so")
MAX_OBJECTS = 64  # per companion: vllm ships a handful, DeepSpeed's prebuilt ops a few dozen
MAX_METADATA = 2 * 1024 * 1024
# The symbol tables' time budget (check -v shows the probe's time as `extensions`): past it, no further table
# is read and those not read are listed in `unread`, so a slow network file system cannot stall check.
SYMBOL_BUDGET_S = 8.0
_REQUIRES = LazyPattern(r"^Requires-Dist:\s*(.+?)\s*$", re.MULTILINE)
_SYMBOL_VERSION = LazyPattern(r"^(GLIBCXX|GLIBC)_(\d+(?:\.\d+)*)$")


def installed_companions(env: PythonEnv) -> list[str]:
    return [name for name in COMPANIONS if name in env.distributions]


def probe_extensions(
    host: Host, frameworks: FrameworkFacts, libstdcxx_dirs: tuple[str, ...] = (), budget_s: float = SYMBOL_BUDGET_S
) -> ExtensionFacts | None:
    python = frameworks.python
    if not isinstance(python, Found):
        return None
    env: PythonEnv = python.value
    names = installed_companions(env)
    nccl = any(n.startswith("nvidia-nccl-cu") for n in env.distributions)
    if not names and not nccl:
        return None  # nothing to read: check's speed is unchanged without companions
    from gpudoctor.extension_facts import Companion, ExtensionFacts, ExtensionObject

    torch = frameworks.torch.value if isinstance(frameworks.torch, Found) else None
    torch_site = (torch.location if isinstance(torch, TorchFacts) else None) or (
        env.site_packages[0] if env.site_packages else ""
    )
    unread: list[str] = []
    listings: dict[str, list[str]] = {}
    deadline = time.monotonic() + budget_s

    def spent(path: str) -> bool:
        if time.monotonic() < deadline:
            return False
        unread.append(f"{path}: not read (the {budget_s:g} s symbol-table budget is spent)")
        return True

    def listing(directory: str) -> list[str]:
        if directory not in listings:
            try:
                listings[directory] = host.list_dir(directory)
            except HostError:
                listings[directory] = []
        return listings[directory]

    companions: list[Companion] = []
    for name in names:
        site = env.locations.get(name) or torch_site
        requires, where = _requires(host, site, name, env.distributions[name], listing)
        objects = [
            read_object(host, path, unread) if not spent(path) else ExtensionObject(path, error="ETIME")
            for path in _expand(site, COMPANIONS[name], listing)[:MAX_OBJECTS]
        ]
        companions.append(Companion(name, env.distributions[name], site, requires, where, tuple(objects)))
    torch_requires: tuple[str, ...] = ()
    if torch is not None and (names or nccl):
        torch_requires, _ = _requires(host, torch_site, "torch", env.distributions.get("torch", torch.version), listing)
    # Torch's exports, read only for the names some extension needs.
    wanted: set[str] = {n for c in companions for o in c.objects for n in o.unresolved}
    exported: set[str] = set()
    read_libs: list[str] = []
    cxx11: bool | None = None
    if wanted and torch is not None:
        lib_dir = posixpath.join(torch_site, "torch/lib")
        present = set(listing(lib_dir))
        predicted = {symbols.exporting_library(n) for n in wanted}
        order = [lib for lib in TORCH_LIBS if lib in predicted] + [lib for lib in TORCH_LIBS if lib not in predicted]
        for lib in order:
            if lib not in present:
                continue
            if read_libs and wanted <= exported:
                break
            if spent(posixpath.join(lib_dir, lib)):
                continue
            try:
                table = host.elf_symbols(posixpath.join(lib_dir, lib), symbols.is_torch)
            except HostError as exc:
                unread.append(f"{posixpath.join(lib_dir, lib)}: {exc.code}")
                continue
            read_libs.append(lib)
            exported |= table.defined
            for n in table.defined:
                abi = symbols.cxx11_abi(n)
                if abi is not None:
                    cxx11 = abi if cxx11 is None else (cxx11 or abi)
    if read_libs:
        companions = [
            Companion(
                c.name,
                c.version,
                c.site,
                c.requires,
                c.metadata,
                tuple(
                    ExtensionObject(
                        o.path,
                        o.needed_cuda,
                        tuple(n for n in o.unresolved if n not in exported),
                        o.torch_symbols,
                        o.cxx11abi,
                        o.glibcxx,
                        o.glibc,
                        o.error,
                    )
                    for o in c.objects
                ),
            )
            for c in companions
        ]
    else:
        # Torch's libraries not read: nothing is known to be missing.
        companions = [
            Companion(c.name, c.version, c.site, c.requires, c.metadata, tuple(_unjudged(o) for o in c.objects))
            for c in companions
        ]
    runtime: dict[str, tuple[str | None, str | None]] = {}
    for lib, family in (("libstdc++.so.6", "GLIBCXX"), ("libc.so.6", "GLIBC")):
        wants = any((o.glibcxx if family == "GLIBCXX" else o.glibc) for c in companions for o in c.objects)
        runtime[family] = runtime_version(host, libstdcxx_dirs, lib, family, unread) if wants else (None, None)
    return ExtensionFacts(
        torch.version if torch is not None else None,
        torch.cuda if torch is not None else None,
        cxx11,
        tuple(read_libs),
        torch_requires,
        tuple(companions),
        runtime["GLIBCXX"][0],
        runtime["GLIBC"][0],
        tuple(p for _v, p in runtime.values() if p),
        tuple(unread),
    )


def _unjudged(o: ExtensionObject) -> ExtensionObject:
    from gpudoctor.extension_facts import ExtensionObject

    return ExtensionObject(o.path, o.needed_cuda, (), o.torch_symbols, o.cxx11abi, o.glibcxx, o.glibc, o.error)


def _expand(site: str, patterns: tuple[str, ...], listing) -> list[str]:
    """The files the patterns name under `site`, each path part matched against one directory listing."""
    out: list[str] = []
    for pattern in patterns:
        paths = [site]
        for part in pattern.split("/"):
            nxt: list[str] = []
            for base in paths[:MAX_OBJECTS]:
                if "*" in part:
                    nxt += [posixpath.join(base, n) for n in listing(base) if fnmatch.fnmatchcase(n, part)]
                elif part in listing(base):
                    nxt.append(posixpath.join(base, part))
            paths = nxt
        out += [p for p in paths if p not in out]
    return out


def read_object(host: Host, path: str, unread: list[str]) -> ExtensionObject:
    from gpudoctor.extension_facts import ExtensionObject

    try:
        table = host.elf_symbols(path)
    except HostError as exc:
        unread.append(f"{path}: {exc.code}")
        return ExtensionObject(path, error=exc.code)
    try:
        needed = tuple(n for n in host.elf(path).needed if CUDA_LIB.match(n))
    except HostError:
        needed = ()
    torch_names = [n for n, _v in table.undefined if symbols.is_torch(n)]
    abi = None
    for n in torch_names:
        mark = symbols.cxx11_abi(n)
        if mark is not None:
            abi = mark
            break
    newest: dict[str, tuple[int, ...]] = {}
    for versions in table.needs.values():
        for v in versions:
            m = _SYMBOL_VERSION.match(v)
            if m:
                key = tuple(int(x) for x in m.group(2).split("."))
                if key > newest.get(m.group(1), ()):
                    newest[m.group(1)] = key
    return ExtensionObject(
        path,
        needed,
        tuple(dict.fromkeys(torch_names)),
        len(torch_names),
        abi,
        _dotted(newest.get("GLIBCXX")),
        _dotted(newest.get("GLIBC")),
    )


def _dotted(key: tuple[int, ...] | None) -> str | None:
    return ".".join(str(x) for x in key) if key else None


def _requires(host: Host, site: str, name: str, version: str, listing) -> tuple[tuple[str, ...], str | None]:
    """(the Requires-Dist entries without an extra, the METADATA path) of an installed distribution."""
    dist_info = next(
        (
            n
            for n in listing(site)
            if n.endswith(".dist-info") and canonical_name(n[: -len(".dist-info")].rsplit("-", 1)[0]) == name
        ),
        None,
    )
    if dist_info is None:
        return (), None
    path = posixpath.join(site, dist_info, "METADATA")
    try:
        text = host.read_text(path, MAX_METADATA)
    except HostError:
        return (), None
    head = text.split("\n\n", 1)[0]  # the headers; the long description follows the first blank line
    return tuple(r for r in _REQUIRES.findall(head) if "extra ==" not in r and "extra==" not in r), path


def runtime_version(host: Host, dirs: tuple[str, ...], lib: str, family: str, unread: list[str]) -> tuple[str | None, str | None]:
    """(the newest `family`_ version the first `lib` in `dirs` defines, its path): the C or C++ runtime the
    loader finds for the interpreter (a conda environment's lib/ first, then the system's directories)."""
    for d in dirs:
        path = posixpath.join(d, lib)
        if not host.exists(path):
            continue
        try:
            table = host.elf_symbols(path, lambda _n: False)
        except HostError as exc:
            unread.append(f"{path}: {exc.code}")
            return None, None
        best: tuple[int, ...] = ()
        for v in table.versions:
            m = _SYMBOL_VERSION.match(v)
            if m and m.group(1) == family:
                best = max(best, tuple(int(x) for x in m.group(2).split(".")))
        return _dotted(best), path
    return None, None
