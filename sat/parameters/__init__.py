"""The parameters of a run: the machine-, level- and cost-derived ones, ExaSAT's files, ``--set``."""
