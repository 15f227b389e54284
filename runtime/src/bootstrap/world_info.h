// SPDX-License-Identifier: Apache-2.0
#pragma once
// WorldInfo: who this process is among the ranks, as the bootstrap found out.

#include <string>
#include <vector>

namespace hvd::bootstrap {

struct WorldInfo {
  int rank = 0;
  int size = 1;
  int local_rank = 0;   // among the ranks on this host
  int local_size = 1;
  int cross_rank = 0;   // index of this host among the hosts
  int cross_size = 1;
  std::string hostname;
  /// Every rank's host name, indexed by rank, when the bootstrap gathered them (PMIx, MPI, or
  /// hvdrun without local and cross ranks); empty otherwise. The TCP ring finds its listening
  /// address through them when the store knows none (transport/tcp/listen_address.h).
  std::vector<std::string> hostnames;
  std::string method;   // which bootstrap found this: "hvdrun", "pmix", "mpi", "single"
};

}  // namespace hvd::bootstrap
