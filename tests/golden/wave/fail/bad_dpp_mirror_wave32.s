v_mov_b32_dpp v0, v1 row_mirror:16
v_mov_b32_dpp v0, v1 row_half_mirror:1 row_mask:0xf
