# SPDX-License-Identifier: Apache-2.0
"""The check count of the framework scripts (torch_api.py, torch_sync_batch_norm.py,
torch_elastic.py): each check is counted, a failed one is printed on stderr, and report() prints
the line check_ranks.py reads,
    NAME: rank R of N on HOST checks C failures F
and returns the script's exit code."""
import socket
import sys

checks = 0
failures = []


def check(ok, what):
    global checks
    checks += 1
    if not ok:
        failures.append(what)
        print('FAILED: %s' % what, file=sys.stderr, flush=True)


def raises(exc, fn, what):
    """Checks that fn() raises exc (a check that fails on another exception or none)."""
    try:
        fn()
    except exc:
        check(True, what)
        return
    except Exception as e:  # the wrong exception
        check(False, '%s: raised %r, want %s' % (what, e, exc.__name__))
        return
    check(False, '%s: did not raise %s' % (what, exc.__name__))


def report(name, rank, size):
    print('%s: rank %d of %d on %s checks %d failures %d'
          % (name, rank, size, socket.gethostname(), checks, len(failures)), flush=True)
    return 1 if failures else 0
