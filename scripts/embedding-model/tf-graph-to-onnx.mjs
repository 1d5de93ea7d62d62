// Translates a TensorFlow.js graph model (model.json's GraphDef + its weight shards) into ONNX
// nodes and initializers, one TensorFlow op at a time (the op table is tf-ops.mjs). It is a
// translator for the ops a graph actually uses, not a general tf2onnx: an op it does not know, or
// an op used in a form it does not cover (a non-constant axis, a 3×3 convolution, …), fails the
// build with the node's name instead of producing a graph that computes something else.
//
// Types: every TensorFlow integer tensor becomes int64. ONNX's shape ops (Shape, NonZero) produce
// int64 and its index inputs (Reshape, GatherND, ScatterND, Slice) take it, so keeping int32 would
// put a Cast beside almost every shape computation; the values (ids, positions, dimensions) fit either way.
import { float32Bytes, FLOAT, INT64, int64Bytes, node, tensor } from './onnx-encoding.mjs';
import { TF_OPS } from './tf-ops.mjs';

/**
 * The weights of a TF.js model as a map name → { dtype, shape, values } (Float32Array or
 * Int32Array). `shards` are the weight files' bytes in manifest order; they form one buffer.
 */
export function readTfjsWeights(weightsManifest, shards) {
  const specs = weightsManifest.flatMap((group) => group.weights);
  const bytes = Buffer.concat(shards);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const weights = new Map();
  let offset = 0;
  for (const spec of specs) {
    if (spec.quantization) throw new Error(`weight ${spec.name} is quantized; only float32/int32 are read`);
    const count = spec.shape.reduce((product, size) => product * size, 1);
    let values;
    if (spec.dtype === 'float32') {
      values = new Float32Array(count);
      for (let i = 0; i < count; i += 1) values[i] = view.getFloat32(offset + i * 4, true);
    } else if (spec.dtype === 'int32') {
      values = new Int32Array(count);
      for (let i = 0; i < count; i += 1) values[i] = view.getInt32(offset + i * 4, true);
    } else {
      throw new Error(`weight ${spec.name} has unsupported dtype ${spec.dtype}`);
    }
    weights.set(spec.name, { dtype: spec.dtype, shape: spec.shape, values });
    offset += count * 4;
  }
  if (offset !== bytes.byteLength) {
    throw new Error(`weight shards hold ${bytes.byteLength} bytes, the manifest describes ${offset}`);
  }
  return weights;
}

/**
 * Translates the part of `graph` (model.json's modelTopology) that `output` depends on.
 * `inputs` maps each placeholder the output needs to the ONNX tensor that feeds it.
 * Returns { nodes, initializers, output } where `output` is the ONNX name of the result.
 */
export function translateTfGraph({ graph, weights, inputs, output }) {
  const translation = new Translation(graph.node, weights, inputs);
  const result = translation.translate(output);
  return { nodes: translation.nodes, initializers: [...translation.initializers.values()], output: result };
}

/** The state of one translation; the op table (tf-ops.mjs) works through its methods. */
class Translation {
  nodes = [];
  initializers = new Map();

  constructor(tfNodes, weights, inputs) {
    this.byName = new Map(tfNodes.map((tfNode) => [tfNode.name, tfNode]));
    this.weights = weights;
    this.inputs = inputs;
  }

  translate(outputRef) {
    const done = new Set();
    // Depth-first from the output: emits producers before consumers (ONNX wants a topological
    // order) and skips whatever the output does not depend on.
    const visit = (name) => {
      if (done.has(name)) return;
      done.add(name);
      const tfNode = this.tfNode(name);
      for (const ref of tfNode.input ?? []) visit(parseRef(ref).name);
      if (tfNode.op === 'Const' || tfNode.op === 'Placeholder') return;
      const translate = TF_OPS[tfNode.op];
      if (!translate) throw new Error(`unsupported TensorFlow op ${tfNode.op} (node ${tfNode.name})`);
      try {
        translate(tfNode, this);
      } catch (error) {
        throw new Error(`cannot translate ${tfNode.op} node ${tfNode.name}: ${error.message}`);
      }
    };
    visit(parseRef(outputRef).name);
    return this.tensor(outputRef);
  }

  tfNode(name) {
    const tfNode = this.byName.get(name);
    if (!tfNode) throw new Error(`the graph has no node ${name}`);
    return tfNode;
  }

  /** The ONNX tensor name for a TensorFlow input reference ("node" or "node:k"). */
  tensor(ref) {
    const { name, index } = parseRef(ref);
    const tfNode = this.tfNode(name);
    if (tfNode.op === 'Placeholder') {
      if (!this.inputs[name]) throw new Error(`no ONNX input given for placeholder ${name}`);
      return this.inputs[name];
    }
    if (tfNode.op === 'Const' && !this.initializers.has(name)) {
      const weight = this.weight(name);
      const isFloat = weight.dtype === 'float32';
      this.initialize(name, isFloat ? FLOAT : INT64, weight.shape, weight.values);
    }
    return this.output(tfNode, index);
  }

  /** The ONNX name of output `index` of a TensorFlow node: the same as TensorFlow's reference. */
  output(tfNode, index = 0) {
    return index === 0 ? tfNode.name : `${tfNode.name}:${index}`;
  }

  /** A constant input's values as plain numbers (and its shape); fails for a computed input. */
  constant(ref) {
    const { name } = parseRef(ref);
    if (this.tfNode(name).op !== 'Const') throw new Error(`input ${ref} must be a constant`);
    const weight = this.weight(name);
    return { shape: weight.shape, values: Array.from(weight.values), typed: weight.values };
  }

  /** The rank of a tensor where the graph fixes it (a constant, or a Transpose's permutation). */
  rank(ref) {
    const tfNode = this.tfNode(parseRef(ref).name);
    if (tfNode.op === 'Const') return this.weight(tfNode.name).shape.length;
    if (tfNode.op === 'Transpose') return this.constant(tfNode.input[1]).values.length;
    throw new Error(`the rank of ${ref} (${tfNode.op}) is not known when the graph is translated`);
  }

  /** Adds an initializer (FLOAT from float values, INT64 from integers); returns its name. */
  initialize(name, dataType, dims, values) {
    if (this.initializers.has(name)) throw new Error(`initializer ${name} exists already`);
    const bytes = dataType === FLOAT ? float32Bytes(values) : int64Bytes(values);
    this.initializers.set(name, tensor(name, dataType, dims, bytes));
    return name;
  }

  /** A 1-D int64 initializer named after the node it serves. */
  int64s(tfNode, suffix, values) {
    return this.initialize(`${tfNode.name}/onnx_${suffix}`, INT64, [values.length], values);
  }

  /** A name for an intermediate tensor of the ONNX nodes that translate `tfNode`. */
  intermediate(tfNode, suffix) {
    return `${tfNode.name}/onnx_${suffix}`;
  }

  emit(tfNode, opType, inputs, outputs, attributes = [], domain = undefined) {
    const name = `${tfNode.name}/${opType}_${this.nodes.length}`;
    this.nodes.push(node(opType, inputs, outputs, name, attributes, domain));
  }

  weight(name) {
    const weight = this.weights.get(name);
    if (!weight) throw new Error(`no weight for constant ${name}`);
    return weight;
  }
}

function parseRef(ref) {
  if (ref.startsWith('^')) throw new Error(`control dependency ${ref} is not supported`);
  const colon = ref.lastIndexOf(':');
  return colon < 0
    ? { name: ref, index: 0 }
    : { name: ref.slice(0, colon), index: Number(ref.slice(colon + 1)) };
}
