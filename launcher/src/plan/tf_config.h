// SPDX-License-Identifier: Apache-2.0
#pragma once
// TF_CONFIG for TensorFlow's MultiWorkerMirroredStrategy (tf.distribute's
// TFConfigClusterResolver): every rank is a worker, listed in rank order as host:port, and
// learns its own place from task.index:
//   {"cluster":{"worker":["h0:p0","h1:p1",...]},"task":{"type":"worker","index":RANK}}
// Each worker listens on its own port, so there is one port per rank.
//
// It is set only when asked (--tf-config), because TF_CONFIG is not inert: TensorFlow and Keras
// read it in programs that never build a MultiWorkerMirroredStrategy (a Horovod+TF program, an
// Estimator, Keras's multi-worker checkpoint helpers treat index != 0 as "not chief"), and it
// reserves one port per rank that nothing else may take.

#include <cstdint>
#include <string>
#include <vector>

namespace hvd::launcher::plan {

/// The variable's value for worker `index` of `workers` ("host:port" each).
std::string tf_config_json(const std::vector<std::string>& workers, int index);

/// Inside Slurm, where hvdrun cannot ask the other nodes for free ports, each task computes its
/// port from the job id and its local rank: 10000 + (job id % 150) * 64 + local rank. Jobs get
/// blocks of 64 ports in 10000..19599, below hvdrun's MASTER_PORT range (20000 + job id % 10000)
/// and Linux's ephemeral ports (32768 and up); two jobs share a node's block only when their
/// ids differ by a multiple of 150. Throws UsageError for a local rank of 64 or more.
uint16_t tf_port_for(const std::string& job_id, int local_rank);

/// The most ranks per node that tf_port_for can give ports to.
inline constexpr int kTfMaxRanksPerNode = 64;

}  // namespace hvd::launcher::plan
