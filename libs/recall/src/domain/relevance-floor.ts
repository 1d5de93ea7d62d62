/**
 * When no word of the query occurs in any memory the caller may read (the text leg found nothing),
 * the vector leg alone decides, and a nearest neighbour always exists: a made-up word would still get
 * k memories back. Then a memory found by meaning alone must be this close to the query (cosine
 * similarity), or it is left out — and with nothing else found, the answer is empty.
 *
 * Per model, because similarity scales differ. USE-lite (measured, docs/performance.md): made-up
 * words score 0.12–0.24 against a team's memories one by one; their nearest memory in the evaluation
 * corpora (200 and 1,104 memories) 0.42 at the median and up to 0.54; a paraphrase with no word in
 * common 0.43 ("bought car" / "Alice purchased a new automobile last week", as the service embeds
 * both). So the floor stops made-up words in a team's store, not every one in a large store (where
 * the nearest of a thousand memories can pass it), and keeps real paraphrases; questions on topics the store lacks usually share a common word
 * with some memory and are not stopped by it. GloVe-SIF embeds unknown words to nothing already.
 */
const MODEL_FLOORS: Readonly<Record<string, number>> = {
  'use-lite-512d': 0.4,
  'glove-sif-100d': 0.4,
};

/** The floor for `modelId`: the configured one when set, else the model's own (none for unknown models). */
export function unmatchedVectorFloor(modelId: string, configured: number | undefined): number {
  return configured ?? MODEL_FLOORS[modelId] ?? -1;
}
