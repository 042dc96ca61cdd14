// A phone as the table camera: getUserMedia -> canvas -> JPEG POSTs to /t/<code>/camera/frame.
"use strict";
(() => {
  const code = document.getElementById("cam").dataset.code;
  const video = document.getElementById("preview"), canvas = document.getElementById("grab");
  const says = document.getElementById("camsays");
  const start = document.getElementById("start"), stop = document.getElementById("stop");
  const WIDTH = 1280, PERIOD_MS = 200;
  let stream = null, timer = null, busy = false;

  async function send() {
    if (busy || !video.videoWidth) return;
    busy = true;
    const scale = Math.min(1, WIDTH / video.videoWidth);
    canvas.width = Math.round(video.videoWidth * scale);
    canvas.height = Math.round(video.videoHeight * scale);
    canvas.getContext("2d").drawImage(video, 0, 0, canvas.width, canvas.height);
    canvas.toBlob(async (blob) => {
      try {
        const r = await fetch("/t/" + code + "/camera/frame", {method: "POST", credentials: "same-origin",
          headers: {"Content-Type": "image/jpeg"}, body: blob});
        says.textContent = r.ok ? "sending " + canvas.width + "x" + canvas.height : "refused: " + r.status;
      } catch (e) { says.textContent = "the server cannot be reached: retrying"; }
      busy = false;
    }, "image/jpeg", 0.85);
  }

  start.addEventListener("click", async () => {
    if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
      says.textContent = "this browser gives no camera here (it needs https or localhost)";
      return;
    }
    try {
      stream = await navigator.mediaDevices.getUserMedia({video: {facingMode: "environment",
        width: {ideal: 1920}, height: {ideal: 1080}}, audio: false});
    } catch (e) { says.textContent = "no camera: " + e.name; return; }
    video.srcObject = stream;
    await video.play();
    timer = setInterval(send, PERIOD_MS);
    start.hidden = true; stop.hidden = false;
  });
  stop.addEventListener("click", () => {
    clearInterval(timer);
    if (stream) stream.getTracks().forEach((t) => t.stop());
    start.hidden = false; stop.hidden = true; says.textContent = "stopped";
  });
})();
