// icetable: helpers shared by every page. No framework, no build step, no network beyond this server.
"use strict";

// Host actions that cannot be taken back by a tap: the page asks first.
const CONFIRM = {
  "/host/end": "End this game now for everyone?",
  "/host/remove": "Remove this player from the table? A ballot he has cast in the open vote is withdrawn.",
};
const OFFLINE = "Cannot reach the table's server: your tap was not sent. Check the Wi-Fi, then tap again.";

let lastTap = null, lastTapAt = 0;      // the button tapped last: disabled while its request is out
document.addEventListener("click", (e) => {
  const button = e.target.closest ? e.target.closest("button") : null;
  if (button) { lastTap = button; lastTapAt = Date.now(); }
}, true);

// A random id for one tap: the server applies a request once, however often it arrives.
function requestId() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// A line at the top of the page while the server cannot be reached.
function offline(down) {
  let line = document.getElementById("icetable-offline");
  if (!line && down) {
    line = document.body.appendChild(document.createElement("div"));
    line.id = "icetable-offline";
    line.setAttribute("role", "alert");
    line.textContent = OFFLINE;
    Object.assign(line.style, {position: "fixed", top: "0", left: "0", right: "0", padding: "0.6em",
      background: "#b00020", color: "#fff", zIndex: "1000", textAlign: "center"});
  }
  if (line) line.hidden = !down;
}

const icetable = {
  // POST a JSON body to this server; resolves to {ok, status, data}. The tapped button is
  // disabled until the answer; a request that meets no server is sent again (same id) twice,
  // then the page says so; End game and Remove player ask to confirm first.
  async post(path, body) {
    const ask = Object.keys(CONFIRM).find((end) => path.endsWith(end));
    if (ask && !window.confirm(CONFIRM[ask])) return {ok: false, status: 0, data: {error: "cancelled"}};
    const button = Date.now() - lastTapAt < 1000 ? lastTap : null;
    if (button) button.disabled = true;
    const init = {
      method: "POST", credentials: "same-origin", body: JSON.stringify(body || {}),
      headers: {"Content-Type": "application/json", "X-Request-Id": requestId()},
    };
    try {
      for (let attempt = 1; ; attempt++) {
        let response;
        try {
          response = await fetch(path, init);
        } catch (e) {                  // no answer at all: the server is down or the phone offline
          if (attempt < 3) { await new Promise((r) => setTimeout(r, 800 * attempt)); continue; }
          offline(true);
          return {ok: false, status: 0, data: {error: OFFLINE}};
        }
        offline(false);
        let data = {};
        try { data = await response.json(); } catch (e) { data = {}; }
        return {ok: response.ok, status: response.status, data};
      }
    } finally {
      if (button) button.disabled = false;
    }
  },

  // An element with text (never HTML) and optional class.
  el(tag, text, cls) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (cls) node.className = cls;
    return node;
  },

  // One event stream per page. Reconnects when the phone wakes up, resuming after the last id.
  stream(code, kinds, onState, onEvent, onStatus) {
    let source = null, lastId = null;
    const open = () => {
      if (source) source.close();
      const since = lastId !== null ? "?since=" + lastId : "";
      source = new EventSource("/t/" + code + "/events" + since);
      source.onopen = () => onStatus("live");
      source.onerror = () => onStatus(source.readyState === EventSource.CLOSED ? "closed" : "reconnecting…");
      source.addEventListener("state", (e) => onState(JSON.parse(e.data)));
      for (const kind of kinds) {
        source.addEventListener(kind, (e) => {
          if (e.lastEventId) lastId = e.lastEventId;
          onEvent(kind, JSON.parse(e.data));
        });
      }
      source.addEventListener("removed", () => { source.close(); onStatus("removed"); location.reload(); });
    };
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") open();
    });
    window.addEventListener("pageshow", (e) => { if (e.persisted) open(); });
    open();
  },
};
