"""Functional covergroups (`hdlrl.cover.coverage_yaml`, `hdlrl.cover.functional`): the
coverage.yaml format and its errors, the bins' semantics on hand-made sampling points, the
harness's scoping of expressions, and the covergroups of the project designs."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from hdlrl.cover.coverage_yaml import load_covergroups
from hdlrl.cover.functional import (FunctionalCoverage, GroupTally, fraction, group_tallies, merge_hits,
                                    sampled_expressions, scoped)
from hdlrl.design import load_design
from hdlrl.errors import HdlrlError
from hdlrl.hdl.lexer import tokenize

from conftest import DESIGNS_DIR

ALU_LIKE = """\
covergroups:
  - name: operations
    condition: "valid"
    coverpoints:
      - name: op
        signal: op
        width: 8
        bins:
          - {name: add, value: 0}
          - {name: logic, values: [2, 3, 4, 5]}
          - {name: low_half, range: [0, 127]}
          - {name: wrap, transition: [255, 0]}
          - {name: ramp, transition: [[1, 2], 3, 4]}
      - name: zero
        signal: zero
        width: 1
        bins: auto
    crosses:
      - name: op_by_zero
        coverpoints: [op, zero]
  - name: ticks
    clock: clk
    coverpoints:
      - name: count
        signal: u_core.count
        bins:
          - {name: top, value: 9}
"""


def _folder(tmp_path: Path, text: str) -> Path:
    (tmp_path / "coverage.yaml").write_text(textwrap.dedent(text))
    return tmp_path


def _bits(value: int, width: int) -> str:
    return format(value, f"0{width}b")


@pytest.fixture()
def groups(tmp_path: Path):
    return load_covergroups(_folder(tmp_path, ALU_LIKE))


def _sample(model: FunctionalCoverage, op: str | int, zero: str | int = 0, valid: str = "1",
            clock: str | None = None, count: str = "0000") -> None:
    """One sampling point in the order of sampled_expressions: op, zero, valid, u_core.count."""
    model.record(clock, [op if isinstance(op, str) else _bits(op, 8),
                         zero if isinstance(zero, str) else _bits(zero, 1), valid, count])


def test_expressions_are_ordered_per_group_and_distinct(groups) -> None:
    assert sampled_expressions(groups) == ["op", "zero", "valid", "u_core.count"]
    assert sampled_expressions(groups + groups) == ["op", "zero", "valid", "u_core.count"]
    assert load_covergroups(Path("/nonexistent/design")) == []


def test_every_bin_has_an_id_and_starts_unhit(groups) -> None:
    hits = FunctionalCoverage(groups).hits()
    assert list(hits)[:7] == ["operations.op.add", "operations.op.logic", "operations.op.low_half",
                              "operations.op.wrap", "operations.op.ramp", "operations.zero.0", "operations.zero.1"]
    crosses = [bin_id for bin_id in hits if bin_id.startswith("operations.op_by_zero.")]
    assert crosses == [f"operations.op_by_zero.{op}*{zero}" for op in ("add", "logic", "low_half")
                       for zero in ("0", "1")]  # the transition bins take no part
    assert "ticks.count.top" in hits and set(hits.values()) == {0}
    assert len(hits) == 7 + 6 + 1


def test_value_values_range_and_auto_bins_count_every_sample_they_hold(groups) -> None:
    model = FunctionalCoverage(groups)
    model.start_run()
    for op, zero in [(0, 1), (3, 0), (5, 0), (200, 1), (127, 0)]:
        _sample(model, op, zero)
    hits = model.hits()
    assert hits["operations.op.add"] == 1
    assert hits["operations.op.logic"] == 2
    assert hits["operations.op.low_half"] == 4  # 0, 3, 5, 127 (bins overlap: add and logic too)
    assert hits["operations.zero.0"] == 3 and hits["operations.zero.1"] == 2
    assert hits["operations.op_by_zero.add*1"] == 1 and hits["operations.op_by_zero.low_half*1"] == 1
    assert hits["operations.op_by_zero.logic*0"] == 2 and hits["operations.op_by_zero.low_half*0"] == 3
    assert hits["operations.op_by_zero.add*0"] == 0 and hits["operations.op_by_zero.logic*1"] == 0


def test_x_bits_make_a_sample_unknown(groups) -> None:
    model = FunctionalCoverage(groups)
    _sample(model, "0000000x", 1)
    _sample(model, "zzzzzzzz", "x")
    hits = model.hits()
    assert hits["operations.zero.1"] == 1  # the known coverpoint of the same sample still counts
    assert not any(hits[bin_id] for bin_id in hits if bin_id.startswith(("operations.op.", "operations.op_by")))


def test_transitions_need_consecutive_samples_of_one_run(groups) -> None:
    model = FunctionalCoverage(groups)
    model.start_run()
    for op in (255, 0, 255, 7, 0, 2, 3, 4, 1, 3, 4):
        _sample(model, op)
    assert model.hits()["operations.op.wrap"] == 1  # 255 -> 0, not 255 -> 7 -> 0
    assert model.hits()["operations.op.ramp"] == 2  # a step may accept several values
    _sample(model, 255)
    model.start_run()
    _sample(model, 0)
    _sample(model, 255)
    _sample(model, "xxxxxxxx")  # unknown: a sample that breaks the transition
    _sample(model, 0)
    assert model.hits()["operations.op.wrap"] == 1


def test_a_false_or_unknown_condition_skips_the_sample_and_keeps_the_history(groups) -> None:
    model = FunctionalCoverage(groups)
    model.start_run()
    _sample(model, 255)
    _sample(model, 3, valid="0")
    _sample(model, 3, valid="x")
    assert not any(model.hits()[bin_id] for bin_id in ("operations.op.logic", "operations.op.low_half"))
    _sample(model, 0)
    hits = model.hits()
    assert hits["operations.op.wrap"] == 1  # as with SystemVerilog's iff: 255, (skipped), 0
    assert hits["operations.op.add"] == 1 and hits["operations.zero.0"] == 2  # 255 and 0, not the skipped


def test_only_the_groups_of_the_sampled_clock_are_recorded(groups) -> None:
    model = FunctionalCoverage(groups)
    _sample(model, 0, clock="clk", count="1001")
    assert model.hits()["ticks.count.top"] == 1 and model.hits()["operations.op.add"] == 0
    _sample(model, 0, count="1001")
    assert model.hits()["ticks.count.top"] == 1 and model.hits()["operations.op.add"] == 1
    with pytest.raises(ValueError, match="has 4 values, got 3"):
        model.record(None, ["0", "0", "1"])


def test_merge_fraction_and_group_tallies(groups) -> None:
    first, second = FunctionalCoverage(groups), FunctionalCoverage(groups)
    _sample(first, 0, 1)
    _sample(second, 0, 0)
    _sample(second, 0, 0)
    merged = merge_hits(first.hits(), second.hits())
    assert merged["operations.op.add"] == 3 and merged["operations.zero.1"] == 1
    assert merge_hits({}, {"g.p.b": 2}) == {"g.p.b": 2}
    hit = {bin_id for bin_id, count in merged.items() if count}
    assert hit == {"operations.op.add", "operations.op.low_half", "operations.zero.0", "operations.zero.1",
                   *(f"operations.op_by_zero.{op}*{zero}" for op in ("add", "low_half") for zero in "01")}
    assert fraction(merged) == pytest.approx(8 / 14)
    assert fraction({}) is None
    assert group_tallies(merged) == {"operations": GroupTally(8, 13), "ticks": GroupTally(0, 1)}
    assert group_tallies(merged)["ticks"].fraction == 0.0


@pytest.mark.parametrize("expression, expected", [
    ("count == 4'd8", "dut.count == 4'd8"),
    ("u_core.state != 2'b1x", "dut.u_core.state != 2'b1x"),
    ("{wr_en, rd_en, count[3:0]}", "{dut.wr_en, dut.rd_en, dut.count[3:0]}"),
    ("$countones(y) == 1 && en", "$countones(dut.y) == 1 && dut.en"),
    ("q >= 8'hFE || 1e3 > q", "dut.q >= 8'hFE || 1e3 > dut.q"),
    ("a ? 16 'h dead : b", "dut.a ? 16 'h dead : dut.b"),
])
def test_scoped_prefixes_the_dut_identifiers_only(expression: str, expected: str) -> None:
    assert scoped(expression, "dut") == expected


# ------------------------------------------------------------------------- errors in coverage.yaml


@pytest.mark.parametrize("text, line, message", [
    ("""\
     covergroups:
       - name: g
         coverpoints:
           - name: p
             signal: s
             bins: auto
             colour: red
     """, 7, "unknown field"),
    ("""\
     covergroups:
       - name: g
         coverpoints:
           - name: p
             signal: s
             bins: auto
     """, 6, "needs the coverpoint's width"),
    ("""\
     covergroups:
       - name: g
         coverpoints:
           - name: p
             signal: s
             width: 3
             bins:
               - {name: a, value: 1}
               - {name: b, value: 8}
     """, 9, "8 does not fit in 3 bits"),
    ("""\
     covergroups:
       - name: g
         coverpoints:
           - name: p
             signal: s
             bins:
               - {name: a, value: 1}
               - {name: a, range: [2, 3]}
     """, 8, "covergroups[0].coverpoints[0].bins[1].name: 'a' is declared twice"),
    ("""\
     covergroups:
       - name: g
         coverpoints:
           - name: p
             signal: s
             bins: [{name: a, value: 1}]
         crosses:
           - name: c
             coverpoints: [p,
                           q]
     """, 10, "'q' is not a coverpoint of this group"),
    ("""\
     covergroups:
       - name: g
         coverpoints:
           - name: p
             signal: s
             bins: [{name: a, value: 1, values: [2]}]
     """, 6, "exactly one of"),
    ("""\
     covergroups:
       - name: g
         condition: "$random"
         coverpoints:
           - name: p
             signal: s
             bins: [{name: a, value: 1}]
     """, 3, "$random is not allowed"),
    ("""\
     covergroups:
       - name: g
         coverpoints:
           - name: p
             signal: s
             bins: [{name: a, transition: [1]}]
     """, 6, "bins[0].transition: must have at least 2 items, has 1"),
    ("""\
     covergroups:
       - name: g
         coverpoints:
           - name: p
             signal: s
             bins: [{name: a, values: [1, .nan]}]
     """, 6, "bins[0].values[1]: must be a whole number, got nan"),
    ("""\
     covergroups:
       - name: g
         coverpoints:
           - name: p
             signal: s
             width: .inf
             bins: auto
     """, 6, "coverpoints[0].width: must be a whole number, got inf"),
    ("""\
     covergroups:
       - name: g
         coverpoints:
           - name: p
             signal: s
             bins: [{name: a, transition: [1, [2, true]]}]
     """, 6, "bins[0].transition[1][1]: must be a whole number, got True"),
    ("""\
     covergroups:
       - name: g
         coverpoints:
           - name: p
             signal: s
             bins: [{name: a, values: [%s]}]
     """ % ", ".join(["1"] * 1001), 6, "bins[0].values: must have at most 1000 items, has 1001"),
    ("""\
     covergroups:
       - name: g
         coverpoints:
           - name: p
             signal: s
             bins:
               - name: a
                 range: [1, 2]
                 colour: red
     """, 9, "covergroups[0].coverpoints[0].bins[0].colour: unknown field (known: name, range, transition, value, "
             "values)"),
    ("""\
     covergroups:
       - name: g
         coverpoints:
           - name: p
             signal: s
             width: 4
             bins:
               - name: a
                 range:
                   - 3
                   - 16
     """, 11, "bins[0].range[1]: 16 does not fit in 4 bits"),
    ("""\
     covergroups:
       - name: g
         coverpoints:
           - {name: p, signal: s, width: 8, bins: auto}
           - {name: q, signal: t, width: 8, bins: auto}
           - {name: r, signal: u, width: 1, bins: auto}
         crosses:
           - name: c
             coverpoints: [p, q, r]
     """, 9, "crosses[0].coverpoints: 131072 combinations: a cross may have at most 65536"),
    ("""\
     covergroups:
       - name: g
         coverpoints:
           - name: p
             signal: s
             bins: [{name: 3, value: 3}]
     """, 6, "bins[0].name: must be text, got 3"),
    ("targets: {lines: 0.9}\n", 1, "targets.lines: must be 'line', 'branch', 'toggle' or 'functional'"),
    ("targets:\n  line: 95\n", 2, "targets.line: must be less than or equal to 1, got 95"),
])
def test_a_bad_coverage_file_names_file_and_line(tmp_path: Path, text: str, line: int, message: str) -> None:
    with pytest.raises(HdlrlError) as raised:
        load_covergroups(_folder(tmp_path, text))
    assert raised.value.path == tmp_path / "coverage.yaml" and raised.value.line == line
    assert message in raised.value.message
    assert str(raised.value).startswith(f"{tmp_path / 'coverage.yaml'}:{line}: ")


def test_a_group_clock_must_be_a_clock_of_the_design(tmp_path: Path) -> None:
    alu = tmp_path / "alu8"
    shutil.copytree(DESIGNS_DIR / "alu8", alu)
    (alu / "coverage.yaml").write_text(
        "covergroups:\n  - name: g\n    clock: clk\n    coverpoints:\n"
        "      - {name: p, signal: op, bins: [{name: a, value: 1}]}\n")
    with pytest.raises(HdlrlError, match=r"coverage.yaml:3: covergroups\[0\]\.clock: 'clk' is not a clock of the "
                                         r"design \(it is combinational: omit clock\)"):
        load_covergroups(alu)


# ------------------------------------------------------------------------- the project's covergroups


def _identifiers(text: str) -> set[str]:
    return {token.text for token in tokenize(text) if token.kind == "identifier"}


@pytest.mark.parametrize("folder", sorted(path.parent for path in DESIGNS_DIR.glob("*/coverage.yaml")),
                         ids=lambda path: path.name)
def test_project_covergroups_load_and_sample_signals_of_their_design(folder: Path) -> None:
    design = load_design(folder)
    groups = load_covergroups(folder)
    rtl = set().union(*(_identifiers(path.read_text()) for path in design.rtl))
    for expression in sampled_expressions(groups):
        assert _identifiers(expression) <= rtl, f"{expression!r} names signals {design.name} lacks"
    assert 10 <= len(FunctionalCoverage(groups).hits()) <= 60


def test_the_project_designs_have_covergroups() -> None:
    covered = {path.parent.name for path in DESIGNS_DIR.glob("*/coverage.yaml")}
    assert covered >= {"alu8", "sync_fifo", "traffic_light", "seq_detect", "decoder3to8", "updown_counter8"}
