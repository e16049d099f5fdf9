"""A real wheel's compiled extension judged as `check` judges a companion's (issue 32); `make verify-indexes` runs it.

    .venv/bin/python tools/real_wheel.py            # network: one wheel of about 1.5 MB

The wheel is kiwisolver (WHEEL), downloaded for this Python and platform with
`pip download --no-deps --only-binary=:all:` into a temporary directory (pip reads no configuration: the
package index itself, as tools/index_table.py asks it). Its extension, a C++ shared object that needs
libstdc++.so.6 and libc.so.6, is extracted (bounded) and read through the live host as the companions probe
reads one (gpudoctor.probes.extensions.read_object: gpudoctor.elfsyms); then
gpudoctor.checks.extensions.check_runtime judges it twice:

- against the libstdc++.so.6 and libc.so.6 the loader finds for this Python (runtime_version, as `check` reads
  them): every symbol version the extension needs is defined there -> no finding; and, as a cross-check of the
  data, every versioned C++ runtime name it needs is among that libstdc++'s exports;
- against a deliberately wrong provider: a libstdc++.so.6 built here with cc that defines GLIBCXX_3.4 (GCC
  3.4's, 2004) and nothing newer -> extension-glibc-too-old, naming the version the extension really needs.

Exit 0 when both judgements hold, 1 when one does not, 2 when the wheel could not be had (no network) or no C
compiler builds the wrong provider.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import replace
from pathlib import Path

WHEEL = "kiwisolver"  # one C++ extension (kiwisolver/_cext*.so); its wheels are about 1.5 MB
MAX_WHEEL_BYTES = 5 * 1024 * 1024
MAX_MEMBER_BYTES = 32 * 1024 * 1024
TIMEOUT_S = 300
OLD_LIBSTDCXX = "GLIBCXX_3.4"


def _pip_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env["PIP_CONFIG_FILE"] = os.devnull  # a machine's pip.conf, find-links or constraints must not choose the wheel
    return env


def download(dest: Path) -> Path:
    argv = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--dest", str(dest), WHEEL]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT_S, env=_pip_env(), check=False)
    wheels = sorted(dest.glob("*.whl"))
    if done.returncode != 0 or not wheels:
        raise SystemExit(f"real_wheel: pip download {WHEEL} failed (exit {done.returncode}): {done.stderr.strip()[-400:]}")
    if wheels[0].stat().st_size > MAX_WHEEL_BYTES:
        raise SystemExit(f"real_wheel: {wheels[0].name} is over {MAX_WHEEL_BYTES} bytes")
    return wheels[0]


def extract_extension(wheel: Path, dest: Path) -> Path:
    with zipfile.ZipFile(wheel) as z:
        members = [i for i in z.infolist() if i.filename.endswith(".so") and "/" in i.filename]
        if not members:
            raise SystemExit(f"real_wheel: {wheel.name} holds no extension")
        member = members[0]
        if member.file_size > MAX_MEMBER_BYTES:
            raise SystemExit(f"real_wheel: {member.filename} is over {MAX_MEMBER_BYTES} bytes")
        out = dest / Path(member.filename).name  # the member's name only: nothing written outside dest
        with z.open(member) as src, open(out, "wb") as dst:
            shutil.copyfileobj(src, dst)
    return out


def wrong_libstdcxx(dest: Path) -> Path:
    """A libstdc++.so.6 that defines GLIBCXX_3.4 only (what GCC 3.4's defined), built with cc."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        raise SystemExit("real_wheel: no C compiler (cc) to build the wrong provider")
    (dest / "old.c").write_text("int old_libstdcxx_marker(void) { return 34; }\n", encoding="utf-8")
    (dest / "old.map").write_text(f"{OLD_LIBSTDCXX} {{ global: *; }};\n", encoding="utf-8")
    lib = dest / "old" / "libstdc++.so.6"
    lib.parent.mkdir()
    argv = [cc, "-shared", "-fPIC", "-Wl,-soname,libstdc++.so.6", f"-Wl,--version-script={dest / 'old.map'}"]
    subprocess.run([*argv, "-o", str(lib), str(dest / "old.c")], check=True, capture_output=True, timeout=120)
    return lib


def main() -> int:
    from gpudoctor.checks.extensions import check_runtime
    from gpudoctor.elfsyms import read_symbols_file
    from gpudoctor.extension_facts import Companion, ExtensionFacts
    from gpudoctor.host.live import LiveHost
    from gpudoctor.planner.context import Context
    from gpudoctor.probes import ProbeOptions, libstdcxx_dirs, run_probes
    from gpudoctor.probes.extensions import read_object, runtime_version

    host = LiveHost()
    facts = run_probes(host, ProbeOptions(python=sys.executable))
    ctx = Context(None)
    with tempfile.TemporaryDirectory(prefix="gpudoctor-real-wheel-") as tmp:
        work = Path(tmp)
        (work / "wheel").mkdir()
        wheel = download(work / "wheel")
        version = wheel.name.split("-")[1]
        so = extract_extension(wheel, work)
        unread: list[str] = []
        obj = read_object(host, str(so), unread)
        if obj.error or not obj.glibcxx:
            print(f"real_wheel: {so.name}: {obj.error or 'needs no GLIBCXX_ version'} ({'; '.join(unread)})")
            return 1
        companion = Companion(WHEEL, version, str(work), objects=(obj,))
        print(f"{wheel.name} ({wheel.stat().st_size} bytes): {so.name} needs GLIBCXX_{obj.glibcxx}, GLIBC_{obj.glibc}")

        def judge(dirs: tuple[str, ...]) -> tuple[list, str | None]:
            runtime = {
                f: runtime_version(host, dirs, lib, f, unread)
                for lib, f in (("libstdc++.so.6", "GLIBCXX"), ("libc.so.6", "GLIBC"))
            }
            paths = tuple(p for _v, p in runtime.values() if p)
            ext = ExtensionFacts(None, None, None, (), (), (companion,), runtime["GLIBCXX"][0], runtime["GLIBC"][0], paths)
            return list(check_runtime(replace(facts, extensions=ext), ctx)), runtime["GLIBCXX"][1]

        ok = True
        dirs = libstdcxx_dirs(facts.platform, facts.frameworks)
        found, provider = judge(dirs)
        names = [n for n, v in read_symbols_file(str(so)).undefined if v and v.startswith(("GLIBCXX_", "CXXABI_"))]
        exported = read_symbols_file(provider).defined if provider else set()
        present = sum(n in exported for n in names)
        print(
            f"  the loader's {provider}: findings {[f.code for f in found]}; {present} of {len(names)} versioned C++ names exported"
        )
        ok &= not found and provider is not None and present == len(names)

        old = wrong_libstdcxx(work)
        # The wrong libstdc++ first; the system's libc.so.6 after it, as the loader would find them.
        found, provider = judge((str(old.parent), *dirs))
        codes = [f.code for f in found]
        said = found[0].title if found else "nothing"
        print(f"  a wrong provider ({provider}, {OLD_LIBSTDCXX} only): findings {codes}: {said}")
        ok &= codes == ["extension-glibc-too-old"] and f"GLIBCXX_{obj.glibcxx}" in said and provider == str(old)
    print("real wheel judged as expected" if ok else "real wheel: a judgement did not hold")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    try:
        sys.exit(main())
    except SystemExit as exc:
        if isinstance(exc.code, str):
            print(exc.code, file=sys.stderr)
            sys.exit(2)
        raise
