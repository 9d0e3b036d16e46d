"""The derived-name cache (``gpu3`` of ``node07``) is never left stale by a read in the middle of
an edit — what a worker thread reading the live design (the GUI's sweep, routing and checks
jobs) does at any moment. A stale cache made ``find`` see a removed GPU's name as taken, and the
undo of the removal was refused ("name 'dgx1/gpu4' is now used by another device")."""

from __future__ import annotations

from fabricviz.generate import k_ary_fat_tree


def test_a_lookup_between_the_steps_of_a_removal_leaves_no_stale_cache():
    """A GPU removed alone (its server stays): a reader between the steps builds the cache
    while the GPU's row still says alive."""
    f = k_ary_fat_tree(4)
    server = int(f.device_ids("server")[0])
    gpu_name = f"{f.name_of(server)}/gpu0"
    gpu = f.find(gpu_name)
    assert gpu is not None
    drop = f.names.drop
    seen = []

    def drop_then_read(ids):               # the names go first, the rows' liveness after
        out = drop(ids)
        seen.append(f.find(gpu_name))      # a reader in between: the GPU still looks alive
        return out
    f.names.drop = drop_then_read
    removed = f.remove_devices([gpu])
    f.names.drop = drop
    assert seen == [gpu]
    assert f.find(gpu_name) is None                          # was: the stale cache's gpu
    assert f.removal.restore_problem(removed) is None        # was: "name … is now used by another device"
    f.restore(removed)
    assert f.find(gpu_name) == gpu
