// The relevance floor's lexicon: the 200,002 words of the glove-sif-100d vocabulary in frequency
// order (its special tokens first), one per line. Committed as lexicon-words.txt.gz (0.8 MB) so that
// an install needs neither the 294 MB word-vector package nor the glove model; copied into
// <modelsDir>/lexicon/words.txt.gz, where the API reads it (libs/recall LexiconSource).
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const LEXICON_NAME = 'lexicon';
export const LEXICON_FILE = 'words.txt.gz';
const here = dirname(fileURLToPath(import.meta.url));
const SOURCE = join(here, 'lexicon-words.txt.gz');

export async function buildLexicon({ modelsDir, name = LEXICON_NAME, force = false }) {
  const startedAt = performance.now();
  const target = join(modelsDir, name, LEXICON_FILE);
  const cached = !force && existsSync(target) && readFileSync(target).equals(readFileSync(SOURCE));
  if (!cached) {
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(SOURCE, target);
  }
  return {
    path: join(modelsDir, name),
    cached,
    seconds: (performance.now() - startedAt) / 1000,
    files: { [LEXICON_FILE]: statSync(target).size },
  };
}
