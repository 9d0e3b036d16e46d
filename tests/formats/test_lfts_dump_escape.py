"""The LFT-dump reader copied the file's control, bidi and line-separator characters (VT, FF,
U+2028, U+202E) into its refusal, which then printed as more than one line (issue 28)."""

from pathlib import Path

import pytest

from fabricviz.cli import main
from fabricviz.formats.opensm_dump import parse_lfts_dump
from fabricviz.model import FabricError

SMALL = Path(__file__).parent.parent / "data" / "opensm" / "sample-2sw2path4hca-updn"
DUMP = (SMALL / "opensm-lfts.dump").read_text()


@pytest.mark.parametrize("old, new, msg", [
    ("0x0002 001 # Channel Adapter portguid 0x0000000000100001: 'Hca1'", "junk\v\f\u2028\u202e here",
     "d:3: expected \"0xLID PORT # ...\", got: junk\\x0b\\x0c\\u2028\\u202e here"),
    ("# Channel Adapter portguid 0x0000000000100001: 'Hca1'", "# Chan\u2028nel\u202e\vAdapter",
     "d:3: cannot read the destination: Chan\\u2028nel\\u202e\\x0bAdapter"),
    ("0x0002 001 # Channel Adapter portguid 0x0000000000100001",
     "0x0002 001 # Chan\u2028nel\u202e\fAdapter portguid 0x0000000000100001",
     "d:11: LID 2 is named Channel Adapter portguid 0x0000000000100001, but line 3 names it "
     "Chan\\u2028nel\\u202e\\x0cAdapter portguid 0x0000000000100001"),
])
def test_refusal_escapes_the_files_characters(old, new, msg):
    assert old in DUMP
    with pytest.raises(FabricError) as e:
        parse_lfts_dump(DUMP.replace(old, new, 1), "d")
    assert str(e.value) == msg


def test_replay_refusal_is_one_line(tmp_path, capsys):
    dump = tmp_path / "s.dump"
    dump.write_text(DUMP.replace("0x0002 001 # Channel Adapter portguid 0x0000000000100001: 'Hca1'",
                                 "junk\v\f\u2028\u202e here", 1))
    assert main(["replay", str(SMALL / "topology.net"), str(dump)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == (f"fabricviz: error: {dump}:3: expected \"0xLID PORT # ...\", got: "
                                 "junk\\x0b\\x0c\\u2028\\u202e here\n")
