import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** Figures every suite reports, zero or not, so a table of runs always has the same columns. */
export const CORE_FIGURES = [
  'calls',
  'faults injected',
  'acknowledged writes',
  'lost',
  'leaks',
  '5xx',
] as const;
export type CoreFigure = (typeof CORE_FIGURES)[number];

/** Figures that must end at zero: a suite with any of them above zero has failed. */
const MUST_BE_ZERO: readonly string[] = ['lost', 'leaks', '5xx'];

export interface ChaosResult {
  readonly suite: string;
  readonly passed: number;
  readonly failed: number;
  readonly figures: Record<string, number>;
  readonly failures: readonly string[];
  readonly finishedAt: string;
}

/**
 * What one fault-injection or fuzzing suite tried and what held. Checks are invariants looked at
 * during the run (a response that must not leak, a write that must be there); figures count what
 * was done (calls, faults) and what went wrong (lost, leaks, 5xx). `report()` prints
 * `N passed, N failed` with a table and leaves a JSON copy for docs/reliability.md.
 */
export class ChaosTally {
  private readonly figures = new Map<string, number>(CORE_FIGURES.map((f) => [f, 0]));
  private readonly failures: string[] = [];
  private passedChecks = 0;

  constructor(readonly suite: string) {}

  add(figure: CoreFigure | (string & {}), n = 1): void {
    this.figures.set(figure, (this.figures.get(figure) ?? 0) + n);
  }

  get(figure: CoreFigure | (string & {})): number {
    return this.figures.get(figure) ?? 0;
  }

  /** Records one invariant; a failed one keeps its detail (the first 50 are kept). */
  check(label: string, ok: boolean, detail?: () => string): boolean {
    if (ok) {
      this.passedChecks++;
    } else {
      if (this.failures.length < 50) this.failures.push(detail ? `${label}: ${detail()}` : label);
      else this.failures.length++;
    }
    return ok;
  }

  /** Counts a response status: a 5xx is a failure of the suite, whatever the test expected. */
  status(status: number, what: string): void {
    this.add('calls');
    if (status >= 500) {
      this.add('5xx');
      this.check(`${what} answered without a 5xx`, false, () => `status ${status}`);
    }
  }

  get passed(): number {
    return this.passedChecks;
  }

  get failed(): number {
    return this.failures.length;
  }

  result(): ChaosResult {
    return {
      suite: this.suite,
      passed: this.passedChecks,
      failed: this.failures.length,
      figures: Object.fromEntries(this.figures),
      failures: this.failures.filter(Boolean),
      finishedAt: new Date().toISOString(),
    };
  }

  /** Prints the summary line and the table, and writes `<CHAOS_RESULTS_DIR>/<suite>.json`. */
  report(log: (line: string) => void = (line) => process.stdout.write(`${line}\n`)): ChaosResult {
    const result = this.result();
    const width = Math.max(...Object.keys(result.figures).map((k) => k.length), 6);
    const lines = [
      `${this.suite}: ${result.passed} passed, ${result.failed} failed`,
      ...Object.entries(result.figures).map(([k, v]) => `  ${k.padEnd(width)}  ${v}`),
      ...result.failures.map((f) => `  FAILED ${f}`),
    ];
    log(lines.join('\n'));
    const dir = resolve(process.env.CHAOS_RESULTS_DIR ?? '.chaos-results');
    mkdirSync(dir, { recursive: true });
    const file = this.suite
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '');
    writeFileSync(resolve(dir, `${file}.json`), `${JSON.stringify(result, null, 2)}\n`);
    return result;
  }

  /** Throws with every failure when a check failed or a must-be-zero figure is above zero. */
  assertClean(): void {
    const bad = MUST_BE_ZERO.filter((f) => this.get(f) > 0).map((f) => `${f} = ${this.get(f)}`);
    if (this.failed > 0 || bad.length > 0) {
      throw new Error(
        `${this.suite}: ${this.failed} failed${bad.length ? `, ${bad.join(', ')}` : ''}\n${this.failures.join('\n')}`,
      );
    }
  }
}
