/**
 * Writes the friends-chats evaluation set from its seed:
 *   npx vite-node bench/datasets/friends-chats/generate.ts
 * The output is committed; `generate.spec.ts` checks it still matches this generator.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildDataset, renderFiles } from './src/build';

const dir = __dirname;
const files = renderFiles(buildDataset());
mkdirSync(join(dir, 'qrels'), { recursive: true });
for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
process.stdout.write(`${Object.keys(files).join(', ')} written to ${dir}\n`);
