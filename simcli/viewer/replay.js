"use strict";
// The replay page's script: it draws the frame at the current step and moves between steps. Every frame (an
// event in words and the table after it) was worked out in Python from the trace (simcli/viewer/replay.py);
// nothing here knows the rules of the game.
(function () {
  const data = JSON.parse(document.getElementById("game-data").textContent);
  const frames = data.frames;
  // A frame holds only the parts of the table that changed since the frame before (a list: only the items that
  // changed, as {index: item}): fill in the rest.
  let table = {};
  for (const f of frames) {
    const next = Object.assign({}, table);
    for (const [key, value] of Object.entries(f.s)) {
      if (Array.isArray(table[key]) && value !== null && typeof value === "object" && !Array.isArray(value)) {
        next[key] = table[key].slice();
        for (const [i, item] of Object.entries(value)) next[key][Number(i)] = item;
      } else {
        next[key] = value;
      }
    }
    table = next;
    f.state = table;
  }
  let step = 0;
  let view = "all";
  const $ = (id) => document.getElementById(id);

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function card(name) {
    const cls = name === "2" || name === "JK" ? "c w" : name === "R3" ? "c r3" : name === "B3" ? "c b3" : "c";
    return el("span", cls, name);
  }

  function cardRow(names) {
    const row = el("div", "hand");
    for (const name of names) row.appendChild(card(name));
    return row;
  }

  function backs(count) {
    const row = el("div", "hand");
    for (let i = 0; i < count; i++) row.appendChild(el("span", "c back", "\u00a0"));
    return row;
  }

  function words(text) {
    return text ? text.split(" ") : [];
  }

  function shows(seat) {
    return view === "all" || Number(view) === seat;
  }

  function drawSeats(f, s) {
    const seats = $("seats");
    seats.textContent = "";
    seats.className = data.players === 4 ? "compass" : "";
    for (let i = 0; i < data.players; i++) {
      const box = el("section", "seat");
      box.dataset.seat = String(i);
      const size = s.sizes[i];
      const open = shows(i);
      box.dataset.count = String(size);
      box.dataset.cards = open ? s.hands[i] : "";
      if (f.turn > 0 && s.current === i && f.kind !== "deal_scored" && f.kind !== "totals" && f.kind !== "game_end") {
        box.classList.add("current");
      }
      const head = el("h3", "", data.seats[i] + " ");
      head.appendChild(el("small", "", data.strategies[i] + ", " + data.teamNames[i % data.teams] + ", " +
        size + (size === 1 ? " card" : " cards")));
      box.appendChild(head);
      box.appendChild(open ? cardRow(words(s.hands[i])) : backs(size));
      const extra = [];
      if (data.features.foot) {
        // Hand and Foot: the hand and the foot apart; in the foot once picked up, walking or running into it.
        const foot = s.ponyPicked[i] ? "in the foot (" + (s.footWalked[i] ? "walked" : "ran") + " into it)"
          : "foot: " + s.ponies[i] + " cards face down";
        box.dataset.foot = foot;
        extra.push("hand: " + size + (size === 1 ? " card" : " cards") + "; " + foot);
      } else if (data.features.ponies) {
        extra.push(s.ponyPicked[i] ? "pony picked up" : "pony: " + s.ponies[i] + " cards face down");
      }
      if (data.features.wings && s.wingPending[i]) extra.push("wing of " + s.wingPending[i] + " cards to come");
      if (extra.length) box.appendChild(el("div", "extra", extra.join("; ")));
      seats.appendChild(box);
    }
  }

  function drawCenter(s) {
    const center = $("center");
    center.textContent = "";
    const pile = el("div", "pile");
    pile.appendChild(el("span", "", "Pile: "));
    if (s.pile.top) pile.appendChild(card(s.pile.top));
    pile.appendChild(el("span", "", " " + s.pile.size + (s.pile.size === 1 ? " card" : " cards")));
    if (s.pile.down) pile.appendChild(el("span", "", " (" + s.pile.down + " face down)"));
    if (s.pile.frozen) pile.appendChild(el("span", "badge frozen", "frozen"));
    const frozenFor = s.pile.frozenFor.map((on, t) => (on && !s.pile.frozen ? data.teamNames[t] : null))
      .filter((x) => x);
    if (frozenFor.length) pile.appendChild(el("span", "badge frozen", "frozen for " + frozenFor.join(", ")));
    if (s.pile.crossed) pile.appendChild(el("span", "badge crossed", "crossed (castigado)"));
    if (s.pile.premiado) pile.appendChild(el("span", "badge premiado", "premiado"));
    center.appendChild(pile);
    center.appendChild(el("div", "stock", "Stock: " + s.stock + " cards"));
    if (data.features.wings) {
      let text = s.wings.length ? "Wings set aside: " + s.wings.join(" and ") + " cards" : "No wing left";
      if (s.wingsVoid) text += " (" + s.wingsVoid + " forfeited)";
      center.appendChild(el("div", "wings", text));
    }
  }

  function meldBox(m) {
    // A meld is [rank, naturals, twos, jokers, canasta kind or "", flags: c closed, h hidden].
    const [rank, n, t, j, kind, flags] = m;
    const box = el("div", "meld" + (kind ? " canasta " + kind : ""));
    const parts = [];
    if (rank !== "WILD") parts.push(rank + " \u00d7" + n);
    if (t) parts.push("2 \u00d7" + t);
    if (j) parts.push("JK \u00d7" + j);
    box.appendChild(el("span", "", parts.join(" + ")));
    if (kind) {
      let words = kind.toLowerCase() + " canasta";
      if (flags.includes("h")) words = "hidden " + words;
      if (flags.includes("c")) words += ", closed";
      box.appendChild(el("span", "kind", words));
    }
    return box;
  }

  function drawTeams(f, s) {
    const teams = $("teams");
    teams.textContent = "";
    for (let t = 0; t < data.teams; t++) {
      const box = el("section", "team");
      box.dataset.team = String(t);
      box.dataset.melds = s.melds[t].map((m) => m[0] + ":" + m[1] + "," + m[2] + "," + m[3]).join(";");
      box.dataset.total = String(f.totals[t]);
      const head = el("h2", "", data.teamNames[t]);
      head.appendChild(el("span", "total", String(f.totals[t])));
      box.appendChild(head);
      const facts = ["red threes: " + s.r3[t]];
      if (data.features.blackThrees) facts.push("black threes: " + s.b3[t]);
      facts.push(s.opened[t] ? "opened" : "needs " + s.minimum[t] + " to open");
      if (data.features.foot) {
        // The contract's books by kind, made / needed (Hand and Foot).
        const c = s.contract[t];
        let text = "contract: " + c.map(([kind, have, need]) => kind + " " + Math.min(have, need) + "/" + need)
          .join(", ");
        if (c.every(([, have, need]) => have >= need)) text += ": met";
        box.dataset.contract = text;
        facts.push(text);
      }
      if (f.dealScores) facts.push("this deal: " + (f.dealScores[t] > 0 ? "+" : "") + f.dealScores[t]);
      box.appendChild(el("div", "extra", facts.join("; ")));
      const melds = el("div", "melds");
      for (const m of s.melds[t]) melds.appendChild(meldBox(m));
      if (!s.melds[t].length) melds.appendChild(el("span", "extra", "no melds"));
      box.appendChild(melds);
      teams.appendChild(box);
    }
  }

  function drawScore(f) {
    const score = $("score");
    score.textContent = "";
    score.hidden = !f.score;
    if (!f.score) return;
    score.appendChild(el("h2", "", "Deal " + (f.deal + 1) + " score"));
    const list = el("ul");
    for (const line of f.score) list.appendChild(el("li", "", line));
    score.appendChild(list);
  }

  function drawSearch(f) {
    // What a search player weighed (a search line of the trace), shown to the seat's own view or all hands open:
    // one row per candidate, best first: [words, mean, standard error, gain, its standard error, worlds, chosen,
    // the search's first (its heuristic's own choice)].
    const box = $("search");
    box.textContent = "";
    box.hidden = !f.search || !shows(f.seat);
    if (box.hidden) return;
    const s = f.search;
    box.dataset.chosen = s.rows.filter((r) => r[6]).map((r) => r[0]).join("");
    box.appendChild(el("h2", "", data.seats[f.seat] + " (" + data.strategies[f.seat] + ") weighed " + s.rows.length +
      " candidates in " + s.worlds + (s.worlds === 1 ? " world" : " worlds") + ", best first"));
    const table = el("table");
    const head = el("tr");
    for (const name of ["candidate", "mean deal margin", "\u00b1 std. error", "gain over its heuristic's choice",
      "\u00b1 std. error", "worlds"]) head.appendChild(el("th", "", name));
    table.appendChild(head);
    for (const r of s.rows) {
      const row = el("tr", r[6] ? "chosen" : "");
      const notes = [r[6] ? "\u2714 chosen" : "", r[7] ? "(its heuristic's choice)" : ""].filter((x) => x);
      row.appendChild(el("td", "", r[0] + (notes.length ? " " + notes.join(" ") : "")));
      for (const x of [r[1], r[2], r[3], r[4], r[5]]) row.appendChild(el("td", "", String(x)));
      table.appendChild(row);
    }
    box.appendChild(table);
  }

  function text(f) {
    return view === "all" || f.seat === Number(view) || !f.pub ? f.text : f.pub;
  }

  function drawLog(f) {
    const list = $("logList");
    list.textContent = "";
    let first = step;
    while (first > 0 && frames[first - 1].deal === f.deal && frames[first - 1].turn === f.turn) first--;
    for (let i = Math.max(first, step - 30); i <= step; i++) {
      list.appendChild(el("li", i === step ? "now" : "", text(frames[i])));
    }
  }

  function render() {
    const f = frames[step];
    const s = f.state;
    const box = $("table");
    box.dataset.step = String(step);
    box.dataset.seq = String(f.seq);
    box.dataset.kind = f.kind;
    box.dataset.deal = String(f.deal);
    box.dataset.turn = String(f.turn);
    box.dataset.stock = String(s.stock);
    box.dataset.pileSize = String(s.pile.size);
    box.dataset.pileTop = s.pile.top || "";
    box.dataset.handSizes = s.sizes.join(",");
    box.dataset.totals = f.totals.join(",");
    box.dataset.dealScores = f.dealScores ? f.dealScores.join(",") : "";
    box.dataset.view = view;
    $("event").textContent = text(f);
    $("where").textContent = "Deal " + (f.deal + 1) + " of " + data.deals.length + ", turn " + f.turn +
      ", step " + (step + 1) + " of " + frames.length;
    $("slider").value = String(step);
    $("dealSelect").value = String(dealOf(step));
    drawSeats(f, s);
    drawCenter(s);
    drawTeams(f, s);
    drawScore(f);
    drawSearch(f);
    drawLog(f);
  }

  function dealOf(i) {
    let d = 0;
    for (let k = 0; k < data.deals.length; k++) if (data.deals[k].start <= i) d = k;
    return d;
  }

  function go(i) {
    step = Math.max(0, Math.min(frames.length - 1, i));
    render();
  }

  function sameTurn(a, b) {
    return frames[a].deal === frames[b].deal && frames[a].turn === frames[b].turn;
  }

  function nextTurn() {
    let i = step;
    while (i < frames.length - 1 && sameTurn(i, step)) i++;
    go(i);
  }

  function prevTurn() {
    let i = step;
    while (i > 0 && sameTurn(i - 1, step)) i--;
    if (i === step && i > 0) {
      i--;
      while (i > 0 && sameTurn(i - 1, step - 1)) i--;
    }
    go(i);
  }

  function deal(delta) {
    const d = dealOf(step);
    const start = data.deals[d].start;
    if (delta < 0 && step > start) go(start);
    else if (d + delta < 0) go(0);
    else if (d + delta >= data.deals.length) go(frames.length - 1);
    else go(data.deals[d + delta].start);
  }

  function setup() {
    $("seating").textContent = data.seats.map((name, i) => name + ": " + data.strategies[i]).join(", ") +
      (Object.keys(data.rulesDiff).length ? "; rules changed: " +
        Object.entries(data.rulesDiff).map(([k, v]) => k + "=" + v).join(", ") : "");
    const dealSelect = $("dealSelect");
    data.deals.forEach((d, k) => {
      const option = el("option", "", "Deal " + (k + 1));
      option.value = String(k);
      dealSelect.appendChild(option);
    });
    const viewSelect = $("viewSelect");
    const all = el("option", "", "all hands open");
    all.value = "all";
    viewSelect.appendChild(all);
    data.seats.forEach((name, i) => {
      const option = el("option", "", name + "'s view");
      option.value = String(i);
      viewSelect.appendChild(option);
    });
    for (const note of data.notes) $("notes").appendChild(el("p", "", note));
    const slider = $("slider");
    slider.max = String(frames.length - 1);
    slider.addEventListener("input", () => go(Number(slider.value)));
    dealSelect.addEventListener("change", () => go(data.deals[Number(dealSelect.value)].start));
    viewSelect.addEventListener("change", () => {
      view = viewSelect.value;
      render();
    });
    $("prev").addEventListener("click", () => go(step - 1));
    $("next").addEventListener("click", () => go(step + 1));
    $("prevTurn").addEventListener("click", prevTurn);
    $("nextTurn").addEventListener("click", nextTurn);
    $("prevDeal").addEventListener("click", () => deal(-1));
    $("nextDeal").addEventListener("click", () => deal(1));
    document.addEventListener("keydown", (e) => {
      const tag = e.target && e.target.tagName;
      if (tag === "INPUT" || tag === "SELECT" || e.altKey || e.ctrlKey || e.metaKey) return;
      const keys = {
        ArrowRight: () => go(step + 1), ArrowLeft: () => go(step - 1), ArrowDown: nextTurn, ArrowUp: prevTurn,
        PageDown: () => deal(1), PageUp: () => deal(-1), Home: () => go(0), End: () => go(frames.length - 1),
      };
      if (keys[e.key]) {
        e.preventDefault();
        keys[e.key]();
      }
    });
    // A link may open at a step and a seat's view: page.html#step=120&view=2
    const wanted = new URLSearchParams(window.location.hash.replace(/^#/, ""));
    if (wanted.has("view") && Number(wanted.get("view")) >= 0 && Number(wanted.get("view")) < data.players) {
      view = String(Number(wanted.get("view")));
      viewSelect.value = view;
    }
    if (wanted.has("step")) step = Math.max(0, Math.min(frames.length - 1, (Number(wanted.get("step")) || 1) - 1));
    render();
  }

  setup();
})();
