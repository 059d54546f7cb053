/* The ranking of the site's search box: `rules lookup` (rules_dsl/faces/index.py), in JavaScript.
 *
 * One definition of ranking, two runtimes: this file runs in the browser (a plain
 * script: `window.RulesSearch`) and under node (`require`: tests/test_search_js.py runs
 * the recorded queries through it and through the CLI and asserts the same top three).
 * It ports, tier for tier:
 *
 *   - `book:rule` typed as is: 100 (the rule's stable id);
 *   - a title or alias (alias: 5 less) scored by `scoreName`, the port of index.py's
 *     `_score_name`: exact 100, a word or a prefix 80, a word prefix 70, a similar name
 *     50..90 (difflib's ratio, ported exactly: `ratio`), a typo of one word of a longer name 45;
 *   - full text, up to 40 (40 x the rule's score over the best): rules_dsl/faces/textsearch.py,
 *     function for function (`fold`, `words`, `tokens`, `fieldTokens`, `Vocabulary`,
 *     `analyse`, `termWeight`, `querySlots`, `expand`, `scoreParts`, `proximity`...):
 *     stop words, the Snowball Porter stemmer (vendored: snowball-*-stemmer.js, the
 *     program `snowballstemmer` is generated from), the vocabulary's concepts, BM25F over
 *     title, aliases, keywords, text and notes, nearness.  The constants, the stop words
 *     and the vocabulary come from the data files (search_index.py writes them from
 *     textsearch.py), never from here.
 *
 * Every name is scored (the CLI asks SQLite for candidates, with the scores a scan of every
 * name gives).  Ties go to the earlier rule (books by id, rules in book order), as in the
 * CLI.  Only data is read: nothing from a book is evaluated.
 *
 * The data comes in parts (search_index.py documents them): `create(names file)` ranks
 * titles and aliases at once; `addShard` takes the books' filters and vocabulary, a book's
 * text or a terms file (each term's library-wide count and its per-book bounds);
 * `missing(query)` names the parts a query still needs for its list to be the one every
 * part gives (none when the names settle it): the terms files of its words, then the books
 * whose bound could still place a rule in the list, best first; `search` ranks with what
 * is in, and its full-text scores are the whole index's (the counts are the library's).
 */
(function (root, factory) {
  if (typeof module === "object" && module.exports) {
    require("./snowball-base-stemmer.js");
    require("./snowball-porter-stemmer.js");
    module.exports = factory(global.PorterStemmer);
  } else {
    root.RulesSearch = factory(root.PorterStemmer);
  }
})(typeof self !== "undefined" ? self : this, function (PorterStemmer) {
  "use strict";

  var VERSION = 3;

  // ------------------------------------------------------------ text as index.py sees it
  function norm(s) {
    return s.toLowerCase().replace(/[^a-z0-9]+/g, " ").trim();
  }
  function unhyphenated(s) {
    return s.replace(/(?<=[A-Za-z0-9])-(?=[A-Za-z0-9])/g, "");
  }

  // ------------------------------------------------------------ difflib, ported
  /* difflib.SequenceMatcher(None, a, b, autojunk=False): the number of matching
     characters of get_matching_blocks (longest match, then both sides of it). */
  function matches(a, b) {
    var b2j = new Map();
    for (var j = 0; j < b.length; j++) {
      var l = b2j.get(b[j]);
      if (!l) { l = []; b2j.set(b[j], l); }
      l.push(j);
    }
    function longest(alo, ahi, blo, bhi) {
      var besti = alo, bestj = blo, bestsize = 0, j2len = new Map();
      for (var i = alo; i < ahi; i++) {
        var next = new Map(), js = b2j.get(a[i]) || [];
        for (var t = 0; t < js.length; t++) {
          var jj = js[t];
          if (jj < blo) continue;
          if (jj >= bhi) break;
          var k = (j2len.get(jj - 1) || 0) + 1;
          next.set(jj, k);
          if (k > bestsize) { besti = i - k + 1; bestj = jj - k + 1; bestsize = k; }
        }
        j2len = next;
      }
      while (besti > alo && bestj > blo && a[besti - 1] === b[bestj - 1]) { besti--; bestj--; bestsize++; }
      while (besti + bestsize < ahi && bestj + bestsize < bhi && a[besti + bestsize] === b[bestj + bestsize]) bestsize++;
      return [besti, bestj, bestsize];
    }
    var total = 0, queue = [[0, a.length, 0, b.length]];
    while (queue.length) {
      var q = queue.pop(), m = longest(q[0], q[1], q[2], q[3]);
      var i0 = m[0], j0 = m[1], k0 = m[2];
      if (k0) {
        total += k0;
        if (q[0] < i0 && q[2] < j0) queue.push([q[0], i0, q[2], j0]);
        if (i0 + k0 < q[1] && j0 + k0 < q[3]) queue.push([i0 + k0, q[1], j0 + k0, q[3]]);
      }
    }
    return total;
  }
  function ratio(a, b) {
    var n = a.length + b.length;
    return n ? 2 * matches(a, b) / n : 1;
  }
  function quickRatio(a, b) {
    var count = new Map(), m = 0, c;
    for (c of b) count.set(c, (count.get(c) || 0) + 1);
    for (c of a) {
      var left = count.get(c) || 0;
      if (left > 0) { m++; count.set(c, left - 1); }
    }
    var n = a.length + b.length;
    return n ? 2 * m / n : 1;
  }

  /* index.py's _score_name: the title/alias score of the normalised name `nn` for the
     normalised query `q` (before the alias penalty). */
  function scoreName(q, nn, oneWord) {
    var lq = q.length;
    if (nn === q) return 100;
    var words = nn.split(" ").filter(Boolean);
    if (words.indexOf(q) >= 0 || (lq >= 4 && nn.startsWith(q))) return 80;
    if (lq >= 4 && (" " + nn).indexOf(" " + q) >= 0) return 70;
    var best = 0, ln = nn.length;
    if (0.6 * lq <= ln && ln <= lq / 0.6 && quickRatio(nn, q) >= 0.75) {
      var r = ratio(nn, q);
      if (r >= 0.75) best = 50 + 40 * (r - 0.75) / 0.25;
    }
    if (oneWord && best < 45) {
      for (var i = 0; i < words.length; i++) {
        var w = words[i];
        if (w.length >= 5 && 0.66 * lq <= w.length && w.length <= lq / 0.66 &&
            quickRatio(w, q) >= 0.8 && ratio(w, q) >= 0.8) { best = 45; break; }
      }
    }
    return best;
  }

  // ------------------------------------------------------------ terms (textsearch.py)
  var WORD = /[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)*/gu;
  var APOSTROPHE = /(?<=[\p{L}\p{N}])['\u2019](?=[\p{L}\p{N}])/gu;
  var NON_ASCII = /[^\x00-\x7f]/;

  /* search_words.fold (via textsearch) */
  function fold(text) {
    var s = text.toLowerCase();
    if (NON_ASCII.test(s)) s = s.normalize("NFKD").replace(/\p{M}/gu, "");
    return s.replace(APOSTROPHE, "");
  }
  /* search_words.words (via textsearch) */
  function words(text) {
    return fold(text).match(WORD) || [];
  }
  var porter = new PorterStemmer(), stems = new Map();
  /* textsearch.stem: Snowball Porter, memoised (the word itself where Porter leaves nothing) */
  function stem(word) {
    var s = stems.get(word);
    if (s === undefined) { s = porter.stemWord(word) || word; stems.set(word, s); }
    return s;
  }

  /* An analyser: the stop words and constants of one index (its names file). */
  function Analyser(stop, rank) {
    this.stop = stop;
    this.rank = rank;
  }
  /* textsearch.tokens: [[term, place, joined]] */
  Analyser.prototype.tokens = function (text) {
    var stop = this.stop, out = [], place = 0;
    words(text).forEach(function (w) {
      var parts = w.split("-"), last = null;
      parts.forEach(function (p) {
        if (!stop.has(p)) { out.push([stem(p), place, false]); last = place; place++; }
      });
      if (parts.length > 1) {
        var j = parts.join("");
        if (!stop.has(j)) {
          if (last === null) { last = place; place++; }
          out.push([stem(j), last, true]);
        }
      }
    });
    return out;
  };
  /* textsearch.field_tokens */
  Analyser.prototype.fieldTokens = function (items) {
    var self = this, out = [], start = 0;
    items.forEach(function (item) {
      var toks = self.tokens(item);
      if (!toks.length) return;
      if (out.length) start += self.rank.gap;
      var top = 0;
      toks.forEach(function (t) { out.push([t[0], t[1] + start, t[2]]); if (t[1] > top) top = t[1]; });
      start += top + 1;
    });
    return out;
  };
  /* textsearch.rule_fields */
  function ruleFields(title, aliases, keywords, text, notes, mechanics) {
    return [[title], aliases.slice(), keywords.slice(), [text + (mechanics ? "\n" + mechanics : "")], [notes]];
  }

  /* textsearch.Vocabulary: entries [[phrase terms], concept or null, [broader terms]] */
  function Vocabulary(entries) {
    var self = this;
    this.entries = entries;
    this.byFirst = new Map();
    entries.forEach(function (e) {
      var l = self.byFirst.get(e[0][0]);
      if (!l) { l = []; self.byFirst.set(e[0][0], l); }
      l.push(e);
    });
  }
  Vocabulary.prototype.conceptsAt = function (terms, places) {
    var out = [], self = this;
    terms.forEach(function (t, i) {
      (self.byFirst.get(t) || []).forEach(function (e) {
        var phrase = e[0], n = phrase.length, ok = i + n <= terms.length;
        for (var k = 0; ok && k < n; k++) if (terms[i + k] !== phrase[k]) ok = false;
        for (k = 0; ok && k < n - 1; k++) if (places[i + k + 1] !== places[i + k] + 1) ok = false;
        if (ok) out.push([phrase, e[1], e[2], i, i + n - 1]);
      });
    });
    return out;
  };
  function vocabEntries(rows) {
    return rows.map(function (r) {
      return [r[0].split(" "), r[1] || null, r[2] ? r[2].split(" ") : []];
    });
  }

  /* textsearch.analyse: Map term -> {tf: [per field], places: [[per field]]}, and lengths */
  Analyser.prototype.analyse = function (fields, vocabulary) {
    var self = this, nf = fields.length, lens = [], terms = new Map();
    function add(term, f, place) {
      var e = terms.get(term);
      if (!e) {
        e = {tf: [], places: []};
        for (var k = 0; k < nf; k++) { e.tf.push(0); e.places.push([]); }
        terms.set(term, e);
      }
      e.tf[f]++;
      e.places[f].push(place);
    }
    fields.forEach(function (items, f) {
      var toks = self.fieldTokens(items), parts = toks.filter(function (t) { return !t[2]; });
      lens.push(parts.length);
      toks.forEach(function (t) { add(t[0], f, t[1]); });
      vocabulary.conceptsAt(parts.map(function (t) { return t[0]; }), parts.map(function (t) { return t[1]; }))
        .forEach(function (m) { if (m[1] !== null) add(m[1], f, parts[m[4]][1]); });
    });
    return {len: lens, terms: terms};
  };
  /* textsearch.term_weight and saturated */
  Analyser.prototype.termWeight = function (tf, lens) {
    var r = this.rank, w = 0.0;
    for (var f = 0; f < tf.length; f++) {
      if (tf[f]) w += r.weights[f] * tf[f] / (1 - r.b[f] + r.b[f] * lens[f] / r.ref[f]);
    }
    return w;
  };
  Analyser.prototype.saturated = function (w) { return w / (this.rank.k1 + w); };
  /* textsearch.rounded */
  function rounded(x, digits) {
    var m = Math.pow(10, digits === undefined ? 6 : digits);
    return Math.floor(x * m + 0.5) / m;
  }
  function idf(n, df) {
    return rounded(Math.log(1 + (n - df + 0.5) / (df + 0.5)), 9);
  }

  // ------------------------------------------------------------ queries (textsearch.py)
  function Slot(word, stem_) { this.word = word; this.stem = stem_; this.terms = []; this.fuzzy = []; }
  Slot.prototype.add = function (term, weight, first, book) {
    book = book === undefined ? null : book;
    for (var i = 0; i < this.terms.length; i++) {
      if (this.terms[i][0] === term && this.terms[i][3] === book) return;
    }
    this.terms.push([term, weight, first, book]);
  };
  /* textsearch.query_slots */
  Analyser.prototype.querySlots = function (query) {
    var stop = this.stop, slots = [];
    words(query).forEach(function (w) {
      var spelled = w.replace(/-/g, "");
      if (stop.has(spelled)) return;
      var s = new Slot(spelled, stem(spelled));
      s.add(s.stem, 1.0, slots.length);
      slots.push(s);
    });
    return slots;
  };
  /* textsearch.expand: tables [[book or null, Vocabulary]] */
  Analyser.prototype.expand = function (slots, tables, prefixes, similar) {
    var r = this.rank;
    if (!slots.length) return slots;
    var terms = slots.map(function (s) { return s.stem; }), places = slots.map(function (_, i) { return i; });
    tables.forEach(function (tb) {
      tb[1].conceptsAt(terms, places).forEach(function (m) {
        if (m[1] !== null) slots[m[4]].add(m[1], r.synonym, m[3], tb[0]);
        m[2].forEach(function (b) { slots[m[4]].add(b, r.broader, m[3], tb[0]); });
      });
    });
    var last = slots[slots.length - 1];
    if (prefixes && last.word && last.word.length >= r.prefix_min) {
      prefixes(last.word).forEach(function (t) { last.add(t, r.prefix, slots.length - 1); });
    }
    if (similar) {
      slots.forEach(function (s, i) {
        similar(s.stem).forEach(function (t) { s.add(t, r.fuzzy, i); s.fuzzy.push(t); });
      });
    }
    return slots;
  };
  /* textsearch.similar_terms: candidates [[term, df]] */
  Analyser.prototype.similarTerms = function (stem_, candidates) {
    var r = this.rank, scored = [];
    candidates.forEach(function (c) {
      var term = c[0];
      if (term === stem_ || term.charAt(0) === "~") return;
      if (quickRatio(term, stem_) >= r.fuzzy_ratio) {
        var q = ratio(term, stem_);
        if (q >= r.fuzzy_ratio) scored.push([q, c[1], term]);
      }
    });
    scored.sort(function (x, y) { return (y[0] - x[0]) || (y[1] - x[1]) || (x[2] < y[2] ? -1 : x[2] > y[2] ? 1 : 0); });
    return scored.slice(0, r.fuzzy_max).map(function (x) { return x[2]; });
  };
  /* textsearch.score_parts: doc.terms Map term -> {sat, places} */
  function scoreParts(slots, idfs, doc, book) {
    var n = slots.length, covered = [], best = [], base = 0.0;
    for (var k = 0; k < n; k++) { covered.push(false); best.push(0.0); }
    slots.forEach(function (s, i) {
      s.terms.forEach(function (t) {
        if (t[3] !== null && t[3] !== book) return;
        var e = doc.terms.get(t[0]);
        if (!e) return;
        var wi = t[1] * idfs.get(t[0]);
        base += wi * e.sat;
        for (var k = t[2]; k <= i; k++) {
          covered[k] = true;
          if (wi > best[k]) best[k] = wi;
        }
      });
    });
    return {base: base, covered: covered, best: best};
  }
  function slotPlaces(slots, i, book, doc) {
    var out = new Map();
    for (var j = i; j < slots.length; j++) {
      slots[j].terms.forEach(function (t) {
        if (t[2] > i || (t[3] !== null && t[3] !== book)) return;
        var e = doc.terms.get(t[0]);
        if (!e) return;
        for (var f = 0; f < 4; f++) {
          if (!e.places[f].length) continue;
          var set = out.get(f);
          if (!set) { set = new Set(); out.set(f, set); }
          e.places[f].forEach(function (p) { set.add(p); });
        }
      });
    }
    return out;
  }
  function distance(a, b) {
    var best = null;
    a.forEach(function (ps, f) {
      var qs = b.get(f);
      if (!qs) return;
      ps.forEach(function (p) {
        qs.forEach(function (q) {
          var d = q > p ? q - p : p - q + 1;
          if (best === null || d < best) best = d;
        });
      });
    });
    return best;
  }
  /* textsearch.proximity */
  Analyser.prototype.proximity = function (slots, covered, best, book, doc) {
    var r = this.rank, prox = 0.0;
    for (var i = 0; i < slots.length - 1; i++) {
      if (covered[i] && covered[i + 1]) {
        var d = distance(slotPlaces(slots, i, book, doc), slotPlaces(slots, i + 1, book, doc));
        if (d !== null && d <= r.window) prox += r.prox * (best[i] + best[i + 1]) / 2 / d;
      }
    }
    return prox;
  };
  /* textsearch.proximity_bound */
  Analyser.prototype.proximityBound = function (covered, best) {
    var b = 0.0;
    for (var i = 0; i < covered.length - 1; i++) {
      if (covered[i] && covered[i + 1]) b += this.rank.prox * (best[i] + best[i + 1]) / 2;
    }
    return b;
  };

  // ------------------------------------------------------------ the Bloom filters
  var UTF8 = new TextEncoder();
  /* FNV-1a over the UTF-8 bytes of `s` (search_index.py's `_fnv`) */
  function fnv(s, basis) {
    var h = basis >>> 0, bytes = UTF8.encode(s);
    for (var i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i], 16777619) >>> 0;
    return h;
  }
  function decode(b64) {
    if (typeof atob === "function") {
      var bin = atob(b64), out = new Uint8Array(bin.length);
      for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
      return out;
    }
    return new Uint8Array(Buffer.from(b64, "base64"));
  }
  /* search_index.py's bloom_positions / bloom_has */
  function bloomHas(bytes, bits, k, item) {
    var h1 = fnv(item, 2166136261), h2 = (fnv(item, 84696351) | 1) >>> 0;
    for (var i = 0; i < k; i++) {
      var p = (h1 + i * h2) % bits;
      if (!(bytes[p >> 3] >> (p & 7) & 1)) return false;
    }
    return true;
  }

  /* search_index.py's `slug`: a rule whose id is its title's slug stores "" */
  function slug(title) {
    return norm(title).replace(/ /g, "-");
  }
  /* search_index.py's `term_file`: the terms file a term is in */
  function termFile(t) {
    var c = t.charAt(0);
    return /[a-z0-9~]/.test(c) ? c : "_";
  }

  /* The engine over the names file (search_index.py documents its format); full text
     comes per book, from shards added with `addShard` as the box loads them. */
  function Engine(data) {
    if (!data || data.v !== VERSION) throw new Error("rules search: unknown index format");
    var self = this;
    this.n = data.n;
    this.an = new Analyser(new Set(data.stop), data.rank);
    this.bloom = null;              // the filters file's data, once it is in
    this.books = data.books.map(function (b, i) {
      return {id: b[0], title: b[1], n: b[2], index: i, bits: 0, filter: null, loaded: false, first: -1,
              vocab: null, extra: null};
    });
    this.bookById = new Map();
    this.books.forEach(function (b) { self.bookById.set(b.id, b); });
    this.rules = data.rules.map(function (r, i) {
      var b = self.books[r[0]];
      if (b.first < 0) b.first = i;
      return {i: i, book: b.id, bookTitle: b.title, rule: r[1] || slug(r[2]), title: r[2],
              section: data.sections[r[3]], url: data.pages[r[4]], aliases: r.slice(5),
              keywords: [], text: "", notes: "", mechanics: "", loaded: false, doc: null};
    });
    this.byRef = new Map();
    var names = new Map();
    function addName(name, i, penalty) {
      var spellings = [norm(name)];
      if (name.indexOf("-") >= 0) spellings.push(norm(unhyphenated(name)));
      spellings.forEach(function (s) {
        var l = names.get(s);
        if (!l) { l = []; names.set(s, l); }
        l.push([i, penalty]);
      });
    }
    this.rules.forEach(function (r) {
      self.byRef.set(r.book + ":" + r.rule, r.i);
      addName(r.title, r.i, 0);
      r.aliases.forEach(function (a) { addName(a, r.i, 5); });
    });
    this.names = Array.from(names.entries());
    this.df = new Map();            // term -> [rules holding it, bound of the rest, book, bound, ...]
    this.termsLoaded = new Set();   // terms files in
    this.termFiles = data.termfiles || [];   // the terms files there are
    this.shared = null;             // the shared vocabulary (filters file)
    this.pending = [];              // books' shards that came before the filters
  }

  /* A shard's data: the filters (`RulesSearchFilters`), a book's text (`RulesSearchShard`)
     or a terms file (`RulesSearchTerms`). */
  Engine.prototype.addShard = function (shard) {
    var self = this;
    if (!shard || shard.v !== VERSION) throw new Error("rules search: a shard of an unknown format");
    if (Array.isArray(shard.filters)) {
      if (shard.filters.length !== this.books.length) throw new Error("rules search: the filters do not fit the index");
      this.shared = new Vocabulary(vocabEntries(shard.vocab.shared));
      this.books.forEach(function (b, i) {
        b.bits = shard.filters[i][0]; b.filter = decode(shard.filters[i][1]);
        b.extra = null; b.vocab = self.shared;
      });
      shard.vocab.books.forEach(function (x) {
        var b = self.books[x[0]], extra = vocabEntries(x[1]);
        b.extra = new Vocabulary(extra);
        b.vocab = new Vocabulary(self.shared.entries.concat(extra));
      });
      this.bloom = {k: shard.k};
      var waiting = this.pending;
      this.pending = [];
      waiting.forEach(function (w) { self.addShard(w); });
      return;
    }
    if (typeof shard.terms === "string") {
      var df = this.df;
      Object.keys(shard.df).forEach(function (t) { df.set(t, shard.df[t]); });
      this.termsLoaded.add(shard.terms);
      return;
    }
    var b = this.bookById.get(shard.book);
    if (!b || shard.rules.length !== b.n) throw new Error("rules search: a shard does not fit the index");
    if (b.loaded) return;
    // a book's text is read through its vocabulary, which comes with the filters: a shard
    // fetched for a snippet before them waits for them
    if (!this.bloom) { this.pending.push(shard); return; }
    var an = this.an;
    for (var k = 0; k < b.n; k++) {
      var r = this.rules[b.first + k], s = shard.rules[k];
      r.text = s[0]; r.notes = s[1]; r.mechanics = s[2]; r.keywords = s.slice(3); r.loaded = true;
      var d = an.analyse(ruleFields(r.title, r.aliases, r.keywords, r.text, r.notes, r.mechanics), b.vocab);
      d.terms.forEach(function (e) { e.sat = an.saturated(an.termWeight(e.tf, d.len)); });
      r.doc = d;
    }
    b.loaded = true;
  };

  /* Whether book `b`'s text may hold `term` (its filter; true until the filters are in). */
  Engine.prototype.mayHold = function (b, term) {
    if (!this.bloom) return true;
    return bloomHas(b.filter, b.bits, this.bloom.k, term);
  };

  /* The title/alias tier: {rule index: score}. */
  Engine.prototype._names = function (query, book) {
    var self = this, scores = new Map();
    function offer(i, s) {
      if (book && self.rules[i].book !== book) return;
      if (s > (scores.get(i) || 0)) scores.set(i, s);
    }
    var ref = this.byRef.get(query.trim().toLowerCase());
    if (ref !== undefined) offer(ref, 100);
    spellingsOf(query).forEach(function (q) {
      var oneWord = q.length >= 5 && q.indexOf(" ") < 0;
      for (var n = 0; n < self.names.length; n++) {
        var s = scoreName(q, self.names[n][0], oneWord);
        if (s > 0) self.names[n][1].forEach(function (hit) { offer(hit[0], s - hit[1]); });
      }
    });
    return scores;
  };
  function spellingsOf(query) {
    var spellings = [norm(query)];
    var other = norm(unhyphenated(query));
    if (other !== spellings[0]) spellings.push(other);
    return spellings;
  }

  /* The query's slots with the vocabulary's terms (no prefixes or fuzzy terms yet), and
     the terms files those and the prefixes and fuzzy terms need. */
  Engine.prototype._slotsAndFiles = function (query) {
    var an = this.an, slots = an.querySlots(query), files = [];
    if (!slots.length) return {slots: slots, files: files};
    var tables = [[null, this.shared]];
    this.books.forEach(function (b) { if (b.extra) tables.push([b.id, b.extra]); });
    an.expand(slots, tables, null, null);
    function want(t) { var f = termFile(t); if (files.indexOf(f) < 0) files.push(f); }
    slots.forEach(function (s) { s.terms.forEach(function (t) { want(t[0]); }); });
    var last = slots[slots.length - 1];
    if (last.word && last.word.length >= an.rank.prefix_min) want(last.word);
    return {slots: slots, files: files};
  };

  /* The query's slots, every term in (the terms files must be): textsearch.expand. */
  Engine.prototype._slots = function (query) {
    var self = this, an = this.an, slots = an.querySlots(query);
    if (!slots.length) return slots;
    var tables = [[null, this.shared]];
    this.books.forEach(function (b) { if (b.extra) tables.push([b.id, b.extra]); });
    function prefixes(word) {
      var out = [];
      self.df.forEach(function (v, t) { if (t !== word && t.startsWith(word)) out.push([t, v[0]]); });
      out.sort(function (x, y) { return (y[1] - x[1]) || (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0); });
      return out.slice(0, an.rank.prefix_max).map(function (x) { return x[0]; });
    }
    function similar(stem_) {
      if (self.df.has(stem_)) return [];
      var c = stem_.charAt(0), cands = [];
      self.df.forEach(function (v, t) {
        if (t.charAt(0) === c && t.length >= stem_.length - 2 && t.length <= stem_.length + 2) cands.push([t, v[0]]);
      });
      return an.similarTerms(stem_, cands);
    }
    return an.expand(slots, tables, prefixes, similar);
  };

  /* The idf of every query term the library holds. */
  Engine.prototype._idfs = function (slots) {
    var self = this, idfs = new Map();
    slots.forEach(function (s) {
      s.terms.forEach(function (t) {
        var d = self.df.get(t[0]);
        if (d && !idfs.has(t[0])) idfs.set(t[0], idf(self.n, d[0]));
      });
    });
    return idfs;
  };

  /* index.py's `_fulltext` over the loaded rules: [[rule index, score, covered]] best first. */
  Engine.prototype._fulltext = function (slots, idfs, book, limit) {
    var an = this.an, hits = [];
    if (!slots.length) return hits;
    this.rules.forEach(function (r) {
      if (!r.loaded || (book && r.book !== book)) return;
      var p = scoreParts(slots, idfs, r.doc, r.book);
      if (!p.covered.some(Boolean)) return;
      var near = false;
      for (var i = 0; i < slots.length - 1; i++) if (p.covered[i] && p.covered[i + 1]) near = true;
      var prox = near ? an.proximity(slots, p.covered, p.best, r.book, r.doc) : 0.0;
      hits.push([r.i, rounded(p.base + prox), p.covered]);
    });
    hits.sort(function (x, y) { return (y[1] - x[1]) || (x[0] - y[0]); });
    return hits.slice(0, limit);
  };

  /* The list from what is loaded: [[rule index, score]] best first, and the full-text
     hits behind it. */
  Engine.prototype._ranked = function (query, book, limit) {
    var scores = this._names(query, book), hits = [], slots = null;
    function offer(i, s) { if (s > (scores.get(i) || 0)) scores.set(i, s); }
    if (this.bloom && this.books.some(function (b) { return b.loaded; })) {
      slots = this._slots(query);
      hits = this._fulltext(slots, this._idfs(slots), book, limit);
      var best = hits.length ? hits[0][1] : 0;
      hits.forEach(function (h) { offer(h[0], best ? 40 * h[1] / best : 40); });
    }
    var ranked = Array.from(scores.entries())
      .sort(function (x, y) { return (y[1] - x[1]) || (x[0] - y[0]); })
      .slice(0, limit);
    return {ranked: ranked, hits: hits, slots: slots};
  };

  /* A book's bound: no rule of it scores more than this in full text for `slots`. */
  Engine.prototype._bound = function (b, slots, idfs) {
    var self = this, n = slots.length, covered = [], best = [], base = 0.0;
    for (var k = 0; k < n; k++) { covered.push(false); best.push(0.0); }
    slots.forEach(function (s, i) {
      s.terms.forEach(function (t) {
        if (t[3] !== null && t[3] !== b.id) return;
        var d = self.df.get(t[0]);
        if (!d || !self.mayHold(b, t[0])) return;
        var q = d[1];
        for (var j = 2; j < d.length; j += 2) if (d[j] === b.index) { q = d[j + 1]; break; }
        if (!q) return;
        var wi = t[1] * idfs.get(t[0]);
        base += wi * q / 1000;
        for (var k = t[2]; k <= i; k++) { covered[k] = true; if (wi > best[k]) best[k] = wi; }
      });
    });
    return base + this.an.proximityBound(covered, best);
  };

  /* The shards `search(query, options)` still needs to rank as the whole index does, by
     name (`rules-search/<name>.js`): the filters (`_filters`), then the terms files of the
     query's terms (`terms/<c>`), then the books that could still place a rule in the list
     (their bound, from the terms files, at least what the list's last rule scores), best
     first, a few at a time.  [] when none: the names alone fill the list with scores full
     text cannot reach (over 40), or no book left could change it.  Call again after adding
     them. */
  Engine.prototype.missing = function (query, options) {
    options = options || {};
    var book = options.book || null, limit = options.limit || 5, self = this;
    if (!norm(query)) return [];
    var strong = 0;
    this._names(query, book).forEach(function (s) { if (s > 40) strong++; });
    if (strong >= limit) return [];
    if (!this.bloom) return ["_filters"];
    var first = this._slotsAndFiles(query);
    if (!first.slots.length) return [];
    var files = first.files.filter(function (f) {
      return !self.termsLoaded.has(f) && self.termFiles.indexOf(f) >= 0;
    }).map(function (f) { return "terms/" + f; });
    if (files.length) return files;
    var slots = this._slots(query), idfs = this._idfs(slots);
    // what else the list needs: the terms files of fuzzy and prefix terms are in (same files)
    var now = this._ranked(query, book, limit), bestFt = now.hits.length ? now.hits[0][1] : 0;
    var kth = now.ranked.length >= limit ? now.ranked[limit - 1][1] : 0;
    var need = [];
    this.books.forEach(function (b) {
      if (b.loaded || (book && b.id !== book)) return;
      var ub = self._bound(b, slots, idfs);
      if (ub <= 0) return;
      if (ub >= bestFt || now.ranked.length < limit || (bestFt && 40 * ub / bestFt >= kth)) need.push([ub, b.index, b.id]);
    });
    need.sort(function (x, y) { return (y[0] - x[0]) || (x[1] - y[1]); });
    return need.slice(0, 6).map(function (x) { return x[2]; });
  };

  /* `rules lookup QUERY [--book BOOK] [--limit N]`: the best rules, best first, from the
     names and the shards loaded (`missing` says which shards make it the whole answer).
     A result whose book is not loaded yet has `text` null; `matched` lists the query's
     words its text holds. */
  Engine.prototype.search = function (query, options) {
    options = options || {};
    var book = options.book || null, limit = options.limit || 5, self = this;
    if (!norm(query)) return [];
    var res = this._ranked(query, book, limit), covered = new Map();
    res.hits.forEach(function (h) { covered.set(h[0], h[2]); });
    return res.ranked.map(function (e) {
      var r = self.rules[e[0]], c = covered.get(e[0]) || [];
      return {book: r.book, bookTitle: r.bookTitle, rule: r.rule, title: r.title, section: r.section,
              url: r.url, score: Math.round(e[1] * 100) / 100, text: r.loaded ? r.text : null,
              matched: res.slots ? res.slots.filter(function (_, i) { return c[i]; }).map(function (s) { return s.word; }) : []};
    });
  };

  /* The query's search words, and those no rule holds (nor a synonym or a longer word;
     a near spelling does not count): what the box says when a word finds nothing.  Needs the
     filters and the query's terms files (null until they are in). */
  Engine.prototype.words = function (query) {
    var self = this;
    if (!this.bloom) return null;
    var first = this._slotsAndFiles(query);
    if (first.files.some(function (f) { return !self.termsLoaded.has(f) && self.termFiles.indexOf(f) >= 0; })) return null;
    var slots = this._slots(query);
    return {words: slots.map(function (s) { return s.word; }),
            unknown: slots.filter(function (s) {
              return !s.terms.some(function (t) { return self.df.has(t[0]) && s.fuzzy.indexOf(t[0]) < 0; });
            })
              .map(function (s) { return s.word; })};
  };

  /* Rules whose titles are near the query or one of its words, for "nothing found": the
     names tier's score of each against each title (typos included) or difflib's ratio
     over 0.6, best first, one rule a title: [{book, rule, title, bookTitle, url}]. */
  Engine.prototype.nearTitles = function (query, n, book) {
    n = n || 5;
    var best = new Map(), an = this.an, qs = [norm(query)];
    words(query).forEach(function (w) {
      var q = norm(w);
      if (w.length >= 3 && !an.stop.has(w) && qs.indexOf(q) < 0) qs.push(q);
    });
    this.rules.forEach(function (r) {
      if (book && r.book !== book) return;
      var nn = norm(r.title), s = 0;
      qs.forEach(function (q) {
        if (!q) return;
        s = Math.max(s, scoreName(q, nn, q.length >= 5 && q.indexOf(" ") < 0), ratio(nn, q) >= 0.6 ? 40 : 0);
      });
      if (s > 0 && (!best.has(r.title) || s > best.get(r.title)[0])) best.set(r.title, [s, r]);
    });
    return Array.from(best.values())
      .sort(function (x, y) { return (y[0] - x[0]) || (x[1].i - y[1].i); })
      .slice(0, n).map(function (x) {
        var r = x[1];
        return {book: r.book, rule: r.rule, title: r.title, bookTitle: r.bookTitle, url: r.url};
      });
  };

  /* [start, end] ranges of `text` to mark for `query`: words whose stem is a term of the
     query (stop words never are: "can" no longer lights up "cannot"), or that the query's
     last word begins. */
  Engine.prototype.marks = function (text, query) {
    var an = this.an, slots = an.querySlots(query), want = new Set(), out = [];
    if (!slots.length) return out;
    slots.forEach(function (s) { want.add(s.stem); });
    var last = slots[slots.length - 1].word, re = /[\p{L}\p{N}]+(?:['\u2019-][\p{L}\p{N}]+)*/gu, m;
    while ((m = re.exec(text))) {
      var hit = false;
      words(m[0]).forEach(function (w) {
        var joined = w.replace(/-/g, "");
        if (want.has(stem(joined)) || (last.length >= an.rank.prefix_min && joined.startsWith(last))) hit = true;
        w.split("-").forEach(function (p) { if (!an.stop.has(p) && want.has(stem(p))) hit = true; });
      });
      if (hit) out.push([m.index, m.index + m[0].length]);
    }
    return out;
  };

  /* A short piece of `text` around the first word `marks` finds (else its start). */
  Engine.prototype.snippet = function (text, query, size) {
    size = size || 160;
    var m = this.marks(text, query), at = m.length ? m[0][0] : -1;
    var start = at > size / 3 ? text.lastIndexOf(" ", at - size / 3) + 1 : 0;
    var piece = text.slice(start, start + size);
    if (start + size < text.length) piece = piece.replace(/\s+\S*$/, "") + " …";
    return (start > 0 ? "… " : "") + piece;
  };

  /* A rule's document as textsearch.analyse makes it (tests compare the two). */
  Engine.prototype.document = function (i) {
    var d = this.rules[i].doc, out = {len: d.len, terms: {}};
    d.terms.forEach(function (e, t) { out.terms[t] = [e.tf, e.places]; });
    return out;
  };

  return {
    Engine: Engine, create: function (data) { return new Engine(data); }, VERSION: VERSION,
    norm: norm, ratio: ratio, quickRatio: quickRatio, scoreName: scoreName, slug: slug,
    bloomHas: bloomHas, fold: fold, words: words, stem: stem, idf: idf, rounded: rounded
  };
});
