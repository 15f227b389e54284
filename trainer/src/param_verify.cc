// SPDX-License-Identifier: Apache-2.0
#include "param_verify.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "hvd/hvd.h"
#include "hvd/str_cat.h"
#include "must.h"

namespace hvd::train {
namespace {

std::string ranks_text(const std::vector<int>& ranks) {
  std::string out = ranks.size() == 1 ? "rank " : "ranks ";
  for (size_t i = 0; i < ranks.size(); ++i) out += str_cat(i == 0 ? "" : ", ", ranks[i]);
  return out;
}

// Every rank's `values` (the same count on each), rank after rank.
std::vector<int64_t> gather(const std::string& name, std::vector<int64_t> values) {
  const TensorView in{
      values.data(), DataType::kInt64, {1, static_cast<int64_t>(values.size())}, Device{}};
  const Handle h = allgather_async(name, in);
  must(h.wait(), "parameter check");
  std::vector<int64_t> all(h.output().size() / sizeof(int64_t));
  std::memcpy(all.data(), h.output().data(), all.size() * sizeof(int64_t));
  return all;
}

}  // namespace

std::vector<ParamSlice> parameter_slices(const std::vector<int>& widths) {
  std::vector<ParamSlice> slices;
  size_t offset = 0;
  for (size_t l = 0; l + 1 < widths.size(); ++l) {
    const auto in = static_cast<size_t>(widths[l]);
    const auto out = static_cast<size_t>(widths[l + 1]);
    slices.push_back({str_cat("layer", l, ".weight"), offset, out * in});
    offset += out * in;
    slices.push_back({str_cat("layer", l, ".bias"), offset, out});
    offset += out;
  }
  return slices;
}

int64_t digest_bytes(const void* data, size_t bytes) {
  uint64_t h = 0xCBF29CE484222325ull;
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 0x100000001B3ull;
  int64_t out;
  std::memcpy(&out, &h, sizeof(out));
  return out;
}

std::vector<int64_t> slice_digests(const float* params, const std::vector<ParamSlice>& slices) {
  std::vector<int64_t> digests;
  for (const ParamSlice& s : slices) {
    digests.push_back(digest_bytes(params + s.offset, s.count * sizeof(float)));
  }
  return digests;
}

std::string who_differs(const std::vector<int64_t>& digest_of_rank) {
  std::map<int64_t, std::vector<int>> groups;
  for (size_t r = 0; r < digest_of_rank.size(); ++r) {
    groups[digest_of_rank[r]].push_back(static_cast<int>(r));
  }
  std::vector<const std::vector<int>*> by_size;
  for (const auto& [digest, ranks] : groups) by_size.push_back(&ranks);
  // Largest first; among equals, the group of the lowest rank first.
  std::sort(by_size.begin(), by_size.end(), [](const auto* a, const auto* b) {
    return a->size() != b->size() ? a->size() > b->size() : a->front() < b->front();
  });
  if (by_size.size() < 2) return "all ranks agree";
  if (by_size[0]->size() == by_size[1]->size()) {
    std::string text = str_cat("ranks hold ", groups.size(), " different sets of parameters (");
    for (size_t i = 0; i < by_size.size(); ++i) text += ranks_text(*by_size[i]) + "; ";
    return text + "no majority to tell which are wrong)";
  }
  std::vector<int> odd;
  for (size_t i = 1; i < by_size.size(); ++i) {
    odd.insert(odd.end(), by_size[i]->begin(), by_size[i]->end());
  }
  std::sort(odd.begin(), odd.end());
  return str_cat(ranks_text(odd), odd.size() == 1 ? " differs" : " differ", " from the other ",
                 by_size[0]->size(), " rank(s)");
}

int first_difference(const std::vector<int64_t>& table, size_t slices) {
  if (slices == 0) return -1;
  const size_t ranks = table.size() / slices;
  for (size_t s = 0; s < slices; ++s) {
    for (size_t r = 1; r < ranks; ++r) {
      if (table[r * slices + s] != table[s]) return static_cast<int>(s);
    }
  }
  return -1;
}

void verify_parameters(Mlp& model, int64_t step, int64_t every) {
  std::vector<float> host(model.parameter_count());
  model.compute().download(host.data(), model.params(), host.size() * sizeof(float));
  const std::vector<ParamSlice> slices = parameter_slices(model.widths());
  const std::vector<int64_t> mine = slice_digests(host.data(), slices);
  const std::vector<int64_t> digests =
      gather("verify.digest", {digest_bytes(mine.data(), mine.size() * sizeof(int64_t))});
  if (std::all_of(digests.begin(), digests.end(), [&](int64_t d) { return d == digests[0]; })) {
    return;
  }
  // Every rank saw the same digests, so every rank takes this second step.
  const int first = first_difference(gather("verify.parameters", mine), slices.size());
  const std::string where =
      first < 0 ? std::string("no single parameter differs (their order does)")
                : str_cat("the first that differs is ", slices[static_cast<size_t>(first)].name,
                          " (parameter ", first + 1, " of ", slices.size(), ")");
  throw DivergedError(str_cat("hvd-train: rank ", rank(), ": parameters differ between ranks ",
                              "after step ", step + 1, " (--verify-every ", every,
                              "): ", who_differs(digests), "; ", where,
                              "; data-parallel training is broken"));
}

}  // namespace hvd::train
