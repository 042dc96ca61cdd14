// Drawn boards (SVG) of the four games: the same drawing on the phone and the table page, the
// game's own names for pieces and choices, and choices made by tapping on the drawing.
//
// Each drawn thing that can be tapped carries keys ("t:<tile>", "p:<pyramid>", "x:<piece>", ...).
// Every legal action has one or more key paths (a pyramid, then the tile to move it to); a tap
// follows the paths, highlights what can be tapped next, and offers the matching choices as
// buttons in the pick box. Nothing is sent until a button is pressed.
"use strict";

(() => {
  const NS = "http://www.w3.org/2000/svg";
  const SUIT = {suns: "#c8102e", moons: "#222222", crowns: "#1e7b1e", arms: "#1f4fbf"};
  const SUIT_TINT = {suns: "#ffe3e3", moons: "#e6e6e6", crowns: "#dff5df", arms: "#e0e9ff"};
  const COLOUR = {red: "#d32f2f", yellow: "#f9c80e", blue: "#1565c0", green: "#2e7d32", black: "#212121",
                  purple: "#7b1fa2", orange: "#ef6c00", clear: "#dff7fb", cyan: "#00bcd4", white: "#fafafa"};
  const SIZE = {1: "small", 2: "medium", 3: "large"};
  const LOONEY_BASE = {1: 14.29, 2: 19.84, 3: 25.40}, LOONEY_LENGTH = {1: 26.39, 2: 36.31, 3: 46.23};
  const PP_WEIGHT = {A: 1, B: 1, C: 2, D: 2, E: 3, F: 3};
  const MAX_WEIGHT = 5;
  const COLS = "ABCDEFGHIJ";

  // ---- names ----------------------------------------------------------------------------------
  const RANK_WORDS = {0: "null", 1: "ace"};
  const rank = (r) => (r in RANK_WORDS ? RANK_WORDS[r] : String(r));
  const tileName = (t) => (t && t.suit ? rank(t.rank) + " of " + t.suit : "face-down tile");
  // IceFloe tile ids are "<suit>-<rank>" ("suns-1" is the ace of suns), on the board or gone.
  const floeName = (id) => { const [suit, r] = String(id).split("-"); return tileName({suit, rank: Number(r)}); };
  const cellName = (cell) => COLS[cell[0]] + (cell[1] + 1);
  // An Iceberg square (a quarter of a tile): "C4 top left".
  const squareName = (s) => cellName([Math.floor(s[0] / 2), Math.floor(s[1] / 2)]) + (s[1] % 2 ? " bottom" : " top") + (s[0] % 2 ? " right" : " left");
  const ordinal = (id) => (String(id).match(/(\d+)$/) || ["", ""])[1];

  // A piece of a scene (Ice Pirates, Icehouse) in words: "red large 2", "island 3", "blue's home".
  function pieceName(view, id) {
    const p = scenePieces(view)[id];
    if (!p) return String(id);
    if (p.type === "card") return (p.owner || "a") + "'s home";
    const islands = view.islands || {};
    if (id in islands) return "island " + ordinal(id);
    return [p.color, SIZE[p.size], ordinal(id)].filter(Boolean).join(" ");
  }

  const cargo = (list) => (list.length ? list.map(([c, s]) => c + " " + SIZE[s]).join(" and ") : "nothing");

  // The label of a legal action, in the game's words.
  function label(game, a, view) {
    const t = a.type;
    if (t === "end_turn") return "End my turn";
    if (t === "roll") return "Roll the die";
    if (t === "call") return "Call icehouse!";
    if (t === "crash") return "I crashed playing a " + SIZE[a.size] + ": it goes to " + a.to;
    if (t === "pass") return "Pass";
    if (game === "icefloe") {
      const tiles = (view.board && view.board.tiles) || {};
      const at = (cell) => Object.keys(tiles).find((k) => tiles[k].cell[0] === cell[0] && tiles[k].cell[1] === cell[1]);
      if (t === "place") return "Place " + a.size + " on the " + floeName(a.tile);
      if (t === "move") return "Move " + a.pyramid.replace("-", " ") + " to the " + floeName(at(a.to));
      if (t === "slide") return "Slide the " + floeName(a.tile) + " to " + cellName(a.to);
      if (t === "vote_number") return rank(a.value);
      if (t === "vote_suit") return a.value;
      if (t === "add_coins") return "Coin" + (a.coins.length > 1 ? "s " : " ") + a.coins.join(" + ") + " on " + rank(a.value);
      if (t === "break_tie") return typeof a.value === "number" ? rank(a.value) : a.value;
      if (t === "remove_empty") return "Blow up the empty " + floeName(a.tile);
      if (t === "pick") return "Take the " + floeName(a.tile);
      if (t === "choose_winner") return (a.winners.length > 1 ? "Shared: " : "Winner: ") + a.winners.join(", ");
    }
    if (game === "iceberg") {
      const tiles = view.tiles || {};
      const square = (s) => { const tile = Object.values(tiles).find((x) => x.cell[0] === Math.floor(s[0] / 2) && x.cell[1] === Math.floor(s[1] / 2));
        return squareName(s) + (tile && tile.suit ? " (" + tileName(tile) + ")" : ""); };
      if (t === "play") return "Play a coin on " + square(a.square);
      if (t === "move") return "Move " + a.coin.replace("-", " coin ") + " to " + square(a.to);
      if (t === "flip") return "Flip tile " + cellName(tiles[a.tile].cell);
      if (t === "remove") return "Melt the " + tileName(tiles[a.tile]) + " at " + cellName(tiles[a.tile].cell);
    }
    if (game === "icepirates") {
      const n = (id) => pieceName(view, id);
      if (t === "move") return n(a.ship) + ": " + moveWords(view, a);
      if (t === "fire") return n(a.ship) + " fires at " + n(a.target);
      if (t === "repair") return "Repair " + n(a.ship);
      if (t === "explore") return "Explore " + n(a.island) + " with " + n(a.ship);
      if (t === "transfer") {
        return n(a.ship) + (a.take.length ? " takes " + cargo(a.take) + " from " : " gives " + cargo(a.give) + " to ") + n(a.with);
      }
    }
    return t.replace(/_/g, " ");
  }

  // "2 steps, turning 20° left" from the ship's pose and the move's end pose.
  function moveWords(view, a) {
    const p = scenePieces(view)[a.ship];
    if (!p) return "move";
    const steps = Math.max(1, Math.round(Math.hypot(a.to.x - p.x, a.to.y - p.y) / LOONEY_LENGTH[p.size]));
    let turn = ((a.to.heading - p.heading) % 360 + 540) % 360 - 180;
    turn = Math.round(turn);
    const how = turn === 0 ? "straight on" : "turning " + Math.abs(turn) + "° " + (turn > 0 ? "right" : "left");
    return steps + " step" + (steps > 1 ? "s" : "") + ", " + how;
  }

  function scenePieces(view) {
    const scene = view.scene || view.camera_scene;
    const out = {};
    for (const p of (scene && scene.pieces) || []) out[p.id] = p;
    return out;
  }

  // The referee's sentences with piece ids put in the game's words: "red-S1 hits blue-M1" reads
  // "red small 1 hits blue medium 1", Iceberg's "tile t23" reads "tile C4", "suns-2" "suns coin 2".
  function words(game, view, text) {
    const pieces = scenePieces(view);
    const at = String(text).replace(/\[(\d+), (\d+)\]/g, (_, a, b) => (game === "iceberg" ? squareName : cellName)([Number(a), Number(b)]));
    return at.replace(/[A-Za-z]+(?:-[A-Za-z]*\d*)?\d*/g, (id) => {
      if (game === "icepirates" && pieces[id]) return pieceName(view, id);
      if (game === "iceberg" && /^t\d\d$/.test(id)) return cellName([Number(id[1]), Number(id[2])]);
      if (game === "iceberg" && /^(suns|moons|crowns|arms)-\d+$/.test(id)) return id.replace("-", " coin ");
      if (game === "icefloe" && /^(suns|moons|crowns|arms)-[A-F]$/.test(id)) return id.replace("-", " ");
      return id;
    });
  }

  // ---- key paths of the legal actions ---------------------------------------------------------
  function paths(game, a, view) {
    const t = a.type;
    if (game === "icefloe") {
      const tiles = (view.board && view.board.tiles) || {};
      const at = (cell) => Object.keys(tiles).find((k) => tiles[k].cell[0] === cell[0] && tiles[k].cell[1] === cell[1]);
      const where = (test) => Object.keys(tiles).filter((k) => test(tiles[k])).map((k) => ["t:" + k]);
      if (t === "place" || t === "remove_empty" || t === "pick") return [["t:" + a.tile]];
      if (t === "move") return [["p:" + a.pyramid, "t:" + at(a.to)]];
      if (t === "slide") return [["t:" + a.tile, "c:" + a.to.join(",")]];
      if (t === "vote_number" || (t === "break_tie" && typeof a.value === "number")) return where((x) => x.rank === a.value);
      if (t === "vote_suit" || t === "break_tie") return where((x) => x.suit === a.value);
    }
    if (game === "iceberg") {
      if (t === "play") return [["s:" + a.square.join(",")]];
      if (t === "move") return [["k:" + a.coin, "s:" + a.to.join(",")]];
      if (t === "flip" || t === "remove") return [["t:" + a.tile]];
    }
    if (game === "icepirates") {
      if (t === "move") return [["x:" + a.ship, "d:" + [a.to.x, a.to.y, a.to.heading].join(",")]];
      if (t === "repair") return [["x:" + a.ship]];
      if (t === "fire") return [["x:" + a.ship, "x:" + a.target]];
      if (t === "explore") return [["x:" + a.ship, "x:" + a.island]];
      if (t === "transfer") return [["x:" + a.ship, "x:" + a.with]];
    }
    return [];
  }

  // ---- SVG helpers ----------------------------------------------------------------------------
  function make(tag, attrs, text) {
    const node = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = String(text);
    return node;
  }
  const pts = (list) => list.map((p) => p[0].toFixed(1) + "," + p[1].toFixed(1)).join(" ");

  function lyingTriangle(x, y, heading, size) {
    const r = (heading || 0) * Math.PI / 180, ux = Math.cos(r), uy = Math.sin(r);
    const bx = x - ux * LOONEY_LENGTH[size], by = y - uy * LOONEY_LENGTH[size], h = LOONEY_BASE[size] / 2;
    return [[x, y], [bx - uy * h, by + ux * h], [bx + uy * h, by - ux * h]];
  }

  function rectangle(x, y, w, h, angle) {
    const r = (angle || 0) * Math.PI / 180, c = Math.cos(r), s = Math.sin(r);
    return [[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]].map(([a, b]) => [x + a * c - b * s, y + a * s + b * c]);
  }

  function footprint(p) {
    if (p.type === "card") return rectangle(p.x, p.y, p.width || 148, p.height || 105, p.angle);
    if (p.type === "pyramid" && p.pose === "lying") return lyingTriangle(p.x, p.y, p.heading, p.size);
    const side = p.type === "pyramid" ? LOONEY_BASE[p.size] || 20 : 20;
    return rectangle(p.x, p.y, side, side, p.angle);
  }

  const centre = (poly) => [poly.reduce((s, p) => s + p[0], 0) / poly.length, poly.reduce((s, p) => s + p[1], 0) / poly.length];

  // A drawing under construction: the svg, what can be tapped, and the view box.
  class Drawing {
    constructor(box, cls) {
      this.svg = make("svg", {class: "board " + cls, viewBox: box.join(" "), role: "img"});
      this.targets = [];
      this.unit = box[2] / 320;                 // drawing units per pixel on a 320 px wide phone
    }
    // A label that reads at 15 px or more on a phone, whatever the drawing's scale.
    label(x, y, text, parent) {
      return this.add(make("text", {x, y, class: "mm-label", "text-anchor": "middle", "font-size": 15 * this.unit,
                                    "stroke-width": 3 * this.unit}, text), parent);
    }
    add(node, parent) { (parent || this.svg).appendChild(node); return node; }
    // A tappable group at (x, y) with `keys` (the first key that leads somewhere wins).
    spot(keys, x, y, parent) {
      const g = this.add(make("g", {"data-keys": keys.join(" "), class: "spot"}), parent);
      this.targets.push({keys, x, y, node: g});
      return g;
    }
  }

  // ---- IceFloe ------------------------------------------------------------------------------
  function icefloe(view, legal) {
    const S = 100, board = view.board || {tiles: {}, pyramids: {}};
    const cells = Object.values(board.tiles).map((t) => t.cell);
    for (const a of legal) if (a.type === "slide") cells.push(a.to);
    for (let c = 0; c < 5; c++) for (let r = 0; r < 5; r++) cells.push([c, r]);
    const xs = cells.map((c) => c[0]), ys = cells.map((c) => c[1]);
    const [x0, y0, x1, y1] = [Math.min(...xs), Math.min(...ys), Math.max(...xs) + 1, Math.max(...ys) + 1];
    const torch = view.torch_bearer ? 44 : 0;    // a row under the floes for the torch
    const d = new Drawing([x0 * S - 6, y0 * S - 6, (x1 - x0) * S + 12, (y1 - y0) * S + 12 + torch], "icefloe");
    if (torch) {
      const [tx, ty] = [x0 * S + 10, y1 * S + 8];
      const g = d.add(make("g", {class: "torch", "data-name": "torch: " + view.torch_bearer}));
      g.appendChild(make("rect", {x: tx + 6, y: ty + 14, width: 6, height: 18, fill: "#6d4c41"}));
      g.appendChild(make("path", {d: `M${tx + 9},${ty} C${tx + 20},${ty + 8} ${tx + 16},${ty + 14} ${tx + 9},${ty + 15} ` +
                                     `C${tx + 2},${ty + 14} ${tx - 2},${ty + 8} ${tx + 9},${ty}Z`, fill: "#ff6d00"}));
      g.appendChild(make("text", {x: tx + 24, y: ty + 26, class: "suit torch-text", fill: SUIT[view.torch_bearer]},
                         "torch: " + view.torch_bearer));
    }
    const taken = new Set(Object.values(board.tiles).map((t) => t.cell.join(",")));
    for (let c = x0; c < x1; c++) {
      for (let r = y0; r < y1; r++) {
        if (taken.has(c + "," + r)) continue;
        const g = d.spot(["c:" + c + "," + r], c * S + S / 2, r * S + S / 2);
        g.appendChild(make("rect", {x: c * S + 6, y: r * S + 6, width: S - 12, height: S - 12, rx: 10, class: "water"}));
      }
    }
    const on = {};
    for (const [pid, p] of Object.entries(board.pyramids)) (on[p.tile] = on[p.tile] || []).push([pid, p]);
    for (const [tid, t] of Object.entries(board.tiles)) {
      const [cx, cy] = [t.cell[0] * S, t.cell[1] * S];
      const weight = (on[tid] || []).reduce((w, [, p]) => w + (PP_WEIGHT[p.size] || 0), 0);
      const g = d.spot(["t:" + tid], cx + S / 2, cy + S / 2);
      g.classList.add("tile");
      g.dataset.name = tileName(t);
      g.appendChild(make("title", {}, tileName(t)));
      g.appendChild(make("rect", {x: cx + 4, y: cy + 4, width: S - 8, height: S - 8, rx: 10, fill: SUIT_TINT[t.suit] || "#eee",
                                  stroke: weight > MAX_WEIGHT ? "#d50000" : SUIT[t.suit] || "#000",
                                  "stroke-width": weight > MAX_WEIGHT ? 10 : 4, class: weight > MAX_WEIGHT ? "overweight" : ""}));
      g.appendChild(make("text", {x: cx + 12, y: cy + 34, class: "rank", fill: SUIT[t.suit]}, rank(t.rank)));
      g.appendChild(make("text", {x: cx + S - 10, y: cy + S - 12, class: "suit", "text-anchor": "end", fill: SUIT[t.suit]}, t.suit));
      if (weight) {                              // the floe's load (5 at most) in a badge at its corner
        const heavy = weight > MAX_WEIGHT;
        const badge = make("g", {class: "weight" + (heavy ? " heavy" : "")});
        badge.appendChild(make("title", {}, "weight " + weight + " of " + MAX_WEIGHT + (heavy ? ": overweight" : "")));
        badge.appendChild(make("circle", {cx: cx + 18, cy: cy + S - 18, r: 13}));
        badge.appendChild(make("text", {x: cx + 18, y: cy + S - 12, "text-anchor": "middle"}, heavy ? weight + "!" : weight));
        g.appendChild(badge);
      }
      const list = on[tid] || [];
      list.forEach(([pid, p], i) => {
        const px = cx + S / 2 + (i - (list.length - 1) / 2) * 36, py = cy + S / 2 + 2;
        const h = 15 + 4 * (PP_WEIGHT[p.size] || 1);
        const pg = d.spot(["p:" + pid, "t:" + tid], px, py);
        pg.classList.add("pyramid");
        pg.dataset.name = p.suit + " " + p.size;
        pg.appendChild(make("title", {}, p.suit + " pyramid " + p.size));
        pg.appendChild(make("polygon", {points: pts([[px, py - h], [px - h * 0.8, py + h * 0.6], [px + h * 0.8, py + h * 0.6]]),
                                        fill: SUIT[p.suit], stroke: "#fff", "stroke-width": 3}));
        pg.appendChild(make("text", {x: px, y: py + h * 0.45, class: "letter", "text-anchor": "middle"}, p.size));
      });
    }
    return d;
  }

  // ---- Iceberg ------------------------------------------------------------------------------
  function iceberg(view) {
    const S = 100, d = new Drawing([-6, -6, 5 * S + 12, 5 * S + 12], "iceberg");
    for (const [tid, t] of Object.entries(view.tiles || {})) {
      const [cx, cy] = [t.cell[0] * S, t.cell[1] * S];
      const g = d.spot(["t:" + tid], cx + S / 2, cy + S / 2);
      g.classList.add("tile", t.face === "up" ? "up" : "down");
      g.dataset.name = t.face === "up" ? tileName(t) : "face down " + cellName(t.cell);
      g.appendChild(make("rect", {x: cx + 3, y: cy + 3, width: S - 6, height: S - 6, rx: 8,
                                  fill: t.face === "up" ? SUIT_TINT[t.suit] : "#9aa7b4", stroke: t.face === "up" ? SUIT[t.suit] : "#39424c", "stroke-width": 4}));
      if (t.face === "up") {
        g.appendChild(make("text", {x: cx + S / 2, y: cy + S / 2 + 12, class: "rank", "text-anchor": "middle", fill: SUIT[t.suit]}, rank(t.rank)));
        g.appendChild(make("text", {x: cx + S / 2, y: cy + S - 10, class: "suit", "text-anchor": "middle", fill: SUIT[t.suit]}, t.suit));
      } else {
        g.appendChild(make("text", {x: cx + S / 2, y: cy + S / 2 + 10, class: "cellname", "text-anchor": "middle"}, cellName(t.cell)));
      }
      for (let q = 0; q < 4; q++) {           // the tile's four squares, where coins stand
        const sx = 2 * t.cell[0] + (q % 2), sy = 2 * t.cell[1] + (q > 1 ? 1 : 0);
        d.spot(["s:" + sx + "," + sy, "t:" + tid], sx * S / 2 + S / 4, sy * S / 2 + S / 4, g)
          .appendChild(make("rect", {x: sx * S / 2 + 4, y: sy * S / 2 + 4, width: S / 2 - 8, height: S / 2 - 8, class: "square"}));
      }
    }
    for (const [cid, c] of Object.entries(view.coins || {})) {
      const [x, y] = [c.square[0] * S / 2 + S / 4, c.square[1] * S / 2 + S / 4];
      const g = d.spot(["k:" + cid], x, y);
      g.classList.add("coin");
      g.dataset.name = cid.replace("-", " coin ");
      g.appendChild(make("circle", {cx: x, cy: y, r: 19, fill: SUIT[c.suit], stroke: "#fff", "stroke-width": 4}));
      g.appendChild(make("text", {x, y: y + 8, class: "letter", "text-anchor": "middle"}, ordinal(cid)));
    }
    return d;
  }

  // ---- scenes: Ice Pirates and Icehouse ---------------------------------------------------------
  function sceneBox(scene, focus) {
    const area = scene.area || {width: 1000, height: 1000};
    if (focus) return [focus[0] - 160, focus[1] - 160, 320, 320];
    const ps = scene.pieces || [];
    if (!ps.length) return [0, 0, area.width, area.height];
    const xs = ps.map((p) => p.x), ys = ps.map((p) => p.y);
    const [x0, y0] = [Math.min(...xs) - 80, Math.min(...ys) - 60];
    const side = Math.max(Math.max(...xs) + 80 - x0, Math.max(...ys) + 60 - y0);
    return [x0, y0, side, side];
  }

  function drawPiece(d, p, name, cls) {
    const poly = footprint(p);
    const [x, y] = centre(poly);
    const g = d.spot(["x:" + p.id], x, y);
    g.classList.add("piece", ...cls);
    g.dataset.name = name;
    g.appendChild(make("title", {}, name));
    const colour = COLOUR[p.color] || COLOUR[p.owner] || p.color || "#888";
    if (p.type === "card") {
      g.appendChild(make("polygon", {points: pts(poly), fill: colour, "fill-opacity": 0.35, stroke: "#000", "stroke-width": 3}));
      d.label(x, y + 5 * d.unit, name, g);
    } else {
      g.appendChild(make("polygon", {points: pts(poly), fill: colour, stroke: p.color === "black" ? "#fff" : "#000",
                                     "stroke-width": 2, class: "shape"}));
      if (p.pose !== "lying") {
        const s = poly;
        g.appendChild(make("polyline", {points: pts([s[0], s[2]]), stroke: "#777", "stroke-width": 1.5}));
        g.appendChild(make("polyline", {points: pts([s[1], s[3]]), stroke: "#777", "stroke-width": 1.5}));
      }
    }
    return g;
  }

  function icepirates(view, legal, selected) {
    const scene = view.scene || {pieces: []};
    const ships = view.ships || {}, islands = view.islands || {};
    const own = selected && selected.startsWith("x:") ? scenePieces(view)[selected.slice(2)] : null;
    const d = new Drawing(sceneBox(scene, own && ships[own.id] ? [own.x, own.y] : null), "icepirates");
    d.add(make("rect", {x: -2000, y: -2000, width: 5000, height: 5000, class: "sea"}));
    const areas = (view.areas || {})[own && own.id] || {};
    for (const rings of areas.reach || []) d.add(make("path", {d: rings.map((r) => "M" + pts(r) + "Z").join(" "), class: "reach"}));
    for (const poly of areas.cannons || []) d.add(make("polygon", {points: pts(poly), class: "cannon"}));
    for (const p of scene.pieces) {
      const ship = ships[p.id];
      const cls = [p.type === "card" ? "home" : p.id in islands ? "island" : ship ? "ship" : "other"];
      if (ship && ship.disabled) cls.push("disabled");
      if (ship && ship.damage) cls.push("damaged");
      const g = drawPiece(d, p, pieceName(view, p.id), cls);
      const [x, y] = centre(footprint(p));
      if (ship) {
        for (let i = 0; i < ship.damage; i++) g.appendChild(make("circle", {cx: x - 6 + 8 * i, cy: y - 16, r: 4, class: "hit"}));
        ship.cargo.forEach(([c, s], i) => g.appendChild(make("rect", {x: x - 8 + 9 * i, y: y + 12, width: 3 + 2 * s, height: 3 + 2 * s,
                                                                       fill: COLOUR[c], stroke: "#000", "stroke-width": 1})));
      }
      if (p.id in islands) d.label(x, y - 9 * d.unit, ordinal(p.id) + (islands[p.id].explored ? " ✓" : ""), g);
    }
    if (own) {                                  // the selected ship's moves as ghosts to tap
      for (const a of legal) {
        if (a.type !== "move" || a.ship !== own.id) continue;
        const g = d.spot(["d:" + [a.to.x, a.to.y, a.to.heading].join(",")], a.to.x, a.to.y);
        g.classList.add("ghost");               // the ship's outline there; its tip is the spot to tap
        g.appendChild(make("polygon", {points: pts(lyingTriangle(a.to.x, a.to.y, a.to.heading, own.size))}));
        g.appendChild(make("circle", {cx: a.to.x, cy: a.to.y, r: 3.2, class: "tip"}));
      }
    }
    return d;
  }

  function icehouse(view, legal, selected, warned) {
    const scene = view.camera_scene;
    if (!scene || !scene.pieces) return null;
    const status = view.camera_status || {};
    const defenders = status.defenders || {}, attackers = status.attackers || {};
    const area = scene.area || {width: 1000, height: 1000};
    const d = new Drawing(sceneBox(scene), "icehouse");
    d.add(make("rect", {x: 0, y: 0, width: area.width, height: area.height, class: "tabletop"}));
    const byId = scenePieces(view);
    for (const p of scene.pieces) {
      const cls = [p.pose === "lying" ? "attacker" : "defender"];
      const def = defenders[p.id] || {};
      if (def.iced) cls.push("iced");
      if (def.over_iced) cls.push("over-iced");
      if (warned.has(p.id)) cls.push("warned");
      const name = [p.color, SIZE[p.size], p.pose === "lying" ? "attacking" : "standing"].join(" ");
      const g = drawPiece(d, p, name, cls);
      const [x, y] = centre(footprint(p));
      if (def.iced) g.appendChild(make("circle", {cx: x, cy: y, r: 22, class: "ice-ring"}));
      if (def.over_iced) d.label(x, y - 26, "over-iced", g);
    }
    for (const [aid, a] of Object.entries(attackers)) {
      const tip = byId[aid];
      if (!tip) continue;
      const target = byId[a.target];
      const r = (tip.heading || 0) * Math.PI / 180;
      const end = target ? [target.x, target.y] : [tip.x + 40 * Math.cos(r), tip.y + 40 * Math.sin(r)];
      d.add(make("line", {x1: tip.x, y1: tip.y, x2: end[0], y2: end[1], class: "arrow" + (a.problem ? " illegal" : ""),
                          "marker-end": "url(#head)"}));
    }
    const defs = make("defs");
    const marker = make("marker", {id: "head", viewBox: "0 0 10 10", refX: 8, refY: 5, markerWidth: 5, markerHeight: 5, orient: "auto"});
    marker.appendChild(make("path", {d: "M0,0 L10,5 L0,10 z", class: "arrowhead"}));
    defs.appendChild(marker);
    d.svg.prepend(defs);
    return d;
  }

  // ---- the controller: draw, follow taps, offer the matching choices --------------------------
  const DRAW = {icefloe, iceberg, icepirates, icehouse};
  let selected = null, tapped = null;       // the first step of a path taken, the keys tapped last

  // Draw `state`'s board into `box`; `pickBox` gets the choices the taps lead to; `send(action)`
  // sends one. Returns false when the game has nothing to draw.
  function render(box, pickBox, state, send) {
    const game = state.table.game;
    const view = Object.assign({}, (state.game && state.game.view) || {});
    if (state.camera_scene) { view.camera_scene = state.camera_scene; view.camera_status = state.camera_status; }
    const legal = (state.game && state.game.legal) || [];
    const routes = legal.flatMap((a) => paths(game, a, view).map((path) => ({path, a})));
    if (selected && !routes.some((r) => r.path.length > 1 && r.path[0] === selected)) { selected = null; tapped = null; }
    const warned = new Set((state.warnings || []).flatMap((w) => w.pieces || []));
    const d = DRAW[game] && (state.game || game === "icehouse") ? DRAW[game](view, legal, selected, warned) : null;
    box.replaceChildren();
    if (pickBox) pickBox.replaceChildren();
    if (!d) return false;
    box.appendChild(d.svg);
    for (const t of d.targets) if (t.keys.some((k) => warned.has(k.slice(2)))) t.node.classList.add("warned");
    const second = (k) => selected && routes.some((r) => r.path[0] === selected && r.path[1] === k);
    const starts = (k) => routes.some((r) => r.path[0] === k && (r.path.length > 1 || !selected));
    for (const t of d.targets) {               // marked by its own key (a pyramid's tile key only helps taps)
      if (tapped && tapped.includes(t.keys[0])) t.node.classList.add("picked");
      if (t.keys[0] === selected) t.node.classList.add("sel");
      else if (second(t.keys[0]) || (!selected && starts(t.keys[0]))) t.node.classList.add("can");
    }
    d.svg.addEventListener("click", (e) => {
      const m = d.svg.getScreenCTM();
      if (!m) return;
      const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(m.inverse());
      const reach = 30 / m.a;                   // 30 screen pixels around a tap
      const hit = e.target.closest ? e.target.closest(".spot") : null;
      let best = null;
      for (const t of d.targets) {
        const keys = t.keys.filter((k) => k === selected || second(k) || starts(k));
        const dist = Math.hypot(t.x - p.x, t.y - p.y), inside = hit === t.node;
        if (keys.length && (inside || dist < reach) &&
            (!best || (inside && !best.inside) || (inside === best.inside && dist < best.dist))) best = {keys, dist, inside};
      }
      if (!best) return;
      tap(best.keys, routes);
      render(box, pickBox, state, send);
    });
    if (pickBox) offer(pickBox, choices(routes), state, send);
    return true;
  }

  // A tap on a spot with `keys`: on the selection it drops it; the second step of a path taken
  // from the selection is offered; the first step of longer paths selects; one-step paths are offered.
  function tap(keys, routes) {
    if (keys.includes(selected)) { selected = null; tapped = null; return; }
    if (selected && routes.some((r) => r.path[0] === selected && keys.includes(r.path[1]))) { tapped = keys; return; }
    const first = keys.find((k) => routes.some((r) => r.path.length > 1 && r.path[0] === k));
    selected = first || null;
    tapped = first ? null : keys;
  }

  // The choices the taps so far lead to (still legal in the state drawn now).
  function choices(routes) {
    if (selected && !tapped) return routes.filter((r) => r.path.length === 1 && r.path[0] === selected);
    if (!tapped) return [];
    return routes.filter((r) => (selected ? r.path[0] === selected && tapped.includes(r.path[1])
                                          : r.path.length === 1 && tapped.includes(r.path[0])));
  }

  // The choices a tap leads to, as buttons (nothing is sent before a button is pressed).
  function offer(pickBox, found, state, send) {
    if (!pickBox) return;
    const game = state.table.game, view = state.game.view;
    const seen = new Set(), unique = [];
    for (const r of found) { const s = JSON.stringify(r.a); if (!seen.has(s)) { seen.add(s); unique.push(r.a); } }
    pickBox.replaceChildren();
    if (selected) {
      pickBox.appendChild(icetable.el("p", "Selected: " + keyName(game, view, selected) + " — tap a marked place (or it again to let go)", "hint"));
    }
    for (const a of unique) {
      const b = icetable.el("button", (a.type.startsWith("vote_") ? "Vote " : "") + label(game, a, view), "choice send");
      b.dataset.action = JSON.stringify(a);
      b.addEventListener("click", () => { selected = null; tapped = null; send(a); });
      pickBox.appendChild(b);
    }
  }

  function keyName(game, view, key) {
    const id = key.slice(2);
    if (game === "icepirates") return pieceName(view, id);
    if (game === "icefloe" && key.startsWith("p:")) return id.replace("-", " ");
    if (game === "icefloe" && key.startsWith("t:")) return "the " + floeName(id);
    if (game === "iceberg" && key.startsWith("k:")) return id.replace("-", " coin ");
    return id;
  }

  icetable.board = {render, label, words, rank, pieceName, floeName, cellName, SIZE};
})();
