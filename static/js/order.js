// Random question order (issue 27 item 5): each respondent's browser draws its own order of
// the survey's questions, and keeps it to itself: the order is never sent (payload.js writes
// the answers by question, in one canonical order) nor kept.
//
// Uniform by construction: Fisher–Yates (Knuth's Algorithm P), each index drawn uniformly
// below its bound by rejection sampling, so no modulo bias: 2^32 is not a multiple of 3, and
// `word % 3` would favour 0 by one part in 2^32 / 3. The random source is injected, as in
// coins.js: the page passes `crypto`, the tests a fake.

const TWO_POW_32 = 2 ** 32;

/**
 * A uniform integer in [0, bound), from `draw()`, a uniform integer in [0, range). Draws
 * falling at or above the largest multiple of `bound` not above `range` are drawn again, so
 * every result has `limit / bound` of the accepted draws.
 */
export function uniformBelow(bound, draw, range = TWO_POW_32) {
  if (!Number.isInteger(bound) || bound < 1 || bound > range) {
    throw new RangeError(`bound must be a whole number in [1, ${range}], got ${bound}`);
  }
  const limit = range - (range % bound);
  for (;;) {
    const value = draw();
    if (value < limit) {
      return value % bound;
    }
  }
}

/** `items` in the order Fisher–Yates gives with `below(bound)` drawing each index. */
export function fisherYates(items, below) {
  const order = [...items];
  for (let last = order.length - 1; last > 0; last -= 1) {
    const pick = below(last + 1);
    [order[last], order[pick]] = [order[pick], order[last]];
  }
  return order;
}

/** `items` in a uniformly random order drawn from `randomSource.getRandomValues`. */
export function shuffled(items, randomSource) {
  if (!randomSource || typeof randomSource.getRandomValues !== "function") {
    throw new TypeError("randomSource must have getRandomValues(typedArray), like crypto");
  }
  const word = new Uint32Array(1);
  const draw = () => randomSource.getRandomValues(word)[0];
  return fisherYates(items, (bound) => uniformBelow(bound, draw));
}

/**
 * The page's order: the shuffled questions fill the places the shuffled ones held, and every
 * other item (a grouping question) keeps its own place. `movable(item)` says which move.
 */
export function shuffledInPlace(items, movable, randomSource) {
  const moving = shuffled(items.filter(movable), randomSource);
  let next = 0;
  return items.map((item) => (movable(item) ? moving[next++] : item));
}
