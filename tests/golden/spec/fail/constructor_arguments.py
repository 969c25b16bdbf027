# Constructor calls Python itself would reject (a misspelt keyword, a required argument
# left out): reported like any other construction error, all together.
from tdgen.model import Intrinsic, IntrNoMem, PatFrag, SDNode, SDTypeProfile
from tdgen.types import llvm_i32_ty

from ._base import tiny

lane = Intrinsic("int_tiny_lane", [llvm_i32_ty], [llvm_i32_ty], propertes=[IntrNoMem])
frag = PatFrag("add_once", ["a", "b"], has_one_use=True)
node = SDNode("tinylane", "TinyISD::LANE", SDTypeProfile(1, 1), properties=[], sdclass="SDNode", buitin=False)
TARGET = tiny(intrinsics=(lane,), frags=(frag,), nodes=(node,))
