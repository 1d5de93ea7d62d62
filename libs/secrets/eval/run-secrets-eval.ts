import { SecretDetector } from '../src/detection/secret-detector';
import { generateBenignSamples } from './benign-samples';
import { generateSecretSamples, SECRET_KINDS } from './secret-samples';

/**
 * `npm run eval:secrets`: detection rate on generated secrets (target ≥ 95 %), false-positive rate
 * on benign text (target ≤ 1 %), and detector speed. Exits 1 when a target is missed.
 */
const detector = new SecretDetector();
const secrets = generateSecretSamples(30);
const benign = generateBenignSamples(80);

const perKind = new Map<string, { total: number; found: number }>();
for (const sample of secrets) {
  const stats = perKind.get(sample.kind) ?? { total: 0, found: 0 };
  stats.total += 1;
  if (!detector.redact(sample.text).text.includes(sample.secret)) stats.found += 1;
  perKind.set(sample.kind, stats);
}
const fpPerKind = new Map<string, { total: number; flagged: number; example?: string }>();
for (const sample of benign) {
  const stats = fpPerKind.get(sample.kind) ?? { total: 0, flagged: 0 };
  stats.total += 1;
  if (detector.detect(sample.text).length > 0) {
    stats.flagged += 1;
    stats.example ??= sample.text;
  }
  fpPerKind.set(sample.kind, stats);
}

const pct = (n: number, d: number): string => `${((100 * n) / d).toFixed(1)}%`;
console.log(`Detection (${secrets.length} secrets, ${SECRET_KINDS.length} kinds)`);
for (const [kind, s] of perKind)
  console.log(`  ${kind.padEnd(24)} ${pct(s.found, s.total).padStart(6)}  (${s.found}/${s.total})`);
const found = [...perKind.values()].reduce((a, s) => a + s.found, 0);
console.log(`False positives (${benign.length} benign samples)`);
for (const [kind, s] of fpPerKind) {
  console.log(
    `  ${kind.padEnd(24)} ${pct(s.flagged, s.total).padStart(6)}  (${s.flagged}/${s.total})${s.example ? `  e.g. ${JSON.stringify(s.example)}` : ''}`,
  );
}
const flagged = [...fpPerKind.values()].reduce((a, s) => a + s.flagged, 0);

const typical = [...secrets.slice(0, 50).map((s) => s.text), ...benign.slice(0, 150).map((b) => b.text)].map(
  (t) =>
    `${t} — noted while fixing the deploy pipeline; see the runbook for the rollback steps and the on-call rota.`,
);
for (const t of typical) detector.redact(t); // warm up
const rounds = 20;
const started = process.hrtime.bigint();
for (let r = 0; r < rounds; r++) for (const t of typical) detector.redact(t);
const micros = Number(process.hrtime.bigint() - started) / 1000 / (rounds * typical.length);

const detectionRate = found / secrets.length;
const fpRate = flagged / benign.length;
console.log(`\nDetection rate ${pct(found, secrets.length)} (target ≥ 95%)`);
console.log(`False-positive rate ${pct(flagged, benign.length)} (target ≤ 1%)`);
console.log(
  `Speed ${micros.toFixed(1)} µs per memory (~${Math.round(typical.reduce((a, t) => a + t.length, 0) / typical.length)} chars)`,
);
if (detectionRate < 0.95 || fpRate > 0.01) process.exitCode = 1;
