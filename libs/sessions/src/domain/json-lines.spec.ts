import { describe, expect, it } from 'vitest';
import { splitLines, type RawLine } from './json-lines';

async function* chunks(...parts: Array<string | Buffer>) {
  for (const part of parts) yield typeof part === 'string' ? Buffer.from(part) : part;
}
const collect = async (source: AsyncIterable<Buffer>, max = 1024) => {
  const lines: RawLine[] = [];
  for await (const line of splitLines(source, max)) lines.push(line);
  return lines;
};

describe('splitLines', () => {
  it('splits across chunk boundaries, CRLF and a last line without newline', async () => {
    expect(await collect(chunks('{"a":', '1}\r\n{"b"', ':2}\n\n', '{"c":3}'))).toEqual([
      { lineNo: 1, text: '{"a":1}' },
      { lineNo: 2, text: '{"b":2}' },
      { lineNo: 3, text: '' },
      { lineNo: 4, text: '{"c":3}' },
    ]);
  });

  it('keeps a multi-byte character split between chunks whole, and drops a leading BOM', async () => {
    const snowman = Buffer.from('\uFEFF"☃"\n');
    expect(await collect(chunks(snowman.subarray(0, 6), snowman.subarray(6)))).toEqual([
      { lineNo: 1, text: '"☃"' },
    ]);
  });

  it('reports a line over the cap as oversize without holding it, and goes on', async () => {
    const lines = await collect(
      chunks('short\n', 'x'.repeat(10), 'x'.repeat(10), '\nnext\n', 'y'.repeat(30)),
      16,
    );
    expect(lines).toEqual([
      { lineNo: 1, text: 'short' },
      { lineNo: 2, oversize: true },
      { lineNo: 3, text: 'next' },
      { lineNo: 4, oversize: true },
    ]);
  });
});
