ds_bpermute_b32 v0, v1, v2
s_waitcnt lgkmcnt(64)
