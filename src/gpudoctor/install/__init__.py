"""`gpudoctor install` and `gpudoctor fix` apply what the planner (gpudoctor.planner) chose: the only part
of the installer that touches the machine.

- `environment` reads the target environment through the Host (which installer manages it).
- `apply` is the only place that runs anything: confirmed argument lists, never a shell, output
  streamed, then a re-probe with `--deep` (importing the framework in a subprocess).
- `fix` turns the current findings into the safe automatic fixes (reinstall a framework build,
  switch the CUDA toolkit, set an allocator variable in a file the user names); the command's runner
  is gpudoctor.cli.fix_run.
- `online` asks the package index which builds exist (`install --online`).

Nothing here is imported by `gpudoctor check` except `fix.offered`, when a finding could be offered a fix.
"""

FRAMEWORKS = ("torch", "tensorflow", "jax")
