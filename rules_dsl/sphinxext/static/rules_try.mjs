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
 *
 * A dice mechanic's form (`data-dice`) also shows the exact odds of its result for whatever
 * inputs are typed, as a bar chart (rules_chart.mjs) with the table one tap away: the page's own
 * odds (`data-odds`, the rows of its "Exact odds" table) when it holds these inputs, else worked
 * out in the browser by the JavaScript twin of `rules odds` (rules_odds.mjs: ./js/odds.mjs,
 * loaded only then, in a worker); past its budget the form says the case is too large to work
 * out here and gives the `rules odds` command.  "Compare" draws the same mechanic with one input
 * changed beside it (as `rules odds --vs`).  Each new input replaces what was shown at once, so
 * nothing on screen is ever for other inputs.  The "Exact odds" fold's tables get their charts
 * when it opens.
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
  // set(text): the value as values.show writes it (the inputs of the odds a page holds)
  const set = (text) => {
    if (opts) {
      const i = opts.findIndex(([, v]) => R.show(R.input(v)) === text);
      if (i >= 0) input.value = String(i);
    } else input.value = text;
  };
  return { name: p.name, label: p.label || p.name, describe: p.describeWords || p.describe, input, err, read, set,
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
  const fields = [], given = [];
  const dice = box.hasAttribute("data-dice") || sig.rolls.length > 0;
  const odds = dice ? oddsView(book, box, mechanic, sig, fields) : null;
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
    if (odds) odds.update(inputs, missing.length === 0);       // the exact odds follow the inputs, not the dice
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
  if (odds && odds.held.length) {   // open on the first inputs the page holds odds for: no engine to load yet
    for (const f of fields) if (odds.held[0].inputs[f.name] !== undefined) f.set(odds.held[0].inputs[f.name]);
  }
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
  if (odds) form.appendChild(odds.box);
  box.appendChild(form);
  box.dataset.ready = "";
  if (odds) odds.start(run);
  run();
}

// a roll made (its name, or `callee.roll` inside a called mechanic) in words
function rollWords(book, mechanic, key) {
  const parts = key.split(".");
  if (parts.length === 1) return book.words.roll(mechanic, key);
  return `${book.words.roll(parts[parts.length - 2], parts[parts.length - 1])} (${book.words.mechanic(parts[parts.length - 2])})`;
}

// ------------------------------------------------------------------ exact odds, drawn
// The exact odds the page holds for a dice mechanic (data-odds, written by the page renderer from
// the same rows as its "Exact odds" table): [{inputs: {param: shown value}, label, mean, folded,
// rows: [[result, percent, at least, "p/q"]]}]
function readOdds(box) {
  try { return JSON.parse(box.dataset.odds || "[]"); } catch (e) { return []; }
}
let oddsModule = null, chartModule = null;
const loadOdds = () => (oddsModule = oddsModule || import("./rules_odds.mjs"));
const loadChart = () => (chartModule = chartModule || import("./rules_chart.mjs"));
const chance = (frac) => { const [n, d] = String(frac).split("/"); return Number(n) / Number(d || 1); };
let views = 0;

// the rows of one law, or of two beside each other, as the chart draws them
function chartRows(law, other) {
  if (!other) return law.rows.map(([label, pct, , p], i) => ({ label, a: { p: chance(p), text: pct }, folded: law.folded > 0 && i === law.rows.length - 1 }));
  return other.rows.map(([label, pa, pb, fa, fb], i) => ({ label, a: { p: chance(fa), text: pa }, b: { p: chance(fb), text: pb },
    folded: other.folded > 0 && i === other.rows.length - 1 }));
}
function oddsTable(head, rows, caption) {
  const table = el("table", { className: "rules-try-odds-table" });
  const tr = el("tr");
  for (const h of head) tr.appendChild(el("th", { scope: "col", text: h }));
  table.appendChild(el("thead", {}, tr));
  const body = el("tbody");
  for (const row of rows) {
    const r = el("tr");
    row.forEach((c, i) => r.appendChild(el(i ? "td" : "th", i ? { text: c } : { scope: "row", text: c })));
    body.appendChild(r);
  }
  table.appendChild(body);
  return el("div", { className: "rules-try-odds-scroll", tabindex: "0", role: "region", "aria-label": caption }, table);
}
async function drawInto(place, spec) {
  const { barChart } = await loadChart();
  spec.width = place.clientWidth || (place.closest("form, dd, div") || document.body).clientWidth || 360;
  return barChart(document, spec);
}

// A form's odds: `update(inputs, complete)` after every input; shows the page's rows or computed ones
function oddsView(book, box, mechanic, sig, fields) {
  const held = readOdds(box);
  const slot = `odds-${++views}`;
  const title = sig.title || mechanic;
  const result = sig.result || "Result";
  const view = el("div", { className: "rules-try-odds" });
  const status = el("p", { className: "rules-try-odds-title", "aria-live": "polite" });
  const chart = el("div", { className: "rules-try-chart" });
  const table = el("details", { className: "rules-try-odds-more" });
  const command = el("details", { className: "rules-try-designer" });
  // "Compare": the same mechanic with one input changed, drawn beside (rules odds --vs)
  const compareId = `rules-try-${++uid}`;
  const pick = el("select", { id: compareId, name: "compare" });
  pick.appendChild(el("option", { value: "", text: "nothing" }));
  sig.params.forEach((p, i) => pick.appendChild(el("option", { value: String(i), text: R.capitalised(p.label || p.name) })));
  const otherPlace = el("div", { className: "rules-try-fields rules-try-compare-value" });
  const compare = el("div", { className: "rules-try-compare" },
    el("div", { className: "rules-try-field" }, el("label", { for: compareId, className: "rules-try-label", text: "Compare with another value of" }), pick),
    otherPlace);
  view.append(status, chart, table, command);
  if (sig.params.length) view.appendChild(compare);
  let other = null, shown = null, timer = null, rerun = null, first = true;

  pick.addEventListener("change", () => {
    otherPlace.replaceChildren();
    other = null;
    const p = sig.params[Number(pick.value)];
    if (pick.value !== "" && p) {
      other = field(book, otherPlace, { ...p, label: `${p.label || p.name} (B)` }, () => rerun && rerun());
      other.required = true;
      const mine = fields.find((f) => f.name === p.name);
      const now = mine ? mine.read() : undefined;
      if (other.input.tagName === "SELECT") {   // the next choice after the form's
        other.input.value = String((Number(mine && mine.input.value) + 1) % other.input.options.length);
      } else if (typeof now === "bigint") {
        const hi = p.type.k === "range" ? p.type.hi : now + 1n;
        other.input.value = String(now < hi ? now + 1n : now - 1n);
      }
    }
    if (rerun) rerun();
  });

  function shownInputs(inputs) {   // every parameter as values.show writes it, defaults included
    const out = {};
    for (const p of sig.params) {
      if (inputs.has(p.name)) out[p.name] = R.show(inputs.get(p.name));
      else if (p.default !== undefined) out[p.name] = R.show(p.default);
    }
    return out;
  }
  const heldFor = (inputs) => {
    const want = shownInputs(inputs);
    return held.find((b) => Object.keys(b.inputs).length === Object.keys(want).length && Object.keys(b.inputs).every((k) => b.inputs[k] === want[k]));
  };
  const valid = (inputs) => {
    try { book.mechanic(mechanic).bind([], [...inputs].map(([k, v]) => [k, R.input(v)])); return true; } catch (e) {
      if (e instanceof R.RulesError) return false;
      throw e;
    }
  };
  const encode = (inputs) => [...inputs].map(([k, v]) => [k, R.canonical(R.input(v))]);
  function clear(text) {   // what was shown was for other inputs: it goes at once
    status.textContent = text;
    status.classList.remove("rules-try-odds-none");
    chart.replaceChildren();
    table.replaceChildren();
    table.hidden = true;
    command.replaceChildren();
    command.hidden = true;
    view.removeAttribute("aria-busy");
  }
  function commandLine(inputs) {
    const args = Object.entries(shownInputs(inputs)).map(([k, v]) => `${k}=${v.includes(" ") ? JSON.stringify(v) : v}`).join(" ");
    command.append(el("summary", { text: "Compute them on the command line" }),
      el("code", { text: `rules odds ${box.dataset.book}:${mechanic}${args ? " " + args : ""}` }));
    command.hidden = false;
  }
  async function render(key, answer, inputs, changed) {
    if (answer.refused) {
      clear(answer.kind === "TooLarge"   // what ran out; the engine's whole refusal is for designers, a tap away
        ? `These inputs have too many outcomes to work out on this page: ${answer.reason}.`
        : `No exact odds for these inputs: ${answer.message.startsWith(`${mechanic}: `) ? answer.message.slice(mechanic.length + 2) : answer.message}`);
      status.classList.add("rules-try-odds-none");
      if (answer.kind === "TooLarge") { commandLine(inputs); command.appendChild(el("p", { className: "rules-try-refusal", text: answer.message })); }
      return;
    }
    const law = answer.law, pair = answer.pair;
    const names = pair ? ["A: as typed", `B: with ${changed}`] : null;
    const spec = { title: `Exact odds: ${title}`, rows: chartRows(law || pair, pair), names };
    const svg = await drawInto(chart, spec);
    if (shown !== key) return;                          // newer inputs came while the chart loaded
    clear(pair ? `Exact odds, A as typed and B with ${changed}${pair.meanA ? ` (mean A ${pair.meanA}, B ${pair.meanB})` : ""}:`
      : `Exact odds for these inputs${law.mean ? ` (mean ${law.mean})` : ""}:`);
    chart.appendChild(svg);
    table.appendChild(el("summary", { text: "The odds as a table" }));
    if (pair) {
      table.appendChild(oddsTable([result, "A", "B", "B − A (points)"], pair.rows.map(([v, a, b, , , diff]) => [v, a, b, diff]), `Exact odds: ${title}`));
    } else {
      table.appendChild(oddsTable([result, "Probability", "At least", "Exact"], law.rows.map(([v, pct, least, p]) => [v, pct, least, p.endsWith("/1") ? p.slice(0, -2) : p]), `Exact odds: ${title}`));
    }
    table.hidden = false;
  }
  function update(inputs, complete) {
    let changed = null, inputsB = null;
    let ok = complete && valid(inputs);
    if (other) {
      other.err.textContent = "";
      other.input.removeAttribute("aria-invalid");
      const v = other.read();
      const p = sig.params[Number(pick.value)];
      inputsB = new Map(inputs);
      if (v === undefined) ok = false; else inputsB.set(p.name, v);
      if (ok && !valid(inputsB)) {
        ok = false;
        other.err.textContent = `${R.capitalised(other.label)}: must be ${other.describe}`;
        other.input.setAttribute("aria-invalid", "true");
      }
      changed = v === undefined ? "" : `${p.label || p.name} ${book.words.value(R.input(v))}`;
    }
    const key = ok ? JSON.stringify([encode(inputs), inputsB && encode(inputsB)], (k, x) => (typeof x === "bigint" ? String(x) : x)) : "";
    if (key === shown) return;                          // a new seed, a roll typed: the odds stay
    shown = key;
    clearTimeout(timer);
    if (!ok) { clear("Exact odds: give every input a valid value to see them."); return; }
    const block = !inputsB && heldFor(inputs);
    if (block) { render(key, { law: block }, inputs); return; }
    clear("Working out the exact odds…");
    view.setAttribute("aria-busy", "true");
    timer = setTimeout(async () => {
      const lib = await loadOdds();
      const answer = await lib.requestOdds(box.dataset.book, mechanic, encode(inputs), slot, lib.BUDGET, inputsB && encode(inputsB));
      if (answer === null || shown !== key) return;     // a newer input came first
      await render(key, answer, inputs, changed);
      if (shown === key && !answer.refused) performance.mark("rules-try-first-odds");
    }, first ? 0 : 150);                                // typing: wait for a pause
    first = false;
  }
  return { box: view, update, held, start(run) { rerun = run; } };
}

// The "Exact odds" fold under a mechanic: a chart for each set of inputs its table holds
async function chartFold(fold) {
  if (fold.dataset.charted !== undefined) return;
  fold.dataset.charted = "";
  const box = fold.parentElement && fold.parentElement.querySelector("div.rules-try[data-odds]");
  const blocks = box ? readOdds(box) : [];
  if (!blocks.length) return;
  const place = el("div", { className: "rules-odds-charts" });
  fold.querySelector("summary").after(place);
  for (const b of blocks) {
    const figure = el("figure", { className: "rules-odds-chart" }, el("figcaption", { text: b.label || "" }));
    place.appendChild(figure);
    figure.appendChild(await drawInto(place, { title: `Exact odds: ${b.label || ""}`, rows: chartRows(b) }));
  }
}
function initOddsFolds() {
  const folds = document.querySelectorAll("details.rules-fold-odds");
  folds.forEach((f) => { if (f.open) chartFold(f); });
  document.addEventListener("toggle", (e) => {
    if (e.target && e.target.matches && e.target.matches("details.rules-fold-odds") && e.target.open) chartFold(e.target);
  }, true);
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
  initOddsFolds();
  const boxes = document.querySelectorAll("div.rules-try[data-book][data-mechanic]");
  if (!("IntersectionObserver" in window)) { boxes.forEach(fill); return; }
  const io = new IntersectionObserver((entries) => {
    for (const e of entries) if (e.isIntersecting) { io.unobserve(e.target); fill(e.target); }
  }, { rootMargin: "600px 0px" });
  boxes.forEach((b) => io.observe(b));
}

init();
