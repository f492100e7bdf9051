"""platperf: characterise the performance of a Linux platform and track it release to release."""
__version__ = "0.1.0"
