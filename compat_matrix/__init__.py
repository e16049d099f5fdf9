"""Compatibility data; read through gpudoctor.matrix."""
