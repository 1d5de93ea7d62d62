import fc from 'fast-check';

/**
 * The part of JSON Schema (OpenAPI 3.0 dialect) the service's document uses: types, `nullable`,
 * `enum`, `anyOf`/`oneOf`, string lengths, `pattern` and the `date-time`/`uuid` formats, numeric
 * bounds (3.0's boolean `exclusiveMinimum` as well as the numeric one), arrays with item counts,
 * objects with `properties`/`required`/`additionalProperties`, and local `$ref`s.
 */
export interface JsonSchema {
  readonly $ref?: string;
  readonly type?: string | readonly string[];
  readonly nullable?: boolean;
  readonly enum?: readonly unknown[];
  readonly anyOf?: readonly JsonSchema[];
  readonly oneOf?: readonly JsonSchema[];
  readonly allOf?: readonly JsonSchema[];
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly format?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: boolean | number;
  readonly exclusiveMaximum?: boolean | number;
  readonly items?: JsonSchema;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean | JsonSchema;
}

/** Resolves `#/components/...` references against the document they came from. */
export function resolveRef(schema: JsonSchema, root: unknown): JsonSchema {
  let current = schema;
  for (let hops = 0; current.$ref !== undefined && hops < 20; hops++) {
    const path = current.$ref.replace(/^#\//, '').split('/');
    current = path.reduce<unknown>(
      (node, key) => (node as Record<string, unknown>)?.[key],
      root,
    ) as JsonSchema;
    if (!current) throw new Error(`unresolved $ref ${schema.$ref}`);
  }
  return current;
}

// Plain words keep generated text away from the secret detector's entropy rule: the fuzz is about
// shapes, and a body that happens to look like a credential is a different (tested) path.
const WORDS = ['deploy', 'cache', 'retry', 'schema', 'redis', 'queue', 'team', 'build', 'index', 'docs'];
const word = fc.constantFrom(...WORDS);

function plainString(min: number, max: number): fc.Arbitrary<string> {
  const text = fc
    .array(word, { minLength: 1, maxLength: 6 })
    .map((ws) => ws.join(' '))
    .chain((s) => fc.constantFrom(s, `${s} ${'é'}`, `${s} 日本`, s.toUpperCase()));
  return text.map((s) => {
    let out = s;
    while (out.length < min) out += ` ${s}`;
    return out.slice(0, Math.max(min, Math.min(max, out.length)));
  });
}

function stringArbitrary(schema: JsonSchema): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? 200;
  if (schema.format === 'date-time') {
    // Past dates: fields like created_at refuse the future, and expiry is tested by its own suite.
    return fc
      .date({
        min: new Date('2020-01-01T00:00:00Z'),
        max: new Date('2025-12-31T00:00:00Z'),
        noInvalidDate: true,
      })
      .map((d) => d.toISOString());
  }
  if (schema.format === 'uuid') return fc.uuid();
  if (schema.pattern !== undefined) {
    return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= min && s.length <= max);
  }
  return plainString(min, max);
}

function numberArbitrary(schema: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const exclusiveMin = schema.exclusiveMinimum === true || typeof schema.exclusiveMinimum === 'number';
  const exclusiveMax = schema.exclusiveMaximum === true || typeof schema.exclusiveMaximum === 'number';
  const lower = typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum : schema.minimum;
  const upper = typeof schema.exclusiveMaximum === 'number' ? schema.exclusiveMaximum : schema.maximum;
  if (integer) {
    const min = lower === undefined ? -1000 : Math.ceil(lower) + (exclusiveMin ? 1 : 0);
    const max = upper === undefined ? Math.max(min, 0) + 1000 : Math.floor(upper) - (exclusiveMax ? 1 : 0);
    return fc.integer({ min, max });
  }
  const min = lower ?? -1000;
  const max = upper ?? min + 2000;
  return fc
    .double({
      min,
      max,
      noNaN: true,
      noDefaultInfinity: true,
      minExcluded: exclusiveMin,
      maxExcluded: exclusiveMax,
    })
    .map((n) => (Object.is(n, -0) ? 0 : n));
}

/** An arbitrary of values the schema accepts. `root` is the document, for `$ref`s. */
export function arbitraryFor(input: JsonSchema, root: unknown = {}): fc.Arbitrary<unknown> {
  const schema = resolveRef(input, root);
  const base = (): fc.Arbitrary<unknown> => {
    if (schema.enum !== undefined) return fc.constantFrom(...schema.enum);
    const choices = schema.anyOf ?? schema.oneOf;
    if (choices !== undefined) return fc.oneof(...choices.map((c) => arbitraryFor(c, root)));
    if (schema.allOf !== undefined && schema.allOf.length === 1) return arbitraryFor(schema.allOf[0], root);
    if (Array.isArray(schema.type)) {
      return fc.oneof(...schema.type.map((type: string) => arbitraryFor({ ...schema, type }, root)));
    }
    switch (schema.type) {
      case 'string':
        return stringArbitrary(schema);
      case 'integer':
      case 'number':
        return numberArbitrary(schema, schema.type === 'integer');
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      case 'array':
        return fc.array(arbitraryFor(schema.items ?? {}, root), {
          minLength: schema.minItems ?? 0,
          maxLength: Math.min(schema.maxItems ?? 4, 4),
        });
      case 'object':
        return objectArbitrary(schema, root);
      default:
        // No type: any small JSON value.
        return fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.boolean(), fc.constant(null));
    }
  };
  const value = base();
  return schema.nullable ? fc.option(value, { nil: null, freq: 8 }) : value;
}

function objectArbitrary(schema: JsonSchema, root: unknown): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const names = Object.keys(properties);
  if (names.length === 0 && schema.additionalProperties !== false) {
    const values =
      typeof schema.additionalProperties === 'object'
        ? arbitraryFor(schema.additionalProperties, root)
        : fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.boolean());
    return fc.dictionary(fc.stringMatching(/^[a-z][a-z_]{0,11}$/), values, { maxKeys: 4 });
  }
  const model = Object.fromEntries(names.map((name) => [name, arbitraryFor(properties[name], root)]));
  return fc.record(model, { requiredKeys: [...(schema.required ?? [])].filter((k) => k in model) });
}
