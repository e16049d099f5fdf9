"""What a Python environment holds, asked of that environment's own interpreter.

`describe()` runs in gpudoctor's interpreter when the probed environment is
its own, and its source is sent to another interpreter otherwise (gpudoctor
installed with pipx must still see the project's torch). It therefore uses
only the standard library and syntax that Python 3.6 accepts, and never
imports a framework: it reads `*.dist-info` / `*.egg-info` directory names,
which is both faster than importlib.metadata and works on any Python.
"""

import json
import os
import sys

_SCRIPT_CALL = "\nimport json as _j\nprint(_j.dumps(describe()))\n"


def _site_dirs():
    seen = []
    for entry in sys.path:
        if not entry or not os.path.isdir(entry):
            continue
        real = os.path.abspath(entry)
        if real in seen:
            continue
        if real.endswith(("site-packages", "dist-packages")) or os.path.basename(real).startswith("python"):
            seen.append(real)
    return seen


def _split_dist_dir(name):
    # "torch-2.1.0+cu121.dist-info" -> ("torch", "2.1.0+cu121");
    # "foo-1.0-py3.8.egg-info" -> ("foo", "1.0").
    stem = name.rsplit(".", 1)[0]
    parts = stem.split("-")
    if len(parts) < 2:
        return None
    return parts[0], parts[1]


def describe():
    """This interpreter's version, prefix, kind, site-packages and distributions."""
    site_dirs = [d for d in _site_dirs() if d.endswith(("site-packages", "dist-packages"))]
    dists = {}
    locations = {}
    for directory in site_dirs:
        try:
            names = sorted(os.listdir(directory))
        except OSError:
            continue
        for name in names:
            if not (name.endswith(".dist-info") or name.endswith(".egg-info")):
                continue
            split = _split_dist_dir(name)
            if split is None:
                continue
            dist, version = split
            key = dist.lower().replace("_", "-").replace(".", "-")
            # The first site directory on sys.path wins, as it does for import.
            if key not in dists:
                dists[key] = version
                locations[key] = directory
    prefix = sys.prefix
    if getattr(sys, "base_prefix", prefix) != prefix:
        kind = "conda" if os.path.isdir(os.path.join(prefix, "conda-meta")) else "venv"
    else:
        kind = "conda" if os.path.isdir(os.path.join(prefix, "conda-meta")) else "system"
    return {
        "executable": sys.executable,
        "version": "%d.%d.%d" % sys.version_info[:3],
        "prefix": prefix,
        "kind": kind,
        "site_packages": site_dirs,
        "distributions": dists,
        "locations": locations,
    }


def describe_via(host, executable, timeout_s):
    """Run `describe()` in another interpreter through the host.

    Raises HostError: ENOENT (no such interpreter), ETIMEDOUT, or EFAIL with
    the interpreter's own error text.
    """
    from gpudoctor.host import HostError, PythonEnv

    with open(__file__, encoding="utf-8") as fh:
        source = fh.read()
    result = host.run([executable, "-c", source + _SCRIPT_CALL], timeout_s)
    if result.missing:
        raise HostError("ENOENT", executable, "no such interpreter")
    if result.timed_out:
        raise HostError("ETIMEDOUT", executable, "did not answer within %g s" % timeout_s)
    try:
        data = json.loads(result.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise HostError("EFAIL", executable, (result.stderr or result.stdout).strip()[-500:]) from None
    return PythonEnv.from_json(data, how="subprocess")
