// The learned player's policy-value network (docs/research/learned-player.md), evaluated in the
// core: float32, weights from the file the trainer exports (python/sequence_game/netfile.py has
// the layout), no allocation per evaluation (the caller keeps a NetWorkspace).
//
//   h1 = relu(W1 obs + b1)      obs: the observation tensor of the seat to move (observation.hpp),
//   h2 = relu(W2 h1 + b2)            R9 by construction; W1 has the observation scale folded in
//   logit[a] = Wp[a] . h2 + bp[a]    only for the actions asked for (the legal ones)
//   value = softmax((Wv h2 + bv)[0 .. teams))   win probability per relative team
//
// The first layer is computed from the non-zero inputs only (most of the 890 are 0).
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "sequence/isa.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

// A weights file that cannot be read: what is wrong, in one line.
class NetFormatError : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

constexpr char kNetMagic[8] = {'S', 'Q', 'N', 'E', 'T', '\0', '\r', '\n'};
constexpr std::uint32_t kNetVersion = 1;
constexpr int kNetHeaderBytes = 64;
constexpr int kNetValueOutputs = 3;
constexpr int kNetMaxHidden = 4096;

struct NetWorkspace {
    std::vector<float> h1, h2;
};

class Net {
public:
    // Parses a weights file's bytes; NetFormatError if the magic, version, shapes, size or
    // checksum disagree, or a weight is not finite.
    static Net from_bytes(const std::uint8_t* data, std::size_t size);
    static Net from_file(const std::string& path);

    int hidden1() const { return h1_; }
    int hidden2() const { return h2_; }
    std::size_t parameters() const;
    // A workspace sized for this network (the only allocation; reuse it across evaluations).
    NetWorkspace workspace() const;

    // Evaluates one observation (kObservationSize floats): logits[i] of actions[i] for i < n
    // (each in 0 .. kActionCount-1), and value[0 .. 3) the win probability of relative team 0, 1,
    // 2 (observation.hpp: the observer's team first; 0 for a team the game lacks). No allocation.
    void evaluate(const float* obs, const int* actions, int n, float* logits, float value[kNetValueOutputs],
                  NetWorkspace& ws) const;

private:
    int h1_ = 0, h2_ = 0;
    std::vector<float> w1t_, b1_, w2_, b2_, wp_, bp_, wv_, bv_;
};

// probs[i] = softmax(logits)[i] for i < n, in place-safe (probs may equal logits).
void softmax(const float* logits, int n, float* probs);

}  // namespace SEQUENCE_ISA
}  // namespace sequence
