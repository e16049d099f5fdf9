"""Pure parsers: capture text in, frozen dataclasses out; no I/O, no subprocess, no logging.

Each module reads one format and raises gpudoctor.errors.ParseError (never another exception) on text it cannot read.
"""
