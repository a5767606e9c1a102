// Arithmetic expressions for batch_calculate: a tokenizer and a recursive-descent
// evaluator. Model-written input never reaches eval/Function.
//
// Grammar (usual precedence; ^ binds tighter than unary minus, so -2^2 = -4,
// and is right-associative, so 2^3^2 = 2^9):
//   sum     := product (("+" | "-") product)*
//   product := unary (("*" | "/") unary)*
//   unary   := ("-" | "+") unary | power
//   power   := primary ("^" unary)?
//   primary := NUMBER | "(" sum ")"

export interface ExpressionError {
  message: string;
  /** 1-based column in the expression where the problem was found. */
  column: number;
}

export type EvaluationResult = { ok: true; value: number } | { ok: false; error: ExpressionError };

/** Deeper nesting than this is refused rather than risking the call stack. */
const MAX_DEPTH = 200;

type Operator = "+" | "-" | "*" | "/" | "^" | "(" | ")";

type Token = { kind: "number"; value: number; text: string; column: number } | { kind: "operator"; op: Operator; column: number } | { kind: "end"; column: number };

// Models often write × and ÷; ** is the other common spelling of power.
const OPERATOR_ALIASES: Record<string, Operator> = { "×": "*", "÷": "/", "**": "^" };

const NUMBER = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/;

class Failure extends Error {
  constructor(
    message: string,
    readonly column: number,
  ) {
    super(message);
  }
}

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const ch = source[i] as string;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    const column = i + 1;
    const number = NUMBER.exec(source.slice(i));
    if (number) {
      tokens.push({ kind: "number", value: Number(number[0]), text: number[0], column });
      i += number[0].length;
      continue;
    }
    const alias = source.startsWith("**", i) ? "**" : ch;
    const op = OPERATOR_ALIASES[alias] ?? (("+-*/^()".includes(ch) ? ch : undefined) as Operator | undefined);
    if (op === undefined) throw new Failure(`unexpected character '${ch}'`, column);
    tokens.push({ kind: "operator", op, column });
    i += alias.length;
  }
  tokens.push({ kind: "end", column: source.length + 1 });
  return tokens;
}

function describe(token: Token): string {
  if (token.kind === "end") return "end of expression";
  if (token.kind === "number") return `number ${token.text}`;
  return `'${token.op}'`;
}

function finite(value: number, column: number, what: string): number {
  if (!Number.isFinite(value)) throw new Failure(`${what} is not a finite number`, column);
  return value;
}

class Evaluator {
  private index = 0;
  private depth = 0;

  constructor(private readonly tokens: Token[]) {}

  run(): number {
    if (this.peek().kind === "end") throw new Failure("empty expression", 1);
    const value = this.sum();
    const rest = this.peek();
    if (rest.kind !== "end") throw new Failure(`unexpected ${describe(rest)}`, rest.column);
    return value;
  }

  private peek(): Token {
    // The tokenizer always ends the list with an "end" token, and parsing never consumes it.
    return this.tokens[this.index] as Token;
  }

  private takeOperator(...ops: Operator[]): (Token & { kind: "operator" }) | undefined {
    const token = this.peek();
    if (token.kind === "operator" && ops.includes(token.op)) {
      this.index++;
      return token;
    }
    return undefined;
  }

  private sum(): number {
    let value = this.product();
    for (let op = this.takeOperator("+", "-"); op; op = this.takeOperator("+", "-")) {
      const right = this.product();
      value = finite(op.op === "+" ? value + right : value - right, op.column, `result of '${op.op}'`);
    }
    return value;
  }

  private product(): number {
    let value = this.unary();
    for (let op = this.takeOperator("*", "/"); op; op = this.takeOperator("*", "/")) {
      const right = this.unary();
      if (op.op === "/" && right === 0) throw new Failure("division by zero", op.column);
      value = finite(op.op === "*" ? value * right : value / right, op.column, `result of '${op.op}'`);
    }
    return value;
  }

  private unary(): number {
    const sign = this.takeOperator("-", "+");
    if (!sign) return this.power();
    return this.nested(sign.column, () => (sign.op === "-" ? -this.unary() : this.unary()));
  }

  private power(): number {
    const base = this.primary();
    const op = this.takeOperator("^");
    if (!op) return base;
    // The exponent goes through unary, which recurses into power: right-associative.
    const exponent = this.nested(op.column, () => this.unary());
    return finite(base ** exponent, op.column, `result of '^'`);
  }

  private primary(): number {
    const token = this.peek();
    if (token.kind === "number") {
      this.index++;
      return finite(token.value, token.column, `number ${token.text}`);
    }
    const open = this.takeOperator("(");
    if (open) {
      const value = this.nested(open.column, () => this.sum());
      if (!this.takeOperator(")")) {
        const found = this.peek();
        throw new Failure(`expected ')' to close '(' at column ${open.column}, found ${describe(found)}`, found.column);
      }
      return value;
    }
    throw new Failure(`expected a number or '(', found ${describe(token)}`, token.column);
  }

  private nested(column: number, parse: () => number): number {
    if (++this.depth > MAX_DEPTH) throw new Failure(`expression nested more than ${MAX_DEPTH} levels deep`, column);
    try {
      return parse();
    } finally {
      this.depth--;
    }
  }
}

/** Evaluates one arithmetic expression; failures are values naming what was wrong and where. */
export function evaluateExpression(source: string): EvaluationResult {
  try {
    return { ok: true, value: new Evaluator(tokenize(source)).run() };
  } catch (error) {
    if (error instanceof Failure) return { ok: false, error: { message: error.message, column: error.column } };
    throw error;
  }
}
