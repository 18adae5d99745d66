"""Outputs and I/O: where a verb may write, atomic writes, strict JSON text, submission files."""
