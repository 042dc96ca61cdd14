"use strict";
document.getElementById("new-table").addEventListener("submit", async (e) => {
  e.preventDefault();
  const game = document.getElementById("game").value;
  const options = {};
  if (game === "icehouse") options.timer_minutes = Number(document.getElementById("timer").value);
  const r = await icetable.post("/tables", {game, options});
  if (r.ok) location.href = r.data.table_url;
  else document.getElementById("error").textContent = r.data.error || "could not create the table";
});
