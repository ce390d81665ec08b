/* tensorlib/op_table.h — THE operator table of the elementwise unary and
 * binary ops: one X-macro row per op, from which everything about the op
 * is expanded (docs/adding-an-op.md is the recipe):
 *
 *   - its id (TL_UNARY_<ID> / TL_BINARY_<ID>, tensorlib/ops.h) and name;
 *   - which compute dtypes it has kernels for (`set`) and its result rule
 *     (`res`): the type checks of tl_op_unary / tl_op_binary (csrc/core/
 *     ops.c), with per-op `flags` for the few special rules;
 *   - the CPU kernels: element functions name_<dtype> (or scalar_math.h's
 *     tl_sm_name_<dtype> when impl is SM) become loops and table rows in
 *     csrc/core/kernels_{unary,binary}.c, one per class of `set`;
 *   - the CUDA dispatch: csrc/cuda/ew_{unary,binary}.cu instantiate the
 *     functor op_<name> (kernels.cuh; generated from scalar_math.h when
 *     impl is SM) for exactly the same `set`, so the two support matrices
 *     cannot disagree;
 *   - the Python function tensorlib.<py>(input[, other], *, [alpha=None,]
 *     out=None), the Tensor method and, by `form`, its in-place `_` form,
 *     their __text_signature__ and docstring (`doc`) (csrc/python/ops.c),
 *     and _C._op_table(), which tests/test_ops_table.py compares with
 *     tensorlib/_C.pyi and __init__.pyi.
 *
 * Columns:
 *   ID    enum suffix.
 *   name  core name (tl_op_*_name, error messages, kernel and functor
 *         names).
 *   py    Python name of the function and method.
 *   set   compute-dtype classes with kernels: letters of B (bool), I (the
 *         eight integer dtypes), F (float32, float64; float16 and bfloat16
 *         compute in float32), C (complex64, complex128), in that order:
 *         B I F C BZ ZF FC BZF ZFC BZFC.  A compute dtype outside the set
 *         is TL_ERR_TYPE "<name> is not supported for <dtype>".
 *   res   result rule.  SAME: the (promoted) input dtype.  FLOAT: integer
 *         and bool inputs compute in float32 (PyTorch's default dtype),
 *         the rest keep theirs.  BOOL: computed in the (promoted) input
 *         dtype, the result is bool.  LOGICAL: computed and returned in
 *         bool.  REAL: complex gives its real dtype (abs).  DOUBLE:
 *         float64, complex128 for complex inputs (float_power); an out=
 *         or in-place operand of another dtype is refused.
 *   impl  LOCAL: the element functions name_<N> are written in the kernel
 *         file and the CUDA functor op_<name> in kernels.cuh.  SM: both
 *         come from scalar_math.h's tl_sm_<name>_<N> (one copy).
 *   form  Python forms.  IP: function, method and in-place method.
 *         NOIP: no in-place form (the result dtype differs).  ALPHA_IP: IP
 *         plus alpha= (add, sub).  CUSTOM: bound by hand in
 *         csrc/python/ops.c (an extra argument: div's rounding_mode,
 *         round's decimals).
 *   flags TL_OPF_* bits below (0 for none).
 *   hint  appended to the refusal message ("" for none).
 *   doc   the docstring's first line.
 *
 * C/C++-neutral and public (tensorlib/ops.h includes it for the enums):
 * macros only. */
#ifndef TENSORLIB_OP_TABLE_H
#define TENSORLIB_OP_TABLE_H

/* ---- dtype classes ------------------------------------------------------ */

#define TL_OPCL_B 1u /* bool */
#define TL_OPCL_Z 2u /* the integers: uint8 ... uint64 */
#define TL_OPCL_F 4u /* float32, float64 (and float16/bfloat16 via float32) */
#define TL_OPCL_C 8u /* complex64, complex128 */

/* TL_OPSET_<set>(X, arg) calls X(arg, <class>) for each class of the set;
 * TL_OPSET_MASK(set) is its TL_OPCL_ bits. */
#define TL_OPSET_B(X, a) X(a, B)
#define TL_OPSET_Z(X, a) X(a, Z)
#define TL_OPSET_F(X, a) X(a, F)
#define TL_OPSET_C(X, a) X(a, C)
#define TL_OPSET_BZ(X, a) X(a, B) X(a, Z)
#define TL_OPSET_ZF(X, a) X(a, Z) X(a, F)
#define TL_OPSET_FC(X, a) X(a, F) X(a, C)
#define TL_OPSET_BZF(X, a) X(a, B) X(a, Z) X(a, F)
#define TL_OPSET_ZFC(X, a) X(a, Z) X(a, F) X(a, C)
#define TL_OPSET_BZFC(X, a) X(a, B) X(a, Z) X(a, F) X(a, C)
#define TL_OPSET_BIT_(a, c) TL_OPCL_##c |
#define TL_OPSET_MASK(set) (TL_OPSET_##set(TL_OPSET_BIT_, ) 0u)

/* ---- result rules ------------------------------------------------------- */

#define TL_OPR_SAME 0
#define TL_OPR_FLOAT 1
#define TL_OPR_BOOL 2
#define TL_OPR_LOGICAL 3
#define TL_OPR_REAL 4
#define TL_OPR_DOUBLE 5

/* ---- flags ------------------------------------------------------------ */

#define TL_OPF_INPLACE 0x1u   /* from form: has the in-place `_` method */
#define TL_OPF_ALPHA 0x2u     /* from form: takes alpha (a + alpha * b) */
#define TL_OPF_CUSTOM_PY 0x4u /* from form: hand-written Python binding */
/* Integer divisor scanned for zero first: TL_ERR_ZERO_DIVISION. */
#define TL_OPF_ZERO_DIV 0x10u
/* A bool operand (either side) is refused, with the hint. */
#define TL_OPF_NO_BOOL_OPERAND 0x20u
/* Integer inputs (not bool) are returned as a copy (floor of an int). */
#define TL_OPF_INT_IDENTITY 0x40u
/* A bool input computes in int64 (square: PyTorch's pow(x, 2)). */
#define TL_OPF_BOOL_AS_INT64 0x80u
/* Note [Negative integer powers] in ops.c: a Python-scalar exponent is
 * judged (negative on integers; out of range of an integer/half result). */
#define TL_OPF_POW_EXPONENT 0x100u
/* Note [Logical ops in the common dtype] in ops.c: a 0-d operand is cast
 * to the common dtype before the bool kernel tests it. */
#define TL_OPF_LOGICAL_COMMON 0x200u
/* float16/bfloat16 compute in the dtype itself, not in float32 (the
 * bit-level nextafter; its 16-bit loops in kernels_binary.c and
 * ew_binary.cu). */
#define TL_OPF_HALF_IN_DTYPE 0x400u

#define TL_OPFORM_IP TL_OPF_INPLACE
#define TL_OPFORM_NOIP 0u
#define TL_OPFORM_ALPHA_IP (TL_OPF_INPLACE | TL_OPF_ALPHA)
#define TL_OPFORM_CUSTOM TL_OPF_CUSTOM_PY
/* Every flag of a row: its form's and its flags column. */
#define TL_OP_FLAGS(form, flags) (TL_OPFORM_##form | (flags))

/* ---- the unary ops ---------------------------------------------------------
 * X(ID, name, py, set, res, impl, form, flags, hint, doc) */
#define TL_UNARY_OPS(X)                                                     \
    X(NEG, neg, neg, ZFC, SAME, LOCAL, IP, 0,                               \
      "; to invert a mask use ~mask (logical_not)",                         \
      "-input, elementwise (unsigned integers wrap).")                      \
    X(ABS, abs, abs, ZFC, REAL, LOCAL, IP, 0, "",                           \
      "|input|; complex gives its real dtype (hypot).")                     \
    X(SIGN, sign, sign, BZF, SAME, LOCAL, IP, 0,                            \
      "; sgn() gives z / |z| for complex",                                  \
      "-1, 0 or 1 by the sign of input (NaN stays NaN).")                   \
    X(SGN, sgn, sgn, BZFC, SAME, LOCAL, IP, 0, "",                          \
      "sign(); for complex z / |z| (0 at 0).")                              \
    X(SQRT, sqrt, sqrt, FC, FLOAT, LOCAL, IP, 0, "",                        \
      "Square root; integers give float32.")                                \
    X(RSQRT, rsqrt, rsqrt, FC, FLOAT, LOCAL, IP, 0, "",                     \
      "1 / sqrt(input); integers give float32.")                            \
    X(EXP, exp, exp, FC, FLOAT, LOCAL, IP, 0, "",                           \
      "e ** input; integers give float32.")                                 \
    X(EXPM1, expm1, expm1, FC, FLOAT, LOCAL, IP, 0, "",                     \
      "exp(input) - 1, accurate near 0; integers give float32.")            \
    X(LOG, log, log, FC, FLOAT, LOCAL, IP, 0, "",                           \
      "Natural logarithm; integers give float32.")                          \
    X(LOG1P, log1p, log1p, FC, FLOAT, LOCAL, IP, 0, "",                     \
      "log(1 + input), accurate near 0; integers give float32.")            \
    X(LOG2, log2, log2, FC, FLOAT, LOCAL, IP, 0, "",                        \
      "Base-2 logarithm; integers give float32.")                           \
    X(LOG10, log10, log10, FC, FLOAT, LOCAL, IP, 0, "",                     \
      "Base-10 logarithm; integers give float32.")                          \
    X(SIN, sin, sin, FC, FLOAT, LOCAL, IP, 0, "",                           \
      "Sine (radians); integers give float32.")                             \
    X(COS, cos, cos, FC, FLOAT, LOCAL, IP, 0, "",                           \
      "Cosine (radians); integers give float32.")                           \
    X(TAN, tan, tan, FC, FLOAT, LOCAL, IP, 0, "",                           \
      "Tangent (radians); integers give float32.")                          \
    X(TANH, tanh, tanh, FC, FLOAT, LOCAL, IP, 0, "",                        \
      "Hyperbolic tangent; integers give float32.")                         \
    X(SIGMOID, sigmoid, sigmoid, FC, FLOAT, LOCAL, IP, 0, "",               \
      "1 / (1 + exp(-input)); integers give float32.")                      \
    X(RELU, relu, relu, ZF, SAME, LOCAL, IP, 0, "",                         \
      "max(input, 0) (NaN stays NaN).")                                     \
    X(FLOOR, floor, floor, F, SAME, LOCAL, IP, TL_OPF_INT_IDENTITY, "",     \
      "Largest integer <= input (integers: a copy).")                       \
    X(CEIL, ceil, ceil, F, SAME, LOCAL, IP, TL_OPF_INT_IDENTITY, "",        \
      "Smallest integer >= input (integers: a copy).")                      \
    X(ROUND, round, round, F, SAME, LOCAL, CUSTOM, TL_OPF_INT_IDENTITY, "", \
      "Half to even, at 10**-decimals.")                                    \
    X(TRUNC, trunc, trunc, F, SAME, LOCAL, IP, TL_OPF_INT_IDENTITY, "",     \
      "input rounded toward zero (integers: a copy).")                      \
    X(RECIPROCAL, reciprocal, reciprocal, FC, FLOAT, LOCAL, IP, 0, "",      \
      "1 / input; integers give float32.")                                  \
    X(SQUARE, square, square, ZFC, SAME, LOCAL, IP, TL_OPF_BOOL_AS_INT64,   \
      "", "input * input (bool gives int64).")                              \
    X(LOGICAL_NOT, logical_not, logical_not, B, LOGICAL, LOCAL, IP, 0, "",  \
      "not input (nonzero is true), as bool.")                              \
    X(BITWISE_NOT, bitwise_not, bitwise_not, BZ, SAME, LOCAL, IP, 0, "",    \
      "~input for integers and bool (logical not).")                        \
    X(ISNAN, isnan, isnan, BZFC, BOOL, LOCAL, NOIP, 0, "",                  \
      "Where input is NaN, as bool.")                                       \
    X(ISINF, isinf, isinf, BZFC, BOOL, LOCAL, NOIP, 0, "",                  \
      "Where input is +-inf, as bool.")                                     \
    X(ISFINITE, isfinite, isfinite, BZFC, BOOL, LOCAL, NOIP, 0, "",         \
      "Where input is neither NaN nor infinite, as bool.")                  \
    X(EXP2, exp2, exp2, FC, FLOAT, SM, IP, 0, "",                           \
      "2 ** input; integers give float32.")                                 \
    X(ASIN, asin, asin, FC, FLOAT, SM, IP, 0, "",                           \
      "Inverse sine (radians); integers give float32.")                     \
    X(ACOS, acos, acos, FC, FLOAT, SM, IP, 0, "",                           \
      "Inverse cosine (radians); integers give float32.")                   \
    X(ATAN, atan, atan, FC, FLOAT, SM, IP, 0, "",                           \
      "Inverse tangent (radians); integers give float32.")                  \
    X(SINH, sinh, sinh, F, FLOAT, SM, IP, 0, "",                            \
      "Hyperbolic sine; integers give float32.")                            \
    X(COSH, cosh, cosh, F, FLOAT, SM, IP, 0, "",                            \
      "Hyperbolic cosine; integers give float32.")                          \
    X(ASINH, asinh, asinh, FC, FLOAT, SM, IP, 0, "",                        \
      "Inverse hyperbolic sine; integers give float32.")                    \
    X(ACOSH, acosh, acosh, FC, FLOAT, SM, IP, 0, "",                        \
      "Inverse hyperbolic cosine; integers give float32.")                  \
    X(ATANH, atanh, atanh, FC, FLOAT, SM, IP, 0, "",                        \
      "Inverse hyperbolic tangent; integers give float32.")                 \
    X(DEG2RAD, deg2rad, deg2rad, F, FLOAT, SM, IP, 0, "",                   \
      "input * pi / 180; integers give float32.")                           \
    X(RAD2DEG, rad2deg, rad2deg, F, FLOAT, SM, IP, 0, "",                   \
      "input * 180 / pi; integers give float32.")                           \
    X(SINC, sinc, sinc, F, FLOAT, SM, IP, 0, "",                            \
      "sin(pi x) / (pi x), 1 at 0; integers give float32.")                 \
    X(ERF, erf, erf, F, FLOAT, SM, IP, 0, "",                               \
      "Error function; integers give float32.")                             \
    X(ERFC, erfc, erfc, F, FLOAT, SM, IP, 0, "",                            \
      "1 - erf(input), accurate for large input; integers give float32.")   \
    X(ERFINV, erfinv, erfinv, F, FLOAT, SM, IP, 0, "",                      \
      "Inverse error function on [-1, 1]; integers give float32.")          \
    X(LGAMMA, lgamma, lgamma, F, FLOAT, SM, IP, 0, "",                      \
      "log(|gamma(input)|); integers give float32.")                        \
    X(DIGAMMA, digamma, digamma, F, FLOAT, SM, IP, 0, "",                   \
      "Logarithmic derivative of gamma; integers give float32.")            \
    X(LOGIT, logit, logit, F, FLOAT, SM, IP, 0, "",                         \
      "log(input / (1 - input)); integers give float32.")                   \
    X(FRAC, frac, frac, F, SAME, SM, IP, 0, "",                             \
      "input - trunc(input), with the sign of input.")                      \
    X(SIGNBIT, signbit, signbit, BZF, BOOL, SM, NOIP, 0, "",                \
      "Where the sign bit is set (-0.0 too), as bool.")                     \
    X(ISPOSINF, isposinf, isposinf, BZF, BOOL, SM, NOIP, 0, "",             \
      "Where input is +inf, as bool.")                                      \
    X(ISNEGINF, isneginf, isneginf, BZF, BOOL, SM, NOIP, 0, "",             \
      "Where input is -inf, as bool.")                                      \
    X(ISREAL, isreal, isreal, BZFC, BOOL, SM, NOIP, 0, "",                  \
      "Where the imaginary part is 0 (true for real dtypes), as bool.")

/* Other names tl_op_unary_from_name accepts: X(alias, ID). */
#define TL_UNARY_ALIASES(X)                                                 \
    X(negative, NEG) X(absolute, ABS) X(rint, ROUND) X(fix, TRUNC)          \
    X(invert, BITWISE_NOT) X(arcsin, ASIN) X(arccos, ACOS)                  \
    X(arctan, ATAN) X(arcsinh, ASINH) X(arccosh, ACOSH) X(arctanh, ATANH)
/* Python aliases (function and method, no in-place form): X(py, ID,
 * sig), sig as the op's: ALPHA for add/sub, else PLAIN (tests/
 * test_ops_table.py checks that it is). */
#define TL_UNARY_PY_ALIASES(X)                                              \
    X(negative, NEG, PLAIN) X(arcsin, ASIN, PLAIN) X(arccos, ACOS, PLAIN)   \
    X(arctan, ATAN, PLAIN) X(arcsinh, ASINH, PLAIN)                         \
    X(arccosh, ACOSH, PLAIN) X(arctanh, ATANH, PLAIN)

/* ---- the binary ops -------------------------------------------------------
 * X(ID, name, py, set, res, impl, form, flags, hint, doc).  "Promoted" is
 * tl_result_type(input, other). */
#define TL_BINARY_OPS(X)                                                    \
    X(ADD, add, add, BZFC, SAME, LOCAL, ALPHA_IP, 0, "",                    \
      "input + alpha * other (bool + bool is logical or).")                 \
    X(SUB, sub, sub, ZFC, SAME, LOCAL, ALPHA_IP, TL_OPF_NO_BOOL_OPERAND,    \
      "; to invert a mask use ~mask (logical_not), for the elements that "  \
      "differ a ^ b (logical_xor)",                                         \
      "input - alpha * other.")                                             \
    X(MUL, mul, mul, BZFC, SAME, LOCAL, IP, 0, "",                          \
      "input * other (bool: logical and).")                                 \
    X(DIV, div, true_divide, FC, FLOAT, LOCAL, NOIP, 0, "",                 \
      "True division input / other; integers give float32.")                \
    X(FLOOR_DIVIDE, floor_divide, floor_divide, ZF, SAME, SM, IP,           \
      TL_OPF_ZERO_DIV, "",                                                  \
      "input // other, rounded toward -inf (integer division by zero "      \
      "raises ZeroDivisionError).")                                         \
    X(REMAINDER, remainder, remainder, ZF, SAME, SM, IP, TL_OPF_ZERO_DIV,   \
      "", "input % other with the sign of other (Python's rule).")          \
    X(POW, pow, pow, ZFC, SAME, LOCAL, IP, TL_OPF_POW_EXPONENT, "",         \
      "input ** other.")                                                    \
    X(MAXIMUM, maximum, maximum, BZF, SAME, LOCAL, IP, 0,                   \
      " (complex numbers have no order)",                                   \
      "Elementwise maximum, NaN propagating.")                              \
    X(MINIMUM, minimum, minimum, BZF, SAME, LOCAL, IP, 0,                   \
      " (complex numbers have no order)",                                   \
      "Elementwise minimum, NaN propagating.")                              \
    X(EQ, eq, eq, BZFC, BOOL, LOCAL, IP, 0, "",                             \
      "input == other, as bool.")                                           \
    X(NE, ne, ne, BZFC, BOOL, LOCAL, IP, 0, "",                             \
      "input != other, as bool.")                                           \
    X(LT, lt, lt, BZF, BOOL, LOCAL, IP, 0,                                  \
      " (complex numbers have no order)",                                   \
      "input < other, as bool.")                                            \
    X(LE, le, le, BZF, BOOL, LOCAL, IP, 0,                                  \
      " (complex numbers have no order)",                                   \
      "input <= other, as bool.")                                           \
    X(GT, gt, gt, BZF, BOOL, LOCAL, IP, 0,                                  \
      " (complex numbers have no order)",                                   \
      "input > other, as bool.")                                            \
    X(GE, ge, ge, BZF, BOOL, LOCAL, IP, 0,                                  \
      " (complex numbers have no order)",                                   \
      "input >= other, as bool.")                                           \
    X(LOGICAL_AND, logical_and, logical_and, B, LOGICAL, LOCAL, IP,         \
      TL_OPF_LOGICAL_COMMON, "", "input and other (nonzero is true).")      \
    X(LOGICAL_OR, logical_or, logical_or, B, LOGICAL, LOCAL, IP,            \
      TL_OPF_LOGICAL_COMMON, "", "input or other (nonzero is true).")       \
    X(LOGICAL_XOR, logical_xor, logical_xor, B, LOGICAL, LOCAL, IP,         \
      TL_OPF_LOGICAL_COMMON, "", "input xor other (nonzero is true).")      \
    X(BITWISE_AND, bitwise_and, bitwise_and, BZ, SAME, LOCAL, IP, 0, "",    \
      "input & other (integers and bool).")                                 \
    X(BITWISE_OR, bitwise_or, bitwise_or, BZ, SAME, LOCAL, IP, 0, "",       \
      "input | other (integers and bool).")                                 \
    X(BITWISE_XOR, bitwise_xor, bitwise_xor, BZ, SAME, LOCAL, IP, 0, "",    \
      "input ^ other (integers and bool).")                                 \
    X(LSHIFT, lshift, bitwise_left_shift, Z, SAME, SM, IP, 0, "",           \
      "input << other; a count < 0 or >= the bit width gives 0.")           \
    X(RSHIFT, rshift, bitwise_right_shift, Z, SAME, SM, IP, 0, "",          \
      "input >> other; a count < 0 or >= the bit width gives 0 (-1 for a "  \
      "negative input).")                                                   \
    X(ATAN2, atan2, atan2, F, FLOAT, SM, IP, 0, "",                         \
      "atan(input / other) in the right quadrant; integers give float32.")  \
    X(HYPOT, hypot, hypot, F, SAME, SM, IP, 0, "",                          \
      "sqrt(input ** 2 + other ** 2) without overflow.")                    \
    X(LOGADDEXP, logaddexp, logaddexp, F, SAME, SM, IP, 0, "",              \
      "log(exp(input) + exp(other)) without overflow.")                     \
    X(LOGADDEXP2, logaddexp2, logaddexp2, F, SAME, SM, IP, 0, "",           \
      "log2(2 ** input + 2 ** other) without overflow.")                    \
    X(XLOGY, xlogy, xlogy, F, FLOAT, SM, IP, 0, "",                         \
      "input * log(other), 0 where input is 0; integers give float32.")     \
    X(FMOD, fmod, fmod, ZF, SAME, SM, IP, TL_OPF_ZERO_DIV, "",              \
      "C's fmod: the remainder with the sign of input.")                    \
    X(COPYSIGN, copysign, copysign, F, FLOAT, SM, IP, 0, "",                \
      "|input| with the sign of other; integers give float32.")             \
    X(NEXTAFTER, nextafter, nextafter, F, SAME, SM, IP,                     \
      TL_OPF_HALF_IN_DTYPE, "",                                             \
      "The next float after input toward other.")                           \
    X(LDEXP, ldexp, ldexp, F, FLOAT, SM, IP, 0, "",                         \
      "input * 2 ** other; integers give float32.")                         \
    X(GCD, gcd, gcd, Z, SAME, SM, IP, 0, "",                                \
      "Greatest common divisor (>= 0) of integers.")                        \
    X(LCM, lcm, lcm, Z, SAME, SM, IP, 0, "",                                \
      "Least common multiple (>= 0) of integers.")                          \
    X(HEAVISIDE, heaviside, heaviside, BZF, SAME, SM, IP, 0, "",            \
      "0 where input < 0, 1 where > 0, other where input is 0.")            \
    X(FMAX, fmax, fmax, BZF, SAME, SM, IP, 0,                                \
      " (complex numbers have no order)",                                   \
      "Elementwise maximum, ignoring a NaN operand.")                       \
    X(FMIN, fmin, fmin, BZF, SAME, SM, IP, 0,                                \
      " (complex numbers have no order)",                                   \
      "Elementwise minimum, ignoring a NaN operand.")                       \
    X(FLOAT_POWER, float_power, float_power, FC, DOUBLE, SM, IP, 0, "",     \
      "input ** other in float64 (complex128 for complex operands).")

/* Other names tl_op_binary_from_name accepts: X(alias, ID). */
#define TL_BINARY_ALIASES(X)                                                \
    X(subtract, SUB) X(multiply, MUL) X(true_divide, DIV) X(divide, DIV)    \
    X(fmod_floor, REMAINDER) X(greater, GT) X(greater_equal, GE)            \
    X(less, LT) X(less_equal, LE) X(not_equal, NE)                          \
    X(bitwise_left_shift, LSHIFT) X(bitwise_right_shift, RSHIFT)            \
    X(left_shift, LSHIFT) X(right_shift, RSHIFT) X(arctan2, ATAN2)
/* Python aliases (function and method with the op's signature, no
 * in-place form): X(py, ID, sig) as above.  div/divide (rounding_mode=)
 * are bound by hand. */
#define TL_BINARY_PY_ALIASES(X)                                             \
    X(subtract, SUB, ALPHA) X(multiply, MUL, PLAIN) X(arctan2, ATAN2, PLAIN)

#endif /* TENSORLIB_OP_TABLE_H */
