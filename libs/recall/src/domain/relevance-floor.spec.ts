import { describe, expect, it } from 'vitest';
import { unmatchedVectorFloor } from './relevance-floor';

describe('unmatchedVectorFloor', () => {
  it("takes the model's own floor unless one is configured, and none for a model it does not know", () => {
    expect(unmatchedVectorFloor('use-lite-512d', undefined)).toBe(0.4);
    expect(unmatchedVectorFloor('glove-sif-100d', undefined)).toBe(0.4);
    expect(unmatchedVectorFloor('use-lite-512d', 0.45)).toBe(0.45);
    expect(unmatchedVectorFloor('use-lite-512d', -1)).toBe(-1);
    // Cosine similarity is never below -1: every hit passes.
    expect(unmatchedVectorFloor('Xenova/all-MiniLM-L6-v2', undefined)).toBe(-1);
  });
});
