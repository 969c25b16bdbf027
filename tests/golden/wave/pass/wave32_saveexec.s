// wave32 program with exec save/restore
v_mbcnt_lo_u32_b32 v1, -1, 0
v_cmp_gt_u32 vcc_lo, 16, v1
s_and_saveexec_b32 s0, vcc_lo
v_mov_b32 v2, 7
s_mov_b32 exec_lo, s0
