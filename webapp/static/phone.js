// The phone page and the table page: both render the snapshot the server computed for them.
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const el = icetable.el;
  const app = $("app");
  const code = app.dataset.code;
  const KINDS = ["joined", "player_removed", "game_started", "action", "undo", "game_over", "dice", "report"];
  const MAX_BUTTONS = 12;
  const HEADINGS = {vote_number: "Vote: the number", vote_suit: "Vote: the suit", add_coins: "Voting coins",
                    break_tie: "Break the tie (torch)", choose_winner: "Final tie", remove_empty: "The extra empty tile",
                    end_turn: "End the turn", call: "Icehouse", crash: "Crash: you moved pieces while playing one", roll: "Roll-off", place: "Place a pyramid",
                    move: "Move", slide: "Slide a floe", pick: "Take a tile", play: "Play a coin", flip: "Flip a tile",
                    remove: "Melt a tile", fire: "Fire a cannon", repair: "Repair", transfer: "Cargo", explore: "Explore",
                    pass: "Pass"};

  const pretty = (s) => String(s).replace(/_/g, " ");
  const showError = (msg) => { $("error").textContent = msg || ""; };

  async function send(path, body) {
    showError("");
    const r = await icetable.post(path, body);
    if (!r.ok) showError(r.data.error || "refused (" + r.status + ")");
    return r;
  }

  // ---- rendering ----------------------------------------------------------------------------
  // Each player's state: to play, voted, waiting for a turn, in the icehouse.
  function renderPlayers(s) {
    const ul = $("players");
    ul.replaceChildren();
    const g = s.game && s.game.status === "playing" ? s.game : null;
    const vote = g && g.view.vote && !g.view.vote.ballots ? g.view.vote : null;
    for (const p of s.players) {
      const li = el("li", null, "player side-" + p.side);
      li.appendChild(el("span", p.name, "name"));
      li.appendChild(el("span", p.side, "chip"));
      if (p.host) li.appendChild(el("span", "host", "tag"));
      if (g && g.players.includes(p.side)) {
        const acting = g.to_act.includes(p.side);
        let state = null;
        if (vote) state = vote.voted.includes(p.side) ? ["voted ✓", "done"] : ["to vote", "waiting"];
        else if (g.view.icehouse && g.view.icehouse.includes(p.side)) state = ["in the icehouse", "waiting"];
        else if (acting && s.table.game !== "icehouse") state = ["to play", "waiting"];
        if (state) li.appendChild(el("span", state[0], "state " + state[1]));
      }
      ul.appendChild(li);
    }
  }

  const B = icetable.board;
  const rank = B.rank;
  const SIZE = B.SIZE;

  // The vote: who has voted, one's own ballot behind a tap (neighbours read phones), the reveal.
  function voteBox(v) {
    const box = el("div", null, "vote");
    box.appendChild(el("h3", "Vote on the " + v.stage));
    const word = (x) => (v.stage === "number" ? rank(x) : x);
    if (v.ballots) {
      const table = el("table", null, "scores ballots");
      for (const [side, value] of Object.entries(v.ballots)) {
        const tr = el("tr");
        tr.appendChild(el("td", side));
        tr.appendChild(el("td", word(value) + (v.void && v.void.includes(side) ? " (void)" : ""), "num"));
        table.appendChild(tr);
      }
      box.appendChild(table);
      if (v.tally && v.tally.length) box.appendChild(el("p", "Tally: " + v.tally.map(([o, n]) => word(o) + " → " + n).join(", "), "tally"));
      if (v.result !== null && v.result !== undefined) box.appendChild(el("p", "Result: " + word(v.result), "result"));
    } else {
      box.appendChild(el("p", "Voted: " + (v.voted.length ? v.voted.join(", ") : "nobody yet")));
      if ("mine" in v) {
        const secret = el("button", "Your ballot is in · tap to see it", "mine");
        secret.addEventListener("click", () => {
          secret.textContent = "Your ballot: " + word(v.mine);
          setTimeout(() => { secret.textContent = "Your ballot is in · tap to see it"; }, 3000);
        });
        box.appendChild(secret);
      }
    }
    return box;
  }

  const line = (parts) => parts.filter(Boolean).join(" · ");

  // Pieces as "black medium ×2, black small" (or "nothing").
  function counted(pieces) {
    const n = new Map();
    for (const [c, z] of pieces) n.set(c + " " + SIZE[z], (n.get(c + " " + SIZE[z]) || 0) + 1);
    return [...n].map(([what, k]) => what + (k > 1 ? " ×" + k : "")).join(", ") || "nothing";
  }

  // What a person needs beside the drawing, in words.
  function summary(view, game) {
    const out = [];
    if (game === "icefloe") {
      out.push(line([view.phase && "phase: " + pretty(view.phase), view.round ? "round " + view.round : null]));
      if (view.torch_bearer) out.push("Torch bearer: " + view.torch_bearer);
      if (view.coins) out.push("Voting coins: " + Object.entries(view.coins).map(([p, c]) => p + " " + (c.length ? c.join(" + ") : "none")).join(", "));
      if (view.end_reason) out.push("Ended: " + view.end_reason);
    } else if (game === "iceberg") {
      out.push(line([view.phase && "phase: " + pretty(view.phase), view.turn ? "turn: " + view.turn : null]));
      if (view.last_roll !== null && view.last_roll !== undefined) out.push("Last roll: " + rank(view.last_roll));
      if (view.hands) out.push("Coins in hand: " + Object.entries(view.hands).map(([p, n]) => p + " " + n).join(", "));
      if (view.out && view.out.length) out.push("Out: " + view.out.join(", "));
    } else if (game === "icepirates") {
      out.push("Treasure: " + view.treasure_color + " (small 1, medium 2) · " + view.win_threshold + " at home wins");
      for (const [id, isle] of Object.entries(view.islands || {})) {
        if (isle.explored) out.push("Island " + id.replace(/^\D+/, "") + " holds " + counted(isle.contents));
      }
      if (view.homes) out.push("At home: " + Object.entries(view.homes).map(([p, h]) => p + " " + counted(h)).join(" · "));
    } else if (game === "icehouse") {
      if (view.icehouse && view.icehouse.length) out.push("In the icehouse: " + view.icehouse.join(", "));
      for (const c of view.crashes || []) out.push("Crash: " + c.player + "'s " + B.SIZE[c.size] + " goes to " + c.to);
      if (view.timer === "rang") out.push("⏰ The timer has gone off");
    }
    return out.filter(Boolean);
  }

  let roundsOpen = false;                      // kept open across the redraws of each state

  function roundsBox(history) {
    const box = el("details", null, "rounds");
    box.open = roundsOpen;
    box.addEventListener("toggle", () => { roundsOpen = box.open; });
    box.appendChild(el("summary", "Earlier rounds (" + history.length + ")"));
    const ol = el("ol");
    for (const r of history) {
      const n = r.number || {}, su = r.suit || {};
      const text = "Round " + r.round + ": " + (r.removed ? "the " + B.floeName(r.removed) + " removed" : "no tile removed") +
        (n.result !== undefined && n.result !== null ? " (number " + rank(n.result) + ", suit " + su.result + ")" : "") +
        (r.lost && r.lost.length ? "; lost " + r.lost.map((p) => p.replace("-", " ")).join(", ") : "");
      ol.appendChild(el("li", text));
    }
    box.appendChild(ol);
    return box;
  }

  function renderView(view, box, game) {
    for (const text of summary(view, game)) box.appendChild(el("p", text, "fact"));
    if (view.vote) box.appendChild(voteBox(view.vote));
    if (view.this_round && view.this_round.number && !(view.vote && view.vote.ballots)) {
      box.appendChild(voteBox(view.this_round.number));
      if (view.this_round.suit) box.appendChild(voteBox(view.this_round.suit));
    }
    if (view.history && view.history.length) box.appendChild(roundsBox(view.history));
    if (view.calls && view.calls.length) {
      const ol = el("ol", null, "calls");
      for (const c of view.calls) ol.appendChild(el("li", c.message));
      box.appendChild(ol);
    }
  }

  function renderGame(s) {
    const box = $("game");
    box.replaceChildren();
    if (!s.game) { box.appendChild(el("p", "Waiting for the host to start a game.", "hint")); return; }
    const g = s.game;
    box.appendChild(el("p", "Game " + g.number + " · " + (g.status === "over" ? "over" : "playing"), "status"));
    if (g.winner) box.appendChild(el("p", "Winner: " + g.winner.join(", "), "winner"));
    renderView(g.view, box, s.table.game);
  }

  // Whose turn it is, in one line a person reads at a glance.
  function renderTurn(s) {
    const box = $("turn");
    if (!box) return;
    box.className = "turn";
    const g = s.game;
    if (!g) { box.textContent = s.players.length + " seated · waiting for the host to start"; return; }
    if (g.status === "over") { box.textContent = "Game over" + (g.winner ? " · winner: " + g.winner.join(", ") : ""); return; }
    const mine = s.me && g.to_act.includes(s.me.side);
    const left = g.view.actions_left;
    if (s.table.game === "icehouse") {
      box.textContent = g.view.pending_call ? g.view.pending_call + " called icehouse: the host rules"
        : s.me && g.view.icehouse.includes(s.me.side) ? "You are in the icehouse" : "Play! Call icehouse when you see it";
    } else if (mine) {
      box.classList.add("yours");
      box.textContent = "Your turn" + (left !== undefined ? " · " + left + " of 3 actions left" : "") +
        (g.view.vote ? " · vote now" : "");
    } else {
      box.textContent = "Waiting for " + g.to_act.join(", ");
    }
  }

  // Send a chosen action; the banner says what was sent once the server took it.
  async function act(a) {
    for (const x of document.querySelectorAll("#actions button, #actions select, #pick button")) x.disabled = true;
    const body = Object.assign({}, a); delete body.player;
    if (a.type === "flip" && (((state && state.game.view) || {}).options || {}).tiles === "table") {
      body.face = askFace(a.tile);                 // the face the real tile shows
      if (!body.face) {
        for (const x of document.querySelectorAll("#actions button, #actions select, #pick button")) x.disabled = false;
        return;
      }
    }
    const r = await send("/t/" + code + "/act", body);
    // a ballot is never repeated in large type where neighbours read it
    if (r.ok) $("banner").textContent = "Sent ✓ " + (a.type.startsWith("vote_") ? "your ballot" : B.label(app.dataset.game, a, (state && state.game.view) || {}));
    else for (const x of document.querySelectorAll("#actions button, #actions select, #pick button")) x.disabled = false;
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
    const game = s.table.game, view = s.game.view;
    const groups = new Map();
    for (const a of legal) {
      if (!groups.has(a.type)) groups.set(a.type, []);
      groups.get(a.type).push(a);
    }
    for (const [type, list] of groups) {
      box.appendChild(el("h3", HEADINGS[type] || pretty(type)));
      const row = el("div", null, "choices");
      if (list.length > MAX_BUTTONS) {            // many choices: a list to pick from, then one button
        const pick = el("select");
        pick.setAttribute("aria-label", HEADINGS[type] || pretty(type));
        for (const a of list) { const o = el("option", B.label(game, a, view)); o.value = JSON.stringify(a); pick.appendChild(o); }
        const b = el("button", "Send", "choice");
        b.addEventListener("click", () => act(JSON.parse(pick.value)));
        row.append(pick, b);
      } else {
        for (const a of list) {
          const b = el("button", B.label(game, a, view), "choice");
          b.dataset.action = JSON.stringify(a);
          b.addEventListener("click", () => act(a));
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
    const live = s.game.status === "playing" && Object.keys(s.camera_scores || {}).length ? s.camera_scores : null;
    const head = el("tr");
    for (const h of ["player", "points"].concat(live ? ["on the table now"] : [])) head.appendChild(el("th", h));
    table.appendChild(head);
    for (const [side, pts] of Object.entries(s.game.scores)) {
      const tr = el("tr");
      tr.appendChild(el("td", side)); tr.appendChild(el("td", pts, "num"));
      if (live) tr.appendChild(el("td", live[side] !== undefined ? live[side] : "—", "num live"));
      table.appendChild(tr);
    }
    box.appendChild(table);
    if (s.game.sheet.length) {
      box.appendChild(el("h3", "Score sheet"));
      const ol = el("ol", null, "sheet");
      for (const r of s.game.sheet.slice(-30)) {
        ol.appendChild(el("li", (r.round ? "round " + r.round + ": " : "") + r.side + " " + (r.points > 0 ? "+" : "") + r.points + " (" + r.reason + ")"));
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
      div.appendChild(el("strong", "⚠ " + pretty(w.code)));
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

  let state = null, dieShown = false;

  function render(s) {
    state = s;
    app.dataset.event = String(s.last_event);
    const joined = !!s.me;
    if ($("join-card")) {
      $("join-card").hidden = joined;
      $("play").hidden = !joined;
      for (const input of document.querySelectorAll("#sides input")) {
        input.disabled = s.players.some((p) => p.side === input.value);
      }
      const full = !joined && s.players.length >= Number($("join-card").dataset.max);
      $("full").hidden = !full;
      $("join-form").hidden = full;
      if (joined) {
        $("me").replaceChildren(el("span", s.me.name, "name"), el("span", s.me.side, "chip side-" + s.me.side));
      }
    }
    if (!dieShown && s.last_die) { $("die").textContent = s.last_die.name + " rolled " + s.last_die.face; dieShown = true; }
    if (s.game && s.game.view && s.game.view.timer === "rang") alarm("Stop! The timer has gone off");
    icetable.board.render($("board"), $("pick"), s, act);
    renderTurn(s); renderPlayers(s); renderGame(s); renderActions(s); renderScores(s); renderWarnings(s.warnings); renderHost(s);
  }

  // The Icehouse timer: large on the screen, with a vibration and a beep where the phone allows.
  let alarmed = false;
  function alarm(text) {
    if (alarmed) return;
    alarmed = true;
    const box = $("alarm");
    box.textContent = text;
    box.appendChild(el("span", "tap to close", "hint"));
    box.hidden = false;
    box.addEventListener("click", () => { box.hidden = true; }, {once: true});
    if (navigator.vibrate) navigator.vibrate([400, 200, 400, 200, 400]);
    try {
      const audio = new (window.AudioContext || window.webkitAudioContext)();
      const tone = audio.createOscillator();
      tone.frequency.value = 880;
      tone.connect(audio.destination);
      tone.start();
      tone.stop(audio.currentTime + 1.2);
    } catch (e) { /* no sound on this device */ }
  }

  function onEvent(kind, e) {
    const banner = $("banner");
    if (kind === "dice") { $("die").textContent = e.name + " rolled " + e.face; dieShown = true; }
    else if (kind === "game_started") { alarmed = false; banner.textContent = "Game " + e.game + " started"; }
    else if (kind === "game_over") banner.textContent = "Game over" + (e.winner ? ": " + e.winner.join(", ") + " won" : "");
    else if (kind === "undo") banner.textContent = "The host took back the last entry";
    else if (kind === "action") {
      const view = (state && state.game && state.game.view) || {};
      banner.textContent = e.log && e.log.length ? e.log.map((t) => B.words(app.dataset.game, view, t)).join(" · ")
        : e.player + ": " + pretty(e.type);
    }
    else if (kind === "joined") banner.textContent = e.name + " joined as " + e.side;
    if (kind === "action" && e.log && e.log.some((t) => /ballots:/.test(t))) banner.classList.add("reveal");
    else if (kind === "action") banner.classList.remove("reveal");
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
