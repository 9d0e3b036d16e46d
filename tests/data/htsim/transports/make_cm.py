"""Connection matrices for the transport references (ours; htsim's .cm format: "Nodes N",
"Connections C", then "SRC->DST id I start 0 size B" per flow, all starting at 0).

    python3 make_cm.py shuffle OUT SEED   4 random permutations of 2,000,000 B each (no self pairs)
    python3 make_cm.py perm OUT SEED SIZE one random permutation (no self pairs)
    python3 make_cm.py incast OUT SEED    16 random senders → host 0, 1,000,000 B each

HOSTS=432 in the environment makes them for 432 hosts (default 128).
"""
import os
import random
import sys

HOSTS = int(os.environ.get("HOSTS", "128"))


def perm(rng: random.Random) -> list[int]:
    while True:
        d = list(range(HOSTS))
        rng.shuffle(d)
        if all(i != j for i, j in enumerate(d)):
            return d


kind, out, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
rng = random.Random(seed)
pairs: list[tuple[int, int, int]] = []
if kind == "shuffle":
    for _ in range(4):
        pairs += [(s, d, 2_000_000) for s, d in enumerate(perm(rng))]
elif kind == "perm":
    pairs = [(s, d, int(sys.argv[4])) for s, d in enumerate(perm(rng))]
elif kind == "incast":
    pairs = [(s, 0, 1_000_000) for s in rng.sample(range(1, HOSTS), 16)]
else:
    sys.exit(f"unknown kind {kind}")
with open(out, "w") as fh:
    print(f"Nodes {HOSTS}", file=fh)
    print(f"Connections {len(pairs)}", file=fh)
    for i, (s, d, b) in enumerate(pairs, 1):
        print(f"{s}->{d} id {i} start 0 size {b}", file=fh)
