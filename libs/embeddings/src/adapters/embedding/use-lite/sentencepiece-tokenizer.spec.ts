import { describe, expect, it } from 'vitest';
import { SentencePieceTokenizer, type Vocabulary } from './sentencepiece-tokenizer';

// Shaped like USE-lite's vocabulary: ids 0–5 reserved (0 is the one-character unknown), every
// character of the alphabet is a piece of its own, longer pieces are more probable per character.
const letters = [...'▁abcdefghijklmnopqrstuvwxyz'].map((c): [string, number] => [c, -10]);
const vocabulary: Vocabulary = [
  ['\uFFFD', 0],
  ['<s>', 0],
  ['</s>', 0],
  ['extra_token_id_1', 0],
  ['extra_token_id_2', 0],
  ['extra_token_id_3', 0],
  ['▁deploy', -3], // 6
  ['▁de', -2], // 7
  ['ploy', -2], // 8
  ['▁on', -2], // 9
  ['▁friday', -12], // 10
  ['▁fri', -3], // 11
  ['day', -3], // 12
  ...letters, // 13 = "▁", 14 = "a", …
];
const id = (piece: string) => vocabulary.findIndex(([p]) => p === piece);
const tokenizer = new SentencePieceTokenizer(vocabulary);

describe('SentencePieceTokenizer (USE-lite unigram Viterbi)', () => {
  it('picks the segmentation with the highest total log-probability', () => {
    // "▁deploy" (-3) beats "▁de" + "ploy" (-4); "▁fri" + "day" (-6) beats "▁friday" (-12).
    expect(tokenizer.encode('deploys on friday')).toEqual([
      id('▁deploy'),
      id('s'),
      id('▁on'),
      id('▁fri'),
      id('day'),
    ]);
  });

  it('marks characters where no piece starts as unknown, one id for a run of them', () => {
    expect(tokenizer.encode('deploy ??? on')).toEqual([id('▁deploy'), id('▁'), 0, id('▁on')]);
  });

  it('applies NFKC first, so full-width letters match', () => {
    expect(tokenizer.encode('ｄｅｐｌｏｙ')).toEqual([id('▁deploy')]);
  });

  it('never matches the reserved symbols, even when the text spells them', () => {
    expect(tokenizer.encode('<s>')).toEqual([id('▁'), 0, id('s'), 0]);
  });

  it('returns nothing for an empty text and truncates at maxTokens', () => {
    expect(tokenizer.encode('')).toEqual([]);
    expect(tokenizer.encode('deploys on friday', 2)).toEqual([id('▁deploy'), id('s')]);
  });
});
