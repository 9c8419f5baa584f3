# nvfp4-weights pass
