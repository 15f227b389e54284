# SPDX-License-Identifier: Apache-2.0
"""Horovod's Adasum written out with plain torch (not hvdrun's), for the framework tests that
check hvdrun.torch's against it (torch_reference.py, torch_adasum_optimizer.py, torch_api.py)."""

import torch

TINY_NORM_SQ = 2.0 ** -511  # sqrt(DBL_MIN): Horovod 0.28's threshold (common/ops/adasum/adasum.h)


def adasum(vectors):
    """The Adasum of one tensor's per-rank values (flat, a power-of-two count of them): ranks
    (0,1), (2,3), ... combine into (1 - a.b/(2|a|^2)) a + (1 - a.b/(2|b|^2)) b (a coefficient
    stays 1 where |x|^2 < sqrt(DBL_MIN) = 2^-511), then the pairs' results, and so on. In
    float64, as Horovod computes the dot products; the result in the vectors' dtype."""
    dtype = vectors[0].dtype
    vectors = [v.double() for v in vectors]
    while len(vectors) > 1:
        level = []
        for a, b in zip(vectors[0::2], vectors[1::2]):
            dot, aa, bb = torch.dot(a, b), torch.dot(a, a), torch.dot(b, b)
            ca = 1 - dot / (2 * aa) if aa >= TINY_NORM_SQ else 1.0
            cb = 1 - dot / (2 * bb) if bb >= TINY_NORM_SQ else 1.0
            level.append(ca * a + cb * b)
        vectors = level
    return vectors[0].to(dtype)
