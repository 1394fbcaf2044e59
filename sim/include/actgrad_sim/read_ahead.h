// Read-ahead of GM inputs. On the NPU, MTE2 copies the next tile into UB while the vector unit computes the current
// one: that overlap is what a double-buffered kernel is written for. The twin runs both on one thread, so each copy
// from GM would wait for memory while the vector loops wait for nothing. Instead every contiguous copy from GM
// predicts that its stream goes on right after it with the same size (the next tile of a streaming kernel), and the
// AVX2 vector loops ask for those bytes as they run: one cache line per stream every kReadAheadStride elements.
// Spread that thin, the requests overlap the arithmetic; asking for a whole tile at the start of each instruction
// keeps the loops' own loads waiting and was measured no faster. A cache hint only: no result depends on it.
#pragma once
#include <cstdint>

namespace actgrad_sim {

constexpr uint32_t kReadAheadStride = 128;  // elements a vector loop handles per requested line and stream
constexpr uint32_t kReadAheadStreams = 4;   // GM inputs followed at once (the most recently copied)
constexpr uint32_t kCacheLine = 64;

class ReadAhead {
public:
    // A copy from GM of [src, src + bytes): it continues the stream that predicted it (or repeats the copy that did),
    // or takes the place of the least recently copied one.
    void NoteGmRead(const void* src, uint64_t bytes) {
        const uintptr_t s = reinterpret_cast<uintptr_t>(src);  // an address, not a pointer: it runs past the copy
        Stream* slot = &streams_[0];
        for (Stream& st : streams_) {
            if (st.start == s || st.start == s + bytes) {
                slot = &st;
                break;
            }
            if (st.lastCopy < slot->lastCopy) slot = &st;
        }
        *slot = Stream{s + bytes, s + bytes, s + 2 * bytes, ++copies_};
    }
    // The vector loops' request: one line of each stream that still has lines to ask for.
    void Step() {
        for (Stream& st : streams_) {
            if (st.next < st.end) {
                __builtin_prefetch(reinterpret_cast<const void*>(st.next), 0, 1);
                st.next += kCacheLine;
            }
        }
    }
    // Bytes not yet asked for of the stream predicted to start at `start` (0 if none is).
    uint64_t PendingBytes(const void* start) const {
        for (const Stream& st : streams_) {
            if (st.start == reinterpret_cast<uintptr_t>(start) && st.next < st.end) return st.end - st.next;
        }
        return 0;
    }

private:
    struct Stream {
        uintptr_t start = 0;  // where the predicted copy begins
        uintptr_t next = 0;   // the first line not asked for yet
        uintptr_t end = 0;
        uint64_t lastCopy = 0;  // ordinal of the copy that made the prediction
    };
    Stream streams_[kReadAheadStreams];
    uint64_t copies_ = 0;
};

}  // namespace actgrad_sim
