// Test doubles: random sources whose every value the test chooses, a Map-backed Storage, and
// a fetch that answers from a script and records every request.

export const TWO_POW_32 = 2 ** 32;

/** Hands out `values` as 32-bit chunks in order; throws when asked for more than scripted. */
export function scriptedSource(values) {
  const queue = [...values];
  const source = {
    draws: 0,
    getRandomValues(array) {
      for (let i = 0; i < array.length; i += 1) {
        if (queue.length === 0) {
          throw new Error(`scripted random source exhausted after ${source.draws} values`);
        }
        array[i] = queue.shift();
        source.draws += 1;
      }
      return array;
    },
    get remaining() {
      return queue.length;
    },
  };
  return source;
}

/** A deterministic stream (xorshift32) for tests that need many values but no exact script. */
export function seededSource(seed) {
  let state = seed >>> 0 || 1;
  return {
    getRandomValues(array) {
      const max = 2 ** (8 * array.BYTES_PER_ELEMENT);
      for (let i = 0; i < array.length; i += 1) {
        state ^= state << 13;
        state >>>= 0;
        state ^= state >>> 17;
        state ^= state << 5;
        state >>>= 0;
        array[i] = state % max;
      }
      return array;
    },
  };
}

/** Storage (like localStorage) over a Map, so tests can inspect exactly what was written. */
export function mapStorage(entries = []) {
  const map = new Map(entries);
  return {
    map,
    getItem: (key) => (map.has(key) ? map.get(key) : null),
    setItem: (key, value) => {
      map.set(key, String(value));
    },
    removeItem: (key) => {
      map.delete(key);
    },
    key: (index) => [...map.keys()][index] ?? null,
    get length() {
      return map.size;
    },
  };
}

/**
 * Exact distribution of `experiment(randomSource)` when every 32-bit chunk is uniform over a
 * grid of `gridSize` equally likely cells (cell i stands for the chunks
 * [i * 2^32 / gridSize, (i + 1) * 2^32 / gridSize) and is represented by its lowest value).
 *
 * Explores every sequence of draws depth first: a run that needs one more chunk than the
 * prefix supplies is restarted once per cell. For probabilities that are multiples of
 * 1/gridSize the comparison against each coin's threshold only depends on the cell, so the
 * result is the exact distribution, as a Map from outcome (JSON) to probability.
 */
export function exactDistribution(experiment, { gridSize = 16 } = {}) {
  const step = TWO_POW_32 / gridSize;
  const outcomes = new Map();
  const needMore = Symbol("need more");
  const explore = (prefix) => {
    let used = 0;
    const source = {
      getRandomValues(array) {
        for (let i = 0; i < array.length; i += 1) {
          if (used === prefix.length) {
            throw needMore;
          }
          array[i] = prefix[used] * step;
          used += 1;
        }
        return array;
      },
    };
    let outcome;
    try {
      outcome = experiment(source);
    } catch (error) {
      if (error !== needMore) {
        throw error;
      }
      for (let cell = 0; cell < gridSize; cell += 1) {
        explore([...prefix, cell]);
      }
      return;
    }
    const key = JSON.stringify(outcome);
    // gridSize is a power of two, so these weights and their sums are exact in a double.
    outcomes.set(key, (outcomes.get(key) ?? 0) + gridSize ** -prefix.length);
  };
  explore([]);
  return outcomes;
}

/**
 * A fetch that records each call (`calls`: `{url, init}`) and answers from `replies`, one per
 * call in order: `{status, json}` (a Response with that status and JSON body), `{status,
 * text}` (a body that is not JSON), or an Error (the request fails, as fetch rejects on a
 * lost connection). Throws when called more often than scripted.
 */
export function scriptedFetch(replies) {
  const queue = [...replies];
  const calls = [];
  const fetch = async (url, init = {}) => {
    calls.push({ url, init });
    if (queue.length === 0) {
      throw new Error(`scripted fetch exhausted after ${calls.length - 1} requests`);
    }
    const reply = queue.shift();
    if (reply instanceof Error) {
      throw reply;
    }
    const body = "json" in reply ? JSON.stringify(reply.json) : (reply.text ?? null);
    return new Response(reply.status === 204 ? null : body, {
      status: reply.status,
      headers: { "Content-Type": "json" in reply ? "application/json" : "text/plain" },
    });
  };
  return { fetch, calls };
}
