// SPDX-License-Identifier: Apache-2.0
#include "trainer.h"

#include <sys/stat.h>
#include <time.h>

#include <algorithm>
#include <cmath>
#include <iostream>

#include "checkpoint.h"
#include "checkpoint_notice.h"
#include "hvd/error.h"
#include "hvd/hvd.h"
#include "hvd/str_cat.h"
#include "must.h"
#include "param_verify.h"
#include "test_crash.h"

namespace hvd::train {
namespace {

using Clock = std::chrono::steady_clock;

template <typename T>
TensorView host_view(std::vector<T>& v, DataType dtype) {
  return TensorView{v.data(), dtype, {static_cast<int64_t>(v.size())}, Device{}};
}

// Sums {loss, correct, rows} over the ranks.
BatchStats sum_over_ranks(const BatchStats& local, const std::string& name) {
  std::vector<double> v{local.loss_sum, local.correct, static_cast<double>(local.rows)};
  const TensorView view = host_view(v, DataType::kFloat64);
  must(allreduce_async(name, view, view, ReduceOp::kSum).wait(), name);
  return BatchStats{v[0], v[1], static_cast<int>(v[2])};
}

// Unlike wall time, this does not grow when other jobs share the cores, so it compares
// implementations fairly on a busy machine.
double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

bool path_exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

std::unique_ptr<Compute> make_compute(const TrainOptions& o) {
  if (o.device == "gpu") return make_gpu_compute(local_rank());
  return make_host_compute(o.threads);
}

}  // namespace

Trainer::Trainer(const TrainOptions& options)
    : options_(options), rank_(rank()), ranks_(size()), compute_(make_compute(options)) {
  // First, so that a notice during the data loading is kept, not fatal.
  if (!options_.checkpoint_path.empty()) notice_ = std::make_unique<CheckpointNotice>();
  if (options_.synthetic) {
    train_set_ = make_synthetic(options_.synthetic_samples, options_.seed);
  } else {
    train_set_ = load_fashion_mnist(options_.data_dir, "train");
    test_set_ = load_fashion_mnist(options_.data_dir, "t10k");
  }
  sampler_ = std::make_unique<ShardSampler>(train_set_.size(), ranks_, rank_, options_.batch_size,
                                            options_.seed);
  std::vector<int> widths{kFeatures};
  widths.insert(widths.end(), options_.hidden.begin(), options_.hidden.end());
  widths.push_back(kClasses);
  model_ = std::make_unique<Mlp>(*compute_, widths, options_.batch_size);
  model_->init_params(options_.seed);
  sgd_ = std::make_unique<Sgd>(*model_, options_.momentum, options_.weight_decay);
  exchange_ = std::make_unique<GradientExchange>(
      *model_, static_cast<size_t>(options_.bucket_mb * (1 << 20)));
  schedule_ = LrSchedule{options_.lr, ranks_, options_.scale_lr, options_.warmup_epochs,
                         sampler_->steps_per_epoch()};
  batch_images_ =
      DeviceArray<float>(*compute_, static_cast<size_t>(options_.batch_size) * kFeatures);
  batch_labels_ = DeviceArray<int32_t>(*compute_, static_cast<size_t>(options_.batch_size));
  report_.ranks = ranks_;
  report_.gpu = compute_->on_gpu();
  report_.widths = widths;
  report_.parameters = model_->parameter_count();
  report_.batch_per_rank = options_.batch_size;
  report_.synthetic = options_.synthetic;
  report_.baseline = options_.baseline;
  restore_or_broadcast();
}

// Rank 0's state wins, as Horovod's broadcast_parameters: its checkpoint when resuming, else
// the seeded initialization every rank computed anyway. Broadcasting also means only rank 0
// has to see the checkpoint file.
void Trainer::restore_or_broadcast() {
  const size_t n = model_->parameter_count();
  std::vector<float> params(n), velocity(n);
  std::vector<int64_t> step{0};
  if (rank_ == 0 && options_.resume && path_exists(options_.checkpoint_path)) {
    Checkpoint c = read_checkpoint(options_.checkpoint_path);
    // parse_checkpoint() tied the parameter count to the file's widths; both must be the model's,
    // or the upload below would read past the end of the checkpoint's arrays.
    if (c.widths != model_->widths() || c.params.size() != n || c.momentum.size() != n) {
      throw ConfigError(str_cat(
          "hvd-train: checkpoint ", options_.checkpoint_path, " is for another model shape (",
          c.params.size(), " parameters, this model has ", n, "); remove it or match --hidden"));
    }
    params = std::move(c.params);
    velocity = std::move(c.momentum);
    step[0] = c.step;
  } else {
    compute_->download(params.data(), model_->params(), n * sizeof(float));
  }
  const std::vector<Handle> handles{
      broadcast_async("init.params", host_view(params, DataType::kFloat32),
                      host_view(params, DataType::kFloat32), 0),
      broadcast_async("init.velocity", host_view(velocity, DataType::kFloat32),
                      host_view(velocity, DataType::kFloat32), 0),
      broadcast_async("init.step", host_view(step, DataType::kInt64),
                      host_view(step, DataType::kInt64), 0)};
  for (const Handle& h : handles) must(h.wait(), "initial broadcast");
  compute_->upload(model_->params(), params.data(), n * sizeof(float));
  compute_->upload(sgd_->velocity(), velocity.data(), n * sizeof(float));
  first_step_ = step[0];
  if (first_step_ > 0)
    log(str_cat("Resumed from ", options_.checkpoint_path, " at step ", first_step_));
}

int64_t Trainer::total_steps() const {
  if (options_.steps > 0) return options_.steps;
  if (options_.synthetic) {
    return options_.num_warmup_batches +
           int64_t{options_.num_iters} * options_.num_batches_per_iter;
  }
  return int64_t{options_.epochs} * sampler_->steps_per_epoch();
}

Trainer::StepTime Trainer::timed_step(int64_t step) {
  const auto start = Clock::now();
  const double cpu_start = process_cpu_seconds();
  gather(train_set_, sampler_->indices(step), host_images_, host_labels_);
  compute_->upload(batch_images_.data(), host_images_.data(), host_images_.size() * sizeof(float));
  compute_->upload(batch_labels_.data(), host_labels_.data(),
                   host_labels_.size() * sizeof(int32_t));
  const BatchStats s =
      model_->train_step(batch_images_.data(), batch_labels_.data(), options_.batch_size,
                         [this](int layer) { exchange_->submit(layer); });
  exchange_->wait_all();
  sgd_->step(schedule_.at(step), exchange_->grad_scale());
  compute_->synchronize();
  epoch_stats_.loss_sum += s.loss_sum;
  epoch_stats_.correct += s.correct;
  epoch_stats_.rows += s.rows;
  return StepTime{std::chrono::duration<double>(Clock::now() - start).count(),
                  process_cpu_seconds() - cpu_start};
}

// Horovod's timing: after the warmup batches, every num_batches_per_iter steps make one
// iteration whose img/sec is one sample of the mean and confidence.
void Trainer::record_time(int64_t steps_done, const StepTime& t) {
  if (steps_done <= options_.num_warmup_batches) return;
  iteration_seconds_ += t.wall;
  timed_cpu_seconds_ += t.cpu;
  timed_images_ += options_.batch_size;
  if (++iteration_steps_ < options_.num_batches_per_iter) return;
  const double rate =
      static_cast<double>(options_.batch_size) * iteration_steps_ / iteration_seconds_;
  if (!options_.quiet) {
    log(iteration_line(static_cast<int>(img_per_sec_.size()), rate, report_));
  }
  img_per_sec_.push_back(rate);
  iteration_seconds_ = 0;
  iteration_steps_ = 0;
}

RunReport Trainer::run() {
  log(str_cat("Model: ", describe(options_), " (", model_->parameter_count(), " parameters)"));
  log(str_cat("Batch size: ", options_.batch_size));
  log(str_cat("Number of ", report_.device_word(), "s: ", ranks_));
  log("Running warmup...");
  const int64_t last = total_steps();
  for (int64_t step = first_step_; step < last; ++step) {
    const int64_t done_here = step - first_step_ + 1;
    if (done_here == options_.num_warmup_batches + 1) log("Running benchmark...");
    crash_once_if_asked(options_, rank_, step);
    if (notice_ && step == options_.test_pause_at_step && first_step_ == 0) {
      log(str_cat("Pausing before step ", step, " until a checkpoint notice"));
      notice_->wait_for_notice();
    }
    record_time(done_here, timed_step(step));
    if (step == first_step_ && options_.test_perturb_rank == rank_) perturb_one_weight();
    if (options_.verify_every > 0 && (step + 1) % options_.verify_every == 0) {
      verify_parameters(*model_, step, options_.verify_every);
      ++verify_checks_;
    }
    if ((step + 1) % sampler_->steps_per_epoch() == 0)
      end_epoch((step + 1) / sampler_->steps_per_epoch());
    if (checkpoint_due(step)) return report_;
  }
  if (options_.verify_every > 0) {
    log(str_cat("Parameters identical on all ", ranks_, " ranks at each of ", verify_checks_,
                " checks (every ", options_.verify_every, " steps)"));
  }
  if (!options_.checkpoint_path.empty()) save(options_.checkpoint_path, last);
  if (!options_.save_weights.empty()) save(options_.save_weights, last);
  report_.per_rank = summarize(img_per_sec_);
  if (timed_images_ > 0) report_.cpu_ms_per_image = 1e3 * timed_cpu_seconds_ / timed_images_;
  for (const std::string& line : summary_lines(report_)) log(line);
  if (rank_ == 0 && !options_.json_path.empty()) write_json(options_.json_path, report_);
  return report_;
}

// After a whole step, so the checkpoint resumes exactly where this run stopped: with the same
// weights, momentum and step, a resumed run ends bit-identical to one never interrupted.
bool Trainer::checkpoint_due(int64_t step) {
  if (!notice_ || !notice_->due_on_any_rank()) return false;
  save(options_.checkpoint_path, step + 1);
  log(str_cat("Checkpoint due (", notice_->source(), "): saved step ", step + 1, " to ",
              options_.checkpoint_path, "; exiting 0 so that the job can be requeued"));
  return true;
}

void Trainer::end_epoch(int64_t epoch) {
  const BatchStats train = sum_over_ranks(epoch_stats_, str_cat("epoch.train.", epoch));
  epoch_stats_ = BatchStats{};
  EpochResult e{static_cast<int>(epoch), train.loss_sum / train.rows, train.correct / train.rows,
                -1};
  if (!options_.synthetic) {
    const BatchStats test = sum_over_ranks(evaluate_test_set(), str_cat("epoch.test.", epoch));
    e.test_accuracy = test.correct / test.rows;
    log(epoch_line(e));
  }
  report_.epochs.push_back(e);
  if (!options_.checkpoint_path.empty())
    save(options_.checkpoint_path, epoch * sampler_->steps_per_epoch());
}

BatchStats Trainer::evaluate_test_set() {
  const std::vector<uint32_t> shard = eval_shard(test_set_.size(), ranks_, rank_);
  BatchStats total;
  for (size_t begin = 0; begin < shard.size(); begin += static_cast<size_t>(options_.batch_size)) {
    const size_t end = std::min(shard.size(), begin + static_cast<size_t>(options_.batch_size));
    gather(test_set_,
           {shard.begin() + static_cast<std::ptrdiff_t>(begin),
            shard.begin() + static_cast<std::ptrdiff_t>(end)},
           host_images_, host_labels_);
    compute_->upload(batch_images_.data(), host_images_.data(),
                     host_images_.size() * sizeof(float));
    compute_->upload(batch_labels_.data(), host_labels_.data(),
                     host_labels_.size() * sizeof(int32_t));
    const BatchStats s =
        model_->evaluate(batch_images_.data(), batch_labels_.data(), static_cast<int>(end - begin));
    total.loss_sum += s.loss_sum;
    total.correct += s.correct;
    total.rows += s.rows;
  }
  return total;
}

void Trainer::save(const std::string& path, int64_t steps_done) {
  if (rank_ != 0) return;
  const size_t n = model_->parameter_count();
  Checkpoint c{model_->widths(), steps_done, std::vector<float>(n), std::vector<float>(n)};
  compute_->download(c.params.data(), model_->params(), n * sizeof(float));
  compute_->download(c.momentum.data(), sgd_->velocity(), n * sizeof(float));
  write_checkpoint(path, c);
}

// A bit flip, as silent data corruption would make: bit 20, high in the mantissa, so that
// later updates cannot round the difference away before a check every N steps sees it.
void Trainer::perturb_one_weight() {
  const std::vector<ParamSlice> slices = parameter_slices(model_->widths());
  const auto it = std::find_if(slices.begin(), slices.end(), [this](const ParamSlice& s) {
    return s.name == options_.test_perturb_param;
  });
  if (it == slices.end()) {
    throw UsageError(str_cat("hvd-train: --test-perturb-param: no parameter named '",
                             options_.test_perturb_param, "' (layer0.weight, layer0.bias, ...)"));
  }
  float* at = model_->params() + it->offset;
  uint32_t bits = 0;
  compute_->download(&bits, at, sizeof(bits));
  bits ^= 1u << 20;
  compute_->upload(at, &bits, sizeof(bits));
}

void Trainer::log(const std::string& line) const {
  if (rank_ == 0) std::cout << line << std::endl;
}

}  // namespace hvd::train
