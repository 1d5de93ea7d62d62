import { readFileSync } from 'node:fs';
import type { OnModuleInit } from '@nestjs/common';
import { join, resolve } from 'node:path';
import { Lexicon } from '../domain/lexicon';

/**
 * Where the relevance floor's lexicon comes from: the vocabulary of the GloVe model the install
 * builds (`models/glove-sif-100d/tokenizer.json`, 200,000 words of the wink-embeddings package,
 * most frequent first). Read once, while the process starts (Nest's module init, before the API
 * listens and so before it reports ready): reading it takes ~0.5 s of the event loop, which on the
 * first recall of a process that already takes traffic would stall every request in flight and
 * its readiness probe. Without the file (a trimmed image) there is no lexicon and the floor's word
 * rules do not apply.
 */
export class LexiconSource implements OnModuleInit {
  private loaded: Lexicon | null | undefined;

  constructor(private readonly modelsDir: string) {}

  onModuleInit(): void {
    this.get();
  }

  get(): Lexicon | null {
    if (this.loaded === undefined) this.loaded = readLexicon(this.modelsDir);
    return this.loaded;
  }
}

export const LEXICON_MODEL = 'glove-sif-100d';

function readLexicon(modelsDir: string): Lexicon | null {
  let vocab: Record<string, number>;
  try {
    const file = join(resolve(modelsDir), LEXICON_MODEL, 'tokenizer.json');
    vocab = (JSON.parse(readFileSync(file, 'utf8')) as { model: { vocab: Record<string, number> } }).model
      .vocab;
  } catch {
    return null;
  }
  const words: string[] = [];
  for (const word in vocab) {
    const id = vocab[word];
    if (Number.isInteger(id) && id >= 0) words[id] = word;
  }
  return new Lexicon(words.map((w) => w ?? ''));
}
