# Sub-register indices are TableGen identifiers, each once in its class, and an index
# two classes share is laid out alike in both (the .td defines it once): found by the
# spec fuzz ('|sub3' and '' reached llvm-tblgen-19).
from tdgen.model import RegisterClass, reg_tuples
from tdgen.types import i32, i64

from ._base import SReg, VReg, tiny

bar_names, bar_parts = reg_tuples(tuple(f"S{i}" for i in range(8)), 2, 2)
Bar = RegisterClass("Bar", "scalar", [i64], bar_names, subreg_indices=["sub0", "|sub1"], subregs=bar_parts)
Empty = RegisterClass("Empty", "scalar", [i64], bar_names, subreg_indices=["sub0", ""], subregs=bar_parts)
Twice = RegisterClass("Twice", "scalar", [i64], bar_names, subreg_indices=["lo", "lo"], subregs=bar_parts)
vpair_names, vpair_parts = reg_tuples(tuple(f"V{i}" for i in range(8)), 2, 2)
Pairs = RegisterClass("Pairs", "vector", [i64], vpair_names, subreg_indices=["lo", "hi"], subregs=vpair_parts)
Swapped = RegisterClass("Swapped", "vector", [i64], vpair_names, subreg_indices=["hi", "lo"], subregs=vpair_parts)

TARGET = tiny(register_classes=(SReg, VReg, Bar, Empty, Twice, Pairs, Swapped))
