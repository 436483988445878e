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
float pt_powf(float x, float y) { return float(pt_pow(double(x), double(y))); }
float pt_fmodf(float x, float y) { return float(pt_fmod(double(x), double(y))); }
`;
