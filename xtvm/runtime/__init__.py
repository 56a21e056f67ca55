"""Runtime: modules, arrays, devices and reference interpreters."""
