/**
 * TEST INFRASTRUCTURE: a tiny llama-architecture model as a GGUF v3 file, written at test time:
 * random F32 weights (seeded, so every run writes the same file) over a fixed preference for a few
 * tokens, and a SentencePiece-style vocabulary llama.cpp loads (the 256 byte tokens, printable
 * ASCII, a few words), about 500 KB. Its text is one word repeated; what it is for is loading,
 * generating under a grammar, and timing.
 */
import { writeFile } from "node:fs/promises";

export interface TinyModelShape {
  embedding: number;
  blocks: number;
  heads: number;
  feedForward: number;
  context: number;
  seed: number;
}

export const TINY_SHAPE: TinyModelShape = { embedding: 64, blocks: 2, heads: 4, feedForward: 128, context: 8192, seed: 20 };

const enum ValueType {
  Uint32 = 4,
  Int32 = 5,
  Float32 = 6,
  String = 8,
  Array = 9,
}

/** llama.cpp's token types. */
const NORMAL = 1;
const UNKNOWN = 2;
const CONTROL = 3;
const BYTE = 6;

const ALIGNMENT = 32;
const SPACE = "\u2581";
const WORDS = ["the", "is", "it", "and", "to", "of", "add", "sum", "time", "date", "what", "answer", "result", "number"];

type Value =
  | { type: ValueType.Uint32 | ValueType.Int32 | ValueType.Float32; value: number }
  | { type: ValueType.String; value: string }
  | { type: ValueType.Array; of: ValueType.String; values: string[] }
  | { type: ValueType.Array; of: ValueType.Float32 | ValueType.Int32; values: number[] };

interface Tensor {
  name: string;
  /** ggml order: the innermost dimension first. */
  dims: number[];
}

/** Writes the model to `path` and gives its size in bytes. */
export async function writeTinyGguf(path: string, shape: TinyModelShape = TINY_SHAPE): Promise<number> {
  const bytes = tinyGguf(shape);
  await writeFile(path, bytes, { mode: 0o600 });
  return bytes.length;
}

export function tinyGguf(shape: TinyModelShape = TINY_SHAPE): Buffer {
  const vocab = vocabulary();
  const { embedding: n, feedForward: ff } = shape;
  const metadata: Array<[string, Value]> = [
    ["general.architecture", { type: ValueType.String, value: "llama" }],
    ["general.name", { type: ValueType.String, value: "toolbridge tiny test model" }],
    ["general.alignment", { type: ValueType.Uint32, value: ALIGNMENT }],
    ["llama.context_length", { type: ValueType.Uint32, value: shape.context }],
    ["llama.embedding_length", { type: ValueType.Uint32, value: n }],
    ["llama.block_count", { type: ValueType.Uint32, value: shape.blocks }],
    ["llama.feed_forward_length", { type: ValueType.Uint32, value: ff }],
    ["llama.attention.head_count", { type: ValueType.Uint32, value: shape.heads }],
    ["llama.attention.head_count_kv", { type: ValueType.Uint32, value: shape.heads }],
    ["llama.attention.layer_norm_rms_epsilon", { type: ValueType.Float32, value: 1e-5 }],
    ["llama.rope.dimension_count", { type: ValueType.Uint32, value: n / shape.heads }],
    ["llama.vocab_size", { type: ValueType.Uint32, value: vocab.tokens.length }],
    ["tokenizer.ggml.model", { type: ValueType.String, value: "llama" }],
    ["tokenizer.ggml.tokens", { type: ValueType.Array, of: ValueType.String, values: vocab.tokens }],
    ["tokenizer.ggml.scores", { type: ValueType.Array, of: ValueType.Float32, values: vocab.scores }],
    ["tokenizer.ggml.token_type", { type: ValueType.Array, of: ValueType.Int32, values: vocab.types }],
    ["tokenizer.ggml.unknown_token_id", { type: ValueType.Uint32, value: 0 }],
    ["tokenizer.ggml.bos_token_id", { type: ValueType.Uint32, value: 1 }],
    ["tokenizer.ggml.eos_token_id", { type: ValueType.Uint32, value: 2 }],
  ];
  const v = vocab.tokens.length;
  const tensors: Tensor[] = [
    { name: "token_embd.weight", dims: [n, v] },
    { name: "output_norm.weight", dims: [n] },
    { name: "output.weight", dims: [n, v] },
  ];
  for (let b = 0; b < shape.blocks; b++) {
    tensors.push(
      { name: `blk.${b}.attn_norm.weight`, dims: [n] },
      { name: `blk.${b}.attn_q.weight`, dims: [n, n] },
      { name: `blk.${b}.attn_k.weight`, dims: [n, n] },
      { name: `blk.${b}.attn_v.weight`, dims: [n, n] },
      { name: `blk.${b}.attn_output.weight`, dims: [n, n] },
      { name: `blk.${b}.ffn_norm.weight`, dims: [n] },
      { name: `blk.${b}.ffn_gate.weight`, dims: [n, ff] },
      { name: `blk.${b}.ffn_up.weight`, dims: [n, ff] },
      { name: `blk.${b}.ffn_down.weight`, dims: [ff, n] },
    );
  }

  const out = new Writer();
  out.bytes(Buffer.from("GGUF", "latin1"));
  out.u32(3);
  out.u64(tensors.length);
  out.u64(metadata.length);
  for (const [key, value] of metadata) {
    out.string(key);
    out.value(value);
  }
  let offset = 0;
  for (const tensor of tensors) {
    out.string(tensor.name);
    out.u32(tensor.dims.length);
    for (const dim of tensor.dims) out.u64(dim);
    out.u32(0); // F32
    out.u64(offset);
    offset = align(offset + 4 * count(tensor));
  }
  out.pad();
  const random = mulberry32(shape.seed);
  const preference = preferences(vocab.tokens);
  for (const tensor of tensors) {
    const data = new Float32Array(count(tensor));
    if (tensor.dims.length === 1) data.fill(1);
    else for (let i = 0; i < data.length; i++) data[i] = (random() * 2 - 1) * NOISE;
    // The residual stream's first dimension is the same for every token, and the blocks add little to
    // it: the output layer reads it as a fixed preference per token, so which of the tokens a grammar
    // allows comes next does not hang on rounding. Everything else is noise.
    if (tensor.name === "token_embd.weight") for (let t = 0; t < v; t++) data[t * n] = 1;
    if (tensor.name === "output.weight") for (let t = 0; t < v; t++) data[t * n] = preference[t]!;
    out.bytes(Buffer.from(data.buffer));
    out.pad();
  }
  return out.done();
}

/** The size of the random weights, small beside the preferences. */
const NOISE = 0.02;

/**
 * What the model likes to write, most first: a word when it may write anything (so an answer
 * is that word over and over, until maxTokens); in a JSON tool call a `"` (so strings are empty),
 * else a `}` to close an object, else a `,` to end a value, else a 3 (so numbers stay short).
 */
const PREFERRED = [`${SPACE}answer`, "\"", "}", ",", "3"];

function preferences(tokens: readonly string[]): number[] {
  return tokens.map((token) => {
    const rank = PREFERRED.indexOf(token);
    return rank === -1 ? 0 : PREFERRED.length - rank;
  });
}

function vocabulary(): { tokens: string[]; scores: number[]; types: number[] } {
  const tokens = ["<unk>", "<s>", "</s>"];
  const types = [UNKNOWN, CONTROL, CONTROL];
  for (let b = 0; b < 256; b++) {
    tokens.push(`<0x${b.toString(16).toUpperCase().padStart(2, "0")}>`);
    types.push(BYTE);
  }
  const pieces = [SPACE];
  for (let c = 33; c < 127; c++) pieces.push(String.fromCharCode(c));
  for (const word of WORDS) pieces.push(`${SPACE}${word}`);
  for (const piece of pieces) {
    tokens.push(piece);
    types.push(NORMAL);
  }
  // Longer pieces score higher, so the tokenizer prefers them.
  const scores = tokens.map((token, id) => (types[id] === NORMAL ? token.length - id / 1000 : 0));
  return { tokens, scores, types };
}

function count(tensor: Tensor): number {
  return tensor.dims.reduce((a, b) => a * b, 1);
}

function align(n: number): number {
  return Math.ceil(n / ALIGNMENT) * ALIGNMENT;
}

/** A small seeded generator: the same weights on every run. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Writer {
  private readonly chunks: Buffer[] = [];
  private length = 0;

  bytes(data: Buffer): void {
    this.chunks.push(data);
    this.length += data.length;
  }

  u32(n: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    this.bytes(b);
  }

  u64(n: number): void {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(n));
    this.bytes(b);
  }

  string(text: string): void {
    const data = Buffer.from(text, "utf8");
    this.u64(data.length);
    this.bytes(data);
  }

  value(value: Value): void {
    this.u32(value.type);
    switch (value.type) {
      case ValueType.String:
        this.string(value.value);
        return;
      case ValueType.Array:
        this.u32(value.of);
        this.u64(value.values.length);
        for (const item of value.values) {
          if (typeof item === "string") this.string(item);
          else this.scalar(value.of, item);
        }
        return;
      default:
        this.scalar(value.type, value.value);
    }
  }

  private scalar(type: ValueType, n: number): void {
    const b = Buffer.alloc(4);
    if (type === ValueType.Float32) b.writeFloatLE(n);
    else if (type === ValueType.Int32) b.writeInt32LE(n);
    else b.writeUInt32LE(n);
    this.bytes(b);
  }

  /** Zero bytes up to the next multiple of the alignment. */
  pad(): void {
    const gap = align(this.length) - this.length;
    if (gap > 0) this.bytes(Buffer.alloc(gap));
  }

  done(): Buffer {
    return Buffer.concat(this.chunks);
  }
}
