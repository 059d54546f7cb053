// rules-dsl exact odds in JavaScript: the engine of rules_dsl/odds/ ported function for function,
// for the website's forms ("any input, exact odds, in the page").  Hand-written, an ES module over
// ./runtime.mjs; a book's plans (rules_dsl/jsgen/odds.py: each dice mechanic's statements in the
// order the Python planner chose, and each statement's aggregate fast path) come from
// `<book>.odds.mjs`, generated from the same checked AST.
//
// What it computes is what `rules odds` computes -- the same outcomes with the same exact
// fractions (BigInt numerators and denominators), the same "n or more" bucket for a chain, the
// same order -- and the work it does is counted in the same unit (evaluations), so a budget means
// the same in both.  The parts, as in Python (read the `rules_dsl.odds` package docstring first):
//   keys       -- `key`, the type-exact key of a value (memo and aggregation): replay._key
//   stand-ins  -- `Face` (a class of faces not told apart), `Tail` ("K or more" of a chain),
//                 `PoolList`; they answer the runtime's protocol (runtime.mjs, `Symbolic`): standins.py
//   multisets  -- `Partition`, `poolAlternatives`, `Origin`: multisets.py
//   chains     -- `ChainLaw` and the tail's origin: chains.py
//   replay     -- `Replay`, the roller that enumerates one statement by re-evaluation: replay.py
//   aggregates -- the fast path for statements that read pools through aggregates: aggregates.py
//   engine     -- `Engine` and `distribution`: engine.py; result order and mean: result.py
// Control flow that Python raises as BaseExceptions (a split class: Refine, Restart) is thrown
// here as plain objects, never Errors: evaluation code (runtime.mjs) never catches them.
import * as R from "./runtime.mjs";

// ------------------------------------------------------------------ exact numbers
const A = R.arithmetic;
const qadd = (a, b) => A("+", a, b), qsub = (a, b) => A("-", a, b), qmul = (a, b) => A("*", a, b);
const qdiv = (a, b) => A("/", a, b);
const qcmp = (a, b) => R.compareNumbers(a, b);
const isNumber = (x) => typeof x === "bigint" || x instanceof R.Frac;
function qpow(q, e) {
  if (q instanceof R.Frac) return R.frac(q.n ** BigInt(e), q.d ** BigInt(e));
  return q ** BigInt(e);
}
const numOf = (q) => (q instanceof R.Frac ? q.n : q), denOf = (q) => (q instanceof R.Frac ? q.d : 1n);
function gcd(a, b) { a = a < 0n ? -a : a; b = b < 0n ? -b : b; while (b) [a, b] = [b, a % b]; return a; }
const lcm = (a, b) => (a / gcd(a, b)) * b;
const combCache = new Map();
function comb(n, k) {
  n = BigInt(n); k = BigInt(k);
  if (k < 0n || k > n) return 0n;
  if (k > n - k) k = n - k;
  const ck = `${n},${k}`;
  let hit = combCache.get(ck);
  if (hit === undefined) {
    hit = 1n;
    for (let i = 1n; i <= k; i++) hit = (hit * (n - k + i)) / i;
    if (combCache.size > 20000) combCache.clear();
    combCache.set(ck, hit);
  }
  return hit;
}
function toFloat(q) { return q instanceof R.Frac ? Number(q.n) / Number(q.d) : Number(q); }   // float(Fraction)
function factorial(n) { let f = 1n; for (let i = 2n; i <= BigInt(n); i++) f *= i; return f; }

export const TAIL_EPS = R.frac(1n, 10n ** 12n);   // a chain's tail is shown / truncated below this mass
const MAX_MULTISETS = 20000, MAX_JOINS = 200000;  // aggregates.MAX_MULTISETS, MAX_JOINS
const MAX_SUMMED = 200000n;                       // aggregates.MAX_SUMMED
const EVERY_FACE = new Set(["sum", "count", "len", "any", "all"]);   // aggregates._EVERY_FACE
const MAX_TERMS = 5000;                           // chains.MAX_TERMS

// ------------------------------------------------------------------ the budget (odds/budget.py)
// Every computation runs within a budget, stated as Python states it: `seconds` of wall time (null:
// none), `cells` of memory (values held at once), `evaluations` of a statement by the engine (the
// unit a page's budget is in: the same on every machine) and `steps` (null: no limit).  Sizes known
// before the work are noted and checked first (a roll past MAX_ROLLS, a summed pool past
// MAX_SUMMED, a chain past MAX_TERMS: refused unmade); the loops poll the deadline.  The refusal
// (TooLarge) reads as Python's, word for word: "book:mech(inputs) is too large for exact odds:
// <what ran out>; <the largest estimate>; try <hints>".
export const DEFAULT_SECONDS = 5, DEFAULT_CELLS = 4000000, DEFAULT_EVALUATIONS = 2000000;
export const MAX_EVALUATIONS = DEFAULT_EVALUATIONS;   // engine.MAX_EVALUATIONS
export const MAX_ROLLS = 1000000n, MAX_ALTERNATIVES = MAX_ROLLS;   // budget.MAX_ROLLS, multisets.MAX_ALTERNATIVES
const now = () => (typeof performance !== "undefined" ? performance.now() : Date.now()) / 1000;
export function commas(x) {   // f"{x:,}"
  const t = String(x), neg = t.startsWith("-"), d = neg ? t.slice(1) : t;
  return (neg ? "-" : "") + d.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}
const poolWords = (k, die) => (Number(k) === 1 ? `a ${die}` : `${k} ${die}`);   // budget.pool_words
function tooLargeText(e) {
  let text = `${e.subject ? `${e.subject} is too large for exact odds` : "too large for exact odds"}: ${e.reason}`;
  if (e.largest) text += `; ${e.largest[1]}`;
  const h = e.hints;
  if (h.length) text += "; try " + h.slice(0, -1).join(", ") + (h.length > 1 ? " or " : "") + h[h.length - 1];
  return text;
}
// TooLarge (result.TooLarge): a RulesError of kind "TooLarge" with `reason`, `largest` ([size, words]
// or null), `subject`, `hints` and `why` (what ran out: "time", "work", "memory" or "size")
export function tooLarge(reason, largest = null, why = "size", subject = "", hints = []) {
  const e = new R.RulesError("TooLarge", "", { reason, largest, why, subject, hints });
  e.message = tooLargeText(e);
  return e;
}
export class Meter {
  constructor(budget = {}) {
    this.budget = { seconds: DEFAULT_SECONDS, cells: DEFAULT_CELLS, evaluations: DEFAULT_EVALUATIONS, steps: null, ...budget };
    this.start = now();
    this.deadline = this.budget.seconds === null ? null : this.start + this.budget.seconds;
    this.cells = 0; this.steps = 0; this.largest = null; this.next = 0;
  }
  check() {
    if (this.deadline !== null && now() > this.deadline) throw this.refusal(`it takes more than ${this.budget.seconds} s`, "time");
    const limit = this.budget.steps;
    if (limit !== null && this.steps > limit) throw this.refusal(`it takes more than ${commas(limit)} steps`, "work");
  }
  poll(every = 256) {
    this.steps += 1;
    if (this.steps >= this.next) { this.next = this.steps + every; this.check(); }
  }
  hold(cells) {
    cells = Number(cells);
    if (this.cells + cells > this.budget.cells) throw this.refusal(`it would hold more than ${commas(this.budget.cells)} values at once`, "memory");
    this.cells += cells;
  }
  note(what, size, unit = "distinguishable rolls") {
    size = BigInt(size);
    if (this.largest === null || size > this.largest[0]) this.largest = [size, `${what}: about ${commas(size)} ${unit}`];
  }
  refusal(reason, why = "size") { return tooLarge(reason, this.largest, why); }
}
let meterInUse = null;   // the meter of the computation running (budget._CURRENT): one at a time here
function refuse(reason, what, size, unit = "distinguishable rolls") {
  if (meterInUse === null) return tooLarge(reason, [BigInt(size), `${what}: about ${commas(size)} ${unit}`]);
  meterInUse.note(what, size, unit);
  return meterInUse.refusal(reason);
}
const note = (what, size, unit) => { if (meterInUse !== null) meterInUse.note(what, size, unit); };
const hold = (cells) => { if (meterInUse !== null) meterInUse.hold(cells); };
const checkDeadline = () => { if (meterInUse !== null) meterInUse.check(); };
class Refine { constructor(tokens) { this.tokens = tokens; } }   // a partition was refined: restart
class Restart { constructor(rep) { this.rep = rep; } }           // a class split on this path only
class NoKey {}
const NOKEY = new NoKey();
class Rolled {}                                                 // a dice-free statement rolled after all
class Unsupported {}                                            // the fast path does not cover this
const isControl = (e) => e instanceof Refine || e instanceof Restart;

// ------------------------------------------------------------------ keys (replay._key)
const ids = new WeakMap();
let lastId = 0;
function idOf(o) { let i = ids.get(o); if (i === undefined) { i = ++lastId; ids.set(o, i); } return i; }

export function key(v, symbolic) {
  switch (typeof v) {
    case "bigint": return "i" + v;
    case "boolean": return v ? "b1" : "b0";
    case "string": return "t" + JSON.stringify(v);
    default: break;
  }
  if (v instanceof R.Sym) return "s" + JSON.stringify([v.owner, v.name]);
  if (v instanceof R.Frac) return "q" + v.n + "/" + v.d;
  if (v instanceof PoolList) {
    if (!symbolic) throw NOKEY;
    return "p" + idOf(v.origin.token) + ":" + JSON.stringify(v.origin.ident) + ":" + v.shape;
  }
  if (Array.isArray(v)) return "l[" + v.map((x) => key(x, symbolic)).join(",") + "]";
  if (v instanceof R.PySet) return "set{" + v.items.map((x) => key(x, symbolic)).sort().join(",") + "}";
  if (v instanceof R.Range) return "r" + v.start + ":" + v.stop;
  if (v === R.ABSENT) return "absent";
  if (v === null || v === undefined) return "none";
  // a record is a table's row (Python's RowRecord, which `_key` does not take: no memo on it)
  if (v instanceof R.Record) throw NOKEY;
  if (v instanceof Face) {
    if (!symbolic) throw NOKEY;
    return "F" + idOf(v.origin.token) + ":" + JSON.stringify(v.origin.ident) + ":" + facesKey(v.faces) + ":" + v.vals.map((x) => key(x, false)).join(",");
  }
  if (v instanceof Tail) {
    if (!symbolic) throw NOKEY;
    return "T" + idOf(v.origin) + ":" + v.K + ":" + v.a + ":" + v.b;
  }
  if (v instanceof OrMore) return "or" + key(v.n, false) + (v.up ? "+" : "-");
  if (v instanceof R.Mechanic || v instanceof R.Table || v instanceof R.Die || v instanceof R.EnumNS || v instanceof R.Builtin) return "obj" + idOf(v);
  throw NOKEY;
}
const symKeys = new WeakMap(), classKeys = new WeakMap();   // a face's key, a class's key: made once
function fkey(f) {
  if (typeof f === "bigint") return "i" + f;
  if (typeof f !== "object" || f === null) return key(f, false);
  let k = symKeys.get(f);
  if (k === undefined) { k = key(f, false); symKeys.set(f, k); }
  return k;
}
function facesKey(faces) {
  let k = classKeys.get(faces);
  if (k === undefined) { k = faces.map(fkey).join("|"); classKeys.set(faces, k); }
  return k;
}
function keyOrNull(v) { try { return key(v, false); } catch (e) { if (e === NOKEY) return null; throw e; } }

// ------------------------------------------------------------------ results (result.py)
export class OrMore {   // a final bucket of a chain's unbounded tail: every result from n up (or down)
  constructor(n, up) { this.n = n; this.up = up; Object.freeze(this); }
}

// ------------------------------------------------------------------ stand-ins (standins.py)
function sameValue(a, b) {
  if (a === b) return true;
  if (typeof a !== typeof b) return false;
  if (typeof a === "object" && a !== null && b !== null && a.constructor !== b.constructor) return false;
  try { return R.pyEq(a, b); } catch (e) { if (isControl(e)) throw e; return false; }
}
function apply(fn, values) {   // [[true, fn(v)] or [false, the error]] for each value
  const out = [];
  const meter = values.length > 64 ? meterInUse : null;   // a class of many faces polls the deadline
  for (const v of values) {
    if (meter !== null) meter.poll(64);
    try { out.push([true, fn(v)]); } catch (e) { if (isControl(e)) throw e; out.push([false, e]); }
  }
  return out;
}
const errName = (e) => (e && e.constructor ? e.constructor.name : typeof e);
const errText = (e) => String(e && e.message !== undefined ? e.message : e);
function splitKey([ok, v]) {
  if (!ok) return "err:" + errName(v) + ":" + errText(v);
  const k = keyOrNull(v);
  return k !== null ? "v:" + k : "r:" + R.pyRepr(v);
}
function unanimous(outs) {   // [true, value] when every outcome is the same, else [false]; throws a shared error
  const [ok0, v0] = outs[0];
  for (const [ok, v] of outs.slice(1)) {
    if (ok !== ok0) return [false];
    if (ok) { if (!sameValue(v, v0)) return [false]; } else if (errName(v) !== errName(v0) || errText(v) !== errText(v0)) return [false];
  }
  if (!ok0) throw v0;
  return [true, v0];
}
function cacheKey(tag, other) {
  if (typeof other === "bigint" || typeof other === "boolean" || typeof other === "string" || other instanceof R.Sym
      || other instanceof R.Frac || other instanceof R.PySet || other instanceof R.Range) {
    const k = keyOrNull(other);
    return k === null ? null : tag + "|" + k;
  }
  return null;
}
// Python's comparison of two plain values (what `op(v, other)` does in the stand-ins)
function rawCmp(op, a, b) {
  switch (op) {
    case "==": return R.pyEq(a, b);
    case "!=": return !R.pyEq(a, b);
    case "<": return R.pyLess(a, b);
    case ">": return R.pyLess(b, a);
    case "<=": return !R.pyLess(b, a) && (R.pyLess(a, b) || R.pyEq(a, b));
    case ">=": return !R.pyLess(a, b) && (R.pyLess(b, a) || R.pyEq(a, b));
    default: throw new Error(`unknown comparison ${op}`);
  }
}
const UNARY = {
  neg: (v) => A("-", 0n, v),
  abs: (v) => (qcmp(v, 0n) < 0 ? A("-", 0n, v) : v),
  floor: (v) => R.floorOfNumber(v),
  ceil: (v) => A("-", 0n, R.floorOfNumber(A("-", 0n, v))),
};
const numeric = (vals) => vals.every(isNumber);

class Face extends R.Symbolic {
  // a die whose face is any of `faces` (a class the mechanic has not told apart); `vals` are the
  // values it stands for (the faces, or an arithmetic image of them)
  constructor(origin, faces, vals) { super(); this.origin = origin; this.faces = faces; this.vals = vals; this.memo = new Map(); }
  sample() { return this.vals[0]; }
  _obs(fn, ck) {
    if (ck !== null && ck !== undefined && this.memo.has(ck)) return this.memo.get(ck);
    const outs = apply(fn, this.vals);
    const [ok, v] = unanimous(outs);
    if (!ok) this.origin.split(this.faces, outs.map(splitKey));
    if (ck !== null && ck !== undefined) this.memo.set(ck, v);
    return v;
  }
  observe(fn, container) { return this._obs(fn, container === undefined ? null : cacheKey("in", container)); }
  byValue() { return this._obs((v) => v, "value"); }
  truth() { return this._obs((v) => R.truthy(v), "bool"); }
  _derive(fn) {
    const outs = apply(fn, this.vals);
    const [ok, v] = unanimous(outs);   // an error for every face is that error
    if (ok) return v;
    if (!outs.every((o) => o[0])) this.origin.split(this.faces, outs.map(splitKey));   // an error for some faces only
    return new Face(this.origin, this.faces, outs.map((o) => o[1]));
  }
  unary(op) { return this._derive(UNARY[op]); }
  arith(op, other, swapped) {
    const fn = swapped ? (x, y) => A(op, y, x) : (x, y) => A(op, x, y);
    if (other instanceof R.Symbolic) return this._pair(other, fn);
    return this._derive((v) => fn(v, other));
  }
  cmp(op, other) {
    if (other instanceof R.Symbolic) return this._pair(other, (x, y) => rawCmp(op, x, y), op);
    return this._obs((v) => rawCmp(op, v, other), cacheKey(op, other));
  }
  _pair(other, fn, op = null) {
    // an operation on two stand-ins: answered if the same for every pair of values
    if (other instanceof Tail) other.origin.collapse();
    const flat = [];
    for (const x of this.vals) for (const o of apply((y) => fn(x, y), other.vals)) flat.push(o);
    const [ok, v] = unanimous(flat);
    if (ok) return v;
    // The result depends on both.  Within the statement that rolled them, peel one face off one
    // class (a choice for this path only): repeated, this sweeps the faces from the top (or, for
    // `<`, the bottom) as a multiset evaluator would.
    const both = other !== this ? [this, other] : [this];
    const local = both.filter((x) => x.origin.isLocal());
    if (local.length) {
      let target, top;
      if (other !== this) {
        target = local[0];
        for (const x of local.slice(1)) if (cmpTop(x, target) > 0) target = x;
        top = true;
      } else {
        target = this; top = op !== "<" && op !== "<=";
      }
      const face = extremeFace(target, top);
      target.origin.split(target.faces, target.faces.map((f) => fkey(f) === fkey(face)));
    }
    // otherwise make both classes constant (split by value) and restart
    this.origin.split(this.faces, this.vals.map((x) => splitKey([true, x])), false);
    other.origin.split(other.faces, other.vals.map((y) => splitKey([true, y])), false);
    throw new Refine(new Set([this.origin.token, other.origin.token]));
  }
}
function topValue(x) {   // (1, highest value) for numbers, else (0, class size)
  if (numeric(x.vals)) return [1, x.vals.reduce((m, v) => (qcmp(v, m) > 0 ? v : m))];
  return [0, BigInt(x.faces.length)];
}
function cmpTop(x, y) {   // Python's max(key=(_top_value(x), len(x.faces))): the first of the largest
  const [a, b] = [topValue(x), topValue(y)];
  if (a[0] !== b[0]) return a[0] - b[0];
  const c = qcmp(a[1], b[1]);
  if (c) return c;
  return x.faces.length - y.faces.length;
}
function extremeFace(x, top) {
  if (numeric(x.vals)) {
    let best = 0;
    x.vals.forEach((v, i) => { if (top ? qcmp(v, x.vals[best]) > 0 : qcmp(v, x.vals[best]) < 0) best = i; });
    return x.faces[best];
  }
  return top ? x.faces[x.faces.length - 1] : x.faces[0];
}

class Tail extends R.Symbolic {
  // a*S + b for a chain total S that is K or more (never a plain value)
  constructor(origin, K, a = 1n, b = 0n) { super(); this.origin = origin; this.K = K; this.a = a; this.b = b; }
  sample() { return this._low(); }
  _low() { return qadd(qmul(this.a, BigInt(this.K)), this.b); }
  _settledFrom(c) { return Number(R.floorOfNumber(qdiv(qsub(c, this.b), this.a))) + 1; }   // the least S with one answer
  cmp(op, other) {
    if (other instanceof R.Symbolic) {
      if (other instanceof Face) return other._pair(this, (x, y) => rawCmp(op, y, x));
      this.origin.collapse();
    }
    if (isNumber(other)) {
      const need = this._settledFrom(other);
      if (this.K < need) this.origin.grow(need);
    }
    return rawCmp(op, this._low(), other);
  }
  _affine(a, b) { return qcmp(a, 0n) === 0 ? b : new Tail(this.origin, this.K, a, b); }
  _numOther(other) {
    if (other instanceof R.Symbolic) {
      if (other instanceof Face) other._pair(this, (x) => x);   // collapses this tail, refines the face
      this.origin.collapse();
    }
    return isNumber(other) ? other : null;
  }
  arith(op, other, swapped) {
    const c = this._numOther(other);
    if (c === null || !(op === "+" || op === "-" || op === "*")) this.origin.collapse();
    if (op === "+") return this._affine(this.a, qadd(this.b, c));
    if (op === "*") return this._affine(qmul(this.a, c), qmul(this.b, c));
    return swapped ? this._affine(A("-", 0n, this.a), qsub(c, this.b)) : this._affine(this.a, qsub(this.b, c));
  }
  unary(op) {
    if (op === "neg") return this._affine(A("-", 0n, this.a), A("-", 0n, this.b));
    if (op === "abs") {
      const need = this._settledFrom(0n);
      if (this.K < need) this.origin.grow(need);
      return qcmp(this._low(), 0n) >= 0 ? this : this.unary("neg");
    }
    return this.origin.collapse();
  }
  truth() {
    const need = this._settledFrom(0n);
    if (this.K < need) this.origin.grow(need);
    return qcmp(this._low(), 0n) !== 0;
  }
  observe() { return this.origin.collapse(); }
  byValue() { return this.origin.collapse(); }
}

class PoolList extends R.WatchedList {
  // a pool handed to a mechanic: a list in a canonical order.  Reading its order (an index, a
  // comparison) when its dice are not all alike makes the roll an ordered enumeration instead
  watch() { if (this.mixed && !this.origin.part.ordered) this.origin.makeOrdered(); }
}

// ------------------------------------------------------------------ multisets (multisets.py)
function distinctFaces(die) {
  const out = [];
  for (const f of die.faces) if (!out.some((x) => fkey(x) === fkey(f))) out.push(f);
  return out;
}
class Partition {
  // the classes of a roll's faces that the mechanic has not (yet) told apart
  constructor(die) {
    this.die = die;
    this.distinct = distinctFaces(die);
    this.rank = new Map(this.distinct.map((f, i) => [fkey(f), i]));
    this.counts = new Map();
    for (const f of die.faces) this.counts.set(fkey(f), (this.counts.get(fkey(f)) || 0n) + 1n);
    this.classes = [this.distinct];
    this._ordered = false;
    this._probs();
  }
  get ordered() { return this._ordered; }
  set ordered(value) { this._ordered = value; this.alts = new Map(); }
  alternatives(k) {
    let hit = this.alts.get(k);
    if (!hit) { hit = poolAlternatives(this.weights, BigInt(this.die.faces.length), k); this.alts.set(k, hit); }
    return hit;
  }
  size(faces) { return faces.reduce((s, f) => s + this.counts.get(fkey(f)), 0n); }
  _probs() { this.weights = this.classes.map((c) => this.size(c)); this.alts = new Map(); }
  refine(faces, keys) {   // split every class so that faces with different keys part
    const kmap = new Map(faces.map((f, i) => [fkey(f), keys[i]]));
    const outside = {};
    const next = [];
    let changed = false;
    for (const c of this.classes) {
      const groups = new Map();
      for (const f of c) {
        const k = kmap.has(fkey(f)) ? kmap.get(fkey(f)) : outside;
        if (!groups.has(k)) groups.set(k, []);
        groups.get(k).push(f);
      }
      changed = changed || groups.size > 1;
      for (const g of groups.values()) next.push(g);
    }
    if (changed) {
      this.classes = next.sort((x, y) => this.rank.get(fkey(x[0])) - this.rank.get(fkey(y[0])));
      this._probs();
    }
    return changed;
  }
}

const altsCache = new Map();
function poolAlternatives(weights, faces, k, what = null) {
  // [[counts per class, integer weight]], denominator: k dice over classes of `weights` physical faces
  // each (out of `faces`), every multiset weighted by its multinomial coefficient; how many is known
  // before one is made: past MAX_ALTERNATIVES or the memory budget, refused unmade
  const ck = weights.join(",") + "/" + faces + "/" + k;
  const hit = altsCache.get(ck);
  if (hit) return hit;
  const m = weights.length;
  const size = comb(k + m - 1, m - 1);
  const words = what || `a roll of ${k} ${k === 1 ? "die" : "dice"} read as ${m} kinds of face`;
  if (size > MAX_ALTERNATIVES) throw refuse(`more than ${commas(MAX_ALTERNATIVES)} distinguishable rolls of one roll`, words, size);
  note(words, size);
  hold(size * BigInt(m + 1));
  const out = [];
  const fk = factorial(k);
  const facts = [];
  for (let c = 0; c <= k; c++) facts.push(c === 0 ? 1n : facts[c - 1] * BigInt(c));
  const powers = weights.map((w) => { const p = [1n]; for (let c = 1; c <= k; c++) p.push(p[c - 1] * w); return p; });
  // every multiset, the first class's count highest first, made by a loop (no die has too many
  // faces for it), polling the deadline (multisets._pool_alternatives)
  const counts = new Array(m).fill(0);
  counts[0] = k;
  for (;;) {
    let w = fk;
    for (const c of counts) if (c > 1) w /= facts[c];
    counts.forEach((c, i) => { if (c) w *= powers[i][c]; });
    out.push([counts.slice(), w]);
    if (meterInUse !== null) meterInUse.poll();
    let i = m - 2;
    while (i >= 0 && counts[i] === 0) i--;
    if (i < 0) break;
    const rest = counts[m - 1] + 1;
    counts[i] -= 1;
    counts[m - 1] = 0;
    counts[i + 1] = rest;
  }
  if (altsCache.size > 4096) altsCache.clear();
  const res = [out, faces ** BigInt(k)];
  altsCache.set(ck, res);
  return res;
}

class Origin {
  // one roll's stand-ins within one statement's enumeration (token: its Replay).  A local origin is
  // one roll call on one path: `counts` holds its classes and how many dice fell in each
  constructor(token, part, ident, counts = null, serial = null) {
    this.token = token; this.part = part; this.ident = ident; this.counts = counts; this.serial = serial;
  }
  isLocal() { const rep = this.token; return this.counts !== null && rep.eng.active === rep && rep.serial === this.serial; }
  split(faces, keys, restart = true) {
    if (this.isLocal()) this.token.refine(this, faces, keys);   // throws Restart
    this.part.refine(faces, keys);
    if (restart) throw new Refine(new Set([this.token]));
  }
  makeOrdered() { this.part.ordered = true; throw new Refine(new Set([this.token])); }
}

// ------------------------------------------------------------------ dice laws (dice.py)
function rerolledDie(die, faces) {   // dice.rerolled_die: the die of kept faces, as a die with repeated faces
  if (!faces.items.length) return die;
  const N = BigInt(die.faces.length);
  const inF = (f) => faces.items.some((x) => fkey(x) === fkey(f));
  const cR = BigInt(die.faces.filter(inF).length);
  const distinct = distinctFaces(die);
  const counts = distinct.map((f) => BigInt(die.faces.filter((x) => fkey(x) === fkey(f)).length) * ((inF(f) ? 0n : N) + cR));
  let g = 0n;
  for (const c of counts) g = gcd(g, c);
  const out = [];
  distinct.forEach((f, i) => { for (let j = 0n; j < counts[i] / g; j++) out.push(f); });
  return new R.Die(die.name, out, die.custom, die.describe);
}
const explodeCache = new Map();
function explodeLaw(n, p, cap) {   // dice.explode_law: [[[A, B, C], probability]]
  const ck = `${n}|${p}|${cap}`;
  if (explodeCache.has(ck)) return explodeCache.get(ck);
  const q = qsub(1n, p);
  let out;
  if (n === 0) out = [[[0, 0, 0], 1n]];
  else if (cap === 0 || qcmp(p, 0n) === 0) out = cap === 0 ? [[[0, 0, n], 1n]] : [[[0, n, 0], 1n]];
  else {
    out = [];
    for (let x = 0; x < cap; x++) out.push([[x, n, 0], qmul(qmul(comb(x + n - 1, x), qpow(p, x)), qpow(q, n))]);
    for (let j = 0; j < n; j++) out.push([[cap, j, n - j], qmul(qmul(comb(cap - 1 + j, j), qpow(p, cap)), qpow(q, j))]);
    out = out.filter(([, pr]) => qcmp(pr, 0n) !== 0);
  }
  explodeCache.set(ck, out);
  return out;
}
function explodeMore(n, p, cap) {   // dice.explode_more: P(more than `cap` extra dice without the limit)
  const q = qsub(1n, p);
  if (n === 0 || qcmp(p, 0n) === 0) return 0n;
  let s = 0n;
  for (let x = 0; x <= cap; x++) s = qadd(s, qmul(qmul(comb(x + n - 1, x), qpow(p, x)), qpow(q, n)));
  return qsub(1n, s);
}
const weightOf = (die, inSet) => R.frac(BigInt(die.faces.filter(inSet).length), BigInt(die.faces.length));
const inPySet = (set) => (f) => set.items.some((x) => fkey(x) === fkey(f));

// ------------------------------------------------------------------ chains (chains.py)
class ChainLaw {
  // the exact law of the total successes S of m chains (first roll succeeds with p1, later ones with
  // p2): chains.py's numbers, computed over integers.  With p1 = a1/d1 and p2 = a2/d2,
  // P(S=s) = N[s] / (d1^m d2^s), N[s] = sum_b C(m,b) C(s-1,b-1) (a1 (d2-a2))^b (d1-a1)^(m-b) a2^(s-b),
  // so no fraction is reduced until a probability is read (BigInt gcds are slow; Python's are not)
  constructor(m, p1, p2, eps) {
    this.m = m; this.p1 = p1; this.p2 = p2;
    this.finite = qcmp(p1, 0n) === 0 || qcmp(p2, 0n) === 0 || m === 0;
    const q1 = qsub(1n, p1), q2 = qsub(1n, p2);
    this.probs = [];
    if (this.finite) {
      this.pmf = [qpow(q1, m)];
      if (qcmp(p1, 0n) !== 0 && m) {   // p2 == 0: S is binomial(m, p1)
        this.pmf = [];
        for (let s = 0; s <= m; s++) this.pmf.push(qmul(qmul(comb(m, s), qpow(p1, s)), qpow(q1, m - s)));
      }
      this.probs = this.pmf;
      this.K_max = this.cap = this.pmf.length;
      this.mean = this.pmf.reduce((acc, p, s) => qadd(acc, qmul(BigInt(s), p)), 0n);
      return;
    }
    this.mean = qdiv(qmul(BigInt(m), p1), q2);
    // the terms needed, known before one is computed (chains._ChainLaw): past MAX_TERMS, refused unmade
    if (qcmp(p2, 0n) > 0) {
      const terms = Math.ceil(Math.log(toFloat(eps)) / Math.log(toFloat(p2)) + m / toFloat(q2));
      const what = `${m === 1 ? "a chain" : `${m} chains`} going on ${numOf(p2)} ${numOf(p2) === 1n ? "time" : "times"} in ${denOf(p2)}`;
      note(what, terms, "terms");
      if (terms > MAX_TERMS) throw refuse(`more than ${commas(MAX_TERMS)} terms of a chain's law`, what, terms, "terms");
    }
    const a1 = numOf(p1), d1 = denOf(p1), a2 = numOf(p2), d2 = denOf(p2);
    this.d2 = d2; this.a2 = a2;
    this.base = d1 ** BigInt(m);                     // P(S=s) = N[s] / (base * d2^s)
    this.coef = [];                                  // C(m,b) (a1 (d2-a2))^b (d1-a1)^(m-b)
    for (let b = 0; b <= m; b++) this.coef.push(comb(m, b) * (a1 * (d2 - a2)) ** BigInt(b) * (d1 - a1) ** BigInt(m - b));
    this.a2pow = [1n];
    this.N = [(d1 - a1) ** BigInt(m)];
    this.totalN = this.N[0];                         // sum of P(S=s) for the s so far, over base * d2^(len-1)
    const epsN = numOf(eps), epsD = denOf(eps);
    // 1 - total >= eps, over integers: (scale - totalN) * epsD >= epsN * scale
    while ((this._scale() - this.totalN) * epsD >= epsN * this._scale()) this._more();
    this.K_max = this.N.length;
    this.cap = 4 * this.K_max + 64;
  }
  _scale() { return this.base * this.d2 ** BigInt(this.N.length - 1); }
  get pmf() { return this.probs; }
  set pmf(v) { this.probs = v; }
  _prob(s) {
    while (this.probs.length <= s) { const i = this.probs.length; this.probs.push(R.frac(this.N[i], this.base * this.d2 ** BigInt(i))); }
    return this.probs[s];
  }
  _more() {
    if (this.finite) { this.probs.push(0n); return; }
    checkDeadline();
    const s = this.N.length, m = this.m;
    while (this.a2pow.length <= s) this.a2pow.push(this.a2pow[this.a2pow.length - 1] * this.a2);
    let n = 0n;
    for (let b = 1; b <= Math.min(m, s); b++) n += this.coef[b] * comb(s - 1, b - 1) * this.a2pow[s - b];
    this.N.push(n);
    this.totalN = this.totalN * this.d2 + n;
  }
  _length() { return this.finite ? this.probs.length : this.N.length; }
  upto(K) {   // P(S=s) for s < K, and P(S >= K)
    while (this._length() < K) this._more();
    if (this.finite) { const pm = this.probs.slice(0, K); return [pm, qsub(1n, pm.reduce(qadd, 0n))]; }
    const pm = [];
    let sumN = 0n;
    for (let s = 0; s < K; s++) { pm.push(this._prob(s)); sumN = sumN * this.d2 + this.N[s]; }
    const scale = this.base * this.d2 ** BigInt(Math.max(K - 1, 0));
    return [pm, R.frac(scale - sumN, scale)];
  }
  condMean(K) {   // E[S | S >= K]
    const [pm, t] = this.upto(K);
    return qdiv(qsub(this.mean, pm.reduce((acc, p, s) => qadd(acc, qmul(BigInt(s), p)), 0n)), t);
  }
}
class ChainOrigin {
  constructor(token, state, law) { this.token = token; this.state = state; this.law = law; }
  grow(K) {
    if (K > this.law.cap) this.state.collapsed = true; else this.state.K = Math.max(this.state.K, K);
    throw new Refine(new Set([this.token]));
  }
  collapse() { this.state.collapsed = true; throw new Refine(new Set([this.token])); }
}

// ------------------------------------------------------------------ the replay roller (replay.py)
class Replay {
  // the roller for one statement: walks the tree of its rolls depth-first by re-evaluation and
  // returns the statement's values with their probabilities (see replay.py)
  constructor(eng) { this.eng = eng; this.origins = new Map(); this.serial = 0; }
  given(name) { return this.eng.given !== null && this.eng.given.given.has(name); }
  one(name, die) {
    if (this.given(name)) return this.eng.given.one(name, die);
    return this._roll(name, die, this._part(name, die), 1, true);
  }
  pool(name, die, count) {
    const k = Number(count);
    if (this.given(name)) return this.eng.given.pool(name, die, count);
    const part = this._part(name, die);
    if (k === 0) return [];
    if (part.ordered) return this._sequence(name, die, part, k);
    return this._roll(name, die, part, k, false);
  }
  chain(name, die, count, on, then) {
    const m = Number(count);
    if (this.given(name)) return this.eng.given.chain(name, die, count, on, then);
    const p1 = weightOf(die, inPySet(on)), p2 = weightOf(die, inPySet(then));
    if (qcmp(p1, 0n) > 0 && qcmp(p2, 1n) === 0 && m > 0) {
      throw new R.RulesError("Error", `roll '${name}': the chain never stops (every face of ${die.describe} continues it)`);
    }
    const law = this.eng.chainLaw(m, p1, p2);
    const ck = "chain:" + name;
    let state = this.eng.chains.get(ck);
    if (!state) { state = { K: 1, collapsed: false }; this.eng.chains.set(ck, state); }
    let origin = this.origins.get(ck);
    if (!origin || origin.law !== law) { origin = new ChainOrigin(this, state, law); this.origins.set(ck, origin); }
    let alts;
    if (law.finite) {
      alts = law.pmf.map((p, s) => [BigInt(s), p, false]).filter(([, p]) => qcmp(p, 0n) !== 0);
    } else {
      let K = Math.min(state.K, law.cap);
      if (state.collapsed) K = Math.max(K, law.K_max);
      const [pm, t] = law.upto(K);
      alts = pm.map((p, s) => [BigInt(s), p, false]).filter(([, p]) => qcmp(p, 0n) !== 0);
      alts.push(state.collapsed ? [BigInt(K), t, true] : [new Tail(origin, K), t, false]);
    }
    const den = alts.reduce((d, [, p]) => lcm(d, denOf(p)), 1n);
    return this._pick(alts.map(([v, p, t]) => [v, numOf(p) * (den / denOf(p)), t]), den);
  }
  reroll(name, die, count, faces) {
    if (this.given(name)) return this.eng.given.reroll(name, die, count, faces);
    const kept = rerolledDie(die, faces);
    return count === null ? this.one(name, kept) : this.pool(name, kept, count);
  }
  explode(name, die, count, on, cap) {
    const n = Number(count), most = Number(cap);
    if (this.given(name)) return this.eng.given.explode(name, die, count, on, cap);
    const part = this._part(name, die);
    if (part.ordered) {
      throw new R.RulesError("Error", `roll '${name}': the exact odds of an exploding roll whose order the mechanic reads are not computed; read it through count, sum, max or a comprehension`);
    }
    const hotF = inPySet(on);
    const p = weightOf(die, hotF);
    this.eng.noteExplode(name, most, explodeMore(n, p, most));
    const law = explodeLaw(n, p, most);
    const den = law.reduce((d, [, pr]) => lcm(d, denOf(pr)), 1n);
    const at = this.pos;
    const abc = this._pick(law.map(([v, pr]) => [v, numOf(pr) * (den / denOf(pr)), false]), den);
    const hot = new R.Die(die.name, die.faces.filter(hotF), die.custom, die.describe);
    const cold = new R.Die(die.name, die.faces.filter((f) => !hotF(f)), die.custom, die.describe);
    const items = [];
    [["explode", hot, abc[0]], ["other", cold, abc[1]], ["any", die, abc[2]]].forEach(([tag, d, k]) => {
      if (k) { const sub = `${name}:${tag}`; items.push(...this._roll(sub, d, this._part(sub, d), k, false)); }
    });
    const rank = part.rank;
    const r = (x) => rank.get(fkey(x instanceof Face ? x.faces[0] : x));
    items.sort((x, y) => r(x) - r(y));
    const out = new PoolList();
    out.push(...items);
    out.origin = new Origin(this, part, [name, "explode", at]);
    out.mixed = true;
    out.shape = JSON.stringify(abc) + items.map((x) => key(x, true)).join(",");
    return out;
  }
  // -- choice points
  _next() { let p = this.pos; while (this.pre.has(p)) p++; this.pos = p + 1; return p; }
  _take(p, nalts) {
    const c = p < this.path.length ? this.path[p] : 0;
    while (this.chosen.length <= p) { this.chosen.push(null); this.nalts.push(null); }
    this.chosen[p] = c;
    this.nalts[p] = nalts;
    return c;
  }
  _part(name, die) {
    const pk = name + "\u0000" + die.name + "\u0000" + facesKey(die.faces);   // a re-roll's kept-face die differs from its die
    let part = this.eng.parts.get(pk);
    if (!part) {
      part = new Partition(die);
      this.eng.parts.set(pk, part);
      const dot = name.lastIndexOf(".");
      const prefix = dot < 0 ? "" : name.slice(0, dot), roll = name.slice(dot + 1);
      const owner = prefix ? prefix.slice(prefix.lastIndexOf(".") + 1) : this.eng.mech.name;
      part.ordered = this.eng.ordered.has(owner + "\u0000" + roll);
    }
    return part;
  }
  _note(name, die, k, ordered = false) {
    // once per statement and roll, how many distinguishable rolls the statement could have to tell
    // apart at worst (every face told apart; its rolls multiply): what a refusal names (replay._note)
    const at = String(this.eng.stepAt);
    if (!this.eng.noted.has(at)) this.eng.noted.set(at, new Map());
    const seen = this.eng.noted.get(at);
    if (seen.has(name)) return;
    const f = BigInt(distinctFaces(die).length), kk = BigInt(k);
    seen.set(name, [k, die.name, ordered ? f ** kk : comb(kk + f - 1n, f - 1n)]);
    const size = [...seen.values()].reduce((acc, [, , w]) => acc * w, 1n);
    const kinds = new Set([...seen.values()].map(([k_, d]) => `${k_}\u0000${d}`));
    let parts;
    if (seen.size === 1 || kinds.size > 1) parts = [...seen].map(([n, [k_, d]]) => `${n} (${poolWords(k_, d)})`);
    else { const [k_, d] = [...kinds][0].split("\u0000"); parts = [...seen.keys(), `(each ${poolWords(k_, d)})`]; }
    const words = seen.size === 1 ? `the roll ${parts.join(" ")}`
      : parts.length > seen.size ? `the rolls ${parts.slice(0, -1).join(", ")} ${parts[parts.length - 1]} read together`
        : `the rolls ${parts.join(", ")} read together`;
    note(words + (ordered ? " die by die" : ""), size);
  }
  _roll(name, die, part, k, single) {   // a single die or an unordered pool, its classes split as this path says
    this._note(name, die, k);
    const p = this._next();
    let alts, den;
    if (single) { alts = part.weights.map((w, i) => [i, w]); den = BigInt(die.faces.length); } else [alts, den] = part.alternatives(k);
    const [shape, w] = alts[this._take(p, alts.length)];
    this.w *= w; this.d *= den;
    const classes = new Map();   // facesKey -> [class, count]
    if (single) { const c = part.classes[shape]; classes.set(facesKey(c), [c, 1]); } else {
      part.classes.forEach((c, i) => { if (shape[i]) classes.set(facesKey(c), [c, shape[i]]); });
    }
    for (const q of this.refs.get(p) || []) {
      const [, faces, parts, sizes] = this.points.get(q);
      const fk = facesKey(faces);
      const m = classes.get(fk)[1];
      classes.delete(fk);
      const [alts2, den2] = poolAlternatives(sizes, sizes.reduce((a, b) => a + b, 0n), m);
      const [counts, w2] = alts2[this._take(q, alts2.length)];
      this.pre.add(q);
      this.w *= w2; this.d *= den2;
      parts.forEach((c, i) => { if (counts[i]) classes.set(facesKey(c), [c, counts[i]]); });
    }
    const origin = new Origin(this, part, [name, p], classes, this.serial);
    const rank = part.rank;
    const items = [...classes.values()].sort((x, y) => rank.get(fkey(x[0][0])) - rank.get(fkey(y[0][0])));
    if (single) { const c = items[0][0]; return c.length === 1 ? c[0] : new Face(origin, c, c); }
    const out = new PoolList();
    for (const [c, m] of items) { const x = c.length === 1 ? c[0] : new Face(origin, c, c); for (let i = 0; i < m; i++) out.push(x); }
    out.origin = origin; out.mixed = items.length > 1;
    out.shape = items.map(([c, m]) => facesKey(c) + "x" + m).join(";");
    return out;
  }
  _sequence(name, die, part, k) {   // a pool whose order is read: k single dice in a row
    this._note(name, die, k, true);
    const p = this.pos;
    const items = [];
    for (let i = 0; i < k; i++) items.push(this._roll(name, die, part, 1, true));
    const out = new PoolList();
    out.push(...items);
    out.origin = new Origin(this, part, [name, "sequence", p]);
    out.mixed = true;
    out.shape = items.map((x) => key(x, true)).join(",");
    return out;
  }
  _pick(alts, den) {
    const [v, w, tainted] = alts[this._take(this._next(), alts.length)];
    this.w *= w; this.d *= den;
    if (tainted) this.tainted = true;
    return v;
  }
  refine(origin, faces, keys) {   // split class `faces` of a roll made on this path: a new choice point
    const groups = new Map();
    faces.forEach((f, i) => { if (!groups.has(keys[i])) groups.set(keys[i], []); groups.get(keys[i]).push(f); });
    const parts = [...groups.values()];
    const sizes = parts.map((g) => origin.part.size(g));
    const [alts] = poolAlternatives(sizes, sizes.reduce((a, b) => a + b, 0n), origin.counts.get(facesKey(faces))[1]);
    const q = this._next();
    if (q < this.path.length) throw new R.RulesError("Error", `${this.eng.mech.name}: the exact-odds engine lost its path`);
    this._take(q, alts.length);
    this.points.set(q, [origin.ident[1], faces, parts, sizes]);
    throw new Restart(this);
  }
  run(thunk, keyed = true) {   // [[value, weight, denominator, tainted weight]] over every path of thunk
    const eng = this.eng;
    for (;;) {
      const out = new Map();
      let path = [], points = new Map();
      try {
        for (;;) {
          this.path = path; this.points = points; this.pos = 0; this.chosen = []; this.nalts = [];
          const refs = new Map();
          for (const q of [...points.keys()].sort((a, b) => a - b)) {
            if (q < path.length) { const r = points.get(q)[0]; if (!refs.has(r)) refs.set(r, []); refs.get(r).push(q); }
          }
          this.refs = refs; this.pre = new Set();
          this.w = 1n; this.d = 1n; this.tainted = false;
          this.serial += 1;
          eng.tick();
          const outer = eng.active;
          eng.active = this;
          let v;
          try {
            v = thunk();
          } catch (e) {
            if (e instanceof Restart && e.rep === this) { path = this.chosen.slice(); continue; }
            throw e;
          } finally {
            eng.active = outer;
          }
          let k = null;
          if (keyed) { try { k = key(v, true); } catch (e) { if (e !== NOKEY) throw e; } }
          if (k === null) k = "path:" + out.size;
          const e = out.get(k);
          const w = this.w, d = this.d, tw = this.tainted ? w : 0n;
          if (!e) out.set(k, [v, w, d, tw]);
          else if (e[2] === d) { e[1] += w; e[3] += tw; } else {
            const L = lcm(e[2], d), a = L / e[2], b = L / d;
            e[1] = e[1] * a + w * b; e[2] = L; e[3] = e[3] * a + tw * b;
          }
          const chosen = this.chosen, nalts = this.nalts;
          let i = chosen.length - 1;
          while (i >= 0 && chosen[i] + 1 >= nalts[i]) i--;
          if (i < 0) return [...out.values()];
          path = chosen.slice(0, i).concat([chosen[i] + 1]);
          for (const q of [...points.keys()]) if (q > i) points.delete(q);
        }
      } catch (e) {
        if (e instanceof Refine && e.tokens.has(this)) { this.origins = new Map(); continue; }
        throw e;
      }
    }
  }
}

// ------------------------------------------------------------------ the aggregate fast path (aggregates.py)
class Capture {   // a roller that records what a roll asks for instead of rolling
  constructor() { this.asked = null; this.boom = null; }
  pool(name, die, count) { this.asked = [name, die, Number(count)]; return []; }
  reroll(name, die, count, faces) { if (count === null) throw new Unsupported(); return this.pool(name, rerolledDie(die, faces), count); }
  explode(name, die, count, on, cap) { this.asked = [name, die, Number(count)]; this.boom = [on, Number(cap)]; return []; }
  one() { throw new Unsupported(); }
  chain() { throw new Unsupported(); }
}
function explodeDenominator(die, k, on, cap) {   // one denominator for every multiset of an exploding pool
  const hotF = inPySet(on);
  const p = weightOf(die, hotF);
  const hot = BigInt(die.faces.filter(hotF).length), N = BigInt(die.faces.length);
  let den = 1n;
  for (const [[a, b, c], pr] of explodeLaw(k, p, cap)) den = lcm(den, denOf(pr) * hot ** BigInt(a) * (N - hot) ** BigInt(b) * N ** BigInt(c));
  return den;
}
function explodeAlternatives(die, groups, faces, k, on, cap, den) {
  const hotF = inPySet(on);
  const p = weightOf(die, hotF);
  const N = BigInt(die.faces.length);
  const count = (f) => BigInt(die.faces.filter((x) => fkey(x) === fkey(f)).length);
  const wHot = groups.map((g) => g.reduce((s, i) => s + (hotF(faces[i]) ? count(faces[i]) : 0n), 0n));
  const wAll = groups.map((g) => g.reduce((s, i) => s + count(faces[i]), 0n));
  const wCold = wAll.map((a, i) => a - wHot[i]);
  const hot = wHot.reduce((a, b) => a + b, 0n), cold = wCold.reduce((a, b) => a + b, 0n);
  const m = groups.length;
  const part = (weights, total, size) => {
    if (size === 0) return [[new Array(m).fill(0), 1n]];
    const idx = weights.map((w, i) => (w ? i : -1)).filter((i) => i >= 0);
    const [alts] = poolAlternatives(idx.map((i) => weights[i]), total, size);
    return alts.map(([counts, w]) => { const full = new Array(m).fill(0); idx.forEach((i, j) => { full[i] = counts[j]; }); return [full, w]; });
  };
  const parts = [];
  let size = 0;
  for (const [[a, b, c], pr] of explodeLaw(k, p, cap)) {
    const trio = [part(wHot, hot, a), part(wCold, cold, b), part(wAll, N, c)];
    size += trio[0].length * trio[1].length * trio[2].length;
    if (size > 50 * MAX_MULTISETS) throw new Unsupported();
    const scale = qdiv(qmul(pr, den), hot ** BigInt(a) * cold ** BigInt(b) * N ** BigInt(c));
    if (scale instanceof R.Frac) throw new Unsupported();
    parts.push([trio, scale]);
  }
  const res = new Map();
  for (const [[pa, pb, pc], scale] of parts) {
    for (const [ca, wa] of pa) for (const [cb, wb] of pb) for (const [cc, wc] of pc) {
      const counts = ca.map((x, i) => x + cb[i] + cc[i]);
      const ck = counts.join(",");
      const e = res.get(ck);
      if (e) e[1] += scale * wa * wb * wc; else res.set(ck, [counts, scale * wa * wb * wc]);
    }
  }
  return [[...res.values()], size];
}
function signature(kind, [ok, v]) {   // what aggregate `kind` can tell of one face's (kept?, value)
  if (!ok) return "n";
  if (kind === "len") return "y";
  if (kind === "count") return "y" + (v !== false && v !== R.ABSENT ? 1 : 0);
  if (kind === "any" || kind === "all") return "y" + (R.truthy(v) ? 1 : 0);
  return "y" + key(v, false);
}
function bindRefs(a, vals, ext, local) {
  const refs = [];
  for (const j of a.refs) {
    const v = vals.has(j) ? vals.get(j) : ext[`__agg${j}`];
    local[`__agg${j}`] = v;
    refs.push(v);
  }
  return refs;
}
function faceHit(a, i, fi, face, refs, local, ctx, memo) {   // (kept?, value) of one face for aggregate a
  const mk = i + "|" + fi + "|" + refs.map((v) => key(v, false)).join(",");
  let hit = memo.get(mk);
  if (!hit) {
    local[a.var] = face;
    const ok = a.cond === null || R.truthy(a.cond(local, ctx));
    hit = [ok, ok ? a.elem(local, ctx) : null];
    memo.set(mk, hit);
  }
  return hit;
}
function reaches(aggs, targets, j) {
  const stack = targets.slice(), seen = new Set();
  while (stack.length) {
    const i = stack.pop();
    if (i === j) return true;
    for (const r of aggs[i].refs) if (!seen.has(r)) { seen.add(r); stack.push(r); }
  }
  return false;
}
function* product(lists) {
  if (!lists.length) { yield []; return; }
  const [first, ...rest] = lists;
  for (const x of first) for (const tail of product(rest)) yield [x, ...tail];
}

function aggregateLaw(eng, plan, env) {   // aggregates.law: [[[value, w, den, 0]], work] or null
  try {
    return lawOf(eng, plan, env);
  } catch (e) {
    if (isControl(e)) throw e;
    if (e instanceof R.RulesError && e.kind === "TooLarge") throw e;   // an estimate refused it: the engine would do more
    return null;   // any error: the engine computes it again and reports it properly
  }
}
function lawOf(eng, plan, env) {
  const book = eng.book, ctx = eng.fixed, given = eng.given;
  const dice = new Map();
  for (const [name, roll] of plan.rolls) {
    const cap = new Capture();
    roll(env, new R.Ctx(cap));
    const [rname, die, k] = cap.asked;
    if (given !== null && given.given.has(rname)) return null;
    let boom = cap.boom;
    if (boom !== null) {
      boom = [boom[0], boom[1], explodeDenominator(die, k, boom[0], boom[1])];
      eng.noteExplode(rname, boom[1], explodeMore(k, weightOf(die, inPySet(boom[0])), boom[1]));
    }
    dice.set(name, [die, k, boom]);
  }
  for (const [m, p, f] of plan.checks) {   // an inlined call's arguments, checked as a call would
    const v = f(env, ctx);
    const prm = m.params.find((x) => x.name === p);
    const [ok, c] = R.fits(book, prm.type, v);
    if (!ok || typeof c !== typeof v || (typeof c === "object" && c !== null && c.constructor !== v.constructor) || !R.pyEq(c, v)) return null;
  }
  for (const [m, p, pool] of plan.poolArgs) {
    const [die] = dice.get(pool);
    const faces = distinctFaces(die);
    const prm = m.params.find((x) => x.name === p);
    const [ok, c] = R.fits(book, prm.type, faces);
    if (!ok || !R.pyEq(c, faces)) return null;
  }
  const aggs = plan.aggs;
  let work = 0;
  const runPool = (p, ext, only = null) => {   // {key: [out values, weight]} over the multisets of pool p
    const [die, k, boom] = dice.get(p);
    const own = only === null ? plan.own[p] : only;
    const outIdx = only === null ? plan.out[p] : only;
    const local = Object.assign(Object.create(null), env, ext);
    let memo = new Map();
    let faces = distinctFaces(die);
    const allFaces = faces;
    let weights = faces.map((f) => BigInt(die.faces.filter((x) => fkey(x) === fkey(f)).length));
    let groups = faces.map((_, fi) => [fi]);
    if (own.every((i) => aggs[i].refs.every((j) => aggs[j].pool !== p))) {
      // the tests and values read no aggregate of this pool: faces they treat alike form one class
      const classes = new Map();
      faces.forEach((f, fi) => {
        const sig = own.map((i) => {
          const a = aggs[i];
          const refs = bindRefs(a, new Map(), ext, local);
          return signature(a.kind, faceHit(a, i, fi, f, refs, local, ctx, memo));
        }).join("\u0001");
        if (!classes.has(sig)) classes.set(sig, []);
        classes.get(sig).push(fi);
      });
      if (classes.size < faces.length) {
        groups = [...classes.values()];
        faces = groups.map((g) => allFaces[g[0]]);
        weights = groups.map((g) => g.reduce((s, fi) => s + weights[fi], 0n));
        memo = new Map();
      }
    }
    let alts;
    if (boom === null) {
      // how many multisets, known before one is made: too many for this path, the engine tries (a
      // max may need fewer); far too many, and nothing could
      const kindSet = new Set(own.map((i) => aggs[i].kind));
      const words = `${[...kindSet].sort().join(" and ")} of ${poolWords(k, die.name)}`;
      const size = comb(k + weights.length - 1, weights.length - 1);
      note(words, size);
      if (size > BigInt(MAX_MULTISETS)) {
        if (size > MAX_ROLLS) throw refuse(`more than ${commas(MAX_ROLLS)} distinguishable rolls of one pool`, words, size);
        if (size > MAX_SUMMED && [...kindSet].every((x) => EVERY_FACE.has(x))) {
          // a sum tells every face apart: the engine would enumerate at least as many
          throw refuse(`more than ${commas(MAX_SUMMED)} distinguishable rolls of one summed pool`, words, size);
        }
        throw new Unsupported();
      }
      [alts] = poolAlternatives(weights, BigInt(die.faces.length), k, words);
    } else {
      const [on, most, bden] = boom;
      let size;
      [alts, size] = explodeAlternatives(die, groups, allFaces, k, on, most, bden);
      work += size;
    }
    if (alts.length > MAX_MULTISETS) throw new Unsupported();
    const res = new Map();
    work += alts.length;
    for (const [counts, w] of alts) {
      if (meterInUse !== null) meterInUse.poll();
      const vals = new Map();
      for (const i of own) {
        const a = aggs[i];
        const refs = bindRefs(a, vals, ext, local);
        const kept = a.pre.map((f) => f(local, ctx));
        counts.forEach((c, fi) => {
          if (!c) return;
          const hit = faceHit(a, i, fi, faces[fi], refs, local, ctx, memo);
          if (hit[0]) for (let x = 0; x < c; x++) kept.push(hit[1]);
        });
        for (const f of a.post) kept.push(f(local, ctx));
        vals.set(i, R.builtin("odds", a.kind, [kept]));
      }
      const kk = outIdx.map((i) => vals.get(i));
      const hk = kk.map((v) => key(v, false)).join(",");
      const e = res.get(hk);
      if (!e) res.set(hk, [kk, w]); else e[1] += w;
    }
    return res;
  };
  const pools = plan.rolls.map(([name]) => name);
  // 1. the values each interface aggregate can take (its pool reads nothing else)
  const joint = new Map();
  for (const p of pools) {
    const mine = plan.iface.filter((j) => aggs[j].pool === p);
    if (mine.length) {
      const need = plan.own[p].filter((j) => mine.includes(j) || reaches(aggs, mine, j)).sort((a, b) => a - b);
      const res = runPool(p, {}, need);
      const values = new Map();
      for (const [v] of res.values()) {
        const t = mine.map((j) => v[need.indexOf(j)]);
        values.set(t.map((x) => key(x, false)).join(","), t);
      }
      joint.set(p, [mine, [...values.entries()].sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0)).map((e) => e[1])]);
    }
  }
  // 2. each pool's law, once per value of what it reads
  const per = new Map(pools.map((p) => [p, new Map()]));
  let den = 1n;
  for (const p of pools) {
    const [die, k, boom] = dice.get(p);
    den *= boom === null ? BigInt(die.faces.length) ** BigInt(k) : boom[2];
  }
  const poolLaw = (p, assign) => {
    const ext = {};
    for (const j of plan.ext[p]) ext[`__agg${j}`] = assign.get(j);
    const ek = plan.ext[p].map((j) => key(assign.get(j), false)).join(",");
    let hit = per.get(p).get(ek);
    if (!hit) { hit = runPool(p, ext); per.get(p).set(ek, hit); }
    return hit;
  };
  // 3. join: every assignment of the interface values, every pool's matching results
  const owners = pools.filter((p) => joint.has(p));
  const out = new Map();
  let joins = 0;
  for (const combo of product(owners.map((p) => joint.get(p)[1]))) {
    const assign = new Map();
    owners.forEach((p, i) => joint.get(p)[0].forEach((j, x) => assign.set(j, combo[i][x])));
    const parts = [];
    let empty = false;
    for (const p of pools) {
      const entries = [];
      for (const [kk, w] of poolLaw(p, assign).values()) {
        const vals = new Map(plan.out[p].map((j, x) => [j, kk[x]]));
        if (plan.out[p].every((j) => !assign.has(j) || key(vals.get(j), false) === key(assign.get(j), false))) entries.push([vals, w]);
      }
      if (!entries.length) { empty = true; break; }
      parts.push(entries);
    }
    if (empty) continue;
    for (const pick of product(parts)) {
      if (meterInUse !== null) meterInUse.poll();
      joins += 1;
      if (joins > MAX_JOINS) throw new Unsupported();
      const local = Object.assign(Object.create(null), env);
      let w = 1n;
      for (const [vals, pw] of pick) { w *= pw; for (const [j, v] of vals) local[`__agg${j}`] = v; }
      const value = plan.final(local, ctx);
      const k = key(value, false);
      const e = out.get(k);
      if (!e) out.set(k, [value, w, den, 0n]); else e[1] += w;
    }
  }
  return [[...out.values()], work + joins];
}

// the engine's own copy of a statement (plan.RunsCompiler): a dice-free comprehension evaluates its
// body once per run of identical items (the engine hands a pool over as runs of one object per class)
export function compRuns(span, source, cond, elem) {
  const items = R.iterableOf(span, source);
  const out = [];
  let prev = compRuns, keep = false, val;
  for (const x of items) {
    if (x !== prev) {
      prev = x;
      keep = cond === null || R.truthy(cond(x));
      if (keep) val = elem(x);
    }
    if (keep) out.push(val);
  }
  return out;
}
// an inlined mechanic's result, converted to its declared type as a call would (aggregates.Returned)
export function returnedAs(mechanic, value) {
  if (value instanceof R.Range) value = value.toArray();
  const [ok, v] = R.fits(mechanic.book, mechanic.returns, value);
  if (!ok) throw new Unsupported();
  return v;
}

// ------------------------------------------------------------------ the engine (engine.py)
class Sub {
  // a (conditional) distribution of results with integer weights over one denominator:
  // key -> [value, weight, tail mean mass or null], `den`, and the tainted weight `tw`
  constructor() { this.entries = new Map(); this.den = null; this.tw = 0n; }
  _align(d) {
    if (this.den === null) { this.den = d; return 1n; }
    if (this.den === d) return 1n;
    const L = lcm(this.den, d), f = L / this.den;
    if (f !== 1n) {
      for (const e of this.entries.values()) { e[1] *= f; if (e[2] !== null) e[2] = qmul(e[2], f); }
      this.tw *= f;
    }
    this.den = L;
    return L / d;
  }
  put(k, value, w, d, extra, tw) {
    const f = this._align(d);
    w *= f;
    const e = this.entries.get(k);
    const x = extra === null ? null : qmul(extra, w);
    if (!e) this.entries.set(k, [value, w, x]);
    else { e[1] += w; if (x !== null) e[2] = e[2] === null ? x : qadd(e[2], x); }
    this.tw += tw * f;
  }
  add(sub, bw, bd, btw) {   // sub scaled by the branch probability bw/bd (of which btw/bd is tainted)
    const f = this._align(bd * sub.den);
    const scale = bw * f;
    for (const [k, [v, w, x]] of sub.entries) {
      const e = this.entries.get(k);
      const ww = w * scale;
      if (!e) this.entries.set(k, [v, ww, x === null ? null : qmul(x, scale)]);
      else { e[1] += ww; if (x !== null) e[2] = e[2] === null ? qmul(x, scale) : qadd(e[2], qmul(x, scale)); }
    }
    this.tw += (btw * sub.den + (bw - btw) * sub.tw) * f;
  }
}

class NoRoller { one() { throw new Rolled(); } pool() { throw new Rolled(); } chain() { throw new Rolled(); } reroll() { throw new Rolled(); } explode() { throw new Rolled(); } }

function group(rolls, fn, keep) {   // a statement with the rolls it reads made first
  return (env, ctx) => {
    const local = Object.assign(Object.create(null), env);
    for (const [name, roll] of rolls) local[name] = roll(local, ctx);
    const value = fn(local, ctx);
    if (keep === null) return value;
    return [...keep.map((k) => local[k]), value];
  };
}

class Engine {
  constructor(plans, plan, given, meter, maxEvals, eps) {
    this.book = plans.book; this.mech = plan.mechanic; this.plan = plan; this.given = given;
    this.meter = meter;
    this.stepAt = null;          // the plan step being enumerated (for the size notes)
    this.noted = new Map();      // step -> roll name -> [dice, die, worst-case distinguishable rolls]
    this.parts = new Map(); this.chains = new Map(); this.laws = new Map(); this.memo = new Map();
    this.evals = 0; this.maxEvals = maxEvals; this.eps = eps;
    this.fixed = new R.Ctx(new NoRoller(), "", 0, [Infinity]);   // bounded by the engine's own evaluation cap
    this.active = null;
    this.explodeCaps = new Map();
    this.ordered = new Set(plan.ordered.map(([a, b]) => a + "\u0000" + b));
  }
  noteExplode(name, cap, more) {
    const old = this.explodeCaps.get(name);
    if (!old || qcmp(more, old[1]) > 0) this.explodeCaps.set(name, [cap, more]);
  }
  tick() {
    this.evals += 1;
    if (this.maxEvals !== null && this.evals > this.maxEvals) {
      throw this.meter.refusal(`it takes more than ${commas(this.maxEvals)} evaluations`, "work");
    }
    this.meter.poll(16);
  }
  chainLaw(m, p1, p2) {
    const ck = `${m}|${p1}|${p2}`;
    let law = this.laws.get(ck);
    if (!law) { law = new ChainLaw(m, p1, p2, this.eps); this.laws.set(ck, law); }
    return law;
  }
  solve(bound) {
    for (let i = 0; i < 1000; i++) {
      try { return this.run(0, Object.assign(Object.create(null), bound)); } catch (e) { if (!(e instanceof Refine)) throw e; }
    }
    throw new R.RulesError("Error", `${this.mech.name}: the exact-odds engine did not settle`);
  }
  run(pos, env) {
    const plan = this.plan, steps = plan.steps;
    const final = pos === steps.length;
    let mk = null;
    if (final || steps[pos].random) {
      try {
        const live = final ? plan.result.live : steps[pos].live;
        mk = pos + "|" + live.filter((k) => k in env).map((k) => key(env[k], false)).join(",");
      } catch (e) { if (e !== NOKEY) throw e; mk = null; }
      if (mk !== null && this.memo.has(mk)) return this.memo.get(mk);
    }
    const res = final ? this.final(env) : this.step(pos, env);
    if (mk !== null) {
      this.meter.hold(res.entries.size + 1);     // kept for the rest of the computation
      this.memo.set(mk, res);
    }
    return res;
  }
  step(pos, env) {
    const st = this.plan.steps[pos];
    const fn = st.group ? (st.$fn || (st.$fn = group(st.rolls, st.fn, st.keep))) : st.fn;
    if (!st.random) {
      const [done, value] = this.once(fn, env);
      if (done) return this.next(pos, env, st, value);
    }
    const fast = st.fast && this.fast(st.fast, env);
    if (fast) return this.branch(pos, env, st, fast.map(([v, w, d, tw]) => [st.group ? [v] : v, w, d, tw]));
    this.stepAt = pos;
    for (;;) {
      const rep = new Replay(this);
      try {   // a fresh context per evaluation: the calls it makes are numbered alike each time
        return this.branch(pos, env, st, rep.run(() => fn(env, new R.Ctx(rep))));
      } catch (e) {
        if (e instanceof Refine && e.tokens.has(rep)) continue;
        throw e;
      }
    }
  }
  once(fn, env) {   // [true, value] for a statement the plan found dice-free; [false] if it rolled after all
    try {
      this.tick();
      return [true, fn(env, this.fixed)];
    } catch (e) {
      if (e instanceof Rolled) return [false];
      throw e;
    }
  }
  branch(pos, env, st, branches) {
    if (branches.length === 1 && !branches[0][3]) return this.next(pos, env, st, branches[0][0]);
    const acc = new Sub();
    for (const [value, w, d, tw] of branches) acc.add(this.next(pos, env, st, value), w, d, tw);
    return acc;
  }
  fast(plan, env) {
    const res = aggregateLaw(this, plan, env);
    if (res === null) return null;
    const [branches, work] = res;
    this.evals += work;
    this.tick();
    return branches;
  }
  next(pos, env, st, value) {
    if (st.group) {
      env = Object.assign(Object.create(null), env);
      st.keep.forEach((k, i) => { env[k] = value[i]; });
      value = value[value.length - 1];
    }
    if (st.kind === "require") {
      if (!R.truthy(value)) throw new R.RulesError("Error", `${this.mech.name}: ${st.message}`);
      return this.run(pos + 1, env);
    }
    const env2 = Object.assign(Object.create(null), env);
    env2[st.name] = value;
    return this.run(pos + 1, env2);
  }
  final(env) {
    const r = this.plan.result;
    const fn = r.$fn || (r.$fn = r.rolls.length ? group(r.rolls, r.fn, null) : r.fn);
    if (!r.random) {
      const [done, value] = this.once(fn, env);
      if (done) return this.outcomes([[value, 1n, 1n, 0n]]);
    }
    const fast = r.fast && this.fast(r.fast, env);
    if (fast) return this.outcomes(fast);
    this.stepAt = "result";
    for (;;) {
      const rep = new Replay(this);
      try {   // a fresh context per evaluation: the calls it makes are numbered alike each time
        return this.outcomes(rep.run(() => fn(env, new R.Ctx(rep))));
      } catch (e) {
        if (e instanceof Refine && e.tokens.has(rep)) continue;
        throw e;
      }
    }
  }
  outcomes(branches) {
    const acc = new Sub();
    for (const [value, w, d, tw] of branches) this.outcome(acc, value, w, d, tw);
    return acc;
  }
  outcome(acc, value, w, d, tw) {
    value = this.mech.returned(value);
    const [v, tailMean] = this.settle(value);
    acc.put(key(v, false), v, w, d, tailMean, tw);
  }
  settle(value) {
    // a final result: no stand-in for several faces may remain (split them); a chain's tail becomes
    // an OrMore bucket (grown first so that its mass is below 1e-12): [value, its exact conditional mean]
    if (value instanceof Face) value.origin.split(value.faces, value.vals.map((v) => splitKey([true, v])));
    if (value instanceof Tail) {
      const law = value.origin.law, K = value.K;
      if (K < law.K_max) value.origin.grow(law.K_max);
      return [new OrMore(value._low(), qcmp(value.a, 0n) > 0), qadd(qmul(value.a, law.condMean(K)), value.b)];
    }
    if (Array.isArray(value)) return [value.map((x) => this.settle(x)[0]), null];
    if (value instanceof R.Record) return [new R.Record([...value.fields].map(([k, x]) => [k, this.settle(x)[0]])), null];
    if (value instanceof R.PySet) return [new R.PySet(value.items.map((x) => this.settle(x)[0])), null];
    return [value, null];
  }
}

// ------------------------------------------------------------------ order of outcomes (result.py)
function memberOrder(book) {
  const order = new Map();
  for (const [name, e] of book.enums) e.members.forEach((m, i) => order.set(name + "\u0000" + m.name, i));
  for (const [name, d] of book.dice) if (d.custom) distinctFaces(d).forEach((f, i) => order.set(name + "\u0000" + f.name, i));
  return order;
}
function sortKey(v, order) {
  if (v instanceof OrMore) return [0n, v.n, v.up ? 1n : -1n];
  if (typeof v === "boolean") return [1n, v ? 1n : 0n];
  if (isNumber(v)) return [0n, v, 0n];
  if (v instanceof R.Sym) { const o = order.get(v.owner + "\u0000" + v.name); return [2n, o === undefined ? 1000000n : BigInt(o), v.name]; }
  if (typeof v === "string") return [3n, v];
  if (Array.isArray(v)) return [4n, BigInt(v.length), v.map((x) => sortKey(x, order))];
  if (v instanceof R.Record) return [5n, [...v.fields.values()].map((x) => sortKey(x, order))];
  if (v instanceof R.PySet) return [6n, v.items.map((x) => sortKey(x, order)).sort(compareKeys)];
  if (v === R.ABSENT) return [7n];
  return [8n, R.pyRepr(v)];
}
function compareText(a, b) {   // Python's str order: by code point
  const x = [...a], y = [...b];
  for (let i = 0; i < x.length && i < y.length; i++) {
    const c = x[i].codePointAt(0) - y[i].codePointAt(0);
    if (c) return c;
  }
  return x.length - y.length;
}
function compareKeys(a, b) {
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < a.length && i < b.length; i++) { const c = compareKeys(a[i], b[i]); if (c) return c; }
    return a.length - b.length;
  }
  if (typeof a === "string" && typeof b === "string") return compareText(a, b);
  if (isNumber(a) && isNumber(b)) return qcmp(a, b);
  return 0;
}

// `values` (results of a mechanic of `book`) in the order `rules odds` lists them
export function sortedValues(book, values) {
  const order = memberOrder(book);
  return values.map((v) => [sortKey(v, order), v]).sort((x, y) => compareKeys(x[0], y[0])).map((x) => x[1]);
}

// ------------------------------------------------------------------ the API
export class Plans {   // a book's dice mechanics' plans (generated: <book>.odds.mjs)
  constructor(book, plans) { this.book = book; this.plans = plans; }
  has(name) { return this.plans.has(name); }
}

// The exact distribution of a dice mechanic's result for `inputs` (a Map or object of parameter ->
// value, plain JS values welcome as in Book.call); `options.rolls` fixes rolls by name, as
// `rules odds` does.  The computation runs within a budget stated as Python's (odds/budget.py):
// `options.budget` {seconds, cells, evaluations, steps} (default: 5 s, 4,000,000 cells, 2,000,000
// evaluations), `options.maxEvaluations` caps the evaluations (distribution's _max_evals).
// Returns {outcomes: [{value, p}], mean, exact, errorBound, explodeCaps: [{roll, cap, p}], evaluations};
// throws a RulesError: InputError (a parameter), NoDice, TooLarge (over the budget, in Python's
// words: what ran out, the largest estimate, what to try), Error.
export function distribution(plans, name, inputs = {}, options = {}) {
  const book = plans.book;
  const mech = book.mechanic(name);
  const plan = plans.plans.get(name);
  if (!plan) throw new R.RulesError("NoDice", `${book.id}:${name} rolls no dice, so it has no odds; use \`rules call\` for its value`);
  const entries = inputs instanceof Map ? [...inputs] : Object.keys(inputs).map((k) => [k, inputs[k]]);
  const params = new Set(mech.params.map((p) => p.name));
  const given = new Map();
  const opts = options.rolls instanceof Map ? [...options.rolls] : Object.entries(options.rolls || {});
  for (const [k, v] of opts) given.set(k, R.input(v));
  const kwargs = [];
  for (const [k, v] of entries) {
    if ((mech.rolls.includes(k) || k.includes(".")) && !params.has(k)) given.set(k, R.input(v)); else kwargs.push([k, R.input(v)]);
  }
  const values = mech.bind([], kwargs);
  const bound = Object.create(null);
  mech.params.forEach((p, i) => { bound[p.name] = values[i]; });
  const meter = new Meter(options.budget || {});
  const maxEvals = options.maxEvaluations === undefined || options.maxEvaluations === null ? meter.budget.evaluations : options.maxEvaluations;
  const outer = meterInUse;
  meterInUse = meter;
  try {
    return solve(plans, plan, name, given, bound, meter, maxEvals);
  } catch (e) {
    if (!(e instanceof R.RulesError) || e.kind !== "TooLarge") throw e;
    throw tooLarge(e.reason, e.largest, e.why, subject(book, name, bound, given), hints(book, mech, plan, bound, given, e));
  } finally {
    meterInUse = outer;
  }
}
function subject(book, name, bound, given) {   // engine._subject: "book:mech(n=2, ...)"
  let shown = [...Object.entries(bound), ...given].map(([k, v]) => `${k}=${R.show(v)}`).join(", ");
  if (shown.length > 80) shown = shown.slice(0, 79) + "…";
  return `${book.id}:${name}(${shown})`;
}
function hints(book, mech, plan, bound, given, err) {   // engine._hints: fewer dice, a roll given by name, more time
  const out = [];
  const sizes = mech.params.map((p) => p.name).filter((p) => plan.counts.includes(p) && typeof bound[p] === "bigint" && bound[p] > 1n);
  if (sizes.length) out.push(`fewer dice (a smaller ${sizes.join(" or ")})`);
  const free = mech.rolls.filter((r) => !given.has(r));
  if (free.length) out.push(`a roll given by name (${free[0]}=...)`);
  out.push(`\`rules call ${book.id}:${mech.name}\` for one random roll`);
  if (err.why === "time") out.push("more time");
  return out;
}
function solve(plans, plan, name, given, bound, meter, maxEvals) {
  const book = plans.book;
  let eps = TAIL_EPS, evaluations = 0, eng, res, tainted;
  for (let i = 0; i < 4; i++) {
    eng = new Engine(plans, plan, given.size ? new R.GivenRoller(given) : null, meter, maxEvals, eps);
    res = eng.solve(bound);
    evaluations += eng.evals;
    tainted = R.frac(res.tw, res.den);
    if (qcmp(tainted, TAIL_EPS) < 0) break;
    eps = qdiv(eps, 2n ** 20n);
  }
  if (eng.given !== null) {
    const unknown = [...given.keys()].filter((k) => !eng.given.used.has(k)).sort();
    if (unknown.length) throw new R.RulesError("NotFound", `unknown roll '${unknown[0]}' in ${book.id}:${name}`, { name: unknown[0] });
  }
  const order = memberOrder(book);
  const items = [...res.entries.values()].filter((e) => e[1]).map((e) => [sortKey(e[0], order), e]);
  items.sort((x, y) => compareKeys(x[0], y[0]));
  const den = res.den;
  const outcomes = items.map(([, [v, w]]) => ({ value: v, p: R.frac(w, den) }));
  let mean = null;
  if (outcomes.length && items.every(([, [v]]) => isNumber(v) || v instanceof OrMore)) {
    let mass = 0n;
    for (const [, [v, w, x]] of items) mass = qadd(mass, v instanceof OrMore ? x : qmul(w, v));
    mean = qdiv(mass, den);
  }
  const total = outcomes.reduce((s, o) => qadd(s, o.p), 0n);
  if (qcmp(total, 1n) !== 0) throw new Error(`probabilities sum to ${total}`);   // a bug, never a rounding
  return { mechanic: name, inputs: bound, outcomes, mean, exact: qcmp(tainted, 0n) === 0, errorBound: tainted, evaluations, steps: meter.steps,
    explodeCaps: [...eng.explodeCaps].sort((a, b) => compareText(a[0], b[0])).map(([roll, [cap, p]]) => ({ roll, cap, p })) };
}
