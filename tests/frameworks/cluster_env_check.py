#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Does a rank's environment give Lightning and Accelerate what they read? Neither package is
installed here, so their reads are restated from their public source:

- Lightning 2.x, lightning/fabric/plugins/environments/slurm.py (SLURMEnvironment): detected()
  when SLURM_NTASKS is set and SLURM_JOB_NAME is not "bash"/"interactive"; world_size =
  SLURM_NTASKS, global_rank = SLURM_PROCID, local_rank = SLURM_LOCALID, node_rank =
  SLURM_NODEID; main_address/main_port = MASTER_ADDR/MASTER_PORT when set;
  _validate_srun_variables() raises when SLURM_NTASKS > 1 and SLURM_NTASKS_PER_NODE is unset;
  validate_settings() wants SLURM_NTASKS_PER_NODE == devices and SLURM_NNODES == num_nodes.
  torchelastic.py (TorchElasticEnvironment, checked after SLURM): RANK, GROUP_RANK, LOCAL_RANK
  and LOCAL_WORLD_SIZE.
- Accelerate, accelerate/state.py (PartialState) and utils/environment.py: LOCAL_RANK != -1
  means distributed; RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, and MASTER_ADDR and
  MASTER_PORT for torch's env:// rendezvous.

hvdrun's own variables must agree with Slurm's. Usage: cluster_env_check.py DEVICES NUM_NODES
Prints "cluster_env: ok rank R" or each problem, and exits 1 on any.
"""
import os
import sys


def problems(env, devices, num_nodes):
    out = []

    def need(key):
        if key not in env:
            out.append('%s is not set' % key)
            return None
        return env[key]

    # Lightning, SLURMEnvironment.
    if env.get('SLURM_JOB_NAME') in ('bash', 'interactive'):
        out.append('SLURM_JOB_NAME=%s: Lightning would not use SLURM' % env['SLURM_JOB_NAME'])
    pairs = [('SLURM_NTASKS', 'WORLD_SIZE'), ('SLURM_PROCID', 'RANK'),
             ('SLURM_LOCALID', 'LOCAL_RANK'), ('SLURM_NODEID', 'GROUP_RANK')]
    for slurm_key, torch_key in pairs:
        a, b = need(slurm_key), need(torch_key)
        if a is not None and b is not None and a != b:
            out.append('%s=%s but %s=%s' % (slurm_key, a, torch_key, b))
    if int(env.get('SLURM_NTASKS', '1')) > 1 and 'SLURM_NTASKS_PER_NODE' not in env:
        out.append('SLURM_NTASKS > 1 without SLURM_NTASKS_PER_NODE: Lightning raises')
    if env.get('SLURM_NTASKS_PER_NODE') not in (None, str(devices)):
        out.append('SLURM_NTASKS_PER_NODE=%s, Trainer(devices=%d)' % (env['SLURM_NTASKS_PER_NODE'],
                                                                     devices))
    if env.get('SLURM_NNODES') not in (None, str(num_nodes)):
        out.append('SLURM_NNODES=%s, Trainer(num_nodes=%d)' % (env['SLURM_NNODES'], num_nodes))
    # TorchElasticEnvironment and Accelerate.
    for key in ('LOCAL_WORLD_SIZE', 'MASTER_ADDR', 'MASTER_PORT'):
        need(key)
    if env.get('LOCAL_WORLD_SIZE') not in (None, str(devices)):
        out.append('LOCAL_WORLD_SIZE=%s on a node of %d ranks' % (env['LOCAL_WORLD_SIZE'], devices))
    if not env.get('MASTER_PORT', '0').isdigit():
        out.append('MASTER_PORT=%s is not a port' % env['MASTER_PORT'])
    return out


def main():
    found = problems(os.environ, int(sys.argv[1]), int(sys.argv[2]))
    for p in found:
        print('cluster_env: %s' % p)
    if not found:
        print('cluster_env: ok rank %s' % os.environ.get('RANK'))
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main())
