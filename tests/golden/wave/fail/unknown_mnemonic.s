v_mbcnt_lo_u32_b32 v4, -1, 0
v_foo_b32 v0, v1
