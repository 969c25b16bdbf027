v_mov_b32 v0,, v1
