"""Irregular codes: loop idioms, gathers and scatters, and offload to an accelerator."""
