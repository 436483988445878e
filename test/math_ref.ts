/**
 * References for the math tests that JS Math lacks: erf and erfc from their Taylor series
 * summed in 640-bit fixed point (BigInt), with 2/sqrt(pi) from a 100-digit pi, so the
 * value is exact to far below a double's last bit for |x| <= 10 (erfc(10) = 2.1e-45);
 * and the distance of a result from its reference in units in the last place.
 */
const S_BITS = 640n, S = 1n << S_BITS;
const PI = "31415926535897932384626433832795028841971693993751058209749445923078164062862089986280348253421170679";
function isqrt(n: bigint): bigint {
  let x = 1n << BigInt((n.toString(2).length >> 1) + 1);
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}
/** 2 / sqrt(pi) in fixed point. */
const C = 2n * S * S / isqrt(BigInt(PI) * S * S / 10n ** 100n);

/** x (a double, |x| >= 2^-500) in fixed point, exactly. */
function fixed(x: number): bigint {
  let v = x, e = 0n;
  while (!Number.isInteger(v)) v *= 2, e++;
  return BigInt(v) * S / (1n << e);
}

/** erf(x) and erfc(x) rounded to double, for |x| <= 10 (and 0, NaN). */
export function erfRef(x: number): { erf: number; erfc: number } {
  if (Number.isNaN(x)) return { erf: NaN, erfc: NaN };
  if (x === 0) return { erf: x, erfc: 1 };
  if (!(Math.abs(x) <= 10)) throw new Error(`erfRef: |x| = ${Math.abs(x)} is beyond the series' precision`);
  const X = fixed(Math.abs(x)), X2 = X * X / S;
  let t = X, sum = X;
  for (let n = 1n;; n++) { // sum of (-1)^n x^(2n+1) / (n! (2n+1))
    t = -t * X2 / (S * n);
    const d = t / (2n * n + 1n);
    if (d === 0n) break;
    sum += d;
  }
  const e = sum * C / S;
  const toNum = (v: bigint) => Number(v) / 2 ** Number(S_BITS); // Number(bigint) rounds to nearest
  return x > 0 ? { erf: toNum(e), erfc: toNum(S - e) } : { erf: -toNum(e), erfc: toNum(S + e) };
}

/** |got - want| in units of want's last place (float32's when f32), subnormals' spacing below the normal range; 0 when equal, NaN-equal. */
export function ulps(got: number, want: number, f32: boolean): number {
  if (Object.is(got, want) || (Number.isNaN(got) && Number.isNaN(want))) return 0;
  if (!Number.isFinite(want) || !Number.isFinite(got)) return Infinity;
  const a = Math.abs(want);
  const e = a === 0 ? -1100 : Math.floor(Math.log2(a));
  return Math.abs(got - want) / 2 ** Math.max(e - (f32 ? 23 : 52), f32 ? -149 : -1074);
}

/** Asserts every got[i] within maxUlp of want[i] (signed zeros compared as equal), naming the worst element. */
export function assertUlps(got: ArrayLike<number>, want: readonly number[], maxUlp: number, f32: boolean, what: string): void {
  let worst = 0, at = -1;
  for (let i = 0; i < want.length; i++) {
    const u = got[i] === 0 && want[i] === 0 ? 0 : ulps(got[i], want[i], f32);
    if (!(u <= worst)) worst = u, at = i;
  }
  if (!(worst <= maxUlp)) throw new Error(`${what}: element ${at} is ${got[at]}, expected ${want[at]} (${worst} ulp > ${maxUlp})`);
}
