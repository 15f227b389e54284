#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""hvdrun --verify-every 5 (HVD_VERIFY_EVERY=5 in the ranks) with hvdrun.torch's
DistributedOptimizer, and with the Adasum optimizer where the rank count is a power of two.

For each optimizer: 10 clean steps pass and run 2 checks; then the last rank flips one bit of
the parameter '2.bias' (the test hook: this script, between two steps), and the check after
step 15 raises ParametersDivergedError on every rank, naming the rank (or, at 2 ranks, both) and
'2.bias'. With --uncaught the error is left to end the process (exit 6, check_exit.py).

Prints "torch_verify_every: rank R of N on HOST checks C failures F"; exits 1 on a failure.
"""
import sys

import torch

import hvdrun.torch as hvd
from hvdrun.torch import verify
from tally import check, report

EVERY = 5
FLIP_BIT = 20  # a high mantissa bit: later updates cannot round the difference away


def digest_sees_every_change():
    """Local: one flipped bit anywhere, and two elements trading places, change the digest."""
    t = torch.linspace(-1, 1, 1000)
    base = verify.parameter_digest(t)
    for index, bit in [(0, 0), (999, 31), (500, 22)]:
        flipped = t.clone()
        flipped.view(torch.int32)[index] ^= 1 << bit if bit < 31 else -(1 << 31)
        check(not torch.equal(verify.parameter_digest(flipped), base),
              'a flip of bit %d of element %d went unseen' % (bit, index))
    swapped = t.clone()
    swapped[[3, 7]] = swapped[[7, 3]]
    check(not torch.equal(verify.parameter_digest(swapped), base), 'a swap went unseen')
    for bad in ['x', '-1', '2.5']:
        try:
            verify.interval_from_env({verify.ENV_VAR: bad})
            check(False, 'HVD_VERIFY_EVERY=%s was taken' % bad)
        except ValueError as e:
            check(verify.ENV_VAR in str(e), 'the error does not name the variable: %s' % e)


def train(steps, model, opt, r):
    for s in range(steps):
        g = torch.Generator().manual_seed(100 * s + r)
        x, y = torch.randn(6, 5, generator=g), torch.randn(6, 2, generator=g)
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()


def flip_one_bit(model):
    with torch.no_grad():
        model[2].bias.data.view(torch.int32)[0] ^= 1 << FLIP_BIT


def expected_culprit(n):
    if n == 2:
        return 'rank 0; rank 1; no majority'
    return 'rank %d differs from the other %d rank(s)' % (n - 1, n - 1)


def run(op, r, n, uncaught):
    name = 'Adasum' if op == hvd.Adasum else 'Average'
    torch.manual_seed(r)  # different initial weights: broadcast_parameters must align them
    model = torch.nn.Sequential(torch.nn.Linear(5, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    opt = hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.1),
                                   named_parameters=model.named_parameters(), op=op)
    train(10, model, opt, r)
    check(opt._verifier is not None and opt._verifier.checks_done == 2,
          '%s: 2 checks expected after 10 steps' % name)
    if r == n - 1:
        flip_one_bit(model)
    if uncaught:
        train(5, model, opt, r)  # the check after step 15 ends the process
        check(False, '%s: the flipped bit was not caught' % name)
        return
    try:
        train(5, model, opt, r)
        check(False, '%s: the flipped bit was not caught' % name)
    except verify.ParametersDivergedError as e:
        text = str(e)
        check('step 15' in text and "'2.bias'" in text and expected_culprit(n) in text,
              '%s: the error does not name step 15, the rank and 2.bias: %s' % (name, text))


def main():
    hvd.init()
    r, n = hvd.rank(), hvd.size()
    uncaught = '--uncaught' in sys.argv
    check(verify.interval_from_env() == EVERY, 'HVD_VERIFY_EVERY is not %d' % EVERY)
    digest_sees_every_change()
    run(hvd.Average, r, n, uncaught)
    if n & (n - 1) == 0:  # Adasum needs a power of two
        run(hvd.Adasum, r, n, uncaught)
    hvd.shutdown()
    return report('torch_verify_every', r, n)


if __name__ == '__main__':
    sys.exit(main())
