#include "sequence/parallel.hpp"

#include <cassert>
#include <exception>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "sequence/rng.hpp"

namespace sequence {

std::uint64_t worker_seed(std::uint64_t seed, int index) {
    return SplitMix64(seed + static_cast<std::uint64_t>(index) * 0x9E3779B97F4A7C15ull).next();
}

std::uint64_t worker_share(std::uint64_t total, int workers, int index) {
    assert(workers >= 1 && index >= 0 && index < workers);
    const auto n = static_cast<std::uint64_t>(workers);
    return total / n + (static_cast<std::uint64_t>(index) < total % n ? 1 : 0);
}

StopSignal::StopSignal(const std::atomic<bool>* external, double time_limit)
    : external_(external), has_deadline_(time_limit > 0), start_(Clock::now()) {
    deadline_ = start_;
    if (has_deadline_)
        deadline_ += std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(time_limit));
}

double StopSignal::elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

void run_workers(int workers, StopSignal& stop, const std::function<void(int)>& work) {
    assert(workers >= 1 && workers <= kMaxThreads);
    std::mutex failure_mutex;
    std::exception_ptr failure;
    // Every worker, on whichever thread, runs inside this guard: nothing escapes a std::thread.
    const auto guarded = [&](int index) {
        try {
            work(index);
        } catch (...) {
            stop.abort();
            const std::lock_guard<std::mutex> lock(failure_mutex);
            if (!failure) failure = std::current_exception();
        }
    };
    std::vector<std::thread> pool;
    std::string start_error;
    try {
        pool.reserve(static_cast<std::size_t>(workers - 1));
        for (int t = 1; t < workers; ++t) pool.emplace_back(guarded, t);
    } catch (const std::exception& e) {  // std::system_error (no thread), std::bad_alloc
        stop.abort();
        start_error = "could not start worker thread " + std::to_string(pool.size() + 2) + " of " +
                      std::to_string(workers) + " (" + e.what() + "): use fewer threads";
    }
    if (start_error.empty()) guarded(0);
    for (std::thread& th : pool) th.join();
    if (!start_error.empty()) throw ThreadStartError(start_error);
    if (failure) std::rethrow_exception(failure);
}

}  // namespace sequence
