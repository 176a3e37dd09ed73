"""The performance model: every number of the workbook as an expression over the parameters."""
