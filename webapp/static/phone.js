// The phone page and the table page: both render the snapshot the server computed for them.
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const el = icetable.el;
  const app = $("app");
  const code = app.dataset.code;
  const KINDS = ["joined", "player_removed", "game_started", "action", "undo", "game_over", "dice", "report"];
  const MAX_BUTTONS = 12;
  const LABELS = {call: "Call icehouse!", roll: "Roll the die", end_turn: "End my turn", pass: "Pass"};
  const SVG = "http://www.w3.org/2000/svg";
  const PAINT = {suns: "#d22", moons: "#222", crowns: "#2a2", arms: "#24c", clear: "#eee", cyan: "#0cc"};

  const pretty = (s) => String(s).replace(/_/g, " ");
  const showError = (msg) => { $("error").textContent = msg || ""; };

  async function send(path, body) {
    showError("");
    const r = await icetable.post(path, body);
    if (!r.ok) showError(r.data.error || "refused (" + r.status + ")");
    return r;
  }

  // ---- rendering ----------------------------------------------------------------------------
  function value(v) {
    if (v === null || v === undefined) return el("span", "—");
    if (Array.isArray(v)) {
      if (v.every((x) => x === null || typeof x !== "object")) return el("span", v.length ? v.join(", ") : "—");
      const list = el("ol");
      for (const x of v) { const li = el("li"); li.appendChild(value(x)); list.appendChild(li); }
      return list;
    }
    if (typeof v === "object" && isRecords(v)) return records(v);
    if (typeof v === "object") {
      const dl = el("dl", null, "view");
      for (const [k, x] of Object.entries(v)) {
        dl.appendChild(el("dt", pretty(k)));
        const dd = el("dd"); dd.appendChild(value(x)); dl.appendChild(dd);
      }
      return dl;
    }
    if (typeof v === "boolean") return el("span", v ? "yes" : "no");
    return el("span", v);
  }

  // {id: {flat fields}, ...}: one compact table row per entry (ships, islands, ...).
  function isRecords(v) {
    const rows = Object.values(v);
    return rows.length > 1 && rows.every((r) => r && typeof r === "object" && !Array.isArray(r) &&
      Object.values(r).every((x) => x === null || typeof x !== "object" || Array.isArray(x)));
  }

  function records(v) {
    const cols = [...new Set(Object.values(v).flatMap((r) => Object.keys(r)))];
    const wrap = el("div", null, "scroll");
    const table = wrap.appendChild(el("table", null, "records"));
    const head = el("tr");
    for (const c of ["", ...cols]) head.appendChild(el("th", pretty(c)));
    table.appendChild(head);
    for (const [id, r] of Object.entries(v)) {
      const tr = el("tr");
      tr.appendChild(el("th", id));
      for (const c of cols) {
        const x = r[c];
        tr.appendChild(el("td", x === undefined || x === null ? "" : Array.isArray(x) ? x.join(", ")
          : typeof x === "boolean" ? (x ? "yes" : "") : x));
      }
      table.appendChild(tr);
    }
    return wrap;
  }

  function renderPlayers(s) {
    const ul = $("players");
    ul.replaceChildren();
    const toAct = s.game && s.game.status === "playing" ? s.game.to_act : [];
    for (const p of s.players) {
      const li = el("li", null, "player side-" + p.side);
      li.appendChild(el("span", p.name, "name"));
      li.appendChild(el("span", p.side, "chip"));
      if (p.host) li.appendChild(el("span", "host", "tag"));
      if (s.game && s.game.players.includes(p.side) && s.game.status === "playing") {
        li.appendChild(el("span", toAct.includes(p.side) ? "to act" : "done ✓",
                          toAct.includes(p.side) ? "waiting" : "done"));
      }
      ul.appendChild(li);
    }
  }

  // Keys of a match view drawn by a dedicated part below (the rest is listed generically).
  const DRAWN = ["game", "players", "to_act", "scores", "board", "tiles", "coins", "vote", "history",
                 "this_round", "options", "over", "winner", "phase", "round", "torch_bearer", "calls", "scene"];
  const RANK = {0: "null", 1: "ace"};
  const rank = (r) => (r in RANK ? RANK[r] : String(r));

  function grid(tiles, onTile) {
    const box = el("div", null, "grid");
    for (const [id, t] of Object.entries(tiles)) {
      const cell = el("div", null, "tile " + (t.suit ? "suit-" + t.suit : "down"));
      cell.style.gridColumn = String(t.cell[0] + 1);
      cell.style.gridRow = String(t.cell[1] + 1);
      cell.appendChild(el("b", t.suit ? rank(t.rank) + " " + t.suit : "face down"));
      for (const line of onTile(id)) cell.appendChild(el("span", line, "on"));
      box.appendChild(cell);
    }
    return box;
  }

  // A top-down map of a scene (SCENE.md): pieces as dots sized by their size, cards as boxes.
  function sceneMap(scene) {
    const w = (scene.area && scene.area.width) || 1000, h = (scene.area && scene.area.height) || 1000;
    const svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("viewBox", "0 0 " + w + " " + h);
    svg.setAttribute("class", "map");
    const add = (tag, attrs, title) => {
      const node = document.createElementNS(SVG, tag);
      for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
      if (title) { const t = document.createElementNS(SVG, "title"); t.textContent = title; node.appendChild(t); }
      svg.appendChild(node);
    };
    add("rect", {x: 0, y: 0, width: w, height: h, fill: "#cde9ff", stroke: "#000", "stroke-width": 4});
    for (const p of scene.pieces) {
      const colour = PAINT[p.color || p.owner || p.suit] || p.color || p.owner || "#888";
      if (p.type === "card") {
        add("rect", {x: p.x - p.width / 2, y: p.y - p.height / 2, width: p.width, height: p.height,
                     fill: colour, "fill-opacity": 0.3, stroke: "#000", "stroke-width": 3}, p.id);
      } else {
        const r = typeof p.size === "number" ? 8 + 5 * p.size : 10;
        add("circle", {cx: p.x, cy: p.y, r, fill: colour, stroke: "#000", "stroke-width": 3,
                       "stroke-dasharray": p.pose === "lying" ? "6 4" : "none"}, p.id);
      }
    }
    return svg;
  }

  function voteBox(v) {
    const box = el("div", null, "vote");
    box.appendChild(el("h3", "Vote on the " + v.stage));
    if (v.ballots) {
      const table = el("table", null, "scores");
      for (const [side, value] of Object.entries(v.ballots)) {
        const tr = el("tr");
        tr.appendChild(el("td", side));
        tr.appendChild(el("td", rank(value) + (v.void && v.void.includes(side) ? " (void)" : ""), "num"));
        table.appendChild(tr);
      }
      box.appendChild(table);
      if (v.tally) box.appendChild(el("p", "Tally: " + v.tally.map(([o, n]) => rank(o) + " → " + n).join(", "), "tally"));
      if (v.result !== null && v.result !== undefined) box.appendChild(el("p", "Result: " + rank(v.result), "result"));
    } else {
      box.appendChild(el("p", "Voted: " + (v.voted.length ? v.voted.join(", ") : "nobody yet")));
      if ("mine" in v) box.appendChild(el("p", "Your secret ballot: " + rank(v.mine), "mine"));
    }
    return box;
  }

  function renderView(view, box) {
    const line = [view.phase, view.round ? "round " + view.round : null,
                  view.torch_bearer ? "torch: " + view.torch_bearer : null].filter(Boolean).join(" · ");
    if (line) box.appendChild(el("p", line, "status"));
    if (view.vote) box.appendChild(voteBox(view.vote));
    if (view.this_round && view.this_round.number && !(view.vote && view.vote.ballots)) {
      box.appendChild(voteBox(view.this_round.number));
      if (view.this_round.suit) box.appendChild(voteBox(view.this_round.suit));
    }
    if (view.board && view.board.tiles) {
      const on = {};
      for (const p of Object.values(view.board.pyramids)) (on[p.tile] = on[p.tile] || []).push(p.size + " " + p.suit);
      box.appendChild(grid(view.board.tiles, (id) => on[id] || []));
    } else if (view.tiles) {
      const on = {};
      for (const c of Object.values(view.coins || {})) {
        const key = Math.floor(c.square[0] / 2) + "," + Math.floor(c.square[1] / 2);
        (on[key] = on[key] || []).push(c.suit);
      }
      box.appendChild(grid(view.tiles, (id) => on[view.tiles[id].cell.join(",")] || []));
    }
    if (view.scene && view.scene.pieces) box.appendChild(sceneMap(view.scene));
    if (view.calls && view.calls.length) {
      const ol = el("ol", null, "calls");
      for (const c of view.calls) ol.appendChild(el("li", c.message));
      box.appendChild(ol);
    }
    const rest = Object.fromEntries(Object.entries(view).filter(([k]) => !DRAWN.includes(k)));
    box.appendChild(value(rest));
  }

  function renderGame(s) {
    const box = $("game");
    box.replaceChildren();
    if (!s.game) { box.appendChild(el("p", "Waiting for the host to start a game.", "hint")); return; }
    const g = s.game;
    box.appendChild(el("p", "Game " + g.number + " · " + g.status, "status"));
    if (g.winner) box.appendChild(el("p", "Winner: " + g.winner.join(", "), "winner"));
    renderView(g.view, box);
  }

  function actionLabel(a) {
    const rest = Object.entries(a).filter(([k]) => k !== "player" && k !== "type");
    const show = (v) => (Array.isArray(v) ? v.join(" + ")
      : typeof v === "object" && v !== null ? Object.entries(v).map(([k, x]) => k + " " + x).join(" ") : v);
    return rest.length ? rest.map(([k, v]) => (rest.length > 1 ? pretty(k) + " " : "") + show(v)).join(" · ")
      : LABELS[a.type] || pretty(a.type);
  }

  // Iceberg: the player reads the flipped tile's face off the table ("suns 3", "moons null").
  function askFace(tile) {
    const text = window.prompt("Tile " + tile + " shows which face? (suit and rank, e.g. suns 3, moons null, arms ace)");
    if (!text) return null;
    const [suit, rank] = text.trim().toLowerCase().split(/\s+/);
    const RANK = {null: 0, ace: 1};
    return {suit: suit, rank: rank in RANK ? RANK[rank] : Number(rank)};
  }

  function renderActions(s) {
    const box = $("actions");
    if (!box) return;
    box.replaceChildren();
    const legal = (s.game && s.game.legal) || [];
    if (!legal.length) {
      box.appendChild(el("p", s.game && s.game.status === "playing" ? "Nothing for you to do right now." : "—", "hint"));
      return;
    }
    const groups = new Map();
    for (const a of legal) {
      if (!groups.has(a.type)) groups.set(a.type, []);
      groups.get(a.type).push(a);
    }
    for (const [type, list] of groups) {
      box.appendChild(el("h3", pretty(type)));
      const row = el("div", null, "choices");
      const go = async (a) => {
        const body = Object.assign({}, a); delete body.player;
        if (a.type === "flip" && ((s.game.view || {}).options || {}).tiles === "table") {
          body.face = askFace(a.tile);                 // the face the real tile shows
          if (!body.face) return;
        }
        for (const x of box.querySelectorAll("button, select")) x.disabled = true;
        const r = await send("/t/" + code + "/act", body);
        if (r.ok) $("banner").textContent = "Sent ✓ " + pretty(type) + " " + actionLabel(a);
        else for (const x of box.querySelectorAll("button, select")) x.disabled = false;
      };
      if (list.length > MAX_BUTTONS) {            // many choices: a list to pick from, then one button
        const pick = el("select");
        list.forEach((a, i) => { const o = el("option", actionLabel(a)); o.value = String(i); pick.appendChild(o); });
        const b = el("button", pretty(type), "choice");
        b.addEventListener("click", () => go(list[Number(pick.value)]));
        row.append(pick, b);
      } else {
        for (const a of list) {
          const b = el("button", actionLabel(a), "choice");
          b.addEventListener("click", () => go(a));
          row.appendChild(b);
        }
      }
      box.appendChild(row);
    }
  }

  function renderScores(s) {
    const box = $("scores");
    box.replaceChildren();
    if (!s.game) return;
    const table = el("table", null, "scores");
    const head = el("tr");
    for (const h of ["player", "points"]) head.appendChild(el("th", h));
    table.appendChild(head);
    for (const [side, pts] of Object.entries(s.game.scores)) {
      const tr = el("tr");
      tr.appendChild(el("td", side)); tr.appendChild(el("td", pts, "num"));
      table.appendChild(tr);
    }
    box.appendChild(table);
    if (s.game.sheet.length) {
      box.appendChild(el("h3", "History"));
      const ol = el("ol", null, "sheet");
      for (const r of s.game.sheet.slice(-30)) {
        ol.appendChild(el("li", "round " + r.round + ": " + r.side + " " + (r.points > 0 ? "+" : "") + r.points + " (" + r.reason + ")"));
      }
      box.appendChild(ol);
    }
    const links = el("p", null, "exports");
    const files = [["export.csv", "Export CSV"], ["export.json", "Export JSON"]];
    if (s.game.status === "over" && s.table.game !== "icehouse") files.push(["record.jsonl", "Game record"]);
    for (const [file, label] of files) {
      const a = el("a", label);
      a.href = "/t/" + code + "/" + file + "?game=" + s.game.number;
      links.appendChild(a); links.appendChild(document.createTextNode(" "));
    }
    box.appendChild(links);
  }

  function renderWarnings(warnings) {
    const box = $("warnings");
    box.replaceChildren();
    for (const w of warnings || []) {
      const div = el("div", null, "warning");
      div.appendChild(el("strong", pretty(w.code)));
      div.appendChild(el("span", " " + w.message));
      box.appendChild(div);
    }
  }

  // ---- host controls (built once, refreshed in place) ---------------------------------------
  function hostButton(label, path, body) {
    const b = el("button", label, "host-btn");
    b.addEventListener("click", async () => {
      const r = await send("/t/" + code + "/host/" + path, typeof body === "function" ? body() : body || {});
      if (r.ok) $("banner").textContent = label + " ✓";
    });
    return b;
  }

  function select(id, options) {
    let s = $(id);
    if (!s) { s = el("select"); s.id = id; }
    const keep = s.value;
    s.replaceChildren(...options.map(([v, label]) => { const o = el("option", label); o.value = v; return o; }));
    if (options.some(([v]) => String(v) === keep)) s.value = keep;
    return s;
  }

  function renderHost(s) {
    const box = $("host");
    if (!box) return;
    box.hidden = !s.host;
    if (!s.host) return;
    const c = $("host-controls");
    const sides = s.players.map((p) => [p.side, p.side + " (" + p.name + ")"]);
    const people = s.players.map((p) => [p.id, p.name + " (" + p.side + ")"]);
    if (!c.dataset.built) {
      c.dataset.built = "1";
      const main = el("div", null, "choices");
      main.appendChild(hostButton("Start game", "start"));
      main.appendChild(hostButton("Undo last entry", "undo"));
      main.appendChild(hostButton("End game", "end"));
      c.appendChild(main);
      const rm = el("div", null, "row");
      rm.appendChild(select("host-remove", people));
      rm.appendChild(hostButton("Remove player", "remove", () => ({player: Number($("host-remove").value)})));
      c.appendChild(rm);
      const sc = el("div", null, "row");
      sc.appendChild(select("host-side", sides));
      const pts = el("input"); pts.id = "host-points"; pts.type = "number"; pts.value = "1";
      sc.appendChild(pts);
      sc.appendChild(hostButton("Add points", "score", () => ({side: $("host-side").value, points: parseInt($("host-points").value, 10)})));
      c.appendChild(sc);
      const call = el("div", null, "row"); call.id = "host-call"; c.appendChild(call);
    }
    select("host-remove", people);
    select("host-side", sides);
    const call = $("host-call");
    call.replaceChildren();
    const pending = s.game && s.game.view && s.game.view.pending_call;
    if (pending) {
      call.appendChild(el("p", pending + " called icehouse: your ruling", "callout"));
      for (const p of s.game.players.filter((x) => x !== pending)) {
        call.appendChild(hostButton("True: " + p + " in the icehouse", "confirm", {kind: "true", icehoused: [p]}));
      }
      call.appendChild(hostButton("False call", "confirm", {kind: "false"}));
      call.appendChild(hostButton("Self call", "confirm", {kind: "self"}));
    }
  }

  function render(s) {
    const joined = !!s.me;
    if ($("join-card")) {
      $("join-card").hidden = joined;
      $("play").hidden = !joined;
      for (const input of document.querySelectorAll("#sides input")) {
        input.disabled = s.players.some((p) => p.side === input.value);
      }
      if (joined) {
        $("me").replaceChildren(el("span", s.me.name, "name"), el("span", s.me.side, "chip side-" + s.me.side));
      }
    }
    renderPlayers(s); renderGame(s); renderActions(s); renderScores(s); renderWarnings(s.warnings); renderHost(s);
  }

  function onEvent(kind, e) {
    const banner = $("banner");
    if (kind === "dice") $("die").textContent = e.name + " rolled " + e.face;
    else if (kind === "game_started") banner.textContent = "Game " + e.game + " started";
    else if (kind === "game_over") banner.textContent = "Game over";
    else if (kind === "undo") banner.textContent = "The host took back the last entry";
    else if (kind === "action") banner.textContent = e.player + ": " + pretty(e.type);
    else if (kind === "joined") banner.textContent = e.name + " joined as " + e.side;
  }

  // ---- wiring -------------------------------------------------------------------------------
  const form = $("join-form");
  if (form) {
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const side = form.querySelector("input[name=side]:checked");
      const r = await send("/t/" + code + "/join", {name: $("name").value, side: side && side.value});
      if (r.ok) location.reload();
    });
  }
  const roll = $("roll");
  if (roll) roll.addEventListener("click", () => send("/t/" + code + "/dice", {}));
  icetable.stream(code, KINDS, render, onEvent, (status) => { $("conn").textContent = status; });
})();
