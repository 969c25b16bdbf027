# A target's own SDTypeProfile marked builtin (found by the spec fuzz: llvm-tblgen-19 then
# reports the profile undefined, since builtin profiles are not emitted).
from tdgen.model import SDNode, SDTCisSameAs, SDTCisVT, SDTypeProfile
from tdgen.types import i32

from ._base import tiny

prof = SDTypeProfile(1, 2, [SDTCisVT(0, i32), SDTCisSameAs(0, 1)], name="SDT_TinyShfl", builtin=True)
node = SDNode("tinyshfl", "TinyISD::SHFL", prof)

TARGET = tiny(profiles=(prof,), nodes=(node,))
