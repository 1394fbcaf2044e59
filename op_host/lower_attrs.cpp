#include "lower_attrs.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace actgrad {
namespace {

static_assert(std::numeric_limits<float>::is_iec559, "float(double) must round to nearest and overflow to inf");

// One call's attributes as the kernel sees them: float32, the type of every float attribute in the GE IR, so the
// twin and the NPU TilingFunc judge the same value (1e39 is inf, 1e-50 is 0). Messages also show the value as given
// when rounding changed it.
class Attrs {
public:
    Attrs(const std::string& op, const double* given) : op_(op), given_(given) {}

    float operator[](size_t i) const { return float(given_[i]); }
    bool IsSet(size_t i) const { return given_[i] != 0; }  // a bool attribute (0/1)

    [[noreturn]] void Reject(size_t i, const char* name, const std::string& expected) const {
        std::ostringstream os;
        os << op_ << ": attribute '" << name << "' = " << Shortest(given_[i]);
        if (double((*this)[i]) != given_[i] && !std::isnan(given_[i])) os << " (float32: " << Shortest((*this)[i]) << ")";
        os << " is invalid: expected " << expected;
        throw std::invalid_argument(os.str());
    }
    // the shortest text that reads back as the same value, so a message never shows two different values alike
    // (a loop rather than std::to_chars, which older host compilers of CANN toolchains lack for floating point)
    static std::string Shortest(double v) {
        char text[32];
        for (int digits = 1; digits <= 17; ++digits) {
            std::snprintf(text, sizeof(text), "%.*g", digits, v);
            if (std::strtod(text, nullptr) == v) break;
        }
        return text;
    }

private:
    const std::string& op_;
    const double* given_;
};

// The conditions of the spec's attribute checks (python/actgrad/spec.py: Attr.valid, OpSpec.rules)
bool IsNumber(float v) { return !std::isnan(v); }
bool IsFinite(float v) { return std::isfinite(v); }

struct AttrChecks {
    const char* type;
    size_t attrCount;
    void (*check)(const Attrs&);  // throws std::invalid_argument naming the first attribute that fails
};

#include "attr_checks.inc"

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

// The lowerings run on attributes that passed their checks.
void LowerHardtanhGrad(const Attrs& a, ElementwiseGradTiling& t) {
    // min_val > max_val is accepted and gives zeros (an empty band), as CANN and PyTorch do
    SetBand(t, a[0], a[1], 1.0f);
}

void LowerClampBackward(const Attrs& a, ElementwiseGradTiling& t) {
    SetBand(t, a[0], a[1], 1.0f);
}

void LowerHardsigmoidBackward(const Attrs& a, ElementwiseGradTiling& t) {
    // 0 < alpha*x + beta < 1 <=> x strictly between -beta/alpha and (1-beta)/alpha, decided in double
    const double alpha = a[0], beta = a[1];
    const double e0 = -beta / alpha, e1 = (1 - beta) / alpha;
    SetBand(t, FloatAtOrBelow(std::min(e0, e1)), FloatAtOrAbove(std::max(e0, e1)), a[0]);
}

void LowerEluBackward(const Attrs& a, ElementwiseGradTiling& t) {
    const bool useDst = a.IsSet(1);
    // ATen's opmath: the coefficients are floats and alpha*scale is a float product
    t.params[0] = useDst ? 1.0f : 0.0f;
    t.params[1] = a[0] * a[2];
    t.params[2] = a[2];
    t.params[3] = a[3];
    SetExpCoefficient(t, 4, a[3]);
}

void LowerSoftPlusBackward(const Attrs& a, ElementwiseGradTiling& t) {
    t.params[0] = a[0];
    t.params[1] = a[1];
    SetExpCoefficient(t, 2, -std::fabs(a[0]));  // the kernel takes exp(-|beta| * |x|)
}

// piecewise-linear rectifiers, shrinks and Abs

// The next float above v (v itself at +inf): x < FloatAfter(v) decides like x <= v.
float FloatAfter(float v) { return std::nextafter(v, std::numeric_limits<float>::infinity()); }
float FloatBefore(float v) { return std::nextafter(v, -std::numeric_limits<float>::infinity()); }

// StepGrad ops: params [lo, hi, lowCoef, midDivisor, midOffset, loF16, hiF16]: grad*lowCoef where x < lo, grad where
// x > hi, between them 0 (midDivisor 0) or grad*(x/midDivisor + midOffset); lo > hi leaves no middle. For an f16 x,
// x < lo exactly when x is below the smallest f16 >= lo, and x > hi when above the largest f16 <= hi.
void SetSteps(ElementwiseGradTiling& t, float lo, float hi, float lowCoef, float midDivisor = 0.0f,
              float midOffset = 0.0f) {
    t.params[0] = lo;
    t.params[1] = hi;
    t.params[2] = lowCoef;
    t.params[3] = midDivisor;
    t.params[4] = midOffset;
    t.params[5] = HalfAtOrAbove(lo);
    t.params[6] = HalfAtOrBelow(hi);
}

// grad where x > bound, else grad*lowCoef: lo just above bound leaves no middle (a bound of +inf leaves +inf alone
// there, a 0 like the low region of the only op that takes such a bound, ThresholdGradV2D)
void SetRectifier(ElementwiseGradTiling& t, float bound, float lowCoef) {
    SetSteps(t, FloatAfter(bound), bound, lowCoef);
}

void LowerReluBackward(const Attrs&, ElementwiseGradTiling& t) {
    // use_dst changes nothing: the forward output is > 0 exactly where the input is
    SetRectifier(t, 0.0f, 0.0f);
}

void LowerThresholdGradV2D(const Attrs& a, ElementwiseGradTiling& t) {
    SetRectifier(t, a[0], 0.0f);
}

void LowerLeakyReluGrad(const Attrs& a, ElementwiseGradTiling& t) {
    SetRectifier(t, 0.0f, a[0]);
}

void LowerHardSwishBackward(const Attrs&, ElementwiseGradTiling& t) {
    // PyTorch: 0 for x <= -3, grad*(x/3 + 0.5) for -3 < x < 3, grad for x >= 3
    SetSteps(t, FloatAfter(-3.0f), FloatBefore(3.0f), 0.0f, 3.0f, 0.5f);
}

// grad outside the closed band [-lambd, lambd]; a negative lambd leaves no band (lo > hi)
void SetShrink(ElementwiseGradTiling& t, float lambd) {
    SetSteps(t, -lambd, lambd, 1.0f);
}

void LowerSoftShrinkGrad(const Attrs& a, ElementwiseGradTiling& t) {
    SetShrink(t, a[0]);
}

void LowerHardShrinkGrad(const Attrs& a, ElementwiseGradTiling& t) {
    SetShrink(t, a[0]);
}

void LowerAbsBackward(const Attrs&, ElementwiseGradTiling& t) {
    SetSteps(t, 0.0f, 0.0f, -1.0f);  // -grad below 0, grad above, 0 at +-0
}

// the sigmoid/tanh family, SiLU, LogSigmoid, Softsign, Sqrt
void SetSigmoidFamily(ElementwiseGradTiling& t, SigmoidFamilyForm form, float k = 1.0f, float c = 1.0f) {
    t.params[0] = float(uint32_t(form));
    t.params[1] = k;
    t.params[2] = c;
}

void LowerSigmoidBackward(const Attrs& a, ElementwiseGradTiling& t) {
    SetSigmoidFamily(t, a.IsSet(0) ? SigmoidFamilyForm::kSigmoidOfDst : SigmoidFamilyForm::kLogisticOfSrc);
}

void LowerTanhBackward(const Attrs& a, ElementwiseGradTiling& t) {
    // 1 - tanh(x)^2 = 4*sigmoid'(2x): e = exp(-2|x|), c = 4
    SetSigmoidFamily(t, a.IsSet(0) ? SigmoidFamilyForm::kTanhOfDst : SigmoidFamilyForm::kLogisticOfSrc, 2.0f, 4.0f);
}

void LowerSiluGrad(const Attrs&, ElementwiseGradTiling& t) { SetSigmoidFamily(t, SigmoidFamilyForm::kSilu); }

void LowerLogSigmoidGrad(const Attrs&, ElementwiseGradTiling& t) { SetSigmoidFamily(t, SigmoidFamilyForm::kLogSigmoid); }

void LowerSoftsignGrad(const Attrs&, ElementwiseGradTiling& t) { t.params[0] = float(uint32_t(QuotientForm::kSoftsign)); }

void LowerSqrtBackward(const Attrs& a, ElementwiseGradTiling& t) {
    t.params[0] = float(uint32_t(a.IsSet(0) ? QuotientForm::kSqrtOfDst : QuotientForm::kSqrtOfSrc));
}

// the smooth gates: GELU, FastGelu, Mish
void LowerGeluBackward(const Attrs& a, ElementwiseGradTiling& t) {
    t.params[0] = a[0];  // the index of approximate: 0 "none" (erf), 1 "tanh"
}

void LowerFastGeluGrad(const Attrs&, ElementwiseGradTiling& t) {
    SetExpCoefficient(t, 0, -1.702f);  // the kernel takes exp(-1.702 * |x|)
}

void LowerMishBackward(const Attrs&, ElementwiseGradTiling&) {}

struct OpLowering {
    const char* type;
    void (*lower)(const Attrs&, ElementwiseGradTiling&);
};

// Lower<KnownAs> for every operator of the spec: one without its lowering above fails to compile here.
const OpLowering kLowerings[] = {
#define ACTGRAD_OP(OpType, kernel, Functor, KnownAs) {#OpType, Lower##KnownAs},
#include "op_registry.inc"
#undef ACTGRAD_OP
};

template <typename Entry, size_t N>
const Entry& Find(const Entry (&table)[N], const std::string& opType) {
    for (const Entry& e : table)
        if (opType == e.type) return e;
    throw std::invalid_argument("unknown actgrad operator '" + opType + "'");
}

}  // namespace

void LowerAttrs(const std::string& opType, const double* attrs, size_t count, ElementwiseGradTiling& tiling) {
    const AttrChecks& checks = Find(kAttrChecks, opType);
    if (count != checks.attrCount) {
        std::ostringstream os;
        os << opType << ": expected " << checks.attrCount << " attributes, got " << count;
        throw std::invalid_argument(os.str());
    }
    const Attrs a(opType, attrs);
    checks.check(a);
    Find(kLowerings, opType).lower(a, tiling);
}

FunctorNeeds FunctorNeedsOf(const std::string& opType) {
#define ACTGRAD_OP(OpType, kernel, Functor, KnownAs) \
    if (opType == #OpType) return k##Functor##Needs;
#include "op_registry.inc"
#undef ACTGRAD_OP
    throw std::invalid_argument("unknown actgrad operator '" + opType + "'");
}

}  // namespace actgrad
