v_readlane_b32 s2, v0, 0x1234
v_writelane_b32 v1, s2, 65
v_readlane_b32 s3, v0, -17
