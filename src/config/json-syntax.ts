/**
 * Node 20's JSON.parse often reports a syntax error without its position ("Unexpected
 * token '}', ... is not valid JSON"), so after it fails this scanner walks the text
 * again to say where and what, in words a person editing a config file (or a model
 * writing tool arguments) can act on.
 */
export interface JsonSyntaxError {
  /** Where the problem is, counted in characters from the start of the text. */
  offset: number;
  line: number;
  column: number;
  reason: string;
}

class Found extends Error {
  constructor(
    readonly offset: number,
    readonly reason: string,
  ) {
    super(reason);
  }
}

export function locateJsonSyntaxError(text: string): JsonSyntaxError {
  try {
    new JsonScanner(text).document();
  } catch (error) {
    if (error instanceof Found) return { offset: error.offset, ...lineAndColumn(text, error.offset), reason: error.reason };
    throw error;
  }
  // JSON.parse failed but the scanner accepts the text: fall back to the end of the text.
  return { offset: text.length, ...lineAndColumn(text, text.length), reason: "not valid JSON" };
}

export interface DuplicateKey {
  /** Where the object holding the key sits. */
  path: (string | number)[];
  key: string;
  /** Where the key appears again. */
  line: number;
  column: number;
}

/** JSON.parse keeps the last of two equal keys without a word: the first key that appears twice, if any. */
export function findDuplicateKey(text: string): DuplicateKey | undefined {
  try {
    new JsonScanner(text, true).document();
  } catch (error) {
    if (error instanceof Duplicate) return { path: error.path, key: error.key, ...lineAndColumn(text, error.offset) };
    if (error instanceof Found) return undefined;
    throw error;
  }
  return undefined;
}

class Duplicate extends Error {
  constructor(
    readonly offset: number,
    readonly path: (string | number)[],
    readonly key: string,
  ) {
    super(`duplicate key ${key}`);
  }
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === "\n") {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

class JsonScanner {
  private pos = 0;
  private lastComma = 0;
  /** Where the scanner is, kept only when looking for duplicate keys. */
  private readonly path: (string | number)[] = [];
  constructor(
    private readonly text: string,
    private readonly duplicates = false,
  ) {}

  document(): void {
    this.whitespace();
    if (this.pos >= this.text.length) throw new Found(this.pos, "the file is empty");
    this.value();
    this.whitespace();
    if (this.pos < this.text.length) this.fail("unexpected text after the end of the JSON value");
  }

  private fail(reason: string, offset = this.pos): never {
    throw new Found(offset, reason);
  }

  /** Why the text at the current position cannot start what `expected` names. */
  private unexpected(expected: string): string {
    if (this.pos >= this.text.length) return "unexpected end of file";
    const rest = this.text.slice(this.pos);
    if (rest.startsWith("//") || rest.startsWith("/*")) return "comments are not allowed in JSON";
    if (rest[0] === "'") return "strings must use double quotes";
    const word = /^[A-Za-z_]\w*/.exec(rest)?.[0];
    return `expected ${expected}, found ${word ?? JSON.stringify(rest[0])}`;
  }

  private whitespace(): void {
    while (this.pos < this.text.length && " \t\n\r".includes(this.text[this.pos]!)) this.pos++;
  }

  private value(): void {
    const ch = this.text[this.pos];
    if (ch === "{") return this.object();
    if (ch === "[") return this.array();
    if (ch === '"') return this.string();
    if (ch === "-" || (ch !== undefined && ch >= "0" && ch <= "9")) return this.number();
    for (const literal of ["true", "false", "null"]) {
      if (this.text.startsWith(literal, this.pos)) {
        this.pos += literal.length;
        return;
      }
    }
    this.fail(this.unexpected("a value"));
  }

  private object(): void {
    const keys = new Set<string>();
    this.sequence("}", "property value", () => {
      if (this.text[this.pos] !== '"') this.fail(this.unexpected("a property name in double quotes"));
      const start = this.pos;
      this.string();
      const key = this.duplicates ? (JSON.parse(this.text.slice(start, this.pos)) as string) : "";
      if (this.duplicates && keys.has(key)) throw new Duplicate(start, [...this.path], key);
      keys.add(key);
      this.whitespace();
      if (this.text[this.pos] !== ":") this.fail(this.unexpected("':' after the property name"));
      this.pos++;
      this.whitespace();
      this.path.push(key);
      this.value();
      this.path.pop();
    });
  }

  private array(): void {
    let index = 0;
    this.sequence("]", "array element", () => {
      this.path.push(index++);
      this.value();
      this.path.pop();
    });
  }

  /** The comma-separated body of an object or array, from its opening bracket on. */
  private sequence(close: "}" | "]", item: string, element: () => void): void {
    this.pos++; // the opening bracket
    this.whitespace();
    if (this.text[this.pos] === close) {
      this.pos++;
      return;
    }
    for (;;) {
      this.whitespace();
      if (this.text[this.pos] === close) this.fail(`trailing comma before '${close}'`, this.lastComma);
      element();
      this.whitespace();
      const next = this.text[this.pos];
      if (next === ",") {
        this.lastComma = this.pos++;
        continue;
      }
      if (next === close) {
        this.pos++;
        return;
      }
      this.fail(this.unexpected(`',' or '${close}' after the ${item}`));
    }
  }

  private string(): void {
    const start = this.pos;
    this.pos++; // "
    while (this.pos < this.text.length) {
      const ch = this.text[this.pos]!;
      if (ch === '"') {
        this.pos++;
        return;
      }
      if (ch === "\\") {
        const escape = this.text[this.pos + 1];
        if (escape === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(this.text.slice(this.pos + 2, this.pos + 6))) this.fail("bad \\u escape in string");
          this.pos += 6;
        } else if (escape !== undefined && '"\\/bfnrt'.includes(escape)) {
          this.pos += 2;
        } else {
          this.fail(`bad escape \\${escape ?? ""} in string (write \\\\ for a backslash)`);
        }
        continue;
      }
      if (ch < " ") this.fail(ch === "\n" ? "line break inside a string" : "control character inside a string");
      this.pos++;
    }
    this.fail("unterminated string", start);
  }

  private number(): void {
    const match = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(this.text.slice(this.pos));
    if (!match || match[0] === "-") this.fail("bad number");
    this.pos += match[0].length;
  }
}
