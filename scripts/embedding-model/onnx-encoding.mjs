// Small builders for ONNX protobuf objects (onnx-proto: ONNX 1.10 schema), shared by the graphs the
// project writes. Tensor bytes are little-endian whatever the host's byte order, as raw_data requires.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
export const { onnx } = require('onnx-proto');

export const { FLOAT, INT8, INT64, BOOL } = onnx.TensorProto.DataType;
const { INT, INTS, FLOAT: FLOAT_ATTR, STRING, TENSOR } = onnx.AttributeProto.AttributeType;

/** `domain` only for operators outside the default ONNX set (e.g. onnxruntime's `com.microsoft`). */
export function node(opType, input, output, name, attribute = [], domain = undefined) {
  return domain
    ? { opType, input, output, name, attribute, domain }
    : { opType, input, output, name, attribute };
}

export function intAttr(name, value) {
  return { name, type: INT, i: value };
}

export function intsAttr(name, values) {
  return { name, type: INTS, ints: values };
}

export function floatAttr(name, value) {
  return { name, type: FLOAT_ATTR, f: value };
}

export function stringAttr(name, value) {
  return { name, type: STRING, s: new TextEncoder().encode(value) };
}

export function tensorAttr(name, value) {
  return { name, type: TENSOR, t: value };
}

export function tensor(name, dataType, dims, rawData) {
  return { name, dataType, dims, rawData };
}

export function valueInfo(name, elemType, dims) {
  const dim = dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d }));
  return { name, type: { tensorType: { elemType, shape: { dim } } } };
}

export function float32Bytes(values) {
  const bytes = new Uint8Array(values.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < values.length; i += 1) view.setFloat32(i * 4, values[i], true);
  return bytes;
}

/** Numbers (integral) or bigints. */
export function int64Bytes(values) {
  const bytes = new Uint8Array(values.length * 8);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < values.length; i += 1) view.setBigInt64(i * 8, BigInt(values[i]), true);
  return bytes;
}

/** Validates and serialises a ModelProto object. */
export function encodeModelProto(model) {
  const error = onnx.ModelProto.verify(model);
  if (error) throw new Error(`invalid ONNX model: ${error}`);
  return onnx.ModelProto.encode(model).finish();
}
