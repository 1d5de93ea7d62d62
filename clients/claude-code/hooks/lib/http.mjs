// One HTTP call to the memory service that never throws and never outlives its deadline.

import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';

const MAX_RESPONSE_BYTES = 1024 * 1024;

/** The body of a response: JSON when it parses, the JSON of an SSE `data:` line, else the text. */
function parseBody(text) {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    const data = text
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trim());
    for (const line of data.reverse()) {
      try {
        return JSON.parse(line);
      } catch {
        // Not JSON either; try the previous line.
      }
    }
    return text;
  }
}

/**
 * Calls the service and resolves `{status, body}`; `status` 0 with `error` (and `timedOut`) when no
 * answer came: refused, reset, DNS, TLS, or the deadline (a `performance.now()` time) passed.
 * `Connection: close` and no agent, so no socket keeps the process alive after the answer.
 */
export function callApi(config, { method, path, body, deadline, headers = {} }) {
  return new Promise((resolve) => {
    const remaining = Math.floor(deadline - performance.now());
    if (remaining <= 5) {
      resolve({ status: 0, error: 'no time left', timedOut: true });
      return;
    }
    let settled = false;
    let timer;
    const done = (result) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    try {
      const url = new URL(config.apiUrl + path);
      const transport = url.protocol === 'https:' ? https : http;
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const req = transport.request(
        url,
        {
          method,
          agent: false,
          headers: {
            authorization: `Bearer ${config.apiKey}`,
            accept: 'application/json',
            connection: 'close',
            'user-agent': `memory-hooks/${config.agent}`,
            ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}),
            ...headers,
          },
        },
        (res) => {
          const chunks = [];
          let size = 0;
          res.on('data', (chunk) => {
            size += chunk.length;
            if (size <= MAX_RESPONSE_BYTES) chunks.push(chunk);
          });
          res.on('end', () =>
            done({ status: res.statusCode ?? 0, body: parseBody(Buffer.concat(chunks).toString('utf8')) }),
          );
          res.on('error', (error) => done({ status: 0, error: error.message }));
        },
      );
      timer = setTimeout(() => {
        done({ status: 0, error: `no answer within ${remaining} ms`, timedOut: true });
        req.destroy();
      }, remaining);
      req.on('error', (error) => done({ status: 0, error: error.code ?? error.message }));
      req.end(payload);
    } catch (error) {
      done({ status: 0, error: error instanceof Error ? error.message : String(error) });
    }
  });
}

/** Whether a failed call may succeed later (keep the record) or never will (drop it). */
export function isRetryable(result) {
  const { status } = result;
  return (
    status === 0 || status === 401 || status === 403 || status === 408 || status === 429 || status >= 500
  );
}

export const isOk = (result) => result.status >= 200 && result.status < 300;
