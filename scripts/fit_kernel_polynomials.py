#!/usr/bin/env python3
"""Reproduces the polynomial coefficients of the SCM vector kernels (src/ssdf/vector_kernels*.*).

Chebyshev fits (mpmath.chebyfit, 50 digits; close to minimax) of
  - q(t) = sum_j t^j / (2j + 3) = (atanh(sqrt t)/sqrt t - 1)/t on [0, (3 - 2 sqrt 2)^2], degree 6:
    the log1p of the softplus, log(1 + e) = k ln 2 + 2s + 2s t q(t);
  - exp(r) on [-ln2/32, ln2/32], degree 6: the AVX-512 exp after the 16-entry table reduction.
Needs python3-mpmath (Debian). Prints the coefficients, highest degree first, and the fit errors.
"""
import mpmath as mp

mp.mp.dps = 50


def q(t):
    if t == 0:
        return mp.mpf(1) / 3
    r = mp.sqrt(t)
    return (mp.atanh(r) / r - 1) / t


T = (3 - 2 * mp.sqrt(2)) ** 2
c, err = mp.chebyfit(q, [0, T * mp.mpf("1.0001")], 7, error=True)
print("log1p q(t), degree 6: |error| %s (relative to log1p: %s)" % (mp.nstr(err, 3), mp.nstr(err * T, 3)))
print("  " + ", ".join(repr(float(x)) for x in c))
R = mp.log(2) / 32 * mp.mpf("1.0001")
c, err = mp.chebyfit(mp.exp, [-R, R], 7, error=True)
print("exp(r), degree 6: relative error %s" % mp.nstr(err, 3))
print("  " + ", ".join(repr(float(x)) for x in c))
