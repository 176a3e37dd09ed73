"""ExaSAT parameter files, the parameter registry, --set and validation."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from sat.machine import MACHINE_PARAMETERS, load_machine
from sat.model.context import ModelContext
from sat.parameter import Parameter
from sat.parameters import ParameterError, build_parameters, validate
from sat.parameters.costs import COST_PARAMETERS
from sat.parameters.files import (
    read_block_params,
    read_conds,
    read_namesubs,
    read_params,
    read_symsubs,
)
from sat.parameters.registry import SOFTWARE_PARAMETERS, unknown_sets

CONFIG = Path(__file__).parent / "data" / "exasat" / "config"


def write(tmp_path: Path, text: str, name: str = "p.xml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def reference_machine():
    return load_machine(str(CONFIG / "machine.xml"))


# ------------------------------------------------------------------ ExaSAT's files


def test_read_params():
    path = CONFIG / "params.xml"
    values = read_params(path)
    # lo, hi, fine_lo, fine_hi, crse_lo, crse_hi, ilo, ihi, __Box?__: 9 × 3, plus ng, nspecies
    assert len(values) == 29
    source = f"parameter file {path}"
    assert values["lo(1)"] == (1, source)
    assert values["hi(3)"] == (128, source)
    assert values["crse_hi(2)"] == (64, source)
    assert values["ihi1"] == (128, source)
    assert values["__BoxX__"] == (128, source)
    assert (values["ng"][0], values["nspecies"][0]) == (4, 9)


def test_read_params_tuple_form(tmp_path):
    path = write(tmp_path, '<params>\n<prop key="(lo(1), hi(1))" val="(1, 16)"/>\n'
                           '<prop key="(a(1,2), n)" val="(2.5e1, -3)"/></params>')
    values = read_params(path)
    assert {k: v for k, (v, _) in values.items()} == {"lo(1)": 1, "hi(1)": 16, "a(1,2)": 25,
                                                      "n": -3}


def test_read_block_params():
    blocks = read_block_params(CONFIG / "block_params.xml")
    assert len(blocks.bounds) == 12
    assert blocks.bounds[("lo(1)", "hi(1)")] == ("1", "16")
    assert blocks.bounds[("lo(3)", "hi(3)")] == ("1", "128")
    assert blocks.bounds[("crse_lo(2)", "crse_hi(2)")] == ("1", "8")
    assert blocks.bounds[("ilo3", "ihi3")] == ("1", "128")
    # x: lo/hi, fine, ilo/ihi give 16 - 1 + 1 = 16, crse gives 8: 16 is the most common
    sizes = {name: size for name, (size, _) in blocks.sizes.items()}
    assert sizes == {"BlockX": 16, "BlockY": 16, "BlockZ": 128}
    assert "(crse_lo(1), crse_hi(1)) gives 8" in blocks.sizes["BlockX"][1]


def test_block_sizes_when_pairs_agree(tmp_path):
    path = write(tmp_path, '<params><prop key="(lo(1), hi(1))" val="(1, 32)"/>'
                           '<prop key="(ilo2, ihi2)" val="(0, 7)"/>'
                           '<prop key="(is, ie)" val="(1, 4)"/>'
                           '<prop key="(klo, khi)" val="(1, nz)"/></params>')
    blocks = read_block_params(path)
    # x: 32 - 1 + 1 = 32; y: 7 - 0 + 1 = 8; (is, ie) and (klo, khi) name no dimension
    assert blocks.sizes == {"BlockX": (32, f"parameter file {path}"),
                            "BlockY": (8, f"parameter file {path}")}
    assert blocks.bounds[("klo", "khi")] == ("1", "nz")


def test_read_symsubs_conds_namesubs():
    symsubs = read_symsubs(CONFIG / "symsubs.xml")
    assert len(symsubs) == 28
    assert symsubs["dlo(1)"] == "lo(1) - ng"
    assert symsubs["ncons"] == "nspecies + 5"
    assert symsubs["qh1"] == "8+2*nspecies"
    assert read_conds(CONFIG / "conds.xml") == {"present(courno)": 1.0}
    assert read_namesubs(CONFIG / "namesubs.xml")["qx1+n-1"] == "qxn"


@pytest.mark.parametrize("reader, body, line, fragment", [
    (read_params, '<params>\n<prop key="ng" val="four"/>\n</params>', 2, "'four' is not a number"),
    (read_params, '<params>\n\n<prop key="(lo(1), hi(1))" val="(1)"/></params>', 3,
     "needs 2 values"),
    (read_params, '<params>\n<prop key="ng" val="4"/>\n<prop key="ng" val="5"/></params>', 3,
     "ng given twice with different values (also line 2)"),
    (read_params, '<params>\n<prop key="ng"/>\n</params>', 2, "no value"),
    (read_params, '<params>\n<param key="ng" val="4"/>\n</params>', 2, "unexpected <param>"),
    (read_params, '<params>\n<prop key="ng" val="4">\n</params>', 3, "malformed XML"),
    (read_block_params, '<params>\n<prop key="lo(1)" val="(1, 16)"/>\n</params>', 2,
     "not a (lo, hi) pair"),
    (read_block_params, '<params>\n<prop key="(lo(1), hi(1))" val="16"/>\n</params>', 2,
     "not a (lo, hi) pair"),
    (read_block_params, '<params>\n<prop key="(lo(1), hi(1))" val="(16, 1)"/>\n</params>', 2,
     "lo <= hi"),
    (read_conds, '<conds>\n<prop key="x > 0" val="1.5"/>\n</conds>', 2, "from 0 to 1"),
    (read_symsubs, '<symsubs>\n<prop key="n" val=""/>\n</symsubs>', 2, "no value"),
    (read_symsubs, '<!DOCTYPE s [<!ENTITY e "1">]>\n<symsubs/>', 1, "DOCTYPE"),
    (read_params, '\n<machine>\n<prop key="core_n" val="4"/>\n</machine>', 2,
     "the root element is <machine>, but a parameter file is <params>"),
    (read_conds, '<params>\n<prop key="x" val="1"/>\n</params>', 1,
     "but a condition file is <conds>"),
])
def test_bad_parameter_files_name_file_and_line(tmp_path, reader, body, line, fragment):
    path = write(tmp_path, body)
    with pytest.raises(ParameterError) as info:
        reader(path)
    message = str(info.value)
    assert message.startswith(f"{path}:{line}: "), message
    assert fragment in message and "\n" not in message


def test_missing_parameter_file(tmp_path):
    with pytest.raises(ParameterError, match=r"^.*nope\.xml: cannot read file"):
        read_params(tmp_path / "nope.xml")


# ------------------------------------------------------------------ the registry


def test_build_parameters_from_the_reference_files(reference_machine):
    ps = build_parameters(reference_machine, CONFIG / "params.xml",
                          CONFIG / "block_params.xml", CONFIG / "symsubs.xml",
                          CONFIG / "conds.xml")
    # a one-cache machine: no per-level energies among the cost parameters
    machine = list(MACHINE_PARAMETERS) + list(COST_PARAMETERS)
    assert list(ps.parameters) == machine + list(SOFTWARE_PARAMETERS)
    assert [p.group for p in ps.parameters.values()] == (
        ["machine"] * len(machine) + ["software"] * len(SOFTWARE_PARAMETERS))
    assert ps["CacheKB"].value == 1024 and ps["CacheKB"].unit == "KiB"
    assert ps["CacheKB"].source == f"machine file {CONFIG / 'machine.xml'}"
    assert (ps["BlockX"].value, ps["BlockY"].value, ps["BlockZ"].value) == (16, 16, 128)
    assert ps["BlockX"].kind == "integer" and ps["BlockX"].unit == "elements"
    assert ps["BlockZ"].source.startswith(f"parameter file {CONFIG / 'block_params.xml'}")
    assert (ps["StreamingWrites"].value, ps["StreamingWrites"].kind) == (0, "boolean")
    assert ps["NTAHints"].source == "default"
    assert ps.symbol_values["hi(1)"][0] == 128 and ps.symbol_values["ng"][0] == 4
    assert ps.symsubs["ncons"] == "nspecies + 5"
    assert ps.block_bounds[("fine_lo(3)", "fine_hi(3)")] == ("1", "128")
    assert ps.conds == {"present(courno)": 1.0}
    assert all(len(p.label) > 20 and p.label.endswith(".") for p in ps.parameters.values())


def test_no_block_file_means_no_blocking(reference_machine):
    ps = build_parameters(reference_machine)
    assert (ps["BlockX"].value, ps["BlockY"].value, ps["BlockZ"].value) == (0, 0, 0)
    assert ps.symbol_values == {} and ps.block_bounds == {}


# ------------------------------------------------------------------ --set


def test_set_machine_and_software_parameters(reference_machine):
    ps = build_parameters(reference_machine, sets=[
        "CacheKB=1.5e3", "cores = 64", "StreamingWrites=TRUE", "NTAHints=yes",
        "BlockX=32", "Overlap=0", "DivCost=1.0d1"])
    assert (ps["CacheKB"].value, ps["CacheKB"].source) == (1500, "--set")
    assert ps["Cores"].value == 64  # names are case-insensitive, as Excel's defined names
    assert (ps["StreamingWrites"].value, ps["NTAHints"].value) == (1, 1)
    assert (ps["BlockX"].value, ps["Overlap"].value, ps["DivCost"].value) == (32, 0, 10)
    assert ps["GflopsPerCore"].source != "--set"


@pytest.mark.parametrize("text, value", [
    ("TRUE", 1), ("true", 1), ("1", 1), ("yes", 1), ("FALSE", 0), ("False", 0), ("0", 0),
    ("no", 0)])
def test_set_booleans(reference_machine, text, value):
    ps = build_parameters(reference_machine, sets=[f"NTAHints={text}"])
    assert ps["NTAHints"].value == value


def test_set_code_symbol_both_spellings(reference_machine):
    # after params.xml: hi_1 replaces the file's hi(1), under the file's spelling
    ps = build_parameters(reference_machine, CONFIG / "params.xml", sets=["hi_1=256"])
    assert ps.symbol_values["hi(1)"] == (256, "--set")
    assert "hi_1" not in ps.symbol_values
    assert ps.symbol_values["hi(2)"][0] == 128
    # without a file, both spellings name the same symbol; the last one wins
    ps = build_parameters(reference_machine, sets=["hi(1)=64", "HI_1=32", "ng=2"])
    assert ps.symbol_values == {"hi(1)": (32, "--set"), "ng": (2, "--set")}


def test_set_symbol_reaches_the_model_parameter(reference_machine):
    ps = build_parameters(reference_machine, CONFIG / "params.xml",
                          symsubs_file=CONFIG / "symsubs.xml", sets=["hi(1)=256"])
    context = ModelContext(ps)
    context.expr("hi(1) - lo(1) + 1")
    assert (ps["hi_1"].value, ps["hi_1"].source, ps["hi_1"].group) == (256, "--set", "problem")
    assert ps["lo_1"].source == f"parameter file {CONFIG / 'params.xml'}"


@pytest.mark.parametrize("text, fragment", [
    ("CacheKB", "expected NAME=VALUE"),
    ("=5", "the name is empty"),
    ("CacheKB=", "the value is empty"),
    ("CacheKB=abc", "'abc' is not a finite number"),
    ("CacheKB=nan", "not a finite number"),
    ("hi(1)=inf", "not a finite number"),
    ("hi(1)=TRUE", "not a finite number"),
    ("StreamingWrites=maybe", "TRUE or FALSE"),
    ("StreamingWrites=2", "TRUE or FALSE"),
    ("hi(1=5", "neither a parameter name nor a code symbol"),
    ("a+b=5", "neither a parameter name nor a code symbol"),
])
def test_bad_set_syntax(reference_machine, text, fragment):
    with pytest.raises(ParameterError) as info:
        build_parameters(reference_machine, sets=[text])
    assert fragment in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("text, fragment", [
    ("Cores=0", "Cores = 0 (--set) must be positive"),
    ("GBsPerCore=-1", "GBsPerCore = -1 (--set) must be positive"),
    ("NICGBs=0", "must be positive"),
    ("WordBytes=0", "must be positive"),
    ("IntRegs=-2", "IntRegs = -2 (--set) must not be negative"),
    ("FPRegs=3.5", "must be a whole number"),
    ("WriteCost=-8", "must not be negative"),
    ("NICLatencyUs=-0.1", "must not be negative"),
    ("Overlap=0.5", "Overlap = 0.5 (--set) must be 0 or 1"),
    ("BlockY=-16", "BlockY = -16 (--set) must not be negative"),
    ("BlockZ=12.5", "BlockZ = 12.5 (--set) must be a whole number"),
])
def test_out_of_range_values(reference_machine, text, fragment):
    with pytest.raises(ParameterError) as info:
        build_parameters(reference_machine, sets=[text])
    assert fragment in str(info.value)


def test_validate_names_the_source_of_a_bad_file_value(reference_machine, tmp_path):
    path = write(tmp_path, '<params><prop key="BlockX" val="-4"/></params>')
    with pytest.raises(ParameterError, match=rf"BlockX = -4 \(parameter file {path}\)"):
        build_parameters(reference_machine, params_file=path)


def test_validate_problem_values(reference_machine):
    ps = build_parameters(reference_machine)
    ps.symbol_values["ng"] = (math.nan, "--set")
    with pytest.raises(ParameterError, match=r"^ng = nan \(--set\) must be a finite number"):
        validate(ps)
    del ps.symbol_values["ng"]
    ps.add(Parameter("hi_1", math.inf, group="problem", source="default"))
    with pytest.raises(ParameterError, match="hi_1"):
        validate(ps)


def test_unknown_sets(reference_machine):
    sets = ["hi(1)=256", "hi_2=8", "cachekb=32", "nosuch=1", "ncons=3"]
    ps = build_parameters(reference_machine, symsubs_file=CONFIG / "symsubs.xml", sets=sets)
    # the model has met hi(1) and hi(2) only: it added them as problem parameters
    context = ModelContext(ps)
    context.expr("hi(1) * hi(2)")
    # ncons is defined by symsubs (a derived quantity): setting it would change nothing
    assert unknown_sets(ps, sets) == ["nosuch", "ncons"]
    assert unknown_sets(ps, ["HI(1)", "Cores"]) == []
