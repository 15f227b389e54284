// SPDX-License-Identifier: Apache-2.0
#include "backends/ring/transport.h"

#include <vector>

#include "common/reduce_kernels.h"

namespace hvd::backends::ring {

void Transport::send_recv_reduce(int to, const void* sbuf, size_t sbytes, int from, void* acc,
                                 size_t count, DataType dtype, ReduceOp op) {
  std::vector<char> received(count * dtype_size(dtype));
  send_recv(to, sbuf, sbytes, from, received.data(), received.size());
  reduce_into(acc, received.data(), count, dtype, op);
}

}  // namespace hvd::backends::ring
