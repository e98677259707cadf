// Exact integer and rational randomness for the browser, mirroring dpengine/mechanisms.py.
//
// Pure functions: no DOM, no globals, no Math.random. Every draw comes from
// `randomSource.getRandomValues` (the page passes `crypto`; tests pass a fake), 32 bits at a
// time, and every probability is an exact rational compared with integers (BigInt), so no
// floating-point rounding enters (Mironov 2012). Bernoulli draws for probabilities given as
// doubles come from coins.js (`bernoulli`), which is exact for every double.
//
// How numbers are represented, so browser and server agree: a privacy parameter such as
// epsilon is an exact rational. `parseRational` reads a JS number through its shortest
// round-trip decimal (`String(0.1)` is "0.1"), exactly as dpengine reads a Python float
// through `repr` (dpengine/_rational.py): 0.1 means 1/10 on both sides. It also takes
// "p/q" strings and decimal strings. An irrational epsilon such as ln 3 is therefore the
// decimal the server sends (1.0986122886681098), sampled exactly as that rational, which
// is also what the privacy ledger charges; where a design allows it, pass the rational
// odds e^epsilon instead (k-ary randomized response: `odds: 3` is epsilon = ln 3 exactly).
// Never recompute epsilon in the browser: Math.log is not correctly rounded (in V8,
// Math.log(3) is 1.0986122886681096, one unit in the last place below Python's math.log(3)),
// so the page must use the value the server sends, not derive its own.

const TWO_POW_32 = 0x100000000n;

function checkRandomSource(randomSource) {
  if (!randomSource || typeof randomSource.getRandomValues !== "function") {
    throw new TypeError("randomSource must have getRandomValues(typedArray), like crypto");
  }
}

function randomWord(randomSource) {
  const chunk = new Uint32Array(1);
  randomSource.getRandomValues(chunk);
  return BigInt(chunk[0]);
}

function gcd(a, b) {
  let x = a < 0n ? -a : a;
  let y = b < 0n ? -b : b;
  while (y !== 0n) {
    [x, y] = [y, x % y];
  }
  return x;
}

/** A rational `{num, den}` (BigInts, den > 0, lowest terms). */
export function rational(num, den = 1n) {
  let n = BigInt(num);
  let d = BigInt(den);
  if (d === 0n) {
    throw new RangeError("denominator must not be zero");
  }
  if (d < 0n) {
    n = -n;
    d = -d;
  }
  const divisor = gcd(n, d) || 1n;
  return { num: n / divisor, den: d / divisor };
}

const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * The exact rational a value stands for: a JS number by its shortest decimal (as Python's
 * repr), a "p/q" string, a decimal string, a BigInt, or a `{num, den}` object.
 */
export function parseRational(value) {
  if (typeof value === "bigint") {
    return rational(value);
  }
  if (value && typeof value === "object" && "num" in value && "den" in value) {
    return rational(value.num, value.den);
  }
  if (typeof value === "number") {
    if (!Number.isFinite(value)) {
      throw new RangeError(`expected a finite number, got ${value}`);
    }
    return parseRational(String(value));
  }
  if (typeof value !== "string") {
    throw new TypeError(`expected a number or a rational string, got ${value}`);
  }
  const text = value.trim();
  if (text.includes("/")) {
    const [num, den] = text.split("/");
    if (!/^[+-]?\d+$/.test(num.trim()) || !/^\d+$/.test(den.trim())) {
      throw new RangeError(`expected "p/q" with integers, got ${value}`);
    }
    return rational(BigInt(num.trim()), BigInt(den.trim()));
  }
  const match = DECIMAL.exec(text);
  if (!match || (match[2] === "" && (match[3] ?? "") === "")) {
    throw new RangeError(`expected a decimal number, got ${value}`);
  }
  const [, sign, whole, fraction = "", exponent = "0"] = match;
  let num = BigInt((whole || "0") + fraction);
  let den = 10n ** BigInt(fraction.length);
  const shift = BigInt(exponent);
  if (shift >= 0n) {
    num *= 10n ** shift;
  } else {
    den *= 10n ** -shift;
  }
  return rational(sign === "-" ? -num : num, den);
}

/**
 * A uniform integer in [0, n) for a positive integer n (number or BigInt), exactly.
 *
 * Draws ceil(bits / 32) random words and rejects values at or above the largest multiple of
 * n that fits, so every residue is equally likely (rejection chance below 1/2 per try).
 * Returns a BigInt.
 */
export function uniformBelow(n, randomSource) {
  checkRandomSource(randomSource);
  const bound = BigInt(n);
  if (bound < 1n) {
    throw new RangeError(`n must be a positive integer, got ${n}`);
  }
  let words = 1;
  let span = TWO_POW_32;
  while (span < bound) {
    words += 1;
    span *= TWO_POW_32;
  }
  const limit = span - (span % bound);
  for (;;) {
    let value = 0n;
    for (let i = 0; i < words; i += 1) {
      value = value * TWO_POW_32 + randomWord(randomSource);
    }
    if (value < limit) {
      return value % bound;
    }
  }
}

/** True with the exact rational probability `probability` (a value `parseRational` reads). */
export function bernoulliRational(probability, randomSource) {
  const { num, den } = parseRational(probability);
  if (num < 0n || num > den) {
    throw new RangeError(`probability must be in [0, 1], got ${num}/${den}`);
  }
  return uniformBelow(den, randomSource) < num;
}

/**
 * True with probability exactly exp(-gamma) for a rational gamma >= 0.
 *
 * For gamma <= 1: draw Bernoulli(gamma / k) for k = 1, 2, ... until the first failure at K;
 * K is odd with probability exp(-gamma). Larger gamma multiplies floor(gamma) draws of
 * exp(-1) with one of the remainder. Canonne, Kamath & Steinke (2020), Algorithm 1; the
 * same steps as dpengine.mechanisms.bernoulli_exp.
 */
export function bernoulliExp(gamma, randomSource) {
  const { num, den } = parseRational(gamma);
  if (num < 0n) {
    throw new RangeError(`gamma must be non-negative, got ${num}/${den}`);
  }
  if (num <= den) {
    let k = 1n;
    for (;;) {
      // gamma / k in lowest terms, as Python's Fraction keeps it, so that the same uniform
      // draws give the same answer on both sides.
      const step = rational(num, den * k);
      if (!(uniformBelow(step.den, randomSource) < step.num)) {
        return k % 2n === 1n;
      }
      k += 1n;
    }
  }
  const whole = num / den;
  for (let i = 0n; i < whole; i += 1n) {
    if (!bernoulliExp(rational(1n), randomSource)) {
      return false;
    }
  }
  return bernoulliExp(rational(num - whole * den, den), randomSource);
}

/**
 * An exact draw from the discrete Laplace distribution with rational `scale` > 0:
 * P(Z = z) = tanh(1 / (2 scale)) exp(-|z| / scale).
 *
 * With scale = t / s in lowest terms: U uniform on {0..t-1}, accepted with probability
 * exp(-U / t); plus t times a count of exp(-1) successes; divided by s; a fair sign, negative
 * zero rejected. Canonne, Kamath & Steinke (2020), Algorithm 2, step for step as
 * dpengine.mechanisms.sample_discrete_laplace, so the same uniform draws give the same
 * output on both sides. Returns a Number (the magnitude is far below 2^53 in practice).
 */
export function sampleDiscreteLaplace(scale, randomSource) {
  const { num: t, den: s } = parseRational(scale);
  if (t <= 0n) {
    throw new RangeError(`scale must be positive, got ${t}/${s}`);
  }
  for (;;) {
    const u = uniformBelow(t, randomSource);
    if (!bernoulliExp(rational(u, t), randomSource)) {
      continue;
    }
    let v = 0n;
    while (bernoulliExp(rational(1n), randomSource)) {
      v += 1n;
    }
    const magnitude = (u + t * v) / s;
    const negative = uniformBelow(2, randomSource) === 1n;
    if (negative && magnitude === 0n) {
      continue;
    }
    return Number(negative ? -magnitude : magnitude);
  }
}

function checkInteger(name, value) {
  if (!Number.isSafeInteger(value)) {
    throw new RangeError(`${name} must be an integer, got ${value}`);
  }
}

/**
 * A numeric question as `randomizeNumber` reads it, checked: `{min, max, scale, reportMin,
 * reportMax}` with the discrete Laplace scale (max - min) / epsilon as an exact rational.
 * `question` is `{min, max, epsilon, report_min, report_max}` as the API spells it (the range
 * is `min`/`max` from the model to here; only dpengine names it `lo`/`hi`, behind
 * surveys/selectors/mechanisms.py); epsilon is read by `parseRational`.
 * `report_min`/`report_max` are the reports the server accepts (dpengine.report_bounds: an
 * honest report falls outside with probability below 1e-9); without them (a definition from
 * before they were sent) there is no bound.
 */
export function numericMechanism(question) {
  const min = question?.min;
  const max = question?.max;
  checkInteger("min", min);
  checkInteger("max", max);
  if (!(max > min)) {
    throw new RangeError(`max must be greater than min = ${min}, got ${max}`);
  }
  const epsilon = parseRational(question.epsilon);
  if (epsilon.num <= 0n) {
    throw new RangeError(`epsilon must be positive, got ${question.epsilon}`);
  }
  const reportMin = question.report_min ?? -Infinity;
  const reportMax = question.report_max ?? Infinity;
  if (question.report_min !== undefined) {
    checkInteger("report_min", reportMin);
  }
  if (question.report_max !== undefined) {
    checkInteger("report_max", reportMax);
  }
  if (!(reportMin <= min && max <= reportMax)) {
    throw new RangeError(`report_min..report_max must enclose ${min}..${max}`);
  }
  const scale = rational(BigInt(max - min) * epsilon.den, epsilon.num);
  return { min, max, scale, reportMin, reportMax };
}

/**
 * A numeric answer for sending: clamp to [min, max], then add discrete Laplace noise of scale
 * (max - min) / epsilon (the two-sided geometric mechanism with sensitivity max - min), then
 * keep the report within [report_min, report_max], as dpengine.numeric.randomize_number. The
 * last step is a function of the private report (so it keeps its ε) and moves a report only
 * when the server would refuse it. `question` as `numericMechanism` reads it.
 */
export function randomizeNumber(value, question, randomSource) {
  const { min, max, scale, reportMin, reportMax } = numericMechanism(question);
  checkInteger("value", value);
  const clamped = Math.min(Math.max(value, min), max);
  const report = clamped + sampleDiscreteLaplace(scale, randomSource);
  return Math.min(Math.max(report, reportMin), reportMax);
}
