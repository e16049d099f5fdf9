"""`gpudoctor snapshot`: record everything the probes read, for replay anywhere."""

from __future__ import annotations

import sys

import typer

from gpudoctor.cli.common import ROOT_HELP, positive_seconds


def register(app: typer.Typer) -> None:
    @app.command(
        "snapshot",
        help=(
            "Record this machine as a JSON snapshot (docs/snapshot-format.md) that `gpudoctor check --replay FILE` "
            "diagnoses offline. The host name, GPU serials and UUIDs, and user names are redacted unless --no-redact."
        ),
    )
    def snapshot(
        output: str = typer.Option(
            "-", "--output", "-o", metavar="FILE", help="Where to write the snapshot (default, or '-': standard output)."
        ),
        deep: bool = typer.Option(False, "--deep", help="Also record each framework's import in a subprocess."),
        python: str | None = typer.Option(
            None, "--python", metavar="PATH", help="The Python interpreter whose environment to record."
        ),
        probe_timeout: float = typer.Option(
            5.0, "--probe-timeout", metavar="SECONDS", callback=positive_seconds, help="Time limit of each probe."
        ),
        note: str | None = typer.Option(None, "--note", help="A free-text note stored in the snapshot."),
        pid: int | None = typer.Option(
            None,
            "--pid",
            min=1,
            metavar="PID",
            help="Also record which CUDA libraries this running process mapped (/proc/PID/maps; as its owner or root).",
        ),
        from_files: list[str] = typer.Option(
            [],
            "--from",
            metavar="FILE",
            help=(
                "Write the partial snapshot that pasted text describes instead of recording this machine "
                "(repeatable; '-' for standard input; docs/pasted.md), to read and correct it."
            ),
        ),
        redact: bool = typer.Option(True, "--redact/--no-redact", help="Redact host name, serials, UUIDs and user names."),
        root: str = typer.Option("/", "--root", hidden=True, metavar="DIR", help=ROOT_HELP),
    ) -> None:
        import datetime
        import getpass
        import os
        import socket

        from gpudoctor import __version__
        from gpudoctor.doctor import diagnose
        from gpudoctor.host.live import LiveHost
        from gpudoctor.host.replay import RecordingHost
        from gpudoctor.host.snapshot import dump_snapshot
        from gpudoctor.probes import ProbeOptions

        if output != "-":
            from gpudoctor.cli.common import check_output_path

            check_output_path("--output", output)
        if from_files:
            _write_pasted(output, from_files, note)
            return
        if python:
            from gpudoctor.cli.common import check_python

            check_python(python)
        live = LiveHost(root=root)
        from gpudoctor.cli.common import say_trust_notes

        say_trust_notes(live.trust_notes)
        host = RecordingHost(live)
        options = ProbeOptions(
            probe_timeout_s=probe_timeout, deadline_s=max(10.0, probe_timeout * 4), python=python, deep=deep, pid=pid
        )
        report = diagnose(host, options)
        snap = host.snapshot
        snap["recorded_with"] = f"gpudoctor {__version__}"
        snap["recorded_at"] = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat()
        snap["redacted"] = redact
        if note:
            snap["note"] = note
        if redact:
            users = {getpass.getuser(), os.path.basename(os.path.expanduser("~"))}
            text = dump_snapshot(snap, socket.gethostname(), sorted(users))
        else:
            text = dump_snapshot(snap)
        if output == "-":
            sys.stdout.write(text)
        else:
            try:
                from gpudoctor.atomicfile import write_output

                write_output(output, text.encode("utf-8"))  # never through a link planted at OUTPUT
            except OSError as exc:
                from gpudoctor.errors import GpudoctorError

                raise GpudoctorError(f"could not write {output}: {exc.strerror or exc}") from None
            counts = f"{len(snap['files'])} files, {len(snap['commands'])} commands"
            sys.stderr.write(f"wrote {output} ({counts}; {len(report.findings)} findings at recording time)\n")


def _write_pasted(output: str, paths: list[str], note: str | None) -> None:
    """`snapshot --from`: the snapshot built from pasted text, as `check --from` diagnoses it (docs/pasted.md)."""
    from gpudoctor import __version__
    from gpudoctor.host.snapshot import dump_snapshot, validate_snapshot
    from gpudoctor.pasted import load_sources, read_pasted

    snap = validate_snapshot(read_pasted(load_sources(paths)), "pasted text")
    snap["recorded_with"] = f"gpudoctor {__version__} (from pasted text)"
    if note:
        snap["note"] = note
    text = dump_snapshot(snap)
    if output == "-":
        sys.stdout.write(text)
        return
    try:
        from gpudoctor.atomicfile import write_output

        write_output(output, text.encode("utf-8"))
    except OSError as exc:
        from gpudoctor.errors import GpudoctorError

        raise GpudoctorError(f"could not write {output}: {exc.strerror or exc}") from None
    blocks = len(snap.get("pasted", {}).get("blocks", []))
    sys.stderr.write(f"wrote {output} (partial: {blocks} block(s) read; what they did not show is unknown)\n")
