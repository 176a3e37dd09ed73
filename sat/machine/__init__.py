"""Machine descriptions: one module per file format, the built-in library, accelerators."""
