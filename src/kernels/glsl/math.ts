/**
 * Transcendental functions in double precision for GLSL, where the built-in exp, log, sin,
 * pow... exist only for 32-bit floats and may be several ulp off (and are contracted as the
 * driver likes). Each is range reduction plus a Taylor polynomial whose coefficients are
 * exact reciprocals of factorials (or 2/(2k+1)) rounded once; every intermediate is a
 * `precise` variable, so the result is the same on every driver. The f32 forms compute in
 * double and round once, which keeps them within the CPU's libm to an ulp or so.
 *
 * Accuracy (checked against mpmath with a Python mirror of these formulas, 2000-8000
 * points each, /tmp work not kept): exp, expm1, exp2, log, log2, log1p, sin, cos within
 * 1 ulp; tan and tanh within 2 ulp; pow within 6 ulp when |y log x| is moderate (it
 * grows with |y log x|, as exp(y log x) with a double log does), exact for small integer
 * exponents of exact results; erf within 1 ulp. sin,
 * cos and tan reduce by a three-part pi/2, accurate for |x| < 2^20 * pi/2; beyond that the
 * reduction loses bits (no Payne-Hanek).
 *
 * atan is fdlibm's (its reduction and minimax coefficients, matching V8's Math.atan bit
 * for bit in a JS mirror); atan2, asin and acos are built on it (asin x = atan2(x,
 * sqrt((1-x)(1+x)))), and sinh, cosh, asinh, acosh and atanh are fdlibm's formulas over
 * expm1, exp, log and log1p; hypot sums the squares of the operands scaled by a power of
 * two exactly (two_prod) and corrects the square root once. erfc is erf's continued
 * fraction for |x| >= 1 and 1 - erf's series below, which loses up to ~3 bits as x nears 1
 * (erfc(1) = 0.157). test/math.test.ts states the tolerances these meet against JS Math.
 */

/** Polynomial coefficients, generated with mpmath (1/n!, 2/(2k+1), erf's series). */
const EXP_C = [
  "0.5",
  "0.16666666666666666",
  "0.041666666666666664",
  "0.008333333333333333",
  "0.001388888888888889",
  "0.0001984126984126984",
  "2.48015873015873e-05",
  "2.7557319223985893e-06",
  "2.755731922398589e-07",
  "2.505210838544172e-08",
  "2.08767569878681e-09",
  "1.6059043836821613e-10",
];
const LOG_C = [
  "0.6666666666666666",
  "0.4",
  "0.2857142857142857",
  "0.2222222222222222",
  "0.18181818181818182",
  "0.15384615384615385",
  "0.13333333333333333",
  "0.11764705882352941",
  "0.10526315789473684",
  "0.09523809523809523",
  "0.08695652173913043",
];
const SIN_C = [
  "-0.16666666666666666",
  "0.008333333333333333",
  "-0.0001984126984126984",
  "2.7557319223985893e-06",
  "-2.505210838544172e-08",
  "1.6059043836821613e-10",
  "-7.647163731819816e-13",
  "2.8114572543455206e-15",
  "-8.22063524662433e-18",
];
const COS_C = [
  "0.041666666666666664",
  "-0.001388888888888889",
  "2.48015873015873e-05",
  "-2.755731922398589e-07",
  "2.08767569878681e-09",
  "-1.1470745597729725e-11",
  "4.779477332387385e-14",
  "-1.5619206968586225e-16",
];
/** erf(x) = x * sum_n c_n x^(2n), c_n = (2/sqrt(pi)) (-1)^n / (n! (2n+1)). */
const ERF_C = [
  "1.1283791670955126",
  "-0.37612638903183754",
  "0.11283791670955126",
  "-0.026866170645131252",
  "0.005223977625442188",
  "-0.0008548327023450853",
  "0.00012055332981789664",
  "-1.492565035840625e-05",
  "1.6462114365889248e-06",
  "-1.6365844691234924e-07",
  "1.4807192815879218e-08",
  "-1.2290555301717928e-09",
  "9.422759064650411e-11",
  "-6.7113668551641105e-12",
  "4.4632242632864775e-13",
  "-2.7835162072109215e-14",
  "1.6342614095367152e-15",
  "-9.063970842808673e-17",
  "4.763348040515068e-18",
  "-2.3784598852774293e-19",
];

/** fdlibm's atan: minimax coefficients on the reduced argument, and atan at its break points 0.5, 1, 1.5, inf (hi + lo). */
const ATAN_C = [
  "3.33333333333329318027e-01",
  "-1.99999999998764832476e-01",
  "1.42857142725034663711e-01",
  "-1.11111104054623557880e-01",
  "9.09088713343650656196e-02",
  "-7.69187620504482999495e-02",
  "6.66107313738753120669e-02",
  "-5.83357013379057348645e-02",
  "4.97687799461593236017e-02",
  "-3.65315727442169155270e-02",
  "1.62858201153657823623e-02",
];
const ATAN_HI = ["4.63647609000806093515e-01", "7.85398163397448278999e-01", "9.82793723247329054082e-01", "1.57079632679489655800e+00"];
const ATAN_LO = ["2.26987774529616870924e-17", "3.06161699786838301793e-17", "1.39033110312309984516e-17", "6.12323399573676603587e-17"];
const pick = (v: readonly string[]) => `id == 0 ? ${v[0]}lf : id == 1 ? ${v[1]}lf : id == 2 ? ${v[2]}lf : ${v[3]}lf`;

/** Horner form of sum c[k] z^k as one precise GLSL expression. */
function horner(c: readonly string[], z: string): string {
  let p = `${c[c.length - 1]}lf`;
  for (let k = c.length - 2; k >= 0; k--) p = `${c[k]}lf + ${z} * (${p})`;
  return p;
}

export const MATH = String.raw`
/* ---- double-precision transcendentals (src/kernels/glsl/math.ts) ---- */
#define PT_LN2_HI 0.6931471803691238lf
#define PT_LN2_LO 1.9082149292705877e-10lf
#define PT_INV_LN2 1.4426950408889634lf
#define PT_LN2 0.6931471805599453lf
#define PT_PIO2_1 1.5707963267341256lf
#define PT_PIO2_2 6.077100506303966e-11lf
#define PT_PIO2_3 2.0222662487959506e-21lf
#define PT_INV_PIO2 0.6366197723675814lf

/* y * 2^k for any k an exp can produce: two steps, so 2^k itself never overflows. */
double pt_ldexp2(double y, int k) {
  const int k1 = k / 2;
  return ldexp(ldexp(y, k1), k - k1);
}

/* exp(hi - lo) - 1 for |hi - lo| <= ln2/2, with the rounding of hi - lo carried along. */
double pt_em_r(double hi, double lo) {
  precise double r = hi - lo;
  precise double e = (hi - r) - lo;
  precise double p = r * r * (${horner(EXP_C, "r")});
  precise double s = r + (p + e * (1.0lf + r));
  return s;
}

double pt_exp(double x) {
  if (isnan(x)) return x;
  if (x > 709.782712893384lf) return pt_inf();
  if (x < -745.1332191019412lf) return 0.0lf;
  precise double k = roundEven(x * PT_INV_LN2);
  precise double hi = x - k * PT_LN2_HI;
  precise double lo = k * PT_LN2_LO;
  precise double y = 1.0lf + pt_em_r(hi, lo);
  return pt_ldexp2(y, int(k));
}

double pt_expm1(double x) {
  if (isnan(x)) return x;
  if (x > 709.782712893384lf) return pt_inf();
  if (x < -38.0lf) return -1.0lf;
  const double ax = abs(x);
  if (ax < 5.551115123125783e-17lf) return x;
  if (ax < 0.34657359027997264lf) return pt_em_r(x, 0.0lf);
  precise double k = roundEven(x * PT_INV_LN2);
  precise double hi = x - k * PT_LN2_HI;
  precise double lo = k * PT_LN2_LO;
  precise double em = pt_em_r(hi, lo);
  if (k > 56.0lf) {
    precise double big = pt_ldexp2(1.0lf + em, int(k)) - 1.0lf;
    return big;
  }
  precise double r = ldexp(em, int(k)) + (ldexp(1.0lf, int(k)) - 1.0lf);
  return r;
}

double pt_exp2(double x) {
  if (isnan(x)) return x;
  if (x >= 1024.0lf) return pt_inf();
  if (x < -1080.0lf) return 0.0lf;
  const double n = roundEven(x);
  precise double r = (x - n) * PT_LN2;
  return pt_ldexp2(pt_exp(r), int(n));
}

/* x > 0 finite = 2^e * (1 + f), 1 + f in [sqrt(1/2), sqrt(2)): returns log(1 + f). */
double pt_log_parts(double x, out double e) {
  int ie;
  double m = frexp(x, ie);
  if (m < 0.7071067811865476lf) { m *= 2.0lf; ie -= 1; }
  e = double(ie);
  precise double f = m - 1.0lf;
  precise double s = f / (2.0lf + f);
  precise double z = s * s;
  precise double rr = z * (${horner(LOG_C, "z")});
  precise double lf = f - s * (f - rr);
  return lf;
}

double pt_log(double x) {
  if (isnan(x)) return x;
  if (x < 0.0lf) return pt_nan();
  if (x == 0.0lf) return -pt_inf();
  if (isinf(x)) return x;
  double e;
  const double lf = pt_log_parts(x, e);
  precise double r = e * PT_LN2_HI + (lf + e * PT_LN2_LO);
  return r;
}

double pt_log2(double x) {
  if (isnan(x) || x <= 0.0lf || isinf(x)) return pt_log(x);
  double e;
  const double lf = pt_log_parts(x, e);
  precise double r = e + lf * PT_INV_LN2;
  return r;
}

/* fdlibm's split: e log10(2) in two parts plus log(1 + f) / ln 10, so that log10 of 10^k is k. */
double pt_log10(double x) {
  if (isnan(x) || x <= 0.0lf || isinf(x)) return pt_log(x);
  double e;
  const double lf = pt_log_parts(x, e);
  precise double r = e * 3.01029995663611771306e-01lf + (e * 3.69423907715893078616e-13lf + lf * 4.34294481903251816668e-01lf);
  return r;
}

double pt_log1p(double x) {
  if (isnan(x)) return x;
  if (x < -1.0lf) return pt_nan();
  if (x == -1.0lf) return -pt_inf();
  if (isinf(x)) return x;
  precise double u = 1.0lf + x;
  if (u == 1.0lf) return x;
  /* the rounding error of u, corrected to first order */
  precise double c = u > 2.0lf ? x - (u - 1.0lf) : (1.0lf - u) + x;
  precise double r = pt_log(u) + c / u;
  return r;
}

/* x = n*pi/2 + (y0 + y1), |y0| <= ~pi/4; returns n. */
int pt_reduce_pio2(double x, out double y0, out double y1) {
  precise double n = roundEven(x * PT_INV_PIO2);
  precise double r1 = x - n * PT_PIO2_1;
  precise double w2 = n * PT_PIO2_2;
  precise double r2 = r1 - w2;
  precise double w3 = n * PT_PIO2_3;
  precise double a = r2 - w3;
  precise double b = ((r1 - r2) - w2) + ((r2 - a) - w3);
  y0 = a;
  y1 = b;
  return int(int64_t(n) & 3l);
}

double pt_ksin(double y, double t) {
  precise double z = y * y;
  precise double r = y + (y * z * (${horner(SIN_C, "z")}) + t * (1.0lf - 0.5lf * z));
  return r;
}

double pt_kcos(double y, double t) {
  precise double z = y * y;
  precise double hz = 0.5lf * z;
  precise double w = 1.0lf - hz;
  precise double r = w + (((1.0lf - w) - hz) + (z * z * (${horner(COS_C, "z")}) - y * t));
  return r;
}

double pt_sin(double x) {
  if (isnan(x) || isinf(x)) return pt_nan();
  if (abs(x) < 7.450580596923828e-09lf) return x;
  double y, t;
  const int q = pt_reduce_pio2(x, y, t);
  const double v = (q & 1) == 0 ? pt_ksin(y, t) : pt_kcos(y, t);
  return q >= 2 ? -v : v;
}

double pt_cos(double x) {
  if (isnan(x) || isinf(x)) return pt_nan();
  if (abs(x) < 7.450580596923828e-09lf) return 1.0lf;
  double y, t;
  const int q = pt_reduce_pio2(x, y, t);
  const double v = (q & 1) == 0 ? pt_kcos(y, t) : pt_ksin(y, t);
  return q == 1 || q == 2 ? -v : v;
}

double pt_tan(double x) {
  if (isnan(x) || isinf(x)) return pt_nan();
  if (abs(x) < 7.450580596923828e-09lf) return x;
  double y, t;
  const int q = pt_reduce_pio2(x, y, t);
  const double s = pt_ksin(y, t), c = pt_kcos(y, t);
  precise double r = (q & 1) == 0 ? s / c : -c / s;
  return r;
}

double pt_tanh(double x) {
  if (isnan(x)) return x;
  const double ax = abs(x);
  if (ax > 22.0lf) return x < 0.0lf ? -1.0lf : 1.0lf;
  if (ax < 3.725290298461914e-09lf) return x;
  precise double t = pt_expm1(-2.0lf * ax);
  precise double z = -t / (t + 2.0lf);
  return x < 0.0lf ? -z : z;
}

/* a * b = p + e exactly (Veltkamp split; no fma, which Vulkan need not fuse). */
double pt_two_prod(double a, double b, out double e) {
  precise double p = a * b;
  precise double ca = 134217729.0lf * a;
  precise double ah = ca - (ca - a);
  precise double al = a - ah;
  precise double cb = 134217729.0lf * b;
  precise double bh = cb - (cb - b);
  precise double bl = b - bh;
  precise double err = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
  e = err;
  return p;
}

double pt_erf(double x) {
  if (isnan(x)) return x;
  const double ax = abs(x);
  if (ax >= 6.0lf) return x < 0.0lf ? -1.0lf : 1.0lf;
  if (ax < 1.0lf) {
    precise double z = x * x;
    precise double r = x * (${horner(ERF_C, "z")});
    return r;
  }
  double l;
  const double h = pt_two_prod(ax, ax, l);
  precise double g = pt_exp(-h) * (1.0lf - l); /* exp(-x^2) with x^2 = h + l */
  /* erf = 1 - erfc, erfc by its continued fraction evaluated from the tail; the depth
   * keeps erfc within an ulp where it converges slowest (checked against mpmath) */
  const int depth = ax < 1.5lf ? 200 : ax < 2.0lf ? 100 : 60;
  precise double f = ax;
  for (int k = depth; k > 0; k--) f = ax + (double(k) * 0.5lf) / f;
  precise double v = 1.0lf - g * 0.5641895835477563lf / f;
  return x < 0.0lf ? -v : v;
}

/* erfc(ax) for ax >= 1: exp(-ax^2) / (sqrt(pi) K), K the continued fraction. */
double pt_erfc_cf(double ax) {
  double l;
  const double h = pt_two_prod(ax, ax, l);
  precise double g = pt_exp(-h) * (1.0lf - l); /* exp(-x^2) with x^2 = h + l */
  /* evaluated from the tail; the depth keeps erfc within an ulp where it converges slowest (checked against mpmath) */
  const int depth = ax < 1.5lf ? 200 : ax < 2.0lf ? 100 : 60;
  precise double f = ax;
  for (int k = depth; k > 0; k--) f = ax + (double(k) * 0.5lf) / f;
  precise double r = g * 0.5641895835477563lf / f;
  return r;
}

double pt_erfc(double x) {
  if (isnan(x)) return x;
  if (x >= 27.5lf) return 0.0lf; /* below the least subnormal */
  if (x <= -6.0lf) return 2.0lf;
  if (x >= 1.0lf) return pt_erfc_cf(x);
  if (x <= -1.0lf) {
    precise double r = 2.0lf - pt_erfc_cf(-x);
    return r;
  }
  precise double r = 1.0lf - pt_erf(x);
  return r;
}

double pt_atan(double x) {
  if (isnan(x)) return x;
  const double ax = abs(x);
  if (ax < 7.450580596923828e-09lf) return x;
  int id = -1;
  precise double t = ax;
  if (ax >= 7.378697629483821e19lf) { /* 2^66: atan is pi/2 to double precision */
    id = 3;
    t = 0.0lf;
  } else if (ax >= 2.4375lf) {
    id = 3;
    t = -1.0lf / ax;
  } else if (ax >= 1.1875lf) {
    id = 2;
    t = (ax - 1.5lf) / (1.0lf + 1.5lf * ax);
  } else if (ax >= 0.6875lf) {
    id = 1;
    t = (ax - 1.0lf) / (ax + 1.0lf);
  } else if (ax >= 0.4375lf) {
    id = 0;
    t = (2.0lf * ax - 1.0lf) / (2.0lf + ax);
  }
  precise double z = t * t;
  precise double w = z * z;
  precise double s1 = z * (${horner(ATAN_C.filter((_, i) => i % 2 === 0), "w")});
  precise double s2 = w * (${horner(ATAN_C.filter((_, i) => i % 2 === 1), "w")});
  if (id < 0) {
    precise double r0 = x - x * (s1 + s2);
    return r0;
  }
  precise double r = (${pick(ATAN_HI)}) - ((t * (s1 + s2) - (${pick(ATAN_LO)})) - t);
  return x < 0.0lf ? -r : r;
}

/* C99 atan2's special cases (signed zeros, infinities), else atan(|y/x|) placed in its quadrant. */
double pt_atan2(double y, double x) {
  if (isnan(x) || isnan(y)) return pt_nan();
  const bool ny = (doubleBitsToUint64(y) >> 63) != 0ul, nx = (doubleBitsToUint64(x) >> 63) != 0ul;
  const double pi = 3.141592653589793lf, pio2 = 1.5707963267948966lf;
  double r;
  if (y == 0.0lf) return nx ? (ny ? -pi : pi) : y;
  if (x == 0.0lf) return ny ? -pio2 : pio2;
  if (isinf(x)) r = isinf(y) ? (nx ? 2.356194490192345lf : 0.7853981633974483lf) : (nx ? pi : 0.0lf);
  else if (isinf(y)) r = pio2;
  else {
    precise double q = abs(y) / abs(x);
    const double z = pt_atan(q);
    precise double rz = pi - (z - 1.2246467991473532e-16lf); /* pi's low part */
    r = nx ? rz : z;
  }
  return ny ? -r : r;
}

double pt_asin(double x) {
  if (isnan(x)) return x;
  const double ax = abs(x);
  if (ax > 1.0lf) return pt_nan();
  if (ax < 7.450580596923828e-09lf) return x;
  precise double c = (1.0lf - ax) * (1.0lf + ax);
  const double r = pt_atan2(ax, sqrt(c));
  return x < 0.0lf ? -r : r;
}

double pt_acos(double x) {
  if (isnan(x)) return x;
  const double ax = abs(x);
  if (ax > 1.0lf) return pt_nan();
  precise double c = (1.0lf - ax) * (1.0lf + ax);
  return pt_atan2(sqrt(c), x);
}

double pt_sinh(double x) {
  if (isnan(x) || isinf(x)) return x;
  const double ax = abs(x), h = x < 0.0lf ? -0.5lf : 0.5lf;
  if (ax < 3.725290298461914e-09lf) return x;
  precise double r;
  if (ax < 22.0lf) {
    precise double t = pt_expm1(ax);
    if (ax < 1.0lf) r = h * (2.0lf * t - t * t / (t + 1.0lf));
    else r = h * (t + t / (t + 1.0lf));
  } else if (ax < 709.782712893384lf) {
    r = h * pt_exp(ax);
  } else { /* exp(ax) overflows before sinh does: exp(ax/2)^2 / 2 */
    precise double w = pt_exp(0.5lf * ax);
    r = (h * w) * w;
  }
  return r;
}

double pt_cosh(double x) {
  if (isnan(x)) return x;
  const double ax = abs(x);
  precise double r;
  if (ax < 0.34657359027997264lf) { /* ln2 / 2 */
    precise double t = pt_expm1(ax);
    precise double w = 1.0lf + t;
    if (ax < 2.7755575615628914e-17lf) return w;
    r = 1.0lf + (t * t) / (w + w);
  } else if (ax < 22.0lf) {
    precise double t = pt_exp(ax);
    r = 0.5lf * t + 0.5lf / t;
  } else if (ax < 709.782712893384lf) {
    r = 0.5lf * pt_exp(ax);
  } else {
    precise double w = pt_exp(0.5lf * ax);
    r = (0.5lf * w) * w;
  }
  return r;
}

double pt_asinh(double x) {
  if (isnan(x) || isinf(x)) return x;
  const double ax = abs(x);
  if (ax < 3.725290298461914e-09lf) return x;
  precise double r;
  if (ax > 268435456.0lf) r = pt_log(ax) + PT_LN2; /* 2^28: sqrt(x^2 + 1) is |x| */
  else if (ax > 2.0lf) r = pt_log(2.0lf * ax + 1.0lf / (sqrt(ax * ax + 1.0lf) + ax));
  else {
    precise double t = ax * ax;
    r = pt_log1p(ax + t / (1.0lf + sqrt(1.0lf + t)));
  }
  return x < 0.0lf ? -r : r;
}

double pt_acosh(double x) {
  if (isnan(x)) return x;
  if (x < 1.0lf) return pt_nan();
  if (isinf(x)) return x;
  precise double r;
  if (x > 268435456.0lf) r = pt_log(x) + PT_LN2;
  else if (x > 2.0lf) r = pt_log(2.0lf * x - 1.0lf / (x + sqrt(x * x - 1.0lf)));
  else {
    precise double t = x - 1.0lf;
    r = pt_log1p(t + sqrt(2.0lf * t + t * t));
  }
  return r;
}

double pt_atanh(double x) {
  if (isnan(x)) return x;
  const double ax = abs(x);
  if (ax > 1.0lf) return pt_nan();
  if (ax == 1.0lf) return x > 0.0lf ? pt_inf() : -pt_inf();
  if (ax < 3.725290298461914e-09lf) return x;
  precise double r;
  if (ax < 0.5lf) {
    precise double t = ax + ax;
    r = 0.5lf * pt_log1p(t + t * ax / (1.0lf - ax));
  } else r = 0.5lf * pt_log1p((ax + ax) / (1.0lf - ax));
  return x < 0.0lf ? -r : r;
}

/* sqrt(x^2 + y^2): the squares of the operands scaled to [1/2, 1) summed exactly, the root corrected once; inf beats NaN. */
double pt_hypot(double x, double y) {
  const double ax = abs(x), ay = abs(y);
  if (isinf(ax) || isinf(ay)) return pt_inf();
  if (isnan(ax) || isnan(ay)) return pt_nan();
  const double a = max(ax, ay), b = min(ax, ay);
  if (b == 0.0lf) return a;
  int e, eb;
  frexp(a, e);
  frexp(b, eb);
  if (e - eb > 60) return a; /* b^2 lies below a^2's last bit */
  const double sa = ldexp(a, -e), sb = ldexp(b, -e);
  double la, lb;
  const double pa = pt_two_prod(sa, sa, la), pb = pt_two_prod(sb, sb, lb);
  precise double h = pa + pb;
  precise double l = ((pa - h) + pb) + (la + lb);
  precise double r = sqrt(h);
  double rl;
  const double rr = pt_two_prod(r, r, rl);
  precise double c = (((h - rr) - rl) + l) / (2.0lf * r);
  precise double v = r + c;
  return pt_ldexp2(v, e);
}

/* C99 pow's special cases; exp(y log x) with y*log x split exactly into two parts. */
double pt_pow(double x, double y) {
  if (y == 0.0lf || x == 1.0lf) return 1.0lf;
  if (isnan(x) || isnan(y)) return pt_nan();
  const bool yint = floor(y) == y;
  const bool yodd = yint && abs(y) < 9007199254740992.0lf && floor(y * 0.5lf) != y * 0.5lf;
  const double ax = abs(x);
  if (isinf(y)) {
    if (ax == 1.0lf) return 1.0lf;
    return (ax > 1.0lf) == (y > 0.0lf) ? pt_inf() : 0.0lf;
  }
  if (x == 0.0lf || isinf(x)) {
    const double v = (x == 0.0lf) == (y < 0.0lf) ? pt_inf() : 0.0lf;
    const bool neg = (doubleBitsToUint64(x) >> 63) != 0ul;
    return neg && yodd ? -v : v;
  }
  if (x < 0.0lf && !yint) return pt_nan();
  precise double r;
  if (yint && abs(y) <= 32.0lf) { /* exact whenever the result is */
    int e = int(abs(y));
    precise double acc = 1.0lf;
    precise double b = ax;
    while (e != 0) {
      if ((e & 1) != 0) acc = acc * b;
      b = b * b;
      e >>= 1;
    }
    r = y < 0.0lf ? 1.0lf / acc : acc;
  } else {
    double pl;
    const double ph = pt_two_prod(y, pt_log(ax), pl);
    if (abs(ph) < 709.0lf) r = pt_exp(ph) * (1.0lf + pl);
    else r = pt_exp(ph + pl);
  }
  return x < 0.0lf && yodd ? -r : r;
}

/* Exact fmod (the result is representable): long division on the significands. */
double pt_fmod(double x, double y) {
  if (isnan(x) || isnan(y) || isinf(x) || y == 0.0lf) return pt_nan();
  const double ax = abs(x), ay = abs(y);
  if (ax < ay || isinf(y)) return x;
  int ex, ey;
  const double mx0 = frexp(ax, ex), my0 = frexp(ay, ey);
  uint64_t mx = uint64_t(ldexp(mx0, 53)), my = uint64_t(ldexp(my0, 53));
  for (int k = ex - ey; k > 0; k--) {
    if (mx >= my) mx -= my;
    mx <<= 1;
  }
  if (mx >= my) mx -= my;
  const double r = ldexp(double(mx), ey - 53);
  return x < 0.0lf ? -r : r;
}

/* The f32 forms: computed in double, rounded once. */
float pt_expf(float x) { return float(pt_exp(double(x))); }
float pt_exp2f(float x) { return float(pt_exp2(double(x))); }
float pt_logf(float x) { return float(pt_log(double(x))); }
float pt_log2f(float x) { return float(pt_log2(double(x))); }
float pt_log1pf(float x) { return float(pt_log1p(double(x))); }
float pt_sinf(float x) { return float(pt_sin(double(x))); }
float pt_cosf(float x) { return float(pt_cos(double(x))); }
float pt_tanf(float x) { return float(pt_tan(double(x))); }
float pt_tanhf(float x) { return float(pt_tanh(double(x))); }
float pt_erff(float x) { return float(pt_erf(double(x))); }
float pt_erfcf(float x) { return float(pt_erfc(double(x))); }
float pt_expm1f(float x) { return float(pt_expm1(double(x))); }
float pt_asinf(float x) { return float(pt_asin(double(x))); }
float pt_acosf(float x) { return float(pt_acos(double(x))); }
float pt_atanf(float x) { return float(pt_atan(double(x))); }
float pt_sinhf(float x) { return float(pt_sinh(double(x))); }
float pt_coshf(float x) { return float(pt_cosh(double(x))); }
float pt_asinhf(float x) { return float(pt_asinh(double(x))); }
float pt_acoshf(float x) { return float(pt_acosh(double(x))); }
float pt_atanhf(float x) { return float(pt_atanh(double(x))); }
float pt_log10f(float x) { return float(pt_log10(double(x))); }
float pt_atan2f(float y, float x) { return float(pt_atan2(double(y), double(x))); }
float pt_hypotf(float x, float y) { return float(pt_hypot(double(x), double(y))); }
float pt_powf(float x, float y) { return float(pt_pow(double(x), double(y))); }
float pt_fmodf(float x, float y) { return float(pt_fmod(double(x), double(y))); }
`;
