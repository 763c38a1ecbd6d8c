"use strict";
// The observation text a Claude seat is sent, rendered one way everywhere: on a human
// seat's page and in the replay inspector.
function renderObservation(box, text, label) {
  box.replaceChildren();
  const details = document.createElement("details");
  details.className = "observation";
  details.open = true;
  const summary = document.createElement("summary");
  summary.textContent = label || "what a Claude seat is sent now";
  const pre = document.createElement("pre");
  pre.className = "observation-text";
  pre.textContent = text || "(none)";
  details.append(summary, pre);
  box.append(details);
  return details;
}
