"""``fabricviz convert IN OUT [--to FORMAT]``: write a design in another exchange format."""

from __future__ import annotations

import argparse

from ..loaders import FORMATS, load_any, output_format, save_as

#: What a format does not carry (printed so nobody is surprised on the way back).
LOSES = {
    "clab": "server children are rebuilt from the server's part (custom GPU/NIC names and bindings, "
            "child positions are not kept)",
    "dot": "server children are rebuilt from the server's part (custom GPU/NIC names and bindings, "
           "child positions are not kept)",
    "slurm": "only the switch tree and host names (export only)",
    "slurm-block": "only the host blocks (scalable units, a leaf's hosts) and host names (export only)",
    "slurm-yaml": "only the switch tree, the host blocks and host names (export only)",
    "ibnetdiscover": "only the InfiniBand part (switches, CAs, IB cables); no positions, parts or cable types",
    "ibdm-topo": "only the InfiniBand part, rates up to QDR; its IBNL system definitions are in OUT.ibnl.d "
                 "(give ibtopodiff/ibdmchk IBDM_IBNL_PATH=OUT.ibnl.d)",
}


def register(sub: argparse._SubParsersAction, parser_class: type) -> None:
    p = sub.add_parser("convert", help="convert a design between fabricviz JSON, GraphML, GML, DOT, NetJSON, "
                                       "containerlab, Slurm topology.conf, ibnetdiscover and the ibdm topology")
    p.add_argument("input")
    p.add_argument("output")
    p.add_argument("--to", choices=tuple(FORMATS), help="output format (default: from OUT's name)")
    p.add_argument("--plane", help="write one plane of a multi-plane design alone (index from 0, or name): "
                                   "what ibnetdiscover on that plane's subnet sees")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    fmt = output_format(args.output, args.to)
    f = load_any(args.input)
    if args.plane is not None:
        from ..model.planes import plane_fabric
        f = plane_fabric(f, args.plane)
    save_as(f, args.output, fmt)
    c = f.counts()
    print(f"wrote {args.output} ({fmt}): {sum(v for k, v in c.items() if k != 'cables')} devices, "
          f"{c['cables']} cables")
    if fmt in LOSES:
        keeps = ("slurm", "slurm-block", "slurm-yaml", "ibnetdiscover", "ibdm-topo")
        print(f"note: {fmt} keeps {LOSES[fmt]}" if fmt in keeps
              else f"note: in {fmt}, {LOSES[fmt]}")
    return 0
