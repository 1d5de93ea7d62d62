import { SecretDetector } from './secret-detector';

/** What a query value that holds a credential is logged as. */
export const REDACTED_QUERY_VALUE = '[REDACTED]';

/**
 * A function that rewrites a request URL for logging: every query parameter value that holds a
 * credential (by the same detector that screens memory text) is replaced, so a token pasted into
 * `?project=ghp_…` never reaches the log. The path is kept as is.
 */
export function createUrlRedactor(detector: SecretDetector = new SecretDetector()): (url: string) => string {
  return (url) => {
    const query = url.indexOf('?');
    if (query < 0) return url;
    const pairs = url.slice(query + 1).split('&');
    let changed = false;
    const redacted = pairs.map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return pair;
      const raw = pair.slice(eq + 1);
      let value: string;
      try {
        value = decodeURIComponent(raw.replace(/\+/g, ' '));
      } catch {
        value = raw;
      }
      if (detector.redact(value).findings.length === 0) return pair;
      changed = true;
      return `${pair.slice(0, eq)}=${REDACTED_QUERY_VALUE}`;
    });
    return changed ? `${url.slice(0, query)}?${redacted.join('&')}` : url;
  };
}
