; several errors are reported together, in line order
v_mov_b32 v0, v300
ds_permute_b32 v1, v2, v3 offset:-4
v_lshl_b32 v1, 2, v1
v_mov_b32 v2, 0x100000000
