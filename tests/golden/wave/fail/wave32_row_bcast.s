// wave32 GPUs (GFX10+) have no row_bcast or wave_* DPP controls
v_mov_b32_dpp v0, v1 row_bcast:15 row_mask:0xa
v_mov_b32_dpp v0, v1 wave_shl:1
