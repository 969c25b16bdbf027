ds_swizzle_b32 v0, v1 offset:swizzle(QUAD_PERM,4,0,0,0)
