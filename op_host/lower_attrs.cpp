#include "lower_attrs.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace actgrad {
namespace {

[[noreturn]] void Reject(const std::string& op, const char* attr, double value, const char* expected) {
    std::ostringstream os;
    os << op << ": attribute '" << attr << "' = " << value << " is invalid: expected " << expected;
    throw std::invalid_argument(os.str());
}

void RequireNotNan(const std::string& op, const char* attr, double v) {
    if (std::isnan(v)) Reject(op, attr, v, "a number, not NaN");
}
void RequireFinite(const std::string& op, const char* attr, double v) {
    if (!std::isfinite(v)) Reject(op, attr, v, "a finite number");
}

// Largest float <= v and smallest float >= v: an f32 compare against them decides exactly like one against v.
float FloatAtOrBelow(double v) {
    float f = float(v);
    if (double(f) > v) f = std::nextafter(f, -std::numeric_limits<float>::infinity());
    return f;
}
float FloatAtOrAbove(double v) {
    float f = float(v);
    if (double(f) < v) f = std::nextafter(f, std::numeric_limits<float>::infinity());
    return f;
}

// The largest f16 value <= v, as a float (-inf below -65504): f16 spacing is 2^(e-11) for |v| in [2^(e-1), 2^e),
// and 2^-24 among the subnormals.
float HalfAtOrBelow(float v) {
    if (std::isnan(v) || std::isinf(v)) return v;
    if (v > 65504.0f) return 65504.0f;
    if (v < -65504.0f) return -std::numeric_limits<float>::infinity();
    int e = 0;
    std::frexp(v, &e);
    const double spacing = std::ldexp(1.0, std::max(e - 11, -24));
    return float(std::floor(double(v) / spacing) * spacing);
}
float HalfAtOrAbove(float v) { return -HalfAtOrBelow(-v); }

// A coefficient c of exp(c*x) split for the kernel's ExpOfProduct, at params[at..at+2] = hi, lo, xScale. xScale 0:
// c*x is exact (c a power of two or 0) or c is not finite, nothing to correct. For |c| < 2^-90, x can be near the f32
// limit while c*x is still in exp's range, so the kernel scales x by 2^-13 before splitting it (x*4097 would
// overflow) and c is split as c*2^13. hi keeps the top 12 significand bits, lo = the rest (exact).
void SetExpCoefficient(ElementwiseGradTiling& t, uint32_t at, float c) {
    uint32_t bits = 0;
    std::memcpy(&bits, &c, sizeof(bits));
    if (c == 0.0f || !std::isfinite(c) || (bits & 0x007FFFFFu) == 0) {
        t.params[at] = c;
        t.params[at + 1] = 0.0f;
        t.params[at + 2] = 0.0f;
        return;
    }
    const float xScale = std::fabs(c) < std::ldexp(1.0f, -90) ? std::ldexp(1.0f, -13) : 1.0f;
    const float scaled = c / xScale;  // exact: a power of two
    std::memcpy(&bits, &scaled, sizeof(bits));
    const uint32_t hiBits = bits & 0xFFFFF000u;
    float hi = 0.0f;
    std::memcpy(&hi, &hiBits, sizeof(hi));
    t.params[at] = hi;
    t.params[at + 1] = scaled - hi;
    t.params[at + 2] = xScale;
}

// Band ops: params [lo, hi, scale, loF16, hiF16], grad*scale where lo < x < hi. For an f16 x, x > lo exactly when x
// is above the largest f16 <= lo (and x < hi when below the smallest f16 >= hi), so the f16 kernel compares in f16.
void SetBand(ElementwiseGradTiling& t, float lo, float hi, float scale) {
    t.params[0] = lo;
    t.params[1] = hi;
    t.params[2] = scale;
    t.params[3] = HalfAtOrBelow(lo);
    t.params[4] = HalfAtOrAbove(hi);
}

void LowerHardtanhGrad(const std::string& op, const double* a, ElementwiseGradTiling& t) {
    RequireNotNan(op, "min_val", a[0]);
    RequireNotNan(op, "max_val", a[1]);
    // min_val > max_val is accepted and gives zeros (an empty band), as CANN and PyTorch do
    SetBand(t, float(a[0]), float(a[1]), 1.0f);
}

void LowerClampBackward(const std::string& op, const double* a, ElementwiseGradTiling& t) {
    RequireNotNan(op, "min", a[0]);
    RequireNotNan(op, "max", a[1]);
    if (a[0] > a[1]) Reject(op, "min", a[0], "min <= max");
    SetBand(t, float(a[0]), float(a[1]), 1.0f);
}

void LowerHardsigmoidBackward(const std::string& op, const double* a, ElementwiseGradTiling& t) {
    const double alpha = a[0], beta = a[1];
    RequireFinite(op, "alpha", alpha);
    RequireFinite(op, "beta", beta);
    if (alpha == 0) Reject(op, "alpha", alpha, "a non-zero slope");
    // 0 < alpha*x + beta < 1 <=> x strictly between -beta/alpha and (1-beta)/alpha, decided in double
    const double e0 = -beta / alpha, e1 = (1 - beta) / alpha;
    SetBand(t, FloatAtOrBelow(std::min(e0, e1)), FloatAtOrAbove(std::max(e0, e1)), float(alpha));
}

void LowerEluBackward(const std::string& op, const double* a, ElementwiseGradTiling& t) {
    const double alpha = a[0], useDst = a[1], scale = a[2], inputScale = a[3];
    RequireNotNan(op, "alpha", alpha);
    RequireNotNan(op, "scale", scale);
    RequireNotNan(op, "input_scale", inputScale);
    if (useDst != 0 && alpha < 0) Reject(op, "alpha", alpha, "alpha >= 0 when use_dst is true (the forward output cannot be inverted)");
    // ATen's opmath: the coefficients are floats and alpha*scale is a float product
    t.params[0] = useDst != 0 ? 1.0f : 0.0f;
    t.params[1] = float(alpha) * float(scale);
    t.params[2] = float(scale);
    t.params[3] = float(inputScale);
    SetExpCoefficient(t, 4, float(inputScale));
}

void LowerSoftPlusBackward(const std::string& op, const double* a, ElementwiseGradTiling& t) {
    RequireFinite(op, "beta", a[0]);
    RequireNotNan(op, "threshold", a[1]);
    t.params[0] = float(a[0]);
    t.params[1] = float(a[1]);
    SetExpCoefficient(t, 2, -std::fabs(float(a[0])));  // the kernel takes exp(-|beta| * |x|)
}

struct OpLowering {
    const char* type;
    size_t attrCount;
    void (*lower)(const std::string&, const double*, ElementwiseGradTiling&);
};

const OpLowering kLowerings[] = {
    {"HardtanhGrad", 2, LowerHardtanhGrad},
    {"HardsigmoidBackward", 2, LowerHardsigmoidBackward},
    {"ClampBackward", 3, LowerClampBackward},
    {"EluBackward", 4, LowerEluBackward},
    {"SoftPlusBackward", 2, LowerSoftPlusBackward},
};

const OpLowering& Find(const std::string& opType) {
    for (const auto& l : kLowerings)
        if (opType == l.type) return l;
    throw std::invalid_argument("unknown actgrad operator '" + opType + "'");
}

}  // namespace

void LowerAttrs(const std::string& opType, const double* attrs, size_t count, ElementwiseGradTiling& tiling) {
    const OpLowering& l = Find(opType);
    if (count != l.attrCount) {
        std::ostringstream os;
        os << opType << ": expected " << l.attrCount << " attributes, got " << count;
        throw std::invalid_argument(os.str());
    }
    l.lower(opType, attrs, tiling);
}

FunctorNeeds FunctorNeedsOf(const std::string& opType) {
#define ACTGRAD_OP(OpType, name, Functor) \
    if (opType == #OpType) return k##Functor##Needs;
#include "op_registry.inc"
#undef ACTGRAD_OP
    throw std::invalid_argument("unknown actgrad operator '" + opType + "'");
}

}  // namespace actgrad
