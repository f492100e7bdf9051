"""What the machine is: CPU, clusters, caches, kernel, frequency, isolation, VM, toolchain."""
