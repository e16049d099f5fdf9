"""Pure parsers: capture text in, frozen dataclasses out; no I/O, no subprocess, no logging.

Each module handles one format and raises gpudoctor.errors.ParseError (never another
exception) on input it cannot read.  Import the module you need, e.g.
`from gpudoctor.parsers.nvidia_smi_xml import parse_nvidia_smi_xml`.
"""
