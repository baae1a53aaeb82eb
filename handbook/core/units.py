"""Byte units: decimal GB as vendors state memory, binary KiB/MiB/GiB as SGLang logs sizes."""

GB = 10**9
KIB, MIB, GIB = 2**10, 2**20, 2**30
