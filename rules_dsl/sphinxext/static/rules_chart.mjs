/* A distribution as a bar chart: inline SVG, built element by element (createElementNS, text as
 * textContent: labels are a book's words, which are data), no framework.
 *
 * `barChart(doc, spec)` draws one horizontal bar per outcome, in the order of the odds table, each
 * as long as its chance against the likeliest outcome's, with the chance written at its end;
 * `spec.b` adds a second law drawn beside the first on every row (a comparison, as `rules odds
 * --vs`), told apart by colour *and* a stripe pattern, with a legend.  Labels sit left of the bars
 * when they are short, above them when they are long (a phone is 390 px wide).  The chart is an
 * image to assistive technology (role="img") named by its <title> and described by its <desc>,
 * which lists every outcome and chance; the table of the same odds stays beside it.
 *
 * spec: {title, rows: [{label, a: {p, text}, b?: {p, text}, folded?}], names?: [a, b], width, desc?}
 * where p is a number in 0..1 (the bar) and text the chance as the table writes it.
 *
 * One look on the whole site: the build draws its charts (design views) with the same geometry,
 * written in Python (rules_dsl/sphinxext/charts.py `svg`); tests/test_charts_shared.py renders the
 * same specs with both and compares them element by element.  Change both together.
 */
const SVG = "http://www.w3.org/2000/svg";
let uid = 0;

function el(doc, tag, attrs, text) {
  const e = doc.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

const FONT = 13, CHAR = 7.1;          // px, and an average character's width at that size
const BAR = 16, PAIR = 11, GAP = 7;   // bar heights (one law; each of two) and the space between rows

export function barChart(doc, spec) {
  const id = `rules-chart-${++uid}`;
  const width = Math.max(260, Math.min(640, Math.floor(spec.width || 360)));
  const paired = spec.rows.some((r) => r.b);
  const textW = Math.max(...spec.rows.flatMap((r) => [r.a.text.length, r.b ? r.b.text.length : 0])) * CHAR + 8;
  const fit = Math.floor((width - 4) / CHAR);            // a label longer than the chart is cut (the table has it whole)
  const labels = spec.rows.map((r) => (r.label.length > fit ? `${r.label.slice(0, fit - 1)}…` : r.label));
  const longest = Math.max(...labels.map((x) => x.length)) * CHAR;
  const side = longest <= width * 0.36;               // short labels: a column on the left
  const labelW = side ? Math.ceil(longest) + 10 : 0;
  const barMax = width - labelW - textW - 4;
  const top = Math.max(...spec.rows.flatMap((r) => [r.a.p, r.b ? r.b.p : 0]), 1e-300);
  const rowH = (paired ? 2 * PAIR + 2 : BAR) + (side ? 0 : FONT + 4) + GAP;
  const legendH = paired && spec.names ? FONT + 12 : 0;
  const height = legendH + spec.rows.length * rowH;

  const svg = el(doc, "svg", { class: "rules-chart", width, height, viewBox: `0 0 ${width} ${height}`,
    role: "img", "aria-labelledby": `${id}-t ${id}-d` });
  svg.appendChild(el(doc, "title", { id: `${id}-t` }, spec.title));
  const said = spec.rows.map((r) => (r.b ? `${r.label}: ${spec.names ? spec.names[0] : "A"} ${r.a.text}, ${spec.names ? spec.names[1] : "B"} ${r.b.text}`
    : `${r.label}: ${r.a.text}`));
  svg.appendChild(el(doc, "desc", { id: `${id}-d` }, spec.desc || said.join("; ")));
  if (paired) {   // stripes for the second law, so the two never differ by colour alone
    const defs = el(doc, "defs");
    const pat = el(doc, "pattern", { id: `${id}-s`, width: 6, height: 6, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" });
    pat.appendChild(el(doc, "rect", { width: 6, height: 6, class: "rules-chart-b" }));
    pat.appendChild(el(doc, "rect", { width: 2, height: 6, class: "rules-chart-stripe" }));
    defs.appendChild(pat);
    svg.appendChild(defs);
  }
  const fillB = `url(#${id}-s)`;
  let y = 0;
  if (legendH) {
    const g = el(doc, "g", { class: "rules-chart-legend", "aria-hidden": "true" });
    let x = 0;
    spec.names.forEach((name, i) => {
      g.appendChild(el(doc, "rect", { x, y: 2, width: 12, height: 12, class: i ? "rules-chart-b" : "rules-chart-a", ...(i ? { style: `fill: ${fillB}` } : {}) }));
      g.appendChild(el(doc, "text", { x: x + 17, y: FONT, class: "rules-chart-text" }, name));
      x += 17 + name.length * CHAR + 16;
    });
    svg.appendChild(g);
    y = legendH;
  }
  const bar = (p) => (p > 0 ? Math.max(1, Math.round((p / top) * barMax)) : 0);
  spec.rows.forEach((r, k) => {
    const label = labels[k];
    const g = el(doc, "g", { class: r.folded ? "rules-chart-row rules-chart-folded" : "rules-chart-row" });
    let by = y;
    if (side) {
      g.appendChild(el(doc, "text", { x: labelW - 8, y: y + (paired ? PAIR + 5 : BAR - 3), "text-anchor": "end", class: "rules-chart-label" }, label));
    } else {
      g.appendChild(el(doc, "text", { x: 0, y: y + FONT, class: "rules-chart-label" }, label));
      by = y + FONT + 4;
    }
    const series = r.b ? [[r.a, "rules-chart-a", PAIR, null], [r.b, "rules-chart-b", PAIR, fillB]] : [[r.a, "rules-chart-a", BAR, null]];
    series.forEach(([s, cls, h, fill], i) => {
      const w = bar(s.p), x = labelW;
      const rect = el(doc, "rect", { x, y: by + i * (h + 2), width: w, height: h, class: cls, ...(fill ? { style: `fill: ${fill}` } : {}) });
      rect.appendChild(el(doc, "title", {}, r.b ? `${r.label}, ${spec.names ? spec.names[i] : "AB"[i]}: ${s.text}` : `${r.label}: ${s.text}`));
      g.appendChild(rect);
      g.appendChild(el(doc, "text", { x: x + w + 4, y: by + i * (h + 2) + h - (r.b ? 1 : 3), class: "rules-chart-text" }, s.text));
    });
    svg.appendChild(g);
    y += rowH;
  });
  return svg;
}
