// icetable: helpers shared by every page. No framework, no build step, no network beyond this server.
"use strict";

const icetable = {
  // POST a JSON body to this server; resolves to {ok, status, data}.
  async post(path, body) {
    const response = await fetch(path, {
      method: "POST", credentials: "same-origin",
      headers: {"Content-Type": "application/json"}, body: JSON.stringify(body || {}),
    });
    let data = {};
    try { data = await response.json(); } catch (e) { data = {}; }
    return {ok: response.ok, status: response.status, data};
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
