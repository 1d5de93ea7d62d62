// TensorFlow op → ONNX nodes, for the ops of TF.js graph models (tf-graph-to-onnx.mjs walks the
// graph). Each entry receives the TensorFlow node and the translation (`t`), and emits ONNX nodes
// whose outputs carry TensorFlow's output names. Semantics follow TensorFlow's op definitions;
// where ONNX differs, the entry says how it bridges the difference. Inputs that TensorFlow allows
// to be computed but that ONNX needs as attributes (axes, permutations, slice bounds) must be
// constants in the graph; t.constant() fails the build otherwise.
import { BOOL, FLOAT, INT64, intAttr, intsAttr, stringAttr, tensor, tensorAttr } from './onnx-encoding.mjs';

// TensorFlow DataType enum → ONNX element type. Every TensorFlow integer becomes int64 (see
// tf-graph-to-onnx.mjs).
const DT_FLOAT = 1;
const DT_INT32 = 3;
const DT_INT64 = 9;
const DT_BOOL = 10;
const ONNX_TYPE = { [DT_FLOAT]: FLOAT, [DT_INT32]: INT64, [DT_INT64]: INT64, [DT_BOOL]: BOOL };

function onnxType(tfType) {
  const type = ONNX_TYPE[tfType];
  if (type === undefined) throw new Error(`unsupported TensorFlow dtype ${tfType}`);
  return type;
}

const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

const attrInt = (tfNode, name, fallback = 0) => Number(tfNode.attr?.[name]?.i ?? fallback);
const attrBool = (tfNode, name) => tfNode.attr?.[name]?.b === true;
const attrInts = (tfNode, name) => (tfNode.attr?.[name]?.list?.i ?? []).map(Number);
const attrString = (tfNode, name) => {
  const value = tfNode.attr?.[name]?.s;
  if (value === undefined) return undefined;
  return typeof value === 'string' ? Buffer.from(value, 'base64').toString() : String.fromCharCode(...value);
};

/** Data inputs (TensorFlow lists an op's attributes-as-inputs last). */
const inputs = (tfNode, t, count = tfNode.input.length) =>
  tfNode.input.slice(0, count).map((ref) => t.tensor(ref));

const same = (opType) => (n, t) => t.emit(n, opType, inputs(n, t), [t.output(n)]);

const reduce = (opType) => (n, t) => {
  const axes = t.constant(n.input[1]).values;
  // An empty axes input means "all axes" in ONNX and "none" in TensorFlow.
  if (axes.length === 0) throw new Error('reduction over no axes');
  t.emit(
    n,
    opType,
    [t.tensor(n.input[0]), t.int64s(n, 'axes', axes)],
    [t.output(n)],
    [intAttr('keepdims', attrBool(n, 'keep_dims') ? 1 : 0)],
  );
};

/** Swaps the last two axes of `ref` (TensorFlow's transpose_x / adj_x flags). */
function transposedLast(n, t, ref, suffix) {
  const rank = t.rank(ref);
  const perm = [...Array(rank).keys()];
  [perm[rank - 2], perm[rank - 1]] = [perm[rank - 1], perm[rank - 2]];
  const name = t.intermediate(n, suffix);
  t.emit(n, 'Transpose', [t.tensor(ref)], [name], [intsAttr('perm', perm)]);
  return name;
}

function matMul(n, t, [transposeA, transposeB]) {
  const a = attrBool(n, transposeA) ? transposedLast(n, t, n.input[0], 'a_t') : t.tensor(n.input[0]);
  const b = attrBool(n, transposeB) ? transposedLast(n, t, n.input[1], 'b_t') : t.tensor(n.input[1]);
  t.emit(n, 'MatMul', [a, b], [t.output(n)]);
}

function requireNhwc(n) {
  const format = attrString(n, 'data_format');
  if (format !== undefined && format !== 'NHWC') throw new Error(`data_format ${format} (only NHWC)`);
}

export const TF_OPS = {
  Add: same('Add'),
  Sub: same('Sub'),
  Mul: same('Mul'),
  RealDiv: same('Div'),
  Maximum: same('Max'),
  Less: same('Less'),
  Greater: same('Greater'),
  LogicalNot: same('Not'),
  Sin: same('Sin'),
  Cos: same('Cos'),
  Relu: same('Relu'),
  Tanh: same('Tanh'),
  Shape: same('Shape'),
  Range: same('Range'),
  GatherNd: same('GatherND'),
  Max: reduce('ReduceMax'),
  Sum: reduce('ReduceSum'),
  Mean: reduce('ReduceMean'),
  Prod: reduce('ReduceProd'),

  Square: (n, t) => {
    const x = t.tensor(n.input[0]);
    t.emit(n, 'Mul', [x, x], [t.output(n)]);
  },
  Rsqrt: (n, t) => {
    const root = t.intermediate(n, 'sqrt');
    t.emit(n, 'Sqrt', [t.tensor(n.input[0])], [root]);
    t.emit(n, 'Reciprocal', [root], [t.output(n)]);
  },
  // TensorFlow's softmax is over the last axis; ONNX's (from opset 13) over the one given.
  Softmax: (n, t) => t.emit(n, 'Softmax', inputs(n, t), [t.output(n)], [intAttr('axis', -1)]),
  Cast: (n, t) => t.emit(n, 'Cast', inputs(n, t), [t.output(n)], [intAttr('to', onnxType(n.attr.DstT.type))]),
  // NHWC bias: one value per channel, the last axis, which is plain broadcasting.
  BiasAdd: (n, t) => {
    requireNhwc(n);
    t.emit(n, 'Add', inputs(n, t), [t.output(n)]);
  },
  MatMul: (n, t) => matMul(n, t, ['transpose_a', 'transpose_b']),
  BatchMatMul: (n, t) => matMul(n, t, ['adj_x', 'adj_y']),

  // A 1×1 convolution with stride 1 is a matrix product over the channel axis; the kernel
  // [1, 1, in, out] holds the same numbers as the [in, out] matrix.
  Conv2D: (n, t) => {
    requireNhwc(n);
    const kernel = t.constant(n.input[1]);
    const [height, width, channels, filters] = kernel.shape;
    const ones = (values) => values.length === 0 || values.every((value) => value === 1);
    if (height !== 1 || width !== 1 || !ones(attrInts(n, 'strides')) || !ones(attrInts(n, 'dilations'))) {
      throw new Error(`only 1×1 kernels with stride and dilation 1 (kernel ${kernel.shape})`);
    }
    const matrix = t.initialize(`${n.input[1]}/matrix`, FLOAT, [channels, filters], kernel.typed);
    t.emit(n, 'MatMul', [t.tensor(n.input[0]), matrix], [t.output(n)]);
  },

  Reshape: (n, t) => t.emit(n, 'Reshape', inputs(n, t), [t.output(n)], [intAttr('allowzero', 1)]),
  Transpose: (n, t) =>
    t.emit(n, 'Transpose', inputs(n, t, 1), [t.output(n)], [intsAttr('perm', t.constant(n.input[1]).values)]),
  ExpandDims: (n, t) =>
    t.emit(
      n,
      'Unsqueeze',
      [t.tensor(n.input[0]), t.int64s(n, 'axes', t.constant(n.input[1]).values)],
      [t.output(n)],
    ),
  // No squeeze_dims: every axis of size 1, in both.
  Squeeze: (n, t) => {
    const axes = attrInts(n, 'squeeze_dims');
    const extra = axes.length > 0 ? [t.int64s(n, 'axes', axes)] : [];
    t.emit(n, 'Squeeze', [t.tensor(n.input[0]), ...extra], [t.output(n)]);
  },
  ConcatV2: (n, t) => {
    const count = n.input.length - 1;
    const [axis] = t.constant(n.input[count]).values;
    t.emit(n, 'Concat', inputs(n, t, count), [t.output(n)], [intAttr('axis', axis)]);
  },
  // Stack: each input gains the new axis, then they are concatenated along it.
  Pack: (n, t) => {
    const axis = attrInt(n, 'axis');
    const axes = t.int64s(n, 'axes', [axis]);
    const expanded = n.input.map((ref, i) => {
      const name = t.intermediate(n, `expanded_${i}`);
      t.emit(n, 'Unsqueeze', [t.tensor(ref), axes], [name]);
      return name;
    });
    t.emit(n, 'Concat', expanded, [t.output(n)], [intAttr('axis', axis)]);
  },
  SplitV: (n, t) => {
    const sizes = t.constant(n.input[1]).values;
    if (sizes.some((size) => size < 0)) throw new Error('an inferred (-1) split size');
    const [axis] = t.constant(n.input[2]).values;
    const outputs = sizes.map((_, i) => t.output(n, i));
    t.emit(n, 'Split', [t.tensor(n.input[0]), t.int64s(n, 'split', sizes)], outputs, [intAttr('axis', axis)]);
  },
  GatherV2: (n, t) => {
    if (attrInt(n, 'batch_dims') !== 0) throw new Error('batch_dims');
    const [axis] = t.constant(n.input[2]).values;
    t.emit(n, 'Gather', inputs(n, t, 2), [t.output(n)], [intAttr('axis', axis)]);
  },
  // Slice(x, begin, size): a size of -1 runs to the end of the axis.
  Slice: (n, t) => {
    const begin = t.constant(n.input[1]).values;
    const size = t.constant(n.input[2]).values;
    const ends = begin.map((start, i) => (size[i] === -1 ? INT64_MAX : start + size[i]));
    t.emit(
      n,
      'Slice',
      [
        t.tensor(n.input[0]),
        t.int64s(n, 'starts', begin),
        t.int64s(n, 'ends', ends),
        t.int64s(n, 'axes', [...begin.keys()]),
      ],
      [t.output(n)],
    );
  },
  StridedSlice: stridedSlice,

  // Where lists the coordinates of the true elements, [count, rank]; ONNX's NonZero lists them
  // transposed, [rank, count], in the same row-major order.
  Where: (n, t) => {
    const coordinates = t.intermediate(n, 'nonzero');
    t.emit(n, 'NonZero', inputs(n, t), [coordinates]);
    t.emit(n, 'Transpose', [coordinates], [t.output(n)], [intsAttr('perm', [1, 0])]);
  },
  // ScatterNd writes updates into zeros and adds up repeated coordinates.
  ScatterNd: (n, t) => {
    const [indices, updates, shape] = inputs(n, t);
    const zeros = t.intermediate(n, 'zeros');
    const type = onnxType(n.attr.T.type);
    const zero = tensor('zero', type, [1], new Uint8Array(type === FLOAT ? 4 : 8));
    t.emit(n, 'ConstantOfShape', [shape], [zeros], [tensorAttr('value', zero)]);
    t.emit(n, 'ScatterND', [zeros, indices, updates], [t.output(n)], [stringAttr('reduction', 'add')]);
  },
  // SparseToDense(indices [count, rank], shape, values [count], default): default everywhere,
  // then the values at their coordinates (TensorFlow rejects repeated coordinates).
  SparseToDense: (n, t) => {
    const [indices, shape, values, fallback] = inputs(n, t);
    const dense = t.intermediate(n, 'filled');
    t.emit(n, 'Expand', [fallback, shape], [dense]);
    t.emit(n, 'ScatterND', [dense, indices, values], [t.output(n)]);
  },
};

/**
 * StridedSlice with constant begin/end/strides → Slice (+ Squeeze for shrunk axes). A set bit i
 * of begin_mask/end_mask means "from the start"/"to the end" of axis i; of shrink_axis_mask,
 * "take element begin[i] and drop the axis" (end, stride and masks are then ignored).
 */
function stridedSlice(n, t) {
  if (attrInt(n, 'ellipsis_mask') !== 0 || attrInt(n, 'new_axis_mask') !== 0) {
    throw new Error('ellipsis_mask and new_axis_mask are not supported');
  }
  const begin = t.constant(n.input[1]).values;
  const end = t.constant(n.input[2]).values;
  const strides = t.constant(n.input[3]).values;
  const [beginMask, endMask, shrinkMask] = ['begin_mask', 'end_mask', 'shrink_axis_mask'].map((name) =>
    attrInt(n, name),
  );
  const starts = [];
  const ends = [];
  const steps = [];
  const shrunk = [];
  begin.forEach((first, axis) => {
    const bit = 1 << axis;
    if (shrinkMask & bit) {
      starts.push(first);
      ends.push(first === -1 ? INT64_MAX : first + 1);
      steps.push(1);
      shrunk.push(axis);
      return;
    }
    const forward = strides[axis] > 0;
    starts.push(beginMask & bit ? (forward ? 0 : INT64_MAX) : first);
    ends.push(endMask & bit ? (forward ? INT64_MAX : INT64_MIN) : end[axis]);
    steps.push(strides[axis]);
  });
  const sliced = shrunk.length > 0 ? t.intermediate(n, 'sliced') : t.output(n);
  const bounds = [
    t.int64s(n, 'starts', starts),
    t.int64s(n, 'ends', ends),
    t.int64s(n, 'axes', [...begin.keys()]),
    t.int64s(n, 'steps', steps),
  ];
  t.emit(n, 'Slice', [t.tensor(n.input[0]), ...bounds], [sliced]);
  if (shrunk.length > 0) t.emit(n, 'Squeeze', [sliced, t.int64s(n, 'squeeze_axes', shrunk)], [t.output(n)]);
}
