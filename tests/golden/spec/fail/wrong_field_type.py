# A record field given the wrong kind of value: a value type where an intrinsic type
# (llvm_i32_ty) belongs. Reported at the constructor call.
from tdgen.model import Intrinsic
from tdgen.types import i32, llvm_i32_ty

from ._base import tiny

lane = Intrinsic("int_tiny_lane", [llvm_i32_ty], [i32, llvm_i32_ty])
TARGET = tiny(intrinsics=(lane,))
