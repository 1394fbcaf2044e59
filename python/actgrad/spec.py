"""The one table every actgrad operator is declared in.

Everything else derives from it: the torch schemas (registered at import), the GE IR prototypes
(framework/actgrad_ops_proto.h), the CANN OpDef (op_host/actgrad_op_def.cpp), the kernel entry points
(op_kernel/<op>.cpp), the twin's operator registry (op_host/op_registry.inc) and the operator table in
README.md. `python scripts/gen_ops.py` rewrites the checked-in files; tests/test_generated.py fails when
one of them is stale.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import cached_property

DTYPES = ("float32", "float16", "bfloat16")
FAMILIES = ("elementwise", "row")
MAX_RANK = 8

# Every name this package registers with CANN carries this prefix: OpType ActgradHardtanhGrad, aclnn API
# aclnnActgradHardtanhGrad, kernel entry actgrad_hardtanh_grad. CANN's built-in libraries already use the plain names
# (HardtanhGrad is a built-in GE OpType, aclnnEluBackward a built-in aclnn API), and a custom package that registers
# one of them shadows the built-in for every graph and every torch_npu call in the process
# (tests/test_unique_names.py holds the names against CANN's lists).
OP_TYPE_PREFIX = "Actgrad"


def snake(pascal: str) -> str:
    """Ascend C's file/kernel naming rule (msOpGen): HardtanhGrad -> hardtanh_grad."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", pascal).lower()


# What a float attribute must be (Attr.valid), judged as float32 like the IR: a C++ condition and the error's
# "expected ..." text.
VALUE_CHECKS = {
    "number": ("IsNumber({name})", "a number, not NaN"),
    "finite": ("IsFinite({name})", "a finite float32 number"),
}


@dataclass(frozen=True)
class Attr:
    name: str
    type: str  # "float", "bool", "str" (one of `choices`) or "int" (a row operator's axis): no Scalar (op-semantics A.1)
    default: float | bool | str | int | None  # None = required
    doc: str
    valid: str = ""  # float attributes: a VALUE_CHECKS key
    # str attributes: the values torch takes, and the IR's spelling of each (same order) when the IR attribute has
    # its own name and values (GELU: torch's approximate "none"/"tanh" is oneDNN's mode "gelu_erf"/"gelu_tanh").
    # The C++ side (twin, TilingFunc) receives the index of the value in `choices`.
    choices: tuple[str, ...] = ()
    ir_name: str = ""
    ir_choices: tuple[str, ...] = ()

    def __post_init__(self):
        if self.type == "str":
            assert self.choices and len(self.ir_choices or self.choices) == len(self.choices), self.name
            assert self.default is None or self.default in self.choices, self.name
        else:
            assert not (self.choices or self.ir_choices), self.name

    @property
    def required(self) -> bool:
        return self.default is None

    @property
    def ir(self) -> str:
        """The attribute's name in the GE IR (REG_OP, OpDef, torchair)."""
        return self.ir_name or self.name

    @property
    def ir_values(self) -> tuple[str, ...]:
        """A str attribute's values in the IR's spelling, in the order of `choices`."""
        return self.ir_choices or self.choices

    def ir_value(self, choice: str) -> str:
        """A str attribute's value in the IR's spelling."""
        return self.ir_values[self.choices.index(choice)]

    def choice(self, ir_value: str) -> str:
        """The torch value of a str attribute's IR value (the inverse of ir_value)."""
        return self.choices[self.ir_values.index(ir_value)]


@dataclass(frozen=True)
class Rule:
    """A condition the attributes must meet (op-semantics A.3), checked on the host before any launch, by the twin and
    the CANN TilingFunc alike (op_host/lower_attrs.cpp runs the generated op_host/attr_checks.inc).

    holds: a C++ expression over attribute names (float attributes as their float32 values, bools as bool; IsNumber
    and IsFinite are available); attr: the attribute the error names; expected: the error's "expected ..." text;
    shows: attributes whose float32 values the message adds, in parentheses."""
    holds: str
    attr: str
    expected: str
    shows: tuple[str, ...] = ()


@dataclass(frozen=True)
class OpSpec:
    known_as: str  # PascalCase name of the operation in oneDNN Graph / CANN; the op's names derive from it
    inputs: tuple[str, str]  # IR order
    saved: str  # which input holds the forward tensor the derivative is evaluated at
    output: str
    attrs: tuple[Attr, ...]
    functor: str  # compute functor in op_kernel/functors/, shared by ops with the same math
    forward_tensor: str  # what the saved input is: forward input, output, or either (use_dst)
    formula: str  # one line, for the docs
    origin: str
    cann_builtin: str  # the CANN built-in aclnn API computing the same gradient, or "-"
    divergences: str
    rules: tuple[Rule, ...] = ()  # beyond each attribute's own `valid`
    # the input ATen's counterpart lists first in its TensorIterator ("grad" or "saved"): its layout decides the
    # functional result's strides first (threshold_backward and leaky_relu_backward take (self, grad))
    layout_first: str = "grad"
    dtypes: tuple[str, ...] = DTYPES
    # the kernel family: "elementwise" (op_kernel/elementwise_grad.h: out = f(saved, grad) element by element) or
    # "row" (op_kernel/row_grad.h: a reduction along the `axis` attribute, then an elementwise step)
    family: str = "elementwise"

    def __post_init__(self):
        assert self.family in FAMILIES, self.known_as
        if self.family == "row":  # the axis is the row family's one attribute (op_host/row_tiling.cpp reads it)
            assert [(a.name, a.type) for a in self.attrs] == [("axis", "int")], self.known_as

    @cached_property  # read on every call of the op
    def name(self) -> str:
        """torch op / Python function name: snake_case of known_as (hardtanh_grad)."""
        return snake(self.known_as)

    @property
    def op_type(self) -> str:
        """The GE OpType registered with CANN (ActgradHardtanhGrad); also the op's key in the twin."""
        return OP_TYPE_PREFIX + self.known_as

    @property
    def aclnn_api(self) -> str:
        """The aclnn API CANN generates from the OpDef (aclnn<OpType>)."""
        return f"aclnn{self.op_type}"

    @property
    def kernel_name(self) -> str:
        """The kernel entry symbol and op_kernel/<kernel_name>.cpp: snake_case of the OpType (msOpGen's rule)."""
        return snake(self.op_type)

    @property
    def grad(self) -> str:
        return self.inputs[1] if self.saved == self.inputs[0] else self.inputs[0]

    @property
    def saved_index(self) -> int:
        return self.inputs.index(self.saved)

    @property
    def layout_first_index(self) -> int:
        """IR index of the input whose layout decides the functional result's strides first (layout_first)."""
        return self.saved_index if self.layout_first == "saved" else 1 - self.saved_index

    @property
    def checks(self) -> tuple[Rule, ...]:
        """Every attribute check in the order they run: each attribute's own value check, then the op's rules."""
        own = tuple(Rule(VALUE_CHECKS[a.valid][0].format(name=a.name), a.name, VALUE_CHECKS[a.valid][1])
                    for a in self.attrs if a.valid)
        return own + self.rules


# The five founding operators.
FOUNDING: tuple[OpSpec, ...] = (
    OpSpec(
        known_as="HardtanhGrad",
        inputs=("result", "grad"),
        saved="result",
        output="y",
        attrs=(Attr("min_val", "float", -1.0, "lower bound (exclusive)", valid="number"),
               Attr("max_val", "float", 1.0, "upper bound (exclusive)", valid="number")),
        functor="BandGrad",
        forward_tensor="forward input (or output: the strict test gives the same answer)",
        formula="y = grad if min_val < result < max_val else 0",
        origin="CANN HardtanhGrad / aclnnHardtanhBackward",
        cann_builtin="aclnnHardtanhBackward",
        divergences="NaN in result or grad gives NaN (PyTorch: grad or 0 depending on position; CANN: grad). "
                    "min_val > max_val is accepted and gives zeros.",
    ),
    OpSpec(
        known_as="HardsigmoidBackward",
        inputs=("grad_output", "self"),
        saved="self",
        output="out",
        attrs=(Attr("alpha", "float", 1.0 / 6.0, "slope", valid="finite"),
               Attr("beta", "float", 0.5, "offset", valid="finite")),
        rules=(Rule("alpha != 0.0f", "alpha", "a non-zero slope"),),
        functor="BandGrad",
        forward_tensor="forward input",
        formula="out = grad_output*alpha if 0 < alpha*self + beta < 1 else 0 (band bounds computed in double)",
        origin="aclnnHardsigmoidBackward, alpha/beta as oneDNN HardSigmoidBackward",
        cann_builtin="aclnnHardsigmoidBackward",
        divergences="The band is decided on self against -beta/alpha and (1-beta)/alpha computed in double from the "
                    "float32 attributes, so the defaults switch exactly at +-3 (oneDNN's f32 alpha*s+beta test differs "
                    "at s = 2.9999998). "
                    "NaN gives NaN (PyTorch and CANN: 0; oneDNN: grad*alpha).",
    ),
    OpSpec(
        known_as="ClampBackward",
        inputs=("src_or_dst", "diff_dst"),
        saved="src_or_dst",
        output="diff_src",
        attrs=(Attr("min", "float", None, "lower bound (exclusive)", valid="number"),
               Attr("max", "float", None, "upper bound (exclusive)", valid="number"),
               Attr("use_dst", "bool", True, "src_or_dst is the forward output")),
        rules=(Rule("min <= max", "min", "min <= max", shows=("max",)),),
        functor="BandGrad",
        forward_tensor="forward output (use_dst=true) or input",
        formula="diff_src = diff_dst if min < src_or_dst < max else 0",
        origin="oneDNN Graph ClampBackward",
        cann_builtin="-",
        divergences="Select semantics: an infinite diff_dst outside the band gives 0 (oneDNN: NaN). NaN gives NaN "
                    "(oneDNN ref: 0). Both bounds exclusive, as oneDNN clip_v2 and PyTorch 2.13 hardtanh.",
    ),
    OpSpec(
        known_as="EluBackward",
        inputs=("src_or_dst", "diff_dst"),
        saved="src_or_dst",
        output="diff_src",
        attrs=(Attr("alpha", "float", None, "negative-branch coefficient", valid="number"),
               Attr("use_dst", "bool", True, "src_or_dst is the forward output"),
               Attr("scale", "float", 1.0, "ATen's scale (SELU)", valid="number"),
               Attr("input_scale", "float", 1.0, "ATen's input_scale (CELU)", valid="number")),
        # 0 * inf would make the negative branch's coefficient NaN
        rules=(Rule("IsNumber(alpha * scale)", "alpha", "alpha * scale to be a number (0 times inf is not)"),
               Rule("!use_dst || alpha >= 0.0f", "alpha",
                    "alpha >= 0 when use_dst is true (the forward output cannot be inverted)")),
        functor="EluGrad",
        forward_tensor="forward output (use_dst=true) or input",
        formula="x <= 0: diff_dst*input_scale*(x + alpha*scale) (dst) or "
                "diff_dst*input_scale*alpha*scale*exp(x*input_scale) (src); else diff_dst*scale",
        origin="oneDNN Graph EluBackward, extended with ATen's scale/input_scale",
        cann_builtin="aclnnEluBackward",
        divergences="x = 0 takes the negative branch (as ATen and oneDNN). NaN gives NaN (ATen scalar path: grad*scale). "
                    "exp(x*input_scale) does not inherit the rounding of the f32 product x*input_scale (ATen's f32 "
                    "kernel does: up to about |x*input_scale| ulp). An infinite diff_dst where the f32 derivative is "
                    "exactly 0 (x + alpha*scale = 0, exp underflowed, a zero coefficient) gives 0 (ATen, oneDNN: NaN).",
    ),
    OpSpec(
        known_as="SoftPlusBackward",
        inputs=("src", "diff_dst"),
        saved="src",
        output="diff_src",
        attrs=(Attr("beta", "float", 1.0, "softplus beta", valid="finite"),
               Attr("threshold", "float", math.inf, "beta*src > threshold passes diff_dst through", valid="number")),
        functor="SoftplusGrad",
        forward_tensor="forward input",
        formula="diff_src = diff_dst if beta*src > threshold else diff_dst*sigmoid(beta*src)",
        origin="oneDNN Graph SoftPlusBackward, extended with ATen's threshold",
        cann_builtin="aclnnSoftplusBackward",
        divergences="Default threshold is +inf (oneDNN has none; ATen's softplus uses 20). sigmoid is evaluated in "
                    "the stable form, so far-negative inputs give the f32 value (oneDNN: exact 0 below -88.72). "
                    "sigmoid(beta*src) does not inherit the rounding of the f32 product beta*src (ATen's and oneDNN's "
                    "f32 kernels do: up to about |beta*src| ulp). An infinite diff_dst where the f32 sigmoid is 0 gives 0 "
                    "(ATen, oneDNN: NaN).",
    ),
)

# The rest of the elementwise family, by math: piecewise-linear rectifiers, shrinks and Abs (bit-exact, select
# semantics); the sigmoid/tanh family with SiLU, LogSigmoid, Softsign and Sqrt; the smooth gates GELU, FastGelu and Mish.
# OpTypes spell acronyms as words (ReluBackward, GeluBackward): CANN derives the kernel's file name from the OpType by
# two rules (ascendc_impl_build.py optype_snake and optype_snake_ex) that disagree on runs of capitals.
PIECEWISE_LINEAR: tuple[OpSpec, ...] = (
    OpSpec(
        known_as="ReluBackward",
        inputs=("src_or_dst", "diff_dst"),
        saved="src_or_dst",
        output="diff_src",
        attrs=(Attr("use_dst", "bool", True, "src_or_dst is the forward output (the same test decides either)"),),
        functor="StepGrad",
        forward_tensor="forward output (use_dst=true) or input",
        formula="diff_src = diff_dst if src_or_dst > 0 else 0",
        origin="oneDNN Graph ReLUBackward (alpha 0)",
        cann_builtin="aclnnThresholdBackward",
        divergences="NaN in src_or_dst or diff_dst gives NaN (PyTorch: grad; oneDNN ref: 0). An infinite diff_dst "
                    "where src_or_dst <= 0 gives 0 (oneDNN and CANN ReluGrad multiply: NaN).",
        layout_first="saved",  # ATen: threshold_backward / leaky_relu_backward iterate (self, grad)
    ),
    OpSpec(
        known_as="ThresholdGradV2D",
        inputs=("gradients", "features"),
        saved="features",
        output="backprops",
        attrs=(Attr("threshold", "float", None, "features <= threshold gives 0", valid="number"),),
        functor="StepGrad",
        forward_tensor="forward input",
        formula="backprops = gradients if features > threshold else 0",
        origin="CANN ThresholdGradV2D (PyTorch threshold_backward)",
        cann_builtin="aclnnThresholdBackward",
        divergences="NaN in features or gradients gives NaN (PyTorch and CANN: gradients for a NaN feature). threshold "
                    "is float32 and compared in float32 for every dtype (as PyTorch's opmath).",
        layout_first="saved",  # ATen: threshold_backward / leaky_relu_backward iterate (self, grad)
    ),
    OpSpec(
        known_as="LeakyReluGrad",
        inputs=("gradients", "features"),
        saved="features",
        output="backprops",
        attrs=(Attr("negative_slope", "float", 0.0, "slope for features <= 0", valid="number"),),
        functor="StepGrad",
        forward_tensor="forward input (or output when negative_slope >= 0: the sign test gives the same answer)",
        formula="backprops = gradients if features > 0 else gradients*negative_slope",
        origin="CANN LeakyReluGrad (PyTorch leaky_relu_backward)",
        cann_builtin="aclnnLeakyReluBackward",
        divergences="NaN in features gives NaN (PyTorch and CANN: gradients*negative_slope). With negative_slope 0 an "
                    "infinite gradient where features <= 0 gives 0 (PyTorch, CANN: NaN). A negative slope is accepted "
                    "(the forward output cannot be inverted then: actgrad.aten.leaky_relu_backward refuses "
                    "self_is_result=True with it, as ATen does).",
        layout_first="saved",  # ATen: threshold_backward / leaky_relu_backward iterate (self, grad)
    ),
    OpSpec(
        known_as="HardSwishBackward",
        inputs=("src", "diff_dst"),
        saved="src",
        output="diff_src",
        attrs=(),
        functor="StepGrad",
        forward_tensor="forward input",
        formula="diff_src = 0 if src <= -3, diff_dst*(src/3 + 0.5) if -3 < src < 3, diff_dst if src >= 3",
        origin="oneDNN Graph HardSwishBackward (PyTorch hardswish_backward's form)",
        cann_builtin="aclnnHardswishBackwardV2",
        divergences="src/3 is a float32 division, as PyTorch (oneDNN and CANN multiply by 0.33333334f: up to 1 ulp "
                    "apart). The linear branch is the open interval (-3, 3), as PyTorch 2.13 and CANN "
                    "HardSwishGradV2 (oneDNN decides on src/6 + 0.5 in float32: saturated at 2.9999998; "
                    "aclnnHardswishBackward (V1) and PyTorch before 2.7: linear on [-3, 3]). NaN gives NaN (PyTorch "
                    "scalar path and CANN: diff_dst). An infinite diff_dst at src <= -3 or src = -1.5 (a zero "
                    "derivative) gives 0.",
    ),
    OpSpec(
        known_as="SoftShrinkGrad",
        inputs=("input_grad", "input_x"),
        saved="input_x",
        output="output_y",
        attrs=(Attr("lambd", "float", 0.5, "half-width of the closed zero band [-lambd, lambd]", valid="number"),),
        functor="StepGrad",
        forward_tensor="forward input",
        formula="output_y = 0 if -lambd <= input_x <= lambd else input_grad",
        origin="CANN SoftShrinkGrad (PyTorch softshrink_backward)",
        cann_builtin="aclnnSoftshrinkBackward",
        divergences="lambd is float32 for every dtype (PyTorch rounds it to the tensor's dtype: a bf16/f16 lambd such "
                    "as 0.3 moves the band edge). A negative lambd is accepted and passes input_grad everywhere, as "
                    "PyTorch (CANN refuses it). NaN gives NaN (PyTorch: input_grad or 0 by position; CANN: "
                    "input_grad). An infinite input_grad inside the band gives 0.",
    ),
    OpSpec(
        known_as="HardShrinkGrad",
        inputs=("gradients", "features"),
        saved="features",
        output="backprops",
        attrs=(Attr("lambd", "float", 0.5, "half-width of the closed zero band [-lambd, lambd]", valid="number"),),
        functor="StepGrad",
        forward_tensor="forward input",
        formula="backprops = 0 if -lambd <= features <= lambd else gradients",
        origin="CANN HardShrinkGrad (PyTorch hardshrink_backward)",
        cann_builtin="aclnnHardshrinkBackward",
        divergences="lambd is float32 for every dtype (PyTorch rounds it to the tensor's dtype). A negative lambd is "
                    "accepted and passes gradients everywhere, as PyTorch (CANN clamps it to 0). NaN gives NaN "
                    "(PyTorch: gradients or 0 by position; CANN: gradients). An infinite gradient inside the band "
                    "gives 0.",
    ),
    OpSpec(
        known_as="AbsBackward",
        inputs=("src", "diff_dst"),
        saved="src",
        output="diff_src",
        attrs=(),
        functor="StepGrad",
        forward_tensor="forward input",
        formula="diff_src = diff_dst if src > 0, -diff_dst if src < 0, 0 if src = 0",
        origin="oneDNN Graph AbsBackward",
        cann_builtin="-",
        divergences="NaN in src gives NaN (PyTorch grad*sgn(src) and oneDNN ref: 0). An infinite diff_dst at src = 0 "
                    "gives 0, as oneDNN (PyTorch: NaN). src = +-inf gives +-diff_dst.",
    ),
)

SIGMOID_FAMILY: tuple[OpSpec, ...] = (
    OpSpec(
        known_as="SigmoidBackward",
        inputs=("src_or_dst", "diff_dst"),
        saved="src_or_dst",
        output="diff_src",
        attrs=(Attr("use_dst", "bool", True, "src_or_dst is the forward output"),),
        functor="SigmoidFamilyGrad",
        forward_tensor="forward output (use_dst=true) or input",
        formula="diff_src = diff_dst*(d*(1-d)) (use_dst) or diff_dst*e/(1+e)^2 with e = exp(-|src|)",
        origin="oneDNN Graph SigmoidBackward",
        cann_builtin="aclnnSigmoidBackward",
        divergences="The src form evaluates sigmoid'(s) as e/(1+e)^2, e = exp(-|s|): no 1-sigmoid cancellation, and "
                    "far-negative or far-positive s give the f32 value (oneDNN: exact 0 below -88.72). NaN gives NaN "
                    "(oneDNN ref: 0 for a NaN src). An infinite diff_dst where the f32 derivative is exactly 0 "
                    "(d = 0 or 1, |s| > 103.9, s = +-inf) gives 0 (oneDNN, PyTorch: NaN). The dst form takes any d "
                    "(the formula's value, as oneDNN and PyTorch); its f32 product d*(1-d) overflows for "
                    "|d| > 1.8e19, which no sigmoid output reaches. f16 computes in f32 (PyTorch's f16 "
                    "sigmoid_backward rounds every step to f16).",
    ),
    OpSpec(
        known_as="TanhBackward",
        inputs=("src_or_dst", "diff_dst"),
        saved="src_or_dst",
        output="diff_src",
        attrs=(Attr("use_dst", "bool", True, "src_or_dst is the forward output"),),
        functor="SigmoidFamilyGrad",
        forward_tensor="forward output (use_dst=true) or input",
        formula="diff_src = diff_dst*((1-d)*(1+d)) (use_dst) or diff_dst*4e/(1+e)^2 with e = exp(-2|src|)",
        origin="oneDNN Graph TanhBackward",
        cann_builtin="aclnnTanhBackward",
        divergences="The dst form is oneDNN's factored (1-d)*(1+d) (PyTorch: 1 - d*d, which loses the low bits near "
                    "|d| = 1 in f32; from f16/bf16 d, whose square is exact in f32, the kernel computes 1 - d*d, the "
                    "exact value rounded once, with one vector instruction fewer: the 16-bit results are those of "
                    "(1-d)*(1+d)). The src form evaluates 1 - tanh(s)^2 as 4e/(1+e)^2, e = exp(-2|s|), without "
                    "cancellation, and far-out s give the f32 value. NaN gives NaN. An infinite diff_dst where the "
                    "f32 derivative is exactly 0 (d = +-1, |s| > 52, s = +-inf) gives 0 (oneDNN, PyTorch: NaN). The dst "
                    "form takes any d; its f32 product overflows for |d| > 1.8e19, which no tanh output reaches.",
    ),
    OpSpec(
        known_as="SiluGrad",
        inputs=("dy", "x"),
        saved="x",
        output="dx",
        attrs=(),
        functor="SigmoidFamilyGrad",
        forward_tensor="forward input",
        formula="dx = dy*sigmoid(x)*(1 + x*(1-sigmoid(x)))",
        origin="CANN SiluGrad / aclnnSiluBackward",
        cann_builtin="aclnnSiluBackward",
        divergences="Evaluated as (A*(1+e) + x*e)/(1+e)^2 with e = exp(-|x|) and A = e (x < 0) or 1, so no "
                    "1-sigmoid cancellation and far-negative x give the f32 value. x = +inf gives dy, x = -inf gives "
                    "0 (PyTorch, CANN, oneDNN swish: NaN). NaN gives NaN. An infinite dy where the f32 derivative is "
                    "exactly 0 gives 0 (PyTorch: NaN).",
    ),
    OpSpec(
        known_as="LogSigmoidGrad",
        inputs=("grads", "features"),
        saved="features",
        output="backprops",
        attrs=(),
        functor="SigmoidFamilyGrad",
        forward_tensor="forward input",
        formula="backprops = grads*sigmoid(-features)",
        origin="CANN LogSigmoidGrad / aclnnLogSigmoidBackward",
        cann_builtin="aclnnLogSigmoidBackward",
        divergences="Computed from features alone (ATen's CPU kernel reads the forward's buffer exp(-|x|) when it is "
                    "not empty; CANN ignores it). sigmoid(-x) in the stable form: large x give the f32 value "
                    "(oneDNN's soft_relu with alpha -1: exact 0 beyond 88.72). NaN gives NaN. An infinite grads "
                    "where the f32 derivative is exactly 0 (x > 103.9, x = +inf) gives 0 (PyTorch: NaN).",
    ),
    OpSpec(
        known_as="SoftsignGrad",
        inputs=("gradients", "features"),
        saved="features",
        output="output",
        attrs=(),
        functor="QuotientGrad",
        forward_tensor="forward input",
        formula="output = gradients/(1+|features|)^2",
        origin="CANN SoftsignGrad",
        cann_builtin="aclnnSoftsignBackward",
        divergences="Divides twice, (gradients/(1+|x|))/(1+|x|), so (1+|x|)^2 cannot overflow (CANN squares it: 0 "
                    "beyond |x| = 1.8e19). NaN gives NaN. An infinite gradients at x = +-inf gives 0 (IEEE: NaN). "
                    "f16/bf16 round once to nearest even (CANN: CAST_ROUND, half away from zero).",
    ),
    OpSpec(
        known_as="SqrtBackward",
        inputs=("src_or_dst", "diff_dst"),
        saved="src_or_dst",
        output="diff_src",
        attrs=(Attr("use_dst", "bool", True, "src_or_dst is the forward output"),),
        functor="QuotientGrad",
        forward_tensor="forward output (use_dst=true) or input",
        formula="diff_src = diff_dst/(2*d) (use_dst) or diff_dst/(2*sqrt(src))",
        origin="oneDNN Graph SqrtBackward",
        cann_builtin="aclnnSqrtBackward",
        divergences="At src or dst = +-0 the derivative is +inf: diff_dst*inf, i.e. +-inf by the sign of diff_dst "
                    "and NaN for diff_dst = 0, for -0 as for +0 (oneDNN, PyTorch: -inf times the sign at -0). A "
                    "negative src gives NaN (as sqrt); a negative dst gives the formula's value, as oneDNN and "
                    "PyTorch. NaN gives NaN. An infinite diff_dst where the f32 derivative 1/(2d) is exactly 0 "
                    "(src or dst = +inf; |dst| >= 2^127, where 2*dst overflows as in PyTorch and oneDNN, which no "
                    "float32 square root reaches) gives 0 (IEEE: NaN).",
    ),
)

SMOOTH_GATES: tuple[OpSpec, ...] = (
    OpSpec(
        known_as="GeluBackward",
        inputs=("src", "diff_dst"),
        saved="src",
        output="diff_src",
        attrs=(Attr("approximate", "str", "none", "GELU form: the exact erf form or the tanh approximation",
                    choices=("none", "tanh"), ir_name="mode", ir_choices=("gelu_erf", "gelu_tanh")),),
        functor="GeluGrad",
        forward_tensor="forward input",
        formula="none: diff_src = diff_dst*(Phi(src) + src*phi(src)); tanh: diff_src = diff_dst*(0.5*(1 + tanh(u)) + "
                "0.5*src*(1 - tanh(u)^2)*u'), u = sqrt(2/pi)*(src + 0.044715*src^3)",
        origin="oneDNN Graph GELUBackward (mode gelu_erf / gelu_tanh = ATen's approximate none / tanh)",
        cann_builtin="aclnnGeluBackwardV2",
        divergences="erf form: Phi(x) + x*phi(x) is evaluated through Mills' ratio, exp(-x^2/2)*(erfcx(|x|/sqrt2)/2 "
                    "- |x|/sqrt(2*pi)) (x < 0) and 1 minus it (x >= 0), so the x < -4 tail keeps f32 accuracy where "
                    "PyTorch's and oneDNN's 1 + erf(x/sqrt2) cancel (their results there are 0 or off by over 100%). "
                    "src = +inf gives diff_dst, src = -inf gives "
                    "0 (PyTorch, oneDNN: NaN). An infinite diff_dst where the f32 derivative is exactly 0 "
                    "(exp underflowed: src < -14.42 for erf, src < -10.68 for tanh) gives 0 (PyTorch, oneDNN: NaN).",
    ),
    OpSpec(
        known_as="FastGeluGrad",
        inputs=("dy", "x"),
        saved="x",
        output="z",
        attrs=(),
        functor="FastGeluGrad",
        forward_tensor="forward input",
        formula="z = dy*s*(1 + 1.702*x*(1 - s)), s = sigmoid(1.702*x) (1.702 as the f32 constant)",
        origin="CANN FastGeluGrad",
        cann_builtin="aclnnFastGeluBackward",
        divergences="s and 1 - s are evaluated from exp(-1.702*|x|) without cancellation, and exp(-1.702*|x|) does "
                    "not inherit the rounding of the f32 product (CANN's f32 kernel does: up to about 1.702*|x| ulp). "
                    "x = +inf gives dy, x = -inf gives 0 (CANN: NaN from inf*0). An infinite dy where the f32 "
                    "derivative is exactly 0 (exp(-1.702*|x|) underflowed, x < -61.09) gives 0 (CANN: NaN).",
    ),
    OpSpec(
        known_as="MishBackward",
        inputs=("src", "diff_dst"),
        saved="src",
        output="diff_src",
        attrs=(),
        functor="MishGrad",
        forward_tensor="forward input",
        formula="diff_src = diff_dst*(tanh(sp) + src*sigmoid(src)*(1 - tanh(sp)^2)), sp = softplus(src)",
        origin="oneDNN Graph MishBackward",
        cann_builtin="aclnnMishBackward",
        divergences="Evaluated as (w*(w + 2) + 4*src*e*(1 + e))/(w + 2)^2 with e = exp(src), w = e*(e + 2), one exp "
                    "and "
                    "no cancellation but near the derivative's zero (x ~ -1.19); x > 16 passes diff_dst through (the "
                    "f32 derivative is 1 there). src = +inf gives diff_dst, src = -inf gives 0 (PyTorch and oneDNN: "
                    "NaN). An infinite diff_dst where the f32 derivative is exactly 0 (exp(src) underflowed, "
                    "src < -103.97) gives 0 (PyTorch, oneDNN: NaN).",
    ),
)

ROW_REDUCTIONS: tuple[OpSpec, ...] = (
    OpSpec(
        known_as="SoftMaxBackward",
        inputs=("diff_dst", "dst"),
        saved="dst",
        output="diff_src",
        attrs=(Attr("axis", "int", 1, "the softmax axis (negative counts from the back)"),),
        functor="SoftmaxGrad",
        forward_tensor="forward output",
        formula="diff_src = dst*(diff_dst - sum_axis(diff_dst*dst))",
        origin="oneDNN Graph SoftMaxBackward (PyTorch _softmax_backward_data, CANN SoftmaxGrad)",
        cann_builtin="aclnnSoftmaxBackward",
        divergences="The row sum is accumulated in f32 for every dtype, in the order of the vector unit's "
                    "reductions, and the result is rounded once (PyTorch's f16/bf16 CPU kernel "
                    "also accumulates in f32; oneDNN's f32 reference sums sequentially). NaN anywhere in a row, in "
                    "either input, gives NaN in the whole row. dst need not be a softmax output.",
        family="row",
    ),
    OpSpec(
        known_as="LogSoftmaxBackward",
        inputs=("diff_dst", "dst"),
        saved="dst",
        output="diff_src",
        attrs=(Attr("axis", "int", -1, "the log-softmax axis (negative counts from the back)"),),
        functor="LogSoftmaxGrad",
        forward_tensor="forward output",
        formula="diff_src = diff_dst - exp(dst)*sum_axis(diff_dst)",
        origin="oneDNN Graph LogSoftmaxBackward (PyTorch _log_softmax_backward_data, CANN LogSoftmaxGrad)",
        cann_builtin="aclnnLogSoftmaxBackward",
        divergences="The row sum is accumulated in f32 for every dtype, in the order of the vector unit's "
                    "reductions, and the result is rounded once. NaN anywhere in a row, in either input, gives NaN "
                    "in the whole row (PyTorch and oneDNN: a NaN in dst stays in its own element). dst need not be "
                    "a log-softmax output.",
        family="row",
    ),
)

ELEMENTWISE_OPS: tuple[OpSpec, ...] = FOUNDING + PIECEWISE_LINEAR + SIGMOID_FAMILY + SMOOTH_GATES
OPS: tuple[OpSpec, ...] = ELEMENTWISE_OPS + ROW_REDUCTIONS

BY_NAME = {op.name: op for op in OPS}
BY_TYPE = {op.op_type: op for op in OPS}
