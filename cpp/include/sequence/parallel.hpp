// Worker threads for the core's parallel loops (ISMCTS's root parallelism, the rollout search's
// worlds, simulate's games): one place that runs the workers, derives each worker's seed, splits
// fixed budgets and decides when to stop (the caller's stop flag, a deadline, a failed sibling).
// The threads are started once and kept for the next call (a search of an agent's 10,000
// iterations on 16 threads lasts a few milliseconds: starting and ending 15 threads for each one
// cost a large part of that, serially on the caller, and every thread's end unmapped its stack's
// pages, which interrupts every core running the process). No exception ever leaves a thread
// (that would std::terminate the process).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "sequence/isa.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

// The most worker threads one call may use (search options, simulate).
constexpr int kMaxThreads = 256;

// Per-worker state written in a hot loop is aligned to this, so that two workers never write the
// same cache line (false sharing serialises them).
constexpr std::size_t kCacheLine = 64;

// The seed of worker `index` in a run seeded with `seed`: the (index + 1)-th output of
// SplitMix64(seed) (rng.hpp), so workers draw independent streams and a run is reproducible for a
// given seed and worker count.
std::uint64_t worker_seed(std::uint64_t seed, int index);

// Worker `index`'s share of `total` units split between `workers`: total / workers, plus one for
// the first total % workers workers. The shares sum to total.
std::uint64_t worker_share(std::uint64_t total, int workers, int index);

// When the workers of one run stop: the caller raised its flag (Ctrl-C), the deadline passed, or
// a worker failed (run_workers() raises abort()). Shared by all workers; they only read it in
// their loops, so it costs no cache-line traffic until something is raised.
class StopSignal {
public:
    // external may be null; time_limit <= 0 means no deadline.
    StopSignal(const std::atomic<bool>* external, double time_limit);

    // Whether to stop now. Reads the clock when there is a deadline, so hot loops call it every
    // few iterations.
    bool should_stop() const {
        if (interrupted() || aborted_.load(std::memory_order_relaxed)) return true;
        return has_deadline_ && Clock::now() >= deadline_;
    }
    // The caller's flag was raised (as opposed to the deadline or a failure).
    bool interrupted() const { return external_ != nullptr && external_->load(std::memory_order_relaxed); }
    void abort() { aborted_.store(true, std::memory_order_relaxed); }
    // Seconds since construction.
    double elapsed() const;

private:
    using Clock = std::chrono::steady_clock;
    const std::atomic<bool>* external_;
    std::atomic<bool> aborted_{false};
    bool has_deadline_;
    Clock::time_point start_;
    Clock::time_point deadline_;
};

// A worker thread could not be started (the system's thread or memory limit). The workers that
// did start were stopped and joined first.
class ThreadStartError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Runs work(0) .. work(workers - 1) concurrently and returns when all have returned: worker 0 on
// the calling thread, the others on threads of the process's worker pool, which keeps its threads
// for later calls and starts threads only for the parts its idle threads do not cover (the first
// call with a given number of workers; calls from several threads at once; calls from inside a
// worker). Any number of threads may call it at once. Requires 1 <= workers <= kMaxThreads.
//  - An exception thrown by a worker is caught in that worker; stop.abort() makes the siblings
//    stop at their next should_stop(); after every worker has returned the first exception is
//    rethrown to the caller (std::bad_alloc stays std::bad_alloc).
//  - A thread that cannot be started: no worker runs; the pool ends its idle threads (the system
//    is at a limit: their stacks are given back), then ThreadStartError is thrown naming which
//    thread of how many could not be started.
//  - Every pool thread sets up its thread-local storage before it runs any worker, so that a
//    worker's first exception (std::bad_alloc when memory has run out) needs no memory from glibc.
//  - In a child process forked while the pool had threads (which do not survive fork()), the
//    child's first call starts a pool of its own.
void run_workers(int workers, StopSignal& stop, const std::function<void(int)>& work);

// One job run on a thread of the same pool, for the Python bindings, which run each search on
// another thread so that the calling thread can keep handling signals. The job starts when the
// object is built (throws what a thread start throws: std::system_error, std::bad_alloc; the job
// is then not run) and is finished when its thread is back in the pool, so a call that follows
// finds that thread idle. The destructor waits for it: nothing the job reads can be destroyed
// under it.
class PooledJob {
public:
    explicit PooledJob(std::function<void()> job);  // job must not throw
    ~PooledJob();
    PooledJob(const PooledJob&) = delete;
    PooledJob& operator=(const PooledJob&) = delete;

    // Whether the job finished within `timeout` (now, for a zero timeout).
    bool wait_for(std::chrono::milliseconds timeout);
    void wait();

private:
    struct State;
    std::unique_ptr<State> state_;
};

// How many threads the worker pool of run_workers() has started in this process so far: a
// repeated search with the same number of threads starts none (benchmarks report it per search).
std::uint64_t worker_threads_started();

// Worker threads kept for many short parallel calls (VectorGame's steps: starting threads for each
// call costs tens of microseconds, as much as a step of a few hundred games). run() hands one job
// to all of them and returns when every part finished. Used by one caller thread at a time.
class WorkerPool {
public:
    // Starts workers - 1 threads (workers >= 1). Threads the system refuses are left out: size()
    // says how many workers a run() has, the calling thread included.
    explicit WorkerPool(int workers);
    ~WorkerPool();  // stops and joins the threads
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;

    int size() const { return static_cast<int>(threads_.size()) + 1; }
    // Runs work(0) .. work(size() - 1) concurrently, work(0) on the calling thread, and returns
    // when all have returned; the first exception a part threw is rethrown then. Each part runs
    // once, on its own worker thread or, when that thread has not started it by the time the
    // calling thread is done with its own part (not yet scheduled on a busy machine, or a part too
    // small to be worth the wait), on the calling thread. In a child
    // process forked after the pool started (whose threads did not survive the fork) every part
    // runs on the calling thread, in order.
    void run(const std::function<void(int)>& work);

private:
    void loop(int index);

    std::vector<std::thread> threads_;
    std::mutex mutex_;
    std::condition_variable start_, done_;
    const std::function<void(int)>* job_ = nullptr;
    std::uint64_t generation_ = 0;  // counts jobs: a worker runs each generation once
    int ready_ = 0;                 // threads whose thread-local storage is set up
    int running_ = 0;               // parts of the current job taken by pool threads, not finished
    std::vector<char> claimed_;     // per part of the current job: a thread has taken it
    bool stopping_ = false;
    std::exception_ptr failure_;
    long owner_pid_ = 0;
};

}  // namespace SEQUENCE_ISA
}  // namespace sequence
