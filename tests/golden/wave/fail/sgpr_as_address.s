ds_bpermute_b32 v0, s1, v2
