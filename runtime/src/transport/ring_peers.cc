// SPDX-License-Identifier: Apache-2.0
#include "transport/ring_peers.h"

#include <algorithm>

#include "hvd/error.h"

namespace hvd::backends::ring {

int largest_power_of_two(int size) {
  int p = 1;
  while (p <= size / 2) p *= 2;
  return p;
}

int doubling_partner(int rank, int size, int mask) {
  const int p = largest_power_of_two(size);
  const int extra = size - p;
  int vrank = rank - extra;
  if (rank < 2 * extra) vrank = rank % 2 == 1 ? rank / 2 : -1;
  if (vrank < 0) return -1;
  const int vpeer = vrank ^ mask;
  return vpeer < extra ? 2 * vpeer + 1 : vpeer + extra;
}

std::vector<int> algorithm_peers(int rank, int size) {
  HVD_CHECK(size > 0 && rank >= 0 && rank < size, "rank ", rank, " of ", size);
  std::vector<int> peers;
  for (int k = 1; k < size; k *= 2) {
    peers.push_back((rank + k) % size);
    peers.push_back((rank - k % size + size) % size);
  }
  const int p = largest_power_of_two(size);
  const int extra = size - p;
  if (rank < 2 * extra) peers.push_back(rank ^ 1);
  for (int mask = 1; mask < p; mask *= 2) {
    const int partner = doubling_partner(rank, size, mask);
    if (partner >= 0) peers.push_back(partner);
  }
  std::sort(peers.begin(), peers.end());
  peers.erase(std::unique(peers.begin(), peers.end()), peers.end());
  peers.erase(std::remove(peers.begin(), peers.end(), rank), peers.end());
  return peers;
}

}  // namespace hvd::backends::ring
