"""Every place that offers a routing engine offers the same ones the SM front end runs."""

from fabricviz.anim import lessons
from fabricviz.commands import record
from fabricviz.commands import route as route_cmd
from fabricviz.ib.routing import ENGINES


def test_engine_lists_agree_with_the_front_end():
    assert ENGINES == ("minhop", "updn", "ftree", "dfsssp", "lash", "sssp")
    assert route_cmd.IB_ENGINES == ENGINES
    assert record.SWEEP_ENGINES == ENGINES
    assert lessons.ENGINES == ENGINES


def test_traffic_dock_offers_the_sm_engines_and_dmodk():
    from fabricviz.ui.docks.traffic import IB_ENGINES
    assert IB_ENGINES == ENGINES + ("dmodk",)
