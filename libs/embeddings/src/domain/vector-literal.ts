/**
 * pgvector's text form (`[0.1,0.2,…]`), checked before it reaches SQL: a wrong length would fail
 * the cast to `vector(D)` anyway, but with a less helpful message, and NaN/Infinity are refused.
 */
export function toVectorLiteral(vector: ArrayLike<number>, dimensions: number): string {
  if (vector.length !== dimensions) {
    throw new RangeError(`expected a ${dimensions}-dimensional vector, got ${vector.length}`);
  }
  const parts: string[] = new Array<string>(vector.length);
  for (let i = 0; i < vector.length; i += 1) {
    const value = vector[i];
    if (!Number.isFinite(value)) throw new RangeError(`vector component ${i} is not a finite number`);
    parts[i] = String(value);
  }
  return `[${parts.join(',')}]`;
}
