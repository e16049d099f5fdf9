"""`gpudoctor install` and `gpudoctor fix`: choose the framework build that fits this machine, install it
after confirmation, and prove it works by probing again.

- `plan` (pure): from Facts and the matrix, the build to install, why, what was ruled out and the
  exact argument lists to run; `pick_torch`, `pick_tensorflow`, `pick_jax` know each framework's
  builds and package specs, `judge` the rules every build is held to (Python, OS, driver, kernels).
- `environment` reads the target environment through the Host (which installer manages it).
- `apply` is the only place that runs anything: confirmed argument lists, never a shell, output
  streamed, then a re-probe with `--deep` (importing the framework in a subprocess).
- `fix` turns the current findings into the safe automatic fixes (reinstall a framework build,
  switch the CUDA toolkit, set an allocator variable in a file the user names).

Nothing here is imported by `gpudoctor check` except the plan functions the framework checks use
for their reinstall commands.
"""

FRAMEWORKS = ("torch", "tensorflow", "jax")
