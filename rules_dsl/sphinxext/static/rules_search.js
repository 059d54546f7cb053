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

  function Engine(data) {
    if (!data || data.v !== 1) throw new Error("rules search: unknown index format");
    var f = {};
    data.fields.forEach(function (name, i) { f[name] = i; });
    this.books = data.books.map(function (b) { return {id: b[0], title: b[1]}; });
    var bookTitle = {};
    this.books.forEach(function (b) { bookTitle[b.id] = b.title; });
    this.rules = data.rules.map(function (r, i) {
      return {i: i, book: r[f.book], bookTitle: bookTitle[r[f.book]], rule: r[f.rule], title: r[f.title],
              section: r[f.section], url: r[f.url], aliases: r[f.aliases], keywords: r[f.keywords],
              text: r[f.text], notes: r[f.notes], mechanics: r[f.mechanics]};
    });
    this.byRef = new Map();
    var names = new Map(), self = this;
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
    this.mini = new MiniSearch({
      idField: "i",
      fields: ["title", "names", "text", "notes", "joined"],
      processTerm: processTerm,
      searchOptions: {prefix: true}
    });
    this.mini.addAll(this.rules.map(function (r) {
      var names = r.aliases.concat(r.keywords).join(" ");
      var text = r.text + "\n" + r.mechanics;
      var j = joined(r.title + " " + names);
      return {i: r.i, title: r.title, names: names, text: text, notes: r.notes,
              joined: j.concat(j, joined(text)).join(" ")};
    }));
  }

  /* MiniSearch's best `limit` rules for the words of `q`, as (rule, score relative to the best). */
  Engine.prototype._fulltext = function (q, book, limit, fields, boost, orFallback) {
    var self = this;
    var opts = {fields: fields, boost: boost, prefix: true, combineWith: "AND"};
    if (book) opts.filter = function (res) { return self.rules[res.id].book === book; };
    var hits = this.mini.search(q, opts), factor = 1;
    if (!hits.length && orFallback) {
      opts.combineWith = "OR";
      hits = this.mini.search(q, opts);
      factor = 0.5;
    }
    if (!hits.length) return [];
    var best = hits[0].score;
    return hits.slice(0, limit).map(function (h) { return [h.id, factor * (best ? h.score / best : 1)]; });
  };

  /* `rules lookup QUERY [--book BOOK] [--limit N]`: the best rules, best first. */
  Engine.prototype.search = function (query, options) {
    options = options || {};
    var book = options.book || null, limit = options.limit || 5, self = this;
    if (!norm(query)) return [];
    var scores = new Map();
    function offer(i, s) {
      if (book && self.rules[i].book !== book) return;
      if (s > (scores.get(i) || 0)) scores.set(i, s);
    }
    var ref = this.byRef.get(query.trim().toLowerCase());
    if (ref !== undefined) offer(ref, 100);
    var spellings = [norm(query)];
    var other = norm(unhyphenated(query));
    if (other !== spellings[0]) spellings.push(other);
    spellings.forEach(function (q) {
      var oneWord = q.length >= 5 && q.indexOf(" ") < 0;
      for (var n = 0; n < self.names.length; n++) {
        var s = scoreName(q, self.names[n][0], oneWord);
        if (s > 0) self.names[n][1].forEach(function (hit) { offer(hit[0], s - hit[1]); });
      }
      self._fulltext(q, book, limit * 4, ["title", "names", "text", "notes"], {title: 8, names: 4}, true)
        .forEach(function (h) { offer(h[0], 40 * h[1]); });
      self._fulltext(q, book, limit * 4, ["joined"], {}, false)
        .forEach(function (h) { offer(h[0], 36 * h[1]); });
    });
    return Array.from(scores.entries())
      .sort(function (x, y) { return (y[1] - x[1]) || (x[0] - y[0]); })
      .slice(0, limit)
      .map(function (e) {
        var r = self.rules[e[0]];
        return {book: r.book, bookTitle: r.bookTitle, rule: r.rule, title: r.title, section: r.section,
                url: r.url, score: Math.round(e[1] * 100) / 100, text: r.text};
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
    norm: norm, ratio: ratio, quickRatio: quickRatio, scoreName: scoreName, snippet: snippet
  };
});
