v_mov_b32_dpp v0, v1 row_shr:16
