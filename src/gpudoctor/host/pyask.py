"""What a Python environment holds, asked of its interpreter (gpudoctor.host.pyenv's script, sent as source)
or read from its files where they prove the answer (gpudoctor.host.venvfiles) or where it must not be run."""

from __future__ import annotations

from gpudoctor.host import pyenv


def describe_from_files(host, executable, why):
    """What `describe()` would say, read from the environment's files: root's way with an
    interpreter that others can write (it is never run). `why` becomes the `how` note.

    The prefix is the directory above bin/; its version comes from pyvenv.cfg (`version` or uv's
    `version_info`), else from the lib/pythonX.Y directory name.
    """
    import posixpath

    from gpudoctor.host import HostError, PythonEnv

    prefix = posixpath.dirname(posixpath.dirname(executable))
    version = ""
    kind = "system"
    cfg = host.read_text_or_none(posixpath.join(prefix, "pyvenv.cfg"))
    if cfg is not None:
        kind = "venv"
        for line in cfg.splitlines():
            key, _, value = line.partition("=")
            if key.strip() in ("version", "version_info") and value.strip():
                version = ".".join(value.strip().split(".")[:3])
                break
    if host.exists(posixpath.join(prefix, "conda-meta")):
        kind = "conda"
    site_dirs = []
    try:
        libs = sorted(n for n in host.list_dir(posixpath.join(prefix, "lib")) if n.startswith("python"))
    except HostError:
        libs = []
    for name in libs:
        site = posixpath.join(prefix, "lib", name, "site-packages")
        if host.exists(site):
            site_dirs.append(site)
            version = version or name[len("python") :]

    def listdir(path):
        try:
            return host.list_dir(path)
        except HostError as exc:
            raise OSError(str(exc)) from None

    dists, locations = pyenv.collect_distributions(site_dirs, listdir)
    data = {
        "executable": executable,
        "version": version,
        "prefix": prefix,
        "kind": kind,
        "site_packages": site_dirs,
        "distributions": dists,
        "locations": locations,
    }
    return PythonEnv.from_json(data, how="files: " + why)


def describe_via(host, executable, timeout_s):
    """Run `describe()` in another interpreter through the host (a LiveHost).

    As root, an interpreter that a non-root user can write (a venv's python, its pyvenv.cfg and
    site-packages, whose .pth files run at start) is not run: the environment is read as files
    (`describe_from_files`), and its `how` says so. On the live machine, a virtual environment whose
    files prove what its interpreter would answer is read from them (`how` "files"; venvfiles.py says
    when they do), and so is a base interpreter in a layout its files settle (venvfiles.read_base); only
    otherwise is the interpreter started.

    Raises HostError: ENOENT (no such interpreter), ETIMEDOUT, or EFAIL with
    the interpreter's own error text.
    """
    return start_via(host, executable, timeout_s)()


def start_via(host, executable, timeout_s):
    """`describe_via` in two steps: what the files decide is read, or the interpreter started, now; the function
    returned gives the environment, waiting for the interpreter's answer where one was started (gpudoctor.probes
    starts it so from the main thread and waits in a probe thread: nothing else holds the interpreter lock while
    the slowest probe gets started). Raises HostError as describe_via does, from either step."""
    import posixpath

    from gpudoctor.host import HostError, PythonEnv
    from gpudoctor.trust import not_run_note, refuse_on_host

    if host.mode == "live" and getattr(host, "root", "/") == "/":
        # A pyenv shim is bash running pyenv (a tenth of a second): where pyenv's files settle which
        # interpreter it would exec, that one is asked (or read) directly (gpudoctor.host.pyenvshim).
        from gpudoctor.host.pyenvshim import logical_cwd, resolve

        real, _ = resolve(executable, host.env(), logical_cwd(host.env()), host.read_text)
        executable = real or executable

    # The interpreter and its environment's directory (site-packages lies under it).
    why = refuse_on_host(host, executable) or refuse_on_host(host, posixpath.dirname(posixpath.dirname(executable)) or "/")
    if why:
        if not host.exists(executable):
            raise HostError("ENOENT", executable, "no such interpreter")
        read = describe_from_files(host, executable, not_run_note(executable, why))
        return lambda: read

    if host.mode == "live" and getattr(host, "root", "/") == "/":
        # A virtual environment's files say what its interpreter would (gpudoctor.host.venvfiles), without
        # its start-up (tens of milliseconds, the slowest probe of a check); where they cannot, it is asked.
        # A base interpreter in a standard layout (pyenv's, uv's, a python.org build, conda's base) likewise.
        from gpudoctor.host.venvfiles import NO_PYVENV_CFG, read_base, read_venv

        data, why = read_venv(executable, host.read_text)
        if data is None and why == NO_PYVENV_CFG:
            data, _ = read_base(executable, host.read_text)
        if data is not None:
            env = PythonEnv.from_json(data, how="files")
            return lambda: env

    with open(pyenv.__file__, encoding="utf-8") as fh:
        source = fh.read()
    finish = host.start([executable, "-c", source + pyenv.SCRIPT_CALL], timeout_s)
    return lambda: _answer(finish(), executable, timeout_s)


def _answer(result, executable, timeout_s):
    """The environment `describe()` printed in `result` (the interpreter's CommandResult)."""
    import json  # (here, once the interpreter has been started: bounded.py says why)

    from gpudoctor.host import HostError, PythonEnv

    if result.missing:
        raise HostError("ENOENT", executable, "no such interpreter")
    if result.timed_out:
        raise HostError("ETIMEDOUT", executable, f"did not answer within {timeout_s:g} s")
    if result.overflow:
        raise HostError("ETOOBIG", executable, result.stderr)
    try:
        data = json.loads(result.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise HostError("EFAIL", executable, (result.stderr or result.stdout).strip()[-500:]) from None
    return PythonEnv.from_json(data, how="subprocess")
