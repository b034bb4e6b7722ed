#include "sequence/net.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>

#include "sequence/actions.hpp"
#include "sequence/observation.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

namespace {

// CRC-32 (the zlib polynomial, reflected), as Python's zlib.crc32 writes it.
std::uint32_t crc32(const std::uint8_t* data, std::size_t n) {
    std::uint32_t c = 0xFFFFFFFFu;
    for (std::size_t i = 0; i < n; ++i) {
        c ^= data[i];
        for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return c ^ 0xFFFFFFFFu;
}

// A dot product in eight running sums (the compiler keeps them in one vector register on the
// wider paths; the same order of additions on every path).
inline float dot(const float* a, const float* b, int n) {
    float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int j = 0;
    for (; j + 8 <= n; j += 8)
        for (int k = 0; k < 8; ++k) acc[k] += a[j + k] * b[j + k];
    float s = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
    for (; j < n; ++j) s += a[j] * b[j];
    return s;
}

std::uint32_t read_u32(const std::uint8_t* p) {
    return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
           static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
}

}  // namespace

namespace {

// The hidden sizes and the bytes a file with this header must have, from its first
// kNetHeaderBytes bytes alone: a header that claims any size is checked before anything is read
// or allocated for it. NetFormatError if the magic, version or shapes are not this core's.
struct NetHeader {
    std::uint32_t h1, h2;
    std::size_t need;
};

NetHeader parse_header(const std::uint8_t* data, std::size_t available) {
    if (available < static_cast<std::size_t>(kNetHeaderBytes) + 4 || std::memcmp(data, kNetMagic, 8) != 0)
        throw NetFormatError("not a sequence-game network weights file (bad magic or too short)");
    const std::uint32_t version = read_u32(data + 8), inputs = read_u32(data + 12), h1 = read_u32(data + 16),
                        h2 = read_u32(data + 20), actions = read_u32(data + 24), outs = read_u32(data + 28);
    if (version != kNetVersion)
        throw NetFormatError("weights format version " + std::to_string(version) + ", this core reads version " +
                             std::to_string(kNetVersion));
    if (inputs != static_cast<std::uint32_t>(kObservationSize) || actions != static_cast<std::uint32_t>(kActionCount) ||
        outs != static_cast<std::uint32_t>(kNetValueOutputs))
        throw NetFormatError("weights shapes " + std::to_string(inputs) + "/" + std::to_string(actions) + "/" +
                             std::to_string(outs) + " do not match the observation and action spaces (890/5253/3)");
    if (h1 < 1 || h1 > static_cast<std::uint32_t>(kNetMaxHidden) || h2 < 1 || h2 > static_cast<std::uint32_t>(kNetMaxHidden))
        throw NetFormatError("hidden sizes " + std::to_string(h1) + " and " + std::to_string(h2) +
                             " out of range 1.." + std::to_string(kNetMaxHidden));
    const std::size_t a = h1, b = h2;
    const std::size_t floats = kObservationSize * a + a + b * a + b + kActionCount * b + kActionCount +
                               kNetValueOutputs * b + kNetValueOutputs;
    return {h1, h2, kNetHeaderBytes + 4 * floats + 4};
}

void check_size(std::size_t size, std::size_t need) {
    if (size != need)
        throw NetFormatError("weights file of " + std::to_string(size) + " bytes, its header's shapes need " +
                             std::to_string(need));
}

}  // namespace

Net Net::from_bytes(const std::uint8_t* data, std::size_t size) {
    const NetHeader header = parse_header(data, size);
    check_size(size, header.need);
    Net net;
    net.h1_ = static_cast<int>(header.h1);
    net.h2_ = static_cast<int>(header.h2);
    const std::size_t a = header.h1, b = header.h2;
    std::vector<float>* arrays[] = {&net.w1t_, &net.b1_, &net.w2_, &net.b2_, &net.wp_, &net.bp_, &net.wv_, &net.bv_};
    const std::size_t sizes[] = {kObservationSize * a, a, b * a, b, kActionCount * b, kActionCount,
                                 kNetValueOutputs * b, kNetValueOutputs};
    if (crc32(data, size - 4) != read_u32(data + size - 4))
        throw NetFormatError("weights file checksum mismatch (the file is damaged)");
    const std::uint8_t* p = data + kNetHeaderBytes;
    for (int k = 0; k < 8; ++k) {
        std::vector<float>& v = *arrays[k];
        v.resize(sizes[k]);
        for (std::size_t i = 0; i < sizes[k]; ++i, p += 4) {  // little-endian, whatever the host
            const std::uint32_t bits = read_u32(p);
            float f;
            std::memcpy(&f, &bits, 4);
            if (!std::isfinite(f)) throw NetFormatError("weights file holds a non-finite number");
            v[i] = f;
        }
    }
    return net;
}

Net Net::from_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw NetFormatError("cannot open weights file " + path);
    // The header first, then the file's size against what the header needs (at most about 170 MB
    // at the largest hidden sizes): a wrong file of any size is refused after reading 68 bytes.
    std::uint8_t head[kNetHeaderBytes + 4] = {};
    in.read(reinterpret_cast<char*>(head), sizeof head);
    const auto got = static_cast<std::size_t>(in.gcount());
    const NetHeader header = parse_header(head, got);
    in.clear();
    in.seekg(0, std::ios::end);
    const std::streamoff end = in.tellg();
    if (end < 0) throw NetFormatError("cannot read weights file " + path + " (not a regular file)");
    check_size(static_cast<std::size_t>(end), header.need);
    std::vector<std::uint8_t> bytes(header.need);
    in.seekg(0, std::ios::beg);
    in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (static_cast<std::size_t>(in.gcount()) != bytes.size())
        throw NetFormatError("cannot read weights file " + path + " (it changed while being read)");
    return from_bytes(bytes.data(), bytes.size());
}

std::size_t Net::parameters() const {
    return w1t_.size() + b1_.size() + w2_.size() + b2_.size() + wp_.size() + bp_.size() + wv_.size() + bv_.size();
}

NetWorkspace Net::workspace() const {
    NetWorkspace ws;
    ws.h1.assign(static_cast<std::size_t>(h1_), 0.0f);
    ws.h2.assign(static_cast<std::size_t>(h2_), 0.0f);
    return ws;
}

void Net::evaluate(const float* obs, const int* actions, int n, float* logits, float value[kNetValueOutputs],
                   NetWorkspace& ws) const {
    float* h1 = ws.h1.data();
    float* h2 = ws.h2.data();
    const int a = h1_, b = h2_;
    std::copy(b1_.begin(), b1_.end(), h1);
    for (int i = 0; i < kObservationSize; ++i) {
        const float x = obs[i];
        if (x == 0.0f) continue;
        const float* row = w1t_.data() + static_cast<std::size_t>(i) * a;
        for (int j = 0; j < a; ++j) h1[j] += x * row[j];
    }
    for (int j = 0; j < a; ++j) h1[j] = h1[j] > 0.0f ? h1[j] : 0.0f;
    for (int k = 0; k < b; ++k) {
        const float s = dot(w2_.data() + static_cast<std::size_t>(k) * a, h1, a) + b2_[k];
        h2[k] = s > 0.0f ? s : 0.0f;
    }
    for (int i = 0; i < n; ++i) {
        const auto act = static_cast<std::size_t>(actions[i]);
        logits[i] = dot(wp_.data() + act * b, h2, b) + bp_[act];
    }
    const int teams = obs[kObsTeams] > 2.5f ? 3 : 2;
    float v[kNetValueOutputs];
    for (int t = 0; t < kNetValueOutputs; ++t) {
        v[t] = dot(wv_.data() + static_cast<std::size_t>(t) * b, h2, b) + bv_[t];
    }
    softmax(v, teams, value);
    for (int t = teams; t < kNetValueOutputs; ++t) value[t] = 0.0f;
}

void softmax(const float* logits, int n, float* probs) {
    if (n <= 0) return;
    float top = logits[0];
    for (int i = 1; i < n; ++i) top = std::max(top, logits[i]);
    float sum = 0.0f;
    for (int i = 0; i < n; ++i) {
        probs[i] = std::exp(logits[i] - top);
        sum += probs[i];
    }
    for (int i = 0; i < n; ++i) probs[i] /= sum;
}

}  // namespace SEQUENCE_ISA
}  // namespace sequence
