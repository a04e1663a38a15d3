// suite_run.h: a benchmark suite driven by a self-test through its own hooks, its workers on
// kernel threads bound as the harness binds them (kernel/bench/bench.c).
#pragma once
#include "bench.h"

// The suite registered under name, or NULL.
const struct benchsuite *suite_find(const char *name);

// Runs ctx's worker on n threads named "<name>/<i>", thread i on CPU i % the online count.
// run_ms > 0: the run lasts run_ms from the moment every worker runs, then ctx->stop ends it
// (the deadline is never reached); run_ms == 0: the workers end by ctx->deadline themselves.
// The workers' operations in *ops; false if a thread could not be created.
bool suite_threads(struct bench_ctx *ctx, int n, const char *name, int run_ms, u64 *ops);
