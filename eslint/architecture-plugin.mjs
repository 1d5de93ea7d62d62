// The architecture's fences as one ESLint rule, so a newcomer finds out at lint time, not in review:
//  - other code uses a lib only through its index (`@app/<lib>`); tests and benchmarks may also use
//    its test door (`@app/<lib>/testing`), production code may not;
//  - an app never imports another app, and a lib never imports an app;
//  - a lib never reaches into another lib by a relative path;
//  - libs depend on each other one way only (LIB_DEPENDENCIES), so no two libs import each other;
//  - `domain/` never imports `adapters/` or a persistence/queue/vault client library;
//  - a lib with wings (LIB_WINGS) is a core with wings: a wing (`libs/<lib>/src/<wing>/`) imports
//    only itself and the core, never another wing, and the core (the rest of `src/`) never imports a
//    wing; the files right in `src/` (index, testing, the lib's module) are its door and composition
//    and may import any wing, and so may test code.
import { dirname, relative, resolve, sep } from 'node:path';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..');
const FOUNDATION = ['config', 'persistence', 'observability', 'kernel'];
/** Which libs each lib may import (besides the foundation); `testing` may import any. */
export const LIB_DEPENDENCIES = {
  config: [],
  kernel: [],
  observability: ['config'],
  persistence: ['config', 'kernel', 'migrations'],
  tenancy: FOUNDATION,
  secrets: [...FOUNDATION, 'tenancy'],
  jobs: [...FOUNDATION, 'tenancy'],
  memories: [...FOUNDATION, 'secrets', 'jobs', 'tenancy'],
  embeddings: [...FOUNDATION, 'jobs', 'tenancy'],
  recall: [...FOUNDATION, 'memories', 'embeddings', 'tenancy'],
  sync: [...FOUNDATION, 'memories', 'jobs', 'tenancy'],
  sessions: [...FOUNDATION, 'memories', 'recall', 'secrets', 'jobs', 'tenancy'],
  webhooks: [...FOUNDATION, 'secrets', 'jobs', 'tenancy'],
};
/** The wings of each lib built as a core with wings: the folders `libs/<lib>/src/<wing>/`. */
export const LIB_WINGS = {
  memories: [
    'sharing',
    'links',
    'secret-memories',
    'export',
    'stats',
    'versions',
    'pins',
    'review',
    'code',
    'projection',
  ],
};
const DRIVER_PACKAGES = [
  'typeorm',
  '@nestjs/typeorm',
  'pg',
  'bullmq',
  'ioredis',
  'node-vault',
  '@huggingface/transformers',
];

/** Where a repository file sits: `{ kind: 'app' | 'lib' | 'other', name, rest }`. */
function locate(absPath) {
  const parts = relative(ROOT, absPath).split(sep);
  if (parts[0] === 'apps' && parts.length > 1) return { kind: 'app', name: parts[1], rest: parts.slice(2) };
  if (parts[0] === 'libs' && parts.length > 1) return { kind: 'lib', name: parts[1], rest: parts.slice(2) };
  return { kind: 'other', name: parts[0], rest: parts.slice(1) };
}

/** Test and benchmark code, which may use a lib's test door. */
function isTestCode(file, where) {
  return (
    /\.(spec|test)\.ts$/.test(file) ||
    where.kind === 'other' ||
    (where.kind === 'lib' &&
      (where.name === 'testing' || where.rest[0] === 'test' || where.rest[0] === 'eval'))
  );
}

const isDomain = (where) => where.kind === 'lib' && where.rest.includes('domain');
const isAdapters = (where) => where.kind === 'lib' && where.rest.includes('adapters');
/** The wing of LIB_WINGS a lib file (or folder) sits in, if any. */
const wingOf = (where) =>
  where.kind === 'lib' && where.rest[0] === 'src' && where.rest.length > 1
    ? LIB_WINGS[where.name]?.find((wing) => wing === where.rest[1])
    : undefined;
/** A file right in `libs/<lib>/src/`: the lib's door (index, testing) and composition (its module). */
const isLibRoot = (where) => where.kind === 'lib' && where.rest[0] === 'src' && where.rest.length === 2;

const boundaries = {
  meta: {
    type: 'problem',
    docs: { description: 'Keeps apps, libs and layers inside their fences (docs/architecture.md).' },
    schema: [],
    messages: {
      deepImport: "Import '{{lib}}' through its index ('@app/{{lib}}'), not '{{source}}'.",
      testDoor: "'{{source}}' is the lib's test door; production code imports '@app/{{lib}}'.",
      appToApp: 'An app never imports another app ({{from}} → {{to}}): move the shared code into a lib.',
      libToApp: 'A lib never imports an app ({{from}} → {{to}}).',
      libByPath: "Import lib '{{to}}' through '@app/{{to}}', not by a relative path.",
      domainToAdapter: "domain/ stays pure: it may not import '{{source}}'.",
      libDirection:
        'libs/{{from}} may not depend on libs/{{to}} (it may use: {{allowed}}); dependencies run one way.',
      wingToWing:
        "libs/{{lib}} wing '{{from}}' may not import wing '{{to}}' ({{source}}): wings depend only on the core; move what both need into the core.",
      coreToWing:
        "The core of libs/{{lib}} may not import its wing '{{to}}' ({{source}}): the core never depends on a wing.",
    },
  },
  create(context) {
    const file = context.filename ?? context.getFilename();
    const from = locate(file);
    const test = isTestCode(file, from);
    const check = (node, source) => {
      if (typeof source !== 'string') return;
      const report = (messageId, data) => context.report({ node, messageId, data: { source, ...data } });
      if (isDomain(from) && DRIVER_PACKAGES.some((p) => source === p || source.startsWith(`${p}/`))) {
        return report('domainToAdapter');
      }
      const alias = /^@app\/([a-z-]+)(?:\/(.*))?$/.exec(source);
      if (alias) {
        const [, lib, sub] = alias;
        if (sub === 'testing' && !test) return report('testDoor', { lib });
        if (sub !== undefined && sub !== 'testing') return report('deepImport', { lib });
        const allowed = LIB_DEPENDENCIES[from.name];
        if (from.kind === 'lib' && !test && allowed && lib !== from.name && !allowed.includes(lib)) {
          return report('libDirection', { from: from.name, to: lib, allowed: allowed.join(', ') || 'none' });
        }
        return;
      }
      if (!source.startsWith('.')) return;
      const to = locate(resolve(dirname(file), source));
      if (from.kind === 'app' && to.kind === 'app' && to.name !== from.name) {
        return report('appToApp', { from: `apps/${from.name}`, to: `apps/${to.name}` });
      }
      if (from.kind === 'lib' && to.kind === 'app') {
        return report('libToApp', { from: `libs/${from.name}`, to: `apps/${to.name}` });
      }
      if (to.kind === 'lib' && !(from.kind === 'lib' && from.name === to.name)) {
        return report('libByPath', { to: to.name });
      }
      if (isDomain(from) && isAdapters(to) && from.name === to.name) return report('domainToAdapter');
      const toWing = wingOf(to);
      if (!toWing || test || from.kind !== 'lib' || from.name !== to.name || from.rest[0] !== 'src') return;
      if (isLibRoot(from)) return;
      const fromWing = wingOf(from);
      if (!fromWing) return report('coreToWing', { lib: from.name, to: toWing });
      if (fromWing !== toWing) return report('wingToWing', { lib: from.name, from: fromWing, to: toWing });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
    };
  },
};

export const architecture = { meta: { name: 'architecture' }, rules: { boundaries } };
