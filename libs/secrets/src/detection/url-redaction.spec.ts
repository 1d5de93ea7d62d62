import { describe, expect, it } from 'vitest';
import { createUrlRedactor, REDACTED_QUERY_VALUE } from './url-redaction';

const redact = createUrlRedactor();
const github = 'ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5';

describe('URL redaction for logs', () => {
  it('replaces query values that hold credentials, encoded or not', () => {
    expect(redact(`/api/memories?project=${github}&limit=5`)).toBe(
      `/api/memories?project=${REDACTED_QUERY_VALUE}&limit=5`,
    );
    const encoded = encodeURIComponent(`postgres://admin:S3cr3t-pa55w0rd@db:5432/app`);
    expect(redact(`/api/memories/sync?since=x&project=${encoded}`)).toBe(
      `/api/memories/sync?since=x&project=${REDACTED_QUERY_VALUE}`,
    );
  });

  it('leaves ordinary URLs exactly as they were', () => {
    for (const url of [
      '/api/memories',
      '/api/memories?category=decisions&limit=50',
      '/health',
      '/api/x?flag',
    ]) {
      expect(redact(url)).toBe(url);
    }
  });
});
