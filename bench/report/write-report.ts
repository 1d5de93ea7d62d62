import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/** Prints a report and writes it as `<base>.md` beside its data as `<base>.json` in `outDir`. */
export async function writeReport(
  outDir: string,
  base: string,
  report: { markdown: string; data: unknown },
  log: (line: string) => void,
): Promise<void> {
  process.stdout.write(report.markdown);
  const dir = resolve(outDir);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, `${base}.md`), report.markdown);
  await writeFile(join(dir, `${base}.json`), `${JSON.stringify(report.data, null, 2)}\n`);
  log(`wrote ${join(outDir, `${base}.md`)} and .json`);
}
