import { mkdtemp, open, rm, stat, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { LlmError } from "../../src/llm/errors.js";
import { MAX_GGUF_ARRAY_LENGTH, MAX_GGUF_HEADER_BYTES, readGgufHeader } from "../../src/llm/gguf-header.js";
import { LocalModel } from "../../src/llm/local-model.js";
import { loadGguf } from "../../src/llm/local-runtime.js";
import { tinyGguf } from "../support/tiny-gguf.js";

/** llama.cpp as node-llama-cpp hands it out, reduced to the files it was given and what it does with them. */
const llama = vi.hoisted(() => ({
  seen: [] as string[],
  log: (_level: string, _message: string): void => undefined,
  load: (_path: string): Promise<unknown> => Promise.resolve({}),
}));
vi.mock("node-llama-cpp", () => ({
  LlamaLogLevel: { error: "error", fatal: "fatal" },
  LlamaChat: class {},
  getLlama: ({ logger }: { logger: (level: string, message: string) => void }) => {
    llama.log = logger;
    return {
      loadModel: ({ modelPath }: { modelPath: string }) => {
        llama.seen.push(modelPath);
        return llama.load(modelPath);
      },
    };
  },
}));

// The pieces of a GGUF file, little-endian, as its readers take them.
const u32 = (value: number) => {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32LE(value);
  return bytes;
};
const u64 = (value: bigint | number) => {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64LE(BigInt(value));
  return bytes;
};
const text = (value: string) => Buffer.concat([u64(Buffer.byteLength(value)), Buffer.from(value)]);
const STRING = 8;
const ARRAY = 9;
const UINT8 = 0;
const head = (tensors: bigint | number, keys: bigint | number, version = 3) => Buffer.concat([Buffer.from("GGUF"), u32(version), u64(tensors), u64(keys)]);
const architecture = Buffer.concat([text("general.architecture"), u32(STRING), text("llama")]);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolbridge-gguf-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  llama.seen.length = 0;
  llama.load = () => Promise.resolve({});
});

let files = 0;
async function file(...parts: Buffer[]): Promise<string> {
  const path = join(dir, `model-${files++}.gguf`);
  await writeFile(path, Buffer.concat(parts));
  return path;
}

/** What loading the file says, checking that llama.cpp was never handed it. */
async function refusal(path: string): Promise<string> {
  const error = await loadGguf(path).then(
    () => "loaded",
    (caught: unknown) => caught,
  );
  expect(llama.seen, "llama.cpp was handed the file").toEqual([]);
  expect(error).toBeInstanceOf(LlmError);
  return (error as LlmError).message;
}

describe("a GGUF file's header, read before llama.cpp is given the file", () => {
  it("lets a sound model through to llama.cpp, having read what its header says", async () => {
    const path = await file(tinyGguf());
    const handle = await open(path);
    try {
      expect(await readGgufHeader(handle, (await handle.stat()).size)).toEqual({ version: 3, tensorCount: 21, keyCount: 19, architecture: "llama", headerBytes: 9683 });
    } finally {
      await handle.close();
    }
    await loadGguf(path);
    expect(llama.seen).toEqual([path]);
  });

  it("refuses an array of 2^40 strings in a file of a few dozen bytes", async () => {
    const path = await file(head(0, 2), architecture, text("tokenizer.ggml.tokens"), u32(ARRAY), u32(STRING), u64(2n ** 40n));
    expect(await refusal(path)).toBe(
      `The model file ${path} is not a valid GGUF: metadata key "tokenizer.ggml.tokens": array of 1099511627776 strings is larger than the file (114 bytes).`,
    );
  });

  it("refuses tensor and key counts of 2^62 in a file of 24 bytes", async () => {
    const path = await file(head(2n ** 62n, 2n ** 62n));
    expect(await refusal(path)).toBe(`The model file ${path} is not a valid GGUF: tensor count of 4611686018427387904 is larger than the file (24 bytes).`);
    const keys = await file(head(0, 2n ** 62n));
    expect(await refusal(keys)).toBe(`The model file ${keys} is not a valid GGUF: metadata key count of 4611686018427387904 is larger than the file (24 bytes).`);
  });

  it("refuses a string longer than the file", async () => {
    const path = await file(head(0, 1), u64(2n ** 63n), Buffer.from("general"));
    expect(await refusal(path)).toBe(`The model file ${path} is not a valid GGUF: metadata key #0: string of 9223372036854775808 bytes is larger than the file (39 bytes).`);
  });

  it("refuses a string in an array longer than the file", async () => {
    const path = await file(head(0, 2), architecture, text("tokens"), u32(ARRAY), u32(STRING), u64(2), text("a"), u64(2n ** 63n + 1n));
    expect(await refusal(path)).toBe(
      `The model file ${path} is not a valid GGUF: the value of metadata key "tokens": string of 9223372036854775809 bytes is larger than the file (${(await stat(path)).size} bytes).`,
    );
  });

  it("refuses an array of arrays, which llama.cpp does not read", async () => {
    const nested = Buffer.concat(Array.from({ length: 100 }, () => Buffer.concat([u32(ARRAY), u64(1)])));
    const path = await file(head(0, 2), architecture, text("deep"), u32(ARRAY), nested);
    expect(await refusal(path)).toBe(`The model file ${path} is not a valid GGUF: metadata key "deep" is an array of arrays, which llama.cpp does not read.`);
  });

  it("refuses an array longer than the limit, even when the file holds it", async () => {
    const count = MAX_GGUF_ARRAY_LENGTH + 1;
    const path = await file(head(0, 2), architecture, text("bytes"), u32(ARRAY), u32(UINT8), u64(count));
    await truncate(path, 200 + count); // sparse: the file holds the bytes without their being written
    expect(await refusal(path)).toBe(`The model file ${path} is not a valid GGUF: metadata key "bytes" is an array of ${count} uint8s, more than the ${MAX_GGUF_ARRAY_LENGTH} allowed.`);
  });

  it("refuses a header larger than the limit, even when the file holds it", async () => {
    const path = await file(head(0, 2), architecture, text("general.description"), u32(STRING), u64(MAX_GGUF_HEADER_BYTES));
    await truncate(path, MAX_GGUF_HEADER_BYTES + 1000);
    expect(await refusal(path)).toBe(`The model file ${path} is not a valid GGUF: its header runs past 64 MiB, the limit, at metadata key "general.description".`);
  });

  it("refuses a file cut short, naming where", async () => {
    const path = await file(head(0, 1), text("general.architecture"), Buffer.from([STRING, 0]));
    expect(await refusal(path)).toBe(`The model file ${path} is cut short: it ends after 54 bytes, in the type of metadata key "general.architecture".`);
  });

  it("refuses a GGUF version llama.cpp does not read", async () => {
    const one = await file(head(0, 0, 1));
    expect(await refusal(one)).toBe(`The model file ${one} is GGUF version 1, which llama.cpp does not read (it reads versions 2 and 3).`);
    const later = await file(head(0, 0, 4));
    expect(await refusal(later)).toBe(`The model file ${later} is GGUF version 4, which llama.cpp does not read (it reads versions 2 and 3).`);
  });

  it("refuses a file with no general.architecture, or one that is not a string", async () => {
    const path = await file(head(0, 1), text("general.name"), u32(STRING), text("nameless"));
    expect(await refusal(path)).toBe(`The model file ${path} has no general.architecture in its metadata, so llama.cpp cannot tell what model it holds.`);
    const number = await file(head(0, 1), text("general.architecture"), u32(4), u32(7));
    expect(await refusal(number)).toBe(`The model file ${number} is not a valid GGUF: general.architecture is a uint32, not a string.`);
  });

  it("refuses a value of a type GGUF does not have", async () => {
    const path = await file(head(0, 2), architecture, text("odd"), u32(13), u32(0));
    expect(await refusal(path)).toBe(`The model file ${path} is not a valid GGUF: metadata key "odd" has type 13, which is none of GGUF's.`);
  });

  it("refuses a tensor of more dimensions than llama.cpp has", async () => {
    const path = await file(head(1, 1), architecture, text("output.weight"), u32(1000), Buffer.alloc(8000 + 12));
    expect(await refusal(path)).toBe(`The model file ${path} is not a valid GGUF: tensor #0 has 1000 dimensions, more than llama.cpp's 4.`);
  });

  it("refuses a file that is not a GGUF at all", async () => {
    const path = await file(Buffer.from("<html>"));
    expect(await refusal(path)).toBe(`The model file ${path} is not a GGUF file.`);
  });
});

describe("a file llama.cpp refuses after the check", () => {
  it("is one line naming the file, in llama.cpp's words when it logged any", async () => {
    const path = await file(tinyGguf());
    llama.load = () => {
      llama.log("error", "llama_model_load: error loading model: tensor 'output.weight' data is not within the file bounds\n");
      return Promise.reject(new TypeError("Cannot read properties of undefined (reading 'architecture')"));
    };
    await expect(loadGguf(path)).rejects.toThrow(
      `The model file ${path} could not be loaded: llama_model_load: error loading model: tensor 'output.weight' data is not within the file bounds`,
    );
  });

  it("does not blame a file for what llama.cpp said of the one before", async () => {
    const path = await file(tinyGguf());
    llama.load = () => {
      llama.log("error", "unknown model architecture: 'nope'");
      return Promise.reject(new Error("failed"));
    };
    await expect(loadGguf(path)).rejects.toThrow("could not be loaded: unknown model architecture: 'nope'");
    llama.load = () => Promise.reject(new Error("out of memory"));
    await expect(loadGguf(path)).rejects.toThrow(`The model file ${path} could not be loaded: out of memory`);
  });

  it("is one line naming the file when its context cannot be made", async () => {
    const path = await file(tinyGguf());
    let disposed = false;
    llama.load = () =>
      Promise.resolve({
        createContext: () => Promise.reject(new TypeError("Cannot read properties of undefined (reading 'architecture')")),
        dispose: () => {
          disposed = true;
          return Promise.resolve();
        },
      });
    await expect(LocalModel.open({ path })).rejects.toThrow(`The model file ${path} could not be loaded: Cannot read properties of undefined (reading 'architecture')`);
    expect(disposed).toBe(true);
  });
});
