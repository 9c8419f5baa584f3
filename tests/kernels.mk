# tests of kernels
