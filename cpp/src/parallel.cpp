#include "sequence/parallel.hpp"

#include <cassert>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "sequence/rng.hpp"

#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>
#include <unistd.h>
#endif
#if defined(__linux__)
#include <sched.h>
#include <sys/resource.h>
#endif

namespace sequence {
inline namespace SEQUENCE_ISA {

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

namespace {

// The calling thread's CPU priority: its scheduling policy and nice value (on Linux, where both
// are per thread; 0 elsewhere). A thread inherits them from the thread that starts it, and an
// unprivileged thread cannot raise its own again once lowered, so a pool thread keeps the priority
// of the caller that started it for good.
long caller_priority() {
#if defined(__linux__)
    return static_cast<long>(sched_getscheduler(0)) * 64 + (getpriority(PRIO_PROCESS, 0) + 20);
#else
    return 0;
#endif
}

// Makes this thread allocate its block of libstdc++'s thread-locals (the exception state) now,
// while there is memory, rather than at its first exception, when there may be none: glibc
// allocates a dlopen()ed library's thread-locals lazily and aborts the process if it cannot
// ("cannot allocate memory for thread-local data"). Called first thing on every worker thread.
void touch_thread_locals() {
    // volatile: std::uncaught_exceptions() is declared pure, and an unused result is dropped.
    volatile int uncaught = std::uncaught_exceptions();
    static_cast<void>(uncaught);
}

// The process's worker threads for run_workers(). Idle threads wait, each on its own condition
// variable, for a part of a call; a thread that finishes its part goes back to the idle list
// before its call learns that the part is done, so a call that follows finds it idle. The lists
// are intrusive: nothing is allocated under the lock or on a worker thread. Never destroyed: its
// threads may still wait on it while the process exits.
class ThreadPool {
public:
    // The parts of one run_workers() call handed to pool threads.
    struct Call {
        void (*run)(const void* context, int index) = nullptr;  // never throws (run_workers() guards it)
        const void* context = nullptr;
        int remaining = 0;                               // parts not finished (guarded by mutex_)
        std::condition_variable done;
    };

    static ThreadPool& instance();

    // Hands parts first .. first + count - 1 of `call` to idle threads and to threads started for
    // the parts the idle ones do not cover (outside the lock: a start takes tens of microseconds),
    // so that a call never waits for a part of its own to finish and the pool ends a call with as
    // many idle threads as the call had parts: the next call with as many starts none.
    // No part starts before every thread that will run one has set up its thread-local storage
    // (loop()): glibc allocates a thread's block of a dlopen()ed library's thread-locals (here
    // libstdc++'s exception state) on first use and aborts the process if it cannot, and the first
    // use is the first exception, typically std::bad_alloc when memory has just run out.
    // Returns `count`, or, when a thread cannot be started, how many threads were had before it,
    // with what the start threw (std::system_error, std::bad_alloc) in `failure`; then no part
    // is handed out (the threads had go back to the idle list).
    // Parts go only to threads of the caller's CPU priority (caller_priority()), started by such
    // a caller: work asked for at the lowest priority (the web server's analyses, in the idle
    // scheduling class) never lends its threads to work asked for at a normal one (an AI's move)
    // nor borrows theirs.
    int dispatch(Call& call, int first, int count, std::exception_ptr& failure) {
        Worker* reserved = nullptr;  // linked through next_idle, guarded by mutex_
        int had = 0;
        const long priority = caller_priority();
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            Worker** link = &idle_;
            while (had < count && *link != nullptr) {
                Worker* w = *link;
                if (w->priority != priority) {
                    link = &w->next_idle;
                    continue;
                }
                *link = w->next_idle;
                w->next_idle = reserved;
                reserved = w;
                ++had;
            }
        }
        for (; had < count; ++had) {
            Worker* w = nullptr;
            try {
                w = new Worker;
                w->priority = priority;
                w->thread = std::thread([this, w] { loop(w); });
            } catch (...) {  // the thread did not start
                delete w;
                failure = std::current_exception();
                break;
            }
            started_.fetch_add(1, std::memory_order_relaxed);
            const std::lock_guard<std::mutex> lock(mutex_);
            w->next_idle = reserved;
            reserved = w;
        }
        std::unique_lock<std::mutex> lock(mutex_);
        ready_.wait(lock, [&] {
            for (const Worker* w = reserved; w != nullptr; w = w->next_idle)
                if (!w->ready) return false;
            return true;
        });
        int index = first;
        while (reserved != nullptr) {
            Worker* w = reserved;
            reserved = w->next_idle;
            if (failure) {
                w->next_idle = idle_;
                idle_ = w;
                continue;
            }
            w->call = &call;
            w->index = index++;
            ++call.remaining;
            // Under the lock: once it is released the part may finish and its thread be handed
            // out again, or ended (release_idle()).
            w->wake.notify_one();
        }
        return failure ? had : count;
    }

    // Returns when every part of `call` handed to the pool has finished.
    void wait(Call& call) {
        std::unique_lock<std::mutex> lock(mutex_);
        call.done.wait(lock, [&] { return call.remaining == 0; });
    }
    // Whether every part has finished within `timeout`.
    bool wait_for(Call& call, std::chrono::milliseconds timeout) {
        std::unique_lock<std::mutex> lock(mutex_);
        return call.done.wait_for(lock, timeout, [&] { return call.remaining == 0; });
    }

    // Ends and joins the idle threads (busy ones finish their parts and stay).
    void release_idle() {
        Worker* ending;
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            ending = idle_;
            idle_ = nullptr;
            for (Worker* w = ending; w != nullptr; w = w->next_idle) {
                w->quit = true;
                w->wake.notify_one();
            }
        }
        while (ending != nullptr) {
            Worker* next = ending->next_idle;  // written under the lock above, read-only since
            ending->thread.join();
            delete ending;
            ending = next;
        }
    }

    std::uint64_t started() const { return started_.load(std::memory_order_relaxed); }

private:
    struct Worker {
        std::thread thread;
        std::condition_variable wake;
        Call* call = nullptr;  // the part to run; null while idle (guarded by mutex_)
        int index = 0;
        bool quit = false;
        bool ready = false;  // its thread-local storage is set up (guarded by mutex_)
        long priority = 0;   // caller_priority() of the caller that started it, so its own
        Worker* next_idle = nullptr;
    };

    ThreadPool() = default;

    void loop(Worker* w) {
        touch_thread_locals();
        std::unique_lock<std::mutex> lock(mutex_);
        w->ready = true;
        ready_.notify_all();
        for (;;) {
            w->wake.wait(lock, [&] { return w->call != nullptr || w->quit; });
            if (w->quit) return;
            Call* call = w->call;
            lock.unlock();
            call->run(call->context, w->index);
            lock.lock();
            w->call = nullptr;
            w->next_idle = idle_;
            idle_ = w;
            // Under the lock: the caller cannot return (and destroy `call`) before this is done.
            if (--call->remaining == 0) call->done.notify_one();
        }
    }

#if defined(__unix__) || defined(__APPLE__)
    static void after_fork_in_child();
#endif

    std::mutex mutex_;
    std::condition_variable ready_;  // a new thread has set up its thread-local storage
    Worker* idle_ = nullptr;
    std::atomic<std::uint64_t> started_{0};
    ThreadPool* abandoned_ = nullptr;  // a forked child's parent pool, kept reachable (leak checkers)
};

std::atomic<ThreadPool*> g_pool{nullptr};
std::atomic<std::uint64_t> g_started_before_fork{0};

ThreadPool& ThreadPool::instance() {
    static const bool created = [] {
        g_pool.store(new ThreadPool());  // never deleted, on purpose (see the class comment)
#if defined(__unix__) || defined(__APPLE__)
        // A fork() during a dispatch would copy a locked mutex into the child: forks wait for
        // the pool's lock, and the child starts a pool of its own (this one's threads did not
        // survive the fork).
        pthread_atfork([] { g_pool.load()->mutex_.lock(); }, [] { g_pool.load()->mutex_.unlock(); },
                       &ThreadPool::after_fork_in_child);
#endif
        return true;
    }();
    (void)created;
    return *g_pool.load();
}

#if defined(__unix__) || defined(__APPLE__)  // fork() is POSIX's
void ThreadPool::after_fork_in_child() {
    ThreadPool* old = g_pool.load();
    g_started_before_fork.fetch_add(old->started());
    // The old pool holds std::thread objects of threads that do not exist here: destroying them
    // would std::terminate, joining them is undefined. Its memory is abandoned (its mutex stays
    // locked by the fork).
    auto* pool = new ThreadPool();
    pool->abandoned_ = old;
    g_pool.store(pool);
}
#endif

}  // namespace

std::uint64_t worker_threads_started() {
    ThreadPool* pool = g_pool.load();
    return g_started_before_fork.load() + (pool != nullptr ? pool->started() : 0);
}

struct PooledJob::State {
    std::function<void()> job;
    ThreadPool::Call call;
};

PooledJob::PooledJob(std::function<void()> job) : state_(std::make_unique<State>()) {
    state_->job = std::move(job);
    state_->call.run = [](const void* context, int) {
        try {
            static_cast<const State*>(context)->job();
        } catch (...) {  // a job must not throw; if one does, nothing escapes the thread
        }
    };
    state_->call.context = state_.get();
    std::exception_ptr failure;
    ThreadPool::instance().dispatch(state_->call, 0, 1, failure);
    if (failure) std::rethrow_exception(failure);  // nothing was handed out
}

PooledJob::~PooledJob() { wait(); }

bool PooledJob::wait_for(std::chrono::milliseconds timeout) { return ThreadPool::instance().wait_for(state_->call, timeout); }

void PooledJob::wait() { ThreadPool::instance().wait(state_->call); }

void run_workers(int workers, StopSignal& stop, const std::function<void(int)>& work) {
    assert(workers >= 1 && workers <= kMaxThreads);
    std::mutex failure_mutex;
    std::exception_ptr failure;
    // Every worker, on whichever thread, runs inside this guard: nothing escapes a thread.
    const auto guard = [&](int index) {
        try {
            work(index);
        } catch (...) {
            stop.abort();
            const std::lock_guard<std::mutex> lock(failure_mutex);
            if (!failure) failure = std::current_exception();
        }
    };
    if (workers == 1) {
        guard(0);
        if (failure) std::rethrow_exception(failure);
        return;
    }
    using Guard = decltype(guard);
    ThreadPool& pool = ThreadPool::instance();
    ThreadPool::Call call;
    call.run = [](const void* context, int index) { (*static_cast<const Guard*>(context))(index); };
    call.context = &guard;
    std::exception_ptr start_failure;
    const int had = pool.dispatch(call, 1, workers - 1, start_failure);  // all, or none runs
    if (start_failure) stop.abort();
    if (!start_failure) guard(0);
    pool.wait(call);
    if (start_failure) {
        pool.release_idle();  // the system is at a limit: give the idle threads' stacks back
        std::string why;
        try {
            std::rethrow_exception(start_failure);
        } catch (const std::exception& e) {
            why = e.what();
        }
        throw ThreadStartError("could not start worker thread " + std::to_string(had + 2) + " of " +
                               std::to_string(workers) + " (" + why + "): use fewer threads");
    }
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
    // No job before every thread has set up its thread-local storage (touch_thread_locals()).
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return ready_ == static_cast<int>(threads_.size()); });
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
    touch_thread_locals();
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        ++ready_;
    }
    done_.notify_all();
    std::uint64_t seen = 0;
    for (;;) {
        const std::function<void(int)>* job;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            start_.wait(lock, [&] { return stopping_ || generation_ != seen; });
            if (stopping_) return;
            seen = generation_;
            // The calling thread ran this part already (this thread woke late): nothing to do.
            if (claimed_[static_cast<std::size_t>(index)]) continue;
            claimed_[static_cast<std::size_t>(index)] = 1;
            ++running_;
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
        claimed_.assign(static_cast<std::size_t>(size()), 0);
        claimed_[0] = 1;
        running_ = 0;
        failure_ = nullptr;
        ++generation_;
    }
    start_.notify_all();
    std::exception_ptr failure;
    const auto part = [&](int k) {
        try {
            work(k);
        } catch (...) {
            if (!failure) failure = std::current_exception();
        }
    };
    part(0);
    // The parts no thread has taken yet run here: a worker that the system has not scheduled (a
    // busy machine) would otherwise hold up the whole call, however little work is left.
    for (;;) {
        int k = -1;
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            for (int i = 1; i < size() && k < 0; ++i)
                if (!claimed_[static_cast<std::size_t>(i)]) {
                    claimed_[static_cast<std::size_t>(i)] = 1;
                    k = i;
                }
        }
        if (k < 0) break;
        part(k);
    }
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return running_ == 0; });
    job_ = nullptr;
    if (!failure) failure = failure_;
    lock.unlock();
    if (failure) std::rethrow_exception(failure);
}

}  // namespace SEQUENCE_ISA
}  // namespace sequence
