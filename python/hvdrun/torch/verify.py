# SPDX-License-Identifier: Apache-2.0
"""Parameter verification (hvdrun --verify-every N, or HVD_VERIFY_EVERY=N in the ranks'
environment): every N optimizer steps the ranks compare a 64-bit digest of their parameters,
with one allgather of 8 bytes per rank. Data-parallel ranks must hold bit-identical parameters;
when they do not (silent data corruption in a link or a collective, a rank that skipped a step,
ranks never started from the same weights), a second allgather of per-parameter digests finds the
first parameter that differs, and every rank raises ParametersDivergedError naming the ranks and
that parameter. Left uncaught, it ends the process with exit code 6 (EXIT_CODE), as hvd-train's
check does, so hvdrun exits 6 too.
"""

import os
import sys

import torch

from .gather_ops import allgather

ENV_VAR = 'HVD_VERIFY_EVERY'
EXIT_CODE = 6
# Digests are taken over pieces of this many elements through buffers kept per device (3 x 2 MiB),
# so that a check allocates nothing large: fresh memory for a whole large parameter costs more
# than the arithmetic on it.
_CHUNK = 1 << 18
_workspaces = {}
_INT_OF_SIZE = {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64}
_MASK = (1 << 64) - 1


class ParametersDivergedError(RuntimeError):
    """Ranks hold different parameters: data-parallel training has gone wrong."""


def interval_from_env(environ=os.environ):
    """N from HVD_VERIFY_EVERY (0, the default, is off); ValueError naming it when not a number
    >= 0."""
    text = environ.get(ENV_VAR, '').strip()
    if not text:
        return 0
    try:
        every = int(text)
    except ValueError:
        every = -1
    if every < 0:
        raise ValueError('%s=%r: must be a whole number of optimizer steps >= 0 (0 = off); fix '
                         'or unset it' % (ENV_VAR, text))
    return every


def _as_integers(tensor):
    """The tensor's bytes as integers of the same width (bool and integers as they are), flat."""
    t = tensor.detach()
    if t.is_complex():
        t = torch.view_as_real(t)
    t = t.contiguous().view(-1)
    if t.is_floating_point():
        t = t.view(_INT_OF_SIZE[t.element_size()])
    return t


def _workspace(device):
    """int64 buffers of _CHUNK elements on `device`: the bits, their weighted copy, 1..N."""
    ws = _workspaces.get(device)
    if ws is None:
        ws = (torch.empty(_CHUNK, dtype=torch.int64, device=device),
              torch.empty(_CHUNK, dtype=torch.int64, device=device),
              torch.arange(1, _CHUNK + 1, dtype=torch.int64, device=device))
        _workspaces[device] = ws
    return ws


def parameter_digest(tensor):
    """Two int64 sums on the tensor's device: of the elements' bits, and of the bits weighted by
    position. Any change to one element changes the first (by +-2^k, k < 64, which int64
    arithmetic modulo 2^64 never loses); the second also catches elements that trade places."""
    ints = _as_integers(tensor)
    bits, weighted_bits, ramp = _workspace(ints.device)
    plain = torch.zeros((), dtype=torch.int64, device=ints.device)
    weighted = torch.zeros((), dtype=torch.int64, device=ints.device)
    for offset in range(0, ints.numel(), _CHUNK):
        n = min(_CHUNK, ints.numel() - offset)
        piece = bits[:n]
        piece.copy_(ints[offset:offset + n])
        piece_sum = piece.sum()
        torch.mul(piece, ramp[:n], out=weighted_bits[:n])
        # sum(bits * (offset + i)) = offset * sum(bits) + sum(bits * i)
        weighted += piece_sum * offset + weighted_bits[:n].sum()
        plain += piece_sum
    return torch.stack([plain, weighted])


def _fold(values):
    """One 64-bit number from many (FNV-1a over their 64-bit patterns)."""
    h = 0xCBF29CE484222325
    for v in values:
        h = ((h ^ (v & _MASK)) * 0x100000001B3) & _MASK
    return h - (1 << 64) if h >= 1 << 63 else h  # as a signed int64 for the tensor


def _ranks_text(ranks):
    return ('rank %d' % ranks[0] if len(ranks) == 1
            else 'ranks ' + ', '.join(str(r) for r in ranks))


def _who_differs(digests):
    """Which ranks differ: those outside the largest group of equal digests, or, when no group
    is larger than the others (2 ranks), all of them."""
    groups = {}
    for rank, d in enumerate(digests):
        groups.setdefault(d, []).append(rank)
    sizes = sorted((len(g) for g in groups.values()), reverse=True)
    if sizes[0] == sizes[1]:
        return 'ranks hold %d different sets of parameters (%s; no majority to tell which ' \
               'are wrong)' % (len(groups), '; '.join(_ranks_text(g) for g in groups.values()))
    majority = max(groups.values(), key=len)
    odd = sorted(r for g in groups.values() if g is not majority for r in g)
    return '%s differ%s from the other %d rank(s)' % (
        _ranks_text(odd), 's' if len(odd) == 1 else '', len(majority))


class Verifier:
    """Counts optimizer steps and verifies the parameters every `every` of them."""

    def __init__(self, named_parameters, every, process_set=None, owner='DistributedOptimizer'):
        self._named = [(name, p) for name, p in named_parameters]
        self._every = every
        self._process_set = process_set
        self._owner = owner
        self._steps = 0
        self.checks_done = 0  # for tests and logs: how many verifications ran
        # One digest now, with the model, rather than in the middle of training: the first ones
        # cost 100x the others (the buffers' first-touch memory, torch's first use of each op).
        with torch.no_grad():
            for _, p in self._named:
                parameter_digest(p)

    @classmethod
    def from_env(cls, named_parameters, process_set=None, owner='DistributedOptimizer'):
        """A Verifier when HVD_VERIFY_EVERY asks for one, else None."""
        every = interval_from_env()
        if every == 0:
            return None
        _install_exit_code()
        return cls(named_parameters, every, process_set, owner)

    def after_step(self):
        """Call after each optimizer step, on every rank."""
        self._steps += 1
        if self._steps % self._every == 0:
            self.verify()

    def verify(self):
        """Collective. Raises ParametersDivergedError unless every rank holds the same
        parameters."""
        kwargs = {} if self._process_set is None else {'process_set': self._process_set}
        with torch.no_grad():
            per_param = [parameter_digest(p) for _, p in self._named]
            table = (torch.stack(per_param).cpu() if per_param
                     else torch.zeros((0, 2), dtype=torch.int64))
            mine = torch.tensor([_fold(table.view(-1).tolist())], dtype=torch.int64)
            digests = allgather(mine, name='hvdrun.verify.digest', **kwargs).tolist()
            self.checks_done += 1
            if len(set(digests)) == 1:
                return
            # Every rank saw the same digests, so every rank takes this second step.
            everyone = allgather(table.view(1, -1), name='hvdrun.verify.parameters', **kwargs)
        raise ParametersDivergedError(self._message(digests, everyone.view(len(digests), -1, 2)))

    def _message(self, digests, tables):
        first = next((i for i in range(tables.shape[1])
                      if not bool((tables[:, i] == tables[0, i]).all())), None)
        where = ('the first that differs is %r (parameter %d of %d)'
                 % (self._named[first][0], first + 1, len(self._named)) if first is not None
                 else 'no single parameter differs (their order does)')
        return ('hvdrun.torch: parameters differ between ranks after optimizer step %d '
                '(%s=%d, %s): %s; %s. Data-parallel training is broken: a link, a collective or '
                'a rank\'s memory corrupted data, a rank skipped a step, or the ranks did not '
                'start from the same weights (broadcast_parameters)'
                % (self._steps, ENV_VAR, self._every, self._owner, _who_differs(digests), where))


def _install_exit_code():
    """Makes an uncaught ParametersDivergedError end the process with EXIT_CODE (after the usual
    traceback), without libhvd's teardown: the other ranks fail the same check at the same step,
    and hvdrun stops whatever is left."""
    previous = sys.excepthook
    if getattr(previous, '_hvdrun_verify', False):
        return

    def hook(kind, value, traceback):
        previous(kind, value, traceback)
        if issubclass(kind, ParametersDivergedError):
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(EXIT_CODE)
    hook._hvdrun_verify = True
    sys.excepthook = hook
