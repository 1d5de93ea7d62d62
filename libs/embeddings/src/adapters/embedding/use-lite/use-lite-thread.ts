import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';

type TfjsModules = Record<'core' | 'converter' | 'wasm', string>;
const TFJS_PACKAGES: TfjsModules = {
  core: '@tensorflow/tfjs-core',
  converter: '@tensorflow/tfjs-converter',
  wasm: '@tensorflow/tfjs-backend-wasm',
};

/**
 * TF.js is not a dependency of the service (≈90 MB that only the reference runtime uses):
 * scripts/embedding-model/tfjs-reference.mjs installs it on demand into `<project>/.cache/tfjs`.
 * Resolved from the project's own node_modules if it has a copy, else from that folder, found by
 * walking up from this file (the sources under test and the compiled build alike).
 */
export function resolveTfjsModules(from: string = __filename): TfjsModules | undefined {
  const attempt = (resolve: NodeJS.RequireResolve): TfjsModules | undefined => {
    try {
      return {
        core: resolve(TFJS_PACKAGES.core),
        converter: resolve(TFJS_PACKAGES.converter),
        wasm: resolve(TFJS_PACKAGES.wasm),
      };
    } catch {
      return undefined;
    }
  };
  const own = attempt(createRequire(from).resolve);
  if (own) return own;
  for (let folder = dirname(from); ; folder = dirname(folder)) {
    const manifest = join(folder, '.cache', 'tfjs', 'package.json');
    if (existsSync(manifest)) {
      const cached = attempt(createRequire(manifest).resolve);
      if (cached) return cached;
    }
    if (dirname(folder) === folder) return undefined;
  }
}

/**
 * Runs the USE-lite graph on a worker thread. TF.js' WASM kernels compute on the thread that
 * calls them (≈20 ms per text), so on the main thread every embedding would stall the event loop:
 * other requests in the API, health checks and job locks in the worker. Tokenising stays on the
 * main thread (it is cheap); the thread receives piece ids and returns raw rows.
 *
 * The thread's code is an inline CommonJS string rather than a file, so the same adapter works
 * from the compiled build, the TypeScript sources under test and the container image (which ships
 * dist/ and node_modules/ only); TF.js is resolved here and handed over by absolute path.
 */
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const describe = (error) => String((error && error.stack) || error);
(async () => {
  const tf = require(workerData.modules.core);
  const { loadGraphModel } = require(workerData.modules.converter);
  require(workerData.modules.wasm);
  if (!(await tf.setBackend('wasm'))) throw new Error('the TensorFlow.js WebAssembly backend failed to start');
  await tf.ready();
  const folder = workerData.folder;
  const json = JSON.parse(readFileSync(join(folder, 'model.json'), 'utf8'));
  const shards = Buffer.concat(
    json.weightsManifest.flatMap((group) => group.paths.map((path) => readFileSync(join(folder, path)))),
  );
  const model = await loadGraphModel(
    tf.io.fromMemory({
      modelTopology: json.modelTopology,
      weightSpecs: json.weightsManifest.flatMap((group) => group.weights),
      weightData: shards.buffer.slice(shards.byteOffset, shards.byteOffset + shards.byteLength),
    }),
  );
  parentPort.on('message', async ({ id, batch }) => {
    try {
      // The graph takes a sparse batch: [row, position] pairs and the piece id at each.
      const positions = [];
      const values = [];
      batch.forEach((ids, row) =>
        ids.forEach((piece, position) => {
          positions.push(row, position);
          values.push(piece);
        }),
      );
      const indices = tf.tensor2d(positions, [values.length, 2], 'int32');
      const pieces = tf.tensor1d(values, 'int32');
      const output = await model.executeAsync({ indices, values: pieces });
      const data = await output.data();
      indices.dispose();
      pieces.dispose();
      output.dispose();
      parentPort.postMessage({ id, data }, [data.buffer]);
    } catch (error) {
      parentPort.postMessage({ id, error: describe(error) });
    }
  });
  parentPort.postMessage({ ready: true });
})().catch((error) => parentPort.postMessage({ failed: describe(error) }));
`;

type ThreadMessage =
  | { readonly ready: true }
  | { readonly failed: string }
  | { readonly id: number; readonly data: Float32Array }
  | { readonly id: number; readonly error: string };

interface Pending {
  resolve(data: Float32Array): void;
  reject(error: Error): void;
}

export class UseLiteThread {
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private failure: Error | undefined;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (message: ThreadMessage) => {
      if (!('id' in message)) return;
      const request = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (this.pending.size === 0) worker.unref();
      if ('error' in message) request?.reject(new Error(message.error));
      else request?.resolve(message.data);
    });
    const fail = (error: Error) => {
      this.failure ??= error;
      for (const request of this.pending.values()) request.reject(this.failure);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the USE-lite thread exited (code ${code})`)));
  }

  /** Starts the thread and waits until the model is loaded in it. */
  static async start(folder: string): Promise<UseLiteThread> {
    const modules = resolveTfjsModules();
    if (!modules) {
      throw new Error(
        'TF.js, the reference runtime of USE-lite, is not installed: build the ONNX model ' +
          '(`npm run build:model`), or install TF.js with `node scripts/embedding-model/tfjs-reference.mjs`',
      );
    }
    const worker = new Worker(THREAD_SOURCE, { eval: true, workerData: { folder, modules } });
    await new Promise<void>((resolve, reject) => {
      const onMessage = (message: ThreadMessage) => {
        if ('ready' in message) resolve();
        else if ('failed' in message) reject(new Error(message.failed));
        else return;
        worker.off('message', onMessage);
        worker.off('error', reject);
      };
      worker.on('message', onMessage);
      worker.on('error', reject);
    }).catch(async (error: unknown) => {
      await worker.terminate();
      throw error;
    });
    // Idle, the thread must not keep the process alive; while a request is out, it must.
    worker.unref();
    return new UseLiteThread(worker);
  }

  /** Raw output rows (batch × 512, row-major) for non-empty piece-id sequences. */
  run(batch: readonly (readonly number[])[]): Promise<Float32Array> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.ref();
      this.worker.postMessage({ id, batch });
    });
  }

  async terminate(): Promise<void> {
    await this.worker.terminate();
  }
}
