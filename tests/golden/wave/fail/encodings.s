// GFX9 (wave64) encodings: one scalar value per VALU instruction, no literal in VOP3,
// the e32 form's operand places
v_add_u32 v0, s0, s1
v_add3_u32 v0, v1, v2, 0x1234
v_add_u32_e32 v0, v1, s2
v_cmp_eq_u32_e32 s[0:1], v0, v1
v_mul_lo_u32_e32 v0, v1, v2
v_readfirstlane_b32_e64 s0, v1
v_cndmask_b32 v0, s0, v1, s[2:3]
s_and_saveexec_b32 s0, s1
s_add_u32 s0, 0x1234, 0x5678
v_add_u32 v0, s102, v1
