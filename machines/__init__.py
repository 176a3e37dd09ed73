"""Built-in machine files: data only, installed as the package ``sat.machines``."""
