"""The planner: what to do about a machine, decided from its facts and the matrix, without I/O.

Below the checks (which judge and take their fixes from here) and above the matrix: the context every
rule and choice reads (`context`), the distribution's commands (`remedy`), the framework builds that fit
(`plan`, with `pick_torch`, `pick_tensorflow`, `pick_jax`, `judge` and the machine model of `machine` and
`model`), the argument lists (`commands`, `render`), the one plan of a report (`prescribe`) and what
`gpudoctor fix` can apply (`offers`). Running anything is gpudoctor.install's.
"""
