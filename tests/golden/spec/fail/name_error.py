# Spec code that names something never defined: reported at the spec line.
from tdgen.model import RegisterClass

from ._base import tiny

AGPR = RegisterClass("AGPR", "vector", [i32], ["A0", "A1"])
TARGET = tiny()
