/* The ranking of the site's search box: `rules lookup` (rules_dsl/index.py), in JavaScript.
 *
 * One definition of ranking, two runtimes: this file runs in the browser (a plain
 * script: `window.RulesSearch`) and under node (`require`: tests/test_search_js.py
 * runs the same queries through it and through the CLI and compares the first rule).
 * It is a port of `Index.lookup`, tier for tier:
 *
 *   - `book:rule` typed as is: 100 (the rule's stable id);
 *   - a title or alias (alias: 5 less) scored by `scoreName`, the port of `_score_name`:
 *     exact 100, a word or a prefix 80, a word prefix 70, a similar name 50..90 (difflib's
 *     ratio, ported exactly: `ratio`), a typo of one word of a longer name 45;
 *   - full text: MiniSearch (vendored, minisearch-7.2.0.umd.js) over title (weight 8),
 *     aliases and keywords (4), prose and mechanics (1) and notes (1), every word as a
 *     prefix, all words else any word (half score): up to 40; hyphen-free spellings
 *     ("reroll" for "re-roll"): up to 36.
 *
 * Every name is scored (the CLI asks SQLite for candidates, and its docstring promises
 * the scores a scan of every name gives): a scan of a few thousand short names per
 * keystroke takes a few milliseconds.  Ties go to the earlier rule (books by id, rules
 * in book order), as in the CLI.  Only data is read: nothing from a book is evaluated.
 *
 * The data comes in parts (search_index.py documents them): `create(names file)` ranks
 * titles and aliases at once; `addShard` takes the books' word filters, a book's full
 * text or a terms file (the library's word counts); `missing(query)` names the parts a query still needs for its
 * list to be the one every part gives (none when the names settle it), and `search`
 * ranks with what is in.  MiniSearch runs over the loaded books only, with the whole
 * library's statistics put in (`_index`), so its scores are the whole index's.
 */
(function (root, factory) {
  if (typeof module === "object" && module.exports) {
    module.exports = factory(require("./minisearch-7.2.0.umd.js"));
  } else {
    root.RulesSearch = factory(root.MiniSearch);
  }
})(typeof self !== "undefined" ? self : this, function (MiniSearch) {
  "use strict";

  // ------------------------------------------------------------ text as index.py sees it
  function norm(s) {
    return s.toLowerCase().replace(/[^a-z0-9]+/g, " ").trim();
  }
  function unhyphenated(s) {
    return s.replace(/(?<=[A-Za-z0-9])-(?=[A-Za-z0-9])/g, "");
  }
  function joined(s) {
    return (s.match(/[A-Za-z0-9]+(?:-[A-Za-z0-9]+)+/g) || []).map(function (w) { return w.replace(/-/g, ""); });
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

  // ------------------------------------------------------------ the index
  /* A light English stemmer for full text (the CLI's FTS5 uses Porter): plurals only. */
  function processTerm(term) {
    var t = term.toLowerCase();
    if (t.length > 4 && t.endsWith("ies")) return t.slice(0, -3) + "y";
    if (t.length > 3 && t.endsWith("s") && !/(ss|us|is)$/.test(t)) return t.slice(0, -1);
    return t;
  }
  var FIELDS = ["title", "names", "text", "notes", "joined"];

  /* search_index.py's `slug`: a rule whose id is its title's slug stores "" */
  function slug(title) {
    return norm(title).replace(/ /g, "-");
  }

  // ------------------------------------------------------------ the Bloom filters
  function fnv(s, basis) {
    var h = basis >>> 0;
    for (var i = 0; i < s.length; i++) {     // query words are [a-z0-9]: one byte each
      h = Math.imul(h ^ s.charCodeAt(i), 16777619) >>> 0;
    }
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

  /* The engine over the names file (search_index.py documents its format); full text
     comes per book, from shards added with `addShard` as the box loads them. */
  function Engine(data) {
    if (!data || data.v !== 2) throw new Error("rules search: unknown index format");
    var self = this;
    this.stats = data.stats;
    this.bloom = null;              // the filters file's data, once it is in
    this.books = data.books.map(function (b) {
      return {id: b[0], title: b[1], n: b[2], bits: 0, filter: null, loaded: false, first: -1};
    });
    this.bookById = new Map();
    this.books.forEach(function (b) { self.bookById.set(b.id, b); });
    this.rules = data.rules.map(function (r, i) {
      var b = self.books[r[0]];
      if (b.first < 0) b.first = i;
      return {i: i, book: b.id, bookTitle: b.title, rule: r[1] || slug(r[2]), title: r[2],
              section: data.sections[r[3]], url: data.pages[r[4]], aliases: r.slice(5),
              keywords: [], text: "", notes: "", mechanics: "", loaded: false};
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
    this.mini = null;
    this.tokenize = MiniSearch.getDefault("tokenize");
    this.df = new Map();            // term -> [rules holding it, by field], the whole library's
    this.dfLoaded = new Set();      // first letters whose terms file is in
    this.termFiles = data.termfiles || "";   // the first letters that have a terms file
  }

  /* A shard's data: a book's full text (`RulesSearchShard(...)`) or a terms file (`RulesSearchTerms(...)`). */
  Engine.prototype.addShard = function (shard) {
    if (shard && shard.v === 2 && Array.isArray(shard.filters)) {
      if (shard.filters.length !== this.books.length) throw new Error("rules search: the filters do not fit the index");
      this.books.forEach(function (b, i) { b.bits = shard.filters[i][0]; b.filter = decode(shard.filters[i][1]); });
      this.bloom = {k: shard.k, cap: shard.cap};
      return;
    }
    if (shard && shard.v === 2 && typeof shard.terms === "string") {
      var df = this.df;
      Object.keys(shard.df).forEach(function (t) { df.set(t, shard.df[t]); });
      this.dfLoaded.add(shard.terms);
      return;
    }
    var b = shard && this.bookById.get(shard.book);
    if (!b || shard.v !== 2 || shard.rules.length !== b.n) throw new Error("rules search: a shard does not fit the index");
    if (b.loaded) return;
    for (var k = 0; k < b.n; k++) {
      var r = this.rules[b.first + k], s = shard.rules[k];
      r.text = s[0]; r.notes = s[1]; r.mechanics = s[2]; r.keywords = s.slice(3); r.loaded = true;
    }
    b.loaded = true;
    this.mini = null;      // made again, in rule order, on the next full-text search
  };

  /* MiniSearch over the loaded rules, in rule order, scoring as over every rule: the
     document count and field lengths are the whole library's (names file), and so is
     each word's document frequency (terms files: MiniSearch reads it as the size of the
     word's postings, which here are the loaded rules' only).  A book is left out only
     when its rules cannot match (`missing`), so the scores and the list are the whole
     index's. */
  Engine.prototype._index = function () {
    if (this.mini) return this.mini;
    var mini = new MiniSearch({idField: "i", fields: FIELDS, processTerm: processTerm,
                               searchOptions: {prefix: true}});
    mini.addAll(this.rules.filter(function (r) { return r.loaded; }).map(function (r) {
      var names = r.aliases.concat(r.keywords).join(" ");
      var text = r.text + "\n" + r.mechanics;
      var j = joined(r.title + " " + names);
      return {i: r.i, title: r.title, names: names, text: text, notes: r.notes,
              joined: j.concat(j, joined(text)).join(" ")};
    }));
    this.natural = {n: mini._documentCount, avg: mini._avgFieldLength.slice()};
    mini._documentCount = this.stats.n;
    mini._avgFieldLength = this.stats.avg.slice();
    var df = this.df, termResults = mini.termResults;
    mini.termResults = function (sourceTerm, derivedTerm, weight, termBoost, fieldTermData) {
      var counts = df.get(derivedTerm);
      if (fieldTermData && counts) {
        var global = new Map();
        fieldTermData.forEach(function (freqs, fieldId) {
          global.set(fieldId, {size: counts[fieldId] || freqs.size, keys: function () { return freqs.keys(); },
                               get: function (id) { return freqs.get(id); }});
        });
        var args = Array.prototype.slice.call(arguments);
        args[4] = global;
        return termResults.apply(this, args);
      }
      return termResults.apply(this, arguments);
    };
    this.mini = mini;
    return mini;
  };

  /* MiniSearch's best `limit` rules for the words of `q`, as (rule, score relative to the best). */
  Engine.prototype._fulltext = function (q, book, limit, fields, boost, orFallback) {
    var self = this, mini = this._index();
    var opts = {fields: fields, boost: boost, prefix: true, combineWith: "AND"};
    if (book) opts.filter = function (res) { return self.rules[res.id].book === book; };
    var hits = mini.search(q, opts), factor = 1;
    if (!hits.length && orFallback) {
      opts.combineWith = "OR";
      hits = mini.search(q, opts);
      factor = 0.5;
    }
    if (!hits.length) return [];
    var best = hits[0].score;
    return hits.slice(0, limit).map(function (h) { return [h.id, factor * (best ? h.score / best : 1)]; });
  };

  function spellingsOf(query) {
    var spellings = [norm(query)];
    var other = norm(unhyphenated(query));
    if (other !== spellings[0]) spellings.push(other);
    return spellings;
  }

  /* The query's full-text words, as MiniSearch sees them: one list per spelling. */
  Engine.prototype._words = function (query) {
    var self = this;
    return spellingsOf(query).map(function (q) {
      var out = [];
      self.tokenize(q).forEach(function (t) {
        var p = processTerm(t);
        if (p && out.indexOf(p) < 0) out.push(p);
      });
      return out;
    });
  };
  Engine.prototype._terms = function (query) {
    var out = new Set();
    this._words(query).forEach(function (ws) { ws.forEach(function (w) { out.add(w); }); });
    return Array.from(out);
  };

  /* Whether book `bookId`'s text may hold a word starting with one of `terms` (true for
     every book until the filters are in). */
  Engine.prototype.mayMatch = function (bookId, terms) {
    var b = this.bookById.get(bookId);
    if (!b) return false;
    if (!this.bloom) return true;
    var k = this.bloom.k, cap = this.bloom.cap;
    return terms.some(function (t) { return bloomHas(b.filter, b.bits, k, t.slice(0, cap)); });
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

  /* The shards `search(query, options)` still needs to rank as the whole index does,
     by name (`rules-search/<name>.js`): books by id, terms files as `terms/<letter>`,
     and first of all the books' word filters, `_filters` (no book id starts with "_").
     [] when none: the names alone fill the list with scores full text cannot reach (over
     40), or every part that matters is in.  What matters: the terms files of the query's
     words (their document frequencies), the books whose filter admits every word of a
     spelling (only their rules can match all words); and, if none of those rules does,
     the books that admit any word (full text then takes any word).  Call again after
     adding them: the last step needs the first's shards. */
  Engine.prototype.missing = function (query, options) {
    options = options || {};
    var book = options.book || null, limit = options.limit || 5, self = this;
    if (!norm(query)) return [];
    var strong = 0;
    this._names(query, book).forEach(function (s) { if (s > 40) strong++; });
    if (strong >= limit) return [];
    if (!this.bloom) return ["_filters"];     // first the filters: they say which books to fetch
    var words = this._words(query), need = [], matching = 0;
    function want(name) { if (need.indexOf(name) < 0) need.push(name); }
    var books = this.books.filter(function (b) { return !book || b.id === book; });
    function admit(ws, all) {
      books.forEach(function (b) {
        if (all ? ws.every(function (w) { return self.mayMatch(b.id, [w]); }) : self.mayMatch(b.id, ws)) {
          matching++;
          if (!b.loaded) want(b.id);
        }
      });
    }
    words.forEach(function (ws) { if (ws.length) admit(ws, true); });
    if (!need.length) {
      spellingsOf(query).forEach(function (q, i) {
        if (words[i].length && !self._fulltext(q, book, 1, ["title", "names", "text", "notes"], {}, false).length) {
          admit(words[i], false);
        }
      });
    }
    if (matching) {       // some rule may match: score it with the library's word counts
      this._terms(query).forEach(function (t) {
        if (!self.dfLoaded.has(t[0]) && self.termFiles.indexOf(t[0]) >= 0) want("terms/" + t[0]);
      });
    }
    return need;
  };

  /* `rules lookup QUERY [--book BOOK] [--limit N]`: the best rules, best first, from the
     names and the shards loaded (`missing` says which shards make it the whole answer).
     A result whose book is not loaded yet has `text` null. */
  Engine.prototype.search = function (query, options) {
    options = options || {};
    var book = options.book || null, limit = options.limit || 5, self = this;
    if (!norm(query)) return [];
    var scores = this._names(query, book);
    function offer(i, s) {
      if (book && self.rules[i].book !== book) return;
      if (s > (scores.get(i) || 0)) scores.set(i, s);
    }
    if (this.books.some(function (b) { return b.loaded; })) {
      spellingsOf(query).forEach(function (q) {
        self._fulltext(q, book, limit * 4, ["title", "names", "text", "notes"], {title: 8, names: 4}, true)
          .forEach(function (h) { offer(h[0], 40 * h[1]); });
        self._fulltext(q, book, limit * 4, ["joined"], {}, false)
          .forEach(function (h) { offer(h[0], 36 * h[1]); });
      });
    }
    return Array.from(scores.entries())
      .sort(function (x, y) { return (y[1] - x[1]) || (x[0] - y[0]); })
      .slice(0, limit)
      .map(function (e) {
        var r = self.rules[e[0]];
        return {book: r.book, bookTitle: r.bookTitle, rule: r.rule, title: r.title, section: r.section,
                url: r.url, score: Math.round(e[1] * 100) / 100, text: r.loaded ? r.text : null};
      });
  };

  /* A short piece of `text` around the first word of `query` it contains (else its start). */
  function snippet(text, query, size) {
    size = size || 160;
    var lower = text.toLowerCase(), at = -1;
    norm(query).split(" ").filter(function (w) { return w.length >= 3; }).some(function (w) {
      at = lower.indexOf(w);
      return at >= 0;
    });
    var start = at > size / 3 ? text.lastIndexOf(" ", at - size / 3) + 1 : 0;
    var piece = text.slice(start, start + size);
    if (start + size < text.length) piece = piece.replace(/\s+\S*$/, "") + " …";
    return (start > 0 ? "… " : "") + piece;
  }

  return {
    Engine: Engine, create: function (data) { return new Engine(data); },
    norm: norm, ratio: ratio, quickRatio: quickRatio, scoreName: scoreName, snippet: snippet,
    slug: slug, bloomHas: bloomHas, processTerm: processTerm
  };
});
