/* "Try it": a small form under every mechanic of a rule page, run in the browser, in words.
 *
 * Loaded lazily by rules_dsl.js (as <script type="module">) when a form's place scrolls into
 * view (or a fold holding one opens); each form is built when its place nears the screen.  Each
 * `div.rules-try[data-book][data-mechanic]` (written by the page renderer) gets a form built
 * from `book.signature(mechanic)` of the book's module in ./js/ (rules_dsl.jsgen, generated
 * from the checked AST): a number field per whole-number parameter with its declared min and
 * max, a select per enum, boolean or die face, a text field otherwise; dice mechanics roll
 * from a seed (a "Roll again" button draws a new one), so a result can be reproduced with
 * `rules call --seed`, unless the faces of a roll are typed in its own field (as `rules call`
 * takes `dice=4,6`).  Everything a player reads is in words (the book's display forms,
 * `book.words`: labels, choices, hints, the answer as the mechanic says it, "yes"/"no");
 * the fields' names stay the identifiers.  An input the rules refuse is said beside its field.
 * Only textContent is used, never HTML: names come from a book, which is data.
 */
import * as R from "./js/runtime.mjs";
import BOOKS from "./js/books.mjs";

const modules = new Map();
let uid = 0;
let firstResult = false;

function loadBook(id) {
  if (!BOOKS.includes(id)) return Promise.resolve(null);   // no module: the back end refused this book
  if (!modules.has(id)) {
    modules.set(id, import(new URL(`./js/${encodeURIComponent(id)}.mjs`, import.meta.url).href).then((m) => m.default));
  }
  return modules.get(id);
}

function el(tag, props, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (k === "text") e.textContent = v; else if (k === "className") e.className = v; else e.setAttribute(k, v);
  }
  for (const c of children) if (c) e.appendChild(c);
  return e;
}

// the plain value of a text field for a parameter of type t ("" = not given): a list is
// written with commas ("3, 5"), a fraction as 7/2 or 3.5; what does not fit goes to the
// runtime as text, which says why in an InputError naming the parameter
function parseText(book, t, text) {
  const s = text.trim();
  if (s === "") return undefined;
  if (t.k === "text") return text;
  if (t.k === "list") {
    return s.replace(/^\[|\]$/g, "").split(",").map((x) => x.trim()).filter((x) => x !== "").map((x) => parseText(book, t.item, x));
  }
  const list = t.k === "union" && t.options.find((o) => o.k === "list");
  if (list && (s.includes(",") || s.startsWith("["))) return parseText(book, list, s);
  const named = book.words.read(t, s);      // a member or face typed in words ("army symbol") or by name
  if (named !== undefined) return named;
  if (s === "absent") return null;
  if (s === "true" || s === "false") return s === "true";
  if (/^-?\d+$/.test(s)) return BigInt(s);
  const f = /^(-?\d+)\/(\d+)$/.exec(s);
  if (f && BigInt(f[2]) !== 0n) return R.frac(BigInt(f[1]), BigInt(f[2]));
  if (/^-?(\d+\.\d*|\.\d+)$/.test(s)) return R.input(Number(s));
  return s;
}

function choices(book, t) {   // [label, value] for a select (labels in words), or null for a free field
  if (t.k === "bool") return [["yes", true], ["no", false]];
  if (t.k === "enum") return book.enums.get(t.name).members.map((m) => [book.words.member(t.name, m.name), m.name]);
  if (t.k === "die") {
    const seen = [];
    for (const f of book.dice.get(t.name).faces) if (!seen.some((x) => R.pyEq(x, f))) seen.push(f);
    return seen.map((f) => [f instanceof R.Sym ? book.words.member(t.name, f.name) : String(f), f instanceof R.Sym ? f.name : f]);
  }
  if (t.k === "range" && t.hi - t.lo <= 0n) return [[String(t.lo), t.lo]];
  return null;
}

function field(book, box, p, onChange) {
  const id = `rules-try-${++uid}`;
  const wrap = el("div", { className: "rules-try-field" });
  const label = el("label", { for: id, className: "rules-try-label", text: R.capitalised(p.label || p.name) });
  const hint = el("span", { className: "rules-try-hint", id: `${id}-hint`, text: p.describeWords || p.describe });
  const err = el("span", { className: "rules-try-error", id: `${id}-err`, "aria-live": "polite" });
  const opts = choices(book, p.type);
  let input, read;
  if (opts) {
    input = el("select", { id, name: p.name });
    opts.forEach(([text], i) => input.appendChild(el("option", { value: String(i), text })));
    const def = p.default === undefined ? -1 : opts.findIndex(([, v]) => R.pyEq(R.input(v), p.default));
    input.value = String(def < 0 ? 0 : def);
    read = () => opts[Number(input.value)][1];
  } else if (p.type.k === "range" || p.type.k === "int") {
    input = el("input", { id, name: p.name, type: "number", step: "1", inputmode: "numeric" });
    if (p.type.k === "range") { input.min = String(p.type.lo); input.max = String(p.type.hi); }
    const start = p.default !== undefined ? p.default : p.type.k === "range" ? p.type.lo : undefined;
    if (start !== undefined) input.value = R.show(start);
    read = () => (input.value.trim() === "" ? (input.validity.badInput ? "?" : undefined) : parseText(book, p.type, input.value));
  } else {
    input = el("input", { id, name: p.name, type: "text", autocomplete: "off", spellcheck: "false" });
    if (p.default !== undefined) input.value = book.words.value(p.default);
    read = () => parseText(book, p.type, input.value);
  }
  input.setAttribute("aria-describedby", `${id}-hint ${id}-err`);
  input.addEventListener("input", onChange);
  input.addEventListener("change", onChange);
  wrap.append(label, input, hint, err);
  box.appendChild(wrap);
  return { name: p.name, label: p.label || p.name, describe: p.describeWords || p.describe, input, err, read,
    required: p.default === undefined };
}

function build(book, box, mechanic) {
  let sig;
  try { sig = book.signature(mechanic); } catch (e) { return; }
  const title = sig.title || mechanic;
  const form = el("form", { className: "rules-try-form", "aria-label": `Try it: ${title}` });
  form.addEventListener("submit", (e) => e.preventDefault());
  form.appendChild(el("p", { className: "rules-try-title", text: "Try it" }));
  const grid = el("div", { className: "rules-try-fields" });
  form.appendChild(grid);
  const out = el("output", { className: "rules-try-result", "aria-live": "polite" });
  const odds = readOdds(box);
  const oddsBox = el("div", { className: "rules-try-odds", "aria-live": "polite" });
  const fields = [], given = [];
  let seed = null;
  const run = () => {
    const inputs = new Map(), missing = [];
    for (const f of fields) {
      f.err.textContent = "";
      f.input.removeAttribute("aria-invalid");
      const v = f.read();
      if (v !== undefined) inputs.set(f.name, v); else if (f.required) missing.push(f.label);
    }
    out.classList.remove("rules-try-failed");
    if (missing.length) { out.textContent = `Fill in ${missing.join(", ")}`; return; }   // not an error yet
    for (const r of given) { r.err.textContent = ""; r.input.removeAttribute("aria-invalid"); }
    try {
      const options = sig.rolls.length ? { seed: Number(seed.input.value) || 0, rolls: new Map() } : {};
      for (const r of given) {
        const faces = r.input.value.split(",").map((x) => x.trim()).filter((x) => x !== "")
          .map((x) => (/^-?\d+$/.test(x) ? BigInt(x) : x));
        if (faces.length) options.rolls.set(r.name, faces.length === 1 ? faces[0] : faces);
      }
      const { result, rolls } = book.call(mechanic, inputs, options);
      out.textContent = book.answer(mechanic, result, inputs);
      if (sig.rolls.length) {
        const made = [...rolls].map(([k, v]) => `${rollWords(book, mechanic, k)} ${book.words.value(v)}`).join("; ");
        out.appendChild(el("span", { className: "rules-try-rolls", text: ` (rolled: ${made || "nothing"})` }));
      }
      if (sig.rolls.length) showOdds(odds, box, mechanic, sig, fields, inputs, oddsBox);
      if (!firstResult) { firstResult = true; performance.mark("rules-try-first-result"); }
    } catch (e) {
      if (!(e instanceof R.RulesError)) throw e;
      const f = e.kind === "InputError" && fields.find((x) => x.name === e.param);
      const r = !f && given.find((x) => e.message.includes(`roll '${x.name}'`));
      if (f || r) {
        const at = f || r;
        // in words, naming the field by its label; the language's own message for designers (its title)
        at.err.textContent = f ? `${R.capitalised(f.label)}: must be ${f.describe}` : `${R.capitalised(at.label)}: not faces of these dice`;
        at.err.title = e.message;
        at.input.setAttribute("aria-invalid", "true");
        out.textContent = `Needs a valid ${at.label}`;
      } else {
        out.textContent = e.message.startsWith(`${mechanic}: `) ? R.capitalised(e.message.slice(mechanic.length + 2)) : e.message;
      }
      out.classList.add("rules-try-failed");
    }
  };
  for (const p of sig.params) fields.push(field(book, grid, p, run));
  if (sig.rolls.length) {
    const rollLabels = sig.rollLabels || sig.rolls;
    seed = field(book, grid, { name: "seed", label: "seed", type: { k: "int" }, default: BigInt(Math.floor(Math.random() * 1000)),
      describe: `the dice (${rollLabels.join(", ")}) are rolled from this number; the same number rolls the same dice` }, run);
    sig.rolls.forEach((name, i) => {   // a roll given by hand (faces read off the table), else from the seed
      given.push(field(book, grid, { name, label: `roll: ${rollLabels[i]}`, type: { k: "text" },
        describe: "the faces rolled, e.g. 4, 6 (empty: rolled from the seed)" }, run));
      given[given.length - 1].input.name = `roll:${name}`;
    });
    const again = el("button", { type: "button", className: "rules-try-roll", text: "Roll again" });
    again.addEventListener("click", () => { seed.input.value = String(Math.floor(Math.random() * 1000000)); run(); });
    form.appendChild(again);
  }
  form.appendChild(out);
  if (sig.rolls.length) form.appendChild(oddsBox);
  box.appendChild(form);
  box.dataset.ready = "";
  run();
}

// The exact odds the page holds for a dice mechanic (data-odds, written by the page renderer
// from the same rows as its odds table): [{inputs: {param: shown value}, rows: [[result,
// percent, at least]], mean}].  Shown for the form's inputs when they are among them; else
// the form says the page does not hold them and gives the `rules odds` command that computes them.
// a roll made (its name, or `callee.roll` inside a called mechanic) in words
function rollWords(book, mechanic, key) {
  const parts = key.split(".");
  if (parts.length === 1) return book.words.roll(mechanic, key);
  return `${book.words.roll(parts[parts.length - 2], parts[parts.length - 1])} (${book.words.mechanic(parts[parts.length - 2])})`;
}

function readOdds(box) {
  try { return JSON.parse(box.dataset.odds || "[]"); } catch (e) { return []; }
}

function showOdds(odds, box, mechanic, sig, fields, inputs, oddsBox) {
  const shown = {};
  for (const p of sig.params) {
    if (inputs.has(p.name)) shown[p.name] = R.show(inputs.get(p.name));
    else if (p.default !== undefined) shown[p.name] = R.show(p.default);
  }
  const same = (a) => Object.keys(a).length === Object.keys(shown).length && Object.keys(a).every((k) => a[k] === shown[k]);
  const block = odds.find((b) => same(b.inputs));
  oddsBox.replaceChildren();
  if (block) {
    oddsBox.appendChild(el("p", { className: "rules-try-odds-title",
      text: `Exact odds for these inputs${block.mean ? ` (mean ${block.mean})` : ""}:` }));
    const table = el("table", { className: "rules-try-odds-table" });
    const head = el("tr");
    for (const h of [sig.result || "Result", "Probability", "At least"]) head.appendChild(el("th", { scope: "col", text: h }));
    table.appendChild(el("thead", {}, head));
    const body = el("tbody");
    for (const [value, percent, atLeast] of block.rows) {
      body.appendChild(el("tr", {}, el("td", { text: value }), el("td", { text: percent }), el("td", { text: atLeast })));
    }
    table.appendChild(body);
    oddsBox.appendChild(el("div", { className: "rules-try-odds-scroll", tabindex: "0", role: "region",
      "aria-label": `Exact odds: ${sig.title || mechanic}` }, table));
  } else {
    const args = Object.entries(shown).map(([k, v]) => `${k}=${v.includes(" ") ? JSON.stringify(v) : v}`).join(" ");
    oddsBox.appendChild(el("p", { className: "rules-try-odds-none",
      text: `Exact odds for these inputs were not computed for this page${odds.length ? ` (it holds them for ${odds.length} other set${odds.length > 1 ? "s" : ""} of inputs)` : ""}.` }));
    // the command that computes them, for designers: a tap away
    oddsBox.appendChild(el("details", { className: "rules-try-designer" },
      el("summary", { text: "Compute them on the command line" }),
      el("code", { text: `rules odds ${box.dataset.book}:${mechanic}${args ? " " + args : ""}` })));
  }
}

// A form is built when its place comes near the screen (a section page can hold dozens of
// mechanics; a closed fold's forms are not rendered, so they wait until it opens).
async function fill(box) {
  if (box.hasAttribute("data-pending")) return;
  box.setAttribute("data-pending", "");
  const book = await loadBook(box.dataset.book);
  if (book && !box.firstChild) build(book, box, box.dataset.mechanic);
}

function init() {
  const boxes = document.querySelectorAll("div.rules-try[data-book][data-mechanic]");
  if (!("IntersectionObserver" in window)) { boxes.forEach(fill); return; }
  const io = new IntersectionObserver((entries) => {
    for (const e of entries) if (e.isIntersecting) { io.unobserve(e.target); fill(e.target); }
  }, { rootMargin: "600px 0px" });
  boxes.forEach((b) => io.observe(b));
}

init();
