"""Templates of the HTML summary: data only, installed as the package ``sat.templates``."""
