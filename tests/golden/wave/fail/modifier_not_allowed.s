v_add_u32 v0, v1, v2 offset:4
