# tests of nvfp4-weights
