"""AMDGPU reference subset (GFX9 / gfx900), named as LLVM 19 names things."""
