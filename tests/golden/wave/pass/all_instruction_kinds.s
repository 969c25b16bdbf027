; every instruction class of the wave model, wave64
v_mbcnt_lo_u32_b32 v10, -1, 0
v_mbcnt_hi_u32_b32 v10, -1, v10      ; lane id
v_lshlrev_b32 v11, 2, v10
v_xor_b32 v11, 4, v11
ds_bpermute_b32 v3, v11, v0 offset:0
ds_permute_b32 v4, v11, v0
ds_swizzle_b32 v5, v0 offset:swizzle(BITMASK_PERM,"01pip")
ds_swizzle_b32 v6, v0 offset:0x801b
s_waitcnt lgkmcnt(0)
v_mov_b32_dpp v7, v0 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:0
v_mov_b32_dpp v7, v0 row_mirror
v_readlane_b32 s2, v0, 5
v_readfirstlane_b32 s3, v0
v_writelane_b32 v8, s2, 63
v_permlane64_b32 v9, v0
v_cmp_lt_u32 vcc, v10, 32
s_and_saveexec_b64 s[4:5], vcc
v_add_u32 v12, 1, v10
s_mov_b64 exec, s[4:5]
v_cndmask_b32 v13, 0, 1, vcc
s_add_u32 s6, s2, s3
s_nop 0
