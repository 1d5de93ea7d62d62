/** One line of a JSON Lines stream: its text, or only its number when it was over the size cap. */
export type RawLine =
  { readonly lineNo: number; readonly text: string } | { readonly lineNo: number; readonly oversize: true };

const NEWLINE = 0x0a;

/**
 * Splits a byte stream into lines as it arrives, holding at most one line (up to `maxLineBytes`) in
 * memory: the bytes of a longer line are dropped as they come and the line is reported as oversize,
 * so one huge line (a pasted image, a whole file) costs nothing and never fails the stream.
 */
export async function* splitLines(
  chunks: AsyncIterable<Uint8Array | string>,
  maxLineBytes: number,
): AsyncGenerator<RawLine> {
  let parts: Buffer[] = [];
  let size = 0;
  let dropping = false;
  let lineNo = 0;
  const take = (): RawLine => {
    lineNo += 1;
    const line: RawLine = dropping ? { lineNo, oversize: true } : { lineNo, text: decode(parts, lineNo) };
    parts = [];
    size = 0;
    dropping = false;
    return line;
  };
  for await (const chunk of chunks) {
    const buffer = toBuffer(chunk);
    let start = 0;
    for (;;) {
      const newline = buffer.indexOf(NEWLINE, start);
      const end = newline === -1 ? buffer.length : newline;
      if (!dropping && end > start) {
        if (size + (end - start) > maxLineBytes) {
          dropping = true;
          parts = [];
          size = 0;
        } else {
          parts.push(buffer.subarray(start, end));
          size += end - start;
        }
      }
      if (newline === -1) break;
      yield take();
      start = newline + 1;
    }
  }
  if (dropping || size > 0) yield take();
}

function toBuffer(chunk: Uint8Array | string): Buffer {
  if (typeof chunk === 'string') return Buffer.from(chunk, 'utf8');
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

function decode(parts: readonly Buffer[], lineNo: number): string {
  let text = Buffer.concat(parts).toString('utf8');
  if (text.endsWith('\r')) text = text.slice(0, -1);
  // A byte-order mark some editors write at the start of a file.
  if (lineNo === 1 && text.startsWith('\uFEFF')) text = text.slice(1);
  return text;
}
