"""Machine files the tests write: small, exact machines whose cache sizes a test picks, and a
run of satreport on a source with one of them."""

from __future__ import annotations

import json
from pathlib import Path

from sat.cli import main


def two_level_machine(l2_kib: int) -> str:
    """A one-core machine with a 4 KiB L1 and an inclusive L2 of ``l2_kib`` KiB (also its
    CacheKB), 64-byte lines, before memory."""
    return f"""\
<machine name="two-level" description="a two-level test machine">
  <prop key="Cores" val="1" source="test"/>
  <prop key="GflopsPerCore" val="16" source="test"/>
  <prop key="GBsPerCore" val="10" source="test"/>
  <prop key="CacheKB" val="{l2_kib}" source="test"/>
  <prop key="LineBytes" val="64" source="test"/>
  <prop key="WordBytes" val="8" source="test"/>
  <memory>
    <level name="L1" size_kib="4" line_bytes="64" shared_by_cores="1" bandwidth_gbs="128"
           source="test"/>
    <level name="L2" size_kib="{l2_kib}" line_bytes="64" shared_by_cores="1" bandwidth_gbs="64"
           policy="inclusive" source="test"/>
    <level name="memory" line_bytes="64" shared_by_cores="1" bandwidth_gbs="40"
           source="test"/>
  </memory>
</machine>
"""


def run_with_machine(capsys, tmp_path: Path, name: str, text: str, machine_xml: str,
                     *options: str, workbook: Path | None = None) -> dict:
    """The JSON of satreport on the source ``text`` (file ``name``) with the machine
    ``machine_xml``, one set-up iteration (``--set SetupIterations=1``) and ``options``; the
    workbook written to ``workbook`` too when one is given."""
    source = tmp_path / name
    source.write_text(text)
    machine = tmp_path / "two-level.xml"
    machine.write_text(machine_xml)
    book = ["-o", str(workbook)] if workbook is not None else []
    assert main([str(source), "--machine", str(machine), "--json", "-", "-q",
                 "--set", "SetupIterations=1", *options, *book]) == 0
    return json.loads(capsys.readouterr().out)


def level_rows(capsys, tmp_path: Path, name: str, text: str, machine_xml: str,
               *options: str) -> dict[str, dict]:
    """The Levels rows of the source's one nest by level name (:func:`run_with_machine`),
    the nest within its physical bounds."""
    data = run_with_machine(capsys, tmp_path, name, text, machine_xml, *options)
    (loop,) = data["loops"]
    assert not data["bounds_violations"]
    return {row["level"]: row for row in loop["levels"]}


def level_bytes(capsys, tmp_path: Path, name: str, text: str, machine_xml: str,
                *options: str) -> dict[str, float]:
    """Bytes each level moves for the source's one nest (:func:`level_rows`)."""
    rows = level_rows(capsys, tmp_path, name, text, machine_xml, *options)
    return {level: row["traffic_gb"] * 1e9 for level, row in rows.items()}
