v_cmp_eq_u32 v0, v1, v2
