# A spec that is not valid Python: reported at the offending token.
from ._base import tiny

TARGET = tiny(description="unclosed"
EXTRA = 1
