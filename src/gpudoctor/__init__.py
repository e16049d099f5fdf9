"""gpudoctor: diagnose and repair NVIDIA GPU deep-learning environments.

Importing the package does nothing but define names: no NVML, no subprocess,
no network. Everything heavy is imported where it is used.
"""

__version__ = "0.1.0"
