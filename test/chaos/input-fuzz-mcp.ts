import fc from 'fast-check';
import { arbitraryFor, deepArray, mutateBody, type ChaosTally, type JsonSchema } from '@app/testing';
import { sendRaw, type RawAnswer } from '../support/openapi-operations';

/** The MCP half of the input fuzz: tools/list's input schemas drive tools/call, raw JSON-RPC. */

export interface McpFuzz {
  readonly url: string;
  readonly key: string;
  readonly tally: ChaosTally;
  readonly seed: number;
  /** Text that must appear in no answer (another user's private memories). */
  readonly forbiddenText: string;
}

interface Tool {
  name: string;
  inputSchema: JsonSchema;
}
interface RpcReply {
  result?: { isError?: boolean; tools?: Tool[] };
  error?: { code: number; message: string };
}

const ACCEPT = { accept: 'application/json, text/event-stream' };

function post(
  fuzz: McpFuzz,
  body: string | Uint8Array,
  contentType = 'application/json',
): Promise<RawAnswer> {
  return sendRaw({ method: 'POST', url: fuzz.url, key: fuzz.key, body, contentType, headers: ACCEPT });
}

/** The JSON-RPC message(s) of an answer, whether sent as JSON or as one SSE stream. */
function replies(answer: RawAnswer): RpcReply[] {
  const texts = answer.contentType.includes('event-stream')
    ? answer.text
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5))
    : [answer.text];
  return texts.flatMap((t) => {
    try {
      return [JSON.parse(t) as RpcReply].flat();
    } catch {
      return [];
    }
  });
}

const call = (name: string, rawArguments: string) =>
  `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":${JSON.stringify(name)},"arguments":${rawArguments}}}`;

/** Counts the call; a 5xx, a hang or a leak fails the suite. */
function judge(fuzz: McpFuzz, what: string, answer: RawAnswer): void {
  if (answer.error) {
    fuzz.tally.add('calls');
    fuzz.tally.check(`${what} answered`, false, () => answer.error ?? '');
    return;
  }
  fuzz.tally.status(answer.status, what);
  if (answer.text.includes(fuzz.forbiddenText)) {
    fuzz.tally.add('leaks');
    fuzz.tally.check(`${what} shows nothing of another user's private memories`, false);
  }
}

export async function listTools(fuzz: McpFuzz): Promise<Tool[]> {
  const answer = await post(fuzz, '{"jsonrpc":"2.0","id":1,"method":"tools/list"}');
  judge(fuzz, 'MCP tools/list', answer);
  return replies(answer)[0]?.result?.tools ?? [];
}

/** tools/call with arguments generated from each tool's input schema: a result (error or not), no 5xx. */
export async function validToolCalls(fuzz: McpFuzz, tools: readonly Tool[], perTool: number): Promise<void> {
  for (const tool of tools) {
    const samples = fc.sample(arbitraryFor(tool.inputSchema), { numRuns: perTool, seed: fuzz.seed });
    for (const args of samples) {
      const answer = await post(fuzz, call(tool.name, JSON.stringify(args)));
      const what = `MCP ${tool.name} (valid)`;
      judge(fuzz, what, answer);
      fuzz.tally.add('mcp valid calls');
      const reply = replies(answer)[0];
      fuzz.tally.check(
        `${what} answers a JSON-RPC result`,
        answer.status === 200 && reply?.result !== undefined,
        () => `${answer.status} ${answer.text.slice(0, 200)}`,
      );
    }
  }
}

/** A hostile call must be refused: a 4xx, a JSON-RPC error, or a tool result with isError. */
function refused(answer: RawAnswer): boolean {
  if (answer.status >= 400 && answer.status < 500) return true;
  const reply = replies(answer)[0];
  return reply?.error !== undefined || reply?.result?.isError === true;
}

const MALFORMED: ReadonlyArray<[string, string]> = [
  ['not JSON', 'this is not json'],
  ['truncated', '{"jsonrpc":"2.0","id":1,"method":"tools/call"'],
  ['empty object', '{}'],
  ['empty batch', '[]'],
  ['wrong version', '{"jsonrpc":"1.0","id":1,"method":"tools/list"}'],
  ['object id', '{"jsonrpc":"2.0","id":{"x":1},"method":"tools/list"}'],
  ['unknown method', '{"jsonrpc":"2.0","id":1,"method":"memories/steal"}'],
  ['params a string', '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"memory_store"}'],
  ['unknown tool', call('no_such_tool', '{}')],
  ['arguments an array', call('memory_store', '["content"]')],
  ['NUL in method', '{"jsonrpc":"2.0","id":1,"method":"tools/\\u0000list"}'],
  ['lone surrogate', call('memory_store', '{"content":"\\ud800"}')],
  [
    '__proto__',
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","__proto__":{"x":1},"params":{"name":"memory_list"}}',
  ],
  ['deep params', `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":${deepArray(10_000)}}`],
  ['huge id', `{"jsonrpc":"2.0","id":"${'9'.repeat(2 * 1024 * 1024)}","method":"tools/list"}`],
  [
    'huge number id',
    '{"jsonrpc":"2.0","id":1e999,"method":"tools/call","params":{"name":"memory_store","arguments":{"content":1e999}}}',
  ],
];

/** Malformed JSON-RPC and tools/call with mutated arguments; returns how many were sent. */
export async function hostileMcpCalls(
  fuzz: McpFuzz,
  tools: readonly Tool[],
  identity: Readonly<Record<string, unknown>>,
  random: () => number,
): Promise<number> {
  let sent = 0;
  const check = (what: string, answer: RawAnswer, mustRefuse: boolean) => {
    sent++;
    fuzz.tally.add('mutations sent');
    judge(fuzz, what, answer);
    if (!mustRefuse || answer.error || answer.status >= 500) return;
    fuzz.tally.check(
      `${what} refused`,
      refused(answer),
      () => `${answer.status} ${answer.text.slice(0, 200)}`,
    );
  };
  for (const [kind, body] of MALFORMED) check(`MCP ${kind}`, await post(fuzz, body), true);
  check('MCP text/plain', await post(fuzz, call('memory_store', '{"content":"x"}'), 'text/plain'), true);
  for (const tool of tools) {
    const [valid] = fc.sample(arbitraryFor(tool.inputSchema), { numRuns: 1, seed: fuzz.seed + 1 });
    const mutations = mutateBody(
      valid,
      tool.inputSchema,
      {},
      { random, foreignIdentity: identity, ignoredIdentity: {} },
    );
    for (const m of mutations.filter((x) => x.mustRefuse && x.contentType === undefined)) {
      const [head, tail] = call(tool.name, '@@').split('@@');
      const body =
        typeof m.body === 'string'
          ? `${head}${m.body}${tail}`
          : Buffer.concat([Buffer.from(head), m.body, Buffer.from(tail)]);
      check(`MCP ${tool.name} [${m.kind}${m.field ? ` ${m.field}` : ''}]`, await post(fuzz, body), true);
    }
  }
  return sent;
}
