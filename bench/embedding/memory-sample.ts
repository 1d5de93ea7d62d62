/**
 * Deterministic memory-sized texts for the embedder benchmark. The eval corpora's texts are short
 * (agent-memory's median is 83 characters), so each sample continues through the corpus's words
 * until it reaches its target length; the targets spread evenly over [minChars, maxChars] and a
 * word that would pass maxChars is skipped. The same corpus gives the same sample.
 */
export function memorySample(
  texts: readonly string[],
  options: { readonly count: number; readonly minChars: number; readonly maxChars: number },
): string[] {
  const { count, minChars, maxChars } = options;
  const words = texts.flatMap((text) => text.split(/\s+/).filter((word) => word !== ''));
  const sample: string[] = [];
  let next = 0;
  for (let i = 0; i < count; i += 1) {
    const target = minChars + Math.round(((maxChars - minChars) * i) / Math.max(1, count - 1));
    let text = '';
    for (let tried = 0; text.length < target && tried < words.length; tried += 1) {
      const word = words[next % words.length];
      next += 1;
      const longer = text === '' ? word : `${text} ${word}`;
      if (longer.length <= maxChars) text = longer;
    }
    sample.push(text);
  }
  return sample;
}
