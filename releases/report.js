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
    renderView(deal, k, 0);
    renderView(deal, k, 1);
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
