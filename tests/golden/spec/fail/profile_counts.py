# Type profiles and divergence-predicate classes whose counts tdgen does not model (a
# negative or a huge result count, which the type inference would make a type set for
# each of; a huge operand count, each operand named) and constraints whose operand
# number or value type is not one (found by the spec fuzz).
from tdgen.model import DivergenceFrag, SDTCisSameAs, SDTCisVT, SDTypeProfile

from ._base import tiny

Huge = SDTypeProfile(2 ** 31, 1, [], name="SDT_Huge")
Negative = SDTypeProfile(-1, -2, [], name="SDT_Negative")
Untyped = SDTypeProfile(1, 1, [SDTCisVT(None, "i32"), SDTCisSameAs(0, 1.0)], name="SDT_Untyped")

Many = DivergenceFrag("ManyFrag", "uniform", 2 ** 31)

TARGET = tiny(profiles=(Huge, Negative, Untyped), frag_classes=(Many,))
