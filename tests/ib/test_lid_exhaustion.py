"""LID exhaustion refuses (issue 11): route (CLI and engine), generate, the IB import, the GUI's LIDs.

One subnet has 49,151 unicast LIDs; every CA port takes 2^LMC of them and every switch one. Before
the fix ``route --lmc 7`` on a 2-level radix-32 tree printed "LID space exhausted" and exited 0, and
``--lmc 3`` on a 3-level radix-32 tree (66,816 LIDs) ran for minutes. Now everything refuses with
the generators' one line before any routing work; lint reports it as an error with the same text.

OpenSM never hands out the LIDs it skips to align a CA port's 2^LMC block, so a count that fits
may still not: the 380-383 host radix-32 trees at LMC 7 counted 48,680-49,064 LIDs, passed lint
and were then refused by route with a different line. The need is now the highest LID OpenSM's
order reaches, one function for every path, checked here against a port-by-port walk.
"""

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from fabricviz.check.lint import LintContext, lint
from fabricviz.check.lint_rules import lid_space_needs
from fabricviz.cli import main
from fabricviz.formats.ibnetdiscover import check_ibnetdiscover, export_ibnetdiscover, loads
from fabricviz.formats.native import save_fabric
from fabricviz.generate import fat_tree
from fabricviz.generate.common import lid_space_problem
from fabricviz.ib.lids import (
    LidSpaceError,
    assign_lids,
    assignment_order,
    check_lmc,
    lid_bases,
    plan_lids,
    subnet_entries,
)
from fabricviz.ib.routing import file_lids, lid_entries, route, subnet_and_lids
from fabricviz.ib.subnet import discover
from fabricviz.model import Fabric, FabricError


def chained_leaves(n_ca: int, per: int) -> Fabric:
    """``n_ca`` one-port CAs, ``per`` on each QM9700 leaf, the leaves chained by ports 63/64."""
    f = Fabric(name="big")
    leaves = -(-n_ca // per)
    sw = f.add_devices("ib_switch", leaves, "QM9700", [f"leaf{i}" for i in range(leaves)], emit=False)
    ca = f.add_devices("nic", n_ca, "CX7-1P", [f"ca{i}" for i in range(n_ca)], emit=False)
    t = f.devices_t
    swp = t.first_port[sw].astype(np.int64)
    k = np.arange(n_ca)
    pa = np.concatenate([swp[k // per] + k % per, swp[:-1] + 62])
    pb = np.concatenate([t.first_port[ca].astype(np.int64), swp[1:] + 63])
    f.add_cables(pa, pb, 1.0, emit=False)
    return f


def test_message_is_the_generators_line():
    assert lid_space_problem(512, 48, 7) == (
        "as one InfiniBand subnet, 512 host ports × 128 LIDs (LMC 7) + 48 switches need 65,584 LIDs, over "
        "the 49,151 unicast LIDs (0x0001-0xBFFF); lower the LMC, use RoCE (Ethernet) instead, fewer hosts, or split "
        "the fabric into subnets")
    assert lid_space_problem(49_000, 151, 0) is None          # exactly 49,151: fits
    assert lid_space_problem(49_000, 152, 0).startswith("as one InfiniBand subnet, 49,000 host ports + 152 "
                                                        "switches need 49,152 LIDs")


def test_route_cli_refuses_lmc7_on_a_2_level_radix_32_tree(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    save_fabric(fat_tree(2, 32), "t2.json")                   # 512 hosts, 48 switches
    assert main(["route", "t2.json", "--lmc", "7"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"fabricviz: error: t2.json: {lid_space_problem(512, 48, 7)}\n"


def test_route_engine_refuses_lmc3_on_a_3_level_radix_32_tree_before_routing():
    f = fat_tree(3, 32)                                       # 8,192 hosts, 1,280 switches
    for engine in ("minhop", "updn", "ftree"):
        with pytest.raises(LidSpaceError) as e:
            route(f, engine, lmc=3)
        assert str(e.value) == lid_space_problem(8192, 1280, 3)
        assert "66,816 LIDs" in str(e.value)


def test_route_refuses_a_bad_lmc_as_a_fabric_error():
    f = fat_tree(2, 4)
    with pytest.raises(FabricError, match=r"^LMC 8: LMC is 0\.\.7$"):
        route(f, lmc=8)


def walk_need(guids, is_sw, lmc: int, sm: int = -1, kept: dict[int, int] | None = None
              ) -> tuple[list[int], int]:
    """The oracle, one port at a time as osm_lid_mgr.c does it: ports in assignment order keep a
    ``kept`` LID (GUID -> LID) that is aligned and still free; the gaps between kept LIDs are the
    free ranges (the last one unbounded); every other port takes the first range its block (a
    switch 1 LID, a CA port 2^LMC aligned) fits in, and that range then starts after the block."""
    step, bases = 1 << lmc, [0] * len(guids)
    order = assignment_order(np.asarray(guids, np.uint64), sm).tolist()
    used: set[int] = set()
    for k in order:
        w, lid = (1 if is_sw[k] else step), (kept or {}).get(int(guids[k]), 0)
        if lid and lid % w == 0 and lid + w - 1 <= 0xBFFF and not used & set(range(lid, lid + w)):
            used |= set(range(lid, lid + w))
            bases[k] = lid
    ranges, start = [], 1
    for u in sorted(used):
        if u > start:
            ranges.append([start, u - 1])
        start = u + 1
    ranges.append([start, 10 ** 9])
    for k in order:
        if bases[k]:
            continue
        w = 1 if is_sw[k] else step
        for r in ranges:
            lid = (r[0] + w - 1) // w * w
            if lid + w - 1 <= r[1]:
                bases[k], r[0] = lid, lid + w
                break
    need = max((b + (0 if is_sw[k] else step - 1) for k, b in enumerate(bases)), default=0)
    return bases, need


def test_need_in_openSM_order_matches_a_port_by_port_walk():
    rng = np.random.default_rng(11)
    for _ in range(500):
        n = int(rng.integers(1, 60))
        guids = rng.choice(1 << 20, n, replace=False).astype(np.uint64) * 0x10001
        is_sw = rng.random(n) < rng.random()
        lmc, sm = int(rng.integers(0, 8)), int(rng.integers(-1, n))
        bases, need = lid_bases(guids, is_sw, lmc, sm)
        want_bases, want_need = walk_need(guids, is_sw.tolist(), lmc, sm)
        assert bases.tolist() == want_bases and need == want_need
        # some ports keep LIDs a file or an earlier sweep gave them (some clash, some unaligned,
        # one names no port): the gaps between them are free ranges, skipped LIDs still lost
        kept = {int(g): int(rng.integers(1, 40 * (1 << lmc) + 2)) for g in guids if rng.random() < 0.4}
        kept[0xDEAD] = 5
        bases, need = lid_bases(guids, is_sw, lmc, sm, kept)
        want_bases, want_need = walk_need(guids, is_sw.tolist(), lmc, sm, kept)
        assert bases.tolist() == want_bases and need == want_need


def subnet_need(f: Fabric, lmc: int) -> int:
    e = subnet_entries(discover(f))
    return walk_need(e.guids, e.is_switch.tolist(), lmc, e.sm)[1]


def test_aligned_blocks_that_do_not_fit_refuse_too():
    # 383 × 128 + 96 = 49,120 LIDs fit by count, but the switch LIDs between the aligned
    # 128-LID blocks push the need to 51,199: refused with the one line, naming the real need
    f = chained_leaves(383, 4)
    assert subnet_need(f, 7) == 51_199
    before = f.signature()
    with pytest.raises(LidSpaceError) as e:
        route(f, lmc=7)
    assert str(e.value) == lid_space_problem(383, 96, 7, 51_199) == (
        "as one InfiniBand subnet, 383 host ports × 128 LIDs (LMC 7) + 96 switches need 51,199 LIDs with "
        "each port's 128-LID block aligned, over the 49,151 unicast LIDs (0x0001-0xBFFF); lower the LMC, "
        "use RoCE (Ethernet) instead, fewer hosts, or split the fabric into subnets")
    assert f.signature() == before


@pytest.mark.parametrize("hosts,need", [(380, 50_815), (382, 51_071), (383, 51_199)])
def test_counts_that_fit_but_aligned_blocks_do_not_refuse_in_route_and_lint(tmp_path, monkeypatch, capsys,
                                                                          hosts, need):
    # the reviewer's case: the count (380 × 128 + 40 = 48,680 .. 49,064) fits, OpenSM's order does not
    monkeypatch.chdir(tmp_path)
    f = fat_tree(2, 32, hosts=hosts)
    assert subnet_need(f, 7) == need
    line = lid_space_problem(hosts, 40, 7, need)
    assert f"need {need:,} LIDs with each port's 128-LID block aligned, over" in line
    f.meta["lmc"] = 7
    save_fabric(f, "t.json")
    assert main(["route", "t.json", "--lmc", "7"]) == 2
    assert capsys.readouterr() == ("", f"fabricviz: error: t.json: {line}\n")
    with pytest.raises(LidSpaceError, match="^as one InfiniBand subnet"):
        subnet_and_lids(f, lmc=7)                             # what the GUI's LID table calls
    (x,) = lint(f, ["lid-space"]).by_rule("lid-space")
    assert (x.severity, x.message) == ("error", line)
    assert main(["lint", "t.json"]) == 1
    assert f"error  lid-space  {f.name}: {line}\n" in capsys.readouterr().out


def test_lint_warns_near_the_end_by_the_real_need():
    f = fat_tree(2, 32, hosts=352)                            # 352 × 128 + 38 = 45,094: under 95 %
    f.meta["lmc"] = 7
    assert subnet_and_lids(f, lmc=7)[1].max_lid == subnet_need(f, 7) == 47_231   # over 46,693 (95 %)
    (x,) = lint(f, ["lid-space"]).by_rule("lid-space")
    assert (x.severity, x.message) == ("warning", "needs 47,231 LIDs (352 CA ports × 128 (LMC 7) + 38 "
                                       "switches with aligned blocks), within 5% of the 49,151 unicast "
                                       "LIDs: no room to grow")
    f.meta["lmc"] = 6                                         # 352 × 64 + 38 = 22,566, need 23,615
    assert lint(f, ["lid-space"]).by_rule("lid-space") == []


def test_an_exact_fit_at_lmc_7_imports_and_gets_lids_and_one_more_port_is_refused_alike():
    # 382 CAs on 2 leaves at LMC 7: OpenSM's order ends exactly on LID 49,151 (0xBFFF). (Routing it
    # takes ~15 s at LMC 7 in ucast's LMC-aware pick; the LIDs are what this boundary is about.)
    f = loads(ibnetdiscover_text(382, lmc=7), "fit.net")
    _sn, lids = subnet_and_lids(f, lmc=7)
    assert lids.max_lid == 0xBFFF
    assert int(lids.ca_lid.max()) + 127 == 0xBFFF and len(np.unique(lids.ca_lid)) == 382
    # 383: the import refuses with the line route gives the same fabric (imported at LMC 0)
    with pytest.raises(FabricError) as e:
        loads(ibnetdiscover_text(383, lmc=7), "over.net")
    with pytest.raises(LidSpaceError) as r_e:
        route(loads(ibnetdiscover_text(383), "lmc0.net"), lmc=7)
    assert "need 49,279 LIDs with each port's 128-LID block aligned" in str(r_e.value)
    assert str(e.value).startswith("over.net:") and str(e.value).endswith(f": {r_e.value}")


def test_one_lmc_check():
    assert check_lmc(np.int64(7)) == 7
    for bad in (8, -1, True, 2.0, "3"):
        with pytest.raises(FabricError, match=r"^--lmc .+: LMC is 0\.\.7$"):
            check_lmc(bad, "--lmc")


def test_no_waste_keeps_the_generators_line():
    # LMC 0 (what generators build) skips nothing: the README's line, the count is the need
    assert lid_space_problem(65536, 5120, 0, 70_656) == lid_space_problem(65536, 5120) == (
        "as one InfiniBand subnet, 65,536 host ports + 5,120 switches need 70,656 LIDs, over the 49,151 "
        "unicast LIDs (0x0001-0xBFFF); use RoCE (Ethernet) instead, fewer hosts, or split the fabric into subnets")
    f = chained_leaves(49_200, 60)                            # 49,200 + 820 at LMC 0
    with pytest.raises(LidSpaceError) as e:
        route(f)
    assert str(e.value) == lid_space_problem(49_200, 820)


def test_generate_refuses_with_the_same_line(tmp_path, capsys):
    assert main(["generate", "fat-tree", "--levels", "3", "--radix", "64", "-o", str(tmp_path / "x.json")]) == 2
    assert capsys.readouterr().err == f"fabricviz: error: {lid_space_problem(65536, 5120)}\n"
    assert not (tmp_path / "x.json").exists()


def ibnetdiscover_text(n_ca: int, per: int = 200, lmc: int = 0) -> str:
    out = []
    leaves = -(-n_ca // per)
    for leaf in range(leaves):
        out += [f"switchguid=0x{0x200000 + leaf:x}",
                f'Switch 254 "S-{0x200000 + leaf:016x}" # "leaf{leaf}" enhanced port 0 lid 0 lmc 0']
        out += [f'[{k + 1}] "H-{0x10000000 + 4 * c:016x}"[1] # "ca{c}" lid 0 4xNDR'
                for k, c in enumerate(range(leaf * per, min(n_ca, leaf * per + per)))]
        if leaf + 1 < leaves:
            out.append(f'[254] "S-{0x200001 + leaf:016x}"[253] # "leaf{leaf + 1}" lid 0 4xNDR')
        if leaf:
            out.append(f'[253] "S-{0x1fffff + leaf:016x}"[254] # "leaf{leaf - 1}" lid 0 4xNDR')
        out.append("")
    for c in range(n_ca):
        g = 0x10000000 + 4 * c
        out += [f"caguid=0x{g:x}", f'Ca 1 "H-{g:016x}" # "ca{c}"',
                f'[1]({g + 1:x}) "S-{0x200000 + c // per:016x}"[{c % per + 1}] # lid 0 lmc {lmc} '
                f'"leaf{c // per}" lid 0 4xNDR', ""]
    return "\n".join(out)


@pytest.mark.slow
def test_ibnetdiscover_import_of_50000_cas_refuses(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    Path("big.ibnetdiscover").write_text(ibnetdiscover_text(50_000))
    assert main(["info", "big.ibnetdiscover"]) == 2
    err = capsys.readouterr().err
    # the header line of the CA that takes the subnet over 49,151 LIDs: the 250 leaf blocks take
    # 51,248 lines, then 4 lines per CA; with all 250 switches counted, CA 48,901 (0-based) is over
    assert err == f"fabricviz: error: big.ibnetdiscover:{51_248 + 4 * 48_901 + 2}: " \
                  f"{lid_space_problem(50_000, 250)}\n"


def test_ibnetdiscover_import_refuses_by_the_files_lmc(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    Path("lmc.ibnetdiscover").write_text(ibnetdiscover_text(400, lmc=7))   # 400 × 128 + 2 LIDs
    assert main(["info", "lmc.ibnetdiscover"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.endswith(f": {lid_space_problem(400, 2, 7)}\n")
    assert err.startswith("fabricviz: error: lmc.ibnetdiscover:")
    Path("ok.ibnetdiscover").write_text(ibnetdiscover_text(380, lmc=7))    # 380 × 128 + 2 fits
    assert main(["info", "ok.ibnetdiscover"]) == 0


def test_gui_lid_table_refuses_with_the_same_line():
    from fabricviz.ib.lid_table import lid_table
    f = chained_leaves(49_200, 60)                            # 49,200 CAs + 820 leaves at LMC 0
    table = lid_table(f)
    assert table.error == lid_space_problem(49_200, 820) and table.lids == {}
    port = int(f.devices_t.first_port[f.find("ca7")])
    assert table.text(f, port) == f"no LID ({lid_space_problem(49_200, 820)})"


def test_lint_still_reports_lid_space_as_a_finding():
    f = fat_tree(2, 32)
    f.meta["lmc"] = 7
    report = lint(f)                                          # every rule, routing ones included
    (x,) = report.by_rule("lid-space")
    assert x.severity == "error"
    assert x.message == lid_space_problem(512, 48, 7)          # the count alone is over: the count


def test_kept_lids_then_free_ranges_in_linear_time():
    # half the CA ports keep the LIDs a file gave them, the others take blocks from the free ranges
    # as OpenSM does; before the fix every port rescanned from LID 1 (4,000 CAs took 11 s, 16,000 123 s)
    from fabricviz.ib.lids import assign_lids
    from fabricviz.ib.subnet import discover
    f = chained_leaves(20_000, 60)                            # 20,000 CAs, 334 leaves
    sn = discover(f)
    kept = sn.ca_guid[::2].tolist()
    lids = assign_lids(sn, 1, {int(g): 2 * j + 2 for j, g in enumerate(kept)})   # LMC 1: 2 LIDs a port
    ca, sw = lids.ca_lid, lids.sw_lid
    assert (ca[::2] == 2 * np.arange(10_000) + 2).all()       # kept: 2, 4, ..., 20,000
    assert (ca % 2 == 0).all() and (ca > 0).all() and (sw > 0).all()
    taken = np.concatenate([ca, ca + 1, sw])
    assert len(np.unique(taken)) == 40_334                    # no LID given twice
    e = subnet_entries(sn)                                     # exactly the port-by-port walk
    kept_by_guid = {int(gg): 2 * j + 2 for j, gg in enumerate(kept)}
    assert lids.max_lid == walk_need(e.guids, e.is_switch.tolist(), 1, e.sm, kept_by_guid)[1]


# ------------------------------------------------------------------ one need: importer, lint, route
def importer_need(monkeypatch, text: str, where: str) -> tuple[int, list[str]]:
    """What the IB importer's LID check computes for ``text`` (its need) and the problems the file gets."""
    import fabricviz.formats._ibbuild as ibbuild
    real, seen = ibbuild.check_lid_space, []

    def spy(*args):
        seen.append(real(*args))
        return seen[-1]
    with monkeypatch.context() as m:
        m.setattr(ibbuild, "check_lid_space", spy)
        problems = check_ibnetdiscover(text, where)
    (need,) = seen
    return need, problems


def one_need(monkeypatch, f: Fabric, lmc: int, lids: dict[int, int] | None = None,
             switch_lids: dict[int, int] | None = None) -> tuple[int, str | None]:
    """``f`` written as an ibnetdiscover file (LMC ``lmc``, ``lids``/``switch_lids`` given in it):
    the importer's need, lint's and route's on the imported design, assign_lids' max_lid and the
    port-by-port walk are one number, and every path gives the same verdict. Returns (need, line)."""
    text = export_ibnetdiscover(f, lids, switch_lids, lmc)
    need, problems = importer_need(monkeypatch, text, "x.net")
    # the same file written at LMC 0 imports whatever the need at ``lmc``: route and lint run at ``lmc``
    g = loads(export_ibnetdiscover(f, lids, switch_lids, 0), "x0.net")
    g.meta["lmc"] = lmc
    sn, e = lid_entries(g)
    assert bool(e.kept) == bool(lids or switch_lids)
    assert need == walk_need(e.guids, e.is_switch.tolist(), lmc, e.sm, e.kept)[1]
    ((_where, n_ca, n_sw, lint_need, lint_problem),) = lid_space_needs(LintContext(g), every=True)
    assert (n_ca, n_sw) == (len(sn.ca_ports), sn.num_switches)
    assert lint_need == need
    line = lid_space_problem(n_ca, n_sw, lmc, need, bool(e.kept))
    assert lint_problem == line
    findings = lint(g, ["lid-space"]).by_rule("lid-space")
    if line is None:
        assert problems == []
        assert subnet_and_lids(g, lmc=lmc)[1].max_lid == need
        assert assign_lids(discover(g), lmc, file_lids(sn)).max_lid == need
        assert subnet_and_lids(loads(text, "x.net"), lmc=lmc)[1].max_lid == need   # at the file's LMC
        assert all(x.severity == "warning" for x in findings)
    else:
        assert len(problems) == 1 and problems[0].startswith("x.net:") and problems[0].endswith(f": {line}")
        for assign in (lambda: subnet_and_lids(g, lmc=lmc), lambda: assign_lids(discover(g), lmc, file_lids(sn))):
            with pytest.raises(LidSpaceError) as err:
                assign()
            assert str(err.value) == line
        assert [(x.severity, x.message) for x in findings] == [("error", line)]
    return need, line


@pytest.mark.parametrize("lmc,need", [(0, 152), (3, 1151), (7, 18_431)])
def test_importer_lint_and_route_need_the_same_lids_on_a_fat_tree(monkeypatch, lmc, need):
    f = fat_tree(2, 16)                                       # 128 hosts, 24 switches
    assert one_need(monkeypatch, f, lmc) == (need, None)      # the file's first node (a switch) is the SM
    # the generated design itself (its SM: the first host NIC): lint's need is route's
    f.meta["lmc"] = lmc
    ((*_, lint_need, _p),) = lid_space_needs(LintContext(f), every=True)
    assert lint_need == subnet_and_lids(f, lmc=lmc)[1].max_lid == subnet_need(f, lmc)
    # with a host first in the file, the SM sits on a CA port: served first, a different need at LMC > 0
    f.meta["sm_node"] = f.name_of(int(f.device_ids("nic")[0]))   # written first in the file
    ca_need, _line = one_need(monkeypatch, f, lmc)
    assert (ca_need == need) == (lmc == 0)


def test_importer_lint_and_route_agree_on_chained_leaves_at_the_limit(monkeypatch):
    # 377 CAs on 7 leaves at LMC 7 (48,263 LIDs by count): with the SM on a leaf OpenSM's order ends
    # exactly on 0xBFFF; with it on a CA the CA's block comes first and the need is one block more
    f = chained_leaves(377, 60)
    assert one_need(monkeypatch, f, 7) == (0xBFFF, None)
    f.meta["sm_node"] = "ca0"
    need, line = one_need(monkeypatch, f, 7)
    assert need == 49_279 and line == lid_space_problem(377, 7, 7, 49_279)
    assert one_need(monkeypatch, f, 6)[1] is None


@pytest.mark.parametrize("lmc", [0, 3, 7])
def test_importer_lint_and_route_agree_when_the_file_gives_lids(monkeypatch, lmc):
    f = chained_leaves(375, 60)
    port = {i: int(f.devices_t.first_port[f.find(f"ca{i}")]) for i in range(375)}
    lids = {port[i]: 128 * (i + 2) for i in range(0, 375, 37)}   # 11 CAs, aligned at every LMC, spread out
    lids[port[5]] = 1000                                      # aligned at LMC 3, not at 7: placed anew
    lids[port[6]] = lids[port[0]]                             # a clash: the first in OpenSM's order keeps it
    switch_lids = {f.find("leaf2"): 300}                      # 14 LIDs in the file
    need, line = one_need(monkeypatch, f, lmc, lids, switch_lids)
    # the highest kept LID (128 × 372) bounds it at LMC 0 and 3; at LMC 7 within 5 % of the end (a warning)
    assert line is None and need == {0: 47_616, 3: 47_623, 7: 48_255}[lmc]
    # the kept LIDs decide it: placed afresh the same entries need something else
    _sn, e = lid_entries(loads(export_ibnetdiscover(f, lids, switch_lids, 0), "x0.net"))
    assert len(e.kept) == 14 and plan_lids(replace(e, kept=None), lmc).need != need


def test_a_file_lmc_without_lids_is_kept_so_lint_and_the_gui_use_the_lmc_the_import_checked():
    f = loads(ibnetdiscover_text(10, lmc=3), "ten.net")       # every CA port: "lid 0 lmc 3"
    assert f.meta["file_lmc"] == 3 and "file_lids" not in f.meta
    assert lint(f, ["lid-space"]).by_rule("lid-space") == []  # 10 × 8 + 1 LIDs: nothing to say
    lids = subnet_and_lids(f, lmc=f.meta["file_lmc"])[1]      # the SM's switch 1, then 8-LID blocks
    assert lids.sw_lid.tolist() == [1] and lids.ca_lid.tolist() == list(range(8, 81, 8))
    assert lids.max_lid == 87
