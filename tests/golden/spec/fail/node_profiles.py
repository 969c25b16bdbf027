# A profile that only a node uses is still defined by name in the .td: its name is an
# identifier, unique among the records, and its constraints are checked like a listed
# profile's (found by the spec fuzz: a profile renamed '../esc' reached llvm-tblgen-19).
from tdgen.model import SDNode, SDTCisSameAs, SDTCisVT, SDTypeProfile
from tdgen.types import i32

from ._base import ALU, tiny

Escaping = SDTypeProfile(1, 1, [SDTCisVT(0, i32)], name="../esc")
Clash = SDTypeProfile(1, 1, [SDTCisSameAs(0, 1)], name="ALU")
Beyond = SDTypeProfile(1, 1, [SDTCisSameAs(0, 2)], name="SDT_Beyond")

TARGET = tiny(nodes=(
    SDNode("tinyesc", "TinyISD::ESC", Escaping),
    SDNode("tinyclash", "TinyISD::CLASH", Clash),
    SDNode("tinybeyond", "TinyISD::BEYOND", Beyond),
))
