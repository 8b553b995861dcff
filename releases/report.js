// The GENSTRAT release report's one script (releases/report.py writes it as report/report.js).
//
// 1. An error sink: any error on the page is written into #report-errors, so that a reader
//    (and the headless-browser test, which reads the DOM) sees it; <body data-js> says
//    "ready" once this script ran to its end, "failed" if it stopped.
// 2. The match viewer (viewer.html only): the deals are the JSON of #deals-data; navigation
//    goes through the URL's fragment (#deal=<match id>&step=<k>, or #game=<token>), so a step
//    can be linked to. Text from the data is only ever set with textContent.
(function () {
  "use strict";

  var sink = document.getElementById("report-errors");

  function record(message) {
    if (!sink) {
      return;
    }
    var line = document.createElement("div");
    line.className = "error";
    line.textContent = message;
    sink.appendChild(line);
    sink.hidden = false;
    document.body.setAttribute("data-js-errors", String(sink.childNodes.length));
  }

  window.addEventListener("error", function (event) {
    record("error: " + event.message + " (" + (event.filename || "?") + ":" + (event.lineno || 0) + ")");
  });
  window.addEventListener("unhandledrejection", function (event) {
    record("unhandled rejection: " + String(event.reason));
  });

  // -- small DOM helpers (text only) ------------------------------------------------------

  function el(name, text, className) {
    var node = document.createElement(name);
    if (text !== undefined && text !== null) {
      node.textContent = String(text);
    }
    if (className) {
      node.className = className;
    }
    return node;
  }

  function clear(node) {
    while (node.firstChild) {
      node.removeChild(node.firstChild);
    }
  }

  function option(select, value, label) {
    var item = el("option", label);
    item.value = value;
    select.appendChild(item);
  }

  function signed(n) {
    if (n === null || n === undefined) {
      return "–";
    }
    return (n > 0 ? "+" : "") + String(n);
  }

  function pairOf(deal) {
    return [deal.alice, deal.bob].sort().join(" vs ");
  }

  function parseHash() {
    var out = {};
    var text = window.location.hash.replace(/^#/, "");
    text.split("&").forEach(function (part) {
      if (!part) {
        return;
      }
      var at = part.indexOf("=");
      var key = at < 0 ? part : part.slice(0, at);
      var value = at < 0 ? "" : part.slice(at + 1);
      try {
        out[decodeURIComponent(key)] = decodeURIComponent(value);
      } catch (err) {
        out[key] = value;
      }
    });
    return out;
  }

  function go(dealId, step) {
    var hash = "#deal=" + encodeURIComponent(dealId) + "&step=" + String(step);
    if (window.location.hash === hash) {
      render();
    } else {
      window.location.hash = hash;
    }
  }

  // -- the viewer --------------------------------------------------------------------------

  var deals = [];
  var byId = {};
  var current = null;

  function startViewer() {
    var holder = document.getElementById("deals-data");
    var data = JSON.parse(holder ? holder.textContent : "{}");
    deals = data.deals || [];
    deals.forEach(function (deal) {
      byId[deal.id] = deal;
    });
    var gameSelect = document.getElementById("pick-game");
    var pairSelect = document.getElementById("pick-pair");
    var runSelect = document.getElementById("pick-run");
    var seen = {};
    deals.forEach(function (deal) {
      if (!seen[deal.game]) {
        seen[deal.game] = true;
        option(gameSelect, deal.game, deal.game_label);
      }
    });
    gameSelect.addEventListener("change", function () {
      var first = deals.filter(function (d) { return d.game === gameSelect.value; })[0];
      if (first) { go(first.id, 0); }
    });
    pairSelect.addEventListener("change", function () {
      var first = deals.filter(function (d) {
        return d.game === gameSelect.value && pairOf(d) === pairSelect.value;
      })[0];
      if (first) { go(first.id, 0); }
    });
    runSelect.addEventListener("change", function () {
      var first = deals.filter(function (d) { return d.run === runSelect.value; })[0];
      if (first) { go(first.id, 0); }
    });
    document.getElementById("step-prev").addEventListener("click", function () { step(-1); });
    document.getElementById("step-next").addEventListener("click", function () { step(1); });
    document.addEventListener("keydown", function (event) {
      var target = event.target && event.target.tagName;
      if (target === "SELECT" || target === "INPUT") { return; }
      if (event.key === "ArrowLeft") { step(-1); }
      if (event.key === "ArrowRight") { step(1); }
    });
    window.addEventListener("hashchange", render);
    render();
  }

  function step(by) {
    if (!current) { return; }
    var n = current.deal.moves.length;
    var next = Math.max(0, Math.min(n, current.step + by));
    if (next !== current.step) { go(current.deal.id, next); }
  }

  function chosen() {
    var wanted = parseHash();
    var deal = byId[wanted.deal];
    var missing = null;
    if (!deal && wanted.deal) {
      missing = "Deal " + wanted.deal + " is not embedded in this page; showing the first deal.";
    }
    if (!deal && wanted.game) {
      deal = deals.filter(function (d) { return d.game === wanted.game; })[0];
      if (!deal) {
        missing = "No deal of game " + wanted.game + " is embedded in this page; showing the first deal.";
      }
    }
    if (!deal) { deal = deals[0]; }
    if (!deal) { return null; }
    var k = parseInt(wanted.step || "0", 10);
    if (isNaN(k)) { k = 0; }
    return { deal: deal, step: Math.max(0, Math.min(deal.moves.length, k)), missing: missing };
  }

  function render() {
    current = chosen();
    var section = document.getElementById("deal");
    if (!current) {
      section.hidden = true;
      var list = document.getElementById("deal-list");
      clear(list);
      list.appendChild(el("p", "No deals are embedded in this page.", "note"));
      return;
    }
    section.hidden = false;
    renderPickers(current.deal);
    if (current.missing) {
      document.getElementById("deal-list").appendChild(el("p", current.missing, "note"));
    }
    renderHead(current.deal);
    renderMoves(current.deal, current.step);
    renderStep(current.deal, current.step);
    document.getElementById("viewer").setAttribute("data-deal", current.deal.id);
    document.getElementById("viewer").setAttribute("data-step", String(current.step));
  }

  function renderPickers(deal) {
    var gameSelect = document.getElementById("pick-game");
    var pairSelect = document.getElementById("pick-pair");
    var runSelect = document.getElementById("pick-run");
    gameSelect.value = deal.game;
    clear(pairSelect);
    var pairs = {};
    deals.forEach(function (d) {
      if (d.game === deal.game && !pairs[pairOf(d)]) {
        pairs[pairOf(d)] = true;
        option(pairSelect, pairOf(d), pairOf(d));
      }
    });
    pairSelect.value = pairOf(deal);
    clear(runSelect);
    var runs = {};
    deals.forEach(function (d) {
      if (d.game === deal.game && pairOf(d) === pairOf(deal) && !runs[d.run]) {
        runs[d.run] = true;
        option(runSelect, d.run, "run #" + String(d.run_index) + " (" + d.run + ")");
      }
    });
    runSelect.value = deal.run;
    var list = document.getElementById("deal-list");
    clear(list);
    deals.forEach(function (d) {
      if (d.run !== deal.run) { return; }
      var button = el(
        "button",
        "deal " + String(d.deal) + ": Alice " + d.alice + ", Bob " + d.bob + " · " +
          (d.status || "?") + " " + signed(d.delta[0]) + "/" + signed(d.delta[1]),
        d.id === deal.id ? "deal-button current" : "deal-button"
      );
      button.type = "button";
      button.addEventListener("click", function () { go(d.id, 0); });
      list.appendChild(button);
    });
  }

  function fact(parent, label, value) {
    var item = el("span", null, "fact");
    item.appendChild(el("span", label + " ", "label"));
    item.appendChild(el("span", value));
    parent.appendChild(item);
  }

  function renderHead(deal) {
    var head = document.getElementById("deal-head");
    clear(head);
    var title = el("h2", deal.game_label + ": Alice " + deal.alice + " vs Bob " + deal.bob);
    head.appendChild(title);
    var facts = el("p", null, "facts");
    fact(facts, "match", deal.id);
    fact(facts, "run", "#" + String(deal.run_index) + ", deal " + String(deal.deal));
    fact(facts, "status", deal.status || "?");
    fact(facts, "chips", "Alice " + signed(deal.delta[0]) + ", Bob " + signed(deal.delta[1]));
    fact(facts, "play seed", deal.play_seed);
    head.appendChild(facts);
    if (deal.game_page) {
      var rules = el("a", "rules of " + deal.game_label);
      rules.setAttribute("href", deal.game_page + "#rulebook");
      var p = el("p");
      p.appendChild(rules);
      head.appendChild(p);
    }
    if (deal.error) { head.appendChild(el("p", "error: " + deal.error, "note")); }
    if (deal.replay) { head.appendChild(el("p", deal.replay, "note")); }
  }

  function renderMoves(deal, k) {
    var list = document.getElementById("move-list");
    clear(list);
    deal.moves.forEach(function (move, i) {
      var item = el("li", null, i === k ? "move current" : "move");
      var button = el("button", null, "move-button");
      button.type = "button";
      button.appendChild(el("span", (move.seat === "alice" ? "Alice" : "Bob") + " (" + move.player + "): ", "who"));
      button.appendChild(el("span", move.action, "action"));
      button.appendChild(el("span", " · " + move.phase, "phase"));
      if (move.fallback) { button.appendChild(el("span", "fallback", "badge fail")); }
      button.addEventListener("click", function () { go(deal.id, i); });
      item.appendChild(button);
      list.appendChild(item);
    });
    var end = el("li", null, k === deal.moves.length ? "move end current" : "move end");
    var endButton = el("button", "end of the deal", "move-button");
    endButton.type = "button";
    endButton.addEventListener("click", function () { go(deal.id, deal.moves.length); });
    end.appendChild(endButton);
    list.appendChild(end);
  }

  function textBlock(parent, title, text, cut) {
    parent.appendChild(el("h4", title));
    parent.appendChild(el("pre", text, "reply"));
    if (cut) {
      parent.appendChild(el("p", "… " + String(cut) + " more characters in tables/match_moves.parquet", "note"));
    }
  }

  function renderStep(deal, k) {
    var n = deal.moves.length;
    document.getElementById("step-label").textContent = "step " + String(k) + " of " + String(n);
    document.getElementById("step-prev").disabled = k <= 0;
    document.getElementById("step-next").disabled = k >= n;
    var detail = document.getElementById("step-detail");
    clear(detail);
    if (k < n) {
      var move = deal.moves[k];
      var seat = move.seat === "alice" ? "Alice" : "Bob";
      detail.appendChild(el("h3", "Move " + String(k + 1) + ": " + seat + " (" + move.player + ") in " + move.phase));
      detail.appendChild(el("h4", "Legal actions"));
      var chips = el("ul", null, "chips");
      move.legal.forEach(function (action) {
        chips.appendChild(el("li", action, action === move.action ? "chip taken" : "chip"));
      });
      detail.appendChild(chips);
      var facts = el("p", null, "facts");
      fact(facts, "action taken", move.action);
      fact(facts, "fallback", move.fallback ? "yes (the reply did not parse to a legal action)" : "no");
      if (move.verdict) { fact(facts, "parser verdict", move.verdict); }
      fact(facts, "rethinks", move.rethinks === null ? "–" : String(move.rethinks));
      if (move.tokens) { fact(facts, "tokens in/out/reasoning", move.tokens.join(" / ")); }
      detail.appendChild(facts);
      if (move.raw === null || move.raw === undefined) {
        detail.appendChild(el("p", "No raw reply recorded (a built-in bot or a program answers with its action).", "note"));
      } else {
        textBlock(detail, "Raw reply", move.raw, move.raw_cut);
      }
      (move.earlier || []).forEach(function (earlier, i) {
        textBlock(detail, "Earlier reply " + String(i + 1) + " (rethink)", earlier.text, earlier.cut);
      });
      if (move.reasoning) {
        textBlock(detail, "Reasoning", move.reasoning, move.reasoning_cut);
      }
    } else {
      detail.appendChild(el("h3", "End of the deal"));
      var result = el("p", null, "facts");
      fact(result, "status", deal.status || "?");
      fact(result, "Alice (" + deal.alice + ")", signed(deal.delta[0]) + " chips");
      fact(result, "Bob (" + deal.bob + ")", signed(deal.delta[1]) + " chips");
      detail.appendChild(result);
    }
    renderBoard(deal, k);
    renderView(deal, k, 0);
    renderView(deal, k, 1);
  }

  // -- boards (OpenSpiel deals: releases/report.py's replay_openspiel, packed FEN-style) -------

  // The SVG namespace, from the page's own empty <svg> (releases/report.py's viewer_page).
  function svgNamespace() {
    var holder = document.getElementById("svg-namespace");
    return holder ? holder.namespaceURI : null;
  }
  // The solid glyphs for both colours (drawn white or black by the stylesheet).
  var PIECE_GLYPHS = { k: "\u265a", q: "\u265b", r: "\u265c", b: "\u265d", n: "\u265e", p: "\u265f" };

  function svg(name, attrs, text) {
    var node = document.createElementNS(svgNamespace(), name);
    Object.keys(attrs || {}).forEach(function (key) {
      node.setAttribute(key, String(attrs[key]));
    });
    if (text !== undefined && text !== null) {
      node.textContent = String(text);
    }
    return node;
  }

  function unpackRows(packed) {
    return packed.split("/").map(function (row) {
      return row.replace(/\d+/g, function (run) {
        return new Array(parseInt(run, 10) + 1).join(".");
      });
    });
  }

  function canvas(family, width, height) {
    var root = svg("svg", {
      viewBox: "0 0 " + String(width) + " " + String(height),
      width: width,
      height: height,
      "class": "board board-" + family,
      role: "img"
    });
    root.setAttribute("data-family", family);
    return root;
  }

  function label(root, x, y, text) {
    root.appendChild(svg("text", { x: x, y: y, "class": "coord" }, text));
  }

  function drawChess(board, rows, changed) {
    var cell = 44;
    var pad = 22;
    var root = canvas("chess", pad + 8 * cell + 6, 8 * cell + pad + 6);
    rows.forEach(function (row, i) {
      label(root, pad / 2, i * cell + cell / 2 + 4, board.ranks[i]);
      row.split("").forEach(function (piece, j) {
        var square = board.files[j] + board.ranks[i];
        var tone = (i + j) % 2 === 0 ? "light" : "dark";
        var rect = svg("rect", {
          x: pad + j * cell, y: i * cell, width: cell, height: cell,
          "class": "square " + tone + (changed(i, j) ? " moved" : "")
        });
        rect.setAttribute("data-square", square);
        root.appendChild(rect);
        if (piece !== ".") {
          var white = piece === piece.toUpperCase();
          var glyph = svg("text", {
            x: pad + j * cell + cell / 2, y: i * cell + cell / 2 + 2,
            "class": "piece " + (white ? "white" : "black")
          }, PIECE_GLYPHS[piece.toLowerCase()]);
          glyph.setAttribute("data-square", square);
          glyph.setAttribute("data-piece", piece);
          root.appendChild(glyph);
        }
      });
    });
    board.files.forEach(function (file, j) {
      label(root, pad + j * cell + cell / 2, 8 * cell + pad - 6, file);
    });
    return root;
  }

  function drawGo(board, rows, changed) {
    var n = rows.length;
    var m = rows[0].length;
    var cell = 34;
    var pad = 40;  // room for the coordinates outside the stones (radius cell / 2 - 2)
    var side = 2 * pad + (m - 1) * cell;
    var root = canvas("go", side, 2 * pad + (n - 1) * cell);
    root.appendChild(svg("rect", { x: 0, y: 0, width: side, height: 2 * pad + (n - 1) * cell, "class": "wood" }));
    for (var i = 0; i < n; i++) {
      root.appendChild(svg("line", { x1: pad, y1: pad + i * cell, x2: pad + (m - 1) * cell, y2: pad + i * cell, "class": "grid" }));
      label(root, pad / 2 - 4, pad + i * cell + 4, board.ranks[i]);
    }
    for (var j = 0; j < m; j++) {
      root.appendChild(svg("line", { x1: pad + j * cell, y1: pad, x2: pad + j * cell, y2: pad + (n - 1) * cell, "class": "grid" }));
      label(root, pad + j * cell, pad + (n - 1) * cell + pad - 8, board.files[j]);
    }
    rows.forEach(function (row, i) {
      row.split("").forEach(function (mark, j) {
        if (mark === ".") { return; }
        var stone = svg("circle", {
          cx: pad + j * cell, cy: pad + i * cell, r: cell / 2 - 2,
          "class": "stone " + (mark === "x" ? "black" : "white")
        });
        stone.setAttribute("data-point", board.files[j] + board.ranks[i]);
        stone.setAttribute("data-stone", mark);
        root.appendChild(stone);
        if (changed(i, j)) {
          root.appendChild(svg("circle", { cx: pad + j * cell, cy: pad + i * cell, r: cell / 6, "class": "last-move" }));
        }
      });
    });
    return root;
  }

  function drawConnectFour(board, rows, changed) {
    var n = rows.length;
    var m = rows[0].length;
    var cell = 46;
    var pad = 8;
    var root = canvas("connect_four", 2 * pad + m * cell, 2 * pad + n * cell + 20);
    root.appendChild(svg("rect", { x: pad, y: pad, width: m * cell, height: n * cell, rx: 8, "class": "frame" }));
    rows.forEach(function (row, i) {
      row.split("").forEach(function (mark, j) {
        var disc = svg("circle", {
          cx: pad + j * cell + cell / 2, cy: pad + i * cell + cell / 2, r: cell / 2 - 5,
          "class": "disc " + (mark === "x" ? "first" : mark === "o" ? "second" : "hole") + (changed(i, j) ? " moved" : "")
        });
        disc.setAttribute("data-cell", board.files[j] + board.ranks[i]);
        disc.setAttribute("data-stone", mark);
        root.appendChild(disc);
      });
    });
    board.files.forEach(function (file, j) {
      label(root, pad + j * cell + cell / 2, pad + n * cell + 16, file);
    });
    return root;
  }

  function drawHex(board, rows, changed) {
    var n = rows.length;
    var m = rows[0].length;
    var size = 17;
    var w = Math.sqrt(3) * size;
    var pad = 30;
    var root = canvas("hex", 2 * pad + (m + (n - 1) / 2) * w, 2 * pad + (1.5 * (n - 1) + 2) * size);
    function centre(i, j) {
      return [pad + w / 2 + (j + i / 2) * w, pad + size + i * 1.5 * size];
    }
    rows.forEach(function (row, i) {
      row.split("").forEach(function (mark, j) {
        var c = centre(i, j);
        var points = [];
        for (var k = 0; k < 6; k++) {
          var angle = Math.PI / 180 * (60 * k - 30);
          points.push((c[0] + size * Math.cos(angle)).toFixed(1) + "," + (c[1] + size * Math.sin(angle)).toFixed(1));
        }
        var cell = svg("polygon", {
          points: points.join(" "),
          "class": "hexcell " + (mark === "x" ? "first" : mark === "o" ? "second" : "empty") + (changed(i, j) ? " moved" : "")
        });
        cell.setAttribute("data-cell", board.files[j] + board.ranks[i]);
        cell.setAttribute("data-stone", mark);
        root.appendChild(cell);
      });
      var left = centre(i, 0);
      label(root, left[0] - w, left[1] + 4, board.ranks[i]);
    });
    board.files.forEach(function (file, j) {
      var top = centre(0, j);
      label(root, top[0], top[1] - size - 6, file);
    });
    return root;
  }

  var DRAW = { chess: drawChess, go: drawGo, connect_four: drawConnectFour, hex: drawHex };
  var LEGENDS = {
    chess: "White moves first; the squares of the last move are marked.",
    go: "Black and White stones; a dot marks the stone just played.",
    connect_four: "Red: the first player (x); yellow: the second (o).",
    hex: "Red (x) joins top and bottom; blue (o) joins left and right."
  };

  function renderBoard(deal, k) {
    var box = document.getElementById("board-view");
    if (!box) { return; }
    clear(box);
    var boards = deal.boards;
    if (!boards || !boards[k] || !DRAW[boards[k].family]) {
      box.hidden = true;
      return;
    }
    box.hidden = false;
    var board = boards[k];
    var rows = unpackRows(board.rows);
    var before = k > 0 && boards[k - 1] ? unpackRows(boards[k - 1].rows) : null;
    function changed(i, j) {
      return before !== null && before[i][j] !== rows[i][j];
    }
    var figure = el("figure", null, "board-figure");
    figure.appendChild(DRAW[board.family](board, rows, changed));
    var caption = k < deal.moves.length ? "The board before move " + String(k + 1) : "The final position";
    figure.appendChild(el("figcaption", caption + ". " + LEGENDS[board.family]));
    box.appendChild(figure);
    if (deal.pgn) {
      var link = el("a", "the game in PGN");
      link.setAttribute("href", deal.pgn);
      var p = el("p");
      p.appendChild(link);
      box.appendChild(p);
    }
  }

  function cardRow(parent, title, cards) {
    var row = el("div", null, "cards");
    row.appendChild(el("span", title + " ", "label"));
    if (!cards.length) {
      row.appendChild(el("span", "(none)", "note-inline"));
    }
    cards.forEach(function (card) {
      var suit = card.slice(-1);
      var red = suit === "\u2665" || suit === "\u2666";
      row.appendChild(el("span", card, "card" + (red ? " red" : "")));
    });
    parent.appendChild(row);
  }

  function renderFacts(box, view) {
    var facts = el("dl", null, "view-facts");
    facts.appendChild(el("dt", "phase"));
    facts.appendChild(el("dd", view.phase));
    view.facts.forEach(function (pair) {
      facts.appendChild(el("dt", pair[0]));
      facts.appendChild(el("dd", pair[1]));
    });
    box.appendChild(facts);
    if (view.cards) {
      cardRow(box, "cards", view.cards.hole);
      cardRow(box, "community", view.cards.board);
    }
  }

  function renderView(deal, k, seat) {
    var box = document.getElementById("view-" + String(seat));
    clear(box);
    var name = seat === 0 ? "Alice" : "Bob";
    var player = seat === 0 ? deal.alice : deal.bob;
    box.appendChild(el("h3", name + "'s view (" + player + ")"));
    var view = null;
    if (k < deal.moves.length) {
      view = deal.views && deal.views[k] ? deal.views[k][seat] : null;
    } else if (deal.final && deal.ended) {
      view = deal.final[seat];
    }
    if (!view) {
      box.appendChild(el("p", deal.replay || "No view for this step.", "note"));
      return;
    }
    if (view.to_act) { box.appendChild(el("p", "to act", "badge")); }
    if (view.facts) {  // an OpenSpiel deal
      renderFacts(box, view);
      return;
    }
    var facts = el("dl", null, "view-facts");
    function row(label, value) {
      facts.appendChild(el("dt", label));
      facts.appendChild(el("dd", value));
    }
    row("phase", view.phase);
    row("hand", view.hand.join(" ") || "(no cards)");
    row("board", view.board.join(" ") || "(empty)");
    row("chips behind", "Alice " + String(view.stacks[0]) + " · Bob " + String(view.stacks[1]));
    row("pot", String(view.pot));
    var positions = Object.keys(view.positions).map(function (key) { return key + ": " + view.positions[key]; });
    if (positions.length) { row("positions", positions.join(", ")); }
    box.appendChild(facts);
    var events = view.events;
    if (typeof events === "number") {
      events = deal.final[seat].events.slice(0, events);
    }
    box.appendChild(el("h4", "What " + name + " has seen"));
    var list = el("ol", null, "events");
    events.forEach(function (line) { list.appendChild(el("li", line)); });
    box.appendChild(list);
  }

  // -- start ---------------------------------------------------------------------------------

  try {
    if (document.getElementById("viewer")) {
      startViewer();
    }
    document.body.setAttribute("data-js", "ready");
  } catch (err) {
    record("error: " + (err && err.stack ? err.stack : String(err)));
    document.body.setAttribute("data-js", "failed");
  }
})();
