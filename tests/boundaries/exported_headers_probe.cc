// SPDX-License-Identifier: Apache-2.0
// Every runtime header exported to the launcher (runtime/CMakeLists.txt, "Boundaries"), included
// with the launcher's include paths: if an export list misses a header one of these includes,
// this fails to compile.
#include "auth/handshake.h"
#include "auth/run_secret.h"
#include "common/env.h"
#include "core/timeline_merge.h"
#include "files/atomic_file.h"
#include "net/socket.h"
#include "store/kv_client.h"
#include "store/kv_protocol.h"
#include "store/kv_server.h"
#include "store/store_limits.h"
