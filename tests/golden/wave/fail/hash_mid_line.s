# a '#' at the start of a line is a comment
  # (also indented)
ds_bpermute_b32 v0, v1, v2 # offset:70000
ds_bpermute_b32 v0, v1, v2 offset:70000
