import type { FileHandle } from "node:fs/promises";

/**
 * The most a GGUF file's header (its metadata and tensor table, everything before the tensor
 * data) may take. A real model's runs to a few MiB, most of it the tokenizer's vocabulary.
 */
export const MAX_GGUF_HEADER_BYTES = 64 * 1024 * 1024;
/** The most elements one metadata array may hold: 16 times the largest vocabulary published (262,144). */
export const MAX_GGUF_ARRAY_LENGTH = 1 << 22;
/** llama.cpp's GGML_MAX_DIMS: a tensor with more dimensions is refused. */
const MAX_TENSOR_DIMS = 4;
/** Keys longer than this are named by their place in the table, not read. */
const MAX_NAMED_KEY_BYTES = 256;
/** The longest architecture name read; llama.cpp's run to about 20 characters. */
const MAX_ARCHITECTURE_BYTES = 256;
/** Bytes read from the file at a time. */
const CHUNK_BYTES = 64 * 1024;

const MAGIC = "GGUF";
const VERSIONS = [2, 3];
/** The least a key/value pair takes: an empty key, its type, a one-byte value. */
const MIN_KV_BYTES = 8 + 4 + 1;
/** The least a tensor's entry takes: an empty name, no dimensions, its type and offset. */
const MIN_TENSOR_BYTES = 8 + 4 + 4 + 8;

const STRING = 8;
const ARRAY = 9;
/** GGUF's value types by number, with the size of the fixed-size ones. */
const TYPES: ReadonlyArray<{ name: string; size?: number }> = [
  { name: "uint8", size: 1 },
  { name: "int8", size: 1 },
  { name: "uint16", size: 2 },
  { name: "int16", size: 2 },
  { name: "uint32", size: 4 },
  { name: "int32", size: 4 },
  { name: "float32", size: 4 },
  { name: "bool", size: 1 },
  { name: "string" },
  { name: "array" },
  { name: "uint64", size: 8 },
  { name: "int64", size: 8 },
  { name: "float64", size: 8 },
];

export interface GgufHeader {
  version: number;
  tensorCount: number;
  keyCount: number;
  /** `general.architecture`: the model llama.cpp is to build. */
  architecture: string;
  /** Bytes before the tensor data (unaligned). */
  headerBytes: number;
}

/**
 * What is wrong with a file as a GGUF, worded to follow "The model file PATH " (e.g. "is not a
 * GGUF file"), so the caller names the file.
 */
export class GgufHeaderError extends Error {
  override readonly name = "GgufHeaderError";
}

/**
 * Reads a GGUF file's header, key/value table and tensor table, and refuses one whose counts,
 * lengths or nesting could make a reader (node-llama-cpp's, llama.cpp's) allocate more than
 * the file holds: every count and length must fit in the bytes left in the file, arrays hold at
 * most MAX_GGUF_ARRAY_LENGTH elements and no arrays, and the whole header at most
 * MAX_GGUF_HEADER_BYTES. Reads only the lengths it must, a chunk at a time: values are
 * skipped, not read, so a multi-GB file costs its header's length prefixes.
 */
export async function readGgufHeader(handle: FileHandle, size: number): Promise<GgufHeader> {
  const file = new Cursor(handle, size);
  if (size < MAGIC.length || (await file.bytes(MAGIC.length, "the magic")).toString("latin1") !== MAGIC) throw new GgufHeaderError("is not a GGUF file");
  const version = await file.u32("the version");
  if (!VERSIONS.includes(version)) {
    throw new GgufHeaderError(`is GGUF version ${version}, which llama.cpp does not read (it reads versions ${VERSIONS.join(" and ")})`);
  }
  const tensorCount = await file.u64("the tensor count");
  const keyCount = await file.u64("the metadata key count");
  if (tensorCount * BigInt(MIN_TENSOR_BYTES) > BigInt(file.left)) throw file.larger(`tensor count of ${tensorCount}`);
  if (keyCount * BigInt(MIN_KV_BYTES) > BigInt(file.left)) throw file.larger(`metadata key count of ${keyCount}`);

  let architecture: string | undefined;
  for (let index = 0; index < Number(keyCount); index++) {
    const key = await readKey(file, index);
    const type = await file.u32(`the type of metadata key ${key}`);
    if (key === '"general.architecture"') {
      if (type !== STRING) throw new GgufHeaderError(`is not a valid GGUF: general.architecture is ${typeName(type)}, not a string`);
      const length = await stringLength(file, `the value of metadata key ${key}`);
      if (length > MAX_ARCHITECTURE_BYTES) throw new GgufHeaderError(`is not a valid GGUF: general.architecture is ${length} bytes long, more than ${MAX_ARCHITECTURE_BYTES}`);
      architecture = (await file.bytes(length, `the value of metadata key ${key}`)).toString("utf8");
    } else {
      await skipValue(file, type, key);
    }
    file.withinCap(`metadata key ${key}`);
  }
  if (architecture === undefined) throw new GgufHeaderError("has no general.architecture in its metadata, so llama.cpp cannot tell what model it holds");

  for (let index = 0; index < Number(tensorCount); index++) {
    const what = `tensor #${index}`;
    file.skip(await stringLength(file, `the name of ${what}`), `the name of ${what}`);
    const dims = await file.u32(`the dimensions of ${what}`);
    if (dims > MAX_TENSOR_DIMS) throw new GgufHeaderError(`is not a valid GGUF: ${what} has ${dims} dimensions, more than llama.cpp's ${MAX_TENSOR_DIMS}`);
    file.skip(dims * 8 + 4 + 8, `the shape of ${what}`);
    file.withinCap(what);
  }
  return { version, tensorCount: Number(tensorCount), keyCount: Number(keyCount), architecture, headerBytes: file.pos };
}

/** The key, quoted, as the messages name it; a key too long to print is named by its place. */
async function readKey(file: Cursor, index: number): Promise<string> {
  const what = `metadata key #${index}`;
  const length = await stringLength(file, what);
  if (length > MAX_NAMED_KEY_BYTES) {
    file.skip(length, what);
    return `#${index}`;
  }
  return JSON.stringify((await file.bytes(length, what)).toString("utf8"));
}

async function skipValue(file: Cursor, type: number, key: string): Promise<void> {
  const where = `the value of metadata key ${key}`;
  const fixed = TYPES[type]?.size;
  if (fixed !== undefined) return file.skip(fixed, where);
  if (type === STRING) return file.skip(await stringLength(file, where), where);
  if (type !== ARRAY) throw new GgufHeaderError(`is not a valid GGUF: metadata key ${key} has type ${type}, which is none of GGUF's`);

  const of = await file.u32(where);
  const count = await file.u64(where);
  const element = TYPES[of];
  if (!element) throw new GgufHeaderError(`is not a valid GGUF: metadata key ${key} is an array of type ${of}, which is none of GGUF's`);
  // llama.cpp reads no arrays of arrays; letting them in would let a reader recurse as deep as the file says.
  if (of === ARRAY) throw new GgufHeaderError(`is not a valid GGUF: metadata key ${key} is an array of arrays, which llama.cpp does not read`);
  const plural = `${element.name}s`;
  if (count * BigInt(element.size ?? 8) > BigInt(file.left)) throw file.larger(`metadata key ${key}: array of ${count} ${plural}`);
  if (count > BigInt(MAX_GGUF_ARRAY_LENGTH)) {
    throw new GgufHeaderError(`is not a valid GGUF: metadata key ${key} is an array of ${count} ${plural}, more than the ${MAX_GGUF_ARRAY_LENGTH} allowed`);
  }
  if (element.size !== undefined) return file.skip(Number(count) * element.size, where);
  // A vocabulary is some 150,000 strings: skipped a buffer at a time, not one await each.
  for (let done = 0; done < Number(count); ) {
    await file.fill(8, where);
    done = file.skipStrings(done, Number(count), where);
    file.withinCap(`metadata key ${key}`);
  }
}

/** A string's length prefix, which must fit in what is left of the file. */
async function stringLength(file: Cursor, what: string): Promise<number> {
  const length = await file.u64(what);
  if (length > BigInt(file.left)) throw file.larger(`${what}: string of ${length} bytes`);
  return Number(length);
}

function typeName(type: number): string {
  const name = TYPES[type]?.name;
  return name ? `a${/^[aeio]/.test(name) ? "n" : ""} ${name}` : `of type ${type}`;
}

/** A position in the file, read forward through one buffer of CHUNK_BYTES. */
class Cursor {
  pos = 0;
  private readonly buffer = Buffer.alloc(CHUNK_BYTES);
  /** The file offsets the buffer holds: [start, end). */
  private start = 0;
  private end = 0;

  constructor(
    private readonly handle: FileHandle,
    private readonly size: number,
  ) {}

  get left(): number {
    return this.size - this.pos;
  }

  /** Makes the buffer hold `length` bytes (at most CHUNK_BYTES) from here. */
  async fill(length: number, what: string): Promise<void> {
    if (length > this.left) throw this.cut(what);
    if (this.buffered(length)) return;
    const want = Math.min(CHUNK_BYTES, this.left);
    const { bytesRead } = await this.handle.read(this.buffer, 0, want, this.pos);
    this.start = this.pos;
    this.end = this.pos + bytesRead;
    if (bytesRead < length) throw this.cut(what);
  }

  /** `length` bytes (at most CHUNK_BYTES) from here, valid until the next read. */
  async bytes(length: number, what: string): Promise<Buffer> {
    await this.fill(length, what);
    const from = this.pos - this.start;
    this.pos += length;
    return this.buffer.subarray(from, from + length);
  }

  /**
   * Skips the strings `done` to `count` of an array for as long as their length prefixes are in
   * the buffer, each length checked against the file; gives how many are skipped so far.
   */
  skipStrings(done: number, count: number, what: string): number {
    while (done < count && this.buffered(8)) {
      const at = this.pos - this.start;
      const length = this.buffer.readUInt32LE(at) + this.buffer.readUInt32LE(at + 4) * 2 ** 32;
      this.pos += 8;
      // Past 2^53 the sum is inexact, and far larger than any file all the same.
      if (length > this.left) throw this.larger(`${what}: string of ${this.buffer.readBigUInt64LE(at)} bytes`);
      this.pos += length;
      done++;
    }
    return done;
  }

  private buffered(length: number): boolean {
    return this.pos >= this.start && this.pos + length <= this.end;
  }

  async u32(what: string): Promise<number> {
    return (await this.bytes(4, what)).readUInt32LE(0);
  }

  async u64(what: string): Promise<bigint> {
    return (await this.bytes(8, what)).readBigUInt64LE(0);
  }

  skip(length: number, what: string): void {
    if (length > this.left) throw this.cut(what);
    this.pos += length;
  }

  /** Refuses a header grown past MAX_GGUF_HEADER_BYTES by what was just read. */
  withinCap(what: string): void {
    if (this.pos > MAX_GGUF_HEADER_BYTES) {
      throw new GgufHeaderError(`is not a valid GGUF: its header runs past ${MAX_GGUF_HEADER_BYTES / 1024 / 1024} MiB, the limit, at ${what}`);
    }
  }

  larger(what: string): GgufHeaderError {
    return new GgufHeaderError(`is not a valid GGUF: ${what} is larger than the file (${this.size} bytes)`);
  }

  private cut(what: string): GgufHeaderError {
    return new GgufHeaderError(`is cut short: it ends after ${this.size} bytes, in ${what}`);
  }
}
