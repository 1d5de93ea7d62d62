// Smooth Inverse Frequency weighting with common-component removal (Arora, Liang & Ma, 2017,
// "A Simple but Tough-to-Beat Baseline for Sentence Embeddings"), applied to the lookup table so
// that the ONNX graph stays a plain Gather and transformers.js' mean pooling does the rest.
//
// Only + - * / and sqrt are used on doubles, in a fixed order: IEEE 754 makes those exact-same on
// every platform, so the table (and therefore the model file) is byte-identical across machines.

/** Sum of 1/k for k = 1..n, the normaliser of a Zipf (s = 1) distribution over n ranks. */
export function harmonicNumber(n) {
  let sum = 0;
  for (let k = n; k >= 1; k -= 1) sum += 1 / k; // smallest terms first: less rounding error
  return sum;
}

/**
 * SIF weight a / (a + p(w)). GloVe ships no counts, only the frequency order, so p(w) is the Zipf
 * estimate 1 / ((rank + 1) · H(size)) — good enough: SIF is insensitive to the exact p
 * (the paper reports stable results for a across 1e-4 … 1e-2).
 */
export function sifWeight(rank, { a, harmonic }) {
  const p = 1 / ((rank + 1) * harmonic);
  return a / (a + p);
}

/**
 * The first principal (singular) direction of the weighted word vectors, by power iteration on
 * the uncentred second-moment matrix Σ c_i x_i x_iᵀ with c_i = p(w_i): each word counts as often
 * as it occurs in text, which mirrors the paper's computation over a corpus of sentences (their
 * common component is dominated by frequent words). Deterministic: fixed start, fixed iterations.
 */
export function firstPrincipalComponent(rows, frequencies, dimensions, iterations = 500) {
  const moment = new Float64Array(dimensions * dimensions);
  for (let i = 0; i < frequencies.length; i += 1) {
    const base = i * dimensions;
    const c = frequencies[i];
    for (let r = 0; r < dimensions; r += 1) {
      const xr = c * rows[base + r];
      for (let s = r; s < dimensions; s += 1) moment[r * dimensions + s] += xr * rows[base + s];
    }
  }
  for (let r = 0; r < dimensions; r += 1) {
    for (let s = 0; s < r; s += 1) moment[r * dimensions + s] = moment[s * dimensions + r];
  }

  let vector = new Float64Array(dimensions).fill(1 / Math.sqrt(dimensions));
  for (let it = 0; it < iterations; it += 1) {
    const next = new Float64Array(dimensions);
    for (let r = 0; r < dimensions; r += 1) {
      let sum = 0;
      for (let s = 0; s < dimensions; s += 1) sum += moment[r * dimensions + s] * vector[s];
      next[r] = sum;
    }
    vector = normalise(next);
  }
  // Fix the sign (irrelevant for the projection u·uᵀ, but keeps the stamp/summary stable).
  let largest = 0;
  for (let r = 0; r < dimensions; r += 1) if (Math.abs(vector[r]) > Math.abs(vector[largest])) largest = r;
  if (vector[largest] < 0) for (let r = 0; r < dimensions; r += 1) vector[r] = -vector[r];
  return vector;
}

/**
 * Builds the float32 table: row = w·v − ((w·v)·u)u. Removing the component from every row is
 * the same as removing it from the sentence mean, because the projection is linear:
 * mean(x_i − (x_i·u)u) = mean(x_i) − (mean(x_i)·u)u. Rows for special tokens stay zero.
 */
export function buildSifTable({ vectors, ranks, specialRows, dimensions, a, harmonic }) {
  const count = ranks.length;
  const weighted = new Float64Array(count * dimensions);
  const frequencies = new Float64Array(count);
  for (let i = 0; i < count; i += 1) {
    const weight = sifWeight(ranks[i], { a, harmonic });
    frequencies[i] = 1 / ((ranks[i] + 1) * harmonic);
    for (let d = 0; d < dimensions; d += 1)
      weighted[i * dimensions + d] = weight * vectors[i * dimensions + d];
  }
  const component = firstPrincipalComponent(weighted, frequencies, dimensions);

  const table = new Float32Array((specialRows + count) * dimensions);
  for (let i = 0; i < count; i += 1) {
    const base = i * dimensions;
    let dot = 0;
    for (let d = 0; d < dimensions; d += 1) dot += weighted[base + d] * component[d];
    const out = (specialRows + i) * dimensions;
    for (let d = 0; d < dimensions; d += 1) table[out + d] = weighted[base + d] - dot * component[d];
  }
  return { table, component };
}

function normalise(vector) {
  let sum = 0;
  for (const value of vector) sum += value * value;
  const norm = Math.sqrt(sum);
  return vector.map((value) => value / norm);
}
