# SPDX-License-Identifier: Apache-2.0
"""What both distributed optimizers (optimizer.py, and adasum_optimizer.py for op=Adasum) check
and count the same way, with Horovod's messages: the names of the parameters, and the backward
passes a gradient hook has seen before step()."""


def count_backward_pass(handles, delay, p):
    """A gradient hook's bookkeeping, as Horovod's: one more backward pass of p before step(),
    refused (AssertionError, Horovod's message) past backward_passes_per_step."""
    if p in handles and handles[p][0] is not None and delay[p] <= 0:
        raise AssertionError(
            'Gradients were computed more than backward_passes_per_step times '
            'before call to step(). Increase backward_passes_per_step to '
            'accumulate gradients locally.')
    assert not p.grad.requires_grad
    assert delay[p] > 0
    delay[p] -= 1


def validated_names(param_groups, named_parameters, default):
    """named_parameters as a list of (name, parameter), `default` when None; Horovod's
    ValueErrors when they are no tuples, repeat a name or leave a parameter out."""
    named_parameters = default if named_parameters is None else list(named_parameters)
    if any(not isinstance(p, tuple) for p in named_parameters):
        raise ValueError('named_parameters should be a sequence of tuples (name, parameter), '
                         'usually produced by model.named_parameters().')
    seen, dups = set(), set()
    for name, _ in named_parameters:
        (dups if name in seen else seen).add(name)
    if dups:
        raise ValueError('Parameter names in named_parameters must be unique. '
                         'Found duplicates: %s' % ', '.join(dups))
    all_params = {id(v) for group in param_groups for v in group['params']}
    named = {id(v) for _, v in named_parameters}
    if len(all_params - named) > 0:
        raise ValueError('named_parameters was specified, but one or more model parameters '
                         'were not named. Python object ids: %s'
                         % ', '.join(str(i) for i in all_params - named))
    return named_parameters
