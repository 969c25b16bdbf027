"""dslike: the custom GPU of the porting guide (DS-like cross-lane shuffles)."""
