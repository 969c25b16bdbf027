# A spec module must define TARGET.
from ._base import tiny

target = tiny()
