"""Reading big options files: partitions.conf (400,000 members, ~5 MB) and opensm.conf QoS lines
(~2.5 MB), timed here; the suite counts their work instead (tests/formats/test_partitions_conf.py,
test_opensm_conf.py: twice the lines, twice the function calls).

Run: .venv/bin/python bench/readers.py
Prints medians (ms, 5 runs) of each read and of its peer measured in the same run: ``json.loads``
of the same values as a JSON list (the floor any parsed text pays), and their ratio.
"""

from __future__ import annotations

import json

from timing import median_ms  # noqa: E402  (bench/timing.py)

from fabricviz.formats import opensm_conf, partitions_conf


def main() -> None:
    members = [f"0x{0x1000 + i:x}" for i in range(200)]
    line = "p=0x10 : " + ", ".join(f"{m}=full" for m in members) + " ;\n"
    text = line * 2000
    peer = json.dumps([[m, "full"] for m in members] * 2000)
    rows = [("partitions.conf, 2,000 x 200 members", lambda: partitions_conf.loads(text, "big.conf"),
             lambda: json.loads(peer))]
    qos = "qos_vlarb_low " + ",".join(["14:255"] * 64)
    many = "\n".join([qos] * 3000)
    peer_q = json.dumps([[[14, 255]] * 64] * 3000)
    rows.append(("opensm.conf, 3,000 VL arbitration lines", lambda: opensm_conf.loads(many),
                 lambda: json.loads(peer_q)))
    for name, read, json_peer in rows:
        r, j = median_ms(read, 5), median_ms(json_peer, 5)
        print(f"{name}: {r:,.0f} ms; json.loads of the same values {j:,.0f} ms; {r / j:.1f}x")


if __name__ == "__main__":
    main()
