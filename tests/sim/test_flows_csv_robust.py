"""Flow CSVs (``simulate``/``export-htsim --flows``) that crashed the reader before issue 28:
each is refused with one line naming the file and line (or byte), never a traceback."""

import pytest

from fabricviz.cli import main
from fabricviz.formats.native import save_fabric
from fabricviz.generate import k_ary_fat_tree
from fabricviz.model import FabricError
from fabricviz.sim.flows_csv import load_flows

HEAD = "src,dst,bytes,rate_gbps,start_us,step,sl\n"
ROW = "node01/gpu0,node02/gpu0,"


@pytest.fixture(scope="module")
def ft4():
    return k_ary_fat_tree(4)


def refusal(fab, tmp_path, data: bytes) -> str:
    p = tmp_path / "f.csv"
    p.write_bytes(data)
    with pytest.raises(FabricError) as e:
        load_flows(fab, p)
    return str(e.value).replace(str(p), "F")


@pytest.mark.parametrize("data, msg", [
    # _csv.Error: field larger than field limit (131072)
    ((HEAD + ROW + "1," + "9" * 200_000 + "\n").encode(),
     "F:2: not a CSV row (field larger than field limit (131072))"),
    # OverflowError: Python int too large to convert to C long (the int64 step column)
    ((HEAD + ROW + "1,,0,99999999999999999999,\n").encode(),
     "F:2: step must be -1..2147483647, got '99999999999999999999'"),
    # int() of 5,000 digits: ValueError, and the message held all of them
    ((HEAD + ROW + "1,,0," + "9" * 5000 + ",\n").encode(),
     "F:2: step '" + "9" * 40 + "...' is not an integer (-1 = not stepped)"),
    # a start of 1e400 µs (inf) was taken: the flow never started and simulate ran 0 flows
    ((HEAD + ROW + "1,,1e400,0,\n").encode(), "F:2: start_us must be finite, got '1e400'"),
    # "cannot read (UnicodeDecodeError)": no line, no byte
    ((HEAD + ROW + "1,,0,0,\n").encode() + b"\xff\n", "F:3: not UTF-8 text (byte 73)"),
    # control, bidi and line-separator characters copied into the message
    ((HEAD + "node\v\f\u2028\u202e01/gpu0,node02/gpu0,1,,0,0,\n").encode(),
     "F:2: src 'node\\x0b\\x0c\\u2028\\u202e01/gpu0': no such device"),
])
def test_bad_flow_csv_is_one_line(ft4, tmp_path, data, msg):
    assert refusal(ft4, tmp_path, data) == msg


def test_vt_ff_ls_are_not_line_breaks(ft4, tmp_path):
    """Only a newline ends a row: line numbers stay those of the file."""
    assert refusal(ft4, tmp_path, (HEAD + ROW + "1\v\f\u20282,,0,0,\nx,y\n").encode()) == (
        "F:2: bytes '1\\x0b\\x0c\\u20282' is not a number")


@pytest.mark.parametrize("command", ["simulate", "export-htsim"])
def test_cli_refuses_with_one_line(ft4, tmp_path, capsys, command):
    design, flows = tmp_path / "d.json", tmp_path / "f.csv"
    save_fabric(ft4, design)
    flows.write_bytes((HEAD + ROW + "1,,0,99999999999999999999,\n").encode())
    args = [command, str(design), "--flows", str(flows)]
    if command == "export-htsim":
        args += ["-o", str(tmp_path / "out")]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err == f"fabricviz: error: {flows}:2: step must be -1..2147483647, got '99999999999999999999'\n"
