// The tracking page's live updates: every few seconds ask the page's data-live-url for the
// booking's state (the same dict the page was rendered from, bookings.selectors
// .booking_tracking_state) and redraw the status, the driver and the timeline when its
// version changes, and the car's position on every answer. Plain polling: it works behind any server, WSGI or ASGI.
(function () {
  "use strict";
  var root = document.getElementById("tracking");
  if (!root || !window.fetch) return;
  var url = root.getAttribute("data-live-url");
  var every = parseInt(root.getAttribute("data-poll-ms"), 10) || 4000;
  var version = root.getAttribute("data-version");

  function text(id, value) {
    var node = document.getElementById(id);
    if (node) node.textContent = value;
    return node;
  }

  function when(moment) {
    return moment ? moment.text + " UK time (" + moment.zone + ")" : "";
  }

  function driverWords(driver) {
    if (!driver) return "Not yet assigned. We will show your driver here as soon as one accepts.";
    var words = driver.name;
    var v = driver.vehicle;
    if (v) words += " \u00b7 " + [v.colour, v.make, v.model].join(" ") + ", registration " + v.registration;
    return words + " (licensed by " + driver.licensingAuthority + ")";
  }

  function drawTimeline(steps) {
    var list = document.getElementById("timeline");
    if (!list) return;
    list.replaceChildren.apply(list, steps.map(function (step, i) {
      var item = document.createElement("li");
      if (i === steps.length - 1) item.className = "current";
      item.appendChild(document.createTextNode(step.words));
      var span = document.createElement("span");
      span.className = "when";
      var time = document.createElement("time");
      time.dateTime = step.at.iso;
      time.textContent = when(step.at);
      span.appendChild(time);
      item.appendChild(span);
      return item;
    }));
  }

  function draw(state) {
    var status = text("status", state.statusWords);
    if (status) status.setAttribute("data-status", state.status);
    text("driver", driverWords(state.driver));
    var payment = text("payment", state.payment.words);
    if (payment) payment.setAttribute("data-payment-state", state.payment.state);
    var pickup = text("pickup-time", when(state.pickupTime));
    if (pickup) pickup.dateTime = state.pickupTime.iso;
    var code = document.getElementById("pickup-code-line");
    if (code) code.hidden = !state.pickupCode;
    drawTimeline(state.timeline);
    drawMap(state.map);
    var cancel = document.getElementById("cancel-line");
    if (cancel) cancel.hidden = !state.cancellable;
    if (state.finished) text("live-note", "This booking is finished.");
    root.setAttribute("data-version", String(state.version));
  }

  function drawPosition(position) {
    var node = text("driver-position", position ? position.words : "");
    if (node) node.hidden = !position;
  }

  var SVG = "http://www.w3.org/2000/svg";

  function svgNode(name, attrs, text) {
    var node = document.createElementNS(SVG, name);
    Object.keys(attrs).forEach(function (key) { node.setAttribute(key, attrs[key]); });
    if (text) node.textContent = text;
    return node;
  }

  // A sketch of the pickup, the drop-off and (when given) the driver: the points placed by
  // latitude and longitude (longitude shrunk by cos(latitude)), fitted into the box.
  function drawMap(points) {
    var box = document.getElementById("map");
    var card = document.getElementById("map-card");
    if (!box || !points || !points.pickup || !points.dropoff) return;
    var marks = [["pickup", "Pickup"], ["dropoff", "Drop-off"], ["driver", "Your driver"]]
      .filter(function (m) { return points[m[0]]; });
    var width = 600, height = 240, pad = 48;
    var midLat = (points.pickup[0] + points.dropoff[0]) / 2;
    var squeeze = Math.cos(midLat * Math.PI / 180);
    var xy = marks.map(function (m) { return [points[m[0]][1] * squeeze, -points[m[0]][0]]; });
    var xs = xy.map(function (p) { return p[0]; }), ys = xy.map(function (p) { return p[1]; });
    var minX = Math.min.apply(null, xs), minY = Math.min.apply(null, ys);
    var span = Math.max(Math.max.apply(null, xs) - minX, Math.max.apply(null, ys) - minY, 1e-6);
    var scale = Math.min((width - 2 * pad) / span, (height - 2 * pad) / span);
    var offX = (width - (Math.max.apply(null, xs) - minX) * scale) / 2;
    var offY = (height - (Math.max.apply(null, ys) - minY) * scale) / 2;
    var at = xy.map(function (p) { return [offX + (p[0] - minX) * scale, offY + (p[1] - minY) * scale]; });
    var svg = svgNode("svg", {
      viewBox: "0 0 " + width + " " + height, role: "img",
      "aria-label": "Sketch: " + marks.map(function (m) { return m[1]; }).join(", "),
    });
    svg.appendChild(svgNode("line", { "class": "route", x1: at[0][0], y1: at[0][1], x2: at[1][0], y2: at[1][1] }));
    // Labels never overlap (a 1-mile trip puts the points a few pixels apart at 390 px):
    // each is moved down until its box is clear of the labels already placed.
    var placed = [];
    var LINE = 30;  // a label's height in viewBox units, with room (the text is scaled up on phones)
    marks.forEach(function (m, i) {
      var x = at[i][0], y = at[i][1];
      svg.appendChild(m[0] === "dropoff"
        ? svgNode("rect", { "class": m[0], x: x - 8, y: y - 8, width: 16, height: 16 })
        : svgNode("circle", { "class": m[0], cx: x, cy: y, r: m[0] === "driver" ? 10 : 8 }));
      var left = x > width / 2;
      var w = m[1].length * 14;
      var x0 = left ? x - 14 - w : x + 14, x1 = x0 + w;
      var ly = y + 5;
      var clash = function (box) { return x0 < box[1] && box[0] < x1 && Math.abs(ly - box[2]) < LINE; };
      while (placed.some(clash)) ly += LINE;
      if (ly > height - 4) ly = Math.max(16, y + 5 - LINE * placed.length);
      placed.push([x0, x1, ly]);
      svg.appendChild(svgNode("text", { x: left ? x - 14 : x + 14, y: ly, "text-anchor": left ? "end" : "start" }, m[1]));
    });
    box.replaceChildren(svg);
    card.hidden = false;
  }

  function poll() {
    fetch(url, { headers: { Accept: "application/json" }, cache: "no-store" })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (state) {
        if (state && String(state.version) !== version) {
          version = String(state.version);
          draw(state);
        }
        // The car moves between events: its position is redrawn on every answer.
        if (state) {
          drawPosition(state.driverPosition);
          drawMap(state.map);
        }
        if (!state || !state.finished) setTimeout(poll, every);
      })
      .catch(function () { setTimeout(poll, every * 2); });
  }

  var first = document.getElementById("tracking-state");
  if (first) drawMap(JSON.parse(first.textContent).map);
  if (root.getAttribute("data-finished") !== "true") setTimeout(poll, every);
})();
