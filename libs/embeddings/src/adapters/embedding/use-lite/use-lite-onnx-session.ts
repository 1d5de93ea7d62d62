import { resolve } from 'node:path';
import type { ModelDtype } from '../model-files';

/** Runs one USE-lite graph batch: piece ids per text (non-empty) → rows (batch × 512, row-major). */
export interface UseLiteGraph {
  run(batch: readonly (readonly number[])[]): Promise<Float32Array>;
  dispose(): Promise<void>;
}

/**
 * USE-lite as the ONNX graph that scripts/build-embedding-model.mjs writes from the same TF.js
 * weights (scripts/embedding-model/use-lite-onnx.mjs), on onnxruntime through transformers.js.
 * `custom` in its config.json makes transformers.js' PreTrainedModel load it as a plain encoder:
 * one session, fed the inputs the graph declares (input_ids and attention_mask, int64).
 *
 * It runs on the main thread, like every transformers.js model of the service, not on a worker
 * thread as the TF.js graph does: onnxruntime-node 1.21's addon keeps per-process state, and once
 * a worker thread has used it, a session run on the main thread aborts the process (V8 "Cannot
 * create a handle without a HandleScope"; measured). The service runs other models on the main
 * thread, and two at once during a model switch. A run therefore holds the event loop for its
 * duration; the caller keeps runs small (8 texts of at most 128 read pieces).
 *
 * Intra-op threads: one per core, so a run uses the whole machine. Spinning is off: onnxruntime's
 * pool otherwise busy-waits between kernels, taking the cores from Postgres and the rest of the
 * process on a small machine; measured on 2 shared cores, spinning lowered throughput.
 *
 * Memory: the weights are allocated outside onnxruntime's arena (which grows by powers of two), and
 * no memory pattern is planned (shapes change with every batch's padding, so a plan is rarely
 * reused): 18 MB less resident per loaded graph (fp32, after 100 runs of 8 texts), with batch
 * throughput unchanged in `npm run bench:embedder` (432–439 memories/s against 427). The arena itself
 * stays on: without it batches of 32 memories were 22% slower (337 memories/s).
 */
export async function loadUseLiteOnnxGraph(options: {
  readonly modelsDir: string;
  readonly modelId: string;
  readonly dtype: ModelDtype;
  readonly threads: number;
}): Promise<UseLiteGraph> {
  const { env, PreTrainedModel, Tensor } = await import('@huggingface/transformers');
  // Process-wide, as in transformers-runtime.ts: one MODELS_DIR per process.
  const modelsDir = resolve(options.modelsDir);
  env.localModelPath = modelsDir;
  env.cacheDir = modelsDir;
  env.allowLocalModels = true;
  const model = await PreTrainedModel.from_pretrained(options.modelId, {
    dtype: options.dtype,
    local_files_only: true,
    session_options: {
      intraOpNumThreads: options.threads,
      interOpNumThreads: 1,
      enableMemPattern: false,
      extra: {
        session: { intra_op: { allow_spinning: '0' }, use_device_allocator_for_initializers: '1' },
      },
    },
  });

  const run = async (batch: readonly (readonly number[])[]): Promise<Float32Array> => {
    // Dense, padded to the longest text; the mask marks the pieces.
    const width = Math.max(...batch.map((ids) => ids.length));
    const ids = new BigInt64Array(batch.length * width);
    const mask = new BigInt64Array(batch.length * width);
    batch.forEach((row, r) =>
      row.forEach((piece, position) => {
        ids[r * width + position] = BigInt(piece);
        mask[r * width + position] = 1n;
      }),
    );
    const dims = [batch.length, width];
    const output: Record<string, { data: unknown }> = await model({
      input_ids: new Tensor('int64', ids, dims),
      attention_mask: new Tensor('int64', mask, dims),
    });
    const { data } = output.sentence_embedding;
    if (!(data instanceof Float32Array)) throw new Error('the USE-lite graph returned no float rows');
    return data;
  };
  return {
    run,
    dispose: async () => {
      await model.dispose();
    },
  };
}
