import { describe, expect, it } from 'vitest';
import { Lexicon, SPECIFIC_RANK } from './lexicon';

const common = ['the', 'a', 'of', 'data', 'store', 'cut', 'over', 'compile', 'list', 'white'];
// Frequency order: the common words first, then rarer ones far down the list.
const words = [...common, ...Array.from({ length: 40_000 }, (_, i) => `w${i}`), 'salmon', 'über'];
const lexicon = new Lexicon(words);

describe('Lexicon', () => {
  it('knows listed words by their frequency rank, and only lower-case letter words', () => {
    expect(lexicon.rank('the')).toBe(0);
    expect(lexicon.rank('store')).toBe(4);
    expect(lexicon.rank('salmon')).toBe(common.length + 40_000);
    expect(lexicon.rank('über')).toBe(common.length + 40_001);
    expect(lexicon.rank('w12')).toBeUndefined(); // digits are not kept
    expect(lexicon.rank('sneemflix')).toBeUndefined();
    expect(lexicon.size).toBe(common.length + 2);
  });

  it('counts compounds of two common words and a common prefix on a common word as words', () => {
    expect(lexicon.has('datastore')).toBe(true);
    expect(lexicon.has('cutover')).toBe(true);
    expect(lexicon.has('whitelist')).toBe(true);
    expect(lexicon.has('recompile')).toBe(true);
    // Parts must be common (rank < 30,000) and at least three letters.
    expect(lexicon.has('salmonstore')).toBe(false);
    expect(lexicon.has('astore')).toBe(false);
    expect(lexicon.has('sneemflix')).toBe(false);
  });

  it('scores frequent words near 0 and rare or unknown words 1', () => {
    expect(lexicon.specificity('the')).toBe(0);
    expect(lexicon.specificity('store')).toBeCloseTo(4 / SPECIFIC_RANK);
    expect(lexicon.specificity('salmon')).toBe(1);
    expect(lexicon.specificity('sneemflix')).toBe(1);
  });
});
