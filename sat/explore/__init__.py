"""Design-space exploration: evaluating the model over many configurations at once."""
