/* The forms' odds worker: computes one law at a time (rules_odds.mjs computeHere) off the page's
 * thread, so a long case never freezes typing; rules_odds.mjs stops it when its answer is no longer
 * wanted.  Messages: {id, book, mechanic, inputs, budget, inputsB} in, {id, answer} out. */
import { computeHere } from "./rules_odds.mjs";

self.onmessage = async (ev) => {
  const { id, book, mechanic, inputs, budget, inputsB } = ev.data;
  let answer;
  try {
    answer = await computeHere(book, mechanic, inputs, budget, inputsB);
  } catch (e) {
    answer = { refused: true, kind: "Error", message: String((e && e.message) || e) };
  }
  self.postMessage({ id, answer });
};
