#!/usr/bin/env python3
"""Check the kernel and CANN host sources for errors that only the vendor's NPU toolchain would raise.

CI compiles the kernels with g++ against the CPU twin (sim/include), where __aicore__, __global__ and
__host_aicore__ expand to nothing and the whole C++ standard library is visible; it never runs CANN's code
generation either. Four classes of error therefore pass CI and fail the first NPU build. This script finds them:

  host-function   A function called from kernel code must be a device function. The NPU compiler (bisheng, CCE)
                  takes a function without an execution-space qualifier for a host function, and a call to it from
                  an [aicore] function is a compile error. Every function *defined* in the project's kernel-side files
                  (op_kernel/**/*.h, op_kernel/**/*.cpp, sim/examples/*.h; not sim/include, which is the twin's
                  implementation of the vendor API) that kernel code calls must carry __aicore__ or __host_aicore__
                  (which op_kernel/elementwise_grad_tiling.h defines empty for host compilers). Kernel code is the
                  body of a function qualified __aicore__, __global__ or __host_aicore__. Free functions, member functions (also defined out of
                  their class), static members, templates, constexpr functions, constructors and destructors count;
                  lambdas written inside kernel code need nothing (their bodies are scanned as kernel code).

  std-in-kernel   In NPU mode kernel_operator.h includes only <cassert>, <cstddef>, <cstdint> and <type_traits>, and
                  libstdc++ functions are not [aicore] functions: std::min, std::max, std::abs ... neither resolve
                  nor could be called (AscendC::Std has device versions). Any std:: entity in kernel code that does
                  not come from those four headers is an error, called (std::min(...), std::max<T>(...)) or not
                  (std::numeric_limits<float>::infinity() is from <limits>, std::array from <array>). The type
                  traits, the <cstdint>/<cstddef> types, std::declval and std::is_constant_evaluated are allowed.

  tiling-key      If any code under op_host/ calls SetTilingKey(, every kernel (each op_kernel/**/*.cpp with a
                  __global__ function, with the project headers it includes) must declare keys with TILING_KEY_IS( or
                  the ASCENDC_TPL_ template-key macros: a kernel without them runs the same code for every key
                  the host sets. Conversely a kernel that declares keys while no host code sets one only ever sees
                  key 0. No keys on either side (the design today: one binary per dtype, which reads tiling.dtype)
                  passes.

  codegen-include CANN's npu_op_code_gen compiles the host sources listed in op_host/CMakeLists.txt
                  (set(host_srcs ...), and list(APPEND host_srcs ...)) with only -std=c++11 -I<cann>/include. A
                  quoted project include must therefore resolve relative to the including file's directory,
                  recursively through the project headers it includes. A quoted include that does not resolve
                  there is accepted only as a CANN header (a known CANN include prefix: CANN_INCLUDE_PREFIXES) or
                  a standard header; anything else is an error. An angle include is taken as a CANN or system
                  header unless it names a project file or a library code generation cannot see (torch, ATen,
                  pybind11, op-plugin ...). A listed source that does not exist is an error too.

  parse           A kernel-side file whose (), [] or {} do not balance once comments, literals and preprocessor
                  lines are blanked (typically a definition split across #if branches) cannot be checked, and says so.

What the parser recognises. It is deliberately small, not a C++ front end: it blanks comments, string and character
literals (raw strings and digit separators included, so text in them never matches) and preprocessor lines,
tokenizes the rest and pairs (), [] and {}. Outside function bodies it walks namespaces, extern "C" blocks and
class/struct/union bodies (recursively), skips enum bodies and brace initialisers, and takes as a function
definition a declarator name (identifier, X::name, ~X, operator..., name<...>) followed by a parameter list, an
optional tail (const, noexcept(...), override, final, &, &&, -> trailing type, or a constructor's member-initialiser
list) and a { body }. The qualifiers of a definition are the tokens in front of its name back to the previous ;, {, }
or access label (template <...> prefixes included). Inside a kernel body a call is an identifier followed by ( or
<...>(, optionally qualified (A::B::f) or on a receiver (obj.f, ptr->f); a construction is a class name followed by a
variable name, ( or {. Calls are matched to definitions by name and scope: A::f( only to an f in a scope ending in A
(AscendC::f, a scope the kernel-side files do not define, is the vendor's and never matches); obj.f( only to members,
of obj's class when the calling function declares obj (parameter or local) with a class of the kernel-side files.

Known blind spots (false negatives unless noted):
  - overloads are not told apart: an unqualified overload (or constructor) is reported wherever kernel code calls
    that name, even if the call resolves to a qualified one (false positive; qualify both);
  - calls through function pointers, macros and operators (operator(), operator+, conversions) are not seen, nor
    constructors/destructors of objects not declared by class name (auto v = Make(););
  - a data member or expression receiver (m_.f(), g().f()) or a template parameter as qualifier (Functor::Compute)
    matches every member of that name (false positives possible); a receiver declared through a type alias
    (using K = KernelAdd; K op;) is taken for a vendor type and matches nothing;
  - `using namespace std;` / `using std::min;` outside kernel bodies hides the std:: of later unqualified calls;
    `namespace s = std;` too;
  - both branches of #if are read as code; includes under #if are all checked (stricter than the compiler);
  - tiling keys are looked for anywhere in a kernel's translation unit, not per kernel entry of a shared header;
  - code generation's -std=c++11 is not checked (only where includes resolve).

Usage: python scripts/check_kernel_sources.py [--root DIR]
Prints one `path:line: rule: message` line per finding (paths relative to DIR) and a summary; exit status 1 if
anything was found. Python standard library only.
"""
from __future__ import annotations

import argparse
import bisect
import os.path
import pathlib
import re
import sys
from dataclasses import dataclass, field

# ----------------------------------------------------------------------------------------------------------------------
# Configuration

# qualifiers that make a function body kernel code, and those that make a function callable from it
KERNEL_QUALIFIERS = {"__aicore__", "__global__", "__host_aicore__"}
DEVICE_QUALIFIERS = {"__aicore__", "__host_aicore__"}

# std:: names the NPU-mode kernel_operator.h makes available: <cstddef>, <cstdint>, <type_traits> (<cassert> only
# brings the assert macro). The _t / _v forms of the traits are derived below.
STD_TYPE_TRAITS = set("""
    integral_constant bool_constant true_type false_type is_void is_null_pointer is_integral is_floating_point is_array
    is_enum is_union is_class is_function is_pointer is_lvalue_reference is_rvalue_reference is_member_object_pointer
    is_member_function_pointer is_fundamental is_arithmetic is_scalar is_object is_compound is_reference
    is_member_pointer is_const is_volatile is_trivial is_trivially_copyable is_standard_layout is_pod is_literal_type
    has_unique_object_representations is_empty is_polymorphic is_abstract is_final is_aggregate is_signed is_unsigned
    is_bounded_array is_unbounded_array is_scoped_enum is_constructible is_trivially_constructible
    is_nothrow_constructible is_default_constructible is_trivially_default_constructible
    is_nothrow_default_constructible is_copy_constructible is_trivially_copy_constructible
    is_nothrow_copy_constructible is_move_constructible is_trivially_move_constructible is_nothrow_move_constructible
    is_assignable is_trivially_assignable is_nothrow_assignable is_copy_assignable is_trivially_copy_assignable
    is_nothrow_copy_assignable is_move_assignable is_trivially_move_assignable is_nothrow_move_assignable
    is_destructible is_trivially_destructible is_nothrow_destructible has_virtual_destructor is_swappable_with
    is_swappable is_nothrow_swappable_with is_nothrow_swappable alignment_of rank extent is_same is_base_of
    is_convertible is_nothrow_convertible is_layout_compatible is_pointer_interconvertible_base_of is_invocable
    is_invocable_r is_nothrow_invocable is_nothrow_invocable_r remove_cv remove_const remove_volatile add_cv add_const
    add_volatile remove_reference add_lvalue_reference add_rvalue_reference remove_pointer add_pointer make_signed
    make_unsigned remove_extent remove_all_extents aligned_storage aligned_union decay remove_cvref enable_if
    conditional common_type common_reference basic_common_reference underlying_type result_of invoke_result void_t
    type_identity conjunction disjunction negation is_constant_evaluated declval
""".split())
STD_CSTDDEF = {"size_t", "ptrdiff_t", "nullptr_t", "max_align_t", "byte", "to_integer"}
STD_CSTDINT = re.compile(r"u?int(?:_fast|_least)?(?:8|16|32|64)_t|u?intmax_t|u?intptr_t")
# where the usual offenders come from, for the message
STD_HINTS = {"min": "AscendC::Std::min or a conditional", "max": "AscendC::Std::max or a conditional",
             "numeric_limits": "it is declared in <limits>", "abs": "AscendC::Abs or a conditional",
             "swap": "a plain exchange", "array": "it is declared in <array>", "tuple": "AscendC::Std::tuple"}

# include prefixes of <cann>/include the host sources may use (extend when a host source needs another one)
CANN_INCLUDE_PREFIXES = ("acl/", "aclnn/", "exe_graph/", "ge/", "graph/", "platform/", "register/", "runtime/",
                         "tiling/")
# libraries the project's other host code uses that code generation (-I<cann>/include only) does not see
NOT_FOR_CODEGEN_PREFIXES = ("torch/", "ATen/", "c10/", "pybind11/", "op_plugin/", "Python.h", "torch_npu/")
STD_HEADERS = set("""
    algorithm any array atomic bit bitset cassert cctype cerrno cfenv cfloat charconv chrono cinttypes climits clocale
    cmath codecvt compare complex concepts condition_variable csetjmp csignal cstdarg cstddef cstdint cstdio cstdlib
    cstring ctime cuchar cwchar cwctype deque exception execution filesystem forward_list fstream functional future
    initializer_list iomanip ios iosfwd iostream istream iterator limits list locale map memory memory_resource mutex
    new numbers numeric optional ostream queue random ranges ratio regex scoped_allocator set shared_mutex
    source_location span sstream stack stdexcept streambuf string string_view system_error thread tuple type_traits
    typeindex typeinfo unordered_map unordered_set utility valarray variant vector version
    assert.h complex.h ctype.h errno.h fenv.h float.h inttypes.h iso646.h limits.h locale.h math.h setjmp.h signal.h
    stdalign.h stdarg.h stdbool.h stddef.h stdint.h stdio.h stdlib.h string.h tgmath.h time.h uchar.h wchar.h wctype.h
""".split())

SOURCE_SUFFIXES = {".h", ".hpp", ".cpp", ".cc", ".inc"}

# identifiers followed by ( that are not calls of a function, or not the declarator of a definition
NOT_CALLS = set("""
    if for while switch return sizeof alignof alignas decltype noexcept static_assert catch throw typeid new delete
    static_cast const_cast reinterpret_cast dynamic_cast defined __attribute__ __declspec requires operator co_return
    co_await co_yield
""".split())
FUNCTION_TAIL_WORDS = {"const", "volatile", "override", "final", "&", "&&", "mutable"}
CLASS_KEYS = {"class", "struct", "union"}


@dataclass
class Finding:
    path: str
    line: int
    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.rule}: {self.message}"


# ----------------------------------------------------------------------------------------------------------------------
# Lexing

def strip_source(text: str, blank_strings: bool = True) -> str:
    """The text with comments (and, if blank_strings, the contents of string and character literals) replaced by
    spaces; newlines and offsets are kept, so positions map to the same lines as in the original."""
    out = list(text)
    i, n = 0, len(text)

    def blank(a: int, b: int) -> None:
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            blank(i, j)
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            blank(i, j)
            i = j
        elif c == "R" and text.startswith('R"', i) and _raw_string_prefix(text, i):
            m = re.match(r'R"([^()\\\s]{0,16})\(', text[i:])
            if not m:
                i += 1
                continue
            end = text.find(")" + m.group(1) + '"', i + m.end())
            end = n if end < 0 else end + len(m.group(1)) + 2
            if blank_strings:
                blank(i + 2, end - 1)
            i = end
        elif c == '"' or (c == "'" and not _is_digit_separator(text, i)):
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            if blank_strings:
                blank(i + 1, min(j, n))
            i = j + 1
        else:
            i += 1
    return "".join(out)


def _raw_string_prefix(text: str, i: int) -> bool:
    """text[i] is the R of R"(...)", alone or after an encoding prefix (u8R, uR, UR, LR), not the end of a name."""
    j = i
    while j > 0 and (text[j - 1].isalnum() or text[j - 1] == "_"):
        j -= 1
    return text[j:i] in ("", "u8", "u", "U", "L")


def _is_digit_separator(text: str, i: int) -> bool:
    """' inside a number (1'000'000), as opposed to the start of a character literal."""
    j = i
    while j > 0 and (text[j - 1].isalnum() or text[j - 1] in "_.'"):
        j -= 1
    return j < i and text[j].isdigit()


def blank_preprocessor(code: str) -> str:
    """Comment-free code with every preprocessor directive (and its continuation lines) blanked."""
    lines = code.split("\n")
    continued = False
    for k, line in enumerate(lines):
        if continued or line.lstrip().startswith("#"):
            continued = line.rstrip().endswith("\\")
            lines[k] = " " * len(line)
    return "\n".join(lines)


TOKEN_RE = re.compile(r"""
      (?P<id>[A-Za-z_]\w*)
    | (?P<num>\.?\d(?:[eEpP][+-]|[\w.'])*)
    | (?P<str>"[^"\n]*"|'[^'\n]*')
    | (?P<op>::|->|\.\.\.|&&|\|\||==|!=|<=|>=|\+\+|--|[^\s\w])
""", re.VERBOSE)


@dataclass
class Token:
    text: str
    kind: str  # id, num, str, op
    pos: int


class Source:
    """One file: its text, its comment- and literal-free code, its tokens and their bracket partners."""

    def __init__(self, root: pathlib.Path, path: pathlib.Path):
        self.path = path
        self.rel = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
        self.text = path.read_text(encoding="utf-8", errors="replace")
        self.no_comments = strip_source(self.text, blank_strings=False)
        self.code = blank_preprocessor(strip_source(self.text))
        self._newlines = [k for k, ch in enumerate(self.text) if ch == "\n"]
        self.tokens = [Token(m.group(), m.lastgroup, m.start()) for m in TOKEN_RE.finditer(self.code)]
        self.match, self.balanced = _match_brackets(self.tokens)

    def line(self, pos: int) -> int:
        return bisect.bisect_left(self._newlines, pos) + 1

    def tok_line(self, i: int) -> int:
        return self.line(self.tokens[i].pos)


def _match_brackets(tokens: list[Token]) -> tuple[dict[int, int], bool]:
    pairs = {"(": ")", "[": "]", "{": "}"}
    match: dict[int, int] = {}
    stack: list[int] = []
    for i, t in enumerate(tokens):
        if t.text in pairs:
            stack.append(i)
        elif t.text in (")", "]", "}"):
            if not stack or pairs[tokens[stack[-1]].text] != t.text:
                return match, False
            j = stack.pop()
            match[i], match[j] = j, i
    return match, not stack


def skip_angles(tokens: list[Token], match: dict[int, int], i: int, end: int) -> int | None:
    """tokens[i] is '<': the index of its closing '>' if it plausibly opens a template argument list, else None.
    Brackets are skipped whole; a ;, {, }, &&, || or ? at angle depth > 0 means it was a comparison."""
    depth = 0
    while i < end:
        t = tokens[i].text
        if t in ("(", "["):
            i = match.get(i, end)
        elif t == "<":
            depth += 1
        elif t == ">":
            depth -= 1
            if depth == 0:
                return i
        elif t in (";", "{", "}", "&&", "||", "?", ")", "]"):
            return None
        i += 1
    return None


# ----------------------------------------------------------------------------------------------------------------------
# Function definitions

@dataclass
class Function:
    src: Source
    name: str               # base name: Init, ~KernelAdd, operator()
    display: str            # as written: KernelAdd::Init
    scope: list[str]        # enclosing namespaces and classes, then the qualifier of an out-of-line definition
    in_class: bool          # a member (defined in its class, or out of line as X::name)
    name_tok: int
    body: tuple[int, int]   # token indices of { and }
    qualifiers: set[str]
    is_ctor_or_dtor: bool = False

    @property
    def line(self) -> int:
        return self.src.tok_line(self.name_tok)

    @property
    def is_kernel_code(self) -> bool:
        return bool(self.qualifiers & KERNEL_QUALIFIERS)

    @property
    def is_device_callable(self) -> bool:
        return bool(self.qualifiers & (DEVICE_QUALIFIERS | {"__global__"}))


@dataclass
class Scan:
    functions: list[Function] = field(default_factory=list)
    scope_names: set[str] = field(default_factory=set)      # namespaces and classes the files define
    template_params: set[str] = field(default_factory=set)  # names declared as template parameters
    findings: list[Finding] = field(default_factory=list)


def parse_definitions(src: Source, scan: Scan) -> None:
    if not src.balanced:
        scan.findings.append(Finding(src.rel, 1, "parse", "unbalanced (), [] or {} (a definition split across #if "
                                     "branches?): this file was not checked"))
        return
    toks = src.tokens
    for k in range(len(toks) - 1):
        if toks[k].text == "template" and toks[k + 1].text == "<":
            close = skip_angles(toks, src.match, k + 1, len(toks))
            if close is not None:
                scan.template_params.update(_template_params(toks, k + 1, close))
    _parse_scope(src, 0, len(src.tokens), [], None, scan)


def _parse_scope(src: Source, i: int, end: int, scope: list[str], class_name: str | None, scan: Scan) -> None:
    """Declarations between tokens i and end (a file, namespace, extern "C" or class body)."""
    toks, match = src.tokens, src.match
    head = i
    while i < end:
        t = toks[i].text
        if t in (";", "}"):
            head = i + 1
        elif t in ("(", "["):
            i = match[i]
        elif t == ":" and i == head + 1 and toks[head].text in ("public", "private", "protected"):
            head = i + 1  # access label
        elif t == "{":
            close = match[i]
            start = _after_template_prefix(toks, match, head, i)
            words = [x.text for x in toks[start:i]]
            if "namespace" in words:  # namespace a::b {, inline namespace v1 {, namespace {
                inner = scope + [w for w in words[words.index("namespace") + 1:] if w[0].isalpha() or w[0] == "_"]
                scan.scope_names.update(inner)
                _parse_scope(src, i + 1, close, inner, None, scan)
                i, head = close, close + 1
            elif words and words[0] == "extern" and all(toks[k].kind == "str" for k in range(head + 1, i)):
                _parse_scope(src, i + 1, close, scope, class_name, scan)
                i, head = close, close + 1
            else:
                fn = _function_head(src, head, start, i, scope, class_name)
                if fn is not None:
                    scan.functions.append(fn)
                    i, head = fn.body[1], fn.body[1] + 1
                elif _is_class_head(words):
                    name = _class_name(toks, match, start, i)
                    scan.scope_names.add(name)
                    _parse_scope(src, i + 1, close, scope + [name], name, scan)
                    i = close  # the declaration goes on to its ; (struct X {...} x;)
                else:  # enum body, brace initialiser, lambda in an initialiser: skip, the declaration goes on
                    i = close
        i += 1


def _is_class_head(words: list[str]) -> bool:
    return any(w in CLASS_KEYS for w in words) and "=" not in words and "enum" not in words


def _class_name(toks: list[Token], match: dict[int, int], start: int, brace: int) -> str:
    """The name after the class key (skipping alignas(...) and attributes), before any specialisation arguments
    or base clause."""
    k = next(k for k in range(start, brace) if toks[k].text in CLASS_KEYS) + 1
    name = ""
    while k < brace and toks[k].text not in (":", "{", "<"):
        if toks[k].text in ("(", "["):
            k = match[k]
        elif toks[k].kind == "id" and toks[k].text not in ("final", "alignas", "__attribute__"):
            name = toks[k].text
        k += 1
    return name or "<anonymous>"


def _after_template_prefix(toks: list[Token], match: dict[int, int], head: int, end: int) -> int:
    """The first token after the template <...> prefixes of a declaration starting at head."""
    start = head
    while start + 1 < end and toks[start].text == "template" and toks[start + 1].text == "<":
        close = skip_angles(toks, match, start + 1, end)
        if close is None:
            break
        start = close + 1
    return start


def _template_params(toks: list[Token], begin: int, end: int) -> set[str]:
    """The names declared by typename X / class X between begin and end (a template parameter list)."""
    names = set()
    for k in range(begin, end - 1):
        if toks[k].text in ("typename", "class") and toks[k + 1].kind == "id":
            names.add(toks[k + 1].text)
    return names


def _function_head(src: Source, head: int, start: int, brace: int, scope: list[str],
                   class_name: str | None) -> Function | None:
    """If tokens head..brace (the { at brace; start is past the template prefixes) start a function definition,
    the Function (with its body found past a constructor's member initialisers); else None."""
    toks, match = src.tokens, src.match
    operator = next((k for k in range(start, brace) if toks[k].text == "operator"), None)
    k = start
    while k < brace:
        t = toks[k]
        if t.text == "=" and toks[k - 1].text != "operator":
            return None  # an initialiser: auto f = [] (...) {...};
        if t.text == "(":
            name_end = k  # the name's tokens end before this (
            if operator is not None and k > operator + 1:
                spelled = [x.text for x in toks[operator + 1:k]]  # (), +=, bool, new[] ...
                name = "operator" + (" " if spelled[0][0].isalpha() else "") + "".join(spelled)
                name_start = operator
                ok = True
            else:
                name_start, name = _declarator_name(toks, match, start, k)
                ok = name is not None and operator is None
            if ok:
                body = _body_after_params(toks, match, match[k], brace)
                if body is not None:
                    qual_start = name_start
                    # the qualifier of an out-of-line definition: X::Y::name
                    outer: list[str] = []
                    q = name_start
                    while q - 2 >= start and toks[q - 1].text == "::" and (toks[q - 2].kind == "id" or
                                                                        toks[q - 2].text == ">"):
                        if toks[q - 2].text == ">":
                            open_ = _open_angle(toks, q - 2, start)
                            if open_ is None:
                                break
                            q = open_
                        else:
                            q -= 1
                        outer.insert(0, toks[q - 1].text)
                        q -= 1
                        qual_start = q
                    quals = {x.text for x in toks[head:qual_start]}
                    display = "".join(x.text for x in toks[qual_start:name_end])
                    if class_name is not None and not outer:
                        display = f"{class_name}::{display}"
                    owner = outer[-1] if outer else class_name  # the class of a member (X of X::f: a guess)
                    special = name.startswith("~") or name == owner  # constructor or destructor
                    return Function(src, name, display, scope + outer, owner is not None,
                                    name_start if operator is None else operator, body, quals, special)
            k = match[k]
        elif t.text in ("[", "{"):
            k = match[k]
        k += 1
    return None


def _open_angle(toks: list[Token], close: int, start: int) -> int | None:
    depth = 0
    for k in range(close, start - 1, -1):
        if toks[k].text == ">":
            depth += 1
        elif toks[k].text == "<":
            depth -= 1
            if depth == 0:
                return k
    return None


def _declarator_name(toks: list[Token], match: dict[int, int], start: int, paren: int) -> tuple[int, str | None]:
    """The name in front of the ( at paren: an identifier, ~Name, or name<...> (an explicit specialisation)."""
    k = paren - 1
    if k < start:
        return k, None
    if toks[k].text == ">":
        open_ = _open_angle(toks, k, start)
        if open_ is None or open_ - 1 < start:
            return k, None
        k = open_ - 1
    if toks[k].kind != "id" or toks[k].text in NOT_CALLS:
        return k, None
    if k - 1 >= start and toks[k - 1].text == "~":
        return k - 1, "~" + toks[k].text
    return k, toks[k].text


def _body_after_params(toks: list[Token], match: dict[int, int], rparen: int, brace: int) -> tuple[int, int] | None:
    """Token range of the body if what follows the parameter list's ) is a function tail ending in { (the { at brace
    or, after a constructor's member initialisers, a later one); None if it is not."""
    k = rparen + 1
    while k < brace:
        t = toks[k].text
        if t in FUNCTION_TAIL_WORDS:
            k += 1
        elif t in ("noexcept", "throw", "__attribute__") :
            k = match[k + 1] + 1 if k + 1 < brace and toks[k + 1].text == "(" else k + 1
        elif t == "[" and toks[k + 1].text == "[":  # [[attribute]]
            k = match[k] + 1
        elif t in ("->", "requires"):
            return brace, match[brace]
        elif t == ":":
            return _body_after_initialisers(toks, match, k + 1)
        else:
            return None
    return brace, match[brace]


def _body_after_initialisers(toks: list[Token], match: dict[int, int], k: int) -> tuple[int, int] | None:
    """k is past a constructor's ':': skip `member(...)` / `Base<T>{...}` items to the body's {."""
    n = len(toks)
    while k < n:
        while k < n and (toks[k].kind == "id" or toks[k].text in ("::", "template")):
            k += 1
        if k < n and toks[k].text == "<":
            close = skip_angles(toks, match, k, n)
            if close is None:
                return None
            k = close + 1
        if k >= n or toks[k].text not in ("(", "{"):
            return None
        k = match[k] + 1
        if k < n and toks[k].text == "...":
            k += 1
        if k < n and toks[k].text == ",":
            k += 1
            continue
        if k < n and toks[k].text == "{":
            return k, match[k]
        return None
    return None


# ----------------------------------------------------------------------------------------------------------------------
# Rules 1 and 2: calls from kernel code

@dataclass
class Use:
    tok: int
    name: str
    qualifier: list[str]  # the A::B of A::B::name
    member: bool          # obj.name / ptr->name
    receiver: int | None  # the token of obj in obj.name, if it is a plain name
    call: bool            # name(...) or name<...>(...)
    construction: bool    # Name var; Name<...> var; Name(...); Name{...}


def kernel_uses(src: Source, fn: Function) -> list[Use]:
    """Calls and constructions in a kernel body."""
    toks, match = src.tokens, src.match
    a, b = fn.body
    uses = []
    for k in range(a + 1, b):
        t = toks[k]
        if t.kind != "id" or t.text in NOT_CALLS or t.text == "template":
            continue
        nxt = k + 1
        if toks[nxt].text == "<":
            close = skip_angles(toks, match, nxt, b)
            if close is None:
                continue
            nxt = close + 1
        follower = toks[nxt]
        call = follower.text == "("
        construction = follower.text in ("(", "{") or (follower.kind == "id" and follower.text not in NOT_CALLS)
        if not construction:
            continue
        qualifier, q = [], k
        if toks[q - 1].text == "template":  # x.template Get<T>()
            q -= 1
        while q - 2 > a and toks[q - 1].text == "::":
            p = q - 2
            if toks[p].text == ">":
                p = _open_angle(toks, p, a + 1)
                if p is None:
                    break
                p -= 1
            if toks[p].kind != "id":
                break
            qualifier.insert(0, toks[p].text)
            q = p
        member = toks[q - 1].text in (".", "->")
        receiver = q - 2 if member and toks[q - 2].kind == "id" else None
        uses.append(Use(k, t.text, qualifier, member, receiver, call, construction))
    return uses


def check_kernel_functions(scan: Scan) -> list[Finding]:
    """Rule 1 (host-function) and rule 2 (std-in-kernel) over every kernel body."""
    host_functions: dict[str, list[Function]] = {}  # name -> unqualified definitions (not constructors)
    host_special: dict[str, list[Function]] = {}    # class name -> its unqualified constructors / destructor
    for fn in scan.functions:
        if fn.is_device_callable:
            continue
        if fn.is_ctor_or_dtor:
            host_special.setdefault(fn.scope[-1] if fn.scope else fn.name.lstrip("~"), []).append(fn)
        else:
            host_functions.setdefault(fn.name, []).append(fn)

    def targets(caller: Function, use: Use) -> list[Function]:
        found = []
        if use.call:
            found += [fn for fn in host_functions.get(use.name, [])
                      if _qualifier_matches(use.qualifier, fn.scope, fn, scan)
                      and (not use.member or _receiver_matches(caller, use, fn, scan))]
        if use.construction and not use.member:
            found += [fn for fn in host_special.get(use.name, [])
                      if _qualifier_matches(use.qualifier, fn.scope[:-1], fn, scan)]
        return found

    findings: list[Finding] = []
    for fn in scan.functions:
        if not fn.is_kernel_code:
            continue
        src = fn.src
        reported = set()
        for use in kernel_uses(src, fn):
            if use.qualifier[:1] == ["std"]:
                continue  # rule 2
            line = src.tok_line(use.tok)
            for target in targets(fn, use):
                if (line, id(target)) in reported:
                    continue
                reported.add((line, id(target)))
                what = ("the constructor/destructor " + target.display if target.is_ctor_or_dtor
                        else target.display + "()")
                findings.append(Finding(
                    src.rel, line, "host-function",
                    f"{what} is called from kernel code ({fn.display}) but is defined at {target.src.rel}:"
                    f"{target.line} without __aicore__ / __host_aicore__: the NPU compiler "
                    f"takes it for a host function"))
        findings += _std_uses(src, fn)
    return findings


def _receiver_matches(caller: Function, use: Use, fn: Function, scan: Scan) -> bool:
    """Whether obj.name( can call fn: fn must be a member, of obj's class when caller declares obj (as a parameter or
    a local) with a class of the kernel-side files; any member when obj's type is unknown (a data member, auto, a
    template parameter); none when obj has a type of someone else (AscendC::LocalTensor<T> x: the vendor's)."""
    if not fn.in_class:
        return False
    declared = None if use.receiver is None else _declared_type(caller, use.receiver)
    if declared is None or declared == "auto" or declared in scan.template_params:
        return True
    return declared in scan.scope_names and fn.scope[-1:] == [declared]


NOT_TYPES = NOT_CALLS | {"else", "do", "case", "goto", "typename", "const", "volatile", "static", "this"}


def _declared_type(caller: Function, var: int) -> str | None:
    """The class name the variable at token var is declared with in caller, before var: `X v`, `ns::X<...> v`,
    `const X& v`, `X* v` (a parameter or a local); None if no such declaration is found."""
    toks = caller.src.tokens
    for k in range(caller.name_tok, var):
        if toks[k].text != toks[var].text or toks[k - 1].text in (".", "->", "::"):
            continue
        j = k - 1
        while j > caller.name_tok and toks[j].text in ("&", "*", "&&", "const"):
            j -= 1
        if toks[j].text == ">":
            open_ = _open_angle(toks, j, caller.name_tok)
            if open_ is None:
                continue
            j = open_ - 1
        if toks[j].kind == "id" and toks[j].text not in NOT_TYPES:
            return toks[j].text
    return None


def _qualifier_matches(qualifier: list[str], scope: list[str], fn: Function, scan: Scan) -> bool:
    """Whether A::B::name can name a definition in scope: any definition if unqualified; one whose scope ends in
    A::B if the kernel-side files define A or B; any member if A::B is a template parameter (Functor::Compute);
    none if the qualifier is not the project's (AscendC::...: the vendor's API)."""
    if not qualifier:
        return True
    if qualifier[-1] in scan.template_params and qualifier[-1] not in scan.scope_names:
        return fn.in_class
    if not any(q in scan.scope_names for q in qualifier):
        return False
    return scope[-len(qualifier):] == qualifier


def _std_allowed(name: str) -> bool:
    if name in STD_CSTDDEF or STD_CSTDINT.fullmatch(name):
        return True
    return name in STD_TYPE_TRAITS or re.sub(r"_[tv]$", "", name) in STD_TYPE_TRAITS


def _std_uses(src: Source, fn: Function) -> list[Finding]:
    toks, match = src.tokens, src.match
    a, b = fn.body
    findings = []
    for k in range(a + 1, b - 2):
        if toks[k].text != "std" or toks[k + 1].text != "::" or toks[k - 1].text in (".", "->"):
            continue
        if toks[k - 1].text == "::" and toks[k - 2].kind == "id":
            continue  # other::std::
        name = toks[k + 2].text
        if toks[k + 2].kind != "id" or _std_allowed(name):
            continue
        nxt = k + 3
        if toks[nxt].text == "<":
            close = skip_angles(toks, match, nxt, b)
            nxt = close + 1 if close is not None else nxt
        called = toks[nxt].text == "("
        hint = STD_HINTS.get(name)
        what = f"std::{name}() is called" if called else f"std::{name} is used"
        findings.append(Finding(
            src.rel, src.tok_line(k), "std-in-kernel",
            f"{what} in kernel code ({fn.display}): NPU-mode kernel_operator.h brings only <cassert>, <cstddef>, "
            f"<cstdint> and <type_traits>, and std functions are not [aicore]" + (f" ({hint})" if hint else "")))
    return findings


# ----------------------------------------------------------------------------------------------------------------------
# Rule 3: tiling keys

INCLUDE_RE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]', re.MULTILINE)


def includes(src: Source) -> list[tuple[int, str, str]]:
    """(line, '<' or '"', path) of each #include outside comments."""
    return [(src.line(m.start()), m.group(1), m.group(2).strip()) for m in INCLUDE_RE.finditer(src.no_comments)]


def check_tiling_keys(root: pathlib.Path, cache: dict[pathlib.Path, Source]) -> list[Finding]:
    host_sets = []
    for path in _files(root / "op_host", recursive=True):
        src = _source(root, path, cache)
        for k, t in enumerate(src.tokens[:-1]):
            if t.text == "SetTilingKey" and src.tokens[k + 1].text == "(":
                host_sets.append((src.rel, src.tok_line(k)))
    kernels_without, kernels_with = [], []
    for path in sorted((root / "op_kernel").rglob("*.cpp")):
        src = _source(root, path, cache)
        if not any(t.text == "__global__" for t in src.tokens):
            continue
        declared = None
        for unit in _translation_unit(root, src, [root / "op_kernel"], cache):
            for k, t in enumerate(unit.tokens[:-1]):
                if (t.text == "TILING_KEY_IS" and unit.tokens[k + 1].text == "(") or t.text.startswith("ASCENDC_TPL_"):
                    declared = (unit.rel, unit.tok_line(k))
                    break
            if declared:
                break
        (kernels_with if declared else kernels_without).append((src.rel, declared))
    findings = []
    if host_sets and kernels_without:
        names = ", ".join(rel for rel, _ in kernels_without)
        for rel, line in host_sets:
            findings.append(Finding(rel, line, "tiling-key",
                                    f"the host sets a tiling key but these kernels declare none (TILING_KEY_IS / "
                                    f"ASCENDC_TPL_): {names}"))
    if kernels_with and not host_sets:
        for rel, (where, line) in kernels_with:
            findings.append(Finding(where, line, "tiling-key",
                                    f"{rel} declares tiling keys but no op_host code calls SetTilingKey: the kernel "
                                    f"only ever sees key 0"))
    return findings


def _translation_unit(root: pathlib.Path, src: Source, include_dirs: list[pathlib.Path],
                      cache: dict[pathlib.Path, Source]) -> list[Source]:
    """src and the project files it includes (quoted or angle), searched next to the includer, then include_dirs."""
    unit, todo, seen = [], [src], {src.path}
    while todo:
        cur = todo.pop()
        unit.append(cur)
        for _, _, name in includes(cur):
            for base in [cur.path.parent, *include_dirs]:
                cand = (base / name).resolve()
                if cand.is_file() and cand.is_relative_to(root):
                    if cand not in seen:
                        seen.add(cand)
                        todo.append(_source(root, cand, cache))
                    break
    return unit


# ----------------------------------------------------------------------------------------------------------------------
# Rule 4: includes under code generation

def host_sources(root: pathlib.Path) -> tuple[list[tuple[pathlib.Path, int]], list[Finding]]:
    """The host_srcs of op_host/CMakeLists.txt: (path, line in the CMakeLists) each, and findings for entries that
    cannot be resolved or do not exist."""
    cmake = root / "op_host" / "CMakeLists.txt"
    rel = "op_host/CMakeLists.txt"
    if not cmake.is_file():
        return [], [Finding(rel, 1, "codegen-include", "op_host/CMakeLists.txt is missing: no host sources to check")]
    text = cmake.read_text()
    # drop # comments (CMake has no # inside the paths this list holds)
    code = re.sub(r"#[^\n]*", lambda m: " " * len(m.group()), text)
    sources, findings = [], []
    blocks = list(re.finditer(r"\b(?:set|SET)\s*\(\s*host_srcs\b([^)]*)\)|\blist\s*\(\s*APPEND\s+host_srcs\b([^)]*)\)",
                              code))
    if not blocks:
        return [], [Finding(rel, 1, "codegen-include", "no set(host_srcs ...) in op_host/CMakeLists.txt: the host "
                            "sources code generation compiles cannot be checked")]
    for block in blocks:
        group = 1 if block.group(1) is not None else 2
        for m in re.finditer(r'[^\s"]+', block.group(group)):
            entry = m.group()
            line = text.count("\n", 0, block.start(group) + m.start()) + 1
            resolved = entry.replace("${CMAKE_CURRENT_SOURCE_DIR}", str(root / "op_host"))
            if "${" in resolved:
                findings.append(Finding(rel, line, "codegen-include",
                                        f"cannot resolve {entry} (only ${{CMAKE_CURRENT_SOURCE_DIR}} is understood)"))
                continue
            path = pathlib.Path(resolved)
            path = path if path.is_absolute() else root / "op_host" / path
            if not path.is_file():
                findings.append(Finding(rel, line, "codegen-include", f"listed host source {entry} does not exist"))
                continue
            sources.append((path.resolve(), line))
    return sources, findings


def check_codegen_includes(root: pathlib.Path, cache: dict[pathlib.Path, Source]) -> list[Finding]:
    sources, findings = host_sources(root)
    checked: set[pathlib.Path] = set()
    todo = [path for path, _ in sources]
    while todo:
        path = todo.pop(0)
        if path in checked:
            continue
        checked.add(path)
        src = _source(root, path, cache)
        for line, delim, name in includes(src):
            beside = (path.parent / name).resolve()
            if delim == '"' and beside.is_file():
                if beside.is_relative_to(root):
                    todo.append(beside)
                continue
            problem = _include_problem(root, path, delim, name)
            if problem:
                findings.append(Finding(src.rel, line, "codegen-include", problem))
    return findings


def _include_problem(root: pathlib.Path, includer: pathlib.Path, delim: str, name: str) -> str | None:
    """Why a #include that does not resolve next to its includer fails under code generation, or None if it is a
    CANN or standard header."""
    shown = f'"{name}"' if delim == '"' else f"<{name}>"
    if name in STD_HEADERS or name.startswith(CANN_INCLUDE_PREFIXES):
        return None
    project = _project_file(root, includer, name)
    if project is not None:
        relative = pathlib.Path(_relpath(project, includer.parent)).as_posix()
        return (f"#include {shown} is the project's {project.relative_to(root).as_posix()}, which code generation "
                f"(-I<cann>/include only) finds only as #include \"{relative}\"")
    if name.startswith(NOT_FOR_CODEGEN_PREFIXES):
        return f"#include {shown}: code generation compiles host sources with -I<cann>/include only"
    if delim == "<":
        return None  # taken as a system header
    return (f"#include {shown} does not resolve relative to {includer.parent.name}/ and is neither a known CANN "
            f"include ({', '.join(CANN_INCLUDE_PREFIXES)}) nor a standard header: code generation compiles with "
            f"-I<cann>/include only")


def _project_file(root: pathlib.Path, includer: pathlib.Path, name: str) -> pathlib.Path | None:
    """The project file an include most likely means: relative to the root, op_host/, op_kernel/, or by its tail."""
    for base in (root, root / "op_host", root / "op_kernel", includer.parent):
        cand = (base / name).resolve()
        if cand.is_file() and cand.is_relative_to(root):
            return cand
    tail = pathlib.PurePosixPath(name)
    for sub in ("op_host", "op_kernel"):
        for cand in sorted((root / sub).rglob(tail.name)) if (root / sub).is_dir() else []:
            if cand.as_posix().endswith("/" + tail.as_posix()):
                return cand.resolve()
    return None


def _relpath(target: pathlib.Path, start: pathlib.Path) -> str:
    return os.path.relpath(target, start)


# ----------------------------------------------------------------------------------------------------------------------
# Driver

def _files(directory: pathlib.Path, recursive: bool) -> list[pathlib.Path]:
    if not directory.is_dir():
        return []
    found = directory.rglob("*") if recursive else directory.glob("*")
    return sorted(p for p in found if p.is_file() and p.suffix in SOURCE_SUFFIXES)


def _source(root: pathlib.Path, path: pathlib.Path, cache: dict[pathlib.Path, Source]) -> Source:
    path = path.resolve()
    if path not in cache:
        cache[path] = Source(root, path)
    return cache[path]


def kernel_side_files(root: pathlib.Path) -> list[pathlib.Path]:
    files = _files(root / "op_kernel", recursive=True)
    examples = root / "sim" / "examples"
    files += sorted(examples.glob("*.h")) if examples.is_dir() else []
    return files


def check(root: pathlib.Path) -> tuple[list[Finding], dict[str, int]]:
    root = root.resolve()
    cache: dict[pathlib.Path, Source] = {}
    scan = Scan()
    kernel_files = kernel_side_files(root)
    for path in kernel_files:
        parse_definitions(_source(root, path, cache), scan)
    findings = list(scan.findings)
    findings += check_kernel_functions(scan)
    findings += check_tiling_keys(root, cache)
    findings += check_codegen_includes(root, cache)
    findings.sort(key=lambda f: (f.path, f.line, f.rule, f.message))
    stats = {"kernel_files": len(kernel_files), "functions": len(scan.functions),
             "kernel_functions": sum(fn.is_kernel_code for fn in scan.functions),
             "host_sources": len(host_sources(root)[0])}
    return findings, stats


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Check kernel and CANN host sources for what the NPU toolchain rejects and g++ accepts: "
                    "host functions and std:: calls in kernel code, tiling keys the kernels do not declare, "
                    "includes code generation cannot resolve. See the module docstring for the rules.")
    parser.add_argument("--root", type=pathlib.Path, default=pathlib.Path(__file__).resolve().parent.parent,
                        help="the tree to check (default: this repository)")
    args = parser.parse_args(argv)
    if not args.root.is_dir():
        parser.error(f"--root {args.root} is not a directory")
    findings, stats = check(args.root)
    for f in findings:
        print(f)
    print(f"check_kernel_sources: {len(findings)} finding(s); {stats['kernel_files']} kernel-side files, "
          f"{stats['functions']} function definitions ({stats['kernel_functions']} kernel code), "
          f"{stats['host_sources']} code-generation host sources")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
