import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { AddressPolicy } from '../domain/address-policy';

/** At most this much of a receiver's answer is read (then the connection is dropped); none is kept. */
export const MAX_RESPONSE_BYTES = 64 * 1024;

export interface SendResult {
  /** The receiver's status code; null when no answer came (refused address, timeout, connection error). */
  readonly statusCode: number | null;
  readonly durationMs: number;
  /** Why the attempt failed, in words; null when the receiver answered 2xx. */
  readonly error: string | null;
}

/** A URL the policy refuses, found before or while connecting. */
export class RefusedAddressError extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
    readonly range: string,
  ) {
    super(
      `${host} resolves to ${address} (${range}), which webhooks may not reach; WEBHOOK_ALLOWED_NETWORKS can allow it`,
    );
    this.name = 'RefusedAddressError';
  }
}

export type Resolver = (host: string) => Promise<readonly LookupAddress[]>;

const systemResolver: Resolver = (host) =>
  new Promise((resolve, reject) =>
    dnsLookup(host, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    ),
  );

/** The host of a URL as DNS and the policy see it (IPv6 brackets removed). */
export function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * Sends webhook requests to addresses the policy allows only. The host is resolved and every address
 * it has is checked when the endpoint is registered (`check`) and again on each connection (the
 * socket's lookup), so a name that later points inside the network (DNS rebinding) is refused at
 * send time too. No redirect is followed; one attempt has WEBHOOK_TIMEOUT_MS for everything; at most
 * MAX_RESPONSE_BYTES of the answer is read.
 */
export class WebhookSender {
  constructor(
    private readonly policy: AddressPolicy,
    private readonly timeoutMs: number,
    private readonly resolve: Resolver = systemResolver,
  ) {}

  /** Resolves the URL's host; throws RefusedAddressError when any address is refused, the DNS error when it does not resolve. */
  async check(url: URL): Promise<void> {
    const host = hostOf(url);
    const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await this.resolve(host);
    for (const { address } of addresses) {
      const range = this.policy.refusal(address);
      if (range !== null) throw new RefusedAddressError(host, address, range);
    }
  }

  async send(url: string, headers: Record<string, string>, body: string): Promise<SendResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    let target: URL;
    try {
      target = new URL(url);
      const host = hostOf(target);
      if (isIP(host)) {
        const range = this.policy.refusal(host);
        if (range !== null) throw new RefusedAddressError(host, host, range);
      }
    } catch (error) {
      return { statusCode: null, durationMs: elapsed(), error: describe(error) };
    }
    try {
      const response = await this.post(target, headers, body);
      const ok = response.statusCode >= 200 && response.statusCode < 300;
      return {
        statusCode: response.statusCode,
        durationMs: elapsed(),
        error: ok ? null : `the receiver answered ${response.statusCode}`,
      };
    } catch (error) {
      return { statusCode: null, durationMs: elapsed(), error: describe(error) };
    }
  }

  private post(target: URL, headers: Record<string, string>, body: string): Promise<{ statusCode: number }> {
    const lookup: LookupFunction = (hostname, options, callback) => {
      this.resolve(hostname).then(
        (addresses) => {
          const family = typeof options === 'object' && options.family ? options.family : 0;
          const usable = addresses.filter((a) => family === 0 || a.family === family);
          for (const { address } of usable) {
            const range = this.policy.refusal(address);
            if (range !== null) {
              callback(new RefusedAddressError(hostname, address, range), '', 0);
              return;
            }
          }
          if (usable.length === 0) {
            callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
          } else if (typeof options === 'object' && options.all) {
            (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, [...usable]);
          } else {
            callback(null, usable[0].address, usable[0].family);
          }
        },
        (error: NodeJS.ErrnoException) => callback(error, '', 0),
      );
    };
    const payload = Buffer.from(body);
    const options: RequestOptions = {
      method: 'POST',
      headers: { ...headers, 'content-length': String(payload.length) },
      lookup,
      signal: AbortSignal.timeout(this.timeoutMs),
      // One connection per attempt: no pooled socket outlives the check of its address.
      agent: false,
    };
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = send(target, options, (res: IncomingMessage) => {
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_RESPONSE_BYTES) res.destroy();
        });
        const done = () => resolve({ statusCode: res.statusCode ?? 0 });
        res.on('end', done);
        res.on('close', done);
        res.on('error', done);
      });
      req.on('error', reject);
      req.end(payload);
    });
  }
}

function describe(error: unknown): string {
  if (error instanceof RefusedAddressError) return error.message;
  if (error instanceof Error) {
    if (error.name === 'AbortError' || error.name === 'TimeoutError')
      return 'no answer within WEBHOOK_TIMEOUT_MS';
    const code = (error as NodeJS.ErrnoException).code;
    return code ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}
