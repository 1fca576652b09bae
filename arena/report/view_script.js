(function () {
  "use strict";
  var F = null, step = 0, viewer = 0, timer = null, openPaths = {"": true};
  function $(id) { return document.getElementById(id); }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined) { e.textContent = text; }
    return e;
  }
  function option(select, value, label) {
    var o = el("option", "", label);
    o.value = String(value);
    select.appendChild(o);
  }
  function bot(seat) { return "seat " + seat + " (" + F.bots[seat] + ")"; }
  function ms(x) { return x >= 1000 ? (x / 1000).toFixed(2) + " s" : (+x).toFixed(1) + " ms"; }

  async function read() {
    var text = atob($("film").textContent.trim());
    var bytes = new Uint8Array(text.length);
    for (var i = 0; i < text.length; i++) { bytes[i] = text.charCodeAt(i); }
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
    return JSON.parse(await new Response(stream).text());
  }

  function setup() {
    var last = F.steps.length - 1;
    $("slider").max = String(last);
    F.viewers.forEach(function (label, v) { option($("viewer"), v, label); });
    var rounds = $("round"), seen = {};
    option(rounds, "", "round…");
    F.steps.forEach(function (s, k) {
      if (s.round !== null && s.round !== undefined && !(s.round in seen)) {
        seen[s.round] = k;
        option(rounds, k, "round " + s.round);
      }
    });
    F.bots.forEach(function (_, s) { option($("seat"), s, bot(s)); });
    $("first").onclick = function () { go(0); };
    $("prev").onclick = function () { go(step - 1); };
    $("next").onclick = function () { go(step + 1); };
    $("last").onclick = function () { go(last); };
    $("play").onclick = toggle;
    $("speed").onchange = function () { if (timer !== null) { stop(); toggle(); } };
    $("slider").oninput = function () { go(+$("slider").value); };
    $("viewer").onchange = function () { viewer = +$("viewer").value; go(step); };
    rounds.onchange = function () { if (rounds.value !== "") { go(+rounds.value); } };
    $("seat-next").onclick = function () {
      var seat = +$("seat").value;
      for (var k = step + 1; k <= last; k++) {
        if (F.steps[k].decision && F.steps[k].decision.seat === seat) { go(k); return; }
      }
    };
    var failing = F.steps.map(function (s, k) {
      return (s.failures || (s.decision && s.decision.by === "fallback")) ? k : -1;
    }).filter(function (k) { return k >= 0; });
    $("failure").disabled = failing.length === 0;
    $("failure").textContent = failing.length ? "next failure (" + failing.length + ")" :
      "no failure";
    $("failure").onclick = function () {
      var after = failing.filter(function (k) { return k > step; });
      go(after.length ? after[0] : failing[0]);
    };
    document.addEventListener("keydown", function (e) {
      var t = e.target && e.target.tagName;
      if (t === "SELECT" || t === "INPUT" || e.altKey || e.ctrlKey || e.metaKey) { return; }
      var to = {ArrowLeft: step - 1, ArrowRight: step + 1, Home: 0, End: last}[e.key];
      if (to !== undefined) { go(to); e.preventDefault(); }
      else if (e.key === " ") { toggle(); e.preventDefault(); }
    });
  }

  function stop() {
    if (timer !== null) { clearInterval(timer); timer = null; }
    $("play").textContent = "▶ play";
  }
  function toggle() {
    if (timer !== null) { stop(); return; }
    if (step >= F.steps.length - 1) { go(0); }
    timer = setInterval(function () {
      if (step >= F.steps.length - 1) { stop(); } else { go(step + 1); }
    }, 1000 / +$("speed").value);
    $("play").textContent = "❚❚ pause";
  }

  function go(k) {
    step = Math.max(0, Math.min(F.steps.length - 1, k));
    var s = F.steps[step], last = F.steps.length - 1;
    $("slider").value = String(step);
    $("where").textContent = "step " + step + " of " + last +
      (s.round !== null && s.round !== undefined ? " · round " + s.round : "") +
      (s.to_act !== null && s.to_act !== undefined ? " · " + bot(s.to_act) + " to act"
        : " · game over");
    decision(s);
    scores(s, step === last);
    board();
    document.body.setAttribute("data-step", String(step));
  }

  function decision(s) {
    var box = $("decision");
    box.textContent = "";
    var d = s.decision;
    if (!d) {
      box.appendChild(el("p", "muted", "The opening position: no decision yet."));
    } else {
      var p = el("p");
      p.appendChild(el("b", "", bot(d.seat)));
      p.appendChild(document.createTextNode(" chose option " + (d.choice + 1) + " of " +
        d.options + ":"));
      box.appendChild(p);
      box.appendChild(el("code", "action", JSON.stringify(d.action)));
      var t = el("p", "", d.by === "fallback" ? "" : "took " + ms(d.ms));
      if (d.bank_ms !== null && d.bank_ms !== undefined) {
        t.textContent += (t.textContent ? "; " : "") + "bank left " + ms(d.bank_ms);
      }
      box.appendChild(t);
      if (d.by === "fallback") {
        box.appendChild(el("p", "bad", "chosen by the random fallback, not the bot"));
      }
    }
    (s.failures || []).forEach(function (f) { box.appendChild(el("p", "bad", f)); });
    if (step === F.steps.length - 1) {
      F.terminations.forEach(function (t) {
        if (t.reason !== "ok") {
          box.appendChild(el("p", "bad", bot(t.seat) + " ended: " + t.reason +
            (t.detail ? ": " + t.detail : "")));
        }
      });
    }
  }

  function scores(s, end) {
    var body = $("scores").tBodies[0];
    body.textContent = "";
    F.bots.forEach(function (_, seat) {
      var row = el("tr", seat === s.to_act ? "acting" : "");
      row.appendChild(el("td", "", String(seat)));
      row.appendChild(el("td", "l", F.bots[seat]));
      var score = end && F.result.scores ? F.result.scores[seat] :
        (s.scores ? s.scores[seat] : "–");
      row.appendChild(el("td", "", String(score) + (end && F.ranks.length ?
        " (rank " + F.ranks[seat] + ")" : "")));
      var parts = s.breakdown ? s.breakdown[seat] : (end && F.result.breakdown ?
        F.result.breakdown[seat] : null);
      row.appendChild(el("td", "l parts", parts ? Object.keys(parts).filter(function (k) {
        return parts[k] !== 0;
      }).map(function (k) { return k.replace(/_/g, " ") + " " + parts[k]; }).join(", ") : ""));
      body.appendChild(row);
    });
  }

  function board() {
    var frame = F.frames[F.shown[viewer][step]], box = $("board");
    if (F.drawn) {
      box.innerHTML = frame.map(function (i) { return F.parts[i]; }).join("");
      return;
    }
    box.textContent = "";
    box.appendChild(tree("", JSON.parse(F.parts[frame[0]]), ""));
  }

  function tree(key, value, path) {
    if (value === null || typeof value !== "object") {
      var leaf = el("div", "leaf");
      if (key !== "") { leaf.appendChild(el("span", "key", key + ": ")); }
      leaf.appendChild(el("span", "v", JSON.stringify(value)));
      return leaf;
    }
    var keys = Object.keys(value), node = el("details");
    node.open = !!openPaths[path];
    node.appendChild(el("summary", "", (key === "" ? "position" : key) +
      (Array.isArray(value) ? " [" + keys.length + "]" : " {" + keys.length + "}")));
    node.addEventListener("toggle", function () { openPaths[path] = node.open; });
    keys.forEach(function (k) { node.appendChild(tree(k, value[k], path + "/" + k)); });
    return node;
  }

  read().then(function (film) {
    F = film;
    setup();
    go(0);
    window.arenaReady = performance.now();
  }).catch(function (e) {
    $("board").textContent = "This page's game could not be read: " + e;
    throw e;
  });
}());
