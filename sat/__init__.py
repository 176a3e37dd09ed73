"""satreport: analytic performance models of loop nests, as a live Excel workbook."""

__version__ = "0.1.0"
