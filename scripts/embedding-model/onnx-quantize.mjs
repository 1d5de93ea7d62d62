// Int8 matrix products for a float graph: every MatMul whose right operand is a 2-D float
// initializer (and that the caller does not keep float) becomes an integer product (MatMulInteger,
// uint8 × uint8 with zero points 128, accumulated in int32) between dequantising scales. Everything
// else — embedding lookups, attention between activations, layer norms — stays float.
//
//   weights      int8, one symmetric scale per output column (a column is one output feature;
//                their ranges differ more than one scale would serve), stored as uint8 with zero
//                point 128 (q + 128). Stored as int8 instead, x86 CPUs without VNNI (AVX2 only) take
//                onnxruntime's uint8 × int8 kernel, which sums products in pairs into a saturating
//                int16 (255 × 127 × 2 overflows it): the same graph gave a lowest cosine with TF.js of
//                0.9985 on an AVX2-only EPYC against 0.9994 elsewhere. Unsigned × unsigned takes a
//                kernel that widens first, and agrees to 0.9994 on both. (7-bit weights, onnxruntime's
//                reduce_range, avoid the overflow too but lost precision: 0.9988.)
//   activations  quantized at run time with one symmetric scale per row, i.e. per token. onnxruntime's
//                DynamicQuantizeMatMul (what its quantize_dynamic writes) has one scale for the
//                whole tensor, so a text's vector would depend on the other texts of its batch; on
//                USE-lite it agreed less with the float model (lowest cosine 0.9976 over 69 texts
//                in one batch, 0.9989 with each text alone) and ran no faster. Stored as uint8 with
//                zero point 128 (q + 128).
//   y = Cast<float>(MatMulInteger(x_u8, W_u8, 128, 128)) · row_scale · column_scale
import { FLOAT, float32Bytes, INT64, int64Bytes, intAttr, node, onnx, tensor } from './onnx-encoding.mjs';

const { UINT8 } = onnx.TensorProto.DataType;

/**
 * Returns a new { nodes, initializers, domains } graph; the input is not changed. MatMul nodes for
 * which `keepFloat(node)` is true stay float.
 */
export function quantizeMatMulWeights({ nodes, initializers, domains }, keepFloat = () => false) {
  const byName = new Map(initializers.map((initializer) => [initializer.name, initializer]));
  const added = [...sharedConstants()];
  const quantizedRows = new Map(); // activation → its quantized rows and scales (computed once)
  const output = [];
  for (const original of nodes) {
    const weight =
      original.opType === 'MatMul' && !keepFloat(original) ? byName.get(original.input[1]) : undefined;
    if (!weight || weight.dataType !== FLOAT || weight.dims.length !== 2) {
      output.push(original);
      continue;
    }
    const [activation] = original.input;
    if (!quantizedRows.has(activation)) {
      quantizedRows.set(activation, { values: `${activation}/u8`, scales: `${activation}/row_scale` });
      output.push(...quantizeRowsNodes(activation, quantizedRows.get(activation)));
    }
    const rows = quantizedRows.get(activation);
    const weightInt8 = `${weight.name}/int8`;
    const weightScale = `${weight.name}/column_scale`;
    if (!added.some((initializer) => initializer.name === weightInt8)) {
      const [k, n] = weight.dims.map(Number);
      const { values, scales } = quantizeColumns(readFloat32(weight.rawData), k, n);
      // Stored as uint8 with zero point 128 (q + 128), as the activations: see the header.
      const shifted = Uint8Array.from(values, (q) => q + 128);
      added.push(
        tensor(weightInt8, UINT8, [k, n], shifted),
        tensor(weightScale, FLOAT, [n], float32Bytes(scales)),
      );
    }
    const name = original.name;
    const [result] = original.output;
    output.push(
      node(
        'MatMulInteger',
        [rows.values, weightInt8, 'quantize/zero_point', 'quantize/zero_point'],
        [`${name}/i32`],
        `${name}/int8`,
      ),
      node('Cast', [`${name}/i32`], [`${name}/f32`], `${name}/to_float`, [intAttr('to', FLOAT)]),
      node('Mul', [`${name}/f32`, rows.scales], [`${name}/row_scaled`], `${name}/row_scale`),
      node('Mul', [`${name}/row_scaled`, weightScale], [result], `${name}/column_scale`),
    );
  }
  const used = new Set(output.flatMap((graphNode) => graphNode.input));
  return {
    nodes: output,
    initializers: [...initializers, ...added].filter((initializer) => used.has(initializer.name)),
    domains,
  };
}

/** x → (round(x / s) + 128 as uint8, s) with s = max|row| / 127 (never 0, so a zero row stays 0). */
function quantizeRowsNodes(x, { values, scales }) {
  const step = (suffix) => `${x}/${suffix}`;
  return [
    node('Abs', [x], [step('abs')], step('abs')),
    node('ReduceMax', [step('abs'), 'quantize/last_axis'], [step('row_max')], step('row_max'), [
      intAttr('keepdims', 1),
    ]),
    node('Div', [step('row_max'), 'quantize/int8_max'], [step('row_scale_raw')], step('row_scale_raw')),
    node('Max', [step('row_scale_raw'), 'quantize/smallest_scale'], [scales], step('row_scale')),
    node('Div', [x, scales], [step('scaled')], step('scaled')),
    node('Round', [step('scaled')], [step('rounded')], step('rounded')),
    node('Add', [step('rounded'), 'quantize/offset'], [step('shifted')], step('shifted')),
    node('Cast', [step('shifted')], [values], step('u8'), [intAttr('to', UINT8)]),
  ];
}

function sharedConstants() {
  return [
    tensor('quantize/last_axis', INT64, [1], int64Bytes([-1])),
    tensor('quantize/int8_max', FLOAT, [], float32Bytes([127])),
    tensor('quantize/smallest_scale', FLOAT, [], float32Bytes([1e-30])),
    tensor('quantize/offset', FLOAT, [], float32Bytes([128])),
    tensor('quantize/zero_point', UINT8, [], new Uint8Array([128])),
  ];
}

/** Symmetric int8 per column: q = round(x / s), s = max|x| / 127 over the column. */
export function quantizeColumns(matrix, rows, columns) {
  const scales = new Float32Array(columns);
  for (let r = 0; r < rows; r += 1) {
    for (let c = 0; c < columns; c += 1) scales[c] = Math.max(scales[c], Math.abs(matrix[r * columns + c]));
  }
  for (let c = 0; c < columns; c += 1) scales[c] = Math.fround(scales[c] / 127);
  const values = new Int8Array(rows * columns);
  for (let r = 0; r < rows; r += 1) {
    for (let c = 0; c < columns; c += 1) {
      const scale = scales[c];
      const index = r * columns + c;
      values[index] = scale === 0 ? 0 : Math.max(-127, Math.min(127, Math.round(matrix[index] / scale)));
    }
  }
  return { values, scales };
}

function readFloat32(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const values = new Float32Array(bytes.byteLength / 4);
  for (let i = 0; i < values.length; i += 1) values[i] = view.getFloat32(i * 4, true);
  return values;
}
