# SPDX-License-Identifier: Apache-2.0
"""A stand-in for hvdrun.torch._hvd_torch (python/csrc), so that the package's Python logic runs
in one process with no libhvd: this rank's place in a world of `size` ranks, the process-set
table libhvd would keep, and handles whose outcome a test decides. Every collective the real
extension enqueues is recorded in `enqueued`, so a test can tell that an argument check came
before anything was sent."""


class FakeExtension:
    MPI_BUILT = False
    NCCL_BUILT = False
    CUDA_BUILT = False
    VERSION = 'fake'

    def __init__(self):
        self.reset()

    def reset(self, size=1, rank=0, initialized=True):
        self._size, self._rank, self._initialized = size, rank, initialized
        self.sets = {0: list(range(size))}
        self.next_set_id = 1
        self.add_error = None  # the RuntimeError add_process_set raises, when set
        self.remove_error = None
        self.done = {}  # handle id -> whether poll() says it is done
        self.wait_errors = {}  # handle id -> the RuntimeError wait() raises
        self.released = []
        self.waited = []
        self.enqueued = []

    # ---- the world -------------------------------------------------------------------------
    def is_initialized(self):
        return self._initialized

    def size(self):
        return self._size

    def rank(self):
        return self._rank

    def local_size(self):
        return self._size

    def local_rank(self):
        return self._rank

    def cross_size(self):
        return 1

    def cross_rank(self):
        return 0

    # ---- process sets ----------------------------------------------------------------------
    def add_process_set(self, ranks):
        if self.add_error is not None:
            raise self.add_error
        set_id = self.next_set_id
        self.next_set_id += 1
        self.sets[set_id] = list(ranks)
        return set_id

    def remove_process_set(self, set_id):
        if self.remove_error is not None:
            raise self.remove_error
        del self.sets[set_id]

    def process_set_ranks(self, set_id):
        return list(self.sets[set_id])

    def process_set_rank(self, set_id):
        ranks = self.sets[set_id]
        return ranks.index(self._rank) if self._rank in ranks else -1

    def process_set_ids(self):
        return sorted(self.sets)

    # ---- handles ---------------------------------------------------------------------------
    def poll(self, lib_id):
        return self.done.get(lib_id, True)

    def wait(self, lib_id):
        self.waited.append(lib_id)
        if lib_id in self.wait_errors:
            raise self.wait_errors[lib_id]

    def release(self, lib_id):
        self.released.append(lib_id)

    def __getattr__(self, name):
        # Any collective (allreduce_async, broadcast_async, barrier, ...): recorded, and
        # refused, since no other rank would answer it.
        if name.startswith('_'):
            raise AttributeError(name)

        def enqueue(*args):
            self.enqueued.append((name, args))
            raise AssertionError('fake extension: %s was enqueued' % name)
        return enqueue
