"""gpudoctor: diagnose and repair NVIDIA GPU deep-learning environments.

Importing the package does nothing but define names: no NVML, no subprocess,
no network. Everything heavy is imported where it is used.
"""

# The one place the version is written: pyproject.toml reads it (dynamic version), and `--version`,
# JSON/JUnit reports and snapshots print it.
__version__ = "0.1.0"
