v_mov_b32_dpp v2, v0 row_shl:1 row_shr:1
