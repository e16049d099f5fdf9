"""C++ symbol names of PyTorch's libraries: whose a mangled name is, what it reads as, which C++ ABI it uses.

One answer for both places a symbol is judged: the extensions' ELF tables (gpudoctor.checks.extensions)
and a pasted `undefined symbol: _ZN...` line. Pure.

A name belongs to torch when its outermost namespace is c10, at, torch or caffe2 (the Itanium C++ ABI
mangles `c10::cuda::SetDevice(int)` as _ZN3c104cuda9SetDeviceEi: a length-prefixed nested name). Which
of torch's libraries exports it follows torch's own source layout (c10/ -> libc10.so, c10/cuda/ ->
libc10_cuda.so, aten/ and torch/csrc/ -> libtorch_cpu.so, their CUDA parts -> libtorch_cuda.so,
torch/csrc/ Python bindings -> libtorch_python.so).

On Windows the loader names an entry point it could not find in MSVC's mangling (?element_size@TensorIteratorBase@at@@...):
its scopes are read the same way, the torch library being the DLL of the same name (torch_cpu.dll).

The demangler handles the shapes these errors show: nested names, with their builtin and std::string
parameters spelled out, anything else left as `(...)`; it never fails (the raw name is the fallback).
"""

from __future__ import annotations

import re

from gpudoctor.lazypattern import LazyPattern

TORCH_NAMESPACES = ("c10", "at", "torch", "caffe2")
_NESTED = LazyPattern(r"^_Z(?:T[ISV])?(?:N[rVK]*)?")
_BUILTIN = {
    "v": "void",
    "b": "bool",
    "c": "char",
    "a": "signed char",
    "h": "unsigned char",
    "s": "short",
    "t": "unsigned short",
    "i": "int",
    "j": "unsigned int",
    "l": "long",
    "m": "unsigned long",
    "x": "long long",
    "y": "unsigned long long",
    "f": "float",
    "d": "double",
}
# The C++ ABI of std::string and std::list in a name: libstdc++'s dual ABI puts the new one in
# std::__cxx11 (gcc's _GLIBCXX_USE_CXX11_ABI=1); the old one mangles std::string as Ss.
CXX11_MARK = "St7__cxx11"
OLD_STRING = LazyPattern(r"Ss(?![a-z])")  # std::string's abbreviation; an identifier holding "Ss" goes on in lower case


def _msvc_names(mangled: str) -> list[str]:
    """The scopes of an MSVC-mangled name, outermost first: ?element_size@TensorIteratorBase@at@@QEBA_JXZ names
    at::TensorIteratorBase::element_size (its scopes innermost first, up to "@@"). Where a retyped copy lost the "?" and
    the "@@", the scopes are read up to the last torch namespace among them; none found, the name is not read."""
    body = mangled.removeprefix("?")
    if "@@" in body:
        scopes = body.split("@@", 1)[0].split("@")
    else:
        segments = body.split("@")
        last = max((i for i, x in enumerate(segments) if x.lower() in TORCH_NAMESPACES and i > 0), default=0)
        scopes = segments[: last + 1] if last else []
    return [x for x in reversed(scopes) if x] if len(scopes) > 1 else []


def _names(mangled: str, limit: int = 8) -> tuple[list[str], int]:
    """The leading nested-name components and where the name's remainder begins."""
    if not mangled.startswith("_Z") and "@" in mangled:  # MSVC's mangling (a Windows "entry point not found")
        return [p.lower() if i == 0 else p for i, p in enumerate(_msvc_names(mangled)[:limit])], len(mangled)
    m = _NESTED.match(mangled)
    if not m:
        return [], 0
    pos = m.end()
    nested = "N" in m.group(0)
    parts: list[str] = []
    while pos < len(mangled) and len(parts) < limit:
        if mangled.startswith("St", pos) and not parts:
            parts.append("std")
            pos += 2
            continue
        digits = re.match(r"\d+", mangled[pos:])
        if not digits:
            break
        n = int(digits.group(0))
        start = pos + len(digits.group(0))
        if n <= 0 or start + n > len(mangled):
            break
        parts.append(mangled[start : start + n])
        pos = start + n
        if not nested:
            break
    return parts, pos


def namespace(mangled: str) -> str | None:
    """The outermost namespace of a mangled C++ name, or None for a C name or a shape not read."""
    parts, _ = _names(mangled, 1)
    return parts[0] if parts else None


def is_torch(mangled: str) -> bool:
    return namespace(mangled) in TORCH_NAMESPACES


def exporting_library(mangled: str) -> str | None:
    """Which of torch's libraries (torch/lib/<it>) exports a torch name; None when the name is not torch's."""
    parts, _ = _names(mangled, 3)
    if not parts or parts[0] not in TORCH_NAMESPACES:
        return None
    second = parts[1] if len(parts) > 1 else ""
    lib = _library(parts[0], second)
    # Windows' torch\lib holds the same libraries as DLLs (c10.dll, torch_cpu.dll, ...).
    return lib.removeprefix("lib").replace(".so", ".dll") if "@" in mangled and not mangled.startswith("_Z") else lib


def _library(outer: str, second: str) -> str:
    if outer == "c10":
        return "libc10_cuda.so" if second == "cuda" else "libc10.so"
    if outer == "at" and second == "cuda":
        return "libtorch_cuda.so"
    if outer == "torch" and second in ("python", "utils"):
        return "libtorch_python.so"
    return "libtorch_cpu.so"


def cxx11_abi(mangled: str) -> bool | None:
    """The C++ ABI a name was compiled with, where it shows (a std::string or std::list in it)."""
    if not mangled.startswith("_Z"):
        return None  # a C name, or MSVC's mangling: gcc's two ABIs are a Linux matter
    if CXX11_MARK in mangled:
        return True
    if OLD_STRING.search(mangled[2:]) or "Ss" in _without_identifiers(mangled[2:]):
        return False
    return None


def _without_identifiers(mangled: str) -> str:
    """The name with each length-prefixed identifier (<length><chars>) cut to '#': what is left are the grammar's own
    codes, where "Ss" is std::string whatever follows it ("...SourceLocationESsb": std::string, then bool)."""
    out: list[str] = []
    i = 0
    while i < len(mangled):
        if mangled[i].isdigit() and (i == 0 or mangled[i - 1] not in "ST"):  # S0_ and T0_ are substitutions, not lengths
            j = i
            while j < len(mangled) and mangled[j].isdigit():
                j += 1
            out.append("#")
            i = j + int(mangled[i:j])
            continue
        out.append(mangled[i])
        i += 1
    return "".join(out)


def demangle(mangled: str) -> str:
    """`c10::cuda::SetDevice(int)` for _ZN3c104cuda9SetDeviceEi; the raw name when the shape is not read."""
    parts, pos = _names(mangled, 16)
    if not parts:
        return mangled
    if pos == len(mangled) and not mangled.startswith("_Z"):
        return "::".join(parts)  # MSVC: the qualified name; its signature is not read
    qualified = "::".join(parts)
    if mangled.startswith(("_ZTI", "_ZTV", "_ZTS")):
        kind = {"I": "typeinfo for ", "V": "vtable for ", "S": "typeinfo name for "}[mangled[3]]
        return kind + qualified
    const = " const" if mangled.startswith("_ZNK") else ""
    rest = mangled[pos:]
    if rest.startswith("E"):
        rest = rest[1:]
    if rest.startswith("C2") or rest.startswith("C1"):
        qualified += "::" + parts[-1]  # a constructor: Error::Error
        rest = rest[2:].lstrip("E")
    params: list[str] = []
    i = 0
    while i < len(rest):
        ch = rest[i]
        if rest.startswith("NSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE", i):
            params.append("std::__cxx11::string")
            i += len("NSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE")
        elif (sub := re.match(r"NS\d*_(\d+)", rest[i:])) and rest.startswith("E", i + sub.end() + int(sub.group(1))):
            # A name nested in an earlier one (c10::SourceLocation inside c10::Error): NS_14SourceLocationE.
            start = i + sub.end()
            params.append(rest[start : start + int(sub.group(1))])
            i = start + int(sub.group(1)) + 1
        elif rest.startswith("Ss", i):
            params.append("std::string")
            i += 2
        elif rest.startswith("PKc", i):
            params.append("char const*")
            i += 3
        elif ch in _BUILTIN and (ch != "v" or not params):
            if ch != "v":
                params.append(_BUILTIN[ch])
            i += 1
        else:
            params.append("...")
            break
    return f"{qualified}({', '.join(params)}){const}"
