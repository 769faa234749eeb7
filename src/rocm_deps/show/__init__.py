"""`rocm-deps config`: the configuration in effect, each value with where it comes from."""
