import { readFileSync } from 'node:fs';
import type { OnModuleInit } from '@nestjs/common';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Lexicon } from '../domain/lexicon';

/**
 * Where the relevance floor's lexicon comes from: `models/lexicon/words.txt.gz`, which the install
 * writes (scripts/embedding-model/lexicon.mjs): the vocabulary of the glove-sif-100d model — 200,000
 * words of the wink-embeddings package, most frequent first, after its special tokens — one per line,
 * without the package or the model. Read once, while the process starts (Nest's module init, before the API
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

export const LEXICON_FILE = join('lexicon', 'words.txt.gz');

function readLexicon(modelsDir: string): Lexicon | null {
  let text: string;
  try {
    text = gunzipSync(readFileSync(join(resolve(modelsDir), LEXICON_FILE))).toString('utf8');
  } catch {
    return null;
  }
  return new Lexicon(text.split('\n'));
}
