"""Renderers: the workbook, JSON, HTML, the Aspen model and graphs of a built model."""
