/**
 * Incremental bracket and string tracker for one JSON value fed a character at a time.
 * It finds where a value ends without parsing it, so the text of a streamed tool call is
 * scanned once and parsed once (JSON.parse or jsonrepair) when it is complete.
 */

const QUOTE = 34;
const APOSTROPHE = 39;
const BACKSLASH = 92;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;

export class JsonScanner {
  /** The quote that opened the current string, 0 outside strings. Single quotes too: models write Python-style dicts that jsonrepair fixes. */
  inString = 0;
  private escaped = false;
  private readonly stack: number[] = [];

  reset(): void {
    this.inString = 0;
    this.escaped = false;
    this.stack.length = 0;
  }

  /** Feeds one UTF-16 code unit; true when it closed the outermost value. */
  step(c: number): boolean {
    if (this.inString !== 0) {
      if (this.escaped) this.escaped = false;
      else if (c === BACKSLASH) this.escaped = true;
      else if (c === this.inString) this.inString = 0;
      return false;
    }
    switch (c) {
      case QUOTE:
      case APOSTROPHE:
        this.inString = c;
        return false;
      case OPEN_BRACE:
      case OPEN_BRACKET:
        this.stack.push(c);
        return false;
      case CLOSE_BRACE:
        return this.close(OPEN_BRACE);
      case CLOSE_BRACKET:
        return this.close(OPEN_BRACKET);
      default:
        return false;
    }
  }

  /**
   * A closer that does not match the innermost opener closes everything up to its own
   * opener (a model that forgot a `}` before `]`); jsonrepair later fixes the text.
   */
  private close(opener: number): boolean {
    const at = this.stack.lastIndexOf(opener);
    if (at < 0) return false;
    this.stack.length = at;
    return at === 0;
  }
}
