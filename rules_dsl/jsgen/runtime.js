// rules-dsl JavaScript runtime: the values and operations of the rules language, shared by every
// generated book module (rules_dsl/jsgen).  Hand-written, no dependencies, an ES module.
//
// It mirrors the Python back end (rules_dsl/language/values.py, builtins.py, dice.py, compiler/): every
// number is exact.  Whole numbers are BigInt (Python ints have no size limit, and an `int`
// parameter or a product of costs can pass 2**53, where a JS number silently rounds); a fraction
// is a `Frac` of two BigInts in lowest terms with a positive denominator, and a fraction whose
// denominator is 1 is always the BigInt itself (as values.number does).  Booleans are JS booleans,
// text is a JS string, an enum member or custom die face a `Sym` (equal to the text of its name,
// as Python's str subclass is), `ABSENT` the one absent value, lists are arrays, `a..b` a `Range`,
// sets a `PySet`, table rows with several values a `Record` (a Map inside: a field named
// `__proto__` or `constructor` is only data).  Errors a user can cause are `RulesError`s with
// the kind Python gives them (InputError naming the parameter, NotFound, Error) and the same words.
// `PyRandom` is CPython's Mersenne Twister and `choice`, so a seed rolls what `rules call --seed` rolls.

export const MAX_CALL_DEPTH = 50;
export const MAX_STEPS = 100000;
export const MAX_RANGE = 1000000n;
export const MAX_DICE = 1000n;
export const MAX_CHAIN = 10000;

// ------------------------------------------------------------------ values
class Absent { toString() { return "absent"; } }
export const ABSENT = Object.freeze(new Absent());

export class Sym {
  constructor(name, owner) { this.name = name; this.owner = owner; Object.freeze(this); }
  toString() { return this.name; }
}

export class Frac {
  constructor(n, d) { this.n = n; this.d = d; Object.freeze(this); }
  toString() { return `${this.n}/${this.d}`; }
}

export class Range {   // Python's range(start, stop): start..stop-1
  constructor(start, stop) { this.start = start; this.stop = stop; Object.freeze(this); }
  get length() { return this.stop > this.start ? Number(this.stop - this.start) : 0; }
  toArray() { const out = []; for (let i = this.start; i < this.stop; i++) out.push(i); return out; }
  has(x) {
    if (isS(x)) {   // Python's range.__contains__ of a non-int: each item compared in turn (== on the stand-in)
      for (let i = this.start; i < this.stop; i++) if (x.cmp("==", i)) return true;
      return false;
    }
    if (typeof x === "boolean") x = x ? 1n : 0n;
    return typeof x === "bigint" && x >= this.start && x < this.stop;
  }
}

export class PySet {    // a frozenset: items distinct by Python equality, in first-seen order
  constructor(items) {
    const out = [];
    for (const x of items) {
      if (!hashable(x)) throw new RulesError("Error", `cannot evaluate: TypeError: unhashable type: '${pyTypeName(x)}'`);
      if (!out.some((y) => pyEq(x, y))) out.push(x);
    }
    this.items = out; Object.freeze(this);
  }
  has(x) { return hashable(x) && this.items.some((y) => pyEq(x, y)); }
}

export class Record {
  constructor(entries) { this.fields = new Map(entries); Object.freeze(this); }
}

// The stand-in protocol (rules_dsl/language/symbolic.py's twin).  The exact-odds engine (odds.mjs) hands a
// mechanic one *stand-in* for a class of die faces it has not told apart (or for "k or more"
// successes of a chain).  Every operation below that meets one asks it instead of reading it:
// `sample()` (a value of the type it covers, for type checks), `observe(fn, key)` (fn of what it
// covers, when the same for all), `byValue()` (its value: the class is split by value), `arith(op,
// other, swapped)`, `cmp(op, other)` (Python's comparison, other on the right), `truth()`, `unary(op)`.
// A use a class cannot answer splits it and throws to the engine (a plain object, not an Error:
// evaluation code never catches it).  A `WatchedList` is a pool whose order the engine must hear
// of being read (indexed or compared).  Plain calls pay one `instanceof` test.
export class Symbolic {}
const isS = (x) => x instanceof Symbolic;
const byValue = (x) => (x instanceof Symbolic ? x.byValue() : x);
export class WatchedList extends Array {
  static get [Symbol.species]() { return Array; }
  watch() {}
}
const FLIP = { "<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!=" };

export class EnumNS {   // `Outcome` as a value: its members, in order
  constructor(name, members) { this.name = name; this.members = members; Object.freeze(this); }
}

export class Die {
  constructor(name, faces, custom, describe) {
    this.name = name; this.faces = faces; this.custom = custom; this.describe = describe; Object.freeze(this);
  }
  face(value, rollName) {
    if (this.custom) {
      if ((typeof value === "string" || value instanceof Sym)) {
        const name = String(value);
        const f = this.faces.find((x) => x.name === name);
        if (f) return f;
      }
    } else if (typeof value === "bigint" && this.faces.some((f) => f === value)) {
      return value;
    }
    throw new RulesError("Error", `roll '${rollName}': ${literal(value)} is not a face of ${this.describe}`);
  }
}

export class Builtin {  // a built-in named as a value (not called): Python holds the function
  constructor(name) { this.name = name; Object.freeze(this); }
}

export class RulesError extends Error {
  // kind: "InputError" (param, mechanic), "NotFound" (name), or "Error"
  constructor(kind, message, extra) {
    super(message);
    this.kind = kind;
    Object.assign(this, extra || {});
  }
}

function fail(span, msg) { throw new RulesError("Error", `${span}: ${msg}`); }

export function inputError(mechanic, param, value, allowed) {
  // errors.InputError's words: the value as the book writes values (values.literal)
  const req = "a value is required";
  const said = value !== undefined && value !== null ? `got ${literal(value)}; allowed: ${allowed}`
    : allowed.startsWith(req) ? ("needs a value " + allowed.slice(req.length).trim()).trim()
      : `got nothing; allowed: ${allowed}`;
  return new RulesError("InputError", `${mechanic}: parameter '${param}' ${said}`, { mechanic, param });
}

function notFound(what, name, where) {
  return new RulesError("NotFound", `unknown ${what} '${name}'` + (where ? ` in ${where}` : ""), { name });
}

// ------------------------------------------------------------------ numbers
const isInt = (x) => typeof x === "bigint";
const isNum = (x) => typeof x === "bigint" || x instanceof Frac;

function gcd(a, b) { a = a < 0n ? -a : a; b = b < 0n ? -b : b; while (b) { [a, b] = [b, a % b]; } return a; }

export function frac(n, d) {
  if (d === 0n) throw new RulesError("Error", "division by zero");
  if (d < 0n) { n = -n; d = -d; }
  const g = gcd(n, d);
  if (g > 1n) { n /= g; d /= g; }
  return d === 1n ? n : new Frac(n, d);
}
const nd = (x) => (x instanceof Frac ? [x.n, x.d] : [x, 1n]);

function floorDiv(a, b) { const q = a / b; return (a % b !== 0n && ((a < 0n) !== (b < 0n))) ? q - 1n : q; }
function floorOf(x) { return x instanceof Frac ? floorDiv(x.n, x.d) : x; }
function ceilOf(x) { return x instanceof Frac ? -floorDiv(-x.n, x.d) : x; }

function numCmp(a, b) {   // a, b: bigint, Frac or boolean
  const [an, ad] = nd(typeof a === "boolean" ? (a ? 1n : 0n) : a);
  const [bn, bd] = nd(typeof b === "boolean" ? (b ? 1n : 0n) : b);
  const l = an * bd, r = bn * ad;
  return l < r ? -1 : l > r ? 1 : 0;
}

function arith(op, a, b) {
  if (isInt(a) && isInt(b)) {
    if (op === "+") return a + b;
    if (op === "-") return a - b;
    if (op === "*") return a * b;
  }
  const [an, ad] = nd(a), [bn, bd] = nd(b);
  if (op === "+") return frac(an * bd + bn * ad, ad * bd);
  if (op === "-") return frac(an * bd - bn * ad, ad * bd);
  if (op === "*") return frac(an * bn, ad * bd);
  if (op === "/") return frac(an * bd, ad * bn);
  // '%': Python's floor modulo, a - b * floor(a / b)
  if (isInt(a) && isInt(b)) { const m = a % b; return (m !== 0n && ((m < 0n) !== (b < 0n))) ? m + b : m; }
  const q = floorDiv(an * bd, ad * bn);
  return arith("-", a, arith("*", b, q));
}

function needNum(span, v, what) {
  if (isS(v)) { if (isNum(v.sample())) return v; v = v.byValue(); }
  if (v === ABSENT) fail(span, `${what}: the value is absent in the source rulebook`);
  if (!isNum(v)) fail(span, `${what}: expected a number, got ${show(v)}`);
  return v;
}

export function binop(span, op, a, b) {
  if (op === "+" && Array.isArray(a) && Array.isArray(b)) return a.concat(b);
  needNum(span, a, `'${op}'`); needNum(span, b, `'${op}'`);
  if (isS(a) || isS(b)) {
    if ((op === "/" || op === "%") && pyEq(b, 0n)) fail(span, `division by zero in '${op}'`);
    if (op === "/") return arith("/", byValue(a), byValue(b));   // Python: Fraction(x) reads its value
    return isS(a) ? a.arith(op, b, false) : b.arith(op, a, true);
  }
  if ((op === "/" || op === "%") && b === 0n) fail(span, `division by zero in '${op}'`);
  return arith(op, a, b);
}

export function neg(span, a) { needNum(span, a, "'-'"); return isS(a) ? a.unary("neg") : arith("-", 0n, a); }

export function order(span, op, a, b) {
  needNum(span, a, `'${op}'`); needNum(span, b, `'${op}'`);
  if (isS(a)) return a.cmp(op, b);
  if (isS(b)) return b.cmp(FLIP[op], a);
  const c = numCmp(a, b);
  return op === "<" ? c < 0 : op === "<=" ? c <= 0 : op === ">" ? c > 0 : c >= 0;
}

// ------------------------------------------------------------------ Python equality, truth, order, repr
const isStr = (x) => typeof x === "string" || x instanceof Sym;
const isNumeric = (x) => typeof x === "boolean" || isNum(x);

export function pyEq(a, b) {
  if (isS(a)) return a.cmp("==", b);     // before the identity test: one stand-in may cover two dice
  if (isS(b)) return b.cmp("==", a);
  if (a === b) return true;
  if (isNumeric(a) && isNumeric(b)) return numCmp(a, b) === 0;
  if (isStr(a) && isStr(b)) return String(a) === String(b);
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a instanceof WatchedList) a.watch();
    if (b instanceof WatchedList) b.watch();
    return a.length === b.length && a.every((x, i) => x === b[i] || pyEq(x, b[i]));   // items: Python's identity first
  }
  if (a instanceof Range && b instanceof Range) {
    const la = a.length, lb = b.length;
    return la === lb && (la === 0 || a.start === b.start);
  }
  if (a instanceof PySet && b instanceof PySet) return a.items.length === b.items.length && a.items.every((x) => b.has(x));
  if (a instanceof Record && b instanceof Record) {
    if (a.fields.size !== b.fields.size) return false;
    for (const [k, v] of a.fields) if (!b.fields.has(k) || !pyEq(v, b.fields.get(k))) return false;
    return true;
  }
  return false;
}

function hashable(x) { return !Array.isArray(x); }

export function truthy(v) {
  if (typeof v === "boolean") return v;
  if (isS(v)) return v.truth();
  if (typeof v === "bigint") return v !== 0n;
  if (typeof v === "string") return v.length > 0;
  if (v === ABSENT) return false;
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof Range) return v.length > 0;
  if (v instanceof PySet) return v.items.length > 0;
  return true;
}

class Unorderable extends Error {}

function pyLt(a, b) {   // Python's a < b over the values sorted/max/min meet; Unorderable otherwise
  if (isS(a)) return a.cmp("<", b);
  if (isS(b)) return b.cmp(">", a);
  if (isNumeric(a) && isNumeric(b)) return numCmp(a, b) < 0;
  if (isStr(a) && isStr(b)) return String(a) < String(b);
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < a.length && i < b.length; i++) {
      if (!pyEq(a[i], b[i])) return pyLt(a[i], b[i]);
    }
    return a.length < b.length;
  }
  throw new Unorderable();
}

// with stand-ins: Python's own comparisons, in CPython's order (rules_dsl/language/symbolic.py)
function cmpAny(a, op, b) {
  if (isS(a)) return a.cmp(op, b);
  if (isS(b)) return b.cmp(FLIP[op], a);
  return op === "<" ? pyLt(a, b) : pyLt(b, a);
}
function plus(a, b) {   // Python's a + b inside sum(): 0 + x, then the running total + x
  if (isS(a)) return a.arith("+", b, false);
  if (isS(b)) return b.arith("+", a, true);
  return arith("+", a, b);
}
// CPython's list.sort for lists holding stand-ins: the same comparisons in the same order (a run,
// then binary insertion; longer lists are merged stably), so a pool is split as Python splits it
function timsorted(items, reverse) {
  const a = items.slice();
  if (reverse) a.reverse();
  const lt = (x, y) => pyLt(x, y);
  const n = a.length;
  if (n > 1 && n < 64) {
    let run = 2;
    if (lt(a[1], a[0])) {
      while (run < n && lt(a[run], a[run - 1])) run++;
      a.splice(0, run, ...a.slice(0, run).reverse());
    } else {
      while (run < n && !lt(a[run], a[run - 1])) run++;
    }
    for (let start = run; start < n; start++) {
      const pivot = a[start];
      let l = 0, r = start;
      do { const p = l + ((r - l) >> 1); if (lt(pivot, a[p])) r = p; else l = p + 1; } while (l < r);
      a.splice(start, 1);
      a.splice(l, 0, pivot);
    }
  } else if (n >= 64) {
    const merge = (xs) => {
      if (xs.length < 2) return xs;
      const m = xs.length >> 1, L = merge(xs.slice(0, m)), R = merge(xs.slice(m)), out = [];
      let i = 0, j = 0;
      while (i < L.length && j < R.length) out.push(lt(R[j], L[i]) ? R[j++] : L[i++]);
      return out.concat(L.slice(i), R.slice(j));
    };
    a.splice(0, n, ...merge(a));
  }
  if (reverse) a.reverse();
  return a;
}

function pySorted(items, reverse) {
  if (items.some(isS)) return timsorted(items, reverse);
  const out = items.slice();
  // Python sorts with < only and keeps equal items in order, also with reverse=True
  out.sort(reverse ? (x, y) => (pyLt(y, x) ? -1 : pyLt(x, y) ? 1 : 0) : (x, y) => (pyLt(x, y) ? -1 : pyLt(y, x) ? 1 : 0));
  return out;
}

function pyTypeName(x) {
  if (Array.isArray(x)) return "list";
  return typeof x;
}

const NONPRINTABLE = /^[\p{C}\p{Z}]$/u;

function strRepr(s) {
  const q = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = q;
  for (const ch of s) {
    const c = ch.codePointAt(0);
    if (ch === "\\") out += "\\\\";
    else if (ch === q) out += "\\" + q;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (ch !== " " && NONPRINTABLE.test(ch)) {   // str.isprintable: categories C* and Z* but the space
      out += c <= 0xff ? "\\x" + c.toString(16).padStart(2, "0")
        : c <= 0xffff ? "\\u" + c.toString(16).padStart(4, "0") : "\\U" + c.toString(16).padStart(8, "0");
    } else out += ch;
  }
  return out + q;
}

export function pyRepr(v) {   // Python's repr() of a value: what an InputError shows
  if (isS(v)) return pyRepr(v.byValue());
  if (v === undefined || v === null) return "None";
  if (typeof v === "boolean") return v ? "True" : "False";
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "string") return strRepr(v);
  if (v instanceof Sym || v instanceof Frac) return v.toString();
  if (v === ABSENT) return "absent";
  if (Array.isArray(v)) return "[" + v.map(pyRepr).join(", ") + "]";
  if (v instanceof Range) return `range(${v.start}, ${v.stop})`;
  if (v instanceof PySet) return v.items.length ? "frozenset({" + v.items.map(pyRepr).join(", ") + "})" : "frozenset()";
  if (v instanceof Record) return "(" + [...v.fields].map(([k, x]) => `${k}=${pyRepr(x)}`).join(", ") + ")";
  if (v instanceof EnumNS) return `<${v.name}: ${v.members.map(String).join(", ")}>`;
  if (v instanceof Mechanic) return `<mechanic ${v.book.id}:${v.name}>`;
  if (v instanceof Table) return `<table ${v.book.id}:${v.name} (${v.entries.length} entries)>`;
  return String(v);
}

export function show(v) {     // values.show: how a value is printed to a person
  if (isS(v)) return show(v.byValue());
  if (v === ABSENT) return "absent";
  if (typeof v === "boolean") return v ? "true" : "false";
  if (v instanceof Range) return `${v.start}..${v.stop - 1n}`;
  if (typeof v === "bigint" || v instanceof Frac || v instanceof Sym || typeof v === "string") return String(v);
  if (v instanceof Record) return "(" + [...v.fields].map(([k, x]) => `${k}=${show(x)}`).join(", ") + ")";
  if (Array.isArray(v)) return "[" + v.map(show).join(", ") + "]";
  if (v instanceof PySet) return "{" + v.items.map(show).sort(cpCompare).join(", ") + "}";
  return pyRepr(v);
}

function cpCompare(a, b) { return a < b ? -1 : a > b ? 1 : 0; }

export function literal(v) {  // values.literal: a value as the rules language writes it (what messages show)
  if (typeof v === "string") return '"' + v.replaceAll("\\", "\\\\").replaceAll('"', '\\"') + '"';
  if (Array.isArray(v)) return "[" + v.map(literal).join(", ") + "]";
  if (v instanceof PySet) return "{" + v.items.map(literal).sort(cpCompare).join(", ") + "}";
  if (v instanceof Record) return "(" + [...v.fields].map(([k, x]) => `${k}: ${literal(x)}`).join(", ") + ")";
  return show(v);
}

// ------------------------------------------------------------------ expressions
export function contains(span, container, item) {
  // a stand-in sees the test (rules_dsl/language/symbolic.py, rule 3); the container is its cache key
  if (isS(item)) return item.observe((v) => contains(span, container, v), container);
  if (isS(container)) container = container.byValue();
  if (container === ABSENT) fail(span, "'in': the collection is absent in the source rulebook");
  if (Array.isArray(container)) return container.some((x) => x === item || pyEq(x, item));
  if (container instanceof Range) return container.has(item);
  if (container instanceof PySet) return container.has(item);
  if (typeof container === "string" || container instanceof Sym) return isStr(item) ? String(container).includes(String(item)) : false;
  if (container instanceof EnumNS) return container.members.some((x) => pyEq(x, item));
  if (container instanceof Die) return container.faces.some((x) => pyEq(x, item));
  fail(span, `'in': cannot look inside ${show(container)}`);
}

function iterable(span, v) {
  if (v === ABSENT) fail(span, "cannot iterate: the collection is absent in the source rulebook");
  if (Array.isArray(v)) return v;
  if (v instanceof Range) return v.toArray();
  if (v instanceof PySet) return v.items.slice().sort((a, b) => cpCompare(pyRepr(a), pyRepr(b)));
  if (v instanceof EnumNS) return v.members;
  if (v instanceof Table) return v.rows();
  fail(span, `cannot iterate over ${show(v)}`);
}

export function comp(ctx, span, source, cond, elem) {
  const items = iterable(span, byValue(source));
  ctx.spend(items.length);
  const out = [];
  for (const x of items) if (cond === null || truthy(cond(x))) out.push(elem(x));
  return out;
}

export function range(span, a, b) {
  a = byValue(a); b = byValue(b);
  const ai = typeof a === "boolean" ? (a ? 1n : 0n) : a, bi = typeof b === "boolean" ? (b ? 1n : 0n) : b;
  if (!isInt(ai) || !isInt(bi)) fail(span, `a range needs whole numbers, got ${show(a)}..${show(b)}`);
  if (bi - ai >= MAX_RANGE) fail(span, `the range ${ai}..${bi} has more than 1,000,000 values`);
  return new Range(ai, bi + 1n);
}

export function setOf(values) {
  const out = [];
  for (const v of values) {
    if (v instanceof Range) out.push(...v.toArray());
    else if (Array.isArray(v)) out.push(...v.map(byValue));
    else if (v instanceof PySet) out.push(...v.items);
    else out.push(byValue(v));   // a set hashes its items: a stand-in by its value
  }
  return new PySet(out);
}

export function attr(span, o, name) {
  o = byValue(o);
  if (o instanceof Record) {
    if (o.fields.has(name)) return o.fields.get(name);
    fail(span, `the record has no field '${name}' (fields: ${[...o.fields.keys()].join(", ")})`);
  }
  fail(span, `cannot take '.${name}' of ${show(o)}`);
}

export function index(span, o, i) {
  if (o instanceof WatchedList) o.watch();
  i = byValue(i);
  const ii = typeof i === "boolean" ? (i ? 1n : 0n) : i;
  if (!Array.isArray(o) || !isInt(ii)) fail(span, `cannot index ${show(o)} with ${show(i)}`);
  const n = BigInt(o.length);
  if (!(-n <= ii && ii < n)) fail(span, `index ${ii} is outside the list of ${n} item(s) (the first is 0)`);
  return o[Number(ii < 0n ? ii + n : ii)];
}

export function requireFail(mechanic, message) { throw new RulesError("Error", `${mechanic}: ${message}`); }

// ------------------------------------------------------------------ built-ins
class BuiltinError extends Error {}
function bfail(msg) { throw new BuiltinError(msg); }

function bnum(x, fn) {
  if (isS(x)) { if (isNum(x.sample())) return x; x = x.byValue(); }
  if (x === ABSENT) bfail(`${fn}: the value is absent in the source rulebook`);
  if (!isNum(x)) bfail(`${fn}: expected a number, got ${literal(x)}`);
  return x;
}

function items(xs, fn) {
  xs = byValue(xs);
  if (xs === ABSENT) bfail(`${fn}: the value is absent in the source rulebook`);
  if (Array.isArray(xs)) return xs;
  if (xs instanceof Range) return xs.toArray();
  if (xs instanceof PySet) return xs.items;
  bfail(`${fn}: expected a list, got ${literal(xs)}`);
}

function pyInt(k) {
  k = byValue(k);
  if (typeof k === "boolean") return k ? 1n : 0n;
  if (isInt(k)) return k;
  if (k instanceof Frac) return k.n / k.d;   // int() truncates toward zero
  throw new Unorderable();
}

function extreme(args, fn, pickGreater) {
  const xs = args.length === 1 ? items(args[0], fn) : args;
  if (!xs.length) bfail(`${fn}: no values`);
  if (xs.some(isS)) {
    // rules_dsl/language/symbolic.py rule 4: among copies of one stand-in only the distinct objects are
    // compared, as Python's max does (`item > best`, item on the left)
    const seen = [...new Set(xs)];
    let best = seen[0];
    for (const x of seen.slice(1)) if (cmpAny(x, pickGreater ? ">" : "<", best)) best = x;
    return best;
  }
  let best = xs[0];
  for (const x of xs.slice(1)) if (pickGreater ? pyLt(best, x) : pyLt(x, best)) best = x;
  return best;
}

function roundMode(x, mode) {
  x = byValue(bnum(x, "round"));   // Python: Fraction(x) reads a stand-in's value
  if (mode === "up") return ceilOf(x);
  if (mode === "down") return floorOf(x);
  const fl = floorOf(x);
  const c = numCmp(arith("-", x, fl), new Frac(1n, 2n));
  if (c > 0) return fl + 1n;
  if (c < 0) return fl;
  if (mode === "half_up") return fl + 1n;
  if (mode === "half_down") return fl;
  return arith("%", fl, 2n) === 0n ? fl : fl + 1n;   // half_even
}

const BUILTINS = {
  count: (xs) => BigInt(items(xs, "count").filter((x) => x !== false && x !== ABSENT).length),
  sum: (xs) => items(xs, "sum").reduce((a, x) => plus(a, bnum(x, "sum")), 0n),
  max: (...xs) => extreme(xs, "max", true),
  min: (...xs) => extreme(xs, "min", false),
  len: (xs) => BigInt(items(xs, "len").length),
  any: (xs) => items(xs, "any").some(truthy),
  all: (xs) => items(xs, "all").every(truthy),
  abs: (x) => { bnum(x, "abs"); if (isS(x)) return x.unary("abs"); return numCmp(x, 0n) < 0 ? arith("-", 0n, x) : x; },
  floor: (x) => { bnum(x, "floor"); return isS(x) ? x.unary("floor") : floorOf(x); },
  ceil: (x) => { bnum(x, "ceil"); return isS(x) ? x.unary("ceil") : ceilOf(x); },
  clamp: (x, lo, hi) => {
    const m = pyLt(bnum(x, "clamp"), hi) ? x : hi;   // min(hi, x)
    return pyLt(lo, m) ? m : lo;                     // max(lo, m)
  },
  even: (x) => (isS(bnum(x, "even")) ? pyEq(x.arith("%", 2n, false), 0n) : arith("%", x, 2n) === 0n),
  odd: (x) => (isS(bnum(x, "odd")) ? pyEq(x.arith("%", 2n, false), 1n) : arith("%", x, 2n) === 1n),
  sorted: (xs) => pySorted(items(xs, "sorted"), false),
  highest: (xs, k = 1n) => { const s = pySorted(items(xs, "highest"), true); return s.slice(0, Number(pyInt(k))); },
  lowest: (xs, k = 1n) => { const s = pySorted(items(xs, "lowest"), false); return s.slice(0, Number(pyInt(k))); },
  rows: (t) => { if (!(t instanceof Table)) bfail("rows: expected a table"); return t.rows(); },
  is_absent: (x) => x === ABSENT,
  or_else: (x, d) => (x === ABSENT ? d : x),
  field: (rec, name) => {
    rec = byValue(rec);
    if (!(rec instanceof Record)) bfail(`field: expected a record, got ${literal(rec)}`);
    if (!rec.fields.has(String(name))) bfail(`field: the record has no field ${pyRepr(name)}`);
    return rec.fields.get(String(name));
  },
  covers: (key, x) => (byValue(key) instanceof Range ? byValue(key).has(x) : pyEq(key, x)),
  low: (key) => (key instanceof Range ? key.start : key),
  high: (key) => (key instanceof Range ? key.stop - 1n : key),
};

export const BUILTIN_NAMES = Object.freeze(Object.keys(BUILTINS).concat(["round"]));

// round(x, mode): Python evaluates x inside the guard, so an error in x gets round's span too
export function round(span, thunk, mode) {
  try {
    return roundMode(thunk(), mode);
  } catch (e) {
    if (e instanceof BuiltinError || (e instanceof RulesError && e.kind === "Error")) fail(span, e.message);
    throw e;
  }
}

export function builtin(span, name, args) {
  try {
    return BUILTINS[name](...args);
  } catch (e) {
    if (e instanceof BuiltinError) fail(span, e.message);
    if (e instanceof Unorderable) fail(span, `${name}() cannot take ${args.map(show).join(", ")}`);
    throw e;
  }
}

// ------------------------------------------------------------------ Python's random (MT19937 + choice)
export class PyRandom {
  constructor(seed) {
    this.mt = new Uint32Array(624); this.mti = 625;
    let n = BigInt(seed); if (n < 0n) n = -n;
    const key = [];
    do { key.push(Number(n & 0xffffffffn)); n >>= 32n; } while (n > 0n);
    this.initByArray(key);
  }
  initGenrand(s) {
    const mt = this.mt; mt[0] = s >>> 0;
    for (let i = 1; i < 624; i++) {
      const p = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = (Math.imul(1812433253, p) + i) >>> 0;
    }
    this.mti = 624;
  }
  initByArray(key) {
    this.initGenrand(19650218);
    const mt = this.mt; let i = 1, j = 0;
    for (let k = Math.max(624, key.length); k; k--) {
      const p = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(p, 1664525)) + key[j] + j) >>> 0;
      i++; j++;
      if (i >= 624) { mt[0] = mt[623]; i = 1; }
      if (j >= key.length) j = 0;
    }
    for (let k = 623; k; k--) {
      const p = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(p, 1566083941)) - i) >>> 0;
      i++;
      if (i >= 624) { mt[0] = mt[623]; i = 1; }
    }
    mt[0] = 0x80000000;
  }
  uint32() {
    const mt = this.mt;
    if (this.mti >= 624) {
      for (let k = 0; k < 624; k++) {
        const y = (mt[k] & 0x80000000) | (mt[(k + 1) % 624] & 0x7fffffff);
        mt[k] = mt[(k + 397) % 624] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      this.mti = 0;
    }
    let y = mt[this.mti++];
    y ^= y >>> 11; y ^= (y << 7) & 0x9d2c5680; y ^= (y << 15) & 0xefc60000; y ^= y >>> 18;
    return y >>> 0;
  }
  below(n) {   // _randbelow_with_getrandbits
    const k = 32 - Math.clz32(n);
    let r = this.uint32() >>> (32 - k);
    while (r >= n) r = this.uint32() >>> (32 - k);
    return r;
  }
  choice(seq) { return seq[this.below(seq.length)]; }
}

class FnRandom {   // any () => [0, 1) function, Math.random by default
  constructor(fn) { this.fn = fn; }
  choice(seq) { return seq[Math.min(seq.length - 1, Math.floor(this.fn() * seq.length))]; }
}

function asRng(options) {
  if (options.rng) return typeof options.rng === "function" ? new FnRandom(options.rng) : options.rng;
  if (options.seed !== undefined && options.seed !== null) return new PyRandom(options.seed);
  return new FnRandom(Math.random);
}

// ------------------------------------------------------------------ rollers (dice.py)
const isFaceList = (v) => Array.isArray(v);

export class GivenRoller {
  constructor(given, rng) { this.given = given || new Map(); this.rng = rng || new FnRandom(Math.random); this.made = new Map(); this.used = new Set(); }
  take(name) {
    if (this.given.has(name)) { this.used.add(name); return [true, this.given.get(name)]; }
    return [false, null];
  }
  randomFace(die) { return this.rng.choice(die.faces); }
  one(name, die) {
    let [ok, v] = this.take(name), value;
    if (ok) {
      if (isFaceList(v) && v.length === 1) v = v[0];
      value = die.face(v, name);
    } else value = this.randomFace(die);
    this.made.set(name, value);
    return value;
  }
  pool(name, die, count) {
    let [ok, v] = this.take(name), value;
    if (ok) {
      if (!isFaceList(v)) v = [v];
      if (BigInt(v.length) !== count) throw new RulesError("Error", `roll '${name}' is ${count} x ${die.name}, but ${v.length} value(s) were given`);
      value = v.map((x) => die.face(x, name));
    } else {
      value = [];
      for (let i = 0n; i < count; i++) value.push(this.randomFace(die));
    }
    this.made.set(name, value);
    return value;
  }
  chain(name, die, count, on, then) {
    const [ok, v] = this.take(name);
    if (ok) {
      if (isInt(v)) {
        if (v < 0n) throw new RulesError("Error", `roll '${name}': a chain cannot score ${v} successes`);
        this.made.set(name, v);
        return v;
      }
      const seqs = (count !== 1n || (truthy(v) && Array.isArray(v) && Array.isArray(v[0]))) ? v : [v];
      if (!Array.isArray(seqs) || BigInt(seqs.length) !== count) {
        throw new RulesError("Error", `roll '${name}' is ${count} chain(s); give a list of ${count} sequences or a total`);
      }
      let total = 0n;
      for (const seq of seqs) {
        const faces = (Array.isArray(seq) ? seq : [seq]).map((x) => die.face(x, name));
        faces.forEach((f, i) => {
          const hit = (i === 0 ? on : then).has(f);
          if (!hit && i !== faces.length - 1) throw new RulesError("Error", `roll '${name}': a chain stops at its first miss (${show(f)} at position ${i + 1})`);
          if (hit && i === faces.length - 1) throw new RulesError("Error", `roll '${name}': the chain ${literal(Array.isArray(seq) ? seq : [seq])} ends on a success; roll until a miss`);
          if (hit) total += 1n;
        });
      }
      this.made.set(name, total);
      return total;
    }
    let total = 0n;
    for (let c = 0n; c < count; c++) {
      for (let i = 0; i < MAX_CHAIN; i++) {
        if ((i === 0 ? on : then).has(this.randomFace(die))) total += 1n; else break;
      }
    }
    this.made.set(name, total);
    return total;
  }
}

// `reroll` and `explode` (dice.py GivenRoller.reroll / .explode): the same random draws in the same order
GivenRoller.prototype.reroll = function (name, die, count, faces) {
  if (this.given.has(name)) return count === null ? this.one(name, die) : this.pool(name, die, count);
  const first = [];
  for (let i = 0n; i < (count === null ? 1n : count); i++) first.push(this.randomFace(die));
  const again = first.map((f) => (faces.has(f) ? this.randomFace(die) : null));
  const kept = first.map((f, i) => (again[i] === null ? f : again[i]));
  const value = count === null ? kept[0] : kept;
  this.made.set(name, value);
  return value;
};
GivenRoller.prototype.explode = function (name, die, count, on, cap) {
  const [ok, v] = this.take(name);
  if (ok) {
    const value = (isFaceList(v) ? v : [v]).map((x) => die.face(x, name));
    checkExplodeGiven(name, value, count, on, cap);
    this.made.set(name, value);
    return value;
  }
  const value = [];
  for (let i = 0n; i < count; i++) value.push(this.randomFace(die));
  let owed = BigInt(value.filter((f) => on.has(f)).length), extra = 0n;
  while (owed > 0n && extra < cap) {
    const batch = [];
    const n = owed < cap - extra ? owed : cap - extra;
    for (let i = 0n; i < n; i++) batch.push(this.randomFace(die));
    extra += BigInt(batch.length);
    owed = BigInt(batch.filter((f) => on.has(f)).length);
    value.push(...batch);
  }
  this.made.set(name, value);
  return value;
};

const extraDice = (k) => `${k} extra ${k === 1n ? "die" : "dice"}`;
function checkExplodeGiven(name, faces, count, on, cap) {
  let needed = count, extra = 0n;
  faces.forEach((f, i) => {
    if (BigInt(i) >= needed) {
      throw new RulesError("Error", `roll '${name}': ${faces.length} faces were given, but ${count} dice and the ${extraDice(extra)} their explode faces add make ${needed}`);
    }
    if (on.has(f) && extra < cap) { needed += 1n; extra += 1n; }
  });
  if (BigInt(faces.length) < needed) {
    throw new RulesError("Error", `roll '${name}': ${faces.length} faces were given, but ${count} dice and the ${extraDice(extra)} their explode faces add make ${needed}: list the extra dice after the first ${count}`);
  }
}

class ForcedRoller {   // a callee's rolls given by the caller (`save(3, die=d)`, `morale.first=...`), the rest to `inner`
  constructor(inner, forced) { this.inner = inner; this.forced = forced; this.asked = new Set(); }
  given(name) { this.asked.add(name); return this.forced.has(name); }
  one(name, die) { return this.given(name) ? new GivenRoller(new Map([[name, this.forced.get(name)]])).one(name, die) : this.inner.one(name, die); }
  pool(name, die, c) { return this.given(name) ? new GivenRoller(new Map([[name, this.forced.get(name)]])).pool(name, die, c) : this.inner.pool(name, die, c); }
  chain(name, die, c, on, then) {
    return this.given(name) ? new GivenRoller(new Map([[name, this.forced.get(name)]])).chain(name, die, c, on, then) : this.inner.chain(name, die, c, on, then);
  }
  reroll(name, die, c, faces) {
    return this.given(name) ? new GivenRoller(new Map([[name, this.forced.get(name)]])).reroll(name, die, c, faces) : this.inner.reroll(name, die, c, faces);
  }
  explode(name, die, c, on, cap) {
    return this.given(name) ? new GivenRoller(new Map([[name, this.forced.get(name)]])).explode(name, die, c, on, cap) : this.inner.explode(name, die, c, on, cap);
  }
  checkUsed(mechanic, prefix) {   // dice.ForcedRoller.check_used: a roll given that no roll took
    const unused = [...this.forced.keys()].filter((k) => !this.asked.has(k));
    if (unused.length) {
      const made = [...this.asked].filter((k) => k.startsWith(prefix)).map((k) => k.slice(prefix.length));
      const shown = [...shownNames(new Map(made.map((k) => [k, true]))).keys()].join(", ") || "none";
      throw new RulesError("Error", `${mechanic}() was given the roll '${unused[0].slice(prefix.length)}', but made no roll of that name (rolls made: ${shown})`);
    }
  }
}

// rules_dsl.language.rollpaths: a roll made in the k-th call (k >= 1) of a mechanic within one invocation is
// `name[k].roll`; shown with `name[0]` for the first call when there are several
const SEGMENT = /^([A-Za-z_][A-Za-z0-9_]*)(?:\[([0-9]{1,6})\])?$/;
function parsePath(path) {
  const parts = path.split(".");
  const calls = [];
  for (let i = 0; i < parts.length; i++) {
    const m = SEGMENT.exec(parts[i]);
    if (!m) return null;
    if (i === parts.length - 1) return m[2] === undefined ? [calls, m[1]] : null;
    calls.push([m[1], m[2] === undefined ? 0 : Number(m[2])]);
  }
  return null;
}
const segment = (c, k) => (k === 0 ? c : `${c}[${k}]`);
const isPath = (k) => k.includes(".") || k.includes("[");
export function canonicalPath(path) {
  if (!path.includes("[0]")) return path;
  const p = parsePath(path);
  return p ? [...p[0].map(([c, k]) => segment(c, k)), p[1]].join(".") : path;
}
export function shownNames(made) {
  const repeated = new Set();
  for (const key of made.keys()) {
    const p = parsePath(key);
    if (!p) continue;
    let prefix = "";
    for (const [c, k] of p[0]) { if (k) repeated.add(prefix + "\u0000" + c); prefix += segment(c, k) + "."; }
  }
  if (!repeated.size) return made;
  const out = new Map();
  for (const [key, value] of made) {
    const p = parsePath(key);
    if (!p) { out.set(key, value); continue; }
    let prefix = "";
    const shown = [];
    for (const [c, k] of p[0]) { shown.push(repeated.has(prefix + "\u0000" + c) ? `${c}[${k}]` : c); prefix += segment(c, k) + "."; }
    out.set([...shown, p[1]].join("."), value);
  }
  return out;
}

export class Ctx {
  constructor(roller, prefix = "", depth = 0, budget = null) {
    this.roller = roller; this.prefix = prefix; this.depth = depth; this.budget = budget || [MAX_STEPS];
    this.calls = null;
  }
  child(name) {
    if (this.depth >= MAX_CALL_DEPTH) {
      const chain = (this.prefix + name).split(".").filter((p) => p).slice(-6);
      throw new RulesError("Error", `mechanics call each other more than ${MAX_CALL_DEPTH} levels deep (... ${chain.join(" -> ")}): a mechanic that calls itself never ends`);
    }
    this.spend(1);
    if (this.calls === null) this.calls = new Map();
    const k = this.calls.get(name) || 0;
    this.calls.set(name, k + 1);
    return new Ctx(this.roller, `${this.prefix}${segment(name, k)}.`, this.depth + 1, this.budget);
  }
  spend(steps) {
    this.budget[0] -= steps;
    if (this.budget[0] < 0) {
      throw new RulesError("Error", "the evaluation takes more than 100,000 steps (mechanic calls and list items); is a mechanic calling others in a loop?", { limit: "steps" });
    }
  }
}

export function nDice(span, name, k) {
  k = byValue(k);
  if (!isInt(k) || k < 0n || k > MAX_DICE) fail(span, `roll '${name}': the number of dice must be 0..${MAX_DICE}, got ${show(k)}`);
  return k;
}
export function rollOne(ctx, name, die) { return ctx.roller.one(ctx.prefix + name, die); }
export function rollPool(ctx, name, die, count) { return ctx.roller.pool(ctx.prefix + name, die, count); }
export function rollChain(ctx, span, name, die, count, on, then) {
  const first = new PySet(iterable(span, on));
  const later = then === null ? first : new PySet(iterable(span, then));
  return ctx.roller.chain(ctx.prefix + name, die, count, first, later);
}

function rollFaces(span, die, faces, name, what) {   // dice.roll_faces: each must be a face of the die
  const out = [];
  for (let f of iterable(span, faces)) {
    let face = null;
    const shown = literal(f);
    if (die.custom) {
      if (typeof f === "string" || f instanceof Sym) { f = String(f); face = die.faces.find((x) => x.name === f) || null; }
    } else if (typeof f === "bigint") face = die.faces.find((x) => x === f) ?? null;
    if (face === null) fail(span, `roll '${name}': ${shown} is not a face of ${die.describe}, so it cannot be ${what}`);
    out.push(face);
  }
  return new PySet(out);
}
export function rollReroll(ctx, span, name, die, count, faces) {
  return ctx.roller.reroll(ctx.prefix + name, die, count, rollFaces(span, die, faces, name, "re-rolled"));
}
export const EXPLODE_CAP = 20n;
export function rollExplode(ctx, span, name, die, count, faces, cap) {
  const k = count === null ? 1n : count;
  const on = rollFaces(span, die, faces, name, "exploding");
  if (die.faces.every((f) => on.has(f))) fail(span, `roll '${name}': exploding on every face of ${die.name} would never stop`);
  const most = cap === null ? EXPLODE_CAP : cap;
  if (!isInt(most) || most < 0n || most > MAX_DICE - k) fail(span, `roll '${name}': 'up to' takes 0..${MAX_DICE - k} extra dice, got ${show(most)}`);
  return ctx.roller.explode(ctx.prefix + name, die, k, on, most);
}

// ------------------------------------------------------------------ types (compiler/typecheck.py)
// A type is data the generator wrote: {k: "range", lo, hi} | {k: "int"|"number"|"bool"|"text"|"absent"|"record"}
// | {k: "enum", name} | {k: "die", name} | {k: "list", item} | {k: "union", options}.
class NoFit extends Error {}

function convert(book, t, v) {
  if (isS(v)) return convertStandIn(book, t, v);
  switch (t.k) {
    case "union":
      for (const o of t.options) { try { return convert(book, o, v); } catch (e) { if (!(e instanceof NoFit)) throw e; } }
      throw new NoFit();
    case "range": if (isInt(v) && v >= t.lo && v <= t.hi) return v; throw new NoFit();
    case "list": if (Array.isArray(v)) return v.map((x) => convert(book, t.item, x)); throw new NoFit();
    case "record": if (v instanceof Record) return v; throw new NoFit();
    case "absent": if (v === ABSENT || (isStr(v) && String(v) === "absent")) return ABSENT; throw new NoFit();
    case "int": if (isInt(v)) return v; throw new NoFit();
    case "number": if (isNum(v)) return v; throw new NoFit();
    case "bool": if (typeof v === "boolean") return v; throw new NoFit();
    case "text": if (typeof v === "string") return v; throw new NoFit();
    case "enum": {
      const members = book.enums.get(t.name).members;
      const m = isStr(v) ? members.find((x) => x.name === String(v)) : undefined;
      if (m) return m;
      throw new NoFit();
    }
    case "die":
      try { return book.dice.get(t.name).face(v, t.name); } catch (e) { throw new NoFit(); }
    default: throw new NoFit();
  }
}

// a stand-in against a declared type, as TypeCheck.convert meets one: a range compares it (and keeps
// it), int and number read its type only, a member or face (a lookup by hash) its value
function convertStandIn(book, t, v) {
  const x = v.sample();
  switch (t.k) {
    case "union":
      for (const o of t.options) { try { return convertStandIn(book, o, v); } catch (e) { if (!(e instanceof NoFit)) throw e; } }
      throw new NoFit();
    case "range": if (isInt(x) && v.cmp(">=", t.lo) && v.cmp("<=", t.hi)) return v; throw new NoFit();
    case "int": if (isInt(x)) return v; throw new NoFit();
    case "number": if (isNum(x)) return v; throw new NoFit();
    case "enum": return convert(book, t, v.byValue());   // a dictionary lookup: its hash
    case "die": {   // Die.face: `value in faces` compares it with each physical face, then reads it
      const die = book.dice.get(t.name);
      if (die.custom ? isStr(x) : isInt(x)) {
        for (const f of die.faces) if (v.cmp("==", f)) return die.custom ? die.face(v.byValue(), t.name) : v;
      }
      throw new NoFit();
    }
    default: throw new NoFit();
  }
}

// [true, value] when v fits type t (converted as a parameter is), else [false]
export function fits(book, t, v) {
  try { return [true, convert(book, t, v)]; } catch (e) { if (e instanceof NoFit) return [false]; throw e; }
}
export { arith as arithmetic, numCmp as compareNumbers, pyLt as pyLess, floorOf as floorOfNumber };
export function iterableOf(span, v) { return iterable(span, byValue(v)); }

// ------------------------------------------------------------------ mechanics and tables
const DEFAULT_PENDING = Symbol("pending");

export class Mechanic {
  constructor(book, spec, body) {
    Object.assign(this, spec);   // name, params [{name, type, describe, def}], rolls, returns, returnsDescribe, span
    this.book = book; this.body = body; this.defaults = new Map();
  }
  defaultOf(p) {
    if (!this.defaults.has(p.name)) this.defaults.set(p.name, p.def(new Ctx(new GivenRoller())));
    return this.defaults.get(p.name);
  }
  bind(args, kwargs) {
    const names = this.params.map((p) => p.name);
    if (args.length > names.length) {
      throw inputError(this.name, names.length ? names[names.length - 1] : "-", args[names.length],
        `at most ${names.length} argument(s): ${names.join(", ")}`);
    }
    const bound = new Map(names.slice(0, args.length).map((n, i) => [n, args[i]]));
    for (const [k, v] of kwargs) {
      if (!names.includes(k)) throw notFound("parameter", k, `${this.book.id}:${this.name}`);
      bound.set(k, v);
    }
    return this.params.map((p) => {
      if (!bound.has(p.name)) {
        if (!p.def) throw inputError(this.name, p.name, undefined, `a value is required (${p.describe})`);
        bound.set(p.name, this.defaultOf(p));
      }
      try { return convert(this.book, p.type, bound.get(p.name)); } catch (e) {
        if (e instanceof NoFit) throw inputError(this.name, p.name, bound.get(p.name), p.describe);
        throw e;
      }
    });
  }
  invoke(values, ctx) { return this.returned(this.body(ctx, ...values)); }
  returned(value) {   // a result converted to the declared type, or the error saying it is not
    if (value instanceof Range) value = value.toArray();
    try { return convert(this.book, this.returns, value); } catch (e) {
      if (e instanceof NoFit) throw new RulesError("Error", `${this.span}: ${this.name} produced ${show(value)}, which is not ${this.returnsDescribe} as declared`);
      throw e;
    }
  }
  // a call from another mechanic: `given` (null, or a function giving [name, value] pairs, evaluated
  // after the arguments as Python does) are the callee's rolls given by name
  callFrom(ctx, args, kwargs, given) {
    const values = this.bind(args, kwargs);
    const child = ctx.child(this.name);
    if (!given) return this.invoke(values, child);
    const roller = new ForcedRoller(ctx.roller, new Map(given().map(([k, v]) => [child.prefix + k, v])));
    const value = this.invoke(values, new Ctx(roller, child.prefix, child.depth, child.budget));
    roller.checkUsed(this.name, child.prefix);
    return value;
  }
}

export class Table {
  constructor(book, spec) {
    Object.assign(this, spec);   // name, keys [{name, type, describe}], entries [[keys], value], fields
    this.book = book;
    this.exact = null;
    if (!this.entries.some(([ks]) => ks.some((k) => k instanceof Range))) {
      this.exact = new Map();
      for (const [ks, v] of this.entries) { const h = keyOf(ks); if (!this.exact.has(h)) this.exact.set(h, v); }
    }
  }
  lookup(args, kwargs) {
    const names = this.keys.map((p) => p.name);
    if (args.length > names.length) throw inputError(this.name, names[names.length - 1], args[args.length - 1], `${names.length} key(s): ${names.join(", ")}`);
    const bound = new Map(names.slice(0, args.length).map((n, i) => [n, args[i]]));
    for (const [k, v] of kwargs) {
      if (!names.includes(k)) throw notFound("key", k, `${this.book.id}:${this.name}`);
      bound.set(k, v);
    }
    const keys = this.keys.map((p) => {
      if (!bound.has(p.name)) throw inputError(this.name, p.name, undefined, `a value is required (${p.describe})`);
      try { return convert(this.book, p.type, bound.get(p.name)); } catch (e) {
        if (e instanceof NoFit) throw inputError(this.name, p.name, bound.get(p.name), p.describe);
        throw e;
      }
    });
    if (this.exact) {
      const h = keyOf(keys.map(byValue));   // a dictionary lookup hashes a stand-in: its value
      if (this.exact.has(h)) return this.exact.get(h);
    } else {
      for (const [ks, v] of this.entries) {
        if (ks.every((want, i) => (want instanceof Range ? want.has(keys[i]) : pyEq(keys[i], want)))) return v;   // stand-ins: compared
      }
    }
    throw new RulesError("Error", `table ${this.name} has no row for ` + this.keys.map((p, i) => `${p.name}=${show(keys[i])}`).join(", "));
  }
  rows() {
    return this.entries.map(([ks, v]) => {
      const d = this.keys.map((p, i) => [p.name, ks[i]]);
      const out = new Map(d);
      if (v instanceof Record) for (const [k, x] of v.fields) out.set(k, x); else out.set("value", v);
      return new Record(out);
    });
  }
}

function keyOf(ks) {   // a dictionary key for converted table keys (ints, bools, names)
  return JSON.stringify(ks.map((k) => (typeof k === "bigint" ? "i" + k : typeof k === "boolean" ? "i" + (k ? 1 : 0) : k instanceof Frac ? "f" + k : isStr(k) ? "s" + String(k) : "o" + pyRepr(k))));
}

export function callValue(ctx, span, fn, args, kwargs) {   // calling a mechanic or table held in a value
  if (fn instanceof Mechanic) return fn.invoke(fn.bind(args, kwargs), ctx.child(fn.name));
  if (fn instanceof Table) return fn.lookup(args, kwargs);
  fail(span, `${show(fn)} cannot be called`);
}

// ------------------------------------------------------------------ names in words
// The twin of rules_dsl/language/display.py (Names) and wording.py (title, answer): a player reads each
// name's display form, the words the book gave it (`under_fire called "Under Fire"`, carried by
// the module as `defineWords`) or else the identifier's words (`under_fire` -> "under fire"),
// and values in words (members by their words, booleans yes/no, lists comma-separated).
export function words(id) {
  const parts = String(id).split("_").filter((p) => p);
  return parts.length ? parts.join(" ") : String(id);
}
export function capitalised(t) { return t ? t[0].toUpperCase() + t.slice(1) : t; }
function toMaps(x) {
  if (x === null || typeof x !== "object" || Array.isArray(x)) return x;
  return new Map(Object.entries(x).map(([k, v]) => [k, toMaps(v)]));
}
function fold(t) { return String(t).replace(/[_\-\s]+/g, " ").toLowerCase().trim(); }   // display.fold
function dieWords(name) { return /^d\d+$/.test(name) ? name : `${capitalised(words(name))} die`; }
const PLACEHOLDER = /\{\{|\}\}|\{([^{}]*)\}/g;

export class Words {
  // data: the book's words as parsed JSON; kept in Maps, so a name such as `__proto__` is only data
  constructor(book, data) { this.book = book; this.d = toMaps(data || {}); }
  _get(key, a, b) {
    const t = this.d.get(key);
    if (!(t instanceof Map)) return undefined;
    const x = t.get(String(a));
    if (b === undefined) return typeof x === "string" ? x : undefined;
    const y = x instanceof Map ? x.get(String(b)) : undefined;
    return typeof y === "string" ? y : undefined;
  }
  mechanic(name) { return this._get("m", name) || this._get("t", name) || words(name); }
  table(name) { return this._get("t", name) || words(name); }
  param(owner, name) { return this._get("p", owner, name) || this._get("r", owner, name) || words(name); }
  roll(mechanic, name) { return this._get("r", mechanic, name) || words(name); }
  result(mechanic) { return this._get("res", mechanic) || this.mechanic(mechanic); }
  field(table, name) { return (table != null && this._get("f", table, name)) || this._get("fa", name) || words(name); }
  member(owner, name) { return this._get("e", owner, String(name)) || words(name); }
  value(v, table) {        // Names.value
    if (v === ABSENT) return "absent";
    if (typeof v === "boolean") return v ? "yes" : "no";
    if (v instanceof Sym) return v.owner ? this.member(v.owner, v.name) : words(v.name);
    if (v instanceof Record) return [...v.fields].map(([k, x]) => `${this.field(table, k)} ${this.value(x)}`).join(", ");
    if (Array.isArray(v)) {
      if (!v.length) return "none";
      const inner = v.map((x) => this.value(x));
      return v.some((x) => Array.isArray(x) || x instanceof Record) ? "[" + inner.join("; ") + "]" : inner.join(", ");
    }
    if (v instanceof PySet) return v.items.map((x) => this.value(x)).sort(cpCompare).join(", ") || "none";
    if (v instanceof Range) return `${v.start} to ${v.stop - 1n}`;
    return show(v);
  }
  describe(t) {            // Names.describe: what a parameter of type t accepts
    switch (t.k) {
      case "range": return `${t.lo} to ${t.hi}`;
      case "enum": return "one of: " + this.book.enums.get(t.name).members.map((m) => this.member(t.name, m.name)).join(", ");
      case "die": {
        const die = this.book.dice.get(t.name), faces = [];
        for (const f of die.faces) if (!faces.some((x) => pyEq(x, f))) faces.push(f);
        if (!die.custom) return `a face of a ${t.name}: ${faces[0]} to ${faces[faces.length - 1]}`;
        return `a face of the ${dieWords(t.name)}: ` + faces.map((f) => this.member(t.name, f.name)).join(", ");
      }
      case "list": return `a list of ${this.describe(t.item)}`;
      case "union": return t.options.map((o) => this.describe(o)).join(" or ");
      case "record": return "a record";
      default: return { int: "a whole number", bool: "yes or no", text: "text", number: "a number", absent: "absent" }[t.k] || words(t.k);
    }
  }
  // a member or face typed by a player (Names.read_value): its name, or its words, case-insensitively
  read(t, text) {
    const want = fold(text);
    for (const o of (t.k === "union" ? t.options : [t])) {
      const u = o.k === "list" ? o.item : o;
      if (u.k === "bool" && (want === "yes" || want === "no")) return want === "yes";
      const names = u.k === "enum" ? this.book.enums.get(u.name).members.map((m) => m.name)
        : u.k === "die" && this.book.dice.get(u.name).custom ? this.book.dice.get(u.name).faces.map((f) => f.name) : [];
      for (const m of names) if (fold(m) === want || fold(this.member(u.name, m)) === want) return m;
    }
    return undefined;
  }
  title(mechanic) { return this._get("q", mechanic) || capitalised(this.mechanic(mechanic)); }   // wording.title
  answer(mechanic, result, args) {   // wording.answer: the book's `answer` filled in, else "Name: value"
    const value = this.value(result);
    const template = this._get("a", mechanic);
    if (template) {
      const values = new Map([["result", value]]);
      for (const [k, v] of entriesOf(args || {})) values.set(k, this.value(v));
      return capitalised(template.replace(PLACEHOLDER, (m, name) => {
        if (m === "{{" || m === "}}") return m[0];
        const k = name.trim();
        return values.has(k) ? values.get(k) : words(k);
      }));
    }
    return `${capitalised(this.result(mechanic))}: ${value}`;
  }
}

// ------------------------------------------------------------------ a book
export class Book {
  constructor(info) {
    this.id = info.id; this.title = info.title;
    this.enums = new Map(); this.dice = new Map(); this.mechanics = new Map(); this.tables = new Map();
    this.constants = new Map();
    this.words = new Words(this, {});
  }
  defineWords(data) { this.words = new Words(this, data); return this.words; }
  defineEnum(name, members) { const e = new EnumNS(name, members); this.enums.set(name, e); return e; }
  defineDie(name, faces, custom, describe) { const d = new Die(name, faces, custom, describe); this.dice.set(name, d); return d; }
  defineConst(name, thunk) {
    const c = { name, thunk, state: DEFAULT_PENDING, busy: false };
    const get = () => {
      if (c.state !== DEFAULT_PENDING) return c.state;
      if (c.busy) throw new RulesError("Error", `constant '${name}' is defined in terms of itself`);
      c.busy = true;
      try { c.state = thunk(new Ctx(new GivenRoller())); } finally { c.busy = false; }
      return c.state;
    };
    this.constants.set(name, get);
    return get;
  }
  defineMechanic(spec, body) { const m = new Mechanic(this, spec, body); this.mechanics.set(spec.name, m); return m; }
  defineTable(spec) { const t = new Table(this, spec); this.tables.set(spec.name, t); return t; }

  // ---- the public interface: values in and out as plain JS (see `input` and `toJSON`)
  mechanic(name) {
    const m = this.mechanics.get(name);
    if (!m) throw notFound("mechanic", name, this.id);
    return m;
  }
  // call("attack", {shots: 3}, {rolls: {"hit.hit_dice": [4, 4, 4]}, seed: 1}): {result, rolls}
  call(name, inputs = {}, options = {}) {
    const m = this.mechanic(name);
    const kwargs = entriesOf(inputs).map(([k, v]) => [k, input(v)]);
    const params = new Set(m.params.map((p) => p.name));
    const given = new Map(entriesOf(options.rolls || {}).map(([k, v]) => [canonicalPath(k), input(v)]));
    const plain = [];
    for (const [k, v] of kwargs) {
      if ((m.rolls.includes(k) || isPath(k)) && !params.has(k)) given.set(canonicalPath(k), v); else plain.push([k, v]);
    }
    const values = m.bind((options.args || []).map(input), plain);
    const roller = new GivenRoller(given, asRng(options));
    const result = guarded(() => m.invoke(values, new Ctx(roller)));
    const made = shownNames(roller.made);
    const unknown = [...given.keys()].filter((k) => !roller.used.has(k)).sort();
    if (unknown.length) {
      throw notFound("roll", unknown[0], `${this.id}:${m.name} (rolls made: ${[...made.keys()].join(", ") || "none"})`);
    }
    return { result, rolls: made };
  }
  lookup(name, keys = {}, args = []) {
    const t = this.tables.get(name);
    if (!t) throw notFound("table", name, this.id);
    return t.lookup(args.map(input), entriesOf(keys).map(([k, v]) => [k, input(v)]));
  }
  constant(name) {
    const c = this.constants.get(name);
    if (!c) throw notFound("constant", name, this.id);
    return guarded(c);
  }
  // A mechanic's signature as data, for forms: params with their types and defaults, rolls
  // with each name's words for players (`label`, `describeWords`, `rollLabels`, `title`, `result`)
  signature(name) {
    const m = this.mechanic(name), w = this.words;
    return { name, params: m.params.map((p) => ({ name: p.name, type: p.type, describe: p.describe, default: p.def ? m.defaultOf(p) : undefined,
      label: w.param(name, p.name), describeWords: w.describe(p.type) })),
      rolls: m.rolls.slice(), returns: m.returnsDescribe,
      rollLabels: m.rolls.map((r) => w.roll(name, r)), title: w.title(name), result: capitalised(w.result(name)) };
  }
  // a result in words, as the mechanic answers (wording.answer): "The unit is Under Fire."
  answer(name, result, inputs) { this.mechanic(name); return this.words.answer(name, result, inputs); }
  // evaluate a compiled expression (a worked example) as the example runner does: rolls from seed 0
  evaluate(thunk, seed = 0) { return guarded(() => thunk(new Ctx(new GivenRoller(new Map(), new PyRandom(seed))))); }
}

function entriesOf(x) { return x instanceof Map ? [...x] : Object.keys(x).map((k) => [k, x[k]]); }

function guarded(thunk) {
  try { return thunk(); } catch (e) {
    if (e instanceof RulesError) throw e;
    if (e instanceof RangeError) throw new RulesError("Error", "the evaluation nests too deeply (a mechanic calling itself?)");
    throw new RulesError("Error", `cannot evaluate: ${e && e.name}: ${e && e.message}`);
  }
}

// ------------------------------------------------------------------ plain JS in, JSON out
// input: a caller's plain value -> a language value.  Whole JS numbers become BigInt, other finite
// numbers exact fractions of their decimal text (as Python reads 9.5), "7/2"-style text stays text
// (a form gives fractions as Frac), arrays become lists, null is absent.
export function input(v) {
  if (typeof v === "number") {
    if (Number.isInteger(v)) return BigInt(v);
    if (!Number.isFinite(v)) return v;
    const [m, e] = v.toExponential().split("e");
    const [ip, fp = ""] = m.replace("-", "").split(".");
    let n = BigInt(ip + fp), d = 1n, exp = Number(e) - fp.length;
    if (exp >= 0) n *= 10n ** BigInt(exp); else d = 10n ** BigInt(-exp);
    return frac(v < 0 ? -n : n, d);
  }
  if (v === null || v === undefined) return ABSENT;
  if (Array.isArray(v)) return v.map(input);
  return v;
}

export function toJSON(v) {   // values.to_json (and a Map of rolls: an object)
  if (v === ABSENT) return null;
  if (typeof v === "boolean") return v;
  if (typeof v === "bigint") return (v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= -BigInt(Number.MAX_SAFE_INTEGER)) ? Number(v) : v.toString();
  if (v instanceof Frac || v instanceof Sym) return v.toString();
  if (typeof v === "string") return v;
  if (v instanceof Record) return Object.fromEntries([...v.fields].map(([k, x]) => [k, toJSON(x)]));
  if (Array.isArray(v)) return v.map(toJSON);
  if (v instanceof PySet) return v.items.slice().sort((a, b) => cpCompare(pyRepr(a), pyRepr(b))).map(toJSON);
  if (v instanceof Range) return [toJSON(v.start), toJSON(v.stop - 1n)];
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [k, toJSON(x)]));   // the rolls made
  return pyRepr(v);
}

// canonical: the tagged JSON both back ends write to be compared (tests/test_jsgen.py)
export function canonical(v) {
  if (v === ABSENT) return ["absent"];
  if (typeof v === "boolean") return ["bool", v];
  if (typeof v === "bigint") return ["int", v.toString()];
  if (v instanceof Frac) return ["frac", v.toString()];
  if (v instanceof Sym) return ["sym", v.name];
  if (typeof v === "string") return ["text", v];
  if (Array.isArray(v)) return ["list", v.map(canonical)];
  if (v instanceof Range) return ["list", v.toArray().map(canonical)];
  if (v instanceof PySet) return ["set", v.items.map(canonical).map((c) => JSON.stringify(c)).sort(cpCompare).map((s) => JSON.parse(s))];
  if (v instanceof Record) return ["record", [...v.fields].sort((a, b) => cpCompare(a[0], b[0])).map(([k, x]) => [k, canonical(x)])];
  return ["other", pyRepr(v)];
}

export function canonicalError(e) {
  if (e instanceof RulesError) {
    if (e.kind === "InputError") return ["error", "InputError", e.param];
    if (e.kind === "NotFound") return ["error", "NotFound", e.name];
    return ["error", "Error"];
  }
  return ["error", "JS", String(e && e.stack || e)];
}

// decode: canonical -> a language value (inputs of the comparison tests)
export function decode(c) {
  switch (c[0]) {
    case "absent": return ABSENT;
    case "bool": return c[1];
    case "int": return BigInt(c[1]);
    case "frac": { const [n, d] = c[1].split("/"); return frac(BigInt(n), BigInt(d)); }
    case "text": return c[1];
    case "sym": return c[1];   // converted by the parameter's type, as Python's TypeCheck does with text
    case "list": return c[1].map(decode);
    default: throw new RulesError("Error", `cannot decode ${JSON.stringify(c)}`);
  }
}
