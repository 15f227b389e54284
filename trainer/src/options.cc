// SPDX-License-Identifier: Apache-2.0
#include "options.h"

#include <cstdlib>
#include <iostream>

#include <CLI/CLI.hpp>

#include "hvd/error.h"

namespace hvd::train {
namespace {

void add_model_and_data(CLI::App& app, TrainOptions& o) {
  app.add_option("--hidden", o.hidden, "Hidden layer widths, comma-separated (e.g. 4096,4096,1280)")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  app.add_option("--device", o.device, "Where forward and backward run")
      ->check(CLI::IsMember({"cpu", "gpu"}));
  app.add_option("--threads", o.threads,
                 "BLAS threads per rank (0: OMP_NUM_THREADS, else the cores shared by the local "
                 "ranks)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--bucket-mb", o.bucket_mb,
                 "0: allreduce each layer's gradient as soon as it is ready (Horovod); else "
                 "allreduce adjacent layers together in buckets of this size (DDP's bucket_cap_mb)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--data-dir", o.data_dir, "Fashion-MNIST IDX .gz files");
  app.add_flag("--synthetic", o.synthetic, "Random images instead of Fashion-MNIST (benchmark)");
  app.add_option("--synthetic-samples", o.synthetic_samples, "Size of the synthetic data set")
      ->check(CLI::PositiveNumber);
  app.add_option("-b,--batch-size", o.batch_size, "Images per rank per step")
      ->check(CLI::PositiveNumber);
  app.add_option("--epochs", o.epochs, "Passes over the training set")->check(CLI::PositiveNumber);
  app.add_option("--steps", o.steps,
                 "Run exactly this many steps (counted from the start of training), overriding "
                 "--epochs and the --synthetic benchmark length")
      ->check(CLI::PositiveNumber);
  app.add_option("--seed", o.seed, "Seeds the weights and the shared sample order");
}

void add_optimizer(CLI::App& app, TrainOptions& o) {
  app.add_option("--lr", o.lr, "Learning rate for one rank's batch")->check(CLI::PositiveNumber);
  app.add_flag("--scale-lr", o.scale_lr, "Linear scaling rule: lr times the number of ranks");
  app.add_option("--warmup-epochs", o.warmup_epochs,
                 "Ramp the learning rate linearly from lr to its scaled value over these epochs")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--momentum", o.momentum, "SGD momentum")->check(CLI::Range(0.0, 1.0));
  app.add_option("--weight-decay", o.weight_decay, "L2 penalty")->check(CLI::NonNegativeNumber);
}

void add_benchmark_and_outputs(CLI::App& app, TrainOptions& o) {
  app.add_option("--num-warmup-batches", o.num_warmup_batches, "Steps not timed")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--num-batches-per-iter", o.num_batches_per_iter, "Steps per timed iteration")
      ->check(CLI::PositiveNumber);
  app.add_option("--num-iters", o.num_iters,
                 "Timed iterations; with --synthetic they set the run's length")
      ->check(CLI::PositiveNumber);
  app.add_option("--baseline", o.baseline,
                 "Img/sec of a one-rank run: prints the scaling efficiency against it")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--json", o.json_path, "Write a JSON report here (rank 0)");
  app.add_option("--checkpoint", o.checkpoint_path,
                 "Checkpoint file, rewritten atomically by rank 0 after every epoch, and after "
                 "the current step when a checkpoint is due (SIGUSR1/SIGUSR2 or "
                 "HVD_CHECKPOINT_FILE), after which hvd-train exits 0");
  app.add_flag("--resume", o.resume, "Continue from --checkpoint when it exists");
  app.add_option("--save-weights", o.save_weights, "Write the final weights here (rank 0)");
  app.add_option("--verify-every", o.verify_every,
                 "Every N steps, check that every rank holds bit-identical weights; name the "
                 "ranks and the first parameter that differ and exit 6 if not (default: "
                 "HVD_VERIFY_EVERY, which hvdrun --verify-every sets, else 0 = never)")
      ->check(CLI::NonNegativeNumber)
      ->default_str("$HVD_VERIFY_EVERY or 0");
  app.add_flag_callback(
      "--verify-sync", [&o] { o.verify_every = 1; }, "The same as --verify-every 1");
  app.add_flag("-q,--quiet", o.quiet, "No per-iteration lines");
  // Lets the tests prove that --verify-every catches ranks that diverge; not in --help.
  app.add_option("--test-perturb-rank", o.test_perturb_rank)->group("");
  app.add_option("--test-perturb-param", o.test_perturb_param)->group("");
  // Lets the restart tests crash one rank once (test_crash.h); not in --help.
  app.add_option("--test-crash-rank", o.test_crash_rank)->group("");
  app.add_option("--test-crash-at-step", o.test_crash_at_step)->group("");
  // Lets the preemption test signal the job mid-run without racing it; not in --help.
  app.add_option("--test-pause-at-step", o.test_pause_at_step)->group("");
}

}  // namespace

TrainOptions parse_options(int argc, char** argv) {
  TrainOptions o;
  CLI::App app{
      "hvd-train: data-parallel MLP training on libhvd (Fashion-MNIST or synthetic data), "
      "printing Horovod synthetic-benchmark lines.\n\n"
      "Usage: hvdrun -np N -- hvd-train [options]\n"
      "Exit codes: 2 usage, 3 data or checkpoint, 5 communication, 6 ranks diverged, 70 bug",
      "hvd-train"};
  app.option_defaults()->always_capture_default();  // --help shows each default
  add_model_and_data(app, o);
  add_optimizer(app, o);
  add_benchmark_and_outputs(app, o);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    std::exit(app.exit(e));
  } catch (const CLI::ParseError& e) {
    throw UsageError(std::string("hvd-train: ") + e.what() + "; see hvd-train --help");
  }
  if (o.resume && o.checkpoint_path.empty()) {
    throw UsageError("hvd-train: --resume needs --checkpoint FILE");
  }
  return o;
}

std::string describe(const TrainOptions& o) {
  std::string layers = "784";
  for (int h : o.hidden) layers += "-" + std::to_string(h);
  layers += "-10";
  return "MLP " + layers + ", device " + o.device + ", batch " + std::to_string(o.batch_size) +
         " per rank, " + (o.synthetic ? "synthetic data" : "Fashion-MNIST") + ", lr " +
         std::to_string(o.lr) + (o.scale_lr ? " (scaled by ranks)" : "") + ", momentum " +
         std::to_string(o.momentum);
}

}  // namespace hvd::train
