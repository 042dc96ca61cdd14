// The table screen's live camera view: the picture, the referee's overlay drawn over it in SVG,
// camera trouble, and (for the host) confirming or correcting a piece by touching it.
"use strict";
(() => {
  const root = document.getElementById("camera");
  const code = root.dataset.cameraCode;
  const img = document.getElementById("camimg"), svg = document.getElementById("overlay");
  const NS = "http://www.w3.org/2000/svg";
  const COLOURS = ["red", "yellow", "blue", "green", "black", "purple", "orange", "clear", "cyan", "white"];
  let selectedShip = null, host = false, current = null;
  // Camera trouble as a person says it; the live loop's message follows with the details.
  const TROUBLE = {off: "No camera", starting: "The camera is starting", lost: "The camera is lost",
                   frozen: "The picture is frozen", dark: "The picture is too dark", no_mat: "The mat is not in view",
                   mat_hidden: "Part of the mat is hidden", stalled: "The camera has stopped"};

  function shape(tag, attrs, text) {
    const node = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    return node;
  }
  const pts = (points) => points.map((p) => p[0].toFixed(1) + "," + p[1].toFixed(1)).join(" ");

  function draw(data) {
    svg.replaceChildren();
    if (!data.size) return;
    svg.setAttribute("viewBox", "0 0 " + data.size[0] + " " + data.size[1]);
    for (const s of (data.overlay.shapes || [])) {
      if (s.ship && s.ship !== selectedShip) continue;
      const cls = "ov-" + s.kind + " " + (s.class || "");
      if (s.kind === "line") svg.appendChild(shape("polyline", {points: pts(s.points), class: cls}));
      else if (s.kind === "text") svg.appendChild(shape("text", {x: s.at[0], y: s.at[1], class: cls}, s.text));
      else if (s.kind === "region") svg.appendChild(shape("path", {d: s.rings.map((r) => "M" + pts(r) + "Z").join(" "),
        class: "ov-area " + cls}));
      else {
        const poly = shape("polygon", {points: pts(s.points), class: cls});
        if (s.kind === "piece") {
          poly.addEventListener("click", () => pick(s));
          poly.appendChild(shape("title", {}, s.label || s.id));
        }
        svg.appendChild(poly);
      }
    }
  }

  function pick(s) {
    if (s.ship !== undefined || s.movable) selectedShip = s.id === selectedShip ? null : s.id;
    if (current) draw(current);
    if (!host) return;
    document.getElementById("fix").hidden = false;
    document.getElementById("fixid").textContent = s.id;
    document.getElementById("fixwhat").textContent = "The camera reads: " + (s.label || s.id);
    document.getElementById("fix").dataset.id = s.id;
  }

  function warnings(list) {
    const box = document.getElementById("camwarnings");
    box.replaceChildren();
    for (const w of list || []) {
      const div = icetable.el("div", null, "warning");
      div.appendChild(icetable.el("strong", (w.code || "").replace(/_/g, " ")));
      div.appendChild(document.createTextNode(" " + (w.message || "")));
      box.appendChild(div);
    }
  }

  async function tick() {
    try {
      const r = await fetch("/t/" + code + "/camera/overlay.json", {credentials: "same-origin"});
      const data = await r.json();
      if (!r.ok) throw new Error(data.error || r.status);
      current = data; host = data.host;
      root.hidden = data.status === "off" && !data.size;
      for (const hint of document.querySelectorAll(".camlink")) hint.hidden = !root.hidden;
      document.getElementById("camstatus").textContent = data.status === "ok" ? "working" : (TROUBLE[data.status] || data.status);
      const trouble = document.getElementById("trouble");
      trouble.hidden = data.status === "ok";
      trouble.textContent = data.status === "ok" ? "" : (TROUBLE[data.status] || "Camera") + ": " + data.message;
      if (data.size) img.src = "/t/" + code + "/camera/image.jpg?t=" + Date.now();
      draw(data);
      if (!document.getElementById("warnings")) warnings(data.overlay.warnings);  // the table page shows them already
    } catch (e) {
      document.getElementById("camstatus").textContent = "no connection";
    }
  }

  const colour = document.getElementById("fixcolor");
  for (const c of COLOURS) colour.appendChild(icetable.el("option", c));
  const fixId = () => document.getElementById("fix").dataset.id;
  document.getElementById("fixconfirm").addEventListener("click", () =>
    icetable.post("/t/" + code + "/camera/correct", {id: fixId(), confirm: true}));
  document.getElementById("fixsend").addEventListener("click", () =>
    icetable.post("/t/" + code + "/camera/correct", {id: fixId(), color: colour.value,
      size: Number(document.getElementById("fixsize").value)}));
  document.getElementById("fixclose").addEventListener("click", () => {
    document.getElementById("fix").hidden = true;
  });
  tick();
  setInterval(tick, 500);
})();
