// SPDX-License-Identifier: Apache-2.0
// env: EnvMap snapshots and typed getters.
#include "env/env.h"

#include <doctest/doctest.h>

#include "hvd/error.h"

using hvd::EnvMap;

TEST_CASE("env: an environ-style array becomes an EnvMap") {
  const char* entries[] = {"A=1", "B=x=y", "EMPTY=", "NOEQUALS", "=nokey", "A=2", nullptr};
  const EnvMap env = hvd::env_from_array(entries);
  CHECK(env == EnvMap{{"A", "1"}, {"B", "x=y"}, {"EMPTY", ""}});
  CHECK(hvd::env_from_array(nullptr).empty());
}

TEST_CASE("env: the process environment is read once") {
  const EnvMap& first = hvd::process_env();
  CHECK(&first == &hvd::process_env());
  CHECK(first.count("PATH") == 1);
}

TEST_CASE("env: strings, with an empty value counting as unset") {
  const EnvMap env = {{"SET", "v"}, {"EMPTY", ""}};
  CHECK(hvd::env_has(env, "SET"));
  CHECK_FALSE(hvd::env_has(env, "EMPTY"));
  CHECK_FALSE(hvd::env_has(env, "MISSING"));
  CHECK(hvd::env_string(env, "SET", "d") == "v");
  CHECK(hvd::env_string(env, "EMPTY", "d") == "d");
  CHECK(hvd::env_required(env, "SET", "why") == "v");
  CHECK_THROWS_WITH_AS(hvd::env_required(env, "EMPTY", "hvdrun sets it"),
                       "EMPTY is not set: hvdrun sets it", hvd::ConfigError);
}

TEST_CASE("env: integers name the variable, the value and the range") {
  const EnvMap env = {{"N", "42"},   {"PLUS", "+7"},  {"NEG", "-3"},
                      {"BAD", "4x"}, {"SPACE", " 4"}, {"HUGE", "99999999999999999999"}};
  CHECK(hvd::env_int(env, "N", 0) == 42);
  CHECK(hvd::env_int(env, "PLUS", 0) == 7);
  CHECK(hvd::env_int(env, "NEG", 0) == -3);
  CHECK(hvd::env_int(env, "MISSING", 5) == 5);
  CHECK(hvd::env_int64(env, "N", 0, 0, 100) == 42);
  CHECK_THROWS_WITH_AS(hvd::env_int(env, "BAD", 0), "BAD='4x' is not an integer", hvd::ConfigError);
  CHECK_THROWS_AS(hvd::env_int(env, "SPACE", 0), hvd::ConfigError);
  CHECK_THROWS_AS(hvd::env_int64(env, "HUGE", 0), hvd::ConfigError);
  CHECK_THROWS_WITH_AS(hvd::env_int(env, "N", 0, 0, 10), "N='42' is out of range [0, 10]",
                       hvd::ConfigError);
  CHECK(hvd::env_required_int(env, "N", 0, 100, "why") == 42);
  CHECK_THROWS_WITH_AS(hvd::env_required_int(env, "MISSING", 0, 1, "set it"),
                       "MISSING is not set: set it", hvd::ConfigError);
}

TEST_CASE("env: numbers, booleans and choices") {
  const EnvMap env = {{"D", "2.5"}, {"E", "1e3"},  {"DBAD", "2.5ms"}, {"T", "TRUE"},
                      {"F", "off"}, {"BBAD", "2"}, {"C", "mpi"}};
  CHECK(hvd::env_double(env, "D", 0) == doctest::Approx(2.5));
  CHECK(hvd::env_double(env, "E", 0) == doctest::Approx(1000));
  CHECK(hvd::env_double(env, "MISSING", 1.5) == doctest::Approx(1.5));
  CHECK_THROWS_WITH_AS(hvd::env_double(env, "DBAD", 0), "DBAD='2.5ms' is not a number",
                       hvd::ConfigError);
  CHECK_THROWS_AS(hvd::env_double(env, "E", 0, 0, 10), hvd::ConfigError);
  CHECK(hvd::env_bool(env, "T", false));
  CHECK_FALSE(hvd::env_bool(env, "F", true));
  CHECK(hvd::env_bool(env, "MISSING", true));
  CHECK_THROWS_WITH_AS(hvd::env_bool(env, "BBAD", false),
                       doctest::Contains("BBAD='2' is not a boolean"), hvd::ConfigError);
  CHECK(hvd::env_choice(env, "C", {"pmix", "mpi"}, "auto") == "mpi");
  CHECK(hvd::env_choice(env, "MISSING", {"pmix"}, "auto") == "auto");
  CHECK_THROWS_WITH_AS(hvd::env_choice(env, "C", {"auto", "pmix"}, "auto"),
                       "C='mpi' is not one of: auto, pmix", hvd::ConfigError);
}
