# kernels
