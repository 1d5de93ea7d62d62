import { resolveRef, type JsonSchema } from './schema-arbitrary';

/**
 * Hostile variants of a valid request body. `mustRefuse` mutations break the schema the operation
 * documents (wrong types, sizes, nesting, identity fields), so the only right answer is a 4xx that
 * changes nothing; the others keep the body valid under "unknown fields are ignored" or probe how
 * text is stored (`__proto__` keys, NUL, lone surrogates, -0), so they may succeed but must never
 * answer a 5xx.
 */
export interface BodyMutation {
  readonly kind: string;
  readonly field?: string;
  readonly body: string | Uint8Array;
  readonly contentType?: string;
  readonly mustRefuse: boolean;
}

export interface MutationContext {
  /** Identity fields the service documents as refused, with values naming someone else. */
  readonly foreignIdentity: Readonly<Record<string, unknown>>;
  /** Fields outside the schema that name someone else but are documented as ignored (`created_by`, `id`). */
  readonly ignoredIdentity: Readonly<Record<string, unknown>>;
  /** 0 <= r < 1, for choosing a field and a size. */
  readonly random: () => number;
}

const MB = 1024 * 1024;
export const DEEP_NESTING = 10_000;

/** Does `value` have a JSON type the schema accepts? (Types only: lengths and patterns aside.) */
export function acceptsType(input: JsonSchema, value: unknown, root: unknown): boolean {
  const schema = resolveRef(input, root);
  if (Array.isArray(schema.type)) {
    return schema.type.some((type: string) => acceptsType({ ...schema, type }, value, root));
  }
  if (value === null) return schema.nullable === true || schema.type === undefined || schema.type === 'null';
  if (schema.enum !== undefined) return schema.enum.includes(value);
  const choices = schema.anyOf ?? schema.oneOf;
  if (choices !== undefined) return choices.some((c) => acceptsType(c, value, root));
  switch (schema.type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number';
    case 'integer':
      return Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return typeof value === 'object' && !Array.isArray(value);
    default:
      return true;
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Does the schema accept the string `value` (a path or query parameter, as sent)? */
export function acceptsString(input: JsonSchema, value: string, root: unknown): boolean {
  const schema = resolveRef(input, root);
  const choices = schema.anyOf ?? schema.oneOf;
  if (choices !== undefined) return choices.some((c) => acceptsString(c, value, root));
  if (schema.enum !== undefined) return schema.enum.includes(value);
  if (schema.type !== undefined && schema.type !== 'string') {
    // Numbers and booleans in a query string are parsed from their text.
    if (schema.type === 'boolean') return value === 'true' || value === 'false';
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n)) return false;
    if (schema.type === 'integer' && !Number.isInteger(n)) return false;
    return (
      (schema.minimum === undefined || n >= schema.minimum) &&
      (schema.maximum === undefined || n <= schema.maximum)
    );
  }
  if (schema.minLength !== undefined && value.length < schema.minLength) return false;
  if (schema.maxLength !== undefined && value.length > schema.maxLength) return false;
  if (schema.pattern !== undefined && !new RegExp(schema.pattern).test(value)) return false;
  if (schema.format === 'uuid' && !UUID.test(value)) return false;
  if (schema.format === 'date-time' && Number.isNaN(Date.parse(value))) return false;
  return true;
}

const WRONG_VALUES: readonly unknown[] = [
  'not the right type',
  12345,
  true,
  { nested: 'object' },
  ['an', 'array'],
];

/** A value of another JSON type than the schema takes (never null: optional nulls count as absent). */
export function wrongTypeFor(schema: JsonSchema, root: unknown, random: () => number): unknown | undefined {
  const candidates = WRONG_VALUES.filter((v) => !acceptsType(schema, v, root));
  return candidates.length === 0 ? undefined : candidates[Math.floor(random() * candidates.length)];
}

export const deepArray = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
export const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

/** `value` as JSON with the raw JSON text `raw` in place of the property `field`. */
function withRawField(value: Record<string, unknown>, field: string, raw: string): string {
  const marker = `__raw_${Math.random().toString(36).slice(2)}__`;
  return JSON.stringify({ ...value, [field]: marker }).replace(JSON.stringify(marker), raw);
}

function pick<T>(items: readonly T[], random: () => number): T | undefined {
  return items.length === 0 ? undefined : items[Math.floor(random() * items.length)];
}

/** Body mutations of one valid body; `schema` is the operation's request body schema. */
export function mutateBody(
  valid: unknown,
  bodySchema: JsonSchema,
  root: unknown,
  ctx: MutationContext,
): BodyMutation[] {
  const schema = resolveRef(bodySchema, root);
  const out: BodyMutation[] = [];
  const refuse = (kind: string, body: string | Uint8Array, field?: string, contentType?: string) =>
    out.push({ kind, body, field, contentType, mustRefuse: true });
  const mayPass = (kind: string, body: string | Uint8Array, field?: string) =>
    out.push({ kind, body, field, mustRefuse: false });

  // The whole body: another type, nested 10k deep, or beyond the body limit.
  const wrongBody = wrongTypeFor(schema, root, ctx.random);
  if (wrongBody !== undefined) refuse('wrong type (body)', JSON.stringify(wrongBody));
  refuse('deep nesting (body)', schema.type === 'array' ? deepObject(DEEP_NESTING) : deepArray(DEEP_NESTING));
  refuse('malformed JSON', JSON.stringify(valid).slice(0, -1) || '{');
  refuse('malformed JSON', `${JSON.stringify(valid)},}`);
  refuse('wrong content type', JSON.stringify(valid), undefined, 'text/plain');
  refuse('wrong content type', 'content=x&category=facts', undefined, 'application/x-www-form-urlencoded');

  // Work on one object: the body itself, or the first item of an array body.
  const target = Array.isArray(valid) ? valid[0] : valid;
  const targetSchema = Array.isArray(valid) && schema.items ? resolveRef(schema.items, root) : schema;
  if (typeof target !== 'object' || target === null || Array.isArray(target)) return out;
  const wrap = (text: string) => (Array.isArray(valid) ? `[${text}]` : text);
  const object = target as Record<string, unknown>;
  const props = targetSchema.properties ?? {};
  const names = Object.keys(props);
  const stringNames = names.filter((n) => acceptsType(props[n], 'x', root));
  const numberNames = names.filter((n) => acceptsType(props[n], 1.5, root) || acceptsType(props[n], 1, root));

  const typed = pick(names, ctx.random);
  if (typed !== undefined) {
    const wrong = wrongTypeFor(props[typed], root, ctx.random);
    if (wrong !== undefined) refuse('wrong type', wrap(JSON.stringify({ ...object, [typed]: wrong })), typed);
    refuse('deep nesting', wrap(withRawField(object, typed, deepArray(DEEP_NESTING))), typed);
  }
  const big = pick(stringNames, ctx.random) ?? 'content';
  const size = MB + Math.floor(ctx.random() * 4 * MB);
  refuse('huge string (1-5 MB)', wrap(JSON.stringify({ ...object, [big]: 'x'.repeat(size) })), big);

  for (const [field, value] of Object.entries(ctx.foreignIdentity)) {
    refuse('identity field', wrap(JSON.stringify({ ...object, [field]: value })), field);
  }
  for (const n of numberNames) {
    const bounded = resolveRef(props[n], root);
    const huge = ['1e308', '18446744073709551616', '-1e308', '1e999'];
    for (const raw of huge) {
      const over =
        (bounded.maximum !== undefined && Number(raw) > bounded.maximum) ||
        (bounded.minimum !== undefined && Number(raw) < bounded.minimum);
      (over ? refuse : mayPass)('huge number', wrap(withRawField(object, n, raw)), n);
    }
    // Only a field that takes no string must refuse "NaN" (one that takes any string stores it as text).
    if (!acceptsType(props[n], 'NaN', root))
      refuse('NaN as a string', wrap(JSON.stringify({ ...object, [n]: 'NaN' })), n);
    mayPass('-0', wrap(withRawField(object, n, '-0')), n);
  }

  // Prototype-poisoning keys are refused (400 forbidden_property); a bare `prototype` or
  // `constructor` without `prototype` under it is just an unknown field.
  const poison = '{"is_admin":true,"polluted":true}';
  const withKey = (key: string, raw: string) =>
    wrap(JSON.stringify(object).replace(/^\{/, `{"${key}":${raw}${Object.keys(object).length ? ',' : ''}`));
  refuse('__proto__ key', withKey('__proto__', poison));
  refuse('constructor.prototype key', withKey('constructor', `{"prototype":${poison}}`));
  mayPass('prototype key', withKey('prototype', poison));
  const text = pick(stringNames, ctx.random);
  if (text !== undefined) {
    const base = typeof object[text] === 'string' ? (object[text] as string) : 'text';
    refuse('NUL byte', wrap(JSON.stringify({ ...object, [text]: `${base}\u0000after` })), text);
    refuse('lone surrogate (escaped)', wrap(withRawField(object, text, '"lone \\ud800 surrogate"')), text);
    refuse('lone surrogate (escaped)', wrap(withRawField(object, text, '"trailing \\udfff"')), text);
    // A surrogate encoded in UTF-8 (CESU-8) and a stray byte: not UTF-8, so not JSON.
    const [head, tail] = wrap(withRawField(object, text, '"@@"')).split('@@');
    refuse(
      'lone surrogate (raw bytes)',
      Buffer.concat([Buffer.from(head), Buffer.from([0xed, 0xa0, 0x80, 0xff]), Buffer.from(tail)]),
      text,
    );
  }
  for (const [field, value] of Object.entries(ctx.ignoredIdentity)) {
    if (!(field in props)) {
      mayPass('ignored identity-like field', wrap(JSON.stringify({ ...object, [field]: value })), field);
    }
  }
  return out;
}
