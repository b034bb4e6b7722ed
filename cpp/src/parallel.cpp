#include "sequence/parallel.hpp"

#include <cassert>
#include <exception>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "sequence/rng.hpp"

#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif

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

namespace {
long process_id() {
#if defined(__unix__) || defined(__APPLE__)
    return static_cast<long>(::getpid());
#else
    return 0;
#endif
}
}  // namespace

WorkerPool::WorkerPool(int workers) : owner_pid_(process_id()) {
    assert(workers >= 1 && workers <= kMaxThreads);
    try {
        threads_.reserve(static_cast<std::size_t>(workers - 1));
        for (int t = 1; t < workers; ++t) threads_.emplace_back([this, t] { loop(t); });
    } catch (const std::exception&) {  // std::system_error (no thread), std::bad_alloc: fewer workers
    }
}

WorkerPool::~WorkerPool() {
    if (process_id() != owner_pid_) {
        // A forked child has the thread objects but not the threads: joining them is undefined,
        // destroying them joinable terminates. They are left alone, on purpose never freed.
        new std::vector<std::thread>(std::move(threads_));
        return;
    }
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    start_.notify_all();
    for (std::thread& th : threads_) th.join();
}

void WorkerPool::loop(int index) {
    std::uint64_t seen = 0;
    for (;;) {
        const std::function<void(int)>* job;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            start_.wait(lock, [&] { return stopping_ || generation_ != seen; });
            if (stopping_) return;
            seen = generation_;
            job = job_;
        }
        std::exception_ptr failure;
        try {
            (*job)(index);
        } catch (...) {
            failure = std::current_exception();
        }
        const std::lock_guard<std::mutex> lock(mutex_);
        if (failure && !failure_) failure_ = failure;
        if (--running_ == 0) done_.notify_one();
    }
}

void WorkerPool::run(const std::function<void(int)>& work) {
    if (threads_.empty() || process_id() != owner_pid_) {
        for (int k = 0; k < size(); ++k) work(k);
        return;
    }
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        job_ = &work;
        running_ = size() - 1;
        failure_ = nullptr;
        ++generation_;
    }
    start_.notify_all();
    std::exception_ptr failure;
    try {
        work(0);
    } catch (...) {
        failure = std::current_exception();
    }
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return running_ == 0; });
    job_ = nullptr;
    if (!failure) failure = failure_;
    lock.unlock();
    if (failure) std::rethrow_exception(failure);
}

}  // namespace sequence
