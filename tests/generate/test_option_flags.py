"""A generator's option refusal names the option the user typed (issue 28): the CLI says
``--blocking`` / ``--radix`` … (one line, exit 2), mapped from the engine's ParamError in
fabricviz/commands/generate.py; the engine (and so the GUI's generator dialog) keeps its words."""

from __future__ import annotations

import pytest

from fabricviz.cli import main
from fabricviz.generate import fat_tree, leaf_spine
from fabricviz.generate.direct import plan_torus
from fabricviz.model.errors import ParamError

CASES = [
    (["fat-tree", "--radix", "7"], "--radix 7: the switch radix must be an even number ≥ 4"),
    (["fat-tree", "--radix", "8", "--blocking", "2:0"], "--blocking '2:0': both sides must be positive"),
    (["fat-tree", "--radix", "8", "--parallel", "3"],
     "--parallel 3: the 4 uplinks of a leaf cannot be split into groups of 3 links per spine"),
    (["fat-tree", "--radix", "8", "--hosts", "0"], "--hosts 0: need at least one host"),
    (["fat-tree", "--radix", "8", "--switch", "SN5400"],
     "--switch 'SN5400': SN5400 is a eth_switch, this fabric needs a ib switch"),
    (["leaf-spine", "--leaves", "4", "--spines", "4", "--hosts-per-leaf", "8", "--uplinks", "6"],
     "--uplinks 6: each leaf needs the same number of links to each of the 4 spines, so uplinks must be "
     "a multiple of 4"),
    (["leaf-spine", "--leaves", "4", "--spines", "4", "--hosts-per-leaf", "0"], "--hosts-per-leaf 0: must be at least 1"),
    (["leaf-spine", "--leaves", "4", "--spines", "4", "--hosts-per-leaf", "8", "--oversubscription", "3"],
     "--oversubscription '3': use DOWN:UP, e.g. 2:1"),
    (["leaf-spine", "--leaves", "4", "--spines", "4", "--hosts-per-leaf", "8", "--speed", "4xNDR"],
     "--speed '4xNDR' is not a RoCE/Ethernet speed"),
    (["superpod", "--system", "dgx-b200", "--units", "0"], "--units 0: must be at least 1"),
    (["nvl72", "--racks", "1", "--partition", "7"],
     "--partition 7: GPUs per NVLink partition: a multiple of 4 (whole compute trays) that divides 72"),
    (["torus", "--dims", "4x1"], "--dims '4x1': every dimension needs at least 2 switches"),
    (["ring", "--switches", "1"], "--switches 1: every dimension needs at least 2 switches"),
    (["dragonfly", "--groups", "9", "--routers", "4", "--hosts", "2"],
     "--groups 9: a group of 4 routers × 1 global link reaches at most 5 groups (g ≤ a·h + 1), one global "
     "link to each other group"),
    (["dragonfly", "--groups", "3", "--routers", "4", "--hosts", "2", "--global-links", "0"],
     "--global-links 0: must be at least 1"),
]


@pytest.mark.parametrize(("args", "line"), CASES)
def test_a_refused_option_is_named_as_its_flag(args, line, capsys, tmp_path):
    out = tmp_path / "x.json"
    assert main(["generate", *args, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == f"fabricviz: error: {line}\n" and not out.exists()
    flag = line.split(" ")[0]
    with pytest.raises(SystemExit):
        main(["generate", args[0], "--help"])
    assert f" {flag} " in capsys.readouterr().out          # an option that subcommand has


def test_the_engine_keeps_its_words_for_the_gui():
    """The same refusals from the engine read as the generator dialog shows them, with no flag."""
    cases = [(lambda: fat_tree(radix=8, blocking="100:1"), "blocking", "blocking '100:1': 8 switch ports split at most 7:1 or 1:7"),
             (lambda: fat_tree(radix=64, hosts=3000), "hosts", "3,000 hosts exceed the 2,048 that a 2-level fat tree "
              "of radix-64 switches at 32:32 with 1 parallel link(s) (64 leaves × 32 host ports) allows"),
             (lambda: fat_tree(radix=8, parallel=0), "parallel", "parallel links 0: must be at least 1"),
             (lambda: leaf_spine(4, 4, 8, uplinks=6), "uplinks", "uplinks per leaf 6: each leaf needs the same "
              "number of links to each of the 4 spines, so uplinks must be a multiple of 4"),
             (lambda: plan_torus((4, 1)), "dims", "dims 4x1: every dimension needs at least 2 switches")]
    for build, param, words in cases:
        with pytest.raises(ParamError) as e:
            build()
        assert (e.value.param, str(e.value)) == (param, words) and "--" not in str(e.value)
