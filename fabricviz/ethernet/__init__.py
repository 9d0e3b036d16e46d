"""RoCE specifics: ECMP 5-tuple hashing, ECN marking, PFC pause and DCQCN rate control."""
