// tokenizer.json, tokenizer_config.json and config.json for the static model.
//
// The tokenizer model is `WordLevel` (a plain word → id lookup), which Hugging Face `tokenizers`
// loads natively. transformers.js 3.8.1 has no WordLevel class: TokenizerModel.fromConfig only
// names WordPiece, Unigram and BPE, and sends anything else that has an object `vocab` and no
// `continuing_subword_prefix` to LegacyTokenizerModel — which passes the pre-tokenised words
// through unchanged and maps unknown ones to the `unk_token` of tokenizer_config.json. That is
// exactly word-level lookup, so both libraries read the same file the same way. (A WordPiece
// vocabulary without `##` pieces would also behave word-level, but tries every prefix of every
// word first.)

export const PAD_TOKEN = '[PAD]';
export const UNK_TOKEN = '[UNK]';
export const SPECIAL_TOKENS = [PAD_TOKEN, UNK_TOKEN]; // ids 0 and 1; their table rows are zero
/** Longer texts are truncated; batches pad to the longest text, so this bounds a batch's memory. */
export const MODEL_MAX_LENGTH = 2048;

const specialToken = (content, id) => ({
  id,
  content,
  single_word: false,
  lstrip: false,
  rstrip: false,
  normalized: false,
  special: true,
});

/** tokenizer.json for a vocabulary given in id order (special tokens first). */
export function tokenizerJson(vocabulary) {
  const vocab = {};
  vocabulary.forEach((token, id) => {
    vocab[token] = id;
  });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL_TOKENS.map(specialToken),
    // Lower-cases and strips accents, like GloVe 6B's (lower-cased) training text.
    normalizer: {
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    // No [CLS]/[SEP]: they would enter the mean as extra (zero) tokens.
    post_processor: null,
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordLevel', vocab, unk_token: UNK_TOKEN },
  };
}

export function tokenizerConfigJson() {
  return {
    tokenizer_class: 'PreTrainedTokenizerFast',
    model_max_length: MODEL_MAX_LENGTH,
    pad_token: PAD_TOKEN,
    unk_token: UNK_TOKEN,
    do_lower_case: true,
    clean_up_tokenization_spaces: true,
    model_input_names: ['input_ids', 'attention_mask'],
  };
}

/**
 * `bert` is a model type transformers.js' AutoModel loads for feature-extraction from
 * onnx/model.onnx without any architecture-specific inputs; only hidden_size matters here.
 */
export function modelConfigJson({ dimensions, vocabSize, build }) {
  return {
    architectures: ['BertModel'],
    model_type: 'bert',
    hidden_size: dimensions,
    vocab_size: vocabSize,
    max_position_embeddings: MODEL_MAX_LENGTH,
    num_hidden_layers: 0,
    num_attention_heads: 1,
    intermediate_size: 0,
    pad_token_id: 0,
    'transformers.js_config': { dtype: 'fp32' },
    static_embedding: build,
  };
}

/**
 * Normalises and pre-tokenises a word exactly as the runtime will, by running transformers.js'
 * own tokenizer built from the same tokenizer.json (with an empty vocabulary, so `tokenize`
 * returns the pre-tokens unchanged). A GloVe word is reachable only when it comes out as one
 * token; "u.s." or "e-mail" would be split at runtime and never looked up whole.
 */
export async function createWordNormaliser() {
  const { PreTrainedTokenizer } = await import('@huggingface/transformers');
  const tokenizer = new PreTrainedTokenizer(tokenizerJson([...SPECIAL_TOKENS]), tokenizerConfigJson());
  return (word) => {
    const pieces = tokenizer.tokenize(word);
    return pieces.length === 1 && !SPECIAL_TOKENS.includes(pieces[0]) ? pieces[0] : undefined;
  };
}
