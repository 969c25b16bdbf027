v_mov_b32 v0, 1
s_waitcnt
s_waitcnt lgkmcnt(0)
s_nop s0
