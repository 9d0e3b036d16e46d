"""htsim connection matrices that crashed :func:`parse_connection_matrix` before issue 28: each is
refused with one line naming the line (no CLI command reads a matrix; export-htsim writes them)."""

import pytest

from fabricviz.formats.htsim import parse_connection_matrix
from fabricviz.model import FabricError

HEAD = "Nodes 4\nConnections 1\n"


@pytest.mark.parametrize("text, msg", [
    # OverflowError: cannot convert float infinity to integer
    (HEAD + "0->1 id 1 start inf size 10\n", "cm:3: start 'inf' is not a time in picoseconds (0 up to 2^63)"),
    (HEAD + "0->1 id 1 start nan size 10\n", "cm:3: start 'nan' is not a time in picoseconds (0 up to 2^63)"),
    (HEAD + "0->1 id 1 start 1e300 size 10\n",
     "cm:3: start '1e300' is not a time in picoseconds (0 up to 2^63)"),
    # StopIteration (a RuntimeError once it leaves a generator): a key without a value
    (HEAD + "0->1 id 1 start 0 size\n", "cm:3: field 'size' has no value"),
    # the refusals inside a line kept their own message (they were all "bad line")
    (HEAD + "0->1 id 1 start 0 colour 3\n", "cm:3: unknown field 'colour'"),
    # control, bidi and line-separator characters: escaped, and only a newline ends a line
    ("Nodes 4\v\f\u2028\nConnections 1\n0->1 id 1 start 0 size 1\nsize\u202e 1\n",
     "cm:4: unknown line 'size\\u202e 1'"),
])
def test_bad_matrix_is_one_line(text, msg):
    with pytest.raises(FabricError) as e:
        parse_connection_matrix(text, "cm")
    assert str(e.value) == msg
