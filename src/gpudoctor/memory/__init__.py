"""`gpudoctor memory`: who holds GPU memory, and how several jobs can share a GPU (docs/memory.md).

- view.py: the memory of each GPU and MIG instance and the processes holding it (pure).
- procinfo.py: user, command line and framework of a process, read through the Host seam.
- gather.py: asks the host (NVML, nvidia-smi, /proc) and builds the view.
- plan.py, settings.py, mig.py: the budget plan, each framework's settings, MIG profiles (pure).
- render.py: the terminal and JSON forms of the view and the plan.

Nothing is imported here: `gpudoctor check` loads view.py alone, for the preallocation checks.
"""
