/**
 * A small arithmetic evaluator for the calculator tool: numbers, `+ - * / % ^`, parentheses and
 * unary minus, by recursive descent. Never `eval`: the expression comes from a model.
 * @module
 */

/**
 * The value of `expression`; throws an `Error` saying what is wrong with it.
 * @example
 * calculate('2 + 3 * (4 - 1)'); // 11
 * calculate('2 ^ 10');          // 1024
 */
export function calculate(expression: string): number {
  const parser = new Parser(expression);
  const value = parser.expression();
  parser.expectEnd();
  if (!Number.isFinite(value)) throw new Error('the result is not a finite number');
  return value;
}

class Parser {
  #at = 0;
  constructor(private readonly text: string) {}

  // expression := term (('+' | '-') term)*
  expression(): number {
    let value = this.term();
    for (let op = this.peek(); op === '+' || op === '-'; op = this.peek()) {
      this.#at += 1;
      const right = this.term();
      value = op === '+' ? value + right : value - right;
    }
    return value;
  }

  // term := power (('*' | '/' | '%') power)*
  term(): number {
    let value = this.power();
    for (let op = this.peek(); op === '*' || op === '/' || op === '%'; op = this.peek()) {
      this.#at += 1;
      const right = this.power();
      if (op !== '*' && right === 0) throw new Error('division by zero');
      value = op === '*' ? value * right : op === '/' ? value / right : value % right;
    }
    return value;
  }

  // power := unary ('^' power)?   (right-associative)
  power(): number {
    const base = this.unary();
    if (this.peek() !== '^') return base;
    this.#at += 1;
    return base ** this.power();
  }

  // unary := '-' unary | '+' unary | primary
  unary(): number {
    const op = this.peek();
    if (op === '-' || op === '+') {
      this.#at += 1;
      const value = this.unary();
      return op === '-' ? -value : value;
    }
    return this.primary();
  }

  // primary := number | '(' expression ')'
  primary(): number {
    if (this.peek() === '(') {
      this.#at += 1;
      const value = this.expression();
      if (this.peek() !== ')') throw new Error(`expected ')' at position ${this.#at + 1}`);
      this.#at += 1;
      return value;
    }
    const match = /^\d+(?:\.\d+)?|^\.\d+/.exec(this.text.slice(this.#at));
    if (!match) {
      const found = this.peek();
      throw new Error(
        found === undefined
          ? 'the expression ends too early'
          : `unexpected '${found}' at position ${this.#at + 1}`,
      );
    }
    this.#at += match[0].length;
    this.skipSpaces();
    return Number(match[0]);
  }

  expectEnd(): void {
    const found = this.peek();
    if (found !== undefined) throw new Error(`unexpected '${found}' at position ${this.#at + 1}`);
  }

  /** The next character that is not a space, or `undefined` at the end. */
  peek(): string | undefined {
    this.skipSpaces();
    return this.text[this.#at];
  }

  skipSpaces(): void {
    while (this.text[this.#at] === ' ' || this.text[this.#at] === '\t') this.#at += 1;
  }
}
