// Every misuse the twin detects is a SimError naming the kernel, the block, the API and the offending values.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>

namespace actgrad_sim {

enum class ErrorKind {
    UbOverflow,        // InitBuffer beyond the SoC's UB or more than 64 buffers
    QueueProtocol,     // TQue state machine violated
    UseAfterFree,      // a LocalTensor used after FreeTensor / TPipe::Reset
    MissingSync,       // data moved between pipes without EnQue/DeQue or SetFlag/WaitFlag
    Alignment,         // 32-byte rules of DataCopy and vector operands
    OutOfBounds,       // LocalTensor / GlobalTensor / GM allocation bounds
    GmWriteConflict,   // two blocks wrote the same GM bytes in one launch
    InvalidArgument,   // counts, pads, strides, positions, modes
    Overlap,           // partial src/dst overlap
    Unsupported,       // dtype, Cast pair, round mode or API the SoC lacks
    Launch,            // launcher misuse
};

inline const char* ErrorKindName(ErrorKind k) {
    switch (k) {
        case ErrorKind::UbOverflow: return "UB overflow";
        case ErrorKind::QueueProtocol: return "queue protocol";
        case ErrorKind::UseAfterFree: return "use after free";
        case ErrorKind::MissingSync: return "missing synchronisation";
        case ErrorKind::Alignment: return "alignment";
        case ErrorKind::OutOfBounds: return "out of bounds";
        case ErrorKind::GmWriteConflict: return "GM write conflict";
        case ErrorKind::InvalidArgument: return "invalid argument";
        case ErrorKind::Overlap: return "overlap";
        case ErrorKind::Unsupported: return "unsupported";
        case ErrorKind::Launch: return "launch";
    }
    return "?";
}

class SimError : public std::runtime_error {
public:
    SimError(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
    ErrorKind kind() const { return kind_; }

private:
    ErrorKind kind_;
};

// Where the error happened; filled in by the launcher's block context.
inline std::string CurrentLocation();

template <typename... Parts>
[[noreturn]] void Fail(ErrorKind kind, const char* api, const Parts&... parts) {
    std::ostringstream os;
    os << "[actgrad-sim] " << CurrentLocation() << ": " << api << ": ";
    (os << ... << parts);
    os << " (" << ErrorKindName(kind) << ")";
    throw SimError(kind, os.str());
}

}  // namespace actgrad_sim
