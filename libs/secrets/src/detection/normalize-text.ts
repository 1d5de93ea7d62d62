// Zero-width characters (ZWSP, ZWNJ, ZWJ, word joiner, BOM, soft hyphen, Mongolian vowel separator)
// and bidi controls (LRM/RLM/ALM, embeddings, overrides, isolates) can split or disguise a key.
const INVISIBLE = /[\u00AD\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\u061C\uFEFF]/g;

/** NFKC folds look-alikes (full-width letters, ligatures) into the ASCII the rules expect. */
export function normalizeText(text: string): string {
  return text.normalize('NFKC').replace(INVISIBLE, '');
}
