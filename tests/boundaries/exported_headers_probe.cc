// SPDX-License-Identifier: Apache-2.0
// Every public header of the shared libraries (libs/*/include), included with the launcher's
// include paths: if a library's include folder or its links miss a header one of these
// includes, this fails to compile.
#include "auth/handshake.h"
#include "auth/run_secret.h"
#include "env/env.h"
#include "files/atomic_file.h"
#include "files/owned_dir.h"
#include "files/owned_file.h"
#include "net/socket.h"
#include "store/kv_client.h"
#include "store/kv_protocol.h"
#include "store/kv_server.h"
#include "store/store_limits.h"
#include "timeline_merge/timeline_format.h"
#include "timeline_merge/timeline_merge.h"
