# SPDX-License-Identifier: Apache-2.0
"""hvdrun's Python packages. hvdrun.torch is Horovod 0.28's horovod.torch API over libhvd."""
