// SPDX-License-Identifier: Apache-2.0
#pragma once
// hvdrun's descriptor limit, raised for itself and given back to the ranks as the user had it.
//
// The store holds one connection per rank (and more while ranks connect), so at a few thousand
// ranks hvdrun needs more than the usual 1024-descriptor soft limit: it raises the soft limit
// to the hard limit at start. Its children get the user's soft limit back between fork and
// exec, as mpirun and Horovod leave limits alone for the programs they start: a program that
// uses select() breaks with descriptors above 1024, and one that sizes tables by the limit
// would grow. srun passes its own limits on to the tasks (PropagateResourceLimits), so the
// tasks see the user's limit too.

namespace hvd::launcher::exec {

/// Raises this process's RLIMIT_NOFILE soft limit to its hard limit and remembers the old soft
/// limit. Best effort: a failure leaves the limit as it was.
void raise_fd_limit() noexcept;

/// Throws LaunchError when `ranks` local ranks, each holding `per_rank` descriptors in
/// hvdrun, cannot fit under its descriptor limit: said at once, rather than after forking
/// for minutes and failing at a pipe halfway through.
void require_fds_for_ranks(int ranks, int per_rank);

/// In a child between fork and exec: puts back the soft limit that raise_fd_limit() found
/// (nothing if it was not called). Async-signal-safe (one setrlimit).
void restore_fd_limit_in_child() noexcept;

}  // namespace hvd::launcher::exec
