// SPDX-License-Identifier: Apache-2.0
#pragma once
// Slurm hostlists ("gpu[01-04],login1"), as in SLURM_JOB_NODELIST and `scontrol show hostnames`.
// A tiny pure library (after flux-core's libhostlist) so the launcher never has to run scontrol,
// which needs a Slurm config that a login node or a test machine may not have.

#include <string>
#include <string_view>
#include <vector>

namespace hvd::launcher::slurm {

/// Expands a hostlist into host names, in Slurm's order, keeping duplicates
/// ("node[1-3,2]" -> node1 node2 node3 node2). The grammar is Slurm's (hostlist.c):
/// - items are separated by ',' ' ' '\t' '\n'; commas inside [] do not split. Blank text gives
///   an empty list; an item that is empty between commas ("a,,b", "a,") is an error.
/// - item := prefix '[' ranges ']' [suffix]; ranges := range (',' range)*; range := N | N-M.
///   Each value is zero-padded to the width of the lower bound's text: "tux[08-11]" -> tux08..
///   tux11, "tux[8-011]" -> tux8..tux11, "nid[1-3,007]" -> nid1 nid2 nid3 nid007.
/// - Text after ']' is a suffix ("n[1-2]-ib" -> n1-ib n2-ib), as Slurm >= 23.02.5 accepts.
/// - Several groups in one item form a Cartesian product in Slurm's order: the last group varies
///   fastest, then the first, second, ... group, so "a[1-2]b[3-4]c[5-6]" -> a1b3c5 a1b3c6
///   a2b3c5 a2b3c6 a1b4c5 a1b4c6 a2b4c5 a2b4c6 (checked against scontrol 22.05).
/// Throws SchedulerError quoting the text and saying what is wrong for a descending range
/// ("x[3-1]"), an empty group ("x[]"), a non-decimal or negative number, an unclosed '[', a stray
/// ']', nested brackets, an empty item, a range of more than 65536 hosts ("x[0-65536]"), more
/// than 65536 hosts in all, bracket groups holding more than 65536 numbers in all
/// ("a[0-40000]b[0-40000]"), or a host name longer than 255 characters.
std::vector<std::string> expand_hostlist(std::string_view text);

/// Compresses host names into a hostlist that expand_hostlist() (and scontrol 22.05, since no
/// suffix follows a ']') expands back to exactly `hosts`, order, padding and duplicates included.
/// Adjacent hosts with the same prefix share one bracket group of ascending runs:
/// {nid001, nid002, nid003, nid007, login1, login2} -> "nid[001-003,007],login[1-2]".
/// The text need not match `scontrol show hostlist`. An empty vector gives "".
/// A host that is empty or holds '[', ']', ',' or whitespace is a caller bug (HVD_CHECK), since
/// no hostlist can spell it.
std::string compress_hostlist(const std::vector<std::string>& hosts);

}  // namespace hvd::launcher::slurm
