v_mov_b32_dpp v2, v0 quad_perm:[0,1,2,4] row_mask:0xf
