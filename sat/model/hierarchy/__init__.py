"""The memory hierarchy: traffic per cache level, the ECM model and Roofline, cache-set
aliasing."""
