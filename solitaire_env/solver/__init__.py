"""Solvers on full-information positions, and the hint built on them."""
