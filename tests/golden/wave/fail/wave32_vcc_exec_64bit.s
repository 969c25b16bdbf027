// wave32: a lane mask is 32 bits; vcc and exec name 64-bit pairs (llvm-mc rejects them)
v_cmp_gt_u32 vcc, 16, v1
v_cndmask_b32 v0, v1, v2, exec
s_and_saveexec_b32 s0, vcc
s_mov_b32 s1, exec
v_add_u32 v3, vcc, v1
