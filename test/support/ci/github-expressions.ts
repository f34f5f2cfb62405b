// GitHub Actions' `${{ … }}` expressions, as much of them as the templates use: literals,
// contexts (`github.event.pull_request.number`, `steps.plan.outputs.exitcode`), `!`, `==`, `!=`,
// `&&`, `||`, parentheses and the functions below. Anything else fails the test naming it, so a
// template never leans on an expression the harness would get wrong.
export type Value = null | boolean | number | string | Value[] | { [key: string]: Value };
export type Contexts = Record<string, Value>;

export interface StatusFunctions {
  success(): boolean;
  failure(): boolean;
}

const tokenPattern = /\s*(?:(\d+(?:\.\d+)?)|'((?:[^']|'')*)'|(==|!=|<=|>=|&&|\|\||[!<>().,[\]*])|([A-Za-z_][A-Za-z0-9_-]*))/y;

function tokenize(text: string): string[] {
  const tokens: string[] = [];
  tokenPattern.lastIndex = 0;
  while (tokenPattern.lastIndex < text.trimEnd().length) {
    const start = tokenPattern.lastIndex;
    const match = tokenPattern.exec(text);
    if (!match) throw new Error(`the harness cannot read the expression \`${text}\` at ${start}`);
    tokens.push(match[1] !== undefined ? `#${match[1]}` : match[2] !== undefined ? `'${match[2].replaceAll("''", "'")}` : (match[3] ?? match[4] ?? ''));
  }
  return tokens;
}

export function truthy(value: Value): boolean {
  return !(value === null || value === false || value === 0 || value === '');
}

/** GitHub's loose equality: strings case-insensitively; values of different types as numbers (null and '' are 0). */
function equal(a: Value, b: Value): boolean {
  if (typeof a === 'string' && typeof b === 'string') return a.toLowerCase() === b.toLowerCase();
  const kind = (v: Value) => (v === null ? 'null' : typeof v);
  if (kind(a) !== kind(b)) return asNumber(a) === asNumber(b);
  return a === b;
}

function asNumber(value: Value): number {
  if (value === null) return 0;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string') return value.trim() === '' ? 0 : Number(value);
  return typeof value === 'number' ? value : Number.NaN;
}

export function asText(value: Value): string {
  if (value === null) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

class Parser {
  private at = 0;
  constructor(
    private readonly tokens: string[],
    private readonly contexts: Contexts,
    private readonly status: StatusFunctions,
    private readonly source: string,
  ) {}

  parse(): Value {
    const value = this.or();
    if (this.at < this.tokens.length) this.fail(`unexpected \`${this.tokens[this.at]}\``);
    return value;
  }

  private fail(why: string): never {
    throw new Error(`the harness cannot evaluate \`${this.source}\`: ${why}`);
  }

  private peek(): string | undefined {
    return this.tokens[this.at];
  }

  private take(expected?: string): string {
    const token = this.tokens[this.at++];
    if (token === undefined || (expected !== undefined && token !== expected)) this.fail(`expected ${expected ?? 'more'}`);
    return token;
  }

  private or(): Value {
    let left = this.and();
    while (this.peek() === '||') {
      this.take();
      const right = this.and();
      left = truthy(left) ? left : right;
    }
    return left;
  }

  private and(): Value {
    let left = this.comparison();
    while (this.peek() === '&&') {
      this.take();
      const right = this.comparison();
      left = truthy(left) ? right : left;
    }
    return left;
  }

  private comparison(): Value {
    const left = this.unary();
    const op = this.peek();
    if (op !== '==' && op !== '!=') return left;
    this.take();
    const same = equal(left, this.unary());
    return op === '==' ? same : !same;
  }

  private unary(): Value {
    if (this.peek() === '!') {
      this.take();
      return !truthy(this.unary());
    }
    return this.primary();
  }

  private primary(): Value {
    const token = this.take();
    if (token === '(') {
      const value = this.or();
      this.take(')');
      return value;
    }
    if (token.startsWith('#')) return Number(token.slice(1));
    if (token.startsWith("'")) return token.slice(1);
    if (token === 'true' || token === 'false') return token === 'true';
    if (token === 'null') return null;
    if (this.peek() === '(') return this.call(token);
    let value: Value = token in this.contexts ? (this.contexts[token] ?? null) : this.fail(`no context named ${token}`);
    for (;;) {
      if (this.peek() === '.') {
        this.take();
        value = member(value, this.take());
      } else if (this.peek() === '[') {
        this.take();
        value = member(value, asText(this.or()));
        this.take(']');
      } else return value;
    }
  }

  private call(name: string): Value {
    this.take('(');
    const args: Value[] = [];
    while (this.peek() !== ')') {
      args.push(this.or());
      if (this.peek() === ',') this.take();
    }
    this.take(')');
    const [first = null, second = null] = args;
    switch (name) {
      case 'success':
        return this.status.success();
      case 'failure':
        return this.status.failure();
      case 'always':
        return true;
      case 'cancelled':
        return false;
      case 'fromJSON':
        return JSON.parse(asText(first)) as Value;
      case 'toJSON':
        return JSON.stringify(first, null, 2);
      case 'startsWith':
        return asText(first).toLowerCase().startsWith(asText(second).toLowerCase());
      case 'contains':
        return Array.isArray(first) ? first.some((item) => equal(item, second)) : asText(first).toLowerCase().includes(asText(second).toLowerCase());
      case 'join':
        return Array.isArray(first) ? first.map(asText).join(second === null ? ',' : asText(second)) : asText(first);
      default:
        return this.fail(`the function ${name}() is not emulated`);
    }
  }
}

function member(value: Value, key: string): Value {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  return value[key] ?? null;
}

export function evaluate(expression: string, contexts: Contexts, status: StatusFunctions = { success: () => true, failure: () => false }): Value {
  return new Parser(tokenize(expression), contexts, status, expression).parse();
}

/** A string with `${{ … }}` parts replaced by their values' text. */
export function interpolate(text: string, contexts: Contexts, status?: StatusFunctions): string {
  return text.replace(/\$\{\{(.*?)\}\}/gs, (_, expression: string) => asText(evaluate(expression, contexts, status)));
}

/** A value that is exactly one `${{ … }}` keeps its type (a matrix from fromJSON); others are interpolated. */
export function interpolateValue(text: string, contexts: Contexts): Value {
  const whole = /^\s*\$\{\{(.*)\}\}\s*$/s.exec(text);
  return whole?.[1] !== undefined && !whole[1].includes('}}') ? evaluate(whole[1], contexts) : interpolate(text, contexts);
}

/** An `if:` condition: with or without `${{ }}`; a condition with no status function means `success() && (…)`. */
export function condition(text: string | boolean | undefined, contexts: Contexts, status: StatusFunctions): boolean {
  if (text === undefined) return status.success();
  if (typeof text === 'boolean') return text;
  const bare = /^\s*\$\{\{(.*)\}\}\s*$/s.exec(text)?.[1] ?? text;
  const value = truthy(evaluate(bare, contexts, status));
  return /\b(success|failure|always|cancelled)\(\)/.test(bare) ? value : status.success() && value;
}
