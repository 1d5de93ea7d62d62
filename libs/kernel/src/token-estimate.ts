/**
 * How many tokens a text costs an agent, estimated without a tokenizer: the service answers agents
 * of several vendors, whose models tokenize differently, and the tokenizer of the models the hooks
 * serve is not published as an offline library. The estimate leans high, so a block fitted to it
 * stays within a model's budget:
 *
 * - ASCII: 4 characters per token, the usual average for English prose and code (rounded up);
 * - any other character (accents, `·`, `⟦`, CJK, …): 1 token each, 2 outside the Basic
 *   Multilingual Plane (emoji), where byte-level tokenizers often spend one token or more per
 *   character.
 *
 * Additive from above: the estimate of a concatenation is at most the sum of its parts' estimates,
 * so a block whose pieces' estimates fit a budget fits it too.
 */

export const ASCII_CHARS_PER_TOKEN = 4;

export function estimateTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) {
      ascii++;
    } else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      // A surrogate pair: one character outside the BMP.
      other += 2;
      i++;
    } else {
      other++;
    }
  }
  return Math.ceil(ascii / ASCII_CHARS_PER_TOKEN) + other;
}
