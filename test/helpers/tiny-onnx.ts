/**
 * A tiny feature-extraction model, made in the test: the four files transformers.js loads for
 * `pipeline('feature-extraction', ...)` (config.json, tokenizer.json, tokenizer_config.json,
 * onnx/model.onnx). The ONNX graph is hand-encoded protobuf (no onnx package needed):
 *
 *   last_hidden_state[b, s, :] = embedding[input_ids[b, s], :] * attention_mask[b, s]
 *
 * so a text's CLS-pooled vector is the embedding row of its first word: real inference through
 * onnxruntime-node, with outputs a test can predict.
 */

// --- protobuf wire format (only what ONNX's messages below need) --------------------------------

function varint(n: number | bigint): Buffer {
  let v = BigInt.asUintN(64, BigInt(n));
  const bytes: number[] = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) b |= 0x80;
    bytes.push(b);
  } while (v !== 0n);
  return Buffer.from(bytes);
}

/** field with wire type 0 (varint) */
function int(field: number, n: number | bigint): Buffer {
  return Buffer.concat([varint(field << 3), varint(n)]);
}

/** field with wire type 2 (length-delimited): a string, bytes or an embedded message */
function bytes(field: number, body: Buffer | string): Buffer {
  const b = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return Buffer.concat([varint((field << 3) | 2), varint(b.length), b]);
}

const msg = (...parts: Buffer[]) => Buffer.concat(parts);

// --- ONNX messages (field numbers from onnx/onnx.proto) ------------------------------------------

const FLOAT = 1;
const INT64 = 7;

/** TensorProto: dims = 1, data_type = 2, name = 8, raw_data = 9 (little-endian) */
function tensor(name: string, dataType: number, dims: number[], raw: Buffer): Buffer {
  return msg(...dims.map((d) => int(1, d)), int(2, dataType), bytes(8, name), bytes(9, raw));
}

/** ValueInfoProto { name = 1, type = 2: TypeProto { tensor_type = 1: { elem_type = 1, shape = 2 } } } */
function valueInfo(name: string, elemType: number, dims: (number | string)[]): Buffer {
  const shape = msg(
    ...dims.map((d) => bytes(1, typeof d === 'number' ? int(1, d) : bytes(2, d))), // Dimension
  );
  return msg(bytes(1, name), bytes(2, bytes(1, msg(int(1, elemType), bytes(2, shape)))));
}

/** NodeProto: input = 1, output = 2, name = 3, op_type = 4, attribute = 5 */
function node(op: string, inputs: string[], outputs: string[], attributes: Buffer[] = []): Buffer {
  return msg(
    ...inputs.map((i) => bytes(1, i)),
    ...outputs.map((o) => bytes(2, o)),
    bytes(3, `${op.toLowerCase()}_${outputs[0]}`),
    bytes(4, op),
    ...attributes.map((a) => bytes(5, a)),
  );
}

/** AttributeProto of type INT: name = 1, i = 3, type = 20 (INT = 2) */
function intAttribute(name: string, value: number): Buffer {
  return msg(bytes(1, name), int(3, value), int(20, 2));
}

/** The ONNX model bytes for an embedding table of `vocab` rows of `hidden` floats. */
export function tinyEmbeddingOnnx(embedding: Float32Array, vocab: number, hidden: number): Buffer {
  if (embedding.length !== vocab * hidden) throw new Error('embedding must hold vocab x hidden floats');
  const axes = Buffer.alloc(8);
  axes.writeBigInt64LE(-1n);
  const graph = msg(
    bytes(1, node('Gather', ['embedding', 'input_ids'], ['gathered'])),
    bytes(1, node('Cast', ['attention_mask'], ['mask_float'], [intAttribute('to', FLOAT)])),
    bytes(1, node('Unsqueeze', ['mask_float', 'mask_axes'], ['mask'])),
    bytes(1, node('Mul', ['gathered', 'mask'], ['last_hidden_state'])),
    bytes(2, 'tiny-embedding'),
    bytes(
      5,
      tensor(
        'embedding',
        FLOAT,
        [vocab, hidden],
        Buffer.from(embedding.buffer, embedding.byteOffset, embedding.byteLength),
      ),
    ),
    bytes(5, tensor('mask_axes', INT64, [1], axes)),
    bytes(11, valueInfo('input_ids', INT64, ['batch', 'sequence'])),
    bytes(11, valueInfo('attention_mask', INT64, ['batch', 'sequence'])),
    bytes(12, valueInfo('last_hidden_state', FLOAT, ['batch', 'sequence', hidden])),
  );
  // ModelProto: ir_version = 1, producer_name = 2, graph = 7, opset_import = 8 { domain = 1, version = 2 }
  return msg(int(1, 7), bytes(2, 'rge-test'), bytes(7, graph), bytes(8, msg(bytes(1, ''), int(2, 13))));
}

// --- the model folder ----------------------------------------------------------------------------

export interface TinyModel {
  /** relative path (as on the hub) -> bytes */
  files: Map<string, Buffer>;
  vocab: readonly string[];
  hidden: number;
  /** the unit vector the model gives a text whose first word is `word` (on the int8 weights: `int8`) */
  expectedVector(word: string, weights?: 'fp32' | 'int8'): Float32Array;
}

/**
 * The model: a word-level tokenizer over `words` (plus [PAD] and [UNK]), an embedding table with a
 * distinct row per token, and an xlm-roberta config (the model type of bge-m3) of width `hidden`. With
 * `int8`, the folder also holds the hub's int8 file name (onnx/model_quantized.onnx): the same graph
 * on the table rounded to 127ths, as int8 quantization rounds weights, so its vectors differ a little.
 */
export function makeTinyModel(
  words: readonly string[],
  hidden = 8,
  opts: { int8?: boolean } = {},
): TinyModel {
  const vocab = ['[PAD]', '[UNK]', ...words];
  const embedding = new Float32Array(vocab.length * hidden);
  for (let t = 0; t < vocab.length; t++) {
    for (let h = 0; h < hidden; h++) embedding[t * hidden + h] = Math.sin(1 + t * 7.3 + h * 1.9);
  }
  const config = {
    model_type: 'xlm-roberta',
    architectures: ['XLMRobertaModel'],
    hidden_size: hidden,
    vocab_size: vocab.length,
    pad_token_id: 0,
  };
  const tokenizer = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [
      {
        id: 0,
        content: '[PAD]',
        single_word: false,
        lstrip: false,
        rstrip: false,
        normalized: false,
        special: true,
      },
      {
        id: 1,
        content: '[UNK]',
        single_word: false,
        lstrip: false,
        rstrip: false,
        normalized: false,
        special: true,
      },
    ],
    normalizer: { type: 'Lowercase' },
    pre_tokenizer: { type: 'Whitespace' },
    post_processor: null,
    decoder: null,
    model: { type: 'WordLevel', vocab: Object.fromEntries(vocab.map((w, i) => [w, i])), unk_token: '[UNK]' },
  };
  const tokenizerConfig = {
    tokenizer_class: 'PreTrainedTokenizer',
    pad_token: '[PAD]',
    unk_token: '[UNK]',
    model_max_length: 512,
  };
  const json = (v: unknown) => Buffer.from(`${JSON.stringify(v, null, 2)}\n`, 'utf8');
  const files = new Map<string, Buffer>([
    ['config.json', json(config)],
    ['tokenizer.json', json(tokenizer)],
    ['tokenizer_config.json', json(tokenizerConfig)],
    ['onnx/model.onnx', tinyEmbeddingOnnx(embedding, vocab.length, hidden)],
  ]);
  const rounded = embedding.map((x) => Math.round(x * 127) / 127);
  if (opts.int8) files.set('onnx/model_quantized.onnx', tinyEmbeddingOnnx(rounded, vocab.length, hidden));
  return {
    files,
    vocab,
    hidden,
    expectedVector(word, weights = 'fp32') {
      const t = Math.max(1, vocab.indexOf(word.toLowerCase()));
      const row = (weights === 'int8' ? rounded : embedding).slice(t * hidden, (t + 1) * hidden);
      const norm = Math.hypot(...row);
      return row.map((x) => x / norm);
    },
  };
}
